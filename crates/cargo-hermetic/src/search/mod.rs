//! The search: many-objective, archive-based generation of test cases.
//!
//! Every goal (an edge of the selected code) is its own objective. New candidates are random
//! tests or mutants of archived ones; executions report covered counters and the values the code
//! compared against, which join the value pool. The archive keeps, per goal, the best test that
//! covers it. At the end each kept test is minimised: every statement must be needed for a goal.
//! All decisions come from a seeded RNG and the reports, never from the clock, so a seed and an
//! execution budget reproduce a run exactly.
//!
//! Batches have a fixed size whatever `--jobs` is. Test cases are built and changed by `ops.rs`,
//! values drawn by `values.rs` and environment genes by `env.rs`; next to the edges are output
//! goals (`outputs.rs`); mocks are fitted to their calls (`mocks.rs`), fakes of isolated calls
//! grown and trimmed (`fakes.rs`), compared integers substituted (`cmp.rs`), stepping stones kept
//! towards comparisons never seen equal (`frontier.rs`); the archive (`archive.rs`) and
//! minimisation (`minimise.rs`) end it. The search knows nothing of how Rust is printed (no
//! `rust_syntax`, `mock_syntax` or `driver::codegen`: `tests/layers.rs` checks it), and runs test
//! cases through `driver::execute::Execute`.

pub mod archive;
mod cmp;
mod cross;
mod deciding;
pub mod env;
pub mod fakes;
mod frontier;
mod made;
pub(crate) mod minimise;
pub mod mocks;
pub mod ops;
pub mod outputs;
mod plainer;
pub mod refused;
mod repair;
mod shorter;
pub mod values;
mod words;
mod yields;

use crate::cluster::{CallableKind, Cluster};
use crate::driver::execute::{ExecRequest, Execute};
use crate::driver::goals::{GoalKind, GoalMap};
use crate::test_case::{FinishedTest, Stmt, TestCase};
use anyhow::Result;
use archive::Archive;
use hermetic_protocol::{AccessReport, ExecReport, Observed, Outcome};
pub use minimise::home_of;
use ops::Space;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;
use yields::Kind;

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
    /// End the search once nothing was gained for `STAGNATION_FACTOR` times the executions
    /// the last gain took and at least this many executions (see [`StopReason::Stagnated`]);
    /// `None`: search until a budget is spent or every goal is covered.
    pub stagnation_floor: Option<u64>,
    /// Tests the last run wrote (`kept::load`): run first ([`Search::run_kept`]); those that
    /// still run as they did and cover goals are kept as they are, and the search looks only
    /// for the rest.
    pub start_from: Vec<TestCase>,
    /// The sources are as the last run left them (`crate::unchanged`): once every test of
    /// `start_from` is kept, the search stops ([`StopReason::Unchanged`]) rather than look for
    /// goals the last run did not reach, so the rerun writes the same tests.
    pub kept_only: bool,
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
    /// `(executions, branches covered)` each time the search covered more branches: how fast it
    /// got where it got (the benchmark compares strategies on it).
    pub branch_gains: Vec<(u64, usize)>,
    /// Goals reached only by executions that crashed or hung (no test can show them).
    pub reached_by_findings: BTreeSet<usize>,
    /// What the code touched in its environment.
    pub touched: env::Touched,
    /// Network and process attempts the virtual environment refused, over all executions.
    pub refused_by_runtime: u64,
    /// System calls the sandbox refused, over all executions.
    pub refused_by_sandbox: u64,
    /// What the sandbox refused, per function.
    pub refused: refused::Refused,
    /// Goals (branches and outcomes) whose best test calls private items.
    pub goals_needing_private: usize,
    /// Goals (branches and outcomes) whose best test builds mocks.
    pub goals_needing_mocks: usize,
    /// Goals (branches and outcomes) whose best test sets up fakes.
    pub goals_needing_fakes: usize,
    /// Counters proven infeasible that some execution covered: bugs in the proof.
    pub infeasible_covered: BTreeSet<u32>,
    /// Public functions and methods of the selected code (method goals), and how many of them
    /// a kept test calls.
    pub public_functions: usize,
    pub public_functions_called: usize,
    /// Why the search ended.
    pub stopped: StopReason,
}

/// How often a candidate climbs from a stepping stone of the frontier (when there is one).
const P_CLIMB: f64 = 0.25;
/// At most this many eager substitutions of integers, and as many of bytes, follow one
/// execution ([`cmp::eager`]).
const EAGER_PER_RUN: usize = 2;
/// As many of each kind follow a run that reached a new goal.
const EAGER_ON_GAIN: usize = 16;
/// At most this many edits towards the comparisons that decided a run follow a run that
/// reached a new goal ([`deciding::follow`]), first in the queue.
const DECIDING_ON_GAIN: usize = 12;
/// A comparison never met that decided a run gets edits towards it from the first run that
/// holds each operand it read there, from this many runs at most ([`Search::approach`]), at
/// most [`APPROACH_EDITS`] from each.
const APPROACHES_PER_SITE: usize = 16;
const APPROACH_EDITS: usize = 12;
/// Repaired tests waiting at most ([`repair`]): the latest runs' go first, older ones are
/// dropped.
const MAX_REPAIRS: usize = 64;
/// A gain's first this many edits go to the front of the queue, the rest to its back.
const FRESH_FIRST: usize = 64;
/// At most this many edits putting words of the source into text ([`words::edits`]) follow a
/// run that reached a new goal.
const WORDS_ON_GAIN: usize = 32;
/// At most this many texts other functions accepted go into a gaining test's texts
/// ([`cross::pieces`]), and at most this many edits of them follow the gain.
const MAX_PIECES: usize = 8;
const PIECES_ON_GAIN: usize = 64;
/// How often a mutant of an archived test gets a line of another's text instead
/// ([`cross::lines`]).
const P_CROSS: f64 = 0.1;
/// How often input-to-state tries a string's or byte slice's length or one of its bytes
/// first ([`cmp::reshapes`]).
const P_RESHAPE: f64 = 0.25;
/// How often a candidate with a file-system handle argument gets a file at the handle's path
/// ([`env::back_handle`]).
const P_BACK_HANDLE: f64 = 0.5;
/// How often a mutant gets a fake, once fakes are allowed (times `isolate_probability`).
const P_FAKE: f64 = 0.3;
/// Rounds of fakes after a gain whose run called fakeable callees for real: each round fakes
/// each callee alone and all at once, with values of its own.
const FAKE_ROUNDS_ON_GAIN: usize = 4;

/// The search stops when it has gone this many times as many executions without a gain as the
/// last gain took to come (and at least `SearchConfig::stagnation_floor`).
const STAGNATION_FACTOR: u64 = 4;
/// The floor `generate` uses: a search that found its last goal early still gets this many
/// executions more (the magic fixture's last branch can take ~9,000; an HTTP head parser
/// written elsewhere, stuck at 28 and 34 of 77 branches after its 2,080th and ~1,370th run in
/// two seeds of ten, got past them after 10,000 more and reached 39 and 64 of 77 in 60,000).
pub const STAGNATION_FLOOR: u64 = 20_000;

/// Progress as the search goes: executions so far and goals covered.
pub type Progress<'a> = &'a mut dyn FnMut(u64, usize);

/// Why a search ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StopReason {
    /// Every goal is covered.
    AllCovered,
    /// `--max-executions` ran out.
    Executions,
    /// The time budget ran out.
    Time,
    /// Nothing was gained for `STAGNATION_FACTOR` times the executions the last gain took (a
    /// gain: a goal covered, or a comparison of the code met for the first time).
    Stagnated {
        /// Executions when the last gain came.
        last_gain: u64,
        /// Executions when the search gave up.
        at: u64,
    },
    /// No new candidate could be made.
    NothingToTry,
    /// The sources and the command are as the last run left them and every test it wrote was
    /// kept.
    Unchanged,
}

