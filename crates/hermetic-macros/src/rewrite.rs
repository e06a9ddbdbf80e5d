//! The rewrite of an isolated unit: which calls leave it, and the code that sends each of them
//! through the test's fakes.
//!
//! A call of a path (`db::run_query(sql)`, `Client::connect(url)`) names its callee: it leaves
//! the unit unless the name is bound or defined inside it, is a constructor (`Some(x)`,
//! `Shape::Circle(r)`), or belongs to `Self`; calls by a bare name (`helper(x)`: this module's
//! functions, or imported ones) and `self::` paths stay inside unless `only(..)` names them;
//! std's (`std::`, `core::`, `alloc::`, prelude types) only when named too. It becomes
//!
//! ```text
//! { let callee = db::run_query; let real: fn(_) -> _ = callee; ::hermetic::fakes::call1(&callee, real, sql) }
//! ```
//!
//! so the callee, with the generic arguments the compiler infers, names the fake; the
//! arguments are evaluated as before (and coerced to the parameters' types, which the `fn`
//! pointer fixes), and then either the fake answers or the real callee runs. No closure: the
//! unit's code gains no function, so its coverage goals stay the same.
//!
//! A method call (`db.query(sql)`) does not say its receiver's type, so the rewrite lets the
//! compiler pick: the candidate types are those the unit calls out to by path
//! (`Database::connect` makes `Database` one) and those the options name; a small trait with an
//! impl for a receiver of each candidate type (by value, `&`, `&mut`, `Box`, `Rc`, `Arc`)
//! sends the call through the fakes, and a blanket impl, which autoref ranks after them, runs
//! any other receiver's call unchanged. Only receivers that are places (`db`, `self.db`) are
//! rewritten: the receiver is looked at (for its type) before the call, never evaluated twice.
//!
//! Left alone: calls inside `const` items and `const fn`s, calls `.await`ed (their value is a
//! future), path calls inside `unsafe` blocks (the callee may be an `unsafe fn`) or with more
//! than 12 arguments, method calls with turbofish or whose arguments hold `?`, `return`,
//! `break`, `continue` or `.await` (the real call is a closure; each such closure is one more
//! function in the unit), and calls inside macros other than std's formatting and assertion
//! macros.

use crate::options::{self, Options};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use std::collections::BTreeSet;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, ExprCall, ExprMethodCall, ExprPath, Item, Path, Token};

/// What the unit itself defines or binds: calls of these stay inside.
pub struct Unit {
    /// The `impl` block's type (`Stack` in `impl Stack`): `Stack::new()` stays inside.
    self_ty: Option<String>,
    /// Items of an inline module: `helper::f()` and `Point::new()` stay inside.
    items: BTreeSet<String>,
    /// Every name a pattern binds anywhere in the unit (parameters, `let`s, closures, match
    /// arms): `f(x)` with a parameter `f` calls the argument.
    bindings: BTreeSet<String>,
}

/// How a path call relates to the unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Never rewritten: a constructor, a local binding, `Self`'s, a qualified `<T as Tr>::f`.
    Never,
    /// Another module's or crate's item: isolated unless the options leave it out.
    Outside,
    /// A bare name, `self::`, the unit's own item, or std's: isolated only when `only` names it.
    OnlyWhenNamed,
}

impl Unit {
    pub fn of(item: &Item) -> Unit {
        let mut bindings = Bindings::default();
        bindings.visit_item(item);
        let mut unit = Unit {
            self_ty: None,
            items: BTreeSet::new(),
            bindings: bindings.0,
        };
        match item {
            Item::Impl(i) => {
                if let syn::Type::Path(p) = &*i.self_ty {
                    unit.self_ty = p.path.segments.last().map(|s| s.ident.to_string());
                }
            }
            Item::Mod(m) => {
                for item in m.content.iter().flat_map(|(_, items)| items) {
                    if let Some(name) = item_name(item) {
                        unit.items.insert(name);
                    }
                }
            }
            _ => {}
        }
        unit
    }

