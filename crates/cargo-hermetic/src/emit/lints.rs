//! The clippy lints a generated test trips on purpose, allowed on that test alone, so the
//! generated files pass `cargo clippy --tests -- -D warnings`: a reversed literal range is the
//! point of a test of the code's check of it (`reversed_empty_ranges`), and a float the code
//! computed that happens to lie near π or another constant is a result, not a slip for the
//! constant (`approx_constant`; a value that *is* the constant is written as the constant, see
//! `oracle::float_literal`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit::Visit;

/// `#[allow(..)]` for the lints the statements trip, or nothing.
pub(crate) fn allowed(body: &[TokenStream]) -> TokenStream {
    let Ok(block) = syn::parse2::<syn::Block>(quote!({ #(#body)* })) else {
        return quote!();
    };
    let mut finder = Finder::default();
    finder.visit_block(&block);
    let mut lints = Vec::new();
    if finder.reversed_range {
        lints.push(quote!(clippy::reversed_empty_ranges));
    }
    if finder.approx_constant {
        lints.push(quote!(clippy::approx_constant));
    }
    if lints.is_empty() {
        quote!()
    } else {
        quote!(#[allow(#(#lints),*)])
    }
}

#[derive(Default)]
struct Finder {
    /// A range whose literal start lies past its end (`5..3`).
    reversed_range: bool,
    /// A float literal clippy takes for a known constant.
    approx_constant: bool,
}

impl<'ast> Visit<'ast> for Finder {
    fn visit_expr_range(&mut self, r: &'ast syn::ExprRange) {
        if let (Some(a), Some(b)) = (
            r.start.as_deref().and_then(bound),
            r.end.as_deref().and_then(bound),
        ) {
            self.reversed_range |= a > b;
        }
        syn::visit::visit_expr_range(self, r);
    }

    fn visit_lit_float(&mut self, f: &'ast syn::LitFloat) {
        self.approx_constant |= near_a_constant(f.base10_digits());
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // `assert_eq!(clamp(5, 9..3), 5)`: the arguments are expressions.
        if let Ok(args) = m.parse_body_with(
            syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
        ) {
            args.iter().for_each(|e| self.visit_expr(e));
        }
    }
}

/// The value of an integer or char literal range bound.
fn bound(e: &syn::Expr) -> Option<i128> {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<i128>().ok(),
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Char(c),
            ..
        }) => Some(c.value() as i128),
        syn::Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => bound(expr).map(|v| -v),
        syn::Expr::Paren(p) => bound(&p.expr),
        _ => None,
    }
}

/// The constants clippy's `approx_constant` knows, with the fewest characters a literal must
/// have before it counts as one.
const KNOWN: [(f64, usize); 19] = {
    use std::f64::consts::*;
    [
        (E, 4),
        (FRAC_1_PI, 4),
        (FRAC_1_SQRT_2, 5),
        (FRAC_2_PI, 5),
        (FRAC_2_SQRT_PI, 5),
        (FRAC_PI_2, 5),
        (FRAC_PI_3, 5),
        (FRAC_PI_4, 5),
        (FRAC_PI_6, 5),
        (FRAC_PI_8, 5),
        (LN_2, 5),
        (LN_10, 5),
        (LOG2_10, 5),
        (LOG2_E, 5),
        (LOG10_2, 5),
        (LOG10_E, 5),
        (PI, 3),
        (SQRT_2, 5),
        (TAU, 3),
    ]
};

/// Whether clippy's `approx_constant` takes a float literal (its text, without sign or suffix)
/// for a known constant: a truncation of the constant's digits, or the constant rounded to the
/// literal's length, longer than the constant's minimum.
pub(crate) fn near_a_constant(text: &str) -> bool {
    text.parse::<f64>().is_ok()
        && KNOWN.iter().any(|&(constant, min_digits)| {
            text.len() > min_digits
                && (constant.to_string().starts_with(text)
                    || format!("{constant:.*}", text.len() - 2) == text)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allows(body: TokenStream) -> String {
        allowed(&[body]).to_string()
    }

    #[test]
    fn reversed_literal_ranges_are_found_inside_assertions() {
        let reversed = "# [allow (clippy :: reversed_empty_ranges)]";
        assert_eq!(allows(quote!(assert_eq!(clamp(5, 9..3), 5);)), reversed);
        assert_eq!(allows(quote!(let _ = f('z'..='a');)), reversed);
        assert_eq!(allows(quote!(let _ = f(-1..-3);)), reversed);
        assert_eq!(allows(quote!(assert_eq!(clamp(5, 3..9), 5);)), "");
        assert_eq!(allows(quote!(let _ = f(-3..-1, 7..);)), "");
    }

    #[test]
    fn floats_clippy_takes_for_constants_are_found() {
        for near in [
            "3.14", "3.1416", "3.14159", "2.718", "6.283", "0.7071", "1.4142",
        ] {
            assert!(near_a_constant(near), "{near}");
        }
        for not in ["3.1", "3.15", "2.5", "0.1", "1e20", "3.0", "6.3"] {
            assert!(!near_a_constant(not), "{not}");
        }
        assert_eq!(
            allows(quote!(ASSERT_EQ_(area(1.0), 3.1416);)),
            "# [allow (clippy :: approx_constant)]"
        );
        assert_eq!(
            allows(quote!(let _ = f(9..3, 2.71828);)),
            "# [allow (clippy :: reversed_empty_ranges , clippy :: approx_constant)]"
        );
    }
}