impl std::fmt::Display for StopReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StopReason::AllCovered => f.write_str("every goal is covered"),
            StopReason::Executions => f.write_str("the execution budget is spent"),
            StopReason::Time => f.write_str("the time budget is spent"),
            StopReason::Stagnated { last_gain, at } => write!(
                f,
                "coverage stopped rising: nothing gained in the {} executions since the last \
                 gain (at execution {last_gain})",
                at - last_gain
            ),
            StopReason::NothingToTry => f.write_str("no new candidate could be made"),
            StopReason::Unchanged => f.write_str(
                "the sources and the command are as the last run left them: its tests are \
                 kept (--extend searches for more)",
            ),
        }
    }
}

/// Runs the search until it stops, then minimises what it kept.
pub fn run(
    space: &mut Space,
    goals: &GoalMap,
    exec: &mut dyn Execute,
    cfg: &SearchConfig,
    progress: Progress,
) -> Result<SearchOutcome> {
    let mut search = Search::new(space, goals, cfg);
    search.run_kept(exec)?;
    progress(search.executions(), search.covered_goals());
    while search.stop_reason().is_none() {
        search.step(exec)?;
        progress(search.executions(), search.covered_goals());
    }
    search.finish(exec)
}

/// A search in progress: everything it learnt so far. It advances a batch at a time
/// ([`Search::step`]), and [`Search::finish`] turns its archive into tests.
pub struct Search<'s, 'c> {
    space: &'s mut Space<'c>,
    goals: &'s GoalMap,
    cfg: &'s SearchConfig,
    rng: ChaCha8Rng,
    archive: Archive,
    executions: u64,
    findings: Vec<Finding>,
    /// Calls that crashed or hung on their own: candidates repeating them are not run.
    poisoned: BTreeSet<String>,
    avoided: u64,
    /// Executions and seconds when the last goal was gained.
    last_gain: (u64, f64),
    branch_gains: Vec<(u64, usize)>,
    /// Executions when the search last got anywhere: a goal gained, or a comparison of the
    /// code met for the first time (a step towards the branch behind it).
    last_progress: u64,
    reached_by_findings: BTreeSet<usize>,
    touched: env::Touched,
    /// Candidates that go first in the next batch.
    pending: Vec<TestCase>,
    /// Eager substitutions waiting ([`cmp::eager`]): a quarter of each batch at most, so they
    /// never crowd out the rest of the search.
    eager: std::collections::VecDeque<(TestCase, Origin)>,
    /// Tests that failed a checksum, put right ([`repair`]), latest first: an eighth of each
    /// batch at most, before the eager edits.
    repairs: std::collections::VecDeque<(TestCase, Origin)>,
    checksums: repair::Checksums,
    /// Where each candidate of the batch in flight came from, when it is an eager edit (in
    /// the batch's order; empty: none is).
    origins: Vec<Option<Origin>>,
    /// How often each kind of eager edit paid off: the order a gain's edits go in.
    yields: yields::Yields,
    /// Operands already put in a place by an eager substitution.
    tried: BTreeSet<cmp::Tried>,
    /// Comparison sites never met, and the operands read there that runs' edits went towards
    /// them from ([`Search::approach`]).
    approached: BTreeMap<u64, BTreeSet<u64>>,
    /// Comparison sites of the code under test some run reached.
    sites: BTreeSet<u64>,
    /// Some run showed the code turning characters into digit values
    /// ([`words::converts_digits`]): texts of one line get digit shapes after a gain, also
    /// where the run that gained read no digit (it stopped at a letter first).
    converts_digits: bool,
    /// The ASCII punctuation the code checks text for, over all runs: what digit shapes keep.
    separators: words::Separators,
    /// Of each goal, the callables in whose body it is (by module and name).
    goal_callables: Vec<Vec<usize>>,
    frontier: frontier::Frontier,
    outputs: outputs::Outputs,
    /// The output goals every search should reach (both outcomes of `bool` functions).
    expected: Vec<usize>,
    refused_by_runtime: u64,
    refused_by_sandbox: u64,
    refused: refused::Refused,
    infeasible_covered: BTreeSet<u32>,
    /// What isolated callees returned when they ran for real (to tell false behaviour apart).
    real_values: fakes::RealValues,
    started: Instant,
    /// Set when a batch came out empty.
    exhausted: bool,
    /// Set when every test of `cfg.start_from` ran as before and was kept.
    all_kept: bool,
    /// Executions when coverage stopped rising before the last resorts (mocks, fakes) were
    /// allowed, and they were allowed at once rather than the search stopping without them.
    resorts_opened_at: Option<u64>,
}

impl<'s, 'c> Search<'s, 'c> {
    pub fn new(space: &'s mut Space<'c>, goals: &'s GoalMap, cfg: &'s SearchConfig) -> Self {
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
        let real_values = fakes::RealValues::new(space.cluster);
        let goal_callables = goal_callables(space.cluster, goals);
        let boolean: Vec<usize> = (0..space.cluster.callables.len())
            .filter(|&c| space.cluster.callables[c].ret == crate::cluster::Ty::Bool)
            .collect();
        let public: Vec<(usize, String)> = space
            .targets
            .iter()
            .filter_map(|&c| Some((c, public_function(space.cluster, c)?)))
            .collect();
        let outputs = outputs::Outputs::new(goals.len(), eligible, &boolean, &public);
        let expected: Vec<usize> = outputs.expected().collect();
        Search {
            space,
            goals,
            cfg,
            rng: ChaCha8Rng::seed_from_u64(cfg.seed),
            archive: Archive::default(),
            executions: 0,
            findings: Vec::new(),
            poisoned: BTreeSet::new(),
            avoided: 0,
            last_gain: (0, 0.0),
            branch_gains: Vec::new(),
            last_progress: 0,
            reached_by_findings: BTreeSet::new(),
            touched: env::Touched::default(),
            pending: Vec::new(),
            eager: Default::default(),
            repairs: Default::default(),
            checksums: Default::default(),
            origins: Vec::new(),
            yields: yields::Yields::default(),
            tried: BTreeSet::new(),
            approached: BTreeMap::new(),
            sites: BTreeSet::new(),
            converts_digits: false,
            separators: words::Separators::default(),
            goal_callables,
            frontier: frontier::Frontier::default(),
            outputs,
            expected,
            refused_by_runtime: 0,
            refused_by_sandbox: 0,
            refused: refused::Refused::default(),
            infeasible_covered: BTreeSet::new(),
            real_values,
            started: Instant::now(),
            exhausted: false,
            all_kept: false,
            resorts_opened_at: None,
        }
    }

    /// Executions so far.
    pub fn executions(&self) -> u64 {
        self.executions
    }

    /// Edge goals covered so far.
    pub fn covered_goals(&self) -> usize {
        self.archive.covered_below(self.goals.len())
    }

