//! A probe's wrapper: the body that reports a call to the runtime's record mode
//! (`hermetic::record`) around the original body, and hands the body recording proxies in place
//! of its trait-typed arguments.
//!
//! The original body is moved unchanged to a sibling function, so it keeps its own `return`s,
//! `?`s and lifetimes, and the wrapper sees the returned value without knowing how the body
//! ends. A method of a trait impl cannot have a sibling there (the impl holds the trait's items
//! only): its body stays in place as a closure the wrapper calls, where `return` and `?` mean
//! the same.

use super::proxy_syntax;
use crate::cluster::{Callable, CallableKind, Cluster, RangeKind, Receiver, Ty};
use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::{FnArg, GenericArgument, PathArguments, ReturnType, Signature, Type};

/// Where the wrapper finds the original body.
pub enum Body<'a> {
    /// Moved to a sibling function (`Self::name` for a method).
    Moved { method: bool },
    /// Kept in place, as a closure.
    Inline(&'a syn::Block),
}

/// How a trait-typed argument reaches the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `&dyn T`, `&impl T`, `&P`
    Ref,
    /// `&mut dyn T`, ...
    RefMut,
    /// `Box<dyn T>`, ...
    Boxed,
    /// `impl T`, `P`
    Owned,
}

/// The proxy one argument gets.
#[derive(Clone, Debug)]
pub struct Proxying {
    /// The proxy type's path.
    pub path: TokenStream,
    pub form: Form,
    /// The parameter's type, for a trait object (the proxy coerces to it); `None` for
    /// `impl T` and type parameters, which take the proxy's type.
    pub annotation: Option<Type>,
}

/// The wrapper of a function.
pub struct Wrapper {
    pub block: syn::Block,
    /// The wrapper's signature: the original, with parameters that are patterns named.
    pub sig: Signature,
    /// The sibling that keeps the original body, for [`Body::Moved`].
    pub inner: syn::Ident,
}

/// Which values a probe also captures by their `Display` text (`ViaDisplay`), as the number of
/// references or boxes to look through to reach them: those of crate types whose `Debug`
/// cannot be read back but whose `Display` may round-trip (`analyze::shown_by_display`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shown {
    /// By input, the receiver included.
    pub inputs: Vec<Option<usize>>,
    pub ret: Option<(Inside, usize)>,
    /// By input, whether it is an `impl RangeBounds<T>` (or `R: RangeBounds<T>`): captured by
    /// its bounds (`hermetic::record::Bounds`), since the probe cannot pick `Debug` for it.
    pub range_bounds: Vec<bool>,
}

/// Where a result's value shown by `Display` is: the result itself, or what an `Ok` or a
/// `Some` holds (its text is then logged only when the result is one).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inside {
    Whole,
    Ok,
    Some,
}

impl Shown {
    pub fn of(cluster: &Cluster, c: &Callable) -> Shown {
        let derefs = |t: &Ty| derefs_to_shown(cluster, t);
        let mut inputs = Vec::new();
        if let CallableKind::Method {
            self_ty, receiver, ..
        } = &c.kind
        {
            let by_ref = usize::from(*receiver != Receiver::Value);
            inputs.push(derefs(self_ty).map(|d| d + by_ref));
        }
        let mut range_bounds = vec![false; inputs.len()];
        inputs.extend(c.params.iter().map(|p| derefs(&p.ty)));
        range_bounds.extend(
            c.params
                .iter()
                .map(|p| matches!(p.ty, Ty::Range(_, RangeKind::Bounds))),
        );
        let ret = match &c.ret {
            Ty::Result(ok, _) => derefs(ok).map(|d| (Inside::Ok, d)),
            Ty::Option(some) => derefs(some).map(|d| (Inside::Some, d)),
            t => derefs(t).map(|d| (Inside::Whole, d)),
        };
        Shown {
            inputs,
            ret,
            range_bounds,
        }
    }
}

