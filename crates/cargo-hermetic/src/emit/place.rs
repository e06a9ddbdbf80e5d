//! Placing generated test files into the user's crate: never over hand-written code, every
//! check before the first write, all files (with the manifest's change) committed together or
//! not at all ([`crate::commit`]).

use super::{relative_to, test_file_path, GeneratedFile, Suite, GENERATED_MARKER};
use crate::cluster::{Cluster, ModuleBody, ModuleId};
use crate::commit::Changes;
use crate::errors::Failure;
use crate::manifest::RuntimeEdit;
use anyhow::{bail, Context};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

/// What applying generated files changes (or, for [`plan`], would change) in the crate.
/// Paths are relative to the crate root.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Applied {
    /// Test files that did not exist.
    pub created: Vec<PathBuf>,
    /// Generated test files whose contents changed.
    pub updated: Vec<PathBuf>,
    /// Generated test files that were already up to date.
    pub unchanged: Vec<PathBuf>,
    /// Module declarations (`#[cfg(test)] mod hermetic_tests;`) added to module files.
    pub mod_lines: Vec<ModLine>,
    /// Generated test files of modules that now have no tests. They are left in place (the
    /// user may want them); the report tells the user they can delete them.
    pub stale: Vec<PathBuf>,
}

/// Where a `mod hermetic_tests;` (or `hermetic_recorded`) line was added.
#[derive(Debug, Clone, PartialEq)]
pub struct ModLine {
    pub module: ModuleId,
    /// The module's file, relative to the crate root.
    pub file: PathBuf,
}

/// Writes the files of `suite` into the crate at `crate_root` (the directory of Cargo.toml),
/// adding the `#[cfg(test)] mod hermetic_tests;` line (the suite's module) to each module once.
/// Refuses (an error, nothing written) when a target file exists that cargo-hermetic did not
/// generate, or a module already declares a different item of that name. Generated files of
/// the suite in modules without tests now are only reported; the other suite's files are not
/// touched.
pub fn apply(
    crate_root: &Path,
    cluster: &Cluster,
    suite: Suite,
    files: &[GeneratedFile],
) -> anyhow::Result<Applied> {
    apply_with(
        crate_root,
        cluster,
        suite,
        files,
        &RuntimeEdit::default(),
        Changes::default(),
    )
}

/// [`apply`], with `runtime`, the edit that makes the crate's `Cargo.toml` name the runtime
/// (and the vendored copy), and `along`, files that go with the tests (the cases a rerun
/// reads, `Cargo.lock`), committed after the manifest: all of it is written, or nothing (an
/// error or an interrupting signal leaves the crate as it was).
pub fn apply_with(
    crate_root: &Path,
    cluster: &Cluster,
    suite: Suite,
    files: &[GeneratedFile],
    runtime: &RuntimeEdit,
    along: Changes,
) -> anyhow::Result<Applied> {
    let (applied, changes) = prepare(crate_root, cluster, suite, files, runtime, along)?;
    changes.commit()?;
    Ok(applied)
}

/// What [`apply`] would change, for `--dry-run`: the same checks, nothing written.
pub fn plan(
    crate_root: &Path,
    cluster: &Cluster,
    suite: Suite,
    files: &[GeneratedFile],
) -> anyhow::Result<Applied> {
    prepare(
        crate_root,
        cluster,
        suite,
        files,
        &RuntimeEdit::default(),
        Changes::default(),
    )
    .map(|(applied, _)| applied)
}

