//! Evaluation of `#[cfg(..)]` attributes for the configuration the driver is built in: the
//! crate's features as cargo resolves them, the host's target facts, a test build.

use super::syntax::tokens_text;
use quote::ToTokens;
use std::collections::BTreeSet;
use syn::punctuated::Punctuated;
use syn::{Attribute, Meta, Token};

/// Whether an item is compiled into the crate's unit-test binary (where the driver lives) but is
/// not itself test code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Compiled in: analyse it.
    On,
    /// Not compiled in, or test-only code: ignore it silently.
    Off,
    /// Depends on something analysis cannot know (features, custom cfgs); the text of the
    /// attribute, for the skip reason.
    Unknown(String),
}

/// What `#[cfg]`s are evaluated against besides the host: the crate's enabled features.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Config {
    /// Features of the crate the build turns on (`cargo::Features::enabled`).
    pub features: BTreeSet<String>,
}

/// The verdict for an item with these attributes (all of its `#[cfg]`s must hold).
pub fn verdict(attrs: &[Attribute], config: &Config) -> Verdict {
    verdict_in(attrs, config, false)
}

/// `verdict`, with `cfg(test)` taken as `test` says: off for items (test code is never a goal),
/// on for the variants and fields of a type the test build compiles.
fn verdict_in(attrs: &[Attribute], config: &Config, test: bool) -> Verdict {
    let mut unknown = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("cfg")) {
        let Meta::List(list) = &attr.meta else {
            continue;
        };
        // `cfg(test)` code is the user's own tests: never something to generate tests for.
        match list
            .parse_args::<Meta>()
            .ok()
            .map(|m| eval(&m, config, test))
        {
            Some(Some(true)) => {}
            Some(Some(false)) => return Verdict::Off,
            _ => {
                unknown.get_or_insert_with(|| format!("#[cfg({})]", tokens_text(&list.tokens)));
            }
        }
    }
    match unknown {
        Some(text) => Verdict::Unknown(text),
        None => Verdict::On,
    }
}

/// Takes out of a struct or enum the variants and fields the build compiles out
/// (`#[cfg(windows)] SeekRead` on Linux): the driver's code for the type names every variant and
/// field analysis keeps, and one that is not there fails its build. Parts whose cfg analysis cannot
/// evaluate stay (the driver build pins an error on the type); `cfg(test)` ones are in the build the
/// driver is part of.
pub fn strip_compiled_out(item: &mut syn::Item, config: &Config) {
    let on = |attrs: &[Attribute]| verdict_in(attrs, config, true) != Verdict::Off;
    let fields = |fields: &mut syn::Fields| match fields {
        syn::Fields::Named(f) => {
            f.named = std::mem::take(&mut f.named)
                .into_pairs()
                .filter(|p| on(&p.value().attrs))
                .collect();
        }
        syn::Fields::Unnamed(f) => {
            f.unnamed = std::mem::take(&mut f.unnamed)
                .into_pairs()
                .filter(|p| on(&p.value().attrs))
                .collect();
        }
        syn::Fields::Unit => {}
    };
    match item {
        syn::Item::Struct(s) => fields(&mut s.fields),
        syn::Item::Enum(e) => {
            e.variants = std::mem::take(&mut e.variants)
                .into_pairs()
                .filter(|p| on(&p.value().attrs))
                .map(|mut p| {
                    fields(&mut p.value_mut().fields);
                    p
                })
                .collect();
        }
        _ => {}
    }
}

/// The `#[path]` of a `mod` item, including `#[cfg_attr(pred, path = "..")]` whose predicate
/// holds (crates pick per-platform files this way). `Err` when a `cfg_attr` cannot be evaluated.
pub fn module_path(attrs: &[Attribute], config: &Config) -> Result<Option<String>, String> {
    if let Some(p) = path_value(attrs.iter().map(|a| &a.meta)) {
        return Ok(Some(p));
    }
    for attr in attrs.iter().filter(|a| a.path().is_ident("cfg_attr")) {
        let Ok(args) = attr.parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated) else {
            continue;
        };
        let mut args = args.into_iter();
        let Some(pred) = args.next() else {
            continue;
        };
        let rest: Vec<Meta> = args.collect();
        let Some(p) = path_value(rest.iter()) else {
            continue;
        };
        match eval(&pred, config, false) {
            Some(true) => return Ok(Some(p)),
            Some(false) => {}
            None => return Err(format!("#[{}]", tokens_text(&attr.meta.to_token_stream()))),
        }
    }
    Ok(None)
}

