//! The search: many-objective, archive-based generation of test cases.
//!
//! Every goal (an edge of the selected code) is its own objective. New candidates are random
//! tests or mutants of archived ones; executions report covered counters and the values the code
//! compared against, which join the value pool. The archive keeps, per goal, the best test that
//! covers it. At the end each kept test is minimised: every statement must be needed for a goal.
//! All decisions come from a seeded RNG and the reports, never from the clock, so a seed and an
//! execution budget reproduce a run exactly.

pub mod archive;
mod cmp;
pub mod env;
pub mod fakes;
mod frontier;
pub mod mocks;
pub mod ops;
pub mod outputs;
pub mod values;

use crate::cluster::{CallableKind, Cluster};
use crate::driver::goals::GoalMap;
use crate::driver::process::DriverPool;
use crate::test_case::{FinishedTest, Stmt, TestCase};
use anyhow::Result;
use archive::Archive;
use hermetic_protocol::{ExecReport, Outcome};
use ops::Space;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;
use std::time::Instant;

pub struct SearchConfig {
    pub seed: u64,
    /// Stop after this many executions.
    pub max_executions: Option<u64>,
    /// Stop at this time (checked between batches only).
    pub deadline: Option<Instant>,
    /// Candidates per batch; fixed, so results do not depend on the number of jobs.
    pub batch: usize,
    pub strategy: Strategy,
    /// The parts of the environment the search may set up.
    pub env_parts: env::EnvParts,
    /// Mocks where a crate value could be used instead: allowed with this probability (P_FM)...
    pub mock_probability: f64,
    /// ...once this fraction of the budget (time or executions) is spent (S_FM).
    pub mock_start: f64,
    /// Fakes of isolated calls: allowed with this probability...
    pub isolate_probability: f64,
    /// ...once this fraction of the budget is spent.
    pub isolate_start: f64,
}

/// How candidates are made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Strategy {
    /// Random tests and mutants of archived tests, with values learnt from comparisons.
    Archive,
    /// Random tests only, with source literals but nothing learnt at run time (a baseline for
    /// benchmarks).
    Random,
}

/// An execution that cannot become a test: it aborted, overflowed its stack, exited or hung.
#[derive(Debug, Clone)]
pub struct Finding {
    pub case: TestCase,
    pub outcome: Outcome,
    /// The counters the execution hit before it died.
    pub report_covered: Vec<u32>,
}

pub struct SearchOutcome {
    pub tests: Vec<FinishedTest>,
    pub covered: BTreeSet<usize>,
    pub executions: u64,
    pub findings: Vec<Finding>,
    /// Candidates not run because they repeat a call that crashed or hung before.
    pub avoided: u64,
    /// Executions when the last goal was first covered.
    pub executions_to_final_coverage: u64,
    /// Seconds into the search when the last goal was first covered.
    pub time_to_final_coverage_s: f64,
    /// Goals reached only by executions that crashed or hung (no test can show them).
    pub reached_by_findings: BTreeSet<usize>,
    /// What the code touched in its environment.
    pub touched: env::Touched,
    /// Network and process attempts the virtual environment refused, over all executions.
    pub refused_by_runtime: u64,
    /// System calls the sandbox refused, over all executions.
    pub refused_by_sandbox: u64,
    /// Goals (branches and outcomes) whose best test calls private items.
    pub goals_needing_private: usize,
    /// Goals (branches and outcomes) whose best test builds mocks.
    pub goals_needing_mocks: usize,
    /// Goals (branches and outcomes) whose best test sets up fakes.
    pub goals_needing_fakes: usize,
    /// Counters proven infeasible that some execution covered: bugs in the proof.
    pub infeasible_covered: BTreeSet<u32>,
}

/// How often a candidate climbs from a stepping stone of the frontier (when there is one).
const P_CLIMB: f64 = 0.25;
/// How often a mutant gets a fake, once fakes are allowed (times `isolate_probability`).
const P_FAKE: f64 = 0.3;
/// Executions a kept test may spend on simpler values for its fakes.
const MAX_SIMPLER_TRIES: usize = 24;

/// Progress as the search goes: executions so far and goals covered.
pub type Progress<'a> = &'a mut dyn FnMut(u64, usize);

