//! Data flows one way through the engine: analyze → driver → search → (record) → emit (oracle)
//! → verify → report, under the commands that run the pipeline. This test reads the engine's sources and
//! fails when a module names an item of a module later in that order, or of a module whose
//! invariants say it must know nothing of it (ARCHITECTURE.md, code map).
//!
//! Every path is checked, not only `use` lines: `crate::..`, `super::..` and, in the crate root,
//! its child modules. Code under `#[cfg(test)]` is left out (a test may drive several stages),
//! and so are paths inside macro invocations (`quote!` writes generated code, not imports).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use syn::visit::Visit;

/// The engine's modules in pipeline order. A module may use the modules of its own layer's
/// entry (itself and below), of earlier layers, and the shared vocabulary of layer 0, whose
/// modules may use each other. `x::*` stands for the submodules of `x`, apart from `x` itself.
const LAYERS: &[&[&str]] = &[
    // The vocabulary every stage speaks, and the plumbing under all of them.
    &[
        "cluster",
        "test_case",
        "skip",
        "errors",
        "fnv",
        "rust_syntax",
        "mock_syntax",
        "cargo",
        "shadow",
        "manifest",
        "lockfile",
        "runtime",
        "commit",
        "test_binary",
        "selection",
        "suite",
        "support",
        "work_dir",
    ],
    &["analyze"],
    // The mutants of the selected code, which the driver build compiles in (schemata).
    &["mutation::schemata"],
    // `--isolate`: the units the driver build isolates, and the fakes the search sets up.
    &["isolate"],
    &["driver"],
    &["search"],
    // Mutation analysis of the search's tests (mutation/mod.rs runs it).
    &["mutation"],
    // Record's own stages (probes, the recorded run, its log, the cases): they stand where
    // the driver and the search stand for `generate`.
    &["record::*"],
    &["emit"],
    // The last run's tests, kept as data beside the emitted files and run again.
    &["kept"],
    // Whether the sources are as the last run left them (its fingerprint beside the cases).
    &["unchanged"],
    // The oracle's choice among assertions, by the mutants they kill, and more tests for the
    // mutants left alive.
    &["mutation::analysis"],
    &["mutation::hunt"],
    &["verify"],
    &["report"],
    &["record::report"],
    // The coverage page, from the report.
    &["html"],
    &["cli"],
    &["generate", "record"],
];

/// Pairs (user, used) ruled out whatever the order: the invariants of ARCHITECTURE.md.
const NEVER: &[(&str, &str, &str)] = &[
    (
        "search",
        "rust_syntax",
        "the search knows nothing of how Rust is printed",
    ),
    (
        "search",
        "mock_syntax",
        "the search knows nothing of how Rust is printed",
    ),
    (
        "search",
        "driver::codegen",
        "the search knows nothing of how Rust is printed",
    ),
    (
        "analyze",
        "cargo",
        "analysis reads sources only, it runs nothing",
    ),
];

/// A module of the engine: its path from the crate root and its file.
struct Module {
    path: Vec<String>,
    file: PathBuf,
}

/// One path a module names, resolved to the engine's module it points into.
#[derive(Debug)]
struct Use {
    from: Vec<String>,
    to: Vec<String>,
    file: PathBuf,
    line: usize,
}

