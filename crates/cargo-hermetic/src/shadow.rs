//! The shadow copy: the user's crate copied under the target directory, where the driver is
//! injected and built. The user's tree is only ever read.
//!
//! The copy's root declares `extern crate hermetic_driver;` (in tests; `declare_extern_crate`),
//! without which edition 2015 crates cannot name `::hermetic_driver`. Each copy reaches the support
//! crates (runtime, driver, protocol, sandbox; written once per tool version in the cache
//! directory, else in `<work_dir>/support`: `support.rs`) through a link inside it,
//! `.hermetic-support`, so they are inside the copy's workspace and cargo derives their build
//! metadata from relative paths: the driver's executable, down to where its heap starts, does not
//! depend on where the user's crate lives (code that compares addresses searches alike in a
//! teammate's clone), and the support crates' builds are the same for every crate's copy, so the
//! target directory the copies of every crate share reuses them. Whatever `hermetic` entry the user's manifest has, copies build against the
//! carried runtime. The support crates' sources are embedded in this binary.
//!
//! The crate's own path dependencies are reached by paths relative to the copy too ([`paths`]):
//! those in its directory are the copy's copies, the others lie behind a link,
//! `.hermetic-paths/<hash of their files>`, to the directory that holds them. The copy's
//! workspace carries what the user's workspace lets members inherit (`[workspace.package]`,
//! `.dependencies`, `.lints`) and its root's `[patch]` and `[replace]`.
//!
//! The user's tree is only read until the verified tests are committed, and then written only by
//! [`crate::commit`].

mod paths;

use crate::cluster::{Cluster, ModuleBody};
use anyhow::{bail, Context, Result};
use paths::{is_inherited, normalize, sections, PathDeps, Section};
use std::path::{Path, PathBuf};
use toml_edit::{DocumentMut, Item, Table, Value as TomlValue};

/// The driver support crate and the protocol and sandbox crates it shares with this engine,
/// carried inside this binary so that an installed `cargo-hermetic` needs no source tree of its own.
const DRIVER_FILES: &[(&str, &str)] = &[
    (
        "src/lib.rs",
        include_str!("../../hermetic-driver/src/lib.rs"),
    ),
    (
        "src/coverage.rs",
        include_str!("../../hermetic-driver/src/coverage.rs"),
    ),
    (
        "src/decode.rs",
        include_str!("../../hermetic-driver/src/decode.rs"),
    ),
    (
        "src/environment.rs",
        include_str!("../../hermetic-driver/src/environment.rs"),
    ),
    (
        "src/sandbox.rs",
        include_str!("../../hermetic-driver/src/sandbox.rs"),
    ),
    (
        "src/observe.rs",
        include_str!("../../hermetic-driver/src/observe.rs"),
    ),
    (
        "src/server.rs",
        include_str!("../../hermetic-driver/src/server.rs"),
    ),
    (
        "src/slots.rs",
        include_str!("../../hermetic-driver/src/slots.rs"),
    ),
    (
        "src/mock.rs",
        include_str!("../../hermetic-driver/src/mock.rs"),
    ),
    (
        "src/fakes.rs",
        include_str!("../../hermetic-driver/src/fakes.rs"),
    ),
    (
        "src/carryover.rs",
        include_str!("../../hermetic-driver/src/carryover.rs"),
    ),
    (
        "src/leftovers.rs",
        include_str!("../../hermetic-driver/src/leftovers.rs"),
    ),
    (
        "src/mutant.rs",
        include_str!("../../hermetic-driver/src/mutant.rs"),
    ),
];

const DRIVER_MANIFEST: &str = r#"[package]
name = "hermetic-driver"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
hermetic = { path = "../hermetic" }
hermetic-protocol = { path = "../hermetic-protocol" }
hermetic-sandbox = { path = "../hermetic-sandbox" }
libc = "0.2.186"
serde = { version = "1", features = ["derive"] }
serde_json = "1"
"#;

const PROTOCOL_FILES: &[(&str, &str)] = &[(
    "src/lib.rs",
    include_str!("../../hermetic-protocol/src/lib.rs"),
)];

const SANDBOX_FILES: &[(&str, &str)] = &[
    (
        "src/lib.rs",
        include_str!("../../hermetic-sandbox/src/lib.rs"),
    ),
    (
        "src/filter.rs",
        include_str!("../../hermetic-sandbox/src/filter.rs"),
    ),
    (
        "src/landlock.rs",
        include_str!("../../hermetic-sandbox/src/landlock.rs"),
    ),
    (
        "src/launch.rs",
        include_str!("../../hermetic-sandbox/src/launch.rs"),
    ),
    (
        "src/namespaces.rs",
        include_str!("../../hermetic-sandbox/src/namespaces.rs"),
    ),
    (
        "src/supervisor.rs",
        include_str!("../../hermetic-sandbox/src/supervisor.rs"),
    ),
    (
        "src/refusals.rs",
        include_str!("../../hermetic-sandbox/src/refusals.rs"),
    ),
];

