//! The oracle: what a generated test asserts about a value the driver observed.
//!
//! A value becomes `assert_eq!` against a literal when the literal can be written in the test's
//! module and the type compares with `PartialEq`; otherwise the oracle falls back to the visible
//! fields of a struct, then to the `Debug` text. Nothing that varies between runs is asserted:
//! opaque values get no assertion, and NaN is checked with `is_nan`.

use super::layout;
use super::names::VarNames;
use crate::cluster::{
    Cluster, Fields, FloatTy, ModuleId, RangeKind, StdTy, Ty, TypeKind, OPEN_OPTIONS,
};
use crate::rust_syntax;
use hermetic_protocol::Observed;
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::quote;

/// One way of checking a value, before it is written against a concrete expression.
#[derive(Debug, Clone)]
pub(crate) enum Check {
    /// `assert_eq!(value, literal)`
    Eq(TokenStream),
    /// `assert!(value == literal)`, for a type with `PartialEq` but without `Debug`.
    EqWithoutDebug(TokenStream),
    /// `assert!(value.is_nan())`
    IsNan,
    /// `assert!(value.is_none())`, for an `Option` whose inside cannot be written.
    IsNone,
    /// `assert!(value.is_empty())`, for an empty `Vec` or slice.
    IsEmpty,
    /// `assert!(value.is_ok())` (`is_err`, `is_some`): the shape of a `Result` or an `Option`
    /// whose inside cannot be written (a `fs::Metadata`, an error without `Debug`).
    Shape(&'static str),
    /// `assert_eq!(format!("{:?}", value), text)`
    DebugText(String),
    /// One check per visible field of a struct; `var` is the name to bind the struct to.
    Fields {
        var: String,
        fields: Vec<(TokenStream, Check)>,
    },
    /// The check applies to the `Ok`/`Some` inside.
    Unwrap(Box<Check>),
    /// The check applies to the `Err` inside.
    UnwrapErr(Box<Check>),
    /// The value is a reference or a box; the check applies to what it points to.
    Deref(Box<Check>),
}

impl Check {
    /// What the check compares, as text (token spans left out): two checks with the same key
    /// pass and fail together.
    pub(crate) fn key(&self) -> String {
        match self {
            Check::Eq(lit) => format!("== {lit}"),
            Check::EqWithoutDebug(lit) => format!("=== {lit}"),
            Check::IsNan => "is_nan".into(),
            Check::IsNone => "is_none".into(),
            Check::IsEmpty => "is_empty".into(),
            Check::Shape(method) => (*method).into(),
            Check::DebugText(text) => format!("debug {text:?}"),
            Check::Fields { fields, .. } => fields
                .iter()
                .map(|(access, c)| format!(".{access} {}", c.key()))
                .collect::<Vec<_>>()
                .join("; "),
            Check::Unwrap(c) => format!("unwrap {}", c.key()),
            Check::UnwrapErr(c) => format!("unwrap_err {}", c.key()),
            Check::Deref(c) => format!("* {}", c.key()),
        }
    }

    /// Whether the check only compares `Debug` text (a whole-value `Debug` text reads better).
    fn is_debug_text(&self) -> bool {
        match self {
            Check::DebugText(_) => true,
            Check::Unwrap(c) | Check::UnwrapErr(c) | Check::Deref(c) => c.is_debug_text(),
            _ => false,
        }
    }
}

/// Whether a value says nothing but that it exists: `()`, a struct of such fields.
fn carries_nothing(obs: &Observed) -> bool {
    match obs {
        Observed::Unit => true,
        Observed::Struct(fields) => fields.iter().all(|(_, o)| carries_nothing(o)),
        Observed::Tuple(items) => items.iter().all(carries_nothing),
        _ => false,
    }
}

/// Which way a `Result` or an `Option` came out, when nothing inside it can be checked: a test
/// of a call whose value cannot be written still says whether it succeeded.
fn shape(ty: &Ty, obs: &Observed) -> Option<Check> {
    Some(Check::Shape(match (ty, obs) {
        (Ty::Result(..), Observed::Ok(_)) => "is_ok",
        (Ty::Result(..), Observed::Err(_)) => "is_err",
        (Ty::Option(_), Observed::Opt(Some(_))) => "is_some",
        _ => return None,
    }))
}

/// Writes values of the cluster's types as Rust expressions in the module `home`.
pub(crate) struct Oracle<'a> {
    pub cluster: &'a Cluster,
    pub home: ModuleId,
}

