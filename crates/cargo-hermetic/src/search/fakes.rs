//! Fakes of isolated calls in the search (seed 000): a fake is a statement, its values genes
//! drawn for the callee's return type like a mock's. A fake joins a test whose last run called
//! the callee for real (the generator met the call and chooses what it returns); it gets a value
//! per call, loses the values no call asked for, and keeps to the unit's restriction
//! (`returns(callee, pattern)`). The values a fake returned that the real callee never did in
//! the run are told to the user (false behaviour).
//!
//! A fake grows by one value when it ran out; at minimisation its values are simplified towards
//! zero and the code's comparison boundaries. `RealValues` keeps what real calls returned over the
//! run, so the values no real call returned are told apart. The archive ranks tests with fakes
//! after all others.
//!
//! Only callees worth faking get fakes ([`RealValues::worth_faking`]): those whose real calls
//! touched the environment, or that the run never got to return more than one value and that
//! the unit calls on values of its own making (`FakeDef::steered` is false). A pure callee that
//! returned several, or that the unit calls on its inputs only, is steered by the test's own
//! inputs; faking it pins states the real code may never be in (semver's `Prerelease::is_empty`
//! faked `false` for an empty prerelease).

use super::ops::{self, Space};
use crate::cluster::{CallableId, CallableKind, FakeId};
use crate::test_case::{Stmt, TestCase};
use hermetic_protocol::{ExecReport, FakeCalls, Observed, Outcome, Value, FAKE_PANIC};
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};

/// Most values a fake gets when it joins a test.
const MAX_FIRST_VALUES: usize = 4;
/// Tries at values that keep to a restriction.
const TRIES: usize = 8;
/// How often a fake joins a test for every callee its parent called for real, not just one.
const P_EVERY_CALLEE: f64 = 0.3;

/// Whether the execution stopped because a fake had no value for a call: the set-up was short;
/// such a run never becomes a test.
pub fn ran_out(report: &ExecReport) -> bool {
    matches!(&report.outcome, Outcome::Panicked { message, .. } if message.starts_with(FAKE_PANIC))
}

/// The fake statement of callable `fake` in a test, if it has one.
fn stmt_of(space: &Space, case: &TestCase, fake: CallableId) -> Option<usize> {
    case.stmts
        .iter()
        .position(|s| s.callable == fake && is_fake(space, s))
}

pub fn is_fake(space: &Space, s: &Stmt) -> bool {
    matches!(
        space.cluster.callables[s.callable].kind,
        CallableKind::Fake(_)
    )
}

/// A test with a fake for a callee its parent's last run called for real, one value per such
/// call; now and then for every such callee at once (seed 000 fakes them all: a branch behind
/// several calls, as a transfer's behind the balance and the processor, needs each faked).
/// `None` when there is none to add or its values cannot be built.
pub fn insert(
    rng: &mut ChaCha8Rng,
    space: &Space,
    real: &RealValues,
    case: &TestCase,
    report: &ExecReport,
) -> Option<TestCase> {
    let open = open_calls(space, real, case, report);
    let chosen = if open.len() > 1 && rng.gen_bool(P_EVERY_CALLEE) {
        open
    } else {
        vec![*open.choose(rng)?]
    };
    with_fakes(rng, space, case, &chosen)
}

/// After a gain: a test faking each callee the run called for real, and one faking all of
/// those when there are several; so a gain that met a new callee (a processor behind the
/// balance) soon learns what each of its outcomes does. A callee whose fake cannot be built
/// alone (a value only the callee itself makes) is left out of the one faking all.
pub fn insert_each(
    rng: &mut ChaCha8Rng,
    space: &Space,
    real: &RealValues,
    case: &TestCase,
    report: &ExecReport,
) -> Vec<TestCase> {
    let mut built = Vec::new();
    let mut out = Vec::new();
    for call in open_calls(space, real, case, report) {
        if let Some(t) = with_fakes(rng, space, case, &[call]) {
            built.push(call);
            out.push(t);
        }
    }
    if built.len() > 1 {
        out.extend(with_fakes(rng, space, case, &built));
    }
    out
}

