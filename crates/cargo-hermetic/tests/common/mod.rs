//! Helpers shared by the end-to-end tests: copying a fixture crate into a temporary directory,
//! running the real `cargo-hermetic` binary on the copy, reading its JSON report, checking the
//! generated files, running `cargo test` on the result, and snapshotting file trees.
//!
//! Every run of the binary goes to a copy; after each run the original fixtures are compared
//! with a snapshot taken before the first run of the test binary, so a run that wrote into an
//! original (a `hermetic_tests.rs`, a `mod` line, a `Cargo.lock`, a `target/`) fails the test.

#![allow(dead_code)]

use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsString;
use std::fs;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_cargo-hermetic");

/// The fixture crates (`shapes` is `examples/shapes`, the others are in `tests/fixtures`).
pub const FIXTURES: &[&str] = &[
    "abc",
    "triangle",
    "stack",
    "magic",
    "numparse",
    "misbehave",
    "generics",
    "broken",
    "shapes",
    "inventory",
    "crashy",
    "tally",
    "console",
    "envdeps",
    "mocks",
    "stdtraits",
    "people",
    "aliases",
    "addresses",
    "machine",
    "ranges",
    "isolated",
    "paths",
    "borrows",
    "timing",
    "tables",
    "texts",
    "hostile",
    "perthread",
];

/// Budget passed with every run: generous, so that runs are bounded by `--max-executions`
/// (reproducible) rather than by the clock, even on a slow, loaded CI machine.
pub const BUDGET_SECS: u64 = 600;

/// How long one run of the binary may take before the test kills it.
pub const RUN_TIMEOUT: Duration = Duration::from_secs(900);

/// How long `cargo test` on a generated crate may take.
pub const CARGO_TEST_TIMEOUT: Duration = Duration::from_secs(600);

/// The workspace root (two levels above this crate's manifest).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("workspace root")
}

/// The cargo target directory the binary under test was built in.
fn target_dir() -> PathBuf {
    // <target>/<profile>/cargo-hermetic
    Path::new(BIN)
        .parent()
        .and_then(Path::parent)
        .expect("binary in <target>/<profile>/")
        .to_path_buf()
}

/// Shared by every shadow build of every test (`CARGO_HERMETIC_TARGET_DIR`), so the driver's
/// dependencies are compiled once for the whole suite.
pub fn hermetic_target_dir() -> PathBuf {
    target_dir().join("hermetic-e2e")
}

/// The cache directory of every run in the suite (`HERMETIC_CACHE_DIR`): the support crates'
/// sources go there, never to the home directory of whoever runs the tests.
pub fn hermetic_cache_dir() -> PathBuf {
    target_dir().join("hermetic-e2e-cache")
}

/// Shared by every `cargo test` run on a generated crate (`CARGO_TARGET_DIR`).
pub fn cargo_test_target_dir() -> PathBuf {
    target_dir().join("hermetic-e2e-test")
}

/// Where the original of a fixture lives.
pub fn fixture_source(name: &str) -> PathBuf {
    let root = workspace_root();
    if name == "shapes" {
        root.join("examples/shapes")
    } else {
        root.join("tests/fixtures").join(name)
    }
}

// ---------------------------------------------------------------------------------------------
// Snapshots of file trees

/// Every file under a directory (relative path -> contents), leaving out `target/` at the top.
pub type Snapshot = BTreeMap<PathBuf, Vec<u8>>;

/// Reads every file under `root` except those in `root/target`.
pub fn snapshot(root: &Path) -> Snapshot {
    fn walk(root: &Path, dir: &Path, out: &mut Snapshot) {
        let mut entries: Vec<_> = fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
            .map(|e| e.expect("dir entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            if rel == Path::new("target") {
                continue;
            }
            let meta = fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                walk(root, &path, out);
            } else {
                let bytes =
                    fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
                out.insert(rel, bytes);
            }
        }
    }
    let mut out = Snapshot::new();
    walk(root, root, &mut out);
    out
}

