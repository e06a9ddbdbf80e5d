//! Writing into the user's crate all or nothing. Every file (test files, `mod` lines in module
//! files, `Cargo.toml`) is first written beside its target as a temporary file; only when all
//! are ready are they renamed over their targets, one after another, each old file kept as a
//! hard-linked backup until the last rename is done. An error at any step puts the old files
//! back (and removes what was new). An interrupting signal (`SIGINT`, `SIGTERM`, `SIGHUP`,
//! `SIGQUIT`) waits: before the renames it undoes the preparation, during them it waits until
//! the last is done, then it takes effect; so the crate is either as it was or fully updated. (`SIGKILL` and a power cut can still stop it between two renames: each rename is
//! atomic, and the order — test files, then `Cargo.toml`, then the `mod` lines that use them —
//! keeps every intermediate tree building.)
//!
//! The user's tree is written only here.

use anyhow::{Context, Result};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};

/// The files to write (or remove), in the order they are committed.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Changes {
    /// Each path with its new contents; `None`: the file goes.
    files: Vec<(PathBuf, Option<Vec<u8>>)>,
}

/// A point between two steps of [`Changes::commit`], where tests interrupt it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    /// The temporary file of the i-th change is written.
    Prepared(usize),
    /// The i-th change replaced its target.
    Committed(usize),
}

impl Changes {
    /// Adds a file to write (after those added before); a file these changes write already
    /// gets the new contents in its place (one file, one temporary file, one rename).
    pub fn write(&mut self, path: impl Into<PathBuf>, contents: impl Into<Vec<u8>>) {
        let path = path.into();
        let contents = Some(contents.into());
        match self.files.iter_mut().find(|(p, _)| same_file(p, &path)) {
            Some(earlier) => earlier.1 = contents,
            None => self.files.push((path, contents)),
        }
    }

    /// The contents these changes give `path`: `None` when they leave it alone,
    /// `Some(None)` when they remove it.
    pub fn planned(&self, path: &Path) -> Option<Option<&[u8]>> {
        self.files
            .iter()
            .find(|(p, _)| same_file(p, path))
            .map(|(_, contents)| contents.as_deref())
    }

    /// Adds a file to remove (after the changes added before).
    pub fn remove(&mut self, path: impl Into<PathBuf>) {
        self.files.push((path.into(), None));
    }

    /// Whether there is nothing to write or remove.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// Adds `other`'s changes after those added before (as [`Changes::write`] and
    /// [`Changes::remove`] would).
    pub fn append(&mut self, other: Changes) {
        for (path, contents) in other.files {
            match contents {
                Some(c) => self.write(path, c),
                None => self.remove(path),
            }
        }
    }

    /// The changes, in order: each path with its new contents (`None`: the file goes).
    pub fn iter(&self) -> impl Iterator<Item = (&Path, Option<&[u8]>)> {
        self.files.iter().map(|(p, c)| (p.as_path(), c.as_deref()))
    }

    /// Writes every file, or none (see the module documentation).
    pub fn commit(self) -> Result<()> {
        self.commit_with(&mut |_| Ok(()))
    }

    /// [`Changes::commit`], calling `between` after each step; an error it returns fails
    /// the commit there.
    pub fn commit_with(self, between: &mut dyn FnMut(Step) -> Result<()>) -> Result<()> {
        let mut done = Transaction::default();
        // Dropped last: a signal that came meanwhile takes effect once the tree is whole.
        let _deferred = DeferredSignals::new();
        let result = (|| -> Result<()> {
            for (i, (path, contents)) in self.files.iter().enumerate() {
                done.prepare(path, contents.as_deref())?;
                between(Step::Prepared(i))?;
            }
            if CAUGHT.load(Ordering::SeqCst) != 0 {
                anyhow::bail!("interrupted before anything was changed");
            }
            for i in 0..self.files.len() {
                done.replace(i)?;
                between(Step::Committed(i))?;
            }
            done.finish();
            Ok(())
        })();
        if let Err(e) = result {
            if let Err(undo) = done.roll_back() {
                return Err(e.context(format!("and putting the old files back failed: {undo:#}")));
            }
            return Err(e);
        }
        Ok(())
    }
}