pub fn run(
    space: &mut Space,
    goals: &GoalMap,
    pool: &mut DriverPool,
    cfg: &SearchConfig,
    progress: Progress,
) -> Result<SearchOutcome> {
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let mut archive = Archive::default();
    let mut executions = 0u64;
    let mut findings: Vec<Finding> = Vec::new();
    let mut poisoned: BTreeSet<String> = BTreeSet::new();
    let mut avoided = 0;
    let mut last_gain = (0u64, 0f64);
    let mut reached_by_findings = BTreeSet::new();
    let mut touched = env::Touched::default();
    let mut pending: Vec<TestCase> = Vec::new();
    let mut frontier = frontier::Frontier::default();
    let eligible = space
        .targets
        .iter()
        .copied()
        .filter(|&c| {
            !matches!(
                space.cluster.callables[c].kind,
                CallableKind::StructLiteral { .. }
                    | CallableKind::Variant { .. }
                    | CallableKind::Mock(_)
                    | CallableKind::Fake(_)
                    | CallableKind::Parse { .. }
            )
        })
        .collect();
    let boolean: Vec<usize> = (0..space.cluster.callables.len())
        .filter(|&c| space.cluster.callables[c].ret == crate::cluster::Ty::Bool)
        .collect();
    let mut outputs = outputs::Outputs::new(goals.len(), eligible, &boolean);
    let expected: Vec<usize> = outputs.expected().collect();
    let (mut refused_by_runtime, mut refused_by_sandbox) = (0u64, 0u64);
    let mut infeasible_covered = BTreeSet::new();
    let mut real_values = fakes::RealValues::default();
    let started = Instant::now();
    let max = cfg.max_executions.unwrap_or(u64::MAX);
    while executions < max && cfg.deadline.is_none_or(|d| Instant::now() < d) {
        if archive.covered_below(goals.len()) == goals.len()
            && !goals.goals.is_empty()
            && expected.iter().all(|&g| archive.covers(g))
        {
            break;
        }
        let spent = progress_fraction(cfg, executions, started);
        space.mock_gate = if spent >= cfg.mock_start {
            cfg.mock_probability
        } else {
            0.0
        };
        space.fake_gate = if spent >= cfg.isolate_start {
            cfg.isolate_probability
        } else {
            0.0
        };
        let n = (cfg.batch as u64).min(max - executions) as usize;
        let parents: Vec<&FinishedTest> = archive.tests().collect();
        // Random tests are most useful early; mutants of archived tests later.
        let p_random = if parents.is_empty() || cfg.strategy == Strategy::Random {
            1.0
        } else {
            0.5 / (1.0 + executions as f64 / 2000.0) + 0.1
        };
        let mut batch = Vec::with_capacity(n);
        // Tests whose mocks ran short go again first, with more values.
        let take = pending.len().min(n);
        batch.extend(pending.drain(..take));
        let mut attempts = 0;
        while batch.len() < n && attempts < n * 20 {
            attempts += 1;
            let climbing =
                cfg.strategy == Strategy::Archive && !frontier.is_empty() && rng.gen_bool(P_CLIMB);
            let candidate = if climbing {
                frontier.climb(&mut rng, space)
            } else if rng.gen_bool(p_random) {
                ops::random_test(&mut rng, space).map(|mut t| {
                    if touched.any() && rng.gen_bool(0.3) {
                        env::mutate_env(
                            &mut rng,
                            &space.pool,
                            &touched,
                            &touched,
                            cfg.env_parts,
                            &mut t.env,
                        );
                    }
                    t
                })
            } else {
                let parent = parents.choose(&mut rng).expect("non-empty");
                let substituted = (cfg.strategy == Strategy::Archive && rng.gen_bool(0.2))
                    .then(|| {
                        let compared: Vec<(u64, u64)> = parent
                            .report
                            .cmp_ints
                            .iter()
                            .copied()
                            .filter(|(pc, _)| goals.in_selected_code(*pc))
                            .collect();
                        cmp::substitute(&mut rng, &parent.case, &compared)
                    })
                    .flatten();
                substituted
                    .or_else(|| Some(mutate(&mut rng, space, &touched, cfg.env_parts, parent)))
            };
            let Some(candidate) = candidate.filter(|c| !c.stmts.is_empty()) else {
                continue;
            };
            if !fakes::respects(space, &candidate) {
                continue;
            }
            if is_poisoned(&poisoned, &candidate) {
                avoided += 1;
                continue;
            }
            batch.push(candidate);
        }
        if batch.is_empty() {
            break;
        }
        let reports = pool.exec_batch(batch.iter().map(TestCase::request).collect())?;
        executions += batch.len() as u64;
        for (case, report) in batch.into_iter().zip(reports) {
            check_infeasible(goals, &report, &mut infeasible_covered);
            // Only what the code under test compared: the driver's and std's comparisons are noise.
            let ints: Vec<u64> = report
                .cmp_ints
                .iter()
                .filter(|(pc, _)| goals.in_selected_code(*pc))
                .map(|&(_, v)| v)
                .collect();
            if cfg.strategy == Strategy::Archive {
                space.pool.learn(&ints, &report.cmp_bytes);
                if matches!(
                    report.outcome,
                    Outcome::Completed | Outcome::Panicked { .. }
                ) {
                    let closest: Vec<(u64, u64)> = report
                        .cmp_closest
                        .iter()
                        .copied()
                        .filter(|(pc, _)| goals.in_selected_code(*pc))
                        .collect();
                    if frontier.offer(&case, &closest).met {
                        pending.extend(frontier::prefixes(&case));
                    }
                }
            }
            let (clock_before, paths_before) = (touched.clock, touched.paths.len());
            touched.learn(&report.env.accesses);
            if touched.paths.len() > paths_before {
                // Paths the code opened make good path arguments.
                for p in &touched.paths {
                    space.pool.add_path(p.clone());
                }
            }
            touched.learn_written(&report.env.files);
            if touched.clock && !clock_before {
                // Code that reads the clock often compares text with today's date.
                for d in env::date_strings(env::DEFAULT_NOW) {
                    space.pool.add_string(d);
                }
            }
            refused_by_sandbox += report.sandbox_blocked as u64;
            refused_by_runtime += report
                .env
                .accesses
                .iter()
                .filter(|a| {
                    matches!(
                        a,
                        hermetic_protocol::AccessReport::NetworkAttempt { .. }
                            | hermetic_protocol::AccessReport::ProcessAttempt { .. }
                    )
                })
                .count() as u64;
            real_values.learn(&report);
            if mocks::ran_out(&report) {
                pending.extend(mocks::grow(&mut rng, space, &case, &report));
                continue;
            }
            if fakes::ran_out(&report) {
                pending.extend(fakes::grow(&mut rng, space, &case, &report));
                continue;
            }
            // A repeated last value stands in for the values of later calls; now and then try
            // a value per call instead (seed 003: sequences follow the calls).
            if mocks::short(space, &case, &report) && rng.gen_bool(0.3) {
                pending.extend(mocks::grow(&mut rng, space, &case, &report));
            }
            match finish(space.cluster, case, report) {
                // The sandbox stopped something the code did behind the runtime's back (or, with
                // `--env real`, anything harmful): run as a test, outside the sandbox, it would
                // really do it. Such an execution never becomes a test.
                Ok(test) if test.report.sandbox_blocked > 0 => {}
                Ok(test) => {
                    let mut hit: Vec<usize> = goals.goals_hit(&test.report.covered).collect();
                    hit.extend(outputs.goal(&test));
                    if archive.offer(&test, &hit) > 0 {
                        last_gain = (executions, started.elapsed().as_secs_f64());
                    }
                }
                Err(finding) => {
                    reached_by_findings.extend(goals.goals_hit(&finding.report_covered));
                    poison(&mut poisoned, &finding);
                    if !findings.iter().any(|f| same_finding(f, &finding)) {
                        findings.push(*finding);
                    }
                }
            }
        }
        progress(executions, archive.covered_below(goals.len()));
    }
    if std::env::var_os("HERMETIC_DEBUG").is_some() {
        for g in expected.iter().filter(|&&g| !archive.covers(g)) {
            eprintln!("outcome never seen: {}", outputs.describe(*g));
        }
        eprintln!("touched: {touched:?}");
        frontier.describe();
        for t in archive.tests() {
            eprintln!("archived: {:?} {:?}", t.case.env, t.report.env.accesses);
        }
    }
    // The archive keeps a test with crutches for a goal only when none without them covered it.
    let needing = |crutch: fn(&FinishedTest) -> bool| -> usize {
        archive
            .assignments()
            .iter()
            .filter(|(t, _)| crutch(t))
            .map(|(_, own)| own.len())
            .sum()
    };
    let goals_needing_private = needing(|t| t.uses_private);
    let goals_needing_mocks = needing(|t| t.uses_mocks);
    let goals_needing_fakes = needing(|t| t.uses_fakes);
    let (mut tests, extra) = minimise(
        space,
        goals,
        &mut outputs,
        pool,
        &archive,
        &mut infeasible_covered,
    )?;
    for t in &mut tests {
        t.unseen_fakes = real_values.unseen(&t.report);
    }
    executions += extra;
    let covered: BTreeSet<usize> = archive.goals().filter(|&g| !outputs.is_output(g)).collect();
    reached_by_findings.retain(|g| !covered.contains(g));
    Ok(SearchOutcome {
        tests,
        covered,
        executions,
        findings,
        avoided,
        executions_to_final_coverage: last_gain.0,
        time_to_final_coverage_s: last_gain.1,
        reached_by_findings,
        touched,
        refused_by_runtime,
        refused_by_sandbox,
        goals_needing_private,
        goals_needing_mocks,
        goals_needing_fakes,
        infeasible_covered,
    })
}

