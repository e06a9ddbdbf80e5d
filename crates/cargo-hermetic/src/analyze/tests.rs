//! End-to-end analysis tests on the fixture crates and small inline crates.

use super::analyze;
use crate::cluster::*;
use std::path::{Path, PathBuf};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fixture(name: &str) -> Cluster {
    let lib = repo().join("tests/fixtures").join(name).join("src/lib.rs");
    analyze(&lib, name).unwrap()
}

/// Analyses a crate made of `files` (paths relative to `src/`).
fn inline(files: &[(&str, &str)]) -> Cluster {
    inline_with(files, super::Options::default())
}

fn inline_with(files: &[(&str, &str)], options: super::Options) -> Cluster {
    let d = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        let p = d.path().join("src").join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    super::analyze_with(&d.path().join("src/lib.rs"), "demo", options).unwrap()
}

fn ty_id(c: &Cluster, name: &str) -> TypeId {
    c.types
        .iter()
        .position(|t| t.name == name)
        .unwrap_or_else(|| panic!("no type {name}"))
}

fn adt(c: &Cluster, name: &str) -> Ty {
    Ty::Adt(ty_id(c, name), Vec::new())
}

/// The callable `name`, or `Type::name` for those with a self type.
fn callable<'a>(c: &'a Cluster, name: &str) -> &'a Callable {
    c.callables
        .iter()
        .find(|k| display(c, k) == name)
        .unwrap_or_else(|| {
            let all: Vec<String> = c.callables.iter().map(|k| display(c, k)).collect();
            panic!("no callable {name} in {all:?}")
        })
}

fn display(c: &Cluster, k: &Callable) -> String {
    match &k.kind {
        CallableKind::Function
        | CallableKind::StructLiteral { .. }
        | CallableKind::Mock(_)
        | CallableKind::Fake(_) => k.name.clone(),
        CallableKind::AssocFn { self_ty, .. }
        | CallableKind::Method { self_ty, .. }
        | CallableKind::TraitFn { self_ty, .. }
        | CallableKind::Variant { self_ty, .. }
        | CallableKind::Parse { self_ty } => match self_ty {
            Ty::Adt(id, _) => format!("{}::{}", c.types[*id].name, k.name),
            other => format!("{other:?}::{}", k.name),
        },
    }
}

fn skip_reason<'a>(c: &'a Cluster, item: &str) -> &'a str {
    &c.skipped
        .iter()
        .find(|s| s.item == item)
        .unwrap_or_else(|| panic!("{item} not skipped: {:?}", c.skipped))
        .detail
}

fn b(t: Ty) -> Box<Ty> {
    Box::new(t)
}

const I64: Ty = Ty::Int(IntTy::I64);

#[test]
fn stack_fixture() {
    let c = fixture("stack");
    assert_eq!(c.modules.len(), 1);
    assert_eq!(c.modules[0].vis, Vis::Pub);
    let stack = adt(&c, "BoundedStack");
    let err = adt(&c, "StackError");

    let new = callable(&c, "BoundedStack::new");
    assert_eq!(
        new.kind,
        CallableKind::AssocFn {
            self_ty: stack.clone(),
            of_trait: None,
        }
    );
    assert_eq!(
        new.params,
        vec![Param {
            name: "capacity".into(),
            ty: Ty::Int(IntTy::Usize),
            written: Written::AsIs,
        }]
    );
    assert_eq!(new.ret, Ty::Result(b(stack.clone()), b(err.clone())));

    let push = callable(&c, "BoundedStack::push");
    assert_eq!(
        push.kind,
        CallableKind::Method {
            self_ty: stack.clone(),
            receiver: Receiver::RefMut,
            of_trait: None
        }
    );
    assert_eq!(push.ret, Ty::Result(b(Ty::Unit), b(err.clone())));
    assert_eq!(
        callable(&c, "BoundedStack::peek").ret,
        Ty::Option(b(Ty::Ref(b(I64))))
    );

    let default = callable(&c, "BoundedStack::default");
    assert_eq!(
        default.kind,
        CallableKind::TraitFn {
            self_ty: stack.clone(),
            trait_name: "Default".into()
        }
    );
    assert_eq!(default.vis, Vis::Pub);
    assert!(default.params.is_empty());

    let full = callable(&c, "StackError::Full");
    assert_eq!(
        full.kind,
        CallableKind::Variant {
            self_ty: err.clone(),
            fields: VariantShape::Named
        }
    );
    assert_eq!(
        full.params,
        vec![Param {
            name: "capacity".into(),
            ty: Ty::Int(IntTy::Usize),
            written: Written::AsIs,
        }]
    );
    let too_large = callable(&c, "StackError::TooLarge");
    assert_eq!(
        too_large.kind,
        CallableKind::Variant {
            self_ty: err.clone(),
            fields: VariantShape::Tuple
        }
    );

    // Private fields: the literal exists but only where they are visible.
    let lit = callable(&c, "BoundedStack");
    assert_eq!(
        lit.kind,
        CallableKind::StructLiteral {
            self_ty: stack.clone(),
            tuple: false
        }
    );
    assert_eq!(lit.vis, Vis::Private);
    assert_eq!(lit.params[0].ty, Ty::Vec(b(I64)));

    let def = &c.types[ty_id(&c, "StackError")];
    assert_eq!(def.impls, vec!["Display".to_string()]);
    assert_eq!(def.derives, ["Debug", "Clone", "PartialEq", "Eq"]);
    // `Display::fmt` is neither a callable nor reported as skipped.
    assert!(c.callables.iter().all(|k| k.name != "fmt"));
    assert!(c.skipped.is_empty(), "{:?}", c.skipped);
    assert!(c.literals.ints.contains(&1024) && c.literals.ints.contains(&16));
    assert!(c
        .literals
        .strings
        .contains(&"capacity must be positive".to_string()));
}

#[test]
fn abc_fixture_resolves_types_across_modules() {
    let c = fixture("abc");
    let paths: Vec<_> = c.modules.iter().map(|m| m.path.join("::")).collect();
    assert_eq!(paths, ["", "a", "b", "c"]);
    assert!(!c.modules[1].mod_rs);
    let call = callable(&c, "B::makes_a_almost_nice_call");
    assert_eq!(call.module, 2);
    assert_eq!(call.params[0].ty, Ty::Ref(b(adt(&c, "A"))));
    let new_c = callable(&c, "C::new");
    assert_eq!(new_c.params[1].ty, adt(&c, "B"));
    assert_eq!(
        callable(&c, "C::calls_b_with_a").ret,
        Ty::Result(b(Ty::Int(IntTy::I32)), b(Ty::String))
    );
    // Unit struct: a literal without params, and the derived Default.
    let a = callable(&c, "A");
    assert!(a.params.is_empty());
    assert_eq!(a.vis, Vis::Pub);
    assert!(matches!(
        callable(&c, "A::default").kind,
        CallableKind::TraitFn { .. }
    ));
    assert_eq!(callable(&c, "C").vis, Vis::Private);
    assert!(c.skipped.is_empty(), "{:?}", c.skipped);
}

#[test]
fn triangle_magic_and_misbehave_fixtures() {
    let c = fixture("triangle");
    let kind = adt(&c, "Kind");
    assert_eq!(callable(&c, "classify").ret, kind);
    assert_eq!(
        callable(&c, "perimeter").params[0].ty,
        Ty::Array(b(Ty::Int(IntTy::U32)), 3)
    );
    assert_eq!(
        callable(&c, "Kind::Invalid").kind,
        CallableKind::Variant {
            self_ty: kind,
            fields: VariantShape::Unit
        }
    );

    let c = fixture("magic");
    assert!(c.literals.ints.contains(&0x5EC2_E7A1_B00F));
    assert!(c.literals.ints.contains(&73_519));
    assert!(c.literals.strings.contains(&"sesame".to_string()));
    assert!(c.literals.strings.contains(&"HX-".to_string()));
    let unlock = callable(&c, "unlock");
    assert_eq!(unlock.params[1].ty, Ty::Str);

    let c = fixture("misbehave");
    let names: Vec<&str> = c.callables.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, ["divide", "abort_if", "recurse", "spin", "double"]);
    assert_eq!(callable(&c, "abort_if").ret, Ty::Unit);
}

#[test]
fn numparse_fixture_keeps_private_helpers_and_submodules() {
    let c = fixture("numparse");
    let paths: Vec<_> = c.modules.iter().map(|m| m.path.join("::")).collect();
    assert_eq!(paths, ["", "parser", "parser::prefix"]);
    assert_eq!(c.modules[2].vis, Vis::Private);
    assert_eq!(c.modules[2].parent, Some(1));
    assert!(c.modules[2].file.ends_with("src/parser/prefix.rs"));
    let digit = callable(&c, "digit_value");
    assert_eq!((digit.module, digit.vis), (1, Vis::Private));
    let split = callable(&c, "split_sign");
    assert_eq!((split.module, split.vis), (2, Vis::Super));
    assert_eq!(split.ret, Ty::Tuple(vec![Ty::Bool, Ty::Str]));
    let invalid = callable(&c, "ParseError::InvalidDigit");
    assert_eq!(invalid.params[0].ty, Ty::Char);
    assert!(c.literals.chars.contains(&'_'));
    assert!(c.literals.strings.contains(&"0x".to_string()));
}

