//! Calls that leave a unit (seed 000's member accesses): for each free function and `impl`
//! block, the crate's functions of other modules it calls by path (`db::run_query(..)`,
//! `Database::connect(..)`) and the methods of other modules' types it calls on receivers whose
//! type the body shows (`db.query(..)` after `let db = Database::connect(..)`, a parameter
//! `db: &Database`, `self.db`). These are what `--isolate` lists in the unit's
//! `#[hermetic::isolate(only(..))]` and lets tests fake.
//!
//! A receiver's type is followed through parameters, `let`s with a type or an initialiser
//! whose type is known (a call of a crate callable, `?`, `.unwrap()`, `.expect(..)`, a struct
//! literal), `self` and fields: no type inference, so a method call whose receiver's type the
//! body does not show is not listed. Only callees a fake can stand in for are listed: not
//! generic, returning something other than `()` that holds no borrow.
//!
//! Each callee comes with how the unit names it (its `only(..)` entry) and the restriction the
//! unit's attribute puts on it; the unit's existing isolate attributes are read with their byte
//! ranges, for `isolate.rs` to edit.

use super::modules::ModuleSrc;
use super::names::{Names, Target};
use super::syntax::{segments, text, Offsets};
use super::types::{Mode, TraitInfo, TyCx, TypeInfo};
use crate::cluster::{
    CallableId, CallableKind, Callee, Cluster, IsolateAttr, ModuleId, OutCall, Ty, TypeKind, Unit,
};
use proc_macro2::LineColumn;
use std::collections::{BTreeMap, BTreeSet};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, FnArg, ImplItem, Item, Pat};

/// What the walk needs besides the cluster.
pub struct Scope<'a> {
    pub names: &'a Names,
    pub infos: &'a [TypeInfo],
    pub traits: &'a [TraitInfo],
}

/// The units of every module, with the calls that leave them.
pub fn collect(mods: &[ModuleSrc], scope: &Scope, cluster: &Cluster) -> Vec<Unit> {
    let mut units = Vec::new();
    let mut offsets: BTreeMap<&std::path::Path, Option<Offsets>> = BTreeMap::new();
    for (m, src) in mods.iter().enumerate() {
        let file = src.module.file.as_path();
        let Some(offsets) = offsets
            .entry(file)
            .or_insert_with(|| std::fs::read_to_string(file).ok().map(|t| Offsets::new(&t)))
        else {
            continue;
        };
        let mut seen: BTreeMap<(String, bool), usize> = BTreeMap::new();
        for item in &src.items {
            let key = match item {
                Item::Fn(f) => (f.sig.ident.to_string(), false),
                Item::Impl(imp) => (impl_name(imp), true),
                _ => continue,
            };
            let nth = *seen.entry(key.clone()).and_modify(|n| *n += 1).or_insert(0);
            let unit = match item {
                Item::Fn(f) => {
                    let mut w = Walk::new(scope, cluster, m, None);
                    w.params(&f.sig.inputs);
                    w.visit_block(&f.block);
                    let name = f.sig.ident.to_string();
                    let members = cluster
                        .callables
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| {
                            c.module == m && c.kind == CallableKind::Function && c.name == name
                        })
                        .map(|(id, _)| id)
                        .collect();
                    let at = f.vis.span().start();
                    let at = if matches!(f.vis, syn::Visibility::Inherited) {
                        f.sig.span().start()
                    } else {
                        at
                    };
                    w.finish(name, false, members, at, &f.attrs, offsets)
                }
                Item::Impl(imp) if imp.unsafety.is_none() => {
                    let self_ty = TyCx {
                        names: scope.names,
                        infos: scope.infos,
                        traits: scope.traits,
                        module: m,
                        self_ty: None,
                        subst: &BTreeMap::new(),
                        expanding: &[],
                    }
                    .map(&imp.self_ty, Mode::Owned)
                    .ok();
                    let mut w = Walk::new(scope, cluster, m, self_ty.clone());
                    let mut fns = Vec::new();
                    for f in &imp.items {
                        if let ImplItem::Fn(f) = f {
                            w.locals.clear();
                            w.params(&f.sig.inputs);
                            w.visit_block(&f.block);
                            fns.push(f.sig.ident.to_string());
                        }
                    }
                    let members = cluster
                        .callables
                        .iter()
                        .enumerate()
                        .filter(|(_, c)| {
                            c.module == m
                                && c.kind.self_ty() == self_ty.as_ref()
                                && self_ty.is_some()
                                && matches!(
                                    c.kind,
                                    CallableKind::Method { .. } | CallableKind::AssocFn { .. }
                                )
                                && fns.contains(&c.name)
                        })
                        .map(|(id, _)| id)
                        .collect();
                    let name = impl_name(imp);
                    let at = imp
                        .defaultness
                        .map_or(imp.impl_token.span, |d| d.span)
                        .start();
                    w.finish(name, true, members, at, &imp.attrs, offsets)
                }
                _ => None,
            };
            units.extend(unit.map(|u| Unit { nth, ..u }));
        }
    }
    units
}