fn path_value<'a>(metas: impl Iterator<Item = &'a Meta>) -> Option<String> {
    metas.into_iter().find_map(|m| match m {
        Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// Three-valued evaluation: `None` when the predicate depends on something unknown (a cfg
/// a build script sets, say).
fn eval(meta: &Meta, config: &Config, test: bool) -> Option<bool> {
    match meta {
        Meta::Path(p) => {
            let name = p.get_ident()?.to_string();
            match name.as_str() {
                "test" => Some(test),
                // The driver is built with the test profile, which keeps debug assertions and
                // overflow checks.
                "debug_assertions" | "overflow_checks" => Some(true),
                "unix" => Some(cfg!(unix)),
                "windows" => Some(cfg!(windows)),
                // Set by rustdoc, docs.rs, miri, rustfmt and clippy, never by `cargo test`.
                "doc" | "doctest" | "miri" | "docsrs" | "rustfmt" | "clippy" => Some(false),
                _ => None,
            }
        }
        Meta::NameValue(nv) => {
            let key = nv.path.get_ident()?.to_string();
            let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(value),
                ..
            }) = &nv.value
            else {
                return None;
            };
            let value = value.value();
            // Analysis runs on the machine that builds and runs the driver.
            let actual = match key.as_str() {
                "feature" => return Some(config.features.contains(&value)),
                "target_os" => std::env::consts::OS,
                "target_family" => std::env::consts::FAMILY,
                "target_arch" => std::env::consts::ARCH,
                "target_env" => host_env(),
                "target_vendor" => host_vendor(),
                "panic" => "unwind",
                "target_has_atomic" => {
                    let widths = ["8", "16", "32", "ptr"];
                    return Some(
                        widths.contains(&value.as_str())
                            || (value == "64" && cfg!(target_has_atomic = "64")),
                    );
                }
                "target_pointer_width" => {
                    return Some(value == (usize::BITS).to_string());
                }
                "target_endian" => {
                    return Some(
                        value
                            == if cfg!(target_endian = "little") {
                                "little"
                            } else {
                                "big"
                            },
                    );
                }
                _ => return None,
            };
            Some(value == actual)
        }
        Meta::List(list) => {
            let name = list.path.get_ident()?.to_string();
            let args = list
                .parse_args_with(Punctuated::<Meta, Token![,]>::parse_terminated)
                .ok()?;
            let values: Vec<Option<bool>> = args.iter().map(|m| eval(m, config, test)).collect();
            match name.as_str() {
                "not" if values.len() == 1 => values[0].map(|v| !v),
                "all" => {
                    if values.contains(&Some(false)) {
                        Some(false)
                    } else if values.iter().all(|v| *v == Some(true)) {
                        Some(true)
                    } else {
                        None
                    }
                }
                "any" => {
                    if values.contains(&Some(true)) {
                        Some(true)
                    } else if values.iter().all(|v| *v == Some(false)) {
                        Some(false)
                    } else {
                        None
                    }
                }
                _ => None,
            }
        }
    }
}

/// The host's `target_env`, as the engine itself was built for it.
fn host_env() -> &'static str {
    if cfg!(target_env = "gnu") {
        "gnu"
    } else if cfg!(target_env = "musl") {
        "musl"
    } else {
        ""
    }
}