#[test]
fn closures_fixture_passes_closures_for_fn_bounds_but_never_keeps_one() {
    let c = fixture("closures");
    let closure = |n, r| Ty::Closure(n, b(r));
    let filter = callable(&c, "Listing::filter_entry");
    assert_eq!(filter.generic_args, vec![closure(1, Ty::Bool)]);
    assert_eq!(filter.params[0].ty, closure(1, Ty::Bool));
    assert_eq!(
        callable(&c, "Listing::sort_by").params[0].ty,
        closure(2, Ty::Ordering)
    );
    assert_eq!(
        callable(&c, "config_home").params[0].ty,
        Ty::Ref(b(closure(1, Ty::Option(b(Ty::String)))))
    );
    assert_eq!(
        callable(&c, "retry").params[1].ty,
        closure(0, Ty::Result(b(Ty::Int(IntTy::U32)), b(Ty::String)))
    );
    // The key's type is a type parameter of its own: chosen first, then returned by the closure.
    let by_key = callable(&c, "Listing::sort_by_key");
    assert_eq!(by_key.generic_args, vec![I64, closure(1, I64)]);
    assert_eq!(by_key.params[0].ty, closure(1, I64));
    // shellexpand's context closure: what it returns it owns (`CO = String`).
    let expand = callable(&c, "expand_with");
    let answer = Ty::Result(b(Ty::Option(b(Ty::String))), b(I64));
    assert_eq!(
        expand.generic_args,
        vec![Ty::Str, Ty::String, closure(1, answer), I64]
    );
    let var_error = Ty::Std(StdTy::VarError, Vec::new());
    assert_eq!(
        callable(&c, "describe_var_error").params[0].ty,
        Ty::Ref(b(var_error.clone()))
    );
    assert_eq!(
        callable(&c, "shell").ret,
        Ty::Result(b(Ty::String), b(var_error))
    );
    assert!(skip_reason(&c, "Options").contains("a closure kept in a field"));
    assert_eq!(c.skipped.len(), 1, "{:?}", c.skipped);
}

/// shellexpand's `env_with_context` and `tilde_with_context`: the type parameters a closure
/// returns (`CO: AsRef<str>` inside `Result<Option<CO>, E>`, `P` inside `Option<P>`) take
/// owned types, so the closure can hand one out on every call; the input stays a `&str`.
#[test]
fn type_parameters_a_closure_returns_take_owned_types() {
    let c = inline(&[(
        "lib.rs",
        r#"
        pub type Xstr = str;
        pub struct LookupError<E> { pub var_name: String, pub cause: E }
        pub fn env_with_context<SI: ?Sized, CO, C, E>(input: &SI, mut context: C)
            -> Result<String, LookupError<E>>
        where
            SI: AsRef<Xstr>,
            CO: AsRef<Xstr>,
            C: FnMut(&str) -> Result<Option<CO>, E>,
        {
            match context(input.as_ref()) {
                Ok(Some(v)) => Ok(v.as_ref().to_string()),
                Ok(None) => Ok(String::new()),
                Err(cause) => Err(LookupError { var_name: String::new(), cause }),
            }
        }
        pub fn tilde_with_context<SI: ?Sized, P, HD>(input: &SI, home_dir: HD) -> String
        where
            SI: AsRef<str>,
            P: AsRef<str>,
            HD: FnOnce() -> Option<P>,
        {
            match home_dir() {
                Some(h) => format!("{}{}", h.as_ref(), input.as_ref()),
                None => input.as_ref().to_string(),
            }
        }
        "#,
    )]);
    assert!(c.skipped.is_empty(), "{:?}", c.skipped);
    let env = callable(&c, "env_with_context");
    let returned = Ty::Result(b(Ty::Option(b(Ty::String))), b(I64));
    assert_eq!(
        env.generic_args,
        vec![
            Ty::Str,
            Ty::String,
            Ty::Closure(1, b(returned.clone())),
            I64
        ]
    );
    assert_eq!(env.params[0].ty, Ty::Ref(b(Ty::Str)));
    assert_eq!(env.params[1].ty, Ty::Closure(1, b(returned)));
    let tilde = callable(&c, "tilde_with_context");
    assert_eq!(
        tilde.params[1].ty,
        Ty::Closure(0, b(Ty::Option(b(Ty::String))))
    );
}

#[test]
fn generics_fixture() {
    let c = fixture("generics");
    assert!(skip_reason(&c, "apply").contains("parameter `f`: function pointers"));
    // `impl Fn(i32) -> i32`: a closure of one argument returning an `i32`.
    assert_eq!(
        callable(&c, "with_closure").params[0].ty,
        Ty::Closure(1, b(Ty::Int(IntTy::I32)))
    );
    let largest = callable(&c, "largest");
    assert_eq!(largest.generic_args, vec![I64]);
    assert_eq!(largest.params[0].ty, Ty::Slice(b(I64)));
    assert_eq!(largest.ret, Ty::Option(b(I64)));
    assert_eq!(callable(&c, "pair_up").ret, Ty::Tuple(vec![I64, I64]));
    let w = ty_id(&c, "Wrapper");
    assert_eq!(c.types[w].generics, ["T"]);
    assert_eq!(
        callable(&c, "Wrapper::new").kind,
        CallableKind::AssocFn {
            self_ty: Ty::Adt(w, vec![I64]),
            of_trait: None,
        }
    );
    assert_eq!(callable(&c, "Wrapper::new").ret, Ty::Adt(w, vec![I64]));
    assert_eq!(
        callable(&c, "Wrapper::map_len").kind,
        CallableKind::Method {
            self_ty: Ty::Adt(w, vec![Ty::String]),
            receiver: Receiver::Ref,
            of_trait: None
        }
    );
    assert_eq!(
        callable(&c, "checked_sum").params[0].ty,
        Ty::Slice(b(Ty::Int(IntTy::I32)))
    );
    let lit = callable(&c, "Wrapper");
    assert_eq!(lit.params[0].ty, I64);
    assert_eq!(c.skipped.len(), 1, "{:?}", c.skipped);
}

#[test]
fn shapes_example() {
    let lib = repo().join("examples/shapes/src/lib.rs");
    let c = analyze(&lib, "shapes").unwrap();
    let point = adt(&c, "Point");
    let from = callable(&c, "Point::from");
    assert_eq!(
        from.kind,
        CallableKind::TraitFn {
            self_ty: point.clone(),
            trait_name: "From<(f64, f64)>".into()
        }
    );
    let f64_ = Ty::Float(FloatTy::F64);
    assert_eq!(
        from.params[0].ty,
        Ty::Tuple(vec![f64_.clone(), f64_.clone()])
    );
    assert_eq!(from.ret, point);
    assert_eq!(callable(&c, "Canvas::add").params[0].ty, adt(&c, "Shape"));
    assert_eq!(
        callable(&c, "Rect::intersect").ret,
        Ty::Option(b(adt(&c, "Rect")))
    );
    assert_eq!(callable(&c, "Rect::is_empty").vis, Vis::Private);
    assert_eq!(callable(&c, "Rect").vis, Vis::Pub);
    assert_eq!(callable(&c, "in_range").module, 2);
    assert!(c.literals.ints.contains(&0xC0FFEE));
    assert!(c.literals.floats.contains(&42.0));
    assert!(c.skipped.is_empty(), "{:?}", c.skipped);
    assert_eq!(c.types[ty_id(&c, "Point")].impls, ["From"]);
}

#[test]
fn analysis_is_deterministic() {
    let lib = repo().join("examples/shapes/src/lib.rs");
    let a = analyze(&lib, "shapes").unwrap();
    let b = analyze(&lib, "shapes").unwrap();
    assert_eq!(format!("{a:?}"), format!("{b:?}"));
}

#[test]
fn record_lists_unsafe_fns_marked_unsafe() {
    let files = [(
        "lib.rs",
        "pub struct Buf;\n\
         impl Buf { pub unsafe fn get_unchecked(&self, i: usize) -> u8 { 0 } }\n\
         pub unsafe fn from_ascii(text: &str) -> String { text.to_string() }\n\
         pub fn safe() {}\n",
    )];
    assert_eq!(skip_reason(&inline(&files), "from_ascii"), "unsafe fn");
    let c = inline_with(&files, super::Options::record());
    assert!(callable(&c, "from_ascii").unsafe_fn);
    assert!(callable(&c, "Buf::get_unchecked").unsafe_fn);
    assert!(!callable(&c, "safe").unsafe_fn);
}

