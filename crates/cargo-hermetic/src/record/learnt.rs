//! What a hand-written `Debug` text stands for, learnt from the run: a value the probe captured
//! with both its `Debug` and its `Display` text (`wrapper::Shown`) tells which `Display` text is
//! behind that `Debug` text wherever else it appears, inside another value's derived `Debug`
//! (a `Comparator`'s `pre: Prerelease("alpha")`), where the probe cannot ask for `Display`.

use super::debug_text;
use super::literals::Literals;
use super::log::CallRecord;
use crate::cluster::{CallableKind, Cluster, Ty, TypeId};
use std::collections::HashMap;
use syn::Expr;

/// `Debug` text (as tokens) → `Display` text, by type; `None` where one `Debug` text was seen
/// with two `Display` texts (a `Debug` that drops something).
#[derive(Debug, Default)]
pub struct Learnt {
    by_debug: HashMap<(TypeId, String), Option<String>>,
    /// Types with a hand-written `Debug` whose values the probes wrote as literals instead.
    pub literals: Literals,
}

impl Learnt {
    pub fn from_log(cluster: &Cluster, calls: &[CallRecord], literals: Literals) -> Learnt {
        let mut learnt = Learnt {
            literals,
            ..Learnt::default()
        };
        for rec in calls {
            let Some(c) = cluster.callables.get(rec.site) else {
                continue;
            };
            let mut tys: Vec<&Ty> = Vec::new();
            if let CallableKind::Method { self_ty, .. } = &c.kind {
                tys.push(self_ty);
            }
            tys.extend(c.params.iter().map(|p| &p.ty));
            for (i, text) in &rec.shown {
                let debug = rec.args.get(*i).and_then(Option::as_deref);
                if let (Some(debug), Some(ty)) = (debug, tys.get(*i)) {
                    learnt.add(ty, debug_text::parse(debug).ok().as_ref(), text);
                }
            }
            if let (Some(text), Some(debug)) = (&rec.ret_shown, &rec.ret) {
                let whole = debug_text::parse(debug).ok();
                // The text is that of what an `Ok` or a `Some` holds (`wrapper::Inside`).
                let (ty, inner) = match &c.ret {
                    Ty::Result(t, _) | Ty::Option(t) => (
                        &**t,
                        whole
                            .as_ref()
                            .and_then(|e| debug_text::ctor(e).ok())
                            .and_then(|(_, args)| args.first().map(|a| (*a).clone())),
                    ),
                    t => (t, whole),
                };
                learnt.add(ty, inner.as_ref(), text);
            }
        }
        learnt
    }

    fn add(&mut self, ty: &Ty, debug: Option<&Expr>, text: &str) {
        let (Some(id), Some(debug)) = (adt(ty), debug) else {
            return;
        };
        self.by_debug
            .entry((id, key(debug)))
            .and_modify(|known| {
                if known.as_deref() != Some(text) {
                    *known = None;
                }
            })
            .or_insert_with(|| Some(text.to_string()));
    }

    /// The `Display` text of the value of crate type `id` whose `Debug` text is `e`, if the run
    /// showed it.
    pub fn shown(&self, id: TypeId, e: &Expr) -> Option<&str> {
        self.by_debug.get(&(id, key(e)))?.as_deref()
    }
}

fn key(e: &Expr) -> String {
    quote::quote!(#e).to_string()
}

/// The crate type behind references and boxes.
fn adt(t: &Ty) -> Option<TypeId> {
    match t {
        Ty::Ref(inner) | Ty::RefMut(inner) | Ty::Box(inner) => adt(inner),
        Ty::Adt(id, _) => Some(*id),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(line: &str) -> CallRecord {
        serde_json::from_str(line).unwrap()
    }

    #[test]
    fn debug_texts_seen_with_a_display_text_are_learnt_unless_ambiguous() {
        let cluster = crate::analyze::analyze_with_record_options(
            "#[derive(Clone, PartialEq)] pub struct Pre(String);\n\
             impl std::fmt::Debug for Pre { fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { write!(f, \"Pre({:?})\", self.0) } }\n\
             impl std::fmt::Display for Pre { fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { f.write_str(&self.0) } }\n\
             impl std::str::FromStr for Pre { type Err = (); fn from_str(s: &str) -> Result<Self, ()> { Ok(Pre(s.into())) } }\n\
             pub fn same(p: &Pre) -> Pre { p.clone() }\n\
             pub fn lossy(p: &Pre) -> Option<Pre> { None }\n",
        );
        let site = |name: &str| {
            cluster
                .callables
                .iter()
                .position(|c| c.name == name)
                .unwrap()
        };
        let (same, lossy) = (site("same"), site("lossy"));
        let learnt = Learnt::from_log(
            &cluster,
            &[
                record(&format!(
                    r#"{{"site":{same},"args":["Pre(\"a\")"],"shown":[[0,"a"]],"ret":"Pre(\"b\")","ret_shown":"b","events":[]}}"#
                )),
                record(&format!(
                    r#"{{"site":{lossy},"args":["Pre(\"c\")"],"shown":[[0,"c"]],"ret":"Some(Pre(\"d\"))","ret_shown":"d","events":[]}}"#
                )),
                record(&format!(
                    r#"{{"site":{same},"args":["Pre(\"c\")"],"shown":[[0,"c2"]],"ret":null,"events":[]}}"#
                )),
            ],
            Literals::default(),
        );
        let shown = |debug: &str| learnt.shown(0, &debug_text::parse(debug).unwrap());
        assert_eq!(shown("Pre(\"a\")"), Some("a"));
        assert_eq!(shown("Pre( \"b\" )"), Some("b"));
        assert_eq!(shown("Pre(\"d\")"), Some("d"));
        // Seen with two Display texts: not learnt.
        assert_eq!(shown("Pre(\"c\")"), None);
        assert_eq!(shown("Pre(\"e\")"), None);
    }
}
