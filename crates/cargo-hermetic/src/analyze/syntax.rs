//! Small helpers over `syn`: item text for messages, visibility, attributes, source offsets.

use crate::cluster::Vis;
use proc_macro2::{LineColumn, TokenStream};
use quote::ToTokens;
use syn::{Attribute, Visibility};

/// Tokens as a user would write them: `From<(f64, f64)>`, `&'a str`, `fn(i32) -> i32`.
pub fn tokens_text(tokens: &TokenStream) -> String {
    let mut s = tokens.to_string();
    // `TokenStream`'s Display puts a space between every pair of tokens; undo the common ones.
    for (from, to) in [
        (" ,", ","),
        (" ;", ";"),
        (" :: ", "::"),
        (":: ", "::"),
        (" ::", "::"),
        (" :", ":"),
        (" <", "<"),
        ("< ", "<"),
        (" >", ">"),
        ("( ", "("),
        (" )", ")"),
        ("[ ", "["),
        (" ]", "]"),
        ("& ", "&"),
        ("! ", "!"),
        ("? ", "?"),
        (" ?", "?"),
        ("' ", "'"),
    ] {
        while s.contains(from) {
            s = s.replace(from, to);
        }
    }
    // `f (x)` → `f(x)` after a name, but not after keywords such as `&mut (i32, i32)`.
    let mut out = String::with_capacity(s.len());
    for (i, part) in s.split(" (").enumerate() {
        if i > 0 {
            let word = out
                .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
                .next()
                .unwrap_or("");
            let keyword = matches!(word, "" | "mut" | "dyn" | "impl" | "in" | "as" | "for");
            out.push_str(if keyword { " (" } else { "(" });
        }
        out.push_str(part);
    }
    out
}

/// A path's segments by name (`crate::db::run_query` → `["crate", "db", "run_query"]`).
pub fn segments(path: &syn::Path) -> Vec<String> {
    path.segments.iter().map(|s| s.ident.to_string()).collect()
}

/// `tokens_text` of anything that prints as tokens.
pub fn text(node: &impl ToTokens) -> String {
    tokens_text(&node.to_token_stream())
}

pub fn vis(v: &Visibility) -> Vis {
    match v {
        Visibility::Public(_) => Vis::Pub,
        Visibility::Inherited => Vis::Private,
        Visibility::Restricted(r) => {
            let path = &r.path;
            if path.is_ident("crate") {
                Vis::Crate
            } else if path.is_ident("super") && r.in_token.is_none() {
                Vis::Super
            } else {
                // `pub(self)` and `pub(in path)`: private is the safe reading.
                Vis::Private
            }
        }
    }
}

/// Rank for "least visible of": Private < Super < Crate < Pub.
fn rank(v: Vis) -> u8 {
    match v {
        Vis::Private => 0,
        Vis::Super => 1,
        Vis::Crate => 2,
        Vis::Pub => 3,
    }
}

/// The least visible of `a` and `b` (for items declared in the same module).
pub fn least_visible(a: Vis, b: Vis) -> Vis {
    if rank(a) <= rank(b) {
        a
    } else {
        b
    }
}

/// Traits in `#[derive(..)]` attributes, by last path segment.
pub fn derives(attrs: &[Attribute]) -> Vec<String> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let paths = attr.parse_args_with(
            syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
        );
        for path in paths.into_iter().flatten() {
            if let Some(last) = path.segments.last() {
                out.push(last.ident.to_string());
            }
        }
    }
    out
}

/// A type's bounds on its type parameters as where-clause predicates (`T: Sys`, `T: ?Sized`),
/// inline and from its where clause, in token text that parses back (`syn::WherePredicate`).
pub fn bounds(generics: &syn::Generics) -> Vec<String> {
    let inline = generics
        .type_params()
        .filter(|p| !p.bounds.is_empty())
        .map(|p| {
            let (name, bounds) = (&p.ident, &p.bounds);
            quote::quote!(#name: #bounds).to_string()
        });
    let clause = generics
        .where_clause
        .iter()
        .flat_map(|w| &w.predicates)
        .filter(|p| matches!(p, syn::WherePredicate::Type(_)))
        .map(|p| p.to_token_stream().to_string());
    inline.chain(clause).collect()
}

/// Whether the attributes hold `#[name]` (e.g. `#[test]`).
pub fn has_attr(attrs: &[Attribute], name: &str) -> bool {
    attrs.iter().any(|a| a.path().is_ident(name))
}

/// Byte offsets of source positions in one file's text.
pub struct Offsets {
    /// Byte offset where each line starts (line 1 at index 0).
    line_starts: Vec<usize>,
    text: String,
}

impl Offsets {
    pub fn new(text: &str) -> Offsets {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        Offsets {
            line_starts,
            text: text.to_string(),
        }
    }

    /// The file's text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The byte offset of a span position; its column counts chars, not bytes.
    pub fn offset(&self, at: LineColumn) -> usize {
        let Some(&start) = self.line_starts.get(at.line.saturating_sub(1)) else {
            return self.text.len();
        };
        // syn skips a leading byte order mark before counting the first line's columns.
        let start = if at.line == 1 && self.text.starts_with('\u{feff}') {
            start + '\u{feff}'.len_utf8()
        } else {
            start
        };
        let line = &self.text[start..];
        start
            + line
                .char_indices()
                .nth(at.column)
                .map_or(line.len(), |(i, _)| i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_text_reads_like_source() {
        let t: syn::Type = syn::parse_str("From<(f64, f64)>").unwrap();
        assert_eq!(text(&t), "From<(f64, f64)>");
        let t: syn::Type = syn::parse_str("fn(i32) -> i32").unwrap();
        assert_eq!(text(&t), "fn(i32) -> i32");
        let t: syn::Type = syn::parse_str("&'a mut [u8]").unwrap();
        assert_eq!(text(&t), "&'a mut [u8]");
        let t: syn::Type = syn::parse_str("std::collections::HashMap<String, Vec<i32>>").unwrap();
        assert_eq!(text(&t), "std::collections::HashMap<String, Vec<i32>>");
        let t: syn::Type = syn::parse_str("impl Fn(i32) -> Option<i32>").unwrap();
        assert_eq!(text(&t), "impl Fn(i32) -> Option<i32>");
    }

    #[test]
    fn offsets_count_chars_in_columns() {
        let o = Offsets::new("ab\n\u{e9}\u{e9}}\n");
        assert_eq!(o.offset(LineColumn { line: 2, column: 2 }), 7);
        assert_eq!(o.offset(LineColumn { line: 1, column: 1 }), 1);
    }

    #[test]
    fn least_visible_picks_the_narrower() {
        assert_eq!(least_visible(Vis::Pub, Vis::Private), Vis::Private);
        assert_eq!(least_visible(Vis::Crate, Vis::Super), Vis::Super);
        assert_eq!(least_visible(Vis::Pub, Vis::Pub), Vis::Pub);
    }
}
