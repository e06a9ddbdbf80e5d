//! What the sandbox refused, per function: the report names each function whose code tried
//! something it refuses, and what it tried.

use crate::cluster::CallableId;
use crate::test_case::TestCase;
use hermetic_protocol::ExecReport;
use std::collections::BTreeMap;

/// Kinds of attempt kept per function; further ones are counted together.
const KINDS: usize = 6;

/// Refusals per callable: what was tried, and how often.
#[derive(Debug, Default, Clone)]
pub struct Refused {
    by_callable: BTreeMap<CallableId, BTreeMap<String, u64>>,
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
    }

    /// `(callable, what it tried, how often)`, by callable.
    pub fn entries(&self) -> impl Iterator<Item = (CallableId, &str, u64)> {
        self.by_callable
            .iter()
            .flat_map(|(&c, kinds)| kinds.iter().map(move |(what, &n)| (c, what.as_str(), n)))
    }
}
