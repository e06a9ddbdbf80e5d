//! How cluster types and items are spelled in Rust code placed in a given module.
//!
//! Generated code (driver dispatch modules and emitted test modules) sits in a child module of
//! the module it serves and starts with `use super::*;`, so that module's own items are named
//! directly and everything else by its `crate::` path.

use crate::cluster::{Cluster, Collect, FloatTy, IntTy, ModuleId, RangeKind, StdTy, Ty, Vis};
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

/// An identifier, as a raw identifier when it is a keyword (`r#type`).
pub fn ident(name: &str) -> Ident {
    syn::parse_str::<Ident>(name).unwrap_or_else(|_| Ident::new_raw(name, Span::call_site()))
}

/// The path to an item named `name` defined in module `item_module`, as seen from `from`.
pub fn item_path(
    cluster: &Cluster,
    item_module: ModuleId,
    name: &str,
    from: ModuleId,
) -> TokenStream {
    let name = ident(name);
    if item_module == from {
        return quote!(#name);
    }
    let segments = cluster.modules[item_module].path.iter().map(|s| ident(s));
    quote!(crate #(:: #segments)* :: #name)
}

pub fn int_ty(t: IntTy) -> TokenStream {
    match t {
        IntTy::I8 => quote!(i8),
        IntTy::I16 => quote!(i16),
        IntTy::I32 => quote!(i32),
        IntTy::I64 => quote!(i64),
        IntTy::I128 => quote!(i128),
        IntTy::Isize => quote!(isize),
        IntTy::U8 => quote!(u8),
        IntTy::U16 => quote!(u16),
        IntTy::U32 => quote!(u32),
        IntTy::U64 => quote!(u64),
        IntTy::U128 => quote!(u128),
        IntTy::Usize => quote!(usize),
    }
}

/// What a call's expression is followed by so that a returned iterator is collected
/// (`Callable::collect`): the driver and the emitted tests write the same.
pub fn collect_suffix(collect: Option<Collect>) -> TokenStream {
    match collect {
        None => quote!(),
        Some(Collect::Whole) => quote!(.collect::<Vec<_>>()),
        Some(Collect::Inside) => quote!(.map(|items| items.collect::<Vec<_>>())),
    }
}

/// The type as written in module `from`.
pub fn ty(cluster: &Cluster, t: &Ty, from: ModuleId) -> TokenStream {
    // Generated code declares or imports every mock it uses under its own name.
    ty_with(cluster, t, from, &|id| {
        let name = ident(&cluster.traits[id].mock_name);
        quote!(#name)
    })
}

/// The type as written in module `from`, mocks spelled by `mock`.
pub fn ty_with(
    cluster: &Cluster,
    t: &Ty,
    from: ModuleId,
    mock: &dyn Fn(crate::cluster::TraitId) -> TokenStream,
) -> TokenStream {
    let rec = |t: &Ty| ty_with(cluster, t, from, mock);
    match t {
        Ty::Unit => quote!(()),
        Ty::Bool => quote!(bool),
        Ty::Char => quote!(char),
        Ty::Int(i) => int_ty(*i),
        Ty::Float(FloatTy::F32) => quote!(f32),
        Ty::Float(FloatTy::F64) => quote!(f64),
        Ty::String => prelude(cluster, from, "String", quote!(std::string::String)),
        Ty::Str => quote!(&str),
        Ty::Vec(e) => {
            let (vec, e) = (prelude(cluster, from, "Vec", quote!(std::vec::Vec)), rec(e));
            quote!(#vec<#e>)
        }
        Ty::Slice(e) => {
            let e = rec(e);
            quote!(&[#e])
        }
        Ty::Array(e, n) => {
            let e = rec(e);
            quote!([#e; #n])
        }
        Ty::Tuple(items) => {
            let items = items.iter().map(rec);
            quote!((#(#items,)*))
        }
        Ty::Option(e) => {
            let (option, e) = (
                prelude(cluster, from, "Option", quote!(std::option::Option)),
                rec(e),
            );
            quote!(#option<#e>)
        }
        Ty::Result(o, e) => {
            let result = prelude(cluster, from, "Result", quote!(std::result::Result));
            let (o, e) = (rec(o), rec(e));
            quote!(#result<#o, #e>)
        }
        Ty::Box(e) => {
            let (boxed, e) = (
                prelude(cluster, from, "Box", quote!(std::boxed::Box)),
                rec(e),
            );
            quote!(#boxed<#e>)
        }
        Ty::Ref(e) => {
            let e = rec(e);
            quote!(&#e)
        }
        Ty::RefMut(e) => {
            let e = rec(e);
            quote!(&mut #e)
        }
        Ty::Adt(id, args) => {
            let def = &cluster.types[*id];
            let path = item_path(cluster, def.module, &def.name, from);
            // `Parser<'_>`: the lifetime is inferred where the type is written (a `let`, a
            // type argument); the driver's values are all `'static`.
            let lifetimes = (0..def.lifetimes).map(|_| quote!('_));
            let args = lifetimes.chain(args.iter().map(rec)).collect::<Vec<_>>();
            if args.is_empty() {
                path
            } else {
                quote!(#path<#(#args),*>)
            }
        }
        Ty::IoError => quote!(std::io::Error),
        Ty::Ordering => quote!(std::cmp::Ordering),
        Ty::Reader => quote!(std::io::Cursor<String>),
        // A closure's type has no name: inferred from the closure written in the call.
        Ty::Closure(..) => quote!(_),
        Ty::IntoIter(e) => {
            let e = rec(e);
            quote!(std::vec::IntoIter<#e>)
        }
        Ty::Range(e, kind) => {
            let e = rec(e);
            match kind {
                RangeKind::HalfOpen => quote!(std::ops::Range<#e>),
                RangeKind::Inclusive => quote!(std::ops::RangeInclusive<#e>),
                // Only the driver names it; tests write the range and let inference pick.
                RangeKind::Bounds => quote!(::hermetic_driver::AnyRange<#e>),
            }
        }
        Ty::Mock(id) => mock(*id),
        Ty::Std(kind, args) => {
            let path = std_path(*kind);
            let args = args.iter().map(rec);
            match kind {
                StdTy::PathStr => quote!(&str),
                StdTy::PathRef | StdTy::OsStrRef => quote!(&#path),
                StdTy::CowStr => quote!(#path<'_, str>),
                StdTy::CowPath => quote!(#path<'_, std::path::Path>),
                StdTy::CowOsStr => quote!(#path<'_, std::ffi::OsStr>),
                StdTy::CowSlice => quote!(#path<'_, [#(#args),*]>),
                _ if args.len() == 0 => path,
                _ => quote!(#path<#(#args),*>),
            }
        }
    }
}

/// A std type's full path: `std::path::PathBuf`.
pub fn std_path(kind: StdTy) -> TokenStream {
    let segments = kind.path().iter().map(|s| ident(s));
    quote!(std #(:: #segments)*)
}

/// The name of std type `kind` in an expression of code placed in module `from`: its own name
/// (`PathBuf`), which the test file imports, or its full path where the module gives that name
/// another meaning.
pub fn std_name(cluster: &Cluster, kind: StdTy, from: ModuleId) -> TokenStream {
    if shadowed(cluster, from, kind.name()) {
        std_path(kind)
    } else {
        let name = ident(kind.name());
        quote!(#name)
    }
}

/// Whether module `from` gives the std name `name` a meaning of its own.
fn shadowed(cluster: &Cluster, from: ModuleId, name: &str) -> bool {
    cluster.modules[from]
        .shadowed_prelude
        .iter()
        .any(|s| s == name)
}

/// A prelude type's name as written in module `from`: its std path where the name means
/// something else there (a crate alias `Result<T>` that `use super::*` brings in).
fn prelude(cluster: &Cluster, from: ModuleId, name: &str, std_path: TokenStream) -> TokenStream {
    if shadowed(cluster, from, name) {
        std_path
    } else {
        let name = ident(name);
        quote!(#name)
    }
}

/// The type as written after `::` in an expression position (`Wrapper::<i64>::new`).
pub fn ty_in_expr(cluster: &Cluster, t: &Ty, from: ModuleId) -> TokenStream {
    match t {
        Ty::Adt(id, args) => {
            let def = &cluster.types[*id];
            let path = item_path(cluster, def.module, &def.name, from);
            if args.is_empty() {
                path
            } else {
                let args = args.iter().map(|a| ty(cluster, a, from));
                quote!(#path::<#(#args),*>)
            }
        }
        other => {
            let t = ty(cluster, other, from);
            quote!(<#t>)
        }
    }
}

/// A function or method as a value, named from `from`: `db::run_query`, `Database::query` (what
/// a fake is set up with).
pub fn callee_path(
    cluster: &Cluster,
    callee: &crate::cluster::Callee,
    from: ModuleId,
) -> TokenStream {
    let callee = match callee {
        crate::cluster::Callee::Crate(c) => *c,
        crate::cluster::Callee::Extern(path) => {
            let segments = path.iter().map(|s| ident(s));
            return quote!(#(#segments)::*);
        }
    };
    let c = &cluster.callables[callee];
    match c.kind.self_ty() {
        Some(owner) => {
            let owner = ty_in_expr(cluster, owner, from);
            let name = ident(&c.name);
            quote!(#owner::#name)
        }
        None => item_path(cluster, c.module, &c.name, from),
    }
}

impl Cluster {
    /// Whether `ancestor` is `m` or one of its ancestors.
    pub fn is_within(&self, m: ModuleId, ancestor: ModuleId) -> bool {
        let mut cur = Some(m);
        while let Some(c) = cur {
            if c == ancestor {
                return true;
            }
            cur = self.modules[c].parent;
        }
        false
    }

    /// Whether an item with visibility `vis` declared in module `declared_in` can be named
    /// from module `from`, its enclosing modules included.
    pub fn visible_from(&self, declared_in: ModuleId, vis: Vis, from: ModuleId) -> bool {
        let item_ok = match vis {
            Vis::Pub | Vis::Crate => true,
            Vis::Private => self.is_within(from, declared_in),
            Vis::Super => match self.modules[declared_in].parent {
                Some(p) => self.is_within(from, p),
                None => true,
            },
        };
        item_ok && self.module_visible_from(declared_in, from)
    }

    /// Whether the path to module `m` can be named from `from`.
    pub fn module_visible_from(&self, m: ModuleId, from: ModuleId) -> bool {
        match self.modules[m].parent {
            None => true,
            Some(parent) => {
                self.is_within(from, m) || self.visible_from(parent, self.modules[m].vis, from)
            }
        }
    }

    /// Whether an item is reachable from outside the crate through `pub` alone.
    pub fn is_public_api(&self, declared_in: ModuleId, vis: Vis) -> bool {
        let mut ok = vis == Vis::Pub;
        let mut cur = declared_in;
        while let Some(parent) = self.modules[cur].parent {
            ok &= self.modules[cur].vis == Vis::Pub;
            cur = parent;
        }
        ok
    }

    /// Whether every crate type mentioned by `t` can be named from `from`.
    pub fn ty_visible_from(&self, t: &Ty, from: ModuleId) -> bool {
        let own = match t {
            Ty::Adt(id, _) => {
                let def = &self.types[*id];
                self.visible_from(def.module, def.vis, from)
            }
            Ty::Mock(id) => {
                let def = &self.traits[*id];
                self.visible_from(def.module, def.vis, from)
            }
            _ => true,
        };
        own && t
            .children()
            .into_iter()
            .all(|c| self.ty_visible_from(c, from))
    }

    /// The name of a module for users: `parser::lexer`, or `crate` for the root.
    pub fn module_name(&self, m: ModuleId) -> String {
        let path = &self.modules[m].path;
        if path.is_empty() {
            "crate".to_string()
        } else {
            path.join("::")
        }
    }
}

/// The bytes of a crate root's `#![no_std]` attribute in `text` (one under `cfg_attr` is left
/// to the features, and is not it).
pub fn no_std_attribute(text: &str) -> Option<std::ops::Range<usize>> {
    use syn::spanned::Spanned;
    let file = syn::parse_file(text).ok()?;
    let span = file
        .attrs
        .iter()
        .find(|a| a.path().is_ident("no_std"))?
        .span();
    // Lines count from 1, columns in chars; syn skips a leading byte order mark.
    let offset = |at: proc_macro2::LineColumn| {
        let mut start: usize = text
            .split_inclusive('\n')
            .take(at.line.saturating_sub(1))
            .map(str::len)
            .sum();
        if at.line == 1 && text.starts_with('\u{feff}') {
            start += '\u{feff}'.len_utf8();
        }
        let line = &text[start..];
        start
            + line
                .char_indices()
                .nth(at.column)
                .map_or(line.len(), |(i, _)| i)
    };
    Some(offset(span.start())..offset(span.end()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crate_roots_no_std_is_found_where_it_is_written() {
        let text =
            "//! Docs with #![no_std] in them.\n#![forbid(unsafe_code)]\n#![no_std]\nfn f() {}\n";
        let at = no_std_attribute(text).expect("found");
        assert_eq!(&text[at], "#![no_std]");
        let spaced = "\u{feff}#! [ no_std ]\nfn f() {}\n";
        assert_eq!(&spaced[no_std_attribute(spaced).unwrap()], "#! [ no_std ]");
        assert_eq!(
            no_std_attribute("#![cfg_attr(not(feature = \"std\"), no_std)]\n"),
            None
        );
        assert_eq!(no_std_attribute("fn f() {}\n"), None);
    }
    use crate::cluster::{Module, ModuleBody};

    fn module(path: &[&str], parent: Option<usize>, vis: Vis) -> Module {
        Module {
            path: path.iter().map(|s| s.to_string()).collect(),
            parent,
            vis,
            file: "src/lib.rs".into(),
            body: ModuleBody::File,
            mod_rs: true,
            shadowed_prelude: Vec::new(),
        }
    }

    fn cluster() -> Cluster {
        Cluster {
            crate_name: "demo".into(),
            modules: vec![
                module(&[], None, Vis::Pub),
                module(&["a"], Some(0), Vis::Private),
                module(&["a", "b"], Some(1), Vis::Private),
                module(&["c"], Some(0), Vis::Pub),
            ],
            ..Cluster::default()
        }
    }

    #[test]
    fn private_items_are_visible_in_their_module_and_below() {
        let c = cluster();
        assert!(c.visible_from(1, Vis::Private, 1));
        assert!(c.visible_from(1, Vis::Private, 2));
        assert!(!c.visible_from(1, Vis::Private, 3));
        assert!(!c.visible_from(1, Vis::Private, 0));
    }

    #[test]
    fn private_modules_hide_their_public_items() {
        let c = cluster();
        // a::b is private in a: its pub items are visible inside a only.
        assert!(c.visible_from(2, Vis::Pub, 1));
        assert!(!c.visible_from(2, Vis::Pub, 3));
        // a is private in the root, so visible everywhere in the crate.
        assert!(c.visible_from(1, Vis::Pub, 3));
        assert!(!c.is_public_api(1, Vis::Pub));
        assert!(c.is_public_api(3, Vis::Pub));
    }

    #[test]
    fn prelude_types_a_module_shadows_are_spelled_by_their_std_path() {
        let mut c = cluster();
        c.modules[1].shadowed_prelude = vec!["Result".into(), "Vec".into()];
        let t = Ty::Result(
            Box::new(Ty::Vec(Box::new(Ty::Option(Box::new(Ty::String))))),
            Box::new(Ty::Box(Box::new(Ty::Unit))),
        );
        let spelled = |m| ty(&c, &t, m).to_string().replace(' ', "");
        assert_eq!(spelled(0), "Result<Vec<Option<String>>,Box<()>>");
        assert_eq!(
            spelled(1),
            "std::result::Result<std::vec::Vec<Option<String>>,Box<()>>"
        );
        // A child module has its own names.
        assert_eq!(spelled(2), "Result<Vec<Option<String>>,Box<()>>");
    }

    #[test]
    fn paths_are_short_in_the_same_module() {
        let c = cluster();
        assert_eq!(item_path(&c, 2, "f", 2).to_string(), "f");
        assert_eq!(item_path(&c, 2, "f", 3).to_string(), "crate :: a :: b :: f");
        assert_eq!(item_path(&c, 0, "type", 1).to_string(), "crate :: r#type");
    }
}
