//! Name resolution: what a type path means in a module (crate type, module, or outside path).

use super::modules::ModuleSrc;
use crate::cluster::{ModuleId, StdTy, TraitId, TypeId};
use std::collections::BTreeMap;
use syn::{Item, UseTree};

/// Index into the crate's aliases (`Names::alias`).
pub type AliasId = usize;

/// A `type X<..> = ..;` of the crate: the module it is written in, where the names of its
/// target resolve (not where the alias is used), and its definition.
#[derive(Debug)]
pub struct Alias {
    pub module: ModuleId,
    pub item: syn::ItemType,
}

/// What a path names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    Type(TypeId),
    Trait(TraitId),
    /// A `type X = ..;` alias of the crate, followed by `types` where it is used.
    Alias(AliasId),
    Module(ModuleId),
    /// A path into another crate (`std::fmt::Result`), as far as it can be told.
    External(Vec<String>),
    /// Several glob imports bring different items with this name.
    Ambiguous,
    Unknown,
}

/// What a module's own items and `use` declarations bring into scope.
#[derive(Debug, Default)]
struct Scope {
    types: BTreeMap<String, TypeId>,
    traits: BTreeMap<String, TraitId>,
    aliases: BTreeMap<String, AliasId>,
    /// `const N: usize = 4;` → `N` ↦ `4`: what array lengths name (`[u8; N]`).
    consts: BTreeMap<String, syn::Expr>,
    children: BTreeMap<String, ModuleId>,
    /// `use a::b::C as D;` → `D` ↦ `[a, b, C]`; a leading `::` is kept as a `::` segment.
    uses: BTreeMap<String, Vec<String>>,
    /// `use a::b::*;` → `[a, b]`.
    globs: Vec<Vec<String>>,
}

/// The prelude's types that `Ty`s are spelled with, and their path below `std`, `core` or
/// `alloc`.
const PRELUDE_TYPES: [(&str, [&str; 2]); 5] = [
    ("Box", ["boxed", "Box"]),
    ("Option", ["option", "Option"]),
    ("Result", ["result", "Result"]),
    ("String", ["string", "String"]),
    ("Vec", ["vec", "Vec"]),
];

/// Cycles through glob imports end here.
const MAX_DEPTH: usize = 32;

#[derive(Debug)]
pub struct Names {
    scopes: Vec<Scope>,
    parents: Vec<Option<ModuleId>>,
    aliases: Vec<Alias>,
}

impl Names {
    /// Modules, aliases and imports of every module; types are added with `add_type`.
    pub fn new(modules: &[ModuleSrc]) -> Names {
        let mut scopes: Vec<Scope> = modules.iter().map(|_| Scope::default()).collect();
        let parents = modules.iter().map(|m| m.module.parent).collect();
        let mut aliases = Vec::new();
        for (id, m) in modules.iter().enumerate() {
            if let (Some(parent), Some(name)) = (m.module.parent, m.module.path.last()) {
                scopes[parent].children.insert(name.clone(), id);
            }
            for item in &m.items {
                match item {
                    Item::Type(t) => {
                        scopes[id]
                            .aliases
                            .entry(t.ident.to_string())
                            .or_insert(aliases.len());
                        aliases.push(Alias {
                            module: id,
                            item: t.clone(),
                        });
                    }
                    Item::Const(c) => {
                        scopes[id]
                            .consts
                            .entry(c.ident.to_string())
                            .or_insert_with(|| (*c.expr).clone());
                    }
                    Item::Use(u) => {
                        let mut prefix = Vec::new();
                        if u.leading_colon.is_some() {
                            prefix.push("::".to_string());
                        }
                        flatten(&u.tree, &mut prefix, &mut scopes[id]);
                    }
                    _ => {}
                }
            }
        }
        Names {
            scopes,
            parents,
            aliases,
        }
    }

