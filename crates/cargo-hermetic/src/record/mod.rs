//! `cargo hermetic record`: runs the package's program (or its tests) with probes on the
//! library's functions, and turns the calls it made into unit tests that replay what each call
//! read (seed 002: tests from a recorded execution).
//!
//! analyze → probes in a shadow copy → build → run with the runtime in record mode → log →
//! cases (Debug text read back by type, environment from the call's reads) → emit → verify.
//!
//! Record knows nothing of the search: it feeds `emit` and `verify` the same structures
//! `generate` does, emitted as `Suite::Recorded` (`crate::suite`; `MockLedger::recorded()` the
//! one difference).
//!
//! Why `Debug` text rather than a generated capture trait: no code generated per type, it works on
//! any type the user derived `Debug` for, and a type without it falls back to "opaque" through
//! autoref specialisation (`hermetic::record::Wrap`) instead of a compile error. Three widenings
//! keep that shape.
//!
//! First, the probed copy derives `Debug` for crate types that have none (`probes.rs`, marked
//! `#[cfg_attr(any(), doc = "__hermetic_debug N")]` so a derive the compiler rejects is traced to
//! its type and left out, `Limits::no_debug`); the tests build such values by their literal and
//! never need the derive.
//!
//! Second, for crate types whose `Debug` is hand-written or missing but that implement `Display`,
//! `FromStr` and `PartialEq` (`analyze::shown_by_display`; record's analysis lists a
//! `CallableKind::Parse` constructor for each), the wrapper asks (`wrapper::Shown`, through
//! references, boxes and a result's `Ok`/`Some`) for the `Display` text too, which the runtime
//! keeps only when it parses back to an equal value (`ViaDisplay`/`ViaNoDisplay`, autoref
//! specialisation again, so types without those traits still compile). `Shown::range_bounds` marks
//! `impl RangeBounds<T>` arguments, captured as `hermetic::record::Bounds`, whose `Debug` text is
//! the range a test writes (`3..`, `..=7`).
//!
//! Third, a crate type with a hand-written `Debug` and no such `Display` gets, in the probed copy,
//! an `impl hermetic::record::Capture` (`literals.rs`) that writes the value's literal in derived
//! `Debug`'s shape; probes try it first (`(&&&Wrap(&v)).capture(w)`: `ViaCapture`, then `ViaDebug`,
//! then `ViaOpaque`), and the engine reads the text back like a derived one for the types whose
//! impl survived (`Probed::literals`, kept in `Learnt`).
//!
//! Inside generic code the probe sees a type parameter, so neither `Debug` nor `Display` can be
//! picked there: such values stay opaque.

mod cases;
mod copy;
mod debug_text;
mod learnt;
mod literals;
mod log;
mod mocks;
mod probes;
mod program;
mod proxy_syntax;
mod random;
mod report;
mod values;
mod wrapper;

pub use report::RecordReport;

use crate::cli::RecordArgs;
use crate::cluster::{CallableId, Cluster, Skipped};
use crate::emit::Suite;
use crate::errors::Failure;
use crate::selection::{callable_name, selected, selection_of};
use crate::shadow::{self, Origin};
use crate::skip::{SkipReason, Why};
use crate::test_case::FinishedTest;
use crate::{analyze, cargo, emit, manifest, verify};
use anyhow::{Context, Result};
use cases::Candidate;
use copy::ProbedCopy;
use program::Build;
use report::SkippedCalls;
use std::collections::{BTreeMap, HashSet};
use std::time::Instant;

/// Tests written per function: one per behaviour (the way it ended: `Ok`, `Some(Add)`, a
/// panic, ...), at most [`MAX_BEHAVIOURS_PER_FUNCTION`], then other distinct calls up to
/// [`MAX_TESTS_PER_FUNCTION`].
const MAX_BEHAVIOURS_PER_FUNCTION: usize = 8;
const MAX_TESTS_PER_FUNCTION: usize = 4;

