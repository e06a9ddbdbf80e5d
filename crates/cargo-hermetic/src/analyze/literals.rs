//! Constants in the source (integers, floats, strings, chars) to seed the search.

use super::cfg::{Config, Verdict};
use crate::cluster::Literals;
use syn::visit::{self, Visit};

/// At most this many of each kind are kept.
const CAP: usize = 256;
/// Longer strings are unlikely to be useful seeds.
const MAX_STRING_LEN: usize = 256;

/// The literals of these items (child modules are not entered: they are analysed on their own).
pub fn collect<'a>(items: impl IntoIterator<Item = &'a syn::Item>, config: &Config) -> Literals {
    let mut v = Collector {
        lits: Literals::default(),
        config,
    };
    for item in items {
        v.visit_item(item);
    }
    let mut lits = v.lits;
    lits.ints.sort_unstable();
    lits.ints.dedup();
    lits.floats.sort_by(f64::total_cmp);
    lits.floats.dedup_by(|a, b| a.to_bits() == b.to_bits());
    lits.strings.sort();
    lits.strings.dedup();
    lits.chars.sort_unstable();
    lits.chars.dedup();
    cap(&mut lits);
    lits
}

/// Merges the literals of several modules, keeping the result sorted, unique and capped.
pub fn merge(parts: Vec<Literals>) -> Literals {
    let mut all = Literals::default();
    for p in parts {
        all.ints.extend(p.ints);
        all.floats.extend(p.floats);
        all.strings.extend(p.strings);
        all.chars.extend(p.chars);
    }
    all.ints.sort_unstable();
    all.ints.dedup();
    all.floats.sort_by(f64::total_cmp);
    all.floats.dedup_by(|a, b| a.to_bits() == b.to_bits());
    all.strings.sort();
    all.strings.dedup();
    all.chars.sort_unstable();
    all.chars.dedup();
    cap(&mut all);
    all
}

fn cap(l: &mut Literals) {
    l.ints.truncate(CAP);
    l.floats.truncate(CAP);
    l.strings.truncate(CAP);
    l.chars.truncate(CAP);
}

struct Collector<'c> {
    lits: Literals,
    /// Which `#[cfg]`d functions are compiled in.
    config: &'c Config,
}

impl Collector<'_> {
    fn lit(&mut self, lit: &syn::Lit, negative: bool) {
        let sign = if negative { -1 } else { 1 };
        match lit {
            syn::Lit::Int(i) => match i.suffix() {
                "f32" | "f64" => {
                    if let Ok(f) = i.base10_parse::<f64>() {
                        self.lits.floats.push(f * sign as f64);
                    }
                }
                _ => {
                    if let Ok(n) = i.base10_parse::<i128>() {
                        self.lits.ints.push(n * sign);
                    }
                }
            },
            syn::Lit::Float(f) => {
                if let Ok(x) = f.base10_parse::<f64>() {
                    self.lits.floats.push(x * sign as f64);
                }
            }
            syn::Lit::Str(s) => {
                self.lits.reads_lines |= s.value() == "\n";
                self.string(s.value());
            }
            syn::Lit::ByteStr(b) => {
                if let Ok(s) = String::from_utf8(b.value()) {
                    self.string(s);
                }
            }
            syn::Lit::Char(c) => {
                self.lits.reads_digits |= c.value() == '0';
                self.lits.reads_lines |= c.value() == '\n';
                self.lits.chars.push(c.value());
            }
            syn::Lit::Byte(b) => {
                self.lits.reads_digits |= b.value() == b'0';
                self.lits.reads_lines |= b.value() == b'\n';
                self.lits.ints.push(i128::from(b.value()));
            }
            _ => {}
        }
    }

    fn string(&mut self, s: String) {
        if s.len() <= MAX_STRING_LEN {
            self.lits.strings.push(s);
        }
    }
}

impl<'ast> Visit<'ast> for Collector<'_> {
    fn visit_lit(&mut self, lit: &'ast syn::Lit) {
        self.lit(lit, false);
    }

    fn visit_expr_unary(&mut self, e: &'ast syn::ExprUnary) {
        if let (syn::UnOp::Neg(_), syn::Expr::Lit(l)) = (&e.op, &*e.expr) {
            self.lit(&l.lit, true);
        }
        visit::visit_expr_unary(self, e);
    }

    /// Methods and functions that read digits out of text, or lines.
    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        let digit = [
            "is_ascii_digit",
            "is_digit",
            "to_digit",
            "is_ascii_hexdigit",
        ];
        self.lits.reads_digits |= digit.iter().any(|d| e.method == d);
        self.lits.reads_lines |= e.method == "lines" || e.method == "read_line";
        self.lits.reads_text_bytes |= e.method.to_string().starts_with("from_utf8");
        visit::visit_expr_method_call(self, e);
    }

    fn visit_expr_path(&mut self, e: &'ast syn::ExprPath) {
        let last = e.path.segments.last();
        self.lits.reads_digits |= last.is_some_and(|s| s.ident == "from_str_radix");
        self.lits.reads_text_bytes |=
            last.is_some_and(|s| s.ident.to_string().starts_with("from_utf8"));
        visit::visit_expr_path(self, e);
    }

    /// A lexer's two-char operator matched a char at a time (`('&', Some('&'))`,
    /// `('=', '=')`) is a word of its own: `&&` is no literal anywhere.
    fn visit_pat_tuple(&mut self, t: &'ast syn::PatTuple) {
        let char_of = |p: &syn::Pat| match p {
            syn::Pat::Lit(syn::ExprLit {
                lit: syn::Lit::Char(c),
                ..
            }) => Some(c.value()),
            syn::Pat::TupleStruct(s) if s.path.is_ident("Some") && s.elems.len() == 1 => {
                match &s.elems[0] {
                    syn::Pat::Lit(syn::ExprLit {
                        lit: syn::Lit::Char(c),
                        ..
                    }) => Some(c.value()),
                    _ => None,
                }
            }
            _ => None,
        };
        if let [a, b] = t.elems.iter().collect::<Vec<_>>()[..] {
            if let (Some(a), Some(b)) = (char_of(a), char_of(b)) {
                self.string(format!("{a}{b}"));
            }
        }
        visit::visit_pat_tuple(self, t);
    }

    // Doc comments and other attributes are not values the code compares against.
    fn visit_attribute(&mut self, _: &'ast syn::Attribute) {}

    fn visit_item_mod(&mut self, _: &'ast syn::ItemMod) {}

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !is_test(&f.attrs, self.config) {
            visit::visit_item_fn(self, f);
        }
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !is_test(&f.attrs, self.config) {
            visit::visit_impl_item_fn(self, f);
        }
    }

    /// Macro arguments that parse as expressions (`panic!("..")`, `write!(f, "..", x)`,
    /// `assert_eq!(x, 42)`) hold literals too.
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let parser = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated;
        if let Ok(args) = m.parse_body_with(parser) {
            for e in &args {
                self.visit_expr(e);
            }
        }
    }
}

