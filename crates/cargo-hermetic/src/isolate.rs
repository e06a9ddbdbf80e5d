//! `--isolate` (seed 000, AutoIsolator): which units of the selected code send the calls that
//! leave them through fakes, the fakes the search may set up, and the
//! `#[cfg_attr(test, hermetic::isolate(only(..)))]` attributes that do it.
//!
//! The shadow copy gets an attribute on every unit of the selected code that calls out,
//! listing all its callees, so the search can fake any of them. The user's crate gets one only
//! where a kept test sets a fake up, listing what the tests need (and what the attribute
//! already listed, which other tests may need); `--isolate=off` takes out what no test needs.
//! Attributes the user wrote in another form (`#[hermetic::isolate]`) are theirs and left as
//! written; options of ours other than `only(..)` (`returns(..)` restrictions) are kept.
//! Which attributes the user's crate gets is decided once the tests are known
//! (`emit::attributes`); this module plans the units and fakes and edits a module's text.
//!
//! Other crates' callees' signatures are read from their sources (std-typed results only). Each
//! callee gets a `FakeDef` and a `CallableKind::Fake` callable: a statement setting the fake up,
//! its one parameter the values (`Vec<ret>`). An attribute is added after the item's other
//! attributes, ours rewritten in place (other options kept), taken out when empty, and laid out as
//! rustfmt does.

use crate::analyze::calls::{impl_name, isolate_attr};
use crate::analyze::syntax::Offsets;
use crate::cluster::{
    Callable, CallableId, CallableKind, Callee, Cluster, FakeDef, OutCall, Param, Ty, UnitId, Vis,
    Written,
};
use anyhow::{Context, Result};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use syn::spanned::Spanned;

/// `--isolate[=on|off]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Isolate {
    /// Isolate the selected code's calls that leave their module, where tests need it.
    On,
    /// Take out the attributes no test needs.
    Off,
}

/// The widest line rustfmt leaves an attribute on.
const MAX_WIDTH: usize = 100;

/// What `--isolate` does in one run of `generate`, from planning to the report.
pub struct Isolation {
    pub mode: Option<Isolate>,
    /// The units it looks at: those it isolates (`On`), those with an attribute of ours (`Off`).
    pub units: Vec<UnitId>,
    /// Time spent planning and writing attributes: the transformation's cost.
    pub time: Duration,
}

impl Isolation {
    /// Chooses the units of the selected code (`chosen` callables) and, with `On`, adds the
    /// fakes the search may set up, other crates' callees read from `manifest`'s dependencies.
    pub fn plan(
        mode: Option<Isolate>,
        cluster: &mut Cluster,
        chosen: &[bool],
        manifest: &Path,
    ) -> Isolation {
        let started = Instant::now();
        let selected = |c: CallableId| chosen.get(c).copied().unwrap_or(false);
        let units = match mode {
            Some(Isolate::On) => {
                if cluster.units.iter().any(|u| !u.extern_calls.is_empty()) {
                    resolve_externs(cluster, &crate::cargo::dependency_libs(manifest));
                }
                plan(cluster, selected)
            }
            Some(Isolate::Off) => attributed_units(cluster, selected),
            None => Vec::new(),
        };
        Isolation {
            mode,
            units,
            time: started.elapsed(),
        }
    }

    /// The attributes of the shadow copy (`On`): every unit with all its callees.
    pub fn shadow(&self, cluster: &Cluster) -> Vec<(UnitId, Vec<String>)> {
        match self.mode {
            Some(Isolate::On) => shadow_attributes(cluster, &self.units),
            _ => Vec::new(),
        }
    }
}

