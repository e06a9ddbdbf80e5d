//! What the sandbox costs the search: executions per second on the fixtures with the sandbox
//! as users get it against the same engine with its layers off (Landlock, namespaces, the
//! seccomp filter and its supervisor, the leftover checks; `HERMETIC_BENCH_NO_SANDBOX`, a
//! switch for this benchmark only) and, with `--baseline PATH`, against another build of
//! `cargo-hermetic` (e.g. the engine before a change), the same seed and budget, runs
//! alternating (which one goes first rotates too), so the machine's noise hits all alike.
//!
//! Usage: `sandbox_cost --cli PATH [--baseline PATH] [--repeat R] [--max-executions N]
//! [--jobs J] [--fixtures a,b,..] [--timeout S] [--keep]`.
//! Prints one line per run as it ends (stderr, with the CPU time the run used: under load the
//! rate swings, the CPU time per execution much less), one line per fixture once its runs are done,
//! then the geometric means of the ratios; exits non-zero when a run failed or the sandbox
//! costs more than 10% against either comparison.

use hermetic_bench::copy_dir;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The fixtures measured (`tests/fixtures`): small functions, where a fixed cost per execution
/// shows most.
const FIXTURES: &[&str] = &[
    "triangle", "stack", "magic", "climb", "numparse", "abc", "parsing",
];
/// The bar: with the sandbox, at least 90% of the executions per second without.
const BAR: f64 = 0.9;

/// One way of running the search.
struct Config {
    name: &'static str,
    cli: PathBuf,
    sandbox: bool,
    /// Shadow builds of different engines differ (driver, runtime): one target dir each.
    target: PathBuf,
}

/// One run's figures, from its JSON report.
struct Run {
    rate: f64,
    executions: u64,
    /// CPU time (user + system) of the run and every process it waited for, in seconds:
    /// unlike the rate, hardly moved by other work on the machine.
    cpu_s: f64,
}

