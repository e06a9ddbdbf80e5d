//! What the benchmark programs share.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Copies a fixture crate, leaving out its `target` directory.
pub fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let name = entry.file_name();
        if name == "target" {
            continue;
        }
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &to.join(&name))?;
        } else {
            std::fs::copy(entry.path(), to.join(&name))?;
        }
    }
    Ok(())
}

/// The crate's sources in cargo's registry cache (`$CARGO_HOME/registry/src/*/name-version`),
/// fetched through cargo (a throwaway crate depending on exactly that version) when absent.
pub fn registry_source(name: &str, version: &str, work: &Path) -> Option<PathBuf> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))?;
    let find = || -> Option<PathBuf> {
        let src = cargo_home.join("registry/src");
        std::fs::read_dir(src)
            .ok()?
            .flatten()
            .map(|index| index.path().join(format!("{name}-{version}")))
            .find(|p| p.join("Cargo.toml").is_file())
    };
    if let Some(found) = find() {
        return Some(found);
    }
    let fetcher = work.join("fetch").join(name);
    std::fs::create_dir_all(fetcher.join("src")).ok()?;
    std::fs::write(
        fetcher.join("Cargo.toml"),
        format!(
            "[package]\nname = \"fetch-{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
             [dependencies]\n{name} = \"={version}\"\n\n[workspace]\n"
        ),
    )
    .ok()?;
    std::fs::write(fetcher.join("src/lib.rs"), "").ok()?;
    let fetched = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .arg("fetch")
        .arg("--manifest-path")
        .arg(fetcher.join("Cargo.toml"))
        .stdout(Stdio::null())
        .status()
        .ok()?;
    if !fetched.success() {
        return None;
    }
    find()
}

/// Cargo unpacks registry sources as they were packed; the copy is the tool's to change.
pub fn make_writable(dir: &Path) {
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if let Ok(meta) = entry.metadata() {
            let mut perms = meta.permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            let _ = std::fs::set_permissions(&path, perms);
            if meta.is_dir() {
                make_writable(&path);
            }
        }
    }
}