/// The calls of the run to callees worth faking that the test does not fake yet and can name.
fn open_calls<'r>(
    space: &Space,
    real: &RealValues,
    case: &TestCase,
    report: &'r ExecReport,
) -> Vec<&'r FakeCalls> {
    report
        .fake_calls
        .iter()
        .filter(|c| c.real > 0 && stmt_of(space, case, c.callable).is_none())
        .filter(|c| real.worth_faking(c.callable))
        .filter(|c| ops::callable_visible(space.cluster, c.callable, case.home))
        .collect()
}

/// The test with a fake for each of `chosen`, one value per real call, built within a few
/// tries so that it keeps to the units' restrictions.
fn with_fakes(
    rng: &mut ChaCha8Rng,
    space: &Space,
    case: &TestCase,
    chosen: &[&FakeCalls],
) -> Option<TestCase> {
    for _ in 0..TRIES {
        let mut test = case.clone();
        let mut built = true;
        for call in chosen {
            let n = (call.real as usize).clamp(1, MAX_FIRST_VALUES);
            // Before the call under test, after what it uses.
            let at = test.stmts.len().saturating_sub(1);
            splice_in(
                &mut test,
                at,
                Stmt {
                    callable: call.callable,
                    args: vec![Value::Seq(Vec::new())],
                },
            );
            built &= ops::extend_seq_arg(rng, space, &mut test, at, 0, n);
            if !built {
                break;
            }
        }
        if built && respects(space, &test) && !made_by_callee(space, case, &test, chosen) {
            return Some(test);
        }
    }
    None
}

/// Whether `test` calls one of the `chosen` callees for real more often than `case`: a fake's
/// value made by the callee itself (`process(..)` for `process`'s fake) is what the real call
/// returns, which the fake was to get past.
fn made_by_callee(space: &Space, case: &TestCase, test: &TestCase, chosen: &[&FakeCalls]) -> bool {
    let calls = |t: &TestCase, c: CallableId| t.stmts.iter().filter(|s| s.callable == c).count();
    chosen.iter().any(|call| {
        let CallableKind::Fake(f) = space.cluster.callables[call.callable].kind else {
            return false;
        };
        match space.cluster.fakes[f].callee {
            crate::cluster::Callee::Crate(c) => calls(test, c) > calls(case, c),
            crate::cluster::Callee::Extern(_) => false,
        }
    })
}

/// Inserts `stmt` at position `at`, shifting later references.
fn splice_in(test: &mut TestCase, at: usize, stmt: Stmt) {
    let mut shifted = test.clone();
    shifted.stmts.truncate(at);
    shifted.stmts.push(stmt);
    for s in &test.stmts[at..] {
        let mut s = s.clone();
        for a in &mut s.args {
            ops::shift(a, at, 1);
        }
        shifted.stmts.push(s);
    }
    *test = shifted;
}

/// The test with one more value for each fake that ran out, or `None`.
pub fn grow(
    rng: &mut ChaCha8Rng,
    space: &Space,
    case: &TestCase,
    report: &ExecReport,
) -> Option<TestCase> {
    let mut calls: Vec<_> = report.fake_calls.iter().filter(|c| c.ran_out).collect();
    // From the last statement back, so that statements added for new values do not move the
    // ones still to grow.
    calls.sort_by_key(|c| std::cmp::Reverse(stmt_of(space, case, c.callable)));
    for _ in 0..TRIES {
        let mut test = case.clone();
        let mut grew = true;
        for c in &calls {
            let Some(i) = stmt_of(space, &test, c.callable) else {
                grew = false;
                break;
            };
            let have = values(&test.stmts[i]).len();
            let need = (c.faked as usize + 1).saturating_sub(have).max(1);
            grew &= ops::extend_seq_arg(rng, space, &mut test, i, 0, need);
        }
        if grew && !calls.is_empty() && respects(space, &test) {
            return Some(test);
        }
    }
    None
}