/// Checks everything and computes the writes, in commit order: the vendored runtime, test
/// files, the manifest, what goes `along`, the `mod` lines that use them (so that a tree
/// stopped between two renames still builds).
fn prepare(
    crate_root: &Path,
    cluster: &Cluster,
    suite: Suite,
    files: &[GeneratedFile],
    runtime: &RuntimeEdit,
    along: Changes,
) -> anyhow::Result<(Applied, Changes)> {
    let module_name = suite.module();
    let roots = Roots::new(crate_root);
    let mut applied = Applied::default();
    let mut problems = Vec::new();
    let mut test_writes = Vec::new();
    // Module file (relative) -> (inserts as (byte offset, text), module ids).
    let mut edits: BTreeMap<PathBuf, Vec<(usize, String, ModuleId)>> = BTreeMap::new();
    let mut sources: BTreeMap<PathBuf, String> = BTreeMap::new();

    for file in files {
        if file.module >= cluster.modules.len() {
            bail!(
                "generated file {} names an unknown module",
                file.path.display()
            );
        }
        let expected = test_file_path(cluster, file.module, suite, Some(&roots.plain));
        let expected = roots.relative(&expected);
        let rel = roots.relative(&file.path);
        if rel != expected {
            bail!(
                "the tests of module `{}` belong in {}, not {}",
                cluster.module_name(file.module),
                expected.display(),
                rel.display()
            );
        }
        let abs = crate_root.join(&rel);
        match existing_test_file(&abs) {
            Existing::None => applied.created.push(rel.clone()),
            Existing::Generated(old) if old == file.contents => applied.unchanged.push(rel.clone()),
            Existing::Generated(_) => applied.updated.push(rel.clone()),
            Existing::Foreign(why) => problems.push(format!(
                "{} {why}; cargo-hermetic writes the tests of module `{}` there. Rename or \
                 delete it, then run again.",
                rel.display(),
                cluster.module_name(file.module)
            )),
        }
        let dir_form = abs.with_extension("").join("mod.rs");
        if dir_form.exists() {
            problems.push(format!(
                "{} exists, so `mod {module_name};` would be ambiguous. Rename or delete it, \
                 then run again.",
                roots.relative(&dir_form).display()
            ));
        }
        test_writes.push((abs, file.contents.clone()));

        // The declaration in the module.
        let module = &cluster.modules[file.module];
        let module_file = roots.relative(&module.file);
        if !sources.contains_key(&module_file) {
            let text = fs::read_to_string(crate_root.join(&module_file))
                .with_context(|| format!("cannot read {}", module_file.display()))?;
            sources.insert(module_file.clone(), text);
        }
        let source = &sources[&module_file];
        match declaration(cluster, file.module, module_name, source) {
            Ok(Declaration::Ours) => {}
            Ok(Declaration::Missing) => {
                let insert = match module.body {
                    ModuleBody::File => {
                        let sep = if source.is_empty() || source.ends_with('\n') {
                            ""
                        } else {
                            "\n"
                        };
                        Some((
                            source.len(),
                            format!("{sep}\n#[cfg(test)]\nmod {module_name};\n"),
                        ))
                    }
                    ModuleBody::Inline { close_brace } => {
                        inline_insert(source, close_brace, module_name)
                    }
                };
                match insert {
                    Some((at, text)) => {
                        edits
                            .entry(module_file.clone())
                            .or_default()
                            .push((at, text, file.module));
                        applied.mod_lines.push(ModLine {
                            module: file.module,
                            file: module_file.clone(),
                        });
                    }
                    None => problems.push(format!(
                        "{} has changed since it was analysed (no `}}` where module `{}` ends). \
                         Run again.",
                        module_file.display(),
                        cluster.module_name(file.module)
                    )),
                }
            }
            Ok(Declaration::Foreign(what)) => problems.push(format!(
                "module `{}` in {} already declares {what}; cargo-hermetic needs that name for \
                 `#[cfg(test)] mod {module_name};`. Rename it, then run again.",
                cluster.module_name(file.module),
                module_file.display()
            )),
            Err(e) => problems.push(e),
        }
    }

    // Generated files of modules that have no tests now.
    let with_tests: Vec<ModuleId> = files.iter().map(|f| f.module).collect();
    for m in (0..cluster.modules.len()).filter(|m| !with_tests.contains(m)) {
        let rel = roots.relative(&test_file_path(cluster, m, suite, Some(&roots.plain)));
        if let Existing::Generated(_) = existing_test_file(&crate_root.join(&rel)) {
            applied.stale.push(rel);
        }
    }

    if !problems.is_empty() {
        bail!(
            "nothing was written:\n{}",
            problems
                .iter()
                .map(|p| format!("  - {p}"))
                .collect::<Vec<_>>()
                .join("\n")
        );
    }

    let mut changes = runtime.runtime_files.clone();
    for (path, text) in test_writes {
        changes.write(path, text);
    }
    if let Some(text) = &runtime.manifest {
        changes.write(crate_root.join("Cargo.toml"), text.as_str());
    }
    changes.append(along);
    for (module_file, mut inserts) in edits {
        let mut text = sources[&module_file].clone();
        inserts.sort_by_key(|insert| std::cmp::Reverse(insert.0));
        for (at, insert, _) in &inserts {
            text.insert_str(*at, insert);
        }
        syn::parse_file(&text).map_err(|e| {
            anyhow::anyhow!(
                "adding `mod {module_name};` to {} would not give valid Rust ({e}); nothing was written",
                module_file.display()
            )
        })?;
        changes.write(crate_root.join(&module_file), text);
    }
    Ok((applied, changes))
}

/// The crate root as given and canonicalized, to make analysis paths relative to either.
struct Roots {
    plain: PathBuf,
    canonical: Option<PathBuf>,
}

impl Roots {
    fn new(root: &Path) -> Self {
        Roots {
            plain: root.to_path_buf(),
            canonical: fs::canonicalize(root).ok(),
        }
    }

    fn relative(&self, path: &Path) -> PathBuf {
        let rel = relative_to(path, Some(&self.plain));
        match &self.canonical {
            Some(c) if rel.is_absolute() => relative_to(&rel, Some(c)),
            _ => rel,
        }
    }
}

enum Existing {
    None,
    /// A file cargo-hermetic wrote, with its contents.
    Generated(String),
    /// Something else is in the way; says what.
    Foreign(String),
}

