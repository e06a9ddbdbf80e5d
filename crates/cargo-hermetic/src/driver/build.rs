//! Building the driver: shadow copy, generated dispatch modules, one instrumented build.

use super::codegen::{self, Unsupported, DISPATCH_MODULE};
use super::goals::Selection;
use crate::cargo::{self, BuildOutcome, CompileError, Target};
use crate::cluster::{Cluster, UnitId};
use crate::mutation::schemata::{self, SiteFile};
use crate::mutation::Mutant;
use crate::shadow::{self, Origin, Shadow};
use anyhow::{bail, Result};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

pub struct DriverBuild {
    pub executable: PathBuf,
    pub shadow: Shadow,
    /// Callables that have no working dispatch entry, with the reason.
    pub unsupported: Vec<Unsupported>,
    /// The time spent writing the isolate attributes into the shadow copy.
    pub isolate_time: std::time::Duration,
    /// Whether cargo compiled dependencies (a first build): that time is outside the budget.
    pub compiled_dependencies: bool,
    /// The mutants compiled into the driver (empty without mutation analysis).
    pub mutants: Vec<Mutant>,
    /// Mutants left out because the compiler rejected their rewrite (unviable).
    pub mutants_unviable: usize,
}

/// How many times a build is retried after disabling the calls its errors point at.
const MAX_REBUILDS: usize = 4;
/// How many more times it is retried after leaving out mutation sites the compiler rejected.
const MAX_MUTATION_REBUILDS: usize = 3;