/// An `impl` block's self type as units name it: its last segment (`Teller`).
pub fn impl_name(imp: &syn::ItemImpl) -> String {
    match &*imp.self_ty {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .map_or_else(|| text(&imp.self_ty), |s| s.ident.to_string()),
        other => text(other),
    }
}

/// One unit's walk: the calls found so far and the types of its local names.
struct Walk<'a> {
    scope: &'a Scope<'a>,
    cluster: &'a Cluster,
    module: ModuleId,
    self_ty: Option<Ty>,
    /// Local names and their types, as far as the walk has seen (flat: shadowing in inner
    /// blocks is taken as later assignments are).
    locals: BTreeMap<String, Ty>,
    /// Callee → how the unit names it, in the order met.
    calls: Vec<(CallableId, String)>,
    /// Other crates' functions called, by path, with how the unit names them.
    extern_calls: Vec<(Vec<String>, String)>,
    /// The names of the walked function's parameters (`self` included) that still hold them.
    inputs: BTreeSet<String>,
    /// Callees called somewhere with a receiver or an argument that is not the unit's input
    /// (`OutCall::steered`).
    unsteered: BTreeSet<CallableId>,
}

impl<'a> Walk<'a> {
    fn new(
        scope: &'a Scope<'a>,
        cluster: &'a Cluster,
        module: ModuleId,
        self_ty: Option<Ty>,
    ) -> Self {
        Walk {
            scope,
            cluster,
            module,
            self_ty,
            locals: BTreeMap::new(),
            calls: Vec::new(),
            extern_calls: Vec::new(),
            inputs: BTreeSet::new(),
            unsteered: BTreeSet::new(),
        }
    }

