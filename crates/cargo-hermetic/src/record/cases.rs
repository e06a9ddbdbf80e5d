//! Recorded calls → the emitter's tests: the call with its recorded arguments (crate values
//! built by literals first), inside an environment that replays what the call read, with the
//! recorded result and the files it wrote as what the test checks.
//!
//! Which calls become tests is chosen per function ([`choose`], called from `record/mod.rs`): one
//! per behaviour, at most eight, then other calls up to four.

use super::debug_text::{self, Why};
use super::learnt::Learnt;
use super::log::{CallRecord, Event, PathState};
use super::mocks::Tree;
use super::random;
use super::values::{Builder, STD_TRAIT};
use crate::cluster::{CallableId, CallableKind, Cluster, Receiver, Ty};
use crate::test_case::{FinishedTest, Stmt, TestCase};
use hermetic_protocol::{
    AccessReport, EnvReport, EnvSpec, ExecReport, FileMode, FileSpec, Outcome, StmtReport,
};
use hermetic_protocol::{Observed, Value};
use std::collections::{BTreeMap, BTreeSet};
use syn::Expr;

/// A recorded call that can become a test.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub callable: CallableId,
    pub test: FinishedTest,
    /// What the call showed, coarsely: `Ok`, `Err/NotFound`, `Some`, `value`, `panic`; tests are
    /// chosen to show different behaviours first.
    pub behaviour: String,
    /// Equal for calls that would give the same test.
    pub key: String,
    /// Part of what the call read that the test does not replay, said for when it fails.
    pub unreplayed: Option<String>,
}

