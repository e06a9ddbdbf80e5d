//! `cargo hermetic generate`: the whole pipeline, from the user's crate to test files.

use crate::cli::GenerateArgs;
use crate::cluster::Cluster;
use crate::commit::Changes;
use crate::driver::{build, goals, process};
use crate::emit::attributes::Isolated;
use crate::emit::Suite;
use crate::isolate::Isolation;
use crate::report::{Branch, FindingReport, Report, UncoveredLine, UncoveredReport};
use crate::search::{self, ops::Space, values::ValuePool, SearchConfig};
use crate::selection::{callable_name, selected, selection_of, Selection};
use crate::shadow::Origin;
use crate::{analyze, cargo, emit, kept, lockfile, manifest, unchanged, verify};
use anyhow::{bail, Context, Result};
use hermetic_protocol::Outcome;
use indicatif::{ProgressBar, ProgressStyle};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// Candidates per search batch.
const BATCH: usize = 32;

/// The part of `--budget` kept for writing and verifying the tests (compiling them and running
/// them three times).
const VERIFICATION_SHARE: f64 = 0.35;

/// The part of `--budget` mutation analysis takes with `--mutation on` (the bound: at
/// most 30% of the run): the tests run against mutants and the tests sought for those alive
/// (the mutants' build runs beside the search; a wait for it after the search counts here).
const MUTATION_SHARE: f64 = 0.3;

/// When the search and the mutation phase stop (writing and verifying have no deadline).
#[derive(Debug, PartialEq)]
struct Deadlines {
    search: Option<Instant>,
    mutation: Option<Instant>,
}

/// The phases that take part of the budget, and whether they get shares of it.
struct Phases {
    verify: bool,
    mutation: bool,
    /// Whether the time is shared out between the phases (a run bounded by time). With
    /// `--max-executions` the phases are bounded by executions and `--budget` is a stop for
    /// the whole run only: shares of the time would end a phase early on a loaded machine (a
    /// slow build eats into them) and change the tests written.
    shared_out: bool,
}

/// The deadlines of a run that must end by `end` (`--budget` after it started, a first build
/// of the dependencies left out), whose search starts at `search_started`.
fn phase_deadlines(
    end: Option<Instant>,
    budget: Duration,
    search_started: Instant,
    phases: Phases,
) -> Deadlines {
    // Writing and verifying the tests get the last part of the budget; a slow build must not
    // leave the search without time: it gets at least a fifth.
    let verification_share = if phases.verify && phases.shared_out {
        budget.mul_f64(VERIFICATION_SHARE)
    } else {
        Duration::ZERO
    };
    let at_least = search_started + budget / 5;
    let mutation = end.map(|d| d.checked_sub(verification_share).unwrap_or(d).max(at_least));
    // Mutation analysis (the tests run against mutants, and the tests sought for those alive)
    // takes the last part of the rest; its build ran beside the search.
    let search = mutation.map(|d| {
        if phases.mutation && phases.shared_out {
            d.checked_sub(budget.mul_f64(MUTATION_SHARE))
                .unwrap_or(d)
                .max(at_least)
        } else {
            d
        }
    });
    Deadlines { search, mutation }
}

