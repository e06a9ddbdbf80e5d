//! Probes: each selected function of the shadow copy becomes a wrapper that reports the call to
//! the runtime's record mode (`hermetic::record`) around the original body, moved unchanged to
//! a sibling function.
//!
//! A wrapper rather than a guard inside the body: the body keeps its own `return`s, `?`s and
//! lifetimes, and the wrapper sees the returned value without knowing how the body ends.

use crate::cluster::{CallableId, CallableKind, Cluster, ModuleBody, Ty};
use anyhow::{Context, Result};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use syn::{FnArg, ImplItem, Item, ReturnType, Signature};

/// What probing did to the copy.
#[derive(Debug, Default)]
pub struct Probed {
    /// Callables that got a probe.
    pub probed: Vec<CallableId>,
    /// Selected callables left without a probe, with the reason.
    pub unprobed: Vec<(CallableId, String)>,
    /// Functions analysis skipped that still got a probe, so their calls are counted (and
    /// reported as skipped with analysis's reason): site `callables.len() + i` is `extras[i]`,
    /// as (item, reason).
    pub extras: Vec<(String, String)>,
}

/// Inserts probes into the copy at `shadow_root` for the `selected` callables, and for the
/// functions analysis skipped that are in `skipped` (item → reason). Module files are found by
/// their path relative to `crate_dir` (the original the cluster was made from).
pub fn insert(
    cluster: &Cluster,
    selected: &[CallableId],
    skipped: &HashMap<String, String>,
    crate_dir: &Path,
    shadow_root: &Path,
) -> Result<Probed> {
    let mut wanted: HashMap<(usize, Option<String>, String), CallableId> = HashMap::new();
    for &c in selected {
        let callable = &cluster.callables[c];
        let owner = match &callable.kind {
            CallableKind::Function => None,
            CallableKind::AssocFn { self_ty } | CallableKind::Method { self_ty, .. } => {
                match self_ty {
                    Ty::Adt(id, _) => Some(cluster.types[*id].name.clone()),
                    _ => continue,
                }
            }
            _ => continue,
        };
        // Analysis may list a trait-typed function twice (with a mock, and with the crate's
        // implementor in the trait's place): the probe reports the one with the real signature.
        let mocked = |id: CallableId| {
            cluster.callables[id]
                .params
                .iter()
                .any(|p| p.ty.mentions(&|t| matches!(t, Ty::Mock(_))))
        };
        wanted
            .entry((callable.module, owner, callable.name.clone()))
            .and_modify(|e| {
                if mocked(c) && !mocked(*e) {
                    *e = c;
                }
            })
            .or_insert(c);
    }
    let modules: HashMap<&[String], usize> = cluster
        .modules
        .iter()
        .enumerate()
        .map(|(i, m)| (m.path.as_slice(), i))
        .collect();
    let mut probed = Probed::default();
    let mut files: BTreeMap<&Path, usize> = BTreeMap::new();
    for (i, m) in cluster.modules.iter().enumerate() {
        if m.body == ModuleBody::File {
            files.insert(&m.file, i);
        }
    }
    for (file, m) in files {
        let rel = file.strip_prefix(crate_dir).unwrap_or(file);
        let path = shadow_root.join(rel);
        let text =
            std::fs::read_to_string(&path).with_context(|| format!("read {}", path.display()))?;
        let mut ast: syn::File =
            syn::parse_file(&text).with_context(|| format!("parse {}", path.display()))?;
        let mut cx = Walk {
            wanted: &wanted,
            skipped,
            first_extra: cluster.callables.len(),
            modules: &modules,
            out: &mut probed,
            changed: false,
        };
        cx.items(&cluster.modules[m].path, &mut ast.items);
        if m == 0 {
            // The probes name `::hermetic`, which edition 2015 resolves at the crate root only
            // through an `extern crate` item (harmless in later editions).
            ast.items.insert(
                0,
                syn::parse_quote!(
                    #[allow(unused_extern_crates)]
                    extern crate hermetic;
                ),
            );
            cx.changed = true;
        }
        if cx.changed {
            std::fs::write(&path, prettyplease::unparse(&ast))
                .with_context(|| format!("write {}", path.display()))?;
        }
    }
    let probing: std::collections::HashSet<CallableId> = wanted.values().copied().collect();
    for &c in selected {
        // A twin of a probed function is reported through it.
        if !probing.contains(&c) {
            continue;
        }
        if matches!(
            cluster.callables[c].kind,
            CallableKind::Function | CallableKind::AssocFn { .. } | CallableKind::Method { .. }
        ) && !probed.probed.contains(&c)
            && !probed.unprobed.iter().any(|(u, _)| *u == c)
        {
            probed
                .unprobed
                .push((c, "its definition was not found in the source".into()));
        }
    }
    probed.probed.sort_unstable();
    Ok(probed)
}