const SANDBOX_MANIFEST: &str = r#"[package]
name = "hermetic-sandbox"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
landlock = "0.4"
libc = "0.2.186"
"#;

const PROTOCOL_MANIFEST: &str = r#"[package]
name = "hermetic-protocol"
version = "0.1.0"
edition = "2021"
publish = false

[dependencies]
serde = { version = "1", features = ["derive"] }
"#;

/// Where a crate's copy lives and where it is built.
pub struct Shadow {
    /// The copied crate (the directory of its Cargo.toml).
    pub root: PathBuf,
    /// Cargo's target directory for shadow builds (kept between runs, so rebuilds are quick;
    /// shared by every crate's copies when the cache directory is used, `support.rs`).
    pub target_dir: PathBuf,
}

/// What the copy is made from.
pub struct Origin<'a> {
    /// The directory of the crate's Cargo.toml.
    pub crate_dir: &'a Path,
    /// The workspace root (for `Cargo.lock` and inherited manifest fields).
    pub workspace_root: &'a Path,
    /// Scratch space for this tool: `<target>/hermetic`.
    pub work_dir: &'a Path,
    /// Where the support crates are and where the copies build ([`crate::support::locate`]).
    pub support: &'a crate::support::Support,
    /// The feature flags every build of a copy gets (`--features ..` as the user gave them).
    pub cargo_args: &'a [String],
}

/// Where a copy sees the support crates (the runtime and the driver's, `support.rs`):
/// a link inside the copy, so that they are inside its workspace. Cargo then derives their
/// builds' metadata from paths relative to the copy, and the driver's executable, down to the
/// addresses its allocations get, is the same wherever the user's crate lives.
const SUPPORT_LINK: &str = ".hermetic-support";

/// A support crate as a copy's manifest names it.
fn support_dep(name: &str) -> toml_edit::InlineTable {
    path_dep(&Path::new(SUPPORT_LINK).join(name))
}

/// Copies the crate to `<work_dir>/<name>` with a manifest that stands on its own; `support_deps`
/// are support crates (in `origin.support`, written by [`crate::support::locate`]) added as
/// dev-dependencies.
pub fn copy_crate(origin: &Origin, name: &str, support_deps: &[&str]) -> Result<Shadow> {
    let root = origin.work_dir.join(name);
    if root.exists() {
        std::fs::remove_dir_all(&root)
            .with_context(|| format!("remove old copy {}", root.display()))?;
    }
    let paths = PathDeps::find(origin.crate_dir, origin.workspace_root, origin.work_dir);
    copy_tree(origin.crate_dir, &root, origin.work_dir)?;
    let support = &origin.support.dir;
    std::os::unix::fs::symlink(support, root.join(SUPPORT_LINK))
        .with_context(|| format!("link {} into {}", support.display(), root.display()))?;
    paths.make_link(&root)?;
    paths.fix_copied_manifests(&root)?;
    let manifest_path = root.join("Cargo.toml");
    let text =
        std::fs::read_to_string(origin.crate_dir.join("Cargo.toml")).context("read Cargo.toml")?;
    let fixed = fix_manifest(&text, origin, support_deps, &paths)?;
    std::fs::write(&manifest_path, fixed).context("write the copy's Cargo.toml")?;
    let lock = origin.workspace_root.join("Cargo.lock");
    if lock.exists() {
        std::fs::copy(&lock, root.join("Cargo.lock")).context("copy Cargo.lock")?;
    }
    Ok(Shadow {
        root,
        target_dir: origin.support.target_dir.clone(),
    })
}

/// Writes the driver support crate to `<work_dir>/support/hermetic-driver`, and the protocol
/// and sandbox crates beside it, leaving unchanged files alone (the layout without a cache
/// directory, [`crate::support::locate`]).
pub fn write_support_crate(work_dir: &Path) -> Result<PathBuf> {
    let support = work_dir.join("support");
    let protocol = support.join("hermetic-protocol");
    write_crate(&protocol, PROTOCOL_FILES, PROTOCOL_MANIFEST)?;
    write_crate(
        &support.join("hermetic-sandbox"),
        SANDBOX_FILES,
        SANDBOX_MANIFEST,
    )?;
    let driver = support.join("hermetic-driver");
    write_crate(&driver, DRIVER_FILES, DRIVER_MANIFEST)?;
    Ok(driver)
}