    fn tycx(&self) -> TyCx<'_> {
        TyCx {
            names: self.scope.names,
            infos: self.scope.infos,
            traits: self.scope.traits,
            module: self.module,
            self_ty: self.self_ty.as_ref(),
            subst: &NO_SUBST,
            expanding: &[],
        }
    }

    fn params(&mut self, inputs: &syn::punctuated::Punctuated<FnArg, syn::Token![,]>) {
        self.inputs.clear();
        for input in inputs {
            match input {
                FnArg::Receiver(_) => {
                    self.inputs.insert("self".into());
                    if let Some(t) = self.self_ty.clone() {
                        self.locals.insert("self".into(), t);
                    }
                }
                FnArg::Typed(t) => {
                    self.inputs.extend(bound_names(&t.pat));
                    if let (Pat::Ident(p), Ok(ty)) = (&*t.pat, self.tycx().map(&t.ty, Mode::Ret)) {
                        self.locals.insert(p.ident.to_string(), ty);
                    }
                }
            }
        }
    }

    /// The other crate's function a path call names (`settings::load`, or `load` after
    /// `use settings::load;`): a path whose first segment is no name of this crate nor std's.
    fn extern_callee(&self, path: &syn::Path) -> Option<Vec<String>> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let full = match segs.as_slice() {
            [name] => self.scope.names.import(self.module, name)?.to_vec(),
            _ => segs,
        };
        let first = full.first()?;
        let outside = matches!(
            self.scope.names.resolve(self.module, &full[..1]),
            Target::Unknown | Target::External(_)
        );
        let std = matches!(
            first.as_str(),
            "std" | "core" | "alloc" | "crate" | "self" | "super" | "::"
        );
        let lowercase = full.last()?.starts_with(|c: char| c.is_lowercase());
        (outside && !std && full.len() >= 2 && lowercase).then_some(full)
    }

    /// The crate callable a path call names, with how the call writes it.
    fn path_callee(&self, path: &syn::Path) -> Option<CallableId> {
        let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        let (last, prefix) = segs.split_last()?;
        let names = self.scope.names;
        let owner = if prefix.is_empty() {
            // A bare name: this module's function, or an imported one.
            let imported = names.import(self.module, last)?;
            let (name, prefix) = imported.split_last()?;
            if name != last {
                return None;
            }
            names.resolve(self.module, prefix)
        } else {
            names.resolve(self.module, prefix)
        };
        let found = self.cluster.callables.iter().position(|c| match &owner {
            Target::Module(m) => {
                c.module == *m && c.kind == CallableKind::Function && &c.name == last
            }
            Target::Type(t) => {
                matches!(c.kind.self_ty(), Some(Ty::Adt(id, _)) if id == t)
                    && matches!(
                        c.kind,
                        CallableKind::AssocFn { .. } | CallableKind::Method { .. }
                    )
                    && &c.name == last
            }
            _ => false,
        })?;
        Some(found)
    }

    /// The crate method called on a receiver of type `recv` (references and boxes seen
    /// through).
    fn method_callee(&self, recv: &Ty, method: &str) -> Option<CallableId> {
        let Ty::Adt(t, _) = strip(recv) else {
            return None;
        };
        self.cluster.callables.iter().position(|c| {
            matches!(c.kind.self_ty(), Some(Ty::Adt(id, _)) if id == t)
                && matches!(c.kind, CallableKind::Method { .. })
                && c.name == method
        })
    }

    /// Whether a call with these receiver and arguments is steered by the unit's inputs: each
    /// is an input as it came (a parameter or `self`, a part of one, a reference to one, a
    /// constant, or arithmetic on those) and one at least names a parameter. A callee that
    /// never touches the environment and is called so answers what the test's inputs make it
    /// answer: faking it would pin a state the test can reach for real, or none.
    fn steered<'e>(&self, exprs: impl IntoIterator<Item = &'e Expr>) -> bool {
        let mut names_input = false;
        for e in exprs {
            match self.input(e) {
                Some(names) => names_input |= names,
                None => return false,
            }
        }
        names_input
    }

    /// `Some(names_a_parameter)` when `e` is an input as it came (see [`Self::steered`]).
    fn input(&self, e: &Expr) -> Option<bool> {
        let both = |a: Option<bool>, b: Option<bool>| Some(a? | b?);
        match e {
            Expr::Lit(_) => Some(false),
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|i| self.inputs.contains(&i.to_string()))
                .then_some(true),
            Expr::Paren(p) => self.input(&p.expr),
            Expr::Group(g) => self.input(&g.expr),
            Expr::Reference(r) => self.input(&r.expr),
            Expr::Field(f) => self.input(&f.base),
            Expr::Unary(u) => self.input(&u.expr),
            Expr::Cast(c) => self.input(&c.expr),
            Expr::Binary(b) => both(self.input(&b.left), self.input(&b.right)),
            Expr::Index(i) => both(self.input(&i.expr), self.input(&i.index)),
            Expr::MethodCall(m)
                if m.args.is_empty()
                    && matches!(
                        m.method.to_string().as_str(),
                        "clone" | "as_ref" | "as_str" | "as_slice" | "as_deref"
                    ) =>
            {
                self.input(&m.receiver)
            }
            _ => None,
        }
    }

    /// What the walk knows of an expression's type.
    fn type_of(&self, e: &Expr) -> Option<Ty> {
        match e {
            Expr::Path(p) if p.qself.is_none() => {
                let name = p.path.get_ident()?.to_string();
                self.locals.get(&name).cloned()
            }
            Expr::Paren(p) => self.type_of(&p.expr),
            Expr::Reference(r) => self.type_of(&r.expr),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.type_of(&u.expr),
            Expr::Field(f) => {
                let Ty::Adt(t, _) = strip(&self.type_of(&f.base)?).clone() else {
                    return None;
                };
                let TypeKind::Struct(fields) = &self.cluster.types[t].kind else {
                    return None;
                };
                let name = match &f.member {
                    syn::Member::Named(n) => n.to_string(),
                    syn::Member::Unnamed(i) => i.index.to_string(),
                };
                fields.all().iter().find(|x| x.name == name)?.ty.clone()
            }
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) => Some(
                    self.cluster.callables[self.path_callee(&p.path)?]
                        .ret
                        .clone(),
                ),
                _ => None,
            },
            Expr::MethodCall(m) => {
                let recv = self.type_of(&m.receiver)?;
                match m.method.to_string().as_str() {
                    "unwrap" | "expect" => unwrapped(strip(&recv)),
                    "clone" => Some(strip(&recv).clone()),
                    name => Some(
                        self.cluster.callables[self.method_callee(&recv, name)?]
                            .ret
                            .clone(),
                    ),
                }
            }
            Expr::Try(t) => unwrapped(strip(&self.type_of(&t.expr)?)),
            Expr::Struct(s) => match self.scope.names.resolve(self.module, &segments(&s.path)) {
                Target::Type(t) if self.cluster.types[t].generics.is_empty() => {
                    Some(Ty::Adt(t, Vec::new()))
                }
                _ => None,
            },
            _ => None,
        }
    }

    fn record(&mut self, callee: CallableId, entry: String) {
        let c = &self.cluster.callables[callee];
        let leaves = c.module != self.module;
        let types = &self.cluster.types;
        // A type with lifetime parameters (`Finder<'a>`) holds a borrow too: the fake table
        // keeps only `'static` values.
        let has_lifetimes = |t: &Ty| matches!(t, Ty::Adt(id, _) if types[*id].lifetimes > 0);
        let fakeable = c.ret != Ty::Unit
            && c.generic_args.is_empty()
            && c.item_params().is_some()
            && !c.ret.borrows()
            && !c.ret.mentions(&has_lifetimes)
            && !matches!(c.kind.self_ty(), Some(t @ Ty::Adt(id, _)) if !types[*id].generics.is_empty() || has_lifetimes(t));
        if leaves && fakeable && !self.calls.iter().any(|(id, _)| *id == callee) {
            self.calls.push((callee, entry));
        }
    }

    fn finish(
        self,
        name: String,
        is_impl: bool,
        members: Vec<CallableId>,
        at: LineColumn,
        attrs: &[syn::Attribute],
        offsets: &Offsets,
    ) -> Option<Unit> {
        let attribute = attrs.iter().find_map(|a| isolate_attr(a, offsets));
        if self.calls.is_empty() && self.extern_calls.is_empty() && attribute.is_none() {
            return None;
        }
        let insert_at = offsets.offset(at);
        let line_start = offsets.text()[..insert_at].rfind('\n').map_or(0, |i| i + 1);
        let indent: String = offsets.text()[line_start..insert_at]
            .chars()
            .take_while(|c| c.is_whitespace())
            .collect();
        let calls = self
            .calls
            .into_iter()
            .map(|(callee, entry)| OutCall {
                restriction: attribute.as_ref().and_then(|a| a.restriction(&entry)),
                ret: self.cluster.callables[callee].ret.clone(),
                steered: !self.unsteered.contains(&callee),
                params: self.cluster.callables[callee]
                    .item_params()
                    .unwrap_or_default(),
                callee: Callee::Crate(callee),
                entry,
            })
            .collect();
        Some(Unit {
            module: self.module,
            name,
            is_impl,
            nth: 0,
            members,
            insert_at,
            indent,
            attribute,
            calls,
            extern_calls: self.extern_calls,
        })
    }
}