/// How many `&`, `&mut` or `Box` layers hide a value of a type shown by `Display`, if `t` is one.
fn derefs_to_shown(cluster: &Cluster, t: &Ty) -> Option<usize> {
    match t {
        Ty::Ref(inner) | Ty::RefMut(inner) | Ty::Box(inner) => {
            derefs_to_shown(cluster, inner).map(|d| d + 1)
        }
        Ty::Adt(id, args) if args.is_empty() => {
            crate::analyze::shown_by_display(&cluster.types[*id]).then_some(0)
        }
        _ => None,
    }
}

/// The proxies for the trait-typed parameters of callable `c` (by input, the receiver
/// included), and why some trait-typed parameter gets none. `verdicts`: which traits can have
/// a proxy (`proxy_syntax::verdicts`); `inline`: the body stays in place ([`Body::Inline`]).
pub fn plan(
    cluster: &Cluster,
    c: &Callable,
    sig: &Signature,
    verdicts: &[Result<(), String>],
    inline: bool,
) -> (Vec<Option<Proxying>>, Option<String>) {
    let mut out = vec![None; sig.inputs.len()];
    let mut why_not = None;
    let typed: Vec<(usize, &syn::PatType)> = sig
        .inputs
        .iter()
        .enumerate()
        .filter_map(|(i, a)| match a {
            FnArg::Typed(t) => Some((i, t)),
            FnArg::Receiver(_) => None,
        })
        .collect();
    if typed.len() != c.params.len() {
        return (out, Some("its parameters do not match analysis's".into()));
    }
    for ((i, pt), p) in typed.iter().zip(&c.params) {
        match proxying(cluster, sig, &pt.ty, &p.ty, verdicts, inline) {
            Ok(Some(px)) => out[*i] = Some(px),
            Ok(None) => {}
            Err(why) => {
                why_not.get_or_insert(format!("parameter `{}`: {why}", p.name));
            }
        }
    }
    (out, why_not)
}

fn proxying(
    cluster: &Cluster,
    sig: &Signature,
    written: &Type,
    ty: &Ty,
    verdicts: &[Result<(), String>],
    inline: bool,
) -> Result<Option<Proxying>, String> {
    let (form, t) = match ty {
        Ty::Ref(inner) | Ty::RefMut(inner) | Ty::Box(inner) => match **inner {
            Ty::Mock(t) => (
                match ty {
                    Ty::Ref(_) => Form::Ref,
                    Ty::RefMut(_) => Form::RefMut,
                    _ => Form::Boxed,
                },
                t,
            ),
            _ if ty.mentions(&|t| matches!(t, Ty::Mock(_))) => {
                return Err("a trait-typed value inside another type gets no proxy".into())
            }
            _ => return Ok(None),
        },
        Ty::Mock(t) => (Form::Owned, *t),
        _ if ty.mentions(&|t| matches!(t, Ty::Mock(_))) => {
            return Err("a trait-typed value inside another type gets no proxy".into())
        }
        _ => return Ok(None),
    };
    if let Some(Err(why)) = verdicts.get(t) {
        return Err(format!(
            "`{}` gets no recording proxy: {why}",
            cluster.traits[t].name
        ));
    }
    let inner = pointee(written, form).ok_or("an unexpected way to write a trait-typed value")?;
    let annotation = match inner {
        Type::TraitObject(_) | Type::Path(_) if !is_type_param(sig, inner) => {
            Some(without_outer_lifetime(written))
        }
        Type::Path(p) => {
            if inline {
                return Err("a type parameter of a trait method gets no proxy".into());
            }
            let name = &p.path.segments[0].ident;
            if !only_proxied(sig, name) {
                return Err(format!(
                    "its type parameter `{name}` is used elsewhere in the signature"
                ));
            }
            None
        }
        Type::ImplTrait(_) if !inline => None,
        Type::ImplTrait(_) => return Err("an `impl Trait` parameter of a trait method".into()),
        _ => return Err("an unexpected way to write a trait-typed value".into()),
    };
    Ok(Some(Proxying {
        path: proxy_syntax::proxy_path(cluster, t),
        form,
        annotation,
    }))
}

