//! The attribute's options: `only(..)`, `except(..)` and `returns(callee, pattern)`, and which
//! callees they select.
//!
//! A path in an option names a callee when its segments (a leading `crate`, `self` or `super` left
//! out) come in a row among the callee's: `db` names `db::run_query`, `Client::get` names
//! `http::Client::get`.

use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::parse::{Parse, ParseStream};
use syn::punctuated::Punctuated;
use syn::{Ident, Pat, Path, Token};

/// `#[hermetic::isolate(only(db, Client::get), except(db::log), returns(db::count, 0..))]`.
#[derive(Default)]
pub struct Options {
    /// Only callees these paths name are isolated (empty: every call leaving the unit).
    pub only: Vec<Entry>,
    /// Callees these paths name are never isolated.
    pub except: Vec<Entry>,
    /// What a fake of a callee may return: values the search may choose, and that a test's
    /// set-up is checked against.
    pub returns: Vec<Restriction>,
}

/// A path in an option, as written and as segments (leading `crate`, `self`, `super` left
/// out, generic arguments dropped).
pub struct Entry {
    pub path: Path,
    pub segments: Vec<String>,
}

pub struct Restriction {
    pub callee: Entry,
    pub pattern: Pat,
}

impl Restriction {
    /// `returns(db::count, 0..)`, as the panic message for a value it rules out quotes it.
    pub fn text(&self) -> String {
        format!(
            "returns({}, {})",
            tokens(&self.callee.path),
            tokens(&self.pattern)
        )
    }
}

/// Tokens as text without the spaces `TokenStream`'s printing puts between them.
fn tokens(t: &impl ToTokens) -> String {
    let text = t.to_token_stream().to_string();
    text.replace(" :: ", "::")
        .replace(" (", "(")
        .replace("( ", "(")
        .replace(" )", ")")
        .replace(" ..", "..")
        .replace(".. ", "..")
}

impl Parse for Options {
    fn parse(input: ParseStream) -> syn::Result<Self> {
        let mut options = Options::default();
        while !input.is_empty() {
            let name: Ident = input.parse()?;
            let inner;
            syn::parenthesized!(inner in input);
            match name.to_string().as_str() {
                "only" => options.only.extend(entries(&inner)?),
                "except" => options.except.extend(entries(&inner)?),
                "returns" => {
                    let callee = Entry::new(inner.parse()?);
                    inner.parse::<Token![,]>()?;
                    let pattern = Pat::parse_multi_with_leading_vert(&inner)?;
                    let _ = inner.parse::<Option<Token![,]>>()?;
                    if !inner.is_empty() {
                        return Err(inner.error("expected `returns(callee, pattern)`"));
                    }
                    options.returns.push(Restriction { callee, pattern });
                }
                other => {
                    return Err(syn::Error::new(
                        name.span(),
                        format!(
                            "unknown option `{other}` of `#[hermetic::isolate]` (expected \
                             `only(..)`, `except(..)` or `returns(callee, pattern)`)"
                        ),
                    ))
                }
            }
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(options)
    }
}

fn entries(input: ParseStream) -> syn::Result<Vec<Entry>> {
    let paths = Punctuated::<Path, Token![,]>::parse_terminated(input)?;
    Ok(paths.into_iter().map(Entry::new).collect())
}

impl Entry {
    pub fn new(path: Path) -> Entry {
        let segments = segments(&path);
        Entry { path, segments }
    }
}

/// A path's segments without a leading `crate`, `self` or `super` (`super::super::db::f` →
/// `db::f`) and without generic arguments.
pub fn segments(path: &Path) -> Vec<String> {
    path.segments
        .iter()
        .map(|s| s.ident.to_string())
        .skip_while(|s| s == "crate" || s == "self" || s == "super")
        .collect()
}

/// Whether an option's path names `callee`: its segments appear in the callee's, in a row
/// (`db` names `db::run_query`, `Client` names `http::Client::get`, `Client::get` names it
/// too).
pub fn names(entry: &[String], callee: &[String]) -> bool {
    !entry.is_empty() && callee.windows(entry.len()).any(|w| w == entry)
}

impl Options {
    /// Whether the options let a call of `callee` be isolated: `listed` says whether the
    /// default (no `only`) takes it.
    pub fn selects(&self, callee: &[String], by_default: bool) -> bool {
        let listed = if self.only.is_empty() {
            by_default
        } else {
            self.only.iter().any(|e| names(&e.segments, callee))
        };
        listed && !self.except.iter().any(|e| names(&e.segments, callee))
    }

