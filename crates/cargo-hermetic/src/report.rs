//! The run's report: a short summary table for people, and JSON for tools.
//!
//! Only `main.rs`, the commands' progress lines (`generate.rs`, `record/mod.rs`), `--dry-run`'s
//! listing of the files (`emit/place.rs`) and this module write to the terminal (`HERMETIC_DEBUG`
//! output aside).

use crate::cluster::Skipped;
use crate::emit::attributes::IsolationReport;
use crate::mutation::MutationReport;
use crate::skip::ReasonCount;
use crate::verify;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Default, Serialize)]
pub struct Report {
    pub package: String,
    pub seed: u64,
    /// Why the run wrote no tests without searching (nothing callable, no branches), if so.
    pub no_tests: Option<String>,
    /// Branches of the selected code (edges between its basic blocks).
    pub goals_total: usize,
    pub goals_covered: usize,
    /// Public functions and methods of the selected code (one per function, however many types
    /// analysis chose for its type parameters), and those a test calls (method goals, counted
    /// apart from the branches).
    pub public_functions: usize,
    pub public_functions_called: usize,
    /// Edges to the panics the compiler inserts (overflow, bounds): searched for, reported apart.
    pub checks_total: usize,
    pub checks_covered: usize,
    /// Branches the compiler emits that no input can take (a re-test of a value already tested,
    /// a test of a constant), proven from the machine code: not counted in `goals_total`.
    pub goals_infeasible: usize,
    /// The same for compiler checks: not counted in `checks_total`.
    pub checks_infeasible: usize,
    /// Edges proven infeasible that an execution covered nevertheless: a bug in the proof
    /// (always 0).
    pub infeasible_covered: usize,
    pub tests_emitted: usize,
    /// Tests not written because they had nothing to assert.
    pub tests_without_assertions: usize,
    /// Mutation analysis (`None` with `--mutation off`).
    pub mutation: Option<MutationReport>,
    /// Tests dropped because they failed or flaked in verification (not only beside others).
    pub tests_dropped_unstable: usize,
    /// Tests dropped because they failed beside other tests in one process but pass alone:
    /// they depend on static state that other tests change.
    pub tests_dropped_static_state: usize,
    /// Tests dropped because their code did not compile.
    pub tests_dropped_uncompilable: usize,
    /// Tests dropped because they fail under `cargo test --release` or `--all-features`.
    pub tests_dropped_configuration: usize,
    /// The names of the dropped tests, with why.
    pub dropped: Vec<DroppedReport>,
    /// Emitted tests that call items outside the public API.
    pub tests_using_private: usize,
    /// Emitted tests that build mocks.
    pub tests_using_mocks: usize,
    /// Goals (branches and call outcomes) no test without private access reached.
    pub goals_needing_private: usize,
    /// Goals (branches and call outcomes) no test without mocks reached.
    pub goals_needing_mocks: usize,
    /// Emitted tests that set up fakes of isolated calls (`--isolate`).
    pub tests_using_fakes: usize,
    /// Goals (branches and call outcomes) no test without fakes reached.
    pub goals_needing_fakes: usize,
    /// What `--isolate` did, when given.
    pub isolation: Option<IsolationReport>,
    pub executions: u64,
    /// Candidates not run because they repeat a call that crashed or hung.
    pub executions_avoided: u64,
    pub executions_per_second: f64,
    /// Why the search ended (every goal covered, a budget spent, coverage stopped rising).
    pub search_stopped: String,
    pub elapsed_s: f64,
    /// How long the first build of the driver's dependencies took, when this run had to do it
    /// (it is outside `--budget`).
    pub dependencies_build_s: Option<f64>,
    /// Where `elapsed_s` went, step by step.
    pub phases: Phases,
    /// The run's `--budget` in seconds (`None`: bounded by executions only).
    pub budget_s: Option<u64>,
    pub callables: usize,
    pub skipped: Vec<Skipped>,
    /// `skipped` counted by reason, most frequent first.
    pub skipped_by_reason: Vec<ReasonCount>,
    /// Calls that abort, overflow the stack, exit or hang: no test can show them in-process.
    pub findings: Vec<FindingReport>,
    pub files: Vec<PathBuf>,
    pub dry_run: bool,
    /// Functions with goals no test covers, and how many.
    pub uncovered: Vec<UncoveredReport>,
    /// Goals that only crashing or hanging executions reached.
    pub goals_reached_only_by_findings: usize,
    pub executions_to_final_coverage: u64,
    pub time_to_final_coverage_s: f64,
    /// `[executions, branches covered]` each time the search covered more branches.
    pub branch_gains: Vec<[u64; 2]>,
    /// Parts of the environment the code touched (files, variables, stdin, clock, ...).
    pub environment_touched: Vec<String>,
    /// Parts of the environment the emitted tests set up.
    pub environment_varied: Vec<String>,
    /// Network and process attempts the virtual environment refused during the search.
    pub refused_by_runtime: u64,
    /// System calls the sandbox refused during the search (code that bypassed the runtime).
    pub refused_by_sandbox: u64,
    /// What the sandbox refused, per function: none of these executions became a test.
    pub refused: Vec<RefusedReport>,
    pub containment: Containment,
    /// Every branch with a known line (not in the JSON: `--coverage-lcov` and `--coverage-html`
    /// write it).
    #[serde(skip)]
    pub branches: Vec<Branch>,
    /// The crate's directory, which `branches`' files are relative to.
    #[serde(skip)]
    pub crate_dir: PathBuf,
}

