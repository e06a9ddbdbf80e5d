//! Callables: free functions, inherent methods, `Default`/`From` impls, `Display`/`Iterator`/
//! `FromStr` impls as the calls tests write (`std_impls`), literals and variants.

use super::cfg::{self, Verdict};
use super::generics::{self, ParamBounds, Values};
use super::items::self_type_id;
use super::modules::{qualified, ModuleSrc};
use super::names::Names;
use super::names::Target;
use super::std_impls::StdImpl;
use super::syntax::{self, least_visible};
use super::types::{Mode, TraitInfo, TyCx, TypeInfo};
use crate::cluster::{
    Callable, CallableKind, Collect, FloatTy, ImplOf, IntTy, ModuleId, Param, Receiver, Skipped,
    StdTy, Ty, TypeDef, VariantShape, Vis, Written,
};
use crate::skip::{SkipReason, Why};
use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::BTreeMap;
use syn::{FnArg, ImplItem, Item, Pat, Signature};

mod std_self;
use std_self::TraitOfStd;

/// Everything a callable needs from its signature.
struct Sig {
    receiver: Option<Receiver>,
    params: Vec<Param>,
    ret: Ty,
    /// Choices for the function's own type parameters.
    generic_args: Vec<Ty>,
    /// Whether each of them appears in a parameter's type.
    generics_inferred: bool,
    /// The arguments the result borrows from (`Callable::held`).
    held: Vec<usize>,
    unsafe_fn: bool,
    /// Where a returned `impl Iterator` is collected (`Callable::collect`).
    collect: Option<Collect>,
    /// `Self` after instantiating the enclosing impl's parameters.
    self_ty: Option<Ty>,
    /// Whether `self_ty` is the reference an unsized std `Self` is passed behind (`&Path` for
    /// `impl PathExt for Path`): a `&self` method takes it by value.
    self_by_ref: bool,
    subst: BTreeMap<String, Ty>,
}

/// How the `Ty` a parameter got (`mapped`) relates to the type it is written with (`ty`), where
/// `params` are the type parameters in scope.
fn written(ty: &syn::Type, mapped: &Ty, params: &BTreeMap<String, Ty>) -> Written {
    struct Find<'a> {
        params: &'a BTreeMap<String, Ty>,
        impl_trait: bool,
        stand_in: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Find<'_> {
        fn visit_type_impl_trait(&mut self, _: &'ast syn::TypeImplTrait) {
            self.impl_trait = true;
        }
        fn visit_type_trait_object(&mut self, _: &'ast syn::TypeTraitObject) {
            self.stand_in = true;
        }
        // `&mut [u8]` gets a `&mut Vec<u8>`.
        fn visit_type_reference(&mut self, r: &'ast syn::TypeReference) {
            self.stand_in |= r.mutability.is_some() && matches!(*r.elem, syn::Type::Slice(_));
            syn::visit::visit_type_reference(self, r);
        }
        fn visit_type_path(&mut self, p: &'ast syn::TypePath) {
            let param = p.qself.is_none()
                && p.path
                    .segments
                    .first()
                    .is_some_and(|s| self.params.contains_key(&s.ident.to_string()));
            self.stand_in |= param || p.qself.is_some();
            syn::visit::visit_type_path(self, p);
        }
    }
    let mut find = Find {
        params,
        impl_trait: false,
        stand_in: false,
    };
    syn::visit::Visit::visit_type(&mut find, ty);
    // The values standing in for std traits (a reader, an iterator, any range) and crate ones.
    let stand_in_ty = mapped.mentions(&|t| {
        matches!(
            t,
            Ty::Mock(_)
                | Ty::Reader
                | Ty::IntoIter(_)
                | Ty::Closure(..)
                | Ty::Range(_, crate::cluster::RangeKind::Bounds)
                | Ty::Std(StdTy::PathStr, _)
        )
    });
    if find.impl_trait {
        Written::ImplTrait
    } else if find.stand_in || stand_in_ty {
        Written::StandIn
    } else {
        Written::AsIs
    }
}

/// An `impl` block being walked.
struct ImplCx<'a> {
    self_ty: &'a syn::Type,
    /// The module the impl is in, where its self type resolves (a trait's default method is
    /// mapped in the trait's module).
    module: ModuleId,
    params: Vec<ParamBounds>,
    /// Its lifetime parameters' names (`a` for `impl<'a> Parser<'a>`), which `Self` mentions.
    lifetimes: Vec<String>,
}

impl<'a> ImplCx<'a> {
    fn new(imp: &'a syn::ItemImpl, module: ModuleId, params: Vec<ParamBounds>) -> Self {
        ImplCx {
            self_ty: &imp.self_ty,
            module,
            params,
            lifetimes: imp
                .generics
                .lifetimes()
                .map(|l| l.lifetime.ident.to_string())
                .collect(),
        }
    }
}

/// Walks the items of every module and turns what tests can call into `Callable`s.
pub struct Collector<'a> {
    pub names: &'a Names,
    pub infos: &'a [TypeInfo],
    pub defs: &'a [TypeDef],
    pub traits: &'a [TraitInfo],
    pub callables: Vec<Callable>,
    pub skipped: &'a mut Vec<Skipped>,
    /// List the methods of impls of crate traits (`Options::trait_impl_methods`).
    pub trait_impl_methods: bool,
    /// List `Display`/`Iterator`/`FromStr`/`IntoIterator` impls as calls
    /// (`Options::std_trait_calls`).
    pub std_trait_calls: bool,
    /// List `unsafe fn`s (`Options::unsafe_fns`).
    pub unsafe_fns: bool,
    /// Which `#[cfg]`d functions are compiled in.
    pub config: &'a cfg::Config,
}

