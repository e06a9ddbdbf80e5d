//! The texts a module's parsers take apart, read off their pattern calls: `strip_prefix('<')`,
//! `strip_suffix('>')` and `split_once('@')` describe `<a@1>`. Such a parser checks its pieces
//! inside the standard library, where no comparison shows them, and random text holds all of
//! them in their order almost never. A pattern that is a parameter (`arg.strip_prefix(prefix)`)
//! takes the literal each call in the module passes (`address(arg, "FROM:")`: `FROM:<a@1>`).

use super::cfg::Config;
use super::literals::is_test;
use syn::visit::{self, Visit};

/// Where a text method looks for its pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// At the start (`strip_prefix`, `starts_with`).
    Prefix,
    /// At the end (`strip_suffix`, `ends_with`).
    Suffix,
    /// Between two parts (`split_once`, `split`, `find`).
    Separator,
}

impl Role {
    /// The role of `method`'s pattern, and which argument holds it.
    fn of(method: &str) -> Option<(Role, usize)> {
        Some(match method {
            "strip_prefix" | "starts_with" | "trim_start_matches" => (Role::Prefix, 0),
            "strip_suffix" | "ends_with" | "trim_end_matches" => (Role::Suffix, 0),
            "split_once" | "rsplit_once" | "split" | "rsplit" | "split_terminator" | "find"
            | "rfind" => (Role::Separator, 0),
            "splitn" | "rsplitn" => (Role::Separator, 1),
            _ => return None,
        })
    }
}

/// A pattern as written: a literal, or the function's parameter at this position.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pattern {
    Text(String),
    Param(usize),
}

/// What fills the parts between separators: a word, then a number, in turn.
const FILLERS: [&str; 4] = ["a", "1", "b", "2"];

/// Each function's texts: one with its literal patterns, and one for each call in `items` that
/// passes literals for its pattern parameters. In the order the functions are written.
pub fn texts<'a>(items: impl IntoIterator<Item = &'a syn::Item>, config: &Config) -> Vec<String> {
    let mut v = Reader {
        config,
        open: Vec::new(),
        functions: Vec::new(),
        calls: Vec::new(),
    };
    for item in items {
        v.visit_item(item);
    }
    let mut out = Vec::new();
    for f in &v.functions {
        if f.patterns.len() < 2 {
            continue;
        }
        let literal = |p: &Pattern| match p {
            Pattern::Text(t) => Some(t.clone()),
            Pattern::Param(_) => None,
        };
        out.extend(template(&f.patterns, literal));
        if !f
            .patterns
            .iter()
            .any(|(_, p)| matches!(p, Pattern::Param(_)))
        {
            continue;
        }
        for call in v.calls.iter().filter(|c| c.callee == f.name) {
            let passed = |p: &Pattern| match p {
                Pattern::Text(t) => Some(t.clone()),
                Pattern::Param(i) => call.args.get(*i).cloned().flatten(),
            };
            out.extend(template(&f.patterns, passed));
        }
    }
    out.sort();
    out.dedup();
    out
}

/// The text of `patterns` as `text` writes each (`None`: left out): the prefixes in the order
/// stripped, parts joined by the separators (each once), the suffixes (the last stripped sits
/// innermost). `None` for fewer than two patterns: a lone one is a literal already.
fn template(
    patterns: &[(Role, Pattern)],
    text: impl Fn(&Pattern) -> Option<String>,
) -> Option<String> {
    let written: Vec<(Role, String)> = patterns
        .iter()
        .filter_map(|(r, p)| Some((*r, text(p)?)))
        .filter(|(_, t)| !t.is_empty())
        .collect();
    if written.len() < 2 {
        return None;
    }
    let of = |role| {
        written
            .iter()
            .filter(move |(r, _)| *r == role)
            .map(|(_, t)| t)
    };
    let mut separators: Vec<&String> = Vec::new();
    for s in of(Role::Separator) {
        if !separators.contains(&s) {
            separators.push(s);
        }
    }
    let mut out: String = of(Role::Prefix).map(String::as_str).collect();
    out.push_str(FILLERS[0]);
    for (i, s) in separators.iter().enumerate() {
        out.push_str(s);
        out.push_str(FILLERS[(i + 1) % FILLERS.len()]);
    }
    let suffixes: Vec<&String> = of(Role::Suffix).collect();
    suffixes.iter().rev().for_each(|s| out.push_str(s));
    Some(out)
}

/// A function's pattern calls, in the order they run.
struct Function {
    name: String,
    /// Parameter names, the receiver left out (calls' arguments leave it out too).
    params: Vec<String>,
    patterns: Vec<(Role, Pattern)>,
}

/// A call by name, with the literal text of each argument (the receiver left out).
struct Call {
    callee: String,
    args: Vec<Option<String>>,
}

struct Reader<'c> {
    config: &'c Config,
    /// The functions being read, innermost last.
    open: Vec<Function>,
    functions: Vec<Function>,
    calls: Vec<Call>,
}

