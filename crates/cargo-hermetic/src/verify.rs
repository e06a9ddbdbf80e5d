//! Verification: the emitted tests are compiled and run in a copy of the crate, three times
//! (once one at a time, once in a shuffled order; the later two from other working directories,
//! in other time zones, with another `HOME` and `USER` and with none), and those that check
//! what the code wrote to fd 1 or 2 once more alone without libtest's capture; tests that fail
//! or flake are dropped. A dropped test that passes when run alone, each time in a fresh
//! process, failed only beside other tests in one process: through state they share (statics).
//! Those are counted apart. The tests run inside the search's sandbox with a time limit per
//! test ([`crate::test_binary`]): a test that hangs, or that the sandbox stops, is dropped with
//! that reason.
//!
//! A failed test is run alone in fresh processes to tell apart tests that fail only beside others
//! (static state), tests that fail only away from where they were generated (they lean on the real
//! machine) and checks of fd 1 or 2 that hold only under libtest's capture. The tests are then
//! built and run with `--release`, and with `--all-features` for a crate with features, and those
//! failing there are dropped.

use crate::cargo::{self, BuildOutcome};
use crate::cluster::Cluster;
use crate::emit::{self, GeneratedFile, Suite, GENERATED_MARKER};
use crate::manifest;
use crate::shadow::{self, Origin};
use crate::test_binary::{self, run_alone, Alone, Limits, Ran};
use anyhow::{bail, Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

#[derive(Default)]
pub struct Verified {
    pub files: Vec<GeneratedFile>,
    /// Each dropped test (by its name in the generated file) with the reason.
    pub dropped: Vec<(String, Failure)>,
    /// The time of the builds that compiled dependencies (a first `--release` build, or the
    /// runtime's first test build): one-time work, outside `--budget` like the driver's.
    pub dependencies_build: std::time::Duration,
}

impl Verified {
    /// The files as emitted, for runs with `--no-verify`.
    pub fn unchecked(files: Vec<GeneratedFile>) -> Verified {
        Verified {
            files,
            ..Verified::default()
        }
    }

    /// Tests dropped for this reason.
    pub fn count(&self, why: Failure) -> usize {
        self.dropped.iter().filter(|(_, f)| *f == why).count()
    }

    /// Tests dropped because they failed in some run, for whatever reason but static state, not
    /// compiling, or another build.
    pub fn unstable_count(&self) -> usize {
        self.dropped
            .iter()
            .filter(|(_, f)| {
                !matches!(
                    f,
                    Failure::StaticState | Failure::Uncompilable | Failure::Configuration(_)
                )
            })
            .count()
    }

    /// Tests dropped because they fail in another build.
    pub fn configuration_count(&self) -> usize {
        self.dropped
            .iter()
            .filter(|(_, f)| matches!(f, Failure::Configuration(_)))
            .count()
    }
}

/// How many times the emitted tests run; the runs differ in order and parallelism.
const RUNS: usize = 3;
const MAX_ROUNDS: usize = 4;
/// Runs of a failing test alone, each in a fresh process, to tell static state and the real
/// machine from flakiness.
const ALONE_RUNS: usize = 2;

/// The error for a build that failed outside the generated test files: the crate's own test
/// build may fail without them (a lint its `deny(warnings)` turns into an error on this
/// toolchain), which the user must mend; otherwise the tests' additions broke it.
fn outside_the_tests(origin: &Origin, features: &[&str], rendered: &str) -> anyhow::Error {
    let own = shadow::copy_crate(origin, "verify-own", &[]).and_then(|copy| {
        cargo::build_tests(
            &copy.root.join("Cargo.toml"),
            &copy.target_dir,
            features,
            &origin.work_dir.join("verify-own-tests"),
        )
    });
    match own {
        Ok(BuildOutcome::Failed { errors, .. }) => crate::errors::Failure::CrateDoesNotCompile {
            what: format!(
                "the crate's own tests do not compile, before any generated test is added \
                 (`cargo test` fails the same way): mend this, then run again; nothing was \
                 written:\n{}",
                errors.first().map_or(rendered, |e| e.rendered.as_str())
            ),
        }
        .into(),
        _ => anyhow::anyhow!(
            "the generated tests broke the crate's build (a fault of hermetic: please report \
             it with this message); nothing was written:\n{rendered}"
        ),
    }
}

/// `isolated`: the isolate attributes the tests' fakes need (`crate::isolate`), placed in the
/// copy with the tests.
pub fn verify(
    origin: &Origin,
    cluster: &Cluster,
    suite: Suite,
    mut files: Vec<GeneratedFile>,
    isolated: &[(crate::cluster::UnitId, Vec<String>)],
) -> Result<Verified> {
    let mut verified = Verified::default();
    let limits = Limits::default();
    // The tests run from their executable moved into the work directory: other runs build in
    // the same target directory (`support.rs`, `cargo::build_tests`).
    let keep = origin.work_dir.join("verify-tests");
    for _ in 0..MAX_ROUNDS {
        if files.iter().all(|f| f.test_names.is_empty()) {
            verified.files = files;
            return Ok(verified);
        }
        let copy = shadow::copy_crate(origin, "verify", &[])?;
        let rebased = rebase(cluster, origin.crate_dir, &copy.root);
        emit::apply(&copy.root, &rebased, suite, &files)
            .context("place the tests in the verification copy")?;
        crate::isolate::write(
            &copy.root,
            origin.crate_dir,
            cluster,
            isolated,
            crate::isolate::Layout::SameLines,
        )
        .context("isolate the units the tests fake in the verification copy")?;
        if manifest::needs_runtime(files.iter().map(|f| f.contents.as_str())) {
            shadow::add_runtime_dependency(&copy.root.join("Cargo.toml"), "dev-dependencies")?;
        }
        let manifest = copy.root.join("Cargo.toml");
        // The user's feature flags, as every build of the crate gets them.
        let features: Vec<&str> = origin.cargo_args.iter().map(String::as_str).collect();
        let building = std::time::Instant::now();
        let built = cargo::build_tests(&manifest, &copy.target_dir, &features, &keep)?;
        verified.dependencies_build += dependencies_time(&built, building.elapsed());
        let exe = match built {
            BuildOutcome::Built { executable, .. } => executable,
            BuildOutcome::Failed { errors, .. } => {
                let mut culprits = BTreeSet::new();
                for e in &errors {
                    let Some(file) = &e.file else { continue };
                    let Some(f) = files
                        .iter()
                        .find(|f| copy.root.join(&f.path) == *file || f.path == *file)
                    else {
                        return Err(outside_the_tests(origin, &features, &e.rendered));
                    };
                    if let Some(name) = enclosing_test(&f.contents, e.line) {
                        if std::env::var_os("HERMETIC_DEBUG").is_some() {
                            eprintln!("verify: {name} does not compile:\n{}", e.rendered);
                        }
                        culprits.insert(name);
                    }
                }
                if culprits.is_empty() {
                    bail!(
                        "the generated tests do not compile:\n{}",
                        errors
                            .iter()
                            .map(|e| e.rendered.as_str())
                            .collect::<Vec<_>>()
                            .join("\n")
                    );
                }
                files = drop_tests(files, &culprits)?;
                verified
                    .dropped
                    .extend(culprits.into_iter().map(|t| (t, Failure::Uncompilable)));
                continue;
            }
        };
        let root = copy.root.as_path();
        let all = list_tests(&exe, root, suite, limits)?;
        // Each failed test, with the first run it failed in; and the tests whose reason is
        // known at once (they hung, or the sandbox stopped them).
        let mut failed: BTreeMap<String, usize> = BTreeMap::new();
        let mut passed = BTreeSet::new();
        let mut why: BTreeMap<String, Failure> = BTreeMap::new();
        for run in 0..RUNS {
            let once = run_once(&exe, root, suite, run, &all, limits)?;
            passed.extend(once.passed);
            why.extend(once.why);
            for test in once.failed {
                failed.entry(test).or_insert(run);
            }
        }
        for (test, &run) in &failed {
            if !why.contains_key(test) {
                why.insert(test.clone(), failure(&exe, root, test, run, limits)?);
            }
        }
        // A test is kept only when a run saw it pass.
        let reported: BTreeSet<String> = passed
            .iter()
            .chain(why.keys())
            .map(|t| short_name(t))
            .collect();
        for f in &files {
            for test in f.test_names.iter().filter(|t| !reported.contains(*t)) {
                why.insert(test.clone(), Failure::NotRun);
            }
        }
        let checks_output: BTreeSet<&str> = files
            .iter()
            .flat_map(|f| f.asserting_output.iter().map(String::as_str))
            .collect();
        let output_tests: Vec<&String> = passed
            .iter()
            .filter(|t| !why.contains_key(*t) && checks_output.contains(short_name(t).as_str()))
            .collect();
        for test in output_tests {
            let alone = run_alone(&exe, test, limits, &|c| {
                c.arg("--nocapture").current_dir(root);
                Ok(())
            })?;
            let failure = match alone {
                Alone::Passed => None,
                Alone::Failed => Some(Failure::CaptureBound),
                other => stopped(other),
            };
            if let Some(f) = failure {
                why.insert(test.clone(), f);
            }
        }
        if why.is_empty() {
            // The tests were written from a debug build; they must hold in the others users
            // and CI run (a `debug_assert!` or overflow panic is no outcome there).
            for (options, shown) in configurations(&copy.root) {
                let options: Vec<&str> = features.iter().chain(options).copied().collect();
                let building = std::time::Instant::now();
                let built = cargo::build_tests(&manifest, &copy.target_dir, &options, &keep);
                if let Ok(b) = &built {
                    verified.dependencies_build += dependencies_time(b, building.elapsed());
                }
                let Ok(BuildOutcome::Built {
                    executable: exe, ..
                }) = built
                else {
                    continue;
                };
                let (_, not) = run_serially(&exe, &copy.root, suite, SILENCE)?;
                for test in not {
                    why.entry(test).or_insert(Failure::Configuration(shown));
                }
            }
        }
        if std::env::var_os("HERMETIC_DEBUG").is_some() {
            eprintln!("verify: failed {why:?} in {}", copy.root.display());
        }
        if why.is_empty() {
            verified.files = files;
            return Ok(verified);
        }
        let short: BTreeSet<String> = why.keys().map(|t| short_name(t)).collect();
        files = drop_tests(files, &short)?;
        verified
            .dropped
            .extend(why.into_iter().map(|(test, f)| (short_name(&test), f)));
    }
    bail!("the generated tests kept failing after dropping the failing ones")
}

/// A build's time when it compiled dependencies (all of it: the crate's own share is small
/// beside theirs), else nothing; a failed build counts too.
fn dependencies_time(built: &BuildOutcome, took: std::time::Duration) -> std::time::Duration {
    if built.compiled_dependencies() > 0 {
        took
    } else {
        std::time::Duration::ZERO
    }
}

/// What one run of the suite's tests showed.
#[derive(Debug, Default)]
struct Once {
    passed: BTreeSet<String>,
    /// Tests that failed (why is found later).
    failed: Vec<String>,
    /// Tests whose reason is known at once: they hung, or the sandbox stopped them.
    why: BTreeMap<String, Failure>,
}

/// Runs the suite's tests once (run `run`'s surroundings); when the binary was killed or
/// stopped, the tests in `all` it did not get to report (all of them, when the sandbox
/// stopped it) run alone to tell which did it.
fn run_once(
    exe: &Path,
    root: &Path,
    suite: Suite,
    run: usize,
    all: &BTreeSet<String>,
    limits: Limits,
) -> Result<Once> {
    let ran = run_tests(exe, root, suite, run, limits)?;
    let mut once = Once {
        failed: ran.failed.iter().cloned().collect(),
        ..Once::default()
    };
    if ran.cut_short() {
        // When the sandbox stopped it, the tests that passed run alone too: a test's act can
        // come after it passed (at exit, from a thread it left running).
        let suspects = all
            .iter()
            .filter(|t| ran.refused() || (!ran.passed.contains(*t) && !ran.failed.contains(*t)));
        for test in suspects {
            match run_alone(exe, test, limits, &|c| elsewhere(c, root, run))? {
                Alone::Passed => {
                    once.passed.insert(test.clone());
                }
                Alone::Failed => once.failed.push(test.clone()),
                other => {
                    once.why.extend(stopped(other).map(|f| (test.clone(), f)));
                }
            }
        }
    }
    once.passed.extend(ran.passed.iter().cloned());
    if ran.refused() && !once.why.values().any(|f| *f == Failure::Refused) {
        // No test does it alone: one acts on state the others left in the process (a flag
        // one sets, another acts on). Run one at a time in one process, the test running
        // when the sandbox stops it is that one; if that order does not show it, every test
        // that had not reported when the run was stopped is suspect.
        let mut refused_in = run_serially_full(exe, root, suite, limits.test, None)?.refused_in;
        if refused_in.is_none() && run >= 2 {
            // The order of the shuffled run that was stopped.
            refused_in = run_serially_full(exe, root, suite, limits.test, Some(shuffle_seed(run)))?
                .refused_in;
        }
        let culprits: BTreeSet<String> = match refused_in {
            Some(test) => BTreeSet::from([test]),
            None => all
                .iter()
                .filter(|t| !ran.passed.contains(*t) && !ran.failed.contains(*t))
                .cloned()
                .collect(),
        };
        for test in culprits {
            once.passed.remove(&test);
            once.why.insert(test, Failure::RefusedTogether);
        }
    }
    Ok(once)
}

/// The reason for a test that a time limit or the sandbox stopped.
fn stopped(alone: Alone) -> Option<Failure> {
    match alone {
        Alone::TimedOut => Some(Failure::TimedOut),
        Alone::Refused => Some(Failure::Refused),
        Alone::Passed | Alone::Failed => None,
    }
}

/// The cluster with its module files moved from the crate to its copy.
fn rebase(cluster: &Cluster, from: &Path, to: &Path) -> Cluster {
    let mut c = cluster.clone();
    for m in &mut c.modules {
        if let Ok(rel) = m.file.strip_prefix(from) {
            m.file = to.join(rel);
        }
    }
    c
}

/// A test's name without its module path (how the generated files name it).
fn short_name(path: &str) -> String {
    path.rsplit("::").next().unwrap_or(path).to_string()
}

/// Why a test was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failure {
    /// It passes alone, each time in a fresh process, where it failed beside other tests.
    StaticState,
    /// It fails alone in the surroundings of the run it failed in, and passes alone in the
    /// crate where it was generated: it leans on the real machine.
    Machine,
    /// Its check of fd 1 or 2 fails with `--nocapture`.
    CaptureBound,
    Unstable,
    /// It did not compile.
    Uncompilable,
    /// It did not finish within the time limit per test.
    TimedOut,
    /// The sandbox stopped it: run outside, it would do something the sandbox refuses.
    Refused,
    /// Alone it passes, but after other tests in the same process the sandbox stopped it (a
    /// static one of them set, a lock or a count it acts on).
    RefusedTogether,
    /// No run reported it: the test binary stopped before (as it started, say: code that runs
    /// when a binary loads did something the sandbox refuses).
    NotRun,
    /// It fails in another build than the debug one it was written from (the command shown).
    Configuration(&'static str),
}

impl Failure {
    /// The reason, as the report gives it.
    pub fn reason(self) -> String {
        let text = match self {
            Failure::StaticState => "static state: passes alone, fails beside other tests",
            Failure::Machine => {
                "leans on the real machine: fails from another directory, time zone or HOME"
            }
            Failure::CaptureBound => {
                "its check of stdout/stderr holds only under libtest's capture (fails with --nocapture)"
            }
            Failure::Unstable => "failed or flaky",
            Failure::Uncompilable => "did not compile",
            Failure::TimedOut => "did not finish within the time limit per test",
            Failure::Refused => {
                "the sandbox stopped it: run outside, it would do something the sandbox refuses"
            }
            Failure::RefusedTogether => {
                "the sandbox stopped it after other tests ran in the same process: it acts on \
                 state they left (run outside, it would do something the sandbox refuses)"
            }
            Failure::NotRun => "never ran: the test binary stopped before it (as it started, say)",
            Failure::Configuration(shown) => return format!("fails under `{shown}`"),
        };
        text.into()
    }
}

/// The other builds the tests must pass in, as cargo's options and the command a user runs:
/// `--release`, and `--all-features` for a crate with features.
fn configurations(crate_root: &Path) -> Vec<(&'static [&'static str], &'static str)> {
    let mut out: Vec<(&'static [&'static str], &'static str)> =
        vec![(&["--release"], "cargo test --release")];
    let has_features = std::fs::read_to_string(crate_root.join("Cargo.toml"))
        .ok()
        .and_then(|t| t.parse::<toml_edit::DocumentMut>().ok())
        .and_then(|d| {
            d.get("features")
                .and_then(|f| f.as_table_like())
                .map(|f| f.iter().any(|(k, _)| k != "default"))
        })
        .unwrap_or(false);
    if has_features {
        out.push((&["--all-features"], "cargo test --all-features"));
    }
    out
}