    fn reach(&self, path: &ExprPath) -> Reach {
        if path.qself.is_some() {
            return Reach::Never;
        }
        let all: Vec<String> = path
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let Some(last) = all.last() else {
            return Reach::Never;
        };
        if options::starts_upper(last) && all.len() > 1 || all[0] == "Self" {
            // `Shape::Circle(r)`, `Wrapper(x)` below; `Self::new()`.
            return Reach::Never;
        }
        if all.len() == 1 {
            return if self.bindings.contains(last) || options::starts_upper(last) {
                Reach::Never
            } else {
                Reach::OnlyWhenNamed
            };
        }
        let first = &all[0];
        let own = self.self_ty.as_ref() == Some(first) || self.items.contains(first);
        let std = STD_ROOTS.contains(&first.as_str()) || PRELUDE.contains(&first.as_str());
        if first == "self" || own || std {
            Reach::OnlyWhenNamed
        } else {
            Reach::Outside
        }
    }
}

/// The most arguments an isolated function call may have (`hermetic::fakes::MAX_ARGS`).
const MAX_ARGS: usize = 12;

/// Crates whose items are std's.
const STD_ROOTS: &[&str] = &["std", "core", "alloc"];
/// Prelude types and primitive types, whose associated functions are std's.
const PRELUDE: &[&str] = &[
    "String", "Vec", "Box", "Option", "Result", "ToString", "ToOwned", "Iterator", "From", "Into",
    "Default", "Clone", "bool", "char", "str", "i8", "i16", "i32", "i64", "i128", "isize", "u8",
    "u16", "u32", "u64", "u128", "usize", "f32", "f64",
];

/// std's macros whose arguments are expressions, separated by commas: calls inside them are
/// rewritten too.
const EXPRESSION_MACROS: &[&str] = &[
    "format",
    "format_args",
    "print",
    "println",
    "eprint",
    "eprintln",
    "write",
    "writeln",
    "panic",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "vec",
    "dbg",
    "todo",
    "unimplemented",
    "unreachable",
];

fn item_name(item: &Item) -> Option<String> {
    Some(
        match item {
            Item::Fn(f) => &f.sig.ident,
            Item::Struct(s) => &s.ident,
            Item::Enum(e) => &e.ident,
            Item::Mod(m) => &m.ident,
            Item::Trait(t) => &t.ident,
            Item::Type(t) => &t.ident,
            Item::Union(u) => &u.ident,
            Item::Const(c) => &c.ident,
            Item::Static(s) => &s.ident,
            _ => return None,
        }
        .to_string(),
    )
}

/// Every name a pattern binds.
#[derive(Default)]
struct Bindings(BTreeSet<String>);

impl Visit<'_> for Bindings {
    fn visit_pat_ident(&mut self, p: &syn::PatIdent) {
        self.0.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
}

/// A type whose values' method calls may be isolated: one per name (two spellings of one type
/// would give conflicting impls), with every spelling the unit and its options use, any of
/// which the options may name a method by.
struct ReceiverType {
    name: Option<String>,
    /// As the impls write it: its first spelling.
    path: Path,
    spellings: Vec<Vec<String>>,
}

/// The rewrite of one unit.
pub struct Isolator<'a> {
    options: &'a Options,
    unit: Unit,
    /// Receiver types whose method calls may be isolated.
    types: Vec<ReceiverType>,
    /// Calls rewritten so far.
    pub isolated: usize,
    /// Inside `unsafe { .. }`: the callee may be an `unsafe fn`, which no `fn` pointer holds.
    unsafe_depth: usize,
}

