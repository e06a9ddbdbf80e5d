//! Analysis: the crate's sources → the test cluster (modules, types, callables, literals).
//!
//! Works on `syn` syntax trees only: names are resolved through the crate's own modules and
//! `use` items, generic parameters get a concrete candidate type, and anything outside what the
//! driver can build or call becomes a `Skipped` entry with a reason instead of an error. Each
//! function and `impl` block is also a unit whose calls that leave its module are listed
//! (`calls.rs`), for `--isolate`.
//!
//! **Never fails on a crate that parses**, and runs nothing (no `cargo`: `tests/layers.rs` checks
//! it). A type alias resolves to `Target::Alias` (`names.rs`), and `types.rs` (`TyCx::alias`) maps
//! its target in its module with the use site's arguments (or the defaults) substituted, so a `Ty`
//! never mentions an alias; `TyCx::expanding` holds the aliases being followed (a cycle is a skip
//! reason). `Module::shadowed_prelude` lists the prelude types a module's names hide (a crate
//! `Result<T>`), which `rust_syntax` spells by their std path there. A trait-typed parameter
//! becomes `Ty::Mock(trait)`; a callable taking one gets a twin taking an implementor when the
//! crate has one; each mockable trait gets a constructor callable (`CallableKind::Mock`) whose
//! parameters are the methods' return sequences, so mocks are built, mutated and minimised like any
//! other statement.

mod callables;
pub(crate) mod calls;
mod cfg;
mod generics;
mod items;
mod literals;
pub(crate) mod modules;
mod names;
mod std_impls;
pub(crate) mod syntax;
mod traits;
mod types;

use crate::cluster::{Callable, CallableKind, Cluster, Module, Param, Ty, Written};
use std::path::Path;

/// What analysis lists besides what every test generator can use.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Methods of `impl Trait for Type` blocks of crate traits, as methods of the type: a
    /// recorded run calls them, a search reaches them through the crate's other callables.
    pub trait_impl_methods: bool,
    /// A `"text".parse::<T>()` constructor (`CallableKind::Parse`) for each type whose
    /// `Display` and `FromStr` may round-trip and whose `Debug` cannot be read back: a
    /// recorded value of it is rebuilt from its `Display` text.
    pub parse_constructors: bool,
    /// `unsafe fn`s too: a recorded run's call of one, replayed with the very arguments it was
    /// made with, keeps the contract its caller kept; a search's random arguments would not.
    pub unsafe_fns: bool,
    /// `Display`, `Iterator` and `FromStr` impls of crate types as the calls tests write
    /// (`to_string()`, `next()`, `"text".parse::<T>()`): a search covers their code directly;
    /// a recorded run reaches them through the crate's callers.
    pub std_trait_calls: bool,
    /// The crate's features the build turns on (`cargo::Features::enabled`): `#[cfg(feature)]`
    /// items are analysed as cargo compiles them.
    pub features: std::collections::BTreeSet<String>,
    /// Custom cfgs the crate's build script sets, as far as analysis can tell
    /// (`cfg::autocfg_rustc_versions`): `#[cfg(rustc_1_75)]` items are analysed as built.
    pub build_script_cfgs: std::collections::BTreeMap<String, bool>,
}

impl Options {
    /// What `cargo hermetic record` lists.
    pub fn record() -> Options {
        Options {
            trait_impl_methods: true,
            parse_constructors: true,
            unsafe_fns: true,
            std_trait_calls: false,
            features: Default::default(),
            build_script_cfgs: Default::default(),
        }
    }
}

/// The custom cfgs a build script (`build_rs`, the package's `build.rs`) sets that analysis can
/// tell: autocfg's version cfgs (`rustc_1_75`), against the toolchain cargo builds the crate
/// with (`rustc`, asked only when the script emits such cfgs). Empty without a build script, or
/// when `rustc` does not say its version.
pub fn build_script_cfgs(
    build_rs: Option<&Path>,
    rustc: impl FnOnce() -> Option<(u64, u64)>,
) -> std::collections::BTreeMap<String, bool> {
    let source = build_rs.and_then(|p| std::fs::read_to_string(p).ok());
    match source {
        Some(source) if source.contains("emit_rustc_version") => rustc()
            .map(|v| cfg::autocfg_rustc_versions(&source, v))
            .unwrap_or_default(),
        _ => Default::default(),
    }
}