/// The steps of a run, in seconds: they add up to about `elapsed_s` (analysis and the goals'
/// mapping are the rest).
#[derive(Debug, Default, Clone, Copy, Serialize)]
pub struct Phases {
    /// Building the instrumented driver, the dependencies' first build included.
    pub driver_build_s: f64,
    /// The search, the last run's tests and minimisation included.
    pub search_s: f64,
    /// Mutation analysis (`--mutation on`).
    pub mutation_s: f64,
    /// Writing the tests and verifying them (compiling and running them).
    pub write_and_verify_s: f64,
}

impl Phases {
    /// The step that took longest, with its time.
    fn longest(&self) -> (&'static str, f64) {
        [
            ("the driver build", self.driver_build_s),
            ("the search", self.search_s),
            ("mutation analysis", self.mutation_s),
            ("writing and verifying", self.write_and_verify_s),
        ]
        .into_iter()
        .fold(("", 0.0), |a, b| if b.1 > a.1 { b } else { a })
    }

    /// `build 3.1s, search 12.0s, writing and verifying 8.2s`, for the summary.
    fn describe(&self) -> String {
        let mut parts = vec![
            format!("driver build {:.1}s", self.driver_build_s),
            format!("search {:.1}s", self.search_s),
        ];
        if self.mutation_s > 0.0 {
            parts.push(format!("mutation analysis {:.1}s", self.mutation_s));
        }
        parts.push(format!(
            "writing and verifying {:.1}s",
            self.write_and_verify_s
        ));
        parts.join(", ")
    }
}

/// The sandbox's layers that contained the code under test.
#[derive(Debug, Default, Serialize)]
pub struct Containment {
    /// An allow-list of system calls: starting programs and processes, signals to other
    /// processes, sockets, removals and file changes, process-wide changes, 32-bit calls are
    /// refused, and each refusal is seen.
    pub seccomp: bool,
    /// Landlock: file writes outside the scratch directory, TCP, and (kernel permitting)
    /// signals and abstract sockets outside the sandbox are refused.
    pub landlock: bool,
    /// A mount namespace in which all but the scratch directory is read-only.
    pub read_only: bool,
    /// An empty network namespace.
    pub no_network: bool,
}

