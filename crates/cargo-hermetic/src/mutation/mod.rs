//! Mutation analysis: mutants of the selected code compiled into the driver as schemata
//! (`schemata.rs`), each final test run against the mutants it reaches, and the assertions
//! chosen by the mutants they kill (`analysis.rs`), with the mutation score for the report;
//! tests sought for the mutants reached but not killed (`hunt.rs`).
//!
//! The driver build leaves out sites the compiler rejects and builds again (`driver/build.rs`), and
//! `driver/goals.rs` keeps code that only mutants run out of the goals. Analysis keeps, per final
//! test, the fewest assertions that kill what it can kill (`FinishedTest::assertions`; the keys
//! come from `emit::assertion_keys`, the oracle's own checks). Mutation knows nothing of how Rust
//! is printed beyond those keys.

pub mod analysis;
pub mod hunt;
pub mod schemata;

use crate::cargo::Target;
use crate::driver::build::{self, DriverBuild};
use crate::driver::process;
use crate::search::ops::Space;
use crate::selection::Selection;
use crate::test_case::FinishedTest;
use anyhow::Result;
pub use schemata::Mutant;
use serde::Serialize;
use std::time::Instant;

/// Where and how long mutation analysis runs.
pub struct Settings<'a> {
    /// How the search's drivers were started (the mutants' driver starts alike).
    pub launch: &'a process::Launch,
    pub jobs: usize,
    pub timeout_ms: u64,
    pub real_env: bool,
    pub seed: u64,
    /// When analysis and the hunt stop (the tests then keep every assertion).
    pub deadline: Option<Instant>,
    /// The hunt's share of `--max-executions`.
    pub max_executions: u64,
}

/// Mutation analysis after the coverage search: the driver rebuilt with the selected code's
/// mutants, the final tests run against them and their assertions chosen, tests sought for the
/// mutants reached but not killed (added to `tests`); the report's figures.
pub fn run(
    built: &DriverBuild,
    target: &Target,
    space: &Space,
    selection: &Selection,
    tests: &mut Vec<FinishedTest>,
    settings: &Settings,
) -> Result<MutationReport> {
    let started = Instant::now();
    let cluster = space.cluster;
    let mutants = build::build_mutants(built, target, cluster, selection)?;
    let build_seconds = started.elapsed().as_secs_f64();
    let launch = process::Launch {
        executable: mutants.executable.clone(),
        ..settings.launch.clone()
    };
    let mut pool = process::DriverPool::start(launch, settings.jobs, settings.timeout_ms)?;
    pool.real_env = settings.real_env;
    let mut analysis = analysis::analyse(
        cluster,
        tests,
        &mutants.mutants,
        &mut pool,
        settings.deadline,
    )?;
    let stop = hunt::Stop {
        deadline: settings.deadline,
        max_executions: settings.max_executions,
    };
    let (mut more, executions) = hunt::hunt(
        space,
        tests,
        &analysis.alive_reached,
        &mut pool,
        settings.seed,
        &stop,
    )?;
    analysis.executions += executions;
    if !more.is_empty() {
        let found = analysis::analyse(cluster, &mut more, &mutants.mutants, &mut pool, None)?;
        analysis.merge(found);
        tests.extend(more);
    }
    let mut report = MutationReport::new(&mutants.mutants, mutants.unviable, &analysis);
    report.builds = mutants.builds;
    report.build_seconds = build_seconds;
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}

/// The mutants of the selected code and how the emitted tests fare against them.
#[derive(Debug, Default, Serialize)]
pub struct MutationReport {
    /// Mutants compiled into the driver (cargo-mutants' operators and constants ± 1).
    pub mutants: usize,
    /// Mutants left out because the compiler rejected them.
    pub unviable: usize,
    /// Mutants some test reaches.
    pub reached: usize,
    /// Mutants some emitted test kills.
    pub killed: usize,
    /// `killed / mutants`, in percent.
    pub score: f64,
    /// Assertions kept, because they check a call's result or kill a mutant.
    pub assertions_kept: usize,
    /// Assertions dropped: they killed no mutant the kept ones did not.
    pub assertions_dropped: usize,
    /// Executions against mutants.
    pub executions: u64,
    /// The time mutation analysis took, its driver's build included.
    pub seconds: f64,
    /// The driver's build with the mutants: how many builds it took (rewrites the compiler
    /// rejects are left out and it builds again), and how long.
    pub builds: usize,
    pub build_seconds: f64,
    /// The budget ran out before every test ran against every mutant it reaches: the kills
    /// are those seen (a lower bound), and the tests keep all their assertions.
    pub incomplete: bool,
    /// Mutants no test kills: what the tests would not notice.
    pub alive: Vec<AliveMutant>,
}

#[derive(Debug, Serialize)]
pub struct AliveMutant {
    /// `src/lib.rs:12:7`.
    pub location: String,
    pub function: String,
    /// `replace < with <=`.
    pub change: String,
    /// Whether some test runs the mutated code (and still passes).
    pub reached: bool,
}

impl MutationReport {
    pub fn new(
        mutants: &[Mutant],
        unviable: usize,
        analysis: &analysis::Analysis,
    ) -> MutationReport {
        let killed = analysis.killed.len();
        MutationReport {
            mutants: mutants.len(),
            unviable,
            reached: analysis.reached.len(),
            killed,
            score: if mutants.is_empty() {
                0.0
            } else {
                100.0 * killed as f64 / mutants.len() as f64
            },
            assertions_kept: analysis.assertions_kept,
            assertions_dropped: analysis.assertions_dropped,
            executions: analysis.executions,
            seconds: analysis.seconds,
            builds: 0,
            build_seconds: 0.0,
            incomplete: analysis.incomplete,
            alive: mutants
                .iter()
                .filter(|m| !analysis.killed.contains(&m.id))
                .map(|m| AliveMutant {
                    location: format!("{}:{}:{}", m.file.display(), m.line, m.column),
                    function: m.function.clone(),
                    change: m.change.clone(),
                    reached: analysis.reached.contains(&m.id),
                })
                .collect(),
        }
    }
}