/// Analyses the library crate whose root file is `lib_rs`.
///
/// Fails only when a source file cannot be read or parsed, or a `mod x;` has no file.
#[cfg(test)]
pub fn analyze(lib_rs: &Path, crate_name: &str) -> anyhow::Result<Cluster> {
    analyze_with(lib_rs, crate_name, Options::default())
}

/// Whether the crate root at `lib_rs` is `#![no_std]` whatever its features (a `cfg_attr`
/// leaves it to them, and the tests build with the features that give std).
fn declares_no_std(lib_rs: &Path) -> bool {
    std::fs::read_to_string(lib_rs)
        .ok()
        .is_some_and(|text| crate::rust_syntax::no_std_attribute(&text).is_some())
}

/// [`analyze`], listing what `options` asks for too.
pub fn analyze_with(lib_rs: &Path, crate_name: &str, options: Options) -> anyhow::Result<Cluster> {
    let mut skipped = Vec::new();
    let config = cfg::Config {
        features: options.features.clone(),
        build_script: options.build_script_cfgs.clone(),
    };
    let mods = modules::load(lib_rs, &config, &mut skipped)?;
    let mut names = names::Names::new(&mods);
    let (types, infos) = items::collect(&mods, &mut names, &mut skipped);
    let mut trait_infos = traits::declare(&mods, &mut names, &types);
    let trait_defs = traits::collect(&mods, &names, &infos, &types, &mut trait_infos);
    skipped.extend(traits::skipped(&mods, &trait_defs, &trait_infos));
    let mut collector = callables::Collector {
        names: &names,
        infos: &infos,
        defs: &types,
        traits: &trait_infos,
        callables: Vec::new(),
        skipped: &mut skipped,
        trait_impl_methods: options.trait_impl_methods,
        std_trait_calls: options.std_trait_calls,
        unsafe_fns: options.unsafe_fns,
        config: &config,
    };
    collector.run(&mods);
    let callables = collector.callables;
    let parts: Vec<_> = mods
        .iter()
        .map(|m| literals::collect(&m.items, &config))
        .collect();
    let module_strings = mods
        .iter()
        .zip(&parts)
        .map(|(m, l)| (m.module.path.clone(), l.strings.clone()))
        .collect();
    let module_chars = mods
        .iter()
        .zip(&parts)
        .map(|(m, l)| (m.module.path.clone(), l.chars.clone()))
        .collect();
    // The paths of the modules whose literals say `reads`.
    let modules_that = |reads: fn(&crate::cluster::Literals) -> bool| {
        mods.iter()
            .zip(&parts)
            .filter(|(_, l)| reads(l))
            .map(|(m, _)| m.module.path.clone())
            .collect()
    };
    let literals = crate::cluster::Literals {
        module_strings,
        module_chars,
        digit_modules: modules_that(|l| l.reads_digits),
        line_modules: modules_that(|l| l.reads_lines),
        text_byte_modules: modules_that(|l| l.reads_text_bytes),
        ..literals::merge(parts)
    };
    let left_out_modules = mods
        .iter()
        .flat_map(|m| {
            m.left_out
                .iter()
                .map(|name| [m.module.path.clone(), vec![name.clone()]].concat())
        })
        .collect();
    let mut cluster = Cluster {
        crate_name: crate_name.to_string(),
        no_std: declares_no_std(lib_rs),
        left_out_modules,
        modules: mods
            .iter()
            .enumerate()
            .map(|(id, m)| Module {
                shadowed_prelude: names.shadowed_prelude(id),
                ..m.module.clone()
            })
            .collect(),
        types,
        callables,
        traits: trait_defs,
        skipped,
        literals,
        units: Vec::new(),
        fakes: Vec::new(),
    };
    add_implementor_variants(&mut cluster);
    add_mock_constructors(&mut cluster, &trait_infos);
    drop_unmade_mock_receivers(&mut cluster);
    if options.parse_constructors {
        add_parse_constructors(&mut cluster);
    }
    let scope = calls::Scope {
        names: &names,
        infos: &infos,
        traits: &trait_infos,
    };
    cluster.units = calls::collect(&mods, &scope, &cluster);
    Ok(cluster)
}