    /// Whether an `only` entry names `callee` (calls a unit keeps inside by default are
    /// isolated only when named).
    pub fn names_in_only(&self, callee: &[String]) -> bool {
        self.only.iter().any(|e| names(&e.segments, callee))
            && !self.except.iter().any(|e| names(&e.segments, callee))
    }

    /// The restriction on what `callee`'s fakes return, if the unit has one.
    pub fn restriction(&self, callee: &[String]) -> Option<&Restriction> {
        self.returns
            .iter()
            .find(|r| names(&r.callee.segments, callee))
    }

    /// The types the options name: `only(Client)`, the owner in `only(Client::get)`; written
    /// as in the option, with the segments up to the type's.
    pub fn named_types(&self) -> Vec<Path> {
        self.only
            .iter()
            .chain(self.returns.iter().map(|r| &r.callee))
            .filter_map(|e| type_prefix(&e.path))
            .collect()
    }
}

/// The part of a path up to its last segment that names a type (by Rust's naming convention,
/// a capitalised one): `db::Client::get` → `db::Client`; `None` when there is none.
pub fn type_prefix(path: &Path) -> Option<Path> {
    let last_type = path
        .segments
        .iter()
        .rposition(|s| starts_upper(&s.ident.to_string()))?;
    let mut prefix = path.clone();
    prefix.segments = path
        .segments
        .iter()
        .take(last_type + 1)
        .cloned()
        .map(|mut s| {
            s.arguments = syn::PathArguments::None;
            s
        })
        .collect();
    Some(prefix)
}

pub fn starts_upper(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

/// The options of an attribute, or the error to show at it.
pub fn parse(attr: TokenStream) -> syn::Result<Options> {
    if attr.is_empty() {
        return Ok(Options::default());
    }
    syn::parse2(attr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn seg(s: &str) -> Vec<String> {
        s.split("::").map(String::from).collect()
    }

    #[test]
    fn options_parse_and_select_by_runs_of_segments() {
        let o = parse(quote!(only(db, http::Client::get), except(db::log))).unwrap();
        assert!(o.selects(&seg("db::run_query"), false));
        assert!(o.selects(&seg("crate_x::http::Client::get"), false));
        assert!(!o.selects(&seg("http::Client::post"), true));
        assert!(!o.selects(&seg("db::log"), true));
        let all = parse(quote!()).unwrap();
        assert!(all.selects(&seg("a::b"), true));
        assert!(!all.selects(&seg("a::b"), false));
    }

    #[test]
    fn restrictions_take_any_pattern() {
        let o = parse(quote!(
            returns(super::db::run_query, Ok(0..) | Err(_)),
            only(db)
        ))
        .unwrap();
        let r = o.restriction(&seg("db::run_query")).unwrap();
        assert_eq!(r.text(), "returns(super::db::run_query, Ok(0..) | Err(_))");
        assert!(o.restriction(&seg("db::other")).is_none());
    }

    #[test]
    fn unknown_options_are_refused_with_the_known_ones() {
        let e = parse(quote!(skip(db))).err().unwrap();
        assert!(e.to_string().contains("unknown option `skip`"), "{e}");
        assert!(parse(quote!(returns(db::f))).is_err());
    }

    #[test]
    fn types_are_the_capitalised_prefix() {
        let p: Path = syn::parse_quote!(db::Client::get);
        assert_eq!(quote!(#p).to_string(), "db :: Client :: get");
        let t = type_prefix(&p).unwrap();
        assert_eq!(quote!(#t).to_string(), "db :: Client");
        assert!(type_prefix(&syn::parse_quote!(db::run)).is_none());
    }
}
