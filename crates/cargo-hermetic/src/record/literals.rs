//! Values of crate types whose `Debug` is hand-written (and so cannot be read back) captured as
//! literals instead: the probed copy gets an `impl hermetic::record::Capture` for each such
//! type, which writes `Name { field: value, .. }` field by field, each field captured as a
//! probe captures any value (`ViaCapture`, `ViaDebug`, opaque). Probes pick it before `Debug`
//! through autoref specialisation, so the text reads back like a derived `Debug`'s, and tests
//! build the value by its literal (they live in the crate, so private fields can be named).
//!
//! An impl is written from the type's item in the copy, so `#[cfg]`'d variants keep their
//! attributes; one the compiler rejects is left out (`Limits::no_capture`) and the type's
//! values stay unreadable, with that reason.

use crate::analyze::shown_by_display;
use crate::cluster::{Cluster, TypeDef, TypeId};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeMap;
use syn::ext::IdentExt;

/// Marks a `Capture` impl the copy adds (`#[cfg_attr(any(), doc = "__hermetic_capture N")]`),
/// so a compiler error below it is traced to type `N`.
pub const CAPTURE_MARKER: &str = "__hermetic_capture ";

/// Which crate types with a hand-written `Debug` the probes write as literals, and why the
/// others are not.
#[derive(Debug, Default, Clone)]
pub struct Literals {
    pub captured: std::collections::BTreeSet<TypeId>,
    pub refused: BTreeMap<TypeId, String>,
}

impl Literals {
    /// Why values of type `id` (hand-written `Debug`) cannot be read back.
    pub fn why_unreadable(&self, def: &TypeDef, id: TypeId) -> String {
        match self.refused.get(&id) {
            Some(why) => format!(
                "`{}` has a hand-written Debug and cannot be captured field by field: {why}",
                def.name
            ),
            None => format!("`{}` has a hand-written Debug", def.name),
        }
    }
}

/// Whether crate type `id` gets a `Capture` impl: its `Debug` is hand-written, it is not
/// rebuilt from its `Display` text, it has no type parameters, and analysis knows every
/// field's type (the engine reads the fields back by their types).
pub fn wanted(cluster: &Cluster, id: TypeId) -> Result<(), String> {
    let def = &cluster.types[id];
    if !def.impls.iter().any(|i| i == "Debug") || shown_by_display(def) {
        return Err("its Debug is derived, or it is rebuilt from its Display text".into());
    }
    if !def.generics.is_empty() || def.lifetimes > 0 || def.unsupported_generics.is_some() {
        return Err("it has type or lifetime parameters".into());
    }
    let fields = match &def.kind {
        crate::cluster::TypeKind::Struct(f) => f.all().to_vec(),
        crate::cluster::TypeKind::Enum(vs) => {
            vs.iter().flat_map(|v| v.fields.all().to_vec()).collect()
        }
    };
    match fields.iter().find(|f| f.ty.is_none()) {
        Some(f) => Err(format!(
            "its field `{}` has a type hermetic does not support",
            f.name
        )),
        None => Ok(()),
    }
}

/// The `Capture` impl for crate type `id`, whose item in the copy is `item`; `Err` when the
/// item's shape keeps it from having one (a field compiled conditionally).
pub fn impl_item(id: TypeId, item: &syn::Item) -> Result<syn::Item, String> {
    let (name, body) = match item {
        syn::Item::Struct(s) => (&s.ident, struct_body(s)?),
        syn::Item::Enum(e) => (&e.ident, enum_body(e)?),
        _ => return Err("not a struct or an enum".into()),
    };
    let marker = format!("{CAPTURE_MARKER}{id}");
    let tokens = quote! {
        #[cfg_attr(any(), doc = #marker)]
        #[automatically_derived]
        impl ::hermetic::record::Capture for #name {
            fn literal(&self) -> ::std::option::Option<::std::string::String> {
                #[allow(unused_imports)]
                use ::hermetic::record::{ViaCapture as _, ViaDebug as _, ViaOpaque as _};
                #body
            }
        }
    };
    syn::parse2(tokens).map_err(|e| format!("its Capture impl does not parse: {e}"))
}

/// `Name { a: .., b: .. }` of `self`'s fields.
fn struct_body(s: &syn::ItemStruct) -> Result<TokenStream, String> {
    let name = s.ident.to_string();
    let (pattern, build) = fields(&s.fields, &name)?;
    Ok(quote! {
        let Self #pattern = self;
        #build
    })
}

