//! Fitting a test's mocks to the calls they get (seed 003 §III-C): a method called more often
//! than its values last gets more values; values no call asked for are dropped, so a test sets
//! up only what the code uses.

use super::ops::{self, Space};
use crate::cluster::CallableKind;
use crate::test_case::TestCase;
use hermetic_driver::mock::NOT_SET_UP;
use hermetic_driver::protocol::{ExecReport, Outcome};
use hermetic_driver::Value;
use rand_chacha::ChaCha8Rng;

/// Whether the execution stopped because a mock had no value for a call. Such a run shows the
/// set-up was short, not how the code behaves: it never becomes a test.
pub fn ran_out(report: &ExecReport) -> bool {
    matches!(&report.outcome, Outcome::Panicked { message, .. } if message.starts_with(NOT_SET_UP))
}

/// Whether some mock method was called more often than it has values (the last one
/// repeated): a variant with a value per call may take another way.
pub fn short(space: &Space, case: &TestCase, report: &ExecReport) -> bool {
    report.mock_calls.iter().any(|c| {
        method_values(space, case, c.stmt, c.method).is_some_and(|have| have < c.calls as usize)
    })
}

/// The test with a value for every call its last run made, or `None` when nothing was short
/// or a value cannot be built.
pub fn grow(
    rng: &mut ChaCha8Rng,
    space: &Space,
    case: &TestCase,
    report: &ExecReport,
) -> Option<TestCase> {
    let mut fixed = case.clone();
    let mut grew = false;
    // From the last statement back, so that statements added for new values do not move the
    // ones still to fix.
    let mut calls = report.mock_calls.clone();
    calls.sort_by_key(|c| std::cmp::Reverse((c.stmt, c.method)));
    for c in calls {
        let Some(have) = method_values(space, &fixed, c.stmt, c.method) else {
            continue;
        };
        let need = c.calls as usize;
        if have < need {
            if !ops::extend_seq_arg(rng, space, &mut fixed, c.stmt, c.method, need - have) {
                return None;
            }
            grew = true;
        }
    }
    grew.then_some(fixed)
}

/// The test without the values its last run did not ask for, or `None` if it has none.
pub fn trim(space: &Space, case: &TestCase, report: &ExecReport) -> Option<TestCase> {
    let mut trimmed = case.clone();
    let mut changed = false;
    let mut freed = Vec::new();
    for (i, stmt) in case.stmts.iter().enumerate() {
        if !matches!(
            space.cluster.callables[stmt.callable].kind,
            CallableKind::Mock(_)
        ) {
            continue;
        }
        for k in 0..stmt.args.len() {
            let calls = report
                .mock_calls
                .iter()
                .find(|c| c.stmt == i && c.method == k)
                .map_or(0, |c| c.calls as usize);
            if let Value::Seq(items) = &mut trimmed.stmts[i].args[k] {
                if items.len() > calls {
                    for v in items.drain(calls..) {
                        v.referenced_slots(&mut freed);
                    }
                    changed = true;
                }
            }
        }
    }
    if !changed {
        return None;
    }
    // Statements that built only the dropped values go too.
    freed.sort_unstable();
    freed.dedup();
    for &j in freed.iter().rev() {
        if !trimmed.stmts.iter().any(|s| s.uses().contains(&j)) {
            ops::remove_stmt(&mut trimmed, j);
        }
    }
    Some(trimmed)
}

/// How many values a mock method has: argument `method` of the statement that built it.
fn method_values(space: &Space, case: &TestCase, stmt: usize, method: usize) -> Option<usize> {
    let s = case.stmts.get(stmt)?;
    if !matches!(
        space.cluster.callables[s.callable].kind,
        CallableKind::Mock(_)
    ) {
        return None;
    }
    match s.args.get(method)? {
        Value::Seq(items) => Some(items.len()),
        _ => None,
    }
}