/// The test without the values no call asked for (and the statements that built only them),
/// or `None` when every value was asked for.
pub fn trim(space: &Space, case: &TestCase, report: &ExecReport) -> Option<TestCase> {
    let mut trimmed = case.clone();
    let mut freed = Vec::new();
    for (i, s) in case.stmts.iter().enumerate() {
        if !is_fake(space, s) {
            continue;
        }
        let asked = report
            .fake_calls
            .iter()
            .find(|c| c.callable == s.callable)
            .map_or(0, |c| c.faked as usize);
        if let Value::Seq(items) = &mut trimmed.stmts[i].args[0] {
            if items.len() > asked {
                for v in items.drain(asked..) {
                    v.referenced_slots(&mut freed);
                }
            }
        }
    }
    let empty: Vec<usize> = (0..trimmed.stmts.len())
        .filter(|&i| is_fake(space, &trimmed.stmts[i]) && values(&trimmed.stmts[i]).is_empty())
        .collect();
    if freed.is_empty() && empty.is_empty() && trimmed == *case {
        return None;
    }
    // A fake no call asked anything of goes; so do statements that built only dropped values.
    for &i in empty.iter().rev() {
        ops::remove_stmt(&mut trimmed, i);
        freed.retain(|&f| f != i);
        for f in freed.iter_mut().filter(|f| **f > i) {
            *f -= 1;
        }
    }
    freed.sort_unstable();
    freed.dedup();
    for &j in freed.iter().rev() {
        if !trimmed.stmts.iter().any(|s| s.uses().contains(&j)) {
            ops::remove_stmt(&mut trimmed, j);
        }
    }
    (trimmed != *case).then_some(trimmed)
}

fn values(s: &Stmt) -> &[Value] {
    match s.args.first() {
        Some(Value::Seq(items)) => items,
        _ => &[],
    }
}

/// Whether every fake of the test keeps to its unit's restriction, as far as its values show
/// (values built by other statements are taken as kept).
pub fn respects(space: &Space, case: &TestCase) -> bool {
    case.stmts.iter().all(|s| {
        let CallableKind::Fake(f) = space.cluster.callables[s.callable].kind else {
            return true;
        };
        let Some(pattern) = restriction(space, f) else {
            return true;
        };
        values(s)
            .iter()
            .all(|v| matches(&pattern, v) != Some(false))
    })
}

fn restriction(space: &Space, f: FakeId) -> Option<syn::Pat> {
    let text = space.cluster.fakes[f].restriction.as_deref()?;
    syn::parse::Parser::parse_str(syn::Pat::parse_multi_with_leading_vert, text).ok()
}