/// Whether `a` and `b` name one file (the same path, or both resolving to it).
fn same_file(a: &Path, b: &Path) -> bool {
    a == b
        || matches!(
            (std::fs::canonicalize(a), std::fs::canonicalize(b)),
            (Ok(x), Ok(y)) if x == y
        )
}

/// One file on its way in.
struct Pending {
    target: PathBuf,
    /// The new contents, ready; `None` when the target is removed.
    temp: Option<PathBuf>,
    /// Where the old file is kept until the end, when there was one.
    backup: Option<PathBuf>,
    /// Whether the temporary file has replaced the target.
    replaced: bool,
}

/// What a commit has done so far, to finish or undo it.
#[derive(Default)]
struct Transaction {
    pending: Vec<Pending>,
    /// Directories created for new files, outermost first.
    created_dirs: Vec<PathBuf>,
}

/// `dir/.name.hermetic-<what>-<pid>`: beside `target`, so a rename stays on its file system.
fn sibling(target: &Path, what: &str) -> Result<PathBuf> {
    let name = target
        .file_name()
        .with_context(|| format!("{} has no file name", target.display()))?;
    Ok(target.with_file_name(format!(
        ".{}.hermetic-{what}-{}",
        name.to_string_lossy(),
        std::process::id()
    )))
}

impl Transaction {
    /// Writes the temporary file of a change (creating its directory), synced, with the
    /// permissions of the file it replaces; a removal has nothing to prepare.
    fn prepare(&mut self, target: &Path, contents: Option<&[u8]>) -> Result<()> {
        let Some(contents) = contents else {
            self.pending.push(Pending {
                target: target.to_path_buf(),
                temp: None,
                backup: None,
                replaced: false,
            });
            return Ok(());
        };
        let dir = target.parent().context("path has no directory")?;
        let mut missing = Vec::new();
        let mut d = dir;
        while !d.exists() {
            missing.push(d.to_path_buf());
            d = d.parent().context("no existing directory above")?;
        }
        for m in missing.into_iter().rev() {
            std::fs::create_dir(&m).with_context(|| format!("cannot create {}", m.display()))?;
            self.created_dirs.push(m);
        }
        let temp = sibling(target, "new")?;
        self.pending.push(Pending {
            target: target.to_path_buf(),
            temp: Some(temp.clone()),
            backup: None,
            replaced: false,
        });
        let write = || -> std::io::Result<()> {
            use std::io::Write;
            let mut f = std::fs::File::create(&temp)?;
            f.write_all(contents)?;
            f.sync_all()?;
            if let Ok(meta) = std::fs::metadata(target) {
                std::fs::set_permissions(&temp, meta.permissions())?;
            }
            Ok(())
        };
        write().with_context(|| format!("cannot write {}", temp.display()))
    }

    /// Replaces the i-th target with its temporary file (or removes it), keeping the old one
    /// as a backup.
    fn replace(&mut self, i: usize) -> Result<()> {
        let p = &mut self.pending[i];
        let Some(temp) = &p.temp else {
            if p.target.exists() {
                let backup = sibling(&p.target, "old")?;
                std::fs::rename(&p.target, &backup)
                    .with_context(|| format!("cannot remove {}", p.target.display()))?;
                p.backup = Some(backup);
            }
            p.replaced = true;
            return Ok(());
        };
        if p.target.exists() {
            let backup = sibling(&p.target, "old")?;
            let _ = std::fs::remove_file(&backup);
            std::fs::hard_link(&p.target, &backup)
                .or_else(|_| std::fs::copy(&p.target, &backup).map(drop))
                .with_context(|| format!("cannot keep a copy of {}", p.target.display()))?;
            p.backup = Some(backup);
        }
        std::fs::rename(temp, &p.target)
            .with_context(|| format!("cannot replace {}", p.target.display()))?;
        p.replaced = true;
        Ok(())
    }

