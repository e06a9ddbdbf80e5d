//! Building the driver: shadow copy, generated dispatch modules, one instrumented build.

use super::codegen::{self, Unsupported, DISPATCH_MODULE};
use crate::cargo::{self, BuildOutcome, CompileError, Target};
use crate::cluster::{Cluster, UnitId};
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
}

/// How many times a build is retried after disabling the calls its errors point at.
const MAX_REBUILDS: usize = 4;

/// Copies the crate, isolates the units `isolated` lists (`crate::isolate`), injects the driver
/// and builds it with coverage instrumentation.
pub fn build_driver(
    target: &Target,
    cluster: &Cluster,
    work_dir: &Path,
    isolated: &[(UnitId, Vec<String>)],
) -> Result<DriverBuild> {
    let support = shadow::write_support_crate(work_dir)?;
    let origin = Origin {
        crate_dir: &target.crate_dir,
        workspace_root: &target.workspace_root,
        work_dir,
    };
    let runtime = shadow::runtime_dir()?;
    let mut extra: Vec<(&str, &Path)> = vec![("hermetic-driver", &support)];
    if !isolated.is_empty() {
        // The isolated code calls `::hermetic::fakes`.
        extra.push(("hermetic", &runtime));
    }
    let shadow = shadow::copy_crate(&origin, "shadow", &extra)?;
    let isolating = std::time::Instant::now();
    crate::isolate::write(&shadow.root, &target.crate_dir, cluster, isolated)?;
    let isolate_time = isolating.elapsed();
    let dispatch_dir = work_dir.join("dispatch");
    let mut disabled = BTreeSet::new();
    let mut injected = false;
    for _ in 0..=MAX_REBUILDS {
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
        }
        let manifest = shadow.root.join("Cargo.toml");
        match cargo::build_test_binary(&manifest, &shadow.target_dir, cargo::SANCOV_FLAGS)? {
            BuildOutcome::Built(executable) => {
                return Ok(DriverBuild {
                    executable,
                    shadow,
                    unsupported,
                    isolate_time,
                })
            }
            BuildOutcome::Failed(errors) => {
                let culprits = blame(&errors, &paths, &dispatch_dir)?;
                if culprits.is_empty() || culprits.is_subset(&disabled) {
                    bail!("the driver did not compile:\n{}", render(&errors));
                }
                disabled.extend(culprits);
            }
        }
    }
    bail!("the driver did not compile after disabling the calls it could not build")
}

/// The callables whose dispatch entries the errors point at. Errors outside the dispatch files
/// mean the crate itself does not compile.
fn blame(
    errors: &[CompileError],
    paths: &[(usize, PathBuf)],
    dispatch_dir: &Path,
) -> Result<BTreeSet<usize>> {
    let mut culprits = BTreeSet::new();
    let in_crate: Vec<&CompileError> = errors
        .iter()
        .filter(|e| !e.file.as_ref().is_some_and(|f| f.starts_with(dispatch_dir)))
        .collect();
    if !in_crate.is_empty() {
        bail!(
            "the crate does not compile, so no tests can be generated; fix these errors first \
             (`cargo test --lib` shows them too):\n{}",
            in_crate
                .iter()
                .map(|e| e.rendered.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }
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
