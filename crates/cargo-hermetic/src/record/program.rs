//! The recorded program: finding the package's binary, building the probed copy, and running
//! it (or its test suite) in the user's working directory and environment.
//!
//! [`failing`] finds the probe or proxy behind a compiler error, for `copy.rs` to take it out.

use super::proxy_syntax;
use crate::cargo::{CompileError, Target};
use crate::cluster::{TraitId, TypeId};
use crate::errors::Failure;
use anyhow::{bail, Context, Result};
use cargo_metadata::{Message, MetadataCommand, TargetKind};
use std::io::BufReader;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The binary target to run: the one named, or the package's only one.
pub fn pick_binary(target: &Target, wanted: Option<&str>) -> Result<String> {
    let meta = MetadataCommand::new()
        .no_deps()
        .manifest_path(target.crate_dir.join("Cargo.toml"))
        .exec()
        .context("run `cargo metadata`")?;
    let pkg = meta
        .packages
        .iter()
        .find(|p| p.name.as_str() == target.package)
        .context("the package vanished from `cargo metadata`")?;
    let bins: Vec<&str> = pkg
        .targets
        .iter()
        .filter(|t| t.kind.contains(&TargetKind::Bin))
        .map(|t| t.name.as_str())
        .collect();
    let what = match (wanted, bins.as_slice()) {
        (_, []) => format!(
            "package `{}` has no binary target (src/main.rs or a [[bin]] section); \
             record its tests instead with `cargo hermetic record --test`",
            target.package
        ),
        (Some(w), _) if bins.contains(&w) => return Ok(w.to_string()),
        (Some(w), _) => format!(
            "package `{}` has no binary `{w}` (binaries: {})",
            target.package,
            bins.join(", ")
        ),
        (None, [one]) => return Ok(one.to_string()),
        (None, many) => format!(
            "package `{}` has several binaries ({}); pick one with --bin",
            target.package,
            many.join(", ")
        ),
    };
    Err(Failure::NoProgram { what }.into())
}

/// What to build and run.
pub enum Build<'a> {
    Binary(&'a str),
    /// The package's test suite, run through `cargo test`.
    Tests,
}

/// How a build went: the binary to run (for `Build::Binary`), or the compiler's errors.
pub enum Built {
    Ok(Option<PathBuf>),
    Failed(Vec<CompileError>),
}

