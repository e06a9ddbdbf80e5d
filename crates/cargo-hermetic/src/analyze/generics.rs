//! Instantiation of type parameters: the first candidate type that satisfies all bounds.

use super::syntax::text;
use crate::cluster::{FloatTy, IntTy, StdTy, Ty};
use crate::skip::{SkipReason, Why};
use std::collections::BTreeSet;
use syn::{GenericArgument, GenericParam, PathArguments, TypeParamBound, WherePredicate};

/// A type parameter and every bound on it (inline and from where clauses).
#[derive(Debug, Clone)]
pub struct ParamBounds {
    pub name: String,
    pub bounds: Vec<TypeParamBound>,
}

/// The type parameters declared by `generics`, with their bounds. Where predicates on a
/// parameter of `outer` (an enclosing impl) are added to it: they constrain that parameter for
/// this item only. Const parameters and where clauses on other types are errors (skip reasons).
pub fn collect(
    generics: &syn::Generics,
    outer: &mut [ParamBounds],
) -> Result<Vec<ParamBounds>, Why> {
    let mut own = Vec::new();
    for p in &generics.params {
        match p {
            GenericParam::Type(t) => own.push(ParamBounds {
                name: t.ident.to_string(),
                bounds: t.bounds.iter().cloned().collect(),
            }),
            GenericParam::Const(c) => {
                return Err(Why::new(
                    SkipReason::ConstGenerics,
                    format!("const generic parameter `{}`", c.ident),
                ));
            }
            GenericParam::Lifetime(_) => {}
        }
    }
    let mut items = Vec::new();
    for pred in generics.where_clause.iter().flat_map(|w| &w.predicates) {
        let WherePredicate::Type(pt) = pred else {
            continue; // lifetime predicates do not constrain types
        };
        if let Some(param) = item_of(&pt.bounded_ty) {
            items.push((param, pt));
            continue;
        }
        let bounded = match &pt.bounded_ty {
            syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
            _ => None,
        };
        let target = bounded.as_deref().and_then(|name| {
            own.iter_mut()
                .chain(outer.iter_mut())
                .find(|p| p.name == name)
        });
        match target {
            Some(p) => p.bounds.extend(pt.bounds.iter().cloned()),
            // `where Self: Sized` only limits how the item may be called through a trait.
            None if bounded.as_deref() == Some("Self") => {}
            None => {
                return Err(Why::new(
                    SkipReason::WhereClause,
                    format!("where clause `{}` is not supported", text(pt)),
                ))
            }
        }
    }
    for (param, pt) in items {
        let target = own
            .iter_mut()
            .chain(outer.iter_mut())
            .find(|p| p.name == param);
        if !target.is_some_and(|p| bound_item(p, pt)) {
            return Err(Why::new(
                SkipReason::WhereClause,
                format!("where clause `{}` is not supported", text(pt)),
            ));
        }
    }
    Ok(own)
}

/// A method that swaps one of its type's parameters for its own (`fn handler<NewF>(self, h:
/// NewF) -> Config<S, NewF>` in `impl<S, F: Handler> Config<S, F>`) and leaves its own
/// parameter unbounded gives a value only the impl's methods use, which need `F`'s bounds: the
/// unbounded parameter takes the bounds of the impl's parameter in that place, so the value it
/// returns can be used further (an `i64` handler makes a `Config` no method accepts).
pub fn bounds_from_impl(
    own: &mut [ParamBounds],
    outer: &[ParamBounds],
    impl_self: &syn::Type,
    output: &syn::ReturnType,
) {
    let syn::ReturnType::Type(_, ret) = output else {
        return;
    };
    let (Some((ret_name, ret_args)), Some((self_name, self_args))) =
        (type_args(ret), type_args(impl_self))
    else {
        return;
    };
    if ret_name != self_name || ret_args.len() != self_args.len() {
        return;
    }
    for (r, s) in ret_args.iter().zip(&self_args) {
        let (Some(r), Some(s)) = (r, s) else { continue };
        let from = outer.iter().find(|q| q.name == *s && !q.bounds.is_empty());
        let to = own.iter_mut().find(|p| p.name == *r && p.bounds.is_empty());
        if let (Some(from), Some(to)) = (from, to) {
            to.bounds = from.bounds.clone();
        }
    }
}

