//! The final tests against the mutants they reach: which mutants each test kills, and with
//! which of its assertions; the assertions kept are the fewest that kill every mutant the test
//! can kill, with the one on the call's result and those on the output and files the code left
//! always among them (EvoSuite's assertion minimisation by mutation analysis).
//!
//! A test kills a mutant when, run against it, it would fail: the mutant makes a call panic,
//! crash or hang where the original did not, or the other way round (a `should_panic` test whose
//! panic is gone), or an assertion sees another value. The first kind kills whatever the test
//! asserts; the second is what assertions are chosen by.

use super::Mutant;
use crate::cluster::Cluster;
use crate::driver::execute::ExecRequest;
use crate::driver::process::{DriverPool, Mutation};
use crate::emit;
use crate::test_case::{Assertion, FinishedTest};
use anyhow::Result;
use hermetic_protocol::{ExecReport, Outcome};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

/// A mutant hangs (and is killed) when, run by a test, it evaluates more mutation sites than
/// `HANG_FACTOR` times the original code did under the same test, and at least `HANG_FLOOR`:
/// a count, so the verdict is the same on a busy machine as on an idle one and the tests
/// chosen by it do not change with the load. The search's time limit (`--timeout-ms`) stays
/// as a backstop for hangs that evaluate no site (a loop outside the mutated code).
pub(crate) const HANG_FACTOR: u64 = 10;
pub(crate) const HANG_FLOOR: u64 = 1 << 20;

/// The site evaluations a mutant run may make, for a test whose original run made
/// `original` (`Mutation::max_site_evaluations`).
pub(crate) fn hang_limit(original: u64) -> u64 {
    original.saturating_mul(HANG_FACTOR).max(HANG_FLOOR)
}

/// What the analysis found, for the report.
#[derive(Debug, Default)]
pub struct Analysis {
    /// Ids of the mutants some kept test kills.
    pub killed: BTreeSet<u32>,
    /// Ids of the mutants some test reaches.
    pub reached: BTreeSet<u32>,
    /// Assertions dropped because they killed no mutant another one did not.
    pub assertions_dropped: usize,
    pub assertions_kept: usize,
    /// Executions against mutants.
    pub executions: u64,
    pub seconds: f64,
    /// The mutants reached but not killed, with the tests (by index) that reach them.
    pub alive_reached: BTreeMap<u32, Vec<usize>>,
    /// Whether every test ran against every mutant it reaches before the deadline (if not,
    /// the kills are those seen, and the tests keep all their assertions).
    pub incomplete: bool,
}

impl Analysis {
    /// Adds what an analysis of more tests found.
    pub fn merge(&mut self, more: Analysis) {
        self.killed.extend(more.killed);
        self.reached.extend(more.reached);
        self.assertions_dropped += more.assertions_dropped;
        self.assertions_kept += more.assertions_kept;
        self.executions += more.executions;
        self.seconds += more.seconds;
        self.alive_reached.retain(|id, _| !self.killed.contains(id));
        self.incomplete |= more.incomplete;
    }
}

/// How a test fares against one mutant.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Fate {
    /// It fails whatever it asserts (a panic, crash or hang of its own).
    Fails,
    /// These assertions fail; none: the mutant survives this test.
    Caught(BTreeSet<Assertion>),
}

