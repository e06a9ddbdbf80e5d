//! What the sandbox costs the search: executions per second on the fixtures with the sandbox
//! as users get it against the same engine with its layers off (Landlock, namespaces, the
//! seccomp filter and its supervisor, the leftover checks; `HERMETIC_BENCH_NO_SANDBOX`, a
//! switch for this benchmark only), the same seed and budget, runs alternating (which one goes
//! first alternates too), so the machine's noise hits both alike.
//!
//! Usage: `sandbox_cost --cli PATH [--repeat R] [--max-executions N] [--jobs J] [--keep]`.
//! Prints a table of medians and the geometric mean of the ratios; exits non-zero when that
//! mean shows the sandbox costing more than 10%.

use hermetic_bench::copy_dir;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The fixtures measured (`tests/fixtures`): small functions, where a fixed cost per execution
/// shows most.
const FIXTURES: &[&str] = &[
    "triangle", "stack", "magic", "climb", "numparse", "abc", "parsing",
];
/// The bar: with the sandbox, at least 90% of the executions per second without.
const BAR: f64 = 0.9;

fn main() {
    let mut cli = None;
    let mut repeat: usize = 3;
    let mut max_executions: u64 = 3000;
    let mut jobs: u32 = 1;
    let mut keep = false;
    let mut args = std::env::args().skip(1);
    let usage =
        "usage: sandbox_cost --cli PATH [--repeat R] [--max-executions N] [--jobs J] [--keep]";
    while let Some(a) = args.next() {
        let mut number = |what: &str| -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{what} needs a number\n{usage}"))
        };
        match a.as_str() {
            "--cli" => cli = args.next().map(PathBuf::from),
            "--repeat" => repeat = number("--repeat") as usize,
            "--max-executions" => max_executions = number("--max-executions"),
            "--jobs" => jobs = number("--jobs") as u32,
            "--keep" => keep = true,
            "--quick" => repeat = 1,
            other => {
                eprintln!("unknown option {other}\n{usage}");
                std::process::exit(2);
            }
        }
    }
    let cli = cli
        .unwrap_or_else(|| PathBuf::from("target/release/cargo-hermetic"))
        .canonicalize()
        .expect("the cargo-hermetic binary (--cli PATH)");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let work = std::env::temp_dir().join(format!("hermetic-sandbox-bench-{}", std::process::id()));
    let target = root.join("target/hermetic-bench-sandbox");

    println!(
        "{:<10} {:>12} {:>12} {:>8}   (exec/s, medians of {repeat} alternating runs, --jobs {jobs}, --max-executions {max_executions})",
        "fixture", "sandbox", "no sandbox", "ratio"
    );
    let mut ratios = Vec::new();
    let mut failed = false;
    for fixture in FIXTURES {
        let krate = work.join(fixture);
        copy_dir(&root.join("tests/fixtures").join(fixture), &krate).expect("copy a fixture");
        let (mut on, mut off) = (Vec::new(), Vec::new());
        for r in 0..repeat {
            // Which one goes first alternates.
            for sandboxed in [r % 2 == 0, r % 2 == 1] {
                let report = work.join(format!("{fixture}-{r}-{sandboxed}.json"));
                let mut cmd = Command::new(&cli);
                cmd.args([
                    "hermetic",
                    "generate",
                    "--dry-run",
                    "--no-verify",
                    "--quiet",
                ])
                .args(["--seed", "1", "--budget", "900"])
                .args(["--max-executions", &max_executions.to_string()])
                .args(["--jobs", &jobs.to_string()])
                .arg("--manifest-path")
                .arg(krate.join("Cargo.toml"))
                .arg("--report-json")
                .arg(&report)
                .env("CARGO_HERMETIC_TARGET_DIR", &target)
                .stdout(Stdio::null())
                .stderr(Stdio::piped());
                if !sandboxed {
                    cmd.env("HERMETIC_BENCH_NO_SANDBOX", "1");
                }
                let out = cmd.output().expect("run cargo-hermetic");
                let rate = std::fs::read_to_string(&report)
                    .ok()
                    .and_then(|t| serde_json::from_str::<Value>(&t).ok())
                    .and_then(|v| v["executions_per_second"].as_f64())
                    .filter(|_| out.status.success());
                let Some(rate) = rate else {
                    eprintln!(
                        "{fixture}: cargo-hermetic failed ({}):\n{}",
                        out.status,
                        String::from_utf8_lossy(&out.stderr)
                    );
                    failed = true;
                    continue;
                };
                if sandboxed { &mut on } else { &mut off }.push(rate);
            }
        }
        let (Some(on), Some(off)) = (median(on), median(off)) else {
            continue;
        };
        let ratio = on / off;
        ratios.push(ratio);
        println!("{fixture:<10} {on:>12.0} {off:>12.0} {ratio:>8.3}");
    }
    let mean = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len().max(1) as f64).exp();
    println!(
        "geometric mean of sandbox / no sandbox: {mean:.3} (the bar: at least {BAR}); \
         ratios below 1: the sandbox is slower"
    );
    if keep {
        eprintln!("kept {}", work.display());
    } else {
        let _ = std::fs::remove_dir_all(&work);
    }
    if failed || ratios.is_empty() || mean < BAR {
        std::process::exit(1);
    }
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}
