//! The module tree: follows `mod` items from the crate root into files and inline bodies.

use super::cfg::{self, Verdict};
use super::syntax::{self, Offsets};
use crate::cluster::{Module, ModuleBody, Skipped, Vis};
use crate::errors::Failure;
use crate::skip::{SkipReason, Why};
use anyhow::Context;
use std::path::{Path, PathBuf};
use syn::ext::IdentExt;
use syn::Item;

/// One module and the items analysis looks at.
#[derive(Debug)]
pub struct ModuleSrc {
    pub module: Module,
    /// The module's compiled-in items, without its `mod` items (children are modules of their
    /// own) and without `#[test]` functions.
    pub items: Vec<Item>,
    /// Child `mod` items whose `#[cfg]` leaves them out of the code under test (`#[cfg(test)]
    /// mod unit_checks`, another platform's module), and the module's own `#[test]` functions
    /// (shlex's `fn test_invalid_utf8` beside its code), by name.
    pub left_out: Vec<String>,
}

/// A parsed source file.
struct SourceFile {
    path: PathBuf,
    offsets: Offsets,
    mod_rs: bool,
}

/// Where a module's `mod x;` children are looked for.
struct ChildDirs {
    /// Directory for `x.rs` / `x/mod.rs`.
    dir: PathBuf,
    /// Whether the module is inline: `#[path]` inside inline modules is relative to `dir`,
    /// elsewhere to the directory of the file.
    inline: bool,
}

/// Loads the module tree below the crate root file; the root is module 0, children follow
/// their parent depth-first in source order.
pub fn load(
    lib_rs: &Path,
    config: &cfg::Config,
    skipped: &mut Vec<Skipped>,
) -> anyhow::Result<Vec<ModuleSrc>> {
    let (file, ast) = read(lib_rs, true)?;
    let root = Module {
        path: Vec::new(),
        parent: None,
        vis: Vis::Pub,
        file: lib_rs.to_path_buf(),
        body: ModuleBody::File,
        mod_rs: true,
        // Known once names resolve (`analyze_with`).
        shadowed_prelude: Vec::new(),
    };
    let dirs = ChildDirs {
        dir: parent_dir(lib_rs),
        inline: false,
    };
    let mut out = Vec::new();
    let mut loader = Loader { skipped, config };
    walk(&mut out, &mut loader, root, ast.items, &dirs, &file)?;
    Ok(out)
}

/// The items of module `m` in the syntax tree of its file, following the inline modules between
/// the file's own module and `m`; `Err` names the inline module that is not there (the file
/// changed since it was analysed).
pub fn items_in_file<'f>(
    cluster: &crate::cluster::Cluster,
    m: crate::cluster::ModuleId,
    file: &'f syn::File,
) -> Result<&'f [Item], String> {
    // The inline modules between the file's own module and `m`, outermost first.
    let mut path = Vec::new();
    let mut cur = m;
    while let ModuleBody::Inline { .. } = cluster.modules[cur].body {
        path.push(
            cluster.modules[cur]
                .path
                .last()
                .cloned()
                .unwrap_or_default(),
        );
        match cluster.modules[cur].parent {
            Some(p) => cur = p,
            None => break,
        }
    }
    path.reverse();
    let mut items = &file.items[..];
    for name in &path {
        items = items
            .iter()
            .find_map(|item| match item {
                Item::Mod(md) if md.ident == name.as_str() => {
                    md.content.as_ref().map(|(_, items)| &items[..])
                }
                _ => None,
            })
            .ok_or_else(|| name.clone())?;
    }
    Ok(items)
}

/// What the walk over modules reports to and reads from.
struct Loader<'a> {
    skipped: &'a mut Vec<Skipped>,
    config: &'a cfg::Config,
}

fn parent_dir(p: &Path) -> PathBuf {
    p.parent().map(Path::to_path_buf).unwrap_or_default()
}

