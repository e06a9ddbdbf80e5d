//! Std trait impls that carry a crate's logic, as the calls a user writes for them:
//! `Display` as `value.to_string()`, `Iterator` as `iter.next()`, `FromStr` as
//! `"text".parse::<Type>()`, `IntoIterator` as `builder.into_iter()` (walkdir's `WalkDir`
//! gives its `IntoIter` only so).
//!
//! Each impl is read as the signature of that call, with the impl's associated types put in
//! (`Self::Item`, `Self::Err`), so the rest of analysis maps it as any other signature.

use syn::{ImplItem, ItemImpl};

/// Which std trait an impl is of, and so how a test calls it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StdImpl {
    /// `impl Display`: `value.to_string()` (`ToString` comes with it, and is in the prelude).
    Display,
    /// `impl Iterator`: `iter.next()`.
    Iterator,
    /// `impl FromStr`: `"text".parse::<Type>()`.
    FromStr,
    /// `impl IntoIterator`: `value.into_iter()`, listed only when it gives a crate type (the
    /// caller checks), whose `Iterator` impl then has a receiver.
    IntoIterator,
}

impl StdImpl {
    /// The std trait `path` names, when it is one of these: a bare name (`use
    /// std::fmt::Display;`) or a path through its std module. A crate trait of that name is
    /// not std's: the caller checks.
    pub fn of(path: &syn::Path) -> Option<StdImpl> {
        let last = path.segments.last()?;
        if !last.arguments.is_none() {
            return None;
        }
        let module =
            |m: &str| path.segments.len() == 1 || path.segments.iter().any(|s| s.ident == m);
        match last.ident.to_string().as_str() {
            "Display" if module("fmt") => Some(StdImpl::Display),
            "Iterator" if module("iter") => Some(StdImpl::Iterator),
            "FromStr" if module("str") => Some(StdImpl::FromStr),
            "IntoIterator" if module("iter") => Some(StdImpl::IntoIterator),
            _ => None,
        }
    }

    /// The associated type naming what the call returns, when the caller must check it.
    pub fn returned_assoc(self) -> Option<&'static str> {
        match self {
            StdImpl::IntoIterator => Some("IntoIter"),
            _ => None,
        }
    }

    /// The name of the impl's function that does the work.
    pub fn impl_fn(self) -> &'static str {
        match self {
            StdImpl::Display => "fmt",
            StdImpl::Iterator => "next",
            StdImpl::FromStr => "from_str",
            StdImpl::IntoIterator => "into_iter",
        }
    }

    /// The signature of the call a test writes, read in the impl `imp` (whose associated
    /// types it names); `None` when the impl lacks the associated type it needs.
    pub fn call_signature(self, imp: &ItemImpl) -> Option<syn::Signature> {
        let sig: syn::Signature = match self {
            StdImpl::Display => syn::parse_quote!(fn to_string(&self) -> String),
            StdImpl::Iterator => {
                let item = assoc_type(imp, "Item")?;
                syn::parse_quote!(fn next(&mut self) -> Option<#item>)
            }
            StdImpl::FromStr => {
                let err = assoc_type(imp, "Err")?;
                syn::parse_quote!(fn from_str(s: &str) -> Result<Self, #err>)
            }
            StdImpl::IntoIterator => {
                let iter = assoc_type(imp, "IntoIter")?;
                syn::parse_quote!(fn into_iter(self) -> #iter)
            }
        };
        Some(sig)
    }
}

/// The type an impl gives its associated type `name` (`type Item = u8;`).
pub fn assoc_type<'i>(imp: &'i ItemImpl, name: &str) -> Option<&'i syn::Type> {
    imp.items.iter().find_map(|item| match item {
        ImplItem::Type(t) if t.ident == name && t.generics.params.is_empty() => Some(&t.ty),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::ToTokens;

    fn read(src: &str) -> Option<(StdImpl, String)> {
        let imp: ItemImpl = syn::parse_str(src).unwrap();
        let (_, path, _) = imp.trait_.as_ref().unwrap();
        let kind = StdImpl::of(path)?;
        let sig = kind.call_signature(&imp)?;
        Some((kind, sig.to_token_stream().to_string()))
    }

    #[test]
    fn std_impls_read_as_the_calls_tests_write() {
        assert_eq!(
            read("impl fmt::Display for Size { fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { Ok(()) } }"),
            Some((StdImpl::Display, "fn to_string (& self) -> String".into()))
        );
        assert_eq!(
            read("impl<'a> Iterator for Words<'a> { type Item = &'a str; fn next(&mut self) -> Option<Self::Item> { None } }"),
            Some((StdImpl::Iterator, "fn next (& mut self) -> Option < & 'a str >".into()))
        );
        assert_eq!(
            read("impl std::str::FromStr for Level { type Err = ParseError; fn from_str(s: &str) -> Result<Self, Self::Err> { todo!() } }"),
            Some((StdImpl::FromStr, "fn from_str (s : & str) -> Result < Self , ParseError >".into()))
        );
        // `Iterator` without `Item` is not read; other traits are not these.
        assert_eq!(
            read("impl Display for Size { fn fmt(&self) {} }").map(|r| r.0),
            Some(StdImpl::Display)
        );
        assert_eq!(read("impl io::Display for Size { fn fmt(&self) {} }"), None);
        assert_eq!(
            read("impl Iterator for W { fn next(&mut self) -> Option<u8> { None } }"),
            None
        );
        assert_eq!(
            read("impl IntoIterator for WalkDir { type Item = u8; type IntoIter = IntoIter; fn into_iter(self) -> IntoIter { todo!() } }"),
            Some((StdImpl::IntoIterator, "fn into_iter (self) -> IntoIter".into()))
        );
        assert_eq!(read("impl Hash for W { fn hash(&self) {} }"), None);
    }
}
