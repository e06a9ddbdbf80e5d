//! Running cargo: metadata of the user's package, and builds of shadow copies.

use crate::errors::Failure;
use anyhow::{bail, Context, Result};
use cargo_metadata::{Message, MetadataCommand, Package};
use clap::Args;
use std::collections::{BTreeMap, BTreeSet};
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Which of the crate's features the builds turn on, as cargo spells it; `#[cfg(feature)]`
/// code is analysed the same way.
#[derive(Args, Debug, Clone, Default, PartialEq, Eq)]
pub struct FeatureArgs {
    /// Features to turn on, comma- or space-separated (as for `cargo build`).
    #[arg(short = 'F', long, value_name = "FEATURES")]
    pub features: Vec<String>,
    /// Turn on every feature of the crate.
    #[arg(long)]
    pub all_features: bool,
    /// Leave the crate's default features off.
    #[arg(long)]
    pub no_default_features: bool,
}

impl FeatureArgs {
    /// The features named in `--features`, one by one.
    pub fn requested(&self) -> Vec<String> {
        self.features
            .iter()
            .flat_map(|f| f.split([',', ' ']))
            .filter(|f| !f.is_empty())
            .map(str::to_string)
            .collect()
    }

    /// The flags for cargo, as given.
    pub fn cargo_args(&self) -> Vec<String> {
        let mut args = Vec::new();
        let requested = self.requested();
        if !requested.is_empty() {
            args.push("--features".to_string());
            args.push(requested.join(","));
        }
        if self.all_features {
            args.push("--all-features".to_string());
        }
        if self.no_default_features {
            args.push("--no-default-features".to_string());
        }
        args
    }
}

/// The package to work on, as cargo sees it.
pub struct Target {
    pub package: String,
    /// The library's name as Rust spells it.
    pub crate_name: String,
    /// The library's root file (`src/lib.rs`).
    pub lib_rs: PathBuf,
    /// The directory of the package's Cargo.toml.
    pub crate_dir: PathBuf,
    pub workspace_root: PathBuf,
    pub target_dir: PathBuf,
    /// The package's features the builds turn on.
    pub features: Features,
    /// The package's build script (`build.rs`), if it has one.
    pub build_script: Option<PathBuf>,
}

/// The package's features a build turns on, as cargo resolves them, and the flags that say so.
#[derive(Debug, Clone, Default)]
pub struct Features {
    /// Features on (`cfg(feature = "..")` holds for them), optional dependencies' implicit
    /// features included.
    pub enabled: BTreeSet<String>,
    /// `--features a,b`, `--all-features`, `--no-default-features`, as the user gave them.
    pub cargo_args: Vec<String>,
}

/// The features on for a package whose `[features]` table is `table` and whose optional
/// dependencies are `optional`: the defaults unless `--no-default-features`, those asked for,
/// everything with `--all-features`, and what they turn on in turn. An optional dependency
/// turned on makes its implicit feature (named after it) hold, unless the table names it
/// only as `dep:name`.
pub fn enabled_features(
    table: &BTreeMap<String, Vec<String>>,
    optional: &[String],
    args: &FeatureArgs,
) -> Result<BTreeSet<String>> {
    let hidden: BTreeSet<&str> = table
        .values()
        .flatten()
        .filter_map(|v| v.strip_prefix("dep:"))
        .collect();
    let implicit: BTreeSet<&str> = optional
        .iter()
        .map(String::as_str)
        .filter(|d| !hidden.contains(d) && !table.contains_key(*d))
        .collect();
    let exists = |f: &str| table.contains_key(f) || implicit.contains(f);
    let mut todo: Vec<String> = Vec::new();
    if args.all_features {
        todo.extend(table.keys().cloned());
        todo.extend(implicit.iter().map(|d| d.to_string()));
    }
    if !args.no_default_features && table.contains_key("default") {
        todo.push("default".to_string());
    }
    for f in args.requested() {
        // `dependency/feature` turns on a dependency's feature (and the dependency).
        let own = f.split('/').next().unwrap_or(&f).to_string();
        if !exists(&own) {
            let mut known: Vec<&str> = table.keys().map(String::as_str).collect();
            known.extend(&implicit);
            return Err(Failure::NotInCrate {
                what: format!(
                    "the package has no feature `{own}` (its features: {})",
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ),
            }
            .into());
        }
        todo.push(own);
    }
    let mut on = BTreeSet::new();
    while let Some(f) = todo.pop() {
        if !exists(&f) || !on.insert(f.clone()) {
            continue;
        }
        for v in table.get(&f).into_iter().flatten() {
            match v.split_once('/') {
                // `dep?/feat` turns on nothing of this package; `dep/feat` the dependency.
                Some((dep, _)) if !dep.ends_with('?') => todo.push(dep.to_string()),
                Some(_) => {}
                None if v.starts_with("dep:") => {}
                None => todo.push(v.clone()),
            }
        }
    }
    Ok(on)
}

