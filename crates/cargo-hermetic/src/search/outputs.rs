//! Output goals: each distinct kind of result of a call (`true`/`false`, `None`/`Some`,
//! `Ok`/`Err` and which variant, a panic) is an objective of its own, next to the edges. A
//! function that returns a comparison directly has no branch for it, yet a test per outcome is
//! what a reader wants to see (EvoSuite's output coverage).

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
}

impl Outputs {
    /// `boolean` lists the eligible callables that return `bool`: both their outcomes are
    /// goals from the start, so the search keeps looking for the one it has not seen (a
    /// comparison returned directly has no branch that would ask for it).
    pub fn new(edge_goals: usize, eligible: BTreeSet<usize>, boolean: &[usize]) -> Outputs {
        let mut o = Outputs {
            first_id: edge_goals,
            ids: BTreeMap::new(),
            eligible,
        };
        for c in boolean.iter().filter(|c| o.eligible.contains(c)) {
            for b in [true, false] {
                let next = o.first_id + o.ids.len();
                o.ids.insert(format!("{c}:{b}"), next);
            }
        }
        o
    }

    /// The goals known before any execution (both outcomes of boolean functions).
    pub fn expected(&self) -> impl Iterator<Item = usize> + '_ {
        self.ids
            .iter()
            .filter(|(k, _)| k.ends_with(":true") || k.ends_with(":false"))
            .map(|(_, &id)| id)
    }

    /// The output goal of a test's last call, numbering it if it is new.
    pub fn goal(&mut self, test: &FinishedTest) -> Option<usize> {
        if !self.eligible.contains(&test.case.stmts.last()?.callable) {
            return None;
        }
        let key = key(test)?;
        let next = self.first_id + self.ids.len();
        Some(*self.ids.entry(key).or_insert(next))
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
                outcome: Outcome::Completed,
                stmts: vec![StmtReport {
                    returned: Some(o),
                    stored: false,
                }],
                covered: vec![],
                cmp_ints: vec![],
                cmp_bytes: vec![],
                cmp_closest: vec![],
                env: Default::default(),
                sandbox_blocked: 0,
                mock_calls: Vec::new(),
                reached_mutants: Vec::new(),
                finals: Vec::new(),
            },
            uses_private: false,
            uses_mocks: false,
            assertions: None,
        }
    }

    #[test]
    fn outcomes_of_a_call_are_goals_of_their_own() {
        let mut o = Outputs::new(10, BTreeSet::from([3]), &[]);
        let t = o.goal(&returning(Observed::Bool(true))).unwrap();
        let f = o.goal(&returning(Observed::Bool(false))).unwrap();
        assert_eq!((t, f), (10, 11));
        assert_eq!(o.goal(&returning(Observed::Bool(true))), Some(10));
        let err = Observed::Err(Box::new(Observed::Variant("Full".into(), vec![])));
        assert_eq!(o.goal(&returning(err)), Some(12));
        assert_eq!(o.goal(&returning(Observed::Int(3))), None);
        assert!(o.is_output(12) && !o.is_output(9));
    }

    #[test]
    fn both_outcomes_of_a_boolean_function_are_goals_from_the_start() {
        let mut o = Outputs::new(10, BTreeSet::from([3, 4]), &[3, 5]);
        let expected: BTreeSet<usize> = o.expected().collect();
        assert_eq!(expected, BTreeSet::from([10, 11]));
        let t = o.goal(&returning(Observed::Bool(true))).unwrap();
        assert!(expected.contains(&t));
    }
}
