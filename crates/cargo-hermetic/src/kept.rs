//! Regeneration that keeps what is good: the tests a run wrote, remembered as data so that the
//! next run can run them again.
//!
//! Beside each generated test file the tool writes its tests' cases, one JSON line per test
//! (`.hermetic/cases/<package>/<the test file's path>.jsonl` at the workspace root): the test's
//! name, its calls (each callable named by its signature, so a changed signature is code that
//! went away) with their arguments, and its environment. The next run turns the lines of the
//! tests still in the file back into test cases of the current crate; the search runs them
//! first and keeps those that still cover as they are (`search::SearchConfig::start_from`), and
//! emission gives a test whose text did not change its old name. So a rerun on unchanged code
//! writes the same files; only goals no kept test covers get new tests, and tests of code that
//! went away (a callable that no longer resolves) are gone.

use crate::cluster::{CallableId, CallableKind, Cluster, Receiver};
use crate::commit::Changes;
use crate::emit::{self, GeneratedFile, Suite, GENERATED_MARKER};
use crate::rust_syntax;
use crate::test_case::{FinishedTest, Stmt, TestCase};
use hermetic_protocol::{EnvSpec, Value};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Where the cases live, below the workspace root.
pub const CASES_DIR: &str = ".hermetic/cases";

/// One line of a cases file: a test as data.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Line {
    test: String,
    calls: Vec<CallLine>,
    #[serde(default, skip_serializing_if = "EnvSpec::is_empty")]
    env: EnvSpec,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct CallLine {
    /// The callable by its signature ([`callable_key`]).
    callable: String,
    args: Vec<Value>,
}

/// The remembered tests of a crate, as the last run left them.
#[derive(Debug, Default)]
pub struct Kept {
    /// Test cases of the current crate, for the search to run first.
    pub cases: Vec<TestCase>,
    /// Each test file's lines, by the test file's path (relative to the crate root) and test
    /// name, as read: tests a run keeps as written (`--function`) keep their lines too.
    lines: BTreeMap<PathBuf, BTreeMap<String, String>>,
}

/// Where the cases of a test file go: `.hermetic/cases/<package>/src/a/hermetic_tests.rs.jsonl`
/// below the workspace root.
pub fn cases_path(workspace_root: &Path, package: &str, test_file: &Path) -> PathBuf {
    let mut name = test_file.as_os_str().to_owned();
    name.push(".jsonl");
    workspace_root
        .join(CASES_DIR)
        .join(package)
        .join(PathBuf::from(name))
}

/// A callable as the cases name it: what kind of item, its path, and its parameter and result
/// types as the crate spells them (`fn shapes::area(&Shape) -> f64`,
/// `method shapes::Circle::scale(&mut self, f64)`).
pub fn callable_key(cluster: &Cluster, c: CallableId) -> String {
    let callable = &cluster.callables[c];
    let from = callable.module;
    let ty = |t| rust_syntax::ty(cluster, t, from).to_string();
    let mut path = cluster.modules[from].path.clone();
    let kind = match &callable.kind {
        CallableKind::Function => "fn".to_string(),
        CallableKind::AssocFn { self_ty, .. } => format!("assoc {}", ty(self_ty)),
        CallableKind::Method {
            self_ty, receiver, ..
        } => {
            let receiver = match receiver {
                Receiver::Ref => "&self",
                Receiver::RefMut => "&mut self",
                Receiver::Value => "self",
            };
            format!("method {} {receiver}", ty(self_ty))
        }
        CallableKind::TraitFn {
            self_ty,
            trait_name,
        } => format!("impl {trait_name} for {}", ty(self_ty)),
        CallableKind::StructLiteral { self_ty, tuple } => {
            format!(
                "literal {}{}",
                ty(self_ty),
                if *tuple { " (..)" } else { "" }
            )
        }
        CallableKind::Variant { self_ty, .. } => format!("variant {}", ty(self_ty)),
        CallableKind::Mock(t) => format!("mock {}", cluster.traits[*t].name),
        CallableKind::Fake(_) => "fake".to_string(),
        CallableKind::Parse { self_ty } => format!("parse {}", ty(self_ty)),
    };
    path.push(callable.name.clone());
    let params: Vec<String> = callable
        .params
        .iter()
        .map(|p| format!("{}: {}", p.name, ty(&p.ty)))
        .collect();
    format!(
        "{kind} {}({}) -> {}",
        path.join("::"),
        params.join(", "),
        ty(&callable.ret)
    )
}