impl Collector<'_> {
    /// Walks every module's items in order.
    pub fn run(&mut self, mods: &[ModuleSrc]) {
        // Structs and enums are met in the order `items::collect` numbered them, traits in the
        // order `traits::declare` did.
        let mut type_id = 0;
        let trait_items: Vec<(ModuleId, &syn::ItemTrait)> = mods
            .iter()
            .enumerate()
            .flat_map(|(m, src)| {
                src.items.iter().filter_map(move |item| match item {
                    Item::Trait(t) => Some((m, t)),
                    _ => None,
                })
            })
            .collect();
        for (m, src) in mods.iter().enumerate() {
            let prefix = &src.module.path;
            for item in &src.items {
                match item {
                    Item::Fn(f) if m == 0 && f.sig.ident == "main" => self.skip(
                        prefix,
                        "main",
                        Why::new(SkipReason::Main, "`main` function of the crate root"),
                    ),
                    Item::Fn(f) => {
                        let name = f.sig.ident.to_string();
                        match self.signature(m, &f.sig, None) {
                            Ok(sig) => {
                                let vis = syntax::vis(&f.vis);
                                self.push(m, name, vis, CallableKind::Function, sig)
                            }
                            Err(why) => self.skip(prefix, &name, why),
                        }
                    }
                    Item::Struct(s) => {
                        debug_assert_eq!(self.defs[type_id].name, s.ident.to_string());
                        self.literal(m, prefix, type_id, s);
                        self.derived_default(m, prefix, type_id, &s.generics);
                        type_id += 1;
                    }
                    Item::Enum(e) => {
                        debug_assert_eq!(self.defs[type_id].name, e.ident.to_string());
                        self.variants(m, prefix, type_id, e);
                        self.derived_default(m, prefix, type_id, &e.generics);
                        type_id += 1;
                    }
                    Item::Impl(imp) => self.impl_block(m, prefix, imp, &trait_items),
                    _ => {}
                }
            }
        }
    }

    fn skip(&mut self, prefix: &[String], name: &str, why: Why) {
        self.skipped.push(why.skipped(qualified(prefix, name)));
    }

    fn push(&mut self, module: ModuleId, name: String, vis: Vis, kind: CallableKind, sig: Sig) {
        self.callables.push(Callable {
            module,
            name,
            kind,
            vis,
            params: sig.params,
            ret: sig.ret,
            generic_args: sig.generic_args,
            generics_inferred: sig.generics_inferred,
            held: sig.held,
            unsafe_fn: sig.unsafe_fn,
            collect: sig.collect,
        });
    }

    /// Checks and maps a signature; `imp` is the enclosing impl block, if any. The function's
    /// own type parameters take a `&str` where their bounds allow (`AsRef<Path>`), and owned
    /// types where that leaves a reference the driver cannot pass (`Vec<T>` with `T = &str`).
    fn signature(
        &self,
        module: ModuleId,
        sig: &Signature,
        imp: Option<&ImplCx>,
    ) -> Result<Sig, Why> {
        self.signature_as(module, sig, imp, Values::Passed)
            .or_else(|passed| {
                // The retry with owned values cannot store the function's own closures: when
                // both fail on a closure, the first attempt's reason says why.
                self.signature_as(module, sig, imp, Values::Owned)
                    .map_err(|owned| match (&passed.reason, &owned.reason) {
                        (SkipReason::Closure, SkipReason::Closure) => passed,
                        _ => owned,
                    })
            })
    }

    /// [`Self::signature`] with the function's own type parameters taking `values`.
    fn signature_as(
        &self,
        module: ModuleId,
        sig: &Signature,
        imp: Option<&ImplCx>,
        values: Values,
    ) -> Result<Sig, Why> {
        if sig.unsafety.is_some() && !self.unsafe_fns {
            return Err(Why::new(SkipReason::UnsafeFn, "unsafe fn"));
        }
        if sig.asyncness.is_some() {
            return Err(Why::new(SkipReason::AsyncFn, "async fn"));
        }
        if sig.abi.is_some() {
            return Err(Why::new(SkipReason::ExternFn, "extern fn"));
        }
        if sig.variadic.is_some() {
            return Err(Why::new(SkipReason::ExternFn, "variadic fn"));
        }
        let mut outer = imp.map(|i| i.params.clone()).unwrap_or_default();
        let mut own = generics::collect(&sig.generics, &mut outer)?;
        if let Some(i) = imp {
            generics::bounds_from_impl(&mut own, &outer, i.self_ty, &sig.output);
        }
        let no_subst = BTreeMap::new();
        let scope = TyCx {
            names: self.names,
            infos: self.infos,
            traits: self.traits,
            module,
            self_ty: None,
            subst: &no_subst,
            expanding: &[],
        };
        scope.unalias_bounds(&mut own);
        scope.unalias_bounds(&mut outer);
        let stored = |p: &ParamBounds| scope.mock_for_bounds(p.bounds.iter(), Mode::Owned, true);
        let mut subst: BTreeMap<String, Ty> = generics::choose(&outer, &stored, Values::Owned)?
            .into_iter()
            .collect();
        let mode = match values {
            Values::Passed => Mode::Arg,
            Values::Owned => Mode::Owned,
        };
        // A closure's bound may name the function's other type parameters (`F: FnMut(&T) -> K,
        // K: Ord`): those are chosen first, and the closure returns the type chosen for `K`.
        // What a closure returns it owns: `C: FnMut(&str) -> Option<CO>, CO: AsRef<str>` gets
        // `CO = String`, never `&str`.
        let returned = generics::returned_by_closures(&own);
        let plain_passed = |p: &ParamBounds| scope.mock_for_bounds(p.bounds.iter(), mode, true);
        let plain_owned =
            |p: &ParamBounds| scope.mock_for_bounds(p.bounds.iter(), Mode::Owned, true);
        let mut chosen: BTreeMap<String, Ty> = BTreeMap::new();
        for p in own.iter().filter(|p| !generics::bounds_a_closure(p)) {
            let one = std::slice::from_ref(p);
            let pick = if returned.contains(&p.name) {
                generics::choose(one, &plain_owned, Values::Owned)
            } else {
                generics::choose(one, &plain_passed, values)
            };
            chosen.extend(pick.into_iter().flatten());
        }
        let closure_scope = TyCx {
            subst: &chosen,
            ..scope
        };
        let passed = |p: &ParamBounds| closure_scope.mock_for_bounds(p.bounds.iter(), mode, true);
        let own: Vec<(String, Ty)> = generics::choose(&own, &passed, values)?
            .into_iter()
            .map(|(name, t)| match chosen.get(&name) {
                Some(owned) if returned.contains(&name) => (name, owned.clone()),
                _ => (name, t),
            })
            .collect();
        let generic_args = own.iter().map(|(_, t)| t.clone()).collect();
        let generics_inferred = own.iter().all(|(name, _)| {
            sig.inputs.iter().any(|input| match input {
                FnArg::Typed(t) => infers(&t.ty, name),
                FnArg::Receiver(_) => false,
            })
        });
        subst.extend(own);
        let (self_ty, self_by_ref) = match imp {
            Some(i) => match self.self_ty(i.module, i.self_ty, &subst) {
                Ok(t) => (Some(t), false),
                // `impl PathExt for Path`: `Self` is only ever passed behind a reference.
                Err(e) => match self.unsized_self(i.module, i.self_ty) {
                    Some(t) => (Some(t), true),
                    None => return Err(e.within("self type")),
                },
            },
            None => (None, false),
        };
        let cx = TyCx {
            names: self.names,
            infos: self.infos,
            traits: self.traits,
            module,
            // An unsized `Self` has no `Ty` of its own: a signature naming it is skipped.
            self_ty: self_ty.as_ref().filter(|_| !self_by_ref),
            subst: &subst,
            expanding: &[],
        };
        let mut receiver = None;
        let mut params = Vec::new();
        for (i, input) in sig.inputs.iter().enumerate() {
            match input {
                FnArg::Receiver(r) => receiver = Some(receiver_kind(r)?),
                FnArg::Typed(t) => {
                    let name = match &*t.pat {
                        Pat::Ident(p) if p.ident != "_" => p.ident.to_string(),
                        _ => format!("arg{}", i),
                    };
                    let ty = cx
                        .map_param(&t.ty)
                        .map_err(|e| e.within(format!("parameter `{name}`")))?;
                    let written = written(&t.ty, &ty, &subst);
                    params.push(Param { name, ty, written });
                }
            }
        }
        let ret = match &sig.output {
            syn::ReturnType::Default => Ty::Unit,
            syn::ReturnType::Type(_, t) => {
                cx.map(t, Mode::Ret).map_err(|e| e.within("return type"))?
            }
        };
        let (ret, collect) = collected(ret).map_err(|e| e.within("return type"))?;
        let hides_lifetimes =
            ret.mentions(&|t| matches!(t, Ty::Adt(id, _) if self.defs[*id].lifetimes > 0));
        let held = held_args(sig, imp.map_or(&[][..], |i| &i.lifetimes), hides_lifetimes);
        Ok(Sig {
            receiver,
            params,
            held,
            ret,
            generic_args,
            generics_inferred,
            unsafe_fn: sig.unsafety.is_some(),
            collect,
            self_ty,
            self_by_ref,
            subst,
        })
    }

    /// The reference an unsized std self type is passed behind: `&str`, `&Path`, `&OsStr`,
    /// `&[T]`; `None` for any other type.
    fn unsized_self(&self, module: ModuleId, ty: &syn::Type) -> Option<Ty> {
        let no_subst = BTreeMap::new();
        let cx = TyCx {
            names: self.names,
            infos: self.infos,
            traits: self.traits,
            module,
            self_ty: None,
            subst: &no_subst,
            expanding: &[],
        };
        let borrowed: syn::Type = syn::parse_quote!(&#ty);
        match cx.map(&borrowed, Mode::Arg).ok()? {
            t @ (Ty::Str | Ty::Slice(_)) => Some(t),
            t @ Ty::Std(StdTy::PathRef | StdTy::OsStrRef, _) => Some(t),
            _ => None,
        }
    }

    /// The impl's self type with its parameters instantiated.
    fn self_ty(
        &self,
        module: ModuleId,
        ty: &syn::Type,
        subst: &BTreeMap<String, Ty>,
    ) -> Result<Ty, Why> {
        let cx = TyCx {
            names: self.names,
            infos: self.infos,
            traits: self.traits,
            module,
            self_ty: None,
            subst,
            expanding: &[],
        };
        cx.map(ty, Mode::Owned)
    }

    fn impl_block(
        &mut self,
        m: ModuleId,
        prefix: &[String],
        imp: &syn::ItemImpl,
        trait_items: &[(ModuleId, &syn::ItemTrait)],
    ) {
        if imp.unsafety.is_some() {
            return;
        }
        let type_name = match &*imp.self_ty {
            syn::Type::Path(p) => p
                .path
                .segments
                .last()
                .map_or_else(|| syntax::text(&imp.self_ty), |s| s.ident.to_string()),
            other => syntax::text(other),
        };
        let mut of_trait = None;
        let trait_name = match &imp.trait_ {
            None => None,
            Some((Some(_), _, _)) => return, // negative impls
            Some((None, path, _)) => match path.segments.last() {
                Some(seg) if seg.ident == "Default" || seg.ident == "From" => Some(path),
                _ if self.std_trait_calls
                    && !self.names_crate_trait(m, path)
                    && StdImpl::of(path).is_some() =>
                {
                    let kind = StdImpl::of(path).expect("checked");
                    return self.std_impl(m, prefix, imp, &type_name, kind);
                }
                _ => match self.crate_trait(m, path) {
                    // `impl PathExt for Path`: nothing else of the crate's reaches these.
                    // Not `impl<T: Sys> Sys for &T`: a blanket impl is no std type's API.
                    Some(t)
                        if self_type_id(self.names, m, &imp.self_ty).is_none()
                            && !names_impl_param(imp) =>
                    {
                        let Some(&(trait_module, item)) = trait_items.get(t.trait_id) else {
                            return;
                        };
                        let of = TraitOfStd {
                            of: t,
                            module: trait_module,
                            item,
                        };
                        return self.std_self_impl(m, prefix, imp, &type_name, of);
                    }
                    Some(t) if self.trait_impl_methods => {
                        of_trait = Some(t);
                        None
                    }
                    // Other trait impls are reached through the crate's own callables.
                    _ => return,
                },
            },
        };
        let type_id = self_type_id(self.names, m, &imp.self_ty);
        let fns = self.impl_fns(prefix, imp, &type_name, trait_name.is_none());
        let params = generics::collect(&imp.generics, &mut []);
        let Some(type_id) = type_id else {
            // Inherent impls exist only for crate types; one we cannot resolve is reported.
            if trait_name.is_none() && of_trait.is_none() {
                for f in fns {
                    let name = format!("{type_name}::{}", f.sig.ident);
                    self.skip(
                        prefix,
                        &name,
                        Why::new(
                            SkipReason::UnknownType,
                            format!("unknown type `{}`", syntax::text(&imp.self_ty)),
                        ),
                    );
                }
            }
            return;
        };
        let cx = params.map(|params| ImplCx::new(imp, m, params));
        for f in fns {
            let name = f.sig.ident.to_string();
            let shown = format!("{type_name}::{name}");
            if trait_name.is_some() && name != "default" && name != "from" {
                continue;
            }
            let sig = cx
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|cx| self.signature(m, &f.sig, Some(cx)));
            let sig = match sig {
                Ok(sig) => sig,
                Err(why) => {
                    self.skip(prefix, &shown, why);
                    continue;
                }
            };
            let Some(self_ty) = sig.self_ty.clone() else {
                continue;
            };
            let vis = match of_trait {
                // Trait impls are as visible as the type they are for.
                Some(_) => self.defs[type_id].vis,
                None => syntax::vis(&f.vis),
            };
            let (vis, kind) = match (trait_name, sig.receiver) {
                (None, Some(receiver)) => (
                    vis,
                    CallableKind::Method {
                        self_ty,
                        receiver,
                        of_trait,
                    },
                ),
                // Associated functions of trait impls are not listed (a test would name them
                // `<Type as Trait>::name`).
                (None, None) if of_trait.is_some() => continue,
                (None, None) => (
                    vis,
                    CallableKind::AssocFn {
                        self_ty,
                        of_trait: None,
                    },
                ),
                // Trait impls are as visible as the type they are for.
                (Some(path), None) => {
                    let trait_name = substituted_text(path, &sig.subst);
                    (
                        self.defs[type_id].vis,
                        CallableKind::TraitFn {
                            self_ty,
                            trait_name,
                        },
                    )
                }
                (Some(_), Some(_)) => continue,
            };
            self.push(m, name, vis, kind, sig);
        }
    }

    /// A `Display`, `Iterator`, `FromStr` or `IntoIterator` impl (`kind`) of a crate type, as
    /// the call a test writes for it (`StdImpl::call_signature`): a method
    /// `to_string`/`next`/`into_iter`, or `from_str` called as `"text".parse::<Type>()`. As
    /// visible as the type.
    fn std_impl(
        &mut self,
        m: ModuleId,
        prefix: &[String],
        imp: &syn::ItemImpl,
        type_name: &str,
        kind: StdImpl,
    ) {
        let Some(type_id) = self_type_id(self.names, m, &imp.self_ty) else {
            return;
        };
        let fns = self.impl_fns(prefix, imp, type_name, false);
        if !fns.iter().any(|f| f.sig.ident == kind.impl_fn()) {
            return;
        }
        let Some(call) = kind.call_signature(imp) else {
            return;
        };
        // `into_iter` is worth a call when it leads to the crate's own iterator; a std one
        // (`vec::IntoIter<T>`) holds none of the crate's logic.
        if let Some(name) = kind.returned_assoc() {
            let gives_crate_type = super::std_impls::assoc_type(imp, name)
                .is_some_and(|ty| self_type_id(self.names, m, ty).is_some());
            if !gives_crate_type {
                return;
            }
        }
        let shown = format!("{type_name}::{}", call.ident);
        let sig = generics::collect(&imp.generics, &mut []).and_then(|params| {
            let cx = ImplCx::new(imp, m, params);
            self.signature(m, &call, Some(&cx))
        });
        let sig = match sig {
            Ok(sig) => sig,
            Err(why) => return self.skip(prefix, &shown, why),
        };
        let Some(self_ty) = sig.self_ty.clone() else {
            return;
        };
        let callable = match (kind, sig.receiver) {
            (StdImpl::FromStr, None) => CallableKind::TraitFn {
                self_ty,
                trait_name: "::std::str::FromStr".into(),
            },
            (_, Some(receiver)) => CallableKind::Method {
                self_ty,
                receiver,
                of_trait: None,
            },
            (_, None) => return,
        };
        let vis = self.defs[type_id].vis;
        self.push(m, call.ident.to_string(), vis, callable, sig);
    }

    /// Whether an impl's trait path names a trait of the crate.
    fn names_crate_trait(&self, m: ModuleId, path: &syn::Path) -> bool {
        let mut segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if path.leading_colon.is_some() {
            segs.insert(0, "::".into());
        }
        matches!(self.names.resolve(m, &segs), Target::Trait(_))
    }

    /// The crate trait an impl's trait path names.
    fn crate_trait(&self, m: ModuleId, path: &syn::Path) -> Option<ImplOf> {
        let mut segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if path.leading_colon.is_some() {
            segs.insert(0, "::".into());
        }
        match self.names.resolve(m, &segs) {
            Target::Trait(trait_id) if path.segments.iter().all(|s| s.arguments.is_none()) => {
                Some(ImplOf {
                    trait_id,
                    in_scope: segs.len() == 1,
                })
            }
            _ => None,
        }
    }

    /// The impl's compiled-in functions; those behind unknown cfgs are reported if `report`.
    fn impl_fns<'i>(
        &mut self,
        prefix: &[String],
        imp: &'i syn::ItemImpl,
        type_name: &str,
        report: bool,
    ) -> Vec<&'i syn::ImplItemFn> {
        let mut fns = Vec::new();
        for item in &imp.items {
            let ImplItem::Fn(f) = item else {
                continue;
            };
            match cfg::verdict(&f.attrs, self.config) {
                Verdict::On => fns.push(f),
                Verdict::Off => {}
                Verdict::Unknown(c) if report => {
                    let name = format!("{type_name}::{}", f.sig.ident);
                    let why = format!("behind `{c}`, which analysis cannot evaluate");
                    self.skip(prefix, &name, Why::new(SkipReason::Cfg, why));
                }
                Verdict::Unknown(_) => {}
            }
        }
        fns
    }

    /// Instantiates a type definition's own parameters (for literals, variants, derives).
    fn instantiate(
        &self,
        generics: &syn::Generics,
        extra: Option<syn::TypeParamBound>,
    ) -> Result<BTreeMap<String, Ty>, Why> {
        let mut params = generics::collect(generics, &mut [])?;
        if let Some(b) = extra {
            for p in &mut params {
                p.bounds.push(b.clone());
            }
        }
        Ok(
            generics::choose(&params, &generics::no_mocks, Values::Owned)?
                .into_iter()
                .collect(),
        )
    }

    fn type_scope(
        &self,
        id: usize,
        generics: &syn::Generics,
        extra: Option<syn::TypeParamBound>,
    ) -> Result<(Ty, BTreeMap<String, Ty>), Why> {
        if let Some(why) = &self.infos[id].unsupported_generics {
            return Err(super::types::unsupported_generics(
                &self.infos[id].name,
                why,
            ));
        }
        let subst = self.instantiate(generics, extra)?;
        let args = self.infos[id]
            .generics
            .iter()
            .map(|g| subst.get(g).cloned().unwrap_or(Ty::Unit))
            .collect();
        Ok((Ty::Adt(id, args), subst))
    }

    /// Maps fields in order; `Err` names the first unsupported one.
    fn field_params(
        &self,
        m: ModuleId,
        self_ty: &Ty,
        subst: &BTreeMap<String, Ty>,
        fields: &syn::Fields,
    ) -> Result<Vec<(Param, Vis)>, Why> {
        let cx = TyCx {
            names: self.names,
            infos: self.infos,
            traits: self.traits,
            module: m,
            self_ty: Some(self_ty),
            subst,
            expanding: &[],
        };
        fields
            .iter()
            .enumerate()
            .map(|(i, f)| {
                let name = f
                    .ident
                    .as_ref()
                    .map_or_else(|| i.to_string(), |id| id.to_string());
                let ty = cx
                    .map(&f.ty, Mode::Arg)
                    .and_then(super::types::not_kept)
                    .map_err(|e| e.within(format!("field `{name}`")))?;
                let written = written(&f.ty, &ty, subst);
                Ok((Param { name, ty, written }, syntax::vis(&f.vis)))
            })
            .collect()
    }

    fn literal(&mut self, m: ModuleId, prefix: &[String], id: usize, s: &syn::ItemStruct) {
        let name = s.ident.to_string();
        let built = self
            .type_scope(id, &s.generics, None)
            .and_then(|(self_ty, subst)| {
                let fields = self.field_params(m, &self_ty, &subst, &s.fields)?;
                Ok((self_ty, fields))
            });
        let (self_ty, fields) = match built {
            Ok(b) => b,
            Err(why) => return self.skip(prefix, &name, why.within("struct literal")),
        };
        let held = borrowed(&fields);
        // A literal needs every field to be visible where it is written.
        let vis = fields
            .iter()
            .fold(syntax::vis(&s.vis), |v, (_, fv)| least_visible(v, *fv));
        self.callables.push(Callable {
            module: m,
            name,
            kind: CallableKind::StructLiteral {
                self_ty: self_ty.clone(),
                tuple: matches!(s.fields, syn::Fields::Unnamed(_)),
            },
            vis,
            params: fields.into_iter().map(|(p, _)| p).collect(),
            ret: self_ty,
            generic_args: Vec::new(),
            generics_inferred: false,
            held,
            unsafe_fn: false,
            collect: None,
        });
    }

    fn variants(&mut self, m: ModuleId, prefix: &[String], id: usize, e: &syn::ItemEnum) {
        let vis = syntax::vis(&e.vis);
        let scope = self.type_scope(id, &e.generics, None);
        for v in &e.variants {
            let name = format!("{}::{}", e.ident, v.ident);
            let built = scope.clone().and_then(|(self_ty, subst)| {
                let fields = self.field_params(m, &self_ty, &subst, &v.fields)?;
                Ok((self_ty, fields))
            });
            let (self_ty, fields) = match built {
                Ok(b) => b,
                Err(why) => {
                    self.skip(prefix, &name, why);
                    continue;
                }
            };
            let held = borrowed(&fields);
            let shape = match v.fields {
                syn::Fields::Unit => VariantShape::Unit,
                syn::Fields::Unnamed(_) => VariantShape::Tuple,
                syn::Fields::Named(_) => VariantShape::Named,
            };
            self.callables.push(Callable {
                module: m,
                name: v.ident.to_string(),
                kind: CallableKind::Variant {
                    self_ty: self_ty.clone(),
                    fields: shape,
                },
                vis,
                params: fields.into_iter().map(|(p, _)| p).collect(),
                ret: self_ty,
                generic_args: Vec::new(),
                generics_inferred: false,
                held,
                unsafe_fn: false,
                collect: None,
            });
        }
    }

    /// `#[derive(Default)]` gives `<Type as Default>::default()`.
    fn derived_default(&mut self, m: ModuleId, prefix: &[String], id: usize, g: &syn::Generics) {
        if !self.defs[id].derives.iter().any(|d| d == "Default") {
            return;
        }
        // The derive requires `T: Default` of every parameter.
        let bound: syn::TypeParamBound = syn::parse_quote!(Default);
        match self.type_scope(id, g, Some(bound)) {
            Ok((self_ty, _)) => self.callables.push(Callable {
                module: m,
                name: "default".into(),
                kind: CallableKind::TraitFn {
                    self_ty: self_ty.clone(),
                    trait_name: "Default".into(),
                },
                vis: self.defs[id].vis,
                params: Vec::new(),
                ret: self_ty,
                generic_args: Vec::new(),
                generics_inferred: false,
                held: Vec::new(),
                unsafe_fn: false,
                collect: None,
            }),
            Err(why) => {
                let name = format!("{}::default", self.defs[id].name);
                self.skip(prefix, &name, why)
            }
        }
    }
}

