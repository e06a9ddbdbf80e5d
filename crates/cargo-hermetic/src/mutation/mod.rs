//! Mutation analysis: mutants of the selected code compiled into the driver as schemata
//! (`schemata.rs`), each final test run against the mutants it reaches, and the assertions
//! chosen by the mutants they kill (`analysis.rs`), with the mutation score for the report;
//! tests sought for the mutants reached but not killed (`hunt.rs`).

pub mod analysis;
pub mod hunt;
pub mod schemata;

use crate::cargo::Target;
use crate::driver::build::{self, DriverBuild};
use crate::driver::process;
use crate::report::MutationReport;
use crate::search::ops::Space;
use crate::selection::Selection;
use crate::test_case::FinishedTest;
use anyhow::Result;
pub use schemata::Mutant;
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