/// Adds what the search may fake: for each unit holding a selected callable that calls out,
/// a `FakeDef` and a `Fake` callable per callee. Returns the units chosen.
fn plan(cluster: &mut Cluster, selected: impl Fn(CallableId) -> bool) -> Vec<UnitId> {
    let units: Vec<UnitId> = (0..cluster.units.len())
        .filter(|&u| {
            let unit = &cluster.units[u];
            !unit.calls.is_empty()
                && unit.members.iter().any(|&c| selected(c))
                // A unit the user isolated in their own way keeps its own options.
                && unit.attribute.as_ref().is_none_or(|a| a.cfg_test)
        })
        .collect();
    for &u in &units {
        for call in cluster.units[u].calls.clone() {
            match cluster.fakes.iter().position(|f| f.callee == call.callee) {
                Some(f) => {
                    let def = &mut cluster.fakes[f];
                    def.units.push(u);
                    def.steered &= call.steered;
                    if def.restriction.is_none() {
                        def.restriction = call.restriction;
                    }
                }
                None => {
                    let (module, name, vis) = match &call.callee {
                        Callee::Crate(c) => {
                            let callee = &cluster.callables[*c];
                            (callee.module, callee.name.clone(), visibility(cluster, *c))
                        }
                        // Another crate's public function: nameable wherever the unit is.
                        Callee::Extern(path) => (
                            cluster.units[u].module,
                            path.last().cloned().unwrap_or_default(),
                            Vis::Pub,
                        ),
                    };
                    let fake = Callable {
                        module,
                        name,
                        kind: CallableKind::Fake(cluster.fakes.len()),
                        vis,
                        params: vec![Param {
                            name: "values".into(),
                            ty: Ty::Vec(Box::new(call.ret.clone())),
                            written: Written::AsIs,
                        }],
                        ret: Ty::Unit,
                        generic_args: Vec::new(),
                        generics_inferred: false,
                        held: Vec::new(),
                        unsafe_fn: false,
                        collect: None,
                    };
                    cluster.fakes.push(FakeDef {
                        callee: call.callee,
                        ret: call.ret,
                        params: call.params,
                        steered: call.steered,
                        units: vec![u],
                        restriction: call.restriction,
                    });
                    cluster.callables.push(fake);
                }
            }
        }
    }
    units
}

/// How visible a callee's name is: its own visibility, and its type's for a method.
fn visibility(cluster: &Cluster, callee: CallableId) -> Vis {
    let c = &cluster.callables[callee];
    match c.kind.self_ty() {
        Some(Ty::Adt(t, _)) => crate::analyze::syntax::least_visible(c.vis, cluster.types[*t].vis),
        _ => c.vis,
    }
}

/// Makes calls of the units' calls of other crates' functions whose signature is known and a
/// fake can stand in for: the function is found in its crate's sources (`deps`: each
/// dependency's name as Rust spells it and its library's root file), and returns std's types
/// only (the crate's tests cannot build the other crate's types).
fn resolve_externs(cluster: &mut Cluster, deps: &[(String, PathBuf)]) {
    let mut analysed: BTreeMap<String, Option<Cluster>> = BTreeMap::new();
    for u in 0..cluster.units.len() {
        for (path, entry) in cluster.units[u].extern_calls.clone() {
            let Some((krate, rest)) = path.split_first() else {
                continue;
            };
            let dep = analysed.entry(krate.clone()).or_insert_with(|| {
                let (_, lib) = deps.iter().find(|(name, _)| name == krate)?;
                crate::analyze::analyze_with(lib, krate, Default::default()).ok()
            });
            let Some(dep) = dep else { continue };
            let Some((name, modules)) = rest.split_last() else {
                continue;
            };
            let found = dep.callables.iter().find(|c| {
                c.kind == CallableKind::Function
                    && &c.name == name
                    && dep.modules[c.module].path == modules
                    && dep.is_public_api(c.module, c.vis)
            });
            let Some(f) = found else { continue };
            let std_only = |t: &Ty| !t.mentions(&|t| matches!(t, Ty::Adt(..) | Ty::Mock(_)));
            if f.ret == Ty::Unit
                || !std_only(&f.ret)
                || !f.generic_args.is_empty()
                || f.ret.borrows()
            {
                continue;
            }
            let Some(params) = f.item_params() else {
                continue;
            };
            // The other crate's types cannot be named from this one's tests.
            let params = params.into_iter().map(|t| t.filter(std_only)).collect();
            let restriction = cluster.units[u]
                .attribute
                .as_ref()
                .and_then(|a| a.restriction(&entry));
            cluster.units[u].calls.push(OutCall {
                callee: Callee::Extern(path.clone()),
                ret: f.ret.clone(),
                params,
                // Not followed into the call's arguments: its fakes are judged by what it
                // returns and whether it touches the environment.
                steered: false,
                entry,
                restriction,
            });
        }
    }
}

/// The attributes of the shadow copy: every chosen unit with all its callees.
fn shadow_attributes(cluster: &Cluster, units: &[UnitId]) -> Vec<(UnitId, Vec<String>)> {
    units
        .iter()
        .map(|&u| {
            let entries = cluster.units[u].calls.iter().map(|c| c.entry.clone());
            (u, merged(cluster, u, entries))
        })
        .collect()
}