fn read(path: &Path, mod_rs: bool) -> anyhow::Result<(SourceFile, syn::File)> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read source file {}", path.display()))?;
    let ast = syn::parse_file(&text).map_err(|e| {
        let at = e.span().start();
        Failure::CrateDoesNotCompile {
            what: format!(
                "cannot parse {}:{}:{}: {e}",
                path.display(),
                at.line,
                at.column + 1
            ),
        }
    })?;
    let file = SourceFile {
        path: path.to_path_buf(),
        offsets: Offsets::new(&text),
        mod_rs,
    };
    Ok((file, ast))
}

fn walk(
    out: &mut Vec<ModuleSrc>,
    loader: &mut Loader,
    module: Module,
    items: Vec<Item>,
    dirs: &ChildDirs,
    file: &SourceFile,
) -> anyhow::Result<()> {
    let id = out.len();
    let prefix = module.path.clone();
    out.push(ModuleSrc {
        module,
        items: Vec::new(),
        left_out: Vec::new(),
    });
    let mut kept = Vec::new();
    for item in items {
        match cfg::verdict(attrs(&item), loader.config) {
            Verdict::On => {}
            Verdict::Off => {
                if let Item::Mod(m) = &item {
                    out[id].left_out.push(m.ident.to_string());
                }
                continue;
            }
            Verdict::Unknown(cfg) => {
                if let Some(name) = item_name(&item) {
                    loader.skipped.push(
                        Why::new(
                            SkipReason::Cfg,
                            format!("behind `{cfg}`, which analysis cannot evaluate"),
                        )
                        .skipped(qualified(&prefix, &name)),
                    );
                }
                continue;
            }
        }
        match item {
            Item::Mod(m) => child(out, loader, id, &prefix, m, dirs, file)?,
            Item::Fn(f) if syntax::has_attr(&f.attrs, "test") => {
                let name = f.sig.ident.to_string();
                loader.skipped.push(
                    Why::new(SkipReason::TestCode, "#[test] function")
                        .skipped(qualified(&prefix, &name)),
                );
                out[id].left_out.push(name);
            }
            mut other => {
                cfg::strip_compiled_out(&mut other, loader.config);
                kept.push(other)
            }
        }
    }
    out[id].items = kept;
    Ok(())
}

fn child(
    out: &mut Vec<ModuleSrc>,
    loader: &mut Loader,
    parent: usize,
    prefix: &[String],
    m: syn::ItemMod,
    dirs: &ChildDirs,
    file: &SourceFile,
) -> anyhow::Result<()> {
    let name = m.ident.unraw().to_string();
    let mut path = prefix.to_vec();
    path.push(name.clone());
    let path_attr = match cfg::module_path(&m.attrs, loader.config) {
        Ok(p) => p,
        Err(attr) => {
            loader.skipped.push(
                Why::new(
                    SkipReason::Cfg,
                    format!("its file depends on `{attr}`, which analysis cannot evaluate"),
                )
                .skipped(format!("mod {}", path.join("::"))),
            );
            return Ok(());
        }
    };
    let vis = syntax::vis(&m.vis);
    if let Some((brace, items)) = m.content {
        let close_brace = file.offsets.offset(brace.span.close().start());
        let module = Module {
            path,
            parent: Some(parent),
            vis,
            file: file.path.clone(),
            body: ModuleBody::Inline { close_brace },
            // The field describes the file, which an inline module shares with its parent.
            mod_rs: file.mod_rs,
            shadowed_prelude: Vec::new(),
        };
        let inner = ChildDirs {
            dir: dirs.dir.join(path_attr.unwrap_or(name)),
            inline: true,
        };
        return walk(out, loader, module, items, &inner, file);
    }
    let (child_path, mod_rs) = match path_attr {
        // Files named by `#[path]` own their directory like mod.rs files do.
        Some(p) if dirs.inline => (dirs.dir.join(p), true),
        Some(p) => (parent_dir(&file.path).join(p), true),
        None => {
            let flat = dirs.dir.join(format!("{name}.rs"));
            let nested = dirs.dir.join(&name).join("mod.rs");
            if flat.is_file() {
                (flat, false)
            } else if nested.is_file() {
                (nested, true)
            } else {
                let at = m.ident.span().start();
                return Err(Failure::CrateDoesNotCompile {
                    what: format!(
                        "module `{}` declared at {}:{} has no file: neither {} nor {} exists",
                        path.join("::"),
                        file.path.display(),
                        at.line,
                        flat.display(),
                        nested.display()
                    ),
                }
                .into());
            }
        }
    };
    if !child_path.is_file() {
        let at = m.ident.span().start();
        return Err(Failure::CrateDoesNotCompile {
            what: format!(
                "module `{}` declared at {}:{} has no file: {} does not exist",
                path.join("::"),
                file.path.display(),
                at.line,
                child_path.display()
            ),
        }
        .into());
    }
    let (child_file, ast) = read(&child_path, mod_rs)?;
    let dir = if mod_rs {
        parent_dir(&child_path)
    } else {
        // Non-mod-rs `a/b.rs` keeps its children in `a/b/`.
        let stem = child_path.file_stem().unwrap_or_default();
        parent_dir(&child_path).join(stem)
    };
    let module = Module {
        path,
        parent: Some(parent),
        vis,
        file: child_path,
        body: ModuleBody::File,
        mod_rs,
        shadowed_prelude: Vec::new(),
    };
    let inner = ChildDirs { dir, inline: false };
    walk(out, loader, module, ast.items, &inner, &child_file)
}

