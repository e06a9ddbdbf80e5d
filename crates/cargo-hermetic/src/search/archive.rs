//! The archive: for each covered goal, the best test that covers it (seed 003 §III-A). A test
//! without fakes beats one with them (seed 000: isolated tests are the last resort), then a test
//! with fewer other crutches (private access, mocks), whatever their sizes; then the shorter
//! test wins. Tests the last run wrote that still cover are kept as they are
//! ([`Archive::keep`]): no later test displaces them.

use crate::test_case::{FinishedTest, TestCase};
use std::collections::{BTreeMap, BTreeSet};

#[derive(Default)]
pub struct Archive {
    /// Distinct tests kept, by id.
    tests: BTreeMap<usize, FinishedTest>,
    /// For each covered goal, the id of its test.
    best: BTreeMap<usize, usize>,
    next_id: usize,
    /// The ids of the tests kept from the last run.
    kept: BTreeSet<usize>,
}

fn rank(t: &FinishedTest) -> (bool, usize, usize) {
    (
        t.uses_fakes,
        usize::from(t.uses_private) + usize::from(t.uses_mocks),
        t.case.stmts.len() + super::env::gene_count(&t.case.env),
    )
}

impl Archive {
    /// Offers a test that covers `goals`; returns how many goals it newly covers.
    pub fn offer(&mut self, test: &FinishedTest, goals: &[usize]) -> usize {
        let mut improved = Vec::new();
        let mut new = 0;
        for &g in goals {
            match self.best.get(&g) {
                None => {
                    new += 1;
                    improved.push(g);
                }
                Some(id) if !self.kept.contains(id) && rank(test) < rank(&self.tests[id]) => {
                    improved.push(g)
                }
                _ => {}
            }
        }
        if improved.is_empty() {
            return 0;
        }
        let id = self.next_id;
        self.next_id += 1;
        self.tests.insert(id, test.clone());
        for g in improved {
            self.best.insert(g, id);
        }
        self.tests
            .retain(|id, _| self.kept.contains(id) || self.best.values().any(|b| b == id));
        new
    }

    /// Keeps a test of the last run that covers `goals`: it stays whatever comes later (even
    /// when other kept tests cover all its goals: the last run wrote it for a reason), and
    /// stays the best test of the goals no kept test had.
    pub fn keep(&mut self, test: &FinishedTest, goals: &[usize]) {
        let id = self.next_id;
        self.next_id += 1;
        self.tests.insert(id, test.clone());
        self.kept.insert(id);
        for &g in goals {
            self.best.entry(g).or_insert(id);
        }
    }

    /// Forgets the tests `unwanted` picks (never one kept from the last run); each goal that
    /// was theirs goes to the best remaining test that covers it (`goals_of`), if any.
    pub fn forget(
        &mut self,
        unwanted: impl Fn(&FinishedTest) -> bool,
        mut goals_of: impl FnMut(&FinishedTest) -> Vec<usize>,
    ) {
        let gone: BTreeSet<usize> = self
            .tests
            .iter()
            .filter(|(id, t)| !self.kept.contains(id) && unwanted(t))
            .map(|(id, _)| *id)
            .collect();
        if gone.is_empty() {
            return;
        }
        self.tests.retain(|id, _| !gone.contains(id));
        let freed: BTreeSet<usize> = self
            .best
            .iter()
            .filter(|(_, id)| gone.contains(id))
            .map(|(g, _)| *g)
            .collect();
        self.best.retain(|g, _| !freed.contains(g));
        for (id, t) in &self.tests {
            for g in goals_of(t).into_iter().filter(|g| freed.contains(g)) {
                let better = self
                    .best
                    .get(&g)
                    .is_none_or(|b| rank(t) < rank(&self.tests[b]));
                if better {
                    self.best.insert(g, *id);
                }
            }
        }
    }

    /// Whether this is the case of a test kept from the last run.
    pub fn is_kept(&self, case: &TestCase) -> bool {
        self.kept.iter().any(|id| self.tests[id].case == *case)
    }

    pub fn covers(&self, goal: usize) -> bool {
        self.best.contains_key(&goal)
    }

    /// How many goals with an id below `n` are covered.
    pub fn covered_below(&self, n: usize) -> usize {
        self.best.range(..n).count()
    }