/// `#[test]` functions and `#[cfg(test)]` items nested in analysed code.
fn is_test(attrs: &[syn::Attribute], config: &Config) -> bool {
    super::syntax::has_attr(attrs, "test") || super::cfg::verdict(attrs, config) != Verdict::On
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lits(src: &str) -> Literals {
        let f = syn::parse_file(src).unwrap();
        collect(&f.items, &Config::default())
    }

    #[test]
    fn collects_sorted_unique_literals_including_negatives_and_macros() {
        let l = lits(
            r#"
            /// Doc text is not a literal.
            pub const X: u64 = 0x5EC2_E7A1_B00F;
            fn f(x: i32) -> f64 {
                if x == -7 || x == 3 || x == 3 { panic!("bad {}", 'q'); }
                let _ = b"bytes";
                let _ = b'a';
                assert_eq!(x, 99);
                2.5 + 1f64
            }
            #[test] fn t() { let _ = 12345; }
            #[cfg(test)] mod tests { const Y: i32 = 777; }
            "#,
        );
        assert_eq!(l.ints, vec![-7, 3, 7, 97, 99, 0x5EC2_E7A1_B00F]);
        assert_eq!(l.floats, vec![1.0, 2.5]);
        assert_eq!(l.strings, vec!["bad {}".to_string(), "bytes".to_string()]);
        assert_eq!(l.chars, vec!['q']);
    }

    #[test]
    fn a_two_char_operator_matched_a_char_at_a_time_is_a_word() {
        let l = lits(
            "fn op(c: char, next: Option<char>) -> u8 {\n\
             match (c, next) { ('&', Some('&')) => 1, ('|', Some('|')) => 2, ('<', _) => 3, _ => 0 }\n\
             }\n\
             fn pair(a: char, b: char) -> bool { match (a, b) { ('=', '=') => true, _ => false } }",
        );
        assert_eq!(l.strings, ["&&", "==", "||"]);
    }

    #[test]
    fn code_that_reads_digits_out_of_text_is_told_from_code_that_does_not() {
        let reads = |src: &str| lits(src).reads_digits;
        assert!(reads("fn f(b: u8) -> u8 { b - b'0' }"));
        assert!(reads("fn f(c: char) -> bool { c.is_ascii_digit() }"));
        assert!(reads(
            "fn f(s: &str) -> u32 { u32::from_str_radix(s, 16).unwrap() }"
        ));
        assert!(reads("fn f(c: char) -> Option<u32> { c.to_digit(10) }"));
        assert!(!reads(
            "fn f(s: &str) -> bool { s == \"name\" || s.starts_with('-') }"
        ));
    }

    #[test]
    fn code_that_reads_lines_is_told_from_code_that_does_not() {
        let reads = |src: &str| lits(src).reads_lines;
        assert!(reads("fn f(s: &str) -> usize { s.lines().count() }"));
        assert!(reads("fn f(s: &str) -> usize { s.split('\\n').count() }"));
        assert!(reads("fn f(s: &[u8]) -> bool { s.contains(&b'\\n') }"));
        assert!(reads("fn f(s: &str) -> usize { s.split(\"\\n\").count() }"));
        assert!(!reads(
            "fn f(s: &str) -> bool { s.split_once('-').is_some() }"
        ));
        assert!(!reads("fn f(s: &str) -> String { format!(\"{s}\\n\") }"));
    }

    #[test]
    fn code_that_reads_text_out_of_bytes_is_told_from_code_that_does_not() {
        let reads = |src: &str| lits(src).reads_text_bytes;
        assert!(reads(
            "fn f(b: &[u8]) -> bool { std::str::from_utf8(b).is_ok() }"
        ));
        assert!(reads(
            "fn f(b: Vec<u8>) -> bool { String::from_utf8(b).is_ok() }"
        ));
        assert!(reads(
            "fn f(b: &[u8]) -> usize { String::from_utf8_lossy(b).len() }"
        ));
        assert!(!reads(
            "fn f(b: &[u8]) -> bool { b.first() == Some(&b'x') }"
        ));
    }

    #[test]
    fn merging_dedupes_and_caps() {
        let a = Literals {
            ints: (0..300).collect(),
            ..Literals::default()
        };
        let b = Literals {
            ints: vec![5, -1],
            ..Literals::default()
        };
        let m = merge(vec![a, b]);
        assert_eq!(m.ints.len(), CAP);
        assert_eq!(m.ints[0], -1);
        assert_eq!(m.ints[1], 0);
    }
}