/// Whether a value matches a pattern: `None` when the pattern or the value is beyond what can
/// be told here (a crate type's variant, a value another statement built).
pub fn matches(pat: &syn::Pat, v: &Value) -> Option<bool> {
    use syn::Pat;
    match pat {
        Pat::Wild(_) | Pat::Rest(_) => Some(true),
        Pat::Paren(p) => matches(&p.pat, v),
        Pat::Or(o) => {
            let mut unknown = false;
            for case in &o.cases {
                match matches(case, v) {
                    Some(true) => return Some(true),
                    None => unknown = true,
                    Some(false) => {}
                }
            }
            if unknown {
                None
            } else {
                Some(false)
            }
        }
        Pat::Ident(i) if i.subpat.is_none() => match (i.ident.to_string().as_str(), v) {
            ("None", Value::Opt(o)) => Some(o.is_none()),
            ("None", _) => None,
            // A binding takes anything.
            (name, _) if !name.starts_with(char::is_uppercase) => Some(true),
            _ => None,
        },
        Pat::Lit(l) => {
            let want = literal(&syn::Expr::Lit(l.clone()))?;
            match (want, v) {
                (Value::Int(a), Value::Int(b)) => Some(a == *b),
                (Value::Bool(a), Value::Bool(b)) => Some(a == *b),
                (Value::Char(a), Value::Char(b)) => Some(a == *b),
                (Value::Str(a), Value::Str(b)) => Some(a == *b),
                _ => None,
            }
        }
        Pat::Range(r) => {
            let Value::Int(x) = v else {
                return None;
            };
            let bound = |e: &Option<Box<syn::Expr>>| match e {
                None => Some(None),
                Some(e) => match literal(e) {
                    Some(Value::Int(i)) => Some(Some(i)),
                    _ => None,
                },
            };
            let (lo, hi) = (bound(&r.start)?, bound(&r.end)?);
            let inclusive = matches!(r.limits, syn::RangeLimits::Closed(_));
            let above = lo.is_none_or(|lo| *x >= lo);
            let below = hi.is_none_or(|hi| if inclusive { *x <= hi } else { *x < hi });
            Some(above && below)
        }
        Pat::TupleStruct(t) => {
            let name = t.path.segments.last()?.ident.to_string();
            let inner = match (name.as_str(), v) {
                ("Ok", Value::Ok(i)) | ("Err", Value::Err(i)) => i,
                ("Some", Value::Opt(Some(i))) => i,
                ("Ok" | "Err" | "Some", Value::Ok(_) | Value::Err(_) | Value::Opt(_)) => {
                    return Some(false)
                }
                _ => return None,
            };
            match t.elems.iter().collect::<Vec<_>>()[..] {
                [p] => matches(p, inner),
                _ => None,
            }
        }
        Pat::Tuple(t) => {
            let Value::Tuple(items) = v else {
                return None;
            };
            if t.elems.len() != items.len() {
                return None;
            }
            let mut all = Some(true);
            for (p, x) in t.elems.iter().zip(items) {
                match matches(p, x) {
                    Some(false) => return Some(false),
                    None => all = None,
                    Some(true) => {}
                }
            }
            all
        }
        _ => None,
    }
}

/// A literal pattern's value (`3`, `-3`, `'a'`, `"x"`, `true`).
fn literal(e: &syn::Expr) -> Option<Value> {
    match e {
        syn::Expr::Lit(l) => match &l.lit {
            syn::Lit::Int(i) => i.base10_parse::<i128>().ok().map(Value::Int),
            syn::Lit::Bool(b) => Some(Value::Bool(b.value)),
            syn::Lit::Char(c) => Some(Value::Char(c.value())),
            syn::Lit::Str(s) => Some(Value::Str(s.value())),
            _ => None,
        },
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => match literal(&u.expr)? {
            Value::Int(i) => Some(Value::Int(-i)),
            _ => None,
        },
        syn::Expr::Paren(p) => literal(&p.expr),
        _ => None,
    }
}

/// Simpler values to try for a fake's value, simplest first (a reader judges a fake's value
/// more easily when it is `5`, not `5300318706901489288`): each integer in it (inside `Ok`,
/// `Some`, tuples) replaced by 0, 1, -1, or a number the code compared against, or one off
/// it (a boundary), when nearer to zero than it is.
pub fn simpler(v: &Value, compared: &[i128]) -> Vec<Value> {
    let mut out = Vec::new();
    match v {
        Value::Int(x) => {
            let mut near: Vec<i128> = [0, 1, -1]
                .into_iter()
                .chain(compared.iter().flat_map(|&c| [c, c - 1, c + 1]))
                .filter(|c| c.unsigned_abs() < x.unsigned_abs())
                .collect();
            near.sort_by_key(|c| (c.unsigned_abs(), *c < 0));
            near.dedup();
            out.extend(near.into_iter().map(Value::Int));
        }
        Value::Ok(inner) => out.extend(
            simpler(inner, compared)
                .into_iter()
                .map(|i| Value::Ok(Box::new(i))),
        ),
        Value::Err(inner) => out.extend(
            simpler(inner, compared)
                .into_iter()
                .map(|i| Value::Err(Box::new(i))),
        ),
        Value::Opt(Some(inner)) => out.extend(
            simpler(inner, compared)
                .into_iter()
                .map(|i| Value::Opt(Some(Box::new(i)))),
        ),
        Value::Tuple(items) => {
            for (k, item) in items.iter().enumerate() {
                for s in simpler(item, compared) {
                    let mut items = items.clone();
                    items[k] = s;
                    out.push(Value::Tuple(items));
                }
            }
        }
        _ => {}
    }
    out
}