    /// The kept tests, oldest first.
    pub fn tests(&self) -> impl Iterator<Item = &FinishedTest> {
        self.tests.values()
    }

    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.tests.len()
    }

    /// The goals each kept test is the best for.
    pub fn assignments(&self) -> Vec<(&FinishedTest, Vec<usize>)> {
        self.tests
            .iter()
            .map(|(id, t)| {
                (
                    t,
                    self.best
                        .iter()
                        .filter(|(_, b)| *b == id)
                        .map(|(g, _)| *g)
                        .collect(),
                )
            })
            .collect()
    }

    pub fn goals(&self) -> impl Iterator<Item = usize> + '_ {
        self.best.keys().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_case::{Stmt, TestCase};
    use hermetic_protocol::{ExecReport, Outcome};

    fn test(len: usize, private: bool) -> FinishedTest {
        with_mocks(len, private, false)
    }

    fn with_mocks(len: usize, private: bool, mocks: bool) -> FinishedTest {
        FinishedTest {
            case: TestCase {
                home: 0,
                stmts: vec![
                    Stmt {
                        callable: 0,
                        args: vec![]
                    };
                    len
                ],
                env: Default::default(),
            },
            report: ExecReport {
                ..ExecReport::empty(Outcome::Completed)
            },
            uses_private: private,
            uses_mocks: mocks,
            uses_fakes: false,
            unseen_fakes: Vec::new(),
            assertions: None,
        }
    }

    #[test]
    fn a_test_without_mocks_replaces_one_with_them_whatever_its_size() {
        let mut a = Archive::default();
        assert_eq!(a.offer(&with_mocks(2, false, true), &[7]), 1);
        assert_eq!(a.offer(&with_mocks(9, false, false), &[7]), 0);
        let kept: Vec<_> = a.tests().collect();
        assert_eq!(kept.len(), 1);
        assert!(!kept[0].uses_mocks);
        // A test needing both crutches loses to one needing either.
        assert_eq!(a.offer(&with_mocks(1, true, true), &[8]), 1);
        assert_eq!(a.offer(&with_mocks(4, true, false), &[8]), 0);
        assert!(a.tests().all(|t| !(t.uses_private && t.uses_mocks)));
    }

    #[test]
    fn kept_tests_stay_whatever_comes_later() {
        let mut a = Archive::default();
        let long = test(5, true);
        a.keep(&long, &[1, 2]);
        // Even one other kept tests make redundant.
        let mut other = test(4, true);
        other.case.stmts.pop();
        a.keep(&other, &[1]);
        assert_eq!(a.offer(&test(1, false), &[1, 2, 3]), 1);
        assert_eq!(a.len(), 3);
        assert!(a.is_kept(&long.case) && a.is_kept(&other.case));
        assert!(!a.is_kept(&test(1, false).case));
        let own: Vec<Vec<usize>> = a.assignments().into_iter().map(|(_, g)| g).collect();
        assert_eq!(own, vec![vec![1, 2], vec![], vec![3]]);
    }

    #[test]
    fn a_test_with_fakes_is_the_last_resort_after_mocks_and_private_access() {
        let faked = |len| FinishedTest {
            uses_fakes: true,
            ..test(len, false)
        };
        let mut a = Archive::default();
        assert_eq!(a.offer(&faked(1), &[3]), 1);
        // Mocks and private access, and longer, still beat fakes.
        assert_eq!(a.offer(&with_mocks(6, true, true), &[3]), 0);
        let kept: Vec<_> = a.tests().collect();
        assert_eq!(kept.len(), 1);
        assert!(!kept[0].uses_fakes && kept[0].uses_mocks);
        assert_eq!(a.offer(&faked(1), &[3]), 0);
        assert!(a.tests().all(|t| !t.uses_fakes));
    }

    #[test]
    fn shorter_and_public_tests_win() {
        let mut a = Archive::default();
        assert_eq!(a.offer(&test(3, true), &[1, 2]), 2);
        assert_eq!(a.offer(&test(5, false), &[1]), 0);
        assert_eq!(a.len(), 2);
        assert_eq!(a.offer(&test(1, true), &[2]), 0);
        // The first test is best for nothing now and is dropped.
        assert_eq!(a.len(), 2);
        assert!(a.tests().all(|t| t.case.stmts.len() != 3));
    }

    #[test]
    fn forgotten_tests_leave_their_goals_to_the_next_best_or_to_nobody() {
        let faked = |len| FinishedTest {
            uses_fakes: true,
            ..test(len, false)
        };
        let mut a = Archive::default();
        a.offer(&faked(1), &[1, 2]);
        a.offer(&faked(5), &[2, 3]);
        a.keep(&faked(2), &[4]);
        let goals_of = |t: &FinishedTest| match t.case.stmts.len() {
            1 => vec![1, 2],
            5 => vec![2, 3],
            _ => vec![4],
        };
        // The one-statement test and the kept one are unwanted; only the first goes.
        a.forget(|t| t.case.stmts.len() < 3, goals_of);
        assert_eq!(a.goals().collect::<Vec<_>>(), [2, 3, 4]);
        let lens: Vec<_> = a.tests().map(|t| t.case.stmts.len()).collect();
        assert_eq!(lens, [5, 2]);
        assert!(a
            .assignments()
            .iter()
            .all(|(t, g)| t.case.stmts.len() != 5 || g == &[2, 3]));
    }
}