/// Tells why `test` (a full path) failed in run `run`, running it alone in fresh processes.
fn failure(
    exe: &Path,
    crate_root: &Path,
    test: &str,
    run: usize,
    limits: Limits,
) -> Result<Failure> {
    let alone = |run| -> Result<Alone> {
        for _ in 0..ALONE_RUNS {
            let a = run_alone(exe, test, limits, &|c| elsewhere(c, crate_root, run))?;
            if a != Alone::Passed {
                return Ok(a);
            }
        }
        Ok(Alone::Passed)
    };
    Ok(match alone(run)? {
        Alone::Passed => Failure::StaticState,
        Alone::TimedOut => Failure::TimedOut,
        Alone::Refused => Failure::Refused,
        Alone::Failed if run > 0 && alone(0)? == Alone::Passed => Failure::Machine,
        Alone::Failed => Failure::Unstable,
    })
}

/// The real surroundings of run `run`: the first runs in the crate; the later ones from another
/// working directory and time zone, one with another `HOME` and `USER`, one with none, so that a
/// test leaning on the machine it was written on fails here rather than on someone else's.
fn elsewhere(cmd: &mut Command, crate_root: &Path, run: usize) -> Result<()> {
    if run == 0 {
        cmd.current_dir(crate_root);
        return Ok(());
    }
    let dir = crate_root.join(format!(".hermetic-elsewhere-{run}"));
    let home = dir.join("home");
    std::fs::create_dir_all(&home).with_context(|| format!("create {}", home.display()))?;
    cmd.current_dir(&dir);
    if run % 2 == 1 {
        cmd.env("TZ", "Pacific/Kiritimati")
            .env("HOME", &home)
            .env("USER", "hermetic-verify")
            .env("LOGNAME", "hermetic-verify");
    } else {
        cmd.env("TZ", "America/St_Johns")
            .env_remove("HOME")
            .env_remove("USER")
            .env_remove("LOGNAME");
    }
    Ok(())
}

