//! How a trait's mock is written: one struct per trait (`MockLedger`), a `Returns` per method
//! that returns something, a `<method>_returns(..)` set-up method for each, and the trait impls.
//! Recorded tests' mocks have a `recorded()` constructor too: `cargo hermetic record` replays a
//! run's values with it (each value once, and all of them). A recorded mock's method that takes
//! arguments also has `<method>_returns_for(<its arguments>, values)`, which sets values up for
//! calls with those arguments (seed 002 §III-F7: a mock's calls grouped by arguments, a
//! sequence of values each); which methods have one is [`by_args`].
//!
//! The driver and the emitted tests use the same code, so a mock behaves alike in the search
//! and in the tests it produces; the driver's version also counts calls, which the search uses
//! to fit the number of values set up to the number of calls (seed 003 §III-C).
//!
//! A `_returns_for` method's values are carried in the mock's statement as one value, a tuple of
//! `(arguments, values)` pairs ([`values_by_args`]).

use crate::cluster::{Cluster, MockMethod, ModuleId, Receiver, TraitId, Ty};
use crate::rust_syntax::{ident, item_path, ty, ty_with};
use hermetic_protocol::Value;
use proc_macro2::{Ident, TokenStream};
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

/// The name of the set-up method by arguments: `get` → `get_returns_for`, called as
/// `get_returns_for(1, ["ada".to_string()])`: "`get` returns, for 1, "ada"", the arguments
/// first, as in the call it answers.
pub fn setup_for_method(method: &str) -> Ident {
    format_ident!("{}_returns_for", method)
}

/// Whether a recorded mock tells calls of `m` apart by their arguments (and has
/// [`setup_for_method`] for it): `m` takes arguments, and each parameter's type can be a set-up
/// method's parameter whose `Debug` text the mock can take. Not a `&mut` (the test would lend
/// the mock a value it cannot give back), a trait object, or a crate type without `Debug`;
/// other methods keep one sequence of values for all calls.
pub fn by_args(cluster: &Cluster, m: &MockMethod) -> bool {
    !m.params.is_empty() && m.params.iter().all(|p| set_up_param(cluster, p))
}

/// Whether a test can write a value of type `t` as a set-up key: nothing inside it is borrowed
/// mutably, a mock or std stand-in, or a crate type without `Debug`.
fn set_up_param(cluster: &Cluster, t: &Ty) -> bool {
    !t.mentions(&|t| match t {
        Ty::RefMut(_) | Ty::Mock(_) | Ty::Reader | Ty::IntoIter(_) | Ty::IoError => true,
        Ty::Adt(id, _) => !cluster.types[*id].implements("Debug"),
        _ => false,
    })
}

/// The names of `m`'s parameters in a set-up method: the trait's, but never `values`, which the
/// set-up method takes after them.
fn param_names(m: &MockMethod) -> Vec<Ident> {
    m.param_names
        .iter()
        .enumerate()
        .map(|(i, n)| match n.as_str() {
            "values" => format_ident!("arg{i}"),
            n => ident(n),
        })
        .collect()
}

/// A recorded mock's values for one method set up by arguments, as the value of the mock
/// constructor's parameter for that method: a tuple of `(arguments, values)` pairs. The
/// parameter is a `Vec` of values, which never takes a tuple otherwise, so one statement
/// carries both kinds of set-up.
pub fn values_by_args(groups: Vec<(Vec<Value>, Vec<Value>)>) -> Value {
    Value::Tuple(
        groups
            .into_iter()
            .map(|(args, values)| Value::Tuple(vec![Value::Tuple(args), Value::Seq(values)]))
            .collect(),
    )
}

