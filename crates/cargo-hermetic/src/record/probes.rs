//! Probes: each selected function of the shadow copy becomes a wrapper (`wrapper.rs`) that
//! reports the call to the runtime's record mode around the original body; the traits its
//! trait-typed parameters name get a recording proxy (`proxy_syntax.rs`) beside them.
//!
//! Free functions, inherent methods and the methods of impls of crate traits are probed; a
//! wrapper rather than a guard inside the body, so the body keeps its own `return`s, `?`s and
//! lifetimes.
//!
//! The methods of impls of crate traits are listed by analysis for record only
//! (`analyze::Options`). A trait's proxy module goes at the end of the trait's module;
//! `wrapper::plan` decides which arguments get a proxy, and why not.

use super::literals::{self, Literals};
use super::proxy_syntax;
use super::wrapper::{self, Body, Proxying};
use crate::cluster::{CallableId, CallableKind, Cluster, ModuleBody, TraitId, Ty, TypeId};
use anyhow::{Context, Result};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;
use syn::{ImplItem, Item};

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
    /// Probed callables whose wrapper hands the body proxies.
    pub proxied: BTreeSet<CallableId>,
    /// Probed callables with a trait-typed parameter that gets no proxy, and why.
    pub no_proxy: BTreeMap<CallableId, String>,
    /// Crate types with a hand-written `Debug` whose values the probes write as literals
    /// (`literals.rs`), and why the others' are not.
    pub literals: Literals,
}

/// What earlier builds of the copy ruled out.
#[derive(Debug, Default)]
pub struct Limits {
    /// Callables whose wrapper must not use proxies, with the reason.
    pub no_proxies: BTreeMap<CallableId, String>,
    /// Traits whose proxy did not compile, with the reason.
    pub broken_proxies: BTreeMap<TraitId, String>,
    /// Crate types whose derived `Debug` did not compile (a field without `Debug`), with the
    /// reason.
    pub no_debug: BTreeMap<TypeId, String>,
    /// Crate types whose `Capture` impl did not compile, with the reason.
    pub no_capture: BTreeMap<TypeId, String>,
}

/// Marks a `Debug` derive the copy adds (`#[cfg_attr(any(), doc = "__hermetic_debug N")]`,
/// which the compiler drops unread), so a compiler error below it is traced to type `N`.
pub const DEBUG_MARKER: &str = "__hermetic_debug ";

/// A probed function's key: its module, its type (for methods), the trait of its impl (for
/// methods of trait impls) and its name.
type Key = (usize, Option<String>, Option<String>, String);