/// How long a test may run in another build before it is taken to hang: the generated tests
/// each ran within the driver's time limit in the debug build, so one running this long
/// (integer overflow wraps under `--release`: a loop a debug panic ended may not end) does
/// not hold there.
const SILENCE: std::time::Duration = std::time::Duration::from_secs(20);

/// Runs the suite's tests one at a time, inside the sandbox; a test that runs past `silence`
/// (or that the sandbox stops) is killed and counts as failing with those that failed (the
/// tests after it do not run: the caller drops the failing ones and verifies again). Returns
/// the full paths of those that passed and failed.
fn run_serially(
    exe: &Path,
    cwd: &Path,
    suite: Suite,
    silence: std::time::Duration,
) -> Result<(BTreeSet<String>, BTreeSet<String>)> {
    let serial = run_serially_full(exe, cwd, suite, silence, None)?;
    Ok((serial.passed, serial.failed))
}

/// What a serial run showed.
#[derive(Debug, Default)]
struct Serial {
    passed: BTreeSet<String>,
    failed: BTreeSet<String>,
    /// The test running when the sandbox stopped the binary (it is in `failed` too).
    refused_in: Option<String>,
}

/// [`run_serially`] (in libtest's shuffled order `shuffle`, if given), saying which test the
/// sandbox stopped, if it stopped one.
fn run_serially_full(
    exe: &Path,
    cwd: &Path,
    suite: Suite,
    silence: std::time::Duration,
    shuffle: Option<u64>,
) -> Result<Serial> {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let mut cmd = Command::new(exe);
    if let Some(seed) = shuffle {
        shuffled(&mut cmd, seed);
    }
    cmd.arg(suite.module())
        .arg("--test-threads=1")
        .current_dir(cwd)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    let pending = test_binary::contain(&mut cmd)?;
    let mut child = cmd
        .spawn()
        .with_context(|| format!("run {}", exe.display()))?;
    pending.layers();
    let mut stdout = child.stdout.take().context("the test binary's output")?;
    // libtest writes `test path ... ` before each test runs alone, and the result after.
    let (tx, rx) = std::sync::mpsc::channel::<Vec<u8>>();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = stdout.read(&mut buf) {
            if tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let mut out = Vec::new();
    let mut hung = false;
    loop {
        match rx.recv_timeout(silence) {
            Ok(bytes) => out.extend(bytes),
            Err(std::sync::mpsc::RecvTimeoutError::Disconnected) => break,
            Err(std::sync::mpsc::RecvTimeoutError::Timeout) => {
                hung = true;
                // SAFETY: signalling the process group the sandbox gave the binary.
                unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                break;
            }
        }
    }
    let status = child.wait()?;
    let text = String::from_utf8_lossy(&out);
    let (passed, mut failed) = outcomes(&text);
    let mut refused_in = None;
    if hung || status.signal().is_some() {
        let last = running(&text);
        if !hung && status.signal() == Some(libc::SIGSYS) {
            refused_in = last.clone();
        }
        failed.extend(last);
    } else if passed.is_empty() && failed.is_empty() && !status.success() {
        bail!("the test binary failed without running tests");
    }
    Ok(Serial {
        passed,
        failed,
        refused_in,
    })
}

/// The tests libtest's output says passed and failed, by full path.
fn outcomes(stdout: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut passed, mut failed) = (BTreeSet::new(), BTreeSet::new());
    for (test, ok) in stdout.lines().filter_map(test_binary::outcome) {
        if ok {
            passed.insert(test);
        } else {
            failed.insert(test);
        }
    }
    (passed, failed)
}