pub fn generate(args: &GenerateArgs) -> Result<Report> {
    let started = Instant::now();
    let budget = match (args.budget, args.max_executions) {
        (Some(b), _) => Some(Duration::from_secs(b)),
        (None, Some(_)) => None,
        (None, None) => Some(Duration::from_secs(GenerateArgs::DEFAULT_BUDGET)),
    };
    let target = cargo::locate(
        args.target.manifest_path.as_deref(),
        args.target.package.as_deref(),
        &args.features,
    )?;
    let status = Status::new(args.output.quiet);
    status.say(&format!("analysing {}", target.package));
    let options = analyze::Options {
        features: target.features.enabled.clone(),
        build_script_cfgs: analyze::build_script_cfgs(target.build_script.as_deref(), || {
            crate::cargo::rustc_version(&target.crate_dir)
        }),
        std_trait_calls: true,
        ..Default::default()
    };
    let mut cluster = analyze::analyze_with(&target.lib_rs, &target.crate_name, options)
        .with_context(|| format!("analyse {}", target.lib_rs.display()))?;
    let selection = selection(args, &cluster)?;
    let chosen: Vec<bool> = (0..cluster.callables.len())
        .map(|c| selected(&cluster, c, &selection))
        .collect();
    let mut isolation = Isolation::plan(
        args.isolate,
        &mut cluster,
        &chosen,
        &target.crate_dir.join("Cargo.toml"),
    );
    emit::check_in_the_way(&target.crate_dir, &cluster, Suite::Generated)?;
    if cluster.callables.is_empty() {
        return Ok(no_tests(
            args,
            &target.package,
            cluster.skipped.clone(),
            started,
            NOTHING_CALLABLE,
        ));
    }

    status.say("building the instrumented driver (the first build compiles the dependencies, outside --budget)");
    let work_dir = crate::work_dir::of(&target);
    let _busy = crate::work_dir::lock(&work_dir)?;
    let mutation = args.mutation == crate::cli::Switch::On;
    let build_started = Instant::now();
    let support = crate::support::locate(&work_dir)?;
    let built = build::build_driver(
        &target,
        &cluster,
        &work_dir,
        &support,
        &isolation.shadow(&cluster),
        !args.output.quiet,
    )?;
    isolation.time += built.isolate_time;
    // The one-time build of dependencies is outside the budget; the summary says how long it took.
    let driver_build = build_started.elapsed();
    let dependencies_build = built.compiled_dependencies.then_some(driver_build);
    let deadline = budget.map(|b| started + dependencies_build.unwrap_or_default() + b);
    let mut skipped = cluster.skipped.clone();
    let mut usable = vec![true; cluster.callables.len()];
    for u in &built.unsupported {
        usable[u.callable] = false;
        skipped.push(u.why.clone().skipped(callable_name(&cluster, u.callable)));
    }
    let jobs = args
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    let scratch = work_dir.join("scratch");
    std::fs::create_dir_all(&scratch).with_context(|| format!("create {}", scratch.display()))?;
    let launch = process::Launch {
        executable: built.executable.clone(),
        cwd: built.shadow.root.clone(),
        scratch,
        shared_child: args.no_static_isolation,
        real_env: args
            .env
            .split(',')
            .any(|p| p.trim() == "real" || p.trim() == "none"),
        watched: Default::default(),
    };
    let mut pool = process::DriverPool::start(launch.clone(), jobs, args.timeout_ms)?;
    let mapping = Instant::now();
    let goal_map = goals::map_goals(&built.executable, &pool.hello.pcs, &cluster, &selection)?;
    if std::env::var_os("HERMETIC_DEBUG").is_some() {
        debug_goal_map(&goal_map, mapping.elapsed());
    }
    let targets: Vec<usize> = (0..cluster.callables.len())
        .filter(|&c| usable[c] && selected(&cluster, c, &selection))
        .filter(|&c| {
            !matches!(
                cluster.callables[c].kind,
                crate::cluster::CallableKind::Fake(_)
            )
        })
        .collect();
    if targets.is_empty() {
        return Ok(no_tests(
            args,
            &target.package,
            skipped,
            started,
            NOTHING_CALLABLE,
        ));
    }
    if goal_map.len() == 0 {
        let why = "the selected code has no branches to cover (check --module and --function)";
        return Ok(no_tests(args, &target.package, skipped, started, why));
    }

    // The mutants' build needs only the selected code: it runs beside the search, so mutation
    // analysis' share of the budget goes to running the tests against mutants.
    let building = if mutation {
        let job = build::MutantsJob::new(&built, &target, &cluster, &selection, &work_dir)?;
        Some(crate::mutation::Building::start(job))
    } else {
        None
    };

    // The tests the last run wrote go first; those that still cover are kept as they are.
    let mut kept = kept::load(
        &cluster,
        &target.crate_dir,
        &target.workspace_root,
        &target.package,
        |c| selected(&cluster, c, &selection),
    );
    kept.cases
        .retain(|case| case.stmts.iter().all(|s| usable[s.callable]));
    // A whole package whose sources and command are as the last run left them: its tests are
    // all there is to write, unless one no longer runs as before or --extend asks for more.
    let whole_package =
        args.target.module.is_none() && args.target.function.is_none() && args.shard.is_none();
    let search_options = args.search_options(budget);
    let kept_only = whole_package
        && !args.extend
        && unchanged::matches(
            &target.workspace_root,
            &target.package,
            &target.crate_dir,
            &target.lib_rs,
            &search_options,
        );
    if kept_only {
        status.say(&format!(
            "the sources and the command are as the last run left them: running its {} tests (--extend searches for more)",
            kept.cases.len()
        ));
    } else if !kept.cases.is_empty() {
        status.say(&format!(
            "running the {} tests of the last run first",
            kept.cases.len()
        ));
    }

    let mut space = Space::new(
        &cluster,
        &usable,
        targets,
        ValuePool::from_literals(&cluster.literals),
    );
    let bar = status.bar(goal_map.len() as u64);
    let search_started = Instant::now();
    let Deadlines {
        search: search_deadline,
        mutation: deadline,
    } = phase_deadlines(
        deadline,
        budget.unwrap_or_default(),
        search_started,
        Phases {
            verify: !args.output.no_verify,
            mutation,
            shared_out: args.max_executions.is_none(),
        },
    );
    let cfg = SearchConfig {
        seed: args.seed,
        max_executions: args.max_executions,
        deadline: search_deadline,
        batch: BATCH,
        strategy: args.strategy,
        env_parts: env_parts(&args.env)?,
        mock_probability: args.mock_probability,
        mock_start: args.mock_start,
        isolate_probability: args.isolate_probability,
        isolate_start: args.isolate_start,
        stagnation_floor: (!args.no_early_stop).then_some(search::STAGNATION_FLOOR),
        start_from: std::mem::take(&mut kept.cases),
        kept_only,
    };
    let mut outcome = search::run(
        &mut space,
        &goal_map,
        &mut pool,
        &cfg,
        &mut |execs, covered| {
            bar.set_position(covered as u64);
            bar.set_message(format!("{execs} executions"));
        },
    )?;
    bar.finish_and_clear();
    let search_time = search_started.elapsed().as_secs_f64();
    let pool_pcs = pool.hello.pcs.clone();
    let containment = pool.layers;
    let real_env = pool.real_env;
    drop(pool);
    let (branches, mut uncovered) = branches_in_source(
        &goal_map,
        &outcome.covered,
        &pool_pcs,
        &built,
        &target.crate_dir,
    );
    for u in &mut uncovered {
        let callable = (0..cluster.callables.len())
            .find(|&c| crate::selection::callable_name(&cluster, c) == u.function);
        if let Some(c) = callable {
            u.refused_by_environment = outcome.refused.by_environment(c);
        }
    }
    let mutation_started = Instant::now();
    let mutation_report = if let Some(building) = building {
        status.say("running the tests against mutants of the code");
        let settings = crate::mutation::Settings {
            launch: &launch,
            jobs,
            timeout_ms: args.timeout_ms,
            real_env,
            seed: args.seed,
            deadline,
            shared_out: args.max_executions.is_none(),
            max_executions: args.max_executions.map_or(u64::MAX, |m| m / 5),
            stagnation_floor: (!args.no_early_stop)
                .then_some(crate::mutation::hunt::STAGNATION_FLOOR),
            hunt: !kept_only,
        };
        Some(crate::mutation::run(
            building,
            &space,
            &mut outcome.tests,
            &settings,
        )?)
    } else {
        None
    };

    let mutation_time = mutation_started.elapsed();
    status.say("writing and verifying the tests");
    let writing_started = Instant::now();
    let command = args.regenerate_command();
    // A test written as before keeps its name, whatever tests join it.
    let old_file = |path: &std::path::Path| {
        std::fs::read_to_string(target.crate_dir.join(path))
            .ok()
            .filter(|text| text.starts_with(&format!("// {}", emit::GENERATED_MARKER)))
    };
    let mut files = emit::emit_keeping_names(
        &cluster,
        &outcome.tests,
        Suite::Generated,
        &command,
        &old_file,
    );
    if args.target.function.is_some() {
        // Only the selected function's tests are replaced; the rest of each file stays.
        let subjects: Vec<usize> = (0..cluster.callables.len())
            .filter(|&c| selected(&cluster, c, &selection))
            .collect();
        files = emit::merge::keep_unselected(&target.crate_dir, files, |name| {
            emit::is_test_of(&cluster, &subjects, name)
        });
    }
    let origin = Origin {
        crate_dir: &target.crate_dir,
        workspace_root: &target.workspace_root,
        work_dir: &work_dir,
        support: &support,
        cargo_args: &target.features.cargo_args,
    };
    // The tests' fakes answer only where the attributes are: verification places them too.
    let verify_attributes = emit::attributes::needed_by(&isolation, &cluster, &files);
    let mut verified = if args.output.no_verify {
        verify::Verified::unchecked(files)
    } else {
        verify::verify(
            &origin,
            &cluster,
            Suite::Generated,
            files,
            &verify_attributes,
        )?
    };
    // Verification's first `--release` build compiles the dependencies again: one-time work,
    // outside the budget like the driver's.
    let dependencies_build = match (dependencies_build, verified.dependencies_build) {
        (d, v) if v.is_zero() => d,
        (d, v) => Some(d.unwrap_or_default() + v),
    };
    let files: Vec<_> = std::mem::take(&mut verified.files)
        .into_iter()
        .filter(|f| !f.test_names.is_empty())
        .collect();
    let mut isolated = Isolated::decide(isolation, &cluster, &files, &target.crate_dir)?;
    let tests_emitted: usize = files.iter().map(|f| f.test_names.len()).sum();
    let tests_without_assertions = outcome
        .tests
        .len()
        .saturating_sub(tests_emitted + verified.dropped.len());
    let contents = files.iter().map(|f| f.contents.as_str());
    let place = manifest::Place::of(&target);
    let runtime = manifest::runtime_for(contents, &place, args.output.runtime)?;
    // With the tests go the cases a rerun reads and the lock file that names the runtime.
    let mut along = Changes::default();
    if !args.output.dry_run {
        along = kept::changes(&kept.files(
            &cluster,
            &files,
            &outcome.tests,
            &target.workspace_root,
            &target.package,
        ));
        along.append(lockfile::change_or_say(&place, &work_dir, &runtime, |l| {
            status.say(l)
        }));
    }
    emit::apply_or_print(
        &target.crate_dir,
        &cluster,
        Suite::Generated,
        &files,
        &runtime,
        &mut |changes| {
            isolated.add_to(changes, &cluster, &target.crate_dir)?;
            changes.append(std::mem::take(&mut along));
            Ok(())
        },
        args.output.dry_run,
    )?;
    for line in runtime.describe(args.output.dry_run) {
        status.say(&line);
    }
    if whole_package && !args.output.dry_run {
        // Fingerprinted as written, so that the next run on the same sources finds them so.
        let recorded = unchanged::record(
            &target.workspace_root,
            &target.package,
            &target.crate_dir,
            &target.lib_rs,
            &search_options,
        );
        if let Err(e) = recorded {
            status.say(&format!(
                "could not record the sources' fingerprint ({e}): the next run searches again"
            ));
        }
    }
    if args.output.dry_run {
        for preview in isolated.preview(&cluster, &target.crate_dir) {
            println!("{preview}");
        }
    }

    let findings = outcome
        .findings
        .iter()
        .map(|f| FindingReport {
            call: f
                .case
                .stmts
                .last()
                .map(|s| callable_name(&cluster, s.callable))
                .unwrap_or_default(),
            outcome: describe(&f.outcome),
        })
        .collect();
    let count_covered = |kind| {
        outcome
            .covered
            .iter()
            .filter(|&&g| goal_map.goals[g].kind == kind)
            .count()
    };
    let unit_branches = {
        let units = isolated.unit_functions(&cluster);
        let in_units = |g: usize| {
            let goal = &goal_map.goals[g];
            goal.kind == goals::GoalKind::Branch && units.contains(&goal.function)
        };
        [
            outcome.covered.iter().filter(|&&g| in_units(g)).count(),
            (0..goal_map.goals.len()).filter(|&g| in_units(g)).count(),
        ]
    };
    let mut varied = std::collections::BTreeSet::new();
    for t in &outcome.tests {
        let e = &t.case.env;
        if !e.files.is_empty() || !e.dirs.is_empty() {
            varied.insert("files");
        }
        if !e.vars.is_empty() {
            varied.insert("variables");
        }
        if e.stdin.is_some() {
            varied.insert("stdin");
        }
        if e.now_secs.is_some() {
            varied.insert("clock");
        }
        if e.seed.is_some() {
            varied.insert("randomness");
        }
    }
    Ok(Report {
        no_tests: None,
        environment_touched: outcome
            .touched
            .parts()
            .into_iter()
            .map(String::from)
            .collect(),
        environment_varied: varied.into_iter().map(String::from).collect(),
        refused_by_runtime: outcome.refused_by_runtime,
        refused_by_sandbox: outcome.refused_by_sandbox,
        refused: outcome
            .refused
            .entries()
            .map(|(c, tried, times)| crate::report::RefusedReport {
                function: callable_name(&cluster, c),
                tried: tried.to_string(),
                times,
            })
            .collect(),
        containment: crate::report::Containment {
            seccomp: containment.seccomp,
            landlock: containment.landlock,
            read_only: containment.read_only,
            no_network: containment.no_network,
        },
        uncovered,
        branches,
        crate_dir: target.crate_dir.clone(),
        goals_reached_only_by_findings: outcome.reached_by_findings.len(),
        executions_to_final_coverage: outcome.executions_to_final_coverage,
        time_to_final_coverage_s: outcome.time_to_final_coverage_s,
        branch_gains: outcome
            .branch_gains
            .iter()
            .map(|&(e, n)| [e, n as u64])
            .collect(),
        package: target.package.clone(),
        seed: args.seed,
        budget_s: budget.map(|b| b.as_secs()),
        goals_total: goal_map.count(goals::GoalKind::Branch),
        goals_covered: count_covered(goals::GoalKind::Branch),
        public_functions: outcome.public_functions,
        public_functions_called: outcome.public_functions_called,
        checks_total: goal_map.count(goals::GoalKind::Check),
        checks_covered: count_covered(goals::GoalKind::Check),
        goals_infeasible: goal_map.count_infeasible(goals::GoalKind::Branch),
        checks_infeasible: goal_map.count_infeasible(goals::GoalKind::Check),
        infeasible_covered: outcome.infeasible_covered.len(),
        tests_emitted,
        tests_without_assertions,
        mutation: mutation_report,
        tests_dropped_unstable: verified.unstable_count(),
        tests_dropped_static_state: verified.count(verify::Failure::StaticState),
        tests_dropped_uncompilable: verified.count(verify::Failure::Uncompilable),
        tests_dropped_configuration: verified.configuration_count(),
        dropped: crate::report::DroppedReport::all(&verified),
        tests_using_private: files.iter().map(|f| f.using_private.len()).sum(),
        tests_using_mocks: files.iter().map(|f| f.using_mocks.len()).sum(),
        tests_using_fakes: files.iter().map(|f| f.using_fakes.len()).sum(),
        goals_needing_fakes: outcome.goals_needing_fakes,
        isolation: isolated.report(&cluster, &files, unit_branches),
        goals_needing_private: outcome.goals_needing_private,
        goals_needing_mocks: outcome.goals_needing_mocks,
        executions: outcome.executions,
        executions_avoided: outcome.avoided,
        executions_per_second: outcome.executions as f64 / search_time.max(1e-9),
        search_stopped: outcome.stopped.to_string(),
        elapsed_s: started.elapsed().as_secs_f64(),
        dependencies_build_s: dependencies_build.map(|d| d.as_secs_f64()),
        phases: crate::report::Phases {
            driver_build_s: driver_build.as_secs_f64(),
            search_s: search_time,
            mutation_s: if mutation {
                mutation_time.as_secs_f64()
            } else {
                0.0
            },
            write_and_verify_s: writing_started.elapsed().as_secs_f64(),
        },
        callables: cluster.callables.len(),
        skipped_by_reason: crate::skip::by_reason(&skipped),
        skipped,
        findings,
        files: files.iter().map(|f| f.path.clone()).collect(),
        dry_run: args.output.dry_run,
    })
}

