//! Whether the code and the command are as the last run left them. A run of `generate` on a
//! whole package records a fingerprint of the crate's sources as the run leaves them (its own
//! edits included: `mod hermetic_tests;` lines, isolate attributes, the dev-dependency) and of
//! the options that shape its search; the next run of the package with the same command finds
//! the same fingerprint when nothing changed since. The search then only runs the kept tests
//! (`search::SearchConfig::kept_only`), so the same command on unchanged code writes the same
//! files even when the last search was cut short by its budget. Another command (`--isolate`, a
//! larger `--budget`) searches again, and so does `--extend`.
//!
//! The fingerprint covers the package's `Cargo.toml` and the `.rs` files below the directory of
//! its library root, except the generated test files (whose first line carries
//! [`GENERATED_MARKER`]), the search's options (`GenerateArgs::search_options`) and the tool's
//! version. It is written to
//! `.hermetic/cases/<package>/sources` at the workspace root, with the cases.

use crate::emit::GENERATED_MARKER;
use crate::fnv::Fnv;
use crate::kept::CASES_DIR;
use std::path::{Path, PathBuf};

/// The file below `.hermetic/cases/<package>/`.
const FILE: &str = "sources";

/// Where the package's fingerprint is kept.
pub fn path(workspace_root: &Path, package: &str) -> PathBuf {
    workspace_root.join(CASES_DIR).join(package).join(FILE)
}

/// The fingerprint of the crate's sources as they are now and of the search's `options` (see
/// the module's documentation).
pub fn fingerprint(crate_dir: &Path, lib_rs: &Path, options: &str) -> String {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    if let Ok(bytes) = std::fs::read(crate_dir.join("Cargo.toml")) {
        files.push(("Cargo.toml".to_string(), bytes));
    }
    let src = lib_rs.parent().unwrap_or(crate_dir);
    for entry in walkdir::WalkDir::new(src)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
    {
        let Ok(bytes) = std::fs::read(entry.path()) else {
            continue;
        };
        if generated(&bytes) {
            continue;
        }
        let rel = entry.path().strip_prefix(crate_dir).unwrap_or(entry.path());
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        files.push((rel.join("/"), bytes));
    }
    files.sort();
    let mut hash = Fnv::default();
    hash.add(env!("CARGO_PKG_VERSION").as_bytes());
    hash.add(&(options.len() as u64).to_le_bytes());
    hash.add(options.as_bytes());
    for (name, bytes) in &files {
        hash.add(name.as_bytes());
        hash.add(&(bytes.len() as u64).to_le_bytes());
        hash.add(bytes);
    }
    format!(
        "cargo-hermetic {} {:016x}",
        env!("CARGO_PKG_VERSION"),
        hash.0
    )
}

/// Whether the fingerprint the last run recorded is the one the sources have now.
pub fn matches(
    workspace_root: &Path,
    package: &str,
    crate_dir: &Path,
    lib_rs: &Path,
    options: &str,
) -> bool {
    std::fs::read_to_string(path(workspace_root, package))
        .is_ok_and(|recorded| recorded.trim_end() == fingerprint(crate_dir, lib_rs, options))
}

/// Records the sources' fingerprint, once the run's files are written. Unchanged text is not
/// written again.
pub fn record(
    workspace_root: &Path,
    package: &str,
    crate_dir: &Path,
    lib_rs: &Path,
    options: &str,
) -> std::io::Result<()> {
    let path = path(workspace_root, package);
    let text = format!("{}\n", fingerprint(crate_dir, lib_rs, options));
    if std::fs::read_to_string(&path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    std::fs::write(path, text)
}

/// Whether a file is one the tool generated (its first line says so).
fn generated(bytes: &[u8]) -> bool {
    let first = bytes.split(|&b| b == b'\n').next().unwrap_or_default();
    String::from_utf8_lossy(first).contains(GENERATED_MARKER)
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPTS: &str = "budget 60";

    fn crate_at(dir: &Path) -> PathBuf {
        std::fs::create_dir_all(dir.join("src/a")).unwrap();
        std::fs::write(dir.join("Cargo.toml"), "[package]\nname = \"u\"\n").unwrap();
        std::fs::write(dir.join("src/lib.rs"), "pub mod a;\n").unwrap();
        std::fs::write(dir.join("src/a/mod.rs"), "pub fn f() -> u8 { 1 }\n").unwrap();
        dir.join("src/lib.rs")
    }

    #[test]
    fn a_recorded_fingerprint_matches_until_a_source_changes() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("u");
        let lib = crate_at(&dir);
        assert!(
            !matches(tmp.path(), "u", &dir, &lib, OPTS),
            "nothing recorded yet"
        );
        record(tmp.path(), "u", &dir, &lib, OPTS).unwrap();
        assert!(path(tmp.path(), "u").starts_with(tmp.path().join(".hermetic/cases/u")));
        assert!(matches(tmp.path(), "u", &dir, &lib, OPTS));

        // The generated test files and files outside the sources do not count.
        std::fs::write(
            dir.join("src/a/hermetic_tests.rs"),
            format!("// {GENERATED_MARKER}\n#[test] fn t() {{}}\n"),
        )
        .unwrap();
        std::fs::write(dir.join("README.md"), "notes\n").unwrap();
        assert!(matches(tmp.path(), "u", &dir, &lib, OPTS));

        // Any change to a source file or the manifest does.
        std::fs::write(dir.join("src/a/mod.rs"), "pub fn f() -> u8 { 2 }\n").unwrap();
        assert!(!matches(tmp.path(), "u", &dir, &lib, OPTS));
        record(tmp.path(), "u", &dir, &lib, OPTS).unwrap();
        assert!(matches(tmp.path(), "u", &dir, &lib, OPTS));
        std::fs::write(dir.join("src/b.rs"), "pub fn g() {}\n").unwrap();
        assert!(!matches(tmp.path(), "u", &dir, &lib, OPTS), "a new file");
        std::fs::remove_file(dir.join("src/b.rs")).unwrap();
        assert!(matches(tmp.path(), "u", &dir, &lib, OPTS));
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"u\"\n[features]\n",
        )
        .unwrap();
        assert!(!matches(tmp.path(), "u", &dir, &lib, OPTS), "the manifest");
        record(tmp.path(), "u", &dir, &lib, OPTS).unwrap();
        assert!(
            !matches(tmp.path(), "u", &dir, &lib, "budget 600"),
            "another command"
        );
    }

    #[test]
    fn the_fingerprint_does_not_depend_on_where_the_crate_is() {
        let tmp = tempfile::tempdir().unwrap();
        let one = tmp.path().join("one");
        let two = tmp.path().join("elsewhere/two");
        let (lib1, lib2) = (crate_at(&one), crate_at(&two));
        assert_eq!(
            fingerprint(&one, &lib1, OPTS),
            fingerprint(&two, &lib2, OPTS)
        );
        // Moving code between files is a change.
        std::fs::write(
            two.join("src/lib.rs"),
            "pub mod a;\npub fn f() -> u8 { 1 }\n",
        )
        .unwrap();
        std::fs::write(two.join("src/a/mod.rs"), "").unwrap();
        assert_ne!(
            fingerprint(&one, &lib1, OPTS),
            fingerprint(&two, &lib2, OPTS)
        );
    }
}
