//! Environment benchmark (seed 001's Table 2, EvoSuite ASE'14): coverage of the `envdeps` fixture
//! with everything off (`--env real --no-static-isolation`: the real environment, and one child
//! runs every execution of a driver, so statics carry over), each part on alone (stdin, files,
//! other = variables/clock/randomness, each with static isolation still off; static isolation =
//! a fresh child per execution, with the real environment), and all on (`--env all`, the
//! default); tests emitted and dropped by the tool's own verification (flaky, static state);
//! and unstable tests when the tests written with everything off and all on are rerun 5 times
//! under a changed real environment.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::{copy_dir, fmt, median};

/// One row of the table.
struct Mode {
    label: &'static str,
    /// The `--env` value.
    env: &'static str,
    /// Whether each execution runs in a fresh child (false: `--no-static-isolation`).
    static_isolation: bool,
}

/// The rows, in the order printed (seed 001's Base, Console, VFS, JVM, Static, All).
const MODES: &[Mode] = &[
    Mode {
        label: "off",
        env: "real",
        static_isolation: false,
    },
    Mode {
        label: "stdin",
        env: "stdin",
        static_isolation: false,
    },
    Mode {
        label: "files",
        env: "files",
        static_isolation: false,
    },
    Mode {
        label: "other",
        env: "other",
        static_isolation: false,
    },
    Mode {
        label: "static",
        env: "real",
        static_isolation: true,
    },
    Mode {
        label: "all",
        env: "all",
        static_isolation: true,
    },
];

impl Mode {
    /// The name of the mode's copies and reports.
    fn key(&self) -> &'static str {
        self.label
    }

    /// The two modes whose tests are written and rerun: everything off, all on.
    fn writes(&self) -> bool {
        self.label == "off" || self.label == "all"
    }
}

/// The fixture's modules, for the per-module uncovered counts.
const MODULES: &[&str] = &["config", "content", "counter", "dice", "harm", "message"];

const CANARY_DIR: &str = "/tmp/hermetic-canary";
/// The same text as the e2e test `crates/cargo-hermetic/tests/environment.rs` writes, so that a
/// concurrent `cargo test` does not look like harm.
const CANARY_TEXT: &str = "still here\n";

/// Reruns of the written tests under a changed real environment.
const RERUNS: usize = 5;

struct EnvRun {
    covered: f64,
    total: f64,
    emitted: f64,
    dropped_unstable: f64,
    dropped_static: f64,
    exec_per_s: f64,
    refused_runtime: f64,
    refused_sandbox: f64,
    uncovered: BTreeMap<String, f64>,
    touched: Vec<String>,
    varied: Vec<String>,
    skipped: Vec<(String, String)>,
}

pub struct EnvOptions {
    pub cli: PathBuf,
    pub seeds: u64,
    pub max_executions: u64,
}

