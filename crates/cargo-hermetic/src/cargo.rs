//! Running cargo: metadata of the user's package, and builds of shadow copies.

use anyhow::{bail, Context, Result};
use cargo_metadata::{Message, MetadataCommand, Package};
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

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

pub fn locate(manifest_path: Option<&Path>, package: Option<&str>) -> Result<Target> {
    let mut cmd = MetadataCommand::new();
    cmd.no_deps();
    if let Some(p) = manifest_path {
        if !p.exists() {
            bail!(
                "{} does not exist; pass --manifest-path with the path of the crate's Cargo.toml",
                p.display()
            );
        }
        cmd.manifest_path(p);
    }
    let meta = cmd
        .exec()
        .context("run `cargo metadata` (is this a cargo project? try --manifest-path)")?;
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
        [] => match package {
            Some(name) => bail!(
                "no package named `{name}` in this workspace (packages: {})",
                meta.workspace_packages()
                    .iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            None => bail!("this workspace has no packages"),
        },
        many => bail!(
            "this is a workspace with several packages; choose one with -p ({})",
            many.iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let lib = pkg.targets.iter().find(|t| t.is_lib()).with_context(|| {
        format!(
            "package `{}` has no library target; hermetic tests library code (src/lib.rs)",
            pkg.name
        )
    })?;
    Ok(Target {
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
    })
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
    pub rendered: String,
}

pub enum BuildOutcome {
    /// The unit-test executable, and how many of the packages it needs cargo compiled rather
    /// than found built (a first build, or one after the dependencies changed).
    Built {
        executable: PathBuf,
        compiled_dependencies: usize,
    },
    Failed(Vec<CompileError>),
}

/// Builds the library's unit-test binary of the crate at `manifest`, with `rustc_args` for the
/// crate only (dependencies build normally). With `progress`, cargo's own progress shows.
pub fn build_test_binary(
    manifest: &Path,
    target_dir: &Path,
    rustc_args: &[&str],
    progress: bool,
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
    .arg(target_dir);
    if !rustc_args.is_empty() {
        cmd.arg("--").args(rustc_args);
    }
    run_build(cmd, manifest, progress)
}

/// Builds the library's unit tests with plain `cargo test --no-run` (no instrumentation), with
/// cargo's `options` (`--release`, `--all-features`).
pub fn build_tests(manifest: &Path, target_dir: &Path, options: &[&str]) -> Result<BuildOutcome> {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.args(["test", "--lib", "--no-run", "--message-format=json"])
        .args(options)
        .arg("--manifest-path")
        .arg(manifest)
        .arg("--target-dir")
        .arg(target_dir);
    run_build(cmd, manifest, false)
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
    for msg in Message::parse_stream(BufReader::new(stdout)) {
        match msg.context("read cargo's output")? {
            Message::CompilerArtifact(a) if a.profile.test => {
                if let Some(exe) = a.executable {
                    executable = Some(exe.into_std_path_buf());
                }
            }
            Message::CompilerArtifact(a) if !a.fresh => compiled_dependencies += 1,
            Message::CompilerMessage(m) => errors.extend(compile_error(&m)),
            _ => {}
        }
    }
    let status = child.wait().context("wait for cargo")?;
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
        (false, _) if !errors.is_empty() => Ok(BuildOutcome::Failed(errors)),
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