/// The test with value `k` of its statement `i` (a fake) replaced.
pub fn with_value(case: &TestCase, i: usize, k: usize, v: Value) -> TestCase {
    let mut case = case.clone();
    if let Some(Value::Seq(items)) = case.stmts[i].args.first_mut() {
        if k < items.len() {
            items[k] = v;
        }
    }
    case
}

/// The positions of a test's fake values: (statement, value index).
pub fn value_positions(space: &Space, case: &TestCase) -> Vec<(usize, usize)> {
    (0..case.stmts.len())
        .filter(|&i| is_fake(space, &case.stmts[i]))
        .flat_map(|i| (0..values(&case.stmts[i]).len()).map(move |k| (i, k)))
        .collect()
}

/// A value of a fake statement.
pub fn value_at(case: &TestCase, i: usize, k: usize) -> Option<&Value> {
    values(&case.stmts[i]).get(k)
}

/// What each callee's real calls returned over the run (seed 000's false behaviour: a fake's
/// value that is not among them is one the user should review).
#[derive(Default)]
pub struct RealValues {
    by_callee: BTreeMap<CallableId, Vec<Observed>>,
    /// Callees a real call of which touched the environment.
    touched: BTreeSet<CallableId>,
    /// Callees the units call on their inputs only (`FakeDef::steered`).
    steered: BTreeSet<CallableId>,
}

/// Distinct real values kept per callee.
const MAX_REAL_VALUES: usize = 64;

impl RealValues {
    /// Nothing learnt yet, with the callees of `cluster`'s fakes that the units steer.
    pub fn new(cluster: &crate::cluster::Cluster) -> RealValues {
        let steered = cluster
            .callables
            .iter()
            .enumerate()
            .filter(|(_, c)| matches!(c.kind, CallableKind::Fake(f) if cluster.fakes[f].steered))
            .map(|(id, _)| id)
            .collect();
        RealValues {
            steered,
            ..RealValues::default()
        }
    }

    pub fn learn(&mut self, report: &ExecReport) {
        for c in &report.fake_calls {
            if c.touched {
                self.touched.insert(c.callable);
            }
            let seen = self.by_callee.entry(c.callable).or_default();
            for v in &c.real_values {
                if seen.len() < MAX_REAL_VALUES && !seen.contains(v) {
                    seen.push(v.clone());
                }
            }
        }
    }

    /// Whether a fake of `callee` (its `Fake` callable) can show what the test could not get
    /// otherwise: a real call of it touched the environment, or real calls returned one value
    /// at most and the units call it on values of their own making (the run could not steer
    /// it; what its fake returns is then told for review).
    pub fn worth_faking(&self, callee: CallableId) -> bool {
        self.touched.contains(&callee)
            || (!self.steered.contains(&callee)
                && self.by_callee.get(&callee).is_none_or(|v| v.len() <= 1))
    }

    /// Whether the test fakes a callee not worth faking (learnt since it was found).
    pub fn fakes_needlessly(&self, report: &ExecReport) -> bool {
        report
            .fake_calls
            .iter()
            .any(|c| c.faked > 0 && !self.worth_faking(c.callable))
    }

