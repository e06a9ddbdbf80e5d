//! The one edit hermetic makes to a user's Cargo.toml: the dev-dependency on the `hermetic`
//! runtime that tests with an environment or mocks need, written the way the user chose
//! (`--runtime`), and the vendored copy it may point at. Formatting and comments are kept
//! (toml_edit). Nothing is written here: the edit goes into the user's tree with the tests, all
//! or nothing ([`crate::commit`]).
//!
//! The entry is a relative path to the vendored copy or the registry version, as `--runtime` says;
//! an existing entry is kept unless it points outside the repository. This module computes the new
//! text and the vendored copy's files; `emit::place::apply_or_print` writes them with the tests.

use crate::commit::Changes;
use crate::runtime::{self, RuntimeSource};
use anyhow::{Context, Result};
use std::path::{Component, Path, PathBuf};
use toml_edit::{DocumentMut, Item, Table};

/// The dependency's name.
pub const RUNTIME: &str = "hermetic";

/// Whether any generated source uses the runtime.
pub fn needs_runtime<'a>(mut sources: impl Iterator<Item = &'a str>) -> bool {
    sources.any(|s| {
        s.contains("hermetic::Env") || s.contains("hermetic::mock") || s.contains("hermetic::Fakes")
    })
}

/// When any of the generated `sources` uses the runtime, the edit that makes the crate's
/// manifest name it (see [`runtime_dev_dependency`]); otherwise none.
pub fn runtime_for<'a>(
    sources: impl Iterator<Item = &'a str>,
    place: &Place,
    source: Option<RuntimeSource>,
) -> Result<RuntimeEdit> {
    if !needs_runtime(sources) {
        return Ok(RuntimeEdit::default());
    }
    runtime_dev_dependency(place, source)
}

/// Where the user's crate and its repository are.
pub struct Place<'a> {
    /// The directory of the crate's Cargo.toml.
    pub crate_dir: &'a Path,
    /// The workspace root, where a vendored runtime lives (`.hermetic/runtime`).
    pub workspace_root: &'a Path,
}

impl<'a> Place<'a> {
    pub fn of(target: &'a crate::cargo::Target) -> Place<'a> {
        Place {
            crate_dir: &target.crate_dir,
            workspace_root: &target.workspace_root,
        }
    }
}

/// What [`runtime_dev_dependency`] changes, to be written with the tests.
#[derive(Debug, Default, PartialEq)]
pub struct RuntimeEdit {
    /// The dev-dependency line written, when Cargo.toml changes.
    pub dependency: Option<String>,
    /// The vendored copy written or upgraded, relative to the workspace root.
    pub vendored: Option<PathBuf>,
    /// The vendored copy's files that change (written before the tests that use them).
    pub runtime_files: Changes,
    /// Cargo.toml's new text, when it changes.
    pub manifest: Option<String>,
}

impl RuntimeEdit {
    /// Progress lines saying what changed.
    pub fn describe(&self, dry_run: bool) -> Vec<String> {
        let (add, write) = if dry_run {
            ("would add", "would write")
        } else {
            ("added", "wrote")
        };
        let mut out = Vec::new();
        if let Some(dep) = &self.dependency {
            out.push(format!(
                "{add} `{dep}` to [dev-dependencies] in Cargo.toml (tests set up their environment or mocks with it)"
            ));
        }
        if let (Some(dir), Some(_)) = (&self.vendored, &self.dependency) {
            out.push(format!(
                "{write} the hermetic runtime to {} (commit it; `cargo hermetic generate` keeps it up to date)",
                dir.display()
            ));
        }
        out
    }
}

/// Makes `[dev-dependencies]` name the runtime: as `source` says when given; otherwise an entry
/// already there is kept (crates.io, or the vendored copy), unless it points outside the
/// repository (an older tool's checkout, which no teammate has), and a new one is vendored.
/// A vendored copy is (re)written each time, so a newer tool upgrades it.
pub fn runtime_dev_dependency(place: &Place, source: Option<RuntimeSource>) -> Result<RuntimeEdit> {
    let path = place.crate_dir.join("Cargo.toml");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("read {}", path.display()))?;
    let mut doc: DocumentMut = text
        .parse()
        .with_context(|| format!("parse {}", path.display()))?;
    let dev = doc
        .entry("dev-dependencies")
        .or_insert(Item::Table(Table::new()))
        .as_table_like_mut()
        .context("[dev-dependencies] is not a table")?;
    let crate_dir = absolute(place.crate_dir);
    let root = absolute(place.workspace_root);
    let vendored_dir = root.join(runtime::VENDORED_DIR);
    let vendored_path = relative(&crate_dir, &vendored_dir).display().to_string();
    let existing = dev.get(RUNTIME).map(|d| {
        let path = d
            .get("path")
            .and_then(Item::as_str)
            .map(|p| absolute(&crate_dir.join(p)));
        match path {
            None => Existing::Registry,
            Some(p) if p == vendored_dir => Existing::Vendored,
            Some(p) if p.starts_with(&root) => Existing::OtherInRepository,
            Some(_) => Existing::Outside,
        }
    });
    let wanted = match (source, existing) {
        (Some(s), _) => s,
        (None, Some(Existing::Registry)) => RuntimeSource::Registry,
        (None, Some(Existing::OtherInRepository)) => return Ok(RuntimeEdit::default()),
        (None, _) => RuntimeSource::Vendored,
    };
    let keep = matches!(
        (wanted, existing),
        (RuntimeSource::Registry, Some(Existing::Registry))
            | (RuntimeSource::Vendored, Some(Existing::Vendored))
    );
    let mut edit = RuntimeEdit::default();
    if wanted == RuntimeSource::Vendored {
        edit.runtime_files = runtime::changes(&vendored_dir)?;
        edit.vendored = Some(PathBuf::from(runtime::VENDORED_DIR));
    }
    if keep {
        return Ok(edit);
    }
    let value: toml_edit::Value = match wanted {
        RuntimeSource::Registry => runtime::VERSION.into(),
        RuntimeSource::Vendored => {
            let mut dep = toml_edit::InlineTable::new();
            dep.insert("path", vendored_path.into());
            toml_edit::Value::InlineTable(dep)
        }
    };
    dev.insert(RUNTIME, Item::Value(value.clone()));
    edit.dependency = Some(format!("{RUNTIME} = {}", value.to_string().trim()));
    edit.manifest = Some(doc.to_string());
    Ok(edit)
}