fn receiver_kind(r: &syn::Receiver) -> Result<Receiver, Why> {
    let is_self = |t: &syn::Type| matches!(t, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self"));
    match &*r.ty {
        syn::Type::Reference(rr) if is_self(&rr.elem) => Ok(if rr.mutability.is_some() {
            Receiver::RefMut
        } else {
            Receiver::Ref
        }),
        t if is_self(t) => Ok(Receiver::Value),
        t => Err(Why::new(
            SkipReason::Receiver,
            format!("receiver `self: {}` is not supported", syntax::text(t)),
        )),
    }
}

/// A trait path as written, with the impl's type parameters replaced by the chosen types
/// (`From<T>` → `From<i64>`).
fn substituted_text(path: &syn::Path, subst: &BTreeMap<String, Ty>) -> String {
    fn walk(ts: TokenStream, subst: &BTreeMap<String, Ty>) -> TokenStream {
        let mut out: Vec<TokenTree> = Vec::new();
        let mut tokens = ts.into_iter().peekable();
        while let Some(tt) = tokens.next() {
            // `&'a str` → `&str`: the impl's lifetimes are not in scope where the name is used.
            let after_amp = matches!(out.last(), Some(TokenTree::Punct(p)) if p.as_char() == '&');
            if matches!(&tt, TokenTree::Punct(p) if p.as_char() == '\'') && after_amp {
                tokens.next();
                continue;
            }
            out.push(match tt {
                TokenTree::Ident(i) => match subst.get(&i.to_string()).and_then(simple_name) {
                    Some(name) => TokenTree::Ident(proc_macro2::Ident::new(name, i.span())),
                    None => TokenTree::Ident(i),
                },
                TokenTree::Group(g) => {
                    let mut ng = proc_macro2::Group::new(g.delimiter(), walk(g.stream(), subst));
                    ng.set_span(g.span());
                    TokenTree::Group(ng)
                }
                other => other,
            });
        }
        out.into_iter().collect()
    }
    syntax::tokens_text(&walk(path.to_token_stream(), subst))
}

/// A literal's or variant's fields that borrow: the value holds them.
fn borrowed(fields: &[(Param, Vis)]) -> Vec<usize> {
    (0..fields.len())
        .filter(|&i| fields[i].0.ty.borrows())
        .collect()
}

/// The arguments (receiver first) whose borrow the result of `sig` keeps: those with a
/// reference whose lifetime the return type names (`text: &'a str` for `-> Parser<'a>`, or for
/// `-> Self` in `impl<'a> Parser<'a>`), and where the return type leaves its lifetimes out
/// (`-> Iter<'_>`, `-> &str`), the one elision gives them: `&self`, or the only argument with
/// a reference. Lifetimes of other types (`&mut Parser<'a>`'s `'a`) are not borrows of the
/// argument itself: the driver's values of such types hold `'static` data. `lifetime_types`:
/// the return type holds a crate type with lifetime parameters. A `'static` reference
/// (`part: &'static str`) is held too: the callee may keep it anywhere.
fn held_args(sig: &Signature, impl_lifetimes: &[String], lifetime_types: bool) -> Vec<usize> {
    let mut held: Vec<usize> = sig
        .inputs
        .iter()
        .enumerate()
        .filter(|(_, input)| {
            let FnArg::Typed(t) = input else {
                return false;
            };
            let mut refs = Vec::new();
            reference_lifetimes(&t.ty, &mut refs, &mut false);
            refs.iter().any(|l| l == "static")
        })
        .map(|(i, _)| i)
        .collect();
    let syn::ReturnType::Type(_, out) = &sig.output else {
        return held;
    };
    let mut named: Vec<String> = Vec::new();
    let mut elided = false;
    lifetimes_in(out.to_token_stream(), &mut named, &mut elided);
    if mentions_ident(out.to_token_stream(), "Self") {
        named.extend(impl_lifetimes.iter().cloned());
    }
    named.retain(|l| l != "static");
    // `-> Token` for `Token<'a>`: a crate type whose lifetimes the return type leaves out;
    // `-> Cow<str>`, the standard library's.
    elided |= named.is_empty() && (lifetime_types || elided_cow(out));
    if named.is_empty() && !elided {
        return held;
    }
    let mut with_refs = Vec::new();
    let mut self_ref = false;
    for (i, input) in sig.inputs.iter().enumerate() {
        match input {
            FnArg::Receiver(r) => {
                let own = r
                    .reference
                    .as_ref()
                    .map(|(_, l)| l.as_ref().map(|l| l.ident.to_string()));
                match own {
                    Some(Some(l)) if named.contains(&l) => held.push(i),
                    Some(_) => self_ref = true,
                    None => {}
                }
            }
            FnArg::Typed(t) => {
                let mut refs = Vec::new();
                let mut anonymous = false;
                reference_lifetimes(&t.ty, &mut refs, &mut anonymous);
                if refs.iter().any(|l| named.contains(l)) {
                    held.push(i);
                }
                if anonymous || !refs.is_empty() {
                    with_refs.push(i);
                }
            }
        }
    }
    if elided {
        if self_ref {
            held.push(0);
        } else if let [only] = with_refs[..] {
            held.push(only);
        }
    }
    held.sort_unstable();
    held.dedup();
    held
}

/// Whether `ty` holds a `Cow` whose lifetime it leaves out (`Cow<str>`).
fn elided_cow(ty: &syn::Type) -> bool {
    struct Cows(bool);
    impl<'ast> syn::visit::Visit<'ast> for Cows {
        fn visit_path_segment(&mut self, s: &'ast syn::PathSegment) {
            if s.ident == "Cow" {
                if let syn::PathArguments::AngleBracketed(a) = &s.arguments {
                    let lifetime =
                        |g: &syn::GenericArgument| matches!(g, syn::GenericArgument::Lifetime(_));
                    self.0 |= !a.args.iter().any(lifetime);
                }
            }
            syn::visit::visit_path_segment(self, s);
        }
    }
    let mut cows = Cows(false);
    syn::visit::Visit::visit_type(&mut cows, ty);
    cows.0
}

/// The lifetimes `tokens` name (`'a` → `a`), and whether one is `'_`.
fn lifetimes_in(tokens: TokenStream, named: &mut Vec<String>, elided: &mut bool) {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    for (i, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Punct(p) if p.as_char() == '\'' => {
                if let Some(TokenTree::Ident(l)) = tokens.get(i + 1) {
                    named.push(l.to_string());
                } else {
                    *elided = true;
                }
            }
            // `&T` without a lifetime.
            TokenTree::Punct(p)
                if p.as_char() == '&'
                    && !matches!(tokens.get(i + 1), Some(TokenTree::Punct(q)) if q.as_char() == '\'') =>
            {
                *elided = true;
            }
            TokenTree::Ident(l) if l == "_" && i > 0 => {
                if matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == '\'') {
                    *elided = true;
                }
            }
            TokenTree::Group(g) => lifetimes_in(g.stream(), named, elided),
            _ => {}
        }
    }
}