/// The libraries of the package's dependencies: each one's name as Rust spells it and its root
/// file (empty when cargo cannot say, e.g. offline without the sources).
pub fn dependency_libs(manifest: &Path) -> Vec<(String, PathBuf)> {
    let Ok(meta) = MetadataCommand::new().manifest_path(manifest).exec() else {
        return Vec::new();
    };
    meta.packages
        .iter()
        .flat_map(|p| p.targets.iter().filter(|t| t.is_lib()))
        .map(|t| {
            (
                t.name.replace('-', "_"),
                t.src_path.clone().into_std_path_buf(),
            )
        })
        .collect()
}

/// Finds the package (by `-p` name, or the one the manifest path names) and its library.
/// The workspace's packages that have a library, by name (what `--workspace` generates for).
pub fn library_packages(manifest_path: Option<&Path>) -> Result<Vec<String>> {
    let mut cmd = MetadataCommand::new();
    cmd.no_deps();
    if let Some(p) = manifest_path {
        cmd.manifest_path(p);
    }
    let meta = cmd
        .exec()
        .context("run `cargo metadata` (is this a cargo project? try --manifest-path)")?;
    Ok(meta
        .workspace_packages()
        .iter()
        .filter(|p| p.targets.iter().any(|t| t.is_lib()))
        .map(|p| p.name.to_string())
        .collect())
}