/// Refuses early (before any search or run) when a module's test file of `suite` is in the way:
/// a file there that cargo-hermetic did not generate. Paths are checked for every module, since
/// any may get tests.
pub fn check_in_the_way(crate_root: &Path, cluster: &Cluster, suite: Suite) -> anyhow::Result<()> {
    let mut problems = Vec::new();
    for m in 0..cluster.modules.len() {
        let rel = test_file_path(cluster, m, suite, Some(crate_root));
        if let Existing::Foreign(why) = existing_test_file(&crate_root.join(&rel)) {
            problems.push(format!("  - {} {why}", rel.display()));
        }
    }
    if problems.is_empty() {
        return Ok(());
    }
    Err(Failure::FileInTheWay { files: problems }.into())
}

fn existing_test_file(path: &Path) -> Existing {
    if path.is_dir() {
        return Existing::Foreign("is a directory".to_string());
    }
    match fs::read_to_string(path) {
        Ok(text)
            if text
                .lines()
                .next()
                .is_some_and(|l| l.contains(GENERATED_MARKER)) =>
        {
            Existing::Generated(text)
        }
        Ok(_) => Existing::Foreign("exists and was not generated by cargo-hermetic".to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Existing::None,
        Err(e) => Existing::Foreign(format!("cannot be read ({e})")),
    }
}

enum Declaration {
    /// `#[cfg(test)] mod hermetic_tests;` is there.
    Ours,
    Missing,
    /// Another item of that name, described.
    Foreign(String),
}

/// Whether module `m`'s items (in `source`, its file) declare the test module `name`.
fn declaration(
    cluster: &Cluster,
    m: ModuleId,
    name: &str,
    source: &str,
) -> Result<Declaration, String> {
    let module = &cluster.modules[m];
    let parsed = syn::parse_file(source)
        .map_err(|e| format!("cannot parse {}: {e}", module.file.display()))?;
    let items = crate::analyze::modules::items_in_file(cluster, m, &parsed).map_err(|name| {
        format!(
            "cannot find `mod {name} {{ .. }}` in {}; it changed since it was analysed. Run again.",
            module.file.display()
        )
    })?;
    for item in items {
        let ident = match item {
            syn::Item::Mod(md) if md.ident == name => {
                let cfg_test_only = md.attrs.iter().all(|a| {
                    a.path().is_ident("cfg")
                        && a.meta
                            .require_list()
                            .is_ok_and(|l| l.tokens.to_string() == "test")
                }) && !md.attrs.is_empty();
                let plain = matches!(md.vis, syn::Visibility::Inherited);
                return Ok(match (&md.content, cfg_test_only && plain) {
                    (None, true) => Declaration::Ours,
                    (Some(_), _) => {
                        Declaration::Foreign(format!("an inline `mod {name} {{ .. }}`"))
                    }
                    (None, false) => Declaration::Foreign(format!(
                        "`mod {name};` with other attributes or visibility"
                    )),
                });
            }
            syn::Item::Fn(f) => Some(&f.sig.ident),
            syn::Item::Struct(s) => Some(&s.ident),
            syn::Item::Enum(e) => Some(&e.ident),
            syn::Item::Const(c) => Some(&c.ident),
            syn::Item::Static(s) => Some(&s.ident),
            syn::Item::Type(t) => Some(&t.ident),
            syn::Item::Trait(t) => Some(&t.ident),
            syn::Item::Union(u) => Some(&u.ident),
            _ => None,
        };
        if ident.is_some_and(|i| i == name) {
            return Ok(Declaration::Foreign(format!("another item named `{name}`")));
        }
    }
    Ok(Declaration::Missing)
}

/// The `mod name;` text to insert before the closing brace at `close_brace` of an inline module,
/// indented one level deeper than the brace; `None` when there is no `}` at that offset.
fn inline_insert(source: &str, close_brace: usize, name: &str) -> Option<(usize, String)> {
    if source.as_bytes().get(close_brace) != Some(&b'}') {
        return None;
    }
    let line_start = source[..close_brace].rfind('\n').map_or(0, |i| i + 1);
    let before = &source[line_start..close_brace];
    if before.trim().is_empty() {
        // The brace is on its own line: insert whole lines above it.
        let inner = format!("{before}    ");
        Some((
            line_start,
            format!("\n{inner}#[cfg(test)]\n{inner}mod {name};\n"),
        ))
    } else {
        let indent: String = before.chars().take_while(|c| c.is_whitespace()).collect();
        let inner = format!("{indent}    ");
        Some((
            close_brace,
            format!("\n{inner}#[cfg(test)]\n{inner}mod {name};\n{indent}"),
        ))
    }
}

/// Writes the files into the crate with what goes `along` ([`apply_with`]), or with `dry_run`
/// checks that they could be written and prints them instead.
pub fn apply_or_print(
    crate_dir: &Path,
    cluster: &Cluster,
    suite: Suite,
    files: &[GeneratedFile],
    runtime: &RuntimeEdit,
    along: Changes,
    dry_run: bool,
) -> anyhow::Result<()> {
    if dry_run {
        plan(crate_dir, cluster, suite, files)?;
        for f in files {
            println!("// ===== {} =====\n{}", f.path.display(), f.contents);
        }
        Ok(())
    } else {
        apply_with(crate_dir, cluster, suite, files, runtime, along).map(|_| ())
    }
}