/// Whether values of crate type `def` are rebuilt from their `Display` text: it implements
/// `Display`, `FromStr` and `PartialEq` (so a probe can check that the text parses back to an
/// equal value), has no type parameters, and its `Debug` is hand-written or missing (derived
/// `Debug` text is read back as a literal, which says more).
pub fn shown_by_display(def: &crate::cluster::TypeDef) -> bool {
    def.implements("Display")
        && def.implements("FromStr")
        && def.implements("PartialEq")
        && !def.derives.iter().any(|d| d == "Debug")
        && def.generics.is_empty()
        && def.unsupported_generics.is_none()
}

/// One `"text".parse::<T>()` constructor per type [`shown_by_display`] accepts.
fn add_parse_constructors(cluster: &mut Cluster) {
    for (id, def) in cluster.types.iter().enumerate() {
        if !shown_by_display(def) {
            continue;
        }
        cluster.callables.push(Callable {
            module: def.module,
            name: "parse".into(),
            kind: CallableKind::Parse {
                self_ty: Ty::Adt(id, Vec::new()),
            },
            vis: def.vis,
            params: vec![Param {
                name: "text".into(),
                ty: Ty::Str,
                written: Written::AsIs,
            }],
            ret: Ty::Adt(id, Vec::new()),
            generic_args: Vec::new(),
            generics_inferred: false,
            held: Vec::new(),
            unsafe_fn: false,
            collect: None,
        });
    }
}

/// For a callable with trait-typed parameters, a twin taking a crate type that implements
/// each trait instead of its mock (the first implementor): tests use mocks only where such
/// values cannot reach a goal (seed 003). Parameters that coerce to the trait (`T`, `&T`,
/// `&mut T`, `Box<T>`) are replaced, and so is the mock wherever it is a crate type's type
/// argument (the receiver's, the result's, a parameter's: `WhichFindIterator<RealSys, Noop>`
/// with `new_path(.., handler: Noop)`), which a type parameter put there, so that the twin's
/// types agree.
fn add_implementor_variants(cluster: &mut Cluster) {
    let implementor = |t: usize| cluster.traits[t].implementors.first().copied();
    let swap = |inner: &Ty| match inner {
        Ty::Mock(t) => implementor(*t).map(|id| Ty::Adt(id, Vec::new())),
        _ => None,
    };
    let replace = |ty: &Ty| -> Option<Ty> {
        match ty {
            Ty::Ref(inner) => swap(inner).map(|t| Ty::Ref(Box::new(t))),
            Ty::RefMut(inner) => swap(inner).map(|t| Ty::RefMut(Box::new(t))),
            Ty::Box(inner) => swap(inner).map(|t| Ty::Box(Box::new(t))),
            other => swap(other),
        }
    };
    let mut twins = Vec::new();
    for c in &cluster.callables {
        let mut twin = c.clone();
        let mut changed = false;
        for ty in twin
            .params
            .iter_mut()
            .map(|p| &mut p.ty)
            .chain(twin.generic_args.iter_mut())
        {
            if let Some(new) = replace(ty) {
                *ty = new;
                changed = true;
            }
        }
        let self_ty = match &mut twin.kind {
            CallableKind::AssocFn { self_ty, .. }
            | CallableKind::Method { self_ty, .. }
            | CallableKind::TraitFn { self_ty, .. }
            | CallableKind::StructLiteral { self_ty, .. }
            | CallableKind::Variant { self_ty, .. }
            | CallableKind::Parse { self_ty } => Some(self_ty),
            CallableKind::Function | CallableKind::Mock(_) | CallableKind::Fake(_) => None,
        };
        for ty in twin
            .params
            .iter_mut()
            .map(|p| &mut p.ty)
            .chain(std::iter::once(&mut twin.ret))
            .chain(self_ty)
        {
            changed |= swap_type_arguments(ty, &swap);
        }
        if changed {
            twins.push(twin);
        }
    }
    cluster.callables.extend(twins);
}