pub fn locate(
    manifest_path: Option<&Path>,
    package: Option<&str>,
    features: &FeatureArgs,
) -> Result<Target> {
    let mut cmd = MetadataCommand::new();
    cmd.no_deps();
    if let Some(p) = manifest_path {
        if !p.exists() {
            return Err(Failure::NoPackage {
                what: format!(
                    "{} does not exist; pass --manifest-path with the path of the crate's Cargo.toml",
                    p.display()
                ),
            }
            .into());
        }
        cmd.manifest_path(p);
    }
    let meta = cmd.exec().map_err(|e| Failure::NoPackage {
        what: format!(
            "run `cargo metadata` (is this a cargo project? try --manifest-path): {:#}",
            anyhow::Error::from(e)
        ),
    })?;
    let candidates: Vec<&Package> = match package {
        Some(name) => meta
            .packages
            .iter()
            .filter(|p| p.name.as_str() == name)
            .collect(),
        None => match meta.root_package() {
            Some(p) => vec![p],
            None => meta.workspace_default_packages(),
        },
    };
    let pkg = match candidates.as_slice() {
        [one] => *one,
        [] => {
            let what = match package {
                Some(name) => format!(
                    "no package named `{name}` in this workspace (packages: {})",
                    meta.workspace_packages()
                        .iter()
                        .map(|p| p.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                None => "this workspace has no packages".to_string(),
            };
            return Err(Failure::NoPackage { what }.into());
        }
        many => {
            return Err(Failure::SeveralPackages {
                packages: many.iter().map(|p| p.name.to_string()).collect(),
            }
            .into())
        }
    };
    let lib = pkg
        .targets
        .iter()
        .find(|t| t.is_lib())
        .ok_or_else(|| Failure::NoLibrary {
            package: pkg.name.to_string(),
        })?;
    let optional: Vec<String> = pkg
        .dependencies
        .iter()
        .filter(|d| d.optional)
        .map(|d| d.rename.clone().unwrap_or_else(|| d.name.clone()))
        .collect();
    let enabled = enabled_features(&pkg.features, &optional, features)?;
    Ok(Target {
        features: Features {
            enabled,
            cargo_args: features.cargo_args(),
        },
        package: pkg.name.to_string(),
        crate_name: lib.name.replace('-', "_"),
        lib_rs: lib.src_path.clone().into_std_path_buf(),
        crate_dir: pkg
            .manifest_path
            .parent()
            .expect("a manifest has a parent")
            .to_path_buf()
            .into_std_path_buf(),
        workspace_root: meta.workspace_root.clone().into_std_path_buf(),
        target_dir: meta.target_directory.clone().into_std_path_buf(),
        build_script: pkg
            .targets
            .iter()
            .find(|t| t.is_custom_build())
            .map(|t| t.src_path.clone().into_std_path_buf()),
    })
}

/// The version of the `rustc` cargo builds the crate in `crate_dir` with (`$RUSTC`, else
/// `rustc`, run there so that a `rust-toolchain` file picks it), as `(major, minor)`.
pub fn rustc_version(crate_dir: &Path) -> Option<(u64, u64)> {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc)
        .arg("-vV")
        .current_dir(crate_dir)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let release = text.lines().find_map(|l| l.strip_prefix("release: "))?;
    let mut parts = release.split(['.', '-']);
    Some((parts.next()?.parse().ok()?, parts.next()?.parse().ok()?))
}

/// The flags that instrument the crate under test for coverage and comparison tracing.
pub const SANCOV_FLAGS: &[&str] = &[
    "-Cpasses=sancov-module",
    "-Cllvm-args=-sanitizer-coverage-level=3",
    "-Cllvm-args=-sanitizer-coverage-inline-8bit-counters",
    "-Cllvm-args=-sanitizer-coverage-pc-table",
    "-Cllvm-args=-sanitizer-coverage-trace-compares",
    "--cap-lints=warn",
];

/// A compiler error, with the file and line it points at.
#[derive(Debug, Clone)]
pub struct CompileError {
    pub file: Option<PathBuf>,
    pub line: usize,
    /// The bytes of `file` the error points at.
    pub span: Option<(usize, usize)>,
    pub rendered: String,
}

pub enum BuildOutcome {
    /// The unit-test executable, and how many of the packages it needs cargo compiled rather
    /// than found built (a first build, or one after the dependencies changed).
    Built {
        executable: PathBuf,
        compiled_dependencies: usize,
    },
    /// The compiler's errors; the packages compiled before it stopped still count (a first
    /// build that fails has built the dependencies all the same).
    Failed {
        errors: Vec<CompileError>,
        compiled_dependencies: usize,
    },
}

impl BuildOutcome {
    /// How many packages cargo compiled rather than found built, whether or not the build
    /// succeeded.
    pub fn compiled_dependencies(&self) -> usize {
        match self {
            BuildOutcome::Built {
                compiled_dependencies,
                ..
            }
            | BuildOutcome::Failed {
                compiled_dependencies,
                ..
            } => *compiled_dependencies,
        }
    }
}

/// Builds the library's unit-test binary of the crate at `manifest`, with `rustc_args` for the
/// crate only (dependencies build normally). With `progress`, cargo's own progress shows. The
/// executable is copied to `keep` ([`locked_build`]).
pub fn build_test_binary(
    manifest: &Path,
    target_dir: &Path,
    cargo_args: &[String],
    rustc_args: &[&str],
    progress: bool,
    keep: &Path,
) -> Result<BuildOutcome> {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.args([
        "rustc",
        "--lib",
        "--profile",
        "test",
        "--message-format=json",
    ])
    .arg("--manifest-path")
    .arg(manifest)
    .arg("--target-dir")
    .arg(target_dir)
    .args(cargo_args)
    // The search follows the counters code generation lays out; incremental builds split the
    // crate into other units, so the user's setting would change the tests a seed gives.
    .env("CARGO_INCREMENTAL", "0");
    if !rustc_args.is_empty() {
        cmd.arg("--").args(rustc_args);
    }
    locked_build(cmd, manifest, target_dir, progress, keep)
}

/// Builds the library's unit tests with plain `cargo test --no-run` (no instrumentation), with
/// cargo's `options` (`--release`, `--all-features`, the user's feature flags); the executable
/// is copied to `keep` ([`locked_build`]).
pub fn build_tests(
    manifest: &Path,
    target_dir: &Path,
    options: &[&str],
    keep: &Path,
) -> Result<BuildOutcome> {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.args(["test", "--lib", "--no-run", "--message-format=json"])
        .args(options)
        .arg("--manifest-path")
        .arg(manifest)
        .arg("--target-dir")
        .arg(target_dir);
    locked_build(cmd, manifest, target_dir, false, keep)
}

/// The lock file of a target directory, beside cargo's own.
const BUILD_LOCK: &str = ".hermetic-build.lock";

/// Runs a build while holding the target directory's build lock, and moves the executable to
/// `keep` before letting go: the copies of every crate build in one target directory (the
/// cache directory's, `support.rs`), where two crates of the same name and version get the same
/// executable path, so another run's build could replace it while this run still uses it.
/// Moved, not copied: the crate's copy is made afresh for every build, so cargo never reuses
/// its executable, which would only take room in the shared directory.
/// Runs on other crates wait here for each other's builds (as they would for cargo's lock);
/// the lock is never held while waiting for anything else.
fn locked_build(
    cmd: Command,
    manifest: &Path,
    target_dir: &Path,
    progress: bool,
    keep: &Path,
) -> Result<BuildOutcome> {
    let _lock = lock_target_dir(target_dir, progress)?;
    match run_build(cmd, manifest, progress)? {
        BuildOutcome::Built {
            executable,
            compiled_dependencies,
        } => Ok(BuildOutcome::Built {
            executable: move_executable(&executable, keep)?,
            compiled_dependencies,
        }),
        failed => Ok(failed),
    }
}

/// Takes the build lock of `target_dir`, waiting for another run's build to end (said on the
/// terminal with `progress`, as cargo says it waits for its own lock).
fn lock_target_dir(target_dir: &Path, progress: bool) -> Result<std::fs::File> {
    std::fs::create_dir_all(target_dir)
        .with_context(|| format!("create {}", target_dir.display()))?;
    let path = target_dir.join(BUILD_LOCK);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .with_context(|| format!("open {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => return Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => {}
        Err(std::fs::TryLockError::Error(e)) => {
            return Err(e).with_context(|| format!("lock {}", path.display()))
        }
    }
    if progress {
        eprintln!(
            "    Blocking waiting for another cargo hermetic run's build in {}",
            target_dir.display()
        );
    }
    file.lock()
        .with_context(|| format!("lock {}", path.display()))?;
    Ok(file)
}

/// Moves a built executable to `keep` (a process still running the previous file keeps it);
/// across file systems, copied and the original removed.
fn move_executable(executable: &Path, keep: &Path) -> Result<PathBuf> {
    if let Some(dir) = keep.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
    }
    if std::fs::rename(executable, keep).is_ok() {
        return Ok(keep.to_path_buf());
    }
    let kept = keep_executable(executable, keep)?;
    let _ = std::fs::remove_file(executable);
    Ok(kept)
}

/// Copies a built executable to `keep`: written beside it and renamed, so a process still
/// running the previous file keeps it.
fn keep_executable(executable: &Path, keep: &Path) -> Result<PathBuf> {
    if let Some(dir) = keep.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
    }
    let mut partial = keep.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    std::fs::copy(executable, &partial)
        .with_context(|| format!("copy {} to {}", executable.display(), partial.display()))?;
    std::fs::rename(&partial, keep).with_context(|| format!("rename to {}", keep.display()))?;
    Ok(keep.to_path_buf())
}