pub fn attrs(item: &Item) -> &[syn::Attribute] {
    match item {
        Item::Const(i) => &i.attrs,
        Item::Enum(i) => &i.attrs,
        Item::ExternCrate(i) => &i.attrs,
        Item::Fn(i) => &i.attrs,
        Item::ForeignMod(i) => &i.attrs,
        Item::Impl(i) => &i.attrs,
        Item::Macro(i) => &i.attrs,
        Item::Mod(i) => &i.attrs,
        Item::Static(i) => &i.attrs,
        Item::Struct(i) => &i.attrs,
        Item::Trait(i) => &i.attrs,
        Item::TraitAlias(i) => &i.attrs,
        Item::Type(i) => &i.attrs,
        Item::Union(i) => &i.attrs,
        Item::Use(i) => &i.attrs,
        _ => &[],
    }
}

/// The name a user would give the item in a skip report (`None`: not worth reporting).
fn item_name(item: &Item) -> Option<String> {
    match item {
        Item::Fn(i) => Some(i.sig.ident.to_string()),
        Item::Struct(i) => Some(i.ident.to_string()),
        Item::Enum(i) => Some(i.ident.to_string()),
        Item::Mod(i) => Some(format!("mod {}", i.ident)),
        Item::Impl(i) => Some(format!("impl {}", syntax::text(&i.self_ty))),
        _ => None,
    }
}

