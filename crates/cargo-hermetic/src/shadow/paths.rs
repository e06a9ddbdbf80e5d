//! How a copy reaches the packages the crate depends on by path, by paths relative to the copy
//! (issue 14). Cargo derives a path package's build metadata, and rustc the file names of its
//! panic locations, from the package's path relative to the workspace root when it lies below
//! the root, and from its absolute path when not: a copy that named the user's tree by absolute
//! paths got a driver whose layout, and with it the search, depended on where the crate lies.
//!
//! - A package in the crate's directory was copied with it ([`super::copy_tree`]): the copy
//!   builds that copy, by a path relative to itself.
//! - The others are reached through `.hermetic-paths/<hash>`, a link to the nearest directory
//!   that holds them all, the crate and the workspace roots they inherit from. Their own
//!   relative paths (`../common`, a workspace's `{ path = "libs/util" }`) lead below the link
//!   where they lead in the user's tree, cargo resolving `..` in the path it has (lexically,
//!   not through the link), and cargo finds their workspace's manifest above them as it would
//!   there. The copy's workspace excludes `.hermetic-paths`: they are packages outside it, as
//!   they were when the copy named them by absolute paths (their dev-dependencies are not
//!   resolved).
//!   `<hash>` is a hash of their files: the copies of every crate build in one target
//!   directory, where two checkouts of one workspace (two clones, two worktrees) would
//!   otherwise give different sources the same name, and cargo, which compares modification
//!   times, could take one's build for the other's. The same files get the same name wherever
//!   they lie.
//! - A package in the crate's directory that a package reached through the link depends on is
//!   reached through the link too, so that it is one package, not two of the same name.
//!
//! Each copied package's manifest is edited where a path of it must lead elsewhere (out of the
//! crate's directory, through the link). Paths that no package reached names (an unused
//! `[workspace.dependencies]` entry outside the linked directory) stay absolute.

use crate::fnv::Fnv;
use anyhow::{Context, Result};
use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};
use toml_edit::{DocumentMut, Item, Table};

/// The directory of a copy that holds the link to the user's tree (excluded from the copy's
/// workspace).
pub(super) const PATHS_DIR: &str = ".hermetic-paths";

/// The path packages of a crate, and where its copy finds them.
pub(super) struct PathDeps {
    crate_dir: PathBuf,
    /// Left out of copies ([`super::copy_tree`]'s `skip`).
    skip: PathBuf,
    /// Packages in the crate's directory that the copy builds from its copy (the crate too).
    copied: BTreeSet<PathBuf>,
    /// Packages the copy reaches through the link.
    linked: BTreeSet<PathBuf>,
    /// The directory the link points at, and its name in [`PATHS_DIR`].
    link: Option<(PathBuf, String)>,
    /// Copied packages (other than the crate) that are workspace roots themselves.
    own_roots: Vec<PathBuf>,
}

/// What one package's manifest says about paths.
struct Package {
    /// The directories of its path dependencies, with whether each is a dev-dependency only.
    deps: Vec<(bool, PathBuf)>,
    /// The workspace root it inherits fields or dependencies from, if it inherits any.
    inherits_from: Option<PathBuf>,
    /// Whether its manifest has a `[workspace]` of its own.
    own_root: bool,
}

impl PathDeps {
    /// Reads the manifests of the path packages the crate at `crate_dir` (in the workspace at
    /// `workspace_root`, whose `[patch]` applies to it) reaches, and hashes the files of those
    /// to be linked. Manifests that cannot be read are left for cargo to complain about.
    pub(super) fn find(crate_dir: &Path, workspace_root: &Path, skip: &Path) -> PathDeps {
        let crate_dir = normalize(crate_dir);
        let workspace_root = normalize(workspace_root);
        let skip = normalize(skip);
        let read = |dir: &Path| {
            if *dir == crate_dir {
                Package::read_root(dir, &workspace_root)
            } else {
                Package::read(dir)
            }
        };
        let mut paths = PathDeps {
            crate_dir: crate_dir.clone(),
            skip,
            copied: BTreeSet::new(),
            linked: BTreeSet::new(),
            link: None,
            own_roots: Vec::new(),
        };
        // What the copy builds from its own copy, and where it leaves it.
        let mut outside = Vec::new();
        let mut queue = vec![crate_dir.clone()];
        let mut inside = BTreeSet::new();
        while let Some(dir) = queue.pop() {
            if !inside.insert(dir.clone()) {
                continue;
            }
            let package = read(&dir);
            if package.own_root && dir != crate_dir {
                paths.own_roots.push(dir.clone());
            }
            for (_, to) in package.deps {
                if paths.is_copied(&to) {
                    queue.push(to);
                } else {
                    outside.push(to);
                }
            }
        }
        // What it reaches through the link: packages outside the copy, and whatever they need
        // (not their dev-dependencies, which cargo does not resolve for them).
        let mut roots = Vec::new();
        let mut queue = outside;
        while let Some(dir) = queue.pop() {
            if dir == crate_dir || !paths.linked.insert(dir.clone()) {
                continue;
            }
            let package = read(&dir);
            roots.extend(package.inherits_from);
            queue.extend(
                package
                    .deps
                    .into_iter()
                    .filter(|(dev, _)| !dev)
                    .map(|(_, to)| to),
            );
        }
        paths.copied = inside.difference(&paths.linked).cloned().collect();
        paths.own_roots.retain(|d| paths.copied.contains(d));
        if !paths.linked.is_empty() {
            let base = common_ancestor(
                std::iter::once(&crate_dir)
                    .chain(&paths.linked)
                    .chain(&roots),
            );
            let name = format!("{:016x}", paths.hash(&base, &roots));
            paths.link = Some((base, name));
        }
        paths
    }

