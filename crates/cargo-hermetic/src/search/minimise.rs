//! Minimisation: each archived test shrunk to what its goals need (mock and fake values no call
//! asked for, statements, fakes' values simplified, texts shortened and their characters made
//! plainer, environment genes), then a small set of tests that covers every archived goal, rerun
//! once (after a first run of the same calls in a bare environment) so that observations that
//! differ between runs, or that depend on statics another test may set first, make no
//! assertions. Tests kept from the last run are neither shrunk nor left out.

use super::archive::Archive;
use super::outputs::Outputs;
use super::{env, fakes, finish, mocks, ops, plainer, shorter, Space};
use crate::cluster::{Cluster, Ty};
use crate::driver::execute::Execute;
use crate::driver::goals::GoalMap;
use crate::test_case::{FinishedTest, TestCase};
use anyhow::Result;
use hermetic_protocol::{ExecReport, Outcome};
use std::collections::BTreeSet;

/// Executions a kept test may spend on simpler values for its fakes.
const MAX_SIMPLER_TRIES: usize = 24;

/// Executions a test may spend on shorter string and sequence arguments.
const MAX_SHORTER_TRIES: usize = 12;

/// Executions a test may spend on plainer characters in its texts.
const MAX_PLAINER_TRIES: usize = 8;

/// Where a case passes a string, a `Vec` or a slice long enough to shorten: (statement,
/// argument). Arrays keep their length.
fn shortenable(space: &Space, case: &TestCase) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for (i, stmt) in case.stmts.iter().enumerate() {
        let types = space.arg_types(stmt.callable);
        for (k, arg) in stmt.args.iter().enumerate() {
            let resizable = |t: &Ty| match t {
                Ty::Vec(_) | Ty::Slice(_) | Ty::String | Ty::Str => true,
                Ty::Ref(t) | Ty::RefMut(t) => matches!(**t, Ty::Vec(_) | Ty::Slice(_) | Ty::Str),
                _ => false,
            };
            if types.get(k).is_some_and(resizable) && shorter::worth_shortening(arg) {
                out.push((i, k));
            }
        }
    }
    out
}