impl<'a> Isolator<'a> {
    pub fn new(options: &'a Options, item: &Item) -> Isolator<'a> {
        let unit = Unit::of(item);
        let mut owners = Owners {
            unit: &unit,
            options,
            found: Vec::new(),
        };
        owners.visit_item(item);
        let mut types: Vec<ReceiverType> = Vec::new();
        // The options' spelling first: their entries name methods by it.
        for t in options.named_types().into_iter().chain(owners.found) {
            let name = t.segments.last().map(|s| s.ident.to_string());
            if name.is_none() || name == unit.self_ty || name.as_deref() == Some("Self") {
                continue;
            }
            let spelling = options::segments(&t);
            match types.iter_mut().find(|k| k.name == name) {
                Some(k) if !k.spellings.contains(&spelling) => k.spellings.push(spelling),
                Some(_) => {}
                None => types.push(ReceiverType {
                    name,
                    path: t,
                    spellings: vec![spelling],
                }),
            }
        }
        Isolator {
            options,
            unit,
            types,
            isolated: 0,
            unsafe_depth: 0,
        }
    }

    /// The rewritten call, or `None` to leave it as it is.
    fn path_call(&mut self, call: &ExprCall) -> Option<Expr> {
        let Expr::Path(func) = &*call.func else {
            return None;
        };
        if self.unsafe_depth > 0 || call.args.len() > MAX_ARGS {
            return None;
        }
        let segments = options::segments(&func.path);
        let selected = match self.unit.reach(func) {
            Reach::Never => false,
            Reach::Outside => self.options.selects(&segments, true),
            Reach::OnlyWhenNamed => self.options.names_in_only(&segments),
        };
        if !selected {
            return None;
        }
        let span = call.span();
        let callee = format_ident!("__hermetic_callee", span = Span::mixed_site());
        let real = format_ident!("__hermetic_real", span = Span::mixed_site());
        let n = call.args.len();
        let holes = (0..n).map(|_| quote!(_));
        let args = call.args.iter();
        let answer = match self.options.restriction(&segments) {
            Some(r) => {
                let pattern = &r.pattern;
                let text = r.text();
                let value = format_ident!("__hermetic_value", span = Span::mixed_site());
                let checked = format_ident!("call_checked{}", n);
                quote_spanned!(span=> ::hermetic::fakes::#checked(
                    &#callee,
                    #real,
                    |#value| ::core::matches!(#value, #pattern),
                    #text,
                    #(#args),*
                ))
            }
            None => {
                let plain = format_ident!("call{}", n);
                quote_spanned!(span=> ::hermetic::fakes::#plain(&#callee, #real, #(#args),*))
            }
        };
        self.isolated += 1;
        Some(syn::parse_quote_spanned!(span=> {
            let #callee = #func;
            let #real: fn(#(#holes),*) -> _ = #callee;
            #answer
        }))
    }

    /// The rewritten method call, or `None` to leave it as it is.
    fn method_call(&mut self, call: &ExprMethodCall) -> Option<Expr> {
        if call.turbofish.is_some() || !is_place(&call.receiver) || call.args.iter().any(leaves) {
            return None;
        }
        let method = call.method.to_string();
        let callee = |spelling: &Vec<String>| {
            let mut callee = spelling.clone();
            callee.push(method.clone());
            callee
        };
        let candidates: Vec<(&Path, Vec<String>)> = self
            .types
            .iter()
            .filter_map(|t| {
                let named = t
                    .spellings
                    .iter()
                    .map(callee)
                    .find(|c| self.options.selects(c, true))?;
                Some((&t.path, named))
            })
            .collect();
        if candidates.is_empty() {
            return None;
        }
        let span = call.span();
        let trait_name = format_ident!("__HermeticIsolate", span = Span::mixed_site());
        let go = format_ident!("__hermetic_isolate", span = Span::mixed_site());
        let impls = candidates.iter().map(|(t, callee)| {
            let m = &call.method;
            let body = match self.options.restriction(callee) {
                Some(r) => {
                    let pattern = &r.pattern;
                    let text = r.text();
                    let value = format_ident!("__hermetic_value", span = Span::mixed_site());
                    quote_spanned!(span=> ::hermetic::fakes::call_method_checked::<#t, HermeticOut, _, _>(
                        #method,
                        &#t::#m,
                        real,
                        |#value| ::core::matches!(#value, #pattern),
                        #text,
                    ))
                }
                None => quote_spanned!(span=> ::hermetic::fakes::call_method::<#t, HermeticOut>(#method, real)),
            };
            let forms = [
                quote!(#t),
                quote!(&#t),
                quote!(&mut #t),
                quote!(::std::boxed::Box<#t>),
                quote!(::std::rc::Rc<#t>),
                quote!(::std::sync::Arc<#t>),
            ];
            let impls = forms.iter().map(|form| {
                quote_spanned! {span=>
                    impl<HermeticReal: ::core::ops::FnOnce() -> HermeticOut, HermeticOut: 'static>
                        #trait_name<HermeticReal, HermeticOut>
                        for &::hermetic::fakes::Receiver<#form>
                    {
                        fn #go(self, real: HermeticReal) -> HermeticOut {
                            #body
                        }
                    }
                }
            });
            quote!(#(#impls)*)
        });
        let receiver = &call.receiver;
        let args = &call.args;
        let m = &call.method;
        self.isolated += 1;
        Some(syn::parse_quote_spanned! {span=> {
            trait #trait_name<HermeticReal, HermeticOut> {
                fn #go(self, real: HermeticReal) -> HermeticOut;
            }
            impl<
                    HermeticAny: ?::core::marker::Sized,
                    HermeticReal: ::core::ops::FnOnce() -> HermeticOut,
                    HermeticOut,
                > #trait_name<HermeticReal, HermeticOut> for ::hermetic::fakes::Receiver<HermeticAny>
            {
                fn #go(self, real: HermeticReal) -> HermeticOut {
                    real()
                }
            }
            #(#impls)*
            (&::hermetic::fakes::Receiver::of(&#receiver)).#go(|| #receiver.#m(#args))
        }})
    }
}

impl VisitMut for Isolator<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            // Its value is a future; what it resolves to is not a call's result.
            Expr::Await(a) => return visit_mut::visit_expr_mut(self, &mut a.base),
            Expr::Const(_) => return,
            Expr::Unsafe(u) => {
                self.unsafe_depth += 1;
                visit_mut::visit_expr_unsafe_mut(self, u);
                self.unsafe_depth -= 1;
                return;
            }
            _ => {}
        }
        visit_mut::visit_expr_mut(self, e);
        let new = match e {
            Expr::Call(call) => self.path_call(call),
            Expr::MethodCall(call) => self.method_call(call),
            _ => None,
        };
        if let Some(new) = new {
            *e = new;
        }
    }

    fn visit_item_fn_mut(&mut self, f: &mut syn::ItemFn) {
        if f.sig.constness.is_none() {
            visit_mut::visit_item_fn_mut(self, f);
        }
    }

    fn visit_impl_item_fn_mut(&mut self, f: &mut syn::ImplItemFn) {
        if f.sig.constness.is_none() {
            visit_mut::visit_impl_item_fn_mut(self, f);
        }
    }

    fn visit_item_const_mut(&mut self, _: &mut syn::ItemConst) {}
    fn visit_item_static_mut(&mut self, _: &mut syn::ItemStatic) {}
    fn visit_impl_item_const_mut(&mut self, _: &mut syn::ImplItemConst) {}

    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        let known = m
            .path
            .segments
            .last()
            .is_some_and(|s| EXPRESSION_MACROS.contains(&s.ident.to_string().as_str()));
        if !known {
            return;
        }
        let parser = Punctuated::<Expr, Token![,]>::parse_terminated;
        let Ok(mut args) = syn::parse::Parser::parse2(parser, m.tokens.clone()) else {
            return;
        };
        let before = self.isolated;
        for a in args.iter_mut() {
            self.visit_expr_mut(a);
        }
        if self.isolated != before {
            m.tokens = args.into_token_stream();
        }
    }
}

/// The types the unit calls out to by path (`Database::connect(..)` → `Database`): method
/// calls on values of them are isolated too.
struct Owners<'u> {
    unit: &'u Unit,
    options: &'u Options,
    found: Vec<Path>,
}

impl Visit<'_> for Owners<'_> {
    fn visit_expr_call(&mut self, call: &ExprCall) {
        if let Expr::Path(func) = &*call.func {
            if self.unit.reach(func) == Reach::Outside
                && self.options.selects(&options::segments(&func.path), true)
            {
                let n = func.path.segments.len();
                if n >= 2 && options::starts_upper(&func.path.segments[n - 2].ident.to_string()) {
                    let mut owner = func.path.clone();
                    owner.segments = owner
                        .segments
                        .into_iter()
                        .take(n - 1)
                        .map(|mut s| {
                            s.arguments = syn::PathArguments::None;
                            s
                        })
                        .collect();
                    self.found.push(owner);
                }
            }
        }
        syn::visit::visit_expr_call(self, call);
    }
}

/// Whether an expression is a place (`x`, `self.a.b`, `(*x).c`): looking at it for its type
/// evaluates nothing.
fn is_place(e: &Expr) -> bool {
    match e {
        Expr::Path(p) => p.qself.is_none(),
        Expr::Field(f) => is_place(&f.base),
        Expr::Paren(p) => is_place(&p.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => is_place(&u.expr),
        _ => false,
    }
}

/// Whether evaluating `e` can leave the enclosing function or loop (`?`, `return`, `break`,
/// `continue`, `.await`): it cannot be moved into a closure.
fn leaves(e: &Expr) -> bool {
    struct Leaves(bool);
    impl Visit<'_> for Leaves {
        fn visit_expr(&mut self, e: &Expr) {
            match e {
                Expr::Try(_) | Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => {
                    self.0 = true
                }
                Expr::Await(_) => self.0 = true,
                // Their `?` and `return` are their own.
                Expr::Closure(_) | Expr::Async(_) => {}
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_item(&mut self, _: &Item) {}
        fn visit_macro(&mut self, m: &syn::Macro) {
            // `?` inside a macro's tokens (`vec![f()?]`) leaves too.
            let text = m.tokens.to_string();
            if text.contains('?') || text.contains("return") || text.contains("await") {
                self.0 = true;
            }
        }
    }
    let mut l = Leaves(false);
    l.visit_expr(e);
    l.0
}

/// The attribute's expansion: the item as written where `test` is off, the rewritten item
/// where it is on.
pub fn expand(options: &Options, original: TokenStream, mut item: Item) -> TokenStream {
    let mut isolator = Isolator::new(options, &item);
    match &mut item {
        Item::Fn(f) => isolator.visit_item_fn_mut(f),
        Item::Impl(i) => isolator.visit_item_impl_mut(i),
        Item::Mod(m) => isolator.visit_item_mod_mut(m),
        _ => unreachable!("checked by the caller"),
    }
    quote! {
        #[cfg(not(test))]
        #original
        #[cfg(test)]
        #[allow(clippy::redundant_closure_call, clippy::needless_borrow, unused_braces)]
        #item
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use syn::parse_quote;

    fn rewrite(options: TokenStream, item: Item) -> String {
        let options = crate::options::parse(options).unwrap();
        let mut isolator = Isolator::new(&options, &item);
        let mut item = item;
        match &mut item {
            Item::Fn(f) => isolator.visit_item_fn_mut(f),
            Item::Impl(i) => isolator.visit_item_impl_mut(i),
            Item::Mod(m) => isolator.visit_item_mod_mut(m),
            _ => unreachable!(),
        }
        item.into_token_stream()
            .to_string()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect()
    }

    #[test]
    fn outside_test_builds_the_item_is_the_input_tokens() {
        let original = quote! {
            /// Seed 000's transfer.
            pub fn transfer(db: &Database, amount: i64) -> Result<bool, E> {
                let balance = db.run_query("Balance", amount)?;
                if balance < amount { return Ok(false); }
                Ok(processor::TransferProcessor::new().process(amount))
            }
        };
        let options = crate::options::parse(quote!(only(Database::run_query))).unwrap();
        let item: Item = syn::parse2(original.clone()).unwrap();
        let out: syn::File = syn::parse2(expand(&options, original.clone(), item)).unwrap();
        let [Item::Fn(plain), Item::Fn(isolated)] = &out.items[..] else {
            panic!("not two functions: {}", quote!(#out));
        };
        // The first is `#[cfg(not(test))]` and then the input, token for token.
        let (cfg, rest) = plain.attrs.split_first().unwrap();
        assert_eq!(quote!(#cfg).to_string(), "# [cfg (not (test))]");
        let mut kept = plain.clone();
        kept.attrs = rest.to_vec();
        assert_eq!(quote!(#kept).to_string(), original.to_string());
        // The rewritten one exists only in test builds.
        let first = &isolated.attrs[0];
        assert_eq!(quote!(#first).to_string(), "# [cfg (test)]");
        assert_ne!(quote!(#isolated).to_string(), original.to_string());
    }

    #[test]
    fn calls_of_other_modules_go_through_the_fakes_and_std_s_do_not() {
        let out = rewrite(
            quote!(),
            parse_quote! {
                fn transfer(amount: i64, f: fn() -> u8) -> i64 {
                    let b = db::run_query("q", amount).unwrap_or(0);
                    let s = String::from("x");
                    let v = std::cmp::max(b, 1);
                    let o = Some(helper(f()));
                    let shape = shapes::Shape::Circle(1.0);
                    b + v
                }
            },
        );
        assert!(
            out.contains("let__hermetic_callee=db::run_query;let__hermetic_real:fn(_,_)->_=__hermetic_callee;::hermetic::fakes::call2(&__hermetic_callee,__hermetic_real,\"q\",amount)"),
            "{out}"
        );
        assert!(out.contains("String::from(\"x\")"), "{out}");
        assert!(out.contains("std::cmp::max(b,1)"), "{out}");
        assert!(out.contains("Some(helper(f()))"), "{out}");
        assert!(out.contains("shapes::Shape::Circle(1.0)"), "{out}");
    }

    #[test]
    fn only_names_what_is_isolated_and_except_leaves_it_out() {
        let item: Item = parse_quote! {
            fn f() { helper(1); db::a(); db::b(); std::fs::read("x"); }
        };
        let out = rewrite(quote!(only(helper, db::a, std::fs)), item.clone());
        assert_eq!(out.matches("__hermetic_callee=").count(), 3, "{out}");
        assert!(out.contains("db::b()"), "{out}");
        let out = rewrite(quote!(except(db::b)), item);
        assert_eq!(out.matches("__hermetic_callee=").count(), 1, "{out}");
    }

    #[test]
    fn methods_on_types_the_unit_calls_out_to_are_isolated_by_receiver_type() {
        let out = rewrite(
            quote!(),
            parse_quote! {
                fn transfer(token: &str) -> bool {
                    let db = Database::connect("db:5432");
                    let n = db.query(token).len();
                    make().query(token);
                    n > 0
                }
            },
        );
        assert!(
            out.contains("for&::hermetic::fakes::Receiver<Database>"),
            "{out}"
        );
        assert!(
            out.contains("for&::hermetic::fakes::Receiver<&Database>"),
            "{out}"
        );
        assert!(
            out.contains("call_method::<Database,HermeticOut>(\"query\",real)"),
            "{out}"
        );
        assert!(
            out.contains(
                "(&::hermetic::fakes::Receiver::of(&db)).__hermetic_isolate(||db.query(token))"
            ),
            "{out}"
        );
        // `.len()` is tried on the isolated call's result; `make()` is no place.
        assert!(out.contains("make().query(token)"), "{out}");
    }

    #[test]
    fn methods_named_in_only_are_isolated_whatever_the_unit_calls_their_type() {
        let out = rewrite(
            quote!(only(Database::connect, crate::db::Database::run_query)),
            parse_quote! {
                fn transfer() -> i64 {
                    let db = Database::connect("db:5432");
                    db.run_query("q").unwrap_or(0)
                }
            },
        );
        assert!(
            out.contains("call_method::<Database,HermeticOut>(\"run_query\",real)"),
            "{out}"
        );
    }

    #[test]
    fn the_unit_s_own_items_and_self_stay_inside() {
        let out = rewrite(
            quote!(),
            parse_quote! {
                impl Stack {
                    fn a(&self) { Stack::new(); Self::new(); self.b(); other::f(); }
                }
            },
        );
        assert_eq!(out.matches("__hermetic_callee=").count(), 1, "{out}");
        assert!(out.contains("other::f"), "{out}");
        let out = rewrite(
            quote!(),
            parse_quote! {
                mod bank { fn a() { helpers::x(); Point::new(); db::q(); } mod helpers {} struct Point; }
            },
        );
        assert_eq!(out.matches("__hermetic_callee=").count(), 1, "{out}");
    }

    #[test]
    fn arguments_are_evaluated_in_place_and_unsafe_blocks_are_left_alone() {
        let out = rewrite(
            quote!(),
            parse_quote! {
                fn f() -> Option<u8> { db::save(a(), b()?); unsafe { ffi::x(1) }; None }
            },
        );
        assert!(
            out.contains("let__hermetic_real:fn(_,_)->_=__hermetic_callee;::hermetic::fakes::call2(&__hermetic_callee,__hermetic_real,a(),b()?)"),
            "{out}"
        );
        assert!(out.contains("unsafe{ffi::x(1)}"), "{out}");
    }

    #[test]
    fn consts_awaits_and_restrictions() {
        let out = rewrite(
            quote!(returns(db::count, 0..)),
            parse_quote! {
                impl S {
                    const N: u8 = db::n();
                    const fn c() -> u8 { db::n() }
                    async fn a(&self) { net::fetch().await; db::count(); println!("{}", db::count()); }
                }
            },
        );
        assert_eq!(out.matches("__hermetic_callee=").count(), 2, "{out}");
        assert!(out.contains("constN:u8=db::n()"), "{out}");
        assert!(out.contains("net::fetch().await"), "{out}");
        assert!(
            out.contains("call_checked0(&__hermetic_callee,__hermetic_real,|__hermetic_value|::core::matches!(__hermetic_value,0..),\"returns(db::count,0..)\",)"),
            "{out}"
        );
    }
}