impl Oracle<'_> {
    /// How to check that a value of type `ty` is `obs`; `None` when nothing stable can be said.
    pub fn check(&self, ty: &Ty, obs: &Observed) -> Option<Check> {
        match (ty, obs) {
            (_, Observed::Opaque) => return None,
            (Ty::Float(_), Observed::Float(bits)) if f64::from_bits(*bits).is_nan() => {
                return Some(Check::IsNan)
            }
            (Ty::Vec(_) | Ty::Slice(_), Observed::Seq(items)) if items.is_empty() => {
                return Some(Check::IsEmpty)
            }
            (Ty::Std(kind, _), Observed::Seq(items)) if kind.arity() > 0 && items.is_empty() => {
                return Some(Check::IsEmpty)
            }
            _ => {}
        }
        if self.partial_eq(ty) && !has_nan(obs) {
            if let Some(lit) = self.literal(ty, obs, true) {
                // `assert_eq!` prints both sides when they differ: it needs `Debug`.
                return Some(if self.debug(ty) {
                    Check::Eq(lit)
                } else {
                    Check::EqWithoutDebug(lit)
                });
            }
        }
        let inner = match (ty, obs) {
            (Ty::Option(_), Observed::Opt(None)) => Some(Check::IsNone),
            (Ty::Option(t), Observed::Opt(Some(o))) => {
                self.check(t, o).map(|c| Check::Unwrap(Box::new(c)))
            }
            (Ty::Result(t, e), Observed::Ok(o)) if self.debug(e) => {
                self.check(t, o).map(|c| Check::Unwrap(Box::new(c)))
            }
            // An error that carries nothing (`struct Error(())`): that there is one is all.
            (Ty::Result(..), Observed::Err(o)) if carries_nothing(o) => {
                Some(Check::Shape("is_err"))
            }
            (Ty::Result(t, e), Observed::Err(o)) if self.debug(t) => {
                self.check(e, o).map(|c| Check::UnwrapErr(Box::new(c)))
            }
            (Ty::Box(t) | Ty::Ref(t) | Ty::RefMut(t), o) => {
                self.check(t, o).map(|c| Check::Deref(Box::new(c)))
            }
            (Ty::Adt(id, _), Observed::Struct(fields)) => self.field_checks(*id, fields),
            _ => None,
        };
        let checked = match inner {
            Some(c) if !c.is_debug_text() => Some(c),
            inner => {
                let whole = self
                    .debug(ty)
                    .then(|| self.debug_text(Some(ty), obs))
                    .flatten();
                whole.map(Check::DebugText).or(inner)
            }
        };
        checked.or_else(|| shape(ty, obs))
    }

    /// Checks on the fields of a struct that the test's module can see.
    fn field_checks(&self, id: usize, observed: &[(String, Observed)]) -> Option<Check> {
        let def = &self.cluster.types[id];
        let TypeKind::Struct(fields) = &def.kind else {
            return None;
        };
        if fields.all().len() != observed.len() {
            return None;
        }
        let mut out = Vec::new();
        for (f, (name, o)) in fields.all().iter().zip(observed) {
            if f.name != *name || !self.cluster.visible_from(def.module, f.vis, self.home) {
                continue;
            }
            let Some(t) = &f.ty else { continue };
            if carries_nothing(o) {
                continue;
            }
            if let Some(c) = self.check(t, o) {
                out.push((field_access(fields, &f.name), c));
            }
        }
        (!out.is_empty()).then(|| Check::Fields {
            var: super::names::type_var_name(&def.name),
            fields: out,
        })
    }

    /// Writes the statements that perform `check` on `target`. `place` says whether `target`
    /// is a place that must not be moved out of; `by_ref` whether its type is a reference.
    pub fn render(
        &self,
        check: &Check,
        target: TokenStream,
        place: bool,
        by_ref: bool,
        names: &mut VarNames,
        out: &mut Vec<TokenStream>,
    ) {
        let (assert_eq, assert, format) = (layout::assert_eq(), layout::assert(), layout::format());
        match check {
            Check::Eq(lit) => {
                let target = if by_ref { quote!(*#target) } else { target };
                // Booleans read as a claim (`assert!(x)`), as clippy's `bool_assert_comparison`
                // asks.
                out.push(match lit.to_string().as_str() {
                    "true" => quote!(#assert(#target);),
                    "false" => quote!(#assert(!#target);),
                    _ => quote!(#assert_eq(#target, #lit);),
                });
            }
            Check::EqWithoutDebug(lit) => {
                let target = if by_ref { quote!(*#target) } else { target };
                out.push(quote!(#assert(#target == #lit);));
            }
            Check::IsNan => out.push(quote!(#assert(#target.is_nan());)),
            Check::IsNone => out.push(quote!(#assert(#target.is_none());)),
            Check::IsEmpty => out.push(quote!(#assert(#target.is_empty());)),
            Check::Shape(method) => {
                let method = Ident::new(method, Span::call_site());
                out.push(quote!(#assert(#target.#method());))
            }
            Check::DebugText(text) => {
                let text = Literal::string(text);
                out.push(quote!(#assert_eq(#format("{:?}", #target), #text);));
            }
            Check::Deref(c) => self.render(c, target, place, true, names, out),
            Check::Unwrap(c) | Check::UnwrapErr(c) => {
                let method = match check {
                    Check::Unwrap(_) => quote!(unwrap),
                    _ => quote!(unwrap_err),
                };
                if place || by_ref {
                    let t = quote!(#target.as_ref().#method());
                    self.render(c, t, false, true, names, out)
                } else {
                    self.render(c, quote!(#target.#method()), false, false, names, out)
                }
            }
            Check::Fields { var, fields } => {
                let base = if place {
                    target
                } else {
                    let v = names.fresh(var);
                    out.push(quote!(let #v = #target;));
                    quote!(#v)
                };
                for (access, c) in fields {
                    self.render(c, quote!(#base.#access), true, false, names, out);
                }
            }
        }
    }

    /// Whether values of `ty` can be compared with `==` against a value of the same type.
    pub fn partial_eq(&self, ty: &Ty) -> bool {
        self.has_trait(ty, "PartialEq")
    }

    /// Whether values of `ty` implement `Debug`.
    pub fn debug(&self, ty: &Ty) -> bool {
        self.has_trait(ty, "Debug")
    }

    fn has_trait(&self, ty: &Ty, name: &str) -> bool {
        let rec = |t: &Ty| self.has_trait(t, name);
        match ty {
            Ty::Unit
            | Ty::Bool
            | Ty::Char
            | Ty::Int(_)
            | Ty::Float(_)
            | Ty::String
            | Ty::Str
            | Ty::Ordering => true,
            Ty::Vec(t)
            | Ty::Slice(t)
            | Ty::Array(t, _)
            | Ty::Option(t)
            | Ty::Box(t)
            | Ty::Ref(t)
            | Ty::RefMut(t) => rec(t),
            Ty::Tuple(items) => items.len() <= 12 && items.iter().all(rec),
            Ty::Result(a, b) => rec(a) && rec(b),
            Ty::Adt(id, args) => {
                let def = &self.cluster.types[*id];
                def.implements(name) && args.iter().all(rec)
            }
            // Only its kind is observed; `emit` checks that with `.kind()`.
            Ty::IoError => false,
            // Closures are passed, never results.
            Ty::Closure(..) => false,
            // Generated mocks implement `Debug` (as their name) and nothing else.
            Ty::Mock(_) => name == "Debug",
            Ty::Reader => name == "Debug",
            Ty::IntoIter(t) => name == "Debug" && rec(t),
            Ty::Range(t, RangeKind::HalfOpen | RangeKind::Inclusive) => rec(t),
            // The driver's stand-in, never a result: `Debug` only.
            Ty::Range(t, RangeKind::Bounds) => name == "Debug" && rec(t),
            Ty::Std(kind, _) if kind.is_text() => true,
            // Opaque handles: `Debug` only, never compared.
            Ty::Std(kind, _) if kind.is_fs_handle() => name == "Debug",
            // `#[derive(Clone, Debug, PartialEq, Eq)]` in std, and `Display`.
            Ty::Std(StdTy::VarError, _) => {
                matches!(name, "Clone" | "Debug" | "PartialEq" | "Eq" | "Display")
            }
            // Never compared: its `Debug` text is the platform's.
            Ty::Std(StdTy::OpenOptions, _) => matches!(name, "Clone" | "Debug"),
            Ty::Std(_, args) => args.iter().all(rec),
        }
    }

    /// `obs` written as an expression of type `ty` in the test's module. At the top of an
    /// `assert_eq!`, a `String` is written as a `&str` literal (`String == &str` holds).
    pub fn literal(&self, ty: &Ty, obs: &Observed, top: bool) -> Option<TokenStream> {
        let rec = |t: &Ty, o: &Observed| self.literal(t, o, false);
        let list = |t: &Ty, items: &[Observed]| -> Option<Vec<TokenStream>> {
            items.iter().map(|o| rec(t, o)).collect()
        };
        Some(match (ty, obs) {
            (Ty::Unit, Observed::Unit) => quote!(()),
            (Ty::Bool, Observed::Bool(b)) => quote!(#b),
            (Ty::Int(_), Observed::Int(i)) => int_literal(*i),
            (Ty::Int(_), Observed::BigUint(u)) => {
                let u = Literal::u128_unsuffixed(*u);
                quote!(#u)
            }
            (Ty::Float(f), Observed::Float(bits)) => float_literal(*f, f64::from_bits(*bits))?,
            (Ty::Ordering, Observed::Variant(name, fields)) if fields.is_empty() => {
                ordering_literal(name)?
            }
            (Ty::Char, Observed::Char(c)) => {
                let c = Literal::character(*c);
                quote!(#c)
            }
            (Ty::String, Observed::Str(s)) => {
                let s = Literal::string(s);
                if top {
                    quote!(#s)
                } else {
                    quote!(#s.to_string())
                }
            }
            (Ty::Str, Observed::Str(s)) => {
                let s = Literal::string(s);
                quote!(#s)
            }
            // `Cow<str> == &str` holds, as for `String`.
            (Ty::Std(StdTy::CowStr, _), Observed::Str(s)) if top => {
                let s = Literal::string(s);
                quote!(#s)
            }
            (Ty::Std(kind, _), Observed::Str(s)) if kind.is_text() => {
                text_literal(self.cluster, self.home, *kind, s)
            }
            (Ty::Std(kind, _), Observed::Int(n)) if kind.is_time() => {
                time_literal(self.cluster, self.home, *kind, *n)?
            }
            (Ty::Std(StdTy::VarError, _), Observed::Variant(name, fields)) => {
                match (name.as_str(), fields.as_slice()) {
                    ("NotPresent", []) => var_error_literal(self.cluster, self.home, None),
                    ("NotUnicode", [(_, Observed::Str(s))]) => {
                        var_error_literal(self.cluster, self.home, Some(s.as_str()))
                    }
                    _ => return None,
                }
            }
            (Ty::Std(kind, args), Observed::Seq(items)) if kind.seq_form(args).is_some() => {
                let Some(Ty::Vec(t)) = kind.seq_form(args) else {
                    return None;
                };
                let items = list(&t, items)?;
                collection_literal(self.cluster, self.home, *kind, &items)
            }
            (Ty::Vec(t), Observed::Seq(items)) => {
                if let Some(text) = observed_byte_string(t, items) {
                    quote!(#text.to_vec())
                } else if items.is_empty() {
                    if !self.cluster.ty_visible_from(t, self.home) {
                        return None;
                    }
                    let t = rust_syntax::ty(self.cluster, t, self.home);
                    quote!(Vec::<#t>::new())
                } else {
                    let items = list(t, items)?;
                    let vec = layout::vec();
                    quote!(#vec(#(#items),*))
                }
            }
            (Ty::Slice(t), Observed::Seq(items)) if !items.is_empty() => {
                // `&[1, 2]` is a `&[i32; 2]`: it equals a slice at the top of an `assert_eq!`,
                // but inside `Ok(..)`, `Some(..)` or a tuple the types must match.
                match (observed_byte_string(t, items), top) {
                    (Some(text), true) => quote!(#text),
                    (Some(text), false) => quote!(&#text[..]),
                    (None, _) => {
                        let items = list(t, items)?;
                        if top {
                            quote!(&[#(#items),*])
                        } else {
                            quote!(&[#(#items),*][..])
                        }
                    }
                }
            }
            (Ty::Array(t, n), Observed::Seq(items)) if !items.is_empty() && items.len() == *n => {
                let items = list(t, items)?;
                quote!([#(#items),*])
            }
            (Ty::Range(t, _), Observed::Range(start, end, inclusive)) => {
                range_literal(Some(rec(t, start)?), Some(rec(t, end)?), *inclusive)
            }
            (Ty::Tuple(ts), Observed::Tuple(os)) if ts.len() == os.len() => {
                let items: Vec<_> = ts
                    .iter()
                    .zip(os)
                    .map(|(t, o)| rec(t, o))
                    .collect::<Option<_>>()?;
                tuple(&items)
            }
            (Ty::Option(_), Observed::Opt(None)) => quote!(None),
            (Ty::Option(t), Observed::Opt(Some(o))) => {
                let o = rec(t, o)?;
                quote!(Some(#o))
            }
            (Ty::Result(t, _), Observed::Ok(o)) => {
                let o = rec(t, o)?;
                quote!(Ok(#o))
            }
            (Ty::Result(_, e), Observed::Err(o)) => {
                let o = rec(e, o)?;
                quote!(Err(#o))
            }
            (Ty::Box(t), o) => {
                let o = rec(t, o)?;
                quote!(Box::new(#o))
            }
            (Ty::Ref(t), o) => borrowed(rec(t, o)?, false),
            (Ty::RefMut(t), o) => borrowed(rec(t, o)?, true),
            (Ty::Adt(id, _), Observed::Shown(text)) => {
                let def = &self.cluster.types[*id];
                if !self.cluster.visible_from(def.module, def.vis, self.home) {
                    return None;
                }
                let t = rust_syntax::ty(self.cluster, ty, self.home);
                let text = Literal::string(text);
                quote!(#text.parse::<#t>().unwrap())
            }
            (Ty::Adt(id, _), Observed::Struct(observed)) => {
                let def = &self.cluster.types[*id];
                let TypeKind::Struct(fields) = &def.kind else {
                    return None;
                };
                if !self.cluster.visible_from(def.module, def.vis, self.home) {
                    return None;
                }
                let path = rust_syntax::item_path(self.cluster, def.module, &def.name, self.home);
                let all_visible = fields
                    .all()
                    .iter()
                    .all(|f| self.cluster.visible_from(def.module, f.vis, self.home));
                if !all_visible {
                    return None;
                }
                self.fields_literal(path, fields, observed)?
            }
            (Ty::Adt(id, _), Observed::Variant(name, observed)) => {
                let def = &self.cluster.types[*id];
                let TypeKind::Enum(variants) = &def.kind else {
                    return None;
                };
                if !self.cluster.visible_from(def.module, def.vis, self.home) {
                    return None;
                }
                let variant = variants.iter().find(|v| v.name == *name)?;
                let path = rust_syntax::item_path(self.cluster, def.module, &def.name, self.home);
                let v = rust_syntax::ident(&variant.name);
                self.fields_literal(quote!(#path::#v), &variant.fields, observed)?
            }
            _ => return None,
        })
    }

    /// `Path`, `Path(a, b)` or `Path { x: a }` from observed fields.
    fn fields_literal(
        &self,
        path: TokenStream,
        fields: &Fields,
        observed: &[(String, Observed)],
    ) -> Option<TokenStream> {
        if fields.all().len() != observed.len() {
            return None;
        }
        let mut values = Vec::new();
        for (f, (name, o)) in fields.all().iter().zip(observed) {
            if f.name != *name {
                return None;
            }
            values.push(self.literal(f.ty.as_ref()?, o, false)?);
        }
        Some(match fields {
            Fields::Unit => path,
            Fields::Tuple(_) => quote!(#path(#(#values),*)),
            Fields::Named(fs) => {
                let names = fs.iter().map(|f| rust_syntax::ident(&f.name));
                quote!(#path { #(#names: #values),* })
            }
        })
    }

    /// The text `format!("{:?}", value)` gives, re-created from the observation for the
    /// standard library's and derived `Debug` implementations.
    pub fn debug_text(&self, ty: Option<&Ty>, obs: &Observed) -> Option<String> {
        // Look through references and boxes: their Debug is that of what they point to.
        let ty = match ty {
            Some(Ty::Ref(t) | Ty::RefMut(t) | Ty::Box(t)) => return self.debug_text(Some(t), obs),
            // Observed by its kind (`NotFound`), which is not what its `Debug` prints (the
            // operating system's code and message, or the crate's own message).
            Some(Ty::IoError) => return None,
            t => t,
        };
        let elem = |i: usize| -> Option<&Ty> {
            match ty? {
                Ty::Vec(t) | Ty::Slice(t) | Ty::Array(t, _) | Ty::Option(t) => Some(t),
                Ty::Std(StdTy::CowSlice, ts) => ts.first(),
                Ty::Tuple(ts) => ts.get(i),
                Ty::Result(t, e) => Some(if i == 0 { t } else { e }),
                _ => None,
            }
        };
        let wrap = |name: &str, i: usize, o: &Observed| -> Option<String> {
            Some(format!("{name}({})", self.debug_text(elem(i), o)?))
        };
        Some(match obs {
            Observed::Debug(text) => text.clone(),
            Observed::Opaque | Observed::Shown(_) => return None,
            Observed::Unit => "()".to_string(),
            Observed::Bool(b) => b.to_string(),
            Observed::Int(n) => match ty {
                Some(Ty::Std(kind, _)) if kind.is_time() => time_debug(*kind, *n)?,
                _ => n.to_string(),
            },
            Observed::BigUint(u) => u.to_string(),
            Observed::Range(start, end, inclusive) => {
                let t = match ty {
                    Some(Ty::Range(t, _)) => Some(&**t),
                    _ => None,
                };
                let dots = if *inclusive { "..=" } else { ".." };
                let (start, end) = (self.debug_text(t, start)?, self.debug_text(t, end)?);
                format!("{start}{dots}{end}")
            }
            Observed::Float(bits) => match ty? {
                Ty::Float(FloatTy::F32) => format!("{:?}", f64::from_bits(*bits) as f32),
                Ty::Float(FloatTy::F64) => format!("{:?}", f64::from_bits(*bits)),
                _ => return None,
            },
            Observed::Char(c) => format!("{c:?}"),
            // Paths and OS strings escape `'` where strings do not.
            Observed::Str(s)
                if matches!(ty, Some(Ty::Std(k, _)) if *k != StdTy::CowStr) && s.contains('\'') =>
            {
                return None
            }
            Observed::Str(s) => format!("{s:?}"),
            // `{"a": 1}`, `{1, 2}`: in the order a `BTreeMap` iterates, which is the observed
            // one; a `HashMap`'s order is known for one entry only.
            Observed::Seq(items) if matches!(ty, Some(Ty::Std(k, _)) if k.arity() > 0 && *k != StdTy::CowSlice) =>
            {
                let Some(Ty::Std(kind, args)) = ty else {
                    return None;
                };
                if kind.is_hashed() && items.len() > 1 {
                    return None;
                }
                let text = |t: Option<&Ty>, o: &Observed| self.debug_text(t, o);
                let items: Vec<String> = items
                    .iter()
                    .map(|o| match (o, args.as_slice()) {
                        (Observed::Tuple(kv), [k, v]) if kv.len() == 2 => Some(format!(
                            "{}: {}",
                            text(Some(k), &kv[0])?,
                            text(Some(v), &kv[1])?
                        )),
                        (_, [t]) => text(Some(t), o),
                        _ => None,
                    })
                    .collect::<Option<_>>()?;
                format!("{{{}}}", items.join(", "))
            }
            Observed::Seq(items) => {
                let items: Vec<_> = items
                    .iter()
                    .map(|o| self.debug_text(elem(0), o))
                    .collect::<Option<_>>()?;
                format!("[{}]", items.join(", "))
            }
            Observed::Tuple(items) => {
                let items: Vec<_> = items
                    .iter()
                    .enumerate()
                    .map(|(i, o)| self.debug_text(elem(i), o))
                    .collect::<Option<_>>()?;
                if items.len() == 1 {
                    format!("({},)", items[0])
                } else {
                    format!("({})", items.join(", "))
                }
            }
            Observed::Opt(None) => "None".to_string(),
            Observed::Opt(Some(o)) => wrap("Some", 0, o)?,
            Observed::Ok(o) => wrap("Ok", 0, o)?,
            Observed::Err(o) => wrap("Err", 1, o)?,
            Observed::Struct(observed) => {
                let Some(Ty::Adt(id, _)) = ty else {
                    return None;
                };
                let def = &self.cluster.types[*id];
                let TypeKind::Struct(fields) = &def.kind else {
                    return None;
                };
                if !def.derives.iter().any(|d| d == "Debug") {
                    return None;
                }
                self.fields_debug(&def.name, fields, observed)?
            }
            Observed::Variant(name, observed)
                if matches!(ty, Some(Ty::Std(StdTy::VarError, _))) =>
            {
                match (name.as_str(), observed.as_slice()) {
                    ("NotPresent", []) => name.clone(),
                    ("NotUnicode", [(_, text)]) => {
                        let os = Ty::Std(StdTy::OsString, Vec::new());
                        format!("NotUnicode({})", self.debug_text(Some(&os), text)?)
                    }
                    _ => return None,
                }
            }
            Observed::Variant(name, observed) => {
                let Some(Ty::Adt(id, _)) = ty else {
                    return None;
                };
                let def = &self.cluster.types[*id];
                let TypeKind::Enum(variants) = &def.kind else {
                    return None;
                };
                if !def.derives.iter().any(|d| d == "Debug") {
                    return None;
                }
                let variant = variants.iter().find(|v| v.name == *name)?;
                self.fields_debug(&variant.name, &variant.fields, observed)?
            }
        })
    }

    /// What `#[derive(Debug)]` prints for a struct or variant named `name`.
    fn fields_debug(
        &self,
        name: &str,
        fields: &Fields,
        observed: &[(String, Observed)],
    ) -> Option<String> {
        if fields.all().len() != observed.len() {
            return None;
        }
        let mut parts = Vec::new();
        for (f, (field_name, o)) in fields.all().iter().zip(observed) {
            if f.name != *field_name {
                return None;
            }
            let text = self.debug_text(f.ty.as_ref(), o)?;
            parts.push(match fields {
                Fields::Named(_) => format!("{}: {text}", f.name),
                _ => text,
            });
        }
        Some(match fields {
            _ if parts.is_empty() => name.to_string(),
            Fields::Named(_) => format!("{name} {{ {} }}", parts.join(", ")),
            _ => format!("{name}({})", parts.join(", ")),
        })
    }
}

/// A path, OS string or `Cow` of text of type `kind` with text `s`:
/// `PathBuf::from("/etc/app.conf")`, `Path::new(..)`, `OsString::from(..)`, `OsStr::new(..)`,
/// `Cow::from(..)`, `Cow::from(Path::new(..))`.
pub(crate) fn text_literal(cluster: &Cluster, home: ModuleId, kind: StdTy, s: &str) -> TokenStream {
    let name = rust_syntax::std_name(cluster, kind, home);
    let borrowed = match kind {
        StdTy::CowPath => Some(StdTy::PathRef),
        StdTy::CowOsStr => Some(StdTy::OsStrRef),
        _ => None,
    };
    if let Some(borrowed) = borrowed {
        let inner = text_literal(cluster, home, borrowed, s);
        return quote!(#name::from(#inner));
    }
    let s = Literal::string(s);
    match kind {
        StdTy::PathStr => quote!(#s),
        StdTy::PathRef | StdTy::OsStrRef => quote!(#name::new(#s)),
        _ => quote!(#name::from(#s)),
    }
}

/// A `VarError`: `VarError::NotPresent`, or `VarError::NotUnicode(OsString::from(text))`.
pub(crate) fn var_error_literal(
    cluster: &Cluster,
    home: ModuleId,
    not_unicode: Option<&str>,
) -> TokenStream {
    let name = rust_syntax::std_name(cluster, StdTy::VarError, home);
    match not_unicode {
        None => quote!(#name::NotPresent),
        Some(text) => {
            let os = text_literal(cluster, home, StdTy::OsString, text);
            quote!(#name::NotUnicode(#os))
        }
    }
}

/// A `std::fs::OpenOptions` with `flags` set (in the order of [`OPEN_OPTIONS`]), by the builder's
/// methods, cloned out of the builder: `std::fs::OpenOptions::new().read(true).clone()`, or
/// `std::fs::OpenOptions::new()` with none set; `None` for another number of flags.
pub(crate) fn open_options_literal(flags: &[bool]) -> Option<TokenStream> {
    if flags.len() != OPEN_OPTIONS.len() {
        return None;
    }
    let path = rust_syntax::std_path(StdTy::OpenOptions);
    let set: Vec<Ident> = OPEN_OPTIONS
        .iter()
        .zip(flags)
        .filter(|(_, on)| **on)
        .map(|(name, _)| rust_syntax::ident(name))
        .collect();
    Some(if set.is_empty() {
        quote!(#path::new())
    } else {
        quote!(#path::new() #(.#set(true))* .clone())
    })
}

/// A file system handle of type `kind` opened at `path`: `File::open("/etc/hosts").unwrap()`,
/// `std::fs::metadata("/etc").unwrap()`, `.file_type()`, `.permissions()`,
/// `std::fs::read_dir("/etc").unwrap()`, or a directory entry found in its parent's listing. The test's environment holds the file, or the
/// driver could not have opened it.
pub(crate) fn fs_handle_literal(
    cluster: &Cluster,
    home: ModuleId,
    kind: StdTy,
    path: &str,
) -> TokenStream {
    let text = path;
    let path = Literal::string(path);
    match kind {
        StdTy::Metadata => quote!(std::fs::metadata(#path).unwrap()),
        StdTy::FileType => quote!(std::fs::metadata(#path).unwrap().file_type()),
        StdTy::Permissions => quote!(std::fs::metadata(#path).unwrap().permissions()),
        StdTy::ReadDir => quote!(std::fs::read_dir(#path).unwrap()),
        StdTy::DirEntry => {
            // As the driver finds it (`hermetic_driver`'s `Decode for DirEntry`).
            let p = std::path::Path::new(text);
            let parent = match p.parent().map(|d| d.to_string_lossy()) {
                Some(d) if !d.is_empty() => d.into_owned(),
                _ => ".".to_string(),
            };
            let parent = Literal::string(&parent);
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
            let name = Literal::string(name.as_deref().unwrap_or_default());
            quote!(std::fs::read_dir(#parent).unwrap().flatten().find(|e| e.file_name() == #name).unwrap())
        }
        _ => {
            let name = rust_syntax::std_name(cluster, kind, home);
            quote!(#name::open(#path).unwrap())
        }
    }
}

/// A map or set of type `kind` with `items` (tuples for a map): `HashMap::from([(k, v)])`,
/// `BTreeSet::from([1, 2])`, or `HashMap::new()` when empty.
pub(crate) fn collection_literal(
    cluster: &Cluster,
    home: ModuleId,
    kind: StdTy,
    items: &[TokenStream],
) -> TokenStream {
    let name = rust_syntax::std_name(cluster, kind, home);
    if kind == StdTy::CowSlice {
        // `Cow<[T]>` is made from the vector it owns.
        let vec = layout::vec();
        return quote!(#name::from(#vec(#(#items),*)));
    }
    if items.is_empty() {
        quote!(#name::new())
    } else {
        quote!(#name::from([#(#items),*]))
    }
}

/// A time of type `kind` (`Duration` or `SystemTime`) from its nanoseconds, in the largest
/// whole unit: `Duration::from_secs(90)`, `Duration::from_millis(1500)`,
/// `Duration::new(2, 5)`, `Duration::ZERO`, `Duration::MAX`,
/// `SystemTime::UNIX_EPOCH + Duration::from_secs(1_704_067_200)`; `None` for a number no
/// such value has.
pub(crate) fn time_literal(
    cluster: &Cluster,
    home: ModuleId,
    kind: StdTy,
    nanos: i128,
) -> Option<TokenStream> {
    let duration = |n: u128| -> Option<TokenStream> {
        let name = rust_syntax::std_name(cluster, StdTy::Duration, home);
        let (secs, sub) = (u64::try_from(n / NANOS).ok()?, (n % NANOS) as u32);
        let call = |f: &str, x: u128| {
            let f = rust_syntax::ident(f);
            let x = grouped(x as u64);
            quote!(#name::#f(#x))
        };
        Some(match (secs, sub) {
            (0, 0) => quote!(#name::ZERO),
            (u64::MAX, 999_999_999) => quote!(#name::MAX),
            (_, 0) => call("from_secs", secs as u128),
            _ if sub % 1_000_000 == 0 => call("from_millis", n / 1_000_000),
            (0, _) if sub % 1_000 == 0 => call("from_micros", n / 1_000),
            (0, _) => call("from_nanos", n),
            _ => {
                let (secs, sub) = (grouped(secs), grouped(sub as u64));
                quote!(#name::new(#secs, #sub))
            }
        })
    };
    match kind {
        StdTy::Duration if nanos >= 0 => duration(nanos as u128),
        StdTy::SystemTime => {
            let name = rust_syntax::std_name(cluster, StdTy::SystemTime, home);
            let epoch = quote!(#name::UNIX_EPOCH);
            let d = duration(nanos.unsigned_abs())?;
            Some(match nanos {
                0 => epoch,
                n if n < 0 => quote!(#epoch - #d),
                _ => quote!(#epoch + #d),
            })
        }
        _ => None,
    }
}

const NANOS: u128 = 1_000_000_000;

/// An integer literal with its digits grouped by three from 100,000 up (`1_704_067_200`),
/// as rustfmt leaves them and people read them.
fn grouped(x: u64) -> TokenStream {
    if x < 100_000 {
        let x = Literal::u64_unsuffixed(x);
        return quote!(#x);
    }
    let digits = x.to_string();
    let mut text = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            text.push('_');
        }
        text.push(c);
    }
    text.parse().expect("digits and underscores are a literal")
}

/// The text `{:?}` prints for a time of type `kind` with `nanos` nanoseconds (from the
/// epoch, for a `SystemTime`), as this platform's std prints it.
fn time_debug(kind: StdTy, nanos: i128) -> Option<String> {
    let secs = u64::try_from(nanos.unsigned_abs() / NANOS).ok()?;
    let d = std::time::Duration::new(secs, (nanos.unsigned_abs() % NANOS) as u32);
    match kind {
        StdTy::Duration if nanos >= 0 => Some(format!("{d:?}")),
        StdTy::SystemTime => {
            let epoch = std::time::UNIX_EPOCH;
            let t = if nanos < 0 {
                epoch.checked_sub(d)
            } else {
                epoch.checked_add(d)
            };
            Some(format!("{:?}", t?))
        }
        _ => None,
    }
}

/// `.x` or `.0`.
fn field_access(fields: &Fields, name: &str) -> TokenStream {
    match fields {
        Fields::Tuple(_) => match name.parse::<u32>() {
            Ok(i) => {
                let i = syn::Index::from(i as usize);
                quote!(#i)
            }
            Err(_) => {
                let i = rust_syntax::ident(name);
                quote!(#i)
            }
        },
        _ => {
            let i = rust_syntax::ident(name);
            quote!(#i)
        }
    }
}

/// `&expr` (`&mut expr`), in parentheses where the borrow would bind tighter than the
/// expression (`&(SystemTime::UNIX_EPOCH + Duration::from_secs(3))`, `&(3..7)`).
pub(crate) fn borrowed(expr: TokenStream, mutable: bool) -> TokenStream {
    let loose = matches!(
        syn::parse2::<syn::Expr>(expr.clone()),
        Ok(syn::Expr::Binary(_) | syn::Expr::Range(_) | syn::Expr::Cast(_))
    );
    let expr = if loose { quote!((#expr)) } else { expr };
    if mutable {
        quote!(&mut #expr)
    } else {
        quote!(&#expr)
    }
}

/// Observed bytes as a byte string (`b"name=1"`) when they are mostly text.
fn observed_byte_string(t: &Ty, items: &[Observed]) -> Option<Literal> {
    let ints = items.iter().map(|o| match o {
        Observed::Int(i) => Some(*i),
        _ => None,
    });
    super::byte_string(t, ints)
}

/// `(a, b)`, or `(a,)` for a single element.
pub(crate) fn tuple(items: &[TokenStream]) -> TokenStream {
    if items.len() == 1 {
        let a = &items[0];
        quote!((#a,))
    } else {
        quote!((#(#items),*))
    }
}

/// A range written as the test passes or compares it (`3..7`, `3..=7`, `..=7`, `..`).
pub(crate) fn range_literal(
    start: Option<TokenStream>,
    end: Option<TokenStream>,
    inclusive: bool,
) -> TokenStream {
    match (end, inclusive) {
        (Some(end), true) => quote!(#start..=#end),
        (end, _) => quote!(#start..#end),
    }
}

/// An integer literal without suffix; the type comes from where it is used.
pub(crate) fn int_literal(i: i128) -> TokenStream {
    let abs = Literal::u128_unsuffixed(i.unsigned_abs());
    if i < 0 {
        quote!(-#abs)
    } else {
        quote!(#abs)
    }
}

/// A float literal that reads back as exactly `x` (as an `f32` when `ty` is `F32`);
/// `None` for NaN, which no literal equals.
pub(crate) fn float_literal(ty: FloatTy, x: f64) -> Option<TokenStream> {
    let prefix = match ty {
        FloatTy::F32 => quote!(f32),
        FloatTy::F64 => quote!(f64),
    };
    if x.is_nan() {
        return None;
    }
    if x.is_infinite() {
        return Some(if x > 0.0 {
            quote!(#prefix::INFINITY)
        } else {
            quote!(#prefix::NEG_INFINITY)
        });
    }
    if let Some(name) = constant_named(ty, x.abs()) {
        let name = rust_syntax::ident(name);
        return Some(if x.is_sign_negative() {
            quote!(-std::#prefix::consts::#name)
        } else {
            quote!(std::#prefix::consts::#name)
        });
    }
    // `{:?}` prints the shortest text that reads back as the same value.
    let mut text = match ty {
        FloatTy::F32 => format!("{:?}", (x as f32).abs()),
        FloatTy::F64 => format!("{:?}", x.abs()),
    };
    if !text.contains(['.', 'e']) {
        text.push_str(".0");
    }
    let lit = syn::LitFloat::new(&text, Span::call_site());
    Some(if x.is_sign_negative() {
        quote!(-#lit)
    } else {
        quote!(#lit)
    })
}

/// The name of the `std::f64::consts` (or `f32`) constant that `x` is, if it is one: a test
/// says `PI` rather than `3.141592653589793`, which clippy's `approx_constant` rejects.
fn constant_named(ty: FloatTy, x: f64) -> Option<&'static str> {
    use std::f64::consts::*;
    let known = [
        (E, "E"),
        (FRAC_1_PI, "FRAC_1_PI"),
        (FRAC_1_SQRT_2, "FRAC_1_SQRT_2"),
        (FRAC_2_PI, "FRAC_2_PI"),
        (FRAC_2_SQRT_PI, "FRAC_2_SQRT_PI"),
        (FRAC_PI_2, "FRAC_PI_2"),
        (FRAC_PI_3, "FRAC_PI_3"),
        (FRAC_PI_4, "FRAC_PI_4"),
        (FRAC_PI_6, "FRAC_PI_6"),
        (FRAC_PI_8, "FRAC_PI_8"),
        (LN_2, "LN_2"),
        (LN_10, "LN_10"),
        (LOG2_10, "LOG2_10"),
        (LOG2_E, "LOG2_E"),
        (LOG10_2, "LOG10_2"),
        (LOG10_E, "LOG10_E"),
        (PI, "PI"),
        (SQRT_2, "SQRT_2"),
        (TAU, "TAU"),
    ];
    known.iter().find_map(|&(c, name)| {
        let same = match ty {
            FloatTy::F32 => (c as f32) == (x as f32),
            FloatTy::F64 => c == x,
        };
        same.then_some(name)
    })
}

/// Whether a NaN appears anywhere in the observation (NaN equals nothing).
fn has_nan(obs: &Observed) -> bool {
    match obs {
        Observed::Float(bits) => f64::from_bits(*bits).is_nan(),
        Observed::Seq(items) | Observed::Tuple(items) => items.iter().any(has_nan),
        Observed::Opt(Some(o)) | Observed::Ok(o) | Observed::Err(o) => has_nan(o),
        Observed::Struct(fields) | Observed::Variant(_, fields) => {
            fields.iter().any(|(_, o)| has_nan(o))
        }
        _ => false,
    }
}

/// `std::cmp::Ordering::Less` (spelled in full: the test's module may not import it).
pub(crate) fn ordering_literal(name: &str) -> Option<TokenStream> {
    if !matches!(name, "Less" | "Equal" | "Greater") {
        return None;
    }
    let v = rust_syntax::ident(name);
    Some(quote!(std::cmp::Ordering::#v))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lit(ty: FloatTy, x: f64) -> String {
        float_literal(ty, x).unwrap().to_string().replace(' ', "")
    }

    #[test]
    fn float_literals_read_back_exactly() {
        assert_eq!(lit(FloatTy::F64, 0.1), "0.1");
        assert_eq!(lit(FloatTy::F64, 1e20), "1e20");
        assert_eq!(lit(FloatTy::F64, 3.0), "3.0");
        assert_eq!(lit(FloatTy::F64, -0.0), "-0.0");
        assert_eq!(lit(FloatTy::F32, 0.1f32 as f64), "0.1");
        assert_eq!(lit(FloatTy::F64, f64::NEG_INFINITY), "f64::NEG_INFINITY");
        assert!(float_literal(FloatTy::F64, f64::NAN).is_none());
        assert_eq!(
            lit(FloatTy::F64, -std::f64::consts::PI),
            "-std::f64::consts::PI"
        );
        assert_eq!(
            lit(FloatTy::F32, std::f32::consts::E as f64),
            "std::f32::consts::E"
        );
        assert_eq!(lit(FloatTy::F64, 3.25), "3.25");
        assert_eq!(
            int_literal(i128::MIN).to_string(),
            "- 170141183460469231731687303715884105728"
        );
    }

    #[test]
    fn a_result_or_option_whose_inside_cannot_be_written_is_checked_by_its_shape() {
        let cluster = Cluster::default();
        let oracle = Oracle {
            cluster: &cluster,
            home: 0,
        };
        let metadata = || Box::new(Ty::Std(crate::cluster::StdTy::Metadata, Vec::new()));
        let ty = Ty::Result(metadata(), Box::new(Ty::String));
        let ok = Observed::Ok(Box::new(Observed::Opaque));
        assert_eq!(
            oracle.check(&ty, &ok).map(|c| c.key()),
            Some("is_ok".into())
        );
        // An error that can be written is compared, not only told apart.
        let err = Observed::Err(Box::new(Observed::Str("gone".into())));
        let check = oracle.check(&ty, &err).unwrap();
        assert_eq!(check.key(), "unwrap_err == \"gone\"");
        let opt = Ty::Option(metadata());
        let some = Observed::Opt(Some(Box::new(Observed::Opaque)));
        assert_eq!(
            oracle.check(&opt, &some).map(|c| c.key()),
            Some("is_some".into())
        );
        let mut out = Vec::new();
        let mut names = VarNames::new(Vec::new());
        oracle.render(
            &Check::Shape("is_ok"),
            quote!(walk.metadata()),
            false,
            false,
            &mut names,
            &mut out,
        );
        // `assert!`, spelt as a placeholder the layout replaces.
        assert!(out[0]
            .to_string()
            .ends_with("(walk . metadata () . is_ok ()) ;"));
    }

    /// An error enum holding an `io::Error`: its kind is observed, and `Debug` prints more
    /// (`Custom { kind: NotFound, error: ".." }`), so no text is made up for it.
    #[test]
    fn an_io_error_inside_a_value_has_no_debug_text() {
        let cluster = Cluster::default();
        let oracle = Oracle {
            cluster: &cluster,
            home: 0,
        };
        let ty = Ty::Result(Box::new(Ty::Unit), Box::new(Ty::IoError));
        let obs = Observed::Err(Box::new(Observed::Debug("NotFound".into())));
        assert_eq!(oracle.debug_text(Some(&ty), &obs), None);
        let ty = Ty::Tuple(vec![Ty::Bool, Ty::IoError]);
        let obs = Observed::Tuple(vec![
            Observed::Bool(true),
            Observed::Debug("NotFound".into()),
        ]);
        assert_eq!(oracle.debug_text(Some(&ty), &obs), None);
    }

    #[test]
    fn debug_text_matches_std_formatting() {
        let cluster = Cluster::default();
        let oracle = Oracle {
            cluster: &cluster,
            home: 0,
        };
        let ty = Ty::Option(Box::new(Ty::Tuple(vec![
            Ty::Float(FloatTy::F32),
            Ty::String,
        ])));
        let obs = Observed::Opt(Some(Box::new(Observed::Tuple(vec![
            Observed::Float((0.1f32 as f64).to_bits()),
            Observed::Str("a\"\n".into()),
        ]))));
        assert_eq!(
            oracle.debug_text(Some(&ty), &obs).unwrap(),
            format!("{:?}", Some((0.1f32, "a\"\n".to_string())))
        );
    }
}