/// A `match` with an arm per variant (its `#[cfg]`s kept), each writing `Variant(..)`.
fn enum_body(e: &syn::ItemEnum) -> Result<TokenStream, String> {
    let mut arms = Vec::new();
    for v in &e.variants {
        let ident = &v.ident;
        let cfgs = v.attrs.iter().filter(|a| a.path().is_ident("cfg"));
        let (pattern, build) = fields(&v.fields, &ident.to_string())?;
        arms.push(quote!(#(#cfgs)* Self::#ident #pattern => { #build }));
    }
    // An empty enum is matched by value: `&Never` is not an empty type.
    if arms.is_empty() {
        return Ok(quote!(match *self {}));
    }
    Ok(quote!(match self { #(#arms)* }))
}

/// The pattern binding a struct's or variant's fields (`{ a: __hermetic_f0, .. }`) and the
/// statements writing its literal from them.
fn fields(fields: &syn::Fields, name: &str) -> Result<(TokenStream, TokenStream), String> {
    if fields
        .iter()
        .any(|f| f.attrs.iter().any(|a| a.path().is_ident("cfg")))
    {
        return Err("a field is compiled conditionally".into());
    }
    let bound: Vec<_> = (0..fields.len())
        .map(|i| format_ident!("__hermetic_f{i}"))
        .collect();
    let captures = quote! {
        let mut __hermetic_w = ::hermetic::record::Writer::default();
        #((&&&::hermetic::record::Wrap(#bound)).capture(&mut __hermetic_w);)*
    };
    Ok(match fields {
        syn::Fields::Unit => (
            quote!(),
            quote!(::std::option::Option::Some(#name.to_string())),
        ),
        syn::Fields::Unnamed(_) => (
            quote!((#(#bound),*)),
            quote!(#captures __hermetic_w.tuple_literal(#name)),
        ),
        syn::Fields::Named(named) => {
            let idents: Vec<_> = named.named.iter().filter_map(|f| f.ident.clone()).collect();
            let names: Vec<String> = idents.iter().map(|i| i.unraw().to_string()).collect();
            (
                quote!({ #(#idents: #bound),* }),
                quote!(#captures __hermetic_w.named_literal(#name, &[#(#names),*])),
            )
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn printed(item: &str) -> String {
        let item: syn::Item = syn::parse_str(item).unwrap();
        let file = syn::File {
            shebang: None,
            attrs: vec![],
            items: vec![impl_item(4, &item).unwrap()],
        };
        prettyplease::unparse(&file)
    }

    #[test]
    fn a_struct_is_written_field_by_field() {
        let text = printed("struct Hasher { amount: u64, r#type: Option<State> }");
        for expected in [
            "doc = \"__hermetic_capture 4\"",
            "impl ::hermetic::record::Capture for Hasher",
            "let Self { amount: __hermetic_f0, r#type: __hermetic_f1 } = self;",
            "(&&&::hermetic::record::Wrap(__hermetic_f1)).capture(&mut __hermetic_w);",
            "__hermetic_w.named_literal(\"Hasher\", &[\"amount\", \"type\"])",
        ] {
            assert!(text.contains(expected), "no {expected} in\n{text}");
        }
    }

    #[test]
    fn an_enum_keeps_its_variants_cfgs() {
        let text = printed("enum Kind { Sse, #[cfg(wide)] Avx(u8, u16), Empty {} }");
        for expected in [
            "Self::Sse => ::std::option::Option::Some(\"Sse\".to_string()),",
            "#[cfg(wide)]\n            Self::Avx(__hermetic_f0, __hermetic_f1) => {",
            "__hermetic_w.tuple_literal(\"Avx\")",
            "Self::Empty {} => {",
        ] {
            assert!(text.contains(expected), "no {expected} in\n{text}");
        }
        let empty = printed("enum Never {}");
        assert!(empty.contains("match *self {}"), "{empty}");
    }

    #[test]
    fn a_conditional_field_keeps_the_type_out() {
        let item: syn::Item = syn::parse_str("struct S { #[cfg(x)] a: u8 }").unwrap();
        assert_eq!(
            impl_item(0, &item).unwrap_err(),
            "a field is compiled conditionally"
        );
    }
}
