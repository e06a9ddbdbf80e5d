//! Recording proxies as code: for a crate trait a mock can implement, a module beside the trait
//! whose `Proxy<H>` implements it (and its crate supertraits) by forwarding every method to the
//! real value it holds and logging, through the runtime's `Tap`, what each method returned.
//!
//! The proxy mirrors the trait's mock (`mock_syntax`): the same methods, spelled the same way,
//! numbered as the mock's set-up methods, so what a proxy logs is what the mock replays; the
//! methods a recorded mock tells apart by arguments (`mock_syntax::by_args`) log their
//! arguments too. A method returning `Box<dyn U>` wraps the box in `U`'s proxy: a tree of
//! proxies.

use super::wrapper::capture;
use crate::cluster::{Cluster, Receiver, TraitId, Ty};
use crate::mock_syntax::{as_trait_wrote, by_args};
use crate::rust_syntax::{ident, item_path};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::BTreeMap;

/// The first words of a proxy module's name; the trait's id follows.
const MODULE_PREFIX: &str = "__hermetic_proxy_";

/// Which traits can get a proxy: `Ok`, or why not. `broken`: proxies the compiler rejected,
/// with the reason. A trait whose methods return a trait that cannot have one cannot either.
pub fn verdicts(cluster: &Cluster, broken: &BTreeMap<TraitId, String>) -> Vec<Result<(), String>> {
    let mut out: Vec<Result<(), String>> = (0..cluster.traits.len())
        .map(|t| own_verdict(cluster, t, broken))
        .collect();
    // Returned boxes need their trait's proxy: propagate until nothing changes.
    loop {
        let mut changed = false;
        for t in 0..out.len() {
            if out[t].is_err() {
                continue;
            }
            let bad = boxed_returns(cluster, t)
                .into_iter()
                .find(|&u| out[u].is_err());
            if let Some(u) = bad {
                out[t] = Err(format!(
                    "the proxy of `{}`, which its methods return, {}",
                    cluster.traits[u].name,
                    match &out[u] {
                        Err(why) => format!("cannot be built ({why})"),
                        Ok(()) => unreachable!(),
                    }
                ));
                changed = true;
            }
        }
        if !changed {
            return out;
        }
    }
}

fn own_verdict(
    cluster: &Cluster,
    t: TraitId,
    broken: &BTreeMap<TraitId, String>,
) -> Result<(), String> {
    if let Some(why) = broken.get(&t) {
        return Err(why.clone());
    }
    if !cluster
        .callables
        .iter()
        .any(|c| c.kind == crate::cluster::CallableKind::Mock(t))
    {
        return Err(format!(
            "trait `{}` cannot be mocked",
            cluster.traits[t].name
        ));
    }
    for &owner in owners(cluster, t).iter() {
        let tr = &cluster.traits[owner];
        if let Some(m) = tr.methods.iter().find(|m| m.receiver == Receiver::Value) {
            return Err(format!(
                "`{}::{}` takes `self` by value (a proxy forwards through a reference)",
                tr.name, m.name
            ));
        }
    }
    Ok(())
}

/// The trait and its crate supertraits, supertraits first (the mock's order).
fn owners(cluster: &Cluster, t: TraitId) -> Vec<TraitId> {
    let mut all = cluster.traits[t].supertraits.clone();
    all.push(t);
    all
}

/// The traits whose boxes the methods of `t` (and its supertraits) return.
pub fn boxed_returns(cluster: &Cluster, t: TraitId) -> Vec<TraitId> {
    owners(cluster, t)
        .into_iter()
        .flat_map(|o| cluster.traits[o].methods.iter())
        .filter_map(|m| boxed_mock(&m.ret))
        .collect()
}

fn boxed_mock(t: &Ty) -> Option<TraitId> {
    match t {
        Ty::Box(inner) => match **inner {
            Ty::Mock(u) => Some(u),
            _ => None,
        },
        _ => None,
    }
}

/// `__hermetic_proxy_3`.
fn module_name(t: TraitId) -> proc_macro2::Ident {
    format_ident!("{MODULE_PREFIX}{t}")
}

