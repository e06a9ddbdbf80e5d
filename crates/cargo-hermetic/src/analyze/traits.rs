//! The crate's traits, and whether a generated mock can implement each (seed 003's functional
//! mocks): a mock implements every method that has no default body, returning values the test
//! sets up; default methods keep their body.

use super::items::self_type_id;
use super::modules::{qualified, ModuleSrc};
use super::names::{Names, Target};
use super::syntax::{self, text};
use super::types::{mock_has, primitive, Mode, TraitInfo, TyCx, TypeInfo};
use crate::cluster::{FloatTy, IntTy, MockMethod, Receiver, Skipped, TraitDef, Ty, TypeDef};
use crate::skip::{SkipReason, Why};
use std::collections::{BTreeMap, BTreeSet};
use syn::{FnArg, Item, TraitItem, TypeParamBound};

/// Gives every trait an id (module order, then source order) so that names resolve.
pub fn declare(mods: &[ModuleSrc], names: &mut Names, types: &[TypeDef]) -> Vec<TraitInfo> {
    let mut infos = Vec::new();
    for (m, src) in mods.iter().enumerate() {
        for item in &src.items {
            if let Item::Trait(t) = item {
                names.add_trait(m, &t.ident.to_string(), infos.len());
                infos.push(TraitInfo {
                    name: t.ident.to_string(),
                    unmockable: None,
                    primitive_implementor: None,
                    type_implementor: None,
                });
            }
        }
    }
    find_primitive_implementors(mods, names, &mut infos);
    find_type_implementors(mods, names, types, &mut infos);
    infos
}

/// For each trait, the first crate type (module order, then source order of the impls)
/// without type or lifetime parameters that implements it: a value tests can build where a
/// parameter is bounded by a trait no mock can implement (`fn which_in<S: Sys>(sys: S)` with
/// `impl Sys for RealSys`).
fn find_type_implementors(
    mods: &[ModuleSrc],
    names: &Names,
    types: &[TypeDef],
    infos: &mut [TraitInfo],
) {
    for (m, t, imp) in trait_impls(mods, names) {
        if infos[t].type_implementor.is_some() || !imp.generics.params.is_empty() {
            continue;
        }
        let Some(id) = self_type_id(names, m, &imp.self_ty) else {
            continue;
        };
        let def = &types[id];
        if def.generics.is_empty() && def.lifetimes == 0 && def.unsupported_generics.is_none() {
            infos[t].type_implementor = Some(Ty::Adt(id, Vec::new()));
        }
    }
}

/// For each trait the crate implements for primitive types (`impl Amounts for f64`), the one
/// a test's literal names by default (`f64`, then `i32`), else the first: what stands in for a
/// parameter bounded by a trait no mock can implement (a `Copy` supertrait, say).
fn find_primitive_implementors(mods: &[ModuleSrc], names: &Names, infos: &mut [TraitInfo]) {
    let mut found: Vec<Vec<Ty>> = vec![Vec::new(); infos.len()];
    for (_, t, imp) in trait_impls(mods, names) {
        let syn::Type::Path(p) = &*imp.self_ty else {
            continue;
        };
        if let Some(ty) = p.path.get_ident().and_then(|i| primitive(&i.to_string())) {
            found[t].push(ty);
        }
    }
    let default = [Ty::Float(FloatTy::F64), Ty::Int(IntTy::I32)];
    for (info, tys) in infos.iter_mut().zip(found) {
        info.primitive_implementor = default
            .iter()
            .find(|d| tys.contains(d))
            .or(tys.first())
            .cloned();
    }
}

/// Maps every trait's methods. Traits no mock can implement get their reason in `traits`
/// (parameters typed by them are skipped with it); all traits are returned, in id order.
pub fn collect(
    mods: &[ModuleSrc],
    names: &Names,
    types: &[TypeInfo],
    defs: &[TypeDef],
    traits: &mut [TraitInfo],
) -> Vec<TraitDef> {
    let mut out = Vec::new();
    let mut direct_supers = Vec::new();
    for (m, src) in mods.iter().enumerate() {
        for item in &src.items {
            let Item::Trait(t) = item else {
                continue;
            };
            let id = out.len();
            let mut def = TraitDef {
                name: t.ident.to_string(),
                module: m,
                vis: syntax::vis(&t.vis),
                mock_name: String::new(),
                supertraits: Vec::new(),
                markers: Vec::new(),
                methods: Vec::new(),
                implementors: Vec::new(),
            };
            let mut supers = Vec::new();
            let result = {
                let cx = TyCx {
                    names,
                    infos: types,
                    traits,
                    module: m,
                    self_ty: None,
                    subst: &BTreeMap::new(),
                    expanding: &[],
                };
                check_header(t)
                    .and_then(|()| supertraits(&cx, t, &mut supers, &mut def.markers))
                    .and_then(|()| methods(&cx, t, defs))
            };
            match result {
                Ok(methods) => def.methods = methods,
                Err(why) => traits[id].unmockable = Some(why),
            }
            direct_supers.push(supers);
            out.push(def);
        }
    }
    // A trait whose supertrait cannot be mocked cannot be either; supertraits are listed
    // transitively, each once.
    for id in 0..out.len() {
        let mut all = BTreeSet::new();
        let mut stack = direct_supers[id].clone();
        while let Some(s) = stack.pop() {
            if s != id && all.insert(s) {
                stack.extend(direct_supers[s].iter().copied());
            }
        }
        if let Some(bad) = all.iter().find(|&&s| traits[s].unmockable.is_some()) {
            let why = format!("its supertrait `{}` cannot be mocked", traits[*bad].name);
            traits[id].unmockable.get_or_insert(why);
        }
        let mut markers = out[id].markers.clone();
        for &s in &all {
            markers.extend(out[s].markers.iter().cloned());
        }
        markers.sort();
        markers.dedup();
        out[id].markers = markers;
        out[id].supertraits = all.into_iter().collect();
    }
    name_mocks(&mut out);
    find_implementors(mods, names, defs, &mut out);
    out
}