/// Runs the section and prints its tables; returns the number of failed runs (the canary's loss
/// counts as one).
pub fn run(root: &Path, work: &Path, opts: &EnvOptions) -> usize {
    let seeds: Vec<u64> = (1..=opts.seeds).collect();
    println!(
        "environment benchmark (seed 001, Table 2): tests/fixtures/envdeps, {} modes x {} seed(s), --max-executions {}, work dir {}",
        MODES.len(),
        seeds.len(),
        opts.max_executions,
        work.display()
    );
    // The canary: must be there, unchanged, after every run.
    let canary = Path::new(CANARY_DIR).join("keep.txt");
    std::fs::create_dir_all(CANARY_DIR).expect("create the canary directory");
    std::fs::write(&canary, CANARY_TEXT).expect("write the canary");

    let fixture = root.join("tests/fixtures/envdeps");
    let mut failures = 0;
    // results[mode] = one entry per seed; copies[mode] = the written copies (real, all).
    let mut results: Vec<Vec<Option<EnvRun>>> = MODES.iter().map(|_| Vec::new()).collect();
    let mut written: Vec<Vec<PathBuf>> = MODES.iter().map(|_| Vec::new()).collect();
    for (si, &seed) in seeds.iter().enumerate() {
        // Rotate the order of the modes from seed to seed.
        for k in 0..MODES.len() {
            let mi = (k + si) % MODES.len();
            let mode = &MODES[mi];
            let label = mode.label;
            let dir = work.join("env").join(format!("{}-{seed}", mode.key()));
            let _ = std::fs::remove_dir_all(&dir);
            copy_dir(&fixture, &dir).expect("copy envdeps");
            // off and all write their tests (verified first) for the reruns; the rest dry-run.
            let write = mode.writes();
            let run = generate(opts, work, &dir, mode, seed, write);
            eprintln!("  envdeps {label:<10} seed {seed}: {}", describe(&run));
            failures += run.is_none() as usize;
            if write && run.is_some() {
                written[mi].push(dir);
            }
            results[mi].push(run);
        }
    }

    print_table(&results, opts);

    // Unstable tests: rerun the written tests under changed real environments.
    println!();
    println!(
        "unstable tests: the tests written with everything off (off) and all on (all), rerun {RERUNS} times"
    );
    println!(
        "  from another working directory with other TZ, HOME, USER, APP_HOME (a real app.conf) and stdin;"
    );
    println!("  distinct tests that fail at least once, per seed:");
    let mut unstable: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (mi, mode) in MODES.iter().enumerate() {
        let (label, env) = (mode.label, mode.key());
        if written[mi].is_empty() {
            continue;
        }
        for dir in &written[mi] {
            match rerun(work, dir) {
                Ok((tests, failing)) => {
                    println!(
                        "  {label:<10} {}: {} of {tests} test(s) unstable{}",
                        dir.file_name().unwrap().to_string_lossy(),
                        failing.len(),
                        if failing.is_empty() {
                            String::new()
                        } else {
                            format!(
                                ": {}",
                                failing.iter().cloned().collect::<Vec<_>>().join(", ")
                            )
                        }
                    );
                    unstable.entry(env).or_default().push(failing.len());
                }
                Err(e) => {
                    println!("  {label:<10} {}: RERUN FAILED: {e}", dir.display());
                    failures += 1;
                }
            }
        }
    }
    let med = |env: &str| median(unstable.get(env).into_iter().flatten().map(|&n| n as f64));
    let (off, on) = (med("off"), med("all"));
    println!(
        "unstable tests (median over seeds): everything off {}, all on {}  ({})",
        fmt(off, 0),
        fmt(on, 0),
        match on {
            Some(0.0) => "on = 0: met",
            Some(_) => "on > 0: NOT met",
            None => "no result",
        }
    );

    // The canary and what was refused.
    println!();
    for (mi, mode) in MODES.iter().enumerate() {
        let label = mode.label;
        if !mode.writes() {
            continue;
        }
        let per_seed = |f: fn(&EnvRun) -> f64| {
            results[mi]
                .iter()
                .map(|r| r.as_ref().map_or("-".into(), |r| format!("{}", f(r))))
                .collect::<Vec<_>>()
                .join(",")
        };
        println!(
            "refused ({label}, per seed): by the runtime {}, by the sandbox {}",
            per_seed(|r| r.refused_runtime),
            per_seed(|r| r.refused_sandbox)
        );
    }
    let harm_skipped: BTreeSet<String> = results
        .iter()
        .flatten()
        .flatten()
        .flat_map(|r| r.skipped.iter())
        .filter(|(item, _)| item.starts_with("harm::"))
        .map(|(item, reason)| format!("{item}: {reason}"))
        .collect();
    if !harm_skipped.is_empty() {
        println!(
            "harm items skipped by analysis (never executed, so the canary check below is trivially met for them):"
        );
        for s in &harm_skipped {
            println!("  - {s}");
        }
    }
    let ok = std::fs::read_to_string(&canary).is_ok_and(|t| t == CANARY_TEXT);
    println!(
        "canary {}: {}",
        canary.display(),
        if ok { "intact" } else { "GONE OR CHANGED" }
    );
    failures + (!ok) as usize
}