    /// Every file is in place: the backups go.
    fn finish(&mut self) {
        for p in &self.pending {
            if let Some(b) = &p.backup {
                let _ = std::fs::remove_file(b);
            }
        }
        self.pending.clear();
        self.created_dirs.clear();
    }

    /// Puts every replaced file back as it was, removes new files, temporary files and the
    /// directories created for them.
    fn roll_back(&mut self) -> Result<()> {
        let mut first_error = None;
        for p in self.pending.iter().rev() {
            let undone = if !p.replaced {
                // The rename failed after the backup was made (an immutable target, say): the
                // target is still the old file, the backup goes with the temporary file.
                let backup = p.backup.as_ref().map_or(Ok(()), |b| {
                    std::fs::remove_file(b).or_else(not_found_is_fine)
                });
                backup.and(p.temp.as_ref().map_or(Ok(()), |t| {
                    std::fs::remove_file(t).or_else(not_found_is_fine)
                }))
            } else if let Some(b) = &p.backup {
                std::fs::rename(b, &p.target)
            } else {
                std::fs::remove_file(&p.target).or_else(not_found_is_fine)
            };
            if let Err(e) = undone {
                first_error.get_or_insert_with(|| {
                    anyhow::anyhow!(
                        "{}: {e}{}",
                        p.target.display(),
                        p.backup
                            .as_ref()
                            .map(|b| format!(" (its old contents are in {})", b.display()))
                            .unwrap_or_default()
                    )
                });
            }
        }
        for d in self.created_dirs.iter().rev() {
            let _ = std::fs::remove_dir(d);
        }
        self.pending.clear();
        self.created_dirs.clear();
        first_error.map_or(Ok(()), Err)
    }
}

fn not_found_is_fine(e: std::io::Error) -> std::io::Result<()> {
    if e.kind() == std::io::ErrorKind::NotFound {
        Ok(())
    } else {
        Err(e)
    }
}

/// The signals that would stop the tool half-way; while a [`DeferredSignals`] lives they are
/// noted, and raised again when it drops.
const DEFERRED: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];
static CAUGHT: AtomicI32 = AtomicI32::new(0);

extern "C" fn note_signal(sig: libc::c_int) {
    CAUGHT.store(sig, Ordering::SeqCst);
}

/// While alive, the deferred signals only note themselves; dropped, it puts their handlers
/// back and raises the one that came, if any.
struct DeferredSignals {
    old: Vec<(libc::c_int, libc::sigaction)>,
}

impl DeferredSignals {
    fn new() -> DeferredSignals {
        CAUGHT.store(0, Ordering::SeqCst);
        let mut old = Vec::new();
        for sig in DEFERRED {
            // SAFETY: installs a handler that only stores to an atomic; keeps the old action.
            unsafe {
                let mut sa: libc::sigaction = std::mem::zeroed();
                sa.sa_sigaction = note_signal as *const () as usize;
                libc::sigemptyset(&mut sa.sa_mask);
                let mut prev: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(sig, &sa, &mut prev) == 0 {
                    old.push((sig, prev));
                }
            }
        }
        DeferredSignals { old }
    }
}