#[test]
fn unsupported_items_are_skipped_with_reasons() {
    let c = inline(&[(
        "lib.rs",
        r#"
        use std::collections::VecDeque;
        pub struct Parser<'a> { input: &'a str }
        impl<'a> Parser<'a> { pub fn new(input: &'a str) -> Self { Parser { input } } }
        pub unsafe fn raw() {}
        pub async fn later() {}
        pub extern "C" fn c_abi() {}
        pub fn arr<const N: usize>(x: [u8; N]) {}
        pub fn map(m: VecDeque<String>) {}
        pub fn slice_mut(x: Option<&mut [u8]>) {}
        pub fn unknown(x: Missing) {}
        pub fn io(e: std::io::Error) -> std::io::Result<()> { Err(e) }
        pub fn bound<T: Iterator>(t: T) {}
        pub fn main() {}
        pub struct Cache { map: VecDeque<u8> }
        pub enum E { Ok(u8), Bad(fn()) }
        #[cfg(has_extra)]
        pub fn gated() {}
        pub fn first<'a>(s: &'a str) -> &'a str { s }
        pub fn boxed(b: Box<u8>, v: Vec<Option<bool>>) -> Result<char, String> { unreachable!() }
        "#,
    )]);
    // A type with a lifetime is built, its borrowed field held by the value.
    assert_eq!(callable(&c, "Parser").held, vec![0]);
    assert_eq!(callable(&c, "Parser::new").held, vec![0]);
    assert_eq!(skip_reason(&c, "raw"), "unsafe fn");
    assert_eq!(skip_reason(&c, "later"), "async fn");
    assert_eq!(skip_reason(&c, "c_abi"), "extern fn");
    assert_eq!(skip_reason(&c, "arr"), "const generic parameter `N`");
    assert_eq!(
        skip_reason(&c, "map"),
        "parameter `m`: `VecDeque<String>` is not supported"
    );
    assert!(skip_reason(&c, "slice_mut").starts_with("parameter `x`: mutable slices"));
    assert_eq!(
        skip_reason(&c, "unknown"),
        "parameter `x`: unknown type `Missing`"
    );
    // An I/O error is passed by its kind.
    assert_eq!(callable(&c, "io").params[0].ty, Ty::IoError);
    assert!(skip_reason(&c, "bound").contains("no candidate type satisfies `Iterator`"));
    assert!(skip_reason(&c, "main").contains("main"));
    assert!(skip_reason(&c, "Cache").contains("field `map`"));
    assert!(skip_reason(&c, "E::Bad").contains("function pointers"));
    assert!(skip_reason(&c, "gated").contains("has_extra"));
    callable(&c, "E::Ok");
    assert_eq!(callable(&c, "first").ret, Ty::Str);
    let boxed = callable(&c, "boxed");
    assert_eq!(boxed.params[0].ty, Ty::Box(b(Ty::Int(IntTy::U8))));
    assert_eq!(boxed.params[1].ty, Ty::Vec(b(Ty::Option(b(Ty::Bool)))));
    let parser = &c.types[ty_id(&c, "Parser")];
    assert_eq!((parser.generics.len(), parser.lifetimes), (0, 1));
}

#[test]
fn results_hold_the_arguments_whose_lifetimes_they_name() {
    let c = inline(&[(
        "lib.rs",
        r#"
        pub struct Lexer<'a> { text: &'a str, pos: usize }
        pub enum Token<'a> { Word(&'a str), End }
        pub struct View<'a> { of: &'a Lexer<'a> }
        impl<'a> Lexer<'a> {
            pub fn new(text: &'a str) -> Self { unreachable!() }
            pub fn next_token(&mut self) -> Option<Token<'a>> { unreachable!() }
            pub fn view(&self) -> View<'_> { unreachable!() }
            pub fn rest(&self) -> &'a str { unreachable!() }
            pub fn skip(&mut self, n: usize) -> usize { n }
        }
        pub fn longest<'a>(a: &'a str, b: &'a str, c: &str) -> &'a str { a }
        pub fn first(words: &[&str]) -> Option<&str> { None }
        pub fn count(words: &[&str], skip: Option<&str>) -> usize { 0 }
        pub fn entry(line: &str) -> Option<Token> { None }
        pub fn number(text: &str, part: &'static str) -> Result<u64, String> { Ok(0) }
        pub fn quote(text: &str) -> Result<std::borrow::Cow<str>, String> { Ok(text.into()) }
        pub fn owned(text: &str) -> std::borrow::Cow<'static, str> { text.to_string().into() }
        "#,
    )]);
    let held = |name| callable(&c, name).held.clone();
    assert_eq!(held("Lexer::new"), vec![0]);
    // The token borrows the text, which the lexer already holds; `&mut self` is free again.
    assert_eq!(held("Lexer::next_token"), Vec::<usize>::new());
    assert_eq!(held("Lexer::view"), vec![0]);
    assert_eq!(held("Lexer::rest"), Vec::<usize>::new());
    assert_eq!(held("Lexer::skip"), Vec::<usize>::new());
    assert_eq!(held("longest"), vec![0, 1]);
    assert_eq!(held("first"), vec![0]);
    assert_eq!(held("count"), Vec::<usize>::new());
    assert_eq!(held("entry"), vec![0]);
    assert_eq!(held("Token::Word"), vec![0]);
    assert_eq!(held("Lexer"), vec![0]);
    // A `'static` reference must outlive the call whatever the result is.
    assert_eq!(held("number"), vec![1]);
    // `Cow<str>` borrows as `&str` would.
    assert_eq!(held("quote"), vec![0]);
    assert_eq!(held("owned"), Vec::<usize>::new());
    // References inside parameters.
    let count = callable(&c, "count");
    assert_eq!(count.params[0].ty, Ty::Slice(b(Ty::Str)));
    assert_eq!(count.params[1].ty, Ty::Option(b(Ty::Str)));
}

#[test]
fn names_resolve_through_use_glob_super_and_self() {
    let c = inline(&[
        ("lib.rs", "pub mod geo; mod util; pub mod shapes { use super::*; pub fn origin() -> geo::Point { geo::Point::default() } }"),
        ("geo.rs", "#[derive(Default)] pub struct Point { pub x: i32, pub(crate) y: i32 }\nimpl Point { pub fn mirror(self) -> Self { self } }"),
        ("util/mod.rs", "use crate::geo::Point as P; pub(crate) fn make(p: &P) -> super::geo::Point { unreachable!() } mod deep; pub(crate) use self::deep::Deep;"),
        ("util/deep.rs", "pub struct Deep(pub u8, u16);\nimpl From<u8> for Deep { fn from(x: u8) -> Self { Deep(x, 0) } }\nimpl Deep { pub fn boxed(self: Box<Self>) {} }"),
    ]);
    let point = adt(&c, "Point");
    assert_eq!(callable(&c, "origin").ret, point);
    assert_eq!(callable(&c, "make").params[0].ty, Ty::Ref(b(point.clone())));
    assert_eq!(callable(&c, "make").ret, point);
    let mirror = callable(&c, "Point::mirror");
    assert_eq!(
        mirror.kind,
        CallableKind::Method {
            self_ty: point.clone(),
            receiver: Receiver::Value,
            of_trait: None
        }
    );
    assert_eq!(callable(&c, "Point").vis, Vis::Crate);
    let deep = callable(&c, "Deep");
    assert_eq!(
        deep.kind,
        CallableKind::StructLiteral {
            self_ty: adt(&c, "Deep"),
            tuple: true
        }
    );
    assert_eq!(deep.vis, Vis::Private);
    let from = callable(&c, "Deep::from");
    assert!(
        matches!(&from.kind, CallableKind::TraitFn { trait_name, .. } if trait_name == "From<u8>")
    );
    assert_eq!(from.vis, Vis::Pub);
    assert!(skip_reason(&c, "util::deep::Deep::boxed").contains("receiver `self: Box<Self>`"));
    assert!(c.modules[2].mod_rs && c.modules[3].file.ends_with("util/deep.rs"));
}