/// A path type's last name and, for each of its type arguments, the argument's name when it is
/// one plain word (`Config<S, NewF>`: `Config`, `[Some(S), Some(NewF)]`).
fn type_args(ty: &syn::Type) -> Option<(String, Vec<Option<String>>)> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let args = args
        .args
        .iter()
        .filter_map(|a| match a {
            GenericArgument::Type(syn::Type::Path(t)) => {
                Some(t.path.get_ident().map(|i| i.to_string()))
            }
            GenericArgument::Type(_) => Some(None),
            _ => None,
        })
        .collect();
    Some((last.ident.to_string(), args))
}

/// `P` of a where clause's bounded type `P::Item`.
fn item_of(ty: &syn::Type) -> Option<String> {
    let syn::Type::Path(p) = ty else { return None };
    match p.path.segments.iter().collect::<Vec<_>>().as_slice() {
        [param, item]
            if p.qself.is_none()
                && item.ident == "Item"
                && param.arguments.is_none()
                && item.arguments.is_none() =>
        {
            Some(param.ident.to_string())
        }
        _ => None,
    }
}

/// Folds `where P::Item: Bounds` into `P`'s bare `IntoIterator`/`Iterator` bound as the item
/// type the first owned candidate meeting `Bounds` is (`where I: IntoIterator, I::Item:
/// Into<OsString>` becomes `I: IntoIterator<Item = String>`). False when `P` has no such bound
/// or no candidate fits.
fn bound_item(p: &mut ParamBounds, pt: &syn::PredicateType) -> bool {
    let path = pt.bounds.iter().any(names_a_path).then_some(Cand::PathBuf);
    let Some(cand) = path
        .iter()
        .chain(CANDIDATES.iter())
        .filter(|c| **c != Cand::Str)
        .find(|c| pt.bounds.iter().all(|b| satisfies(**c, b, "Item")))
    else {
        return false;
    };
    let item: syn::Type = match cand {
        Cand::PathBuf => syn::parse_quote!(::std::path::PathBuf),
        c => syn::parse_str(c.name()).expect("a candidate's name is a type"),
    };
    p.bounds.iter_mut().any(|b| match b {
        TypeParamBound::Trait(tb) => match tb.path.segments.last_mut() {
            Some(seg)
                if matches!(seg.ident.to_string().as_str(), "IntoIterator" | "Iterator")
                    && seg.arguments.is_none() =>
            {
                seg.arguments = PathArguments::AngleBracketed(syn::parse_quote!(<Item = #item>));
                true
            }
            _ => false,
        },
        _ => false,
    })
}

/// The candidates, in order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cand {
    I64,
    /// `&'static str`: what a caller passes for `AsRef<str>`, `Into<String>`, `AsRef<Path>`.
    /// Never for a type's own parameters, whose values are stored for later statements.
    Str,
    String,
    U8,
    Bool,
    F64,
    Char,
    PathBuf,
    /// The other primitive numbers, last: what `Into<u64>` or `From<u32>` names.
    Int(IntTy),
    F32,
}

const CANDIDATES: [Cand; 19] = [
    Cand::I64,
    Cand::Str,
    Cand::String,
    Cand::U8,
    Cand::Bool,
    Cand::F64,
    Cand::Char,
    Cand::PathBuf,
    Cand::Int(IntTy::U64),
    Cand::Int(IntTy::U32),
    Cand::Int(IntTy::Usize),
    Cand::Int(IntTy::I32),
    Cand::Int(IntTy::U16),
    Cand::Int(IntTy::I16),
    Cand::Int(IntTy::I8),
    Cand::Int(IntTy::U128),
    Cand::Int(IntTy::I128),
    Cand::Int(IntTy::Isize),
    Cand::F32,
];

impl Cand {
    fn ty(self) -> Ty {
        match self {
            Cand::I64 => Ty::Int(IntTy::I64),
            Cand::Str => Ty::Str,
            Cand::String => Ty::String,
            Cand::U8 => Ty::Int(IntTy::U8),
            Cand::Bool => Ty::Bool,
            Cand::F64 => Ty::Float(FloatTy::F64),
            Cand::Char => Ty::Char,
            Cand::PathBuf => Ty::Std(StdTy::PathBuf, Vec::new()),
            Cand::Int(t) => Ty::Int(t),
            Cand::F32 => Ty::Float(FloatTy::F32),
        }
    }

    /// The candidate's name in a bound's type argument (`Into<String>`).
    fn name(self) -> &'static str {
        match self {
            Cand::I64 => "i64",
            Cand::Str => "&str",
            Cand::String => "String",
            Cand::U8 => "u8",
            Cand::Bool => "bool",
            Cand::F64 => "f64",
            Cand::Char => "char",
            Cand::PathBuf => "PathBuf",
            Cand::Int(t) => match t {
                IntTy::I8 => "i8",
                IntTy::I16 => "i16",
                IntTy::I32 => "i32",
                IntTy::I64 => "i64",
                IntTy::I128 => "i128",
                IntTy::Isize => "isize",
                IntTy::U8 => "u8",
                IntTy::U16 => "u16",
                IntTy::U32 => "u32",
                IntTy::U64 => "u64",
                IntTy::U128 => "u128",
                IntTy::Usize => "usize",
            },
            Cand::F32 => "f32",
        }
    }
}