/// The lifetimes of the references in `ty` (`&'a str` → `a`); `anonymous` when one has none
/// or `'_`.
fn reference_lifetimes(ty: &syn::Type, out: &mut Vec<String>, anonymous: &mut bool) {
    struct Refs<'o> {
        out: &'o mut Vec<String>,
        anonymous: &'o mut bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Refs<'_> {
        fn visit_type_reference(&mut self, r: &'ast syn::TypeReference) {
            match &r.lifetime {
                Some(l) if l.ident != "_" => self.out.push(l.ident.to_string()),
                _ => *self.anonymous = true,
            }
            syn::visit::visit_type_reference(self, r);
        }
    }
    syn::visit::Visit::visit_type(&mut Refs { out, anonymous }, ty);
}

/// Whether `tokens` hold the identifier `name`.
/// Whether every argument of type `ty` shows the type parameter `name` stands for, so the
/// compiler infers it: not when it appears only inside an `Option` or a collection (`None` and
/// an empty `Vec` show nothing of their item type: `which_in(name, None::<&str>, cwd)`).
fn infers(ty: &syn::Type, name: &str) -> bool {
    match ty {
        syn::Type::Reference(r) => infers(&r.elem, name),
        syn::Type::Paren(p) => infers(&p.elem, name),
        syn::Type::Group(g) => infers(&g.elem, name),
        syn::Type::Tuple(t) => t.elems.iter().any(|e| infers(e, name)),
        syn::Type::Slice(_) | syn::Type::Array(_) => false,
        syn::Type::Path(p) if p.qself.is_none() => {
            if p.path.is_ident(name) {
                return true;
            }
            let Some(last) = p.path.segments.last() else {
                return false;
            };
            let may_be_empty = matches!(
                last.ident.to_string().as_str(),
                "Option" | "Vec" | "VecDeque" | "HashMap" | "BTreeMap" | "HashSet" | "BTreeSet"
            );
            match &last.arguments {
                syn::PathArguments::AngleBracketed(a) if !may_be_empty => a
                    .args
                    .iter()
                    .any(|g| matches!(g, syn::GenericArgument::Type(t) if infers(t, name))),
                _ => false,
            }
        }
        // `impl Fn(T) -> bool`, `dyn Trait<T>`: as written.
        other => mentions_ident(other.to_token_stream(), name),
    }
}

