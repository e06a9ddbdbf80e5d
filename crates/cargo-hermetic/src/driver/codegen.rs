//! The driver's generated Rust: one dispatch module per module of the crate, each a child of
//! the module it serves, so that it can call private items.
//!
//! Dispatch entry `call_N` decodes the arguments of callable `N`, calls it, observes the result
//! and keeps it for later statements. The root module's dispatch module also holds the `serve`
//! test that starts the fork server.

use crate::cluster::{CallableKind, Cluster, Fields, ModuleId, Receiver, StdTy, Ty, TypeKind};
use crate::mock_syntax::{mock_items, MockFlavour};
use crate::rust_syntax::{callee_path, ident, item_path, ty, ty_in_expr};
use crate::skip::{SkipReason, Why};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeSet;

/// The name of the dispatch module added to every module of the shadow copy.
pub const DISPATCH_MODULE: &str = "__hermetic_dispatch";
/// The test that runs the fork server, as `--exact` wants it.
pub const SERVE_TEST: &str = "__hermetic_dispatch::serve";

/// The generated source of one module's dispatch module.
pub struct DispatchFile {
    pub module: ModuleId,
    pub source: String,
}

/// Why a callable got no working dispatch entry.
pub struct Unsupported {
    pub callable: usize,
    pub why: Why,
}

/// What a build error was pinned on, left out of the next build.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Disabled {
    /// Callables whose entry refuses to run.
    pub callables: BTreeSet<usize>,
    /// Crate types that get no `Decode`/`Observe` impls; the callables that take or return
    /// them are disabled with them.
    pub types: BTreeSet<usize>,
}

