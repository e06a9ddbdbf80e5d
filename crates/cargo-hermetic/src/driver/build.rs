//! Building the driver: shadow copy, generated dispatch modules, one instrumented build.

use super::codegen::{self, Disabled, Unsupported, DISPATCH_MODULE};
use crate::cargo::{self, BuildOutcome, CompileError, Target};
use crate::cluster::{Cluster, UnitId};
use crate::errors::Failure;
use crate::mutation::schemata;
use crate::mutation::schemata::{Mutant, SiteFile};
use crate::selection::Selection;
use crate::shadow::{self, Origin, Shadow};
use crate::support::Support;
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
}

/// The driver rebuilt with the selected code's mutants (mutation analysis).
pub struct MutantsBuild {
    pub executable: PathBuf,
    /// The mutants compiled in.
    pub mutants: Vec<Mutant>,
    /// Mutants left out because the compiler rejected their rewrite (unviable).
    pub unviable: usize,
    /// Builds it took (the last one succeeded).
    pub builds: usize,
    /// How long they took.
    pub seconds: f64,
}

/// How many times a build is retried after disabling the calls its errors point at.
const MAX_REBUILDS: usize = 4;
/// How many times the mutants' build is retried after leaving out the rewrites the compiler
/// rejected (each error leaves out the innermost rewrite it points into, so a handful of
/// rounds settles: type errors, then borrow errors).
const MAX_MUTATION_REBUILDS: usize = 6;

/// Copies the crate, isolates the units `isolated` lists (`crate::isolate`), injects the driver
/// and builds it with coverage instrumentation, against the support crates of `support`; with
/// `progress`, cargo's progress shows. The search's drivers run a copy of the executable
/// (`search-driver` in the work directory): the mutants' build, and other runs' builds in a
/// shared target directory, may replace the original while the search runs.
pub fn build_driver(
    target: &Target,
    cluster: &Cluster,
    work_dir: &Path,
    support: &Support,
    isolated: &[(UnitId, Vec<String>)],
    progress: bool,
) -> Result<DriverBuild> {
    let origin = Origin {
        crate_dir: &target.crate_dir,
        workspace_root: &target.workspace_root,
        work_dir,
        support,
        cargo_args: &target.features.cargo_args,
    };
    let mut support = vec!["hermetic-driver"];
    if !isolated.is_empty() || cluster.units.iter().any(|u| u.attribute.is_some()) {
        // The isolated code calls `::hermetic::fakes`.
        support.push(crate::manifest::RUNTIME);
    }
    let shadow = shadow::copy_crate(&origin, "shadow", &support)?;
    shadow::optimise_support(&shadow.root.join("Cargo.toml"))?;
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
    let mut disabled = Disabled::default();
    let mut injected = false;
    // Packages compiled over all attempts: a first build whose attempt failed compiled the
    // dependencies all the same.
    let mut compiled = 0;
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
            shadow::std_in_tests(&shadow, &target.crate_dir, cluster)?;
            injected = true;
        }
        let manifest = shadow.root.join("Cargo.toml");
        let outcome = cargo::build_test_binary(
            &manifest,
            &shadow.target_dir,
            &target.features.cargo_args,
            cargo::SANCOV_FLAGS,
            progress,
            &work_dir.join("search-driver"),
        )?;
        compiled += outcome.compiled_dependencies();
        match outcome {
            BuildOutcome::Built { executable, .. } => {
                return Ok(DriverBuild {
                    executable,
                    shadow,
                    unsupported,
                    isolate_time,
                    compiled_dependencies: compiled > 0,
                });
            }
            BuildOutcome::Failed { errors, .. } => {
                let (in_dispatch, in_crate): (Vec<CompileError>, Vec<CompileError>) =
                    errors.into_iter().partition(|e| {
                        e.file
                            .as_ref()
                            .is_some_and(|f| f.starts_with(&dispatch_dir))
                    });
                if !in_crate.is_empty() {
                    return Err(crate_does_not_compile(&in_crate).into());
                }
                if std::env::var_os("HERMETIC_DEBUG").is_some() {
                    eprintln!(
                        "driver calls the compiler rejected:\n{}",
                        render(&in_dispatch)
                    );
                }
                let culprits = blame(&in_dispatch, &paths, cluster)?;
                if culprits.callables.is_subset(&disabled.callables)
                    && culprits.types.is_subset(&disabled.types)
                {
                    bail!("the driver did not compile:\n{}", render(&in_dispatch));
                }
                disabled.callables.extend(culprits.callables);
                disabled.types.extend(culprits.types);
            }
        }
    }
    bail!("the driver did not compile after disabling the calls it could not build")
}