/// Every branch goal placed in the crate's source, and the uncovered ones by function and line.
fn branches_in_source(
    goal_map: &goals::GoalMap,
    covered: &std::collections::BTreeSet<usize>,
    pcs: &[u64],
    built: &build::DriverBuild,
    crate_dir: &std::path::Path,
) -> (Vec<Branch>, Vec<UncoveredReport>) {
    let branch_goals: Vec<usize> = (0..goal_map.goals.len())
        .filter(|&g| goal_map.goals[g].kind == goals::GoalKind::Branch)
        .collect();
    let goal_pcs: Vec<u64> = branch_goals
        .iter()
        .map(|&g| pcs[goal_map.goals[g].counter as usize])
        .collect();
    let shadow_root = built
        .shadow
        .root
        .canonicalize()
        .unwrap_or_else(|_| built.shadow.root.clone());
    let mut sources: BTreeMap<std::path::PathBuf, Vec<String>> = BTreeMap::new();
    let mut branches = Vec::new();
    let mut uncovered: BTreeMap<&str, (usize, Vec<UncoveredLine>)> = BTreeMap::new();
    for (&g, pc) in branch_goals.iter().zip(&goal_pcs) {
        let goal = &goal_map.goals[g];
        let line = goal_map.place(g);
        let is_covered = covered.contains(&g);
        // The crate's own lines (not a macro's or std's), relative to its root.
        let place = line.and_then(|l| {
            let rel = l
                .file
                .strip_prefix(&shadow_root)
                .or_else(|_| l.file.strip_prefix(&built.shadow.root))
                .ok()?
                .to_path_buf();
            Some((rel, l.line))
        });
        if let Some((file, line)) = &place {
            branches.push(Branch {
                file: file.clone(),
                line: *line,
                covered: is_covered,
            });
        }
        if is_covered {
            continue;
        }
        if std::env::var_os("HERMETIC_DEBUG").is_some() {
            eprintln!("uncovered: {} pc {pc:#x}", goal.function);
        }
        let entry = uncovered.entry(goal.function.as_str()).or_default();
        entry.0 += 1;
        let Some((file, line)) = place else { continue };
        if let Some(same) = entry
            .1
            .iter_mut()
            .find(|u| u.file == file && u.line == line)
        {
            same.branches += 1;
            continue;
        }
        let text = sources.entry(file.clone()).or_insert_with(|| {
            std::fs::read_to_string(crate_dir.join(&file))
                .unwrap_or_default()
                .lines()
                .map(str::to_string)
                .collect()
        });
        let source = text
            .get(line.saturating_sub(1) as usize)
            .map(|t| t.trim().to_string())
            .unwrap_or_default();
        entry.1.push(UncoveredLine {
            file,
            line,
            source,
            branches: 1,
        });
    }
    let uncovered = uncovered
        .into_iter()
        .map(|(function, (goals, mut lines))| {
            lines.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
            UncoveredReport {
                function: function.to_string(),
                goals,
                branches: lines,
                refused_by_environment: Vec::new(),
            }
        })
        .collect();
    (branches, uncovered)
}

