//! Analysis: the crate's sources → the test cluster (modules, types, callables, literals).
//!
//! Works on `syn` syntax trees only: names are resolved through the crate's own modules and
//! `use` items, generic parameters get a concrete candidate type, and anything outside what the
//! driver can build or call becomes a `Skipped` entry with a reason instead of an error.

mod callables;
mod cfg;
mod generics;
mod items;
mod literals;
mod modules;
mod names;
mod syntax;
mod types;

use crate::cluster::Cluster;
use std::path::Path;

/// Analyses the library crate whose root file is `lib_rs`.
///
/// Fails only when a source file cannot be read or parsed, or a `mod x;` has no file.
pub fn analyze(lib_rs: &Path, crate_name: &str) -> anyhow::Result<Cluster> {
    let mut skipped = Vec::new();
    let mods = modules::load(lib_rs, &mut skipped)?;
    let mut names = names::Names::new(&mods);
    let (types, infos) = items::collect(&mods, &mut names, &mut skipped);
    let mut collector = callables::Collector {
        names: &names,
        infos: &infos,
        defs: &types,
        callables: Vec::new(),
        skipped: &mut skipped,
    };
    collector.run(&mods);
    let callables = collector.callables;
    let literals = literals::merge(mods.iter().map(|m| literals::collect(&m.items)).collect());
    Ok(Cluster {
        crate_name: crate_name.to_string(),
        modules: mods.into_iter().map(|m| m.module).collect(),
        types,
        callables,
        skipped,
        literals,
    })
}

#[cfg(test)]
mod tests;
