//! Real-crates benchmark: `cargo hermetic generate` on published crates that touch files, paths,
//! variables or time, as a user would run it, and what came of it, beside the crate's own tests.
//!
//! Usage: `realcrates --cli PATH [--budget S] [--only NAME,..] [--keep] [--no-line-coverage]`
//! (normally through
//! `bench/realcrates`, which builds the CLI and installs the coverage tool first).
//!
//! Each crate is fetched by cargo at its pinned version and copied out of the registry cache
//! (never changed there). On the copy: the public API from rustdoc's JSON; generation with
//! `--budget`, verification on, the tests written; the emitted tests run three times with
//! `cargo test`; line coverage by `cargo llvm-cov` of the crate's unit tests, of all its own
//! tests (unit and `tests/`), and of the generated tests, over the same lines: the crate's
//! source less its test code (`#[cfg(test)]` items, `#[test]` functions) and the generated
//! files. One table; exits non-zero when a crate failed as a whole (the bars of issue 12 are
//! printed, not enforced: this measures).

use hermetic_bench::{copy_dir, make_writable, registry_source};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;
use syn::visit::Visit;

/// The crates (name, version): small published crates a user would pick to read or write
/// files, walk directories, look up paths and variables, or tell the time.
const CRATES: &[(&str, &str)] = &[
    ("dotenvy", "0.15.7"),
    ("home", "0.5.12"),
    ("xdg", "3.0.0"),
    ("humantime", "2.4.0"),
    ("httpdate", "1.0.3"),
    ("glob", "0.3.4"),
    ("walkdir", "2.5.0"),
    ("filetime", "0.2.29"),
    ("pathdiff", "0.2.3"),
    ("shellexpand", "3.1.2"),
    ("fs_extra", "1.3.0"),
    ("which", "8.0.6"),
    ("same-file", "1.0.6"),
    ("fs-err", "3.3.1"),
];

/// Skip reasons shown per crate.
const TOP_REASONS: usize = 3;

/// What one crate gave.
#[derive(Default)]
struct Row {
    label: String,
    /// Why the crate failed as a whole (no report), if it did.
    failure: Option<String>,
    callables: u64,
    skipped: u64,
    goals_total: u64,
    goals_covered: u64,
    emitted: u64,
    dropped: u64,
    /// Emitted tests that passed in each of three `cargo test` runs.
    passing: Option<u64>,
    /// Public functions and methods, and those a generated test calls.
    api: Option<(usize, usize)>,
    /// Line coverage (%) of the crate's unit tests, all its own tests, the generated tests.
    own_unit: Option<f64>,
    own_all: Option<f64>,
    generated: Option<f64>,
    reasons: Vec<(String, u64)>,
    /// Skips by kind of reason (`unsupported_type`, `unmet_bound`, ..), all names together.
    kinds: BTreeMap<String, u64>,
    seconds: f64,
}

fn main() {
    let mut cli = None;
    let mut budget = 120u64;
    let mut only: Option<Vec<String>> = None;
    let mut keep = false;
    let mut line_coverage_wanted = true;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cli" => cli = args.next().map(PathBuf::from),
            "--budget" => {
                budget = args
                    .next()
                    .and_then(|b| b.parse().ok())
                    .expect("--budget S")
            }
            "--only" => {
                only = args
                    .next()
                    .map(|l| l.split(',').map(String::from).collect())
            }
            "--keep" => keep = true,
            // Three instrumented builds per crate fewer, for a quick table on a busy machine.
            "--no-line-coverage" => line_coverage_wanted = false,
            other => {
                eprintln!("unknown option {other}\nusage: realcrates --cli PATH [--budget S] [--only NAME,..] [--keep] [--no-line-coverage]");
                std::process::exit(2);
            }
        }
    }
    let cli = cli.expect("--cli PATH (the cargo-hermetic binary)");
    let cli = std::fs::canonicalize(&cli).unwrap_or(cli);
    let work = std::env::temp_dir().join(format!("hermetic-realcrates-{}", std::process::id()));
    std::fs::create_dir_all(&work).expect("create the work directory");
    let coverage = line_coverage_wanted && llvm_cov_available();
    if line_coverage_wanted && !coverage {
        eprintln!("cargo llvm-cov is not installed: line coverage columns are left empty (bench/realcrates installs it)");
    }
    let mut rows = Vec::new();
    for (name, version) in CRATES {
        if only.as_ref().is_some_and(|o| !o.iter().any(|n| n == name)) {
            continue;
        }
        eprintln!("[realcrates] {name} {version} ...");
        let row = run_crate(&cli, &work, name, version, budget, coverage);
        eprintln!("[realcrates] {name} {version} done in {:.0}s", row.seconds);
        rows.push(row);
    }
    let failed = print_table(&rows, budget);
    if keep {
        println!("work directory kept: {}", work.display());
    } else {
        let _ = std::fs::remove_dir_all(&work);
    }
    std::process::exit(if failed { 1 } else { 0 });
}