static NO_SUBST: BTreeMap<String, Ty> = BTreeMap::new();

impl Visit<'_> for Walk<'_> {
    fn visit_local(&mut self, l: &syn::Local) {
        syn::visit::visit_local(self, l);
        let (pat, ty) = match &l.pat {
            Pat::Type(t) => (&*t.pat, self.tycx().map(&t.ty, Mode::Ret).ok()),
            p => (p, None),
        };
        let Pat::Ident(p) = pat else {
            return;
        };
        let ty = ty.or_else(|| l.init.as_ref().and_then(|i| self.type_of(&i.expr)));
        match ty {
            Some(t) => self.locals.insert(p.ident.to_string(), t),
            None => self.locals.remove(&p.ident.to_string()),
        };
    }

    fn visit_expr_call(&mut self, call: &syn::ExprCall) {
        syn::visit::visit_expr_call(self, call);
        if let Expr::Path(p) = &*call.func {
            if p.qself.is_none() {
                let entry = segments(&p.path).join("::");
                if let Some(callee) = self.path_callee(&p.path) {
                    if !self.steered(&call.args) {
                        self.unsteered.insert(callee);
                    }
                    self.record(callee, entry);
                } else if let Some(path) = self.extern_callee(&p.path) {
                    if !self.extern_calls.iter().any(|(known, _)| *known == path) {
                        self.extern_calls.push((path, entry));
                    }
                }
            }
        }
    }