struct Walk<'a> {
    wanted: &'a HashMap<(usize, Option<String>, String), CallableId>,
    skipped: &'a HashMap<String, String>,
    first_extra: usize,
    modules: &'a HashMap<&'a [String], usize>,
    out: &'a mut Probed,
    changed: bool,
}

impl Walk<'_> {
    /// The probe's site id for a function: its callable, or a new extra for a skipped one.
    fn site(&mut self, path: &[String], key: &(usize, Option<String>, String)) -> Option<usize> {
        if let Some(&c) = self.wanted.get(key) {
            return Some(c);
        }
        let mut item: Vec<&str> = path.iter().map(String::as_str).collect();
        item.extend(key.1.as_deref());
        item.push(&key.2);
        let item = item.join("::");
        let reason = self.skipped.get(&item)?;
        self.out.extras.push((item, reason.clone()));
        Some(self.first_extra + self.out.extras.len() - 1)
    }

    fn unprobed(&mut self, c: usize, why: String) {
        if c < self.first_extra {
            self.out.unprobed.push((c, why));
        }
    }

    fn items(&mut self, path: &[String], items: &mut Vec<Item>) {
        let Some(&module) = self.modules.get(path) else {
            return;
        };
        let mut added = Vec::new();
        for (at, item) in items.iter_mut().enumerate() {
            match item {
                Item::Fn(f) => {
                    let key = (module, None, f.sig.ident.to_string());
                    let Some(c) = self.site(path, &key) else {
                        continue;
                    };
                    match probe(c, &f.sig, &f.attrs, None) {
                        Ok((wrapper, inner_name)) => {
                            let mut inner = f.clone();
                            inner.sig.ident = inner_name;
                            inner.vis = syn::Visibility::Inherited;
                            inner.attrs = inner_attrs(&f.attrs);
                            *f.block = wrapper;
                            added.push((at + 1, Item::Fn(inner)));
                            if c < self.first_extra {
                                self.out.probed.push(c);
                            }
                            self.changed = true;
                        }
                        Err(why) => self.unprobed(c, why),
                    }
                }
                Item::Impl(imp) if imp.trait_.is_none() => {
                    let syn::Type::Path(tp) = &*imp.self_ty else {
                        continue;
                    };
                    let Some(owner) = tp.path.segments.last().map(|s| s.ident.to_string()) else {
                        continue;
                    };
                    let mut inner_fns = Vec::new();
                    for ii in imp.items.iter_mut() {
                        let ImplItem::Fn(f) = ii else { continue };
                        let key = (module, Some(owner.clone()), f.sig.ident.to_string());
                        let Some(c) = self.site(path, &key) else {
                            continue;
                        };
                        match probe(c, &f.sig, &f.attrs, Some(())) {
                            Ok((wrapper, inner_name)) => {
                                let mut inner = f.clone();
                                inner.sig.ident = inner_name;
                                inner.vis = syn::Visibility::Inherited;
                                inner.attrs = inner_attrs(&f.attrs);
                                f.block = wrapper;
                                inner_fns.push(ImplItem::Fn(inner));
                                if c < self.first_extra {
                                    self.out.probed.push(c);
                                }
                                self.changed = true;
                            }
                            Err(why) => self.unprobed(c, why),
                        }
                    }
                    imp.items.extend(inner_fns);
                }
                Item::Mod(m) if !is_cfg_test(&m.attrs) => {
                    if let Some((_, inner)) = &mut m.content {
                        let mut p = path.to_vec();
                        p.push(m.ident.to_string());
                        self.items(&p, inner);
                    }
                }
                _ => {}
            }
        }
        for (at, item) in added.into_iter().rev() {
            items.insert(at, item);
        }
    }
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && a.meta.to_token_stream_string().replace(' ', "") == "cfg(test)"
    })
}

trait MetaText {
    fn to_token_stream_string(&self) -> String;
}