    /// Why the search should stop now, or `None` while it should go on. Every reason but the
    /// time budget depends on executions alone, so runs bounded by executions are reproducible.
    pub fn stop_reason(&self) -> Option<StopReason> {
        let goals = self.goals.len();
        if self.covered_goals() == goals
            && !self.goals.goals.is_empty()
            && self.expected.iter().all(|&g| self.archive.covers(g))
        {
            return Some(StopReason::AllCovered);
        }
        if self.cfg.kept_only && self.all_kept {
            return Some(StopReason::Unchanged);
        }
        if self.exhausted {
            return Some(StopReason::NothingToTry);
        }
        if self.executions >= self.cfg.max_executions.unwrap_or(u64::MAX) {
            return Some(StopReason::Executions);
        }
        if self.cfg.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some(StopReason::Time);
        }
        if self.stalled() && !self.resorts_waiting() {
            return Some(StopReason::Stagnated {
                last_gain: self.last_progress,
                at: self.executions,
            });
        }
        None
    }

    /// Whether nothing was gained for `STAGNATION_FACTOR` times the executions the last gain
    /// took, and for the floor's executions since then and since the last resorts were allowed.
    fn stalled(&self) -> bool {
        let last = self.last_progress;
        let since = self.executions - last.max(self.resorts_opened_at.unwrap_or(0));
        self.cfg
            .stagnation_floor
            .is_some_and(|floor| since >= floor)
            && self.executions - last >= STAGNATION_FACTOR.saturating_mul(last)
    }

    /// Whether the crate has mocks or fakes the search has not been allowed yet (their start
    /// is still ahead). A search that stalls before then allows them at once: they are the
    /// last resort, and stopping without them would never try it.
    fn resorts_waiting(&self) -> bool {
        if self.resorts_opened_at.is_some() {
            return false;
        }
        let cfg = self.cfg;
        let spent = progress_fraction(cfg, self.executions, self.started);
        let mocks = cfg.mock_probability > 0.0 && spent < cfg.mock_start && self.space.has_gated();
        let fakes = cfg.isolate_probability > 0.0
            && spent < cfg.isolate_start
            && !self.space.cluster.fakes.is_empty();
        mocks || fakes
    }

    /// One round: a batch of candidates made, run and learnt from.
    pub fn step(&mut self, exec: &mut dyn Execute) -> Result<()> {
        let batch = self.candidates();
        if batch.is_empty() {
            self.exhausted = true;
            return Ok(());
        }
        let requests = batch.iter().map(TestCase::search_request).collect();
        self.executions += batch.len() as u64;
        let mut origins = std::mem::take(&mut self.origins).into_iter();
        let mut cases = batch.into_iter();
        // Each report learnt from while the driver runs the next ones, in the batch's order.
        exec.exec_each(requests, &mut |report| {
            let case = cases.next().expect("a case for each report");
            self.learn_one(case, report, origins.next().flatten());
        })
    }

    /// The next batch: tests waiting to go again first, then new candidates (random tests,
    /// mutants of archived tests, climbs from stepping stones), never one that repeats a call
    /// that crashed or hung.
    pub fn candidates(&mut self) -> Vec<TestCase> {
        let cfg = self.cfg;
        let max = cfg.max_executions.unwrap_or(u64::MAX);
        if self.stalled() && self.resorts_waiting() {
            self.resorts_opened_at = Some(self.executions);
        }
        let spent = match self.resorts_opened_at {
            Some(_) => 1.0,
            None => progress_fraction(cfg, self.executions, self.started),
        };
        self.space.mock_gate = if spent >= cfg.mock_start {
            cfg.mock_probability
        } else {
            0.0
        };
        self.space.fake_gate = if spent >= cfg.isolate_start {
            cfg.isolate_probability
        } else {
            0.0
        };
        let n = (cfg.batch as u64).min(max.saturating_sub(self.executions)) as usize;
        let parents: Vec<&FinishedTest> = self.archive.tests().collect();
        // Random tests are most useful early; mutants of archived tests later.
        let p_random = if parents.is_empty() || cfg.strategy == Strategy::Random {
            1.0
        } else {
            0.5 / (1.0 + self.executions as f64 / 2000.0) + 0.1
        };
        let mut batch = Vec::with_capacity(n);
        // Tests whose mocks ran short go again first, with more values.
        let take = self.pending.len().min(n);
        batch.extend(self.pending.drain(..take));
        self.origins = vec![None; batch.len()];
        let take = self.repairs.len().min(n / 8).min(n - batch.len());
        for (t, origin) in self.repairs.drain(..take) {
            batch.push(t);
            self.origins.push(Some(origin));
        }
        let take = self.eager.len().min(n / 4).min(n - batch.len());
        for (t, origin) in self.eager.drain(..take) {
            batch.push(t);
            self.origins.push(Some(origin));
        }
        let (rng, space, touched) = (&mut self.rng, &*self.space, &self.touched);
        let real = &self.real_values;
        let mut attempts = 0;
        while batch.len() < n && attempts < n * 20 {
            attempts += 1;
            let climbing = cfg.strategy == Strategy::Archive
                && !self.frontier.is_empty()
                && rng.gen_bool(P_CLIMB);
            let candidate = if climbing {
                self.frontier.climb(rng, space)
            } else if rng.gen_bool(p_random) {
                ops::random_test(rng, space).map(|mut t| {
                    if touched.any() && rng.gen_bool(0.3) {
                        env::mutate_env(
                            rng,
                            &space.pool,
                            touched,
                            touched,
                            cfg.env_parts,
                            &mut t.env,
                        );
                    }
                    t
                })
            } else {
                let parent = parents.choose(rng).expect("non-empty");
                // Input-to-state: an operand the code compared, where the test holds the other
                // (an integer; else inside a string or byte slice).
                let substituted = (cfg.strategy == Strategy::Archive && rng.gen_bool(0.2))
                    .then(|| {
                        let compared: Vec<(u64, u64)> = parent
                            .report
                            .cmp_ints
                            .iter()
                            .copied()
                            .filter(|(pc, _)| self.goals.in_selected_code(*pc))
                            .collect();
                        let bytes = &parent.report.cmp_bytes;
                        let reshaped = rng
                            .gen_bool(P_RESHAPE)
                            .then(|| {
                                let frontier = &self.frontier;
                                let open = |site| u8::from(frontier.is_met(site));
                                let options = cmp::reshapes(space, &parent.case, &compared, &open);
                                let r = options.choose(rng)?;
                                cmp::reshape(space, &parent.case, r)
                            })
                            .flatten();
                        reshaped
                            .or_else(|| cmp::substitute(rng, &parent.case, &compared))
                            .or_else(|| {
                                let all = &parent.report.cmp_ints;
                                cmp::splice(rng, space, &parent.case, bytes, &compared, all)
                            })
                    })
                    .flatten();
                // Now and then a line of another archived test's text.
                let crossed = |rng: &mut ChaCha8Rng| {
                    let donor = parents.choose(rng)?;
                    cross::lines(rng, space, &parent.case, &donor.case)
                };
                substituted
                    .or_else(|| {
                        (cfg.strategy == Strategy::Archive && rng.gen_bool(P_CROSS))
                            .then(|| crossed(rng))
                            .flatten()
                    })
                    .or_else(|| Some(mutate(rng, space, real, touched, cfg.env_parts, parent)))
            };
            let Some(mut candidate) = candidate.filter(|c| !c.stmts.is_empty()) else {
                continue;
            };
            if !fakes::respects(space, &candidate) {
                continue;
            }
            // A handle argument (`File`, `Metadata`, `ReadDir`) opens a path when the test
            // runs: now and then the environment gets a file (a directory) there.
            if cfg.env_parts.files {
                let handles = handle_paths(space, &candidate);
                if !handles.is_empty() && rng.gen_bool(P_BACK_HANDLE) {
                    env::back_handle(rng, &space.pool, touched, &handles, &mut candidate.env);
                }
            }
            if is_poisoned(&self.poisoned, &candidate) {
                self.avoided += 1;
                continue;
            }
            batch.push(candidate);
        }
        batch
    }

    /// Runs the tests the last run wrote (`cfg.start_from`), before any search. A test that
    /// runs to the same end and covers goals is kept as it is ([`Archive::keep`]); one cut
    /// short now (a mock's values ran out, the sandbox stopped it, it failed) is another test
    /// and is not kept.
    pub fn run_kept(&mut self, exec: &mut dyn Execute) -> Result<()> {
        let cfg = self.cfg;
        self.all_kept = true;
        if cfg.start_from.is_empty() {
            return Ok(());
        }
        let reports = exec.exec_batch(cfg.start_from.iter().map(TestCase::request).collect())?;
        self.executions += reports.len() as u64;
        for (case, mut report) in cfg.start_from.iter().zip(reports) {
            arrived(self.goals, &mut report, &mut self.infeasible_covered);
            self.touched.learn(&report.env.accesses);
            self.touched.learn_written(&report.env.files);
            if mocks::ran_out(&report) || report.sandbox_blocked > 0 {
                self.all_kept = false;
                continue;
            }
            let Ok(test) = finish(self.space.cluster, case.clone(), report) else {
                self.all_kept = false;
                continue;
            };
            let mut hit: Vec<usize> = self.goals.goals_hit(&test.report.covered).collect();
            hit.extend(self.outputs.goal(&test));
            if test.case == *case && !hit.is_empty() {
                self.archive.keep(&test, &hit);
            } else {
                self.all_kept = false;
                self.archive.offer(&test, &hit);
            }
        }
        Ok(())
    }

    /// Learns from the executions of a batch: the i-th report answers the i-th candidate
    /// (as `step` does, a report at a time).
    #[cfg(test)]
    pub fn learn(&mut self, batch: Vec<TestCase>, reports: Vec<ExecReport>) {
        self.executions += batch.len() as u64;
        let mut origins = std::mem::take(&mut self.origins).into_iter();
        for (case, report) in batch.into_iter().zip(reports) {
            self.learn_one(case, report, origins.next().flatten());
        }
    }

    fn learn_one(&mut self, case: TestCase, mut report: ExecReport, origin: Option<Origin>) {
        let goals = self.goals;
        arrived(goals, &mut report, &mut self.infeasible_covered);
        self.space.learn_made(&case, &report.stmts);
        // Comparison sites this run reached first: the reshapes a gain follows up go to
        // them first.
        let mut fresh = BTreeSet::new();
        if self.cfg.strategy == Strategy::Archive {
            // Only what the code under test compared: the driver's and std's comparisons are
            // noise.
            let compared: Vec<(u64, u64)> = report
                .cmp_ints
                .iter()
                .copied()
                .filter(|(pc, _)| goals.in_selected_code(*pc))
                .collect();
            let last: Vec<(u64, u64, u64)> = report
                .cmp_last
                .iter()
                .copied()
                .filter(|(pc, _, _)| goals.in_selected_code(*pc))
                .collect();
            let before = (self.converts_digits, self.separators.checked());
            self.converts_digits |= words::converts_digits(self.space, &case, &last);
            self.separators.learn(&last);
            if self.converts_digits && before != (true, self.separators.checked()) {
                self.shape_archive();
            }
            let ints: Vec<u64> = compared.iter().map(|&(_, v)| v).collect();
            self.space.pool.learn(&ints, &report.cmp_bytes);
            for &(site, _) in &compared {
                if self.sites.insert(site) {
                    fresh.insert(site);
                }
            }
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
                if self.frontier.offer(&case, &closest).met {
                    self.pending.extend(frontier::prefixes(&case));
                    self.last_progress = self.executions;
                }
            }
        }
        let (clock_before, paths_before) = (self.touched.clock, self.touched.paths.len());
        self.touched.learn(&report.env.accesses);
        if self.touched.paths.len() > paths_before {
            // Paths the code opened make good path arguments.
            for p in &self.touched.paths {
                self.space.pool.add_path(p.clone());
            }
        }
        self.touched.learn_written(&report.env.files);
        if self.touched.clock && !clock_before {
            // Code that reads the clock often compares text with today's date.
            for d in env::date_strings(env::DEFAULT_NOW) {
                self.space.pool.add_string(d);
            }
        }
        self.refused_by_sandbox += report.sandbox_blocked as u64;
        self.refused.learn(&case, &report);
        self.refused_by_runtime += report
            .env
            .accesses
            .iter()
            .filter(|a| {
                matches!(
                    a,
                    AccessReport::NetworkAttempt { .. } | AccessReport::ProcessAttempt { .. }
                )
            })
            .count() as u64;
        self.real_values.learn(&report);
        if mocks::ran_out(&report) {
            let grown = mocks::grow(&mut self.rng, self.space, &case, &report);
            self.pending.extend(grown);
            self.follow_up(&case, &report, false, &[], origin, &fresh);
            return;
        }
        if fakes::ran_out(&report) {
            let grown = fakes::grow(&mut self.rng, self.space, &case, &report);
            self.pending.extend(grown);
            self.follow_up(&case, &report, false, &[], origin, &fresh);
            return;
        }
        // A repeated last value stands in for the values of later calls; now and then try a
        // value per call instead (seed 003: sequences follow the calls).
        if mocks::short(self.space, &case, &report) && self.rng.gen_bool(0.3) {
            let grown = mocks::grow(&mut self.rng, self.space, &case, &report);
            self.pending.extend(grown);
        }
        match finish(self.space.cluster, case, report) {
            // The sandbox stopped something the code did behind the runtime's back (or, with
            // `--env real`, anything harmful): run as a test, outside the sandbox, it would
            // really do it. Such an execution never becomes a test.
            Ok(test) if test.report.sandbox_blocked > 0 => {}
            Ok(test) => {
                let hit = hits(goals, &mut self.outputs, &test);
                let new_goals: Vec<usize> = hit
                    .iter()
                    .copied()
                    .filter(|&g| !self.archive.covers(g))
                    .collect();
                let gained = self.archive.offer(&test, &hit) > 0;
                if gained {
                    self.last_gain = (self.executions, self.started.elapsed().as_secs_f64());
                    self.last_progress = self.executions;
                    self.note_branch_gain();
                }
                self.follow_up(&test.case, &test.report, gained, &new_goals, origin, &fresh);
            }
            Err(finding) => {
                self.reached_by_findings
                    .extend(goals.goals_hit(&finding.report_covered));
                poison(&mut self.poisoned, &finding);
                if !self.findings.iter().any(|f| same_finding(f, &finding)) {
                    self.findings.push(*finding);
                }
            }
        }
    }

    /// Input-to-state at once: an operand put where the test holds the other, the first time
    /// that operand could go to that place. A near miss (a key of the right length compared
    /// with `"name"`, a mock's second value compared with 42) need not be kept in the archive
    /// to be followed up. At most [`EAGER_PER_RUN`] of each kind (integers, bytes, reshapes: as
    /// many of each, a run compares far more integers than bytes) while the queue holds less
    /// than four batches; a run that gained a goal ([`EAGER_ON_GAIN`] of each) goes first and
    /// past that limit, as a fuzzer follows a new input of its corpus: the comparisons behind
    /// the goal are those it now stands at. `new_goals`: those no test covered before this one.
    fn follow_up(
        &mut self,
        case: &TestCase,
        report: &ExecReport,
        gained: bool,
        new_goals: &[usize],
        origin: Option<Origin>,
        fresh: &BTreeSet<u64>,
    ) {
        if self.cfg.strategy != Strategy::Archive {
            return;
        }
        // The comparisons that decided where the run went, in order.
        let last: Vec<(u64, u64, u64)> = report
            .cmp_last
            .iter()
            .copied()
            .filter(|(pc, _, _)| self.goals.in_selected_code(*pc))
            .collect();
        let pairs = deciding::deciding(&last);
        let here = deciding::Aim::of(&pairs, last.len());
        // A candidate made towards its parent's deciding comparison that got past it is
        // followed with edits towards its own deciding comparison (behind the queue, unlike a
        // gain's): a chain of checks through helpers whose branches other calls covered
        // already (`toint_2` for each field of a date) gains no goal at each step.
        let stepped = origin
            .and_then(|o| o.aim)
            .is_some_and(|a| a.passed_by(here.as_ref()));
        if let Some(o) = origin {
            self.yields.record(o.kind, gained || stepped);
        }
        // A test that failed a checksum goes again with it put right, once: what it aimed at
        // is the repaired test's. Repairs take an eighth of a batch at most: in a checksummed
        // format nearly every mutant fails it.
        let o = origin.unwrap_or(Origin::new(Kind::Repair, None));
        if !gained && !stepped && !o.repaired {
            let frontier = &self.frontier;
            let met = |site| frontier.is_met(site);
            if let Some(t) = self.checksums.repair(self.space, case, &pairs, met) {
                if std::env::var_os("HERMETIC_DEBUG").is_some() {
                    let args: Vec<_> = t.stmts.iter().map(|s| &s.args).collect();
                    eprintln!("repair at {}: {args:?}", self.executions);
                }
                self.repairs.push_front((
                    t,
                    Origin {
                        repaired: true,
                        ..o
                    },
                ));
                self.repairs.truncate(MAX_REPAIRS);
            }
        }
        let approach = if gained || stepped {
            Vec::new()
        } else {
            self.approach(case, &pairs)
        };
        for c in approach.into_iter().rev() {
            self.eager.push_front(c);
        }
        if !gained && !stepped && self.eager.len() >= 4 * self.cfg.batch {
            return;
        }
        if (gained || stepped) && std::env::var_os("HERMETIC_DEBUG").is_some() {
            let calls: Vec<_> = case
                .stmts
                .iter()
                .map(|s| (&self.space.cluster.callables[s.callable].name, &s.args))
                .collect();
            eprintln!(
                "{} at {} queue {}: {calls:?} deciding {pairs:x?}",
                if gained { "gain" } else { "step" },
                self.executions,
                self.eager.len()
            );
        }
        let compared: Vec<(u64, u64)> = report
            .cmp_ints
            .iter()
            .copied()
            .filter(|(pc, _)| self.goals.in_selected_code(*pc))
            .collect();
        let (ints, bytes) = cmp::eager(
            self.space,
            case,
            &compared,
            &report.cmp_bytes,
            &report.cmp_ints,
        );
        // One list per kind, merged in the order their yields so far say.
        let mut lists: [Vec<(TestCase, Origin)>; yields::KINDS] = Default::default();
        // Only after a gain or a step: runs that end at comparisons met long ago would crowd
        // the queue (the edits are not even made then).
        if gained || stepped {
            let mut decided = deciding::follow(self.space, case, &pairs);
            decided.retain(|(key, _)| !self.tried.contains(key));
            for (key, candidate) in decided {
                if lists[Kind::Deciding.index()].len() == DECIDING_ON_GAIN {
                    break;
                }
                if self.tried.insert(key) {
                    let origin = Origin::new(Kind::Deciding, here);
                    lists[Kind::Deciding.index()].push((candidate, origin));
                }
            }
        }
        // Strings and byte slices resized to a compared length, a compared byte put at the
        // offset that holds the other.
        // Only after a gain: reshapes would crowd the queue with edits towards comparisons
        // the search met long ago.
        let frontier = &self.frontier;
        let rank = |site| {
            if fresh.contains(&site) {
                0
            } else if !frontier.is_met(site) {
                1
            } else {
                2
            }
        };
        let mut shapes = if gained {
            cmp::reshapes(self.space, case, &compared, &rank)
        } else {
            Vec::new()
        };
        shapes.retain(|r| !self.tried.contains(&cmp::reshape_key(self.space, case, r)));
        let n = if gained { EAGER_ON_GAIN } else { EAGER_PER_RUN };
        // Towards open comparisons first (they come first), the rest at random.
        let first = shapes.len().min(n * 3 / 4);
        let rest = rand::seq::index::sample(
            &mut self.rng,
            shapes.len() - first,
            (n - first).min(shapes.len() - first),
        );
        let picked: Vec<usize> = (0..first)
            .chain(rest.into_iter().map(|i| i + first))
            .collect();
        for i in picked {
            let r = &shapes[i];
            if let Some(t) = cmp::reshape(self.space, case, r) {
                if self.tried.insert(cmp::reshape_key(self.space, case, r)) {
                    lists[Kind::Reshape.index()].push((t, Origin::new(Kind::Reshape, None)));
                }
            }
        }
        // Integers as before a gain: a run compares many, and each has its own site.
        for (mut options, n, kind) in [(ints, EAGER_PER_RUN, Kind::Int), (bytes, n, Kind::Byte)] {
            options.retain(|(key, _)| !self.tried.contains(key));
            let n = n.min(options.len());
            for i in rand::seq::index::sample(&mut self.rng, options.len(), n) {
                let (key, edit) = &options[i];
                if self.tried.insert(key.clone()) {
                    lists[kind.index()].push((edit.apply(case), Origin::new(kind, None)));
                }
            }
        }
        // Words of the source where the text has words: after a gain only, as reshapes.
        if gained {
            let frontier = &self.frontier;
            let mut dict =
                words::dictionary(self.space, case, &compared, |site| !frontier.is_met(site));
            // The run showed it, or the source does: a parser whose first byte was never a
            // digit shows no conversion (`é:._:SA` stops at `is_ascii_digit`).
            dict.source_digits = self.reads_digits(case, &report.covered);
            dict.digits |= self.converts_digits || dict.source_digits;
            dict.punctuation = self.separators.checked();
            // The calls of the functions whose goals this run covered first: their texts are
            // the gain's.
            let gaining: BTreeSet<usize> = (0..case.stmts.len())
                .filter(|&i| {
                    let callable = case.stmts[i].callable;
                    new_goals
                        .iter()
                        .any(|&g| g < self.goal_callables.len() && self.runs_in(callable, g))
                })
                .collect();
            let edits = words::edits(self.space, case, &dict, &report.cmp_bytes, &gaining);
            // Whole texts, then tokens, all of them, a kind of their own (first in the queue,
            // the whole texts crowded out the other kinds: tokenize fell from 123.4 to 119.0
            // of 126 over 5 seeds).
            for (key, candidate) in edits.whole.into_iter().chain(edits.tokens) {
                if self.tried.insert(key) {
                    lists[Kind::Token.index()].push((candidate, Origin::new(Kind::Token, None)));
                }
            }
            // The first tier first: the text's shape, then keys, values and compound words,
            // then added lines and whole texts, then other words; each tier with slots of its
            // own, and what one leaves to the next.
            let mut quota = 0;
            for (tier, mut options) in edits.tiers.into_iter().enumerate() {
                options.retain(|(key, _)| !self.tried.contains(key));
                quota += words::QUOTA[tier];
                let left = WORDS_ON_GAIN - lists[Kind::Word.index()].len();
                let n = left.min(quota).min(options.len());
                quota -= n;
                for i in rand::seq::index::sample(&mut self.rng, options.len(), n) {
                    let (key, candidate) = options[i].clone();
                    if self.tried.insert(key) {
                        lists[Kind::Word.index()].push((candidate, Origin::new(Kind::Word, None)));
                    }
                }
            }
        }
        // Texts the functions it entered took elsewhere, in the fields of the gaining text: a
        // parser of `date T time` gets the date and the time its callees took.
        if gained {
            for (key, candidate) in self.piece_edits(case, report) {
                if lists[Kind::Piece.index()].len() == PIECES_ON_GAIN {
                    break;
                }
                if self.tried.insert(key) {
                    lists[Kind::Piece.index()].push((candidate, Origin::new(Kind::Piece, None)));
                }
            }
        }
        // Fakes for the callees the run called for real (seed 000): a gain past one faked call
        // (a balance) often meets the next callee (the processor), whose outcome decides more.
        // After the gain's first edits, which would otherwise wait behind them (a fake's text
        // that needs its length and then its bytes to match).
        let mut faked = Vec::new();
        if gained && self.space.fake_gate > 0.0 {
            for _ in 0..FAKE_ROUNDS_ON_GAIN {
                let real = &self.real_values;
                for t in fakes::insert_each(&mut self.rng, self.space, real, case, report) {
                    faked.push((t, Origin::new(Kind::Fake, None)));
                }
            }
        }
        let mut chosen = self.yields.interleave(lists);
        if gained {
            // A gain's first edits go first, the rest behind what is queued: a batch takes a
            // quarter of its runs from the queue, and a gain makes a hundred edits or more, so
            // what later gains put in front would bury an earlier gain's edits for good
            // (config's `maintenance(TOKEN, "")`, a gain at the 32nd run, had its `reload`
            // untried after 3,000, behind 1,800 edits). A step's edits all go behind: a loop
            // over text steps every few runs, and steps at the front buried the gains' edits
            // for good (tokenize, seed 4: 3,800 waiting at 20,000 runs, `--level` untried).
            let rest = chosen.split_off(chosen.len().min(FRESH_FIRST));
            for c in chosen.into_iter().chain(faked).rev() {
                self.eager.push_front(c);
            }
            self.eager.extend(rest);
        } else {
            chosen.extend(faked);
            self.eager.extend(chosen);
        }
    }

    /// Edits towards a comparison never met that decided a run which gained nothing, where the
    /// test holds the operand the code read: its other operand, one less and one more. A run
    /// gains nothing when the branches around it were covered by other means (`retries > 10`
    /// went the short way with the default of 3, long before a text held `retries=5`), yet it
    /// is the first to hold the value where the code reads it. The first runs that hold each
    /// operand, a few per site. Unlike deciding edits, one that gets past the site is not
    /// followed as a step: in a checksum's loop every edit gets past some comparison, and the
    /// steps' own edits would crowd out the gains'.
    fn approach(&mut self, case: &TestCase, pairs: &[(u64, u64, u64)]) -> Vec<(TestCase, Origin)> {
        let mut out = Vec::new();
        for &(site, x, _) in pairs {
            if self.frontier.is_met(site) {
                continue;
            }
            let read = self.approached.entry(site).or_default();
            if read.len() >= APPROACHES_PER_SITE || read.contains(&x) {
                continue;
            }
            let at: Vec<(u64, u64, u64)> = pairs
                .iter()
                .copied()
                .filter(|p| p.0 == site && p.1 == x)
                .collect();
            // As many of each offset: which of them a `==`, `<` or `>` needs is not known.
            let made: Vec<_> = deciding::follow_by_offset(self.space, case, &at)
                .into_iter()
                .flat_map(|list| {
                    list.into_iter()
                        .filter(|(key, _)| !self.tried.contains(key))
                        .take(APPROACH_EDITS / 3)
                })
                .collect();
            if made.is_empty() {
                continue;
            }
            read.insert(x);
            if std::env::var_os("HERMETIC_DEBUG").is_some() {
                let args: Vec<_> = case.stmts.iter().map(|s| &s.args).collect();
                eprintln!("approach at {}: {args:?} towards {at:x?}", self.executions);
            }
            for (key, t) in made {
                self.tried.insert(key);
                out.push((t, Origin::new(Kind::Approach, None)));
            }
        }
        out
    }

    /// Texts spliced between a parser and the parsers it calls ([`cross::pieces`]): into
    /// the texts the gaining `case` gives other functions, what each function its run entered
    /// took furthest (a run of `parse_timestamp` that got into `parse_date` gets the date
    /// `parse_date` took furthest), and then the words of its modules as what follows; and
    /// when `case` gave a function the text it took furthest, that text into the archived
    /// tests whose runs entered the function from another. Bytes that are no text go the same
    /// two ways, whole ([`cross::byte_pieces`]).
    fn piece_edits(&self, case: &TestCase, report: &ExecReport) -> Vec<(cmp::Tried, TestCase)> {
        let deepest = self.deepest_texts();
        let words: BTreeSet<String> = words::module_words(self.space, case).into_iter().collect();
        // Fields end at blanks, punctuation and the letters the code looks for (`T`).
        let letters: BTreeSet<char> = words
            .iter()
            .filter(|w| w.chars().count() == 1)
            .flat_map(|w| w.chars())
            .collect();
        let separates =
            |c: char| c.is_whitespace() || c.is_ascii_punctuation() || letters.contains(&c);
        // `text` into the texts `t` gives callables other than `c`, whose text it is.
        let into_others = |t: &TestCase, c: usize, text: &String| {
            let other = |l: &cmp::ArgLeaf| t.stmts[l.stmt].callable != c;
            let text = std::slice::from_ref(text);
            cross::pieces(self.space, t, text, &[], &separates, &other)
        };
        let mut out = Vec::new();
        let mut callees = Vec::new();
        for (&c, text) in &deepest {
            if callees.len() < MAX_PIECES && self.entered(case, &report.covered, c) {
                out.extend(into_others(case, c, text));
                callees.push(text.clone());
            }
        }
        if !callees.is_empty() {
            // And the callees' texts cut before a separator (`12:30` of `12:30:00`): a format's
            // last field often has the shape of a first part of another's.
            let mut ends: Vec<String> = words.iter().cloned().collect();
            ends.extend(callees.iter().flat_map(|p| cross::heads(p)));
            let all = |_: &cmp::ArgLeaf| true;
            out.extend(cross::pieces(
                self.space,
                case,
                &[],
                &ends,
                &separates,
                &all,
            ));
        }
        // Bytes that are no text: what a callee the run entered took furthest, into the bytes
        // the test gives others (`decode_all` gets the record `decode_prefix` took); and when
        // the test gave a callee those bytes, they go into the archived tests that entered it.
        let leaves = cmp::arg_leaves(self.space, case);
        for (c, piece) in self.deepest_leaves(false).into_iter().take(MAX_PIECES) {
            if self.reached(&report.covered, c) {
                out.extend(cross::byte_pieces(self.space, case, &piece, c));
            }
            let given = |l: &cmp::ArgLeaf| case.stmts[l.stmt].callable == c && l.bytes == piece;
            if leaves.iter().any(given) {
                for t in self.archive.tests() {
                    if self.reached(&t.report.covered, c) {
                        out.extend(cross::byte_pieces(self.space, &t.case, &piece, c));
                    }
                }
            }
        }
        for (&c, text) in &deepest {
            let given =
                |l: &cmp::ArgLeaf| case.stmts[l.stmt].callable == c && l.bytes == text.as_bytes();
            if !leaves.iter().any(given) {
                continue;
            }
            for t in self.archive.tests() {
                if self.entered(&t.case, &t.report.covered, c) {
                    out.extend(into_others(&t.case, c, text));
                }
            }
        }
        out
    }

    /// Whether `goal` is in the body of `callable`.
    fn runs_in(&self, callable: usize, goal: usize) -> bool {
        self.goal_callables[goal].contains(&callable)
    }

    /// Whether the source of the code `case` calls reads digits out of text, or that of code
    /// its run (`covered`) entered: `parse_http_date` reads none, the `toint_2` it reaches
    /// does.
    fn reads_digits(&self, case: &TestCase, covered: &[u32]) -> bool {
        let cluster = self.space.cluster;
        let reads = |c: usize| {
            let path = &cluster.modules[cluster.callables[c].module].path;
            self.space.pool.module_reads_digits(path)
        };
        case.stmts.iter().any(|s| reads(s.callable))
            || self
                .goals
                .goals_hit(covered)
                .any(|g| self.goal_callables[g].iter().any(|&c| reads(c)))
    }

    /// Whether a run of `case` that `covered` these counters covered goals of the callable
    /// `callee`, and `case` gives text to another callable (which may have called it).
    fn entered(&self, case: &TestCase, covered: &[u32], callee: usize) -> bool {
        let gives_text = cmp::arg_leaves(self.space, case)
            .iter()
            .any(|l| l.text && case.stmts[l.stmt].callable != callee);
        gives_text && self.reached(covered, callee)
    }

    /// Whether a run that covered `covered` ran code of `callee`.
    fn reached(&self, covered: &[u32], callee: usize) -> bool {
        self.goals
            .goals_hit(covered)
            .any(|g| self.runs_in(callee, g))
    }

    /// Of each callable the archive's tests give text, the text it took furthest
    /// ([`Self::deepest_leaves`]).
    fn deepest_texts(&self) -> BTreeMap<usize, String> {
        self.deepest_leaves(true)
            .into_iter()
            .filter_map(|(c, bytes)| Some((c, String::from_utf8(bytes).ok()?)))
            .collect()
    }

    /// Of each callable the archive's tests give text (or, without `text`, bytes that are no
    /// text), the leaf it took furthest: one it accepted (returned `Ok` or `Some` for) before
    /// one it refused, then the one whose run covered the most of its goals; the first of
    /// those in the archive's order.
    fn deepest_leaves(&self, text: bool) -> BTreeMap<usize, Vec<u8>> {
        let mut deepest: BTreeMap<usize, ((bool, usize), Vec<u8>)> = BTreeMap::new();
        for t in self.archive.tests() {
            let hit: Vec<usize> = self.goals.goals_hit(&t.report.covered).collect();
            for l in cmp::arg_leaves(self.space, &t.case) {
                if l.text != text || l.bytes.is_empty() {
                    continue;
                }
                let c = t.case.stmts[l.stmt].callable;
                let accepted = t.report.stmts.get(l.stmt).is_some_and(|s| {
                    matches!(s.returned, Some(Observed::Ok(_) | Observed::Opt(Some(_))))
                });
                let depth = (
                    accepted,
                    hit.iter().filter(|&&g| self.runs_in(c, g)).count(),
                );
                let best = deepest.entry(c).or_default();
                if depth > best.0 {
                    *best = (depth, l.bytes);
                }
            }
        }
        deepest
            .into_iter()
            .map(|(c, (_, text))| (c, text))
            .collect()
    }

    /// Digit shapes of the archive's texts, first in the queue: the runs that put them in the
    /// archive gained before the code showed it reads digits (or checks for a separator it
    /// showed since), so their follow-ups had none.
    fn shape_archive(&mut self) {
        let checked = self.separators.checked();
        let mut made = Vec::new();
        for t in self.archive.tests() {
            let source_digits = self.reads_digits(&t.case, &t.report.covered);
            for (key, c) in words::digit_edits(self.space, &t.case, &checked, source_digits) {
                if self.tried.insert(key) {
                    made.push((c, Origin::new(Kind::Token, None)));
                }
            }
        }
        for c in made.into_iter().rev() {
            self.eager.push_front(c);
        }
    }

    /// Records the branches covered now, when their number rose (a gain may be a check's or an
    /// output's only).
    fn note_branch_gain(&mut self) {
        let branches = self
            .archive
            .goals()
            .filter(|&g| !self.outputs.is_output(g) && self.goals.goals[g].kind == GoalKind::Branch)
            .count();
        if self.branch_gains.last().is_none_or(|&(_, n)| branches > n) {
            self.branch_gains.push((self.executions, branches));
        }
    }

    /// Ends the search: minimises the archive's tests and says what was found.
    pub fn finish(mut self, exec: &mut dyn Execute) -> Result<SearchOutcome> {
        let stopped = self.stop_reason().unwrap_or(StopReason::Time);
        if std::env::var_os("HERMETIC_DEBUG").is_some() {
            for g in self.expected.iter().filter(|&&g| !self.archive.covers(g)) {
                eprintln!("outcome never seen: {}", self.outputs.describe(*g));
            }
            eprintln!("touched: {:?}", self.touched);
            self.frontier.describe();
            for t in self.archive.tests() {
                eprintln!("archived: {:?} {:?}", t.case.env, t.report.env.accesses);
            }
        }
        // A test whose fake turned out needless (the callee proved pure and steerable after the
        // test was found) goes; its goals fall to other tests that cover them, if any.
        let (real, goals, outputs) = (&self.real_values, self.goals, &mut self.outputs);
        self.archive.forget(
            |t| real.fakes_needlessly(&t.report),
            |t| hits(goals, outputs, t),
        );
        // The archive keeps a test with crutches for a goal only when none without them
        // covered it.
        let needing = |crutch: fn(&FinishedTest) -> bool| -> usize {
            self.archive
                .assignments()
                .iter()
                .filter(|(t, _)| crutch(t))
                .map(|(_, own)| own.len())
                .sum()
        };
        let goals_needing_private = needing(|t| t.uses_private);
        let goals_needing_mocks = needing(|t| t.uses_mocks);
        let goals_needing_fakes = needing(|t| t.uses_fakes);
        let mut checked = Checked {
            exec,
            goals: self.goals,
            infeasible_covered: &mut self.infeasible_covered,
            executions: 0,
        };
        let mut tests = minimise::minimise(
            self.space,
            self.goals,
            &mut self.outputs,
            &mut checked,
            &self.archive,
        )?;
        for t in &mut tests {
            t.unseen_fakes = self.real_values.unseen(&t.report);
        }
        let extra = checked.executions;
        let covered: BTreeSet<usize> = self
            .archive
            .goals()
            .filter(|&g| !self.outputs.is_output(g))
            .collect();
        self.reached_by_findings.retain(|g| !covered.contains(g));
        let public_functions_called = self
            .archive
            .goals()
            .filter(|&g| self.outputs.is_method(g))
            .count();
        Ok(SearchOutcome {
            tests,
            covered,
            executions: self.executions + extra,
            findings: self.findings,
            avoided: self.avoided,
            executions_to_final_coverage: self.last_gain.0,
            time_to_final_coverage_s: self.last_gain.1,
            branch_gains: self.branch_gains,
            reached_by_findings: self.reached_by_findings,
            touched: self.touched,
            refused_by_runtime: self.refused_by_runtime,
            refused_by_sandbox: self.refused_by_sandbox,
            refused: self.refused,
            goals_needing_private,
            goals_needing_mocks,
            goals_needing_fakes,
            infeasible_covered: self.infeasible_covered,
            public_functions: self.outputs.methods(),
            public_functions_called,
            stopped,
        })
    }
}