fn main() {
    let mut cli = None;
    let mut baseline = None;
    let mut repeat: usize = 3;
    let mut max_executions: u64 = 2000;
    let mut jobs: u32 = 1;
    let mut timeout: u64 = 300;
    let mut fixtures: Vec<String> = FIXTURES.iter().map(|f| f.to_string()).collect();
    let mut keep = false;
    let mut args = std::env::args().skip(1);
    let usage = "usage: sandbox_cost --cli PATH [--baseline PATH] [--repeat R] \
                 [--max-executions N] [--jobs J] [--fixtures a,b,..] [--timeout S] [--keep]";
    while let Some(a) = args.next() {
        let mut number = |what: &str| -> u64 {
            args.next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("{what} needs a number\n{usage}"))
        };
        match a.as_str() {
            "--cli" => cli = args.next().map(PathBuf::from),
            "--baseline" => baseline = args.next().map(PathBuf::from),
            "--repeat" => repeat = number("--repeat") as usize,
            "--max-executions" => max_executions = number("--max-executions"),
            "--jobs" => jobs = number("--jobs") as u32,
            "--timeout" => timeout = number("--timeout"),
            "--fixtures" => {
                fixtures = args
                    .next()
                    .unwrap_or_default()
                    .split(',')
                    .filter(|f| !f.is_empty())
                    .map(String::from)
                    .collect()
            }
            "--keep" => keep = true,
            "--quick" => repeat = 1,
            other => {
                eprintln!("unknown option {other}\n{usage}");
                std::process::exit(2);
            }
        }
    }
    let binary = |p: PathBuf| {
        p.canonicalize()
            .unwrap_or_else(|e| panic!("{}: {e}\n{usage}", p.display()))
    };
    let cli = binary(cli.unwrap_or_else(|| PathBuf::from("target/release/cargo-hermetic")));
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let work = std::env::temp_dir().join(format!("hermetic-sandbox-bench-{}", std::process::id()));
    let target = root.join("target/hermetic-bench-sandbox");
    let mut configs = vec![
        Config {
            name: "sandbox",
            cli: cli.clone(),
            sandbox: true,
            target: target.clone(),
        },
        Config {
            name: "no sandbox",
            cli,
            sandbox: false,
            target: target.clone(),
        },
    ];
    if let Some(b) = baseline {
        configs.push(Config {
            name: "baseline",
            cli: binary(b),
            sandbox: true,
            target: root.join("target/hermetic-bench-sandbox-baseline"),
        });
    }

    let mut header = format!("{:<10} {:>7}", "fixture", "execs");
    for c in &configs {
        header += &format!(" {:>11}", c.name);
    }
    header += &format!(" {:>9}", "sb/nosb");
    if configs.len() > 2 {
        header += &format!(" {:>9}", "sb/base");
    }
    println!(
        "{header}   (exec/s of the search phase, medians of {repeat} alternating runs, \
         --jobs {jobs}, --max-executions {max_executions}, seed 1)"
    );
    let mut ratios: Vec<Vec<f64>> = vec![Vec::new(); configs.len() - 1];
    let mut failed = false;
    for fixture in &fixtures {
        let krate = work.join(fixture);
        copy_dir(&root.join("tests/fixtures").join(fixture), &krate).expect("copy a fixture");
        let mut runs: Vec<Vec<Run>> = configs.iter().map(|_| Vec::new()).collect();
        for r in 0..repeat {
            // Which one goes first rotates.
            for k in 0..configs.len() {
                let i = (k + r) % configs.len();
                let c = &configs[i];
                let started = Instant::now();
                match run(c, &krate, &work, fixture, r, max_executions, jobs, timeout) {
                    Ok(got) => {
                        eprintln!(
                            "  {fixture} {} #{r}: {} executions, {:.0} exec/s, {:.2} CPU s \
                             ({:.0} s in all)",
                            c.name,
                            got.executions,
                            got.rate,
                            got.cpu_s,
                            started.elapsed().as_secs_f64()
                        );
                        runs[i].push(got);
                    }
                    Err(why) => {
                        eprintln!("  {fixture} {} #{r}: {why}", c.name);
                        failed = true;
                    }
                }
            }
        }
        let medians: Vec<Option<f64>> = runs
            .iter()
            .map(|rs| median(rs.iter().map(|r| r.rate).collect()))
            .collect();
        let executions = median(runs[0].iter().map(|r| r.executions as f64).collect());
        // CPU per execution (the build is cached after the first run: the first is left out
        // when there are more).
        let cpu: Vec<Option<f64>> = runs
            .iter()
            .map(|rs| {
                let skip = usize::from(rs.len() > 1);
                median(
                    rs.iter()
                        .skip(skip)
                        .map(|r| 1e3 * r.cpu_s / r.executions.max(1) as f64)
                        .collect(),
                )
            })
            .collect();
        eprintln!(
            "  {fixture}: CPU ms per execution (whole run, median): {}",
            configs
                .iter()
                .zip(&cpu)
                .map(|(c, m)| format!("{} {}", c.name, m.map_or("-".into(), |m| format!("{m:.3}"))))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let mut line = format!("{fixture:<10} {:>7.0}", executions.unwrap_or(0.0));
        for m in &medians {
            line += &m.map_or(format!(" {:>11}", "-"), |m| format!(" {m:>11.0}"));
        }
        for (k, other) in medians.iter().enumerate().skip(1) {
            match (medians[0], other) {
                (Some(on), Some(other)) => {
                    ratios[k - 1].push(on / other);
                    line += &format!(" {:>9.3}", on / other);
                }
                _ => line += &format!(" {:>9}", "-"),
            }
        }
        println!("{line}");
    }
    let mut below = false;
    for (k, rs) in ratios.iter().enumerate() {
        let mean = geometric_mean(rs);
        below |= rs.is_empty() || mean < BAR;
        println!(
            "geometric mean of sandbox / {}: {mean:.3} over {} fixture(s) (the bar: at least \
             {BAR}; below 1: the sandbox is slower)",
            configs[k + 1].name,
            rs.len()
        );
    }
    if keep {
        eprintln!("kept {}", work.display());
    } else {
        let _ = std::fs::remove_dir_all(&work);
    }
    if failed || below {
        std::process::exit(1);
    }
}