/// `a::b::name`, or `name` in the root.
pub fn qualified(prefix: &[String], name: &str) -> String {
    let mut parts = prefix.to_vec();
    parts.push(name.to_string());
    parts.join("::")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn write(dir: &Path, rel: &str, text: &str) {
        let p = dir.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    fn paths(mods: &[ModuleSrc]) -> Vec<String> {
        mods.iter().map(|m| m.module.path.join("::")).collect()
    }

    #[test]
    fn follows_2018_file_layout_path_attributes_and_inline_modules() {
        let d = tempfile::tempdir().unwrap();
        let root = d.path();
        write(
            root,
            "src/lib.rs",
            "pub mod a;\nmod b;\npub(crate) mod inl {\n    mod deep;\n}\n#[path = \"other/x.rs\"]\nmod renamed;\n#[cfg(test)]\nmod tests;\n",
        );
        write(
            root,
            "src/a.rs",
            "pub mod c;\n#[path = \"side.rs\"] mod side;\n",
        );
        write(root, "src/a/c.rs", "pub fn f() {}\n");
        write(root, "src/side.rs", "");
        write(root, "src/b/mod.rs", "mod d;\n");
        write(root, "src/b/d.rs", "");
        write(root, "src/inl/deep.rs", "");
        write(root, "src/other/x.rs", "mod y;\n");
        write(root, "src/other/y.rs", "");
        let mut skipped = Vec::new();
        let mods = load(&root.join("src/lib.rs"), &Default::default(), &mut skipped).unwrap();
        assert_eq!(
            paths(&mods),
            [
                "",
                "a",
                "a::c",
                "a::side",
                "b",
                "b::d",
                "inl",
                "inl::deep",
                "renamed",
                "renamed::y"
            ]
        );
        assert!(mods[0].module.mod_rs);
        assert!(!mods[1].module.mod_rs);
        assert_eq!(mods[1].module.vis, Vis::Pub);
        assert_eq!(mods[2].module.parent, Some(1));
        assert_eq!(mods[2].module.file, root.join("src/a/c.rs"));
        assert_eq!(mods[2].items.len(), 1);
        assert_eq!(mods[3].module.file, root.join("src/side.rs"));
        assert!(mods[4].module.mod_rs);
        assert_eq!(mods[4].module.vis, Vis::Private);
        assert_eq!(mods[5].module.file, root.join("src/b/d.rs"));
        assert_eq!(mods[6].module.vis, Vis::Crate);
        assert_eq!(mods[6].module.file, root.join("src/lib.rs"));
        let text = fs::read_to_string(root.join("src/lib.rs")).unwrap();
        let ModuleBody::Inline { close_brace } = mods[6].module.body else {
            panic!("inline module expected");
        };
        assert_eq!(&text[close_brace..close_brace + 2], "}\n");
        assert_eq!(text[..close_brace].matches('{').count(), 1);
        assert_eq!(mods[7].module.file, root.join("src/inl/deep.rs"));
        assert_eq!(mods[9].module.file, root.join("src/other/y.rs"));
        assert!(skipped.is_empty(), "{skipped:?}");
    }

    #[test]
    fn inline_close_brace_offset_is_in_bytes() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "lib.rs",
            "// h\u{e9}llo \u{1f600}\nmod m { const S: &str = \"\u{e9}\u{e9}\"; }\n",
        );
        let mods = load(
            &d.path().join("lib.rs"),
            &Default::default(),
            &mut Vec::new(),
        )
        .unwrap();
        let text = fs::read_to_string(d.path().join("lib.rs")).unwrap();
        let ModuleBody::Inline { close_brace } = mods[1].module.body else {
            panic!("inline module expected");
        };
        assert_eq!(&text[close_brace..], "}\n");
    }

    #[test]
    fn missing_and_broken_files_are_errors_that_name_the_file() {
        let d = tempfile::tempdir().unwrap();
        write(d.path(), "lib.rs", "mod gone;\n");
        let err = load(
            &d.path().join("lib.rs"),
            &Default::default(),
            &mut Vec::new(),
        )
        .unwrap_err();
        let msg = format!("{err:#}");
        assert!(
            msg.contains("module `gone`") && msg.contains("gone.rs"),
            "{msg}"
        );

        write(d.path(), "lib.rs", "mod bad;\n");
        write(d.path(), "bad.rs", "fn f( {}\n");
        let msg = format!(
            "{:#}",
            load(
                &d.path().join("lib.rs"),
                &Default::default(),
                &mut Vec::new()
            )
            .unwrap_err()
        );
        assert!(msg.contains("bad.rs:1:"), "{msg}");

        let msg = format!(
            "{:#}",
            load(
                &d.path().join("nope.rs"),
                &Default::default(),
                &mut Vec::new()
            )
            .unwrap_err()
        );
        assert!(msg.contains("cannot read source file"), "{msg}");
    }

    #[test]
    fn unknown_cfgs_are_skipped_with_a_reason_and_tests_are_dropped() {
        let d = tempfile::tempdir().unwrap();
        write(
            d.path(),
            "lib.rs",
            "#[cfg(has_x)]\npub fn gated() {}\n#[cfg(test)]\nmod tests { }\n#[test]\nfn t() {}\n#[cfg(not(test))]\npub fn kept() {}\n",
        );
        let mut skipped = Vec::new();
        let mods = load(&d.path().join("lib.rs"), &Default::default(), &mut skipped).unwrap();
        assert_eq!(mods.len(), 1);
        assert_eq!(mods[0].items.len(), 1);
        assert_eq!(skipped.len(), 2);
        assert_eq!(skipped[0].item, "gated");
        assert!(skipped[0].detail.contains("has_x"));
        assert_eq!(skipped[1].detail, "#[test] function");
        assert_eq!(skipped[1].reason, crate::skip::SkipReason::TestCode);
    }
}