    /// Whether the copy holds a copy of `dir` ([`super::copy_tree`] leaves out `target` and
    /// `.git` directories, and `skip`).
    fn is_copied(&self, dir: &Path) -> bool {
        dir.strip_prefix(&self.crate_dir).is_ok_and(|rel| {
            !dir.starts_with(&self.skip)
                && rel
                    .components()
                    .all(|c| c.as_os_str() != "target" && c.as_os_str() != ".git")
        })
    }

    /// A hash of the linked packages' files, and of the manifests of the workspaces they
    /// inherit from, with their paths relative to `base`.
    fn hash(&self, base: &Path, roots: &[PathBuf]) -> u64 {
        let mut files: Vec<PathBuf> = Vec::new();
        for dir in &self.linked {
            let walk = walkdir::WalkDir::new(dir)
                .into_iter()
                .filter_entry(|e| {
                    let name = e.file_name();
                    e.depth() == 0 || !(name == "target" || name == ".git" || e.path() == self.skip)
                })
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_file());
            files.extend(walk.map(|e| e.into_path()));
        }
        files.extend(roots.iter().map(|r| r.join("Cargo.toml")));
        files.sort();
        files.dedup();
        let mut hash = Fnv::default();
        for file in &files {
            let rel = file.strip_prefix(base).unwrap_or(file);
            let bytes = std::fs::read(file).unwrap_or_default();
            hash.add(rel.as_os_str().as_encoded_bytes());
            hash.add(&(bytes.len() as u64).to_le_bytes());
            hash.add(&bytes);
        }
        hash.0
    }

    /// Makes `<copy>/.hermetic-paths/<hash>` link to the directory that holds the linked
    /// packages (when there are any).
    pub(super) fn make_link(&self, copy: &Path) -> Result<()> {
        let Some((base, name)) = &self.link else {
            return Ok(());
        };
        let dir = copy.join(PATHS_DIR);
        std::fs::create_dir_all(&dir).with_context(|| format!("create {}", dir.display()))?;
        std::os::unix::fs::symlink(base, dir.join(name))
            .with_context(|| format!("link {} into {}", base.display(), dir.display()))
    }

    /// The directories the copy's workspace leaves out, relative to the copy: the link's, and
    /// copied packages with a workspace of their own.
    pub(super) fn excluded(&self) -> Vec<String> {
        let link = self.link.as_ref().map(|_| PATHS_DIR.to_string());
        link.into_iter()
            .chain(self.own_roots.iter().map(|d| {
                let rel = d.strip_prefix(&self.crate_dir).unwrap_or(d);
                rel.display().to_string()
            }))
            .collect()
    }

    /// Where the copy has `dir` (a directory of the user's tree): relative to the copy's root,
    /// or absolute when neither copied nor below the link.
    fn in_copy(&self, dir: &Path) -> PathBuf {
        let dir = normalize(dir);
        if !self.linked.contains(&dir) && self.is_copied(&dir) {
            return dir
                .strip_prefix(&self.crate_dir)
                .expect("copied below the crate")
                .to_path_buf();
        }
        match &self.link {
            Some((base, name)) if dir.starts_with(base) => Path::new(PATHS_DIR)
                .join(name)
                .join(dir.strip_prefix(base).expect("below the link")),
            _ => dir,
        }
    }

    /// The path by which a manifest at `at` (a directory of the copy, relative to its root)
    /// names `dir` (a directory of the user's tree).
    pub(super) fn path_from(&self, at: &Path, dir: &Path) -> String {
        let to = self.in_copy(dir);
        if to.is_absolute() {
            return to.display().to_string();
        }
        let from: Vec<Component> = at.components().collect();
        let to: Vec<Component> = to.components().collect();
        let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
        let mut out = PathBuf::new();
        for _ in common..from.len() {
            out.push("..");
        }
        for c in &to[common..] {
            out.push(c);
        }
        if out.as_os_str().is_empty() {
            ".".into()
        } else {
            out.display().to_string()
        }
    }

    /// Rewrites the paths of `table`'s entries (dependencies, patches) written in the manifest
    /// of `dir` (the user's tree) for a manifest at `at` in the copy; paths that lead where
    /// they should from there stay as written. Whether any changed.
    pub(super) fn map_paths(&self, table: &mut Table, dir: &Path, at: &Path) -> bool {
        let mut changed = false;
        for (_, entry) in table.iter_mut() {
            let Some(path) = entry.get("path").and_then(Item::as_str) else {
                continue;
            };
            let target = dir.join(path);
            let mapped = self.path_from(at, &target);
            if normalize(&at.join(path)) == normalize(&at.join(&mapped)) {
                continue;
            }
            if let Some(entry) = entry.as_table_like_mut() {
                entry.insert("path", toml_edit::value(mapped));
                changed = true;
            }
        }
        changed
    }

    /// Edits the manifests of the copied packages (the crate's own is [`super::fix_manifest`]'s)
    /// whose paths must lead elsewhere in the copy.
    pub(super) fn fix_copied_manifests(&self, copy: &Path) -> Result<()> {
        for dir in self.copied.iter().filter(|d| **d != self.crate_dir) {
            let at = dir
                .strip_prefix(&self.crate_dir)
                .expect("copied below the crate");
            let manifest = copy.join(at).join("Cargo.toml");
            let Ok(text) = std::fs::read_to_string(&manifest) else {
                continue;
            };
            let mut doc: DocumentMut = text
                .parse()
                .with_context(|| format!("parse {}", manifest.display()))?;
            let mut changed = false;
            for (section, table) in sections(&mut doc) {
                if section != Section::Replace && section != Section::Patch {
                    changed |= self.map_paths(table, dir, at);
                }
            }
            if changed {
                std::fs::write(&manifest, doc.to_string())
                    .with_context(|| format!("write {}", manifest.display()))?;
            }
        }
        Ok(())
    }
}