/// What `HERMETIC_DEBUG` shows of the goals: the counters proven infeasible, and the functions
/// left without a proof.
fn debug_goal_map(goal_map: &goals::GoalMap, took: Duration) {
    eprintln!(
        "goals: {} ({} counters proven infeasible, {} goals) mapped in {:.1} ms ({:.1} ms proving)",
        goal_map.len(),
        goal_map.infeasible.len(),
        goal_map.count_infeasible(goals::GoalKind::Branch)
            + goal_map.count_infeasible(goals::GoalKind::Check),
        took.as_secs_f64() * 1e3,
        goal_map.proof_time.as_secs_f64() * 1e3
    );
    for i in &goal_map.infeasible {
        eprintln!(
            "infeasible: {} pc {:#x} (counter {}, {:?})",
            i.function, i.pc, i.counter, i.kind
        );
    }
    for (function, why) in &goal_map.unproven {
        eprintln!("infeasible: no proof for {function}: {why:?}");
    }
}

/// The `--env` list: which parts of the environment the search sets up (`none`: the real
/// environment, not virtualised at all).
fn env_parts(list: &str) -> Result<search::env::EnvParts> {
    let mut parts = search::env::EnvParts {
        files: false,
        stdin: false,
        other: false,
    };
    for item in list.split(',').map(str::trim) {
        match item {
            "all" => parts = search::env::EnvParts::default(),
            "none" | "real" | "virtual" => {}
            "files" => parts.files = true,
            "stdin" => parts.stdin = true,
            "other" => parts.other = true,
            other => bail!("unknown --env part `{other}` (expected all, none, real, virtual, files, stdin, other)"),
        }
    }
    Ok(parts)
}

