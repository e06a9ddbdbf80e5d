//! Record-mode yield: how many traced calls become passing tests, on every record fixture
//! (`tests/fixtures/{inventory,crashy,people,tally,versions,checksum,ranges}`), each run as a user would run
//! it, with verification on (the tests are compiled and run three times).
//!
//! Usage: `record_yield --cli PATH [--keep] [--real] [--only NAME,..]` (`--only`: the runs whose
//! fixture, or the real crates whose name, is among those listed). Prints a table and exits non-zero when
//! fewer than 95% of all traced calls are shown by passing tests (the bar). `--real`
//! prints a second table instead: real crates from crates.io, each recording its own test
//! suite (`record --test`), copied from cargo's registry cache (fetched through cargo when not
//! there); it has no bar (it measures), and fails only when a run fails.

use hermetic_bench::{copy_dir, make_writable, registry_source};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The bar: the share of traced calls shown by passing tests.
const BAR: f64 = 95.0;

/// One recorded run: which fixture, what it runs in, and with what.
struct Run {
    name: &'static str,
    fixture: &'static str,
    /// Files written into the working directory before the run (path, contents).
    files: &'static [(&'static str, &'static str)],
    vars: &'static [(&'static str, &'static str)],
    options: &'static [&'static str],
    args: &'static [&'static str],
    stdin: Option<&'static str>,
}

/// Real crates whose test suites `--real` records (name, version): small, without
/// dependencies, with tests in their published package.
const REAL: &[(&str, &str)] = &[
    ("strsim", "0.11.1"),
    ("semver", "1.0.28"),
    ("heck", "0.5.0"),
    ("either", "1.15.0"),
    ("itoa", "1.0.18"),
    ("oorandom", "11.1.5"),
    ("number_prefix", "0.4.0"),
    ("fastrand", "2.5.0"),
    ("crc32fast", "1.5.4"),
];

/// Skip reasons shown per row of the real crates' table.
const TOP_REASONS: usize = 3;

const RUNS: &[Run] = &[
    Run {
        name: "inventory, the program",
        fixture: "inventory",
        files: &[("stock.csv", "name,qty\nbolts,3\nnuts,12\nwashers,0\n")],
        vars: &[
            ("INVENTORY_THRESHOLD", "4"),
            ("INVENTORY_OUT", "report.txt"),
        ],
        options: &[],
        args: &["stock.csv"],
        stdin: None,
    },
    Run {
        name: "inventory, --test",
        fixture: "inventory",
        files: &[],
        vars: &[],
        options: &["--test"],
        args: &[],
        stdin: None,
    },
    Run {
        name: "crashy, panics",
        fixture: "crashy",
        files: &[],
        vars: &[],
        options: &[],
        args: &[],
        stdin: None,
    },
    Run {
        name: "crashy, aborts",
        fixture: "crashy",
        files: &[],
        vars: &[],
        options: &[],
        args: &["abort"],
        stdin: None,
    },
    Run {
        name: "people (mocks)",
        fixture: "people",
        files: &[
            (
                "data/people.csv",
                "name,occupation\nada,engineer\ngrace,engineer\nalan,mathematician\n",
            ),
            ("data/notes/ada", "counts on engines"),
            ("data/notes/visits-ada", "2"),
        ],
        vars: &[],
        options: &[],
        args: &["data", "ada", "zed"],
        stdin: None,
    },
    Run {
        name: "versions (Display)",
        fixture: "versions",
        files: &[],
        vars: &[],
        options: &[],
        args: &["0.9.1", "1.2.3", "0.9.1", "0.1.0", "x.1.2", "1.2"],
        stdin: None,
    },
    Run {
        name: "checksum (literals)",
        fixture: "checksum",
        files: &[],
        vars: &[],
        options: &[],
        args: &["seed=7,salt=3/4,plain", "abcd", "ef", "12345678"],
        stdin: None,
    },
    Run {
        name: "ranges, --test",
        fixture: "ranges",
        files: &[],
        vars: &[],
        options: &["--test"],
        args: &["--test-threads=1"],
        stdin: None,
    },
    Run {
        name: "tally (stdin, random)",
        fixture: "tally",
        files: &[("home/.tallyrc", "title = Depot 7\n")],
        vars: &[],
        options: &[],
        args: &[],
        stdin: Some(
            "add bolts 3\nadd nuts 12\nroll 6\nticket\nlucky\nadd bolts 2\nreport\nlucky\nfly away\n",
        ),
    },
];