/// Every file of the support crates but the runtime (relative to their directory, contents):
/// what [`write_support_crate`] writes.
pub fn support_files() -> Vec<(PathBuf, String)> {
    [
        ("hermetic-protocol", PROTOCOL_FILES, PROTOCOL_MANIFEST),
        ("hermetic-sandbox", SANDBOX_FILES, SANDBOX_MANIFEST),
        ("hermetic-driver", DRIVER_FILES, DRIVER_MANIFEST),
    ]
    .into_iter()
    .flat_map(|(name, files, manifest)| {
        let dir = Path::new(name);
        files
            .iter()
            .map(move |(rel, text)| (dir.join(rel), text.to_string()))
            .chain([(dir.join("Cargo.toml"), manifest.to_string())])
    })
    .collect()
}

fn write_crate(dir: &Path, files: &[(&str, &str)], manifest: &str) -> Result<()> {
    for (rel, text) in files {
        write_if_changed(&dir.join(rel), text)?;
    }
    write_if_changed(&dir.join("Cargo.toml"), manifest)
}

/// Leaves the file (and its timestamp, so cargo does not rebuild) alone when unchanged.
pub fn write_if_changed(path: &Path, text: &str) -> Result<()> {
    if std::fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).with_context(|| format!("create {}", parent.display()))?;
    }
    std::fs::write(path, text).with_context(|| format!("write {}", path.display()))
}

/// Copies `from` to `to`, leaving out `target` and `.git` directories and `skip`.
pub fn copy_tree(from: &Path, to: &Path, skip: &Path) -> Result<()> {
    for entry in walkdir::WalkDir::new(from).into_iter().filter_entry(|e| {
        let name = e.file_name().to_string_lossy();
        e.depth() == 0 || !(name == "target" || name == ".git" || e.path() == skip)
    }) {
        let entry = entry.with_context(|| format!("read {}", from.display()))?;
        let rel = entry
            .path()
            .strip_prefix(from)
            .expect("walkdir stays below its root");
        let dest = to.join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).with_context(|| format!("create {}", dest.display()))?;
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &dest).with_context(|| {
                format!("copy {} to {}", entry.path().display(), dest.display())
            })?;
        }
    }
    Ok(())
}

/// Makes the copied manifest build from its new place: its own workspace, which carries the
/// fields, dependencies and lints the user's workspace lets its members inherit and the
/// `[patch]` and `[replace]` of its root, path dependencies by paths relative to the copy
/// ([`paths`]), inherited fields written out, and extra dev-dependencies.
fn fix_manifest(
    text: &str,
    origin: &Origin,
    support_deps: &[&str],
    paths: &PathDeps,
) -> Result<String> {
    let mut doc: DocumentMut = text.parse().context("parse Cargo.toml")?;
    let root_doc = workspace_manifest(origin, &doc)?;
    let ws = root_doc.as_ref().and_then(|d| d.get("workspace"));
    let ws_table = |key: &str| ws.and_then(|w| w.get(key)).and_then(Item::as_table);
    let here = Path::new("");
    let crate_dir = normalize(origin.crate_dir);
    let workspace_root = normalize(origin.workspace_root);
    if let Some(package) = doc.get_mut("package").and_then(Item::as_table_mut) {
        for (key, item) in package.iter_mut() {
            if is_inherited(item) {
                let value = ws_table("package")
                    .and_then(|pkg| pkg.get(key.get()))
                    .with_context(|| {
                        format!(
                            "package.{} is inherited from a workspace that does not set it",
                            key.get()
                        )
                    })?;
                *item = value.clone();
            }
        }
    }
    for table in dependency_tables(&mut doc) {
        for (name, dep) in table.iter_mut() {
            if is_inherited(dep) {
                let base = ws_table("dependencies")
                    .and_then(|deps| deps.get(name.get()))
                    .with_context(|| {
                        format!(
                            "dependency `{}` is inherited from a workspace that does not list it",
                            name.get()
                        )
                    })?;
                let mut merged =
                    inline_dep(base, |p| paths.path_from(here, &workspace_root.join(p)));
                if let Some(extra) = dep.as_table_like() {
                    for (k, v) in extra.iter().filter(|(k, _)| *k != "workspace") {
                        if let Some(v) = v.as_value() {
                            merged.insert(k, v.clone());
                        }
                    }
                }
                *dep = Item::Value(TomlValue::InlineTable(merged));
            } else if dep.get("path").is_some() {
                *dep = Item::Value(TomlValue::InlineTable(inline_dep(dep, |p| {
                    paths.path_from(here, &crate_dir.join(p))
                })));
            }
            if name.get() == crate::manifest::RUNTIME {
                // Whatever the user's tests name (crates.io, a vendored copy, an older tool's
                // path), copies build against the runtime this tool carries.
                *dep = Item::Value(TomlValue::InlineTable(support_dep(
                    crate::manifest::RUNTIME,
                )));
            }
        }
    }
    // The copy is a workspace of its own, whose members (the copied path dependencies)
    // inherit what they inherited in the user's.
    let mut workspace = Table::new();
    for key in ["package", "dependencies", "lints"] {
        if let Some(item) = ws.and_then(|w| w.get(key)) {
            workspace.insert(key, item.clone());
        }
    }
    if let Some(deps) = workspace
        .get_mut("dependencies")
        .and_then(Item::as_table_mut)
    {
        paths.map_paths(deps, &workspace_root, here);
    }
    let excluded = paths.excluded();
    if !excluded.is_empty() {
        workspace.insert(
            "exclude",
            toml_edit::value(excluded.into_iter().collect::<toml_edit::Array>()),
        );
    }
    doc.remove("workspace");
    doc.insert("workspace", Item::Table(workspace));
    // Cargo applies the patches of the workspace root's manifest alone.
    for key in ["patch", "replace"] {
        doc.remove(key);
    }
    if let Some(mut root) = root_doc {
        for (section, table) in sections(&mut root) {
            if matches!(section, Section::Patch | Section::Replace) {
                paths.map_paths(table, &workspace_root, here);
            }
        }
        for key in ["patch", "replace"] {
            if let Some(item) = root.remove(key) {
                doc.insert(key, item);
            }
        }
    }
    let dev = doc
        .entry("dev-dependencies")
        .or_insert(Item::Table(Table::new()))
        .as_table_mut()
        .context("dev-dependencies is not a table")?;
    for name in support_deps {
        dev.insert(name, Item::Value(TomlValue::InlineTable(support_dep(name))));
    }
    Ok(doc.to_string())
}