/// An executor that takes every report as the search does ([`arrived`]) and counts
/// executions (for minimisation, which runs candidates one by one).
struct Checked<'e, 'g> {
    exec: &'e mut dyn Execute,
    goals: &'g GoalMap,
    infeasible_covered: &'e mut BTreeSet<u32>,
    executions: u64,
}

impl Execute for Checked<'_, '_> {
    fn exec_batch(&mut self, requests: Vec<ExecRequest>) -> Result<Vec<ExecReport>> {
        self.executions += requests.len() as u64;
        let mut reports = self.exec.exec_batch(requests)?;
        for r in &mut reports {
            arrived(self.goals, r, self.infeasible_covered);
        }
        Ok(reports)
    }
}

/// What every report the search gets goes through first: the checks of pointers left out
/// ([`without_pointer_checks`]), and the self-check of the infeasibility proofs (an execution
/// that covers a counter proven infeasible shows a bug in the proof; counted for the report,
/// shown under `HERMETIC_DEBUG`).
fn arrived(goals: &GoalMap, report: &mut ExecReport, seen: &mut BTreeSet<u32>) {
    without_pointer_checks(goals, report);
    for i in goals.infeasible_hit(&report.covered) {
        if seen.insert(i.counter) && std::env::var_os("HERMETIC_DEBUG").is_some() {
            eprintln!(
                "BUG: an execution covered {} pc {:#x} (counter {}), which was proven infeasible",
                i.function, i.pc, i.counter
            );
        }
    }
}