/// What stands in for a parameter bounded by a crate trait: its mock, or why there is none;
/// `None` when no crate trait bounds it.
pub type MockFor<'a> = &'a dyn Fn(&ParamBounds) -> Option<Result<Ty, Why>>;

/// No crate trait has a mock (type definitions' own parameters).
pub fn no_mocks(_: &ParamBounds) -> Option<Result<Ty, Why>> {
    None
}

/// Which candidates a parameter may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Values {
    /// Stored for later statements (a type's parameters): owned types only.
    Owned,
    /// A function's own parameter: `&str` too, passed straight to the call.
    Passed,
}

/// A concrete type for each parameter, in order, or why one has none.
pub fn choose(
    params: &[ParamBounds],
    mock: MockFor,
    values: Values,
) -> Result<Vec<(String, Ty)>, Why> {
    params
        .iter()
        .map(|p| {
            if let Some(m) = mock(p) {
                return m
                    .map(|t| (p.name.clone(), t))
                    .map_err(|e| e.within(format!("generic parameter `{}`", p.name)));
            }
            // A parameter that stands for a path takes a path: a `&str` drawn as paths are,
            // or a `PathBuf`.
            let path = p.bounds.iter().any(names_a_path);
            let preferred = path.then_some([Cand::Str, Cand::PathBuf]);
            preferred
                .iter()
                .flatten()
                .chain(CANDIDATES.iter())
                .filter(|c| values == Values::Passed || **c != Cand::Str)
                .find(|c| p.bounds.iter().all(|b| satisfies(**c, b, &p.name)))
                .map(|c| match c {
                    Cand::Str if path => (p.name.clone(), Ty::Std(StdTy::PathStr, Vec::new())),
                    c => (p.name.clone(), c.ty()),
                })
                .ok_or_else(|| unmet(p))
        })
        .collect()
}

/// Whether one of `p`'s bounds is a closure's (`FnMut(&T) -> K`).
pub fn bounds_a_closure(p: &ParamBounds) -> bool {
    p.bounds
        .iter()
        .any(|b| matches!(b, TypeParamBound::Trait(tb) if super::types::is_closure_bound(&tb.path)))
}

