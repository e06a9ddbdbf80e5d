//! Generation benchmark: runs `cargo hermetic generate` on copies of the fixture crates with the
//! archive search and with plain random generation, interleaved run by run under the same seeds
//! and execution budget, and prints the two side by side in one table; then the environment
//! benchmark (`envtable`: seed 001's Table 2 on `tests/fixtures/envdeps`).
//!
//! Usage: `hermetic-bench [--quick] [--cli PATH] [--seeds N] [--max-executions N]
//! [--env-max-executions N] [--only generation|environment] [--fixtures NAME,..] [--keep]`
//! (`--fixtures parsing,triangle`: only the generation rows whose name starts so)
//! (normally through `bench/run`, which builds the CLI first).

use hermetic_bench::copy_dir;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

mod envtable;

/// The fixtures, relative to the workspace root, each with the module a run selects (`None`:
/// the whole crate). `parsing`'s modules are the ones written from real parsing code (issue 14),
/// run one by one so that each has its own row.
const FIXTURES: &[(&str, Option<&str>)] = &[
    ("tests/fixtures/triangle", None),
    ("tests/fixtures/stack", None),
    ("tests/fixtures/magic", None),
    ("tests/fixtures/climb", None),
    ("tests/fixtures/numparse", None),
    ("tests/fixtures/abc", None),
    ("tests/fixtures/misbehave", None),
    ("tests/fixtures/generics", None),
    ("tests/fixtures/parsing", Some("config")),
    ("tests/fixtures/parsing", Some("tokenize")),
    ("tests/fixtures/parsing", Some("date")),
    ("tests/fixtures/parsing", Some("session")),
    ("tests/fixtures/parsing", Some("frame")),
    ("examples/shapes", None),
];

/// The bar for executions per second on the fixtures' small functions.
const BAR_EXEC_PER_S: f64 = 1000.0;

/// Executions of each `--jobs` run (fewer if --max-executions is lower).
const JOBS_EXECUTIONS: u64 = 5_000;

struct Options {
    cli: PathBuf,
    seeds: u64,
    max_executions: u64,
    keep: bool,
    /// Run the generation benchmark (archive vs random).
    generation: bool,
    /// Run the environment benchmark (seed 001's Table 2) and its execution budget.
    environment: bool,
    env_max_executions: u64,
    /// Rows whose name starts with one of these (`parsing`, `triangle`); all when empty.
    fixtures: Vec<String>,
}

/// The figures of one run, read from its JSON report (`None` when the run failed).
#[derive(Clone)]
struct Run {
    goals_total: f64,
    goals_covered: f64,
    checks_covered: f64,
    executions: f64,
    exec_per_s: f64,
    exec_to_final: f64,
    time_to_final: f64,
    /// `(executions, branches covered)` each time the search covered more branches.
    gains: Vec<(f64, f64)>,
}