/// Generates the dispatch modules, leaving out what `disabled` holds (after a build error
/// pinned on it).
pub fn generate(cluster: &Cluster, disabled: &Disabled) -> (Vec<DispatchFile>, Vec<Unsupported>) {
    let mut unsupported = Vec::new();
    let mut files = Vec::new();
    for m in 0..cluster.modules.len() {
        let mut entries = Vec::new();
        let mut registrations = Vec::new();
        for (id, _) in cluster
            .callables
            .iter()
            .enumerate()
            .filter(|(_, c)| c.module == m)
        {
            let name = format_ident!("call_{}", id);
            let body = if disabled.callables.contains(&id) {
                Err(Why::new(
                    SkipReason::DriverRejected,
                    "the driver could not compile a call to it",
                ))
            } else if let Some(t) = disabled_type_of(cluster, &disabled.types, id) {
                Err(Why::new(
                    SkipReason::DriverRejected,
                    format!(
                        "the driver could not compile its code for type `{}`",
                        cluster.types[t].name
                    ),
                ))
            } else {
                call_body(cluster, id)
            };
            let works = body.is_ok();
            let body = body.unwrap_or_else(|why| {
                let reason = why.detail.clone();
                unsupported.push(Unsupported { callable: id, why });
                quote!(Err(::hermetic_driver::DecodeError::new(#reason)))
            });
            entries.push(quote! {
                fn #name(args: &[::hermetic_driver::Value], slots: &mut ::hermetic_driver::Slots) -> ::std::result::Result<::hermetic_driver::Returned, ::hermetic_driver::DecodeError> {
                    #body
                }
            });
            registrations.push(quote!(table[#id] = Some(#name as ::hermetic_driver::Entry);));
            if let (CallableKind::Fake(f), true) = (&cluster.callables[id].kind, works) {
                // After its entry: a build error in it disables the entry (`build::blame`); a
                // disabled entry or type leaves it out.
                let watch_fn = format_ident!("watch_{}", id);
                let body = watch(cluster, *f, id, m);
                entries.push(quote!(fn #watch_fn() { #body }));
                registrations.push(quote!(#watch_fn();));
            }
        }
        let children = cluster
            .modules
            .iter()
            .filter(|child| child.parent == Some(m))
            .map(|child| {
                let child = ident(child.path.last().expect("child modules have a name"));
                let dispatch = ident(DISPATCH_MODULE);
                quote!(super::#child::#dispatch::register(table);)
            });
        let type_impls = cluster
            .types
            .iter()
            .enumerate()
            // A type no `Ty` names is never decoded or observed, and its impls would need
            // its lifetime or const parameters.
            .filter(|(id, t)| {
                t.module == m && t.unsupported_generics.is_none() && !disabled.types.contains(id)
            })
            .map(|(id, _)| type_impls(cluster, id));
        let mocks = mocks_of_module(cluster, m);
        let imported_mocks = mock_imports(cluster, m);
        let serve = (m == 0).then(|| {
            let n = cluster.callables.len();
            quote! {
                #[test]
                fn serve() {
                    let mut table: Vec<Option<::hermetic_driver::Entry>> = vec![None; #n];
                    register(&mut table);
                    let table: Vec<::hermetic_driver::Entry> =
                        table.into_iter().map(|e| e.unwrap_or(missing)).collect();
                    ::hermetic_driver::serve(&table);
                }

                fn missing(_: &[::hermetic_driver::Value], _: &mut ::hermetic_driver::Slots) -> ::std::result::Result<::hermetic_driver::Returned, ::hermetic_driver::DecodeError> {
                    Err(::hermetic_driver::DecodeError::new("no dispatch entry"))
                }
            }
        });
        let file = quote! {
            #![allow(unused_imports, unused_mut, unused_variables, unused_parens, dead_code)]
            #![allow(non_snake_case, clippy::all)]
            // The driver's own names are written in full: the crate's (through `use super::*`)
            // may be `Value` or `DecodeError` too.
            use super::*;

            pub(crate) fn register(table: &mut [Option<::hermetic_driver::Entry>]) {
                #(#registrations)*
                #(#children)*
            }

            #(#imported_mocks)*
            #serve
            #(#entries)*
            #(#type_impls)*
            #(#mocks)*
        };
        let source = prettyplease::unparse(&syn::parse2(file).expect("generated dispatch parses"));
        files.push(DispatchFile { module: m, source });
    }
    (files, unsupported)
}

/// The registration of fake `f` (set up by callable `id`): its callee's isolated calls are
/// reported, with what they returned.
fn watch(cluster: &Cluster, f: usize, id: usize, m: ModuleId) -> TokenStream {
    let def = &cluster.fakes[f];
    let callee = callee_path(cluster, &def.callee, m);
    let ret = ty(cluster, &def.ret, m);
    quote! {
        ::hermetic_driver::fakes::watch(
            ::hermetic_driver::fakes::key_of(&#callee),
            #id,
            |v| v.downcast_ref::<#ret>().map(::hermetic_driver::observe),
        );
    }
}

/// A disabled type that callable `id` takes, returns or belongs to, if any.
fn disabled_type_of(cluster: &Cluster, types: &BTreeSet<usize>, id: usize) -> Option<usize> {
    let c = &cluster.callables[id];
    let tys = || {
        c.params
            .iter()
            .map(|p| &p.ty)
            .chain([&c.ret])
            .chain(c.kind.self_ty())
    };
    types
        .iter()
        .copied()
        .find(|&a| tys().any(|t| t.mentions(&|t| matches!(t, Ty::Adt(x, _) if *x == a))))
}

/// Traits with a mock constructor: those a mock can implement.
fn mocked_traits(cluster: &Cluster) -> impl Iterator<Item = usize> + '_ {
    cluster.callables.iter().filter_map(|c| match c.kind {
        CallableKind::Mock(t) => Some(t),
        _ => None,
    })
}

/// The mocks of the traits declared in module `m`: defined in its dispatch module, where the
/// trait is visible even when private.
fn mocks_of_module(cluster: &Cluster, m: ModuleId) -> Vec<TokenStream> {
    mocked_traits(cluster)
        .filter(|&t| cluster.traits[t].module == m)
        .map(|t| {
            let items = mock_items(cluster, t, m, MockFlavour::Driver);
            let mock = ident(&cluster.traits[t].mock_name);
            quote! {
                #items
                impl ::hermetic_driver::Decode for #mock {
                    fn decode(value: &::hermetic_driver::Value, slots: &mut ::hermetic_driver::Slots) -> ::std::result::Result<Self, ::hermetic_driver::DecodeError> {
                        ::hermetic_driver::decode::take_stored(value, slots)
                    }
                }
                impl ::hermetic_driver::Observe for #mock {
                    fn observe(&self) -> ::hermetic_driver::Observed {
                        ::hermetic_driver::Observed::Opaque
                    }
                }
            }
        })
        .collect()
}

/// `use` items naming, in module `m`'s dispatch module, the mocks defined in other modules.
fn mock_imports(cluster: &Cluster, m: ModuleId) -> Vec<TokenStream> {
    mocked_traits(cluster)
        .filter(|&t| {
            let home = cluster.traits[t].module;
            home != m && cluster.module_visible_from(home, m)
        })
        .map(|t| {
            let def = &cluster.traits[t];
            let segments = cluster.modules[def.module].path.iter().map(|s| ident(s));
            let dispatch = ident(DISPATCH_MODULE);
            let mock = ident(&def.mock_name);
            quote!(use crate #(:: #segments)* :: #dispatch :: #mock;)
        })
        .collect()
}

/// How the dispatch code builds one argument.
struct ArgCode {
    /// Statements before the call.
    setup: TokenStream,
    /// The argument expression in the call.
    expr: TokenStream,
    /// Statements after the call (returning borrowed values to their slots).
    teardown: TokenStream,
}

/// How the dispatch code builds argument `k`, of type `t`. Data is decoded into its owned
/// form (`String` for `&str`, `Vec<String>` for `&[&str]`) and the argument is a view of it;
/// a crate value is taken from the slot of the statement that made it and put back after the
/// call. When the result borrows the argument (`held`), what it refers to must outlive the
/// dispatch function: the decoded value is leaked (the child exits after the execution) and a
/// crate value stays out of its slot, as if moved.
fn arg_code(cluster: &Cluster, m: ModuleId, t: &Ty, k: usize, held: bool) -> Result<ArgCode, Why> {
    let var = format_ident!("a{}", k);
    let slot = format_ident!("slot{}", k);
    let none = TokenStream::new();
    if t.mentions(&|t| matches!(t, Ty::Closure(..))) {
        return closure_arg(cluster, m, t, k);
    }
    if let Ty::Ref(inner) | Ty::RefMut(inner) = t {
        if matches!(**inner, Ty::Adt(..) | Ty::Mock(_)) {
            let tt = ty(cluster, inner, m);
            let mutable = matches!(t, Ty::RefMut(_));
            let take = quote! {
                let #slot = ::hermetic_driver::Slots::slot_of(&args[#k])?;
                let mut #var: Box<#tt> = slots.take(#slot)?;
            };
            return Ok(match (held, mutable) {
                (true, false) => ArgCode {
                    setup: quote!(#take let #var: &'static #tt = Box::leak(#var);),
                    expr: quote!(#var),
                    teardown: none,
                },
                (true, true) => ArgCode {
                    setup: quote!(#take let #var: &'static mut #tt = Box::leak(#var);),
                    expr: quote!(#var),
                    teardown: none,
                },
                (false, false) => ArgCode {
                    setup: take,
                    expr: quote!(&*#var),
                    teardown: quote!(slots.put_back(#slot, #var);),
                },
                (false, true) => ArgCode {
                    setup: take,
                    expr: quote!(&mut *#var),
                    teardown: quote!(slots.put_back(#slot, #var);),
                },
            });
        }
    }
    let owned = owned_form(t);
    // `&[Event]`, `&Vec<Event>`: crate values taken from their slots into the decoded
    // collection (moved, as the search counts them), which the argument borrows whole.
    let outer_borrow_only = matches!(t, Ty::Slice(e) | Ty::Ref(e) | Ty::RefMut(e) if !e.borrows());
    if t.borrows()
        && !outer_borrow_only
        && owned.mentions(&|t| matches!(t, Ty::Adt(..) | Ty::Mock(_)))
    {
        return Err(Why::new(
            SkipReason::ReferenceInside,
            format!(
                "a borrowed crate value inside `{}` is not supported",
                ty(cluster, t, m)
            ),
        ));
    }
    let tt = ty(cluster, &owned, m);
    let decoded = quote!(::hermetic_driver::decode::<#tt>(&args[#k], slots)?);
    if !t.borrows() {
        return Ok(ArgCode {
            setup: quote!(let mut #var: #tt = #decoded;),
            expr: quote!(#var),
            teardown: none,
        });
    }
    let mut setup = Vec::new();
    let (decl, place) = if held {
        let mutable = matches!(t, Ty::RefMut(_)).then(|| quote!(mut));
        (
            quote!(let #var: &'static #mutable #tt = Box::leak(Box::new(#decoded));),
            quote!((*#var)),
        )
    } else {
        (quote!(let mut #var: #tt = #decoded;), quote!(#var))
    };
    setup.push(decl);
    let mut views = Views {
        cluster,
        m,
        k,
        held,
        setup: &mut setup,
        temps: 0,
    };
    let expr = views.view(t, place, true)?;
    Ok(ArgCode {
        setup: quote!(#(#setup)*),
        expr,
        teardown: none,
    })
}

/// A closure argument (`Ty::Closure`, alone or behind `&`, `&mut`, `Box`): its return value is
/// decoded before the call and the closure is written in the call itself, where the callee's
/// `Fn*` bound gives its parameters their types (a closure bound to a variable first would not
/// take references of any lifetime). It ignores its arguments and returns a clone of the value.
fn closure_arg(cluster: &Cluster, m: ModuleId, t: &Ty, k: usize) -> Result<ArgCode, Why> {
    let (wrap, inner): (fn(TokenStream) -> TokenStream, &Ty) = match t {
        Ty::Closure(..) => (|c| c, t),
        Ty::Ref(inner) => (|c| quote!(&(#c)), inner),
        Ty::RefMut(inner) => (|c| quote!(&mut (#c)), inner),
        Ty::Box(inner) => (|c| quote!(::std::boxed::Box::new(#c)), inner),
        _ => (|c| c, t),
    };
    let Ty::Closure(arity, ret) = inner else {
        return Err(Why::new(
            SkipReason::Closure,
            format!("a closure inside `{}` is not supported", ty(cluster, t, m)),
        ));
    };
    let var = format_ident!("r{}", k);
    let rt = ty(cluster, ret, m);
    let pats = (0..*arity).map(|_| quote!(_));
    let closure = quote!(move |#(#pats),*| ::std::clone::Clone::clone(&#var));
    Ok(ArgCode {
        setup: quote!(let #var: #rt = ::hermetic_driver::decode::<#rt>(&args[#k], slots)?;),
        expr: wrap(closure),
        teardown: TokenStream::new(),
    })
}

/// The owned form of a type: what the driver decodes for it (`String` for `&str`, `Vec<T>`
/// for `&[T]`, `PathBuf` for `&Path`, `T` for `&T`, inside containers too).
fn owned_form(t: &Ty) -> Ty {
    let rec = |t: &Ty| Box::new(owned_form(t));
    match t {
        Ty::Str | Ty::Std(StdTy::PathStr, _) => Ty::String,
        Ty::Slice(e) => Ty::Vec(rec(e)),
        Ty::Ref(e) | Ty::RefMut(e) => owned_form(e),
        Ty::Std(StdTy::PathRef, _) => Ty::Std(StdTy::PathBuf, Vec::new()),
        Ty::Std(StdTy::OsStrRef, _) => Ty::Std(StdTy::OsString, Vec::new()),
        Ty::Vec(e) => Ty::Vec(rec(e)),
        Ty::Array(e, n) => Ty::Array(rec(e), *n),
        Ty::Option(e) => Ty::Option(rec(e)),
        Ty::Box(e) => Ty::Box(rec(e)),
        Ty::Result(o, e) => Ty::Result(rec(o), rec(e)),
        Ty::Tuple(items) => Ty::Tuple(items.iter().map(owned_form).collect()),
        Ty::Std(kind, args) => Ty::Std(*kind, args.iter().map(owned_form).collect()),
        other => other.clone(),
    }
}

/// Views of decoded (owned) data as the borrowing types a callable takes.
struct Views<'a> {
    cluster: &'a Cluster,
    m: ModuleId,
    k: usize,
    /// Whether temporaries must live for the rest of the execution.
    held: bool,
    /// Statements before the call: temporaries that views borrow (`Vec<&str>` for `&[&str]`).
    setup: &'a mut Vec<TokenStream>,
    temps: usize,
}

impl Views<'_> {
    /// An expression of type `t` viewing `place`, a place of `t`'s owned form; `top`: the
    /// place may be moved from (it is the decoded argument itself), else it is cloned.
    fn view(&mut self, t: &Ty, place: TokenStream, top: bool) -> Result<TokenStream, Why> {
        if !t.borrows() {
            return Ok(if top { place } else { quote!(#place.clone()) });
        }
        Ok(match t {
            Ty::Str | Ty::Std(StdTy::PathStr, _) => quote!(#place.as_str()),
            Ty::Std(StdTy::PathRef, _) => quote!(#place.as_path()),
            Ty::Std(StdTy::OsStrRef, _) => quote!(#place.as_os_str()),
            Ty::Ref(e) if !e.borrows() => quote!(&#place),
            Ty::RefMut(e) if top && !e.borrows() => quote!(&mut #place),
            Ty::Slice(e) if !e.borrows() => quote!(#place.as_slice()),
            // `&[&str]`: a vector of views, kept in a temporary the slice borrows.
            Ty::Slice(e) | Ty::Ref(e) => {
                let items = if matches!(t, Ty::Slice(_)) {
                    Ty::Vec(e.clone())
                } else {
                    (**e).clone()
                };
                let inner = self.view(&items, place, false)?;
                let temp = format_ident!("v{}_{}", self.k, self.temps);
                self.temps += 1;
                let tt = ty(self.cluster, &items, self.m);
                self.setup.push(if self.held {
                    quote!(let #temp: &'static #tt = Box::leak(Box::new(#inner));)
                } else {
                    quote!(let #temp: #tt = #inner;)
                });
                if matches!(t, Ty::Slice(_)) {
                    quote!(#temp.as_slice())
                } else if self.held {
                    quote!(#temp)
                } else {
                    quote!(&#temp)
                }
            }
            Ty::Vec(e) => {
                let item = self.view(e, quote!((*x)), false)?;
                quote!(#place.iter().map(|x| #item).collect::<Vec<_>>())
            }
            Ty::Option(e) => {
                let item = self.view(e, quote!((*x)), false)?;
                quote!(#place.as_ref().map(|x| #item))
            }
            Ty::Box(e) => {
                let item = self.view(e, quote!((*#place)), false)?;
                quote!(Box::new(#item))
            }
            Ty::Result(o, e) => {
                let ok = self.view(o, quote!((*x)), false)?;
                let err = self.view(e, quote!((*x)), false)?;
                quote!(match &#place { Ok(x) => Ok(#ok), Err(x) => Err(#err) })
            }
            Ty::Tuple(items) => {
                let parts = items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| {
                        let i = syn::Index::from(i);
                        self.view(item, quote!(#place.#i), false)
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                quote!((#(#parts,)*))
            }
            other => {
                return Err(Why::new(
                    SkipReason::ReferenceInside,
                    format!(
                        "a borrowed type inside `{}` is not supported",
                        ty(self.cluster, other, self.m)
                    ),
                ))
            }
        })
    }
}

fn call_body(cluster: &Cluster, id: usize) -> Result<TokenStream, Why> {
    let c = &cluster.callables[id];
    let m = c.module;
    let mut arg_types: Vec<Ty> = Vec::new();
    if let CallableKind::Method {
        self_ty, receiver, ..
    } = &c.kind
    {
        arg_types.push(match receiver {
            Receiver::Ref => Ty::Ref(Box::new(self_ty.clone())),
            Receiver::RefMut => Ty::RefMut(Box::new(self_ty.clone())),
            Receiver::Value => self_ty.clone(),
        });
    }
    arg_types.extend(c.params.iter().map(|p| p.ty.clone()));
    let codes = arg_types
        .iter()
        .enumerate()
        .map(|(k, t)| arg_code(cluster, m, t, k, c.held.contains(&k)))
        .collect::<Result<Vec<_>, _>>()?;
    let n = codes.len();
    let setup = codes.iter().map(|a| &a.setup);
    let teardown = codes.iter().map(|a| &a.teardown);
    let exprs: Vec<&TokenStream> = codes.iter().map(|a| &a.expr).collect();
    let name = ident(&c.name);
    let turbofish = if c.generic_args.is_empty() {
        quote!()
    } else {
        let g = c.generic_args.iter().map(|g| ty(cluster, g, m));
        quote!(::<#(#g),*>)
    };
    let call = match &c.kind {
        CallableKind::Function => {
            let path = item_path(cluster, m, &c.name, m);
            quote!(#path #turbofish (#(#exprs),*))
        }
        // A crate trait's method on a std type (`impl PathExt for Path`): by the trait's path,
        // which `Self` is inferred for from the receiver (`PathExt::to_slash(&path)`).
        CallableKind::Method {
            self_ty,
            of_trait: Some(of),
            ..
        } if !matches!(self_ty, Ty::Adt(..)) => {
            let tr = &cluster.traits[of.trait_id];
            let path = item_path(cluster, tr.module, &tr.name, m);
            quote!(#path::#name #turbofish (#(#exprs),*))
        }
        // A crate trait's associated function on a std type: nothing infers `Self`.
        CallableKind::AssocFn {
            self_ty,
            of_trait: Some(of),
        } => {
            let owner = ty(cluster, self_ty, m);
            let tr = &cluster.traits[of.trait_id];
            let path = item_path(cluster, tr.module, &tr.name, m);
            quote!(<#owner as #path>::#name #turbofish (#(#exprs),*))
        }
        CallableKind::AssocFn { self_ty, .. } | CallableKind::Method { self_ty, .. } => {
            let owner = ty_in_expr(cluster, self_ty, m);
            quote!(#owner::#name #turbofish (#(#exprs),*))
        }
        CallableKind::TraitFn {
            self_ty,
            trait_name,
        } => {
            let owner = ty(cluster, self_ty, m);
            let tr: syn::Path = syn::parse_str(trait_name).map_err(|e| {
                Why::new(
                    SkipReason::DriverRejected,
                    format!("cannot read trait `{trait_name}`: {e}"),
                )
            })?;
            quote!(<#owner as #tr>::#name(#(#exprs),*))
        }
        CallableKind::StructLiteral { self_ty, tuple } => {
            let owner = ty_in_expr(cluster, self_ty, m);
            let fields = c.params.iter().map(|p| ident(&p.name));
            match (tuple, n) {
                (_, 0) => quote!(#owner {}),
                (true, _) => quote!(#owner(#(#exprs),*)),
                (false, _) => quote!(#owner { #(#fields: #exprs),* }),
            }
        }
        CallableKind::Mock(t) => {
            let mock = ident(&cluster.traits[*t].mock_name);
            let fields = c.params.iter().map(|p| ident(&p.name));
            quote!(#mock {
                __stmt: slots.len(),
                #(#fields: ::hermetic_driver::mock::Returns::new(#exprs),)*
            })
        }
        CallableKind::Parse { self_ty } => {
            let owner = ty(cluster, self_ty, m);
            quote!(#(#exprs)*.parse::<#owner>().unwrap())
        }
        CallableKind::Fake(f) => {
            // Its fakes answer the execution's isolated calls from here on.
            let callee = callee_path(cluster, &cluster.fakes[*f].callee, m);
            return Ok(quote! {
                #(#setup)*
                ::hermetic_driver::fakes::enter(
                    ::hermetic_driver::fakes::Fakes::new().returns(#callee, #(#exprs)*),
                );
                Ok(::hermetic_driver::Returned { observed: None, stored: None, observer: None })
            });
        }
        CallableKind::Variant { self_ty, fields } => {
            let owner = ty_in_expr(cluster, self_ty, m);
            let names = c.params.iter().map(|p| ident(&p.name));
            match fields {
                crate::cluster::VariantShape::Unit => quote!(#owner::#name),
                crate::cluster::VariantShape::Tuple => quote!(#owner::#name(#(#exprs),*)),
                crate::cluster::VariantShape::Named => {
                    quote!(#owner::#name { #(#names: #exprs),* })
                }
            }
        }
    };
    let ret_ty = ty(cluster, &c.ret, m);
    let collect = crate::rust_syntax::collect_suffix(c.collect);
    // The value kept for later statements, with what observes it again at the end. A mock is
    // never observed again: its state is the values the test set up, not the crate's doing.
    let store = match c.ret.stored() {
        None => quote!((None, None)),
        Some(_) if matches!(c.kind, CallableKind::Mock(_)) => {
            quote!((Some(Box::new(ret) as Box<dyn std::any::Any>), None))
        }
        Some(_) => match &c.ret {
            Ty::Result(..) => quote!(match ret {
                Ok(v) => ::hermetic_driver::keep(v),
                Err(_) => (None, None),
            }),
            Ty::Option(_) => quote!(match ret {
                Some(v) => ::hermetic_driver::keep(v),
                None => (None, None),
            }),
            _ => quote!(::hermetic_driver::keep(ret)),
        },
    };
    if c.ret.holds_closure() {
        return Ok(quote! {
            #(#setup)*
            let _ret = #call;
            #(#teardown)*
            Ok(::hermetic_driver::Returned {
                observed: Some(::hermetic_driver::Observed::Opaque),
                stored: None,
                observer: None,
            })
        });
    }
    Ok(quote! {
        #(#setup)*
        let ret: #ret_ty = #call #collect;
        let observed = Some(::hermetic_driver::observe(&ret));
        let (stored, observer) = #store;
        #(#teardown)*
        Ok(::hermetic_driver::Returned { observed, stored, observer })
    })
}

/// `Decode` (taking the value from an earlier statement) and `Observe` for a crate type.
fn type_impls(cluster: &Cluster, id: usize) -> TokenStream {
    let def = &cluster.types[id];
    let name = ident(&def.name);
    let params: Vec<_> = def.generics.iter().map(|g| ident(g)).collect();
    let (observe_body, by) = observe_body(cluster, id);
    // Taking a stored value asks only `'static`; observing one field by field asks `Observe`
    // of the parameters, by its `Debug` text (derived: `Debug` of the parameters) `Debug`, and
    // observing nothing asks nothing. A type argument that has neither (`RealSys` standing in
    // for `S: Sys`, a `Cursor<String>` for `R: Read`) still works wherever the impl does not
    // need it.
    let asked = match by {
        ObservedBy::Fields => quote!(+ ::hermetic_driver::Observe),
        ObservedBy::Debug => quote!(+ ::std::fmt::Debug),
        ObservedBy::Nothing => quote!(),
    };
    let bounded: Vec<TokenStream> = params.iter().map(|p| quote!(#p: 'static #asked)).collect();
    let stored: Vec<TokenStream> = params.iter().map(|p| quote!(#p: 'static)).collect();
    let params: Vec<TokenStream> = params.iter().map(|p| quote!(#p)).collect();
    // Values the driver stores hold `'static` data; any may be observed.
    let lifetimes: Vec<TokenStream> = (0..def.lifetimes)
        .map(|i| {
            let l = syn::Lifetime::new(&format!("'h{i}"), proc_macro2::Span::call_site());
            quote!(#l)
        })
        .collect();
    let statics = lifetimes.iter().map(|_| quote!('static));
    let decode_args = angled(statics.chain(params.iter().cloned()));
    let observe_args = angled(lifetimes.iter().chain(&params).cloned());
    let observe_decl = angled(lifetimes.iter().chain(&bounded).cloned());
    let decode_decl = angled(stored.iter().cloned());
    // The type's own bounds (`struct Finder<S: Sys>`): without them neither impl compiles.
    // Those naming its lifetimes are left out: the driver's impls name none of them.
    let bounds: Vec<syn::WherePredicate> = def
        .bounds
        .iter()
        .filter(|b| !b.contains('\''))
        .filter_map(|b| syn::parse_str(b).ok())
        .collect();
    let clause = (!bounds.is_empty()).then(|| quote!(where #(#bounds),*));
    quote! {
        impl #decode_decl ::hermetic_driver::Decode for #name #decode_args #clause {
            fn decode(value: &::hermetic_driver::Value, slots: &mut ::hermetic_driver::Slots) -> ::std::result::Result<Self, ::hermetic_driver::DecodeError> {
                ::hermetic_driver::decode::take_stored(value, slots)
            }
        }
        impl #observe_decl ::hermetic_driver::Observe for #name #observe_args #clause {
            fn observe(&self) -> ::hermetic_driver::Observed {
                #observe_body
            }
        }
    }
}

/// `<a, b>`, or nothing for no items.
fn angled(items: impl Iterator<Item = TokenStream>) -> TokenStream {
    let items: Vec<TokenStream> = items.collect();
    if items.is_empty() {
        quote!()
    } else {
        quote!(<#(#items),*>)
    }
}

/// How a crate type's `Observe` impl observes its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ObservedBy {
    Fields,
    Debug,
    Nothing,
}

/// Field by field when every field's type is known; else the `Debug` text; else nothing.
fn observe_body(cluster: &Cluster, id: usize) -> (TokenStream, ObservedBy) {
    let def = &cluster.types[id];
    let debug = def.implements("Debug");
    let fields_known = |f: &Fields| {
        f.all().iter().all(|f| {
            f.ty.as_ref()
                .is_some_and(|t| !t.mentions(&|t| matches!(t, Ty::Mock(_))))
        })
    };
    let observe_fields = |f: &Fields, bind: bool| -> (TokenStream, TokenStream) {
        let names: Vec<String> = f.all().iter().map(|f| f.name.clone()).collect();
        let vars: Vec<_> = (0..names.len()).map(|i| format_ident!("f{}", i)).collect();
        let pattern = match f {
            Fields::Unit => quote!(),
            Fields::Tuple(_) => quote!((#(#vars),*)),
            Fields::Named(_) => {
                let idents = names.iter().map(|n| ident(n));
                quote!({ #(#idents: #vars),* })
            }
        };
        let _ = bind;
        let list = quote!(vec![#((#names.to_string(), ::hermetic_driver::observe(#vars))),*]);
        (pattern, list)
    };
    let body = match &def.kind {
        TypeKind::Struct(fields) if fields_known(fields) => {
            let (pattern, list) = observe_fields(fields, true);
            quote! {
                let Self #pattern = self;
                ::hermetic_driver::Observed::Struct(#list)
            }
        }
        TypeKind::Enum(variants) if variants.iter().all(|v| fields_known(&v.fields)) => {
            let arms = variants.iter().map(|v| {
                let vname = ident(&v.name);
                let vstr = &v.name;
                let (pattern, list) = observe_fields(&v.fields, true);
                quote!(Self::#vname #pattern => ::hermetic_driver::Observed::Variant(#vstr.to_string(), #list),)
            });
            if variants.is_empty() {
                quote!(match *self {})
            } else {
                quote!(match self { #(#arms)* })
            }
        }
        _ if debug => {
            return (
                quote!(::hermetic_driver::observe::debug_text(self)),
                ObservedBy::Debug,
            )
        }
        _ => {
            return (
                quote!(::hermetic_driver::Observed::Opaque),
                ObservedBy::Nothing,
            )
        }
    };
    (body, ObservedBy::Fields)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Asserts that the driver's source, without whitespace, holds each of `expected`.
    fn assert_holds(source: &str, expected: &[&str]) {
        let flat: String = source.chars().filter(|c| !c.is_whitespace()).collect();
        for e in expected {
            assert!(flat.contains(e), "no {e}:\n{source}");
        }
    }

    #[test]
    fn the_drivers_names_are_absolute_so_crate_types_may_share_them() {
        let cluster = crate::analyze::analyze_lib(
            "pub struct Value(pub u8);\npub struct DecodeError;\npub fn bump(v: Value) -> Value { Value(v.0 + 1) }\n",
        );
        let (files, unsupported) = generate(&cluster, &Disabled::default());
        assert!(unsupported.is_empty());
        let src = &files[0].source;
        assert!(!src.contains("use ::hermetic_driver::{"), "{src}");
        // The crate's `Value` is decoded and observed under its own name...
        assert!(
            src.contains("impl ::hermetic_driver::Decode for Value"),
            "{src}"
        );
        // ...and every name of the driver's is spelled in full.
        let bare = |name: &str| {
            src.match_indices(name).any(|(i, _)| {
                !src[..i].ends_with("::hermetic_driver::")
                    && src[..i].ends_with(['(', ' ', '<', '&'])
            })
        };
        for name in ["Slots", "Returned", "Observed::"] {
            assert!(!bare(name), "`{name}` is not spelled in full:\n{src}");
        }
    }

    #[test]
    fn closures_are_written_in_the_call_and_return_a_decoded_value() {
        let cluster = crate::analyze::analyze_lib(
            "pub fn keep<P: FnMut(&str) -> bool>(names: Vec<String>, mut p: P) -> usize { names.iter().filter(|n| p(n)).count() }\n\
             pub fn home<T: ?Sized + Fn(&str) -> Option<String>>(env: &T) -> bool { env(\"HOME\").is_some() }\n\
             pub struct Filter<P> { p: P }\n\
             pub fn filtered<P: FnMut(&str) -> bool>(p: P) -> Filter<P> { Filter { p } }\n",
        );
        let (files, unsupported) = generate(&cluster, &Disabled::default());
        assert!(unsupported.is_empty());
        assert_holds(
            &files[0].source,
            &[
                // The return value is decoded before the call...
                "letr1:bool=::hermetic_driver::decode::<bool>(&args[1usize],slots)?;",
                // ...and the closure, typed by the callee's bound, is written in the call.
                "keep::<_>(a0,move|_|::std::clone::Clone::clone(&r1))",
                "letr0:Option<String>=",
                "home::<_>(&(move|_|::std::clone::Clone::clone(&r0)))",
                // A result holding the closure has a type without a name: neither kept nor
                // observed.
                "let_ret=filtered::<_>(move|_|::std::clone::Clone::clone(&r0));",
            ],
        );
    }

    #[test]
    fn a_slice_of_crate_values_borrows_a_vector_taken_from_their_slots() {
        let cluster = crate::analyze::analyze_lib(
            "#[derive(Clone, Copy)] pub enum Event { Coin(u32), Cancel }\n\
             pub fn run(events: &[Event]) -> usize { events.len() }\n\
             pub fn total(events: &Vec<Event>, nested: &[&Event]) -> usize { events.len() + nested.len() }\n",
        );
        let (files, unsupported) = generate(&cluster, &Disabled::default());
        let unsupported: Vec<_> = unsupported
            .iter()
            .map(|u| cluster.callables[u.callable].name.as_str())
            .collect();
        // A borrow inside the collection still has no slot to come from.
        assert_eq!(unsupported, ["total"]);
        assert_holds(
            &files[0].source,
            &[
                "letmuta0:Vec<Event>=::hermetic_driver::decode::<",
                "run(a0.as_slice())",
            ],
        );
    }

    #[test]
    fn a_generic_types_impls_keep_its_bounds() {
        let cluster = crate::analyze::analyze_lib(
            "pub trait Sys {}\n\
             pub struct Finder<S: Sys + Clone, T = u8> where T: Copy { sys: S, t: T }\n\
             pub fn width<S: Sys + Clone>(f: &Finder<S>) -> u8 { f.t }\n",
        );
        let (files, _) = generate(&cluster, &Disabled::default());
        let src = files[0].source.replace(char::is_whitespace, "");
        for imp in ["Decode", "Observe"] {
            let head = format!("::hermetic_driver::{imp}forFinder<S,T>whereS:Sys+Clone,T:Copy,{{");
            assert!(src.contains(&head), "{imp}: {}", files[0].source);
        }
    }

    #[test]
    fn a_type_observed_as_nothing_asks_nothing_of_its_parameters() {
        // `Lines<R>`'s field is no type analysis knows and it has no `Debug`: it is observed as
        // nothing, so `Lines<Cursor<String>>` needs no `Observe` of the cursor.
        let cluster = crate::analyze::analyze_lib(
            "pub struct Lines<R> { inner: std::io::BufReader<R> }\n\
             #[derive(Debug)] pub struct Shown<T> { inner: std::io::BufReader<T> }\n",
        );
        let (files, _) = generate(&cluster, &Disabled::default());
        let src = files[0].source.replace(char::is_whitespace, "");
        for head in [
            "impl<R:'static>::hermetic_driver::ObserveforLines<R>",
            "impl<T:'static+::std::fmt::Debug>::hermetic_driver::ObserveforShown<T>",
        ] {
            assert!(src.contains(head), "no {head}: {}", files[0].source);
        }
    }
}