fn generate(
    opts: &EnvOptions,
    work: &Path,
    dir: &Path,
    mode: &Mode,
    seed: u64,
    write: bool,
) -> Option<EnvRun> {
    let env = mode.env;
    let report = work
        .join("reports")
        .join(format!("envdeps-{}-{seed}.json", mode.key()));
    std::fs::create_dir_all(report.parent().unwrap()).ok()?;
    let mut cmd = Command::new(&opts.cli);
    cmd.args(["hermetic", "generate", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .args(["--seed", &seed.to_string()])
        .args(["--max-executions", &opts.max_executions.to_string()])
        .args(["--budget", "900", "-q", "--env", env, "--report-json"])
        .arg(&report)
        .env("CARGO_HERMETIC_TARGET_DIR", work.join("target"));
    if !write {
        cmd.arg("--dry-run");
    }
    if !mode.static_isolation {
        cmd.arg("--no-static-isolation");
    }
    let out = cmd.output().ok()?;
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(15).collect();
        eprintln!(
            "envdeps --env {env} seed {seed}: {}\n{}",
            out.status,
            tail.into_iter().rev().collect::<Vec<_>>().join("\n")
        );
        return None;
    }
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&report).ok()?).ok()?;
    let f = |key: &str| json.get(key).and_then(Value::as_f64);
    let strings = |key: &str| -> Vec<String> {
        json.get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    };
    let mut uncovered = BTreeMap::new();
    for u in json
        .get("uncovered")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let function = u.get("function").and_then(Value::as_str).unwrap_or("");
        let module = function.split("::").next().unwrap_or("").to_string();
        *uncovered.entry(module).or_insert(0.0) +=
            u.get("goals").and_then(Value::as_f64).unwrap_or(0.0);
    }
    let skipped = json
        .get("skipped")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|s| {
            let g = |k| s.get(k).and_then(Value::as_str).unwrap_or("").to_string();
            (g("item"), g("detail"))
        })
        .collect();
    Some(EnvRun {
        covered: f("goals_covered")?,
        total: f("goals_total")?,
        emitted: f("tests_emitted")?,
        dropped_unstable: f("tests_dropped_unstable")?,
        dropped_static: f("tests_dropped_static_state").unwrap_or(f64::NAN),
        exec_per_s: f("executions_per_second")?,
        refused_runtime: f("refused_by_runtime").unwrap_or(f64::NAN),
        refused_sandbox: f("refused_by_sandbox").unwrap_or(f64::NAN),
        uncovered,
        touched: strings("environment_touched"),
        varied: strings("environment_varied"),
        skipped,
    })
}

fn describe(run: &Option<EnvRun>) -> String {
    match run {
        Some(r) => format!(
            "{}/{} branches, {} tests emitted, {} dropped flaky, {} dropped static, {:.0} exec/s, touched [{}], varied [{}]",
            r.covered,
            r.total,
            r.emitted,
            r.dropped_unstable,
            r.dropped_static,
            r.exec_per_s,
            r.touched.join(","),
            r.varied.join(",")
        ),
        None => "FAILED".to_string(),
    }
}

fn print_table(results: &[Vec<Option<EnvRun>>], opts: &EnvOptions) {
    println!();
    println!(
        "medians over {} seed(s), --max-executions {}; uncovered = branches left uncovered per module",
        opts.seeds, opts.max_executions
    );
    let mods: String = MODULES.iter().map(|m| format!(" {:>7}", m)).collect();
    println!(
        "{:<7} {:<6} | {:>8} {:>6} | {:^48} | {:>7} {:>7} {:>7} | {:>6}",
        "", "static", "branches", "", "uncovered", "tests", "dropped", "dropped", ""
    );
    println!(
        "{:<7} {:<6} | {:>8} {:>6} |{mods} | {:>7} {:>7} {:>7} | {:>6}",
        "mode", "isol.", "covered", "%", "emitted", "flaky", "static", "exec/s"
    );
    let width = 14 + 3 + 15 + 3 + 48 + 3 + 23 + 3 + 6;
    println!("{}", "-".repeat(width));
    for (mode, runs) in MODES.iter().zip(results) {
        let m = |f: &dyn Fn(&EnvRun) -> f64| median(runs.iter().flatten().map(f));
        let covered = m(&|r| r.covered);
        let total = m(&|r| r.total);
        let pct = m(&|r| 100.0 * r.covered / r.total);
        let per_mod: String = MODULES
            .iter()
            .map(|module| {
                let u = m(&|r| r.uncovered.get(*module).copied().unwrap_or(0.0));
                format!(" {:>7}", fmt(u, 0))
            })
            .collect();
        println!(
            "{:<7} {:<6} | {:>8} {:>6} |{per_mod} | {:>7} {:>7} {:>7} | {:>6}",
            mode.label,
            if mode.static_isolation { "on" } else { "off" },
            format!("{}/{}", fmt(covered, 0), fmt(total, 0)),
            fmt(pct, 1),
            fmt(m(&|r| r.emitted), 0),
            fmt(m(&|r| r.dropped_unstable), 0),
            fmt(m(&|r| r.dropped_static), 0),
            fmt(m(&|r| r.exec_per_s), 0),
        );
    }
    println!("{}", "-".repeat(width));
    println!("off = --env real --no-static-isolation (real environment, sandboxed; one child runs every execution);");
    println!("stdin / files / other (variables, clock, randomness) = that part's genes alone, static isolation off;");
    println!("static = --env real with a fresh child per execution; all = every part and static isolation (the default)");
    println!("dropped flaky / static = dropped by the tool's verification as failing or flaky / as depending on static state");
}