/// The names among `params` that a closure bound on one of them returns, anywhere in its
/// return type (`K` in `F: FnMut(&T) -> K`, `CO` and `E` in `C: FnMut(&str) ->
/// Result<Option<CO>, E>`): a closure hands out an owned value on every call, so these take
/// owned types (`String`, never `&str`).
pub fn returned_by_closures(params: &[ParamBounds]) -> BTreeSet<String> {
    fn idents(tokens: proc_macro2::TokenStream, out: &mut BTreeSet<String>) {
        for t in tokens {
            match t {
                proc_macro2::TokenTree::Ident(i) => {
                    out.insert(i.to_string());
                }
                proc_macro2::TokenTree::Group(g) => idents(g.stream(), out),
                _ => {}
            }
        }
    }
    let mut named = BTreeSet::new();
    for b in params.iter().flat_map(|p| &p.bounds) {
        let TypeParamBound::Trait(tb) = b else {
            continue;
        };
        if !super::types::is_closure_bound(&tb.path) {
            continue;
        }
        let Some(PathArguments::Parenthesized(args)) =
            tb.path.segments.last().map(|s| &s.arguments)
        else {
            continue;
        };
        if let syn::ReturnType::Type(_, t) = &args.output {
            idents(quote::ToTokens::to_token_stream(&**t), &mut named);
        }
    }
    params
        .iter()
        .map(|p| p.name.clone())
        .filter(|n| named.contains(n))
        .collect()
}

/// Why no candidate satisfies `p`'s bounds, counted under the first bound the first candidate
/// misses (a closure's `Fn*` bound apart).
fn unmet(p: &ParamBounds) -> Why {
    let bounds: Vec<String> = p.bounds.iter().map(text).collect();
    let detail = format!(
        "generic parameter `{}`: no candidate type satisfies `{}`",
        p.name,
        bounds.join(" + ")
    );
    let missed = p
        .bounds
        .iter()
        .find(|b| !CANDIDATES.iter().any(|c| satisfies(*c, b, &p.name)))
        .or_else(|| {
            p.bounds
                .iter()
                .find(|b| !satisfies(CANDIDATES[0], b, &p.name))
        });
    match missed {
        Some(TypeParamBound::Trait(tb)) if super::types::is_closure_bound(&tb.path) => {
            Why::new(SkipReason::Closure, detail)
        }
        Some(b) => Why::new(SkipReason::UnmetBound(text(b)), detail),
        None => Why::new(SkipReason::UnmetBound(bounds.join(" + ")), detail),
    }
}

/// Whether a bound asks for a path: `AsRef<Path>`, `Into<PathBuf>`.
fn names_a_path(bound: &TypeParamBound) -> bool {
    let TypeParamBound::Trait(tb) = bound else {
        return false;
    };
    let Some(seg) = tb.path.segments.last() else {
        return false;
    };
    matches!(&seg.arguments, PathArguments::AngleBracketed(a)
        if a.args.iter().any(|g| matches!(g, GenericArgument::Type(t)
            if matches!(type_name(t).as_str(), "Path" | "PathBuf"))))
}

/// A bound's type argument as the table names it: the last segment of a path (`Path` for
/// `std::path::Path`), the text of anything else (`[u8]`, `&str`).
fn type_name(t: &syn::Type) -> String {
    match t {
        syn::Type::Path(p) if p.qself.is_none() => {
            p.path.segments.last().map_or_else(|| text(t), text)
        }
        _ => text(t),
    }
}

/// A bound's generic argument, as text.
enum Arg {
    Ty(String),
    Assoc(String, String),
    Other,
}