/// The test for one recorded call, or why there is none. `no_proxy`: why a trait-typed
/// parameter of the function got no recording proxy, if one did not.
pub fn candidate(
    cluster: &Cluster,
    learnt: &Learnt,
    rec: &CallRecord,
    no_proxy: Option<&str>,
) -> Result<Candidate, Why> {
    let c = cluster
        .callables
        .get(rec.site)
        .ok_or_else(|| format!("the log names an unknown function #{}", rec.site))?;
    if rec.overflow {
        return Err("it read more than record mode keeps (100,000 reads or 256 MiB)".into());
    }
    let receiver = match &c.kind {
        CallableKind::Method {
            self_ty, receiver, ..
        } => Some((self_ty, *receiver)),
        CallableKind::Function | CallableKind::AssocFn { .. } => None,
        _ => return Err("not a function".into()),
    };
    if c.params.iter().any(|p| {
        p.ty.mentions(&|t| matches!(t, Ty::Reader | Ty::IntoIter(_)))
    }) {
        return Err(STD_TRAIT.into());
    }
    let expected = c.params.len() + usize::from(receiver.is_some());
    if rec.args.len() != expected {
        return Err(format!(
            "{} arguments recorded, {} expected",
            rec.args.len(),
            expected
        ));
    }
    let mut b = Builder {
        cluster,
        learnt,
        stmts: Vec::new(),
    };
    let mut args = Vec::new();
    let mut texts = rec.args.iter();
    // The `Display` text of values whose `Debug` cannot be read back (see `wrapper::Shown`).
    let shown = |i: usize| {
        rec.shown
            .iter()
            .find(|(at, _)| *at == i)
            .map(|(_, t)| t.as_str())
    };
    if let Some((self_ty, kind)) = receiver {
        let debug = texts.next().and_then(Option::as_deref);
        let j = match (shown(0), debug) {
            (Some(text), _) => b.parse(text, self_ty),
            (None, Some(text)) => b.build(&debug_text::parse(text)?, self_ty),
            (None, None) => return Err("the receiver has no Debug (opaque value)".into()),
        }
        .map_err(|w| format!("receiver: {w}"))?;
        args.push(match kind {
            Receiver::Ref => Value::Borrow(j),
            Receiver::RefMut => Value::BorrowMut(j),
            Receiver::Value => Value::Use(j),
        });
    }
    let proxies = Tree::of(rec);
    let mut uses_mocks = false;
    for (i, (p, text)) in c.params.iter().zip(texts).enumerate() {
        if let Some((t, pass)) = mocked(&p.ty) {
            // What the argument's proxy logged becomes a mock of the trait.
            let arg = i + usize::from(receiver.is_some());
            let root = proxies.root(arg).ok_or_else(|| {
                format!(
                    "needs a mock: {}",
                    no_proxy.unwrap_or("a trait-typed argument without a recording proxy")
                )
            })?;
            let j = proxies
                .build(&mut b, root, t)
                .map_err(|w| format!("argument `{}`: {w}", p.name))?;
            args.push(pass(j));
            uses_mocks = true;
            continue;
        }
        if p.ty.mentions(&|t| matches!(t, Ty::Mock(_))) {
            return Err(format!(
                "needs a mock: {}",
                no_proxy.unwrap_or("a trait-typed value inside another type")
            ));
        }
        let arg = i + usize::from(receiver.is_some());
        let v = match (shown(arg), text.as_deref()) {
            (Some(text), _) => b.parsed(text, &p.ty),
            (None, Some(text)) => b.value(&debug_text::parse(text)?, &p.ty),
            (None, None) => {
                return Err(format!("argument `{}` has no Debug (opaque value)", p.name))
            }
        }
        .map_err(|w| format!("argument `{}`: {w}", p.name))?;
        args.push(v);
    }
    let target = b.stmts.len();
    b.stmts.push(Stmt {
        callable: rec.site,
        args,
    });
    let (outcome, returned, behaviour) = match (&rec.panic, &rec.ret) {
        (Some(msg), _) => (
            Outcome::Panicked {
                stmt: target,
                message: msg.clone(),
            },
            None,
            "panic".to_string(),
        ),
        (None, Some(text)) => {
            // A result that cannot be read back (a hand-written Debug, a map) is checked
            // against the value its Display text parses to, when it round-trips, or else by
            // its Debug text as a whole.
            let expr = debug_text::parse(text).ok();
            let obs = match &rec.ret_shown {
                Some(shown) => shown_result(&c.ret, shown),
                None => expr
                    .as_ref()
                    .and_then(|e| debug_text::observed(cluster, learnt, e, &c.ret).ok())
                    .unwrap_or_else(|| Observed::Debug(text.clone())),
            };
            let behaviour = expr.as_ref().map_or_else(|| "value".into(), behaviour);
            (Outcome::Completed, Some(obs), behaviour)
        }
        (None, None) if c.ret == Ty::Unit => {
            (Outcome::Completed, Some(Observed::Unit), "value".into())
        }
        // No Debug at all, but a Display text that parses back.
        (None, None) if rec.ret_shown.is_some() => (
            Outcome::Completed,
            rec.ret_shown.as_deref().map(|s| shown_result(&c.ret, s)),
            "value".into(),
        ),
        (None, None) => return Err("its result has no Debug (opaque value)".into()),
    };
    let (spec, env) = environment(&rec.events);
    let mut stmts: Vec<StmtReport> = (0..target)
        .map(|_| StmtReport {
            returned: None,
            stored: true,
        })
        .collect();
    if matches!(outcome, Outcome::Completed) {
        stmts.push(StmtReport {
            returned,
            stored: false,
        });
    }
    let key = format!(
        "{:?}|{:?}|{:?}|{:?}|{:?}|{:?}|{:?}",
        rec.args, rec.shown, rec.ret, rec.ret_shown, rec.panic, spec, rec.proxies
    );
    Ok(Candidate {
        callable: rec.site,
        test: FinishedTest {
            case: TestCase {
                home: c.module,
                stmts: b.stmts,
                env: spec,
            },
            report: ExecReport {
                stmts,
                env,
                ..ExecReport::empty(outcome)
            },
            uses_private: false,
            uses_mocks,
            uses_fakes: false,
            unseen_fakes: Vec::new(),
            assertions: None,
        },
        behaviour,
        key,
        unreplayed: random::drawn(&rec.events).unreplayed(),
    })
}

/// How the mock built by statement `j` is passed: `&mock`, `&mut mock`, `Box::new(mock)` or
/// `mock`.
type Pass = fn(usize) -> Value;

/// The trait of a parameter a mock stands for, and how the mock is passed.
fn mocked(ty: &Ty) -> Option<(usize, Pass)> {
    match ty {
        Ty::Mock(t) => Some((*t, Value::Use)),
        Ty::Ref(inner) | Ty::RefMut(inner) | Ty::Box(inner) => match **inner {
            Ty::Mock(t) => Some((
                t,
                match ty {
                    Ty::Ref(_) => Value::Borrow,
                    Ty::RefMut(_) => Value::BorrowMut,
                    _ => Value::Use,
                },
            )),
            _ => None,
        },
        _ => None,
    }
}