/// What differs between two snapshots, one line per path (empty when they are equal).
pub fn diff(before: &Snapshot, after: &Snapshot) -> Vec<String> {
    let paths: BTreeSet<&PathBuf> = before.keys().chain(after.keys()).collect();
    let mut out = Vec::new();
    for p in paths {
        match (before.get(p), after.get(p)) {
            (Some(_), None) => out.push(format!("removed {}", p.display())),
            (None, Some(_)) => out.push(format!("added {}", p.display())),
            (Some(a), Some(b)) if a != b => out.push(format!(
                "changed {}:\n--- before\n{}\n--- after\n{}",
                p.display(),
                String::from_utf8_lossy(a),
                String::from_utf8_lossy(b)
            )),
            _ => {}
        }
    }
    out
}

/// Panics, listing the differences, unless the snapshots are equal.
pub fn assert_same_tree(before: &Snapshot, after: &Snapshot, context: &str) {
    let d = diff(before, after);
    assert!(d.is_empty(), "{context}: files changed:\n{}", d.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// The originals must never change

struct Original {
    files: Snapshot,
    had_target: bool,
}

fn originals() -> &'static BTreeMap<&'static str, Original> {
    static ORIGINALS: OnceLock<BTreeMap<&'static str, Original>> = OnceLock::new();
    ORIGINALS.get_or_init(|| {
        FIXTURES
            .iter()
            .map(|&name| {
                let dir = fixture_source(name);
                (
                    name,
                    Original {
                        files: snapshot(&dir),
                        had_target: dir.join("target").exists(),
                    },
                )
            })
            .collect()
    })
}

/// Panics when any original fixture differs from its state before this test binary's first run:
/// a file added, removed or changed (outside `target/`), a `target/` created, or any
/// `hermetic_tests.rs` or `hermetic_recorded.rs` present.
pub fn assert_originals_untouched() {
    for (name, original) in originals() {
        let dir = fixture_source(name);
        let now = snapshot(&dir);
        assert_same_tree(
            &original.files,
            &now,
            &format!("original fixture {} was modified", dir.display()),
        );
        assert!(
            original.had_target || !dir.join("target").exists(),
            "a target directory was created in the original fixture {}",
            dir.display()
        );
        let generated: Vec<_> = now
            .keys()
            .filter(|p| {
                p.file_name()
                    .is_some_and(|f| f == "hermetic_tests.rs" || f == "hermetic_recorded.rs")
            })
            .collect();
        assert!(
            generated.is_empty(),
            "original fixture {} contains generated files: {generated:?}",
            dir.display()
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Fixture copies

/// A copy of a fixture crate in its own temporary directory (removed on drop).
pub struct Fixture {
    pub name: String,
    /// The temporary directory: holds the crate copy and the reports, which stay outside the crate.
    pub tmp: tempfile::TempDir,
    /// The crate copy.
    pub root: PathBuf,
}

impl Fixture {
    /// Copies `tests/fixtures/<name>` (or `examples/shapes`), without any `target/`.
    pub fn copy(name: &str) -> Fixture {
        Fixture::copy_under(name, "")
    }

    /// Copies the fixture to `<tmp>/<dirs>/<name>`: somewhere else, at another depth and
    /// length of path than [`Fixture::copy`] puts it.
    pub fn copy_under(name: &str, dirs: &str) -> Fixture {
        // Take the baseline of the originals before anything runs.
        originals();
        let tmp = tempfile::Builder::new()
            .prefix(&format!("hermetic-e2e-{name}-"))
            .tempdir()
            .expect("tempdir");
        let root = tmp.path().join(dirs).join(name);
        let src = fixture_source(name);
        for (rel, bytes) in snapshot(&src) {
            let dst = root.join(&rel);
            fs::create_dir_all(dst.parent().unwrap()).unwrap();
            fs::write(&dst, bytes).unwrap();
        }
        Fixture {
            name: name.to_string(),
            tmp,
            root,
        }
    }

    /// Copies the fixture, a workspace, to `<tmp>/<dirs>/<name>`, and stands for its member
    /// crate in `<name>/<member>`: runs, `cargo test` and the generated files are the member's.
    pub fn copy_member(name: &str, member: &str, dirs: &str) -> Fixture {
        let mut fixture = Fixture::copy_under(name, dirs);
        fixture.root = fixture.root.join(member);
        fixture
    }

    pub fn manifest(&self) -> PathBuf {
        self.root.join("Cargo.toml")
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    pub fn read(&self, rel: &str) -> String {
        let p = self.path(rel);
        fs::read_to_string(&p).unwrap_or_else(|e| panic!("reading {}: {e}", p.display()))
    }

    pub fn write(&self, rel: &str, contents: &str) {
        fs::write(self.path(rel), contents).unwrap();
    }

    /// Moves the crate into `dir` (as a teammate's clone would sit elsewhere); later runs and
    /// `cargo test`s use it there.
    pub fn move_to(&mut self, dir: &Path) {
        let to = dir.join(&self.name);
        fs::rename(&self.root, &to)
            .unwrap_or_else(|e| panic!("moving the crate to {}: {e}", to.display()));
        self.root = to;
    }

    /// Checks that the tests' dev-dependency on the runtime is the copy vendored inside the
    /// crate, and that every package the crate's tests build from is inside the crate or comes
    /// from the registry: nothing of this tool's checkout is needed.
    /// Writes the copy's `Cargo.lock` (from the registry index at hand), as a crate that
    /// commits its lock file has one.
    pub fn lock(&self) {
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        cmd.args(["generate-lockfile", "--offline", "--manifest-path"])
            .arg(self.manifest());
        let out = run_with_timeout(cmd, CARGO_TEST_TIMEOUT);
        assert!(
            out.status.success(),
            "cargo generate-lockfile failed:\n{}",
            out.stderr
        );
    }

    /// `Cargo.lock` names everything the manifest needs: `cargo ... --locked`, as CIs run it,
    /// accepts the crate as the tool left it.
    pub fn assert_lock_file_is_current(&self) {
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        cmd.args(["metadata", "--locked", "--offline", "--format-version", "1"])
            .arg("--manifest-path")
            .arg(self.manifest());
        let out = run_with_timeout(cmd, CARGO_TEST_TIMEOUT);
        assert!(
            out.status.success(),
            "`cargo metadata --locked` refuses the crate:\n{}\n{}",
            out.stderr,
            self.read("Cargo.lock")
        );
    }

    pub fn assert_builds_from_its_repository_alone(&self) {
        let manifest = self.read("Cargo.toml");
        assert!(
            manifest.contains("hermetic = { path = \".hermetic/runtime\" }"),
            "the runtime is not vendored:\n{manifest}"
        );
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        cmd.args(["metadata", "--format-version", "1", "--manifest-path"])
            .arg(self.manifest());
        let out = run_with_timeout(cmd, CARGO_TEST_TIMEOUT);
        assert!(
            out.status.success(),
            "cargo metadata failed:\n{}",
            out.stderr
        );
        let meta: Value = serde_json::from_str(&out.stdout).expect("cargo metadata's JSON");
        for package in meta["packages"].as_array().unwrap() {
            let path = package["manifest_path"].as_str().unwrap();
            let source = package["source"].as_str().unwrap_or_default();
            assert!(
                path.starts_with(self.root.to_str().unwrap()) || source.starts_with("registry+"),
                "{} builds from {path}, outside the crate and the registry",
                self.name
            );
        }
    }

    /// All files of the copy, without `target/`.
    pub fn snapshot(&self) -> Snapshot {
        snapshot(&self.root)
    }

    /// The `hermetic_tests.rs` files (`cargo hermetic generate`'s) in the copy (relative path
    /// -> contents), sorted by path.
    pub fn generated_files(&self) -> BTreeMap<String, String> {
        self.files_named("hermetic_tests.rs")
    }

    /// The `hermetic_recorded.rs` files (`cargo hermetic record`'s), as [`Self::generated_files`].
    pub fn recorded_files(&self) -> BTreeMap<String, String> {
        self.files_named("hermetic_recorded.rs")
    }

    fn files_named(&self, name: &str) -> BTreeMap<String, String> {
        self.snapshot()
            .into_iter()
            .filter(|(p, _)| p.file_name().is_some_and(|f| f == name))
            .map(|(p, b)| {
                (
                    p.to_string_lossy().into_owned(),
                    String::from_utf8(b).expect("generated file is UTF-8"),
                )
            })
            .collect()
    }

    /// A run of `cargo-hermetic hermetic generate` on this copy, with the suite's defaults:
    /// `--budget 600 --quiet --report-json <tmp>/report-N.json`.
    pub fn generate(&self) -> Generate<'_> {
        Generate {
            fixture: self,
            args: Vec::new(),
            manifest: Some(self.manifest().into_os_string()),
            envs: Vec::new(),
            removed: Vec::new(),
            budget: BUDGET_SECS,
        }
    }

    /// Runs `cargo test` on the copy (sharing one target dir for the whole suite) and panics with
    /// its output unless it passes, then checks that clippy has nothing to say about the
    /// generated and recorded tests ([`Fixture::assert_generated_tests_are_lint_clean`]).
    /// Returns the number of tests that passed.
    pub fn cargo_test_passes(&self) -> usize {
        self.cargo_test_passes_with(&[])
    }

    /// [`Self::cargo_test_passes`] with these environment variables set.
    pub fn cargo_test_passes_with(&self, envs: &[(&str, &str)]) -> usize {
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        cmd.envs(envs.iter().copied());
        cmd.arg("test")
            .arg("--manifest-path")
            .arg(self.manifest())
            .env("CARGO_TARGET_DIR", cargo_test_target_dir())
            .current_dir(self.tmp.path());
        let out = run_with_timeout(cmd, CARGO_TEST_TIMEOUT);
        assert_originals_untouched();
        assert!(
            out.status.success(),
            "`cargo test` on the generated tests of {} failed ({}):\n--- stdout\n{}\n--- stderr\n{}\n{}",
            self.name,
            out.status,
            out.stdout,
            out.stderr,
            self.dump_generated()
        );
        self.assert_generated_tests_are_lint_clean();
        passed_tests(&out.stdout)
    }

    /// Runs `cargo test` on the copy: whether it passed, and what it printed (for tests that
    /// expect it to fail).
    pub fn cargo_test(&self) -> (bool, String) {
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        cmd.arg("test")
            .arg("--manifest-path")
            .arg(self.manifest())
            .env("CARGO_TARGET_DIR", cargo_test_target_dir())
            .current_dir(self.tmp.path());
        let out = run_with_timeout(cmd, CARGO_TEST_TIMEOUT);
        (
            out.status.success(),
            format!("{}\n{}", out.stdout, out.stderr),
        )
    }

    /// Runs `cargo clippy --tests` on the copy and panics on any warning in a generated or
    /// recorded test file (the fixtures' own code may be odd on purpose): a CI that runs
    /// `cargo clippy --tests -- -D warnings` accepts the tests. Every end-to-end run whose
    /// tests pass `cargo test` goes through here.
    pub fn assert_generated_tests_are_lint_clean(&self) {
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        cmd.args([
            "clippy",
            "--tests",
            "--message-format=json",
            "--manifest-path",
        ])
        .arg(self.manifest())
        .env("CARGO_TARGET_DIR", target_dir().join("hermetic-e2e-clippy"))
        .current_dir(self.tmp.path());
        let out = run_with_timeout(cmd, CARGO_TEST_TIMEOUT);
        assert!(
            out.status.success(),
            "`cargo clippy --tests` on {} failed:\n{}",
            self.name,
            out.stderr
        );
        let lints: Vec<String> = out
            .stdout
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|m| m["reason"] == "compiler-message")
            .map(|m| m["message"].clone())
            .filter(|m| m["level"] == "warning" || m["level"] == "error")
            .filter(|m| {
                m["spans"].as_array().is_some_and(|spans| {
                    spans.iter().any(|s| {
                        s["is_primary"] == true
                            && s["file_name"].as_str().is_some_and(|f| {
                                f.ends_with("hermetic_tests.rs")
                                    || f.ends_with("hermetic_recorded.rs")
                            })
                    })
                })
            })
            .map(|m| m["rendered"].as_str().unwrap_or_default().to_string())
            .collect();
        assert!(
            lints.is_empty(),
            "clippy warns on the generated tests of {}:\n{}",
            self.name,
            lints.join("\n")
        );
    }

    /// The generated and recorded files, for failure messages.
    pub fn dump_generated(&self) -> String {
        self.generated_files()
            .iter()
            .chain(self.recorded_files().iter())
            .map(|(p, c)| format!("===== {p}\n{c}"))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// How many tests `cargo test` says passed, over all its test binaries.
pub fn passed_tests(stdout: &str) -> usize {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("test result: ok. "))
        .filter_map(|l| l.split(' ').next()?.parse::<usize>().ok())
        .sum()
}

static REPORTS: AtomicUsize = AtomicUsize::new(0);

/// A command line being put together; `run` runs it.
pub struct Generate<'a> {
    fixture: &'a Fixture,
    args: Vec<OsString>,
    manifest: Option<OsString>,
    envs: Vec<(OsString, OsString)>,
    removed: Vec<OsString>,
    budget: u64,
}

impl Generate<'_> {
    pub fn seed(self, seed: u64) -> Self {
        self.arg("--seed").arg(seed.to_string())
    }

    pub fn max_executions(self, n: u64) -> Self {
        self.arg("--max-executions").arg(n.to_string())
    }

    /// `--budget SECS` instead of the suite's generous [`BUDGET_SECS`].
    pub fn budget(mut self, secs: u64) -> Self {
        self.budget = secs;
        self
    }

    pub fn jobs(self, n: usize) -> Self {
        self.arg("--jobs").arg(n.to_string())
    }

    pub fn args<A: Into<OsString>>(mut self, args: impl IntoIterator<Item = A>) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn arg(mut self, a: impl Into<OsString>) -> Self {
        self.args.push(a.into());
        self
    }

    /// Sets an environment variable for the run.
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        self.envs.push((key.into(), value.into()));
        self
    }

    /// Leaves an environment variable unset for the run (one the suite sets, such as
    /// `CARGO_HERMETIC_TARGET_DIR`).
    pub fn env_remove(mut self, key: impl Into<OsString>) -> Self {
        self.removed.push(key.into());
        self
    }

    /// Passes this path as `--manifest-path` instead of the copy's manifest.
    pub fn manifest_path(mut self, p: impl Into<OsString>) -> Self {
        self.manifest = Some(p.into());
        self
    }

    pub fn run(self) -> Run {
        let n = REPORTS.fetch_add(1, Ordering::SeqCst);
        let report = self.fixture.tmp.path().join(format!("report-{n}.json"));
        let mut args: Vec<OsString> = vec!["hermetic".into(), "generate".into()];
        if let Some(m) = self.manifest {
            args.push("--manifest-path".into());
            args.push(m);
        }
        args.extend(
            [
                "--budget".into(),
                self.budget.to_string().into(),
                "--quiet".into(),
                "--report-json".into(),
                report.clone().into_os_string(),
            ]
            .into_iter()
            .chain(self.args),
        );
        let mut cmd = Command::new(BIN);
        cmd.args(&args)
            .env("CARGO_HERMETIC_TARGET_DIR", hermetic_target_dir())
            .env("HERMETIC_CACHE_DIR", hermetic_cache_dir())
            .envs(self.envs)
            // Outside the copy, so the working directory does not pick the crate.
            .current_dir(self.fixture.tmp.path());
        for key in self.removed {
            cmd.env_remove(key);
        }
        let started = Instant::now();
        let out = run_with_timeout(cmd, RUN_TIMEOUT);
        let elapsed = started.elapsed();
        let report = fs::read_to_string(&report).ok().map(|s| {
            serde_json::from_str::<Value>(&s)
                .unwrap_or_else(|e| panic!("the JSON report does not parse: {e}\n{s}"))
        });
        let run = Run {
            command: format!(
                "cargo-hermetic {}",
                args.iter()
                    .map(|a| a.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join(" ")
            ),
            status: out.status,
            stdout: out.stdout,
            stderr: out.stderr,
            report,
            elapsed,
        };
        eprintln!(
            "[e2e] {} ({}): {} in {:.1}s",
            self.fixture.name,
            run.command,
            run.status,
            elapsed.as_secs_f64()
        );
        assert_originals_untouched();
        run.assert_no_infeasible_covered();
        run
    }
}

/// What one run of the binary did.
pub struct Run {
    pub command: String,
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
    pub report: Option<Value>,
    pub elapsed: Duration,
}

impl Run {
    /// The command, its status, its output and its report, for failure messages.
    pub fn describe(&self) -> String {
        format!(
            "$ {}\nstatus: {}\n--- stdout\n{}\n--- stderr\n{}\n--- report\n{}",
            self.command,
            self.status,
            self.stdout,
            self.stderr,
            self.report
                .as_ref()
                .map(|r| serde_json::to_string_pretty(r).unwrap())
                .unwrap_or_else(|| "(none written)".into())
        )
    }

    pub fn assert_success(&self) -> &Self {
        assert!(
            self.status.success(),
            "cargo-hermetic failed:\n{}",
            self.describe()
        );
        self
    }

    pub fn assert_failure(&self) -> &Self {
        assert!(
            !self.status.success() && self.status.code().is_some(),
            "cargo-hermetic should have exited with an error status:\n{}",
            self.describe()
        );
        self
    }

    /// The run failed with this exit code (`errors.rs`: one per failure a user can meet, listed
    /// in the README).
    pub fn assert_exit_code(&self, code: i32) -> &Self {
        assert_eq!(
            self.status.code(),
            Some(code),
            "cargo-hermetic should have exited with {code}:\n{}",
            self.describe()
        );
        self
    }

    /// The self-check of the proofs that some edges can never be taken: no execution took one.
    fn assert_no_infeasible_covered(&self) {
        let covered = self
            .report
            .as_ref()
            .and_then(|r| r.get("infeasible_covered"))
            .and_then(Value::as_u64);
        assert!(
            covered.is_none_or(|n| n == 0),
            "an execution took an edge proven infeasible (a bug in driver/infeasible.rs):\n{}",
            self.describe()
        );
    }

    /// The JSON report (panics when none was written).
    pub fn report(&self) -> &Value {
        self.report
            .as_ref()
            .unwrap_or_else(|| panic!("no JSON report was written:\n{}", self.describe()))
    }

    /// A numeric field of the report.
    pub fn count(&self, field: &str) -> u64 {
        self.report()[field].as_u64().unwrap_or_else(|| {
            panic!(
                "report field `{field}` is not a count:\n{}",
                self.describe()
            )
        })
    }

    /// `goals_covered / goals_total`, as a fraction (1.0 when there are no goals).
    pub fn branch_coverage(&self) -> f64 {
        let total = self.count("goals_total");
        assert!(total > 0, "no branch goals at all:\n{}", self.describe());
        self.count("goals_covered") as f64 / total as f64
    }

    /// The report's `skipped` entries as (item, reason).
    pub fn skipped(&self) -> Vec<(String, String)> {
        self.pairs("skipped", "item", "detail")
    }

    /// The report's `findings` entries as (call, outcome).
    pub fn findings(&self) -> Vec<(String, String)> {
        self.pairs("findings", "call", "outcome")
    }

    /// The report's `uncovered` functions.
    pub fn uncovered_functions(&self) -> Vec<String> {
        self.report()["uncovered"]
            .as_array()
            .unwrap_or_else(|| panic!("report has no `uncovered` list:\n{}", self.describe()))
            .iter()
            .map(|u| u["function"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    fn pairs(&self, list: &str, a: &str, b: &str) -> Vec<(String, String)> {
        self.report()[list]
            .as_array()
            .unwrap_or_else(|| panic!("report has no `{list}` list:\n{}", self.describe()))
            .iter()
            .map(|e| {
                (
                    e[a].as_str().unwrap_or_default().to_string(),
                    e[b].as_str().unwrap_or_default().to_string(),
                )
            })
            .collect()
    }
}

// ---------------------------------------------------------------------------------------------
// Generated files

/// The names of the `#[test]` functions in a generated file, in order.
pub fn test_names(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut in_test = false;
    for line in source.lines() {
        let line = line.trim();
        if line == "#[test]" {
            in_test = true;
        } else if in_test {
            if let Some(rest) = line.strip_prefix("fn ") {
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                names.push(name);
                in_test = false;
            }
        }
    }
    names
}

/// The number of `#[test]` attributes in a generated file.
pub fn count_tests(source: &str) -> usize {
    source.lines().filter(|l| l.trim() == "#[test]").count()
}

/// Whether a name is a meaningless, numbered one (`test_0`, `test12`, `t3`, `case_1`).
pub fn is_numbered_name(name: &str) -> bool {
    let stem = name.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_');
    stem.len() < name.len() && ["", "t", "test", "case", "tc", "generated"].contains(&stem)
}

/// Checks what every generated file must satisfy: the `@generated` header on its first line,
/// `rustfmt --check` clean, `#[test]` names unique, readable and not numbered.
/// Returns the number of tests in it.
pub fn check_generated_file(rel: &str, source: &str, dir: &Path) -> usize {
    let first = source.lines().next().unwrap_or_default();
    assert!(
        first.contains("@generated"),
        "{rel}: the first line does not say `@generated`: {first:?}\n{source}"
    );

    let names = test_names(source);
    assert_eq!(
        names.len(),
        count_tests(source),
        "{rel}: could not find the name of every #[test] fn\n{source}"
    );
    let mut seen = BTreeSet::new();
    for name in &names {
        assert!(
            seen.insert(name),
            "{rel}: test name `{name}` is used twice\n{source}"
        );
        assert!(
            !is_numbered_name(name),
            "{rel}: test name `{name}` says nothing about the test\n{source}"
        );
    }

    // rustfmt on a copy outside the crate, so `--check` cannot look at anything else.
    let copy = dir.join(format!("fmt-check-{}.rs", rel.replace('/', "_")));
    fs::write(&copy, source).unwrap();
    let mut cmd = Command::new("rustfmt");
    cmd.args(["--check", "--edition", "2021"]).arg(&copy);
    let out = run_with_timeout(cmd, Duration::from_secs(60));
    assert!(
        out.status.success(),
        "{rel}: not rustfmt-clean (`rustfmt --check --edition 2021`):\n{}\n{}",
        out.stdout,
        out.stderr
    );
    fs::remove_file(&copy).ok();
    names.len()
}

/// Checks every generated file of a copy (see [`check_generated_file`]) and that they are
/// the files the report lists. Returns the total number of tests.
pub fn check_generated_files(fixture: &Fixture, run: &Run) -> usize {
    let files = fixture.generated_files();
    assert!(
        !files.is_empty(),
        "no hermetic_tests.rs was written:\n{}",
        run.describe()
    );
    let reported: BTreeSet<String> = run.report()["files"]
        .as_array()
        .unwrap_or_else(|| panic!("report has no `files` list:\n{}", run.describe()))
        .iter()
        .map(|f| f.as_str().unwrap_or_default().to_string())
        .collect();
    let on_disk: BTreeSet<String> = files.keys().cloned().collect();
    assert_eq!(
        reported,
        on_disk,
        "the report's `files` are not the files written:\n{}",
        run.describe()
    );
    let total: usize = files
        .iter()
        .map(|(rel, src)| check_generated_file(rel, src, fixture.tmp.path()))
        .sum();
    assert_eq!(
        total as u64,
        run.count("tests_emitted"),
        "the report's `tests_emitted` is not the number of #[test] fns written:\n{}\n{}",
        run.describe(),
        fixture.dump_generated()
    );
    total
}

/// Counts the `mod hermetic_tests;` declarations in a source file.
pub fn count_mod_lines(source: &str) -> usize {
    source.matches("mod hermetic_tests;").count()
}

// ---------------------------------------------------------------------------------------------
// Processes

/// What a finished child process printed.
pub struct Output {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `cmd` in its own process group, capturing its output; kills the whole group and panics
/// when it runs longer than `timeout` (a hang must fail the test, not stall CI).
pub fn run_with_timeout(cmd: Command, timeout: Duration) -> Output {
    run_with_input(cmd, None, timeout)
}

/// [`run_with_timeout`] with `input` piped to the command's stdin (else stdin is empty).
pub fn run_with_input(mut cmd: Command, input: Option<&str>, timeout: Duration) -> Output {
    let desc = format!("{cmd:?}");
    cmd.stdin(if input.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .process_group(0);
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {desc}: {e}"));
    let pid = child.id() as libc::pid_t;
    if let (Some(mut pipe), Some(input)) = (child.stdin.take(), input) {
        let input = input.to_string();
        // A program that stops reading early closes the pipe: that is not an error here.
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = pipe.write_all(input.as_bytes());
        });
    }
    let reader = |mut pipe: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            pipe.read_to_end(&mut buf).ok();
            String::from_utf8_lossy(&buf).into_owned()
        })
    };
    let stdout = reader(Box::new(child.stdout.take().unwrap()));
    let stderr = reader(Box::new(child.stderr.take().unwrap()));
    let deadline = Instant::now() + timeout;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if Instant::now() > deadline {
            // SAFETY: kill(2) on the process group of the child this function started.
            unsafe { libc::kill(-pid, libc::SIGKILL) };
            let _ = child.wait();
            let out = stdout.join().unwrap_or_default();
            let err = stderr.join().unwrap_or_default();
            panic!("{desc} did not finish within {timeout:?}; killed.\n--- stdout\n{out}\n--- stderr\n{err}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: stdout.join().unwrap(),
        stderr: stderr.join().unwrap(),
    }
}

/// The module file that declares a generated `hermetic_tests.rs`: `src/hermetic_tests.rs` ->
/// `src/lib.rs`, `src/a/b/hermetic_tests.rs` -> `src/a/b.rs` (or `src/a/b/mod.rs`).
pub fn declaring_module_file(fixture: &Fixture, generated: &str) -> String {
    let dir = generated
        .strip_suffix("/hermetic_tests.rs")
        .unwrap_or_else(|| panic!("not a generated file: {generated}"));
    if dir == "src" {
        return "src/lib.rs".into();
    }
    let flat = format!("{dir}.rs");
    if fixture.path(&flat).exists() {
        flat
    } else {
        format!("{dir}/mod.rs")
    }
}

/// Panics unless every generated file is declared exactly once by its module's file.
pub fn assert_each_generated_file_declared_once(fixture: &Fixture) {
    for rel in fixture.generated_files().keys() {
        let module = declaring_module_file(fixture, rel);
        let source = fixture.read(&module);
        assert_eq!(
            count_mod_lines(&source),
            1,
            "{module} should declare `mod hermetic_tests;` exactly once (for {rel}):\n{source}"
        );
        assert!(
            source.contains("#[cfg(test)]"),
            "{module}: `mod hermetic_tests;` is not under #[cfg(test)]:\n{source}"
        );
    }
}