impl Package {
    fn read(dir: &Path) -> Package {
        let Some(doc) = manifest(dir) else {
            return Package {
                deps: Vec::new(),
                inherits_from: None,
                own_root: false,
            };
        };
        let root = workspace_root_of(dir, &doc);
        let inherits_from = root.filter(|_| inherits(&doc));
        Package {
            deps: dependencies(dir, &doc, inherits_from.as_deref()),
            inherits_from,
            own_root: doc.get("workspace").is_some(),
        }
    }

    /// The crate's package: it inherits from `workspace_root` (cargo's word), whose `[patch]`
    /// and `[replace]` apply.
    fn read_root(dir: &Path, workspace_root: &Path) -> Package {
        let doc = manifest(dir);
        let mut deps = doc
            .as_ref()
            .map(|doc| dependencies(dir, doc, Some(workspace_root)))
            .unwrap_or_default();
        if let Some(mut root) = manifest(workspace_root) {
            for (section, table) in sections(&mut root) {
                if matches!(section, Section::Patch | Section::Replace) {
                    deps.extend(
                        table
                            .iter()
                            .filter_map(|(_, e)| e.get("path").and_then(Item::as_str))
                            .map(|p| (false, normalize(&workspace_root.join(p)))),
                    );
                }
            }
        }
        Package {
            deps,
            inherits_from: Some(workspace_root.to_path_buf()),
            own_root: true,
        }
    }
}

/// Where a manifest's tables of paths are.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Section {
    /// `[dependencies]`, `[build-dependencies]` (also under `[target.'..']`).
    Normal,
    /// `[dev-dependencies]` (also under `[target.'..']`).
    Dev,
    /// A `[patch.<source>]` table.
    Patch,
    /// `[replace]`.
    Replace,
    /// `[workspace.dependencies]`.
    Workspace,
}