/// `X` in `&X`, `&mut X`, `Box<X>` or `X`, as the form says.
fn pointee(t: &Type, form: Form) -> Option<&Type> {
    let t = strip(t);
    match (form, t) {
        (Form::Ref, Type::Reference(r)) if r.mutability.is_none() => Some(strip(&r.elem)),
        (Form::RefMut, Type::Reference(r)) if r.mutability.is_some() => Some(strip(&r.elem)),
        (Form::Boxed, Type::Path(p)) => {
            let last = p.path.segments.last()?;
            match &last.arguments {
                PathArguments::AngleBracketed(a) if last.ident == "Box" => {
                    a.args.iter().find_map(|g| match g {
                        GenericArgument::Type(t) => Some(strip(t)),
                        _ => None,
                    })
                }
                _ => None,
            }
        }
        (Form::Owned, t) => Some(t),
        _ => None,
    }
}

fn strip(t: &Type) -> &Type {
    match t {
        Type::Paren(p) => strip(&p.elem),
        Type::Group(g) => strip(&g.elem),
        t => t,
    }
}

fn is_type_param(sig: &Signature, t: &Type) -> bool {
    match t {
        Type::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            let name = &p.path.segments[0].ident;
            sig.generics.type_params().any(|g| g.ident == *name)
        }
        _ => false,
    }
}

/// `&'a dyn T` → `&dyn T`: the proxy is a local of the wrapper.
fn without_outer_lifetime(t: &Type) -> Type {
    let mut t = strip(t).clone();
    if let Type::Reference(r) = &mut t {
        r.lifetime = None;
    }
    t
}

/// Whether type parameter `name` appears only as the whole pointee of parameters that get a
/// proxy (its own bounds aside): the body then takes the proxy's type for it.
fn only_proxied(sig: &Signature, name: &syn::Ident) -> bool {
    let mut proxied = 0;
    let mut total = 0;
    for input in &sig.inputs {
        let FnArg::Typed(pt) = input else { continue };
        total += mentions(pt.ty.to_token_stream(), name);
        let whole = [Form::Ref, Form::RefMut, Form::Boxed, Form::Owned]
            .iter()
            .filter_map(|&f| pointee(&pt.ty, f))
            .any(|p| matches!(p, Type::Path(tp) if tp.path.is_ident(name)));
        proxied += usize::from(whole);
    }
    if let ReturnType::Type(_, t) = &sig.output {
        total += mentions(t.to_token_stream(), name);
    }
    for g in sig.generics.type_params().filter(|g| g.ident != *name) {
        total += mentions(g.bounds.to_token_stream(), name);
    }
    if let Some(w) = &sig.generics.where_clause {
        for p in &w.predicates {
            match p {
                syn::WherePredicate::Type(pt) => {
                    let own = matches!(&pt.bounded_ty, Type::Path(tp) if tp.path.is_ident(name));
                    if !own {
                        total += mentions(pt.bounded_ty.to_token_stream(), name);
                    }
                    total += mentions(pt.bounds.to_token_stream(), name);
                }
                other => total += mentions(other.to_token_stream(), name),
            }
        }
    }
    total == proxied
}

fn mentions(ts: TokenStream, name: &syn::Ident) -> usize {
    ts.into_iter()
        .map(|tt| match tt {
            TokenTree::Ident(i) => usize::from(i == *name),
            TokenTree::Group(g) => mentions(g.stream(), name),
            _ => 0,
        })
        .sum()
}