/// Builds the copy.
pub fn build(manifest: &Path, target_dir: &Path, what: &Build, release: bool) -> Result<Built> {
    let mut cmd = Command::new(cargo());
    match what {
        Build::Binary(name) => {
            cmd.args(["build", "--bin", name]);
        }
        Build::Tests => {
            cmd.args(["test", "--no-run"]);
        }
    }
    if release {
        cmd.arg("--release");
    }
    cmd.arg("--message-format=json")
        .arg("--manifest-path")
        .arg(manifest)
        .arg("--target-dir")
        .arg(target_dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().context("start cargo")?;
    let stdout = child.stdout.take().expect("piped");
    let stderr = child.stderr.take().expect("piped");
    let err_thread =
        std::thread::spawn(move || std::io::read_to_string(stderr).unwrap_or_default());
    let mut exe = None;
    let mut errors = Vec::new();
    for msg in Message::parse_stream(BufReader::new(stdout)) {
        match msg.context("read cargo's output")? {
            Message::CompilerArtifact(a) => {
                if let (Build::Binary(name), Some(e)) = (what, a.executable) {
                    if a.target.name == *name && a.target.kind.contains(&TargetKind::Bin) {
                        exe = Some(e.into_std_path_buf());
                    }
                }
            }
            Message::CompilerMessage(m) => errors.extend(crate::cargo::compile_error(&m)),
            _ => {}
        }
    }
    let status = child.wait().context("wait for cargo")?;
    let stderr = err_thread.join().unwrap_or_default();
    if !status.success() && !errors.is_empty() {
        return Ok(Built::Failed(errors));
    }
    if !status.success() {
        bail!(
            "the probed copy of the crate did not build (in {}):\n{}",
            manifest.parent().unwrap_or(manifest).display(),
            stderr.trim()
        );
    }
    match what {
        Build::Binary(name) => exe
            .map(|e| Built::Ok(Some(e)))
            .with_context(|| format!("cargo built no executable for `{name}`")),
        Build::Tests => Ok(Built::Ok(None)),
    }
}

/// What the compiler rejected in the probed copy.
#[derive(Debug, Default, PartialEq)]
pub struct Failing {
    /// Probe sites (`Site::new(N)`) around the lines the errors point at.
    pub sites: Vec<usize>,
    /// Traits whose proxy module (`mod __hermetic_proxy_N`) holds such a line.
    pub proxies: Vec<TraitId>,
    /// Crate types whose `Debug` derive the copy added (`probes::DEBUG_MARKER`) sit above such
    /// a line.
    pub debug_types: Vec<TypeId>,
    /// Crate types whose `Capture` impl the copy added (`literals::CAPTURE_MARKER`) sit above
    /// such a line.
    pub capture_types: Vec<TypeId>,
}

/// The probes and proxies around the lines the errors point at, in the copy at `root`: the
/// nearest marker above each line (proxies come after every probe of their module).
pub fn failing(root: &Path, errors: &[CompileError]) -> Failing {
    let mut out = Failing::default();
    for e in errors {
        let Some(file) = &e.file else { continue };
        let path = if file.is_absolute() {
            file.clone()
        } else {
            root.join(file)
        };
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().take(e.line).collect();
        for l in lines.iter().rev() {
            if let Some(t) = proxy_syntax::module_in_line(l) {
                out.proxies.push(t);
                break;
            }
            let site = l
                .split("record::Site::new(")
                .nth(1)
                .and_then(|rest| rest.split(')').next()?.trim().parse::<usize>().ok());
            if let Some(site) = site {
                out.sites.push(site);
                break;
            }
            if let Some(t) = marked_type(l, super::probes::DEBUG_MARKER) {
                out.debug_types.push(t);
                break;
            }
            if let Some(t) = marked_type(l, super::literals::CAPTURE_MARKER) {
                out.capture_types.push(t);
                break;
            }
        }
    }
    for v in [
        &mut out.sites,
        &mut out.proxies,
        &mut out.debug_types,
        &mut out.capture_types,
    ] {
        v.sort_unstable();
        v.dedup();
    }
    out
}

/// The type of a line `#[cfg_attr(any(), doc = "<marker>N")]`.
fn marked_type(line: &str, marker: &str) -> Option<TypeId> {
    line.split(marker)
        .nth(1)
        .and_then(|rest| rest.split('"').next()?.trim().parse::<TypeId>().ok())
}

/// Copies a built executable to `dir`, so that another build into the same target directory
/// does not replace it.
pub fn keep_executable(exe: &Path, dir: &Path) -> Result<PathBuf> {
    std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
    let to = dir.join(exe.file_name().context("an executable without a name")?);
    std::fs::copy(exe, &to)
        .with_context(|| format!("copy {} to {}", exe.display(), to.display()))?;
    Ok(to)
}

/// How a run went.
pub struct Ran {
    pub status: ExitStatus,
    pub elapsed: Duration,
    /// The command line, for the report.
    pub command: Vec<String>,
}

/// Runs the program (or the test suite) with `env` added to the user's environment, in the
/// user's working directory, with the user's stdin, stdout and stderr.
pub fn run(
    what: &Build,
    exe: Option<&Path>,
    manifest: &Path,
    target_dir: &Path,
    release: bool,
    args: &[String],
    env: &[(&str, &Path)],
) -> Result<Ran> {
    let (mut cmd, mut command) = match (what, exe) {
        (Build::Binary(_), Some(exe)) => (Command::new(exe), vec![exe.display().to_string()]),
        _ => {
            let mut cmd = Command::new(cargo());
            cmd.arg("test").arg("--manifest-path").arg(manifest);
            cmd.arg("--target-dir").arg(target_dir);
            if release {
                cmd.arg("--release");
            }
            cmd.arg("--");
            (cmd, vec!["cargo".into(), "test".into(), "--".into()])
        }
    };
    cmd.args(args);
    command.extend(args.iter().cloned());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let started = Instant::now();
    let status = cmd
        .status()
        .with_context(|| format!("run {}", command.join(" ")))?;
    Ok(Ran {
        status,
        elapsed: started.elapsed(),
        command,
    })
}

/// `exit code 0`, `killed by signal 11`.
pub fn describe(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exit code {c}"),
        (None, Some(s)) => format!("killed by signal {s}"),
        _ => "ended".into(),
    }
}

fn cargo() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_compile_error_points_to_the_probe_or_proxy_above_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("src/lib.rs"),
            concat!(
                "pub fn a() {\n    static S: ::hermetic::record::Site = ::hermetic::record::Site::new(3);\n    let x = 1;\n}\n",
                "pub fn b() {\n    static S: ::hermetic::record::Site = ::hermetic::record::Site::new(12);\n    oops();\n}\n",
                "pub(crate) mod __hermetic_proxy_4 {\n    use super::*;\n    oops();\n}\n",
                "#[cfg_attr(any(), doc = \"__hermetic_debug 7\")]\n#[derive(Debug)]\nstruct S {\n    f: NoDebug,\n}\n",
                "#[cfg_attr(any(), doc = \"__hermetic_capture 9\")]\nimpl Capture for T {\n    oops();\n}\n",
            ),
        )
        .unwrap();
        let error = |line| CompileError {
            file: Some("src/lib.rs".into()),
            line,
            span: None,
            rendered: "error".into(),
        };
        assert_eq!(
            failing(
                dir.path(),
                &[error(7), error(3), error(11), error(16), error(20)]
            ),
            Failing {
                sites: vec![3, 12],
                proxies: vec![4],
                debug_types: vec![7],
                capture_types: vec![9],
            }
        );
        assert_eq!(failing(dir.path(), &[error(1)]), Failing::default());
    }
}