/// Shrinks each archived test to the statements its goals need, then keeps a small set of tests
/// that covers every archived goal.
pub fn minimise(
    space: &Space,
    goals: &GoalMap,
    outputs: &mut Outputs,
    exec: &mut dyn Execute,
    archive: &Archive,
) -> Result<Vec<FinishedTest>> {
    let mut execute = |candidate: &TestCase| -> Result<ExecReport> {
        Ok(exec.exec_batch(vec![candidate.request()])?.remove(0))
    };
    let mut shrunk: Vec<(FinishedTest, BTreeSet<usize>)> = Vec::new();
    // Tests kept from the last run stay as they are, all of them.
    let mut chosen = Vec::new();
    for (test, own) in archive.assignments() {
        if archive.is_kept(&test.case) {
            let mut hit: BTreeSet<usize> = goals.goals_hit(&test.report.covered).collect();
            hit.extend(outputs.goal(test));
            chosen.push((test.clone(), hit));
            continue;
        }
        let own: BTreeSet<usize> = own.into_iter().collect();
        let mut best = test.clone();
        for trim in [mocks::trim, fakes::trim] {
            if let Some(candidate) = trim(space, &best.case, &best.report) {
                let report = execute(&candidate)?;
                if let Some(t) = kept(space, goals, outputs, candidate, report, &own) {
                    best = t;
                }
            }
        }
        let mut i = best.case.stmts.len();
        while i > 0 {
            i -= 1;
            if best.case.stmts.len() <= 1 || i >= best.case.stmts.len() {
                continue;
            }
            let mut candidate = best.case.clone();
            ops::remove_stmt(&mut candidate, i);
            ops::repair(space, &mut candidate);
            if candidate.stmts.is_empty() {
                continue;
            }
            let report = execute(&candidate)?;
            if let Some(t) = kept(space, goals, outputs, candidate, report, &own) {
                if t.uses_private <= best.uses_private
                    && t.uses_mocks <= best.uses_mocks
                    && t.uses_fakes <= best.uses_fakes
                {
                    best = t;
                    i = i.min(best.case.stmts.len());
                }
            }
        }
        // Fakes' values as a reader would choose them, where the goals allow.
        let compared: Vec<i128> = best
            .report
            .cmp_ints
            .iter()
            .filter(|(pc, _)| goals.in_selected_code(*pc))
            .map(|&(_, v)| v as i64 as i128)
            .collect();
        let mut tries = 0;
        for (i, k) in fakes::value_positions(space, &best.case) {
            let Some(current) = fakes::value_at(&best.case, i, k).cloned() else {
                continue;
            };
            for v in fakes::simpler(&current, &compared) {
                if tries >= MAX_SIMPLER_TRIES {
                    break;
                }
                tries += 1;
                let candidate = fakes::with_value(&best.case, i, k, v);
                if !fakes::respects(space, &candidate) {
                    continue;
                }
                let report = execute(&candidate)?;
                if let Some(t) = kept(space, goals, outputs, candidate, report, &own) {
                    best = t;
                    break;
                }
            }
        }
        // String and sequence arguments as short as the goals allow.
        let mut tries = 0;
        for (i, k) in shortenable(space, &best.case) {
            let mut progress = true;
            while progress && tries < MAX_SHORTER_TRIES {
                progress = false;
                let current = &best.case.stmts[i].args[k];
                for shorter in shorter::shorter_values(current, space.pool.known_strings()) {
                    if tries >= MAX_SHORTER_TRIES {
                        break;
                    }
                    tries += 1;
                    let mut candidate = best.case.clone();
                    candidate.stmts[i].args[k] = shorter;
                    let report = execute(&candidate)?;
                    if let Some(t) = kept(space, goals, outputs, candidate, report, &own) {
                        best = t;
                        progress = true;
                        break;
                    }
                }
            }
        }
        // Characters a reader would type, where the goals allow; a character once swapped is
        // not tried again.
        let mut swapped: BTreeSet<char> = BTreeSet::new();
        for plan in plainer::plans(&best.case)
            .into_iter()
            .take(MAX_PLAINER_TRIES)
        {
            if plan.iter().any(|(from, _)| swapped.contains(from)) {
                continue;
            }
            let candidate = plainer::with_swaps(&best.case, &plan);
            let report = execute(&candidate)?;
            if let Some(t) = kept(space, goals, outputs, candidate, report, &own) {
                best = t;
                swapped.extend(plan.iter().map(|&(from, _)| from));
            }
        }
        let mut g = env::gene_count(&best.case.env);
        while g > 0 {
            g -= 1;
            let mut candidate = best.case.clone();
            candidate.env = env::without_gene(&candidate.env, g);
            let report = execute(&candidate)?;
            if let Some(t) = kept(space, goals, outputs, candidate, report, &own) {
                best = t;
            }
        }
        let mut hit: BTreeSet<usize> = goals.goals_hit(&best.report.covered).collect();
        hit.extend(outputs.goal(&best));
        shrunk.push((best, hit));
    }
    // Greedy set cover: the test covering most still-uncovered goals first.
    let mut remaining: BTreeSet<usize> =
        shrunk.iter().flat_map(|(_, h)| h.iter().copied()).collect();
    for (_, hit) in &chosen {
        remaining.retain(|g| !hit.contains(g));
    }
    let mut chosen: Vec<FinishedTest> = chosen.into_iter().map(|(t, _)| t).collect();
    while !remaining.is_empty() {
        let (idx, gain) = shrunk
            .iter()
            .enumerate()
            .map(|(i, (_, h))| (i, h.intersection(&remaining).count()))
            .max_by_key(|&(i, gain)| (gain, std::cmp::Reverse(i)))
            .expect("non-empty");
        if gain == 0 {
            break;
        }
        let (test, hit) = shrunk.swap_remove(idx);
        remaining.retain(|g| !hit.contains(g));
        chosen.push(test);
    }
    let mut stable = rerun(exec, chosen)?;
    for t in &mut stable {
        t.case.home = home_of(space.cluster, &t.case);
    }
    stable.sort_by_key(|t| {
        (
            t.case.home,
            t.case.stmts.last().map(|s| s.callable),
            t.case.stmts.len(),
        )
    });
    Ok(stable)
}

