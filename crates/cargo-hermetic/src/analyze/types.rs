//! `syn` types → cluster types (`Ty`), resolving the crate's type names in a module.

use super::generics::{self, ParamBounds, Values};
use super::names::{AliasId, Names, Target};
use super::syntax::{segments, text};
use crate::cluster::{FloatTy, IntTy, ModuleId, RangeKind, StdTy, Ty};
use crate::skip::{type_name, SkipReason, Why};
use std::collections::BTreeMap;
use syn::{GenericArgument, PathArguments, Type, TypeParamBound};

/// What analysis knows of a crate type while mapping types that mention it.
#[derive(Debug, Clone)]
pub struct TypeInfo {
    pub name: String,
    /// Names of the type parameters.
    pub generics: Vec<String>,
    /// Const parameters: hermetic cannot name such a type in its driver slots.
    pub unsupported_generics: Option<String>,
}

/// What analysis knows of a crate trait while mapping types that mention it.
#[derive(Debug, Clone)]
pub struct TraitInfo {
    pub name: String,
    /// Why no mock can stand in for it, if none can.
    pub unmockable: Option<String>,
    /// A primitive type the crate implements it for (`impl Amounts for f64`), which stands in
    /// for a type parameter bounded by it when no mock can.
    pub primitive_implementor: Option<Ty>,
    /// A crate type without type or lifetime parameters that implements it (`impl Sys for
    /// RealSys`), which stands in for a type parameter bounded by it when no mock can (a trait
    /// with associated types, say) and the crate implements it for no primitive.
    pub type_implementor: Option<Ty>,
}

/// Where a type occurs, which decides where references are allowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Stored by value (a crate type's type arguments, an impl's self type): no references.
    Owned,
    /// A parameter or field: references anywhere (`&str`, `&[&str]`, `Option<&T>`, a field's
    /// `&'a str`), but not inside a crate type's type arguments.
    Arg,
    /// A return value: observed, never stored, so references may appear anywhere.
    Ret,
}

impl Mode {
    /// The mode of a type inside this one (a tuple's items, a `Vec`'s element): the same.
    fn inner(self) -> Mode {
        self
    }
}

/// The scope a type is written in.
pub struct TyCx<'a> {
    pub names: &'a Names,
    pub infos: &'a [TypeInfo],
    pub traits: &'a [TraitInfo],
    pub module: ModuleId,
    /// What `Self` means (inside impls and type definitions).
    pub self_ty: Option<&'a Ty>,
    /// Generic parameters and the concrete types chosen for them.
    pub subst: &'a BTreeMap<String, Ty>,
    /// The crate aliases whose targets are being read, outermost first (`&[]` outside any):
    /// a cycle among them is a skip reason, not endless recursion.
    pub expanding: &'a [AliasId],
}

/// Aliases of aliases are followed this deep; deeper is reported as a cycle would be.
const MAX_ALIAS_DEPTH: usize = 16;

