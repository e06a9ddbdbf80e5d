//! Output goals: each distinct kind of result of a call (`true`/`false`, `None`/`Some`,
//! `Ok`/`Err` and which variant, a panic) is an objective of its own, next to the edges. A
//! function that returns a comparison directly has no branch for it, yet a test per outcome is
//! what a reader wants to see (EvoSuite's output coverage).
//!
//! Method goals sit beside them: each public function or method of the selected code is a goal,
//! covered by a test in which a call of it returns (EvoSuite's method-no-exception coverage). A
//! setter or a constructor without branches of its own covers no edge another test has not
//! covered already, yet a user expects a test that calls it.

use crate::test_case::FinishedTest;
use hermetic_protocol::{Observed, Outcome};
use std::collections::{BTreeMap, BTreeSet};

/// Output goals found so far, numbered after the edge goals.
pub struct Outputs {
    first_id: usize,
    ids: BTreeMap<String, usize>,
    /// The callables whose outcomes count: the selected code's functions and methods (not
    /// struct literals or enum variants, whose "outcome" is the value they were given).
    eligible: BTreeSet<usize>,
    /// The method goal of each public callable (twins of one function share theirs).
    methods: BTreeMap<usize, usize>,
    /// The method goals' ids, from `first_method` on.
    method_ids: BTreeSet<usize>,
}

impl Outputs {
    /// `boolean` lists the eligible callables that return `bool`: both their outcomes are
    /// goals from the start, so the search keeps looking for the one it has not seen (a
    /// comparison returned directly has no branch that would ask for it).
    ///
    /// `public` names the public callables, each with the function it is (`module::Type::name`,
    /// the same for the twins analysis made of one generic function): each function is a
    /// method goal from the start.
    pub fn new(
        edge_goals: usize,
        eligible: BTreeSet<usize>,
        boolean: &[usize],
        public: &[(usize, String)],
    ) -> Outputs {
        let mut o = Outputs {
            first_id: edge_goals,
            ids: BTreeMap::new(),
            eligible,
            methods: BTreeMap::new(),
            method_ids: BTreeSet::new(),
        };
        for c in boolean.iter().filter(|c| o.eligible.contains(c)) {
            for b in [true, false] {
                let next = o.first_id + o.ids.len();
                o.ids.insert(format!("{c}:{b}"), next);
            }
        }
        for (c, function) in public.iter().filter(|(c, _)| o.eligible.contains(c)) {
            let next = o.first_id + o.ids.len();
            let id = *o.ids.entry(format!("called {function}")).or_insert(next);
            o.methods.insert(*c, id);
            o.method_ids.insert(id);
        }
        o
    }

    /// The goals known before any execution (both outcomes of boolean functions, and a call
    /// of each public function).
    pub fn expected(&self) -> impl Iterator<Item = usize> + '_ {
        self.ids
            .iter()
            .filter(|(k, _)| k.ends_with(":true") || k.ends_with(":false"))
            .map(|(_, &id)| id)
            .chain(self.method_ids.iter().copied())
    }

    /// The output goal of a test's last call, numbering it if it is new, and the method goals
    /// of its calls that returned.
    pub fn goal(&mut self, test: &FinishedTest) -> Vec<usize> {
        let returned = test.report.stmts.len().min(test.case.stmts.len());
        let mut goals: Vec<usize> = test.case.stmts[..returned]
            .iter()
            .filter_map(|s| self.methods.get(&s.callable).copied())
            .collect();
        goals.sort_unstable();
        goals.dedup();
        let Some(last) = test.case.stmts.last() else {
            return goals;
        };
        if !self.eligible.contains(&last.callable) {
            return goals;
        }
        if let Some(key) = key(test) {
            let next = self.first_id + self.ids.len();
            goals.push(*self.ids.entry(key).or_insert(next));
        }
        goals
    }

    /// How many method goals there are.
    pub fn methods(&self) -> usize {
        self.method_ids.len()
    }

    /// Whether a goal id is a method goal.
    pub fn is_method(&self, goal: usize) -> bool {
        self.method_ids.contains(&goal)
    }

    /// The goal's key (`<callable>:<shape>`), for debug output.
    pub fn describe(&self, goal: usize) -> String {
        self.ids
            .iter()
            .find(|(_, &id)| id == goal)
            .map_or_else(|| goal.to_string(), |(k, _)| k.clone())
    }

    /// Whether a goal id is an output goal.
    pub fn is_output(&self, goal: usize) -> bool {
        goal >= self.first_id
    }
}

