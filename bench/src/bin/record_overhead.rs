//! Record-mode overhead: the probed run of a program making ~10^6 probed calls against the
//! unprobed run, side by side (`cargo hermetic record --measure-slowdown`, runs alternating).
//!
//! Usage: `record_overhead --cli PATH [--calls N] [--repeat R] [--keep]`. Prints a table and
//! exits non-zero when the realistic workload (`parse`) is more than 3x slower probed.

use hermetic_bench::copy_dir;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The bar for the probed/unprobed ratio.
const BAR: f64 = 3.0;

fn main() {
    let mut cli = None;
    let mut calls: u64 = 1_000_000;
    let mut repeat: usize = 5;
    let mut keep = false;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cli" => cli = args.next().map(PathBuf::from),
            "--calls" => calls = args.next().and_then(|v| v.parse().ok()).expect("--calls N"),
            "--repeat" => {
                repeat = args
                    .next()
                    .and_then(|v| v.parse().ok())
                    .expect("--repeat R")
            }
            "--keep" => keep = true,
            "--quick" => repeat = 3,
            other => {
                eprintln!("unknown option {other}\nusage: record_overhead --cli PATH [--calls N] [--repeat R] [--keep]");
                std::process::exit(2);
            }
        }
    }
    let cli = cli
        .unwrap_or_else(|| PathBuf::from("target/release/cargo-hermetic"))
        .canonicalize()
        .expect("the cargo-hermetic binary (--cli PATH)");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let work = std::env::temp_dir().join(format!("hermetic-record-bench-{}", std::process::id()));
    let krate = work.join("hotloop");
    copy_dir(&root.join("fixtures/hotloop"), &krate).expect("copy the hotloop fixture");
    let target = root.join("../target/hermetic-bench-record");

    println!(
        "{:<8} {:>12} {:>10} {:>12} {:>10} {:>8} {:>16}",
        "workload", "probed calls", "traced", "unprobed s", "probed s", "ratio", "ns/probed call"
    );
    let mut failed = false;
    for mode in ["parse", "mix"] {
        let report = work.join(format!("report-{mode}.json"));
        let status = Command::new(&cli)
            .args([
                "hermetic",
                "record",
                "--release",
                "--measure-slowdown",
                "--no-verify",
            ])
            .args(["--dry-run", "--quiet", "--repeat", &repeat.to_string()])
            .arg("--manifest-path")
            .arg(krate.join("Cargo.toml"))
            .arg("--report-json")
            .arg(&report)
            .args(["--", mode, &calls.to_string()])
            .env("CARGO_HERMETIC_TARGET_DIR", &target)
            .current_dir(&work)
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .expect("run cargo-hermetic");
        let (status, stderr) = (status.status, String::from_utf8_lossy(&status.stderr));
        let r: Option<Value> = std::fs::read_to_string(&report)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok());
        let (Some(r), true) = (r, status.success()) else {
            eprintln!("{mode}: cargo-hermetic failed ({status}):\n{stderr}");
            failed = true;
            continue;
        };
        let plain = r["unprobed_run_s"].as_f64().unwrap_or(f64::NAN);
        let probed = r["probed_run_s"].as_f64().unwrap_or(f64::NAN);
        let seen = r["calls_seen"].as_u64().unwrap_or(0);
        let ratio = probed / plain;
        println!(
            "{:<8} {:>12} {:>10} {:>12.3} {:>10.3} {:>7.2}x {:>16.1}",
            mode,
            seen,
            r["calls_traced"].as_u64().unwrap_or(0),
            plain,
            probed,
            ratio,
            (probed - plain) * 1e9 / seen.max(1) as f64
        );
        if mode == "parse" && (ratio.is_nan() || ratio > BAR) {
            failed = true;
        }
    }
    println!(
        "(medians of {repeat} alternating runs of each; `parse`: one probed call per formatted \
         line, the bar is {BAR}x; `mix`: a few arithmetic instructions per call, the worst case)"
    );
    if keep {
        eprintln!("kept {}", work.display());
    } else {
        let _ = std::fs::remove_dir_all(&work);
    }
    if failed {
        std::process::exit(1);
    }
}
