//! The user's `Cargo.lock` after a run. When the tests' dev-dependency on the runtime is new
//! (or the vendored copy's own dependencies changed), the lock file must name it too, or a CI
//! that runs `cargo test --locked` refuses the commit. Cargo resolves the new lock in a copy of
//! the workspace with the run's edits made, so the user's tree changes only in the
//! all-or-nothing commit ([`crate::commit`]); packages already locked keep their versions.

use crate::commit::Changes;
use crate::manifest::{Place, RuntimeEdit, RUNTIME};
use anyhow::{bail, Context, Result};
use std::path::Path;
use std::process::Command;

/// The lock file's change that goes with `edit`: none when the workspace has no `Cargo.lock`
/// (cargo writes one at the first build), when nothing the lock records changes, or when the
/// lock is already right.
pub fn change(place: &Place, work_dir: &Path, edit: &RuntimeEdit) -> Result<Changes> {
    let lock = place.workspace_root.join("Cargo.lock");
    let Ok(old) = std::fs::read_to_string(&lock) else {
        return Ok(Changes::default());
    };
    let edits_what_it_records = edit.manifest.is_some() || !edit.runtime_files.is_empty();
    // An older run's entry that no lock file names yet.
    let stale =
        *edit != RuntimeEdit::default() && !old.contains(&format!("name = \"{RUNTIME}\"\n"));
    if !edits_what_it_records && !stale {
        return Ok(Changes::default());
    }
    let new = resolve(place, work_dir, edit)?;
    let mut out = Changes::default();
    if new != old {
        out.write(lock, new);
    }
    Ok(out)
}

/// [`change`]; when cargo cannot resolve, `say` tells the user that the lock file stays as it
/// was (the first build brings it up to date), and the rest is written all the same.
pub fn change_or_say(
    place: &Place,
    work_dir: &Path,
    edit: &RuntimeEdit,
    say: impl Fn(&str),
) -> Changes {
    let out = change(place, work_dir, edit).unwrap_or_else(|e| {
        say(&format!(
            "Cargo.lock is left as it was ({e:#}); the first build adds the runtime to it"
        ));
        Changes::default()
    });
    if !out.is_empty() {
        say("updated Cargo.lock for the runtime (`cargo test --locked` accepts it)");
    }
    out
}

/// Cargo.lock as cargo leaves it in a copy of the workspace with `edit` made.
fn resolve(place: &Place, work_dir: &Path, edit: &RuntimeEdit) -> Result<String> {
    let scratch = work_dir.join("lock");
    if scratch.exists() {
        std::fs::remove_dir_all(&scratch)
            .with_context(|| format!("remove {}", scratch.display()))?;
    }
    crate::shadow::copy_tree(place.workspace_root, &scratch, work_dir)?;
    let in_copy = |path: &Path| -> Result<std::path::PathBuf> {
        let rel = path
            .strip_prefix(place.workspace_root)
            .with_context(|| format!("{} is outside the workspace", path.display()))?;
        Ok(scratch.join(rel))
    };
    let mut edits = Changes::default();
    for (path, contents) in edit.runtime_files.iter() {
        match contents {
            Some(c) => edits.write(in_copy(path)?, c),
            None => edits.remove(in_copy(path)?),
        }
    }
    if let Some(text) = &edit.manifest {
        edits.write(in_copy(&place.crate_dir.join("Cargo.toml"))?, text.as_str());
    }
    edits.commit()?;
    stand_alone(&scratch.join("Cargo.toml"))?;
    // The index entries are usually at hand: offline first, so that a machine without a
    // network still gets its lock file.
    let mut errors = Vec::new();
    for offline in [true, false] {
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        cmd.args(["metadata", "--format-version", "1", "--manifest-path"])
            .arg(scratch.join("Cargo.toml"))
            .current_dir(&scratch)
            .stdout(std::process::Stdio::null());
        if offline {
            cmd.arg("--offline");
        }
        let out = cmd.output().context("run cargo metadata")?;
        if out.status.success() {
            let lock = std::fs::read_to_string(scratch.join("Cargo.lock"))
                .context("read the copy's Cargo.lock")?;
            let _ = std::fs::remove_dir_all(&scratch);
            return Ok(lock);
        }
        errors.push(String::from_utf8_lossy(&out.stderr).trim().to_string());
    }
    let _ = std::fs::remove_dir_all(&scratch);
    bail!(
        "cargo could not resolve the dependencies: {}",
        errors.join("\n")
    )
}