/// Of each goal, the callables in whose body it is: of its module, named as its function ends.
fn goal_callables(cluster: &Cluster, goals: &GoalMap) -> Vec<Vec<usize>> {
    goals
        .goals
        .iter()
        .map(|g| {
            let named = |c: &crate::cluster::Callable| {
                c.module == g.module
                    && (g.function == c.name || g.function.ends_with(&format!("::{}", c.name)))
            };
            (0..cluster.callables.len())
                .filter(|&c| named(&cluster.callables[c]))
                .collect()
        })
        .collect()
}

/// How much of the budget is spent, which decides when mocks and fakes open up. With
/// `--max-executions` it is the executions' share alone, even when a time budget is given as
/// well: the search's choices then depend on the seed and the executions only, never on the
/// machine's speed, so the same seed and limit give the same tests on a loaded CI runner and
/// on an idle laptop (the time budget stays a hard stop, reported as such). Only a search
/// bounded by time alone moves these points with the clock.
fn progress_fraction(cfg: &SearchConfig, executions: u64, started: Instant) -> f64 {
    if let Some(m) = cfg.max_executions {
        return executions as f64 / m.max(1) as f64;
    }
    cfg.deadline.map_or(0.0, |d| {
        let total = d.saturating_duration_since(started).as_secs_f64();
        let left = d.saturating_duration_since(Instant::now()).as_secs_f64();
        if total > 0.0 {
            1.0 - left / total
        } else {
            1.0
        }
    })
}