/// The test a serial run's output shows started and not finished.
fn running(stdout: &str) -> Option<String> {
    let last = stdout.lines().last()?;
    let rest = last.strip_prefix("test ")?;
    let path = rest
        .strip_suffix(" ... ")
        .or_else(|| rest.strip_suffix(" ..."))?;
    Some(path.trim_end_matches(" - should panic").to_string())
}

/// The full paths of the suite's tests (the crate's own tests and the other suite's stay out).
fn list_tests(exe: &Path, cwd: &Path, suite: Suite, limits: Limits) -> Result<BTreeSet<String>> {
    let mut cmd = Command::new(exe);
    cmd.args([suite.module(), "--list", "--format", "terse"])
        .current_dir(cwd);
    let ran = test_binary::run(cmd, limits)?;
    if let Some(err) = ran.broken.filter(|_| ran.listed.is_empty()) {
        bail!("the test binary cannot list its tests:\n{err}");
    }
    Ok(ran.listed)
}

/// Runs the suite's tests once (the crate's own tests and the other suite's stay out).
fn run_tests(exe: &Path, cwd: &Path, suite: Suite, run: usize, limits: Limits) -> Result<Ran> {
    let mut cmd = Command::new(exe);
    cmd.arg(suite.module());
    elsewhere(&mut cmd, cwd, run)?;
    match run {
        0 => {}
        1 => {
            cmd.arg("--test-threads=1");
        }
        _ => shuffled(&mut cmd, shuffle_seed(run)),
    }
    let ran = test_binary::run(cmd, limits)?;
    if let Some(err) = &ran.broken {
        bail!("the test binary failed without running tests:\n{err}");
    }
    Ok(ran)
}