/// A result known by the `Display` text of its value, or of what its `Ok` or `Some` holds
/// (`wrapper::Shown`: the probe logs that text only when the result is one).
fn shown_result(ty: &Ty, text: &str) -> Observed {
    let shown = Observed::Shown(text.to_string());
    match ty {
        Ty::Result(..) => Observed::Ok(Box::new(shown)),
        Ty::Option(_) => Observed::Opt(Some(Box::new(shown))),
        _ => shown,
    }
}

/// `Ok`, `Err/Parse`, `Some`, `None`, a variant's name, or `value`.
fn behaviour(e: &Expr) -> String {
    let Ok(name) = debug_text::head(e) else {
        return "value".into();
    };
    if let Ok((_, args)) = debug_text::ctor(e) {
        if let Some(inner) = args.first().and_then(|a| debug_text::head(a).ok()) {
            return format!("{name}/{inner}");
        }
    }
    name
}

/// The environment that replays what a call read, and what it left (the files it wrote).
pub fn environment(events: &[Event]) -> (EnvSpec, EnvReport) {
    let mut spec = EnvSpec::default();
    let mut report = EnvReport::default();
    let mut seen = BTreeSet::new();
    let mut written: BTreeMap<String, Option<Vec<u8>>> = BTreeMap::new();
    let mut vars_seen = BTreeSet::new();
    let mut dirs = BTreeSet::new();
    let mut accesses = BTreeSet::new();
    for e in events {
        match e {
            Event::Path { path, state, data } => {
                accesses.insert(AccessReport::PathOpened {
                    path: path.clone(),
                    found: *state != PathState::Missing,
                });
                if written.contains_key(path) || !seen.insert(path.clone()) {
                    // Read after the call wrote it, or seen before: the first state counts.
                    continue;
                }
                match state {
                    PathState::File => spec.files.push(FileSpec {
                        path: path.clone(),
                        contents: data.as_ref().map(|d| d.to_vec()).unwrap_or_default(),
                        mode: FileMode::Normal,
                    }),
                    PathState::Dir if !matches!(path.as_str(), "" | "." | "/") => {
                        dirs.insert(path.clone());
                    }
                    _ => {}
                }
            }
            Event::Wrote { path, state, data } => {
                accesses.insert(AccessReport::PathWritten { path: path.clone() });
                if let Some(parent) = std::path::Path::new(path).parent() {
                    let p = parent.to_string_lossy().into_owned();
                    if !matches!(p.as_str(), "" | "." | "/") {
                        dirs.insert(p);
                    }
                }
                // Checked afterwards: a file's contents, or that it is gone; nothing is said
                // of a directory or of a file too big to log.
                match state {
                    PathState::File => {
                        written.insert(path.clone(), data.as_ref().map(|d| d.to_vec()));
                    }
                    PathState::Missing => {
                        written.insert(path.clone(), None);
                    }
                    PathState::Dir | PathState::Other => {
                        written.remove(path);
                        seen.insert(path.clone());
                    }
                }
            }
            Event::Var { name, value } => {
                accesses.insert(AccessReport::VarRead {
                    name: name.clone(),
                    set: value.is_some(),
                });
                if vars_seen.insert(name.clone()) {
                    if let Some(v) = value {
                        spec.vars.push((name.clone(), v.clone()));
                    }
                }
            }
            Event::Stdin { data } => {
                accesses.insert(AccessReport::StdinRead);
                spec.stdin
                    .get_or_insert_with(Vec::new)
                    .extend(data.to_vec());
            }
            Event::Now { secs } => {
                accesses.insert(AccessReport::ClockRead);
                spec.now_secs.get_or_insert(*secs);
            }
            Event::Random { .. } | Event::HashKeys { .. } => {
                accesses.insert(AccessReport::RandomRead);
            }
        }
    }
    random::drawn(events).replay_in(&mut spec);
    spec.dirs = dirs.into_iter().collect();
    report.accesses = accesses.into_iter().collect();
    report.files = written.into_iter().collect();
    (spec, report)
}