    /// The alias `Target::Alias(id)` names.
    pub fn alias(&self, id: AliasId) -> &Alias {
        &self.aliases[id]
    }

    pub fn add_type(&mut self, module: ModuleId, name: &str, id: TypeId) {
        self.scopes[module]
            .types
            .entry(name.to_string())
            .or_insert(id);
    }

    pub fn add_trait(&mut self, module: ModuleId, name: &str, id: TraitId) {
        self.scopes[module]
            .traits
            .entry(name.to_string())
            .or_insert(id);
    }

    /// The prelude types and `StdTy` names whose name means something else in module `m`: a
    /// crate alias `Result<T>`, a `use std::io::Result`, a crate type named `Box` or `Path`.
    /// Code in a child module with `use super::*` sees that meaning too, so it must spell them
    /// by their std path.
    pub fn shadowed_prelude(&self, m: ModuleId) -> Vec<String> {
        let std_type = |p: &[String], below: &[&str]| {
            matches!(p, [root, rest @ ..] if matches!(root.as_str(), "std" | "core" | "alloc")
                && rest.iter().map(String::as_str).eq(below.iter().copied()))
        };
        let std_types = StdTy::ALL.iter().map(|k| (k.name(), k.path()));
        PRELUDE_TYPES
            .iter()
            .map(|(name, below)| (*name, &below[..]))
            .chain(std_types)
            .filter(|(name, below)| match self.resolve(m, &[name.to_string()]) {
                Target::Unknown => false,
                Target::External(p) => !std_type(&p, below),
                _ => true,
            })
            .map(|(name, _)| name.to_string())
            .collect()
    }

    /// The path a `use` item of module `m` binds `name` to (`use db::run_query;` binds
    /// `run_query` to `db::run_query`), if one does.
    pub fn import(&self, m: ModuleId, name: &str) -> Option<&[String]> {
        self.scopes[m].uses.get(name).map(Vec::as_slice)
    }

    /// What `segments` (a path as written in `module`) names.
    pub fn resolve(&self, module: ModuleId, segments: &[String]) -> Target {
        self.resolve_in(module, segments, 0)
    }

    fn resolve_in(&self, m: ModuleId, segs: &[String], depth: usize) -> Target {
        if depth > MAX_DEPTH || segs.is_empty() {
            return Target::Unknown;
        }
        let mut cur = match segs[0].as_str() {
            "::" => return Target::External(segs[1..].to_vec()),
            "crate" => Target::Module(0),
            "self" => Target::Module(m),
            "super" => self.parents[m].map_or(Target::Unknown, Target::Module),
            name => self.lookup(m, name, depth),
        };
        for seg in &segs[1..] {
            cur = match cur {
                Target::Module(mm) => match seg.as_str() {
                    "super" => self.parents[mm].map_or(Target::Unknown, Target::Module),
                    "self" => Target::Module(mm),
                    name => self.lookup(mm, name, depth + 1),
                },
                Target::External(mut p) => {
                    p.push(seg.clone());
                    Target::External(p)
                }
                _ => return Target::Unknown,
            };
        }
        cur
    }

    /// The value of an integer expression written in `module` (`N`, `crate::N`, `N * 2` where
    /// `const N` is `1 << 2`, `8 * mem::size_of::<Chunk>()`), as far as literals, the crate's
    /// constants, integer arithmetic and the sizes of primitive types make it.
    pub fn const_expr(&self, module: ModuleId, e: &syn::Expr) -> Option<u128> {
        self.eval(module, e, 0)
    }

    fn const_path(&self, m: ModuleId, segs: &[String], depth: usize) -> Option<u128> {
        let (name, prefix) = segs.split_last()?;
        if prefix.is_empty() {
            return self.const_in(m, name, depth);
        }
        match self.resolve_in(m, prefix, depth + 1) {
            Target::Module(mm) => self.const_in(mm, name, depth + 1),
            _ => None,
        }
    }