#[test]
fn generic_impls_substitute_their_parameters() {
    let c = inline(&[(
        "lib.rs",
        r#"
        #[derive(Default)]
        pub struct Pair<A, B> { pub a: A, pub b: B }
        impl<A: Copy, B: AsRef<str>> Pair<A, B> {
            pub fn first(&self) -> A { self.a }
            pub fn with<C: std::fmt::Display>(&self, c: C) -> Option<&B> where A: Eq { None }
        }
        impl<T> From<T> for Pair<T, String> { fn from(a: T) -> Self { unreachable!() } }
        impl<'a> From<&'a str> for Pair<u8, String> { fn from(s: &'a str) -> Self { unreachable!() } }
        impl Pair<u8, u8> {
            #[cfg(has_x)]
            pub fn gated(&self) {}
            pub fn iter(&self) -> impl Iterator<Item = u8> { None.into_iter() }
        }
        pub enum Tree<T: Ord> { Leaf, Node(Box<Tree<T>>, T) }
        "#,
    )]);
    let pair = ty_id(&c, "Pair");
    let first = callable(&c, "Pair::first");
    assert_eq!(
        first.kind,
        CallableKind::Method {
            self_ty: Ty::Adt(pair, vec![I64, Ty::String]),
            receiver: Receiver::Ref,
            of_trait: None
        }
    );
    assert_eq!(first.ret, I64);
    let with = callable(&c, "Pair::with");
    assert_eq!(with.generic_args, vec![I64]);
    assert_eq!(with.ret, Ty::Option(b(Ty::Ref(b(Ty::String)))));
    let from = callable(&c, "Pair::from");
    assert!(
        matches!(&from.kind, CallableKind::TraitFn { trait_name, .. } if trait_name == "From<i64>")
    );
    assert_eq!(from.params[0].ty, I64);
    let from_str = c
        .callables
        .iter()
        .find(|k| matches!(&k.kind, CallableKind::TraitFn { trait_name, .. } if trait_name == "From<&str>"))
        .expect("From<&'a str> impl with the lifetime dropped");
    assert_eq!(from_str.params[0].ty, Ty::Str);
    assert!(skip_reason(&c, "Pair::gated").contains("has_x"));
    // A returned iterator is collected (`Callable::collect`).
    assert_eq!(
        callable(&c, "Pair::iter").ret,
        Ty::Vec(Box::new(Ty::Int(IntTy::U8)))
    );
    assert!(
        matches!(&callable(&c, "Pair::default").kind, CallableKind::TraitFn { self_ty: Ty::Adt(_, args), .. } if *args == vec![I64, I64])
    );
    let tree = ty_id(&c, "Tree");
    let node = callable(&c, "Tree::Node");
    assert_eq!(node.params[0].ty, Ty::Box(b(Ty::Adt(tree, vec![I64]))));
    // Fields with type parameters have no single type in the definition.
    let TypeKind::Struct(Fields::Named(fields)) = &c.types[pair].kind else {
        panic!()
    };
    assert_eq!(fields[0].ty, None);
}

#[test]
fn inline_modules_and_cfg_test_code() {
    let c = inline(&[(
        "lib.rs",
        "pub fn a() -> u8 { 1 }\nmod inner {\n    pub(super) fn b() {}\n    #[cfg(test)]\n    fn helper() {}\n}\n#[cfg(test)]\nmod tests { #[test] fn t() { super::a(); } }\n",
    )]);
    assert_eq!(c.modules.len(), 2);
    assert_eq!(c.callables.len(), 2);
    assert_eq!(callable(&c, "b").vis, Vis::Super);
    assert!(matches!(c.modules[1].body, ModuleBody::Inline { .. }));
    assert!(c.skipped.is_empty(), "{:?}", c.skipped);
    assert_eq!(c.left_out_modules, [vec!["tests".to_string()]]);
}

#[test]
fn test_functions_beside_the_code_are_left_out_of_the_goals() {
    let c = inline(&[(
        "lib.rs",
        "pub fn a() -> u8 { 1 }\nmod inner {\n    pub fn b() {}\n    #[test]\n    fn b_works() { b(); }\n}\n#[test]\nfn a_works() { a(); }\n",
    )]);
    assert_eq!(c.callables.len(), 2);
    assert_eq!(
        c.left_out_modules,
        [
            vec!["a_works".to_string()],
            vec!["inner".to_string(), "b_works".to_string()]
        ]
    );
}

#[test]
fn broken_inputs_are_errors() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("lib.rs"), "pub fn f( {").unwrap();
    let err = analyze(&d.path().join("lib.rs"), "x")
        .unwrap_err()
        .to_string();
    assert!(err.contains("lib.rs:1:"), "{err}");
    // The `broken` fixture parses: it only fails type checking, which analysis does not do.
    let c = fixture("broken");
    assert_eq!(callable(&c, "add_one").params[0].ty, Ty::Int(IntTy::I32));
}

fn trait_id(c: &Cluster, name: &str) -> TraitId {
    c.traits
        .iter()
        .position(|t| t.name == name)
        .unwrap_or_else(|| panic!("no trait {name}"))
}

#[test]
fn trait_typed_parameters_get_the_traits_mock() {
    let c = fixture("mocks");
    let ledger = trait_id(&c, "Ledger");
    let processor = trait_id(&c, "Processor");
    let transfer = callable(&c, "transfer_money");
    // `&dyn Ledger` and `&mut impl Processor`.
    assert_eq!(transfer.params[0].ty, Ty::Ref(b(Ty::Mock(ledger))));
    assert_eq!(transfer.params[1].ty, Ty::RefMut(b(Ty::Mock(processor))));
    // `S: Source` is instantiated with the mock.
    let source = trait_id(&c, "Source");
    assert_eq!(
        callable(&c, "double_call").generic_args,
        vec![Ty::Mock(source)]
    );
    // `Box<dyn Connection>`.
    let connection = trait_id(&c, "Connection");
    assert_eq!(
        callable(&c, "DataAccessObject::new").params[0].ty,
        Ty::Box(b(Ty::Mock(connection)))
    );
    // One constructor per mock, a sequence of return values per method that returns one.
    let mock = callable(&c, "MockRows");
    assert_eq!(mock.kind, CallableKind::Mock(trait_id(&c, "Rows")));
    let params: Vec<(&str, &Ty)> = mock
        .params
        .iter()
        .map(|p| (p.name.as_str(), &p.ty))
        .collect();
    assert_eq!(
        params,
        vec![
            ("next", &Ty::Vec(b(Ty::Bool))),
            ("get_string", &Ty::Vec(b(Ty::String)))
        ]
    );
    // A statement returning `Box<dyn Rows>` hands out another mock; `set_string` needs no set-up.
    let statement = callable(&c, "MockStatement");
    assert_eq!(statement.params.len(), 1);
    assert_eq!(
        statement.params[0].ty,
        Ty::Vec(b(Ty::Box(b(Ty::Mock(trait_id(&c, "Rows"))))))
    );
    assert!(c.skipped.is_empty(), "{:?}", c.skipped);
    // `fee(&dyn Tariff, ..)` has a twin taking the crate's `Flat`.
    let tariff = trait_id(&c, "Tariff");
    let flat = ty_id(&c, "Flat");
    assert_eq!(c.traits[tariff].implementors, vec![flat]);
    let fees: Vec<&Ty> = c
        .callables
        .iter()
        .filter(|k| k.name == "fee")
        .map(|k| &k.params[0].ty)
        .collect();
    assert_eq!(
        fees,
        vec![&Ty::Ref(b(Ty::Mock(tariff))), &Ty::Ref(b(adt(&c, "Flat")))]
    );
}

#[test]
fn traits_no_mock_can_implement_are_skipped_with_the_reason() {
    let c = inline(&[(
        "lib.rs",
        r#"
        pub trait Generic<T> { fn get(&self) -> T; }
        pub trait Assoc { type Out; fn get(&self) -> Self::Out; }
        pub trait Factory { fn make() -> Self; }
        pub trait Borrowing { fn name(&self) -> &str; }
        pub trait Cloned: Clone { fn id(&self) -> u8; }
        pub trait Sub: Borrowing { fn n(&self) -> u8; }
        pub trait Fine: std::fmt::Debug + Send { fn n(&self) -> u8; fn twice(&self) -> u8 { 2 * self.n() } }
        pub fn use_generic(g: &dyn Generic<u8>) {}
        pub fn use_assoc(a: impl Assoc) {}
        pub fn use_sub<S: Sub>(s: &S) {}
        pub fn use_two<T: Fine + Clone>(t: T) {}
        pub fn use_fine(f: &dyn Fine) -> u8 { f.twice() }
        "#,
    )]);
    assert!(skip_reason(&c, "Generic").contains("generic traits"));
    assert!(skip_reason(&c, "Assoc").contains("associated type `Out`"));
    assert!(skip_reason(&c, "Factory").contains("method `make`: no `self` receiver"));
    assert!(skip_reason(&c, "Borrowing").contains("method `name`: return type"));
    assert!(skip_reason(&c, "Cloned").contains("supertrait `Clone`"));
    assert!(skip_reason(&c, "Sub").contains("supertrait `Borrowing` cannot be mocked"));
    assert!(skip_reason(&c, "use_assoc").contains("trait `Assoc` cannot be mocked"));
    assert!(skip_reason(&c, "use_sub").contains("trait `Sub` cannot be mocked"));
    assert!(skip_reason(&c, "use_two").contains("a mock of `Fine` is not also `Clone`"));
    // Default methods keep their body: the mock implements `n` only.
    let fine = &c.traits[trait_id(&c, "Fine")];
    let methods: Vec<&str> = fine.methods.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(methods, vec!["n"]);
    assert_eq!(fine.mock_name, "MockFine");
    assert_eq!(
        callable(&c, "use_fine").params[0].ty,
        Ty::Ref(b(Ty::Mock(trait_id(&c, "Fine"))))
    );
}