/// One `generate --dry-run --no-verify` of `krate` under `c`, killed (its process group) after
/// `timeout` seconds.
#[allow(clippy::too_many_arguments)]
fn run(
    c: &Config,
    krate: &Path,
    work: &Path,
    fixture: &str,
    r: usize,
    max_executions: u64,
    jobs: u32,
    timeout: u64,
) -> Result<Run, String> {
    let tag = format!("{fixture}-{r}-{}", c.name.replace(' ', "-"));
    let report = work.join(format!("{tag}.json"));
    let log = work.join(format!("{tag}.stderr"));
    let mut cmd = Command::new(&c.cli);
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
    .env("CARGO_HERMETIC_TARGET_DIR", &c.target)
    .stdout(Stdio::null())
    .stderr(std::fs::File::create(&log).map_err(|e| e.to_string())?);
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    if c.sandbox {
        cmd.env_remove(hermetic_protocol_env());
    } else {
        cmd.env(hermetic_protocol_env(), "1");
    }
    let cpu_before = children_cpu_s();
    let mut child = cmd.spawn().map_err(|e| e.to_string())?;
    let deadline = Instant::now() + Duration::from_secs(timeout);
    let status = loop {
        if let Some(s) = child.try_wait().map_err(|e| e.to_string())? {
            break s;
        }
        if Instant::now() > deadline {
            let _ = Command::new("kill")
                .args(["-KILL", "--", &format!("-{}", child.id())])
                .status();
            let _ = child.wait();
            return Err(format!("no result within {timeout} s (killed)"));
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let cpu_s = children_cpu_s() - cpu_before;
    let stderr = || std::fs::read_to_string(&log).unwrap_or_default();
    if !status.success() {
        return Err(format!("cargo-hermetic failed ({status}):\n{}", stderr()));
    }
    let v = std::fs::read_to_string(&report)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(&t).ok())
        .ok_or_else(|| format!("no readable report:\n{}", stderr()))?;
    Ok(Run {
        rate: v["executions_per_second"].as_f64().unwrap_or(0.0),
        executions: v["executions"].as_u64().unwrap_or(0),
        cpu_s,
    })
}

/// The CPU time of this process's waited-for children (`cutime` + `cstime` of
/// `/proc/self/stat`, at 100 ticks a second), in seconds.
fn children_cpu_s() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command's closing parenthesis, from the third (state) on.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<f64>().ok())
            .unwrap_or(0.0)
    };
    // cutime and cstime are fields 16 and 17 (1-based), the 14th and 15th after the ')'.
    (tick(13) + tick(14)) / 100.0
}

/// The switch that turns the sandbox off (`hermetic_protocol::BENCH_NO_SANDBOX_ENV`; this crate
/// does not depend on the protocol crate).
fn hermetic_protocol_env() -> &'static str {
    "HERMETIC_BENCH_NO_SANDBOX"
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    Some(v[v.len() / 2])
}

fn geometric_mean(v: &[f64]) -> f64 {
    (v.iter().map(|r| r.ln()).sum::<f64>() / v.len().max(1) as f64).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn medians_and_means() {
        assert_eq!(median(vec![]), None);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert!((geometric_mean(&[0.5, 2.0]) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn children_cpu_time_grows_with_a_waited_child() {
        let before = children_cpu_s();
        // A child that burns about 0.3 s of CPU.
        let status = Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"])
            .status()
            .unwrap();
        assert!(status.success());
        assert!(children_cpu_s() > before, "{before}");
    }
}
