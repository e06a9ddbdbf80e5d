//! How a trait's mock is written: one struct per trait (`MockLedger`), a `Returns` per method
//! that returns something, a `<method>_returns(..)` set-up method for each, and the trait impls.
//! Recorded tests' mocks have a `recorded()` constructor too: `cargo hermetic record` replays a
//! run's values with it (each value once, and all of them).
//!
//! The driver and the emitted tests use the same code, so a mock behaves alike in the search
//! and in the tests it produces; the driver's version also counts calls, which the search uses
//! to fit the number of values set up to the number of calls (seed 003 §III-C).

use crate::cluster::{Cluster, ModuleId, Receiver, TraitId, Ty};
use crate::rust_syntax::{ident, item_path, ty, ty_with};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// Where the mock lives and what it may use.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum MockFlavour {
    /// In an emitted test module: `::hermetic::mock::Returns` from the dev-dependency.
    Test,
    /// In a test module `cargo hermetic record` wrote: as `Test`, with `recorded()`.
    Recorded,
    /// In the driver: calls are counted and reported (`::hermetic_driver::mock`).
    Driver,
}

/// The name of the set-up method for a mocked method: `balance` → `balance_returns`.
pub fn setup_method(method: &str) -> proc_macro2::Ident {
    format_ident!("{}_returns", method)
}

/// The mock's struct, set-up methods and trait impls, as items of module `from`.
pub fn mock_items(
    cluster: &Cluster,
    t: TraitId,
    from: ModuleId,
    flavour: MockFlavour,
) -> TokenStream {
    let def = &cluster.traits[t];
    let mock = ident(&def.mock_name);
    let returns = match flavour {
        MockFlavour::Test | MockFlavour::Recorded => quote!(::hermetic::mock::Returns),
        MockFlavour::Driver => quote!(::hermetic_driver::mock::Returns),
    };
    let configured = cluster.mock_methods(t);
    let fields = configured.iter().map(|(_, m)| {
        let f = ident(&m.name);
        let r = ty(cluster, &m.ret, from);
        quote!(#f: #returns<#r>,)
    });
    let setups = configured.iter().map(|(_, m)| {
        let f = ident(&m.name);
        let setup = setup_method(&m.name);
        let r = ty(cluster, &m.ret, from);
        quote! {
            pub(crate) fn #setup(mut self, values: impl IntoIterator<Item = #r>) -> Self {
                self.#f.set(values);
                self
            }
        }
    });
    let (tag_field, vis) = match flavour {
        MockFlavour::Test | MockFlavour::Recorded => (quote!(), quote!()),
        MockFlavour::Driver => (quote!(__stmt: usize,), quote!(pub(crate))),
    };
    let recorded = match flavour {
        MockFlavour::Recorded => {
            let fields = configured.iter().map(|(owner, m)| {
                let f = ident(&m.name);
                let what = format!("{}::{}", cluster.traits[*owner].name, m.name);
                quote!(#f: #returns::recorded(#what),)
            });
            quote! {
                /// Replays a recorded run: each value is given once, and the test fails if the
                /// code asks for fewer.
                pub(crate) fn recorded() -> Self {
                    Self { #(#fields)* }
                }
            }
        }
        MockFlavour::Test | MockFlavour::Driver => quote!(),
    };
    let impls = def
        .supertraits
        .iter()
        .chain(std::iter::once(&t))
        .map(|&owner| {
            let tr = &cluster.traits[owner];
            let path = item_path(cluster, tr.module, &tr.name, from);
            let methods = tr.methods.iter().map(|m| {
                let name = ident(&m.name);
                let recv = match m.receiver {
                    Receiver::Ref => quote!(&self),
                    Receiver::RefMut => quote!(&mut self),
                    Receiver::Value => quote!(self),
                };
                let params = m.params.iter().map(|p| {
                    let p = as_trait_wrote(cluster, p, from);
                    quote!(_: #p)
                });
                if m.ret == Ty::Unit {
                    return quote!(fn #name(#recv, #(#params),*) {});
                }
                let r = as_trait_wrote(cluster, &m.ret, from);
                let what = format!("{}::{}", tr.name, m.name);
                let next = if m.repeats {
                    quote!(next)
                } else {
                    quote!(next_once)
                };
                let count = match flavour {
                    MockFlavour::Test | MockFlavour::Recorded => quote!(),
                    MockFlavour::Driver => {
                        let k = configured
                            .iter()
                            .position(|(o, c)| *o == owner && c.name == m.name)
                            .unwrap_or(usize::MAX);
                        quote!(::hermetic_driver::mock::called(self.__stmt, #k);)
                    }
                };
                quote! {
                    fn #name(#recv, #(#params),*) -> #r {
                        #count
                        self.#name.#next(#what)
                    }
                }
            });
            quote! {
                impl #path for #mock {
                    #(#methods)*
                }
            }
        });
    let doc = format!(
        " Stands in for `{}`: each method returns the values a test sets up with `<method>_returns`.",
        def.name
    );
    quote! {
        #[doc = #doc]
        #[derive(Default, Debug)]
        #vis struct #mock {
            #tag_field
            #(#fields)*
        }

        #[allow(dead_code)]
        impl #mock {
            #recorded
            #(#setups)*
        }

        #(#impls)*
    }
}

/// A type as the trait's signature has it: mocks are the trait objects they stand for
/// (`Box<MockStatement>` is written `Box<dyn Statement>`; the value coerces on return).
pub fn as_trait_wrote(cluster: &Cluster, t: &Ty, from: ModuleId) -> TokenStream {
    ty_with(cluster, t, from, &|id| {
        let tr = &cluster.traits[id];
        let path = item_path(cluster, tr.module, &tr.name, from);
        quote!(dyn #path)
    })
}