/// The self-check of the infeasibility proofs: an execution that covers a counter proven
/// infeasible shows a bug in the proof. Counted for the report, shown under `HERMETIC_DEBUG`.
fn check_infeasible(goals: &GoalMap, report: &ExecReport, seen: &mut BTreeSet<u32>) {
    for i in goals.infeasible_hit(&report.covered) {
        if seen.insert(i.counter) && std::env::var_os("HERMETIC_DEBUG").is_some() {
            eprintln!(
                "BUG: an execution covered {} pc {:#x} (counter {}), which was proven infeasible",
                i.function, i.pc, i.counter
            );
        }
    }
}

/// How much of the budget is spent: the larger of the executions' and the time's share. (With
/// a time budget the point where mocks open up moves with the machine's speed, as the deadline
/// itself does; runs bounded by `--max-executions` alone stay reproducible.)
fn progress_fraction(cfg: &SearchConfig, executions: u64, started: Instant) -> f64 {
    let by_executions = cfg
        .max_executions
        .map_or(0.0, |m| executions as f64 / m.max(1) as f64);
    let by_time = cfg.deadline.map_or(0.0, |d| {
        let total = d.saturating_duration_since(started).as_secs_f64();
        let left = d.saturating_duration_since(Instant::now()).as_secs_f64();
        if total > 0.0 {
            1.0 - left / total
        } else {
            1.0
        }
    });
    by_executions.max(by_time)
}