/// A package's name from its id as cargo's messages spell it (`registry+...#serde@1.0.228`,
/// `path+file:///.../hermetic-driver#0.1.0`).
fn package_name(id: &str) -> &str {
    let (url, fragment) = id.rsplit_once('#').unwrap_or((id, ""));
    match fragment.split_once('@') {
        Some((name, _)) => name,
        None => url.rsplit('/').next().unwrap_or(url),
    }
}

/// Runs a cargo build; with `progress`, its status lines and progress bar go to the terminal
/// (its messages come as JSON on stdout either way).
fn run_build(mut cmd: Command, manifest: &Path, progress: bool) -> Result<BuildOutcome> {
    cmd.stdout(Stdio::piped()).stderr(if progress {
        Stdio::inherit()
    } else {
        Stdio::piped()
    });
    let mut child = cmd.spawn().context("start cargo")?;
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take();
    let err_thread = std::thread::spawn(move || {
        stderr
            .map(|e| std::io::read_to_string(e).unwrap_or_default())
            .unwrap_or_else(|| "(cargo's output is above)".to_string())
    });
    let mut executable = None;
    let mut errors = Vec::new();
    let mut compiled_dependencies = 0;
    let mut compiled: Vec<String> = Vec::new();
    for msg in Message::parse_stream(BufReader::new(stdout)) {
        match msg.context("read cargo's output")? {
            Message::CompilerArtifact(a) if a.profile.test => {
                if let Some(exe) = a.executable {
                    executable = Some(exe.into_std_path_buf());
                }
            }
            Message::CompilerArtifact(a) if !a.fresh => {
                compiled_dependencies += 1;
                compiled.push(package_name(&a.package_id.repr).to_string());
            }
            Message::CompilerMessage(m) => errors.extend(compile_error(&m)),
            _ => {}
        }
    }
    let status = child.wait().context("wait for cargo")?;
    if std::env::var_os("HERMETIC_DEBUG").is_some() {
        compiled.dedup();
        eprintln!(
            "cargo compiled for {}: {}",
            manifest.display(),
            if compiled.is_empty() {
                "nothing".to_string()
            } else {
                compiled.join(" ")
            }
        );
    }
    let stderr = err_thread.join().unwrap_or_default();
    match (status.success(), executable) {
        (true, Some(executable)) => Ok(BuildOutcome::Built {
            executable,
            compiled_dependencies,
        }),
        (true, None) => bail!(
            "cargo built {} but reported no test executable",
            manifest.display()
        ),
        (false, _) if !errors.is_empty() => Ok(BuildOutcome::Failed {
            errors,
            compiled_dependencies,
        }),
        (false, _) => bail!(
            "cargo failed for {}:\n{}",
            manifest.display(),
            stderr.trim()
        ),
    }
}