/// Runs each test against the mutants it reaches, chooses its assertions
/// (`FinishedTest::assertions`) and says which mutants the kept tests kill.
pub fn analyse(
    cluster: &Cluster,
    tests: &mut [FinishedTest],
    mutants: &[Mutant],
    pool: &mut DriverPool,
    deadline: Option<Instant>,
) -> Result<Analysis> {
    let started = Instant::now();
    let mut analysis = Analysis::default();
    let by_site: BTreeMap<u32, Vec<u32>> = mutants.iter().fold(BTreeMap::new(), |mut m, x| {
        m.entry(x.site).or_insert_with(Vec::new).push(x.id);
        m
    });
    // Which sites each test reaches.
    let originals = pool.exec_mutants(
        tests
            .iter()
            .map(|t| {
                let ExecRequest { calls, env, .. } = t.case.request();
                (
                    calls,
                    env,
                    Mutation {
                        mutant: 0,
                        report_reached: true,
                        max_site_evaluations: 0,
                    },
                )
            })
            .collect(),
        pool.timeout_ms,
    )?;
    analysis.executions += originals.len() as u64;
    let reach: Vec<Vec<u32>> = originals
        .iter()
        .map(|r| {
            r.reached_mutants
                .iter()
                .filter_map(|s| by_site.get(s))
                .flatten()
                .copied()
                .collect()
        })
        .collect();
    analysis.reached = reach.iter().flatten().copied().collect();

    // Rounds: the r-th test reaching each mutant. Each test's fates are its own (a mutant that
    // hangs under one test is run under the others too: a hang by count is quickly told), so
    // the assertions a test keeps do not depend on the tests beside it (a rerun that analyses
    // the last run's tests together keeps what the first run chose for each).
    let mut fates: Vec<BTreeMap<u32, Fate>> = vec![BTreeMap::new(); tests.len()];
    let mut runs: BTreeMap<u32, Vec<usize>> = BTreeMap::new();
    for (t, ids) in reach.iter().enumerate() {
        for &id in ids {
            runs.entry(id).or_default().push(t);
        }
    }
    let rounds = runs.values().map(Vec::len).max().unwrap_or(0);
    // Hangs are told by count (`hang_limit`); the time limit is the search's backstop.
    let timeout = pool.timeout_ms;
    // Mutants are judged against the original code in the same build: an observation that
    // differs between this build and the search's (an address, say) catches nothing.
    let baselines: Vec<FinishedTest> = tests
        .iter()
        .zip(originals)
        .map(|(t, report)| FinishedTest {
            report,
            ..t.clone()
        })
        .collect();
    let keys: Vec<Vec<(Assertion, String)>> = baselines
        .iter()
        .zip(tests.iter())
        .map(|(base, t)| {
            let own: BTreeMap<Assertion, String> =
                emit::assertion_keys(cluster, t).into_iter().collect();
            emit::assertion_keys(cluster, base)
                .into_iter()
                .filter(|(a, k)| own.get(a) == Some(k))
                .collect()
        })
        .collect();
    // Past the deadline the rounds stop: the tests keep every assertion (what they kill is
    // not known), and the score counts the kills seen.
    let mut complete = true;
    for round in 0..rounds {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            complete = false;
            break;
        }
        let mut batch = Vec::new();
        for (&id, ts) in &runs {
            let Some(&t) = ts.get(round) else { continue };
            batch.push((t, id));
        }
        let reports = pool.exec_mutants(
            batch
                .iter()
                .map(|&(t, id)| {
                    let ExecRequest { calls, env, .. } = tests[t].case.request();
                    (
                        calls,
                        env,
                        Mutation {
                            mutant: id,
                            report_reached: false,
                            max_site_evaluations: hang_limit(baselines[t].report.site_evaluations),
                        },
                    )
                })
                .collect(),
            timeout,
        )?;
        analysis.executions += reports.len() as u64;
        for ((t, id), report) in batch.into_iter().zip(reports) {
            fates[t].insert(id, fate(cluster, &baselines[t], &keys[t], report));
        }
    }

    for (t, test) in tests.iter_mut().enumerate() {
        let candidates: Vec<Assertion> = emit::assertion_keys(cluster, test)
            .into_iter()
            .map(|(a, _)| a)
            .collect();
        let kept = if complete {
            choose(test, &candidates, &fates[t])
        } else {
            // Not known to kill anything: a value's final state is left out (it is often
            // the debug text of private fields), the rest kept.
            candidates
                .iter()
                .filter(|a| !matches!(a, Assertion::Final(_)))
                .cloned()
                .collect()
        };
        if std::env::var_os("HERMETIC_DEBUG").is_some() {
            eprintln!(
                "mutation: test {t} ({} statements) keeps {kept:?} of {candidates:?}; fates {:?}",
                test.case.stmts.len(),
                fates[t]
            );
        }
        analysis.assertions_kept += kept.len();
        analysis.assertions_dropped += candidates.len() - kept.len();
        // A test left without assertions is not written: its kills do not count.
        let written = !kept.is_empty() || matches!(test.report.outcome, Outcome::Panicked { .. });
        if written {
            for (id, fate) in &fates[t] {
                let killed = match fate {
                    Fate::Fails => true,
                    Fate::Caught(by) => by.iter().any(|a| kept.contains(a)),
                };
                if killed {
                    analysis.killed.insert(*id);
                }
            }
        }
        test.assertions = Some(kept);
    }
    for (&id, ts) in &runs {
        if !analysis.killed.contains(&id) {
            analysis.alive_reached.insert(id, ts.clone());
        }
    }
    analysis.incomplete = !complete;
    analysis.seconds = started.elapsed().as_secs_f64();
    Ok(analysis)
}