/// The seed of run `run`'s shuffled order.
fn shuffle_seed(run: usize) -> u64 {
    7 + run as u64
}

/// Runs the tests in a different order: libtest's shuffle is unstable, RUSTC_BOOTSTRAP lets
/// it run.
fn shuffled(cmd: &mut Command, seed: u64) {
    cmd.args([
        "-Z",
        "unstable-options",
        "--shuffle-seed",
        &seed.to_string(),
    ])
    .env("RUSTC_BOOTSTRAP", "1");
}

/// The `#[test]` function around a line of a generated file.
fn enclosing_test(contents: &str, line: usize) -> Option<String> {
    contents
        .lines()
        .take(line)
        .filter_map(|l| l.trim_start().strip_prefix("fn "))
        .last()
        .and_then(|rest| rest.split('(').next())
        .map(str::to_string)
}

/// Removes the named tests from the files (by parsing and printing them again).
pub fn drop_tests(
    files: Vec<GeneratedFile>,
    names: &BTreeSet<String>,
) -> Result<Vec<GeneratedFile>> {
    files
        .into_iter()
        .map(|mut f| {
            if !f.test_names.iter().any(|n| names.contains(n)) {
                return Ok(f);
            }
            let (header, body) = f.contents.split_once('\n').unwrap_or(("", &f.contents));
            debug_assert!(header.contains(GENERATED_MARKER));
            f.contents = format!("{header}\n{}", without_functions(body, names)?);
            for list in [
                &mut f.test_names,
                &mut f.using_private,
                &mut f.using_mocks,
                &mut f.using_fakes,
                &mut f.asserting_output,
            ] {
                list.retain(|n| !names.contains(n));
            }
            f.unseen_fakes.retain(|u| !names.contains(&u.test));
            Ok(f)
        })
        .collect()
}