/// The wrapper for callable (or extra site) `c` with signature `sig`. `proxies`: by input, the
/// receiver included ([`plan`]).
pub fn wrap(
    c: usize,
    sig: &Signature,
    attrs: &[syn::Attribute],
    body: Body,
    proxies: &[Option<Proxying>],
    shown: &Shown,
) -> Result<Wrapper, String> {
    if sig.asyncness.is_some() {
        return Err("async functions are not probed yet".into());
    }
    if sig.constness.is_some() {
        return Err("const functions are not probed".into());
    }
    if sig.variadic.is_some() {
        return Err("variadic functions are not probed".into());
    }
    if attrs.iter().any(|a| a.path().is_ident("test")) {
        return Err("a test".into());
    }
    if let ReturnType::Type(_, t) = &sig.output {
        if quote!(#t).to_string().contains("impl ") {
            return Err("returns `impl Trait`".into());
        }
    }
    let inline = matches!(body, Body::Inline(_));
    if inline && sig.unsafety.is_some() {
        return Err("unsafe methods of trait impls are not probed".into());
    }
    let inner = format_ident!("__hermetic_recorded_{}", sig.ident);
    let mut wrapper_sig = sig.clone();
    let mut captures = Vec::new();
    let mut pass = Vec::new();
    let mut shadows = Vec::new();
    for (i, arg) in wrapper_sig.inputs.iter_mut().enumerate() {
        match arg {
            FnArg::Receiver(_) => {
                captures.push(capture(quote!(self)));
                captures.extend(capture_shown(quote!(self), shown.inputs.get(i)));
                pass.push(quote!(self));
            }
            FnArg::Typed(pt) => {
                let (name, mutable) = match &*pt.pat {
                    syn::Pat::Ident(id) if id.subpat.is_none() && id.by_ref.is_none() => {
                        (id.ident.clone(), id.mutability.is_some())
                    }
                    _ if inline => return Err("a parameter is a pattern".into()),
                    _ => {
                        // The moved body keeps the pattern; the wrapper names the value.
                        let name = format_ident!("__hermetic_arg{i}");
                        *pt.pat = syn::parse_quote!(#name);
                        (name, false)
                    }
                };
                if shown.range_bounds.get(i) == Some(&true) {
                    captures.push(capture(quote!(::hermetic::record::Bounds::of(&#name))));
                } else {
                    captures.push(capture(quote!(#name)));
                }
                captures.extend(capture_shown(quote!(#name), shown.inputs.get(i)));
                pass.push(quote!(#name));
                if let Some(px) = proxies.get(i).and_then(Option::as_ref) {
                    shadows.push(shadow(&name, mutable, i as u32, px));
                }
            }
        }
    }
    let id = proc_macro2::Literal::u32_unsuffixed(c as u32);
    // The result's type is written out: the capture below needs it known, and a generic
    // parameter that only the return type mentions would otherwise be inferred too late.
    let ret = match &sig.output {
        ReturnType::Default => quote!(()),
        ReturnType::Type(_, t) => quote!(#t),
    };
    let call = match body {
        Body::Moved { method } => {
            let callee = if method {
                quote!(Self::#inner)
            } else {
                quote!(#inner)
            };
            // The wrapper of an `unsafe fn` is itself `unsafe`: its callers uphold the contract.
            match sig.unsafety {
                Some(_) => quote!(unsafe { #callee(#(#pass),*) }),
                None => quote!(#callee(#(#pass),*)),
            }
        }
        Body::Inline(block) => {
            // An elided lifetime cannot be written on a closure: then its type is inferred.
            if elides_a_lifetime(&sig.output) {
                quote!((|| #block)())
            } else {
                quote!((|| -> #ret #block)())
            }
        }
    };
    let w = syn::Ident::new("__hermetic_w", Span::call_site());
    let ret_shown = shown.ret.map(|(inside, derefs)| {
        let v = quote!(__hermetic_v);
        // `if let Ok(v) = &ret` binds a reference: one more to look through.
        let inner = capture_shown(v.clone(), Some(&Some(derefs + 1)));
        match inside {
            Inside::Whole => capture_shown(quote!(__hermetic_ret), Some(&Some(derefs))),
            Inside::Ok => {
                Some(quote!(if let ::std::result::Result::Ok(#v) = &__hermetic_ret { #inner }))
            }
            Inside::Some => {
                Some(quote!(if let ::std::option::Option::Some(#v) = &__hermetic_ret { #inner }))
            }
        }
    });
    let body: TokenStream = quote!({
        static __HERMETIC_SITE: ::hermetic::record::Site = ::hermetic::record::Site::new(#id);
        #[allow(unused_imports)]
        use ::hermetic::record::{ViaCapture as _, ViaDebug as _, ViaDisplay as _, ViaNoDisplay as _, ViaOpaque as _};
        let __hermetic_call = ::hermetic::record::enter(&__HERMETIC_SITE, |#w: &mut ::hermetic::record::Writer| {
            #(#captures)*
        });
        #(#shadows)*
        let __hermetic_ret: #ret = #call;
        __hermetic_call.exit(|#w: &mut ::hermetic::record::Writer| {
            (&&&::hermetic::record::Wrap(&__hermetic_ret)).capture(#w);
            #ret_shown
        });
        __hermetic_ret
    });
    let block: syn::Block = syn::parse2(body).map_err(|e| format!("probe does not parse: {e}"))?;
    Ok(Wrapper {
        block,
        sig: wrapper_sig,
        inner,
    })
}

/// `let ledger: &dyn Ledger = &Proxy::new(ledger, tap);`: the argument, replaced by its proxy.
fn shadow(name: &syn::Ident, mutable: bool, arg: u32, px: &Proxying) -> TokenStream {
    let path = &px.path;
    let tap = quote!(__hermetic_call.tap(#arg));
    let value = match px.form {
        Form::Ref => quote!(&#path::new(#name, #tap)),
        Form::RefMut => quote!(&mut #path::new(#name, #tap)),
        Form::Boxed => quote!(::std::boxed::Box::new(#path::new(#name, #tap))),
        Form::Owned => quote!(#path::new(::hermetic::record::Owned(#name), #tap)),
    };
    let m = if mutable { quote!(mut) } else { quote!() };
    match &px.annotation {
        Some(t) => quote!(let #m #name: #t = #value;),
        None => quote!(let #m #name = #value;),
    }
}

fn elides_a_lifetime(output: &ReturnType) -> bool {
    fn walk(ts: TokenStream) -> bool {
        let tokens: Vec<TokenTree> = ts.into_iter().collect();
        tokens.iter().enumerate().any(|(i, tt)| match tt {
            TokenTree::Punct(p) if p.as_char() == '&' => {
                !matches!(tokens.get(i + 1), Some(TokenTree::Punct(q)) if q.as_char() == '\'')
            }
            TokenTree::Punct(p) if p.as_char() == '\'' => {
                matches!(tokens.get(i + 1), Some(TokenTree::Ident(id)) if id == "_")
            }
            TokenTree::Group(g) => walk(g.stream()),
            _ => false,
        })
    }
    match output {
        ReturnType::Default => false,
        ReturnType::Type(_, t) => walk(t.to_token_stream()),
    }
}

/// `(&&&Wrap(&value)).capture(w);`: the value as a literal, its `Debug` text or opaque.
pub(super) fn capture(value: TokenStream) -> TokenStream {
    quote!((&&&::hermetic::record::Wrap(&#value)).capture(__hermetic_w);)
}

/// `(&&Wrap(&**value)).capture_shown(w);` for a value [`Shown`] asks for, behind `derefs`
/// references or boxes.
fn capture_shown(value: TokenStream, derefs: Option<&Option<usize>>) -> Option<TokenStream> {
    let derefs = (*derefs?)?;
    let stars = std::iter::repeat_n(quote!(*), derefs);
    Some(quote!((&&::hermetic::record::Wrap(&#(#stars)* #value)).capture_shown(__hermetic_w);))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(w: &Wrapper) -> String {
        let b = &w.block;
        quote!(#b).to_string()
    }

    #[test]
    fn wrapper_calls_the_moved_body_with_the_arguments() {
        let f: syn::ItemFn = syn::parse_quote!(
            pub fn load(path: &str, mut n: u32) -> Result<u32, String> {
                n += 1;
                Ok(n)
            }
        );
        let w = wrap(
            3,
            &f.sig,
            &f.attrs,
            Body::Moved { method: false },
            &[],
            &Shown::default(),
        )
        .unwrap();
        assert_eq!(w.inner, "__hermetic_recorded_load");
        let text = text(&w);
        assert!(text.contains("Site :: new (3)"), "{text}");
        assert!(
            text.contains(
                "let __hermetic_ret : Result < u32 , String > = __hermetic_recorded_load (path , n) ;"
            ),
            "{text}"
        );
    }

    #[test]
    fn range_bounds_arguments_are_captured_by_their_bounds() {
        let f: syn::ItemFn = syn::parse_quote!(
            fn clamp(x: u64, range: impl RangeBounds<u64>) -> u64 {
                x
            }
        );
        let shown = Shown {
            inputs: vec![None, None],
            ret: None,
            range_bounds: vec![false, true],
        };
        let w = wrap(
            0,
            &f.sig,
            &f.attrs,
            Body::Moved { method: false },
            &[],
            &shown,
        )
        .unwrap();
        let text = text(&w);
        assert!(text.contains("Wrap (& x)) . capture"), "{text}");
        assert!(
            text.contains("Wrap (& :: hermetic :: record :: Bounds :: of (& range))) . capture"),
            "{text}"
        );
    }

    #[test]
    fn values_shown_by_display_are_captured_through_their_references() {
        let f: syn::ImplItemFn = syn::parse_quote!(
            fn pick(&self, other: &Version, n: u32) -> Result<Version, String> {
                Ok(self.clone())
            }
        );
        let shown = Shown {
            inputs: vec![Some(1), Some(1), None],
            ret: Some((Inside::Ok, 0)),
            range_bounds: Vec::new(),
        };
        let w = wrap(
            2,
            &f.sig,
            &f.attrs,
            Body::Moved { method: true },
            &[],
            &shown,
        )
        .unwrap();
        let text = text(&w);
        for expected in [
            "(& & :: hermetic :: record :: Wrap (& * self)) . capture_shown (__hermetic_w) ;",
            "(& & :: hermetic :: record :: Wrap (& * other)) . capture_shown (__hermetic_w) ;",
            "if let :: std :: result :: Result :: Ok (__hermetic_v) = & __hermetic_ret { (& & :: hermetic :: record :: Wrap (& * __hermetic_v)) . capture_shown (__hermetic_w) ; }",
        ] {
            assert!(text.contains(expected), "no {expected}: {text}");
        }
        assert!(!text.contains("Wrap (& n)) . capture_shown"), "{text}");
    }

    #[test]
    fn async_and_impl_trait_are_not_probed_and_patterns_are_named() {
        let f: syn::ItemFn = syn::parse_quote!(
            fn it() -> impl Iterator<Item = u8> {
                0..3
            }
        );
        assert!(wrap(
            0,
            &f.sig,
            &f.attrs,
            Body::Moved { method: false },
            &[],
            &Shown::default()
        )
        .is_err());
        let f: syn::ItemFn = syn::parse_quote!(
            fn sum((a, b): (u8, u8)) -> u8 {
                a + b
            }
        );
        let w = wrap(
            0,
            &f.sig,
            &f.attrs,
            Body::Moved { method: false },
            &[],
            &Shown::default(),
        )
        .unwrap();
        let sig = &w.sig;
        assert_eq!(
            quote!(#sig).to_string(),
            "fn sum (__hermetic_arg0 : (u8 , u8)) -> u8"
        );
        assert!(text(&w).contains("__hermetic_recorded_sum (__hermetic_arg0)"));
        // A trait method keeps its body in place, where patterns cannot be named.
        assert!(wrap(
            0,
            &f.sig,
            &f.attrs,
            Body::Inline(&f.block),
            &[],
            &Shown::default()
        )
        .is_err());
    }

    #[test]
    fn a_trait_methods_body_stays_in_place_as_a_closure() {
        let f: syn::ImplItemFn = syn::parse_quote!(
            fn price(&self, n: u32) -> Result<u32, String> {
                if n == 0 {
                    return Err("none".into());
                }
                Ok(n * self.rate()?)
            }
        );
        let w = wrap(
            5,
            &f.sig,
            &f.attrs,
            Body::Inline(&f.block),
            &[],
            &Shown::default(),
        )
        .unwrap();
        assert!(
            text(&w).contains("= (| | -> Result < u32 , String > { if n == 0"),
            "{}",
            text(&w)
        );
        let f: syn::ImplItemFn = syn::parse_quote!(
            fn name(&self) -> &str {
                &self.name
            }
        );
        let w = wrap(
            5,
            &f.sig,
            &f.attrs,
            Body::Inline(&f.block),
            &[],
            &Shown::default(),
        )
        .unwrap();
        assert!(
            text(&w).contains("= (| | { & self . name }) ()"),
            "{}",
            text(&w)
        );
    }
}