/// Which calls of one function become tests, given each call's `(behaviour, key)`: one per
/// behaviour, in the order they were seen (at most `behaviours`), then other distinct calls
/// while there are fewer than `fill`. Returns indices into `calls`.
pub fn choose(calls: &[(&str, &str)], behaviours: usize, fill: usize) -> Vec<usize> {
    let mut chosen = Vec::new();
    let mut seen = BTreeSet::new();
    let mut keys = BTreeSet::new();
    for (i, (behaviour, key)) in calls.iter().enumerate() {
        if chosen.len() < behaviours && seen.insert(behaviour) && keys.insert(key) {
            chosen.push(i);
        }
    }
    for (i, (_, key)) in calls.iter().enumerate() {
        if chosen.len() < fill && keys.insert(key) {
            chosen.push(i);
        }
    }
    chosen.sort_unstable();
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_behaviour_gets_a_test_then_other_calls_fill_up_to_a_few() {
        let calls = [
            ("Some/Add", "a1"),
            ("Some/Add", "a2"),
            ("Some/Roll", "r1"),
            ("Some/Add", "a3"),
            ("None", "n"),
        ];
        // Three behaviours, then one more call to reach four.
        assert_eq!(choose(&calls, 8, 4), vec![0, 1, 2, 4]);
        // More behaviours than `fill`: each still gets its test, nothing else does.
        let many: Vec<(String, String)> =
            (0..6).map(|i| (format!("b{i}"), format!("k{i}"))).collect();
        let many: Vec<(&str, &str)> = many.iter().map(|(b, k)| (b.as_str(), k.as_str())).collect();
        assert_eq!(choose(&many, 8, 4), vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(choose(&many, 5, 4), vec![0, 1, 2, 3, 4]);
        // The same call twice is one test.
        assert_eq!(choose(&[("Ok", "k"), ("Ok", "k")], 8, 4), vec![0]);
    }
    use crate::record::log::Bytes;

    #[test]
    fn the_environment_replays_reads_and_checks_writes() {
        let events = vec![
            Event::Path {
                path: "stock.csv".into(),
                state: PathState::File,
                data: Some(Bytes::Text("a,1\n".into())),
            },
            Event::Var {
                name: "LOW".into(),
                value: Some("3".into()),
            },
            Event::Var {
                name: "LOW".into(),
                value: Some("4".into()),
            },
            Event::Var {
                name: "UNSET".into(),
                value: None,
            },
            Event::Now {
                secs: 1_700_000_000,
            },
            Event::Now {
                secs: 1_700_000_001,
            },
            Event::Wrote {
                path: "out/report.txt".into(),
                state: PathState::File,
                data: Some(Bytes::Text("ok".into())),
            },
            Event::Path {
                path: "out/report.txt".into(),
                state: PathState::File,
                data: Some(Bytes::Text("ok".into())),
            },
        ];
        let (spec, report) = environment(&events);
        assert_eq!(spec.files.len(), 1);
        assert_eq!(spec.files[0].path, "stock.csv");
        assert_eq!(spec.vars, vec![("LOW".to_string(), "3".to_string())]);
        assert_eq!(spec.now_secs, Some(1_700_000_000));
        assert_eq!(spec.dirs, vec!["out".to_string()]);
        assert_eq!(
            report.files,
            vec![("out/report.txt".to_string(), Some(b"ok".to_vec()))]
        );
    }

    /// Recorded calls of a crate with a trait in one module and its impls in another, emitted.
    fn emitted(records: impl Fn(&Cluster) -> Vec<String>) -> BTreeMap<String, String> {
        emitted_from(
            &[
                ("lib.rs", "pub mod a;\npub mod b;\n"),
                (
                    "a.rs",
                    "pub trait Tariff { fn rate(&self) -> u32; }\n\
                 pub fn fee(t: &dyn Tariff, x: u32) -> u32 { x * t.rate() }\n",
                ),
                (
                    "b.rs",
                    "#[derive(Debug)] pub struct Flat;\n\
                 impl crate::a::Tariff for Flat { fn rate(&self) -> u32 { 10 } }\n\
                 #[derive(Debug)] pub struct Twice;\n\
                 impl Twice { pub fn rate(&self) -> u32 { 2 } }\n\
                 impl crate::a::Tariff for Twice { fn rate(&self) -> u32 { 20 } }\n",
                ),
            ],
            records,
        )
    }

    /// Recorded calls of the crate of `files` (in `src/`), emitted.
    fn emitted_from(
        files: &[(&str, &str)],
        records: impl Fn(&Cluster) -> Vec<String>,
    ) -> BTreeMap<String, String> {
        let d = tempfile::tempdir().unwrap();
        let src = d.path().join("src");
        std::fs::create_dir_all(&src).unwrap();
        std::fs::write(d.path().join("Cargo.toml"), "[package]\nname = \"demo\"\n").unwrap();
        for (file, text) in files {
            std::fs::write(src.join(file), text).unwrap();
        }
        let options = crate::analyze::Options::record();
        let cluster = crate::analyze::analyze_with(&src.join("lib.rs"), "demo", options).unwrap();
        let tests: Vec<FinishedTest> = records(&cluster)
            .iter()
            .map(|line| {
                let rec: CallRecord = serde_json::from_str(line).unwrap();
                candidate(&cluster, &Learnt::default(), &rec, None)
                    .unwrap()
                    .test
            })
            .collect();
        crate::emit::emit(
            &cluster,
            &tests,
            crate::emit::Suite::Recorded,
            "cargo hermetic record",
        )
        .into_iter()
        .map(|f| (f.path.display().to_string(), f.contents))
        .collect()
    }

    fn site(cluster: &Cluster, name: &str, of_trait: bool, mocked: bool) -> usize {
        cluster
            .callables
            .iter()
            .position(|c| {
                let trait_method = matches!(
                    c.kind,
                    CallableKind::Method {
                        of_trait: Some(_),
                        ..
                    }
                );
                let takes_mock = c
                    .params
                    .iter()
                    .any(|p| p.ty.mentions(&|t| matches!(t, Ty::Mock(_))));
                c.name == name && trait_method == of_trait && takes_mock == mocked
            })
            .unwrap()
    }

    #[test]
    fn recorded_mocks_and_trait_methods_are_emitted() {
        let files = emitted(|c| {
            let fee = site(c, "fee", false, true);
            let rate = |ty: &str| {
                c.callables
                    .iter()
                    .position(|k| {
                        k.name == "rate"
                            && matches!(&k.kind, CallableKind::Method { self_ty: Ty::Adt(id, _), of_trait: Some(_), .. }
                                if c.types[*id].name == ty)
                    })
                    .unwrap()
            };
            vec![
                format!(
                    "{{\"site\":{fee},\"args\":[null,\"3\"],\"ret\":\"30\",\"proxies\":[\
                     {{\"k\":\"arg\",\"node\":0,\"arg\":0}},\
                     {{\"k\":\"ret\",\"node\":0,\"method\":0,\"text\":\"10\"}}],\"events\":[]}}"
                ),
                format!(
                    "{{\"site\":{},\"args\":[\"Flat\"],\"ret\":\"10\",\"events\":[]}}",
                    rate("Flat")
                ),
                format!(
                    "{{\"site\":{},\"args\":[\"Twice\"],\"ret\":\"20\",\"events\":[]}}",
                    rate("Twice")
                ),
            ]
        });
        let a = &files["src/a/hermetic_recorded.rs"];
        assert!(a.contains("pub(crate) fn recorded() -> Self"), "{a}");
        assert!(
            a.contains("let tariff = MockTariff::recorded().rate_returns([10]);"),
            "{a}"
        );
        assert!(a.contains("assert_eq!(fee(&tariff, 3), 30);"), "{a}");
        // The impls name the trait by its path: the tests import it; a method an inherent one
        // shares its name with is called by the trait's path.
        let b = &files["src/b/hermetic_recorded.rs"];
        assert!(b.contains("use super::*;\nuse crate::a::Tariff;\n"), "{b}");
        assert!(b.contains("assert_eq!(flat.rate(), 10);"), "{b}");
        assert!(
            b.contains("assert_eq!(crate::a::Tariff::rate(&twice), 20);"),
            "{b}"
        );
    }

    #[test]
    fn values_with_a_hand_written_debug_are_rebuilt_from_their_display_text() {
        let lib = "use std::fmt;\n\
                   #[derive(Clone, PartialEq)] pub struct Version { pub major: u64, pub minor: u64 }\n\
                   impl fmt::Debug for Version { fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, \"v{}\", self) } }\n\
                   impl fmt::Display for Version { fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result { write!(f, \"{}.{}\", self.major, self.minor) } }\n\
                   impl std::str::FromStr for Version { type Err = String; fn from_str(s: &str) -> Result<Self, String> { Err(s.into()) } }\n\
                   impl Version { pub fn bump(&self, by: u64) -> Version { self.clone() } }\n\
                   pub fn newer(a: &Version, b: Version) -> bool { a.major > b.major }\n";
        let files = emitted_from(&[("lib.rs", lib)], |c| {
            let bump = site(c, "bump", false, false);
            let newer = site(c, "newer", false, false);
            vec![
                format!(
                    "{{\"site\":{bump},\"args\":[\"v1.2\",\"1\"],\"shown\":[[0,\"1.2\"]],\"ret\":\"v2.0\",\"ret_shown\":\"2.0\",\"events\":[]}}"
                ),
                format!(
                    "{{\"site\":{newer},\"args\":[\"v1.2\",\"v0.9\"],\"shown\":[[0,\"1.2\"],[1,\"0.9\"]],\"ret\":\"true\",\"events\":[]}}"
                ),
            ]
        });
        let text = &files["src/hermetic_recorded.rs"];
        let flat: String = text.split_whitespace().collect();
        for expected in [
            "letversion=\"1.2\".parse::<Version>().unwrap();",
            "assert_eq!(version.bump(1),\"2.0\".parse::<Version>().unwrap());",
            "letversion_2=\"0.9\".parse::<Version>().unwrap();",
            "assert!(newer(&version,version_2));",
        ] {
            assert!(flat.contains(expected), "no {expected}:\n{text}");
        }
    }

    #[test]
    fn recorded_mocks_are_set_up_by_arguments_where_the_parameters_allow() {
        let lib = "#[derive(Debug, Clone, PartialEq)] pub struct Person { pub name: String }\n\
                   pub trait Rows {\n\
                       fn get(&self, column: usize) -> String;\n\
                       fn raw(&self, key: &[u8], who: &Person, note: String, name: &str) -> Option<u8>;\n\
                       fn fill(&mut self, into: &mut Vec<u8>) -> usize;\n\
                       fn next(&mut self) -> bool;\n\
                       fn close(&mut self, values: u8);\n\
                   }\n\
                   pub fn read(r: &mut dyn Rows) -> String { r.get(1) }\n";
        let files = emitted_from(&[("lib.rs", lib)], |c| {
            let read = site(c, "read", false, true);
            let ret = |method: usize, args: &str, text: &str| {
                format!(
                    "{{\"k\":\"ret\",\"node\":0,\"method\":{method},\"args\":{args},\"text\":{text:?}}}"
                )
            };
            let proxies = [
                "{\"k\":\"arg\",\"node\":0,\"arg\":0}".to_string(),
                ret(0, "[\"1\"]", "\"ada\""),
                ret(0, "[\"2\"]", "\"engineer\""),
                ret(
                    1,
                    r#"["[1, 2]","Person { name: \"ada\" }","\"n\"","\"x\""]"#,
                    "Some(3)",
                ),
                // `fill` takes a `&mut`: no arguments logged, one sequence.
                "{\"k\":\"ret\",\"node\":0,\"method\":2,\"text\":\"4\"}".to_string(),
                "{\"k\":\"ret\",\"node\":0,\"method\":3,\"text\":\"true\"}".to_string(),
            ];
            vec![format!(
                "{{\"site\":{read},\"args\":[null],\"ret\":\"\\\"ada\\\"\",\"proxies\":[{}],\"events\":[]}}",
                proxies.join(",")
            )]
        });
        let text = &files["src/hermetic_recorded.rs"];
        let flat: String = text.split_whitespace().collect();
        for expected in [
            // The set-up: by arguments where the method takes any it can be given.
            "letperson=Person{name:\"ada\".to_string(),};",
            "letmutrows=MockRows::recorded().get_returns_for(1,[\"ada\".to_string()]).get_returns_for(2,[\"engineer\".to_string()]).raw_returns_for(&[1,2],&person,\"n\".to_string(),\"x\",[Some(3)]).fill_returns([4]).next_returns([true]);",
            "assert_eq!(read(&mutrows),\"ada\");",
            // The mock: the trait's parameter types and names, values after them.
            "pub(crate)fnget_returns_for(mutself,column:usize,values:implIntoIterator<Item=String>,)->Self{self.get.set_for(&[&column],values);self}",
            "pub(crate)fnraw_returns_for(mutself,key:&[u8],who:&Person,note:String,name:&str,values:implIntoIterator<Item=Option<u8>>,)->Self{self.raw.set_for(&[&key,&who,&note,&name],values);self}",
            "fnget(&self,column:usize)->String{self.get.next_for(&[&column],\"Rows::get\")}",
            "fnfill(&mutself,_:&mutVec<u8>)->usize{self.fill.next(\"Rows::fill\")}",
            // Methods that return nothing are not counted, whatever they take.
            "fnclose(&mutself,_:u8){}",
        ] {
            assert!(flat.contains(expected), "no {expected}:\n{text}");
        }
        for absent in ["fill_returns_for", "next_returns_for", "close_returns"] {
            assert!(!flat.contains(absent), "{absent}:\n{text}");
        }
    }
}