/// `impl Trait for Type` items of the crate, for types tests can name without parameters.
fn find_implementors(mods: &[ModuleSrc], names: &Names, defs: &[TypeDef], traits: &mut [TraitDef]) {
    for (m, t, imp) in trait_impls(mods, names) {
        let Some(ty) = self_type_id(names, m, &imp.self_ty) else {
            continue;
        };
        if defs[ty].generics.is_empty() && !traits[t].implementors.contains(&ty) {
            traits[t].implementors.push(ty);
        }
    }
}

/// The crate's `impl Trait for Type` items of its own traits (not negative impls), with the
/// module each is in and the trait's id.
fn trait_impls<'a>(
    mods: &'a [ModuleSrc],
    names: &'a Names,
) -> impl Iterator<Item = (usize, usize, &'a syn::ItemImpl)> + 'a {
    mods.iter().enumerate().flat_map(move |(m, src)| {
        src.items.iter().filter_map(move |item| {
            let Item::Impl(imp) = item else {
                return None;
            };
            let Some((None, path, _)) = &imp.trait_ else {
                return None;
            };
            let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            match names.resolve(m, &segs) {
                Target::Trait(t) => Some((m, t, imp)),
                _ => None,
            }
        })
    })
}

/// Reports the traits no mock can implement (only those a callable needed are interesting,
/// but a trait's reason is short and tells users why their functions were skipped).
pub fn skipped(mods: &[ModuleSrc], defs: &[TraitDef], infos: &[TraitInfo]) -> Vec<Skipped> {
    defs.iter()
        .zip(infos)
        .filter_map(|(d, i)| {
            let why = i.unmockable.as_ref()?;
            Some(
                Why::new(
                    SkipReason::TraitNotMockable,
                    format!("trait cannot be mocked: {why}"),
                )
                .skipped(qualified(&mods[d.module].module.path, &d.name)),
            )
        })
        .collect()
}

fn check_header(t: &syn::ItemTrait) -> Result<(), String> {
    if t.unsafety.is_some() {
        return Err("unsafe trait".into());
    }
    if t.auto_token.is_some() {
        return Err("auto trait".into());
    }
    if !t.generics.params.is_empty() {
        return Err("generic traits are not supported".into());
    }
    Ok(())
}

/// The crate supertraits of `t` into `out`, and the std ones every mock has (`mock_has`), by
/// last path segment, into `markers`.
fn supertraits(
    cx: &TyCx,
    t: &syn::ItemTrait,
    out: &mut Vec<usize>,
    markers: &mut Vec<String>,
) -> Result<(), String> {
    for b in &t.supertraits {
        let TypeParamBound::Trait(tb) = b else {
            continue;
        };
        let segs: Vec<String> = tb
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        match cx.names.resolve(cx.module, &segs) {
            Target::Trait(id) => out.push(id),
            _ if mock_has(&segs) => markers.extend(segs.last().cloned()),
            _ => return Err(format!("supertrait `{}`", text(&tb.path))),
        }
    }
    Ok(())
}

fn methods(cx: &TyCx, t: &syn::ItemTrait, defs: &[TypeDef]) -> Result<Vec<MockMethod>, String> {
    let mut out = Vec::new();
    for item in &t.items {
        match item {
            TraitItem::Fn(f) if f.default.is_some() => {}
            TraitItem::Fn(f) => out.push(
                method(cx, &f.sig, defs).map_err(|e| format!("method `{}`: {e}", f.sig.ident))?,
            ),
            TraitItem::Const(c) if c.default.is_some() => {}
            TraitItem::Const(c) => return Err(format!("associated constant `{}`", c.ident)),
            TraitItem::Type(ty) => return Err(format!("associated type `{}`", ty.ident)),
            TraitItem::Macro(_) => return Err("macro in the trait body".into()),
            _ => return Err("unsupported item in the trait body".into()),
        }
    }
    Ok(out)
}

fn method(cx: &TyCx, sig: &syn::Signature, defs: &[TypeDef]) -> Result<MockMethod, String> {
    if sig.generics.type_params().next().is_some() || sig.generics.const_params().next().is_some() {
        return Err("generic methods cannot be mocked".into());
    }
    if sig.asyncness.is_some() || sig.unsafety.is_some() {
        return Err("async or unsafe method".into());
    }
    let mut receiver = None;
    let mut params = Vec::new();
    let mut param_names = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(r) if r.colon_token.is_none() => {
                receiver = Some(match (&r.reference, &r.mutability) {
                    (Some(_), Some(_)) => Receiver::RefMut,
                    (Some(_), None) => Receiver::Ref,
                    (None, _) => Receiver::Value,
                })
            }
            FnArg::Receiver(r) => {
                return Err(format!("receiver `self: {}`", text(&r.ty)));
            }
            FnArg::Typed(p) => {
                let ty = cx
                    .map(&p.ty, Mode::Arg)
                    .and_then(super::types::not_kept)
                    .map_err(|e| e.detail)?;
                // A std stand-in (`&mut dyn Write` as `&mut Vec<u8>`) would change the signature.
                let written = text(&p.ty);
                let names_trait = written.contains("dyn ") || written.contains("impl ");
                if names_trait && !ty.mentions(&|t| matches!(t, Ty::Mock(_))) {
                    return Err(format!("parameter type `{written}`"));
                }
                // The mock repeats the trait's signature, where a trait object is written
                // `dyn Trait` (see `mock_syntax`); `impl Trait` cannot be repeated that way.
                if !trait_objects_behind_pointers(&ty) {
                    return Err(format!("parameter type `{}`", text(&p.ty)));
                }
                params.push(ty);
                param_names.push(match &*p.pat {
                    syn::Pat::Ident(i) => i.ident.to_string(),
                    _ => format!("arg{}", param_names.len()),
                });
            }
        }
    }
    let receiver = receiver.ok_or("no `self` receiver")?;
    let ret = match &sig.output {
        syn::ReturnType::Default => Ty::Unit,
        syn::ReturnType::Type(_, t) => cx
            .map(t, Mode::Owned)
            .map_err(|e| format!("return type: {e}"))?,
    };
    // A returned `Box<dyn Trait>` is another mock the test builds (a tree of mocks, as for a
    // connection that hands out statements); elsewhere a mock would need a conversion.
    let boxed_mock = matches!(&ret, Ty::Box(inner) if matches!(**inner, Ty::Mock(_)));
    if !boxed_mock && ret.mentions(&|t| matches!(t, Ty::Mock(_))) {
        return Err(format!("return type `{}`", text(&sig.output)));
    }
    Ok(MockMethod {
        name: sig.ident.to_string(),
        receiver,
        params,
        param_names,
        repeats: is_clone(&ret, defs),
        ret,
    })
}