/// The trait a source line opens the proxy module of (`pub(crate) mod __hermetic_proxy_3 {`).
pub fn module_in_line(line: &str) -> Option<TraitId> {
    let rest = line.split(&format!("mod {MODULE_PREFIX}")).nth(1)?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The proxy type of trait `t`, from anywhere in the crate.
pub fn proxy_path(cluster: &Cluster, t: TraitId) -> TokenStream {
    let segments = cluster.modules[cluster.traits[t].module]
        .path
        .iter()
        .map(|s| ident(s));
    let m = module_name(t);
    quote!(crate #(:: #segments)* :: #m :: Proxy)
}

/// The proxy module of trait `t`, an item of the trait's module.
pub fn proxy_module(cluster: &Cluster, t: TraitId) -> syn::Item {
    let def = &cluster.traits[t];
    let from = def.module;
    let m = module_name(t);
    let holder = quote!(::hermetic::record::Holder);
    let h = format_ident!("__HermeticH");
    let trait_path = item_path(cluster, from, &def.name, from);
    // A proxy has what the trait asks of every implementor: `Send` when what it holds is.
    let markers: Vec<TokenStream> = def
        .markers
        .iter()
        .filter(|m| matches!(m.as_str(), "Send" | "Sync" | "Unpin"))
        .map(|m| {
            let m = ident(m);
            quote!(#h: ::std::marker::#m,)
        })
        .collect();
    let configured: Vec<(TraitId, String)> = cluster
        .mock_methods(t)
        .into_iter()
        .map(|(o, m)| (o, m.name.clone()))
        .collect();
    let impls = owners(cluster, t).into_iter().map(|owner| {
        let tr = &cluster.traits[owner];
        let owner_path = item_path(cluster, tr.module, &tr.name, from);
        let methods = tr.methods.iter().map(|m| {
            let name = ident(&m.name);
            let (recv, get) = match m.receiver {
                Receiver::RefMut => (quote!(&mut self), quote!(#holder::get_mut(&mut self.inner))),
                _ => (quote!(&self), quote!(#holder::get(&self.inner))),
            };
            let args: Vec<_> = (0..m.params.len())
                .map(|i| format_ident!("__hermetic_a{i}"))
                .collect();
            let params = m.params.iter().zip(&args).map(|(p, a)| {
                let p = as_trait_wrote(cluster, p, from);
                quote!(#a: #p)
            });
            let call = quote!(#owner_path::#name(#get, #(#args),*));
            if m.ret == Ty::Unit {
                return quote! {
                    fn #name(#recv, #(#params),*) {
                        let _hermetic_slot = self.tap.forwarding();
                        #call
                    }
                };
            }
            let k = configured
                .iter()
                .position(|(o, n)| *o == owner && *n == m.name)
                .unwrap_or(usize::MAX) as u32;
            let r = as_trait_wrote(cluster, &m.ret, from);
            // Arguments the recorded mock tells calls apart by are logged before the real
            // value gets them (it may take them by value).
            let slot = if by_args(cluster, m) {
                let args = args.iter().map(|a| capture(quote!(#a)));
                quote! {
                    self.tap.calling_with(#k, |__hermetic_w: &mut ::hermetic::record::Writer| {
                        #(#args)*
                    })
                }
            } else {
                quote!(self.tap.calling(#k))
            };
            let log = match boxed_mock(&m.ret) {
                Some(u) => {
                    let proxy = proxy_path(cluster, u);
                    quote!(::std::boxed::Box::new(#proxy::new(__hermetic_ret, __hermetic_slot.returned_box())))
                }
                None => {
                    let ret = capture(quote!(__hermetic_ret));
                    quote! {{
                        __hermetic_slot.returned(|__hermetic_w: &mut ::hermetic::record::Writer| {
                            #ret
                        });
                        __hermetic_ret
                    }}
                }
            };
            quote! {
                fn #name(#recv, #(#params),*) -> #r {
                    let __hermetic_slot = #slot;
                    let __hermetic_ret = #call;
                    #log
                }
            }
        });
        quote! {
            impl<#h: #holder> #owner_path for Proxy<#h>
            where
                #h::Target: #trait_path,
                #(#markers)*
            {
                #(#methods)*
            }
        }
    });
    let doc = format!(
        " Records what a `{}` returns, for `cargo hermetic record`.",
        def.name
    );
    syn::parse_quote! {
        #[doc(hidden)]
        #[allow(dead_code, unused_imports, unused_braces, non_snake_case, clippy::all)]
        pub(crate) mod #m {
            use super::*;
            use ::hermetic::record::{ViaCapture as _, ViaDebug as _, ViaOpaque as _};

            #[doc = #doc]
            pub(crate) struct Proxy<#h> {
                inner: #h,
                tap: ::hermetic::record::Tap,
            }

            impl<#h> Proxy<#h> {
                pub(crate) fn new(inner: #h, tap: ::hermetic::record::Tap) -> Self {
                    Proxy { inner, tap }
                }
            }

            impl<#h: #holder> ::std::fmt::Debug for Proxy<#h>
            where
                #h::Target: ::std::fmt::Debug,
            {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    ::std::fmt::Debug::fmt(#holder::get(&self.inner), f)
                }
            }

            #(#impls)*
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze_lib as cluster;

    #[test]
    fn traits_whose_methods_take_self_by_value_get_no_proxy_nor_those_returning_them() {
        let c = cluster(
            "pub trait Token { fn spend(self) -> u32; }\n\
             pub trait Wallet { fn token(&self) -> Box<dyn Token>; }\n\
             pub trait Ledger: Named + Send { fn balance(&self) -> u64; }\n\
             pub trait Named { fn name(&self) -> String; }\n",
        );
        let v = verdicts(&c, &BTreeMap::new());
        assert!(v[0]
            .as_ref()
            .unwrap_err()
            .contains("`Token::spend` takes `self` by value"));
        assert!(v[1].as_ref().unwrap_err().contains("the proxy of `Token`"));
        assert!(v[2].is_ok() && v[3].is_ok());
        let broken = BTreeMap::from([(3, "it did not compile".to_string())]);
        assert!(verdicts(&c, &broken)[3].is_err());

        // A supertrait's methods are forwarded too, numbered as the mock's set-up methods; the
        // proxy is `Send` when what it holds is.
        let m = proxy_module(&c, 2);
        let text = quote!(#m).to_string();
        assert!(text.contains("impl < __HermeticH : :: hermetic :: record :: Holder > Named for Proxy < __HermeticH >"), "{text}");
        assert!(
            text.contains("__HermeticH : :: std :: marker :: Send"),
            "{text}"
        );
        assert!(
            text.contains(
                "fn name (& self ,) -> String { let __hermetic_slot = self . tap . calling (0u32)"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "fn balance (& self ,) -> u64 { let __hermetic_slot = self . tap . calling (1u32)"
            ),
            "{text}"
        );
        let marker = format!("pub(crate) mod {MODULE_PREFIX}2 {{");
        assert_eq!(module_in_line(&marker), Some(2));
        assert_eq!(
            module_in_line("let x = crate::__hermetic_proxy_2::Proxy::new(a, t);"),
            None
        );
    }

    #[test]
    fn arguments_are_logged_for_the_methods_a_recorded_mock_tells_apart_by_them() {
        let c = cluster(
            "pub trait Rows { fn get(&self, column: usize, name: &str) -> String; \
             fn fill(&mut self, into: &mut Vec<u8>) -> usize; fn next(&mut self) -> bool; }\n",
        );
        let m = proxy_module(&c, 0);
        let text = quote!(#m).to_string();
        let capture = |a: &str| {
            format!("(& & & :: hermetic :: record :: Wrap (& {a})) . capture (__hermetic_w) ;")
        };
        let expected = format!(
            "self . tap . calling_with (0u32 , | __hermetic_w : & mut :: hermetic :: record :: \
             Writer | {{ {} {} }}) ; let __hermetic_ret = Rows :: get",
            capture("__hermetic_a0"),
            capture("__hermetic_a1")
        );
        assert!(text.contains(&expected), "{text}");
        assert!(text.contains("self . tap . calling (1u32)"), "{text}");
        assert!(text.contains("self . tap . calling (2u32)"), "{text}");
    }
}
