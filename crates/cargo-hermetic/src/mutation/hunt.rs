//! Tests for the mutants that tests reach but none kills: EvoSuite's strong-mutation goals,
//! pursued after the coverage search with a share of the budget. A candidate is a mutant of a
//! test that reaches the mutant (the search's own operators); it becomes a test when its
//! execution against the mutant would fail it: another value, a panic gone or come.

use super::analysis::{fate, hang_limit, Fate, HANG_FLOOR};
use crate::cluster::CallableKind;
use crate::driver::execute::ExecRequest;
use crate::driver::process::{DriverPool, Mutation};
use crate::emit;
use crate::search::{self, mocks, ops, ops::Space};
use crate::test_case::{FinishedTest, TestCase};
use anyhow::Result;
use hermetic_protocol::{ExecReport, Outcome};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::time::Instant;

/// When the hunt stops.
pub struct Stop {
    pub deadline: Option<Instant>,
    pub max_executions: u64,
    /// With `Some(floor)`, the hunt stops as the search does when it stagnates: after
    /// `STAGNATION_FACTOR` times as many executions without a kill as the last kill took to
    /// come, and at least `floor` (mutants no test tells apart, such as a changed
    /// `Vec::with_capacity`, would otherwise take the whole share).
    pub stagnation_floor: Option<u64>,
}

/// The floor `generate` uses (executions, two per candidate).
pub const STAGNATION_FLOOR: u64 = 2_000;
/// As the search's.
const STAGNATION_FACTOR: u64 = 4;

/// What a hunt found.
#[derive(Default)]
pub struct Hunted {
    /// Each kills a mutant no earlier test killed.
    pub tests: Vec<FinishedTest>,
    pub executions: u64,
    /// The deadline ended it while mutants it could still try were left.
    pub stopped_by_time: bool,
}

/// New tests, each killing a mutant of `reaching` (alive mutants and the tests that reach
/// them) that no test killed; and the executions spent.
pub fn hunt(
    space: &Space,
    tests: &[FinishedTest],
    reaching: &BTreeMap<u32, Vec<usize>>,
    pool: &mut DriverPool,
    seed: u64,
    stop: &Stop,
) -> Result<Hunted> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ 0x6d75_7461_6e74);
    let mut alive: Vec<u32> = reaching.keys().copied().collect();
    let mut found = Vec::new();
    let mut executions = 0u64;
    let timeout = pool.timeout_ms;
    // Executions when the last kill came.
    let mut last_kill = 0u64;
    let stagnated = |executions: u64, last_kill: u64| {
        stop.stagnation_floor
            .is_some_and(|floor| executions - last_kill > floor.max(STAGNATION_FACTOR * last_kill))
    };
    let mut stopped_by_time = false;
    while !alive.is_empty() && executions < stop.max_executions && !stagnated(executions, last_kill)
    {
        if stop.deadline.is_some_and(|d| Instant::now() >= d) {
            stopped_by_time = true;
            break;
        }
        let mut batch = Vec::new();
        for &id in &alive {
            let Some(&parent) = reaching[&id].choose(&mut rng) else {
                continue;
            };
            let candidate = ops::mutate(&mut rng, space, &tests[parent].case);
            if !candidate.stmts.is_empty() {
                batch.push((id, candidate));
            }
        }
        if batch.is_empty() {
            break;
        }
        let cases = batch
            .iter()
            .flat_map(|(id, c)| {
                let ExecRequest { calls, env, .. } = c.request();
                [0, *id].map(|mutant| {
                    (
                        calls.clone(),
                        env.clone(),
                        Mutation {
                            mutant,
                            report_reached: false,
                            max_site_evaluations: HANG_FLOOR,
                        },
                    )
                })
            })
            .collect();
        let mut reports = pool.exec_mutants(cases, timeout)?.into_iter();
        executions += 2 * batch.len() as u64;
        let mut kills = Vec::new();
        for (id, candidate) in batch {
            let (Some(original), Some(mutated)) = (reports.next(), reports.next()) else {
                break;
            };
            if let Some(test) = killing(space, candidate, original, mutated) {
                kills.push((id, test));
            }
        }
        if !kills.is_empty() {
            last_kill = executions;
            if std::env::var_os("HERMETIC_DEBUG").is_some() {
                eprintln!("hunt: {} kills at {executions} executions", kills.len());
            }
        }
        for (id, test) in kills {
            let (mut test, spent) = shrink(space, pool, test, id, timeout)?;
            // Placed as the search places its tests, so that a later run, which starts from
            // the stored cases, writes it into the same file.
            test.case.home = search::home_of(space.cluster, &test.case);
            executions += spent;
            found.push(test);
            alive.retain(|&a| a != id);
        }
    }
    Ok(Hunted {
        tests: found,
        executions,
        stopped_by_time,
    })
}