#[test]
fn data_flows_one_way() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let modules = modules(&src);
    let known: BTreeSet<Vec<String>> = modules.iter().map(|m| m.path.clone()).collect();
    let mut uses = Vec::new();
    for m in &modules {
        let text = std::fs::read_to_string(&m.file).unwrap();
        let file = syn::parse_file(&text).unwrap();
        let mut v = Paths {
            module: m.path.clone(),
            file: &m.file,
            known: &known,
            out: &mut uses,
        };
        for item in &file.items {
            v.visit_item(item);
        }
    }
    assert!(uses.len() > 100, "too few paths found: {}", uses.len());

    let mut wrong = Vec::new();
    for u in &uses {
        if u.to.is_empty() || u.from.is_empty() || u.to.starts_with(&u.from) {
            continue;
        }
        let (from, from_entry) = layer(&u.from);
        let (to, to_entry) = layer(&u.to);
        let order_ok = from > to || (from == to && (from == 0 || from_entry == to_entry));
        let mut problems = Vec::new();
        if !order_ok {
            problems.push(format!(
                "{}:{}: `{}` uses `{}`, which comes {} in the pipeline",
                u.file.display(),
                u.line,
                u.from.join("::"),
                u.to.join("::"),
                if from == to { "beside it" } else { "later" }
            ));
        }
        for (user, used, why) in NEVER {
            if within(&u.from, user) && within(&u.to, used) {
                problems.push(format!(
                    "{}:{}: `{}` uses `{}`, but {why}",
                    u.file.display(),
                    u.line,
                    u.from.join("::"),
                    u.to.join("::"),
                ));
            }
        }
        wrong.extend(problems);
    }
    assert!(
        wrong.is_empty(),
        "modules that use later ones (see LAYERS and NEVER in this file):\n{}",
        wrong.join("\n")
    );
}

#[test]
fn every_module_has_a_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let missing: Vec<String> = modules(&src)
        .iter()
        .filter(|m| !m.path.is_empty() && entry(&m.path).is_none())
        .map(|m| m.path.join("::"))
        .collect();
    assert!(missing.is_empty(), "modules not in LAYERS: {missing:?}");
}

/// Whether `path` is the module `prefix` (`a::b`) or inside it.
fn within(path: &[String], prefix: &str) -> bool {
    let p: Vec<&str> = prefix.split("::").collect();
    path.len() >= p.len() && path.iter().zip(&p).all(|(a, b)| a == b)
}

/// The `LAYERS` entry a module falls under: the longest that covers it.
fn entry(path: &[String]) -> Option<(usize, &'static str)> {
    let mut best: Option<(usize, &'static str, usize)> = None;
    for (i, layer) in LAYERS.iter().enumerate() {
        for e in *layer {
            let (prefix, strict) = match e.strip_suffix("::*") {
                Some(p) => (p, true),
                None => (*e, false),
            };
            let n = prefix.split("::").count();
            let covers = within(path, prefix) && (!strict || path.len() > n);
            // `x::*` is more specific than `x`.
            let weight = 2 * n + usize::from(strict);
            if covers && best.is_none_or(|(_, _, w)| weight > w) {
                best = Some((i, e, weight));
            }
        }
    }
    best.map(|(i, e, _)| (i, e))
}

fn layer(path: &[String]) -> (usize, &'static str) {
    entry(path).unwrap_or_else(|| panic!("`{}` is in no layer", path.join("::")))
}

/// The engine's modules, from `main.rs` down its `mod` items (those under `#[cfg(test)]` left
/// out).
fn modules(src: &Path) -> Vec<Module> {
    fn walk(path: Vec<String>, file: PathBuf, dir: PathBuf, out: &mut Vec<Module>) {
        let text = std::fs::read_to_string(&file)
            .unwrap_or_else(|e| panic!("read {}: {e}", file.display()));
        let ast = syn::parse_file(&text).unwrap();
        out.push(Module {
            path: path.clone(),
            file: file.clone(),
        });
        for item in &ast.items {
            let syn::Item::Mod(m) = item else { continue };
            if m.content.is_some() || is_test_only(&m.attrs) {
                continue;
            }
            let name = m.ident.to_string();
            let mut child = path.clone();
            child.push(name.clone());
            let flat = dir.join(format!("{name}.rs"));
            let (child_file, child_dir) = if flat.exists() {
                (flat, dir.join(&name))
            } else {
                (dir.join(&name).join("mod.rs"), dir.join(&name))
            };
            walk(child, child_file, child_dir, out);
        }
    }
    let mut out = Vec::new();
    walk(vec![], src.join("main.rs"), src.to_path_buf(), &mut out);
    out
}

fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>()
                .is_ok_and(|m| m.path().is_ident("test"))
    })
}

