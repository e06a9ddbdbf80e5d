//! Command-line interface, following cargo's conventions for subcommands: the binary runs as
//! `cargo hermetic ...` (cargo passes `hermetic` as the first argument) or directly as
//! `cargo-hermetic hermetic ...`.

use crate::cargo::FeatureArgs;
use clap::{Args, Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(name = "cargo", bin_name = "cargo", styles = clap::builder::Styles::default())]
pub enum CargoCli {
    /// Writes deterministic, isolated unit tests for a Rust crate.
    #[command(version)]
    Hermetic(HermeticArgs),
}

#[derive(Args, Debug)]
pub struct HermeticArgs {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Search for tests that reach the library's branches and write them beside the code.
    Generate(GenerateArgs),
    /// Run the package's program (or its tests) with probes, and turn the calls it made into
    /// tests that replay what each call read.
    Record(RecordArgs),
}

/// Which crate, and which part of it, a command works on.
#[derive(Args, Debug, Clone)]
pub struct TargetArgs {
    /// Path to the crate's Cargo.toml.
    #[arg(long, value_name = "PATH")]
    pub manifest_path: Option<PathBuf>,
    /// The package, in a workspace.
    #[arg(short, long, value_name = "NAME")]
    pub package: Option<String>,
    /// Only this module (and its submodules), e.g. `parser::lexer`.
    #[arg(long, value_name = "PATH")]
    pub module: Option<String>,
    /// Only this function or method, e.g. `parse` or `Lexer::next_token`.
    #[arg(long, value_name = "NAME")]
    pub function: Option<String>,
}

/// What a command writes besides the tests, and how.
#[derive(Args, Debug, Clone)]
pub struct OutputArgs {
    /// Also write the report as JSON to this file.
    #[arg(long, value_name = "FILE")]
    pub report_json: Option<PathBuf>,
    /// How the tests' dev-dependency on the `hermetic` runtime is written: `vendored` (a copy
    /// in `.hermetic/runtime/` at the workspace root, by relative path; the default for a new
    /// entry) or `registry` (`hermetic = "<version>"`). Without it an existing entry is kept.
    #[arg(long, value_enum, value_name = "SOURCE")]
    pub runtime: Option<crate::runtime::RuntimeSource>,
    /// Print what would be written, change nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Skip compiling and running the emitted tests before writing them (faster, unchecked).
    #[arg(long)]
    pub no_verify: bool,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

#[derive(Args, Debug, Clone)]
pub struct GenerateArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Every library package of the workspace, one after the other (each gets its own budget,
    /// summary and, with --report-json, a report in a JSON array).
    #[arg(long, conflicts_with = "package")]
    pub workspace: bool,
    /// Only this share of the crate's modules, `k/n` (1 <= k <= n): each module belongs to one
    /// of `n` shares, so `n` runs (a CI matrix) cover the crate and write different files.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<crate::selection::Shard>,
    /// Time for the whole run, in seconds (default 60; ignored when only --max-executions is
    /// given, so that such runs are reproducible; with both, it stops the search and the
    /// mutation phase only, and writing and verifying may end after it).
    #[arg(long, value_name = "SECS")]
    pub budget: Option<u64>,
    /// Stop the search after this many executions.
    #[arg(long, value_name = "N")]
    pub max_executions: Option<u64>,
    /// Search for more tests even when the sources and the command are as the last run left
    /// them (otherwise such a rerun runs the last run's tests, keeps them and writes the same
    /// files).
    #[arg(long)]
    pub extend: bool,
    /// Seed of the search's random choices.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Executions run at once (default: the number of CPUs).
    #[arg(short, long, value_name = "N")]
    pub jobs: Option<usize>,
    /// Time limit for one execution, in milliseconds of CPU time (so that a busy machine does
    /// not change the verdicts; an execution that blocks is stopped at five times the limit).
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    pub timeout_ms: u64,
    /// Also write which branches the tests take, in the lcov format, to this file.
    #[arg(long, value_name = "FILE")]
    pub coverage_lcov: Option<PathBuf>,
    /// Also write a page of the crate's sources with the branches tests take and those they do
    /// not marked, to this file (open it in a browser).
    #[arg(long, value_name = "FILE")]
    pub coverage_html: Option<PathBuf>,
    /// How candidates are made (`random` is a baseline for benchmarks).
    #[arg(long, value_enum, default_value = "archive", hide = true)]
    pub strategy: crate::search::Strategy,
    /// Which parts of the environment the search may set up: `all`, or a list of `files`,
    /// `stdin`, `other` (variables, clock, randomness); `virtual` sets up nothing but still runs
    /// in a virtual environment; `real` runs against the real environment (benchmarks only).
    #[arg(long, default_value = "all", hide = true)]
    pub env: String,
    /// Where a crate type could stand in for a trait-typed parameter, use a mock instead with
    /// this probability (0 to 1)...
    #[arg(long, value_name = "P", default_value_t = 0.8, value_parser = fraction)]
    pub mock_probability: f64,
    /// ...once this fraction of the budget is spent (0 to 1): of `--max-executions` when it is
    /// given (so the same seed gives the same tests however fast the machine is), else of the
    /// time. Where no crate type implements the trait, mocks are used from the start.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.5, value_parser = fraction)]
    pub mock_start: f64,
    /// Let tests fake what the selected code's calls that leave their module return (seed
    /// 000): `#[cfg_attr(test, hermetic::isolate(only(..)))]` goes on each function or `impl`
    /// block whose kept tests need it. `--isolate=off` takes out such attributes no test needs.
    #[arg(
        long,
        value_enum,
        value_name = "on|off",
        num_args = 0..=1,
        require_equals = true,
        default_missing_value = "on"
    )]
    pub isolate: Option<crate::isolate::Isolate>,
    /// Fakes are a last resort: a test gets one with this probability (0 to 1)...
    #[arg(long, value_name = "P", default_value_t = 0.8, value_parser = fraction)]
    pub isolate_probability: f64,
    /// ...once this fraction of the budget is spent (0 to 1): of `--max-executions` when it is
    /// given, else of the time.
    #[arg(long, value_name = "FRACTION", default_value_t = 0.5, value_parser = fraction)]
    pub isolate_start: f64,
    /// Run all executions of a driver in one child process, so the crate's statics carry over
    /// from one to the next (benchmarks only: measures what a fresh child per execution is
    /// worth).
    #[arg(long, hide = true)]
    pub no_static_isolation: bool,
    /// Search (and hunt for tests that kill mutants) until a budget is spent or every goal is
    /// covered, even when coverage (or the kills) has stopped rising (benchmarks only).
    #[arg(long, hide = true)]
    pub no_early_stop: bool,
    /// Mutation analysis: compile mutants of the selected code into the driver, keep the
    /// assertions that kill them, look for tests that kill the others and report the mutation
    /// score (`off`: a faster run, every assertion kept).
    #[arg(long, value_enum, default_value = "on")]
    pub mutation: Switch,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(flatten)]
    pub features: FeatureArgs,
}