/// Copies the crate, isolates the units `isolated` lists (`crate::isolate`), injects the driver
/// (and, with `mutation`, the schemata of the selected code's mutants) and builds it with
/// coverage instrumentation; with `progress`, cargo's progress shows.
pub fn build_driver(
    target: &Target,
    cluster: &Cluster,
    work_dir: &Path,
    isolated: &[(UnitId, Vec<String>)],
    mutation: Option<&Selection>,
    progress: bool,
) -> Result<DriverBuild> {
    shadow::write_support_crate(work_dir)?;
    let origin = Origin {
        crate_dir: &target.crate_dir,
        workspace_root: &target.workspace_root,
        work_dir,
        cargo_args: &target.features.cargo_args,
    };
    let mut support = vec!["hermetic-driver"];
    if !isolated.is_empty() || cluster.units.iter().any(|u| u.attribute.is_some()) {
        // The isolated code calls `::hermetic::fakes`.
        support.push(crate::manifest::RUNTIME);
    }
    let shadow = shadow::copy_crate(&origin, "shadow", &support)?;
    let isolating = std::time::Instant::now();
    crate::isolate::write(
        &shadow.root,
        &target.crate_dir,
        cluster,
        isolated,
        crate::isolate::Layout::SameLines,
    )?;
    let isolate_time = isolating.elapsed();
    let dispatch_dir = work_dir.join("dispatch");
    let mut disabled = BTreeSet::new();
    let mut injected = false;
    let mut sites: Vec<SiteFile> = Vec::new();
    let mut unviable: BTreeSet<u32> = BTreeSet::new();
    let mut mutation_rebuilds = 0;
    let mut attempts = 0;
    while attempts <= MAX_REBUILDS + mutation_rebuilds {
        attempts += 1;
        let (files, unsupported) = codegen::generate(cluster, &disabled);
        let mut paths = Vec::new();
        for f in &files {
            let path = dispatch_dir.join(format!("module_{}.rs", f.module));
            shadow::write_if_changed(&path, &f.source)?;
            paths.push((f.module, path));
        }
        if !injected {
            shadow::inject_modules(&shadow, &target.crate_dir, cluster, DISPATCH_MODULE, &paths)?;
            // The dispatch modules name `::hermetic_driver`.
            shadow::declare_extern_crate(&shadow, &target.crate_dir, cluster, "hermetic_driver")?;
            injected = true;
            if let Some(selection) = mutation {
                sites = schemata::find_sites(cluster, selection, &target.crate_dir, &shadow.root)?;
            }
        }
        let (mutants, rewritten) = schemata::rewrite(&sites, &unviable);
        for f in &rewritten {
            shadow::write_if_changed(&shadow.root.join(&f.path), &f.text)?;
        }
        let manifest = shadow.root.join("Cargo.toml");
        let outcome = cargo::build_test_binary(
            &manifest,
            &shadow.target_dir,
            &target.features.cargo_args,
            cargo::SANCOV_FLAGS,
            progress,
        )?;
        match outcome {
            BuildOutcome::Built {
                executable,
                compiled_dependencies: n,
            } => {
                let all: usize = sites
                    .iter()
                    .flat_map(|f| &f.sites)
                    .map(|s| s.alternatives.len())
                    .sum();
                return Ok(DriverBuild {
                    executable,
                    shadow,
                    unsupported,
                    isolate_time,
                    compiled_dependencies: n > 0,
                    mutants_unviable: all - mutants.len(),
                    mutants,
                });
            }
            BuildOutcome::Failed(errors) => {
                let (in_dispatch, in_crate): (Vec<CompileError>, Vec<CompileError>) =
                    errors.into_iter().partition(|e| {
                        e.file
                            .as_ref()
                            .is_some_and(|f| f.starts_with(&dispatch_dir))
                    });
                if !in_crate.is_empty() {
                    // With schemata, the crate's own files may hold rewrites the compiler
                    // rejects: leave those sites out and build again.
                    let live: BTreeSet<u32> = sites
                        .iter()
                        .flat_map(|f| &f.sites)
                        .map(|s| s.first)
                        .filter(|s| !unviable.contains(s))
                        .collect();
                    if live.is_empty() || mutation_rebuilds >= MAX_MUTATION_REBUILDS {
                        if !live.is_empty() {
                            // The rejected rewrites could not be pinned: build without any.
                            unviable.extend(live);
                            mutation_rebuilds += 1;
                            continue;
                        }
                        bail!(crate_does_not_compile(&in_crate));
                    }
                    let mut blamed: BTreeSet<u32> = in_crate
                        .iter()
                        .filter_map(|e| Some(schemata::blame(&sites, e.file.as_ref()?, e.line)))
                        .flatten()
                        .filter(|s| live.contains(s))
                        .collect();
                    if blamed.is_empty() {
                        blamed = live;
                    }
                    unviable.extend(blamed);
                    mutation_rebuilds += 1;
                    continue;
                }
                let culprits = blame(&in_dispatch, &paths)?;
                if culprits.is_empty() || culprits.is_subset(&disabled) {
                    bail!("the driver did not compile:\n{}", render(&in_dispatch));
                }
                disabled.extend(culprits);
            }
        }
    }
    bail!("the driver did not compile after disabling the calls it could not build")
}

fn crate_does_not_compile(errors: &[CompileError]) -> String {
    format!(
        "the crate does not compile, so no tests can be generated; fix these errors first \
         (`cargo test --lib` shows them too):\n{}",
        render(errors)
    )
}

/// The callables whose dispatch entries the errors (all in dispatch files) point at.
fn blame(errors: &[CompileError], paths: &[(usize, PathBuf)]) -> Result<BTreeSet<usize>> {
    let mut culprits = BTreeSet::new();
    for e in errors {
        let Some(file) = &e.file else { continue };
        let Some((_, path)) = paths.iter().find(|(_, p)| p == file) else {
            continue;
        };
        let source = std::fs::read_to_string(path)?;
        let call = source
            .lines()
            .take(e.line)
            .filter_map(|l| l.trim_start().strip_prefix("fn call_"))
            .last()
            .and_then(|rest| rest.split('(').next()?.parse::<usize>().ok());
        if let Some(id) = call {
            culprits.insert(id);
        }
    }
    Ok(culprits)
}

fn render(errors: &[CompileError]) -> String {
    errors
        .iter()
        .map(|e| e.rendered.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}