impl RecordArgs {
    fn regenerate_command(&self) -> String {
        let mut cmd = String::from("cargo hermetic record");
        if let Some(p) = &self.target.package {
            cmd += &format!(" -p {p}");
        }
        if let Some(m) = &self.target.module {
            cmd += &format!(" --module {m}");
        }
        if let Some(f) = &self.target.function {
            cmd += &format!(" --function {f}");
        }
        if self.test {
            cmd += " --test";
        }
        cmd
    }
}

pub fn record(args: &RecordArgs) -> Result<RecordReport> {
    let started = Instant::now();
    let say = |msg: &str| {
        if !args.output.quiet {
            eprintln!("  {msg}");
        }
    };
    let target = cargo::locate(
        args.target.manifest_path.as_deref(),
        args.target.package.as_deref(),
        &Default::default(),
    )?;
    let bin = if args.test {
        None
    } else {
        Some(program::pick_binary(&target, args.bin.as_deref())?)
    };
    say(&format!("analysing {}", target.package));
    // A recorded run calls the methods of trait impls too (a search reaches them otherwise).
    let options = analyze::Options {
        features: target.features.enabled.clone(),
        build_script_cfgs: analyze::build_script_cfgs(target.build_script.as_deref(), || {
            crate::cargo::rustc_version(&target.crate_dir)
        }),
        ..analyze::Options::record()
    };
    let cluster = analyze::analyze_with(&target.lib_rs, &target.crate_name, options)
        .with_context(|| format!("analyse {}", target.lib_rs.display()))?;
    let sel = selection_of(
        args.target.module.as_deref(),
        args.target.function.as_deref(),
        &cluster,
    )?;
    emit::check_in_the_way(&target.crate_dir, &cluster, Suite::Recorded)?;
    let chosen: Vec<CallableId> = (0..cluster.callables.len())
        .filter(|&c| selected(&cluster, c, &sel))
        .collect();

    let work_dir = crate::work_dir::of(&target);
    let _busy = crate::work_dir::lock(&work_dir)?;
    // The recorded program builds in the work directory's own target directory (or
    // `CARGO_HERMETIC_TARGET_DIR`): its runs use the executables where cargo put them.
    let support =
        crate::support::locate(&work_dir)?.building_in(crate::support::own_target_dir(&work_dir));
    let origin = Origin {
        crate_dir: &target.crate_dir,
        workspace_root: &target.workspace_root,
        work_dir: &work_dir,
        support: &support,
        cargo_args: &target.features.cargo_args,
    };
    say("building the probed program");
    let skipped_fns = skipped_functions(
        &cluster,
        args.target.module.as_deref(),
        args.target.function.as_deref(),
    );
    let what = match &bin {
        Some(b) => Build::Binary(b),
        None => Build::Tests,
    };
    let ProbedCopy { copy, probed, exe } = copy::build(
        &origin,
        &target,
        &cluster,
        &chosen,
        skipped_fns,
        &what,
        args.release,
    )?;
    let copy_manifest = copy.root.join("Cargo.toml");
    // Both builds share cargo's target directory: keep each executable apart.
    let exe = exe
        .map(|e| program::keep_executable(&e, &work_dir.join("record-bin/probed")))
        .transpose()?;

    let cwd = std::env::current_dir().context("find the working directory")?;
    let plain = if args.measure_slowdown {
        let plain = shadow::copy_crate(&origin, "record-plain", &[])?;
        let plain_manifest = plain.root.join("Cargo.toml");
        let plain_exe =
            match program::build(&plain_manifest, &plain.target_dir, &what, args.release)? {
                program::Built::Ok(exe) => exe,
                program::Built::Failed(errors) => {
                    return Err(Failure::CrateDoesNotCompile {
                        what: format!(
                            "the crate did not build:\n{}",
                            errors
                                .iter()
                                .map(|e| e.rendered.as_str())
                                .collect::<Vec<_>>()
                                .join("\n")
                        ),
                    }
                    .into())
                }
            }
            .map(|e| program::keep_executable(&e, &work_dir.join("record-bin/plain")))
            .transpose()?;
        Some((plain, plain_manifest, plain_exe))
    } else {
        None
    };
    let log_path = work_dir.join("record.jsonl");
    let mut probed_times = Vec::new();
    let mut plain_times = Vec::new();
    let mut last = None;
    for round in 0..args.repeat.max(1) {
        if let Some((plain, plain_manifest, plain_exe)) = &plain {
            say("running the program without probes (to measure the slowdown)");
            let r = program::run(
                &what,
                plain_exe.as_deref(),
                plain_manifest,
                &plain.target_dir,
                args.release,
                &args.args,
                &[],
            )?;
            plain_times.push(r.elapsed.as_secs_f64());
        }
        if log_path.exists() {
            std::fs::remove_file(&log_path)
                .with_context(|| format!("remove the old log {}", log_path.display()))?;
        }
        if round == 0 {
            say(&format!(
                "running the probed program in {} (its output follows)",
                cwd.display()
            ));
        }
        let r = program::run(
            &what,
            exe.as_deref(),
            &copy_manifest,
            &copy.target_dir,
            args.release,
            &args.args,
            &[(hermetic_log_var(), &log_path)],
        )?;
        probed_times.push(r.elapsed.as_secs_f64());
        last = Some(r);
    }
    let ran = last.expect("at least one run");
    let program_status = program::describe(&ran.status);
    if !ran.status.success() {
        say(&format!(
            "the program ended with {program_status}; the calls that completed are used"
        ));
    }
    let log = log::read(&log_path)?;

    say("writing and verifying the tests");
    let command = args.regenerate_command();
    let (usable, mut skipped_calls) = candidates(&cluster, &log, &probed);
    let distinct: HashSet<&str> = usable.iter().map(|c| c.key.as_str()).collect();
    let tests = choose_tests(&usable);
    let finished: Vec<FinishedTest> = tests.iter().map(|c| c.test.clone()).collect();
    let files = emit::emit(&cluster, &finished, Suite::Recorded, &command);
    let verified = if args.output.no_verify {
        verify::Verified::unchecked(files)
    } else {
        verify::verify(&origin, &cluster, Suite::Recorded, files, &[])?
    };
    let dropped = crate::report::DroppedReport::all(&verified);
    let tests_dropped = verified.unstable_count() + verified.count(verify::Failure::StaticState);
    let tests_uncompilable = verified.count(verify::Failure::Uncompilable);
    let files: Vec<_> = verified
        .files
        .into_iter()
        .filter(|f| !f.test_names.is_empty())
        .collect();
    let tests_emitted: usize = files.iter().map(|f| f.test_names.len()).sum();

    // Which behaviours passing tests show.
    let kept_bodies: HashSet<String> = files.iter().flat_map(|f| bodies(&f.contents)).collect();
    let mut shown: HashSet<(CallableId, &str)> = HashSet::new();
    let mut distinct_tested = 0;
    for c in &tests {
        let alone = emit::emit(
            &cluster,
            std::slice::from_ref(&c.test),
            Suite::Recorded,
            &command,
        );
        let body = alone.iter().flat_map(|f| bodies(&f.contents)).next();
        if body.is_some_and(|b| kept_bodies.contains(&b)) {
            shown.insert((c.callable, c.behaviour.as_str()));
            distinct_tested += 1;
        }
    }
    let calls_tested = usable
        .iter()
        .filter(|c| shown.contains(&(c.callable, c.behaviour.as_str())))
        .count();
    for c in &usable {
        if !shown.contains(&(c.callable, c.behaviour.as_str())) {
            let tried = tests
                .iter()
                .find(|t| t.callable == c.callable && t.behaviour == c.behaviour);
            let reason = match tried.map(|t| &t.unreplayed) {
                Some(Some(why)) => format!("its test failed verification ({why})"),
                Some(None) => "its test failed verification".to_string(),
                None => "over the limit of tests per function".to_string(),
            };
            *skipped_calls
                .entry((callable_name(&cluster, c.callable), reason))
                .or_default() += 1;
        }
    }

    let contents = files.iter().map(|f| f.contents.as_str());
    let place = manifest::Place::of(&target);
    let runtime = manifest::runtime_for(contents, &place, args.output.runtime)?;
    let beside_generated = files.iter().any(|f| {
        let generated = f.path.with_file_name(Suite::Generated.file_name());
        target.crate_dir.join(generated).is_file()
    });
    if beside_generated {
        say(&format!(
            "the tests of `cargo hermetic generate` ({}) are kept; the recorded ones go beside them ({})",
            Suite::Generated.file_name(),
            Suite::Recorded.file_name()
        ));
    }
    emit::apply_or_print(
        &target.crate_dir,
        &cluster,
        Suite::Recorded,
        &files,
        &runtime,
        &mut |changes| {
            if !args.output.dry_run {
                changes.append(crate::lockfile::change_or_say(
                    &place, &work_dir, &runtime, say,
                ));
            }
            Ok(())
        },
        args.output.dry_run,
    )?;
    for line in runtime.describe(args.output.dry_run) {
        say(&line);
    }

    let calls_traced = log.calls.len();
    let captured_sites: u64 = log.calls.len() as u64;
    let calls_seen = if log.counted {
        log.counts.values().sum::<u64>().max(captured_sites)
    } else {
        captured_sites
    };
    let mut skipped = not_probed(&cluster, &probed);
    skipped.sort_by(|a, b| a.item.cmp(&b.item));
    let probed_run_s = median(&mut probed_times).unwrap_or_default();
    let unprobed_run_s = median(&mut plain_times);
    Ok(RecordReport {
        package: target.package.clone(),
        command: ran.command,
        program_status,
        calls_seen,
        calls_traced,
        calls_usable: usable.len(),
        calls_tested,
        calls_tested_percent: if calls_traced == 0 {
            0.0
        } else {
            100.0 * calls_tested as f64 / calls_traced as f64
        },
        calls_skipped: skipped_calls
            .into_iter()
            .map(|((function, reason), calls)| SkippedCalls {
                function,
                reason,
                calls,
            })
            .collect(),
        distinct_calls: distinct.len(),
        distinct_calls_with_a_test: distinct_tested,
        tests_emitted,
        tests_dropped_unstable: tests_dropped,
        tests_dropped_uncompilable: tests_uncompilable,
        dropped,
        functions_probed: probed.probed.len(),
        skipped_by_reason: crate::skip::by_reason(&skipped),
        skipped,
        probed_run_s,
        unprobed_run_s,
        slowdown: unprobed_run_s.map(|u| probed_run_s / u.max(1e-9)),
        elapsed_s: started.elapsed().as_secs_f64(),
        files: files.iter().map(|f| f.path.clone()).collect(),
        dry_run: args.output.dry_run,
    })
}