fn run_crate(
    cli: &Path,
    work: &Path,
    name: &str,
    version: &str,
    budget: u64,
    coverage: bool,
) -> Row {
    let started = Instant::now();
    let mut row = Row {
        label: format!("{name} {version}"),
        ..Row::default()
    };
    let Some(src) = registry_source(name, version, work) else {
        row.failure =
            Some("not in cargo's registry cache, and `cargo fetch` did not bring it".into());
        return row;
    };
    let krate = work.join("crates").join(format!("{name}-{version}"));
    copy_dir(&src, &krate).expect("copy the crate");
    make_writable(&krate);
    let crate_name = name.replace('-', "_");
    let api = public_api(&krate, &crate_name, work);

    let report = work.join(format!("{name}.json"));
    let out = Command::new(cli)
        .args(["hermetic", "generate", "--manifest-path"])
        .arg(krate.join("Cargo.toml"))
        .args([
            "--budget",
            &budget.to_string(),
            "--seed",
            "1",
            "--quiet",
            "--report-json",
        ])
        .arg(&report)
        .current_dir(&krate)
        .env("CARGO_HERMETIC_TARGET_DIR", work.join("hermetic-target"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("start cargo-hermetic");
    let parsed: Option<Value> = std::fs::read(&report)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let stderr = String::from_utf8_lossy(&out.stderr);
    match parsed.filter(|_| out.status.success()) {
        Some(r) => read_report(&mut row, &r),
        None => {
            let first = stderr
                .lines()
                .find(|l| !l.trim().is_empty())
                .unwrap_or("(no message)");
            row.failure = Some(format!("exit {}: {}", out.status, first.trim()));
            let log = work.join(format!("{name}.stderr"));
            let _ = std::fs::write(&log, stderr.as_bytes());
        }
    }

    let tests = generated_tests(&krate);
    if row.failure.is_none() {
        row.passing = Some(if row.emitted == 0 {
            0
        } else {
            passing_three_times(&krate)
        });
    }
    if let Some(api) = &api {
        let tested = api.iter().filter(|f| f.called_in(&tests, api)).count();
        row.api = Some((tested, api.len()));
        // Which ones no test calls, for `--keep`'s reader.
        let untested: String = api
            .iter()
            .filter(|f| !f.called_in(&tests, api))
            .map(|f| match &f.owner {
                Some(o) => format!("{o}::{}\n", f.name),
                None => format!("{}\n", f.name),
            })
            .collect();
        let _ = std::fs::write(work.join(format!("{name}.untested")), untested);
    }
    if coverage {
        let lines = |args: &[&str], out: &str| -> Option<f64> {
            let lcov = work.join(format!("{name}-{out}.lcov"));
            llvm_cov(&krate, args, &lcov)
                .then(|| line_coverage(&lcov, &krate))
                .flatten()
        };
        row.own_unit = lines(&["--lib", "--", "--skip", "hermetic_tests::"], "own-unit");
        row.own_all = lines(
            &["--lib", "--tests", "--", "--skip", "hermetic_tests::"],
            "own-all",
        );
        row.generated = if row.emitted == 0 {
            row.own_unit.map(|_| 0.0)
        } else {
            lines(&["--lib", "--", "hermetic_tests::"], "generated")
        };
    }
    row.seconds = started.elapsed().as_secs_f64();
    row
}

/// Fills the row from the JSON report of `generate`.
fn read_report(row: &mut Row, r: &Value) {
    let n = |k: &str| r[k].as_u64().unwrap_or(0);
    row.callables = n("callables");
    row.skipped = r["skipped"].as_array().map_or(0, |a| a.len() as u64);
    row.goals_total = n("goals_total");
    row.goals_covered = n("goals_covered");
    row.emitted = n("tests_emitted");
    row.dropped = n("tests_dropped_unstable")
        + n("tests_dropped_static_state")
        + n("tests_dropped_uncompilable");
    row.reasons = skip_reasons(r);
    for c in r["skipped_by_reason"].as_array().into_iter().flatten() {
        let kind = c["reason"]["kind"].as_str().unwrap_or("?").to_string();
        *row.kinds.entry(kind).or_default() += c["count"].as_u64().unwrap_or(0);
    }
}

/// The report's skip reasons with counts, most frequent first (`skipped_by_reason`; reports
/// before it had reasons as text: those are counted by text).
fn skip_reasons(r: &Value) -> Vec<(String, u64)> {
    if let Some(counts) = r["skipped_by_reason"].as_array() {
        return counts
            .iter()
            .map(|c| {
                (
                    c["text"].as_str().unwrap_or("?").to_string(),
                    c["count"].as_u64().unwrap_or(0),
                )
            })
            .collect();
    }
    let mut by: BTreeMap<String, u64> = BTreeMap::new();
    for s in r["skipped"].as_array().into_iter().flatten() {
        let text = s["reason"].as_str().unwrap_or("?");
        // "parameter `p`: `&Path` is not supported" → "`&Path` is not supported".
        let last = text.rsplit(": ").next().unwrap_or(text).to_string();
        *by.entry(last).or_default() += 1;
    }
    let mut all: Vec<(String, u64)> = by.into_iter().collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    all
}

/// Runs the generated tests three times; how many passed every time.
fn passing_three_times(krate: &Path) -> u64 {
    let mut passed_each: Option<BTreeSet<String>> = None;
    for _ in 0..3 {
        let out = Command::new(cargo())
            .args(["test", "--lib", "--", "hermetic_tests::"])
            .current_dir(krate)
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .expect("start cargo test");
        let passed: BTreeSet<String> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter_map(|l| {
                l.strip_prefix("test ")?
                    .strip_suffix(" ... ok")
                    .map(String::from)
            })
            .collect();
        passed_each = Some(match passed_each {
            None => passed,
            Some(before) => before.intersection(&passed).cloned().collect(),
        });
    }
    passed_each.map_or(0, |p| p.len() as u64)
}

fn cargo() -> std::ffi::OsString {
    std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into())
}

fn llvm_cov_available() -> bool {
    Command::new(cargo())
        .args(["llvm-cov", "--version"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// `cargo llvm-cov <args>` in the crate, writing lcov to `out`; whether it did.
fn llvm_cov(krate: &Path, args: &[&str], out: &Path) -> bool {
    let (before, after) = match args.iter().position(|a| *a == "--") {
        Some(i) => args.split_at(i),
        None => (args, &[][..]),
    };
    Command::new(cargo())
        .arg("llvm-cov")
        .args(before)
        .args(["--ignore-run-fail", "--lcov", "--output-path"])
        .arg(out)
        .args(after)
        .current_dir(krate)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        && out.is_file()
}

/// Line coverage (%) from an lcov file, over the crate's `src/` less its test code and the
/// generated files.
fn line_coverage(lcov: &Path, krate: &Path) -> Option<f64> {
    let text = std::fs::read_to_string(lcov).ok()?;
    let src = std::fs::canonicalize(krate.join("src")).ok()?;
    let (mut found, mut hit) = (0u64, 0u64);
    let mut file: Option<(PathBuf, Vec<(usize, usize)>)> = None;
    for line in text.lines() {
        if let Some(path) = line.strip_prefix("SF:") {
            let path = PathBuf::from(path);
            let counted = path.starts_with(&src)
                && !path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("hermetic_"));
            file = counted.then(|| {
                let ranges = test_code_lines(&path);
                (path, ranges)
            });
        } else if let Some(da) = line.strip_prefix("DA:") {
            let Some((_, ranges)) = &file else { continue };
            let mut parts = da.split(',');
            let (Some(l), Some(c)) = (parts.next(), parts.next()) else {
                continue;
            };
            let (Ok(l), Ok(c)) = (l.parse::<usize>(), c.parse::<u64>()) else {
                continue;
            };
            if ranges.iter().any(|(a, b)| (*a..=*b).contains(&l)) {
                continue;
            }
            found += 1;
            hit += u64::from(c > 0);
        } else if line == "end_of_record" {
            file = None;
        }
    }
    (found > 0).then(|| 100.0 * hit as f64 / found as f64)
}

/// The line ranges of a source file's test code: items under `#[cfg(test)]` (alone or in
/// `all(..)`) and `#[test]` functions.
fn test_code_lines(path: &Path) -> Vec<(usize, usize)> {
    struct Tests(Vec<(usize, usize)>);
    fn is_test(attrs: &[syn::Attribute]) -> bool {
        attrs.iter().any(|a| {
            a.path().is_ident("test")
                || (a.path().is_ident("cfg") && {
                    let t = quote::ToTokens::to_token_stream(&a.meta).to_string();
                    t == "cfg (test)"
                        || (t.starts_with("cfg (all (") && t.contains("test") && !t.contains("not"))
                })
        })
    }
    impl Tests {
        fn add(&mut self, attrs: &[syn::Attribute], span: proc_macro2::Span) {
            let start = attrs.first().map_or(span.start().line, |a| {
                syn::spanned::Spanned::span(a).start().line
            });
            self.0.push((start, span.end().line));
        }
    }
    impl<'ast> Visit<'ast> for Tests {
        fn visit_item(&mut self, i: &'ast syn::Item) {
            let attrs: &[syn::Attribute] = match i {
                syn::Item::Mod(m) => &m.attrs,
                syn::Item::Fn(f) => &f.attrs,
                syn::Item::Impl(m) => &m.attrs,
                syn::Item::Use(u) => &u.attrs,
                syn::Item::Struct(s) => &s.attrs,
                syn::Item::Enum(e) => &e.attrs,
                syn::Item::Const(c) => &c.attrs,
                syn::Item::Static(s) => &s.attrs,
                _ => &[],
            };
            if is_test(attrs) {
                self.add(attrs, syn::spanned::Spanned::span(i));
            } else {
                syn::visit::visit_item(self, i);
            }
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            if is_test(&f.attrs) {
                self.add(&f.attrs, syn::spanned::Spanned::span(f));
            }
        }
    }
    let Some(file) = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| syn::parse_file(&t).ok())
    else {
        return Vec::new();
    };
    let mut v = Tests(Vec::new());
    v.visit_file(&file);
    v.0
}

/// A public function or method, as rustdoc lists the crate's API.
struct ApiFn {
    /// The type of a method or associated function (`Some("Glob")`), `None` for a function.
    owner: Option<String>,
    name: String,
}

impl ApiFn {
    /// Whether a test calls it: a function by its name, an associated function as
    /// `Owner::name(..)`, a method as `.name(..)` in a test that names its type (or any test,
    /// when no other public method has its name), or on a variable named after its type
    /// (`into_iter.skip_current_dir()` for `IntoIter`, `dir_entry_2.path()` for `DirEntry`),
    /// as generated tests name values of the crate's types.
    fn called_in(&self, tests: &[TestCalls], api: &[ApiFn]) -> bool {
        tests.iter().any(|t| match &self.owner {
            None => t.calls.iter().any(|(_, n)| *n == self.name),
            Some(owner) => {
                t.calls
                    .iter()
                    .any(|(o, n)| *n == self.name && o.as_deref() == Some(owner))
                    || t.on_vars.contains(&(snake_case(owner), self.name.clone()))
                    || (t.methods.contains(&self.name)
                        && (t.names.contains(owner)
                            || api
                                .iter()
                                .filter(|f| f.owner.is_some() && f.name == self.name)
                                .count()
                                == 1))
            }
        })
    }
}

/// What one generated test calls and names.
#[derive(Default)]
struct TestCalls {
    /// Path calls: (the segment before the last, the last).
    calls: Vec<(Option<String>, String)>,
    /// Method calls, by name.
    methods: BTreeSet<String>,
    /// Every identifier in the test (the types it names).
    names: BTreeSet<String>,
    /// Method calls on a variable: (the variable's name without a `_2`-style number, the
    /// method).
    on_vars: BTreeSet<(String, String)>,
}

/// `IntoIter` → `into_iter`.
fn snake_case(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            out.push('_');
        }
        out.extend(c.to_lowercase());
    }
    out
}