/// The host's `target_vendor`.
fn host_vendor() -> &'static str {
    if cfg!(target_vendor = "apple") {
        "apple"
    } else if cfg!(target_vendor = "pc") {
        "pc"
    } else {
        "unknown"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn verdict_of(src: &str) -> Verdict {
        verdict_with(src, &[])
    }

    fn verdict_with(src: &str, features: &[&str]) -> Verdict {
        let item: syn::ItemFn = syn::parse_str(&format!("{src} fn f() {{}}")).unwrap();
        let config = Config {
            features: features.iter().map(|f| f.to_string()).collect(),
        };
        verdict(&item.attrs, &config)
    }

    #[test]
    fn test_code_is_off_and_not_test_is_on() {
        assert_eq!(verdict_of("#[cfg(test)]"), Verdict::Off);
        assert_eq!(verdict_of("#[cfg(not(test))]"), Verdict::On);
        assert_eq!(
            verdict_of("#[cfg(all(test, feature = \"x\"))]"),
            Verdict::Off
        );
        assert_eq!(verdict_of("#[cfg(any(test, unix))]"), Verdict::On);
        assert_eq!(verdict_of("#[inline]"), Verdict::On);
    }

    #[test]
    fn module_paths_follow_cfg_attr() {
        let m: syn::ItemMod = syn::parse_str(
            "#[cfg_attr(windows, path = \"windows.rs\")]\n#[cfg_attr(unix, path = \"unix.rs\")]\nmod platform;",
        )
        .unwrap();
        let none = Config::default();
        assert_eq!(
            module_path(&m.attrs, &none),
            Ok(Some("unix.rs".to_string()))
        );
        let m: syn::ItemMod = syn::parse_str("#[cfg_attr(has_x, path = \"x.rs\")] mod p;").unwrap();
        assert!(module_path(&m.attrs, &none).unwrap_err().contains("has_x"));
        let m: syn::ItemMod = syn::parse_str("#[path = \"a/b.rs\"] mod p;").unwrap();
        assert_eq!(module_path(&m.attrs, &none), Ok(Some("a/b.rs".to_string())));
    }

    #[test]
    fn features_are_on_when_the_build_turns_them_on() {
        assert_eq!(verdict_of("#[cfg(feature = \"serde\")]"), Verdict::Off);
        assert_eq!(
            verdict_with("#[cfg(feature = \"serde\")]", &["serde"]),
            Verdict::On
        );
        assert_eq!(
            verdict_with(
                "#[cfg(all(feature = \"std\", not(feature = \"nightly\")))]",
                &["std"]
            ),
            Verdict::On
        );
        assert_eq!(
            verdict_of("#[cfg(any(test, feature = \"serde\"))]"),
            Verdict::Off
        );
    }

    #[test]
    fn compiled_out_variants_and_fields_are_taken_out() {
        let mut item: syn::Item = syn::parse_str(
            "enum Kind { Open, #[cfg(windows)] SeekRead, #[cfg(unix)] ReadAt, #[cfg(has_x)] X, \
             Both { a: u8, #[cfg(windows)] b: u8 } }",
        )
        .unwrap();
        strip_compiled_out(&mut item, &Config::default());
        let syn::Item::Enum(e) = &item else { panic!() };
        let names: Vec<String> = e.variants.iter().map(|v| v.ident.to_string()).collect();
        assert_eq!(names, ["Open", "ReadAt", "X", "Both"]);
        assert_eq!(e.variants.last().unwrap().fields.len(), 1);
        let mut item: syn::Item = syn::parse_str(
            "struct S(u8, #[cfg(test)] u16, #[cfg(feature = \"f\")] u32, #[cfg(not(test))] u64);",
        )
        .unwrap();
        let config = Config {
            features: ["f".to_string()].into_iter().collect(),
        };
        strip_compiled_out(&mut item, &config);
        let syn::Item::Struct(s) = &item else {
            panic!()
        };
        assert_eq!(s.fields.len(), 3);
    }

    #[test]
    fn host_facts_and_tool_cfgs_are_known_build_script_cfgs_are_not() {
        assert_eq!(verdict_of("#[cfg(target_env = \"gnu\")]"), Verdict::On);
        assert_eq!(
            verdict_of("#[cfg(target_has_atomic = \"ptr\")]"),
            Verdict::On
        );
        assert_eq!(verdict_of("#[cfg(not(docsrs))]"), Verdict::On);
        assert_eq!(verdict_of("#[cfg(panic = \"abort\")]"), Verdict::Off);
        assert_eq!(
            verdict_of("#[cfg(has_std)]"),
            Verdict::Unknown("#[cfg(has_std)]".into())
        );
    }
}