fn main() {
    let mut cli = None;
    let mut keep = false;
    let mut real = false;
    let mut only: Option<Vec<String>> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cli" => cli = args.next().map(PathBuf::from),
            "--keep" => keep = true,
            "--real" => real = true,
            "--only" => {
                only = args
                    .next()
                    .map(|s| s.split(',').map(str::to_string).collect())
            }
            "--quick" => {}
            other => {
                eprintln!(
                    "unknown option {other}\nusage: record_yield --cli PATH [--keep] [--real] [--only NAME,..]"
                );
                std::process::exit(2);
            }
        }
    }
    let cli = cli
        .unwrap_or_else(|| PathBuf::from("target/release/cargo-hermetic"))
        .canonicalize()
        .expect("the cargo-hermetic binary (--cli PATH)");
    let selected = |name: &str| only.as_ref().is_none_or(|o| o.iter().any(|n| n == name));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let work = std::env::temp_dir().join(format!("hermetic-record-yield-{}", std::process::id()));
    let target = root.join("target/hermetic-bench-record");
    if real {
        let ok = real_crates(&cli, &work, &target, &selected);
        finish(keep, &work);
        std::process::exit(if ok { 0 } else { 1 });
    }

    println!(
        "{:<24} {:>7} {:>7} {:>6} {:>6}  calls without a passing test",
        "run", "traced", "tested", "%", "tests"
    );
    let (mut traced, mut tested) = (0u64, 0u64);
    let mut failed = false;
    for (i, run) in RUNS.iter().enumerate() {
        if !selected(run.fixture) {
            continue;
        }
        let dir = work.join(format!("{i}"));
        let krate = dir.join(run.fixture);
        copy_dir(&root.join("tests/fixtures").join(run.fixture), &krate).expect("copy the fixture");
        let cwd = dir.join("cwd");
        for (path, contents) in run.files {
            let path = cwd.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).expect("make the run's directories");
            std::fs::write(&path, contents).expect("write the run's files");
        }
        std::fs::create_dir_all(&cwd).expect("make the working directory");
        let report = dir.join("report.json");
        let mut cmd = Command::new(&cli);
        cmd.args(["hermetic", "record", "--manifest-path"])
            .arg(krate.join("Cargo.toml"))
            .args(["--quiet", "--dry-run", "--report-json"])
            .arg(&report)
            .args(run.options)
            .arg("--")
            .args(run.args)
            .current_dir(&cwd)
            .env("CARGO_HERMETIC_TARGET_DIR", &target)
            .envs(run.vars.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        if run.fixture == "tally" {
            cmd.env("HOME", cwd.join("home"));
            for (var, dir) in [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")] {
                let home = std::env::var("HOME").unwrap_or_default();
                cmd.env(
                    var,
                    std::env::var(var).unwrap_or_else(|_| format!("{home}/{dir}")),
                );
            }
        }
        cmd.stdin(if run.stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        let mut child = cmd.spawn().expect("start cargo-hermetic");
        if let (Some(input), Some(mut pipe)) = (run.stdin, child.stdin.take()) {
            use std::io::Write;
            pipe.write_all(input.as_bytes())
                .expect("write the run's stdin");
        }
        let out = child.wait_with_output().expect("wait for cargo-hermetic");
        let parsed: Option<Value> = std::fs::read(&report)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let Some(r) = parsed.filter(|_| out.status.success()) else {
            println!(
                "{:<24} FAILED: {}",
                run.name,
                String::from_utf8_lossy(&out.stderr)
            );
            failed = true;
            continue;
        };
        let count = |k: &str| r[k].as_u64().unwrap_or(0);
        let why: Vec<String> = r["calls_skipped"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|s| {
                format!(
                    "{} x {}: {}",
                    s["calls"],
                    s["function"].as_str().unwrap_or("?"),
                    s["reason"].as_str().unwrap_or("?")
                )
            })
            .collect();
        traced += count("calls_traced");
        tested += count("calls_tested");
        println!(
            "{:<24} {:>7} {:>7} {:>6.1} {:>6}  {}",
            run.name,
            count("calls_traced"),
            count("calls_tested"),
            percent(count("calls_tested"), count("calls_traced")),
            count("tests_emitted"),
            why.join("; ")
        );
    }
    let total = percent(tested, traced);
    println!(
        "{:<24} {:>7} {:>7} {:>6.1}  (bar: {BAR}%)",
        "all runs", traced, tested, total
    );
    finish(keep, &work);
    if failed || total < BAR {
        std::process::exit(1);
    }
}