/// `cargo hermetic record`'s arguments.
#[derive(Args, Debug, Clone)]
pub struct RecordArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// The binary to run, when the package has several.
    #[arg(long, value_name = "NAME")]
    pub bin: Option<String>,
    /// Run the crate's own test suite under probes instead of its binary (the arguments go to
    /// the test harness).
    #[arg(long)]
    pub test: bool,
    /// Build the program with optimisations.
    #[arg(long)]
    pub release: bool,
    /// Also run the program without probes first and report the probes' slowdown (the program
    /// runs twice: only for programs that can be run twice).
    #[arg(long)]
    pub measure_slowdown: bool,
    /// With --measure-slowdown: how many times each of the two runs is repeated, alternating
    /// (the medians are compared; for benchmarks).
    #[arg(long, value_name = "N", default_value_t = 1, hide = true)]
    pub repeat: usize,
    #[command(flatten)]
    pub output: OutputArgs,
    /// The program's arguments, after `--` (`cargo hermetic record -- stock.csv --verbose`).
    #[arg(last = true, value_name = "ARGS")]
    pub args: Vec<String>,
}

/// `on` or `off`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Switch {
    On,
    Off,
}

/// A number from 0 to 1.
fn fraction(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("`{text}` is not a number from 0 to 1")),
    }
}

impl GenerateArgs {
    pub const DEFAULT_BUDGET: u64 = 60;

    /// The options that shape the search, with the `budget` in force, as text: two runs with
    /// the same text search alike (`crate::unchanged`). Where output goes, how many jobs run,
    /// `--extend` and the selection (the fingerprint is for whole packages) are left out.
    pub fn search_options(&self, budget: Option<std::time::Duration>) -> String {
        let mut a = self.clone();
        a.target.manifest_path = None;
        a.target.package = None;
        a.workspace = false;
        a.jobs = None;
        a.output.report_json = None;
        a.coverage_lcov = None;
        a.coverage_html = None;
        a.output.runtime = None;
        a.output.dry_run = false;
        a.extend = false;
        a.output.quiet = false;
        a.budget = budget.map(|b| b.as_secs());
        format!("{a:?}")
    }