#[test]
fn std_writers_and_iterables_get_std_values() {
    let c = inline(&[(
        "lib.rs",
        r#"
        use std::io::Write;
        pub fn report<W: Write>(out: &mut W, n: u8) -> std::io::Result<()> { writeln!(out, "{n}") }
        pub fn log(out: &mut dyn std::io::Write) {}
        pub fn total(items: impl IntoIterator<Item = u32>) -> u32 { items.into_iter().sum() }
        pub fn fmt_only<F: std::fmt::Write>(f: &mut F) {}
        pub fn lines(r: &mut dyn std::io::BufRead) {}
        pub fn first<I: Iterator<Item = char>>(i: I) {}
        "#,
    )]);
    let bytes = Ty::Vec(b(Ty::Int(IntTy::U8)));
    assert_eq!(callable(&c, "report").generic_args, vec![bytes.clone()]);
    assert_eq!(
        callable(&c, "report").params[0].ty,
        Ty::RefMut(b(bytes.clone()))
    );
    assert_eq!(callable(&c, "log").params[0].ty, Ty::RefMut(b(bytes)));
    assert_eq!(
        callable(&c, "total").params[0].ty,
        Ty::Vec(b(Ty::Int(IntTy::U32)))
    );
    assert!(skip_reason(&c, "fmt_only").contains("std::fmt::Write"));
    assert_eq!(
        callable(&c, "lines").params[0].ty,
        Ty::RefMut(b(Ty::Reader))
    );
    assert_eq!(
        callable(&c, "first").generic_args,
        vec![Ty::IntoIter(b(Ty::Char))]
    );
}

#[test]
fn ranges_of_integers_and_chars_are_values() {
    let c = inline(&[(
        "lib.rs",
        r#"
        use core::ops::{Range, RangeBounds};
        pub fn pick(range: Range<u32>) -> u32 { range.start }
        pub fn letters(r: std::ops::RangeInclusive<char>) -> std::ops::Range<usize> { 0..1 }
        pub fn span(r: impl RangeBounds<u64>) {}
        pub fn span_of<R: RangeBounds<i8>>(r: &R) {}
        pub fn words(r: Range<String>) {}
        "#,
    )]);
    let range = |t: Ty, k: RangeKind| Ty::Range(b(t), k);
    assert_eq!(
        callable(&c, "pick").params[0].ty,
        range(Ty::Int(IntTy::U32), RangeKind::HalfOpen)
    );
    let letters = callable(&c, "letters");
    assert_eq!(letters.params[0].ty, range(Ty::Char, RangeKind::Inclusive));
    assert_eq!(
        letters.ret,
        range(Ty::Int(IntTy::Usize), RangeKind::HalfOpen)
    );
    assert_eq!(
        callable(&c, "span").params[0].ty,
        range(Ty::Int(IntTy::U64), RangeKind::Bounds)
    );
    assert_eq!(
        callable(&c, "span_of").generic_args,
        vec![range(Ty::Int(IntTy::I8), RangeKind::Bounds)]
    );
    assert!(skip_reason(&c, "words").contains("integers and chars"));
}

#[test]
fn trait_impl_methods_are_listed_for_record_only() {
    let files = [
        (
            "lib.rs",
            "pub mod tariff;\npub mod plans;\n\
             pub trait Named: std::fmt::Debug + Send { fn name(&self) -> String; }\n",
        ),
        (
            "tariff.rs",
            "pub trait Tariff: crate::Named { fn rate(&self) -> u32; fn new_one() -> Self where Self: Sized; }\n\
             #[derive(Debug)] pub struct Flat;\n\
             impl Tariff for Flat { fn rate(&self) -> u32 { 10 } fn new_one() -> Self { Flat } }\n\
             impl crate::Named for Flat { fn name(&self) -> String { \"flat\".into() } }\n\
             impl std::fmt::Display for Flat {\n\
                 fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { write!(f, \"flat\") }\n\
             }\n",
        ),
        ("plans.rs", "pub struct Plan;\nimpl crate::tariff::Tariff for Plan { fn rate(&self) -> u32 { 5 } fn new_one() -> Self { Plan } }\nimpl crate::Named for Plan { fn name(&self) -> String { String::new() } }\n"),
    ];
    let plain = inline(&files);
    assert!(!plain
        .callables
        .iter()
        .any(|c| matches!(c.kind, CallableKind::Method { .. })));
    let c = inline_with(
        &files,
        super::Options {
            trait_impl_methods: true,
            ..Default::default()
        },
    );
    let (tariff, named) = (trait_id(&c, "Tariff"), trait_id(&c, "Named"));
    assert_eq!(c.traits[tariff].markers, vec!["Debug", "Send"]);
    let of = |name: &str| match &callable(&c, name).kind {
        CallableKind::Method { of_trait, .. } => *of_trait,
        k => panic!("{name} is {k:?}"),
    };
    assert_eq!(
        of("Flat::rate"),
        Some(ImplOf {
            trait_id: tariff,
            in_scope: true
        })
    );
    assert_eq!(
        of("Plan::rate"),
        Some(ImplOf {
            trait_id: tariff,
            in_scope: false
        })
    );
    assert_eq!(
        of("Flat::name"),
        Some(ImplOf {
            trait_id: named,
            in_scope: false
        })
    );
    // Associated functions and impls of std traits are not listed.
    let names: Vec<String> = c.callables.iter().map(|k| display(&c, k)).collect();
    assert!(
        !names
            .iter()
            .any(|n| n.ends_with("new_one") || n.ends_with("fmt")),
        "{names:?}"
    );
}

#[test]
fn crate_traits_for_std_types_are_methods_of_those_types() {
    let files = [
        (
            "lib.rs",
            "use std::path::{Path, PathBuf};\n\
             pub mod ext;\n\
             pub trait PathExt {\n\
                 fn to_slash(&self) -> Option<String>;\n\
                 fn depth(&self) -> usize { 0 }\n\
                 fn into_it(self) -> bool where Self: Sized { true }\n\
                 fn new_one() -> PathBuf where Self: Sized { PathBuf::new() }\n\
             }\n\
             impl PathExt for Path {\n\
                 fn to_slash(&self) -> Option<String> { self.to_str().map(String::from) }\n\
                 fn depth(&self) -> usize { self.components().count() }\n\
             }\n",
        ),
        (
            "ext.rs",
            "pub trait Shout { fn shout(&self) -> String; fn grow(&mut self, by: u8); fn made() -> Self; }\n\
             impl Shout for String {\n\
                 fn shout(&self) -> String { self.to_uppercase() }\n\
                 fn grow(&mut self, by: u8) { self.push(by as char) }\n\
                 fn made() -> Self { String::new() }\n\
             }\n\
             impl crate::PathExt for str { fn to_slash(&self) -> Option<String> { None } }\n\
             impl<T: Shout> Shout for &T { fn shout(&self) -> String { String::new() } fn grow(&mut self, _: u8) {} fn made() -> Self { todo!() } }\n\
             impl<T: Shout> Shout for Box<T> { fn shout(&self) -> String { String::new() } fn grow(&mut self, _: u8) {} fn made() -> Self { todo!() } }\n",
        ),
    ];
    let c = inline(&files);
    let (path_ext, shout) = (trait_id(&c, "PathExt"), trait_id(&c, "Shout"));
    let method = |name: &str| match &callable(&c, name).kind {
        CallableKind::Method {
            receiver, of_trait, ..
        } => (*receiver, of_trait.map(|o| (o.trait_id, o.in_scope))),
        k => panic!("{name} is {k:?}"),
    };
    // `&self` of an unsized `Path` or `str` is the `&Path` or `&str` value itself.
    let path_ref = "Std(PathRef, [])";
    for name in ["to_slash", "depth"] {
        assert_eq!(
            method(&format!("{path_ref}::{name}")),
            (Receiver::Value, Some((path_ext, true)))
        );
    }
    assert_eq!(
        method("Str::to_slash"),
        (Receiver::Value, Some((path_ext, false)))
    );
    assert_eq!(
        method("String::grow"),
        (Receiver::RefMut, Some((shout, true)))
    );
    assert_eq!(method("String::shout").0, Receiver::Ref);
    // `str` keeps the trait's default `depth`, which its impl does not write.
    assert_eq!(method("Str::depth").0, Receiver::Value);
    assert!(skip_reason(&c, "Path::into_it").contains("unsized `Path`"));
    let kind = |item: &str| &c.skipped.iter().find(|s| s.item == item).unwrap().reason;
    assert_eq!(
        kind("Path::new_one"),
        &crate::skip::SkipReason::TraitAssocFn
    );
    // A sized std type's associated function is called through the trait.
    assert_eq!(
        callable(&c, "String::made").kind,
        CallableKind::AssocFn {
            self_ty: Ty::String,
            of_trait: Some(ImplOf {
                trait_id: shout,
                in_scope: true
            }),
        }
    );
    // Blanket impls (`for &T`, `for Box<T>`) are no std type's API: neither listed nor skipped.
    assert_eq!(c.skipped.len(), 5, "{:?}", c.skipped);
}

