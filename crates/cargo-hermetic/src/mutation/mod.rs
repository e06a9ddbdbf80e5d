//! Mutation analysis: mutants of the selected code compiled into the driver as schemata
//! (`schemata.rs`), each final test run against the mutants it reaches, and the assertions
//! chosen by the mutants they kill (`analysis.rs`), with the mutation score for the report;
//! tests sought for the mutants reached but not killed (`hunt.rs`).
//!
//! The mutants' driver is a second build of the driver's copy, run beside the coverage search
//! (`Building`); it leaves out sites the compiler rejects and builds again (`driver/build.rs`).
//! Analysis keeps, per final test, the fewest assertions that kill what it can kill
//! (`FinishedTest::assertions`; the keys come from `emit::assertion_keys`, the oracle's own
//! checks). Mutation knows nothing of how Rust is printed beyond those keys.

pub mod analysis;
pub mod hunt;
pub mod schemata;

use crate::driver::build::{self, MutantsBuild};
use crate::driver::process;
use crate::search::ops::Space;
use crate::test_case::FinishedTest;
use anyhow::{bail, Result};
pub use schemata::Mutant;
use serde::Serialize;
use std::thread::JoinHandle;
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
    /// Whether the time to the deadline is shared out between the hunt and the analysis of
    /// what it finds (a run bounded by time); otherwise (`--max-executions`) the deadline is a
    /// hard stop only, so that what is done depends on the executions alone.
    pub shared_out: bool,
    /// The hunt's share of `--max-executions`.
    pub max_executions: u64,
    /// The hunt's stagnation floor (`hunt::Stop`); `None` with `--no-early-stop`.
    pub stagnation_floor: Option<u64>,
    /// Whether to hunt at all: not when the last run's tests are all there is to write (the
    /// sources and the command as it left them), which a hunt would add to.
    pub hunt: bool,
}

/// The mutants' build, running beside the coverage search: the schemata rewrite needs only the
/// selected code, not the search's tests, and the search runs a copy of its driver's
/// executable (`build::build_driver`), so the analysis' share of the budget is not spent
/// building. Dropped unwaited (the search failed), it still waits for cargo to finish.
pub struct Building {
    handle: Option<JoinHandle<Result<MutantsBuild>>>,
}

impl Building {
    /// Starts the build in a thread of its own.
    pub fn start(job: build::MutantsJob) -> Building {
        Building {
            handle: Some(std::thread::spawn(move || build::build_mutants(job))),
        }
    }

    /// The finished build.
    fn wait(mut self) -> Result<MutantsBuild> {
        match self.handle.take().map(JoinHandle::join) {
            Some(Ok(built)) => built,
            Some(Err(_)) => bail!("the mutants' build panicked"),
            None => bail!("the mutants' build was already waited for"),
        }
    }
}

impl Drop for Building {
    fn drop(&mut self) {
        if let Some(handle) = self.handle.take() {
            let _ = handle.join();
        }
    }
}

/// Mutation analysis after the coverage search: the driver built with the selected code's
/// mutants (`building`, which ran beside the search), the final tests run against them and
/// their assertions chosen, tests sought for the mutants reached but not killed (added to
/// `tests`); the report's figures.
pub fn run(
    building: Building,
    space: &Space,
    tests: &mut Vec<FinishedTest>,
    settings: &Settings,
) -> Result<MutationReport> {
    let started = Instant::now();
    let cluster = space.cluster;
    let mutants = building.wait()?;
    let build_wait_seconds = started.elapsed().as_secs_f64();
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
    // The hunt leaves a quarter of what is left of the share to analyse the tests it finds,
    // which keeps the whole phase within its share of the budget.
    let hunt_deadline = settings.deadline.map(|d| {
        let now = Instant::now();
        if settings.shared_out {
            now + d.saturating_duration_since(now).mul_f64(0.75)
        } else {
            d
        }
    });
    let stop = hunt::Stop {
        deadline: hunt_deadline,
        max_executions: settings.max_executions,
        stagnation_floor: settings.stagnation_floor,
    };
    let hunted = if settings.hunt {
        hunt::hunt(
            space,
            tests,
            &analysis.alive_reached,
            &mut pool,
            settings.seed,
            &stop,
        )?
    } else {
        hunt::Hunted::default()
    };
    // The hunt's tests are held to what the search's are: only what a rerun repeats is asserted.
    analysis.executions += hunted.executions + hunted.tests.len() as u64;
    let mut more = crate::search::minimise::rerun(&mut pool, hunted.tests)?;
    if !more.is_empty() {
        let found = analysis::analyse(
            cluster,
            &mut more,
            &mutants.mutants,
            &mut pool,
            settings.deadline,
        )?;
        analysis.merge(found);
        tests.extend(more);
    }
    let mut report = MutationReport::new(&mutants.mutants, mutants.unviable, &analysis);
    report.builds = mutants.builds;
    report.build_seconds = mutants.seconds;
    report.build_wait_seconds = build_wait_seconds;
    report.hunt_stopped_by_time = hunted.stopped_by_time;
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
    /// The time mutation analysis took after the search, the wait for its driver's build
    /// included.
    pub seconds: f64,
    /// The driver's build with the mutants: how many builds it took (rewrites the compiler
    /// rejects are left out and it builds again), and how long (beside the search).
    pub builds: usize,
    pub build_seconds: f64,
    /// How long the analysis waited for that build after the search ended.
    pub build_wait_seconds: f64,
    /// The budget ran out before every test ran against every mutant it reaches: the kills
    /// are those seen (a lower bound), and the tests keep all their assertions.
    pub incomplete: bool,
    /// The deadline stopped the hunt for tests that kill the mutants left alive (with
    /// `--max-executions`, the tests written then depend on the machine's speed).
    pub hunt_stopped_by_time: bool,
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
            build_wait_seconds: 0.0,
            incomplete: analysis.incomplete,
            hunt_stopped_by_time: false,
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
