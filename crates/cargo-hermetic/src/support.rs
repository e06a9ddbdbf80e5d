//! Where the support crates live (the runtime, the driver's, protocol and sandbox crates, whose
//! sources this binary carries) and where the copies are built: once per tool version in a
//! cache directory shared by every crate, so a first run on a new crate reuses what a run on
//! another crate built.
//!
//! The cache directory is `HERMETIC_CACHE_DIR` if set, else `$XDG_CACHE_HOME/hermetic`, else
//! `$HOME/.cache/hermetic`. Under it, `<version>-<hash of the carried sources>/` holds
//! `support/` (the crates' sources, written once: into a temporary directory renamed into place,
//! so two runs starting at once both find it whole, and never rewritten, so the timestamps cargo's
//! fingerprints compare stay put) and `target/` (cargo's target directory for the copies of
//! every crate: each copy reaches the support crates through a link inside it, so cargo derives
//! their build's metadata from the same relative paths in every copy and reuses it;
//! `CARGO_HERMETIC_TARGET_DIR` replaces it when set). Cargo's builds there are serialised by a
//! lock ([`crate::cargo`]), and each build's executable is moved into the run's work directory
//! before another build can replace it.
//!
//! When the cache directory cannot be made (a read-only home), everything stays in the work
//! directory as before: `<work_dir>/support` and `<work_dir>/target`.

