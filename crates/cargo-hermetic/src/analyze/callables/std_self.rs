//! Crate traits implemented for std types (`impl PathExt for Path`, `impl Shout for String`):
//! their methods are the crate's API, called as `Path::new("a").to_slash()`, and nothing else
//! of the crate reaches them. Each method the impl writes, and each default method of the
//! trait it keeps, becomes a method of the std type; tests import the trait.

use super::{Collector, ImplCx};
use crate::analyze::generics;
use crate::analyze::modules::qualified;
use crate::analyze::syntax;
use crate::cluster::{CallableKind, ImplOf, ModuleId, Receiver};
use crate::skip::{SkipReason, Why};
use syn::{ImplItem, TraitItem};

/// The crate trait of such an impl, with its declaration.
pub(super) struct TraitOfStd<'a> {
    pub of: ImplOf,
    /// The module the trait is declared in, where its default methods' types resolve.
    pub module: ModuleId,
    pub item: &'a syn::ItemTrait,
}

impl Collector<'_> {
    /// Lists the methods and associated functions of `imp`, an impl of a crate trait for the
    /// std type `type_name`.
    pub(super) fn std_self_impl(
        &mut self,
        m: ModuleId,
        prefix: &[String],
        imp: &syn::ItemImpl,
        type_name: &str,
        tr: TraitOfStd,
    ) {
        let own = self.impl_fns(prefix, imp, type_name, true);
        let written: Vec<String> = imp
            .items
            .iter()
            .filter_map(|i| match i {
                ImplItem::Fn(f) => Some(f.sig.ident.to_string()),
                _ => None,
            })
            .collect();
        // Default methods the impl does not write, mapped in the trait's module.
        let defaults = tr.item.items.iter().filter_map(|i| match i {
            TraitItem::Fn(f)
                if f.default.is_some() && !written.contains(&f.sig.ident.to_string()) =>
            {
                Some(&f.sig)
            }
            _ => None,
        });
        let sigs: Vec<(ModuleId, &syn::Signature)> = own
            .iter()
            .map(|f| (m, &f.sig))
            .chain(defaults.map(|s| (tr.module, s)))
            .collect();
        let params = generics::collect(&imp.generics, &mut []);
        let cx = params.map(|params| ImplCx::new(imp, m, params));
        let vis = syntax::vis(&tr.item.vis);
        for (module, sig) in sigs {
            let name = sig.ident.to_string();
            let shown = qualified(prefix, &format!("{type_name}::{name}"));
            let mapped = cx
                .as_ref()
                .map_err(Clone::clone)
                .and_then(|cx| self.signature(module, sig, Some(cx)));
            let sig = match mapped {
                Ok(sig) => sig,
                Err(why) => {
                    self.skipped.push(why.skipped(shown));
                    continue;
                }
            };
            let Some(self_ty) = sig.self_ty.clone() else {
                continue;
            };
            let receiver = match (sig.receiver, sig.self_by_ref) {
                // `Self` is `Path` or `str` itself, which no function returns or takes by value.
                (None, true) => {
                    let why = format!(
                        "associated function of trait `{}` for the unsized `{type_name}`",
                        tr.item.ident
                    );
                    self.skipped
                        .push(Why::new(SkipReason::TraitAssocFn, why).skipped(shown));
                    continue;
                }
                (None, false) => {
                    let kind = CallableKind::AssocFn {
                        self_ty,
                        of_trait: Some(tr.of),
                    };
                    self.push(m, name, vis, kind, sig);
                    continue;
                }
                // `&self` of `Path` is the `&Path` value itself.
                (Some(Receiver::Ref), true) => Receiver::Value,
                (Some(_), true) => {
                    let why = format!("`self` or `&mut self` of the unsized `{type_name}`");
                    self.skipped
                        .push(Why::new(SkipReason::UnsizedType, why).skipped(shown));
                    continue;
                }
                (Some(r), false) => r,
            };
            let kind = CallableKind::Method {
                self_ty,
                receiver,
                of_trait: Some(tr.of),
            };
            self.push(m, name, vis, kind, sig);
        }
    }
}