/// Collects the paths into the engine's modules.
struct Paths<'a> {
    /// The module the visitor is in (inline modules included).
    module: Vec<String>,
    file: &'a Path,
    known: &'a BTreeSet<Vec<String>>,
    out: &'a mut Vec<Use>,
}

impl Paths<'_> {
    /// The engine's module a path's leading segments name: `crate::a::b::Item` → `a::b`.
    fn resolve(&self, segments: &[String]) -> Option<Vec<String>> {
        let (mut base, rest) = match segments.first().map(String::as_str) {
            Some("crate") => (vec![], &segments[1..]),
            Some("super") => {
                let mut base = self.module.clone();
                let mut rest = segments;
                while rest.first().map(String::as_str) == Some("super") {
                    base.pop();
                    rest = &rest[1..];
                }
                (base, rest)
            }
            Some("self") => (self.module.clone(), &segments[1..]),
            // In the crate root, its modules are named directly (`use cli::Command`).
            Some(first) if self.module.is_empty() && self.known.contains(&vec![first.into()]) => {
                (vec![], segments)
            }
            _ => return None,
        };
        for s in rest {
            let mut next = base.clone();
            next.push(s.clone());
            if !self.known.contains(&next) {
                break;
            }
            base = next;
        }
        Some(base)
    }

    fn record(&mut self, segments: Vec<String>, line: usize) {
        if let Some(to) = self.resolve(&segments) {
            self.out.push(Use {
                from: self.module.clone(),
                to,
                file: self.file.to_path_buf(),
                line,
            });
        }
    }
}

/// Every path a `use` tree spells out (`a::{b, c::d}` → `a::b`, `a::c::d`).
fn use_paths(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            use_paths(&p.tree, prefix, out);
            prefix.pop();
        }
        syn::UseTree::Name(n) => {
            let mut p = prefix.clone();
            if n.ident != "self" {
                p.push(n.ident.to_string());
            }
            out.push(p);
        }
        syn::UseTree::Rename(r) => {
            let mut p = prefix.clone();
            if r.ident != "self" {
                p.push(r.ident.to_string());
            }
            out.push(p);
        }
        syn::UseTree::Glob(_) => out.push(prefix.clone()),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_paths(t, prefix, out);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Paths<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = match item {
            syn::Item::Mod(m) => &m.attrs,
            syn::Item::Fn(f) => &f.attrs,
            syn::Item::Impl(i) => &i.attrs,
            syn::Item::Use(u) => &u.attrs,
            syn::Item::Struct(s) => &s.attrs,
            syn::Item::Enum(e) => &e.attrs,
            syn::Item::Const(c) => &c.attrs,
            syn::Item::Static(s) => &s.attrs,
            syn::Item::Trait(t) => &t.attrs,
            syn::Item::Type(t) => &t.attrs,
            _ => return syn::visit::visit_item(self, item),
        };
        if is_test_only(attrs) {
            return;
        }
        syn::visit::visit_item(self, item);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        // Out-of-line modules are files of their own, read as modules of their own.
        if let Some((_, items)) = &m.content {
            self.module.push(m.ident.to_string());
            for i in items {
                self.visit_item(i);
            }
            self.module.pop();
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        let mut paths = Vec::new();
        use_paths(&u.tree, &mut vec![], &mut paths);
        let line = u.use_token.span.start().line;
        for p in paths {
            self.record(p, line);
        }
    }

    /// `pub(super)` and `pub(in crate::a)` say who may see an item, not what it uses.
    fn visit_visibility(&mut self, _: &'ast syn::Visibility) {}

    fn visit_path(&mut self, p: &'ast syn::Path) {
        let segments: Vec<String> = p.segments.iter().map(|s| s.ident.to_string()).collect();
        let line = p
            .segments
            .first()
            .map_or(0, |s| s.ident.span().start().line);
        self.record(segments, line);
        syn::visit::visit_path(self, p);
    }
}