impl Reader<'_> {
    fn function(&mut self, sig: &syn::Signature, read: impl FnOnce(&mut Self)) {
        let params = sig
            .inputs
            .iter()
            .filter_map(|a| match a {
                syn::FnArg::Typed(t) => Some(match &*t.pat {
                    syn::Pat::Ident(i) => i.ident.to_string(),
                    _ => String::new(),
                }),
                syn::FnArg::Receiver(_) => None,
            })
            .collect();
        self.open.push(Function {
            name: sig.ident.to_string(),
            params,
            patterns: Vec::new(),
        });
        read(self);
        let f = self.open.pop().expect("pushed above");
        self.functions.push(f);
    }

    /// `e` as a pattern of the function being read: a literal or one of its parameters.
    fn pattern(&self, e: &syn::Expr) -> Option<Pattern> {
        if let Some(t) = literal_text(e) {
            return Some(Pattern::Text(t));
        }
        let syn::Expr::Path(p) = strip_ref(e) else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        let params = &self.open.last()?.params;
        params.iter().position(|n| *n == name).map(Pattern::Param)
    }

    fn call<'e>(&mut self, callee: Option<&syn::Ident>, args: impl Iterator<Item = &'e syn::Expr>) {
        if let Some(callee) = callee {
            self.calls.push(Call {
                callee: callee.to_string(),
                args: args.map(literal_text).collect(),
            });
        }
    }
}

impl<'ast> Visit<'ast> for Reader<'_> {
    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        // The receiver runs first: `s.strip_prefix('<')?.strip_suffix('>')` strips `<` first.
        self.visit_expr(&e.receiver);
        let pattern = Role::of(&e.method.to_string())
            .and_then(|(role, at)| Some((role, self.pattern(e.args.iter().nth(at)?)?)));
        if let (Some(p), Some(f)) = (pattern, self.open.last_mut()) {
            f.patterns.push(p);
        }
        self.call(Some(&e.method), e.args.iter());
        for arg in &e.args {
            self.visit_expr(arg);
        }
    }

    fn visit_expr_call(&mut self, e: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*e.func {
            let callee = p.path.segments.last().map(|s| &s.ident);
            self.call(callee, e.args.iter());
        }
        visit::visit_expr_call(self, e);
    }

    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_test(&f.attrs, self.config) {
            self.function(&f.sig, |v| visit::visit_item_fn(v, f));
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test(&f.attrs, self.config) {
            self.function(&f.sig, |v| visit::visit_impl_item_fn(v, f));
        }
    }
}

/// The text of a string, char or UTF-8 byte string literal (behind `&` or parentheses).
fn literal_text(e: &syn::Expr) -> Option<String> {
    let syn::Expr::Lit(l) = strip_ref(e) else {
        return None;
    };
    match &l.lit {
        syn::Lit::Str(s) => Some(s.value()),
        syn::Lit::Char(c) => Some(c.value().to_string()),
        syn::Lit::ByteStr(b) => String::from_utf8(b.value()).ok(),
        _ => None,
    }
}

fn strip_ref(e: &syn::Expr) -> &syn::Expr {
    match e {
        syn::Expr::Reference(r) => strip_ref(&r.expr),
        syn::Expr::Paren(p) => strip_ref(&p.expr),
        e => e,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts_of(src: &str) -> Vec<String> {
        let f = syn::parse_file(src).unwrap();
        texts(&f.items, &Config::default())
    }

    #[test]
    fn a_functions_pattern_calls_make_the_text_it_takes_apart() {
        let t = texts_of(
            r#"
            fn pair(s: &[u8]) -> bool {
                s.starts_with(b"[") && s.ends_with(b"]") && s.splitn(2, ",").count() == 2
            }
            fn one(s: &str) -> bool { s.starts_with("GET ") }
            "#,
        );
        // A lone pattern is its literal: no text of its own.
        assert_eq!(t, vec!["[a,1]".to_string()]);
    }

    #[test]
    fn a_pattern_parameter_takes_what_each_call_passes() {
        let t = texts_of(
            r#"
            struct S;
            impl S {
                fn feed(&mut self, arg: &str) -> Option<String> {
                    self.check(arg, "TO:")?;
                    address(arg, "FROM:")
                }
                fn check(&self, _: &str, _: &str) -> Option<()> { None }
            }
            fn address(arg: &str, prefix: &str) -> Option<String> {
                let rest = arg.strip_prefix(prefix)?.trim_start();
                let inner = rest.strip_prefix('<')?.strip_suffix('>')?;
                let (user, host) = inner.split_once('@')?;
                if host.contains('@') { return None; }
                Some(format!("{user}{host}"))
            }
            "#,
        );
        assert_eq!(t, vec!["<a@1>".to_string(), "FROM:<a@1>".to_string()]);
    }

    #[test]
    fn suffixes_stripped_later_sit_further_in() {
        let p = |r, s: &str| (r, Pattern::Text(s.to_string()));
        let t = template(
            &[
                p(Role::Suffix, ")"),
                p(Role::Prefix, "("),
                p(Role::Suffix, "]"),
                p(Role::Separator, ":"),
                p(Role::Separator, ","),
                p(Role::Separator, ":"),
            ],
            |p| match p {
                Pattern::Text(t) => Some(t.clone()),
                Pattern::Param(_) => None,
            },
        );
        assert_eq!(t.as_deref(), Some("(a:1,b])"));
    }
}