/// The attributes of the user's crate: with `On`, each chosen unit whose callees a kept test
/// fakes (`used`) lists those; with `Off`, each unit of ours whose listed callees no test fakes
/// loses them (`used` then comes from every test file the crate will have). A unit that
/// needs no change is left out.
pub fn user_attributes(
    cluster: &Cluster,
    units: &[UnitId],
    used: &BTreeSet<Callee>,
    mode: Isolate,
) -> Vec<(UnitId, Vec<String>)> {
    let mut out = Vec::new();
    match mode {
        Isolate::On => {
            for &u in units {
                let unit = &cluster.units[u];
                let needed: Vec<String> = unit
                    .calls
                    .iter()
                    .filter(|c| used.contains(&c.callee))
                    .map(|c| c.entry.clone())
                    .collect();
                if needed.is_empty() {
                    continue;
                }
                let entries = merged(cluster, u, needed);
                if unit.attribute.as_ref().map(|a| &a.only) != Some(&entries) {
                    out.push((u, entries));
                }
            }
        }
        Isolate::Off => {
            for &u in units {
                let unit = &cluster.units[u];
                let Some(attr) = unit.attribute.as_ref().filter(|a| a.cfg_test) else {
                    continue;
                };
                let kept: Vec<String> = attr
                    .only
                    .iter()
                    .filter(|entry| {
                        unit.calls
                            .iter()
                            .any(|c| &c.entry == *entry && used.contains(&c.callee))
                    })
                    .cloned()
                    .collect();
                // Restrictions the user added stay with the callees they name.
                if kept != attr.only && (!kept.is_empty() || attr.others.is_empty()) {
                    out.push((u, kept));
                }
            }
        }
    }
    out
}

/// The units `--isolate=off` looks at: those of the selected code with an attribute of ours.
pub fn attributed_units(cluster: &Cluster, selected: impl Fn(CallableId) -> bool) -> Vec<UnitId> {
    (0..cluster.units.len())
        .filter(|&u| {
            let unit = &cluster.units[u];
            unit.attribute.as_ref().is_some_and(|a| a.cfg_test)
                && unit.members.iter().any(|&c| selected(c))
        })
        .collect()
}

/// `entries` after what the unit's attribute (if ours) lists already, without repeats.
fn merged(cluster: &Cluster, u: UnitId, entries: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = cluster.units[u]
        .attribute
        .iter()
        .filter(|a| a.cfg_test)
        .flat_map(|a| a.only.iter().cloned())
        .collect();
    for e in entries {
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

/// How attributes are laid out in the files they go into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// As rustfmt would (the user's crate).
    Rustfmt,
    /// Every line where it was (the copies the tool builds): coverage, debug info and compiler
    /// messages then point at the user's lines. An attribute goes on one line, before the item
    /// on its line; one rewritten or taken out leaves as many lines as it had.
    SameLines,
}

/// The new text of each file the edits change, for the crate rooted at `root` (the user's
/// `crate_dir`, or a copy of it): nothing is written. Fails when a unit cannot be found as
/// analysed.
pub fn planned_texts(
    root: &Path,
    crate_dir: &Path,
    cluster: &Cluster,
    edits: &[(UnitId, Vec<String>)],
    layout: Layout,
) -> Result<Vec<(PathBuf, String)>> {
    texts_from(&read_source, root, crate_dir, cluster, edits, layout)
}

pub fn read_source(path: &Path) -> Result<String> {
    std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))
}

/// [`planned_texts`], each file's current text given by `read`.
pub fn texts_from(
    read: &dyn Fn(&Path) -> Result<String>,
    root: &Path,
    crate_dir: &Path,
    cluster: &Cluster,
    edits: &[(UnitId, Vec<String>)],
    layout: Layout,
) -> Result<Vec<(PathBuf, String)>> {
    let mut by_file: BTreeMap<PathBuf, Vec<&(UnitId, Vec<String>)>> = BTreeMap::new();
    for e in edits {
        let file = &cluster.modules[cluster.units[e.0].module].file;
        let rel = file.strip_prefix(crate_dir).unwrap_or(file);
        by_file.entry(root.join(rel)).or_default().push(e);
    }
    let mut out = Vec::new();
    for (path, edits) in by_file {
        let mut text = read(&path)?;
        for (u, only) in edits {
            text = edit(&text, cluster, *u, only, layout)
                .with_context(|| format!("cannot isolate in {}", path.display()))?;
        }
        syn::parse_file(&text).map_err(|e| {
            anyhow::anyhow!(
                "isolating in {} would not give valid Rust ({e}); nothing was written",
                path.display()
            )
        })?;
        out.push((path, text));
    }
    Ok(out)
}