/// A mutant of an archived test: its statements, its environment, or both. Environment genes
/// come from what this test's last execution touched, or what any execution touched.
fn mutate(
    rng: &mut ChaCha8Rng,
    space: &Space,
    touched: &env::Touched,
    parts: env::EnvParts,
    parent: &FinishedTest,
) -> TestCase {
    // Now and then a fake for a call the parent made for real (seed 000).
    if space.fake_gate > 0.0 && rng.gen_bool((space.fake_gate * P_FAKE).min(1.0)) {
        if let Some(t) = fakes::insert(rng, space, &parent.case, &parent.report) {
            return t;
        }
    }
    let roll: f64 = if touched.any() { rng.gen() } else { 1.0 };
    let mut child = if roll < 0.35 {
        parent.case.clone()
    } else {
        ops::mutate(rng, space, &parent.case)
    };
    if roll < 0.5 {
        let mut local = env::Touched::default();
        local.learn(&parent.report.env.accesses);
        env::mutate_env(rng, &space.pool, touched, &local, parts, &mut child.env);
    }
    child
}

/// The test as it really ran: cut after a panic, before an argument that could not be built.
/// Executions that killed the child become findings.
pub(crate) fn finish(
    cluster: &Cluster,
    mut case: TestCase,
    report: ExecReport,
) -> Result<FinishedTest, Box<Finding>> {
    match &report.outcome {
        Outcome::Completed => {}
        Outcome::Panicked { stmt, .. } => case.stmts.truncate(stmt + 1),
        Outcome::Invalid { stmt, .. } => case.stmts.truncate(*stmt),
        Outcome::Crashed { stmt, .. }
        | Outcome::Timeout { stmt }
        | Outcome::Exited { stmt, .. } => {
            case.stmts.truncate(stmt + 1);
            return Err(Box::new(Finding {
                case,
                outcome: report.outcome,
                report_covered: report.covered,
            }));
        }
    }
    let is_mock = |s: &Stmt| matches!(cluster.callables[s.callable].kind, CallableKind::Mock(_));
    let is_fake = |s: &Stmt| matches!(cluster.callables[s.callable].kind, CallableKind::Fake(_));
    let uses_private = case.stmts.iter().any(|s| {
        let c = &cluster.callables[s.callable];
        !is_mock(s) && !is_fake(s) && !cluster.is_public_api(c.module, c.vis)
    });
    let uses_mocks = case.stmts.iter().any(is_mock);
    let uses_fakes = case.stmts.iter().any(is_fake);
    Ok(FinishedTest {
        case,
        report,
        uses_private,
        uses_mocks,
        uses_fakes,
        unseen_fakes: Vec::new(),
        assertions: None,
    })
}