    /// The command line that regenerates the same files, for their header. `--function` is
    /// left out: its run keeps the file's other tests, the file is the module's.
    pub fn regenerate_command(&self) -> String {
        let mut cmd = String::from("cargo hermetic generate");
        if let Some(p) = &self.target.package {
            cmd += &format!(" -p {p}");
        }
        if let Some(m) = &self.target.module {
            cmd += &format!(" --module {m}");
        }
        if let Some(s) = &self.shard {
            cmd += &format!(" --shard {}/{}", s.index, s.count);
        }
        if self.isolate == Some(crate::isolate::Isolate::On) {
            cmd += " --isolate";
        }
        for a in self.features.cargo_args() {
            cmd += &format!(" {a}");
        }
        cmd
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_options_leave_out_where_output_goes_and_name_the_budget_in_force() {
        let args = |extra: &[&str]| {
            let mut argv = vec!["cargo-hermetic", "hermetic", "generate"];
            argv.extend_from_slice(extra);
            let CargoCli::Hermetic(HermeticArgs {
                command: Command::Generate(g),
            }) = CargoCli::try_parse_from(argv).unwrap()
            else {
                panic!("not generate");
            };
            g
        };
        let sixty = Some(std::time::Duration::from_secs(60));
        let plain = args(&[]).search_options(sixty);
        let same = args(&["--jobs", "4", "-q", "--report-json", "r.json", "--extend"]);
        assert_eq!(same.search_options(sixty), plain);
        assert_eq!(args(&["--budget", "60"]).search_options(sixty), plain);
        for other in [
            &["--isolate"][..],
            &["--seed", "2"],
            &["--max-executions", "100"],
        ] {
            assert_ne!(args(other).search_options(sixty), plain, "{other:?}");
        }
        assert_ne!(
            args(&["--budget", "300"]).search_options(Some(std::time::Duration::from_secs(300))),
            plain
        );
    }

    #[test]
    fn parses_as_a_cargo_subcommand() {
        let cli = CargoCli::try_parse_from([
            "cargo-hermetic",
            "hermetic",
            "generate",
            "--module",
            "parser",
            "--seed",
            "3",
            "--max-executions",
            "500",
        ])
        .unwrap();
        let CargoCli::Hermetic(HermeticArgs {
            command: Command::Generate(g),
        }) = cli
        else {
            panic!("not generate");
        };
        assert_eq!(g.target.module.as_deref(), Some("parser"));
        assert_eq!(g.seed, 3);
        assert_eq!(g.max_executions, Some(500));
        assert_eq!(
            g.regenerate_command(),
            "cargo hermetic generate --module parser"
        );
    }

    #[test]
    fn record_takes_the_program_arguments_after_a_double_dash() {
        let cli = CargoCli::try_parse_from([
            "cargo-hermetic",
            "hermetic",
            "record",
            "--function",
            "load",
            "--",
            "stock.csv",
            "--verbose",
        ])
        .unwrap();
        let CargoCli::Hermetic(HermeticArgs {
            command: Command::Record(r),
        }) = cli
        else {
            panic!("not record");
        };
        assert_eq!(r.target.function.as_deref(), Some("load"));
        assert_eq!(
            r.args,
            vec!["stock.csv".to_string(), "--verbose".to_string()]
        );
    }

    #[test]
    fn isolate_is_on_alone_and_takes_off_with_an_equals_sign() {
        let parse = |args: &[&str]| {
            let mut all = vec!["cargo-hermetic", "hermetic", "generate"];
            all.extend(args);
            match CargoCli::try_parse_from(all) {
                Ok(CargoCli::Hermetic(HermeticArgs {
                    command: Command::Generate(g),
                })) => Ok(g),
                Ok(_) => panic!("not generate"),
                Err(e) => Err(e.to_string()),
            }
        };
        use crate::isolate::Isolate;
        let on = parse(&["--isolate", "--module", "bank"]).unwrap();
        assert_eq!(on.isolate, Some(Isolate::On));
        assert_eq!(
            on.regenerate_command(),
            "cargo hermetic generate --module bank --isolate"
        );
        assert_eq!(
            parse(&["--isolate=off"]).unwrap().isolate,
            Some(Isolate::Off)
        );
        assert_eq!(parse(&[]).unwrap().isolate, None);
        assert!(parse(&["--isolate=maybe"]).unwrap_err().contains("maybe"));
    }

    #[test]
    fn rejects_unknown_options_with_a_message() {
        let err = CargoCli::try_parse_from(["cargo-hermetic", "hermetic", "generate", "--bogus"])
            .unwrap_err();
        assert!(err.to_string().contains("--bogus"));
    }
}