/// Where an eager edit came from: its kind, and what it aimed at when it was made towards its
/// parent's deciding comparison.
#[derive(Debug, Clone, Copy)]
struct Origin {
    kind: Kind,
    aim: Option<deciding::Aim>,
    /// A test that failed a checksum, put right ([`repair`]): not repaired again.
    repaired: bool,
}

impl Origin {
    fn new(kind: Kind, aim: Option<deciding::Aim>) -> Origin {
        Origin {
            kind,
            aim,
            repaired: false,
        }
    }
}

/// The function a public callable is (a free function, an inherent method or associated
/// function), as one key for the twins analysis made of it (one per type chosen for a type
/// parameter): its module, its type and its name.
fn public_function(cluster: &Cluster, c: usize) -> Option<String> {
    let callable = &cluster.callables[c];
    if !callable.is_public_api() {
        return None;
    }
    let owner = callable.kind.self_ty().map(type_key).unwrap_or_default();
    Some(format!("{}::{owner}::{}", callable.module, callable.name))
}

/// A crate type by its definition, whatever its type arguments.
fn type_key(ty: &crate::cluster::Ty) -> String {
    match ty {
        crate::cluster::Ty::Adt(id, _) => format!("type {id}"),
        other => format!("{other:?}"),
    }
}

/// The goals a test covers: its branches and its outcome.
fn hits(goals: &GoalMap, outputs: &mut outputs::Outputs, test: &FinishedTest) -> Vec<usize> {
    let mut hit: Vec<usize> = goals.goals_hit(&test.report.covered).collect();
    hit.extend(outputs.goal(test));
    hit
}

