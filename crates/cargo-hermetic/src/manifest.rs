//! The one edit hermetic makes to a user's Cargo.toml: the dev-dependency on the `hermetic`
//! runtime that tests with an environment need. Formatting and comments are kept (toml_edit).

use crate::shadow::runtime_dir;
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

/// Adds `hermetic = { path = ".." }` to `[dev-dependencies]` unless it is there. Returns whether
/// the manifest changed (with `dry_run`, whether it would).
pub fn ensure_runtime_dev_dependency(crate_dir: &Path, dry_run: bool) -> Result<bool> {
    let path = crate_dir.join("Cargo.toml");
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
    if dev.contains_key(RUNTIME) {
        return Ok(false);
    }
    if dry_run {
        return Ok(true);
    }
    let runtime = runtime_dir()?;
    let dir = crate_dir
        .canonicalize()
        .unwrap_or_else(|_| crate_dir.to_path_buf());
    let mut dep = toml_edit::InlineTable::new();
    dep.insert(
        "path",
        relative(&dir, &runtime).display().to_string().into(),
    );
    dev.insert(RUNTIME, Item::Value(toml_edit::Value::InlineTable(dep)));
    let tmp = path.with_extension("toml.hermetic-tmp");
    std::fs::write(&tmp, doc.to_string()).with_context(|| format!("write {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("replace {}", path.display()))?;
    Ok(true)
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

    #[test]
    fn adds_the_dev_dependency_once_and_keeps_comments() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("Cargo.toml");
        std::fs::write(
            &manifest,
            "[package]\nname = \"x\" # mine\nversion = \"0.1.0\"\n",
        )
        .unwrap();
        assert!(ensure_runtime_dev_dependency(dir.path(), true).unwrap());
        assert!(!std::fs::read_to_string(&manifest)
            .unwrap()
            .contains("hermetic"));
        assert!(ensure_runtime_dev_dependency(dir.path(), false).unwrap());
        assert!(!ensure_runtime_dev_dependency(dir.path(), false).unwrap());
        let text = std::fs::read_to_string(&manifest).unwrap();
        assert!(text.contains("# mine"));
        assert_eq!(text.matches("hermetic = { path = ").count(), 1, "{text}");
    }
}