/// Where a test belongs: with the function it is about (its last call) when every call it
/// makes can be written there; else where it was built.
fn home_of(cluster: &Cluster, case: &TestCase) -> crate::cluster::ModuleId {
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
    outputs: &mut outputs::Outputs,
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

fn fingerprint(stmt: &Stmt) -> String {
    format!("{}:{:?}", stmt.callable, stmt.args)
}

/// Remembers the call that crashed or hung, when it stands on its own (no earlier values).
fn poison(poisoned: &mut BTreeSet<String>, f: &Finding) {
    if let Some(last) = f.case.stmts.last() {
        if last.uses().is_empty() {
            poisoned.insert(fingerprint(last));
        }
    }
}

fn is_poisoned(poisoned: &BTreeSet<String>, case: &TestCase) -> bool {
    !poisoned.is_empty()
        && case
            .stmts
            .iter()
            .any(|s| poisoned.contains(&fingerprint(s)))
}

fn same_finding(a: &Finding, b: &Finding) -> bool {
    let kind = |o: &Outcome| std::mem::discriminant(o);
    a.case.stmts.last().map(|s| s.callable) == b.case.stmts.last().map(|s| s.callable)
        && kind(&a.outcome) == kind(&b.outcome)
}

/// Shrinks each archived test to the statements its goals need, then keeps a small set of tests
/// that covers every archived goal. Returns the tests and the executions spent.
fn minimise(
    space: &Space,
    goals: &GoalMap,
    outputs: &mut outputs::Outputs,
    pool: &mut DriverPool,
    archive: &Archive,
    infeasible_covered: &mut BTreeSet<u32>,
) -> Result<(Vec<FinishedTest>, u64)> {
    let mut execute = |candidate: &TestCase| -> Result<ExecReport> {
        let report = pool.exec_batch(vec![candidate.request()])?.remove(0);
        check_infeasible(goals, &report, infeasible_covered);
        Ok(report)
    };
    let mut executions = 0;
    let mut shrunk: Vec<(FinishedTest, BTreeSet<usize>)> = Vec::new();
    for (test, own) in archive.assignments() {
        let own: BTreeSet<usize> = own.into_iter().collect();
        let mut best = test.clone();
        for trim in [mocks::trim, fakes::trim] {
            if let Some(candidate) = trim(space, &best.case, &best.report) {
                let report = execute(&candidate)?;
                executions += 1;
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
            executions += 1;
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
                executions += 1;
                if let Some(t) = kept(space, goals, outputs, candidate, report, &own) {
                    best = t;
                    break;
                }
            }
        }
        let mut g = env::gene_count(&best.case.env);
        while g > 0 {
            g -= 1;
            let mut candidate = best.case.clone();
            candidate.env = env::without_gene(&candidate.env, g);
            let report = execute(&candidate)?;
            executions += 1;
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
    let mut chosen = Vec::new();
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
    // Observations that differ between two runs must not become assertions.
    let reruns = pool.exec_batch(chosen.iter().map(|t| t.case.request()).collect())?;
    for rerun in &reruns {
        check_infeasible(goals, rerun, infeasible_covered);
    }
    executions += chosen.len() as u64;
    let mut stable = Vec::new();
    for (mut test, rerun) in chosen.into_iter().zip(reruns) {
        if std::mem::discriminant(&rerun.outcome) != std::mem::discriminant(&test.report.outcome) {
            continue;
        }
        for (mine, again) in test.report.stmts.iter_mut().zip(&rerun.stmts) {
            if mine.returned != again.returned {
                mine.returned = None;
            }
        }
        stable.push(test);
    }
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
    Ok((stable, executions))
}