/// A mutant of an archived test: its statements, its environment, or both. Environment genes
/// come from what this test's last execution touched, or what any execution touched.
fn mutate(
    rng: &mut ChaCha8Rng,
    space: &Space,
    real: &fakes::RealValues,
    touched: &env::Touched,
    parts: env::EnvParts,
    parent: &FinishedTest,
) -> TestCase {
    // Now and then a fake for a call the parent made for real (seed 000).
    if space.fake_gate > 0.0 && rng.gen_bool((space.fake_gate * P_FAKE).min(1.0)) {
        if let Some(t) = fakes::insert(rng, space, real, &parent.case, &parent.report) {
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

/// Leaves out the comparisons the standard library's checks of pointers made: their operands
/// (distances between a stack and a heap address) depend on where the crate sits and on what
/// the driver allocated before the fork, and the same seed would not give the same tests.
fn without_pointer_checks(goals: &GoalMap, report: &mut ExecReport) {
    report
        .cmp_ints
        .retain(|&(pc, _)| !goals.in_pointer_check(pc));
    report
        .cmp_last
        .retain(|&(pc, _, _)| !goals.in_pointer_check(pc));
    report
        .cmp_closest
        .retain(|&(pc, _)| !goals.in_pointer_check(pc));
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
        // The sandbox limits memory (and so threads); outside it the call would go on.
        Outcome::Panicked { stmt, message } if exhausted_resources(message) => {
            case.stmts.truncate(stmt + 1);
            return Err(Box::new(Finding {
                case,
                outcome: report.outcome,
                report_covered: report.covered,
            }));
        }
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

/// Whether a panic says the process ran out of threads or memory (the sandbox's limit, not a
/// behaviour of the code a test can show).
pub fn exhausted_resources(message: &str) -> bool {
    ["failed to spawn thread", "os error 11)", "os error 12)"]
        .iter()
        .any(|m| message.contains(m))
}

/// The paths the test's file-system handle arguments name (see [`env::Handle`]).
fn handle_paths(space: &Space, case: &TestCase) -> Vec<env::Handle> {
    fn walk(ty: &crate::cluster::Ty, v: &hermetic_protocol::Value, out: &mut Vec<env::Handle>) {
        use crate::cluster::{StdTy, Ty};
        use hermetic_protocol::Value;
        match (ty, v) {
            (Ty::Std(k, _), Value::Str(p)) if k.is_fs_handle() => {
                out.push((p.clone(), *k == StdTy::ReadDir))
            }
            (Ty::Box(t) | Ty::Ref(t) | Ty::RefMut(t), v) => walk(t, v, out),
            (Ty::Option(t), Value::Opt(Some(v))) => walk(t, v, out),
            (Ty::Vec(t) | Ty::Slice(t) | Ty::Array(t, _), Value::Seq(items)) => {
                items.iter().for_each(|i| walk(t, i, out))
            }
            (Ty::Tuple(ts), Value::Tuple(items)) => {
                ts.iter().zip(items).for_each(|(t, i)| walk(t, i, out))
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for stmt in &case.stmts {
        for (ty, v) in space.arg_types(stmt.callable).iter().zip(&stmt.args) {
            walk(ty, v, &mut out);
        }
    }
    out
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

#[cfg(test)]
mod tests;