fn selection(args: &GenerateArgs, cluster: &Cluster) -> Result<Selection> {
    let mut selection = selection_of(
        args.target.module.as_deref(),
        args.target.function.as_deref(),
        cluster,
    )?;
    selection.shard = args.shard;
    Ok(selection)
}

/// Why a run with nothing callable in its selection wrote no tests.
const NOTHING_CALLABLE: &str = "nothing in the selection can be called by hermetic yet";

/// The report of a run that had nothing to search: what was skipped, and why no tests.
fn no_tests(
    args: &GenerateArgs,
    package: &str,
    skipped: Vec<crate::cluster::Skipped>,
    started: Instant,
    why: &str,
) -> Report {
    Report {
        package: package.to_string(),
        seed: args.seed,
        no_tests: Some(why.to_string()),
        skipped_by_reason: crate::skip::by_reason(&skipped),
        skipped,
        dry_run: args.output.dry_run,
        elapsed_s: started.elapsed().as_secs_f64(),
        ..Report::default()
    }
}

fn describe(o: &Outcome) -> String {
    match o {
        Outcome::Crashed {
            stack_overflow: true,
            ..
        } => "overflows its stack".into(),
        Outcome::Crashed { signal, .. } if *signal == libc::SIGABRT => "aborts the process".into(),
        // The driver reports no signal when the code stopped it or corrupted its report.
        Outcome::Crashed { signal: 0, .. } => "stops hermetic's driver".into(),
        Outcome::Crashed { signal, .. } => format!("kills the process with signal {signal}"),
        Outcome::Timeout { .. } => "does not return (timed out)".into(),
        Outcome::Panicked { message, .. } if crate::search::exhausted_resources(message) => {
            format!("runs out of threads or memory ({message})")
        }
        Outcome::Exited { code, .. } => format!("exits the process with code {code}"),
        Outcome::Completed | Outcome::Panicked { .. } | Outcome::Invalid { .. } => format!("{o:?}"),
    }
}