/// `dir_entry_2` → `dir_entry`.
fn unnumbered(var: &str) -> &str {
    match var.rsplit_once('_') {
        Some((base, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => var,
    }
}

/// The generated tests of the crate (`src/**/hermetic_tests.rs`).
fn generated_tests(krate: &Path) -> Vec<TestCalls> {
    let mut files = Vec::new();
    find_files(&krate.join("src"), "hermetic_tests.rs", &mut files);
    files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .flat_map(|text| test_calls(&text))
        .collect()
}

/// What each test function of one generated file calls and names.
fn test_calls(text: &str) -> Vec<TestCalls> {
    struct Calls<'a>(&'a mut TestCalls);
    impl<'ast> Visit<'ast> for Calls<'_> {
        fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
            if let syn::Expr::Path(p) = &*c.func {
                let segs: Vec<String> = p
                    .path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect();
                if let Some(last) = segs.last() {
                    let owner = segs.len().checked_sub(2).map(|i| segs[i].clone());
                    self.0.calls.push((owner, last.clone()));
                }
            }
            syn::visit::visit_expr_call(self, c);
        }
        fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
            self.0.methods.insert(m.method.to_string());
            if let syn::Expr::Path(p) = &*m.receiver {
                if let Some(var) = p.path.get_ident() {
                    let var = unnumbered(&var.to_string()).to_string();
                    self.0.on_vars.insert((var, m.method.to_string()));
                }
            }
            syn::visit::visit_expr_method_call(self, m);
        }
        fn visit_ident(&mut self, i: &'ast proc_macro2::Ident) {
            self.0.names.insert(i.to_string());
        }
        // `assert_eq!(diff_paths("a", "b"), None)`: the calls are inside the macro's tokens,
        // which syn leaves unparsed.
        fn visit_macro(&mut self, m: &'ast syn::Macro) {
            let args = m.parse_body_with(
                syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated,
            );
            for e in args.iter().flatten() {
                self.visit_expr(e);
            }
            syn::visit::visit_macro(self, m);
        }
    }
    let Ok(file) = syn::parse_file(text) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in &file.items {
        if let syn::Item::Fn(func) = item {
            let mut t = TestCalls::default();
            Calls(&mut t).visit_item_fn(func);
            out.push(t);
        }
    }
    out
}