/// Writes the edits into the crate rooted at `root`, each file replaced whole.
pub fn write(
    root: &Path,
    crate_dir: &Path,
    cluster: &Cluster,
    edits: &[(UnitId, Vec<String>)],
    layout: Layout,
) -> Result<Vec<PathBuf>> {
    let texts = planned_texts(root, crate_dir, cluster, edits, layout)?;
    let mut written = Vec::new();
    for (path, text) in texts {
        let tmp = path.with_extension("rs.hermetic-tmp");
        std::fs::write(&tmp, &text).with_context(|| format!("write {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).with_context(|| format!("replace {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// `text` (a module's file) with unit `u`'s attribute listing `only`: added, replaced (ours),
/// or taken out (ours, when `only` is empty and it has no other options).
fn edit(
    text: &str,
    cluster: &Cluster,
    u: UnitId,
    only: &[String],
    layout: Layout,
) -> Result<String> {
    let unit = &cluster.units[u];
    let file = syn::parse_file(text).context("parse")?;
    let items = crate::analyze::modules::items_in_file(cluster, unit.module, &file)
        .map_err(|name| anyhow::anyhow!("no `mod {name} {{ .. }}` where it was analysed"))?;
    let (attrs, at) = items
        .iter()
        .filter_map(|item| match item {
            syn::Item::Fn(f) if !unit.is_impl && f.sig.ident == unit.name => {
                let at = match f.vis {
                    syn::Visibility::Inherited => f.sig.span().start(),
                    _ => f.vis.span().start(),
                };
                Some((&f.attrs, at))
            }
            syn::Item::Impl(i) if unit.is_impl && impl_name(i) == unit.name => {
                let at = i.defaultness.map_or(i.impl_token.span, |d| d.span).start();
                Some((&i.attrs, at))
            }
            _ => None,
        })
        .nth(unit.nth)
        .with_context(|| {
            format!(
                "`{}` is no longer where it was analysed; run again",
                unit.name
            )
        })?;
    let offsets = Offsets::new(text);
    let existing = attrs.iter().find_map(|a| isolate_attr(a, &offsets));
    let mut out = text.to_string();
    // In place of an attribute of ours (its range ends with the line break and indentation
    // after it): `new` and the indentation, on as many lines as it had with `SameLines`.
    let in_place = |range: (usize, usize), new: &str| match layout {
        Layout::Rustfmt if new.is_empty() => String::new(),
        Layout::Rustfmt => format!("{new}\n{}", indent_at(text, range.0)),
        Layout::SameLines => {
            let old = &text[range.0..range.1];
            let tail = &old[old.rfind('\n').map_or(old.len(), |i| i + 1)..];
            let breaks = old.matches('\n').count();
            format!("{new}{}{tail}", "\n".repeat(breaks))
        }
    };
    match existing {
        Some(a) if !a.cfg_test => {}
        Some(a) if only.is_empty() && a.others.is_empty() => {
            out.replace_range(a.range.0..a.range.1, &in_place(a.range, ""));
        }
        Some(a) => {
            let line = match layout {
                Layout::Rustfmt => attribute(only, &a.others, &indent_at(text, a.range.0)),
                Layout::SameLines => one_line(only, &a.others),
            };
            out.replace_range(a.range.0..a.range.1, &in_place(a.range, &line));
        }
        None if only.is_empty() => {}
        None => {
            let at = offsets.offset(at);
            let indent = indent_at(text, at);
            let new = match layout {
                Layout::Rustfmt => format!("{}\n{indent}", attribute(only, &[], &indent)),
                Layout::SameLines => format!("{} ", one_line(only, &[])),
            };
            out.insert_str(at, &new);
        }
    }
    Ok(out)
}

/// The whitespace before `at` on its line.
fn indent_at(text: &str, at: usize) -> String {
    let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[start..at]
        .chars()
        .take_while(|c| c.is_whitespace())
        .collect()
}

/// The attribute unit `u` gets with `only` (or a note that it is taken out), as `--dry-run`
/// shows it.
pub fn attribute_of(cluster: &Cluster, u: UnitId, only: &[String]) -> String {
    let unit = &cluster.units[u];
    if only.is_empty() {
        return "(taken out: no test fakes its calls)".to_string();
    }
    let others = unit.attribute.as_ref().map_or(&[][..], |a| &a.others[..]);
    attribute(only, others, &unit.indent)
}

/// The attribute on one line.
fn one_line(only: &[String], others: &[String]) -> String {
    let mut options = vec![format!("only({})", only.join(", "))];
    options.extend(others.iter().cloned());
    format!(
        "#[cfg_attr(test, hermetic::isolate({}))]",
        options.join(", ")
    )
}

/// The attribute, laid out as rustfmt lays it out at `indent`.
fn attribute(only: &[String], others: &[String], indent: &str) -> String {
    let line = one_line(only, others);
    // rustfmt leaves attributes with patterns as they are; a long `only` list it breaks.
    if indent.len() + line.len() <= MAX_WIDTH || !others.is_empty() {
        return line;
    }
    let inner = format!("{indent}    ");
    let entries: Vec<String> = only.iter().map(|e| format!("{inner}    {e}")).collect();
    format!(
        "#[cfg_attr(\n{inner}test,\n{inner}hermetic::isolate(only(\n{}\n{inner}))\n{indent})]",
        entries.join(",\n")
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The `Fake` callable that sets fake `f` up.
    fn fake_callable(cluster: &Cluster, f: crate::cluster::FakeId) -> Option<CallableId> {
        cluster
            .callables
            .iter()
            .position(|c| c.kind == CallableKind::Fake(f))
    }

    /// Seed 000's example: a function and an `impl` block calling out to `db`.
    pub(crate) const LIB: &str = "pub mod db {
    #[derive(Debug, Clone, PartialEq)]
    pub struct DbError;
    pub struct Database;
    impl Database {
        pub fn query(&self) -> Result<i64, DbError> {
            Err(DbError)
        }
    }
    pub fn run_query() -> Result<i64, DbError> {
        Err(DbError)
    }
}

/// Seed 000's transfer.
pub fn transfer(db: &db::Database) -> i64 {
    db.query().unwrap_or(0) + db::run_query().unwrap_or(0)
}

mod inner {
    pub struct Teller;
    #[cfg_attr(test, hermetic::isolate(only(crate::db::run_query), returns(crate::db::run_query, Ok(0..))))]
    impl Teller {
        pub fn check(&self) -> i64 {
            crate::db::run_query().unwrap_or(1)
        }
    }
}
";

    pub(crate) fn crate_with(lib: &str) -> (tempfile::TempDir, Cluster) {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("src")).unwrap();
        std::fs::write(d.path().join("src/lib.rs"), lib).unwrap();
        let c = crate::analyze::analyze(&d.path().join("src/lib.rs"), "demo").unwrap();
        (d, c)
    }

    #[test]
    fn units_that_call_out_get_a_fake_per_callee() {
        let (_d, mut c) = crate_with(LIB);
        let units = plan(&mut c, |_| true);
        assert_eq!(units.len(), 2);
        let names: Vec<&str> = c
            .fakes
            .iter()
            .map(|f| match &f.callee {
                Callee::Crate(id) => c.callables[*id].name.as_str(),
                Callee::Extern(p) => p[0].as_str(),
            })
            .collect();
        assert_eq!(names, ["query", "run_query"]);
        assert_eq!(c.fakes[1].units.len(), 2);
        assert_eq!(c.fakes[1].restriction.as_deref(), Some("Ok(0 ..)"));
        let setter = fake_callable(&c, 0).unwrap();
        assert_eq!(
            c.callables[setter].params[0].ty,
            Ty::Vec(Box::new(c.fakes[0].ret.clone()))
        );
    }

    #[test]
    fn fakes_know_their_callees_parameter_types_where_the_signature_writes_them() {
        let lib = "pub mod db {
    pub struct Database;
    impl Database {
        pub fn query(&self, sql: &str, out: &mut dyn std::io::Write) -> Option<u32> {
            None
        }
    }
    pub fn count(rows: Vec<u8>) -> usize {
        rows.len()
    }
    pub fn log(message: impl Into<String>) -> usize {
        message.into().len()
    }
}

pub fn report(db: &db::Database) -> usize {
    db.query(\"x\", &mut Vec::new()).unwrap_or(0) as usize + db::count(vec![1]) + db::log(\"x\")
}
";
        let (_d, mut c) = crate_with(lib);
        plan(&mut c, |_| true);
        let database = c.types.iter().position(|t| t.name == "Database").unwrap();
        let params: Vec<&[Option<Ty>]> = c.fakes.iter().map(|f| &f.params[..]).collect();
        // `&mut dyn Write` has a stand-in, not its own type; `log` names no one function.
        assert_eq!(
            params,
            [
                &[
                    Some(Ty::Ref(Box::new(Ty::Adt(database, Vec::new())))),
                    Some(Ty::Str),
                    None
                ][..],
                &[Some(Ty::Vec(Box::new(Ty::Int(crate::cluster::IntTy::U8))))][..],
            ]
        );
    }

    #[test]
    fn attributes_are_added_replaced_and_taken_out_in_place() {
        let (d, mut c) = crate_with(LIB);
        let units = plan(&mut c, |_| true);
        let edits = shadow_attributes(&c, &units);
        let texts = planned_texts(d.path(), d.path(), &c, &edits, Layout::Rustfmt).unwrap();
        let text = &texts[0].1;
        assert!(
            text.contains("/// Seed 000's transfer.\n#[cfg_attr(test, hermetic::isolate(only(crate::db::Database::query, db::run_query)))]\npub fn transfer("),
            "{text}"
        );
        // Ours is rewritten with its restriction kept (the `crate::` entry is the same callee).
        assert!(
            text.contains("    #[cfg_attr(test, hermetic::isolate(only(crate::db::run_query), returns(crate::db::run_query, Ok(0..))))]\n    impl Teller {"),
            "{text}"
        );
        // Taken out again when no test needs it, unless it holds a restriction.
        std::fs::write(d.path().join("src/lib.rs"), text).unwrap();
        let c = crate::analyze::analyze(&d.path().join("src/lib.rs"), "demo").unwrap();
        let all = attributed_units(&c, |_| true);
        assert_eq!(all.len(), 2);
        let off = user_attributes(&c, &all, &BTreeSet::new(), Isolate::Off);
        let texts = planned_texts(d.path(), d.path(), &c, &off, Layout::Rustfmt).unwrap();
        assert_eq!(texts[0].1, LIB);
    }

    #[test]
    fn the_copies_keep_every_line_where_it_was() {
        let (d, mut c) = crate_with(LIB);
        let units = plan(&mut c, |_| true);
        let edits = shadow_attributes(&c, &units);
        let line_of = |text: &str, what: &str| text.lines().position(|l| l.contains(what));
        let texts = planned_texts(d.path(), d.path(), &c, &edits, Layout::SameLines).unwrap();
        let text = &texts[0].1;
        assert_eq!(text.lines().count(), LIB.lines().count(), "{text}");
        for what in ["pub fn transfer(", "impl Teller {", "pub fn check("] {
            assert_eq!(line_of(text, what), line_of(LIB, what), "{what}:\n{text}");
        }
        assert!(
            text.contains("#[cfg_attr(test, hermetic::isolate(only(crate::db::Database::query, db::run_query)))] pub fn transfer("),
            "{text}"
        );
        // Taken out, an attribute leaves its lines.
        let formatted = planned_texts(d.path(), d.path(), &c, &edits, Layout::Rustfmt).unwrap();
        std::fs::write(d.path().join("src/lib.rs"), &formatted[0].1).unwrap();
        let c = crate::analyze::analyze(&d.path().join("src/lib.rs"), "demo").unwrap();
        let all = attributed_units(&c, |_| true);
        let off = user_attributes(&c, &all, &BTreeSet::new(), Isolate::Off);
        let texts = planned_texts(d.path(), d.path(), &c, &off, Layout::SameLines).unwrap();
        assert_eq!(texts[0].1.lines().count(), formatted[0].1.lines().count());
        assert!(!texts[0].1.contains("only(crate::db::Database::query"));
    }

    #[test]
    fn long_attributes_are_laid_out_as_rustfmt_does() {
        let only: Vec<String> = [
            "Database::connect",
            "crate::db::Database::run_query",
            "TransferProcessor::new",
            "crate::processor::TransferProcessor::process",
        ]
        .map(String::from)
        .to_vec();
        let text = format!(
            "{}\npub fn transfer_money() {{}}\n",
            attribute(&only, &[], "")
        );
        assert_eq!(
            text,
            "#[cfg_attr(\n    test,\n    hermetic::isolate(only(\n        Database::connect,\n        crate::db::Database::run_query,\n        TransferProcessor::new,\n        crate::processor::TransferProcessor::process\n    ))\n)]\npub fn transfer_money() {}\n"
        );
        if let Some(formatted) = crate::emit::rustfmt(&text) {
            assert_eq!(formatted, text);
        }
        let short = attribute(&["db::run_query".to_string()], &[], "    ");
        assert_eq!(
            short,
            "#[cfg_attr(test, hermetic::isolate(only(db::run_query)))]"
        );
    }
}