/// The candidate as a test, when it is one about a function of the selected code (not a
/// constructor) and its execution against the mutant would fail it.
fn killing(
    space: &Space,
    candidate: TestCase,
    original: ExecReport,
    mutated: ExecReport,
) -> Option<FinishedTest> {
    let last = candidate.stmts.last()?.callable;
    let about_a_target = space.targets.contains(&last)
        && !matches!(
            space.cluster.callables[last].kind,
            CallableKind::StructLiteral { .. }
                | CallableKind::Variant { .. }
                | CallableKind::Mock(_)
                | CallableKind::Parse { .. }
        );
    if !about_a_target || mocks::ran_out(&original) || original.sandbox_blocked > 0 {
        return None;
    }
    if stopped_short(&original, &mutated) {
        return None;
    }
    let test = search::finish(space.cluster, candidate, original).ok()?;
    let keys = emit::assertion_keys(space.cluster, &test);
    let kills = match fate(space.cluster, &test, &keys, mutated) {
        Fate::Fails => true,
        Fate::Caught(by) => !by.is_empty(),
    };
    kills.then_some(test)
}

/// Whether the mutant's run was stopped as a hang under a lower limit than the hang rule's
/// (`analysis::hang_limit`): the hunt runs the candidate on the original and on the mutant at
/// once, so the mutant runs under the rule's floor; where the original's own count puts the
/// rule's limit above it, the stop proves no hang.
fn stopped_short(original: &ExecReport, mutated: &ExecReport) -> bool {
    matches!(mutated.outcome, Outcome::Timeout { .. })
        && hang_limit(original.site_evaluations) > HANG_FLOOR
}

/// The test without the statements it needs neither to reach its last call nor to kill the
/// mutant (last first, as the search minimises); and the executions spent.
fn shrink(
    space: &Space,
    pool: &mut DriverPool,
    mut best: FinishedTest,
    mutant: u32,
    timeout: u64,
) -> Result<(FinishedTest, u64)> {
    let mut executions = 0;
    let mut i = best.case.stmts.len().saturating_sub(1);
    while i > 0 {
        i -= 1;
        let mut candidate = best.case.clone();
        ops::remove_stmt(&mut candidate, i);
        ops::repair(space, &mut candidate);
        if candidate.stmts.is_empty() {
            continue;
        }
        let ExecRequest { calls, env, .. } = candidate.request();
        let cases = [0, mutant]
            .map(|m| {
                (
                    calls.clone(),
                    env.clone(),
                    Mutation {
                        mutant: m,
                        report_reached: false,
                        max_site_evaluations: HANG_FLOOR,
                    },
                )
            })
            .to_vec();
        let mut reports = pool.exec_mutants(cases, timeout)?.into_iter();
        executions += 2;
        let (Some(original), Some(mutated)) = (reports.next(), reports.next()) else {
            break;
        };
        if let Some(t) = killing(space, candidate, original, mutated) {
            best = t;
            i = i.min(best.case.stmts.len().saturating_sub(1));
        }
    }
    Ok((best, executions))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stop_under_the_floor_is_a_hang_only_where_the_rule_s_limit_is_the_floor() {
        let completed = |site_evaluations| ExecReport {
            site_evaluations,
            ..ExecReport::empty(Outcome::Completed)
        };
        let hung = ExecReport::empty(Outcome::Timeout { stmt: 0 });
        assert!(!stopped_short(&completed(10), &hung));
        assert!(!stopped_short(&completed(HANG_FLOOR / 10), &hung));
        assert!(stopped_short(&completed(HANG_FLOOR / 10 + 1), &hung));
        assert!(!stopped_short(&completed(HANG_FLOOR), &completed(5)));
    }
}
