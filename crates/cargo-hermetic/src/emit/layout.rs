//! Printing generated code with prettyplease, macros included.
//!
//! prettyplease lays out the arguments of `assert_eq!`, `vec!`, .. only with its `verbatim`
//! feature; without it they come out as spaced-out tokens on one line, which rustfmt would
//! change. So generated code calls stand-in functions whose names are exactly as wide as the
//! macro name with its `!`, and after printing, [`restore_macros`] turns them back into the
//! macros (outside string and char literals only).
//!
//! prettyplease does not apply rustfmt's width heuristics either (a call whose arguments are
//! wider than 60 columns goes one argument per line, ..), so when `rustfmt` is installed the
//! file gets a final pass through it, which picks up the user's `rustfmt.toml` as `cargo fmt`
//! would; without it the prettyplease layout stands, valid and close.

use proc_macro2::{Ident, Span, TokenStream};

/// `assert_eq!(..)`
pub(crate) fn assert_eq() -> Ident {
    Ident::new(ASSERT_EQ.0, Span::call_site())
}

/// `assert!(..)`
pub(crate) fn assert() -> Ident {
    Ident::new(ASSERT.0, Span::call_site())
}

/// `format!(..)`
pub(crate) fn format() -> Ident {
    Ident::new(FORMAT.0, Span::call_site())
}

/// `vec![..]`
pub(crate) fn vec() -> Ident {
    Ident::new(VEC.0, Span::call_site())
}