/// How the test fares against a mutant, from the mutant's execution.
pub(crate) fn fate(
    cluster: &Cluster,
    test: &FinishedTest,
    keys: &[(Assertion, String)],
    report: ExecReport,
) -> Fate {
    let original = &test.report;
    let fails = match (&original.outcome, &report.outcome) {
        (Outcome::Completed, Outcome::Completed) => false,
        // `should_panic(expected = ..)` holds for the same message.
        (Outcome::Panicked { message: a, .. }, Outcome::Panicked { message: b, .. }) => a != b,
        _ => true,
    };
    // A value a later statement unwraps is gone.
    let unwrapped_gone = original
        .stmts
        .iter()
        .zip(&report.stmts)
        .any(|(o, m)| o.stored && !m.stored);
    if fails || unwrapped_gone {
        return Fate::Fails;
    }
    let mutated = FinishedTest {
        report,
        ..test.clone()
    };
    let seen: BTreeMap<Assertion, String> = emit::assertion_keys(cluster, &mutated)
        .into_iter()
        .collect();
    let caught: BTreeSet<Assertion> = keys
        .iter()
        .filter(|(a, k)| seen.get(a) != Some(k))
        .map(|(a, _)| a.clone())
        .collect();
    if std::env::var_os("HERMETIC_DEBUG").is_some() && !caught.is_empty() {
        eprintln!("mutation: {caught:?} sees {seen:?} instead of {keys:?}");
    }
    Fate::Caught(caught)
}

/// The fewest assertions that kill every mutant the test can kill by its assertions, the one
/// on the last call's result and those on what the code left in its environment (output,
/// files) always kept: a side effect is part of what the test is about (greedy set cover, ties
/// to the earlier assertion).
fn choose(
    test: &FinishedTest,
    candidates: &[Assertion],
    fates: &BTreeMap<u32, Fate>,
) -> BTreeSet<Assertion> {
    let mut kept = BTreeSet::new();
    let last = Assertion::Result(test.case.stmts.len().saturating_sub(1));
    if candidates.contains(&last) {
        kept.insert(last);
    }
    kept.extend(
        candidates
            .iter()
            .filter(|a| {
                matches!(
                    a,
                    Assertion::Stdout | Assertion::Stderr | Assertion::File(_)
                )
            })
            .cloned(),
    );
    let mut left: Vec<&BTreeSet<Assertion>> = fates
        .values()
        .filter_map(|f| match f {
            Fate::Caught(by) if !by.is_empty() && by.is_disjoint(&kept) => Some(by),
            _ => None,
        })
        .collect();
    while !left.is_empty() {
        let best = candidates
            .iter()
            .filter(|a| !kept.contains(*a))
            .map(|a| (left.iter().filter(|by| by.contains(a)).count(), a))
            .max_by_key(|&(n, a)| (n, std::cmp::Reverse(a)));
        let Some((_, a)) = best.filter(|&(n, _)| n > 0) else {
            break;
        };
        kept.insert(a.clone());
        left.retain(|by| !by.contains(a));
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mutant_hangs_past_ten_times_the_original_s_site_evaluations_and_at_least_the_floor() {
        assert_eq!(hang_limit(0), HANG_FLOOR);
        assert_eq!(hang_limit(HANG_FLOOR / 10), HANG_FLOOR);
        assert_eq!(hang_limit(HANG_FLOOR), 10 * HANG_FLOOR);
        assert_eq!(hang_limit(u64::MAX), u64::MAX);
    }

    fn caught(a: &[Assertion]) -> Fate {
        Fate::Caught(a.iter().cloned().collect())
    }

    #[test]
    fn the_fewest_assertions_that_kill_what_can_be_killed_and_always_the_result_and_side_effects() {
        let test = FinishedTest {
            case: crate::test_case::TestCase {
                home: 0,
                stmts: vec![
                    crate::test_case::Stmt {
                        callable: 0,
                        args: vec![],
                    };
                    3
                ],
                env: Default::default(),
            },
            report: ExecReport {
                ..ExecReport::empty(Outcome::Completed)
            },
            uses_private: false,
            uses_mocks: false,
            uses_fakes: false,
            unseen_fakes: Vec::new(),
            assertions: None,
        };
        let (r0, r1, r2, out) = (
            Assertion::Result(0),
            Assertion::Result(1),
            Assertion::Result(2),
            Assertion::Stdout,
        );
        let candidates = vec![r0.clone(), r1.clone(), r2.clone(), out.clone()];
        let fates: BTreeMap<u32, Fate> = [
            (1, caught(&[r2.clone(), r0.clone()])),
            (2, caught(&[r0.clone(), r1.clone()])),
            (3, caught(std::slice::from_ref(&r1))),
            (4, Fate::Fails),
            (5, caught(&[])),
        ]
        .into_iter()
        .collect();
        // The result kills 1; r1 kills 2 and 3; r0 adds nothing; stdout, a side effect, stays
        // though it adds nothing either.
        assert_eq!(
            choose(&test, &candidates, &fates),
            [r1, r2, out].into_iter().collect()
        );
    }
}
