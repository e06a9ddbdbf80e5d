//! The crate's types: structs and enums with their fields, derives and hand-written trait impls.

use super::modules::{qualified, ModuleSrc};
use super::names::{Names, Target};
use super::syntax;
use super::types::{Mode, TyCx, TypeInfo};
use crate::cluster::{Field, Fields, Skipped, Ty, TypeDef, TypeKind, Variant, Vis};
use crate::skip::{SkipReason, Why};
use std::collections::BTreeMap;
use syn::Item;

/// Declares every struct and enum (in module order, then source order) so that names resolve,
/// then fills in fields and trait impls.
pub fn collect(
    mods: &[ModuleSrc],
    names: &mut Names,
    skipped: &mut Vec<Skipped>,
) -> (Vec<TypeDef>, Vec<TypeInfo>) {
    let mut defs = Vec::new();
    let mut infos = Vec::new();
    for (m, src) in mods.iter().enumerate() {
        for item in &src.items {
            let (ident, vis, generics, attrs) = match item {
                Item::Struct(s) => (&s.ident, &s.vis, &s.generics, &s.attrs),
                Item::Enum(e) => (&e.ident, &e.vis, &e.generics, &e.attrs),
                Item::Union(u) => {
                    skipped.push(
                        Why::new(SkipReason::Union, "unions are not supported")
                            .skipped(qualified(&src.module.path, &u.ident.to_string())),
                    );
                    continue;
                }
                _ => continue,
            };
            let name = ident.to_string();
            names.add_type(m, &name, defs.len());
            let lifetimes = generics.lifetimes().count();
            let unsupported_generics = if generics.const_params().next().is_some() {
                Some("const generic parameters, which are not supported".to_string())
            } else {
                None
            };
            let type_params: Vec<String> = generics
                .type_params()
                .map(|p| p.ident.to_string())
                .collect();
            infos.push(TypeInfo {
                name: name.clone(),
                generics: type_params.clone(),
                unsupported_generics: unsupported_generics.clone(),
            });
            defs.push(TypeDef {
                name,
                module: m,
                vis: syntax::vis(vis),
                generics: type_params,
                bounds: syntax::bounds(generics),
                unsupported_generics,
                lifetimes,
                derives: syntax::derives(attrs),
                impls: Vec::new(),
                kind: TypeKind::Struct(Fields::Unit),
            });
        }
    }
    fill(mods, names, &infos, &mut defs);
    (defs, infos)
}

/// Fields (in the type's own scope) and hand-written trait impls (from any module).
fn fill(mods: &[ModuleSrc], names: &Names, infos: &[TypeInfo], defs: &mut [TypeDef]) {
    let mut next = 0;
    let no_subst = BTreeMap::new();
    for (m, src) in mods.iter().enumerate() {
        for item in &src.items {
            if !matches!(item, Item::Struct(_) | Item::Enum(_)) {
                continue;
            }
            let id = next;
            next += 1;
            // Fields that mention type parameters have no single `Ty`: they stay `None`.
            let self_ty = Ty::Adt(id, Vec::new());
            let cx = TyCx {
                names,
                infos,
                traits: &[],
                module: m,
                self_ty: infos[id].generics.is_empty().then_some(&self_ty),
                subst: &no_subst,
                expanding: &[],
            };
            if let Item::Struct(s) = item {
                defs[id].kind = TypeKind::Struct(fields(&cx, &s.fields, false));
            } else if let Item::Enum(e) = item {
                let variants = e.variants.iter().map(|v| Variant {
                    name: v.ident.to_string(),
                    fields: fields(&cx, &v.fields, true),
                });
                defs[id].kind = TypeKind::Enum(variants.collect());
            }
        }
    }
    for (m, src) in mods.iter().enumerate() {
        for item in &src.items {
            let Item::Impl(imp) = item else {
                continue;
            };
            let (Some((None, path, _)), Some(id)) =
                (&imp.trait_, self_type_id(names, m, &imp.self_ty))
            else {
                continue;
            };
            if let Some(last) = path.segments.last() {
                let name = last.ident.to_string();
                if !defs[id].impls.contains(&name) {
                    defs[id].impls.push(name);
                }
            }
        }
    }
}

/// The crate type an impl is for (`impl X`, `impl<T> a::Wrapper<T>`), if it is one.
pub fn self_type_id(names: &Names, module: usize, ty: &syn::Type) -> Option<usize> {
    let syn::Type::Path(p) = ty else {
        return None;
    };
    match names.resolve(module, &super::syntax::segments(&p.path)) {
        Target::Type(id) => Some(id),
        _ => None,
    }
}

fn fields(cx: &TyCx, fields: &syn::Fields, in_variant: bool) -> Fields {
    let field = |i: usize, f: &syn::Field| Field {
        name: f
            .ident
            .as_ref()
            .map_or_else(|| i.to_string(), |id| id.to_string()),
        ty: cx
            .map(&f.ty, Mode::Arg)
            .and_then(super::types::not_kept)
            .ok(),
        vis: if in_variant {
            Vis::Pub
        } else {
            syntax::vis(&f.vis)
        },
    };
    match fields {
        syn::Fields::Unit => Fields::Unit,
        syn::Fields::Unnamed(u) => Fields::Tuple(
            u.unnamed
                .iter()
                .enumerate()
                .map(|(i, f)| field(i, f))
                .collect(),
        ),
        syn::Fields::Named(n) => Fields::Named(
            n.named
                .iter()
                .enumerate()
                .map(|(i, f)| field(i, f))
                .collect(),
        ),
    }
}