/// The `(arguments, values)` pairs of [`values_by_args`], if `v` is one.
pub fn groups_by_args(v: &Value) -> Option<Vec<(&[Value], &[Value])>> {
    let Value::Tuple(groups) = v else {
        return None;
    };
    groups
        .iter()
        .map(|g| match g {
            Value::Tuple(pair) => match pair.as_slice() {
                [Value::Tuple(args), Value::Seq(values)] => Some((&args[..], &values[..])),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// The mock's struct, set-up methods and trait impls, as items of module `from`.
/// `t` with its elided lifetimes (`Cow<'_, str>`, `Parser<'_>`) spelled `'static`: what a
/// mock keeps to return later is owned (a field or `impl IntoIterator` cannot elide one), and
/// a `'static` value stands in for any shorter one the trait's signature asks for.
fn static_lifetimes(t: TokenStream) -> TokenStream {
    use proc_macro2::TokenTree;
    let mut out = Vec::new();
    let mut tokens = t.into_iter().peekable();
    while let Some(tt) = tokens.next() {
        match tt {
            TokenTree::Punct(p) if p.as_char() == '\'' => {
                let underscore = matches!(tokens.peek(), Some(TokenTree::Ident(i)) if i == "_");
                out.push(TokenTree::Punct(p));
                if underscore {
                    tokens.next();
                    out.push(TokenTree::Ident(proc_macro2::Ident::new(
                        "static",
                        proc_macro2::Span::call_site(),
                    )));
                }
            }
            TokenTree::Group(g) => {
                let mut inner =
                    proc_macro2::Group::new(g.delimiter(), static_lifetimes(g.stream()));
                inner.set_span(g.span());
                out.push(TokenTree::Group(inner));
            }
            other => out.push(other),
        }
    }
    out.into_iter().collect()
}

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
        let r = static_lifetimes(ty(cluster, &m.ret, from));
        quote!(#f: #returns<#r>,)
    });
    let setups = configured.iter().map(|(_, m)| {
        let f = ident(&m.name);
        let setup = setup_method(&m.name);
        let r = static_lifetimes(ty(cluster, &m.ret, from));
        let for_args = match flavour {
            MockFlavour::Recorded if by_args(cluster, m) => {
                let setup_for = setup_for_method(&m.name);
                let names = param_names(m);
                let params = m.params.iter().zip(&names).map(|(p, n)| {
                    let p = as_trait_wrote(cluster, p, from);
                    quote!(#n: #p)
                });
                quote! {
                    pub(crate) fn #setup_for(
                        mut self,
                        #(#params,)*
                        values: impl IntoIterator<Item = #r>,
                    ) -> Self {
                        self.#f.set_for(&[#(&#names),*], values);
                        self
                    }
                }
            }
            _ => quote!(),
        };
        quote! {
            pub(crate) fn #setup(mut self, values: impl IntoIterator<Item = #r>) -> Self {
                self.#f.set(values);
                self
            }
            #for_args
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
                let what = format!("{}::{}", tr.name, m.name);
                // A recorded mock finds a call's values by its arguments.
                if flavour == MockFlavour::Recorded && m.ret != Ty::Unit && by_args(cluster, m) {
                    let names = param_names(m);
                    let params = m.params.iter().zip(&names).map(|(p, n)| {
                        let p = as_trait_wrote(cluster, p, from);
                        quote!(#n: #p)
                    });
                    let r = as_trait_wrote(cluster, &m.ret, from);
                    return quote! {
                        fn #name(#recv, #(#params),*) -> #r {
                            self.#name.next_for(&[#(&#names),*], #what)
                        }
                    };
                }
                let params = m.params.iter().map(|p| {
                    let p = as_trait_wrote(cluster, p, from);
                    quote!(_: #p)
                });
                if m.ret == Ty::Unit {
                    return quote!(fn #name(#recv, #(#params),*) {});
                }
                let r = as_trait_wrote(cluster, &m.ret, from);
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
    let by = match flavour {
        MockFlavour::Recorded => " (or, for given arguments, `<method>_returns_for`)",
        MockFlavour::Test | MockFlavour::Driver => "",
    };
    let doc = format!(
        " Stands in for `{}`: each method returns the values a test sets up with `<method>_returns`{by}.",
        def.name
    );
    quote! {
        #[doc = #doc]
        #[derive(Default, Debug)]
        #vis struct #mock {
            #tag_field
            #(#fields)*
        }

        // Set-up methods are named after the trait's methods (`is_ok_returns`), whatever clippy
        // expects of an `is_*` name.
        #[allow(dead_code, clippy::wrong_self_convention)]
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze_lib as cluster;

    const LIB: &str = "#[derive(Debug)] pub struct Tagged; pub struct Plain;\n\
        pub trait Rows {\n\
            fn get(&self, column: usize, values: &str) -> String;\n\
            fn tagged(&self, t: &Tagged, _: Option<Vec<(u8, char)>>) -> u8;\n\
            fn plain(&self, p: &Plain) -> u8;\n\
            fn fill(&mut self, into: &mut Vec<u8>) -> usize;\n\
            fn via(&self, other: &dyn Rows) -> bool;\n\
            fn next(&mut self) -> bool;\n\
        }\n";

    #[test]
    fn a_mock_keeps_borrowed_results_as_static_values() {
        // path-slash 0.2.0's `PathExt::to_slash(&self) -> Option<Cow<'_, str>>` failed the
        // whole driver: "missing lifetime specifier" in the mock's field.
        let c = cluster(
            "use std::borrow::Cow;\n\
             pub trait PathExt { fn to_slash(&self) -> Option<Cow<'_, str>>; }\n",
        );
        let src = mock_items(&c, 0, 0, MockFlavour::Driver).to_string();
        let flat: String = src.chars().filter(|c| !c.is_whitespace()).collect();
        assert!(
            flat.contains(
                "to_slash:::hermetic_driver::mock::Returns<Option<std::borrow::Cow<'static,str>>>"
            ),
            "{src}"
        );
        assert!(
            flat.contains("values:implIntoIterator<Item=Option<std::borrow::Cow<'static,str>>>"),
            "{src}"
        );
    }

    #[test]
    fn methods_with_arguments_a_test_can_pass_and_the_mock_can_print_are_set_up_by_them() {
        let c = cluster(LIB);
        let by: Vec<(&str, bool)> = c.traits[0]
            .methods
            .iter()
            .map(|m| (m.name.as_str(), by_args(&c, m)))
            .collect();
        assert_eq!(
            by,
            [
                ("get", true),
                ("tagged", true),
                ("plain", false),
                ("fill", false),
                ("via", false),
                ("next", false),
            ]
        );
        // A parameter called `values` or not named gets another name.
        let names = |k: usize| param_names(&c.traits[0].methods[k]);
        assert_eq!(names(0), [format_ident!("column"), format_ident!("arg1")]);
        assert_eq!(names(1), [format_ident!("t"), format_ident!("arg1")]);
    }

    #[test]
    fn only_recorded_mocks_have_set_up_by_arguments() {
        let c = cluster(LIB);
        let text = |flavour| {
            let items = mock_items(&c, 0, 0, flavour);
            quote!(#items).to_string()
        };
        let recorded = text(MockFlavour::Recorded);
        assert!(
            recorded.contains("pub (crate) fn get_returns_for (mut self , column : usize , arg1 : & str , values : impl IntoIterator < Item = String > ,) -> Self { self . get . set_for (& [& column , & arg1] , values) ;"),
            "{recorded}"
        );
        assert!(
            recorded.contains("fn get (& self , column : usize , arg1 : & str) -> String { self . get . next_for (& [& column , & arg1] , \"Rows::get\") }"),
            "{recorded}"
        );
        for flavour in [MockFlavour::Test, MockFlavour::Driver] {
            let generated = text(flavour);
            assert!(!generated.contains("returns_for"), "{generated}");
            assert!(!generated.contains("next_for"), "{generated}");
            assert!(
                generated.contains("fn get (& self , _ : usize , _ : & str) -> String {"),
                "{generated}"
            );
        }
    }
}