/// Progress on stderr: a line per phase and a bar while searching.
struct Status {
    quiet: bool,
}

impl Status {
    fn new(quiet: bool) -> Status {
        Status { quiet }
    }

    fn say(&self, msg: &str) {
        if !self.quiet {
            eprintln!("  {msg}");
        }
    }

    fn bar(&self, goals: u64) -> ProgressBar {
        if self.quiet {
            return ProgressBar::hidden();
        }
        let bar = ProgressBar::new(goals);
        bar.set_style(
            ProgressStyle::with_template(
                "  searching [{elapsed_precise}] {bar:30} {pos}/{len} goals, {msg}",
            )
            .expect("valid template"),
        );
        bar.enable_steady_tick(Duration::from_millis(200));
        bar
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: Duration = Duration::from_secs(600);

    fn phases(shared_out: bool) -> Phases {
        Phases {
            verify: true,
            mutation: true,
            shared_out,
        }
    }

    #[test]
    fn a_run_bounded_by_time_shares_the_budget_out_between_the_phases() {
        let start = Instant::now();
        let end = start + BUDGET;
        let d = phase_deadlines(Some(end), BUDGET, start, phases(true));
        assert_eq!(d.mutation, Some(end - BUDGET.mul_f64(VERIFICATION_SHARE)));
        assert_eq!(
            d.search,
            Some(end - BUDGET.mul_f64(VERIFICATION_SHARE + MUTATION_SHARE))
        );
    }

    #[test]
    fn with_max_executions_a_slow_build_does_not_shorten_the_later_phases() {
        // The driver's build took half of the budget on a busy machine: the phases would have
        // had 120 s, the mutation phase nothing of it once the search used its share.
        let start = Instant::now();
        let end = start + BUDGET;
        let search_started = start + BUDGET / 2;
        let d = phase_deadlines(Some(end), BUDGET, search_started, phases(false));
        assert_eq!(d.search, Some(end));
        assert_eq!(d.mutation, Some(end));
    }

    #[test]
    fn without_a_budget_nothing_has_a_deadline() {
        let d = phase_deadlines(None, Duration::ZERO, Instant::now(), phases(false));
        assert_eq!(
            d,
            Deadlines {
                search: None,
                mutation: None
            }
        );
    }
}