impl Containment {
    /// The active layers, in words.
    pub fn layers(&self) -> String {
        let layers: Vec<&str> = [
            (self.seccomp, "seccomp allow-list"),
            (self.landlock, "Landlock"),
            (self.read_only, "read-only file system"),
            (self.no_network, "no network"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        if layers.is_empty() {
            "none".into()
        } else {
            layers.join(", ")
        }
    }
}

#[derive(Debug, Serialize)]
pub struct UncoveredReport {
    pub function: String,
    pub goals: usize,
    /// Where the branches no test took start, by line.
    pub branches: Vec<UncoveredLine>,
    /// What the environment refused in the function's runs (`connect db.example:5432`): its
    /// branches past such an attempt are out of a test's reach.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub refused_by_environment: Vec<String>,
}

/// A line where branches start that no test took.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct UncoveredLine {
    /// Relative to the crate root.
    pub file: PathBuf,
    pub line: u32,
    /// The line's source text, trimmed.
    pub source: String,
    /// Branches starting on this line that no test took.
    pub branches: usize,
}

/// A branch of the selected code, placed in the source (for `--coverage-lcov` and the HTML
/// page).
#[derive(Debug, Clone, PartialEq)]
pub struct Branch {
    /// Relative to the crate root.
    pub file: PathBuf,
    pub line: u32,
    pub covered: bool,
}

#[derive(Debug, Serialize)]
pub struct DroppedReport {
    pub test: String,
    /// Why, as [`verify::Failure::reason`] says it.
    pub reason: String,
}

impl DroppedReport {
    /// Every test verification dropped, with the reason.
    pub fn all(verified: &verify::Verified) -> Vec<DroppedReport> {
        verified
            .dropped
            .iter()
            .map(|(test, why)| DroppedReport {
                test: test.clone(),
                reason: why.reason(),
            })
            .collect()
    }
}

/// A function whose code tried something the sandbox refused.
#[derive(Debug, Serialize)]
pub struct RefusedReport {
    pub function: String,
    /// What it tried: `kill of its parent (signal 9)`, `openat for writing /home/me/x`.
    pub tried: String,
    /// In how many system calls, over all executions.
    pub times: u64,
}

#[derive(Debug, Serialize)]
pub struct FindingReport {
    pub call: String,
    pub outcome: String,
}

/// Skip reasons the summary lists, most frequent first.
pub const TOP_SKIP_REASONS: usize = 5;
/// Writes the reports of a `--workspace` run as one JSON array.
pub fn write_json_list(reports: &[Report], path: &Path) -> anyhow::Result<()> {
    let text = serde_json::to_string_pretty(reports)?;
    std::fs::write(path, text + "\n")
        .map_err(|e| anyhow::anyhow!("cannot write the report to {}: {e}", path.display()))
}

/// Lines of uncovered branches the summary lists.
const MAX_UNCOVERED_LINES: usize = 12;

impl Report {
    /// The branches in the lcov tracefile format (`BRDA` per branch, `DA` per line with
    /// branches: 1 when one of them was taken), which coverage viewers and CI services read.
    pub fn lcov(&self) -> String {
        let mut by_file: std::collections::BTreeMap<&Path, Vec<&Branch>> = Default::default();
        for b in &self.branches {
            by_file.entry(&b.file).or_default().push(b);
        }
        let mut text = format!("TN:{}\n", self.package);
        for (file, mut branches) in by_file {
            branches.sort_by_key(|b| b.line);
            text += &format!("SF:{}\n", self.crate_dir.join(file).display());
            for (i, b) in branches.iter().enumerate() {
                text += &format!(
                    "BRDA:{},0,{i},{}\n",
                    b.line,
                    if b.covered { "1" } else { "0" }
                );
            }
            let hit = branches.iter().filter(|b| b.covered).count();
            text += &format!("BRF:{}\nBRH:{hit}\n", branches.len());
            let mut lines: std::collections::BTreeMap<u32, bool> = Default::default();
            for b in &branches {
                *lines.entry(b.line).or_default() |= b.covered;
            }
            for (line, covered) in &lines {
                text += &format!("DA:{line},{}\n", u8::from(*covered));
            }
            let lh = lines.values().filter(|c| **c).count();
            text += &format!("LF:{}\nLH:{lh}\nend_of_record\n", lines.len());
        }
        text
    }

    pub fn coverage_percent(&self) -> f64 {
        if self.goals_total == 0 {
            100.0
        } else {
            100.0 * self.goals_covered as f64 / self.goals_total as f64
        }
    }

    pub fn write_json(&self, path: &Path) -> anyhow::Result<()> {
        let text = serde_json::to_string_pretty(self)?;
        std::fs::write(path, text + "\n")
            .map_err(|e| anyhow::anyhow!("cannot write the report to {}: {e}", path.display()))
    }

    /// The summary printed at the end of a run.
    /// How far the run went over its `--budget` (the first build of dependencies, outside the
    /// budget, left out), when it did by more than a second.
    pub fn over_budget(&self) -> Option<f64> {
        let budget = self.budget_s? as f64;
        let spent = self.elapsed_s - self.dependencies_build_s.unwrap_or(0.0);
        (spent > budget + 1.0).then_some(spent - budget)
    }