fn find_files(dir: &Path, name: &str, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let p = e.path();
        if p.is_dir() {
            find_files(&p, name, out);
        } else if p.file_name().is_some_and(|n| n == name) {
            out.push(p);
        }
    }
}

/// The crate's public functions and methods (inherent impls), from rustdoc's JSON output
/// (`RUSTC_BOOTSTRAP=1`: the format is unstable, but stable rustdoc writes it), which lists
/// what a user of the crate can call, after `#[cfg]`s and features.
fn public_api(krate: &Path, crate_name: &str, work: &Path) -> Option<Vec<ApiFn>> {
    let target = work.join("doc-target");
    let ok = Command::new(cargo())
        .args([
            "rustdoc",
            "--lib",
            "--quiet",
            "--",
            "-Z",
            "unstable-options",
            "--output-format",
            "json",
        ])
        .current_dir(krate)
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", &target)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return None;
    }
    let json: Value = serde_json::from_slice(
        &std::fs::read(target.join("doc").join(format!("{crate_name}.json"))).ok()?,
    )
    .ok()?;
    let index = json["index"].as_object()?;
    let local = |item: &Value| item["crate_id"].as_u64() == Some(0);
    let public = |item: &Value| item["visibility"].as_str() == Some("public");
    let mut in_impls = BTreeSet::new();
    let mut out = Vec::new();
    for item in index.values().filter(|i| local(i)) {
        let Some(imp) = item["inner"].get("impl") else {
            continue;
        };
        let ids: Vec<String> = imp["items"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|id| id.to_string())
            .collect();
        in_impls.extend(ids.iter().cloned());
        if !imp["trait"].is_null() || imp["is_synthetic"].as_bool() == Some(true) {
            continue;
        }
        let Some(owner) = imp["for"]["resolved_path"]["path"].as_str() else {
            continue;
        };
        let owner = owner.rsplit("::").next().unwrap_or(owner).to_string();
        for id in ids {
            let Some(f) = index.get(id.trim_matches('"')) else {
                continue;
            };
            if f["inner"].get("function").is_some() && public(f) {
                out.push(ApiFn {
                    owner: Some(owner.clone()),
                    name: f["name"].as_str()?.to_string(),
                });
            }
        }
    }
    for (id, item) in index {
        if local(item)
            && public(item)
            && item["inner"].get("function").is_some()
            && !in_impls.contains(&format!("\"{id}\""))
            && !in_impls.contains(id)
        {
            out.push(ApiFn {
                owner: None,
                name: item["name"].as_str()?.to_string(),
            });
        }
    }
    Some(out)
}