/// Inserts probes into the copy at `shadow_root` for the `selected` callables, and for the
/// functions analysis skipped that are in `skipped` (item → reason). Module files are found by
/// their path relative to `crate_dir` (the original the cluster was made from).
pub fn insert(
    cluster: &Cluster,
    selected: &[CallableId],
    skipped: &HashMap<String, String>,
    limits: &Limits,
    crate_dir: &Path,
    shadow_root: &Path,
) -> Result<Probed> {
    let mut wanted: HashMap<Key, CallableId> = HashMap::new();
    for &c in selected {
        let callable = &cluster.callables[c];
        let (owner, of_trait) = match &callable.kind {
            CallableKind::Function => (None, None),
            CallableKind::AssocFn { self_ty, .. } | CallableKind::Method { self_ty, .. } => {
                let of_trait = match &callable.kind {
                    CallableKind::Method {
                        of_trait: Some(of), ..
                    } => Some(cluster.traits[of.trait_id].name.clone()),
                    _ => None,
                };
                match self_ty {
                    Ty::Adt(id, _) => (Some(cluster.types[*id].name.clone()), of_trait),
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
            .entry((callable.module, owner, of_trait, callable.name.clone()))
            .and_modify(|e| {
                if mocked(c) && !mocked(*e) {
                    *e = c;
                }
            })
            .or_insert(c);
    }
    let verdicts = proxy_syntax::verdicts(cluster, &limits.broken_proxies);
    let proxies = needed_proxies(cluster, wanted.values().copied(), &verdicts);
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
            cluster,
            wanted: &wanted,
            skipped,
            limits,
            verdicts: &verdicts,
            proxies: &proxies,
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

/// The traits whose proxies the probed callables' parameters need, with the traits their
/// methods return boxes of.
fn needed_proxies(
    cluster: &Cluster,
    probing: impl Iterator<Item = CallableId>,
    verdicts: &[Result<(), String>],
) -> BTreeSet<TraitId> {
    let mut stack: Vec<TraitId> = Vec::new();
    for c in probing {
        for p in &cluster.callables[c].params {
            let t = match &p.ty {
                Ty::Ref(inner) | Ty::RefMut(inner) | Ty::Box(inner) => match **inner {
                    Ty::Mock(t) => t,
                    _ => continue,
                },
                Ty::Mock(t) => *t,
                _ => continue,
            };
            stack.push(t);
        }
    }
    let mut out = BTreeSet::new();
    while let Some(t) = stack.pop() {
        if verdicts.get(t).is_some_and(Result::is_ok) && out.insert(t) {
            stack.extend(proxy_syntax::boxed_returns(cluster, t));
        }
    }
    out
}

struct Walk<'a> {
    cluster: &'a Cluster,
    wanted: &'a HashMap<Key, CallableId>,
    skipped: &'a HashMap<String, String>,
    limits: &'a Limits,
    verdicts: &'a [Result<(), String>],
    proxies: &'a BTreeSet<TraitId>,
    modules: &'a HashMap<&'a [String], usize>,
    out: &'a mut Probed,
    changed: bool,
}

impl Walk<'_> {
    fn first_extra(&self) -> usize {
        self.cluster.callables.len()
    }

    /// The probe's site id for a function: its callable, or a new extra for a skipped one.
    fn site(&mut self, path: &[String], key: &Key) -> Option<usize> {
        if let Some(&c) = self.wanted.get(key) {
            return Some(c);
        }
        let mut item: Vec<&str> = path.iter().map(String::as_str).collect();
        item.extend(key.1.as_deref());
        item.push(&key.3);
        let item = item.join("::");
        let reason = self.skipped.get(&item)?;
        self.out.extras.push((item, reason.clone()));
        Some(self.first_extra() + self.out.extras.len() - 1)
    }

    /// The wrapper for site `c`, with the proxies its parameters get.
    fn wrap(
        &mut self,
        c: usize,
        sig: &syn::Signature,
        attrs: &[syn::Attribute],
        body: Body,
    ) -> Result<wrapper::Wrapper, String> {
        let mut proxies: Vec<Option<Proxying>> = Vec::new();
        let shown = self
            .cluster
            .callables
            .get(c)
            .map(|callable| wrapper::Shown::of(self.cluster, callable))
            .unwrap_or_default();
        if let Some(callable) = self.cluster.callables.get(c) {
            let inline = matches!(body, Body::Inline(_));
            let (plan, why_not) = wrapper::plan(self.cluster, callable, sig, self.verdicts, inline);
            match self.limits.no_proxies.get(&c) {
                Some(why) if plan.iter().any(Option::is_some) => {
                    self.out.no_proxy.insert(c, why.clone());
                }
                _ => {
                    if let Some(why) = why_not {
                        self.out.no_proxy.insert(c, why);
                    }
                    proxies = plan;
                }
            }
        }
        let w = wrapper::wrap(c, sig, attrs, body, &proxies, &shown)?;
        if proxies.iter().any(Option::is_some) {
            self.out.proxied.insert(c);
        }
        Ok(w)
    }

    fn probed(&mut self, c: usize) {
        if c < self.first_extra() {
            self.out.probed.push(c);
        }
        self.changed = true;
    }

    fn unprobed(&mut self, c: usize, why: String) {
        self.out.proxied.remove(&c);
        if c < self.first_extra() {
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
                    let key = (module, None, None, f.sig.ident.to_string());
                    let Some(c) = self.site(path, &key) else {
                        continue;
                    };
                    match self.wrap(c, &f.sig, &f.attrs, Body::Moved { method: false }) {
                        Ok(w) => {
                            let mut inner = f.clone();
                            inner.sig.ident = w.inner;
                            inner.vis = syn::Visibility::Inherited;
                            inner.attrs = inner_attrs(&f.attrs);
                            *f.block = w.block;
                            f.sig = w.sig;
                            added.push((at + 1, Item::Fn(inner)));
                            self.probed(c);
                        }
                        Err(why) => self.unprobed(c, why),
                    }
                }
                Item::Impl(imp) => {
                    let trait_name = match &imp.trait_ {
                        None => None,
                        Some((None, p, _)) => p.segments.last().map(|s| s.ident.to_string()),
                        Some((Some(_), ..)) => continue,
                    };
                    let syn::Type::Path(tp) = &*imp.self_ty else {
                        continue;
                    };
                    let Some(owner) = tp.path.segments.last().map(|s| s.ident.to_string()) else {
                        continue;
                    };
                    if trait_name.is_some() {
                        self.trait_impl(module, owner, trait_name, imp);
                    } else {
                        self.inherent_impl(path, module, owner, imp);
                    }
                }
                Item::Struct(s) => self.derive_debug(module, &s.ident, &mut s.attrs),
                Item::Enum(e) => self.derive_debug(module, &e.ident, &mut e.attrs),
                _ => {}
            }
            if let Some(capture) = self.capture_impl(module, item) {
                added.push((at + 1, capture));
            }
            match item {
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
        // Proxies go last, so a compiler error in one is not taken for a probe's.
        for &t in self.proxies {
            if self.cluster.traits[t].module == module {
                items.push(proxy_syntax::proxy_module(self.cluster, t));
                self.changed = true;
            }
        }
    }

    /// The `Capture` impl for a struct or enum the probes write as a literal (`literals.rs`);
    /// records why a type with a hand-written `Debug` gets none.
    fn capture_impl(&mut self, module: usize, item: &Item) -> Option<Item> {
        let name = match item {
            Item::Struct(s) => &s.ident,
            Item::Enum(e) => &e.ident,
            _ => return None,
        };
        let id = self.type_id(module, name)?;
        let def = &self.cluster.types[id];
        // Types shown by `Display` are rebuilt from that text instead.
        if !def.impls.iter().any(|i| i == "Debug") || crate::analyze::shown_by_display(def) {
            return None;
        }
        let made = match self.limits.no_capture.get(&id) {
            Some(why) => Err(why.clone()),
            None => literals::wanted(self.cluster, id).and_then(|()| literals::impl_item(id, item)),
        };
        match made {
            Ok(capture) => {
                self.out.literals.captured.insert(id);
                self.changed = true;
                Some(capture)
            }
            Err(why) => {
                self.out.literals.refused.insert(id, why);
                None
            }
        }
    }

    /// The crate type named `name` defined in `module`.
    fn type_id(&self, module: usize, name: &syn::Ident) -> Option<TypeId> {
        self.cluster
            .types
            .iter()
            .position(|t| t.module == module && *name == t.name)
    }

    /// Gives a crate type without `Debug` a derived one in the copy, so that probes capture its
    /// values (tests build them by their literal, which needs no `Debug`): internal types
    /// often have none. One the compiler rejects is left out (`Limits::no_debug`).
    fn derive_debug(&mut self, module: usize, name: &syn::Ident, attrs: &mut Vec<syn::Attribute>) {
        let Some(id) = self.type_id(module, name) else {
            return;
        };
        let def = &self.cluster.types[id];
        let has_debug = def.implements("Debug");
        if has_debug || self.limits.no_debug.contains_key(&id) {
            return;
        }
        let marker = format!("{DEBUG_MARKER}{id}");
        attrs.push(syn::parse_quote!(#[cfg_attr(any(), doc = #marker)]));
        attrs.push(syn::parse_quote!(#[derive(Debug)]));
        self.changed = true;
    }

    /// Inherent methods: each wrapper's body moves to a sibling method.
    fn inherent_impl(
        &mut self,
        path: &[String],
        module: usize,
        owner: String,
        imp: &mut syn::ItemImpl,
    ) {
        let mut inner_fns = Vec::new();
        for ii in imp.items.iter_mut() {
            let ImplItem::Fn(f) = ii else { continue };
            let key = (module, Some(owner.clone()), None, f.sig.ident.to_string());
            let Some(c) = self.site(path, &key) else {
                continue;
            };
            match self.wrap(c, &f.sig, &f.attrs, Body::Moved { method: true }) {
                Ok(w) => {
                    let mut inner = f.clone();
                    inner.sig.ident = w.inner;
                    inner.vis = syn::Visibility::Inherited;
                    inner.attrs = inner_attrs(&f.attrs);
                    f.block = w.block;
                    f.sig = w.sig;
                    inner_fns.push(ImplItem::Fn(inner));
                    self.probed(c);
                }
                Err(why) => self.unprobed(c, why),
            }
        }
        imp.items.extend(inner_fns);
    }

    /// Methods of a trait impl: the impl can hold the trait's items only, so each body stays
    /// in place, called by its wrapper as a closure.
    fn trait_impl(
        &mut self,
        module: usize,
        owner: String,
        trait_name: Option<String>,
        imp: &mut syn::ItemImpl,
    ) {
        for ii in imp.items.iter_mut() {
            let ImplItem::Fn(f) = ii else { continue };
            let key = (
                module,
                Some(owner.clone()),
                trait_name.clone(),
                f.sig.ident.to_string(),
            );
            let Some(&c) = self.wanted.get(&key) else {
                continue;
            };
            let body = f.block.clone();
            match self.wrap(c, &f.sig, &f.attrs, Body::Inline(&body)) {
                Ok(w) => {
                    f.block = w.block;
                    self.probed(c);
                }
                Err(why) => self.unprobed(c, why),
            }
        }
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

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        let meta = &a.meta;
        a.path().is_ident("cfg") && quote!(#meta).to_string().replace(' ', "") == "cfg(test)"
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze;

    /// Probes a crate made of `lib.rs` text, every callable selected; returns the probed
    /// `lib.rs` and what probing did.
    fn probe_crate(lib: &str, limits: &Limits) -> (String, Probed, Cluster) {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(src.join("lib.rs"), lib).unwrap();
        let cluster =
            analyze::analyze_with(&src.join("lib.rs"), "demo", analyze::Options::record()).unwrap();
        let all: Vec<CallableId> = (0..cluster.callables.len()).collect();
        let probed = insert(&cluster, &all, &HashMap::new(), limits, d.path(), d.path()).unwrap();
        let text = std::fs::read_to_string(src.join("lib.rs")).unwrap();
        (text, probed, cluster)
    }

    /// The text without white space or trailing commas, to compare code however it is laid out.
    fn squash(text: &str) -> String {
        let s: String = text.chars().filter(|c| !c.is_whitespace()).collect();
        s.replace(",)", ")")
    }

    const SHOP: &str = "
        pub trait Ledger { fn balance(&self, user: &str) -> Result<u64, String>; }
        pub trait Rows { fn next(&mut self) -> bool; }
        pub trait Connection { fn query(&self, sql: &str) -> Box<dyn Rows>; fn close(&mut self); }
        pub trait Tariff { fn rate(&self) -> u32; }
        #[derive(Debug)]
        pub struct Flat;
        impl Tariff for Flat { fn rate(&self) -> u32 { 10 } }
        pub fn pay(ledger: &dyn Ledger, user: &str) -> u64 { ledger.balance(user).unwrap_or(0) }
        pub fn count(conn: Box<dyn Connection>) -> usize { let mut r = conn.query(\"x\"); let mut n = 0; while r.next() { n += 1; } n }
        pub fn fee<T: Tariff>(t: &T, x: u32) -> u32 { x * t.rate() }
        pub fn pick<T: Tariff>(a: T) -> T { a }
    ";

    #[test]
    fn trait_typed_parameters_get_proxies_and_trait_methods_probes() {
        let (text, probed, cluster) = probe_crate(SHOP, &Limits::default());
        let id = |name: &str| {
            cluster
                .callables
                .iter()
                .position(|c| c.name == name && !matches!(c.kind, CallableKind::Mock(_)))
                .unwrap()
        };
        let tokens = squash(&text);
        // `pay` hands its body a proxy of the ledger; `count` a boxed proxy of the connection.
        assert!(
            tokens.contains("letledger:&dynLedger=&crate::__hermetic_proxy_0::Proxy::new(ledger,__hermetic_call.tap(0u32));"),
            "{text}"
        );
        assert!(tokens.contains("letconn:Box<dynConnection>=::std::boxed::Box::new(crate::__hermetic_proxy_2::Proxy::new(conn,"), "{text}");
        // The connection's proxy wraps the rows it hands out in theirs.
        assert!(tokens.contains("mod__hermetic_proxy_1"), "{text}");
        assert!(tokens.contains("::std::boxed::Box::new(crate::__hermetic_proxy_1::Proxy::new(__hermetic_ret,__hermetic_slot.returned_box()))"), "{text}");
        // A type parameter only a proxied parameter uses takes the proxy's type; one the
        // result uses too cannot.
        assert!(probed.proxied.contains(&id("fee")), "{probed:?}");
        assert!(!probed.proxied.contains(&id("pick")), "{probed:?}");
        assert!(probed.no_proxy[&id("pick")].contains("used elsewhere"));
        // `Flat::rate` is probed in its trait impl, its body kept as a closure.
        assert!(probed.probed.contains(&id("rate")), "{probed:?}");
        assert!(tokens.contains("(||->u32{10})()"), "{text}");
        assert!(probed.unprobed.is_empty(), "{probed:?}");
    }

    #[test]
    fn proxies_the_compiler_rejected_are_left_out() {
        let mut limits = Limits::default();
        limits.broken_proxies.insert(1, "it did not compile".into());
        let (text, probed, cluster) = probe_crate(SHOP, &limits);
        let count = cluster
            .callables
            .iter()
            .position(|c| c.name == "count")
            .unwrap();
        // Rows has no proxy, so neither has Connection, which returns rows.
        assert!(!text.contains("__hermetic_proxy_1"), "{text}");
        assert!(!text.contains("mod __hermetic_proxy_2"), "{text}");
        assert!(
            probed.no_proxy[&count].contains("it did not compile"),
            "{probed:?}"
        );
        assert!(probed.probed.contains(&count));
    }
}
