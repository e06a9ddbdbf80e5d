//! Fitting a test's mocks to the calls they get (seed 003 §III-C): a method called more often
//! than its values last gets more values; values no call asked for are dropped, so a test sets
//! up only what the code uses.

use super::ops::{self, Space};
use crate::cluster::CallableKind;
use crate::test_case::TestCase;
use hermetic_protocol::Value;
use hermetic_protocol::MOCK_NOT_SET_UP as NOT_SET_UP;
use hermetic_protocol::{ExecReport, Outcome};
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::Cluster;
    use crate::search::values::ValuePool;
    use crate::test_case::Stmt;
    use hermetic_protocol::MockCalls;
    use rand::SeedableRng;
    use std::path::Path;

    fn cluster() -> Cluster {
        let lib =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/fixtures/mocks/src/lib.rs");
        crate::analyze::analyze(&lib, "mocks").unwrap()
    }

    fn space(c: &Cluster) -> Space<'_> {
        Space::new(
            c,
            &vec![true; c.callables.len()],
            Vec::new(),
            ValuePool::default(),
        )
    }

    fn mock_of(c: &Cluster, name: &str) -> usize {
        c.callables
            .iter()
            .position(|k| matches!(k.kind, CallableKind::Mock(t) if c.traits[t].name == name))
            .unwrap()
    }

    fn named(c: &Cluster, name: &str) -> usize {
        c.callables.iter().position(|k| k.name == name).unwrap()
    }

    fn case(stmts: Vec<Stmt>) -> TestCase {
        TestCase {
            home: 0,
            stmts,
            env: Default::default(),
        }
    }

    fn report(outcome: Outcome, calls: &[(usize, usize, u32)]) -> ExecReport {
        ExecReport {
            outcome,
            stmts: Vec::new(),
            covered: Vec::new(),
            cmp_ints: Vec::new(),
            cmp_bytes: Vec::new(),
            cmp_closest: Vec::new(),
            env: Default::default(),
            sandbox_blocked: 0,
            mock_calls: calls
                .iter()
                .map(|&(stmt, method, calls)| MockCalls {
                    stmt,
                    method,
                    calls,
                })
                .collect(),
            reached_mutants: Vec::new(),
            finals: Vec::new(),
        }
    }

    #[test]
    fn a_method_called_more_often_than_it_has_values_gets_one_per_call() {
        let c = cluster();
        let s = space(&c);
        let t = case(vec![
            Stmt {
                callable: mock_of(&c, "Source"),
                args: vec![Value::Seq(vec![Value::Int(5)])],
            },
            Stmt {
                callable: named(&c, "double_call"),
                args: vec![Value::BorrowMut(0)],
            },
        ]);
        let r = report(Outcome::Completed, &[(0, 0, 2)]);
        assert!(short(&s, &t, &r));
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let grown = grow(&mut rng, &s, &t, &r).unwrap();
        let Value::Seq(items) = &grown.stmts[0].args[0] else {
            panic!()
        };
        assert_eq!(items.len(), 2);
        assert_eq!(items[0], Value::Int(5));
        assert_eq!(grown.stmts[1], t.stmts[1]);
        // Nothing short, nothing to grow.
        assert!(grow(&mut rng, &s, &t, &report(Outcome::Completed, &[(0, 0, 1)])).is_none());
    }

    #[test]
    fn values_no_call_asked_for_are_dropped_with_what_built_them() {
        let c = cluster();
        let s = space(&c);
        let error = c
            .callables
            .iter()
            .position(|k| k.name == "Unavailable")
            .unwrap();
        let t = case(vec![
            Stmt {
                callable: error,
                args: vec![],
            },
            Stmt {
                callable: mock_of(&c, "Ledger"),
                args: vec![Value::Seq(vec![Value::Err(Box::new(Value::Use(0)))])],
            },
            Stmt {
                callable: mock_of(&c, "Rows"),
                args: vec![
                    Value::Seq(vec![Value::Bool(true), Value::Bool(false)]),
                    Value::Seq(vec![Value::Str("a".into())]),
                ],
            },
        ]);
        let trimmed = trim(&s, &t, &report(Outcome::Completed, &[(2, 0, 1)])).unwrap();
        assert_eq!(trimmed.stmts.len(), 2, "{trimmed:?}");
        assert_eq!(trimmed.stmts[0].args, vec![Value::Seq(vec![])]);
        assert_eq!(
            trimmed.stmts[1].args,
            vec![Value::Seq(vec![Value::Bool(true)]), Value::Seq(vec![])]
        );
    }

    #[test]
    fn only_a_mock_running_out_counts_as_running_out() {
        let out = |message: &str| {
            report(
                Outcome::Panicked {
                    stmt: 1,
                    message: message.into(),
                },
                &[],
            )
        };
        assert!(ran_out(&out(&format!(
            "{NOT_SET_UP} `Rows::next` was called"
        ))));
        assert!(!ran_out(&out("index out of bounds")));
        assert!(!ran_out(&report(Outcome::Completed, &[])));
    }
}