fn mentions_ident(tokens: TokenStream, name: &str) -> bool {
    tokens.into_iter().any(|t| match t {
        TokenTree::Ident(i) => i == name,
        TokenTree::Group(g) => mentions_ident(g.stream(), name),
        _ => false,
    })
}

/// The name of a candidate type chosen for a type parameter.
fn simple_name(t: &Ty) -> Option<&'static str> {
    Some(match t {
        Ty::Int(IntTy::I64) => "i64",
        Ty::Int(IntTy::U8) => "u8",
        Ty::String => "String",
        Ty::Bool => "bool",
        Ty::Float(FloatTy::F64) => "f64",
        Ty::Char => "char",
        _ => return None,
    })
}

/// Whether an impl's self type names one of its type parameters (`impl<T: Sys> Sys for &T`,
/// `impl<F: Fn()> Run for F`).
fn names_impl_param(imp: &syn::ItemImpl) -> bool {
    let params: Vec<String> = imp
        .generics
        .type_params()
        .map(|p| p.ident.to_string())
        .collect();
    imp.self_ty
        .to_token_stream()
        .into_iter()
        .any(|t| matches!(t, TokenTree::Ident(i) if params.contains(&i.to_string())))
}

/// A returned iterator (`Ty::IntoIter`: `impl Iterator<Item = T>`) as the `Vec<T>` the call
/// collects it into, and where; an iterator anywhere else in the result is not supported.
fn collected(ret: Ty) -> Result<(Ty, Option<Collect>), Why> {
    let iter = |t: &Ty| matches!(t, Ty::IntoIter(_));
    match ret {
        Ty::IntoIter(item) => Ok((Ty::Vec(item), Some(Collect::Whole))),
        Ty::Result(ok, err) if !err.mentions(&iter) && matches!(&*ok, Ty::IntoIter(item) if !item.mentions(&iter)) => {
            let Ty::IntoIter(item) = *ok else { unreachable!() };
            Ok((Ty::Result(Box::new(Ty::Vec(item)), err), Some(Collect::Inside)))
        }
        Ty::Option(inner) if matches!(&*inner, Ty::IntoIter(item) if !item.mentions(&iter)) => {
            let Ty::IntoIter(item) = *inner else { unreachable!() };
            Ok((Ty::Option(Box::new(Ty::Vec(item))), Some(Collect::Inside)))
        }
        t if t.mentions(&iter) => Err(Why::new(
            SkipReason::OpaqueReturn,
            "an iterator is collected only as the result, or as a `Result`'s or an `Option`'s value",
        )),
        t => Ok((t, None)),
    }
}
