//! The archive: for each covered goal, the best test that covers it (seed 003 §III-A). A test
//! with fewer crutches (private access, mocks) beats one with more, whatever their sizes; then
//! the shorter test wins.

use crate::test_case::FinishedTest;
use std::collections::BTreeMap;

#[derive(Default)]
pub struct Archive {
    /// Distinct tests kept, by id.
    tests: BTreeMap<usize, FinishedTest>,
    /// For each covered goal, the id of its test.
    best: BTreeMap<usize, usize>,
    next_id: usize,
}

fn rank(t: &FinishedTest) -> (usize, usize) {
    (
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
                Some(id) if rank(test) < rank(&self.tests[id]) => improved.push(g),
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
            .retain(|id, _| self.best.values().any(|b| b == id));
        new
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
                outcome: Outcome::Completed,
                stmts: vec![],
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
            uses_private: private,
            uses_mocks: mocks,
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
}