#[test]
fn aliases_are_followed_with_their_arguments_and_defaults() {
    let c = inline(&[(
        "lib.rs",
        r#"
        pub mod strsim {
            #[derive(Debug)] pub struct StrSimError;
            pub type HammingResult = Result<usize, StrSimError>;
            pub fn hamming(a: &str, b: &str) -> HammingResult { Ok(0) }
        }
        pub struct Error;
        pub type Result<T> = std::result::Result<T, Error>;
        pub fn parse(s: &str) -> Result<u8> { Ok(0) }
        pub type Res<T, E = Error> = std::result::Result<T, E>;
        pub fn res_default() -> Res<u8> { Ok(0) }
        pub fn res_given() -> Res<u8, String> { Ok(0) }
        pub type Pair<A, B = Vec<A>> = (A, B);
        pub fn pair(p: Pair<char>) {}
        type Name<'a> = &'a str;
        pub fn greet(name: Name<'_>) {}
        pub type Bytes = Vec<u8>;
        pub struct Packet { pub body: Bytes }
        pub type Wrap<U> = Vec<U>;
        pub fn wrapped<T: Copy>(x: Wrap<T>) {}
        pub fn io_err() -> std::io::Result<u8> { Ok(0) }
        "#,
    )]);
    let u8_ = Ty::Int(IntTy::U8);
    assert_eq!(
        callable(&c, "hamming").ret,
        Ty::Result(b(Ty::Int(IntTy::Usize)), b(adt(&c, "StrSimError")))
    );
    let error = adt(&c, "Error");
    let u8_or_error = Ty::Result(b(u8_.clone()), b(error.clone()));
    assert_eq!(callable(&c, "parse").ret, u8_or_error);
    assert_eq!(callable(&c, "res_default").ret, u8_or_error);
    assert_eq!(
        callable(&c, "res_given").ret,
        Ty::Result(b(u8_.clone()), b(Ty::String))
    );
    // A default naming an earlier parameter gets that parameter's argument.
    assert_eq!(
        callable(&c, "pair").params[0].ty,
        Ty::Tuple(vec![Ty::Char, Ty::Vec(b(Ty::Char))])
    );
    assert_eq!(callable(&c, "greet").params[0].ty, Ty::Str);
    assert_eq!(callable(&c, "Packet").params[0].ty, Ty::Vec(b(u8_)));
    // The use site's own type parameter is chosen there, then passed to the alias.
    let wrapped = callable(&c, "wrapped");
    assert_eq!(wrapped.params[0].ty, Ty::Vec(b(I64)));
    assert_eq!(
        callable(&c, "io_err").ret,
        Ty::Result(b(Ty::Int(IntTy::U8)), b(Ty::IoError))
    );
    assert!(c.skipped.is_empty(), "{:?}", c.skipped);
    // The crate's `Result` hides the prelude's in the root (and in tests with `use super::*`).
    assert_eq!(c.modules[0].shadowed_prelude, ["Result"]);
    assert!(c.modules[1].shadowed_prelude.is_empty());
}

#[test]
fn alias_targets_resolve_where_the_alias_is_written() {
    let c = inline(&[
        (
            "lib.rs",
            "pub mod error; mod parse; pub(crate) mod util;\n\
             pub use self::error::Result;\n\
             pub fn top() -> Result<bool> { Ok(true) }\n",
        ),
        (
            "error.rs",
            "#[derive(Debug)] pub struct Error(Kind);\n\
             #[derive(Debug)] enum Kind { Bad }\n\
             pub type Result<T> = std::result::Result<T, Error>;\n\
             pub(crate) type Outcome = Result<Kind>;\n",
        ),
        (
            "parse.rs",
            "use crate::error::{Outcome, Result as Res};\n\
             pub struct Error;\n\
             pub fn parse(s: &str) -> Res<u8> { unreachable!() }\n\
             pub(crate) fn outcome() -> Outcome { unreachable!() }\n\
             pub fn through_reexport() -> crate::Result<String> { unreachable!() }\n",
        ),
        (
            "util.rs",
            "use super::*;\n\
             pub(crate) type Counts = Vec<(String, usize)>;\n\
             pub(crate) fn counts() -> Result<Counts> { Ok(Vec::new()) }\n",
        ),
    ]);
    // `Error` is `error::Error`, not `parse::Error`, wherever the alias is used.
    let error = Ty::Adt(
        c.types
            .iter()
            .position(|t| t.name == "Error" && c.modules[t.module].path == ["error"])
            .unwrap(),
        Vec::new(),
    );
    let result = |ok: Ty| Ty::Result(b(ok), b(error.clone()));
    assert_eq!(callable(&c, "top").ret, result(Ty::Bool));
    assert_eq!(callable(&c, "parse").ret, result(Ty::Int(IntTy::U8)));
    // An alias of an alias, naming a private type of its module.
    assert_eq!(callable(&c, "outcome").ret, result(adt(&c, "Kind")));
    assert_eq!(callable(&c, "through_reexport").ret, result(Ty::String));
    assert_eq!(
        callable(&c, "counts").ret,
        result(Ty::Vec(b(Ty::Tuple(vec![
            Ty::String,
            Ty::Int(IntTy::Usize)
        ]))))
    );
    assert!(c.skipped.is_empty(), "{:?}", c.skipped);
    // Modules where `Result` is the crate's, by definition, re-export or glob import.
    let shadowing: Vec<String> = c
        .modules
        .iter()
        .filter(|m| m.shadowed_prelude.iter().any(|s| s == "Result"))
        .map(|m| m.path.join("::"))
        .collect();
    assert_eq!(shadowing, ["", "error", "util"]);
}

#[test]
fn aliases_that_cannot_be_followed_are_skipped_with_both_reasons() {
    let c = inline(&[(
        "lib.rs",
        r#"
        use std::collections::VecDeque;
        pub type Table = VecDeque<String>;
        pub fn table() -> Table { VecDeque::new() }
        pub type Indirect = Table;
        pub fn indirect(t: Indirect) {}
        pub type Loop = Other;
        pub type Other = Loop;
        pub fn cycle() -> Loop { unreachable!() }
        pub type Nested = Vec<Nested>;
        pub fn nested(n: Nested) {}
        pub type One<T> = Option<T>;
        pub fn too_many() -> One<u8, u8> { None }
        pub fn too_few() -> One { None }
        pub type Arr<const N: usize> = [u8; N];
        pub fn arr() -> Arr<3> { [0; 3] }
        pub type Chain0 = Chain1; pub type Chain1 = Chain2; pub type Chain2 = Chain3;
        pub type Chain3 = Chain4; pub type Chain4 = Chain5; pub type Chain5 = Chain6;
        pub type Chain6 = Chain7; pub type Chain7 = Chain8; pub type Chain8 = Chain9;
        pub type Chain9 = Chain10; pub type Chain10 = Chain11; pub type Chain11 = Chain12;
        pub type Chain12 = Chain13; pub type Chain13 = Chain14; pub type Chain14 = Chain15;
        pub type Chain15 = Chain16; pub type Chain16 = u8;
        pub fn deep() -> Chain0 { 0 }
        pub fn shallow() -> Chain1 { 0 }
        pub type Callback = fn(u8) -> u8;
        pub fn register(cb: Callback) {}
        "#,
    )]);
    assert_eq!(
        skip_reason(&c, "table"),
        "return type: type alias `Table`: `VecDeque<String>` is not supported"
    );
    assert_eq!(
        skip_reason(&c, "indirect"),
        "parameter `t`: type alias `Indirect`: type alias `Table`: \
         `VecDeque<String>` is not supported"
    );
    assert!(
        skip_reason(&c, "cycle").ends_with("type alias `Loop` refers to itself"),
        "{}",
        skip_reason(&c, "cycle")
    );
    assert!(skip_reason(&c, "nested").ends_with("type alias `Nested` refers to itself"));
    assert_eq!(
        skip_reason(&c, "too_many"),
        "return type: `One<u8, u8>` has more type arguments than type alias `One` takes"
    );
    assert_eq!(
        skip_reason(&c, "too_few"),
        "return type: `One` lacks type alias `One`'s argument `T`"
    );
    assert!(skip_reason(&c, "arr").contains("const generic parameter `N`"));
    assert!(skip_reason(&c, "deep").ends_with("is nested in more than 16 other aliases"));
    assert_eq!(callable(&c, "shallow").ret, Ty::Int(IntTy::U8));
    assert!(skip_reason(&c, "register").contains("type alias `Callback`: function pointers"));
}

#[test]
fn record_lists_parse_constructors_for_types_shown_by_display() {
    let lib = "
        use std::fmt;
        use std::str::FromStr;
        #[derive(Clone, PartialEq)]
        pub struct Version { pub major: u64, pub minor: u64 }
        impl fmt::Display for Version {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, \"{}.{}\", self.major, self.minor) }
        }
        impl fmt::Debug for Version {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, \"v{}\", self) }
        }
        impl FromStr for Version {
            type Err = String;
            fn from_str(s: &str) -> Result<Self, String> { Err(s.to_string()) }
        }
        // Derived Debug is read back as a literal: no parse constructor.
        #[derive(Debug, PartialEq)]
        pub struct Plain(pub u8);
        impl fmt::Display for Plain {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, \"{}\", self.0) }
        }
        impl std::str::FromStr for Plain {
            type Err = ();
            fn from_str(_: &str) -> Result<Self, ()> { Err(()) }
        }
        // No PartialEq: a probe cannot tell that the text parses back.
        pub struct Loose;
        impl fmt::Display for Loose {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { f.write_str(\"loose\") }
        }
        impl FromStr for Loose {
            type Err = ();
            fn from_str(_: &str) -> Result<Self, ()> { Ok(Loose) }
        }
    ";
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("src")).unwrap();
    std::fs::write(d.path().join("src/lib.rs"), lib).unwrap();
    let lib_rs = d.path().join("src/lib.rs");
    let c =
        crate::analyze::analyze_with(&lib_rs, "demo", crate::analyze::Options::record()).unwrap();
    let parse: Vec<String> = c
        .callables
        .iter()
        .filter(|k| matches!(k.kind, CallableKind::Parse { .. }))
        .map(|k| display(&c, k))
        .collect();
    assert_eq!(parse, ["Version::parse"]);
    let p = callable(&c, "Version::parse");
    assert_eq!(p.params.len(), 1);
    assert_eq!(p.params[0].ty, Ty::Str);
    // `generate` lists none.
    let plain = crate::analyze::analyze(&lib_rs, "demo").unwrap();
    assert!(!plain
        .callables
        .iter()
        .any(|k| matches!(k.kind, CallableKind::Parse { .. })));
}

#[test]
fn ordering_is_a_std_type_by_any_of_its_paths() {
    let c = super::analyze_lib(
        "use std::cmp::{self, Ordering};
        pub fn a(x: Ordering) -> Option<Ordering> { Some(x) }
        pub fn b() -> cmp::Ordering { cmp::Ordering::Less }
        pub fn c() -> core::cmp::Ordering { Ordering::Equal }",
    );
    assert_eq!(callable(&c, "a").params[0].ty, Ty::Ordering);
    assert_eq!(callable(&c, "a").ret, Ty::Option(b(Ty::Ordering)));
    assert_eq!(callable(&c, "b").ret, Ty::Ordering);
    assert_eq!(callable(&c, "c").ret, Ty::Ordering);
}

#[test]
fn display_iterator_from_str_and_into_iterator_impls_are_the_calls_tests_write() {
    let options = super::Options {
        std_trait_calls: true,
        ..Default::default()
    };
    let c = inline_with(
        &[(
            "lib.rs",
            "
        use std::fmt::{self, Display};
        pub struct Size(pub u64);
        impl Display for Size {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result { write!(f, \"{}B\", self.0) }
        }
        pub struct Words<'a> { rest: &'a str }
        impl<'a> Words<'a> { pub fn new(rest: &'a str) -> Self { Words { rest } } }
        impl<'a> Iterator for Words<'a> {
            type Item = &'a str;
            fn next(&mut self) -> Option<Self::Item> { None }
        }
        #[derive(Debug)]
        pub struct BadLevel;
        pub enum Level { Low, High }
        impl std::str::FromStr for Level {
            type Err = BadLevel;
            fn from_str(s: &str) -> Result<Self, Self::Err> { Err(BadLevel) }
        }
        pub struct Walk { root: String }
        impl Walk { pub fn new(root: &str) -> Self { Walk { root: root.into() } } }
        pub struct Steps { left: Vec<String> }
        impl IntoIterator for Walk {
            type Item = String;
            type IntoIter = Steps;
            fn into_iter(self) -> Steps { Steps { left: vec![self.root] } }
        }
        impl Iterator for Steps {
            type Item = String;
            fn next(&mut self) -> Option<String> { self.left.pop() }
        }
        pub struct Bag(Vec<u8>);
        impl IntoIterator for Bag {
            type Item = u8;
            type IntoIter = std::vec::IntoIter<u8>;
            fn into_iter(self) -> Self::IntoIter { self.0.into_iter() }
        }
        ",
        )],
        options,
    );
    let to_string = callable(&c, "Size::to_string");
    assert_eq!(to_string.ret, Ty::String);
    assert!(matches!(
        to_string.kind,
        CallableKind::Method {
            receiver: Receiver::Ref,
            of_trait: None,
            ..
        }
    ));
    let next = callable(&c, "Words::next");
    assert_eq!(next.ret, Ty::Option(b(Ty::Str)));
    assert!(matches!(
        next.kind,
        CallableKind::Method {
            receiver: Receiver::RefMut,
            ..
        }
    ));
    let parse = callable(&c, "Level::from_str");
    assert_eq!(parse.params[0].ty, Ty::Str);
    assert_eq!(
        parse.ret,
        Ty::Result(b(adt(&c, "Level")), b(adt(&c, "BadLevel")))
    );
    assert!(!c.callables.iter().any(|k| k.name == "fmt"));
    // `IntoIterator` gives the crate's iterator a receiver; a std iterator is not listed.
    let into_iter = callable(&c, "Walk::into_iter");
    assert_eq!(into_iter.ret, adt(&c, "Steps"));
    assert!(matches!(
        into_iter.kind,
        CallableKind::Method {
            receiver: Receiver::Value,
            ..
        }
    ));
    assert!(!c
        .callables
        .iter()
        .any(|k| k.name == "into_iter" && k.ret != adt(&c, "Steps")));
    assert!(c.skipped.is_empty(), "{:?}", c.skipped);
}

#[test]
fn a_trait_no_mock_can_implement_takes_the_primitive_the_crate_implements_it_for() {
    let c = inline(&[(
        "lib.rs",
        "pub trait Amount: Copy + PartialOrd { fn is_negative(self) -> bool; }
         impl Amount for f32 { fn is_negative(self) -> bool { self < 0.0 } }
         impl Amount for f64 { fn is_negative(self) -> bool { self < 0.0 } }
         pub trait Unit: Copy {}
         pub fn scale<F: Amount>(x: F) -> bool { x.is_negative() }
         pub fn shown(x: impl Amount) -> bool { x.is_negative() }
         pub fn boxed(x: &dyn Amount) -> bool { x.is_negative() }
         pub fn none<U: Unit>(u: U) -> U { u }",
    )]);
    let f64_ = Ty::Float(FloatTy::F64);
    assert_eq!(callable(&c, "scale").generic_args, vec![f64_.clone()]);
    assert_eq!(callable(&c, "shown").params[0].ty, f64_);
    // A trait object is not a primitive; a trait nobody implements has no stand-in.
    assert!(c.callables.iter().all(|k| k.name != "boxed"));
    assert!(skip_reason(&c, "none").contains("cannot be mocked"));
}

#[test]
fn a_bound_on_a_crate_alias_is_read_as_its_target() {
    // shellexpand 3: `pub type Xstr = str;` in one module, `SI: AsRef<Xstr>` in another.
    let c = inline(&[(
        "lib.rs",
        "mod strings { pub type Xstr = str; pub type Alias2 = Xstr; }
         use strings::{Alias2, Xstr};
         pub fn tilde<SI: ?Sized>(input: &SI) -> usize where SI: AsRef<Xstr> { input.as_ref().len() }
         pub fn twice<SI: AsRef<Alias2> + ?Sized>(input: &SI) -> usize { input.as_ref().len() }
         pub fn env(input: &str) -> std::borrow::Cow<'_, Xstr> { input.into() }",
    )]);
    for name in ["tilde", "twice"] {
        assert_eq!(callable(&c, name).generic_args, vec![Ty::Str], "{name}");
    }
    assert_eq!(callable(&c, "env").ret, Ty::Std(StdTy::CowStr, Vec::new()));
}

#[test]
fn a_type_parameter_seen_only_inside_an_option_is_not_inferred() {
    // which 8: `which_in(binary_name, None, cwd)` leaves `U` unknown to the compiler.
    let c = inline(&[(
        "lib.rs",
        "pub fn which_in<T: AsRef<str>, U: AsRef<str>>(name: T, paths: Option<U>) -> bool { paths.is_none() && name.as_ref().is_empty() }
         pub fn both<T: AsRef<str>>(name: T, more: Option<T>) -> bool { more.is_none() && name.as_ref().is_empty() }
         pub fn boxed<T: AsRef<str>>(name: &Box<T>) -> bool { (**name).as_ref().is_empty() }",
    )]);
    assert!(!callable(&c, "which_in").generics_inferred);
    assert!(callable(&c, "both").generics_inferred);
    assert!(callable(&c, "boxed").generics_inferred);
}

#[test]
fn a_trait_no_mock_can_implement_takes_the_crate_type_that_implements_it() {
    // which 8: `Sys` has associated types (no mock), `RealSys` implements it; a generic
    // `&T` impl is no type a test can build.
    let c = inline(&[(
        "lib.rs",
        "pub trait Sys { type Entry; fn is_windows(&self) -> bool; }
         #[derive(Default, Clone, Copy)]
         pub struct RealSys;
         impl Sys for RealSys { type Entry = u8; fn is_windows(&self) -> bool { false } }
         impl<T: Sys> Sys for &T { type Entry = T::Entry; fn is_windows(&self) -> bool { (**self).is_windows() } }
         pub struct Config<S: Sys> { sys: S, n: u8 }
         impl<S: Sys> Config<S> {
             pub fn new_with_sys(sys: S) -> Self { Config { sys, n: 0 } }
             pub fn windows(&self) -> bool { self.sys.is_windows() && self.n > 0 }
         }
         pub fn exists(sys: impl Sys, n: u8) -> bool { sys.is_windows() || n > 3 }
         pub fn find<S: Sys>(sys: S) -> bool { sys.is_windows() }
         pub trait Other { type A; fn f(&self); }
         pub fn none<O: Other>(o: O) { o.f() }",
    )]);
    let real = adt(&c, "RealSys");
    assert_eq!(callable(&c, "find").generic_args, vec![real.clone()]);
    assert_eq!(callable(&c, "exists").params[0].ty, real);
    let config = Ty::Adt(ty_id(&c, "Config"), vec![real.clone()]);
    assert_eq!(callable(&c, "Config::new_with_sys").ret, config);
    assert!(matches!(&callable(&c, "Config::windows").kind,
        CallableKind::Method { self_ty, .. } if *self_ty == config));
    // A trait nobody implements still has no stand-in.
    assert!(skip_reason(&c, "none").contains("cannot be mocked"));
}

#[test]
fn an_implementor_twin_puts_the_implementor_in_the_type_arguments_too() {
    // which 8: `WhichFindIterator<TSys, F: NonFatalErrorHandler>::new_path(.., handler: F)`;
    // the twin taking `Noop` must be a method of `Finder<Noop>`, not of `Finder<MockHandler>`.
    let c = inline(&[(
        "lib.rs",
        "pub trait Handler { fn handle(&mut self, e: u8); }
         #[derive(Default)]
         pub struct Noop;
         impl Handler for Noop { fn handle(&mut self, _: u8) {} }
         pub struct Finder<F: Handler> { handler: F, n: u8 }
         impl<F: Handler> Finder<F> {
             pub fn new(n: u8, handler: F) -> Self { Finder { handler, n } }
             pub fn run(&mut self) { self.handler.handle(self.n) }
         }",
    )]);
    let finder = ty_id(&c, "Finder");
    let handler = c.traits.iter().position(|t| t.name == "Handler").unwrap();
    let news: Vec<&Callable> = c.callables.iter().filter(|k| k.name == "new").collect();
    assert_eq!(news.len(), 2, "{news:?}");
    for (k, arg) in news.iter().zip([Ty::Mock(handler), adt(&c, "Noop")]) {
        assert_eq!(k.params[1].ty, arg);
        assert_eq!(k.ret, Ty::Adt(finder, vec![arg.clone()]));
        assert!(matches!(&k.kind, CallableKind::AssocFn { self_ty, .. } if *self_ty == k.ret));
    }
    let runs: Vec<&Callable> = c.callables.iter().filter(|k| k.name == "run").collect();
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(matches!(&runs[1].kind, CallableKind::Method { self_ty, .. }
        if *self_ty == Ty::Adt(finder, vec![adt(&c, "Noop")])));
}

#[test]
fn a_returned_iterator_is_collected_into_a_vec() {
    // which 8: `which_all(..) -> Result<impl Iterator<Item = PathBuf>>`.
    let c = inline(&[(
        "lib.rs",
        "pub fn all(n: u8) -> impl Iterator<Item = u8> { 0..n }
         pub fn some<'a>(s: &'a str) -> Option<impl Iterator<Item = char> + 'a> { s.chars().next().map(|_| s.chars()) }
         pub fn found(n: u8) -> Result<impl Iterator<Item = String>, std::io::Error> { Ok((0..n).map(|i| i.to_string())) }
         pub fn pair(n: u8) -> (u8, impl Iterator<Item = u8>) { (n, 0..n) }
         pub fn shown(n: u8) -> impl std::fmt::Display { n }",
    )]);
    let u8_ = Ty::Int(IntTy::U8);
    assert_eq!(callable(&c, "all").ret, Ty::Vec(b(u8_.clone())));
    assert_eq!(callable(&c, "all").collect, Some(Collect::Whole));
    assert_eq!(
        callable(&c, "some").ret,
        Ty::Option(b(Ty::Vec(b(Ty::Char))))
    );
    assert_eq!(callable(&c, "some").collect, Some(Collect::Inside));
    assert_eq!(
        callable(&c, "found").ret,
        Ty::Result(b(Ty::Vec(b(Ty::String))), b(Ty::IoError))
    );
    assert_eq!(callable(&c, "found").collect, Some(Collect::Inside));
    assert!(skip_reason(&c, "pair").contains("iterator"));
    assert!(skip_reason(&c, "shown").contains("`impl Trait` return types"));
}

#[test]
fn methods_of_a_type_only_a_twin_makes_are_left_on_the_mock() {
    // `Finder<S, H: Handler>`: `new` makes `Finder<Noop>` only, so `run` on
    // `Finder<MockHandler>` could never be called; its twin on `Finder<Noop>` stays.
    let c = inline(&[(
        "lib.rs",
        "pub trait Handler { fn handle(&mut self, e: u8); }
         #[derive(Default)]
         pub struct Noop;
         impl Handler for Noop { fn handle(&mut self, _: u8) {} }
         pub struct Finder<H = Noop> { handler: H, n: u8 }
         impl Finder<Noop> { pub fn new(n: u8) -> Self { Finder { handler: Noop, n } } }
         impl<H: Handler> Finder<H> {
             pub fn run(&mut self) { self.handler.handle(self.n) }
             pub fn with(n: u8, handler: H) -> Self { Finder { handler, n } }
         }
         impl<H: Handler> Finder<H> { pub fn again(&mut self) { self.run() } }",
    )]);
    let noop = Ty::Adt(ty_id(&c, "Finder"), vec![adt(&c, "Noop")]);
    let runs: Vec<&Callable> = c.callables.iter().filter(|k| k.name == "run").collect();
    // `with` makes `Finder<MockHandler>`: both stay.
    assert_eq!(runs.len(), 2, "{runs:?}");
    assert!(runs.iter().any(|k| k.kind.self_ty() == Some(&noop)));
}

#[test]
fn methods_on_a_mock_instantiation_nothing_makes_are_left_out() {
    let c = inline(&[(
        "lib.rs",
        "pub trait Handler { fn handle(&mut self, e: u8); }
         #[derive(Default)]
         pub struct Noop;
         impl Handler for Noop { fn handle(&mut self, _: u8) {} }
         pub struct Finder<H = Noop> { handler: H, n: u8 }
         impl Finder<Noop> { pub fn new(n: u8) -> Self { Finder { handler: Noop, n } } }
         impl<H: Handler> Finder<H> {
             pub fn run(&mut self) { self.handler.handle(self.n) }
             pub fn limit(self, n: u8) -> Self { Finder { n, ..self } }
         }",
    )]);
    let noop = Ty::Adt(ty_id(&c, "Finder"), vec![adt(&c, "Noop")]);
    for name in ["run", "limit"] {
        let all: Vec<&Callable> = c.callables.iter().filter(|k| k.name == name).collect();
        assert_eq!(all.len(), 1, "{all:?}");
        assert_eq!(all[0].kind.self_ty(), Some(&noop));
    }
}

#[test]
fn a_mutable_slice_parameter_takes_a_vectors_borrow() {
    let c = inline(&[(
        "lib.rs",
        "pub fn fill(data: &[u8], out: &mut [u8]) -> usize { out.len() + data.len() }\n\
         pub fn nested(out: Option<&mut [u8]>) -> bool { out.is_some() }\n",
    )]);
    let fill = callable(&c, "fill");
    let bytes = || b(Ty::Int(IntTy::U8));
    assert_eq!(fill.params[0].ty, Ty::Slice(bytes()));
    assert_eq!(fill.params[1].ty, Ty::RefMut(b(Ty::Vec(bytes()))));
    // The signature's type is another: a fake's set-up must not write it.
    assert_eq!(fill.params[1].written, Written::StandIn);
    // Only a parameter's own type coerces: `Option<&mut Vec<u8>>` would not.
    assert!(c.callables.iter().all(|k| k.name != "nested"));
}