/// Reads the cases of every generated test file of the crate: the tests whose lines are there
/// and whose names are still in the file, turned into cases of the current crate. Tests that
/// call something that no longer exists, or whose last call `wanted` refuses, are left out of
/// `cases` (their lines stay, for [`Kept::files`]).
pub fn load(
    cluster: &Cluster,
    crate_dir: &Path,
    workspace_root: &Path,
    package: &str,
    wanted: impl Fn(CallableId) -> bool,
) -> Kept {
    let mut keys: HashMap<String, Option<CallableId>> = HashMap::new();
    for c in 0..cluster.callables.len() {
        keys.entry(callable_key(cluster, c))
            .and_modify(|e| *e = None) // two callables, one key: neither is found
            .or_insert(Some(c));
    }
    let mut kept = Kept::default();
    for module in 0..cluster.modules.len() {
        let rel = emit::test_file_path(cluster, module, Suite::Generated, Some(crate_dir));
        let Ok(source) = std::fs::read_to_string(crate_dir.join(&rel)) else {
            continue;
        };
        if !source
            .lines()
            .next()
            .is_some_and(|l| l.contains(GENERATED_MARKER))
        {
            continue;
        }
        let names = emit::merge::test_names(&source).unwrap_or_default();
        let path = cases_path(workspace_root, package, &rel);
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let mut lines = BTreeMap::new();
        for raw in text.lines() {
            let Ok(line) = serde_json::from_str::<Line>(raw) else {
                continue;
            };
            if !names.contains(&line.test) {
                continue; // the test was deleted from the file
            }
            let stmts: Option<Vec<Stmt>> = line
                .calls
                .iter()
                .map(|call| {
                    Some(Stmt {
                        callable: keys.get(&call.callable).copied().flatten()?,
                        args: call.args.clone(),
                    })
                })
                .collect();
            if let Some(stmts) = stmts.filter(|s| s.last().is_some_and(|l| wanted(l.callable))) {
                kept.cases.push(TestCase {
                    home: module,
                    stmts,
                    env: line.env.clone(),
                });
            }
            lines.insert(line.test, raw.to_string());
        }
        kept.lines.insert(rel, lines);
    }
    kept
}

impl Kept {
    /// The cases files for the test files written: a line per test, in the file's order, from
    /// the test this run wrote (`from`: name → index into `tests`) or, for a test the run kept
    /// as written, the line read. Paths are absolute.
    pub fn files(
        &self,
        cluster: &Cluster,
        files: &[GeneratedFile],
        tests: &[FinishedTest],
        workspace_root: &Path,
        package: &str,
    ) -> Vec<(PathBuf, String)> {
        files
            .iter()
            .map(|file| {
                let old = self.lines.get(&file.path);
                let mut text = String::new();
                for name in &file.test_names {
                    let line = match file.written_from.get(name) {
                        Some(&i) => tests.get(i).and_then(|t| line_of(cluster, name, &t.case)),
                        None => old.and_then(|o| o.get(name)).cloned(),
                    };
                    if let Some(line) = line {
                        text.push_str(&line);
                        text.push('\n');
                    }
                }
                (cases_path(workspace_root, package, &file.path), text)
            })
            .collect()
    }
}

/// A test's line.
fn line_of(cluster: &Cluster, name: &str, case: &TestCase) -> Option<String> {
    let line = Line {
        test: name.to_string(),
        calls: case
            .stmts
            .iter()
            .map(|s| CallLine {
                callable: callable_key(cluster, s.callable),
                args: s.args.clone(),
            })
            .collect(),
        env: case.env.clone(),
    };
    serde_json::to_string(&line).ok()
}