impl Drop for DeferredSignals {
    fn drop(&mut self) {
        for (sig, prev) in &self.old {
            // SAFETY: restores the action saved in `new`.
            unsafe { libc::sigaction(*sig, prev, std::ptr::null_mut()) };
        }
        let sig = CAUGHT.swap(0, Ordering::SeqCst);
        if sig != 0 {
            // SAFETY: raising a signal on ourselves, now with its old action.
            unsafe { libc::raise(sig) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    /// Every file under `dir` with its contents.
    fn tree(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
        let mut out = BTreeMap::new();
        for e in walkdir::WalkDir::new(dir).sort_by_file_name() {
            let e = e.unwrap();
            let rel = e.path().strip_prefix(dir).unwrap().to_path_buf();
            if e.file_type().is_file() {
                out.insert(rel, std::fs::read(e.path()).unwrap());
            } else if e.file_type().is_dir() {
                out.insert(rel.join(""), Vec::new());
            }
        }
        out
    }

    /// A crate, and the changes generating tests for it makes: new test files (one in a new
    /// directory), the manifest, a module file.
    fn crate_and_changes() -> (tempfile::TempDir, Changes) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        std::fs::create_dir_all(p.join("src")).unwrap();
        std::fs::write(p.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
        std::fs::write(p.join("src/lib.rs"), "pub mod shapes;\n").unwrap();
        std::fs::write(p.join("src/shapes.rs"), "pub fn f() {}\n").unwrap();
        let mut c = Changes::default();
        c.write(p.join("src/hermetic_tests.rs"), "// @generated\n");
        c.write(p.join("src/shapes/hermetic_tests.rs"), "// @generated\n");
        c.write(
            p.join("Cargo.toml"),
            "[package]\nname = \"x\"\n\n[dev-dependencies]\nhermetic = \"0.1\"\n",
        );
        c.write(
            p.join("src/lib.rs"),
            "pub mod shapes;\n\n#[cfg(test)]\nmod hermetic_tests;\n",
        );
        c.write(
            p.join("src/shapes.rs"),
            "pub fn f() {}\n\n#[cfg(test)]\nmod hermetic_tests;\n",
        );
        std::fs::write(p.join("src/stale.rs"), "// an older runtime's file\n").unwrap();
        c.remove(p.join("src/stale.rs"));
        (dir, c)
    }

    fn steps(n: usize) -> Vec<Step> {
        (0..n)
            .map(Step::Prepared)
            .chain((0..n).map(Step::Committed))
            .collect()
    }

    #[test]
    fn a_file_written_twice_is_written_once_with_the_last_contents() {
        let (dir, mut changes) = crate_and_changes();
        let n = changes.files.len();
        let lib = dir.path().join("src/lib.rs");
        let edited = "#[cfg_attr(test, x)]\npub mod shapes;\n";
        changes.write(dir.path().join("src/../src/lib.rs"), edited);
        assert_eq!(changes.files.len(), n);
        assert_eq!(changes.planned(&lib), Some(Some(edited.as_bytes())));
        assert_eq!(
            changes.planned(&dir.path().join("src/stale.rs")),
            Some(None)
        );
        assert_eq!(changes.planned(&dir.path().join("src/other.rs")), None);
        changes.commit().unwrap();
        assert_eq!(std::fs::read_to_string(&lib).unwrap(), edited);
    }

    #[test]
    fn an_error_at_any_step_leaves_the_crate_as_it_was() {
        let (dir, changes) = crate_and_changes();
        let before = tree(dir.path());
        for stop in steps(changes.files.len()) {
            let err = changes
                .clone()
                .commit_with(&mut |s| {
                    if s == stop {
                        anyhow::bail!("interrupted at {s:?}")
                    }
                    Ok(())
                })
                .unwrap_err();
            assert!(err.to_string().contains("interrupted"), "{err:#}");
            assert_eq!(tree(dir.path()), before, "after an error at {stop:?}");
        }
        changes.clone().commit().unwrap();
        let after = tree(dir.path());
        for (path, contents) in &changes.files {
            let rel = path.strip_prefix(dir.path()).unwrap();
            assert_eq!(after.get(rel), contents.as_ref(), "{}", rel.display());
        }
        // Two new test files and the directory of one; one file removed.
        assert_eq!(after.len(), before.len() + 2, "{after:?}");
    }

    #[test]
    fn a_rename_that_fails_leaves_the_crate_as_it_was_with_no_backup_behind() {
        let (dir, changes) = crate_and_changes();
        let before = tree(dir.path());
        // The manifest's rename fails after its backup was made: its temporary file is gone.
        let manifest = changes
            .files
            .iter()
            .position(|(p, _)| p.ends_with("Cargo.toml"))
            .unwrap();
        let temp = sibling(&dir.path().join("Cargo.toml"), "new").unwrap();
        let err = changes
            .commit_with(&mut |s| {
                if s == Step::Committed(manifest - 1) {
                    std::fs::remove_file(&temp).unwrap();
                }
                Ok(())
            })
            .unwrap_err();
        assert!(format!("{err:#}").contains("cannot replace"), "{err:#}");
        assert_eq!(tree(dir.path()), before);
    }

    #[test]
    fn a_file_that_cannot_be_written_stops_everything_before_any_change() {
        let (dir, mut changes) = crate_and_changes();
        // A directory where a file must go: preparing it fails.
        std::fs::create_dir_all(dir.path().join("src/blocked.rs")).unwrap();
        changes.write(dir.path().join("src/blocked.rs"), "x");
        let before = tree(dir.path());
        assert!(changes.commit().is_err());
        assert_eq!(tree(dir.path()), before);
    }

    /// Run by [`a_signal_at_any_step_leaves_the_crate_fully_updated`] in a process of its own.
    #[test]
    fn interrupted_commit() {
        let Ok(dir) = std::env::var("HERMETIC_COMMIT_DIR") else {
            return;
        };
        let stop: usize = std::env::var("HERMETIC_COMMIT_STEP")
            .unwrap()
            .parse()
            .unwrap();
        // A shell starts background jobs with SIGINT ignored, and the commit rightly keeps an
        // inherited disposition: the signal must end this process however it was launched.
        // SAFETY: the default disposition, set before any other thread of the test uses it.
        unsafe { libc::signal(libc::SIGINT, libc::SIG_DFL) };
        let mut changes = Changes::default();
        for (rel, text) in changes_in(Path::new(&dir)) {
            changes.write(Path::new(&dir).join(rel), text);
        }
        let mut n = 0;
        let result = changes.commit_with(&mut |_| {
            if n == stop {
                // SAFETY: raising a signal on ourselves.
                unsafe { libc::raise(libc::SIGINT) };
            }
            n += 1;
            Ok(())
        });
        // Reached only when the signal did not end the process: say why, for the parent.
        eprintln!("commit after {n} step(s): {result:?}");
        std::process::exit(0);
    }

    fn changes_in(_dir: &Path) -> Vec<(&'static str, &'static str)> {
        vec![
            ("src/hermetic_tests.rs", "// @generated\n"),
            ("src/shapes/hermetic_tests.rs", "// @generated\n"),
            (
                "Cargo.toml",
                "[package]\nname = \"x\"\n\n[dev-dependencies]\n",
            ),
            (
                "src/lib.rs",
                "pub mod shapes;\n\n#[cfg(test)]\nmod hermetic_tests;\n",
            ),
        ]
    }

    #[test]
    fn a_signal_at_any_step_leaves_the_crate_fully_updated() {
        use std::os::unix::process::ExitStatusExt;
        let n = changes_in(Path::new("")).len();
        for stop in 0..2 * n {
            let dir = tempfile::tempdir().unwrap();
            let p = dir.path();
            std::fs::create_dir_all(p.join("src")).unwrap();
            std::fs::write(p.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
            std::fs::write(p.join("src/lib.rs"), "pub mod shapes;\n").unwrap();
            let before = tree(p);
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "commit::tests::interrupted_commit",
                    "--nocapture",
                ])
                .env("HERMETIC_COMMIT_DIR", p)
                .env("HERMETIC_COMMIT_STEP", stop.to_string())
                .stdout(std::process::Stdio::null())
                .output()
                .unwrap();
            let status = out.status;
            let why = String::from_utf8_lossy(&out.stderr);
            let after = tree(p);
            let signalled = status.signal() == Some(libc::SIGINT);
            if stop < n {
                // Before the renames the preparation is undone, then the signal takes effect.
                assert!(signalled, "step {stop}: {status:?}: {why}");
                assert_eq!(after, before, "step {stop}");
            } else {
                // During the renames it waits for the last one.
                assert!(signalled, "step {stop}: {status:?}: {why}");
                for (rel, text) in changes_in(p) {
                    assert_eq!(after[Path::new(rel)], text.as_bytes(), "step {stop}: {rel}");
                }
                assert!(
                    !after
                        .keys()
                        .any(|k| k.to_string_lossy().contains(".hermetic-")),
                    "step {stop}: {after:?}"
                );
            }
        }
    }
}