/// The manifest of the workspace root (the crate's own when it is the root), if it has one.
fn workspace_manifest(origin: &Origin, own: &DocumentMut) -> Result<Option<DocumentMut>> {
    if normalize(origin.workspace_root) == normalize(origin.crate_dir) {
        return Ok(Some(own.clone()));
    }
    let path = origin.workspace_root.join("Cargo.toml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    let doc = text
        .parse()
        .with_context(|| format!("parse {}", path.display()))?;
    Ok(Some(doc))
}

fn path_dep(path: &Path) -> toml_edit::InlineTable {
    let mut dep = toml_edit::InlineTable::new();
    dep.insert("path", path.display().to_string().into());
    dep
}

/// Adds the runtime this tool carries to `table` (`dependencies` or `dev-dependencies`) of a
/// copy's manifest, for tests or probes that use it.
pub fn add_runtime_dependency(manifest: &Path, table: &str) -> Result<()> {
    let text = std::fs::read_to_string(manifest)
        .with_context(|| format!("read {}", manifest.display()))?;
    let mut doc: DocumentMut = text.parse().context("parse the copy's Cargo.toml")?;
    doc.entry(table)
        .or_insert(Item::Table(Table::new()))
        .as_table_like_mut()
        .with_context(|| format!("[{table}] is not a table"))?
        .insert(
            crate::manifest::RUNTIME,
            Item::Value(TomlValue::InlineTable(support_dep(
                crate::manifest::RUNTIME,
            ))),
        );
    std::fs::write(manifest, doc.to_string())
        .with_context(|| format!("write {}", manifest.display()))
}

/// The packages of the driver's own support code, built optimised in the driver's build
/// ([`optimise_support`]): the driver, its protocol and sandbox, the runtime, and the crates
/// its JSON protocol runs on (`serde_json` formats numbers with `itoa` and scans with `memchr`;
/// `serde_core` holds serde's traits since 1.0.220). Only packages every driver build links
/// are named (cargo warns of a name that matches none, as `serde_core` does where a lock file
/// pins an older serde); the crate under test is left out when it has one of the names.
///
/// Side effect: an optimised crate exports none of its generic instances, so the crate under
/// test compiles its own, instrumented, copies of the small generic functions its dispatch code
/// calls (`Vec::with_capacity`, `slots::keep`, pointer checks): an execution covers more
/// counters and logs more comparisons, all outside the selected functions, whose goals are
/// the same.
const SUPPORT_PACKAGES: &[&str] = &[
    "hermetic-driver",
    "hermetic-protocol",
    "hermetic-sandbox",
    crate::manifest::RUNTIME,
    "serde",
    "serde_core",
    "serde_json",
    "itoa",
    "memchr",
    "libc",
];

/// Builds the support packages of a driver's copy at opt-level 3 (cargo profile overrides of
/// the `test` profile its build uses): decoding each request, setting up the environment and
/// encoding each report is most of an execution's time at opt-level 0. The crate under test
/// keeps the test profile as it is, and with it its instrumentation, debug assertions and
/// overflow checks; only the optimisation level of the other packages changes.
pub fn optimise_support(manifest: &Path) -> Result<()> {
    let text = std::fs::read_to_string(manifest)
        .with_context(|| format!("read {}", manifest.display()))?;
    let mut doc: DocumentMut = text.parse().context("parse the copy's Cargo.toml")?;
    let own = doc
        .get("package")
        .and_then(|p| p.get("name"))
        .and_then(Item::as_str)
        .map(str::to_string);
    let packages = ["profile", "test", "package"]
        .iter()
        .try_fold(doc.as_table_mut(), |table, key| {
            let mut inner = Table::new();
            inner.set_implicit(true);
            table
                .entry(key)
                .or_insert(Item::Table(inner))
                .as_table_mut()
        })
        .context("[profile.test.package] of the copy's Cargo.toml is not a table")?;
    for name in SUPPORT_PACKAGES
        .iter()
        .filter(|&&n| own.as_deref() != Some(n))
    {
        packages
            .entry(name)
            .or_insert(Item::Table(Table::new()))
            .as_table_like_mut()
            .with_context(|| format!("[profile.test.package.{name}] is not a table"))?
            .insert("opt-level", toml_edit::value(3));
    }
    std::fs::write(manifest, doc.to_string())
        .with_context(|| format!("write {}", manifest.display()))
}

/// A dependency as an inline table, its `path` (if any) as `path` maps it.
fn inline_dep(dep: &Item, path: impl Fn(&str) -> String) -> toml_edit::InlineTable {
    let mut out = toml_edit::InlineTable::new();
    if let Some(version) = dep.as_str() {
        out.insert("version", version.into());
        return out;
    }
    if let Some(t) = dep.as_table_like() {
        for (k, v) in t.iter() {
            if let Some(v) = v.as_value() {
                out.insert(k, v.clone());
            }
        }
    }
    if let Some(mapped) = out.get("path").and_then(|p| p.as_str()).map(&path) {
        out.insert("path", mapped.into());
    }
    out
}

/// `[dependencies]`, `[dev-dependencies]` and `[build-dependencies]`, also under `[target]`.
fn dependency_tables(doc: &mut DocumentMut) -> Vec<&mut Table> {
    sections(doc)
        .into_iter()
        .filter(|(section, _)| matches!(section, Section::Normal | Section::Dev))
        .map(|(_, table)| table)
        .collect()
}

/// Declares `extern crate <krate>;` (in tests) at the end of the copy's crate root: edition
/// 2015 resolves `::krate` paths only through one, and later editions do not mind it.
pub fn declare_extern_crate(
    shadow: &Shadow,
    origin_dir: &Path,
    cluster: &Cluster,
    krate: &str,
) -> Result<()> {
    edit_root(shadow, origin_dir, cluster, |text| {
        text.push_str(&format!(
            "\n#[cfg(test)]\n#[allow(unused_extern_crates)]\nextern crate {krate};\n"
        ));
        Ok(())
    })
}

/// In a `#![no_std]` crate's copy, the attribute becomes `#![cfg_attr(not(test), no_std)]`:
/// the driver's dispatch modules use the standard library, which the test build links anyway.
pub fn std_in_tests(shadow: &Shadow, origin_dir: &Path, cluster: &Cluster) -> Result<()> {
    if !cluster.no_std {
        return Ok(());
    }
    edit_root(shadow, origin_dir, cluster, |text| {
        let at = crate::rust_syntax::no_std_attribute(text)
            .context("no `#![no_std]` to build the tests with std")?;
        text.replace_range(at, "#![cfg_attr(not(test), no_std)]");
        Ok(())
    })
}

/// Rewrites the copy's crate root file with `edit`.
fn edit_root(
    shadow: &Shadow,
    origin_dir: &Path,
    cluster: &Cluster,
    edit: impl FnOnce(&mut String) -> Result<()>,
) -> Result<()> {
    let root = &cluster.modules[0].file;
    let file = shadow
        .root
        .join(root.strip_prefix(origin_dir).unwrap_or(root));
    let mut text =
        std::fs::read_to_string(&file).with_context(|| format!("read {}", file.display()))?;
    edit(&mut text).with_context(|| format!("edit {}", file.display()))?;
    std::fs::write(&file, text).with_context(|| format!("write {}", file.display()))
}

/// Adds `#[cfg(test)] #[path = ".."] mod <name>;` to every module of the copy, pointing at the
/// given files (absolute paths). Insertions into one file go from its end backwards so the
/// recorded offsets of inline modules stay valid.
pub fn inject_modules(
    shadow: &Shadow,
    origin_dir: &Path,
    cluster: &Cluster,
    name: &str,
    files: &[(usize, PathBuf)],
) -> Result<()> {
    let mut per_file: std::collections::BTreeMap<PathBuf, Vec<(usize, String)>> =
        Default::default();
    for (m, file) in files {
        let module = &cluster.modules[*m];
        let rel = module.file.strip_prefix(origin_dir).unwrap_or(&module.file);
        let target = shadow.root.join(rel);
        let line = format!(
            "\n#[cfg(test)]\n#[path = {:?}]\npub(crate) mod {name};\n",
            file.display().to_string()
        );
        let at = match module.body {
            ModuleBody::File => usize::MAX,
            ModuleBody::Inline { close_brace } => close_brace,
        };
        per_file.entry(target).or_default().push((at, line));
    }
    for (file, mut inserts) in per_file {
        let mut text =
            std::fs::read_to_string(&file).with_context(|| format!("read {}", file.display()))?;
        inserts.sort_by_key(|insert| std::cmp::Reverse(insert.0));
        for (at, line) in inserts {
            let at = at.min(text.len());
            if !text.is_char_boundary(at) {
                bail!(
                    "module offset {at} is not a character boundary in {}",
                    file.display()
                );
            }
            text.insert_str(at, &line);
        }
        std::fs::write(&file, text).with_context(|| format!("write {}", file.display()))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::runtime::tests::{crate_dir, dependencies};

    #[test]
    fn the_support_packages_are_optimised_and_the_crate_under_test_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let manifest = dir.path().join("Cargo.toml");
        std::fs::write(
            &manifest,
            "[package]\nname = \"libc\"\n\n[profile.test.package.serde]\ndebug = false\n",
        )
        .unwrap();
        optimise_support(&manifest).unwrap();
        let doc: DocumentMut = std::fs::read_to_string(&manifest).unwrap().parse().unwrap();
        let packages = &doc["profile"]["test"]["package"];
        for name in [
            "hermetic-driver",
            "hermetic-protocol",
            "hermetic",
            "serde_json",
        ] {
            assert_eq!(packages[name]["opt-level"].as_integer(), Some(3), "{name}");
        }
        // What the manifest set stays; the crate under test keeps its profile.
        assert_eq!(packages["serde"]["opt-level"].as_integer(), Some(3));
        assert_eq!(packages["serde"]["debug"].as_bool(), Some(false));
        assert!(packages.get("libc").is_none());
        assert!(doc["profile"]["test"].get("opt-level").is_none());
    }

    /// The support crates' manifests are carried as text: their dependencies must stay those of
    /// the crates (a sandbox needing a newer libc than its carried manifest asks for breaks
    /// the driver build of every crate whose lock file pins an older one).
    #[test]
    fn the_carried_manifests_have_the_crates_dependencies() {
        for (name, carried) in [
            ("hermetic-driver", DRIVER_MANIFEST),
            ("hermetic-sandbox", SANDBOX_MANIFEST),
            ("hermetic-protocol", PROTOCOL_MANIFEST),
        ] {
            let real = std::fs::read_to_string(crate_dir(name).join("Cargo.toml")).unwrap();
            assert_eq!(dependencies(carried), dependencies(&real), "{name}");
        }
    }

    /// Writes `files` (path below the directory, text) to a new temporary directory; a
    /// package's `src/lib.rs` comes with its manifest.
    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, text).unwrap();
            if rel.ends_with("Cargo.toml") && text.contains("[package]") {
                let lib = path.parent().unwrap().join("src/lib.rs");
                std::fs::create_dir_all(lib.parent().unwrap()).unwrap();
                std::fs::write(lib, "pub fn f() {}\n").unwrap();
            }
        }
        dir
    }

    /// The copy of the crate in `<workspace>/<member>` (in a work directory of its own).
    fn copy_of(workspace: &Path, member: &str) -> (tempfile::TempDir, Shadow) {
        let work = tempfile::tempdir().unwrap();
        let support = crate::support::Support {
            dir: work.path().join("support"),
            target_dir: work.path().join("target"),
        };
        let crate_dir = workspace.join(member);
        let origin = Origin {
            crate_dir: &crate_dir,
            workspace_root: workspace,
            work_dir: work.path(),
            support: &support,
            cargo_args: &[],
        };
        let shadow = copy_crate(&origin, "shadow", &[]).unwrap();
        (work, shadow)
    }

    fn manifest_at(dir: &Path) -> DocumentMut {
        std::fs::read_to_string(dir.join("Cargo.toml"))
            .unwrap()
            .parse()
            .unwrap()
    }

    /// The name of the link in the copy's `.hermetic-paths`, and where it points.
    fn link(shadow: &Shadow) -> (String, PathBuf) {
        let dir = shadow.root.join(paths::PATHS_DIR);
        let entries: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(entries.len(), 1, "one link in {}", dir.display());
        let name = entries[0].file_name().to_string_lossy().into_owned();
        (name, std::fs::read_link(entries[0].path()).unwrap())
    }

    /// The manifests of the packages cargo builds the copy from (`cargo metadata`, offline:
    /// the trees of these tests have no registry dependencies).
    fn packages_cargo_reads(shadow: &Shadow) -> Vec<PathBuf> {
        let out = std::process::Command::new(std::env::var_os("CARGO").unwrap_or("cargo".into()))
            .args([
                "metadata",
                "--offline",
                "--format-version",
                "1",
                "--manifest-path",
            ])
            .arg(shadow.root.join("Cargo.toml"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let mut paths: Vec<PathBuf> = meta["packages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| PathBuf::from(p["manifest_path"].as_str().unwrap()))
            .collect();
        paths.sort();
        paths
    }

    const WORKSPACE: &[(&str, &str)] = &[
        (
            "Cargo.toml",
            "[workspace]\nmembers = [\"app\", \"common\", \"libs/util\", \"words\"]\n\n\
             [workspace.package]\nversion = \"0.3.0\"\nedition = \"2021\"\n\n\
             [workspace.dependencies]\nutil = { path = \"libs/util\" }\n\n\
             [patch.crates-io]\nfake = { path = \"libs/fake\" }\n",
        ),
        (
            "app/Cargo.toml",
            "[package]\nname = \"app\"\nversion.workspace = true\nedition.workspace = true\n\n\
             [dependencies]\nsettings = { path = \"settings\" }\ncommon = { path = \"../common\" }\n\
             util.workspace = true\ntext = { path = \"../words\", package = \"words\" }\n\n\
             [build-dependencies.helper]\npath = \"../helper\"\n",
        ),
        (
            "app/settings/Cargo.toml",
            "[package]\nname = \"settings\"\nversion.workspace = true\nedition = \"2021\"\n\n\
             [dependencies]\nwords = { path = \"../../words\" }\n",
        ),
        (
            "common/Cargo.toml",
            "[package]\nname = \"common\"\nversion.workspace = true\nedition = \"2021\"\n\n\
             [dependencies]\nutil = { path = \"../libs/util\" }\n\n\
             [dev-dependencies]\nfar = { path = \"../../far\" }\n",
        ),
        (
            "libs/util/Cargo.toml",
            "[package]\nname = \"util\"\nversion = \"0.3.0\"\nedition = \"2021\"\n",
        ),
        (
            "libs/fake/Cargo.toml",
            "[package]\nname = \"fake\"\nversion = \"1.0.0\"\nedition = \"2021\"\n",
        ),
        (
            "words/Cargo.toml",
            "[package]\nname = \"words\"\nversion.workspace = true\nedition = \"2021\"\n",
        ),
        (
            "helper/Cargo.toml",
            "[package]\nname = \"helper\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
    ];

    #[test]
    fn path_dependencies_lead_into_the_copy_or_through_the_link() {
        let ws = tree(WORKSPACE);
        let (_work, shadow) = copy_of(ws.path(), "app");
        let (name, target) = link(&shadow);
        assert_eq!(target, ws.path());
        let linked = |rel: &str| format!(".hermetic-paths/{name}/{rel}");
        let doc = manifest_at(&shadow.root);
        let path = |item: &Item| item["path"].as_str().unwrap().to_string();
        let deps = &doc["dependencies"];
        // Inside the crate: the copy's own copy, by the path as written.
        assert_eq!(path(&deps["settings"]), "settings");
        // Beside it: through the link, however they are written.
        assert_eq!(path(&deps["common"]), linked("common"));
        assert_eq!(path(&deps["util"]), linked("libs/util"));
        assert_eq!(path(&deps["text"]), linked("words"));
        assert_eq!(deps["text"]["package"].as_str(), Some("words"));
        assert_eq!(path(&doc["build-dependencies"]["helper"]), linked("helper"));
        assert_eq!(doc["package"]["version"].as_str(), Some("0.3.0"));
        // The workspace's inherited tables and patches, by paths from the copy.
        let workspace = &doc["workspace"];
        assert_eq!(
            workspace["exclude"]
                .as_array()
                .unwrap()
                .get(0)
                .and_then(|v| v.as_str()),
            Some(".hermetic-paths")
        );
        assert_eq!(workspace["package"]["version"].as_str(), Some("0.3.0"));
        assert_eq!(
            path(&workspace["dependencies"]["util"]),
            linked("libs/util")
        );
        assert_eq!(
            path(&doc["patch"]["crates-io"]["fake"]),
            linked("libs/fake")
        );
        // The copied package's path out of the crate goes through the link too.
        let settings = manifest_at(&shadow.root.join("settings"));
        assert_eq!(
            path(&settings["dependencies"]["words"]),
            format!("../{}", linked("words"))
        );
        // No manifest of the copy names the user's tree.
        for manifest in [
            shadow.root.join("Cargo.toml"),
            shadow.root.join("settings/Cargo.toml"),
        ] {
            let text = std::fs::read_to_string(&manifest).unwrap();
            assert!(
                !text.contains(&ws.path().display().to_string()),
                "{}:\n{text}",
                manifest.display()
            );
        }
        // Cargo builds every package from below the copy, `words` (named by the crate,
        // `settings` and nobody else) once, `util` (named by the workspace and by `common`'s
        // `../libs/util`) once.
        let at = |rel: &str| shadow.root.join(rel).join("Cargo.toml");
        let mut expected = [
            at(""),
            at(&linked("common")),
            at(&linked("helper")),
            at(&linked("libs/util")),
            at(&linked("words")),
            at("settings"),
        ];
        expected.sort();
        assert_eq!(packages_cargo_reads(&shadow), expected);
    }

    #[test]
    fn the_link_is_named_by_the_files_behind_it_not_by_where_they_lie() {
        let near = tree(WORKSPACE);
        let far = tempfile::tempdir().unwrap();
        let far_ws = far.path().join("a/longer/path/to/the/workspace");
        for (rel, bytes) in snapshot(near.path()) {
            let dest = far_ws.join(rel);
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            std::fs::write(dest, bytes).unwrap();
        }
        let name = |ws: &Path| link(&copy_of(ws, "app").1).0;
        assert_eq!(name(near.path()), name(&far_ws));
        // The crate's own files are copied, not linked: they do not change the name.
        std::fs::write(far_ws.join("app/src/lib.rs"), "pub fn g() {}\n").unwrap();
        assert_eq!(name(near.path()), name(&far_ws));
        // Another checkout's sibling with other sources gets a name of its own, so that cargo
        // never takes one's build for the other's.
        std::fs::write(far_ws.join("words/src/lib.rs"), "pub fn g() {}\n").unwrap();
        assert_ne!(name(near.path()), name(&far_ws));
    }

    fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
        walkdir::WalkDir::new(dir)
            .into_iter()
            .map(Result::unwrap)
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let rel = e.path().strip_prefix(dir).unwrap().to_path_buf();
                (rel, std::fs::read(e.path()).unwrap())
            })
            .collect()
    }

    #[test]
    fn a_package_in_the_crate_that_a_linked_one_uses_is_linked_too() {
        let ws = tree(&[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"app\", \"common\"]\n",
            ),
            (
                "app/Cargo.toml",
                "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
                 [dependencies]\nsettings = { path = \"settings\" }\n\
                 common = { path = \"../common\" }\n",
            ),
            (
                "app/settings/Cargo.toml",
                "[package]\nname = \"settings\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
            ),
            (
                "common/Cargo.toml",
                "[package]\nname = \"common\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
                 [dependencies]\nsettings = { path = \"../app/settings\" }\n",
            ),
        ]);
        let (_work, shadow) = copy_of(ws.path(), "app");
        let (name, _) = link(&shadow);
        let doc = manifest_at(&shadow.root);
        assert_eq!(
            doc["dependencies"]["settings"]["path"].as_str(),
            Some(format!(".hermetic-paths/{name}/app/settings").as_str())
        );
        // One `settings`, not the copy's and the user's.
        assert_eq!(packages_cargo_reads(&shadow).len(), 3);
    }

    #[test]
    fn a_crate_that_is_its_own_workspace_root_keeps_what_its_members_inherit() {
        let ws = tree(&[
            (
                "Cargo.toml",
                "[package]\nname = \"app\"\nversion.workspace = true\nedition = \"2021\"\n\n\
                 [dependencies]\nsettings = { path = \"settings\" }\n\n\
                 [workspace]\nmembers = [\"settings\"]\n\n\
                 [workspace.package]\nversion = \"0.4.0\"\n",
            ),
            (
                "settings/Cargo.toml",
                "[package]\nname = \"settings\"\nversion.workspace = true\nedition = \"2021\"\n",
            ),
        ]);
        let (_work, shadow) = copy_of(ws.path(), "");
        let doc = manifest_at(&shadow.root);
        assert_eq!(doc["package"]["version"].as_str(), Some("0.4.0"));
        assert_eq!(
            doc["dependencies"]["settings"]["path"].as_str(),
            Some("settings")
        );
        assert!(doc["workspace"].get("exclude").is_none());
        assert!(!shadow.root.join(paths::PATHS_DIR).exists());
        assert_eq!(
            packages_cargo_reads(&shadow),
            [
                shadow.root.join("Cargo.toml"),
                shadow.root.join("settings/Cargo.toml")
            ]
        );
    }
}
