//! `#[hermetic::isolate]`: in test builds, the calls an item makes that leave it go through
//! the running test's fakes (`hermetic::Fakes`); elsewhere the item is left exactly as written.
//!
//! Seed 000's AutoIsolator, for Rust: the unit under test is the item the attribute is on (a
//! function, an `impl` block or an inline module). See `rewrite` for which calls leave it and
//! what they become, and the `hermetic` crate's `fakes` module for the table they go through.
//!
//! The expansion is the item as written under `#[cfg(not(test))]` and the rewritten item under
//! `#[cfg(test)]`, so outside test builds the item is the input's tokens. A path call that leaves
//! the unit becomes a call through `hermetic::fakes::callN` (no closure, so the unit gains no
//! coverage goal); a method call on a receiver of a candidate type becomes a call through a
//! per-site trait whose impls pick the receiver's type at compile time and whose blanket impl,
//! ranked after them by autoref, runs any other receiver's call unchanged (so std's methods on
//! other receivers keep their borrowed results). `const` code and path calls inside `unsafe` blocks
//! are left as written; a receiver is looked at for its type, never evaluated twice.

mod options;
mod rewrite;

use proc_macro::TokenStream;

/// Sends the calls this function, `impl` block or inline module makes to other modules' and
/// crates' items through the test's fakes (`hermetic::Fakes`), in test builds (`cfg(test)`);
/// in other builds the item is exactly as written. A call the test did not set up runs the
/// real callee.
///
/// Options: `only(paths)` isolates only the callees these paths name (a module, a function, a
/// type or a method: `only(db, http::Client::get)`), and may name calls the unit keeps inside
/// by default (bare names, `self::` paths, std); `except(paths)` leaves callees out;
/// `returns(callee, pattern)` restricts what a fake of the callee may return
/// (`returns(db::count, Ok(0..))`): test generation keeps to it, and a test that sets up a value
/// outside it fails.
///
/// A callee whose result borrows (`fn name(&self) -> &str`) cannot be faked: leave it out with
/// `except(..)`.
#[proc_macro_attribute]
pub fn isolate(attr: TokenStream, item: TokenStream) -> TokenStream {
    let options = match options::parse(attr.into()) {
        Ok(o) => o,
        Err(e) => return e.to_compile_error().into(),
    };
    let original: proc_macro2::TokenStream = item.clone().into();
    let parsed =
        match syn::parse::<syn::Item>(item) {
            Ok(i @ (syn::Item::Fn(_) | syn::Item::Impl(_))) => i,
            Ok(syn::Item::Mod(m)) if m.content.is_some() => syn::Item::Mod(m),
            Ok(other) => return syn::Error::new_spanned(
                other,
                "`#[hermetic::isolate]` goes on a function, an `impl` block or an inline module \
                 (`mod name { .. }`)",
            )
            .to_compile_error()
            .into(),
            Err(e) => return e.to_compile_error().into(),
        };
    rewrite::expand(&options, original, parsed).into()
}