    /// A constant of module `m` by name: its items, then its imports, then glob imports.
    fn const_in(&self, m: ModuleId, name: &str, depth: usize) -> Option<u128> {
        if depth > MAX_DEPTH {
            return None;
        }
        let s = &self.scopes[m];
        if let Some(e) = s.consts.get(name) {
            return self.eval(m, e, depth + 1);
        }
        if let Some(path) = s.uses.get(name) {
            return self.const_path(m, path, depth + 1);
        }
        s.globs
            .iter()
            .find_map(|glob| match self.resolve_in(m, glob, depth + 1) {
                Target::Module(g) if g != m => self.const_in(g, name, depth + 1),
                _ => None,
            })
    }

    /// An integer expression of module `m`, if literals and constants make it.
    fn eval(&self, m: ModuleId, e: &syn::Expr, depth: usize) -> Option<u128> {
        use syn::{BinOp, Expr};
        match e {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(n),
                ..
            }) => n.base10_parse().ok(),
            Expr::Paren(p) => self.eval(m, &p.expr, depth),
            Expr::Group(g) => self.eval(m, &g.expr, depth),
            Expr::Cast(c) => self.eval(m, &c.expr, depth),
            Expr::Path(p) if p.qself.is_none() => {
                self.const_path(m, &super::syntax::segments(&p.path), depth + 1)
            }
            // `mem::size_of::<T>()` of a primitive type, or of a crate alias of one.
            Expr::Call(c) if c.args.is_empty() => {
                let Expr::Path(f) = &*c.func else {
                    return None;
                };
                let last = f.path.segments.last()?;
                let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
                    return None;
                };
                match (last.ident == "size_of", a.args.first()) {
                    (true, Some(syn::GenericArgument::Type(t))) => self.size_of(m, t, depth + 1),
                    _ => None,
                }
            }
            Expr::Binary(b) => {
                let (x, y) = (
                    self.eval(m, &b.left, depth)?,
                    self.eval(m, &b.right, depth)?,
                );
                match b.op {
                    BinOp::Add(_) => x.checked_add(y),
                    BinOp::Sub(_) => x.checked_sub(y),
                    BinOp::Mul(_) => x.checked_mul(y),
                    BinOp::Div(_) => x.checked_div(y),
                    BinOp::Rem(_) => x.checked_rem(y),
                    BinOp::Shl(_) => x.checked_shl(u32::try_from(y).ok()?),
                    BinOp::Shr(_) => x.checked_shr(u32::try_from(y).ok()?),
                    BinOp::BitAnd(_) => Some(x & y),
                    BinOp::BitOr(_) => Some(x | y),
                    BinOp::BitXor(_) => Some(x ^ y),
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// The size in bytes of a primitive type written in module `m`, through the crate's aliases.
    fn size_of(&self, m: ModuleId, t: &syn::Type, depth: usize) -> Option<u128> {
        if depth > MAX_DEPTH {
            return None;
        }
        let syn::Type::Path(p) = t else {
            return None;
        };
        if let Some(id) = p.path.get_ident() {
            let size = match id.to_string().as_str() {
                "u8" | "i8" | "bool" => Some(1),
                "u16" | "i16" => Some(2),
                "u32" | "i32" | "f32" | "char" => Some(4),
                "u64" | "i64" | "f64" => Some(8),
                "usize" | "isize" => Some(std::mem::size_of::<usize>() as u128),
                "u128" | "i128" => Some(16),
                _ => None,
            };
            if size.is_some() {
                return size;
            }
        }
        match self.resolve_in(m, &super::syntax::segments(&p.path), depth + 1) {
            Target::Alias(id) => {
                let alias = &self.aliases[id];
                self.size_of(alias.module, &alias.item.ty, depth + 1)
            }
            _ => None,
        }
    }

    /// A single name in module `m`: its items, then its imports, then glob imports.
    fn lookup(&self, m: ModuleId, name: &str, depth: usize) -> Target {
        if depth > MAX_DEPTH {
            return Target::Unknown;
        }
        let s = &self.scopes[m];
        if let Some(&id) = s.types.get(name) {
            return Target::Type(id);
        }
        if let Some(&id) = s.traits.get(name) {
            return Target::Trait(id);
        }
        if let Some(&id) = s.aliases.get(name) {
            return Target::Alias(id);
        }
        if let Some(&c) = s.children.get(name) {
            return Target::Module(c);
        }
        if let Some(path) = s.uses.get(name) {
            return match self.resolve_in(m, path, depth + 1) {
                // An import from outside the crate (`use serde::Serialize`).
                Target::Unknown if !matches!(path[0].as_str(), "crate" | "self" | "super") => {
                    Target::External(path.clone())
                }
                t => t,
            };
        }
        let mut found: Vec<Target> = Vec::new();
        for glob in &s.globs {
            if let Target::Module(g) = self.resolve_in(m, glob, depth + 1) {
                if g == m {
                    continue;
                }
                let t = self.lookup(g, name, depth + 1);
                if t != Target::Unknown && !found.contains(&t) {
                    found.push(t);
                }
            }
        }
        match found.len() {
            0 if matches!(name, "std" | "core" | "alloc") => Target::External(vec![name.into()]),
            0 => Target::Unknown,
            1 => found.pop().unwrap_or(Target::Unknown),
            _ => Target::Ambiguous,
        }
    }
}

fn flatten(tree: &UseTree, prefix: &mut Vec<String>, scope: &mut Scope) {
    match tree {
        UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten(&p.tree, prefix, scope);
            prefix.pop();
        }
        UseTree::Name(n) => bind(prefix, &n.ident.to_string(), None, scope),
        UseTree::Rename(r) => bind(
            prefix,
            &r.ident.to_string(),
            Some(r.rename.to_string()),
            scope,
        ),
        UseTree::Glob(_) => scope.globs.push(prefix.clone()),
        UseTree::Group(g) => {
            for t in &g.items {
                flatten(t, prefix, scope);
            }
        }
    }
}