/// Whether every mock in `t` stands for a trait object behind `&`, `&mut` or `Box`.
fn trait_objects_behind_pointers(t: &Ty) -> bool {
    match t {
        Ty::Mock(_) => false,
        Ty::Ref(inner) | Ty::RefMut(inner) | Ty::Box(inner) if matches!(**inner, Ty::Mock(_)) => {
            true
        }
        Ty::Vec(e) | Ty::Slice(e) | Ty::Array(e, _) | Ty::Option(e) | Ty::Box(e) => {
            trait_objects_behind_pointers(e)
        }
        Ty::Ref(e) | Ty::RefMut(e) => trait_objects_behind_pointers(e),
        Ty::Result(a, b) => trait_objects_behind_pointers(a) && trait_objects_behind_pointers(b),
        Ty::Tuple(items) | Ty::Adt(_, items) => items.iter().all(trait_objects_behind_pointers),
        _ => true,
    }
}

/// Whether values of `t` can be cloned (so a mock can give the last one again).
fn is_clone(t: &Ty, defs: &[TypeDef]) -> bool {
    !t.mentions(&|t| match t {
        Ty::IoError | Ty::Mock(_) => true,
        Ty::Adt(id, _) => !defs[*id]
            .derives
            .iter()
            .chain(&defs[*id].impls)
            .any(|d| d == "Clone"),
        _ => false,
    })
}

/// `MockLedger` for `Ledger`; a second trait of the same name elsewhere gets its module's name.
fn name_mocks(defs: &mut [TraitDef]) {
    let mut taken: BTreeMap<String, usize> = BTreeMap::new();
    for (i, d) in defs.iter_mut().enumerate() {
        let mut name = format!("Mock{}", d.name);
        if taken.contains_key(&name) {
            name = format!("Mock{}{}", d.name, i);
        }
        taken.insert(name.clone(), i);
        d.mock_name = name;
    }
}