/// The tests run once more, with only the observations that held: those that differ between
/// two runs must not become assertions. The rerun comes after the calls ran once in a bare
/// environment in the same process, as in a suite where another test set the code's statics
/// first (a `Once`, a cache, a counter); a test that then ends otherwise is left out.
pub fn rerun(exec: &mut dyn Execute, tests: Vec<FinishedTest>) -> Result<Vec<FinishedTest>> {
    // The search's run may come from a reused child, where what a run sees of the process
    // (virtual descriptors, thread ids) is what a second run sees: a fresh run must repeat
    // what is asserted too, not only the warm one.
    let requests = tests
        .iter()
        .flat_map(|t| [t.case.request(), t.case.warm_request()])
        .collect();
    let mut runs = exec.exec_batch(requests)?.into_iter();
    let mut stable = Vec::new();
    for mut test in tests {
        let (Some(fresh), Some(warm)) = (runs.next(), runs.next()) else {
            break;
        };
        let held = |again: &ExecReport| same_ending(&test.report.outcome, &again.outcome);
        if held(&fresh) && held(&warm) {
            keep_what_held(&mut test.report, &fresh);
            keep_what_held(&mut test.report, &warm);
            stable.push(test);
        }
    }
    Ok(stable)
}

/// Whether two runs ended alike: the same way, and a panic at the same call with the same
/// message (`should_panic` expects it).
fn same_ending(first: &Outcome, again: &Outcome) -> bool {
    match (first, again) {
        (Outcome::Panicked { .. }, Outcome::Panicked { .. }) => first == again,
        _ => std::mem::discriminant(first) == std::mem::discriminant(again),
    }
}

/// Leaves in `report` only the observations `again` repeated: returned values, what borrowed
/// values were left holding, files written, output.
fn keep_what_held(report: &mut ExecReport, again: &ExecReport) {
    for (mine, again) in report.stmts.iter_mut().zip(&again.stmts) {
        if mine.returned != again.returned {
            mine.returned = None;
        }
    }
    report.finals.retain(|f| again.finals.contains(f));
    report.env.files.retain(|f| again.env.files.contains(f));
    report.env.dirs.retain(|d| again.env.dirs.contains(d));
    if report.env.stdout != again.env.stdout {
        report.env.stdout.clear();
    }
    if report.env.stderr != again.env.stderr {
        report.env.stderr.clear();
    }
}

/// Where a test belongs: with the function it is about (its last call) when every call it
/// makes can be written there; else where it was built.
pub fn home_of(cluster: &Cluster, case: &TestCase) -> crate::cluster::ModuleId {
    let Some(last) = case.stmts.last() else {
        return case.home;
    };
    let target = cluster.callables[last.callable].module;
    let fits = case
        .stmts
        .iter()
        .all(|s| ops::callable_visible(cluster, s.callable, target));
    if fits {
        target
    } else {
        case.home
    }
}

/// A shrunk candidate as a test, when it still covers every goal in `own`.
fn kept(
    space: &Space,
    goals: &GoalMap,
    outputs: &mut Outputs,
    candidate: TestCase,
    report: ExecReport,
    own: &BTreeSet<usize>,
) -> Option<FinishedTest> {
    // Not a test: a mock or fake ran out, or the sandbox stopped something the code did.
    if mocks::ran_out(&report) || fakes::ran_out(&report) || report.sandbox_blocked > 0 {
        return None;
    }
    let t = finish(space.cluster, candidate, report).ok()?;
    let mut hit: BTreeSet<usize> = goals.goals_hit(&t.report.covered).collect();
    hit.extend(outputs.goal(&t));
    own.is_subset(&hit).then_some(t)
}