/// The cases files as changes to commit with the test files ([`crate::commit`]): each file
/// whose text differs is written, an empty one is removed.
pub fn changes(files: &[(PathBuf, String)]) -> Changes {
    let mut out = Changes::default();
    for (path, text) in files {
        if text.is_empty() {
            if path.exists() {
                out.remove(path);
            }
        } else if std::fs::read_to_string(path).map_or(true, |old| old != *text) {
            out.write(path, text.as_str());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze;

    fn cluster_of(dir: &Path, lib: &str) -> Cluster {
        std::fs::create_dir_all(dir.join("src")).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"k\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        )
        .unwrap();
        std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
        analyze::analyze(&dir.join("src/lib.rs"), "k").unwrap()
    }

    fn id(cluster: &Cluster, name: &str) -> CallableId {
        cluster
            .callables
            .iter()
            .position(|c| c.name == name)
            .unwrap()
    }

    const LIB: &str = "pub struct Meter(pub u32);\n\
        impl Meter { pub fn new(v: u32) -> Meter { Meter(v) } pub fn add(&mut self, d: u32) -> u32 { self.0 += d; self.0 } }\n\
        pub fn double(x: i64) -> i64 { x * 2 }\n";

    #[test]
    fn keys_name_the_kind_the_path_and_the_signature() {
        let dir = tempfile::tempdir().unwrap();
        let c = cluster_of(dir.path(), LIB);
        assert_eq!(
            callable_key(&c, id(&c, "double")),
            "fn double(x: i64) -> i64"
        );
        assert_eq!(
            callable_key(&c, id(&c, "add")),
            "method Meter &mut self add(d: u32) -> u32"
        );
        assert_eq!(
            callable_key(&c, id(&c, "new")),
            "assoc Meter new(v: u32) -> Meter"
        );
    }

    fn file(path: &str, names: &[&str]) -> GeneratedFile {
        GeneratedFile {
            module: 0,
            path: PathBuf::from(path),
            contents: String::new(),
            test_names: names.iter().map(|n| n.to_string()).collect(),
            using_private: Vec::new(),
            using_mocks: Vec::new(),
            using_fakes: Vec::new(),
            unseen_fakes: Vec::new(),
            asserting_output: Vec::new(),
            written_from: names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.to_string(), i))
                .collect(),
        }
    }

    fn finished(case: TestCase) -> FinishedTest {
        FinishedTest {
            case,
            report: hermetic_protocol::ExecReport::empty(hermetic_protocol::Outcome::Completed),
            uses_private: false,
            uses_mocks: false,
            uses_fakes: false,
            unseen_fakes: Vec::new(),
            assertions: None,
        }
    }

    /// What one run writes, the next reads back; a test deleted from the file, one whose
    /// function went away, and one whose signature changed are not read back.
    #[test]
    fn cases_written_are_read_back_for_the_tests_still_there() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let c = cluster_of(root, LIB);
        let (new, add, double) = (id(&c, "new"), id(&c, "add"), id(&c, "double"));
        let meter = TestCase {
            home: 0,
            stmts: vec![
                Stmt {
                    callable: new,
                    args: vec![Value::Int(3)],
                },
                Stmt {
                    callable: add,
                    args: vec![Value::BorrowMut(0), Value::Int(4)],
                },
            ],
            env: EnvSpec {
                vars: vec![("HOME".into(), "/home/a".into())],
                ..EnvSpec::default()
            },
        };
        let doubled = TestCase {
            home: 0,
            stmts: vec![Stmt {
                callable: double,
                args: vec![Value::Int(-2)],
            }],
            env: EnvSpec::default(),
        };
        let tests = vec![finished(meter.clone()), finished(doubled.clone())];
        let names = ["add_returns_7", "double_returns_minus_4"];
        let written = Kept::default().files(
            &c,
            &[file("src/hermetic_tests.rs", &names)],
            &tests,
            root,
            "k",
        );
        assert_eq!(
            written[0].0,
            root.join(".hermetic/cases/k/src/hermetic_tests.rs.jsonl")
        );
        changes(&written).commit().unwrap();
        // Written once, a second time changes nothing; a file left without tests goes.
        assert_eq!(changes(&written), Changes::default());
        let mut emptied = Changes::default();
        emptied.remove(&written[0].0);
        assert_eq!(changes(&[(written[0].0.clone(), String::new())]), emptied);
        let test_file = |names: &[&str]| {
            let mut text = format!("// {GENERATED_MARKER}\nuse super::*;\n");
            for n in names {
                text += &format!("#[test]\nfn {n}() {{}}\n");
            }
            std::fs::write(root.join("src/hermetic_tests.rs"), text).unwrap();
        };
        test_file(&names);
        let read = load(&c, root, root, "k", |_| true);
        assert_eq!(read.cases, vec![meter.clone(), doubled]);
        // Written again from what was read, the file is the same.
        let again = read.files(&c, &[file("src/hermetic_tests.rs", &[])], &[], root, "k");
        assert_eq!(again[0].1, "");
        let mut kept_as_written = file("src/hermetic_tests.rs", &names);
        kept_as_written.written_from.clear();
        let again = read.files(&c, &[kept_as_written], &[], root, "k");
        assert_eq!(again, written);

        // Deleted from the file: not read back.
        test_file(&names[..1]);
        assert_eq!(load(&c, root, root, "k", |_| true).cases, vec![meter]);
        // Only the tests of what is selected.
        assert!(load(&c, root, root, "k", |f| f == double).cases.is_empty());
        // `add` takes an i64 now: a test of the old `add` is about code that went away.
        let changed = cluster_of(root, &LIB.replace("d: u32", "d: i64"));
        assert!(load(&changed, root, root, "k", |_| true).cases.is_empty());
    }
}