/// What the mutants' build needs, owned, so that it can run beside the search.
pub struct MutantsJob {
    /// The selected code's sites, read from the driver's copy before any rewrite.
    sites: Vec<SiteFile>,
    root: PathBuf,
    target_dir: PathBuf,
    cargo_args: Vec<String>,
    /// Where the executable is copied (`mutants-driver` in the work directory).
    keep: PathBuf,
}

impl MutantsJob {
    /// The selected code's mutation sites in the driver's copy, and where to build them.
    pub fn new(
        built: &DriverBuild,
        target: &Target,
        cluster: &Cluster,
        selection: &Selection,
        work_dir: &Path,
    ) -> Result<MutantsJob> {
        let shadow = &built.shadow;
        Ok(MutantsJob {
            sites: schemata::find_sites(cluster, selection, &target.crate_dir, &shadow.root)?,
            root: shadow.root.clone(),
            target_dir: shadow.target_dir.clone(),
            // The features the search's build had, so the dependencies are not built again.
            cargo_args: target.features.cargo_args.clone(),
            keep: work_dir.join("mutants-driver"),
        })
    }
}

/// Rebuilds the driver's copy with the mutants of the selected code spliced in (no coverage
/// instrumentation: mutation analysis asks only which mutants a test reaches and what it
/// sees). The coverage search runs on the build without them, so its goals are the code's
/// own; it runs a copy of that build's executable (`build_driver`), so this build can run
/// beside it. Rewrites the compiler rejects are left out, and counted unviable.
pub fn build_mutants(job: MutantsJob) -> Result<MutantsBuild> {
    let started = std::time::Instant::now();
    let MutantsJob {
        sites,
        root,
        target_dir,
        cargo_args,
        keep,
    } = job;
    let all: usize = sites
        .iter()
        .flat_map(|f| &f.sites)
        .map(|s| s.alternatives.len())
        .sum();
    let manifest = root.join("Cargo.toml");
    let mut unviable: BTreeSet<u32> = BTreeSet::new();
    let mut builds = 0;
    loop {
        builds += 1;
        let (mutants, rewritten) = schemata::rewrite(&sites, &unviable);
        for f in &rewritten {
            shadow::write_if_changed(&root.join(&f.path), &f.text)?;
        }
        let outcome = cargo::build_test_binary(
            &manifest,
            &target_dir,
            &cargo_args,
            &["--cap-lints=warn"],
            false,
            &keep,
        )?;
        let errors = match outcome {
            BuildOutcome::Built { executable, .. } => {
                return Ok(MutantsBuild {
                    executable,
                    unviable: all - mutants.len(),
                    mutants,
                    builds,
                    seconds: started.elapsed().as_secs_f64(),
                });
            }
            BuildOutcome::Failed { errors, .. } => errors,
        };
        if std::env::var_os("HERMETIC_DEBUG").is_some() {
            eprintln!("mutants the compiler rejected:\n{}", render(&errors));
        }
        let live: BTreeSet<u32> = sites
            .iter()
            .flat_map(|f| &f.sites)
            .map(|s| s.first)
            .filter(|s| !unviable.contains(s))
            .collect();
        if live.is_empty() {
            bail!(
                "the driver's copy did not compile without mutants:\n{}",
                render(&errors)
            );
        }
        let blamed: BTreeSet<u32> = errors
            .iter()
            .filter_map(|e| {
                let file = e.file.as_ref()?;
                Some(schemata::blame(&sites, &rewritten, file, e.span, e.line))
            })
            .flatten()
            .filter(|s| live.contains(s))
            .collect();
        if blamed.is_empty() || builds > MAX_MUTATION_REBUILDS {
            // What the compiler rejects cannot be pinned: build without any.
            unviable.extend(live);
        } else {
            unviable.extend(blamed);
        }
    }
}