/// The tables of `doc` whose entries may have paths, with where each is.
pub(super) fn sections(doc: &mut DocumentMut) -> Vec<(Section, &mut Table)> {
    fn kind(key: &str) -> Option<Section> {
        match key {
            "dependencies" | "build-dependencies" => Some(Section::Normal),
            "dev-dependencies" => Some(Section::Dev),
            _ => None,
        }
    }
    let mut out = Vec::new();
    for (key, item) in doc.as_table_mut().iter_mut() {
        let Some(table) = item.as_table_mut() else {
            continue;
        };
        match key.get() {
            k if kind(k).is_some() => out.push((kind(k).expect("checked"), table)),
            "target" => {
                for (_, target) in table.iter_mut() {
                    let Some(target) = target.as_table_mut() else {
                        continue;
                    };
                    for (k, deps) in target.iter_mut() {
                        if let (Some(section), Some(t)) = (kind(k.get()), deps.as_table_mut()) {
                            out.push((section, t));
                        }
                    }
                }
            }
            "patch" => out.extend(
                table
                    .iter_mut()
                    .filter_map(|(_, t)| t.as_table_mut())
                    .map(|t| (Section::Patch, t)),
            ),
            "replace" => out.push((Section::Replace, table)),
            "workspace" => {
                if let Some(t) = table.get_mut("dependencies").and_then(Item::as_table_mut) {
                    out.push((Section::Workspace, t));
                }
            }
            _ => {}
        }
    }
    out
}

/// The directories of the path dependencies of the package in `dir`, with whether each is a
/// dev-dependency only; inherited ones are looked up in the workspace at `root`.
fn dependencies(dir: &Path, doc: &DocumentMut, root: Option<&Path>) -> Vec<(bool, PathBuf)> {
    let workspace = root.and_then(manifest);
    let inherited = |name: &str| {
        let root = root?;
        let path = workspace
            .as_ref()?
            .get("workspace")?
            .get("dependencies")?
            .get(name)?;
        Some(normalize(&root.join(path.get("path")?.as_str()?)))
    };
    let mut doc = doc.clone();
    let mut out = Vec::new();
    for (section, table) in sections(&mut doc) {
        let dev = match section {
            Section::Normal => false,
            Section::Dev => true,
            _ => continue,
        };
        for (name, dep) in table.iter() {
            let to = match dep.get("path").and_then(Item::as_str) {
                Some(path) => Some(normalize(&dir.join(path))),
                None if is_inherited(dep) => inherited(name),
                None => None,
            };
            out.extend(to.map(|to| (dev, to)));
        }
    }
    out
}

pub(super) fn is_inherited(item: &Item) -> bool {
    item.get("workspace").and_then(Item::as_bool) == Some(true)
}

/// Whether the manifest inherits anything from its workspace.
fn inherits(doc: &DocumentMut) -> bool {
    let package = doc
        .get("package")
        .and_then(Item::as_table_like)
        .is_some_and(|p| p.iter().any(|(_, v)| is_inherited(v)));
    let lints = doc.get("lints").is_some_and(is_inherited);
    let mut doc = doc.clone();
    let deps = sections(&mut doc)
        .into_iter()
        .any(|(_, t)| t.iter().any(|(_, d)| is_inherited(d)));
    package || lints || deps
}

/// The workspace root of the package in `dir`, as cargo finds it: itself when its manifest
/// has a `[workspace]`, where `package.workspace` points, else the nearest directory above
/// whose manifest has a `[workspace]` that does not exclude it.
fn workspace_root_of(dir: &Path, doc: &DocumentMut) -> Option<PathBuf> {
    if doc.get("workspace").is_some() {
        return Some(dir.to_path_buf());
    }
    if let Some(pointer) = doc
        .get("package")
        .and_then(|p| p.get("workspace"))
        .and_then(Item::as_str)
    {
        return Some(normalize(&dir.join(pointer)));
    }
    let manifest_path = dir.join("Cargo.toml");
    dir.ancestors().skip(1).find_map(|up| {
        let doc = manifest(up)?;
        let ws = doc.get("workspace")?;
        let under = |key: &str| {
            ws.get(key).and_then(Item::as_array).is_some_and(|a| {
                a.iter()
                    .filter_map(|v| v.as_str())
                    .any(|p| manifest_path.starts_with(up.join(p)))
            })
        };
        (!under("exclude") || under("members")).then(|| up.to_path_buf())
    })
}

/// The manifest in `dir`, if it can be read.
fn manifest(dir: &Path) -> Option<DocumentMut> {
    std::fs::read_to_string(dir.join("Cargo.toml"))
        .ok()?
        .parse()
        .ok()
}

/// `path` with `.` and `..` resolved as cargo resolves them, by its components alone.
pub(super) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            c => out.push(c),
        }
    }
    out
}

/// The longest path every one of `paths` (absolute, normalized) starts with.
fn common_ancestor<'a>(paths: impl IntoIterator<Item = &'a PathBuf>) -> PathBuf {
    let mut paths = paths.into_iter();
    let mut common = paths.next().cloned().unwrap_or_default();
    for p in paths {
        while !p.starts_with(&common) {
            if !common.pop() {
                break;
            }
        }
    }
    common
}