/// Calls skipped, by (function, reason), and how many.
type SkippedTally = BTreeMap<(String, String), usize>;

/// The recorded calls that can become tests, and the others with why not.
fn candidates(
    cluster: &Cluster,
    log: &log::Log,
    probed: &probes::Probed,
) -> (Vec<Candidate>, SkippedTally) {
    let mut skipped = SkippedTally::new();
    let mut usable = Vec::new();
    let learnt = learnt::Learnt::from_log(cluster, &log.calls, probed.literals.clone());
    for rec in &log.calls {
        if let Some((item, reason)) = rec
            .site
            .checked_sub(cluster.callables.len())
            .and_then(|e| probed.extras.get(e))
        {
            *skipped
                .entry((item.clone(), not_testable(reason)))
                .or_default() += 1;
            continue;
        }
        let no_proxy = probed.no_proxy.get(&rec.site).map(String::as_str);
        match cases::candidate(cluster, &learnt, rec, no_proxy) {
            Ok(c) => usable.push(c),
            Err(why) => {
                let f = if rec.site < cluster.callables.len() {
                    callable_name(cluster, rec.site)
                } else {
                    format!("#{}", rec.site)
                };
                *skipped.entry((f, why)).or_default() += 1;
            }
        }
    }
    (usable, skipped)
}