fn satisfies(c: Cand, bound: &TypeParamBound, param: &str) -> bool {
    let TypeParamBound::Trait(tb) = bound else {
        // Lifetime bounds (`T: 'static`) hold for every candidate.
        return matches!(bound, TypeParamBound::Lifetime(_));
    };
    if matches!(tb.modifier, syn::TraitBoundModifier::Maybe(_)) {
        return true; // `?Sized`
    }
    let Some(seg) = tb.path.segments.last() else {
        return false;
    };
    let args: Vec<Arg> = match &seg.arguments {
        PathArguments::None => Vec::new(),
        PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .map(|g| match g {
                GenericArgument::Type(t) => Arg::Ty(type_name(t)),
                GenericArgument::AssocType(a) => Arg::Assoc(a.ident.to_string(), type_name(&a.ty)),
                _ => Arg::Other,
            })
            .collect(),
        // `Fn(i32) -> i32` and friends: no candidate is callable.
        PathArguments::Parenthesized(_) => return false,
    };
    trait_holds(c, &seg.ident.to_string(), &args, param)
}

/// The table of std traits per candidate.
fn trait_holds(c: Cand, name: &str, args: &[Arg], param: &str) -> bool {
    let is_self = |s: &String| s == param || s == "Self";
    let int = matches!(c, Cand::I64 | Cand::U8 | Cand::Int(_));
    let float = matches!(c, Cand::F64 | Cand::F32);
    let num = int || float;
    let signed = matches!(
        c,
        Cand::I64 | Cand::Int(IntTy::I8 | IntTy::I16 | IntTy::I32 | IntTy::I128 | IntTy::Isize)
    );
    let text = matches!(c, Cand::Str | Cand::String);
    // `Add`, `Add<T>`, `Add<Output = T>`: arithmetic with itself, giving itself.
    let self_op = args.iter().all(|a| match a {
        Arg::Ty(t) => is_self(t),
        Arg::Assoc(n, t) => n == "Output" && is_self(t),
        Arg::Other => false,
    });
    let one = |s: &str| matches!(args, [Arg::Ty(t)] if t == s);
    let one_of = |names: &[&str]| names.iter().any(|n| one(n));
    match name {
        "Clone" | "Debug" | "Default" | "Send" | "Sync" | "Sized" | "Unpin" | "Any"
        | "UnwindSafe" | "RefUnwindSafe" | "ToOwned"
            if args.is_empty() =>
        {
            true
        }
        "Display" | "ToString" if args.is_empty() => c != Cand::PathBuf,
        "FromStr" if args.is_empty() => !matches!(c, Cand::Str | Cand::PathBuf),
        "Copy" if args.is_empty() => !matches!(c, Cand::String | Cand::PathBuf),
        "Eq" | "Ord" | "Hash" if args.is_empty() => !float,
        "PartialEq" | "PartialOrd" => self_op,
        "Add" | "Sub" | "Mul" | "Div" | "Rem" | "AddAssign" | "SubAssign" | "MulAssign"
        | "DivAssign" | "RemAssign" | "Sum" | "Product" => num && self_op,
        "Neg" => (signed || float) && self_op,
        "Not" | "BitAnd" | "BitOr" | "BitXor" | "BitAndAssign" | "BitOrAssign" | "BitXorAssign" => {
            (int || c == Cand::Bool) && self_op
        }
        "Shl" | "Shr" | "ShlAssign" | "ShrAssign" => int && self_op,
        "AsRef" => {
            (text && one_of(&["str", "[u8]", "Path", "OsStr"]))
                || (c == Cand::PathBuf && one_of(&["Path", "OsStr"]))
        }
        "Borrow" => self_op || (text && one("str")) || (c == Cand::PathBuf && one("Path")),
        "Into" => {
            one(c.name())
                || (text && one_of(&["String", "PathBuf", "OsString", "Box<str>", "Vec<u8>"]))
                || (c == Cand::PathBuf && one_of(&["PathBuf", "OsString"]))
                || (one("String") && c == Cand::Char)
                || (one("i64") && matches!(c, Cand::U8 | Cand::Bool))
                || (one("f64") && c == Cand::U8)
        }
        "From" | "TryFrom" | "TryInto" => one(c.name()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pick(src: &str) -> Result<Vec<(String, Ty)>, String> {
        pick_why(src).map_err(|e| e.detail)
    }

    fn pick_why(src: &str) -> Result<Vec<(String, Ty)>, Why> {
        let f: syn::ItemFn = syn::parse_str(&format!("{src} {{}}")).unwrap();
        choose(
            &collect(&f.sig.generics, &mut [])?,
            &no_mocks,
            Values::Passed,
        )
    }

    fn first(src: &str) -> Ty {
        pick(src).unwrap().remove(0).1
    }

    #[test]
    fn a_parameter_swapped_into_the_impl_type_takes_the_impl_parameter_bounds() {
        let imp: syn::ItemImpl = syn::parse_str(
            "impl<S: Sys, F: Handler> Config<S, F> { \
                fn handler<NewF>(self, h: NewF) -> Config<S, NewF> {} \
                fn other<G>(self, g: G) -> Vec<G> {} }",
        )
        .unwrap();
        let outer = collect(&imp.generics, &mut []).unwrap();
        let bounds = |i: usize| {
            let syn::ImplItem::Fn(f) = &imp.items[i] else {
                unreachable!()
            };
            let mut own = collect(&f.sig.generics, &mut outer.clone()).unwrap();
            bounds_from_impl(&mut own, &outer, &imp.self_ty, &f.sig.output);
            own[0].bounds.iter().map(text).collect::<Vec<_>>()
        };
        assert_eq!(bounds(0), ["Handler"]);
        // A type other than the impl's own says nothing about the parameter.
        assert!(bounds(1).is_empty());
    }

    #[test]
    fn picks_the_first_candidate_satisfying_all_bounds() {
        assert_eq!(
            first("fn f<T: PartialOrd + Copy>(x: T)"),
            Ty::Int(IntTy::I64)
        );
        assert_eq!(first("fn f<T>(x: T) where T: AsRef<str>"), Ty::Str);
        assert_eq!(first("fn f<T: Into<String> + Clone>(x: T)"), Ty::Str);
        assert_eq!(first("fn f<T: Copy + AsRef<str>>(x: T)"), Ty::Str);
        assert_eq!(first("fn f<T: FromStr + AsRef<str>>(x: T)"), Ty::String);
        assert_eq!(
            first("fn f<T: std::fmt::Display + Copy + 'static>(x: T)"),
            Ty::Int(IntTy::I64)
        );
        assert_eq!(
            first("fn f<T: std::ops::Add<Output = T> + Default>(x: T)"),
            Ty::Int(IntTy::I64)
        );
        assert_eq!(
            first("fn f<T: ?Sized + Hash + Eq>(x: &T)"),
            Ty::Int(IntTy::I64)
        );
        let two = pick("fn f<A: Clone, B: AsRef<[u8]>>(a: A, b: B)").unwrap();
        assert_eq!(two[1], ("B".to_string(), Ty::Str));
        assert_eq!(first("fn f<K: Borrow<str> + Hash + Eq>(k: K)"), Ty::Str);
        // Conversions into one primitive number take that number (bytesize's `kb<V: Into<u64>>`).
        assert_eq!(first("fn f<V: Into<u64>>(v: V)"), Ty::Int(IntTy::U64));
        assert_eq!(
            first("fn f<V: From<u32> + Copy>(v: V)"),
            Ty::Int(IntTy::U32)
        );
        assert_eq!(first("fn f<V: Into<f32>>(v: V)"), Ty::Float(FloatTy::F32));
        assert_eq!(first("fn f<V: Into<i64>>(v: V)"), Ty::Int(IntTy::I64));
    }

    #[test]
    fn parameters_that_stand_for_paths_take_paths() {
        let path_str = Ty::Std(StdTy::PathStr, Vec::new());
        let path_buf = Ty::Std(StdTy::PathBuf, Vec::new());
        assert_eq!(first("fn f<P: AsRef<Path>>(p: P)"), path_str);
        assert_eq!(
            first("fn f<P: AsRef<std::path::Path> + Debug>(p: P)"),
            path_str
        );
        assert_eq!(first("fn f<P: Into<PathBuf>>(p: P)"), path_str);
        assert_eq!(first("fn f<S: AsRef<OsStr>>(s: S)"), Ty::Str);
        // Stored values own their text.
        let f: syn::ItemFn = syn::parse_str("fn f<P: AsRef<Path> + Clone>(p: P) {}").unwrap();
        let params = collect(&f.sig.generics, &mut []).unwrap();
        assert_eq!(
            choose(&params, &no_mocks, Values::Owned).unwrap()[0].1,
            path_buf
        );
        // A `PathBuf` has no `Display`.
        assert_eq!(first("fn f<P: AsRef<Path> + Display>(p: P)"), path_str);
        assert!(pick("fn f<P: AsRef<Path> + Display + FromStr>(p: P)").is_ok());
    }

    #[test]
    fn unknown_or_unsatisfiable_bounds_are_explained() {
        assert_eq!(
            pick("fn f<F: Fn(i32) -> i32>(f: F)").unwrap_err(),
            "generic parameter `F`: no candidate type satisfies `Fn(i32) -> i32`"
        );
        assert!(pick("fn f<T: MyTrait>(x: T)")
            .unwrap_err()
            .contains("`MyTrait`"));
        assert!(pick("fn f<T: Copy + AsRef<Path> + Default + FromStr>(x: T)").is_err());
        assert_eq!(
            pick("fn f<const N: usize>()").unwrap_err(),
            "const generic parameter `N`"
        );
        assert!(pick("fn f<T>(x: T) where Vec<T>: Clone")
            .unwrap_err()
            .contains("where clause `Vec<T>: Clone`"));
    }

    #[test]
    fn unmet_bounds_are_counted_under_the_bound_no_candidate_meets() {
        let reason = |src: &str| pick_why(src).unwrap_err().reason;
        assert_eq!(
            reason("fn f<H: std::hash::Hasher + Clone>(h: H)"),
            SkipReason::UnmetBound("std::hash::Hasher".into())
        );
        assert_eq!(
            reason("fn f<F: FnMut(u8) -> bool>(f: F)"),
            SkipReason::Closure
        );
    }

    #[test]
    fn a_where_clause_on_an_iterators_item_names_the_item() {
        let bounds = |src: &str| {
            let f: syn::ItemFn = syn::parse_str(&format!("{src} {{}}")).unwrap();
            collect(&f.sig.generics, &mut [])
                .map(|ps| text(&ps[0].bounds[0]))
                .map_err(|e| e.detail)
        };
        assert_eq!(
            bounds("fn from_args<I>(args: I) where I: IntoIterator, I::Item: Into<OsString>"),
            Ok("IntoIterator<Item = String>".to_string())
        );
        assert_eq!(
            bounds("fn f<I: Iterator>(it: I) where I::Item: AsRef<Path>"),
            Ok("Iterator<Item =::std::path::PathBuf>".to_string())
        );
        assert_eq!(
            bounds("fn f<I: Iterator>(it: I) where I::Item: Into<String>"),
            Ok("Iterator<Item = String>".to_string())
        );
        // Nothing to fold it into, or no candidate meets it: skipped as before.
        assert!(bounds("fn f<I: Clone>(it: I) where I::Item: Copy")
            .unwrap_err()
            .contains("where clause `I::Item: Copy`"));
        assert!(bounds("fn f<I: Iterator>(it: I) where I::Item: Hasher")
            .unwrap_err()
            .contains("where clause"));
    }

    #[test]
    fn where_clauses_on_an_impl_parameter_constrain_it_for_the_item() {
        let f: syn::ItemFn =
            syn::parse_str("fn map_len(&self) -> usize where T: AsRef<str> {}").unwrap();
        let mut outer = vec![ParamBounds {
            name: "T".into(),
            bounds: Vec::new(),
        }];
        assert!(collect(&f.sig.generics, &mut outer).unwrap().is_empty());
        assert_eq!(
            choose(&outer, &no_mocks, Values::Owned).unwrap()[0].1,
            Ty::String
        );
    }
}