    pub fn print_summary(&self, out: &mut impl Write) -> std::io::Result<()> {
        writeln!(out)?;
        writeln!(out, "  hermetic: {}", self.package)?;
        if let Some(why) = &self.no_tests {
            writeln!(out, "  no tests: {why}")?;
        }
        let rows = [
            (
                "branches taken by the tests",
                format!(
                    "{} / {} ({:.1}%)",
                    self.goals_covered,
                    self.goals_total,
                    self.coverage_percent()
                ),
            ),
            (
                "public functions called",
                format!(
                    "{} / {}",
                    self.public_functions_called, self.public_functions
                ),
            ),
            (
                "overflow/bounds checks reached",
                format!(
                    "{} / {} (panics the compiler adds; most cannot happen)",
                    self.checks_covered, self.checks_total
                ),
            ),
            ("tests written", self.tests_emitted.to_string()),
            (
                "  using private items",
                format!(
                    "{} (for {} goals)",
                    self.tests_using_private, self.goals_needing_private
                ),
            ),
            (
                "  using mocks",
                format!(
                    "{} (for {} goals)",
                    self.tests_using_mocks, self.goals_needing_mocks
                ),
            ),
            (
                "  using fakes (--isolate)",
                format!(
                    "{} (for {} goals)",
                    self.tests_using_fakes, self.goals_needing_fakes
                ),
            ),
            (
                "tests dropped (failed or flaky)",
                self.tests_dropped_unstable.to_string(),
            ),
            (
                "tests dropped (static state)",
                self.tests_dropped_static_state.to_string(),
            ),
            (
                "tests dropped (did not compile)",
                self.tests_dropped_uncompilable.to_string(),
            ),
            (
                "tests dropped (release, features)",
                self.tests_dropped_configuration.to_string(),
            ),
            (
                "callables (functions, constructors)",
                self.callables.to_string(),
            ),
            (
                "items skipped (not supported yet)",
                self.skipped.len().to_string(),
            ),
            // The reasons follow the table.
            (
                "executions",
                format!("{} ({:.0}/s)", self.executions, self.executions_per_second),
            ),
            ("search stopped", self.search_stopped.clone()),
            (
                "time",
                match self.dependencies_build_s {
                    Some(d) => format!(
                        "{:.1}s, of which {d:.1}s building dependencies (once; not counted in --budget); {}",
                        self.elapsed_s,
                        self.phases.describe()
                    ),
                    None if self.phases.driver_build_s > 0.0 => {
                        format!("{:.1}s: {}", self.elapsed_s, self.phases.describe())
                    }
                    None => format!("{:.1}s", self.elapsed_s),
                },
            ),
        ];
        for (k, v) in rows {
            writeln!(out, "  {k:<36}{v}")?;
        }
        if let Some(over) = self.over_budget() {
            let (step, took) = self.phases.longest();
            writeln!(
                out,
                "  {:<36}by {over:.1}s; the longest step was {step} ({took:.1}s)",
                "over --budget"
            )?;
        }
        if self.tests_without_assertions > 0 {
            writeln!(
                out,
                "  {:<36}{}",
                "tests not written (no assertion)", self.tests_without_assertions
            )?;
        }
        if let Some(m) = &self.mutation {
            writeln!(
                out,
                "  {:<36}{} / {} ({:.1}%), {} reached{}",
                "mutants killed",
                m.killed,
                m.mutants,
                m.score,
                m.reached,
                if m.incomplete {
                    " (the budget ran out before every test ran against its mutants: at least this many)"
                } else {
                    ""
                }
            )?;
            writeln!(
                out,
                "  {:<36}{} kept, {} dropped (killed nothing more)",
                "assertions", m.assertions_kept, m.assertions_dropped
            )?;
            if m.hunt_stopped_by_time {
                writeln!(
                    out,
                    "  the time budget ended the hunt for tests that kill the mutants left"
                )?;
            }
            for a in m.alive.iter().filter(|a| a.reached).take(8) {
                writeln!(
                    out,
                    "  ? {}: {} in {} (reached, not caught)",
                    a.location, a.change, a.function
                )?;
            }
        }
        if !self.environment_touched.is_empty() {
            writeln!(
                out,
                "  {:<36}{}",
                "environment touched",
                self.environment_touched.join(", ")
            )?;
            let varied = if self.environment_varied.is_empty() {
                "nothing".to_string()
            } else {
                self.environment_varied.join(", ")
            };
            writeln!(out, "  {:<36}{}", "environment set up by tests", varied)?;
        }
        if self.refused_by_runtime + self.refused_by_sandbox > 0 {
            writeln!(
                out,
                "  {:<36}{} by the virtual environment, {} by the sandbox",
                "harmful calls refused", self.refused_by_runtime, self.refused_by_sandbox
            )?;
        }
        // Without a search nothing ran, contained or not.
        if self.no_tests.is_none() {
            writeln!(out, "  {:<34}{}", "sandbox", self.containment.layers())?;
        }
        if self.no_tests.is_none() && !(self.containment.landlock && self.containment.seccomp) {
            writeln!(
                out,
                "  warning: the sandbox is incomplete here (seccomp: {}, landlock: {}); code that bypasses libc could write files, reach the network or start programs during generation",
                self.containment.seccomp, self.containment.landlock
            )?;
        }
        let infeasible = self.goals_infeasible + self.checks_infeasible;
        if infeasible > 0 {
            writeln!(
                out,
                "  {infeasible} edge(s) the compiler emits can never be taken ({} branch(es), {} check(s): re-tests of a value already tested, tests of a constant); left out of the goals",
                self.goals_infeasible, self.checks_infeasible
            )?;
        }
        if self.infeasible_covered > 0 {
            writeln!(
                out,
                "  warning: {} edge(s) proven never taken were taken: a bug in hermetic's proof (HERMETIC_DEBUG=1 shows them)",
                self.infeasible_covered
            )?;
        }
        if self.goals_reached_only_by_findings > 0 {
            writeln!(
                out,
                "  {:<36}{}",
                "goals reached only by crashes", self.goals_reached_only_by_findings
            )?;
        }
        if let Some(iso) = &self.isolation {
            writeln!(
                out,
                "  {:<34}{} unit(s), {} callee(s) fakeable, {:.0} ms ({:.1}% of the run)",
                "isolation",
                iso.units,
                iso.callees,
                iso.transform_s * 1e3,
                100.0 * iso.transform_s / self.elapsed_s.max(1e-9)
            )?;
            let [covered, total] = iso.unit_branches;
            if total > 0 {
                writeln!(
                    out,
                    "  {:<34}{covered} / {total} ({:.1}%)",
                    "branches of the isolated units",
                    100.0 * covered as f64 / total as f64
                )?;
            }
            for a in &iso.attributes {
                if a.only.is_empty() {
                    writeln!(
                        out,
                        "  {} isolation of {}",
                        if self.dry_run {
                            "would take out"
                        } else {
                            "took out"
                        },
                        a.unit
                    )?;
                } else {
                    writeln!(
                        out,
                        "  {} {} (only {})",
                        if self.dry_run {
                            "would isolate"
                        } else {
                            "isolated"
                        },
                        a.unit,
                        a.only.join(", ")
                    )?;
                }
            }
            for u in &iso.unseen {
                writeln!(
                    out,
                    "  ? review {}: its fake of `{}` returns `{}`, which the real callee never returned here",
                    u.test, u.callee, u.value
                )?;
            }
        }
        let lines: Vec<(&UncoveredLine, &str)> = self
            .uncovered
            .iter()
            .flat_map(|u| u.branches.iter().map(move |b| (b, u.function.as_str())))
            .collect();
        if !self.uncovered.is_empty() {
            writeln!(
                out,
                "  branches no test takes ({} in {} function(s)):",
                self.goals_total.saturating_sub(self.goals_covered),
                self.uncovered.len()
            )?;
        }
        for (b, function) in lines.iter().take(MAX_UNCOVERED_LINES) {
            writeln!(
                out,
                "  ~ {}:{}  {}  ({function}{})",
                b.file.display(),
                b.line,
                b.source,
                if b.branches > 1 {
                    format!(", {} branches", b.branches)
                } else {
                    String::new()
                }
            )?;
        }
        if lines.len() > MAX_UNCOVERED_LINES {
            writeln!(
                out,
                "  ~ ... {} more lines (see --report-json or --coverage-html)",
                lines.len() - MAX_UNCOVERED_LINES
            )?;
        }
        for u in self.uncovered.iter().filter(|u| u.branches.is_empty()) {
            writeln!(
                out,
                "  ~ {} branch(es) in {} (no line known)",
                u.goals, u.function
            )?;
        }
        for u in self.uncovered.iter() {
            if let Some(tried) = u.refused_by_environment.first() {
                writeln!(
                    out,
                    "  ~ {}'s runs tried `{}`{}, which the environment refuses: its branches past that are out of reach",
                    u.function,
                    // A host name the search made may hold newlines: one line each.
                    tried.escape_debug(),
                    match u.refused_by_environment.len() {
                        1 => String::new(),
                        n => format!(" (and {} more)", n - 1),
                    }
                )?;
            }
        }
        for d in self.dropped.iter().take(5) {
            writeln!(out, "  x dropped {} ({})", d.test, d.reason)?;
        }
        for f in &self.findings {
            writeln!(out, "  ! {} {}", f.call, f.outcome)?;
        }
        for r in self.refused.iter().take(20) {
            writeln!(
                out,
                "  ! {} tried {} (refused by the sandbox, {} time(s))",
                r.function, r.tried, r.times
            )?;
        }
        if self.refused.len() > 20 {
            writeln!(
                out,
                "  ! ... {} more refused attempts (see --report-json)",
                self.refused.len() - 20
            )?;
        }
        print_skip_reasons(out, &self.skipped_by_reason)?;
        for f in &self.files {
            writeln!(
                out,
                "  {} {}",
                if self.dry_run { "would write" } else { "wrote" },
                f.display()
            )?;
        }
        Ok(())
    }
}

/// The most frequent skip reasons, with counts: what holds coverage back.
pub fn print_skip_reasons(out: &mut impl Write, counts: &[ReasonCount]) -> std::io::Result<()> {
    if counts.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "  skipped, most frequent reasons (all in --report-json):"
    )?;
    for c in counts.iter().take(TOP_SKIP_REASONS) {
        writeln!(out, "  {:>6}  {}", c.count, c.text)?;
    }
    let rest: usize = counts.iter().skip(TOP_SKIP_REASONS).map(|c| c.count).sum();
    if rest > 0 {
        writeln!(
            out,
            "  {rest:>6}  for {} other reasons",
            counts.len() - TOP_SKIP_REASONS
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_row_says_where_the_time_went() {
        let mut report = Report {
            elapsed_s: 31.2,
            phases: Phases {
                driver_build_s: 6.04,
                search_s: 14.0,
                mutation_s: 0.0,
                write_and_verify_s: 10.5,
            },
            ..Report::default()
        };
        let summary = |r: &Report| {
            let mut out = Vec::new();
            r.print_summary(&mut out).unwrap();
            String::from_utf8(out).unwrap()
        };
        let text = summary(&report);
        assert!(
            text.contains("31.2s: driver build 6.0s, search 14.0s, writing and verifying 10.5s\n"),
            "{text}"
        );
        report.dependencies_build_s = Some(5.0);
        report.phases.mutation_s = 4.0;
        let text = summary(&report);
        assert!(
            text.contains(
                "31.2s, of which 5.0s building dependencies (once; not counted in --budget); \
                 driver build 6.0s, search 14.0s, mutation analysis 4.0s, writing and verifying 10.5s\n"
            ),
            "{text}"
        );
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["phases"]["search_s"], 14.0);
        assert!(!text.contains("over --budget"), "no budget given:\n{text}");
    }

    #[test]
    fn a_run_over_its_budget_says_by_how_much_and_which_step_took_longest() {
        let mut report = Report {
            elapsed_s: 40.0,
            dependencies_build_s: Some(5.0),
            budget_s: Some(30),
            phases: Phases {
                driver_build_s: 22.0,
                search_s: 6.0,
                mutation_s: 0.0,
                write_and_verify_s: 11.5,
            },
            ..Report::default()
        };
        let mut out = Vec::new();
        report.print_summary(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.contains("over --budget                       by 5.0s; the longest step was the driver build (22.0s)\n"),
            "{text}"
        );
        // Within a second of the budget, the dependencies' build left out: nothing to say.
        report.elapsed_s = 35.9;
        assert_eq!(report.over_budget(), None);
        report.dependencies_build_s = None;
        assert!(report.over_budget().is_some_and(|o| (o - 5.9).abs() < 1e-9));
    }

    #[test]
    fn lcov_gives_each_branch_and_each_line_with_branches() {
        let at = |line, covered| Branch {
            file: PathBuf::from("src/lib.rs"),
            line,
            covered,
        };
        let report = Report {
            package: "demo".into(),
            crate_dir: PathBuf::from("/w/demo"),
            branches: vec![at(7, true), at(3, false), at(7, false)],
            ..Report::default()
        };
        assert_eq!(
            report.lcov(),
            "TN:demo\nSF:/w/demo/src/lib.rs\nBRDA:3,0,0,0\nBRDA:7,0,1,1\nBRDA:7,0,2,0\n\
             BRF:3\nBRH:1\nDA:3,0\nDA:7,1\nLF:2\nLH:1\nend_of_record\n"
        );
    }
}