fn pct(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

fn opt(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.1}"))
}

/// Prints the table, the reasons and the bars; whether a crate failed as a whole.
fn print_table(rows: &[Row], budget: u64) -> bool {
    println!("cargo hermetic generate --budget {budget} --seed 1 (verification on); line coverage by cargo llvm-cov over src/ less test code");
    println!(
        "{:<20} {:>5} {:>5} | {:>15} | {:>5} {:>5} {:>6} | {:>13} | {:>6} {:>6} {:>6} | {:>5}",
        "",
        "calls",
        "skip",
        "branches",
        "tests",
        "drop",
        "pass3",
        "pub fns",
        "own",
        "own",
        "gen",
        ""
    );
    println!(
        "{:<20} {:>5} {:>5} | {:>15} | {:>5} {:>5} {:>6} | {:>13} | {:>6} {:>6} {:>6} | {:>5}",
        "crate",
        "ables",
        "ped",
        "covered",
        "kept",
        "ped",
        "runs",
        "with a test",
        "unit%",
        "all%",
        "line%",
        "s"
    );
    println!("{}", "-".repeat(118));
    let mut failed = false;
    let mut branch_pcts = Vec::new();
    let (mut api_tested, mut api_total) = (0usize, 0usize);
    let (mut own_units, mut gens) = (Vec::new(), Vec::new());
    let mut all_reasons: BTreeMap<String, u64> = BTreeMap::new();
    let mut all_kinds: BTreeMap<String, u64> = BTreeMap::new();
    for r in rows {
        if let Some(f) = &r.failure {
            failed = true;
            println!("{:<20} FAILED: {f}", r.label);
        }
        if r.failure.is_none() {
            branch_pcts.push(pct(r.goals_covered, r.goals_total));
        }
        if let Some((t, n)) = r.api {
            api_tested += t;
            api_total += n;
        }
        own_units.extend(r.own_unit);
        gens.extend(r.generated);
        for (text, n) in &r.reasons {
            *all_reasons.entry(text.clone()).or_default() += n;
        }
        for (kind, n) in &r.kinds {
            *all_kinds.entry(kind.clone()).or_default() += n;
        }
        let api = r.api.map_or_else(
            || "-".into(),
            |(t, n)| format!("{t}/{n} {:.0}%", pct(t as u64, n as u64)),
        );
        let branches = if r.failure.is_some() {
            "-".to_string()
        } else {
            format!(
                "{}/{} {:.1}%",
                r.goals_covered,
                r.goals_total,
                pct(r.goals_covered, r.goals_total)
            )
        };
        println!(
            "{:<20} {:>5} {:>5} | {:>15} | {:>5} {:>5} {:>6} | {:>13} | {:>6} {:>6} {:>6} | {:>5.0}",
            if r.failure.is_some() { "" } else { &r.label },
            r.callables,
            r.skipped,
            branches,
            r.emitted,
            r.dropped,
            r.passing.map_or_else(|| "-".into(), |p| p.to_string()),
            api,
            opt(r.own_unit),
            opt(r.own_all),
            opt(r.generated),
            r.seconds
        );
        if !r.reasons.is_empty() {
            let top: Vec<String> = r
                .reasons
                .iter()
                .take(TOP_REASONS)
                .map(|(t, n)| format!("{n} x {t}"))
                .collect();
            println!("{:<20}   skipped: {}", "", top.join("; "));
        }
    }
    println!("{}", "-".repeat(118));
    let med_branch = median(branch_pcts.clone());
    println!(
        "median branch coverage {}% (bar 75%), lowest {}% (bar 40%)",
        opt(med_branch),
        opt(branch_pcts.iter().copied().reduce(f64::min))
    );
    println!(
        "public functions and methods with a test: {api_tested}/{api_total} ({:.1}%, bar 85%)",
        pct(api_tested as u64, api_total as u64)
    );
    println!(
        "median line coverage: generated tests {}%, the crates' own unit tests {}% (bar: generated >= own)",
        opt(median(gens)),
        opt(median(own_units))
    );
    let failures = rows.iter().filter(|r| r.failure.is_some()).count();
    println!(
        "crates that failed as a whole: {failures} of {}",
        rows.len()
    );
    let mut reasons: Vec<(String, u64)> = all_reasons.into_iter().collect();
    reasons.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    println!("most frequent skip reasons over all crates:");
    for (t, n) in reasons.iter().take(8) {
        println!("  {n:>5}  {t}");
    }
    let mut kinds: Vec<(String, u64)> = all_kinds.into_iter().collect();
    kinds.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    println!("skips by kind over all crates: {}", kinds.join(", "));
    failed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_inside_assertions_count() {
        let tests = test_calls(
            "#[test]\nfn t() {\n    assert_eq!(diff_paths(\"a\", \"/b\"), None);\n    \
             assert!(Config::load(\"x\").unwrap().is_empty());\n}\n",
        );
        assert_eq!(tests.len(), 1);
        let calls = &tests[0].calls;
        assert!(
            calls.contains(&(None, "diff_paths".to_string())),
            "{calls:?}"
        );
        assert!(calls.contains(&(Some("Config".to_string()), "load".to_string())));
        assert!(tests[0].methods.contains("is_empty"));
    }

    #[test]
    fn a_method_on_a_variable_named_after_its_type_counts() {
        let api = |owner: &str, name: &str| ApiFn {
            owner: Some(owner.to_string()),
            name: name.to_string(),
        };
        let all = [
            api("IntoIter", "skip_current_dir"),
            api("FilterEntry", "skip_current_dir"),
        ];
        let tests = test_calls(
            "#[test]\nfn t() {\n    let mut into_iter_2 = WalkDir::new(\"a\").into_iter();\n    \
             into_iter_2.skip_current_dir();\n}\n",
        );
        assert!(all[0].called_in(&tests, &all));
        assert!(!all[1].called_in(&tests, &all));
        assert_eq!(snake_case("DirEntry"), "dir_entry");
        assert_eq!(unnumbered("walk_dir_3"), "walk_dir");
        assert_eq!(unnumbered("walk_dir"), "walk_dir");
    }
}