/// The tests to write: distinct calls, a few per function (see [`MAX_TESTS_PER_FUNCTION`]).
fn choose_tests(usable: &[Candidate]) -> Vec<&Candidate> {
    let mut by_fn: BTreeMap<CallableId, Vec<&Candidate>> = BTreeMap::new();
    let mut unique: HashSet<&str> = HashSet::new();
    for c in usable {
        if unique.insert(c.key.as_str()) {
            by_fn.entry(c.callable).or_default().push(c);
        }
    }
    let mut tests = Vec::new();
    for cands in by_fn.values() {
        let calls: Vec<(&str, &str)> = cands
            .iter()
            .map(|c| (c.behaviour.as_str(), c.key.as_str()))
            .collect();
        for i in cases::choose(&calls, MAX_BEHAVIOURS_PER_FUNCTION, MAX_TESTS_PER_FUNCTION) {
            tests.push(cands[i]);
        }
    }
    tests
}

fn median(xs: &mut [f64]) -> Option<f64> {
    xs.sort_by(f64::total_cmp);
    xs.get(xs.len() / 2).copied()
}

/// The runtime's variable that switches record mode on (`hermetic::record::LOG_VAR`; the engine
/// does not link the runtime).
fn hermetic_log_var() -> &'static str {
    "HERMETIC_RECORD"
}