fn bind(prefix: &[String], ident: &str, rename: Option<String>, scope: &mut Scope) {
    let mut path = prefix.to_vec();
    if ident != "self" {
        path.push(ident.to_string());
    }
    let Some(binding) = rename.or_else(|| path.last().cloned()) else {
        return;
    };
    if binding != "_" && !path.is_empty() {
        scope.uses.entry(binding).or_insert(path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::modules;

    fn names(files: &[(&str, &str)]) -> Names {
        let d = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let p = d.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        let mods = modules::load(
            &d.path().join("lib.rs"),
            &Default::default(),
            &mut Vec::new(),
        )
        .unwrap();
        let mut n = Names::new(&mods);
        // Every `struct X` becomes type ids in order of appearance.
        let mut next = 0;
        for (id, m) in mods.iter().enumerate() {
            for item in &m.items {
                if let Item::Struct(s) = item {
                    n.add_type(id, &s.ident.to_string(), next);
                    next += 1;
                }
            }
        }
        n
    }

    fn path(s: &str) -> Vec<String> {
        s.split("::").map(String::from).collect()
    }

    #[test]
    fn resolves_through_paths_imports_and_globs() {
        let n = names(&[
            (
                "lib.rs",
                "pub mod a; mod b; pub use a::Point as P; use std::fmt; use std::collections::HashMap;",
            ),
            ("a.rs", "pub struct Point; pub mod inner { pub struct Deep; }"),
            (
                "b.rs",
                "use super::*; use crate::a::inner::{self, Deep}; use self::c::Q; mod c { pub struct Q; }",
            ),
        ]);
        // Modules: 0 root, 1 a, 2 a::inner, 3 b, 4 b::c; types: 0 Point, 1 Deep, 2 Q.
        assert_eq!(n.resolve(1, &path("Point")), Target::Type(0));
        assert_eq!(n.resolve(0, &path("P")), Target::Type(0));
        assert_eq!(n.resolve(0, &path("a::Point")), Target::Type(0));
        assert_eq!(n.resolve(3, &path("crate::a::Point")), Target::Type(0));
        assert_eq!(n.resolve(3, &path("super::P")), Target::Type(0));
        assert_eq!(n.resolve(3, &path("P")), Target::Type(0));
        assert_eq!(n.resolve(3, &path("Deep")), Target::Type(1));
        assert_eq!(n.resolve(3, &path("inner::Deep")), Target::Type(1));
        assert_eq!(n.resolve(3, &path("Q")), Target::Type(2));
        assert_eq!(
            n.resolve(4, &path("super::super::a::Point")),
            Target::Type(0)
        );
        assert_eq!(
            n.resolve(0, &path("fmt::Result")),
            Target::External(path("std::fmt::Result"))
        );
        assert_eq!(
            n.resolve(3, &path("HashMap")),
            Target::External(path("std::collections::HashMap"))
        );
        assert_eq!(n.resolve(0, &path("Nope")), Target::Unknown);
    }

    #[test]
    fn prelude_types_are_shadowed_by_crate_items_and_other_imports() {
        let n = names(&[(
            "lib.rs",
            "mod alias { pub type Result<T> = std::result::Result<T, ()>; }\n\
             mod io { use std::io::Result; }\n\
             mod same { use std::result::Result; use core::option::Option; }\n\
             mod own { pub struct Box; pub use std::vec::Vec as Option; }\n\
             mod glob { use super::alias::*; }\n\
             mod plain { use std::collections::HashMap; }",
        )]);
        let shadowed = |m| n.shadowed_prelude(m);
        assert_eq!(shadowed(1), ["Result"]);
        assert_eq!(shadowed(2), ["Result"]);
        assert!(shadowed(3).is_empty());
        assert_eq!(shadowed(4), ["Box", "Option"]);
        assert_eq!(shadowed(5), ["Result"]);
        assert!(shadowed(6).is_empty());
        assert!(shadowed(0).is_empty());
    }

    #[test]
    fn conflicting_globs_are_ambiguous() {
        let n = names(&[(
            "lib.rs",
            "mod x { pub struct T; } mod y { pub struct T; } mod z { use super::x::*; use super::y::*; }",
        )]);
        assert_eq!(n.resolve(3, &path("T")), Target::Ambiguous);
    }

    #[test]
    fn integer_constants_are_worked_out_through_paths_imports_and_arithmetic() {
        let n = names(&[(
            "lib.rs",
            "pub const SLOTS: usize = 4;\n\
             mod limits { pub const BITS: u32 = 1 << 3; pub const WORDS: usize = (super::SLOTS * 2) as usize + BITS as usize;\n\
               use std::mem; type Chunk = u32; const RANGE: usize = 0x80; const BITS_PER_CHUNK: usize = 8 * mem::size_of::<Chunk>(); }\n\
             mod user { use crate::limits::WORDS; use super::*; const ODD: usize = \"x\".len(); }",
        )]);
        // Modules: 0 root, 1 limits, 2 user.
        let value = |m, e: &str| n.const_expr(m, &syn::parse_str(e).unwrap());
        assert_eq!(value(0, "SLOTS"), Some(4));
        assert_eq!(value(1, "BITS"), Some(8));
        assert_eq!(value(0, "limits::WORDS"), Some(16));
        assert_eq!(value(2, "WORDS"), Some(16));
        assert_eq!(value(2, "SLOTS"), Some(4));
        assert_eq!(value(2, "ODD"), None);
        assert_eq!(value(0, "NOPE"), None);
        // An array length as percent-encoding writes it.
        assert_eq!(value(1, "RANGE / BITS_PER_CHUNK"), Some(4));
        assert_eq!(value(1, "std::mem::size_of::<String>()"), None);
    }
}