use anyhow::{Context, Result};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Names the cache directory (see the module's documentation).
pub const CACHE_DIR_ENV: &str = "HERMETIC_CACHE_DIR";

/// Where a run finds the support crates and builds its copies.
#[derive(Debug, Clone)]
pub struct Support {
    /// The support crates' directory (`hermetic`, `hermetic-driver`, ... below it); each copy
    /// links it (`shadow.rs`).
    pub dir: PathBuf,
    /// Cargo's target directory for the copies' builds.
    pub target_dir: PathBuf,
}

impl Support {
    /// The same support crates, built in `target_dir`.
    pub fn building_in(&self, target_dir: PathBuf) -> Support {
        Support {
            dir: self.dir.clone(),
            target_dir,
        }
    }
}

/// The cache directory `var` (the environment) names, if any: `HERMETIC_CACHE_DIR`, else
/// `$XDG_CACHE_HOME/hermetic`, else `$HOME/.cache/hermetic`. Empty values count as unset;
/// a relative `XDG_CACHE_HOME` or `HOME` is ignored (as the XDG specification says), a
/// relative `HERMETIC_CACHE_DIR` is taken from the working directory.
pub fn cache_root(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(dir) = set(CACHE_DIR_ENV) {
        return std::path::absolute(&dir).ok();
    }
    if let Some(xdg) = set("XDG_CACHE_HOME").filter(|p| p.is_absolute()) {
        return Some(xdg.join("hermetic"));
    }
    set("HOME")
        .filter(|p| p.is_absolute())
        .map(|home| home.join(".cache").join("hermetic"))
}

/// Every file of the support crates, relative to their directory, in a fixed order.
fn files() -> Vec<(PathBuf, String)> {
    let runtime = Path::new(crate::manifest::RUNTIME);
    let mut files: Vec<(PathBuf, String)> = crate::shadow::support_files()
        .into_iter()
        .chain(
            crate::runtime::files()
                .into_iter()
                .map(|(rel, text)| (runtime.join(rel), text)),
        )
        .collect();
    files.sort();
    files
}

/// The cache's subdirectory for this tool: its version and a hash of the carried sources (a
/// build from a changed source tree with the same version number gets its own).
fn key(files: &[(PathBuf, String)]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (path, text) in files {
        for bytes in [
            path.as_os_str().as_encoded_bytes(),
            b"\0",
            text.as_bytes(),
            b"\0",
        ] {
            for &b in bytes {
                hash = (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    }
    format!("{}-{hash:016x}", crate::runtime::VERSION)
}

/// Writes `files` into `dir` unless it exists: into a temporary directory beside it, renamed
/// into place, so `dir` is either absent or whole. Of two runs writing at once, one rename
/// wins and the other's copy is removed. An existing `dir` is never written again.
fn write_once(dir: &Path, files: &[(PathBuf, String)]) -> Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    let parent = dir
        .parent()
        .context("the support directory has no parent")?;
    std::fs::create_dir_all(parent).with_context(|| format!("create {}", parent.display()))?;
    static PARTIALS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = PARTIALS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let partial = parent.join(format!(".support-{}-{n}.partial", std::process::id()));
    let _ = std::fs::remove_dir_all(&partial);
    let written = files.iter().try_for_each(|(rel, text)| {
        let path = partial.join(rel);
        if let Some(p) = path.parent() {
            std::fs::create_dir_all(p).with_context(|| format!("create {}", p.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("write {}", path.display()))
    });
    let renamed = written.and_then(|()| {
        std::fs::rename(&partial, dir)
            .with_context(|| format!("rename {} to {}", partial.display(), dir.display()))
    });
    match renamed {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&partial);
            // Another run put its copy in place first: the same files.
            if dir.is_dir() {
                Ok(())
            } else {
                Err(e)
            }
        }
    }
}

/// Where this run's support crates are and where its copies build: in the cache directory when
/// it can be used, else in `work_dir` (the support crates written there, as changed).
pub fn locate(work_dir: &Path) -> Result<Support> {
    locate_in(
        work_dir,
        cache_root(|name| std::env::var_os(name)),
        target_override(),
    )
}

/// `CARGO_HERMETIC_TARGET_DIR`, which replaces the target directory of the copies' builds.
fn target_override() -> Option<PathBuf> {
    std::env::var_os("CARGO_HERMETIC_TARGET_DIR").map(PathBuf::from)
}

/// The work directory's own target directory (`<work_dir>/target`), or
/// `CARGO_HERMETIC_TARGET_DIR`: where builds go that must not share the cache's.
pub fn own_target_dir(work_dir: &Path) -> PathBuf {
    target_override().unwrap_or_else(|| work_dir.join("target"))
}

/// [`locate`] with the cache directory and `CARGO_HERMETIC_TARGET_DIR` given.
fn locate_in(
    work_dir: &Path,
    cache_root: Option<PathBuf>,
    target_override: Option<PathBuf>,
) -> Result<Support> {
    let files = files();
    if let Some(root) = cache_root {
        let cache = root.join(key(&files));
        let dir = cache.join("support");
        match write_once(&dir, &files) {
            Ok(()) => {
                return Ok(Support {
                    dir,
                    target_dir: target_override.unwrap_or_else(|| cache.join("target")),
                })
            }
            Err(e) => {
                if std::env::var_os("HERMETIC_DEBUG").is_some() {
                    eprintln!(
                        "the cache directory {} cannot be used ({e:#}): the support crates are \
                         built in the work directory",
                        cache.display()
                    );
                }
            }
        }
    }
    let dir = work_dir.join("support");
    crate::shadow::write_support_crate(work_dir)?;
    crate::runtime::write(&dir.join(crate::manifest::RUNTIME))?;
    Ok(Support {
        dir,
        target_dir: target_override.unwrap_or_else(|| work_dir.join("target")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn root(vars: &[(&str, &str)]) -> Option<PathBuf> {
        let vars: HashMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        cache_root(|name| vars.get(name).cloned())
    }

    #[test]
    fn the_cache_dir_is_the_variable_then_xdg_then_home() {
        let all = [
            ("HERMETIC_CACHE_DIR", "/c"),
            ("XDG_CACHE_HOME", "/x"),
            ("HOME", "/h"),
        ];
        assert_eq!(root(&all), Some(PathBuf::from("/c")));
        assert_eq!(root(&all[1..]), Some(PathBuf::from("/x/hermetic")));
        assert_eq!(root(&all[2..]), Some(PathBuf::from("/h/.cache/hermetic")));
        assert_eq!(root(&[]), None);
        // Empty values count as unset; relative XDG or HOME values are ignored.
        assert_eq!(
            root(&[
                ("HERMETIC_CACHE_DIR", ""),
                ("XDG_CACHE_HOME", "rel"),
                ("HOME", "/h")
            ]),
            Some(PathBuf::from("/h/.cache/hermetic"))
        );
        assert_eq!(root(&[("HOME", "rel")]), None);
        // A relative HERMETIC_CACHE_DIR is taken from the working directory.
        let relative = root(&[("HERMETIC_CACHE_DIR", "here")]).unwrap();
        assert_eq!(relative, std::env::current_dir().unwrap().join("here"));
    }

    #[test]
    fn the_key_names_the_version_and_changes_with_the_sources() {
        let files = files();
        let key = key(&files);
        assert!(
            key.starts_with(&format!("{}-", crate::runtime::VERSION)),
            "{key}"
        );
        assert_eq!(key, super::key(&files));
        let mut changed = files.clone();
        changed[0].1.push(' ');
        assert_ne!(key, super::key(&changed));
        // Every support crate is there: the runtime and the driver's.
        for name in [
            "hermetic",
            "hermetic-driver",
            "hermetic-protocol",
            "hermetic-sandbox",
        ] {
            assert!(
                files
                    .iter()
                    .any(|(p, _)| *p == Path::new(name).join("Cargo.toml")),
                "{name}"
            );
        }
    }

    #[test]
    fn the_support_crates_are_written_once_and_whole() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("cache/v-1/support");
        let files = vec![
            (PathBuf::from("a/Cargo.toml"), "[package]".to_string()),
            (PathBuf::from("a/src/lib.rs"), "// lib".to_string()),
        ];
        write_once(&dir, &files).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.join("a/src/lib.rs")).unwrap(),
            "// lib"
        );
        let written = std::fs::metadata(dir.join("a/src/lib.rs"))
            .unwrap()
            .modified()
            .unwrap();
        // Present: never written again (cargo's fingerprints compare the timestamps), even
        // with other contents.
        std::thread::sleep(std::time::Duration::from_millis(20));
        let other = vec![(PathBuf::from("a/src/lib.rs"), "// other".to_string())];
        write_once(&dir, &other).unwrap();
        let file = dir.join("a/src/lib.rs");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "// lib");
        assert_eq!(
            std::fs::metadata(&file).unwrap().modified().unwrap(),
            written
        );
        // No temporary directory is left beside it.
        let left: Vec<_> = std::fs::read_dir(dir.parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![OsString::from("support")]);
    }

    #[test]
    fn runs_writing_at_once_all_find_the_whole_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("support");
        let files: Vec<(PathBuf, String)> = (0..200)
            .map(|i| (PathBuf::from(format!("c/src/f{i}.rs")), format!("// {i}")))
            .collect();
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    write_once(&dir, &files).unwrap();
                    // Whoever returns sees every file.
                    for (rel, text) in &files {
                        assert_eq!(&std::fs::read_to_string(dir.join(rel)).unwrap(), text);
                    }
                });
            }
        });
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left, vec![OsString::from("support")]);
    }

    #[test]
    fn the_support_crates_and_the_builds_go_to_the_cache_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let work_dir = tmp.path().join("w/target/hermetic");
        let cache = tmp.path().join("cache");
        let support = locate_in(&work_dir, Some(cache.clone()), None).unwrap();
        let key = key(&files());
        assert_eq!(support.dir, cache.join(&key).join("support"));
        assert_eq!(support.target_dir, cache.join(&key).join("target"));
        assert!(support.dir.join("hermetic/src/lib.rs").is_file());
        assert!(support.dir.join("hermetic-driver/Cargo.toml").is_file());
        assert!(!work_dir.join("support").exists());
        // CARGO_HERMETIC_TARGET_DIR moves the builds, not the sources.
        let shared = tmp.path().join("shared");
        let moved = locate_in(&work_dir, Some(cache), Some(shared.clone())).unwrap();
        assert_eq!((moved.dir, moved.target_dir), (support.dir, shared));
    }

    #[test]
    fn a_cache_dir_that_cannot_be_made_leaves_everything_in_the_work_dir() {
        let tmp = tempfile::tempdir().unwrap();
        let file = tmp.path().join("not-a-dir");
        std::fs::write(&file, "").unwrap();
        let work_dir = tmp.path().join("w/target/hermetic");
        let support = locate_in(&work_dir, Some(file.join("hermetic")), None).unwrap();
        assert_eq!(support.dir, work_dir.join("support"));
        assert_eq!(support.target_dir, work_dir.join("target"));
        assert!(support.dir.join("hermetic/src/lib.rs").is_file());
        assert!(support.dir.join("hermetic-driver/src/lib.rs").is_file());
    }
}