    fn visit_expr_method_call(&mut self, call: &syn::ExprMethodCall) {
        syn::visit::visit_expr_method_call(self, call);
        if call.turbofish.is_some() {
            return;
        }
        let Some(recv) = self.type_of(&call.receiver) else {
            return;
        };
        let Some(callee) = self.method_callee(&recv, &call.method.to_string()) else {
            return;
        };
        let Some(Ty::Adt(t, _)) = self.cluster.callables[callee].kind.self_ty() else {
            return;
        };
        let def = &self.cluster.types[*t];
        let ty = crate::rust_syntax::item_path(self.cluster, def.module, &def.name, self.module);
        let entry = format!("{}::{}", squash(&ty.to_string()), call.method);
        if !self.steered(std::iter::once(&*call.receiver).chain(&call.args)) {
            self.unsteered.insert(callee);
        }
        self.record(callee, entry);
    }

    fn visit_pat_ident(&mut self, p: &syn::PatIdent) {
        // A name bound in the body (`let`, a closure's or a loop's pattern, a match arm) no
        // longer holds the parameter of that name, from here on.
        self.inputs.remove(&p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }

    // Nested items are units of their own.
    fn visit_item(&mut self, _: &Item) {}
}

/// `&T`, `&mut T`, `Box<T>` → `T`.
/// The names a pattern binds.
fn bound_names(pat: &Pat) -> Vec<String> {
    struct Names(Vec<String>);
    impl Visit<'_> for Names {
        fn visit_pat_ident(&mut self, p: &syn::PatIdent) {
            self.0.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut names = Names(Vec::new());
    names.visit_pat(pat);
    names.0
}

fn strip(t: &Ty) -> &Ty {
    match t {
        Ty::Ref(i) | Ty::RefMut(i) | Ty::Box(i) => strip(i),
        other => other,
    }
}

/// The `Ok` of a `Result`, the `Some` of an `Option`.
fn unwrapped(t: &Ty) -> Option<Ty> {
    match t {
        Ty::Result(ok, _) => Some((**ok).clone()),
        Ty::Option(inner) => Some((**inner).clone()),
        _ => None,
    }
}

/// Tokens as text without the spaces `TokenStream` puts around `::`.
pub fn squash(tokens: &str) -> String {
    tokens.replace(" :: ", "::").replace(":: ", "::")
}

impl IsolateAttr {
    /// The pattern of the attribute's `returns(..)` for the callee written `entry`, if any.
    pub fn restriction(&self, entry: &str) -> Option<String> {
        self.returns
            .iter()
            .find(|(path, _)| names_callee(path, entry))
            .map(|(_, pattern)| pattern.clone())
    }
}

/// Whether a path of an attribute's option names a callee written `entry` (as the macro
/// decides: the option's segments, leading `crate`/`self`/`super` left out, in a row among the
/// callee's).
pub fn names_callee(option: &str, entry: &str) -> bool {
    let strip = |s: &str| -> Vec<String> {
        s.split("::")
            .map(|x| x.trim().to_string())
            .skip_while(|x| x == "crate" || x == "self" || x == "super")
            .collect()
    };
    let (o, e) = (strip(option), strip(entry));
    !o.is_empty() && e.windows(o.len()).any(|w| w == o)
}

/// The item's isolate attribute, read: `#[cfg_attr(test, hermetic::isolate(..))]` or
/// `#[hermetic::isolate(..)]` (or `#[isolate(..)]`).
pub(crate) fn isolate_attr(attr: &syn::Attribute, offsets: &Offsets) -> Option<IsolateAttr> {
    let is_isolate = |p: &syn::Path| {
        p.segments.last().is_some_and(|s| s.ident == "isolate")
            && (p.segments.len() == 1 || p.segments[0].ident == "hermetic")
    };
    let (cfg_test, meta) = if attr.path().is_ident("cfg_attr") {
        let list = attr.meta.require_list().ok()?;
        let metas = list
            .parse_args_with(
                syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
            )
            .ok()?;
        let mut metas = metas.into_iter();
        let cond = metas.next()?;
        let inner = metas.next()?;
        if metas.next().is_some() || !is_isolate(inner.path()) {
            return None;
        }
        (text(&cond) == "test", inner)
    } else if is_isolate(attr.path()) {
        (false, attr.meta.clone())
    } else {
        return None;
    };
    let mut out = IsolateAttr {
        range: (0, 0),
        cfg_test,
        only: Vec::new(),
        except: Vec::new(),
        returns: Vec::new(),
        others: Vec::new(),
    };
    if let syn::Meta::List(list) = &meta {
        let _ = list.parse_nested_meta(|m| {
            let name = m
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            let inner;
            let paren = syn::parenthesized!(inner in m.input);
            if name != "only" {
                let from = offsets.offset(m.path.span().start());
                let to = offsets.offset(paren.span.close().end());
                out.others.push(offsets.text()[from..to].to_string());
            }
            match name.as_str() {
                "only" | "except" => {
                    let paths =
                        syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated(
                            &inner,
                        )?;
                    let paths = paths.iter().map(|p| squash(&text(p)));
                    if name == "only" {
                        out.only.extend(paths);
                    } else {
                        out.except.extend(paths);
                    }
                }
                _ => {
                    let callee: syn::Path = inner.parse()?;
                    inner.parse::<syn::Token![,]>()?;
                    let pattern = Pat::parse_multi_with_leading_vert(&inner)?;
                    let _ = inner.parse::<Option<syn::Token![,]>>()?;
                    out.returns.push((squash(&text(&callee)), text(&pattern)));
                }
            }
            Ok(())
        });
    }
    let start = offsets.offset(attr.span().start());
    let mut end = offsets.offset(attr.span().end());
    // With the line break and the next line's indentation, so removing it leaves the item
    // where the attribute was.
    let rest = &offsets.text()[end..];
    let blank = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    if rest[blank..].starts_with('\n') {
        let after = &rest[blank + 1..];
        end += blank + 1 + (after.len() - after.trim_start_matches([' ', '\t']).len());
    }
    out.range = (start, end);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze_lib;

    const BANK: &str = "
        pub mod db {
            #[derive(Debug)] pub struct DbError;
            pub struct Database { pub url: String }
            impl Database {
                pub fn connect(url: &str) -> Database { Database { url: url.into() } }
                pub fn balance(&self, user: &str) -> Result<i64, DbError> { Err(DbError) }
                pub fn name(&self) -> &str { &self.url }
                pub fn log(&self) {}
            }
            pub fn run_query(sql: &str) -> Result<i64, DbError> { Err(DbError) }
        }
        use db::{run_query, Database};
        pub struct Teller { pub db: Database }
        impl Teller {
            pub fn check(&self, user: &str) -> i64 {
                self.db.log();
                self.db.balance(user).unwrap_or(-1) + helper()
            }
        }
        fn helper() -> i64 { 1 }
        #[cfg_attr(test, hermetic::isolate(only(run_query), returns(Database::balance, Ok(0..) | Err(_))))]
        pub fn transfer(url: &str, user: &str) -> i64 {
            let db = Database::connect(url);
            let n = run_query(\"x\").unwrap_or(0) + db::run_query(\"y\").unwrap_or(0);
            let name = db.name();
            n + db.balance(user).unwrap_or(0)
        }
    ";

    fn calls(c: &Cluster, unit: &str) -> Vec<(String, Option<String>)> {
        let u = c.units.iter().find(|u| u.name == unit).unwrap();
        u.calls
            .iter()
            .map(|k| (k.entry.clone(), k.restriction.clone()))
            .collect()
    }

    #[test]
    fn calls_on_the_units_inputs_alone_are_steered() {
        let c = analyze_lib(BANK);
        let steered = |unit: &str| -> Vec<(String, bool)> {
            let u = c.units.iter().find(|u| u.name == unit).unwrap();
            u.calls
                .iter()
                .map(|k| (k.entry.clone(), k.steered))
                .collect()
        };
        // `self.db` and `user` are the method's inputs; `db` is a value `transfer` made.
        assert_eq!(
            steered("Teller"),
            [("crate::db::Database::balance".to_string(), true)]
        );
        assert_eq!(
            steered("transfer"),
            [
                ("Database::connect".to_string(), true),
                // Constants only: what it answers is fixed, no input steers it.
                ("run_query".to_string(), false),
                ("crate::db::Database::balance".to_string(), false),
            ]
        );
        let shadowed = analyze_lib(
            "pub mod db { pub fn count(n: u8) -> u8 { n } }
            pub fn twice(n: u8) -> u8 {
                let m = db::count(n);
                let n = m + 1;
                db::count(n) + [1u8].iter().map(|n| db::count(*n)).sum::<u8>()
            }",
        );
        let u = &shadowed.units[0];
        assert!(!u.calls[0].steered, "{:?}", u.calls);
    }

    #[test]
    fn calls_leaving_the_module_are_found_with_how_the_unit_names_them() {
        let c = analyze_lib(BANK);
        assert_eq!(
            calls(&c, "transfer"),
            [
                ("Database::connect".to_string(), None),
                ("run_query".to_string(), None),
                (
                    "crate::db::Database::balance".to_string(),
                    Some("Ok(0 ..) | Err(_)".to_string())
                ),
            ]
        );
        // Through a field; `log` returns nothing, `helper` stays in the module.
        assert_eq!(
            calls(&c, "Teller"),
            [("crate::db::Database::balance".to_string(), None)]
        );
        let teller = c.units.iter().find(|u| u.name == "Teller").unwrap();
        assert!(teller.is_impl && teller.attribute.is_none());
        assert_eq!(teller.members.len(), 1);
    }

    #[test]
    fn callees_holding_a_lifetime_are_not_faked() {
        let c = analyze_lib(
            "pub mod find {
                pub struct Finder<'a> { name: &'a str }
                impl<'a> Finder<'a> {
                    pub fn new() -> Self { Finder { name: \".env\" } }
                    pub fn named(name: &'a str) -> Finder<'a> { Finder { name } }
                    pub fn len(&self) -> usize { self.name.len() }
                }
                pub fn count(name: &str) -> usize { name.len() }
            }
            pub fn dotenv(name: &str) -> usize {
                let f = find::Finder::new();
                find::Finder::named(name).len() + f.len() + find::count(name)
            }",
        );
        assert_eq!(calls(&c, "dotenv"), [("find::count".to_string(), None)]);
    }

    #[test]
    fn the_attribute_is_read_with_where_it_is() {
        let d = tempfile::tempdir().unwrap();
        let lib = d.path().join("lib.rs");
        std::fs::write(&lib, BANK).unwrap();
        let c = crate::analyze::analyze(&lib, "demo").unwrap();
        let u = c.units.iter().find(|u| u.name == "transfer").unwrap();
        let a = u.attribute.as_ref().unwrap();
        assert!(a.cfg_test);
        assert_eq!(a.only, ["run_query"]);
        let text = BANK;
        assert!(text[a.range.0..a.range.1].starts_with("#[cfg_attr(test, hermetic::isolate("));
        assert!(
            text[a.range.1..].starts_with("pub fn transfer"),
            "{:?}",
            &text[a.range.1..]
        );
        assert!(text[u.insert_at..].starts_with("pub fn transfer"));
        assert_eq!(u.indent, "        ");
    }

    #[test]
    fn option_paths_name_callees_by_runs_of_segments() {
        assert!(names_callee(
            "Database::balance",
            "crate::db::Database::balance"
        ));
        assert!(names_callee("crate::db", "db::run_query"));
        assert!(!names_callee(
            "Database::name",
            "crate::db::Database::balance"
        ));
    }
}