/// Leaves out the methods of a generic type instantiated with a mock (`Finder<RealSys,
/// MockHandler>::home`, from `impl<S: Sys, H: Handler> Finder<S, H>`) when no callable but
/// the type's own methods makes such a value and a twin of the method on the implementor
/// (`Finder<RealSys, Noop>::home`) stays: the driver would instantiate it for nothing, and its
/// branches would count as goals no test can reach.
fn drop_unmade_mock_receivers(cluster: &mut Cluster) {
    let made = |t: &Ty| {
        cluster.callables.iter().any(|c| {
            !matches!(&c.kind, CallableKind::Method { self_ty, .. } if self_ty == t)
                && c.ret.stored() == Some(t)
                || matches!(&c.kind, CallableKind::StructLiteral { self_ty, .. } if self_ty == t)
        })
    };
    let unmade: Vec<bool> = cluster
        .callables
        .iter()
        .map(|c| match &c.kind {
            CallableKind::Method { self_ty, .. } => {
                self_ty.mentions(&|t| matches!(t, Ty::Mock(_))) && !made(self_ty)
            }
            _ => false,
        })
        .collect();
    let twin_stays = |i: usize| {
        let c = &cluster.callables[i];
        cluster.callables.iter().enumerate().any(|(j, d)| {
            !unmade[j]
                && d.module == c.module
                && d.name == c.name
                && matches!(d.kind, CallableKind::Method { .. })
        })
    };
    let drop: Vec<bool> = (0..unmade.len())
        .map(|i| unmade[i] && twin_stays(i))
        .collect();
    let mut i = 0;
    cluster.callables.retain(|_| {
        i += 1;
        !drop[i - 1]
    });
}

/// Replaces, by `swap`, every type inside `ty` that is a crate type's type argument (at any
/// depth); true when one was.
fn swap_type_arguments(ty: &mut Ty, swap: &impl Fn(&Ty) -> Option<Ty>) -> bool {
    let swappable = matches!(ty, Ty::Adt(..));
    // Every child, not only up to the first that changed.
    let mut changed = false;
    for child in ty.children_mut() {
        match swap(child).filter(|_| swappable) {
            Some(new) => {
                *child = new;
                changed = true;
            }
            None => changed |= swap_type_arguments(child, swap),
        }
    }
    changed
}

/// One callable per mockable trait: building its mock from the values its methods return.
fn add_mock_constructors(cluster: &mut Cluster, infos: &[types::TraitInfo]) {
    for (id, info) in infos.iter().enumerate() {
        if info.unmockable.is_some() {
            continue;
        }
        let params = cluster
            .mock_methods(id)
            .into_iter()
            .map(|(_, m)| Param {
                name: m.name.clone(),
                ty: Ty::Vec(Box::new(m.ret.clone())),
                written: Written::AsIs,
            })
            .collect();
        let def = &cluster.traits[id];
        cluster.callables.push(Callable {
            module: def.module,
            name: def.mock_name.clone(),
            kind: CallableKind::Mock(id),
            vis: def.vis,
            params,
            ret: Ty::Mock(id),
            generic_args: Vec::new(),
            generics_inferred: false,
            held: Vec::new(),
            unsafe_fn: false,
            collect: None,
        });
    }
}

/// [`analyze_lib`] with what `cargo hermetic record` lists, for unit tests.
#[cfg(test)]
pub fn analyze_with_record_options(lib: &str) -> Cluster {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("src")).unwrap();
    std::fs::write(d.path().join("src/lib.rs"), lib).unwrap();
    analyze_with(&d.path().join("src/lib.rs"), "demo", Options::record()).unwrap()
}

/// The cluster of a one-file crate `demo` whose `src/lib.rs` is `lib`, for unit tests.
#[cfg(test)]
pub fn analyze_lib(lib: &str) -> Cluster {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("src")).unwrap();
    std::fs::write(d.path().join("src/lib.rs"), lib).unwrap();
    analyze(&d.path().join("src/lib.rs"), "demo").unwrap()
}

#[cfg(test)]
mod tests;