impl MetaText for syn::Meta {
    fn to_token_stream_string(&self) -> String {
        quote!(#self).to_string()
    }
}

/// The moved body keeps the conditions it was compiled under, nothing else.
fn inner_attrs(attrs: &[syn::Attribute]) -> Vec<syn::Attribute> {
    let mut out: Vec<syn::Attribute> = attrs
        .iter()
        .filter(|a| a.path().is_ident("cfg") || a.path().is_ident("allow"))
        .cloned()
        .collect();
    out.push(syn::parse_quote!(#[allow(clippy::all, unused_mut, unused_variables)]));
    out.push(syn::parse_quote!(#[inline]));
    out
}

/// The wrapper's body for callable `c` with signature `sig`, and the name of the sibling that
/// keeps the original body. `method`: inside an `impl` block (the sibling is `Self::name`).
fn probe(
    c: CallableId,
    sig: &Signature,
    attrs: &[syn::Attribute],
    method: Option<()>,
) -> std::result::Result<(syn::Block, syn::Ident), String> {
    if sig.asyncness.is_some() {
        return Err("async functions are not probed yet".into());
    }
    if sig.constness.is_some() {
        return Err("const functions are not probed".into());
    }
    if sig.variadic.is_some() {
        return Err("variadic functions are not probed".into());
    }
    if attrs.iter().any(|a| a.path().is_ident("test")) {
        return Err("a test".into());
    }
    if let ReturnType::Type(_, t) = &sig.output {
        if quote!(#t).to_string().contains("impl ") {
            return Err("returns `impl Trait`".into());
        }
    }
    let inner = format_ident!("__hermetic_recorded_{}", sig.ident);
    let mut captures = Vec::new();
    let mut pass = Vec::new();
    for (i, arg) in sig.inputs.iter().enumerate() {
        match arg {
            FnArg::Receiver(_) => {
                captures.push(capture(quote!(self)));
                pass.push(quote!(self));
            }
            FnArg::Typed(pt) => {
                let name = match &*pt.pat {
                    syn::Pat::Ident(id) if id.subpat.is_none() => id.ident.clone(),
                    _ => return Err("a parameter is a pattern".into()),
                };
                let _ = i;
                captures.push(capture(quote!(#name)));
                pass.push(quote!(#name));
            }
        }
    }
    let id = proc_macro2::Literal::u32_unsuffixed(c as u32);
    let callee = match method {
        Some(()) => quote!(Self::#inner),
        None => quote!(#inner),
    };
    // The wrapper of an `unsafe fn` is itself `unsafe`: its callers uphold the contract.
    let call = match sig.unsafety {
        Some(_) => quote!(unsafe { #callee(#(#pass),*) }),
        None => quote!(#callee(#(#pass),*)),
    };
    let w = syn::Ident::new("__hermetic_w", Span::call_site());
    // The result's type is written out: the capture below needs it known, and a generic
    // parameter that only the return type mentions would otherwise be inferred too late.
    let ret = match &sig.output {
        ReturnType::Default => quote!(()),
        ReturnType::Type(_, t) => quote!(#t),
    };
    let body: TokenStream = quote!({
        static __HERMETIC_SITE: ::hermetic::record::Site = ::hermetic::record::Site::new(#id);
        #[allow(unused_imports)]
        use ::hermetic::record::{ViaDebug as _, ViaOpaque as _};
        let __hermetic_call = ::hermetic::record::enter(&__HERMETIC_SITE, |#w: &mut ::hermetic::record::Writer| {
            #(#captures)*
        });
        let __hermetic_ret: #ret = #call;
        __hermetic_call.exit(|#w: &mut ::hermetic::record::Writer| {
            (&&::hermetic::record::Wrap(&__hermetic_ret)).capture(#w);
        });
        __hermetic_ret
    });
    let block: syn::Block = syn::parse2(body).map_err(|e| format!("probe does not parse: {e}"))?;
    Ok((block, inner))
}

fn capture(value: TokenStream) -> TokenStream {
    quote!((&&::hermetic::record::Wrap(&#value)).capture(__hermetic_w);)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapper_calls_the_moved_body_with_the_arguments() {
        let f: syn::ItemFn = syn::parse_quote!(
            pub fn load(path: &str, mut n: u32) -> Result<u32, String> {
                n += 1;
                Ok(n)
            }
        );
        let (block, inner) = probe(3, &f.sig, &f.attrs, None).unwrap();
        assert_eq!(inner, "__hermetic_recorded_load");
        let text = quote!(#block).to_string();
        assert!(text.contains("Site :: new (3)"), "{text}");
        assert!(
            text.contains(
                "let __hermetic_ret : Result < u32 , String > = __hermetic_recorded_load (path , n) ;"
            ),
            "{text}"
        );
    }

    #[test]
    fn patterns_async_and_impl_trait_are_not_probed() {
        let f: syn::ItemFn = syn::parse_quote!(
            fn sum((a, b): (u8, u8)) -> u8 {
                a + b
            }
        );
        assert!(probe(0, &f.sig, &f.attrs, None).is_err());
        let f: syn::ItemFn = syn::parse_quote!(
            fn it() -> impl Iterator<Item = u8> {
                0..3
            }
        );
        assert!(probe(0, &f.sig, &f.attrs, None).is_err());
    }
}
