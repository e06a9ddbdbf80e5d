//! The report of a recorded run: what was seen, what became tests, what was skipped and why,
//! and what the probes cost.

use crate::cluster::Skipped;
use crate::report::DroppedReport;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Debug, Default, Serialize)]
pub struct RecordReport {
    pub package: String,
    /// The program (or `cargo test`) and its arguments, as run.
    pub command: Vec<String>,
    /// How the recorded program ended: `exit code 0`, `killed by signal 6`, ...
    pub program_status: String,
    /// Probed calls made by the run (all calls, captured or only counted; when a process
    /// crashed before writing its counts, at least the captured ones).
    pub calls_seen: u64,
    /// Calls captured in full (the first calls of each function).
    pub calls_traced: usize,
    /// Traced calls that could become a test (values and result captured and read back).
    pub calls_usable: usize,
    /// Traced calls whose behaviour (function and kind of result) a passing test shows: the
    /// test replays this call or an equal one, or another call of the same function that ended
    /// the same way (`Ok`, `Err(NotFound)`, `None`, a panic, ...).
    pub calls_tested: usize,
    /// `calls_tested / calls_traced`, in percent.
    pub calls_tested_percent: f64,
    /// Traced calls that became no test, grouped by reason.
    pub calls_skipped: Vec<SkippedCalls>,
    /// Distinct usable calls (function, arguments, result and environment).
    pub distinct_calls: usize,
    /// Distinct calls replayed by a passing test of their own.
    pub distinct_calls_with_a_test: usize,
    pub tests_emitted: usize,
    pub tests_dropped_unstable: usize,
    pub tests_dropped_uncompilable: usize,
    pub dropped: Vec<DroppedReport>,
    pub functions_probed: usize,
    /// Functions of the selection without a probe, and functions analysis skipped.
    pub skipped: Vec<Skipped>,
    /// `skipped` counted by reason, most frequent first.
    pub skipped_by_reason: Vec<crate::skip::ReasonCount>,
    /// Wall time of the probed run.
    pub probed_run_s: f64,
    /// Wall time of an unprobed run of the same command (`--measure-slowdown`).
    pub unprobed_run_s: Option<f64>,
    /// `probed_run_s / unprobed_run_s`.
    pub slowdown: Option<f64>,
    pub elapsed_s: f64,
    pub files: Vec<PathBuf>,
    pub dry_run: bool,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SkippedCalls {
    pub function: String,
    pub reason: String,
    pub calls: usize,
}

impl RecordReport {
    pub fn write_json(&self, path: &Path) -> anyhow::Result<()> {
        use anyhow::Context;
        let text = serde_json::to_string_pretty(self).context("serialise the report")?;
        std::fs::write(path, text + "\n").with_context(|| format!("write {}", path.display()))
    }

    pub fn print_summary(&self, out: &mut impl Write) -> std::io::Result<()> {
        writeln!(out)?;
        writeln!(out, "  hermetic record: {}", self.package)?;
        let skipped: usize = self.calls_skipped.iter().map(|s| s.calls).sum();
        let mut rows = vec![
            ("program", self.program_status.clone()),
            ("probed functions", self.functions_probed.to_string()),
            ("calls seen", self.calls_seen.to_string()),
            (
                "calls traced",
                format!("{} ({} distinct)", self.calls_traced, self.distinct_calls),
            ),
            (
                "calls shown by passing tests",
                format!(
                    "{} / {} ({:.1}%)",
                    self.calls_tested, self.calls_traced, self.calls_tested_percent
                ),
            ),
            (
                "distinct calls with a test",
                format!(
                    "{} / {}",
                    self.distinct_calls_with_a_test, self.distinct_calls
                ),
            ),
            ("calls skipped", skipped.to_string()),
            ("tests emitted", self.tests_emitted.to_string()),
            (
                "tests dropped (failed or flaky)",
                self.tests_dropped_unstable.to_string(),
            ),
            (
                "tests dropped (did not compile)",
                self.tests_dropped_uncompilable.to_string(),
            ),
            ("probed run", format!("{:.2}s", self.probed_run_s)),
        ];
        if let (Some(u), Some(s)) = (self.unprobed_run_s, self.slowdown) {
            rows.push(("unprobed run", format!("{u:.2}s (slowdown {s:.2}x)")));
        }
        rows.push(("time", format!("{:.1}s", self.elapsed_s)));
        for (k, v) in rows {
            writeln!(out, "  {k:<34}{v}")?;
        }
        if self.calls_seen == 0 {
            writeln!(
                out,
                "  warning: the run made no call to a probed function; check the program's \
                 arguments (after `--`) and --module/--function"
            )?;
        }
        for s in &self.calls_skipped {
            writeln!(
                out,
                "  - {} call(s) of {} skipped: {}",
                s.calls, s.function, s.reason
            )?;
        }
        for d in self.dropped.iter().take(5) {
            writeln!(out, "  x dropped {} ({})", d.test, d.reason)?;
        }
        for s in self.skipped.iter().take(10) {
            writeln!(out, "  - no tests for {}: {}", s.item, s.detail)?;
        }
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