/// `"<callable>:<shape>"` for the last statement, when its result has a shape worth a test.
fn key(test: &FinishedTest) -> Option<String> {
    let last = test.case.stmts.last()?;
    let shape = match &test.report.outcome {
        Outcome::Panicked { .. } => "panic".to_string(),
        Outcome::Completed => shape(test.report.stmts.last()?.returned.as_ref()?)?,
        _ => return None,
    };
    Some(format!("{}:{shape}", last.callable))
}

fn shape(o: &Observed) -> Option<String> {
    Some(match o {
        Observed::Bool(b) => b.to_string(),
        Observed::Opt(None) => "None".into(),
        Observed::Opt(Some(_)) => "Some".into(),
        Observed::Ok(inner) => format!(
            "Ok{}",
            shape(inner).map(|s| format!("({s})")).unwrap_or_default()
        ),
        Observed::Err(inner) => format!(
            "Err{}",
            shape(inner).map(|s| format!("({s})")).unwrap_or_default()
        ),
        Observed::Variant(name, _) => name.clone(),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_case::{Stmt, TestCase};
    use hermetic_protocol::{ExecReport, StmtReport};

    fn returning(o: Observed) -> FinishedTest {
        FinishedTest {
            case: TestCase {
                home: 0,
                stmts: vec![Stmt {
                    callable: 3,
                    args: vec![],
                }],
                env: Default::default(),
            },
            report: ExecReport {
                stmts: vec![StmtReport {
                    returned: Some(o),
                    stored: false,
                }],
                ..ExecReport::empty(Outcome::Completed)
            },
            uses_private: false,
            uses_mocks: false,
            uses_fakes: false,
            unseen_fakes: Vec::new(),
            assertions: None,
        }
    }

    #[test]
    fn outcomes_of_a_call_are_goals_of_their_own() {
        let mut o = Outputs::new(10, BTreeSet::from([3]), &[], &[]);
        let t = o.goal(&returning(Observed::Bool(true)));
        let f = o.goal(&returning(Observed::Bool(false)));
        assert_eq!((t, f), (vec![10], vec![11]));
        assert_eq!(o.goal(&returning(Observed::Bool(true))), [10]);
        let err = Observed::Err(Box::new(Observed::Variant("Full".into(), vec![])));
        assert_eq!(o.goal(&returning(err)), [12]);
        assert!(o.goal(&returning(Observed::Int(3))).is_empty());
        assert!(o.is_output(12) && !o.is_output(9));
    }

    #[test]
    fn both_outcomes_of_a_boolean_function_are_goals_from_the_start() {
        let mut o = Outputs::new(10, BTreeSet::from([3, 4]), &[3, 5], &[]);
        let expected: BTreeSet<usize> = o.expected().collect();
        assert_eq!(expected, BTreeSet::from([10, 11]));
        let t = o.goal(&returning(Observed::Bool(true)));
        assert!(expected.contains(&t[0]));
    }

    #[test]
    fn a_public_function_is_a_goal_met_by_a_call_that_returns_whatever_its_result() {
        // Callables 3 and 4 are twins of one function; 5 is private (not listed).
        let public = [(3, "m::T::set".to_string()), (4, "m::T::set".to_string())];
        let mut o = Outputs::new(10, BTreeSet::from([3, 4, 5]), &[], &public);
        assert_eq!(o.methods(), 1);
        assert_eq!(o.expected().collect::<Vec<_>>(), [10]);
        assert!(o.is_method(10) && o.is_output(10));
        // A unit result has no outcome of its own, but the call is the method's goal.
        assert_eq!(o.goal(&returning(Observed::Unit)), [10]);
        // Only statements that returned count: here the report has none.
        let mut panicked = returning(Observed::Unit);
        panicked.report.stmts.clear();
        panicked.report.outcome = Outcome::Panicked {
            message: String::new(),
            stmt: 0,
        };
        assert_eq!(o.goal(&panicked), [11]);
        // The twin's call meets the same goal.
        let mut twin = returning(Observed::Int(1));
        twin.case.stmts[0].callable = 4;
        assert_eq!(o.goal(&twin), [10]);
    }
}