fn finish(keep: bool, work: &Path) {
    if keep {
        println!("work directory kept: {}", work.display());
    } else {
        let _ = std::fs::remove_dir_all(work);
    }
}

/// The real crates' table: each crate's own test suite recorded (`record --test`, one test
/// thread, so that each function's first 64 calls are the same from run to run). Returns
/// whether every run went through.
fn real_crates(cli: &Path, work: &Path, target: &Path, selected: &dyn Fn(&str) -> bool) -> bool {
    println!(
        "{:<22} {:>7} {:>7} {:>6} {:>6}  top reasons calls have no passing test",
        "crate (record --test)", "traced", "tested", "%", "tests"
    );
    let (mut traced, mut tested) = (0u64, 0u64);
    let mut ok = true;
    for (name, version) in REAL.iter().filter(|(name, _)| selected(name)) {
        let label = format!("{name} {version}");
        let Some(src) = registry_source(name, version, work) else {
            println!("{label:<22} FAILED: not in cargo's registry cache, and `cargo fetch` did not bring it");
            ok = false;
            continue;
        };
        let krate = work.join("real").join(format!("{name}-{version}"));
        copy_dir(&src, &krate).expect("copy the crate");
        make_writable(&krate);
        let report = work.join(format!("{name}.json"));
        let out = Command::new(cli)
            .args(["hermetic", "record", "--test", "--manifest-path"])
            .arg(krate.join("Cargo.toml"))
            .args(["--quiet", "--dry-run", "--report-json"])
            .arg(&report)
            .args(["--", "--test-threads=1"])
            .current_dir(&krate)
            .env("CARGO_HERMETIC_TARGET_DIR", target)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("start cargo-hermetic");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let parsed: Option<Value> = std::fs::read(&report)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok());
        let Some(r) = parsed.filter(|_| out.status.success()) else {
            // A crate none of whose functions can be probed is a finding, not a failure.
            if stderr.contains("no function of the selection can be recorded") {
                let why = stderr.lines().nth(1).unwrap_or_default().trim();
                println!("{label:<22} no function can be recorded ({why})");
            } else {
                println!("{label:<22} FAILED: {stderr}");
                ok = false;
            }
            continue;
        };
        let count = |k: &str| r[k].as_u64().unwrap_or(0);
        traced += count("calls_traced");
        tested += count("calls_tested");
        println!(
            "{label:<22} {:>7} {:>7} {:>6.1} {:>6}  {}",
            count("calls_traced"),
            count("calls_tested"),
            percent(count("calls_tested"), count("calls_traced")),
            count("tests_emitted"),
            top_reasons(&r).join("; ")
        );
    }
    println!(
        "{:<22} {:>7} {:>7} {:>6.1}",
        "all crates",
        traced,
        tested,
        percent(tested, traced)
    );
    ok
}

/// The most common reasons in a report's `calls_skipped`, with their counts over all
/// functions.
fn top_reasons(report: &Value) -> Vec<String> {
    let mut by_reason: std::collections::BTreeMap<String, u64> = Default::default();
    for s in report["calls_skipped"].as_array().into_iter().flatten() {
        let reason = s["reason"].as_str().unwrap_or("?").to_string();
        *by_reason.entry(reason).or_default() += s["calls"].as_u64().unwrap_or(0);
    }
    let mut all: Vec<(String, u64)> = by_reason.into_iter().collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    all.into_iter()
        .take(TOP_REASONS)
        .map(|(reason, n)| format!("{n} x {reason}"))
        .collect()
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}