/// The source without the named functions (attributes included) and the blank line before
/// each. The rest of the text is kept as it is, so it stays as rustfmt laid it out.
fn without_functions(body: &str, names: &BTreeSet<String>) -> Result<String> {
    let file: syn::File = syn::parse_str(body).context("re-read a generated file")?;
    // 1-based line ranges of the functions to drop.
    let mut ranges = Vec::new();
    for item in &file.items {
        let syn::Item::Fn(func) = item else { continue };
        if !names.contains(&func.sig.ident.to_string()) {
            continue;
        }
        let start = func
            .attrs
            .first()
            .map_or(func.sig.fn_token.span, |a| a.pound_token.span)
            .start()
            .line;
        let end = func.block.brace_token.span.close().end().line;
        ranges.push((start, end));
    }
    let lines: Vec<&str> = body.lines().collect();
    let dropped = |n: usize| ranges.iter().any(|&(a, b)| (a..=b).contains(&n));
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        let n = i + 1;
        let blank_before_dropped = line.trim().is_empty() && dropped(n + 1);
        if !dropped(n) && !blank_before_dropped {
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_builds_that_compiled_dependencies_count_as_their_build() {
        let took = std::time::Duration::from_secs(7);
        let built = |n| BuildOutcome::Built {
            executable: "t".into(),
            compiled_dependencies: n,
        };
        assert_eq!(dependencies_time(&built(3), took), took);
        assert!(dependencies_time(&built(0), took).is_zero());
        let failed = |n| BuildOutcome::Failed {
            errors: Vec::new(),
            compiled_dependencies: n,
        };
        assert!(dependencies_time(&failed(0), took).is_zero());
        assert_eq!(dependencies_time(&failed(4), took), took);
    }

    /// A test binary (libtest's harness, built by rustc) with a test that passes, one that
    /// sleeps an hour, one that starts ten thousand sleeping threads, and one that signals its
    /// parent (harmlessly: signal 0; the sandbox refuses any signal to another process).
    const MISBEHAVING: &str = r#"
mod hermetic_tests {
    extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
        fn getppid() -> i32;
    }
    #[test]
    fn quick() {}
    #[test]
    fn hangs() {
        std::thread::sleep(std::time::Duration::from_secs(3600));
    }
    #[test]
    fn floods_threads() {
        let threads: Vec<_> = (0..10_000)
            .map(|_| std::thread::spawn(|| std::thread::sleep(std::time::Duration::from_secs(3600))))
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    }
    #[test]
    fn signals_its_parent() {
        // SAFETY: signal 0 only asks whether the process exists.
        assert_eq!(unsafe { kill(getppid(), 0) }, 0);
    }
}
"#;

    #[test]
    fn hanging_flooding_and_refused_tests_are_named_within_the_time_limit() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("misbehaving.rs");
        std::fs::write(&src, MISBEHAVING).unwrap();
        let exe = dir.path().join("misbehaving");
        let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
        let built = Command::new(rustc)
            .args(["--test", "--edition", "2021", "-o"])
            .arg(&exe)
            .arg(&src)
            .output()
            .unwrap();
        assert!(
            built.status.success(),
            "{}",
            String::from_utf8_lossy(&built.stderr)
        );
        let limits = Limits {
            test: std::time::Duration::from_secs(2),
            binary: std::time::Duration::from_secs(120),
        };
        let all = list_tests(&exe, dir.path(), Suite::Generated, limits).unwrap();
        assert_eq!(all.len(), 4, "{all:?}");
        let started = std::time::Instant::now();
        let once = run_once(&exe, dir.path(), Suite::Generated, 0, &all, limits).unwrap();
        // The run, and each of the three unfinished tests alone: a few time limits, not an hour.
        assert!(started.elapsed().as_secs() < 60, "{:?}", started.elapsed());
        assert!(once.passed.contains("hermetic_tests::quick"), "{once:?}");
        assert_eq!(
            once.why.get("hermetic_tests::hangs"),
            Some(&Failure::TimedOut),
            "{once:?}"
        );
        assert_eq!(
            once.why.get("hermetic_tests::signals_its_parent"),
            Some(&Failure::Refused),
            "{once:?}"
        );
        // Threads stop at the sandbox's memory limit: the test fails, or hangs joining them.
        let flood = "hermetic_tests::floods_threads";
        assert!(
            once.failed.iter().any(|t| t == flood)
                || once.why.get(flood) == Some(&Failure::TimedOut),
            "{once:?}"
        );
        assert!(!once.passed.contains(flood), "{once:?}");
    }

    #[test]
    fn dropping_a_test_leaves_the_others_as_they_were_laid_out() {
        let body = "use super::*;\n\n#[test]\nfn a() {\n    let counter = Counter {\n        id: 1,\n    };\n}\n\n#[test]\n#[should_panic(expected = \"x\")]\nfn b() {\n    f();\n}\n\n#[test]\nfn c() {}\n";
        let out = without_functions(body, &["b".to_string()].into()).unwrap();
        assert_eq!(
            out,
            "use super::*;\n\n#[test]\nfn a() {\n    let counter = Counter {\n        id: 1,\n    };\n}\n\n#[test]\nfn c() {}\n"
        );
    }

    #[test]
    fn drops_named_tests_and_keeps_the_header() {
        let f = GeneratedFile {
            module: 0,
            path: "src/hermetic_tests.rs".into(),
            contents: format!(
                "// {GENERATED_MARKER} — `x` rewrites this file\nuse super::*;\n#[test]\nfn a() {{}}\n#[test]\nfn b() {{}}\n"
            ),
            test_names: vec!["a".into(), "b".into()],
            using_private: vec![],
            using_mocks: vec!["a".into()],
            using_fakes: Vec::new(),
            unseen_fakes: Vec::new(),
            asserting_output: vec!["a".into(), "b".into()],
            written_from: Default::default(),
        };
        let out = drop_tests(vec![f], &["a".to_string()].into()).unwrap();
        assert_eq!(out[0].test_names, vec!["b".to_string()]);
        assert!(out[0].using_mocks.is_empty());
        assert_eq!(out[0].asserting_output, vec!["b".to_string()]);
        assert!(out[0].contents.starts_with("// @generated"));
        assert!(!out[0].contents.contains("fn a()"));
        assert!(out[0].contents.contains("fn b()"));
    }

    #[test]
    fn short_names_drop_the_module_path() {
        assert_eq!(short_name("b::hermetic_tests::two"), "two");
        assert_eq!(short_name("two"), "two");
    }

    #[test]
    fn a_test_that_runs_past_the_limit_is_killed_and_counted_failing() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("tests");
        // libtest's serial output, then a test that never ends (a shell builtin: the sandbox
        // would stop `sleep`, a program started).
        std::fs::write(
            &exe,
            "#!/bin/sh\nprintf 'running 3 tests\\ntest m::hermetic_tests::a ... ok\\ntest m::hermetic_tests::b - should panic ... '\nwhile :; do :; done\n",
        )
        .unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let started = std::time::Instant::now();
        let (passed, failed) = run_serially(
            &exe,
            dir.path(),
            Suite::Generated,
            std::time::Duration::from_millis(500),
        )
        .unwrap();
        assert!(started.elapsed() < std::time::Duration::from_secs(20));
        assert_eq!(passed, BTreeSet::from(["m::hermetic_tests::a".to_string()]));
        assert_eq!(failed, BTreeSet::from(["m::hermetic_tests::b".to_string()]));
    }

    #[test]
    fn a_serial_run_the_sandbox_stops_names_the_test_running_then() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("tests");
        // `fire` acts on what `arm` left: the binary dies of SIGSYS while `fire` runs.
        std::fs::write(
            &exe,
            "#!/bin/sh\nprintf 'running 2 tests\\ntest m::hermetic_tests::arm ... ok\\ntest m::hermetic_tests::fire ... '\nkill -SYS $$\n",
        )
        .unwrap();
        std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
        let serial = run_serially_full(
            &exe,
            dir.path(),
            Suite::Generated,
            std::time::Duration::from_secs(20),
            None,
        )
        .unwrap();
        assert_eq!(
            serial.refused_in.as_deref(),
            Some("m::hermetic_tests::fire")
        );
        assert_eq!(
            serial.passed,
            BTreeSet::from(["m::hermetic_tests::arm".to_string()])
        );
        assert_eq!(
            serial.failed,
            BTreeSet::from(["m::hermetic_tests::fire".to_string()])
        );
    }

    #[test]
    fn finds_the_test_around_a_line() {
        let src = "use super::*;\n#[test]\nfn first() {\n    x();\n}\n#[test]\nfn second() {\n    y();\n}\n";
        assert_eq!(enclosing_test(src, 4).as_deref(), Some("first"));
        assert_eq!(enclosing_test(src, 8).as_deref(), Some("second"));
    }
}
