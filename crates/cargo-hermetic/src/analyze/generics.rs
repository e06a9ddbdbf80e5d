//! Instantiation of type parameters: the first candidate type that satisfies all bounds.

use super::syntax::text;
use crate::cluster::{FloatTy, IntTy, Ty};
use crate::skip::{SkipReason, Why};
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
    for pred in generics.where_clause.iter().flat_map(|w| &w.predicates) {
        let WherePredicate::Type(pt) = pred else {
            continue; // lifetime predicates do not constrain types
        };
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
    Ok(own)
}

/// The candidates, in order of preference.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cand {
    I64,
    String,
    U8,
    Bool,
    F64,
    Char,
}

const CANDIDATES: [Cand; 6] = [
    Cand::I64,
    Cand::String,
    Cand::U8,
    Cand::Bool,
    Cand::F64,
    Cand::Char,
];

impl Cand {
    fn ty(self) -> Ty {
        match self {
            Cand::I64 => Ty::Int(IntTy::I64),
            Cand::String => Ty::String,
            Cand::U8 => Ty::Int(IntTy::U8),
            Cand::Bool => Ty::Bool,
            Cand::F64 => Ty::Float(FloatTy::F64),
            Cand::Char => Ty::Char,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Cand::I64 => "i64",
            Cand::String => "String",
            Cand::U8 => "u8",
            Cand::Bool => "bool",
            Cand::F64 => "f64",
            Cand::Char => "char",
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

/// A concrete type for each parameter, in order, or why one has none.
pub fn choose(params: &[ParamBounds], mock: MockFor) -> Result<Vec<(String, Ty)>, Why> {
    params
        .iter()
        .map(|p| {
            if let Some(m) = mock(p) {
                return m
                    .map(|t| (p.name.clone(), t))
                    .map_err(|e| e.within(format!("generic parameter `{}`", p.name)));
            }
            CANDIDATES
                .iter()
                .find(|c| p.bounds.iter().all(|b| satisfies(**c, b, &p.name)))
                .map(|c| (p.name.clone(), c.ty()))
                .ok_or_else(|| unmet(p))
        })
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
                GenericArgument::Type(t) => Arg::Ty(text(t)),
                GenericArgument::AssocType(a) => Arg::Assoc(a.ident.to_string(), text(&a.ty)),
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
    let int = matches!(c, Cand::I64 | Cand::U8);
    let num = int || c == Cand::F64;
    // `Add`, `Add<T>`, `Add<Output = T>`: arithmetic with itself, giving itself.
    let self_op = args.iter().all(|a| match a {
        Arg::Ty(t) => is_self(t),
        Arg::Assoc(n, t) => n == "Output" && is_self(t),
        Arg::Other => false,
    });
    let one = |s: &str| matches!(args, [Arg::Ty(t)] if t == s);
    match name {
        "Clone" | "Debug" | "Default" | "Send" | "Sync" | "Sized" | "Unpin" | "Display"
        | "ToString" | "FromStr" | "Any" | "UnwindSafe" | "RefUnwindSafe"
            if args.is_empty() =>
        {
            true
        }
        "Copy" if args.is_empty() => c != Cand::String,
        "Eq" | "Ord" | "Hash" if args.is_empty() => c != Cand::F64,
        "PartialEq" | "PartialOrd" => self_op,
        "Add" | "Sub" | "Mul" | "Div" | "Rem" | "AddAssign" | "SubAssign" | "MulAssign"
        | "DivAssign" | "RemAssign" | "Sum" | "Product" => num && self_op,
        "Neg" => matches!(c, Cand::I64 | Cand::F64) && self_op,
        "Not" | "BitAnd" | "BitOr" | "BitXor" | "BitAndAssign" | "BitOrAssign" | "BitXorAssign" => {
            (int || c == Cand::Bool) && self_op
        }
        "Shl" | "Shr" | "ShlAssign" | "ShrAssign" => int && self_op,
        "AsRef" | "Borrow" => c == Cand::String && (one("str") || (name == "AsRef" && one("[u8]"))),
        "Into" => {
            one(c.name())
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
        choose(&collect(&f.sig.generics, &mut [])?, &no_mocks)
    }

    fn first(src: &str) -> Ty {
        pick(src).unwrap().remove(0).1
    }

    #[test]
    fn picks_the_first_candidate_satisfying_all_bounds() {
        assert_eq!(
            first("fn f<T: PartialOrd + Copy>(x: T)"),
            Ty::Int(IntTy::I64)
        );
        assert_eq!(first("fn f<T>(x: T) where T: AsRef<str>"), Ty::String);
        assert_eq!(first("fn f<T: Into<String> + Clone>(x: T)"), Ty::String);
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
        assert_eq!(two[1], ("B".to_string(), Ty::String));
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
        assert!(pick("fn f<T: Copy + AsRef<str>>(x: T)").is_err());
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
            reason("fn f<P: AsRef<std::path::Path> + Clone>(p: P)"),
            SkipReason::UnmetBound("AsRef<std::path::Path>".into())
        );
        assert_eq!(
            reason("fn f<F: FnMut(u8) -> bool>(f: F)"),
            SkipReason::Closure
        );
        assert_eq!(
            reason("fn f<T: Copy + AsRef<str>>(x: T)"),
            SkipReason::UnmetBound("AsRef<str>".into())
        );
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
        assert_eq!(choose(&outer, &no_mocks).unwrap()[0].1, Ty::String);
    }
}