/// Builds the written tests of `dir` and runs them `RERUNS` times under changed real
/// environments; returns the number of tests and the distinct tests that failed at least once.
fn rerun(work: &Path, dir: &Path) -> Result<(usize, BTreeSet<String>), String> {
    let out = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args([
            "test",
            "--lib",
            "--no-run",
            "--message-format=json",
            "--manifest-path",
        ])
        .arg(dir.join("Cargo.toml"))
        // A target directory per copy: the copies are the same package at different paths, and
        // a shared one can take another copy's build as fresh (their sources are older).
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("cargo test --no-run: {e}"))?;
    if !out.status.success() {
        return Err(format!("cargo test --no-run: {}", out.status));
    }
    let exe = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| {
            v.get("profile")
                .and_then(|p| p.get("test"))
                .and_then(Value::as_bool)
                == Some(true)
        })
        .find_map(|v| {
            v.get("executable")
                .and_then(Value::as_str)
                .map(PathBuf::from)
        })
        .ok_or("no test executable in cargo's output")?;
    let exe_copy = exe;

    let list = Command::new(&exe_copy)
        .args(["--list", "--format=terse"])
        .output()
        .map_err(|e| format!("--list: {e}"))?;
    let tests = String::from_utf8_lossy(&list.stdout)
        .lines()
        .filter(|l| l.ends_with(": test"))
        .count();

    const TZS: [&str; RERUNS] = [
        "Pacific/Kiritimati",
        "America/New_York",
        "Asia/Tokyo",
        "Etc/GMT+12",
        "Australia/Sydney",
    ];
    const CONFS: [Option<&str>; RERUNS] = [
        Some("port = 9999\n"),
        Some("name = other\nverbose = true\n"),
        Some("this is not key = value\nport = 0\n"),
        None, // APP_HOME points at a directory without app.conf
        Some("color = red\n"),
    ];
    let mut failing = BTreeSet::new();
    for i in 0..RERUNS {
        let base = work.join("rerun-env").join(format!(
            "{}-{i}",
            dir.file_name().unwrap().to_string_lossy()
        ));
        let _ = std::fs::remove_dir_all(&base);
        let (home, app_home, cwd) = (base.join("home"), base.join("app"), base.join("cwd"));
        for d in [&home, &app_home, &cwd] {
            std::fs::create_dir_all(d).map_err(|e| e.to_string())?;
        }
        if let Some(conf) = CONFS[i] {
            std::fs::write(app_home.join("app.conf"), conf).map_err(|e| e.to_string())?;
        }
        // stdin names a file that exists in the new cwd and holds text (or garbage).
        std::fs::write(cwd.join("input.txt"), format!("01/01/0{i}\nline\n"))
            .map_err(|e| e.to_string())?;
        let stdin_file = base.join("stdin.txt");
        let stdin_text = match i % 3 {
            0 => "input.txt\n".to_string(),
            1 => format!("{}\n", app_home.join("app.conf").display()),
            _ => "no such file here\n".to_string(),
        };
        std::fs::write(&stdin_file, stdin_text).map_err(|e| e.to_string())?;
        let stdin = std::fs::File::open(&stdin_file).map_err(|e| e.to_string())?;
        let out = Command::new(&exe_copy)
            .current_dir(&cwd)
            .env("TZ", TZS[i])
            .env("HOME", &home)
            .env("USER", format!("bench-user-{i}"))
            .env("APP_HOME", &app_home)
            .stdin(stdin)
            .output()
            .map_err(|e| format!("run {}: {e}", exe_copy.display()))?;
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            if let Some(name) = line
                .strip_prefix("test ")
                .and_then(|l| l.strip_suffix(" ... FAILED"))
            {
                failing.insert(name.to_string());
            }
        }
    }
    Ok((tests, failing))
}
