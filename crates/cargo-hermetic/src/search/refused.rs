//! What the sandbox refused, per function: the report names each function whose code tried
//! something it refuses, and what it tried. Also what the virtual environment refused (a
//! connection, a program start) in the runs of each function called last: the report says so
//! beside the branches of it no test took, which may lie past that attempt.

use crate::cluster::CallableId;
use crate::test_case::TestCase;
use hermetic_protocol::{AccessReport, ExecReport};
use std::collections::{BTreeMap, BTreeSet};

/// Kinds of attempt kept per function; further ones are counted together.
const KINDS: usize = 6;
/// Attempts the environment refused kept per function.
const ATTEMPTS: usize = 3;

/// Refusals per callable: what was tried, and how often.
#[derive(Debug, Default, Clone)]
pub struct Refused {
    by_callable: BTreeMap<CallableId, BTreeMap<String, u64>>,
    /// What the virtual environment refused in runs whose last call was the callable's:
    /// `connect db.example:5432`.
    by_environment: BTreeMap<CallableId, BTreeSet<String>>,
}

impl Refused {
    /// Adds the refusals of one execution, each to the callable whose call was running.
    pub fn learn(&mut self, case: &TestCase, report: &ExecReport) {
        for r in &report.refusals {
            let Some(stmt) = case.stmts.get(r.stmt) else {
                continue;
            };
            let kinds = self.by_callable.entry(stmt.callable).or_default();
            if kinds.len() < KINDS || kinds.contains_key(&r.what) {
                *kinds.entry(r.what.clone()).or_default() += 1;
            } else {
                *kinds.entry("other attempts".into()).or_default() += 1;
            }
        }
        let Some(last) = case.stmts.last() else {
            return;
        };
        for a in &report.env.accesses {
            let tried = match a {
                AccessReport::NetworkAttempt { what, target } => format!("{what} {target}"),
                AccessReport::ProcessAttempt { what, program } => format!("{what} {program}"),
                _ => continue,
            };
            let tried_before = self.by_environment.entry(last.callable).or_default();
            if tried_before.len() < ATTEMPTS {
                tried_before.insert(tried);
            }
        }
    }

    /// What the environment refused in the runs of `callable` called last.
    pub fn by_environment(&self, callable: CallableId) -> Vec<String> {
        self.by_environment
            .get(&callable)
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// `(callable, what it tried, how often)`, by callable.
    pub fn entries(&self) -> impl Iterator<Item = (CallableId, &str, u64)> {
        self.by_callable
            .iter()
            .flat_map(|(&c, kinds)| kinds.iter().map(move |(what, &n)| (c, what.as_str(), n)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_case::Stmt;
    use hermetic_protocol::Outcome;

    #[test]
    fn what_the_environment_refused_goes_to_the_function_called_last() {
        let stmt = |callable| Stmt {
            callable,
            args: Vec::new(),
        };
        let case = TestCase {
            home: 0,
            stmts: vec![stmt(1), stmt(2)],
            env: Default::default(),
        };
        let mut report = ExecReport::empty(Outcome::Completed);
        report.env.accesses.push(AccessReport::NetworkAttempt {
            what: "connect".into(),
            target: "db.bank.example:5432".into(),
        });
        let mut refused = Refused::default();
        refused.learn(&case, &report);
        refused.learn(&case, &report);
        assert_eq!(refused.by_environment(2), ["connect db.bank.example:5432"]);
        assert!(refused.by_environment(1).is_empty());
        // The sandbox refused nothing.
        assert_eq!(refused.entries().count(), 0);
    }
}