    /// The values a test's fakes returned that no real call did: the `Fake` callable and the
    /// value's index in its set-up.
    pub fn unseen(&self, report: &ExecReport) -> Vec<(CallableId, usize)> {
        let mut out = Vec::new();
        for c in &report.fake_calls {
            let seen = self.by_callee.get(&c.callable);
            for (k, v) in c.fake_values.iter().enumerate() {
                if !seen.is_some_and(|s| s.contains(v)) && *v != Observed::Opaque {
                    out.push((c.callable, k));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermetic_protocol::FakeCalls;

    fn pat(text: &str) -> syn::Pat {
        syn::parse::Parser::parse_str(syn::Pat::parse_multi_with_leading_vert, text).unwrap()
    }

    #[test]
    fn simpler_values_are_nearer_zero_and_boundaries_of_comparisons() {
        let big = Value::Ok(Box::new(Value::Int(5_300_318_706_901_489_288)));
        let got = simpler(&big, &[6]);
        let ints: Vec<i128> = got
            .iter()
            .map(|v| match v {
                Value::Ok(i) => match **i {
                    Value::Int(x) => x,
                    _ => panic!(),
                },
                _ => panic!(),
            })
            .collect();
        assert_eq!(ints, [0, 1, -1, 5, 6, 7]);
        assert!(simpler(&Value::Int(1), &[])
            .iter()
            .all(|v| *v == Value::Int(0)));
    }

    #[test]
    fn values_are_matched_against_restrictions() {
        let ok = |i| Value::Ok(Box::new(Value::Int(i)));
        let p = pat("Ok(0..) | Err(_)");
        assert_eq!(matches(&p, &ok(5)), Some(true));
        assert_eq!(matches(&p, &ok(-1)), Some(false));
        assert_eq!(
            matches(&p, &Value::Err(Box::new(Value::Use(0)))),
            Some(true)
        );
        assert_eq!(matches(&pat("1..=3"), &Value::Int(3)), Some(true));
        assert_eq!(matches(&pat("..-2"), &Value::Int(-2)), Some(false));
        assert_eq!(
            matches(&pat("Some(\"a\") | None"), &Value::Opt(None)),
            Some(true)
        );
        assert_eq!(
            matches(
                &pat("Some(\"a\")"),
                &Value::Opt(Some(Box::new(Value::Str("b".into()))))
            ),
            Some(false)
        );
        // A crate type's variant cannot be told from here.
        assert_eq!(matches(&pat("Error::Down"), &Value::Use(2)), None);
        assert_eq!(
            matches(
                &pat("(1, x)"),
                &Value::Tuple(vec![Value::Int(1), Value::Int(9)])
            ),
            Some(true)
        );
    }

    fn calls(callable: CallableId, touched: bool, real: &[i128], faked: u32) -> FakeCalls {
        FakeCalls {
            callable,
            faked,
            real: real.len() as u32,
            real_values: real.iter().map(|&i| Observed::Int(i)).collect(),
            touched,
            ..Default::default()
        }
    }

    #[test]
    fn only_callees_that_touched_the_environment_or_were_never_steered_are_worth_faking() {
        let mut real = RealValues::default();
        let mut report = ExecReport::empty(Outcome::Completed);
        // 1 reads a file; 2 is pure and returned two values (as semver's `is_empty` on a
        // prerelease the test built, empty or not); 3 is pure and always returned 0.
        report.fake_calls = vec![calls(1, true, &[0, 1], 0), calls(2, false, &[0, 1], 0)];
        report.fake_calls.push(calls(3, false, &[0], 0));
        real.learn(&report);
        assert!(real.worth_faking(1) && !real.worth_faking(2) && real.worth_faking(3));
        // A callee never called for real yet is not ruled out.
        assert!(real.worth_faking(4));
        report.fake_calls = vec![calls(1, false, &[], 1), calls(3, false, &[], 2)];
        assert!(!real.fakes_needlessly(&report));
        report.fake_calls.push(calls(2, false, &[], 1));
        assert!(real.fakes_needlessly(&report));
        // A fake set up but never asked for is not one the test relies on.
        report.fake_calls = vec![calls(2, false, &[], 0)];
        assert!(!real.fakes_needlessly(&report));
    }

    #[test]
    fn a_callee_the_units_call_on_their_inputs_is_faked_only_when_it_touched_the_environment() {
        let mut real = RealValues {
            steered: BTreeSet::from([5, 6]),
            ..RealValues::default()
        };
        // 5 always returned one value (as `is_empty` on prereleases the run left empty), 6 read
        // a file; 3 is called on a value the unit made and returned one value.
        let mut report = ExecReport::empty(Outcome::Completed);
        report.fake_calls = vec![calls(5, false, &[0], 0), calls(6, true, &[0], 0)];
        report.fake_calls.push(calls(3, false, &[0], 0));
        real.learn(&report);
        assert!(!real.worth_faking(5) && real.worth_faking(6) && real.worth_faking(3));
    }
}