fn crate_does_not_compile(errors: &[CompileError]) -> Failure {
    Failure::CrateDoesNotCompile {
        what: format!(
            "the crate does not compile, so no tests can be generated; fix these errors first \
             (`cargo test --lib` shows them too):\n{}",
            render(errors)
        ),
    }
}

/// What the errors (all in dispatch files) point at: a callable's dispatch entry (`fn call_N`)
/// or a crate type's `Decode`/`Observe` impl, whichever the error's line is in.
fn blame(
    errors: &[CompileError],
    paths: &[(usize, PathBuf)],
    cluster: &Cluster,
) -> Result<Disabled> {
    let mut culprits = Disabled::default();
    for e in errors {
        let Some(file) = &e.file else { continue };
        let Some((module, path)) = paths.iter().find(|(_, p)| p == file) else {
            continue;
        };
        let source = std::fs::read_to_string(path)?;
        match enclosing_item(&source, e.line) {
            Some(Enclosing::Call(id)) => {
                culprits.callables.insert(id);
            }
            Some(Enclosing::TypeImpl(name)) => {
                let id = cluster
                    .types
                    .iter()
                    .position(|t| t.module == *module && t.name == name);
                culprits.types.extend(id);
            }
            None => {}
        }
    }
    Ok(culprits)
}

/// The generated item a position in a dispatch file is in.
#[derive(Debug, PartialEq)]
enum Enclosing {
    /// Dispatch entry `fn call_N`.
    Call(usize),
    /// `impl .. ::hermetic_driver::Decode/Observe for Name..` of a crate type.
    TypeImpl(String),
}

/// The top-level generated item that line `line` (1-based) of a dispatch file is in.
fn enclosing_item(source: &str, line: usize) -> Option<Enclosing> {
    let lines: Vec<&str> = source.lines().collect();
    let start = lines[..line.min(lines.len())]
        .iter()
        .rposition(|l| l.starts_with("fn call_") || l.starts_with("impl"))?;
    let item = lines[start..].join("\n");
    if let Some(rest) = item.strip_prefix("fn call_") {
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        return digits.parse().ok().map(Enclosing::Call);
    }
    let header = &item[..item.find('{').unwrap_or(item.len())];
    let name_at = [
        "::hermetic_driver::Decode for ",
        "::hermetic_driver::Observe for ",
    ]
    .iter()
    .find_map(|p| header.find(p).map(|i| i + p.len()))?;
    let name: String = header[name_at..]
        .trim_start_matches("r#")
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then_some(Enclosing::TypeImpl(name))
}

fn render(errors: &[CompileError]) -> String {
    errors
        .iter()
        .map(|e| e.rendered.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_pinned_on_the_entry_or_type_impl_it_is_in() {
        let file = "fn call_3(args: &[Value]) {\n    f(x)\n}\n\
                    impl<\n    S: 'static,\n> ::hermetic_driver::Decode for Finder<S>\nwhere\n    S: Sys,\n{\n";
        assert_eq!(enclosing_item(file, 2), Some(Enclosing::Call(3)));
        for line in [4, 5, 6, 9] {
            assert_eq!(
                enclosing_item(file, line),
                Some(Enclosing::TypeImpl("Finder".into())),
                "line {line}"
            );
        }
        let mock = "impl ::hermetic_driver::Observe for MockSys {\n    fn observe(&self) {}\n}\n";
        assert_eq!(
            enclosing_item(mock, 2),
            Some(Enclosing::TypeImpl("MockSys".into()))
        );
        assert_eq!(enclosing_item("use super::*;\n", 1), None);
    }
}