/// Makes the copy's root manifest a workspace root of its own (an empty `[workspace]` when it
/// has none), so that cargo does not look for one above the copy.
fn stand_alone(manifest: &Path) -> Result<()> {
    let text = std::fs::read_to_string(manifest)
        .with_context(|| format!("read {}", manifest.display()))?;
    let mut doc: toml_edit::DocumentMut = text.parse().context("parse Cargo.toml")?;
    if doc.get("workspace").is_none() {
        doc.insert("workspace", toml_edit::Item::Table(toml_edit::Table::new()));
        std::fs::write(manifest, doc.to_string())
            .with_context(|| format!("write {}", manifest.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cargo(dir: &Path, args: &[&str]) -> std::process::Output {
        Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
            .args(args)
            .current_dir(dir)
            .output()
            .unwrap()
    }

    /// A crate with a lock file, and the edit a run makes: a dev-dependency on a vendored
    /// runtime (here a crate with no dependencies of its own, so nothing needs the network).
    fn crate_and_edit(root: &Path) -> RuntimeEdit {
        std::fs::create_dir_all(root.join("src")).unwrap();
        let manifest = "[package]\nname = \"w\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
        std::fs::write(root.join("Cargo.toml"), manifest).unwrap();
        std::fs::write(root.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
        let out = cargo(root, &["generate-lockfile", "--offline"]);
        assert!(out.status.success(), "{out:?}");
        let runtime = root.join(".hermetic/runtime");
        let mut runtime_files = Changes::default();
        runtime_files.write(
            runtime.join("Cargo.toml"),
            "[package]\nname = \"hermetic\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        );
        runtime_files.write(runtime.join("src/lib.rs"), "");
        RuntimeEdit {
            dependency: Some("hermetic = { path = \".hermetic/runtime\" }".into()),
            vendored: Some(".hermetic/runtime".into()),
            runtime_files,
            manifest: Some(format!(
                "{manifest}\n[dev-dependencies]\nhermetic = {{ path = \".hermetic/runtime\" }}\n"
            )),
        }
    }

    #[test]
    fn the_lock_file_names_the_runtime_and_cargo_locked_accepts_the_crate() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let work = tempfile::tempdir().unwrap();
        let edit = crate_and_edit(root);
        let place = Place {
            crate_dir: root,
            workspace_root: root,
        };
        let old = std::fs::read_to_string(root.join("Cargo.lock")).unwrap();
        let lock = change(&place, work.path(), &edit).unwrap();
        // Nothing written yet: the lock goes in with the tests.
        assert_eq!(
            std::fs::read_to_string(root.join("Cargo.lock")).unwrap(),
            old
        );
        let (path, text) = lock.iter().next().expect("the lock file changes");
        assert_eq!(path, root.join("Cargo.lock"));
        assert!(
            String::from_utf8_lossy(text.unwrap()).contains("name = \"hermetic\"\n"),
            "{:?}",
            String::from_utf8_lossy(text.unwrap())
        );
        let mut all = edit.runtime_files.clone();
        all.write(root.join("Cargo.toml"), edit.manifest.clone().unwrap());
        all.append(lock);
        all.commit().unwrap();
        let out = cargo(
            root,
            &["metadata", "--locked", "--offline", "--format-version", "1"],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Run again on the committed tree: the lock is right, nothing changes.
        let settled = RuntimeEdit {
            runtime_files: Changes::default(),
            manifest: None,
            dependency: None,
            ..edit
        };
        assert!(change(&place, work.path(), &settled).unwrap().is_empty());
        assert!(!work.path().join("lock").exists(), "the copy is removed");
    }

    #[test]
    fn without_a_lock_file_there_is_nothing_to_change() {
        let dir = tempfile::tempdir().unwrap();
        let work = tempfile::tempdir().unwrap();
        let edit = crate_and_edit(dir.path());
        std::fs::remove_file(dir.path().join("Cargo.lock")).unwrap();
        let place = Place {
            crate_dir: dir.path(),
            workspace_root: dir.path(),
        };
        assert!(change(&place, work.path(), &edit).unwrap().is_empty());
    }
}