fn main() {
    let opts = parse_args();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf();
    let work = std::env::temp_dir().join(format!("hermetic-bench-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("create the work directory");
    let ctx = Ctx {
        cli: opts.cli.clone(),
        work: work.clone(),
        max_executions: opts.max_executions,
    };
    let mut failures = 0;
    if opts.generation {
        failures += generation(&root, &ctx, &opts);
    }
    if opts.environment {
        if opts.generation {
            println!();
        }
        println!("== environment benchmark ==");
        let env_opts = envtable::EnvOptions {
            cli: opts.cli.clone(),
            seeds: opts.seeds,
            max_executions: opts.env_max_executions,
        };
        failures += envtable::run(&root, &work, &env_opts);
    }

    if !opts.keep {
        let _ = std::fs::remove_dir_all(&work);
    }
    if failures > 0 {
        eprintln!("{failures} run(s) failed");
        std::process::exit(1);
    }
}

/// The generation benchmark: archive search against random; returns the number of failed runs.
fn generation(root: &Path, ctx: &Ctx, opts: &Options) -> usize {
    let work = &ctx.work;
    let seeds: Vec<u64> = (1..=opts.seeds).collect();
    // `--fixtures` matches a row's name: `parsing/config/`, `triangle/`.
    let chosen = |f: &str, module: Option<&str>| {
        let name = format!(
            "{}/{}",
            Path::new(f).file_name().unwrap().to_string_lossy(),
            module.unwrap_or("")
        );
        opts.fixtures.is_empty() || opts.fixtures.iter().any(|p| name.starts_with(p.as_str()))
    };

    println!(
        "generation benchmark: {} fixtures x {} seed(s) x 2 strategies, --max-executions {}, work dir {}",
        FIXTURES.iter().filter(|&&(f, m)| chosen(f, m)).count(),
        seeds.len(),
        opts.max_executions,
        work.display()
    );
    // One copy per crate directory; a fixture row may select one of its modules.
    let crates: Vec<(String, PathBuf, Option<&str>)> = FIXTURES
        .iter()
        .filter(|&&(f, module)| chosen(f, module))
        .map(|&(f, module)| {
            let dir_name = Path::new(f).file_name().unwrap().to_string_lossy();
            let dest = work.join("crates").join(dir_name.as_ref());
            if !dest.exists() {
                copy_dir(&root.join(f), &dest).unwrap_or_else(|e| panic!("copy {f}: {e}"));
            }
            let name = match module {
                Some(m) => format!("{dir_name}/{m}"),
                None => dir_name.into_owned(),
            };
            (name, dest, module)
        })
        .collect();

    // results[fixture][strategy] = one entry per seed; strategy 0 = archive, 1 = random.
    let mut results = vec![[Vec::new(), Vec::new()]; crates.len()];
    let mut failures = 0;
    for (si, &seed) in seeds.iter().enumerate() {
        for (fi, (name, dir, module)) in crates.iter().enumerate() {
            // Alternate which strategy goes first, so neither is always the one run after a build.
            let order = if (si + fi) % 2 == 0 { [0, 1] } else { [1, 0] };
            for s in order {
                let strategy = ["archive", "random"][s];
                let mut extra = vec!["--strategy", strategy];
                if let Some(m) = module {
                    extra.extend(["--module", m]);
                }
                let run = ctx.run(
                    dir,
                    &format!("{}-{strategy}-{seed}", name.replace('/', "-")),
                    seed,
                    &extra,
                );
                eprintln!("  {name:<10} {strategy:<7} seed {seed}: {}", describe(&run));
                failures += run.is_none() as usize;
                results[fi][s].push(run);
            }
        }
    }

    // Executions per second on small functions: triangle with one and with two jobs.
    // A rate needs no long run: at most JOBS_EXECUTIONS executions each.
    // (Left out when `--fixtures` leaves triangle out.)
    let Some((triangle_name, triangle, _)) = crates.iter().find(|(name, ..)| name == "triangle")
    else {
        print_table(&crates, &results, opts);
        return failures;
    };
    let jobs_ctx = Ctx {
        cli: ctx.cli.clone(),
        work: ctx.work.clone(),
        max_executions: opts.max_executions.min(JOBS_EXECUTIONS),
    };
    let mut jobs: [Vec<Option<Run>>; 2] = [Vec::new(), Vec::new()];
    for (si, &seed) in seeds.iter().enumerate() {
        let order = if si % 2 == 0 { [0, 1] } else { [1, 0] };
        for j in order {
            let n = (j + 1).to_string();
            let run = jobs_ctx.run(
                triangle,
                &format!("{triangle_name}-jobs{n}-{seed}"),
                seed,
                &["--jobs", &n],
            );
            eprintln!(
                "  {triangle_name:<10} --jobs {n} seed {seed}: {}",
                describe(&run)
            );
            failures += run.is_none() as usize;
            jobs[j].push(run);
        }
    }

    print_table(&crates, &results, opts);
    let jobs_eps: Vec<Option<f64>> = jobs
        .iter()
        .map(|runs| median(runs.iter().flatten().map(|r| r.exec_per_s)))
        .collect();
    println!();
    println!(
        "exec/s on small functions (triangle, archive, {} executions, median of {} seed(s)):",
        jobs_ctx.max_executions,
        seeds.len()
    );
    for (j, eps) in jobs_eps.iter().enumerate() {
        let verdict = match eps {
            Some(e) if *e >= BAR_EXEC_PER_S => "meets",
            Some(_) => "BELOW",
            None => "no result for",
        };
        println!(
            "  --jobs {}  {:>7}  ({verdict} the bar of {BAR_EXEC_PER_S:.0}/s)",
            j + 1,
            fmt(*eps, 0)
        );
    }
    failures
}

fn print_table(
    crates: &[(String, PathBuf, Option<&str>)],
    results: &[[Vec<Option<Run>>; 2]],
    opts: &Options,
) {
    println!();
    println!(
        "medians over {} seed(s), --max-executions {}; arc = archive search, rnd = --strategy random",
        opts.seeds, opts.max_executions
    );
    println!(
        "{:<21} | {:<13} | {:<13} | {:<23} | {:<13} | {:<13}",
        "", "branches", "checks", "execs to final coverage", "s to final", "exec/s"
    );
    println!(
        "{:<15} {:>5} | {:>6} {:>6} | {:>6} {:>6} | {:>7} {:>7} {:>6} | {:>6} {:>6} | {:>6} {:>6}",
        "fixture",
        "goals",
        "arc",
        "rnd",
        "arc",
        "rnd",
        "arc",
        "rnd",
        "speedup",
        "arc",
        "rnd",
        "arc",
        "rnd"
    );
    println!("{}", "-".repeat(109));
    // (fixture name, median speedup) for the geometric means.
    let mut speedups: Vec<(&str, f64)> = Vec::new();
    let mut all_eps = Vec::new();
    for ((name, _, _), [arc, rnd]) in crates.iter().zip(results) {
        let m = |runs: &Vec<Option<Run>>, f: fn(&Run) -> f64| median(runs.iter().flatten().map(f));
        let goals = m(arc, |r| r.goals_total).or(m(rnd, |r| r.goals_total));
        // Seed by seed: the runs of one seed sit at the same index.
        let per_seed: Vec<(f64, bool)> = arc
            .iter()
            .zip(rnd)
            .filter_map(|(a, r)| Some(speedup(a.as_ref()?, r.as_ref()?)))
            .collect();
        let ratio = median(per_seed.iter().map(|&(q, _)| q));
        let mark = if per_seed.iter().all(|&(_, reached)| reached) {
            " "
        } else {
            "<"
        };
        if let Some(q) = ratio {
            speedups.push((name, q));
        }
        all_eps.extend(arc.iter().chain(rnd).flatten().map(|r| r.exec_per_s));
        println!(
            "{:<15} {:>5} | {:>6} {:>6} | {:>6} {:>6} | {:>7} {:>7} {:>6}{mark} | {:>6} {:>6} | {:>6} {:>6}",
            name,
            fmt(goals, 0),
            fmt(m(arc, |r| r.goals_covered), 0),
            fmt(m(rnd, |r| r.goals_covered), 0),
            fmt(m(arc, |r| r.checks_covered), 0),
            fmt(m(rnd, |r| r.checks_covered), 0),
            fmt(m(arc, |r| r.exec_to_final), 0),
            fmt(m(rnd, |r| r.exec_to_final), 0),
            fmt(ratio, 2),
            fmt(m(arc, |r| r.time_to_final), 2),
            fmt(m(rnd, |r| r.time_to_final), 2),
            fmt(m(arc, |r| r.exec_per_s), 0),
            fmt(m(rnd, |r| r.exec_per_s), 0),
        );
    }
    println!("{}", "-".repeat(109));
    let geomean = |qs: Vec<f64>| {
        (!qs.is_empty()).then(|| (qs.iter().map(|q| q.ln()).sum::<f64>() / qs.len() as f64).exp())
    };
    let all: Vec<f64> = speedups.iter().map(|&(_, q)| q).collect();
    let parsing: Vec<f64> = speedups
        .iter()
        .filter(|(name, _)| name.starts_with("parsing/"))
        .map(|&(_, q)| q)
        .collect();
    println!(
        "speedup = random's executions to its final coverage / the archive's executions to the same"
    );
    println!(
        "  coverage (median over seeds; `<`: in some seed the archive never got there, and its"
    );
    println!("  run's executions stand in, so the true speedup is lower)");
    println!(
        "geometric mean of the speedup: {} over the {} parsing modules (issue 14's bar: 3), {} over all {} fixtures",
        fmt(geomean(parsing.clone()), 2),
        parsing.len(),
        fmt(geomean(all.clone()), 2),
        all.len()
    );
    println!(
        "driver exec/s overall (search phase, median of all {} runs): {}",
        all_eps.len(),
        fmt(median(all_eps.into_iter()), 0)
    );
}

/// Random's executions to its final coverage over the archive's executions to the same number of
/// branches, and whether the archive got there (if not, its run's executions stand in).
fn speedup(arc: &Run, rnd: &Run) -> (f64, bool) {
    let (rnd_execs, rnd_branches) = rnd.gains.last().copied().unwrap_or((0.0, 0.0));
    let reached = arc.gains.iter().find(|&&(_, n)| n >= rnd_branches);
    let arc_execs = reached.map_or(arc.executions, |&(e, _)| e);
    (
        rnd_execs.max(1.0) / arc_execs.max(1.0),
        reached.is_some() || rnd_branches == 0.0,
    )
}

struct Ctx {
    cli: PathBuf,
    work: PathBuf,
    max_executions: u64,
}

impl Ctx {
    /// Runs the CLI once on `dir` and reads its report; `None` (and the stderr's tail) on failure.
    fn run(&self, dir: &Path, label: &str, seed: u64, extra: &[&str]) -> Option<Run> {
        let report = self.work.join("reports").join(format!("{label}.json"));
        std::fs::create_dir_all(report.parent().unwrap()).ok()?;
        let out = Command::new(&self.cli)
            .args(["hermetic", "generate", "--manifest-path"])
            .arg(dir.join("Cargo.toml"))
            .args([
                "--seed",
                &seed.to_string(),
                "--max-executions",
                &self.max_executions.to_string(),
            ])
            .args([
                "--budget",
                "900",
                "--dry-run",
                "--no-verify",
                "-q",
                "--report-json",
            ])
            .arg(&report)
            .args(extra)
            .env("CARGO_HERMETIC_TARGET_DIR", self.work.join("target"))
            .output();
        let out = match out {
            Ok(out) => out,
            Err(e) => {
                eprintln!("cannot run {}: {e}", self.cli.display());
                return None;
            }
        };
        if !out.status.success() {
            let err = String::from_utf8_lossy(&out.stderr);
            let tail: Vec<&str> = err.lines().rev().take(15).collect();
            eprintln!(
                "{label}: {}\n{}",
                out.status,
                tail.into_iter().rev().collect::<Vec<_>>().join("\n")
            );
            return None;
        }
        let json: Value = serde_json::from_str(&std::fs::read_to_string(&report).ok()?).ok()?;
        let f = |key: &str| json.get(key).and_then(Value::as_f64);
        Some(Run {
            goals_total: f("goals_total")?,
            goals_covered: f("goals_covered")?,
            checks_covered: f("checks_covered")?,
            executions: f("executions")?,
            exec_per_s: f("executions_per_second")?,
            exec_to_final: f("executions_to_final_coverage")?,
            time_to_final: f("time_to_final_coverage_s")?,
            gains: json
                .get("branch_gains")?
                .as_array()?
                .iter()
                .filter_map(|g| Some((g.get(0)?.as_f64()?, g.get(1)?.as_f64()?)))
                .collect(),
        })
    }
}

fn describe(run: &Option<Run>) -> String {
    match run {
        Some(r) => format!(
            "{}/{} branches, final coverage after {} execs, {} executions at {:.0}/s",
            r.goals_covered, r.goals_total, r.exec_to_final, r.executions, r.exec_per_s
        ),
        None => "FAILED".to_string(),
    }
}

fn median(values: impl Iterator<Item = f64>) -> Option<f64> {
    let mut v: Vec<f64> = values.collect();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => Some(v[n / 2]),
        _ => Some((v[n / 2 - 1] + v[n / 2]) / 2.0),
    }
}

fn fmt(x: Option<f64>, decimals: usize) -> String {
    x.map_or("-".to_string(), |x| format!("{x:.decimals$}"))
}

fn parse_args() -> Options {
    let mut opts = Options {
        cli: Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/release/cargo-hermetic"),
        seeds: 3,
        max_executions: 10_000,
        keep: false,
        generation: true,
        environment: true,
        env_max_executions: 20_000,
        fixtures: Vec::new(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| usage(&format!("{a} needs a value")))
        };
        match a.as_str() {
            "--quick" => {
                (opts.seeds, opts.max_executions, opts.env_max_executions) = (1, 2_000, 4_000)
            }
            "--only" => match value().as_str() {
                "generation" => opts.environment = false,
                "environment" => opts.generation = false,
                _ => usage("--only generation|environment"),
            },
            "--env-max-executions" => {
                opts.env_max_executions = value()
                    .parse()
                    .unwrap_or_else(|_| usage("--env-max-executions N"))
            }
            "--cli" => opts.cli = PathBuf::from(value()),
            "--fixtures" => opts.fixtures = value().split(',').map(str::to_string).collect(),
            "--seeds" => opts.seeds = value().parse().unwrap_or_else(|_| usage("--seeds N")),
            "--max-executions" => {
                opts.max_executions = value()
                    .parse()
                    .unwrap_or_else(|_| usage("--max-executions N"))
            }
            "--keep" => opts.keep = true,
            _ => usage(&format!("unknown argument {a}")),
        }
    }
    opts
}

fn usage(msg: &str) -> ! {
    eprintln!("{msg}\nusage: hermetic-bench [--quick] [--cli PATH] [--seeds N] [--max-executions N] [--env-max-executions N] [--only generation|environment] [--fixtures NAME,..] [--keep]");
    std::process::exit(2)
}