/// A statement that prints as the line comment `// text` (tokens carry no comments).
/// An expression as a person writes it on one line (`Ok(5)`, `Response { status: 200 }`), for
/// messages and reports.
pub(crate) fn expression_text(expr: &TokenStream) -> String {
    let item = quote::quote!(fn wrapper() { let _ = #expr; });
    let Some(printed) = unparse(item) else {
        return expr.to_string();
    };
    let inner = printed
        .split_once("let _ = ")
        .and_then(|(_, rest)| rest.rsplit_once(';'))
        .map_or(printed.as_str(), |(inner, _)| inner);
    let one_line = inner.split_whitespace().collect::<Vec<_>>().join(" ");
    one_line
        .replace("( ", "(")
        .replace(" )", ")")
        .replace("[ ", "[")
        .replace(" ]", "]")
        .replace(", }", " }")
        .replace(", )", ")")
        .replace(", ]", "]")
        .replace(" .", ".")
}

pub(crate) fn comment(text: &str) -> TokenStream {
    let stand_in = Ident::new(COMMENT, Span::call_site());
    let text = proc_macro2::Literal::string(text);
    quote::quote!(#stand_in(#text);)
}

/// (stand-in, macro with `!`), both the same width.
const ASSERT_EQ: (&str, &str) = ("ASSERT_EQ_", "assert_eq!");
const ASSERT: (&str, &str) = ("ASSERT_", "assert!");
const FORMAT: (&str, &str) = ("FORMAT_", "format!");
const VEC: (&str, &str) = ("VEC_", "vec!");
/// `COMMENT_("text");` alone on its line: a comment.
const COMMENT: &str = "COMMENT_";

/// Prints items with prettyplease, macros restored; `None` when the tokens are not items.
pub(crate) fn unparse(tokens: TokenStream) -> Option<String> {
    let file: syn::File = syn::parse2(tokens).ok()?;
    Some(restore_comments(&restore_macros(&prettyplease::unparse(
        &file,
    ))))
}

/// `text` as rustfmt formats it, or `None` when rustfmt is not installed or fails.
pub(crate) fn rustfmt(text: &str) -> Option<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = text.to_string();
    // Write from another thread so a full stdout pipe cannot block both sides.
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let output = child.wait_with_output().ok()?;
    writer.join().ok()?.ok()?;
    let formatted = without_commas_before_close(&String::from_utf8(output.stdout).ok()?);
    (output.status.success() && syn::parse_file(&formatted).is_ok()).then_some(formatted)
}

/// Where a string or char literal starting at `i` ends (the index after it); `None` when no
/// literal starts there (a lifetime's `'` is not one).
fn literal_end(chars: &[char], i: usize) -> Option<usize> {
    match chars[i] {
        '"' => {
            let mut j = i + 1;
            while j < chars.len() && chars[j] != '"' {
                j += if chars[j] == '\\' { 2 } else { 1 };
            }
            Some((j + 1).min(chars.len()))
        }
        '\'' if chars.get(i + 1) == Some(&'\\') => {
            // '\n', '\'', '\u{..}': up to the next quote after the escaped character.
            let close = (i + 3..chars.len().min(i + 12)).find(|&j| chars[j] == '\'')?;
            Some(close + 1)
        }
        '\'' if chars.get(i + 2) == Some(&'\'') => Some(i + 3),
        _ => None,
    }
}

/// rustfmt keeps the comma prettyplease puts after the last argument of a call inside a macro
/// when it hugs that argument (`Ok(vec![\n ..\n],)`); outside literals, `],)` and `},)` lose it.
fn without_commas_before_close(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        if let Some(end) = literal_end(&chars, i) {
            out.extend(&chars[i..end]);
            i = end;
            continue;
        }
        let hugging = i > 0 && matches!(chars[i - 1], ']' | '}') && chars.get(i + 1) == Some(&')');
        if !(chars[i] == ',' && hugging) {
            out.push(chars[i]);
        }
        i += 1;
    }
    out
}

/// Replaces the statements `COMMENT_("text");` (which prettyplease may spread over lines) by
/// `// text`, indented alike.
fn restore_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(COMMENT) {
        let (before, from) = rest.split_at(at);
        let starts_line = before.ends_with([' ', '\n']) || before.is_empty();
        match comment_statement(&from[COMMENT.len()..]).filter(|_| starts_line) {
            Some((comment, len)) => {
                out.push_str(before);
                out.push_str("// ");
                out.push_str(&comment);
                rest = &from[COMMENT.len() + len..];
            }
            None => {
                out.push_str(before);
                out.push_str(COMMENT);
                rest = &from[COMMENT.len()..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// `("text");` (spaces, line breaks and a trailing comma allowed) at the start of `text`: the
/// text and the statement's length.
fn comment_statement(text: &str) -> Option<(String, usize)> {
    let chars: Vec<char> = text.chars().collect();
    let skip = |mut i: usize| {
        while chars.get(i).is_some_and(|c| c.is_whitespace()) {
            i += 1;
        }
        i
    };
    if chars.first() != Some(&'(') {
        return None;
    }
    let start = skip(1);
    if chars.get(start) != Some(&'"') {
        return None;
    }
    let end = literal_end(&chars, start)?;
    let literal: String = chars[start..end].iter().collect();
    let mut i = skip(end);
    if chars.get(i) == Some(&',') {
        i = skip(i + 1);
    }
    if chars.get(i) != Some(&')') || chars.get(i + 1) != Some(&';') {
        return None;
    }
    let value = syn::parse_str::<syn::LitStr>(&literal).ok()?.value();
    let len: usize = chars[..i + 2].iter().map(|c| c.len_utf8()).sum();
    Some((value, len))
}

/// Replaces stand-in calls by the macros they stand for (`VEC_(a, b)` → `vec![a, b]`).
fn restore_macros(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    // For each open parenthesis: whether it opens a `vec!`, whose `)` becomes `]`.
    let mut parens: Vec<bool> = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if let Some(end) = literal_end(&chars, i) {
            out.extend(&chars[i..end]);
            i = end;
            continue;
        }
        let c = chars[i];
        match c {
            c if c.is_alphanumeric() || c == '_' => {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let word: String = chars[start..i].iter().collect();
                let called = chars.get(i) == Some(&'(');
                match [ASSERT_EQ, ASSERT, FORMAT, VEC]
                    .iter()
                    .find(|(s, _)| *s == word)
                {
                    Some((stand_in, mac)) if called => {
                        out.push_str(mac);
                        let is_vec = *stand_in == VEC.0;
                        out.push(if is_vec { '[' } else { '(' });
                        parens.push(is_vec);
                        i += 1;
                    }
                    _ => out.push_str(&word),
                }
            }
            '(' => {
                parens.push(false);
                out.push(c);
                i += 1;
            }
            ')' => {
                out.push(if parens.pop() == Some(true) { ']' } else { ')' });
                i += 1;
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stand_ins_become_macros_outside_literals() {
        assert_eq!(
            restore_macros("ASSERT_EQ_(f(VEC_(1, (2)), \"VEC_(\", ')'), VEC_());\n"),
            "assert_eq!(f(vec![1, (2)], \"VEC_(\", ')'), vec![]);\n"
        );
        assert_eq!(
            restore_macros("let x = '\\'';\nASSERT_(x)"),
            "let x = '\\'';\nassert!(x)"
        );
        // A lifetime is no char literal: what follows it is still code.
        assert_eq!(
            restore_macros("fn f<'a>(x: &'a str) { VEC_(x) }"),
            "fn f<'a>(x: &'a str) { vec![x] }"
        );
    }

    #[test]
    fn expressions_are_shown_on_one_line() {
        let long = quote::quote!(Ok(crate::http::Response {
            status: 404,
            body: "a body long enough to be broken over several lines by the printer".to_string(),
        }));
        assert_eq!(
            expression_text(&long),
            "Ok(crate::http::Response { status: 404, body: \"a body long enough to be broken over several lines by the printer\".to_string() })"
        );
        assert_eq!(expression_text(&quote::quote!(Ok(5))), "Ok(5)");
    }

    #[test]
    fn comment_stand_ins_become_line_comments() {
        let note = comment("SAFETY: \"a\" call");
        let printed = unparse(quote::quote! {
            fn t() {
                #note
                f();
            }
        })
        .unwrap();
        assert_eq!(
            printed,
            "fn t() {\n    // SAFETY: \"a\" call\n    f();\n}\n"
        );
    }

    #[test]
    fn a_hugging_last_argument_loses_its_comma_outside_literals() {
        assert_eq!(
            without_commas_before_close("Ok(vec![\n    1,\n],), Ok(A {\n},), \"],)\", ',', f(a,)"),
            "Ok(vec![\n    1,\n]), Ok(A {\n}), \"],)\", ',', f(a,)"
        );
    }
}