/// The error a compiler message reports, if it is one.
pub fn compile_error(m: &cargo_metadata::CompilerMessage) -> Option<CompileError> {
    if m.message.level != cargo_metadata::diagnostic::DiagnosticLevel::Error {
        return None;
    }
    let span = m.message.spans.iter().find(|s| s.is_primary);
    Some(CompileError {
        file: span.map(|s| PathBuf::from(&s.file_name)),
        line: span.map(|s| s.line_start).unwrap_or(0),
        span: span.map(|s| (s.byte_start as usize, s.byte_end as usize)),
        rendered: strip_ansi(m.message.rendered.as_deref().unwrap_or(&m.message.message)),
    })
}

fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(entries: &[(&str, &[&str])]) -> BTreeMap<String, Vec<String>> {
        entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    fn on(t: &BTreeMap<String, Vec<String>>, optional: &[&str], args: FeatureArgs) -> Vec<String> {
        let optional: Vec<String> = optional.iter().map(|s| s.to_string()).collect();
        enabled_features(t, &optional, &args)
            .unwrap()
            .into_iter()
            .collect()
    }

    #[test]
    fn features_resolve_as_cargo_turns_them_on() {
        let t = table(&[
            ("default", &["std"]),
            ("std", &["alloc", "memchr?/std"]),
            ("alloc", &[]),
            ("extra", &["dep:serde", "glob/walk"]),
            ("nightly", &[]),
        ]);
        let deps = ["serde", "glob", "memchr"];
        assert_eq!(
            on(&t, &deps, FeatureArgs::default()),
            ["alloc", "default", "std"]
        );
        let none = FeatureArgs {
            no_default_features: true,
            ..Default::default()
        };
        assert!(on(&t, &deps, none).is_empty());
        let extra = FeatureArgs {
            features: vec!["extra nightly".into()],
            no_default_features: true,
            ..Default::default()
        };
        // `dep:serde` hides serde's implicit feature; `glob/walk` turns on glob's.
        assert_eq!(on(&t, &deps, extra), ["extra", "glob", "nightly"]);
        let all = FeatureArgs {
            all_features: true,
            ..Default::default()
        };
        assert_eq!(
            on(&t, &deps, all),
            ["alloc", "default", "extra", "glob", "memchr", "nightly", "std"]
        );
        let unknown = FeatureArgs {
            features: vec!["nope".into()],
            ..Default::default()
        };
        let err = enabled_features(&t, &[], &unknown).unwrap_err().to_string();
        assert!(err.contains("no feature `nope`"), "{err}");
    }

    #[test]
    fn a_kept_executable_is_a_copy_the_next_build_can_replace() {
        let dir = tempfile::tempdir().unwrap();
        let built = dir.path().join("target/debug/deps/demo-0123");
        std::fs::create_dir_all(built.parent().unwrap()).unwrap();
        std::fs::write(&built, "first").unwrap();
        let keep = dir.path().join("work/search-driver");
        let kept = keep_executable(&built, &keep).unwrap();
        assert_eq!(kept, keep);
        // A process still running the kept file keeps it: the next copy is a new file.
        let open = std::fs::File::open(&keep).unwrap();
        std::fs::write(&built, "second").unwrap();
        keep_executable(&built, &keep).unwrap();
        assert_eq!(std::fs::read_to_string(&keep).unwrap(), "second");
        assert_eq!(std::io::read_to_string(open).unwrap(), "first");
        assert!(!dir.path().join("work/search-driver.partial").exists());
        // Moved out of the target directory, the same way.
        let open = std::fs::File::open(&keep).unwrap();
        std::fs::write(&built, "third").unwrap();
        assert_eq!(move_executable(&built, &keep).unwrap(), keep);
        assert!(!built.exists());
        assert_eq!(std::fs::read_to_string(&keep).unwrap(), "third");
        assert_eq!(std::io::read_to_string(open).unwrap(), "second");
    }

    #[test]
    fn a_second_build_in_a_target_dir_waits_for_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock_target_dir(dir.path(), false).unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let target = dir.path().to_path_buf();
        let waiter = std::thread::spawn(move || {
            let second = lock_target_dir(&target, false).unwrap();
            tx.send(()).unwrap();
            drop(second);
        });
        assert!(rx
            .recv_timeout(std::time::Duration::from_millis(200))
            .is_err());
        drop(first);
        // Comes once the first lets go (a child another test thread forks meanwhile may hold
        // a copy of the descriptor until its `exec`, briefly).
        rx.recv_timeout(std::time::Duration::from_secs(60)).unwrap();
        waiter.join().unwrap();
    }

    #[test]
    fn package_names_come_from_cargos_ids() {
        assert_eq!(
            package_name("registry+https://github.com/rust-lang/crates.io-index#serde@1.0.228"),
            "serde"
        );
        assert_eq!(
            package_name("path+file:///w/shadow/.hermetic-support/hermetic-driver#0.1.0"),
            "hermetic-driver"
        );
        assert_eq!(package_name("path+file:///w/shadow#demo@0.1.0"), "demo");
    }
}
