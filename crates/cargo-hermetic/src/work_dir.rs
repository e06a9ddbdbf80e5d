//! hermetic's scratch directory for a workspace (shadow copies, the executables it runs, the
//! sandbox's scratch directory; the support crates and cargo's builds too when the cache
//! directory cannot be used, `support.rs`), and the lock that keeps two runs out of each
//! other's way there.

use crate::cargo::Target;
use crate::errors::Failure;
use anyhow::{Context, Result};
use std::fs::{File, TryLockError};
use std::path::{Path, PathBuf};

/// `<target dir>/hermetic` for a workspace that has its own target directory; under a target
/// directory shared with other workspaces (`CARGO_TARGET_DIR` set for all builds), a directory
/// of the workspace's own below it, so that runs on different crates never share a shadow copy.
pub fn of(target: &Target) -> PathBuf {
    let base = target.target_dir.join("hermetic");
    if target.target_dir.starts_with(&target.workspace_root) {
        return base;
    }
    let name = target
        .workspace_root
        .file_name()
        .map_or_else(|| "root".into(), |n| n.to_string_lossy().into_owned());
    base.join(format!("{name}-{:016x}", fnv1a(&target.workspace_root)))
}

/// A stable hash of a path (the same in every run and build, unlike std's `RandomState`).
fn fnv1a(path: &Path) -> u64 {
    path.as_os_str()
        .as_encoded_bytes()
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |h, &b| {
            (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
}

/// Held for a whole run: another run on the same workspace waits for nothing and fails with
/// [`Failure::Busy`] instead of overwriting the shadow copy under this one. The operating
/// system releases it when the process ends, however it ends.
pub struct WorkDirLock {
    _file: File,
}

pub fn lock(work_dir: &Path) -> Result<WorkDirLock> {
    std::fs::create_dir_all(work_dir).with_context(|| format!("create {}", work_dir.display()))?;
    let path = work_dir.join("run.lock");
    let file = File::create(&path).with_context(|| format!("create {}", path.display()))?;
    match file.try_lock() {
        Ok(()) => Ok(WorkDirLock { _file: file }),
        Err(TryLockError::WouldBlock) => Err(Failure::Busy {
            work_dir: work_dir.display().to_string(),
        }
        .into()),
        Err(TryLockError::Error(e)) => Err(e).with_context(|| format!("lock {}", path.display())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cargo::Features;

    fn target(workspace: &str, target_dir: &str) -> Target {
        Target {
            package: "demo".into(),
            crate_name: "demo".into(),
            lib_rs: PathBuf::from(workspace).join("src/lib.rs"),
            crate_dir: workspace.into(),
            workspace_root: workspace.into(),
            target_dir: target_dir.into(),
            features: Features::default(),
            build_script: None,
        }
    }

    #[test]
    fn a_shared_target_dir_gets_one_work_dir_per_workspace() {
        let own = of(&target("/w/a", "/w/a/target"));
        assert_eq!(own, PathBuf::from("/w/a/target/hermetic"));
        let a = of(&target("/w/a", "/shared"));
        let b = of(&target("/x/a", "/shared"));
        assert_ne!(a, b);
        assert!(a.starts_with("/shared/hermetic") && a.to_string_lossy().contains("/a-"));
        // The same workspace finds the same directory in every run.
        assert_eq!(a, of(&target("/w/a", "/shared")));
    }

    #[test]
    fn a_second_run_on_the_same_work_dir_is_refused_while_the_first_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let first = lock(dir.path()).unwrap();
        let second = lock(dir.path())
            .err()
            .expect("the second run must not get the lock");
        assert_eq!(crate::errors::exit_code(&second), 12);
        assert!(second.to_string().contains("another cargo hermetic run"));
        drop(first);
        // The lock belongs to the open file description, and a process another test thread
        // forks meanwhile holds a copy of it until its `exec` closes it: the lock comes free
        // once that child has started, so wait for that, briefly.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        let third = loop {
            match lock(dir.path()) {
                Err(e)
                    if std::time::Instant::now() < deadline
                        && crate::errors::exit_code(&e) == 12 =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(10))
                }
                other => break other,
            }
        };
        assert!(third.is_ok(), "{:?}", third.err());
    }
}