/// What the manifest named before.
#[derive(Debug, Clone, Copy)]
enum Existing {
    Registry,
    Vendored,
    /// A path inside the repository other than the vendored copy: the user's own choice.
    OtherInRepository,
    /// A path outside the repository.
    Outside,
}

fn absolute(p: &Path) -> PathBuf {
    p.canonicalize().unwrap_or_else(|_| p.to_path_buf())
}

/// `to` relative to the directory `from` (both absolute), or `to` itself when they share no
/// prefix but the root.
fn relative(from: &Path, to: &Path) -> PathBuf {
    let f: Vec<Component> = from.components().collect();
    let t: Vec<Component> = to.components().collect();
    let common = f.iter().zip(&t).take_while(|(a, b)| a == b).count();
    if common <= 1 {
        return to.to_path_buf();
    }
    let mut out = PathBuf::new();
    for _ in common..f.len() {
        out.push("..");
    }
    for c in &t[common..] {
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths_climb_to_the_common_directory() {
        assert_eq!(
            relative(Path::new("/a/b/c"), Path::new("/a/d")),
            PathBuf::from("../../d")
        );
        assert_eq!(
            relative(Path::new("/a"), Path::new("/a/x/y")),
            PathBuf::from("x/y")
        );
        assert_eq!(
            relative(Path::new("/x"), Path::new("/y/z")),
            PathBuf::from("/y/z")
        );
    }

    /// The edit, written.
    fn applied(place: &Place, source: Option<RuntimeSource>) -> Result<RuntimeEdit> {
        let edit = runtime_dev_dependency(place, source)?;
        let mut changes = edit.runtime_files.clone();
        if let Some(text) = &edit.manifest {
            changes.write(place.crate_dir.join("Cargo.toml"), text.as_str());
        }
        changes.commit()?;
        Ok(edit)
    }

    fn manifest_in(dir: &Path, text: &str) -> PathBuf {
        let manifest = dir.join("Cargo.toml");
        std::fs::write(&manifest, text).unwrap();
        manifest
    }

    #[test]
    fn adds_a_vendored_runtime_once_and_keeps_comments() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = manifest_in(
            dir.path(),
            "[package]\nname = \"x\" # mine\nversion = \"0.1.0\"\n",
        );
        let place = Place {
            crate_dir: dir.path(),
            workspace_root: dir.path(),
        };
        let planned = runtime_dev_dependency(&place, None).unwrap();
        assert!(planned.dependency.is_some());
        assert!(!std::fs::read_to_string(&manifest)
            .unwrap()
            .contains("hermetic"));
        assert!(!dir.path().join(".hermetic").exists());
        let first = applied(&place, None).unwrap();
        assert_eq!(
            first.dependency.as_deref(),
            Some("hermetic = { path = \".hermetic/runtime\" }")
        );
        assert!(dir.path().join(".hermetic/runtime/src/lib.rs").exists());
        let second = applied(&place, None).unwrap();
        assert_eq!(second.dependency, None);
        assert_eq!(second.vendored, Some(PathBuf::from(".hermetic/runtime")));
        let text = std::fs::read_to_string(&manifest).unwrap();
        assert!(text.contains("# mine"));
        assert_eq!(text.matches("hermetic = { path = ").count(), 1, "{text}");
    }

    #[test]
    fn a_member_crate_points_at_the_workspace_copy_and_an_old_checkout_path_is_replaced() {
        let root = tempfile::tempdir().unwrap();
        let member = root.path().join("crates/app");
        std::fs::create_dir_all(&member).unwrap();
        let manifest = manifest_in(
            &member,
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\n\n[dev-dependencies]\nhermetic = { path = \"/somewhere/else/hermetic\" }\n",
        );
        let place = Place {
            crate_dir: &member,
            workspace_root: root.path(),
        };
        let edit = applied(&place, None).unwrap();
        assert_eq!(
            edit.dependency.as_deref(),
            Some("hermetic = { path = \"../../.hermetic/runtime\" }")
        );
        assert!(root.path().join(".hermetic/runtime/Cargo.toml").exists());
        assert!(!std::fs::read_to_string(&manifest)
            .unwrap()
            .contains("/somewhere"));
    }

    #[test]
    fn registry_is_kept_unless_asked_otherwise() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = manifest_in(dir.path(), "[package]\nname = \"x\"\nversion = \"0.1.0\"\n");
        let place = Place {
            crate_dir: dir.path(),
            workspace_root: dir.path(),
        };
        let edit = applied(&place, Some(RuntimeSource::Registry)).unwrap();
        assert_eq!(
            edit.dependency,
            Some(format!("hermetic = \"{}\"", runtime::VERSION))
        );
        assert_eq!(edit.vendored, None);
        assert_eq!(applied(&place, None).unwrap(), RuntimeEdit::default());
        let edit = applied(&place, Some(RuntimeSource::Vendored)).unwrap();
        assert!(edit.dependency.is_some());
        assert!(std::fs::read_to_string(&manifest)
            .unwrap()
            .contains(".hermetic/runtime"));
    }
}