impl TyCx<'_> {
    /// The cluster type of a parameter written `ty`: as [`Self::map`] gives it, but a
    /// mutable slice (`out: &mut [u8]`) is a vector's borrow, which the call coerces to one.
    pub fn map_param(&self, ty: &Type) -> Result<Ty, Why> {
        match ty {
            Type::Reference(r) if r.mutability.is_some() => match &*r.elem {
                Type::Slice(s) => Ok(Ty::RefMut(Box::new(Ty::Vec(Box::new(
                    self.map(&s.elem, Mode::Arg)?,
                ))))),
                _ => self.map(ty, Mode::Arg),
            },
            Type::Paren(p) => self.map_param(&p.elem),
            Type::Group(g) => self.map_param(&g.elem),
            _ => self.map(ty, Mode::Arg),
        }
    }

    /// The cluster type for `ty`, or why it is unsupported (naming the type as written).
    pub fn map(&self, ty: &Type, mode: Mode) -> Result<Ty, Why> {
        match ty {
            Type::Paren(p) => self.map(&p.elem, mode),
            Type::Group(g) => self.map(&g.elem, mode),
            Type::Tuple(t) if t.elems.is_empty() => Ok(Ty::Unit),
            Type::Tuple(t) => t
                .elems
                .iter()
                .map(|e| self.map(e, mode.inner()))
                .collect::<Result<_, _>>()
                .map(Ty::Tuple),
            Type::Array(a) => {
                let n = match &a.len {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(n),
                        ..
                    }) => n.base10_parse::<usize>().ok(),
                    // `[u8; SLOTS]`, `[Chunk; RANGE / BITS]`: constants of the crate.
                    len => self
                        .names
                        .const_expr(self.module, len)
                        .and_then(|n| usize::try_from(n).ok()),
                };
                let Some(n) = n else {
                    return Err(Why::new(
                        SkipReason::ArrayLength,
                        format!(
                            "array length `{}` is neither a literal nor a constant of the crate (`{}`)",
                            text(&a.len),
                            text(ty)
                        ),
                    ));
                };
                Ok(Ty::Array(Box::new(self.map(&a.elem, mode.inner())?), n))
            }
            Type::Reference(r) => {
                if mode == Mode::Owned {
                    return Err(Why::new(
                        SkipReason::ReferenceInside,
                        format!(
                            "references inside type arguments of crate types are not supported (`{}`)",
                            text(ty)
                        ),
                    ));
                }
                let inner = mode.inner();
                let mutable = r.mutability.is_some();
                if let Some(kind) = self.unsized_std(&r.elem) {
                    return if mutable {
                        Err(Why::new(
                            SkipReason::MutableBorrow,
                            format!("`&mut {}` is not supported", kind.name()),
                        ))
                    } else {
                        Ok(Ty::Std(kind, Vec::new()))
                    };
                }
                match &*r.elem {
                    Type::Path(p) if p.qself.is_none() && p.path.is_ident("str") => {
                        if mutable {
                            Err(Why::new(
                                SkipReason::MutableBorrow,
                                format!("`&mut str` is not supported (`{}`)", text(ty)),
                            ))
                        } else {
                            Ok(Ty::Str)
                        }
                    }
                    Type::Slice(s) => {
                        if mutable {
                            Err(Why::new(
                                SkipReason::MutableBorrow,
                                format!("mutable slices are not supported (`{}`)", text(ty)),
                            ))
                        } else {
                            Ok(Ty::Slice(Box::new(self.map(&s.elem, inner)?)))
                        }
                    }
                    elem => {
                        let elem = Box::new(self.map(elem, inner)?);
                        Ok(if mutable {
                            Ty::RefMut(elem)
                        } else {
                            Ty::Ref(elem)
                        })
                    }
                }
            }
            Type::Path(p) if p.qself.is_none() => self.path(&p.path, ty, mode),
            Type::Path(p) => self.to_owned_of(p).unwrap_or_else(|| {
                Err(Why::new(
                    SkipReason::QualifiedPath,
                    format!("qualified paths are not supported (`{}`)", text(ty)),
                ))
            }),
            Type::BareFn(_) => Err(Why::new(
                SkipReason::Closure,
                format!("function pointers are not supported (`{}`)", text(ty)),
            )),
            Type::ImplTrait(t) if mode == Mode::Ret => {
                self.returned_iterator(t).unwrap_or_else(|| {
                    Err(Why::new(
                        SkipReason::OpaqueReturn,
                        format!(
                            "`impl Trait` return types are not supported (`{}`)",
                            text(ty)
                        ),
                    ))
                })
            }
            Type::ImplTrait(t) => self
                .mock_for_bounds(t.bounds.iter(), mode, true)
                .unwrap_or_else(|| self.impl_std(t, ty)),
            Type::TraitObject(_) if mode == Mode::Ret => Err(Why::new(
                SkipReason::OpaqueReturn,
                format!(
                    "trait objects in return types are not supported (`{}`)",
                    text(ty)
                ),
            )),
            Type::TraitObject(t) => self
                .mock_for_bounds(t.bounds.iter(), Mode::Owned, false)
                .unwrap_or_else(|| Err(no_mock(t.bounds.iter(), ty))),
            Type::Ptr(_) => Err(Why::new(
                SkipReason::RawPointer,
                format!("raw pointers are not supported (`{}`)", text(ty)),
            )),
            Type::Slice(_) => Err(Why::new(
                SkipReason::UnsizedType,
                format!("unsized slices are not supported (`{}`)", text(ty)),
            )),
            Type::Never(_) => Err(Why::new(
                SkipReason::UnsizedType,
                "the never type `!` is not supported",
            )),
            _ => Err(Why::new(
                SkipReason::UnknownType,
                format!("`{}` is not supported", text(ty)),
            )),
        }
    }

    fn path(&self, path: &syn::Path, ty: &Type, mode: Mode) -> Result<Ty, Why> {
        let segs = segments(path);
        let last = path
            .segments
            .last()
            .ok_or_else(|| Why::new(SkipReason::UnknownType, "empty path"))?;
        if path.leading_colon.is_none() && segs.len() == 1 && last.arguments.is_none() {
            let name = segs[0].as_str();
            if let Some(t) = self.subst.get(name) {
                return Ok(t.clone());
            }
            if name == "Self" {
                return self
                    .self_ty
                    .cloned()
                    .ok_or_else(|| Why::new(SkipReason::UnknownType, "`Self` outside an impl"));
            }
            if let Some(t) = primitive(name) {
                return Ok(t);
            }
            if name == "str" {
                return Err(Why::new(
                    SkipReason::UnsizedType,
                    "`str` is only supported behind a reference (`&str`)",
                ));
            }
        }
        let mut full = segs.clone();
        if path.leading_colon.is_some() {
            full.insert(0, "::".into());
        }
        match self.names.resolve(self.module, &full) {
            Target::Type(id) => {
                let info = &self.infos[id];
                if let Some(why) = &info.unsupported_generics {
                    return Err(unsupported_generics(&info.name, why));
                }
                // A crate value is stored for later statements: its type arguments own
                // their data.
                let arg_mode = if mode == Mode::Ret { mode } else { Mode::Owned };
                let args = self.args(last, ty, arg_mode)?;
                if args.len() != info.generics.len() {
                    return Err(Why::new(
                        SkipReason::TypeArguments,
                        format!(
                            "`{}` needs {} generic argument(s)",
                            text(ty),
                            info.generics.len()
                        ),
                    ));
                }
                Ok(Ty::Adt(id, args))
            }
            Target::Trait(id) if mode != Mode::Ret && last.arguments.is_none() => self.mock(id),
            Target::Trait(_) => Err(Why::new(
                SkipReason::UnmetBound(text(path)),
                format!("trait `{}` used as a type", text(ty)),
            )),
            Target::Alias(id) => self.alias(id, last, ty, mode),
            Target::Ambiguous => Err(Why::new(
                SkipReason::UnknownType,
                format!("ambiguous type `{}`", text(ty)),
            )),
            Target::External(p) => self.std(&p, last, ty, mode),
            Target::Unknown if segs.len() == 1 => self.std(&segs, last, ty, mode),
            // `other_crate::Type` without a `use`: a path into a dependency.
            Target::Unknown if !matches!(segs[0].as_str(), "crate" | "self" | "super") => {
                Err(Why::new(
                    SkipReason::UnsupportedType(type_name(&segs)),
                    format!("`{}` is not supported", text(ty)),
                ))
            }
            Target::Module(_) | Target::Unknown => Err(Why::new(
                SkipReason::UnknownType,
                format!("unknown type `{}`", text(ty)),
            )),
        }
    }

    /// `<T as ToOwned>::Owned` (shellexpand's `type XString = <Xstr as ToOwned>::Owned;` with
    /// `type Xstr = str;`): the owned form of `str`, `Path`, `OsStr` or a slice, which std's
    /// `ToOwned` impls name; `None` for any other qualified path.
    fn to_owned_of(&self, p: &syn::TypePath) -> Option<Result<Ty, Why>> {
        let qself = p.qself.as_ref()?;
        let names = segments(&p.path);
        let is_to_owned = names.len() == qself.position + 1
            && qself.position > 0
            && names[qself.position - 1] == "ToOwned"
            && names[qself.position] == "Owned"
            && p.path.segments.iter().all(|s| s.arguments.is_none());
        if !is_to_owned {
            return None;
        }
        let inner = self.unaliased((*qself.ty).clone());
        let borrowed: Type = syn::parse_quote!(&#inner);
        Some(Ok(match self.map(&borrowed, Mode::Arg).ok()? {
            Ty::Str => Ty::String,
            Ty::Std(StdTy::PathRef, _) => Ty::Std(StdTy::PathBuf, Vec::new()),
            Ty::Std(StdTy::OsStrRef, _) => Ty::Std(StdTy::OsString, Vec::new()),
            Ty::Slice(e) if !e.borrows() => Ty::Vec(e),
            _ => return None,
        }))
    }

    /// `Path` or `OsStr` (std's, not a crate type of that name), which the type behind a
    /// reference `ty` names: `&Path` is `StdTy::PathRef`.
    fn unsized_std(&self, ty: &Type) -> Option<StdTy> {
        let Type::Path(p) = ty else { return None };
        if p.qself.is_some() || p.path.segments.iter().any(|s| !s.arguments.is_none()) {
            return None;
        }
        let mut segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if p.path.leading_colon.is_some() {
            segs.insert(0, "::".into());
        }
        let path = match self.names.resolve(self.module, &segs) {
            Target::External(path) => path,
            Target::Unknown if segs.len() == 1 => segs,
            _ => return None,
        };
        match std_kind(&path) {
            Some(k @ (StdTy::PathRef | StdTy::OsStrRef)) => Some(k),
            _ => None,
        }
    }

    /// The type the crate alias `id` stands for, used as `ty` (whose last segment is `last`):
    /// its target read in the alias's own module, since names in an alias resolve where it is
    /// written, with the alias's parameters replaced by the use site's arguments or their
    /// defaults (`Result<u8>` → `std::result::Result<u8, Error>`).
    /// `params`' bounds with each type argument that names a crate alias of a plain type
    /// written as its target (`AsRef<Xstr>` with `type Xstr = str;` becomes `AsRef<str>`), so
    /// the std traits' table sees the type the compiler sees.
    pub fn unalias_bounds(&self, params: &mut [ParamBounds]) {
        for p in params {
            for bound in &mut p.bounds {
                let TypeParamBound::Trait(tb) = bound else {
                    continue;
                };
                let Some(PathArguments::AngleBracketed(args)) =
                    tb.path.segments.last_mut().map(|s| &mut s.arguments)
                else {
                    continue;
                };
                for arg in &mut args.args {
                    if let GenericArgument::Type(t) = arg {
                        *t = self.unaliased(t.clone());
                    }
                }
            }
        }
    }

    /// `ty` with the crate aliases of plain (non-generic) types it names followed to their
    /// target, each read in its alias's module.
    fn unaliased(&self, mut ty: Type) -> Type {
        let mut module = self.module;
        for _ in 0..MAX_ALIAS_DEPTH {
            let Type::Path(p) = &ty else {
                break;
            };
            if p.qself.is_some() || p.path.segments.iter().any(|s| !s.arguments.is_none()) {
                break;
            }
            let Target::Alias(id) = self.names.resolve(module, &segments(&p.path)) else {
                break;
            };
            let alias = self.names.alias(id);
            if !alias.item.generics.params.is_empty() {
                break;
            }
            ty = (*alias.item.ty).clone();
            module = alias.module;
        }
        ty
    }

    fn alias(
        &self,
        id: AliasId,
        last: &syn::PathSegment,
        ty: &Type,
        mode: Mode,
    ) -> Result<Ty, Why> {
        let alias = self.names.alias(id);
        let name = alias.item.ident.to_string();
        if self.expanding.contains(&id) {
            return Err(Why::new(
                SkipReason::TypeArguments,
                format!("type alias `{name}` refers to itself"),
            ));
        }
        if self.expanding.len() >= MAX_ALIAS_DEPTH {
            return Err(Why::new(
                SkipReason::TypeArguments,
                format!(
                    "type alias `{name}` is nested in more than {MAX_ALIAS_DEPTH} other aliases"
                ),
            ));
        }
        let params = alias_params(&alias.item)?;
        // The arguments are written at the use site and read there.
        let args = self.args(last, ty, mode)?;
        let expanding: Vec<AliasId> = self.expanding.iter().copied().chain([id]).collect();
        let mut subst = BTreeMap::new();
        let mut args = args.into_iter();
        for param in params {
            let t = match (args.next(), &param.default) {
                (Some(t), _) => t,
                // A default may name the parameters before it (`type R<T, E = Wrap<T>>`).
                (None, Some(default)) => self
                    .in_alias(alias.module, &subst, &expanding)
                    .map(default, mode.inner())
                    .map_err(|e| e.within(format!("type alias `{name}`")))?,
                (None, None) => {
                    return Err(Why::new(
                        SkipReason::TypeArguments,
                        format!(
                            "`{}` lacks type alias `{name}`'s argument `{}`",
                            text(ty),
                            param.ident
                        ),
                    ))
                }
            };
            subst.insert(param.ident.to_string(), t);
        }
        if args.next().is_some() {
            return Err(Why::new(
                SkipReason::TypeArguments,
                format!(
                    "`{}` has more type arguments than type alias `{name}` takes",
                    text(ty)
                ),
            ));
        }
        self.in_alias(alias.module, &subst, &expanding)
            .map(&alias.item.ty, mode)
            .map_err(|e| e.within(format!("type alias `{name}`")))
    }

    /// The scope of an alias's target: its module, its own parameters, no `Self`.
    fn in_alias<'b>(
        &'b self,
        module: ModuleId,
        subst: &'b BTreeMap<String, Ty>,
        expanding: &'b [AliasId],
    ) -> TyCx<'b> {
        TyCx {
            module,
            self_ty: None,
            subst,
            expanding,
            ..*self
        }
    }

    /// What stands in for bounds such as `Ledger + Send + 'static`: the crate trait's mock, or
    /// for std's `Write` a `Vec<u8>` and for `IntoIterator<Item = T>` a `Vec<T>`. `None` when
    /// neither is among them, an error when the other bounds ask for more. `mode` says whether
    /// the stand-in is passed straight to a call (`Mode::Arg`: `Vec<&str>` for
    /// `IntoIterator<Item = &str>`) or stored (`Mode::Owned`). `sized`: the bounds are a type
    /// parameter's or `impl Trait`'s (not a trait object's), so a primitive the crate implements
    /// the trait for stands in where no mock can.
    pub fn mock_for_bounds<'b>(
        &self,
        bounds: impl Iterator<Item = &'b TypeParamBound>,
        mode: Mode,
        sized: bool,
    ) -> Option<Result<Ty, Why>> {
        let bounds: Vec<&TypeParamBound> = bounds.collect();
        if let Some(closure) = self.closure_for_bounds(&bounds, mode, sized) {
            return Some(closure);
        }
        let bounds = bounds.into_iter();
        let mut found = None;
        let mut std_value: Option<(Ty, String)> = None;
        let mut extra = Vec::new();
        for b in bounds {
            let TypeParamBound::Trait(tb) = b else {
                continue; // lifetimes
            };
            if matches!(tb.modifier, syn::TraitBoundModifier::Maybe(_)) {
                continue; // `?Sized`
            }
            let segs = segments(&tb.path);
            let target = self.names.resolve(self.module, &segs);
            if !matches!(target, Target::Trait(_)) && std_value.is_none() {
                if let Some(t) = self.std_stand_in(&tb.path, &target, mode) {
                    std_value = Some((t, text(&tb.path)));
                    continue;
                }
            }
            match target {
                Target::Trait(id) if found.is_none() && !has_args(&tb.path) => found = Some(id),
                _ if mock_has(&segs) => {}
                _ => extra.push(text(&tb.path)),
            }
        }
        let Some(id) = found else {
            let (t, name) = std_value?;
            return Some(if extra.is_empty() {
                Ok(t)
            } else {
                Err(Why::new(
                    SkipReason::UnmetBound(extra.join(" + ")),
                    format!(
                        "a stand-in for `{name}` is not also `{}`",
                        extra.join(" + ")
                    ),
                ))
            });
        };
        if let Some((_, name)) = std_value {
            extra.push(name);
        }
        let primitive = self
            .traits
            .get(id)
            .and_then(|t| {
                t.primitive_implementor
                    .clone()
                    .or_else(|| t.type_implementor.clone())
            })
            .filter(|_| sized);
        Some(if extra.is_empty() {
            self.mock(id).or_else(|why| primitive.ok_or(why))
        } else {
            Err(Why::new(
                SkipReason::UnmetBound(extra.join(" + ")),
                format!(
                    "a mock of `{}` is not also `{}`",
                    self.traits[id].name,
                    extra.join(" + ")
                ),
            ))
        })
    }

    /// A std type that implements the std trait `path`, when there is a simple one: `Vec<u8>`
    /// for `io::Write`, `Vec<T>` for `IntoIterator<Item = T>`, a cursor over text for
    /// `io::Read` and `io::BufRead`, `vec::IntoIter<T>` for `Iterator<Item = T>`, any range for
    /// `RangeBounds<T>` (`Ty::Range` of kind `Bounds`).
    fn std_stand_in(&self, path: &syn::Path, resolved: &Target, mode: Mode) -> Option<Ty> {
        let last = path.segments.last()?;
        let fmt = path.segments.iter().any(|s| s.ident == "fmt")
            || matches!(resolved, Target::External(p) if p.iter().any(|s| s == "fmt"));
        match (last.ident.to_string().as_str(), &last.arguments) {
            ("Write", PathArguments::None) if !fmt => Some(Ty::Vec(Box::new(Ty::Int(IntTy::U8)))),
            ("Read" | "BufRead", PathArguments::None) => Some(Ty::Reader),
            ("RangeBounds", PathArguments::AngleBracketed(a)) if a.args.len() == 1 => {
                match a.args.first()? {
                    GenericArgument::Type(t) => {
                        range_of(Box::new(self.map(t, Mode::Owned).ok()?), RangeKind::Bounds).ok()
                    }
                    _ => None,
                }
            }
            (name @ ("IntoIterator" | "Iterator"), PathArguments::AngleBracketed(a)) => {
                match a.args.first()? {
                    GenericArgument::AssocType(item)
                        if item.ident == "Item" && a.args.len() == 1 =>
                    {
                        // An iterator is a stored value; a vector may hold views.
                        let mode = if name == "Iterator" {
                            Mode::Owned
                        } else {
                            mode
                        };
                        let elem = Box::new(self.map(&item.ty, mode).ok()?);
                        Some(if name == "Iterator" {
                            Ty::IntoIter(elem)
                        } else {
                            Ty::Vec(elem)
                        })
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// A std type for an `impl Trait` parameter bounded by std traits only (`impl AsRef<Path>`,
    /// `impl Into<String>`), from the table of candidates type parameters take. A test passes
    /// it without a turbofish, so only types its literal says are candidates: not integers.
    /// A closure for bounds such as `FnMut(&DirEntry) -> bool + Send + 'static`; `None` when
    /// no `Fn*` bound is among them. Its return type must be data the driver can decode and
    /// clone (no borrow, no crate value): the closure returns it on every call. A closure is
    /// only passed straight to a call: a type parameter whose value is stored (`mode` is
    /// `Owned` and the bounds are a type parameter's, `sized`) cannot take one.
    fn closure_for_bounds(
        &self,
        bounds: &[&TypeParamBound],
        mode: Mode,
        sized: bool,
    ) -> Option<Result<Ty, Why>> {
        let (path, args) = bounds.iter().find_map(|b| match b {
            TypeParamBound::Trait(tb) if is_closure_bound(&tb.path) => {
                let last = tb.path.segments.last()?;
                match &last.arguments {
                    PathArguments::Parenthesized(a) => Some((&tb.path, a)),
                    _ => None,
                }
            }
            _ => None,
        })?;
        let written = bounds
            .iter()
            .map(|b| text(*b))
            .collect::<Vec<_>>()
            .join(" + ");
        if mode == Mode::Owned && sized {
            return Some(Err(Why::new(
                SkipReason::Closure,
                format!("a closure kept inside a value (`{written}`) is not supported"),
            )));
        }
        let extra: Vec<String> = bounds
            .iter()
            .filter_map(|b| match b {
                TypeParamBound::Trait(tb)
                    if !std::ptr::eq(&tb.path, path)
                        && !matches!(tb.modifier, syn::TraitBoundModifier::Maybe(_)) =>
                {
                    let segs: Vec<String> = tb
                        .path
                        .segments
                        .iter()
                        .map(|s| s.ident.to_string())
                        .collect();
                    (!mock_has(&segs)).then(|| text(&tb.path))
                }
                _ => None,
            })
            .collect();
        if !extra.is_empty() {
            return Some(Err(Why::new(
                SkipReason::UnmetBound(extra.join(" + ")),
                format!("a closure is not also `{}`", extra.join(" + ")),
            )));
        }
        let ret = match &args.output {
            syn::ReturnType::Default => Ok(Ty::Unit),
            syn::ReturnType::Type(_, t) => self.map(t, Mode::Owned),
        };
        Some(
            ret.and_then(|ret| {
                if ret.borrows() || !closure_can_return(&ret) {
                    Err(Why::new(
                        SkipReason::Closure,
                        format!(
                            "a closure returning `{}` is not supported (`{written}`)",
                            text(&args.output)
                        ),
                    ))
                } else {
                    Ok(Ty::Closure(args.inputs.len(), Box::new(ret)))
                }
            })
            .map_err(|e| e.within(format!("closure `{written}`"))),
        )
    }

    /// `impl Iterator<Item = T> + 'a` returned: `Ty::IntoIter(T)`, which the callable's
    /// signature turns into the `Vec<T>` its call collects (`Callable::collect`). `None` for
    /// any other bounds.
    fn returned_iterator(&self, t: &syn::TypeImplTrait) -> Option<Result<Ty, Why>> {
        let mut item = None;
        for b in &t.bounds {
            match b {
                TypeParamBound::Lifetime(_) => {}
                TypeParamBound::Trait(tb) if item.is_none() => {
                    let last = tb.path.segments.last()?;
                    let PathArguments::AngleBracketed(a) = &last.arguments else {
                        return None;
                    };
                    match (last.ident.to_string().as_str(), a.args.first()) {
                        ("Iterator", Some(GenericArgument::AssocType(i)))
                            if i.ident == "Item" && a.args.len() == 1 =>
                        {
                            item = Some(&i.ty)
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
        Some(
            self.map(item?, Mode::Ret)
                .map(|t| Ty::IntoIter(Box::new(t)))
                .map_err(|e| e.within("the returned iterator's items")),
        )
    }

    fn impl_std(&self, t: &syn::TypeImplTrait, ty: &Type) -> Result<Ty, Why> {
        let param = ParamBounds {
            name: "impl".into(),
            bounds: t.bounds.iter().cloned().collect(),
        };
        let names_crate_trait = t.bounds.iter().any(|b| match b {
            TypeParamBound::Trait(tb) => {
                let segs: Vec<String> = tb
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                matches!(self.names.resolve(self.module, &segs), Target::Trait(_))
            }
            _ => false,
        });
        let chosen = if names_crate_trait {
            None
        } else {
            generics::choose(&[param], &generics::no_mocks, Values::Passed)
                .ok()
                .map(|mut c| c.remove(0).1)
        };
        match chosen {
            Some(Ty::Int(_) | Ty::Float(_)) => Err(Why::new(
                SkipReason::UnmetBound(text(&t.bounds)),
                format!(
                    "`{}` would take a number, which a test's literal cannot give its type",
                    text(ty)
                ),
            )),
            Some(t) => Ok(t),
            None => Err(no_mock(t.bounds.iter(), ty)),
        }
    }

    /// `Cow<'a, B>` (`last` is its segment) as the value its borrowed form `&B` is: text for
    /// `str`, a path for `Path`, an OS string for `OsStr`, the items of a `[T]` (owned, so
    /// `T` holds no reference). Crate aliases of `B` are followed (`type Xstr = str;`).
    fn cow(&self, last: &syn::PathSegment, ty: &Type) -> Result<Ty, Why> {
        let unsupported = || {
            Why::new(
                SkipReason::UnsupportedType("Cow".into()),
                format!(
                    "`{}` is not supported (only `Cow` of `str`, `Path`, `OsStr` or `[T]` is)",
                    text(ty)
                ),
            )
        };
        let borrowed = match &last.arguments {
            PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                GenericArgument::Type(t) => Some(self.unaliased(t.clone())),
                _ => None,
            }),
            _ => None,
        };
        let Some(borrowed) = borrowed else {
            return Err(unsupported());
        };
        let reference: Type = syn::parse_quote!(&#borrowed);
        match self.map(&reference, Mode::Arg).map_err(|_| unsupported())? {
            Ty::Str => Ok(Ty::Std(StdTy::CowStr, Vec::new())),
            Ty::Std(StdTy::PathRef, _) => Ok(Ty::Std(StdTy::CowPath, Vec::new())),
            Ty::Std(StdTy::OsStrRef, _) => Ok(Ty::Std(StdTy::CowOsStr, Vec::new())),
            Ty::Slice(item) if !item.borrows() => Ok(Ty::Std(StdTy::CowSlice, vec![*item])),
            _ => Err(unsupported()),
        }
    }

    fn mock(&self, id: usize) -> Result<Ty, Why> {
        match self.traits.get(id).map(|t| (&t.name, &t.unmockable)) {
            Some((_, None)) => Ok(Ty::Mock(id)),
            Some((name, Some(why))) => Err(Why::new(
                SkipReason::TraitNotMockable,
                format!("trait `{name}` cannot be mocked: {why}"),
            )),
            None => Err(Why::new(
                SkipReason::TraitNotMockable,
                "trait-typed fields are not supported",
            )),
        }
    }

    /// Prelude and std types hermetic knows, by their full path or prelude name.
    fn std(
        &self,
        path: &[String],
        last: &syn::PathSegment,
        ty: &Type,
        mode: Mode,
    ) -> Result<Ty, Why> {
        if let Some(kind) = std_kind(path) {
            if kind.is_ref() {
                return Err(Why::new(
                    SkipReason::UnsizedType,
                    format!(
                        "`{}` is only supported behind a reference (`&{}`)",
                        text(ty),
                        kind.name()
                    ),
                ));
            }
            if kind == StdTy::CowStr {
                return self.cow(last, ty);
            }
            let args = self.args(last, ty, mode)?;
            if args.len() != kind.arity() {
                return Err(Why::new(
                    SkipReason::TypeArguments,
                    match kind.arity() {
                        0 => format!("`{}` takes no type arguments", text(ty)),
                        n => format!(
                            "`{}` is supported with {n} type argument(s) only (the default hasher)",
                            text(ty)
                        ),
                    },
                ));
            }
            return Ok(Ty::Std(kind, args));
        }
        let p: Vec<&str> = path.iter().map(String::as_str).collect();
        if let Some(t) = c_number(&p) {
            return Ok(t);
        }
        let known = match p.as_slice() {
            [n @ ("String" | "Vec" | "Option" | "Result" | "Box")] => Some(*n),
            ["std" | "alloc", "string", "String"] => Some("String"),
            ["std" | "alloc", "vec", "Vec"] => Some("Vec"),
            ["std" | "core", "option", "Option"] => Some("Option"),
            ["std" | "core", "result", "Result"] => Some("Result"),
            ["std" | "alloc", "boxed", "Box"] => Some("Box"),
            ["std", "io", "Result"] => Some("io::Result"),
            ["std", "io", "Error"] => Some("io::Error"),
            ["std" | "core", "cmp", "Ordering"] => Some("Ordering"),
            ["std" | "core", "ops", n @ ("Range" | "RangeInclusive")] => Some(*n),
            _ => None,
        };
        let Some(known) = known else {
            return Err(if p.len() == 1 {
                Why::new(
                    SkipReason::UnknownType,
                    format!("unknown type `{}`", text(ty)),
                )
            } else {
                Why::new(
                    SkipReason::UnsupportedType(type_name(&p)),
                    format!("`{}` is not supported", text(ty)),
                )
            });
        };
        let mut args = self.args(last, ty, mode)?;
        let want = match known {
            "String" | "io::Error" | "Ordering" => 0,
            "Result" => 2,
            _ => 1,
        };
        if args.len() != want {
            return Err(Why::new(
                SkipReason::TypeArguments,
                format!(
                    "`{}` is not supported (expected {want} type argument(s))",
                    text(ty)
                ),
            ));
        }
        let mut next = || Box::new(args.remove(0));
        Ok(match known {
            "String" => Ty::String,
            "Vec" => Ty::Vec(next()),
            "Option" => Ty::Option(next()),
            "Box" => Ty::Box(next()),
            "io::Error" => Ty::IoError,
            "Ordering" => Ty::Ordering,
            "io::Result" => Ty::Result(next(), Box::new(Ty::IoError)),
            "Range" => range_of(next(), RangeKind::HalfOpen)?,
            "RangeInclusive" => range_of(next(), RangeKind::Inclusive)?,
            _ => {
                let ok = next();
                Ty::Result(ok, next())
            }
        })
    }

    /// The type arguments of a path segment (lifetimes are dropped).
    fn args(&self, seg: &syn::PathSegment, ty: &Type, mode: Mode) -> Result<Vec<Ty>, Why> {
        match &seg.arguments {
            PathArguments::None => Ok(Vec::new()),
            PathArguments::Parenthesized(_) => Err(Why::new(
                SkipReason::Closure,
                format!("`{}` is not supported", text(ty)),
            )),
            PathArguments::AngleBracketed(a) => {
                let mut out = Vec::new();
                for arg in &a.args {
                    match arg {
                        GenericArgument::Lifetime(_) => {}
                        GenericArgument::Type(t) => out.push(self.map(t, mode.inner())?),
                        _ => {
                            return Err(Why::new(
                                SkipReason::TypeArguments,
                                format!("`{}` is not supported", text(ty)),
                            ))
                        }
                    }
                }
                Ok(out)
            }
        }
    }
}

/// The C number aliases (`std::os::raw::c_int`, `core::ffi::c_uint`, `libc::c_double`) whose
/// width is the same on every platform Rust builds for, as the type they alias; `c_char`
/// and `c_long` differ between platforms, so tests written with them would not travel.
fn c_number(path: &[&str]) -> Option<Ty> {
    let name = match path {
        ["std" | "core", "os", "raw", name] | ["std" | "core", "ffi", name] | ["libc", name] => {
            *name
        }
        _ => return None,
    };
    Some(match name {
        "c_schar" => Ty::Int(IntTy::I8),
        "c_uchar" => Ty::Int(IntTy::U8),
        "c_short" => Ty::Int(IntTy::I16),
        "c_ushort" => Ty::Int(IntTy::U16),
        "c_int" => Ty::Int(IntTy::I32),
        "c_uint" => Ty::Int(IntTy::U32),
        "c_longlong" => Ty::Int(IntTy::I64),
        "c_ulonglong" => Ty::Int(IntTy::U64),
        "c_float" => Ty::Float(FloatTy::F32),
        "c_double" => Ty::Float(FloatTy::F64),
        _ => return None,
    })
}

/// The std type outside the prelude that `path` names (resolved in its module: `[PathBuf]` when
/// a glob import brings it, `[std, path, PathBuf]` otherwise).
fn std_kind(path: &[String]) -> Option<StdTy> {
    let p: Vec<&str> = path.iter().map(String::as_str).collect();
    let (name, module) = match p.as_slice() {
        [name] => (*name, None),
        ["std" | "core" | "alloc", module @ .., name] => (*name, Some(module)),
        _ => return None,
    };
    StdTy::ALL.into_iter().find(|k| {
        let (std_module, std_name) = k.path().split_at(k.path().len() - 1);
        std_name[0] == name && module.is_none_or(|m| m == std_module)
    })
}

/// A range of `elem`: of integers or chars only, whose values the search draws and tests write
/// as literals.
fn range_of(elem: Box<Ty>, kind: RangeKind) -> Result<Ty, Why> {
    match *elem {
        Ty::Int(_) | Ty::Char => Ok(Ty::Range(elem, kind)),
        _ => Err(Why::new(
            SkipReason::UnsupportedType("Range".into()),
            "ranges of other types than integers and chars are not supported",
        )),
    }
}

/// An alias's type parameters (its lifetimes need no argument: `args` drops them); const
/// parameters are a skip reason.
fn alias_params(item: &syn::ItemType) -> Result<Vec<&syn::TypeParam>, Why> {
    if let Some(c) = item.generics.const_params().next() {
        return Err(Why::new(
            SkipReason::ConstGenerics,
            format!(
                "type alias `{}` has a const generic parameter `{}`, which is not supported",
                item.ident, c.ident
            ),
        ));
    }
    Ok(item.generics.type_params().collect())
}

/// Whether every mock has the trait `path` names: mocks are `Debug`, `Send`, `Sync`, `Sized`,
/// `Unpin` (and `'static`).
pub fn mock_has(path: &[String]) -> bool {
    matches!(
        path.last().map(String::as_str),
        Some("Send" | "Sync" | "Sized" | "Unpin" | "Debug")
    )
}

/// Why a crate type with `unsupported_generics` (`why`, from [`TypeInfo`]) cannot be named.
pub fn unsupported_generics(name: &str, why: &str) -> Why {
    let reason = if why.starts_with("lifetime") {
        SkipReason::LifetimeParameters
    } else {
        SkipReason::ConstGenerics
    };
    Why::new(reason, format!("type `{name}` has {why}"))
}

/// Why `impl Bounds` or `dyn Bounds` (`ty`) has neither a mock nor a std stand-in: the bound
/// that asks for it, a closure's `Fn*` apart.
fn no_mock<'b>(mut bounds: impl Iterator<Item = &'b TypeParamBound>, ty: &Type) -> Why {
    let detail = format!(
        "`{}` names no trait of the crate, so hermetic has no mock for it",
        text(ty)
    );
    let first = bounds.find_map(|b| match b {
        TypeParamBound::Trait(tb) if !matches!(tb.modifier, syn::TraitBoundModifier::Maybe(_)) => {
            Some(&tb.path)
        }
        _ => None,
    });
    match first {
        Some(p) if is_closure_bound(p) => Why::new(SkipReason::Closure, detail),
        Some(p) => Why::new(SkipReason::UnmetBound(text(p)), detail),
        None => Why::new(SkipReason::UnmetBound(text(ty)), detail),
    }
}

/// Whether a closure can return values of type `t` on every call: data the driver decodes
/// and clones (numbers, text, paths, times, options, vectors and results of them), not crate
/// values, mocks, readers or errors, which are built once and not cloned.
fn closure_can_return(t: &Ty) -> bool {
    !t.mentions(&|t| {
        matches!(
            t,
            Ty::Adt(..)
                | Ty::Mock(_)
                | Ty::Reader
                | Ty::IntoIter(_)
                | Ty::IoError
                | Ty::Closure(..)
        )
    })
}

/// `Err` when `t` holds a closure: a closure is passed straight to a call, never kept in a
/// field, whose type would have to name it.
pub fn not_kept(t: Ty) -> Result<Ty, Why> {
    if t.mentions(&|t| matches!(t, Ty::Closure(..))) {
        Err(Why::new(
            SkipReason::Closure,
            "a closure kept in a field is not supported",
        ))
    } else {
        Ok(t)
    }
}

/// Whether a bound is `Fn(..)`, `FnMut(..)` or `FnOnce(..)`.
pub fn is_closure_bound(path: &syn::Path) -> bool {
    path.segments
        .last()
        .is_some_and(|s| matches!(s.ident.to_string().as_str(), "Fn" | "FnMut" | "FnOnce"))
}

fn has_args(path: &syn::Path) -> bool {
    path.segments.iter().any(|s| !s.arguments.is_none())
}

pub fn primitive(name: &str) -> Option<Ty> {
    Some(match name {
        "bool" => Ty::Bool,
        "char" => Ty::Char,
        "f32" => Ty::Float(FloatTy::F32),
        "f64" => Ty::Float(FloatTy::F64),
        "i8" => Ty::Int(IntTy::I8),
        "i16" => Ty::Int(IntTy::I16),
        "i32" => Ty::Int(IntTy::I32),
        "i64" => Ty::Int(IntTy::I64),
        "i128" => Ty::Int(IntTy::I128),
        "isize" => Ty::Int(IntTy::Isize),
        "u8" => Ty::Int(IntTy::U8),
        "u16" => Ty::Int(IntTy::U16),
        "u32" => Ty::Int(IntTy::U32),
        "u64" => Ty::Int(IntTy::U64),
        "u128" => Ty::Int(IntTy::U128),
        "usize" => Ty::Int(IntTy::Usize),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::modules;

    /// Maps `ty` as written in the root of a crate whose lib.rs is `lib`; struct ids in order.
    fn map(lib: &str, ty: &str, mode: Mode) -> Result<Ty, String> {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("lib.rs"), lib).unwrap();
        let mods = modules::load(
            &d.path().join("lib.rs"),
            &Default::default(),
            &mut Vec::new(),
        )
        .unwrap();
        let mut names = Names::new(&mods);
        let mut infos = Vec::new();
        for (id, m) in mods.iter().enumerate() {
            for item in &m.items {
                if let syn::Item::Struct(s) = item {
                    names.add_type(id, &s.ident.to_string(), infos.len());
                    infos.push(TypeInfo {
                        name: s.ident.to_string(),
                        generics: s
                            .generics
                            .type_params()
                            .map(|p| p.ident.to_string())
                            .collect(),
                        unsupported_generics: None,
                    });
                }
            }
        }
        let subst = BTreeMap::from([("T".to_string(), Ty::Int(IntTy::I64))]);
        let cx = TyCx {
            names: &names,
            infos: &infos,
            traits: &[],
            module: 0,
            self_ty: None,
            subst: &subst,
            expanding: &[],
        };
        cx.map(&syn::parse_str(ty).unwrap(), mode)
            .map_err(|e| e.detail)
    }

    fn b(t: Ty) -> Box<Ty> {
        Box::new(t)
    }

    #[test]
    fn maps_std_and_crate_types() {
        let lib = "pub struct P; pub struct W<T>(T); mod m { pub struct Q; } use m::Q;";
        let i64_ = Ty::Int(IntTy::I64);
        assert_eq!(map(lib, "&str", Mode::Arg), Ok(Ty::Str));
        assert_eq!(
            map(lib, "&'a [u8]", Mode::Arg),
            Ok(Ty::Slice(b(Ty::Int(IntTy::U8))))
        );
        assert_eq!(
            map(lib, "std::vec::Vec<String>", Mode::Arg),
            Ok(Ty::Vec(b(Ty::String)))
        );
        assert_eq!(
            map(lib, "[T; 3]", Mode::Arg),
            Ok(Ty::Array(b(i64_.clone()), 3))
        );
        assert_eq!(
            map(lib, "Result<(P, bool), Q>", Mode::Ret),
            Ok(Ty::Result(
                b(Ty::Tuple(vec![Ty::Adt(0, vec![]), Ty::Bool])),
                b(Ty::Adt(2, vec![]))
            ))
        );
        assert_eq!(
            map(lib, "&mut W<T>", Mode::Arg),
            Ok(Ty::RefMut(b(Ty::Adt(1, vec![i64_.clone()]))))
        );
        assert_eq!(
            map(lib, "Option<&i64>", Mode::Ret),
            Ok(Ty::Option(b(Ty::Ref(b(i64_)))))
        );
        assert_eq!(
            map(lib, "Box<crate::m::Q>", Mode::Owned),
            Ok(Ty::Box(b(Ty::Adt(2, vec![]))))
        );
        assert_eq!(map(lib, "()", Mode::Ret), Ok(Ty::Unit));
    }

    #[test]
    fn maps_paths_and_os_strings() {
        let lib = "use std::path::{Path, PathBuf}; use std::ffi::*; pub struct Q;";
        let std_ty = |k| Ty::Std(k, Vec::new());
        assert_eq!(map(lib, "&Path", Mode::Arg), Ok(std_ty(StdTy::PathRef)));
        assert_eq!(
            map(lib, "&'a std::path::Path", Mode::Arg),
            Ok(std_ty(StdTy::PathRef))
        );
        assert_eq!(map(lib, "PathBuf", Mode::Owned), Ok(std_ty(StdTy::PathBuf)));
        assert_eq!(
            map(lib, "OsString", Mode::Owned),
            Ok(std_ty(StdTy::OsString))
        );
        assert_eq!(map(lib, "&OsStr", Mode::Arg), Ok(std_ty(StdTy::OsStrRef)));
        assert_eq!(
            map(lib, "Option<&Path>", Mode::Ret),
            Ok(Ty::Option(b(std_ty(StdTy::PathRef))))
        );
        assert_eq!(
            map(lib, "impl AsRef<Path>", Mode::Arg),
            Ok(std_ty(StdTy::PathStr))
        );
        assert_eq!(map(lib, "impl Into<String>", Mode::Arg), Ok(Ty::Str));
        assert_eq!(
            map(lib, "impl IntoIterator<Item = &'a str>", Mode::Arg),
            Ok(Ty::Vec(b(Ty::Str)))
        );
        assert_eq!(
            map(lib, "std::time::Duration", Mode::Owned),
            Ok(std_ty(StdTy::Duration))
        );
        assert_eq!(
            map("use std::time::*;", "Option<SystemTime>", Mode::Ret),
            Ok(Ty::Option(b(std_ty(StdTy::SystemTime))))
        );
        assert_eq!(
            map(lib, "core::time::Duration", Mode::Arg),
            Ok(std_ty(StdTy::Duration))
        );
        let map_of = |k, v| Ty::Std(StdTy::HashMap, vec![k, v]);
        assert_eq!(
            map(lib, "std::collections::HashMap<String, u8>", Mode::Owned),
            Ok(map_of(Ty::String, Ty::Int(IntTy::U8)))
        );
        assert_eq!(
            map(
                "use std::collections::*;",
                "Option<BTreeSet<&str>>",
                Mode::Arg
            ),
            Ok(Ty::Option(b(Ty::Std(StdTy::BTreeSet, vec![Ty::Str]))))
        );
        assert!(map(lib, "std::collections::HashSet", Mode::Arg).is_err());
        let cow = std_ty(StdTy::CowStr);
        assert_eq!(
            map(lib, "std::borrow::Cow<'a, str>", Mode::Arg),
            Ok(cow.clone())
        );
        assert_eq!(
            map(
                "use std::borrow::Cow;",
                "Option<Cow<'static, str>>",
                Mode::Owned
            ),
            Ok(Ty::Option(b(cow)))
        );
        // `Cow<B>` of the other borrowed forms hermetic builds, by what `&B` would be.
        assert_eq!(
            map(lib, "std::borrow::Cow<'a, [u8]>", Mode::Arg),
            Ok(Ty::Std(StdTy::CowSlice, vec![Ty::Int(IntTy::U8)]))
        );
        assert_eq!(
            map(
                "use std::borrow::Cow; use std::path::Path;",
                "Cow<'_, Path>",
                Mode::Ret
            ),
            Ok(std_ty(StdTy::CowPath))
        );
        assert_eq!(
            map(
                lib,
                "std::borrow::Cow<'static, std::ffi::OsStr>",
                Mode::Owned
            ),
            Ok(std_ty(StdTy::CowOsStr))
        );
        // Neither a slice of references nor a crate type: the driver decodes an owned form.
        assert!(map(lib, "std::borrow::Cow<'a, [&'a str]>", Mode::Arg)
            .unwrap_err()
            .contains("only `Cow` of `str`, `Path`, `OsStr` or `[T]`"));
        assert!(map(
            "use std::borrow::Cow; pub struct Path;",
            "Cow<Path>",
            Mode::Arg
        )
        .is_err());
        assert!(map(lib, "Path", Mode::Owned)
            .unwrap_err()
            .contains("behind a reference"));
        assert!(map(lib, "&mut Path", Mode::Arg).is_err());
        assert!(map(lib, "impl std::fmt::Display", Mode::Arg)
            .unwrap_err()
            .contains("would take a number"));
        // A crate type named `Path` is the crate's.
        assert_eq!(
            map("pub struct Path;", "&Path", Mode::Arg),
            Ok(Ty::Ref(b(Ty::Adt(0, vec![]))))
        );
    }

    #[test]
    fn maps_files_and_metadata() {
        let lib = "use std::fs::{self, File};";
        let std_ty = |k| Ty::Std(k, Vec::new());
        assert_eq!(map(lib, "File", Mode::Arg), Ok(std_ty(StdTy::File)));
        assert_eq!(
            map(lib, "&mut std::fs::File", Mode::Arg),
            Ok(Ty::RefMut(b(std_ty(StdTy::File))))
        );
        assert_eq!(
            map(lib, "&fs::Metadata", Mode::Arg),
            Ok(Ty::Ref(b(std_ty(StdTy::Metadata))))
        );
        assert_eq!(
            map(lib, "std::io::Result<File>", Mode::Ret),
            Ok(Ty::Result(b(std_ty(StdTy::File)), b(Ty::IoError)))
        );
        for (written, kind) in [
            ("fs::FileType", StdTy::FileType),
            ("std::fs::Permissions", StdTy::Permissions),
            ("fs::ReadDir", StdTy::ReadDir),
            ("fs::DirEntry", StdTy::DirEntry),
        ] {
            assert_eq!(map(lib, written, Mode::Arg), Ok(std_ty(kind)), "{written}");
        }
        assert_eq!(
            map(lib, "&fs::DirEntry", Mode::Arg),
            Ok(Ty::Ref(b(std_ty(StdTy::DirEntry))))
        );
        // A crate type of the same name is the crate's (walkdir's `DirEntry`).
        assert_eq!(
            map("pub struct DirEntry;", "&DirEntry", Mode::Arg),
            Ok(Ty::Ref(b(Ty::Adt(0, vec![]))))
        );
    }

    #[test]
    fn c_numbers_of_one_width_everywhere_are_their_rust_types() {
        let lib = "use libc::{c_char, c_int}; use std::os::raw; use core::ffi::c_double;";
        assert_eq!(map(lib, "c_int", Mode::Arg), Ok(Ty::Int(IntTy::I32)));
        assert_eq!(
            map(lib, "raw::c_ushort", Mode::Arg),
            Ok(Ty::Int(IntTy::U16))
        );
        assert_eq!(
            map(lib, "Option<c_double>", Mode::Ret),
            Ok(Ty::Option(b(Ty::Float(FloatTy::F64))))
        );
        assert_eq!(
            map("", "std::ffi::c_ulonglong", Mode::Owned),
            Ok(Ty::Int(IntTy::U64))
        );
        // `c_char` is `i8` on x86 and `u8` on ARM: it stays unsupported.
        assert!(map(lib, "c_char", Mode::Arg).is_err());
        assert!(map("", "std::os::raw::c_long", Mode::Arg).is_err());
    }

    #[test]
    fn maps_variable_errors_open_options_and_owned_forms() {
        let std_ty = |k| Ty::Std(k, Vec::new());
        let var_error = std_ty(StdTy::VarError);
        assert_eq!(
            map("use std::env;", "env::VarError", Mode::Arg),
            Ok(var_error.clone())
        );
        assert_eq!(
            map(
                "use std::env::VarError; pub struct LookupError<E>(E);",
                "Result<String, LookupError<VarError>>",
                Mode::Ret
            ),
            Ok(Ty::Result(
                b(Ty::String),
                b(Ty::Adt(0, vec![var_error.clone()]))
            ))
        );
        assert_eq!(map("", "std::env::VarError", Mode::Owned), Ok(var_error));
        // shellexpand's `type XString = <Xstr as ToOwned>::Owned;`.
        let lib = "pub type Xstr = str; pub type XString = <Xstr as ToOwned>::Owned; use std::path::Path;";
        assert_eq!(map(lib, "XString", Mode::Owned), Ok(Ty::String));
        assert_eq!(
            map(lib, "Option<<Path as ToOwned>::Owned>", Mode::Ret),
            Ok(Ty::Option(b(std_ty(StdTy::PathBuf))))
        );
        assert_eq!(
            map(lib, "<[u8] as ToOwned>::Owned", Mode::Owned),
            Ok(Ty::Vec(b(Ty::Int(IntTy::U8))))
        );
        assert!(map(lib, "<Vec<u8> as IntoIterator>::Item", Mode::Owned).is_err());
        // fs-err wraps std's `OpenOptions` in a type of the same name.
        let lib = "use std::fs; pub struct OpenOptions(fs::OpenOptions);";
        assert_eq!(
            map(lib, "fs::OpenOptions", Mode::Arg),
            Ok(std_ty(StdTy::OpenOptions))
        );
        assert_eq!(
            map(lib, "&mut fs::OpenOptions", Mode::Ret),
            Ok(Ty::RefMut(b(std_ty(StdTy::OpenOptions))))
        );
        assert_eq!(map(lib, "OpenOptions", Mode::Arg), Ok(Ty::Adt(0, vec![])));
    }

    #[test]
    fn maps_closure_bounds_to_closures_returning_a_value() {
        let lib = "use std::cmp::Ordering;";
        let closure = |n, r| Ty::Closure(n, b(r));
        assert_eq!(
            map(lib, "impl Fn(i32) -> i32", Mode::Arg),
            Ok(closure(1, Ty::Int(IntTy::I32)))
        );
        assert_eq!(
            map(
                lib,
                "impl FnMut(&str, &str) -> Ordering + Send + Sync + 'static",
                Mode::Arg
            ),
            Ok(closure(2, Ty::Ordering))
        );
        assert_eq!(
            map(lib, "impl FnOnce()", Mode::Arg),
            Ok(closure(0, Ty::Unit))
        );
        assert_eq!(
            map(lib, "&dyn Fn(u64) -> char", Mode::Arg),
            Ok(Ty::Ref(b(closure(1, Ty::Char))))
        );
        assert_eq!(
            map(lib, "Box<dyn FnOnce(&str) -> Option<String>>", Mode::Arg),
            Ok(Ty::Box(b(closure(1, Ty::Option(b(Ty::String))))))
        );
    }

    #[test]
    fn explains_unsupported_types() {
        let lib = "pub struct L<'a>(&'a str); pub struct W<T>(T); type Table = VecDeque<u8>; use std::collections::{HashMap, VecDeque};";
        let err = |ty: &str, mode| map(lib, ty, mode).unwrap_err();
        assert_eq!(
            err("fn(i32) -> i32", Mode::Arg),
            "function pointers are not supported (`fn(i32) -> i32`)"
        );
        // Closures returning crate values or borrows, or kept in a stored type parameter.
        assert!(err("impl Fn(i32) -> W<u8>", Mode::Arg).contains("a closure returning"));
        assert!(err("impl Fn(&str) -> &str", Mode::Arg).starts_with("closure `Fn(&str) -> &str`"));
        assert!(err("impl Fn(i32) -> i32 + Clone", Mode::Arg).contains("not also `Clone`"));
        assert!(err("&mut [u8]", Mode::Arg).contains("mutable slices"));
        assert_eq!(
            map(lib, "Option<&str>", Mode::Arg),
            Ok(Ty::Option(b(Ty::Str)))
        );
        assert!(err("W<&str>", Mode::Arg).contains("references inside type arguments"));
        assert_eq!(map(lib, "L<'static>", Mode::Arg), Ok(Ty::Adt(0, vec![])));
        assert_eq!(
            err("Table", Mode::Arg),
            "type alias `Table`: `VecDeque<u8>` is not supported"
        );
        assert_eq!(
            err("HashMap<String, i32, u8>", Mode::Arg),
            "`HashMap<String, i32, u8>` is supported with 2 type argument(s) only (the default hasher)"
        );
        assert_eq!(err("Nope", Mode::Arg), "unknown type `Nope`");
        assert!(err("std::io::Result<&mut [u8]>", Mode::Ret).contains("&mut [u8]"));
        assert!(err("Box<dyn std::error::Error>", Mode::Ret).contains("trait objects"));
        assert!(err("*const u8", Mode::Arg).contains("raw pointers"));
    }
}
