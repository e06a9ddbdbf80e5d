//! Record-mode yield: how many traced calls become passing tests, on every record fixture
//! (`tests/fixtures/{inventory,crashy,people,tally}`), each run as a user would run it, with
//! verification on (the tests are compiled and run three times).
//!
//! Usage: `record_yield --cli PATH [--keep]`. Prints a table and exits non-zero when fewer than
//! 95% of all traced calls are shown by passing tests (the bar).

use hermetic_bench::copy_dir;
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
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cli" => cli = args.next().map(PathBuf::from),
            "--keep" => keep = true,
            "--quick" => {}
            other => {
                eprintln!("unknown option {other}\nusage: record_yield --cli PATH [--keep]");
                std::process::exit(2);
            }
        }
    }
    let cli = cli
        .unwrap_or_else(|| PathBuf::from("target/release/cargo-hermetic"))
        .canonicalize()
        .expect("the cargo-hermetic binary (--cli PATH)");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let work = std::env::temp_dir().join(format!("hermetic-record-yield-{}", std::process::id()));
    let target = root.join("target/hermetic-bench-record");

    println!(
        "{:<24} {:>7} {:>7} {:>6} {:>6}  calls without a passing test",
        "run", "traced", "tested", "%", "tests"
    );
    let (mut traced, mut tested) = (0u64, 0u64);
    let mut failed = false;
    for (i, run) in RUNS.iter().enumerate() {
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
    if keep {
        println!("work directory kept: {}", work.display());
    } else {
        let _ = std::fs::remove_dir_all(&work);
    }
    if failed || total < BAR {
        std::process::exit(1);
    }
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        100.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}