/// Why calls of a function analysis skipped become no test (trait-typed ones need a mock).
fn not_testable(reason: &str) -> String {
    if reason.contains("needs a mock") || reason.contains("trait object") {
        format!("needs a mock: {reason}")
    } else {
        format!("not supported: {reason}")
    }
}

/// Functions analysis skipped, within the selection (item → reason): they get probes too, so
/// their calls are counted and reported as skipped.
fn skipped_functions(
    cluster: &Cluster,
    module: Option<&str>,
    function: Option<&str>,
) -> std::collections::HashMap<String, String> {
    let module = module.map(|m| m.trim_start_matches("crate::").to_string());
    cluster
        .skipped
        .iter()
        .filter(|s| !s.detail.starts_with("struct literal") && !s.item.ends_with("::default"))
        .filter(|s| {
            module
                .as_ref()
                .is_none_or(|m| s.item == *m || s.item.starts_with(&format!("{m}::")))
        })
        .filter(|s| function.is_none_or(|f| s.item == f || s.item.ends_with(&format!("::{f}"))))
        .map(|s| (s.item.clone(), s.detail.clone()))
        .collect()
}

/// Functions analysis skipped and selected functions left without a probe.
fn not_probed(cluster: &Cluster, probed: &probes::Probed) -> Vec<Skipped> {
    let mut out: Vec<Skipped> = cluster
        .skipped
        .iter()
        .map(|s| Skipped {
            detail: not_testable(&s.detail),
            ..s.clone()
        })
        .collect();
    out.extend(probed.unprobed.iter().map(|(c, why)| {
        Why::new(SkipReason::NotProbed, why.clone()).skipped(callable_name(cluster, *c))
    }));
    out
}

/// The bodies of the test functions in a generated file, as token text.
fn bodies(contents: &str) -> Vec<String> {
    let body = contents.split_once('\n').map_or(contents, |(_, b)| b);
    let Ok(file) = syn::parse_file(body) else {
        return vec![];
    };
    file.items
        .iter()
        .filter_map(|i| match i {
            syn::Item::Fn(f) => {
                let b = &f.block;
                Some(quote::quote!(#b).to_string())
            }
            _ => None,
        })
        .collect()
}
