//! Recorded proxies → mocks: what the proxies of a call's trait-typed arguments logged becomes
//! mock statements set up with what each method returned, in order (seed 002 §III-F7: the
//! children of a node are built first, then the node with its methods' return values).
//!
//! A method that returned a box of another trait gave out a proxy of its own: its mock is
//! built first and set up as that method's value (a connection's statement, a statement's rows).
//!
//! A method that takes arguments is set up by them where it can be (`mock_syntax::by_args`):
//! its calls grouped by their arguments' `Debug` text, in the order each was first passed, with
//! the values each group's calls returned (`get(1)` → "ada", `get(2)` → "engineer"). That holds
//! even when every call passed the same arguments: the test then shows, and checks, what the
//! code asked for. A method whose arguments were not logged or cannot be read back keeps one
//! sequence of values for all its calls.

use super::debug_text::{self, Why};
use super::log::{CallRecord, ProxyEvent};
use super::values::Builder;
use crate::cluster::{CallableKind, MockMethod, TraitId, Ty};
use crate::mock_syntax;
use crate::test_case::Stmt;
use hermetic_protocol::Value;
use std::collections::BTreeMap;

/// What one proxied method call gave back.
enum Returned<'a> {
    Text(Option<&'a str>),
    Child(u32),
    Open,
}

/// One call of a proxy's method: which method, its arguments' `Debug` text when they were
/// logged, and what it gave back.
struct MethodCall<'a> {
    method: usize,
    args: Option<&'a [Option<String>]>,
    returned: Returned<'a>,
}

/// A call's proxies: the node of each argument, and each node's method calls in order.
pub struct Tree<'a> {
    roots: BTreeMap<usize, u32>,
    calls: BTreeMap<u32, Vec<MethodCall<'a>>>,
}

/// Calls of one method with the same arguments: their text (the key), the arguments read back
/// (from the first such call), and what each call returned, in order.
struct Group {
    key: String,
    args: Vec<Value>,
    values: Vec<Value>,
}

impl<'a> Tree<'a> {
    pub fn of(rec: &'a CallRecord) -> Tree<'a> {
        let mut tree = Tree {
            roots: BTreeMap::new(),
            calls: BTreeMap::new(),
        };
        for e in &rec.proxies {
            let (node, method, args, returned) = match e {
                ProxyEvent::Arg { node, arg } => {
                    tree.roots.insert(*arg, *node);
                    continue;
                }
                ProxyEvent::Ret {
                    node,
                    method,
                    args,
                    text,
                } => (node, method, args, Returned::Text(text.as_deref())),
                ProxyEvent::Box {
                    node,
                    method,
                    args,
                    child,
                } => (node, method, args, Returned::Child(*child)),
                ProxyEvent::Open { node, method } => (node, method, &None, Returned::Open),
            };
            tree.calls.entry(*node).or_default().push(MethodCall {
                method: *method,
                args: args.as_deref(),
                returned,
            });
        }
        tree
    }

    /// The proxy of argument `arg` (the receiver counts), if it had one.
    pub fn root(&self, arg: usize) -> Option<u32> {
        self.roots.get(&arg).copied()
    }

    /// Adds the statements that build the mock of trait `t` replaying node `node` (and the
    /// mocks its methods returned); returns the index of the mock's statement.
    pub fn build(&self, b: &mut Builder, node: u32, t: TraitId) -> Result<usize, Why> {
        let cluster = b.cluster;
        let methods = cluster.mock_methods(t);
        let calls = self.calls.get(&node).map(Vec::as_slice).unwrap_or_default();
        if let Some(c) = calls.iter().find(|c| c.method >= methods.len()) {
            return Err(format!(
                "the log names method #{} of `{}`, which has {}",
                c.method,
                cluster.traits[t].name,
                methods.len()
            ));
        }
        let mut args = Vec::new();
        for (k, (owner, m)) in methods.iter().enumerate() {
            let what = format!("`{}::{}`", cluster.traits[*owner].name, m.name);
            let of_method: Vec<&MethodCall> = calls.iter().filter(|c| c.method == k).collect();
            let keys = groups(b, m, &of_method);
            let mut values = Vec::new();
            for c in &of_method {
                values.push(self.returned(b, &c.returned, &m.ret, &what)?);
            }
            args.push(match keys {
                Some((mut groups, of_call)) => {
                    for (v, g) in values.into_iter().zip(of_call) {
                        groups[g].values.push(v);
                    }
                    let groups = groups.into_iter().map(|g| (g.args, g.values)).collect();
                    mock_syntax::values_by_args(groups)
                }
                None => Value::Seq(values),
            });
        }
        let ctor = cluster
            .callables
            .iter()
            .position(|c| c.kind == CallableKind::Mock(t))
            .ok_or_else(|| format!("`{}` has no mock", cluster.traits[t].name))?;
        b.stmts.push(Stmt {
            callable: ctor,
            args,
        });
        Ok(b.stmts.len() - 1)
    }

    /// The value a proxied method call gave back, `what` naming the method.
    fn returned(
        &self,
        b: &mut Builder,
        returned: &Returned,
        ret: &Ty,
        what: &str,
    ) -> Result<Value, Why> {
        Ok(match (returned, ret) {
            (Returned::Open, _) => {
                return Err(format!(
                    "{what} did not return (it panicked): a mock cannot replay that"
                ))
            }
            (Returned::Text(None), _) => {
                return Err(format!("{what} returned a value without Debug (opaque)"))
            }
            (Returned::Text(Some(text)), ret) => {
                let e = debug_text::parse(text).map_err(|w| format!("{what}: {w}"))?;
                b.value(&e, ret).map_err(|w| format!("{what}: {w}"))?
            }
            (Returned::Child(child), Ty::Box(inner)) => match **inner {
                Ty::Mock(u) => Value::Use(self.build(b, *child, u)?),
                _ => return Err(format!("{what} returned a box the log calls a proxy")),
            },
            (Returned::Child(_), _) => {
                return Err(format!("{what} returned a box the log calls a proxy"))
            }
        })
    }
}

/// The calls of method `m` grouped by their arguments, in the order each list of arguments was
/// first passed, with the group of each call; `None` when the mock cannot be set up by
/// arguments: the method has none or cannot ([`mock_syntax::by_args`]), or a call's arguments
/// were not logged, had no `Debug`, or cannot be read back (then no statement is left behind).
fn groups(
    b: &mut Builder,
    m: &MockMethod,
    calls: &[&MethodCall],
) -> Option<(Vec<Group>, Vec<usize>)> {
    if calls.is_empty() || !mock_syntax::by_args(b.cluster, m) {
        return None;
    }
    let mark = b.stmts.len();
    let grouped = group_calls(b, m, calls);
    if grouped.is_none() {
        b.stmts.truncate(mark);
    }
    grouped
}

fn group_calls(
    b: &mut Builder,
    m: &MockMethod,
    calls: &[&MethodCall],
) -> Option<(Vec<Group>, Vec<usize>)> {
    let mut groups: Vec<Group> = Vec::new();
    let mut of_call = Vec::new();
    for c in calls {
        let texts = c.args.filter(|a| a.len() == m.params.len())?;
        let texts: Vec<&str> = texts.iter().map(Option::as_deref).collect::<Option<_>>()?;
        // The runtime's key: the arguments' `Debug` text as a call writes them.
        let key = texts.join(", ");
        if let Some(g) = groups.iter().position(|g| g.key == key) {
            of_call.push(g);
            continue;
        }
        of_call.push(groups.len());
        groups.push(Group {
            key,
            args: read_args(b, m, &texts)?,
            values: Vec::new(),
        });
    }
    Some((groups, of_call))
}

/// The arguments of one call, read back from their `Debug` text by the parameters' types.
fn read_args(b: &mut Builder, m: &MockMethod, texts: &[&str]) -> Option<Vec<Value>> {
    texts
        .iter()
        .zip(&m.params)
        .map(|(text, ty)| {
            let e = debug_text::parse(text).ok()?;
            b.value(&e, ty).ok()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze_lib as cluster;

    fn record(proxies: &str) -> CallRecord {
        let line = format!("{{\"site\":0,\"args\":[null],\"proxies\":[{proxies}],\"events\":[]}}");
        serde_json::from_str(&line).unwrap()
    }

    const DAO: &str = "
        pub trait Connection { fn prepare(&self, sql: &str) -> Box<dyn Rows>; }
        pub trait Rows { fn next(&mut self) -> bool; fn get(&self, c: usize) -> String; }
        pub fn first(c: &dyn Connection) -> Option<String> { let mut r = c.prepare(\"q\"); r.next().then(|| r.get(1)) }
    ";

    #[test]
    fn a_tree_of_proxies_becomes_mocks_built_leaves_first() {
        let c = cluster(DAO);
        let rec = record(concat!(
            "{\"k\":\"arg\",\"node\":0,\"arg\":0},",
            "{\"k\":\"box\",\"node\":0,\"method\":0,\"child\":1},",
            "{\"k\":\"ret\",\"node\":1,\"method\":0,\"text\":\"true\"},",
            "{\"k\":\"ret\",\"node\":1,\"method\":1,\"text\":\"\\\"Ada\\\"\"},",
            "{\"k\":\"ret\",\"node\":1,\"method\":0,\"text\":\"false\"}"
        ));
        let tree = Tree::of(&rec);
        let mut b = Builder {
            cluster: &c,
            learnt: &Default::default(),
            stmts: Vec::new(),
        };
        let root = tree.root(0).unwrap();
        let j = tree.build(&mut b, root, 0).unwrap();
        assert_eq!(j, 1);
        let mock = |t| {
            c.callables
                .iter()
                .position(|k| k.kind == CallableKind::Mock(t))
        };
        assert_eq!(b.stmts[0].callable, mock(1).unwrap());
        assert_eq!(
            b.stmts[0].args,
            vec![
                Value::Seq(vec![Value::Bool(true), Value::Bool(false)]),
                Value::Seq(vec![Value::Str("Ada".into())]),
            ]
        );
        assert_eq!(b.stmts[1].args, vec![Value::Seq(vec![Value::Use(0)])]);
    }

    #[test]
    fn a_method_that_panicked_or_has_no_debug_cannot_be_replayed() {
        let c = cluster(DAO);
        let mut b = Builder {
            cluster: &c,
            learnt: &Default::default(),
            stmts: Vec::new(),
        };
        let open = record(concat!(
            "{\"k\":\"arg\",\"node\":0,\"arg\":0},",
            "{\"k\":\"open\",\"node\":0,\"method\":0}"
        ));
        let why = Tree::of(&open).build(&mut b, 0, 0).unwrap_err();
        assert!(
            why.contains("`Connection::prepare` did not return"),
            "{why}"
        );
        let opaque = record("{\"k\":\"ret\",\"node\":3,\"method\":1,\"text\":null}");
        let why = Tree::of(&opaque).build(&mut b, 3, 1).unwrap_err();
        assert!(
            why.contains("`Rows::get` returned a value without Debug"),
            "{why}"
        );
    }

    /// Rows whose `get` logged its column, and a journal whose `note` takes a crate type.
    const KEYED: &str = "
        #[derive(Debug, Clone, PartialEq)] pub struct Person { pub name: String }
        pub trait Rows { fn next(&mut self) -> bool; fn get(&self, c: usize) -> String; }
        pub trait Journal { fn note(&self, who: &Person, asker: String) -> u32; }
        pub fn first(r: &mut dyn Rows) -> Option<String> { r.next().then(|| r.get(1)) }
        pub fn noted(j: &dyn Journal, p: &Person) -> u32 { j.note(p, String::new()) }
    ";

    fn mock_of(c: &crate::cluster::Cluster, name: &str) -> usize {
        c.callables
            .iter()
            .position(|k| matches!(k.kind, CallableKind::Mock(t) if c.traits[t].name == name))
            .unwrap()
    }

    #[test]
    fn calls_are_grouped_by_their_arguments_in_the_order_first_passed() {
        let c = cluster(KEYED);
        let rec = record(concat!(
            "{\"k\":\"arg\",\"node\":0,\"arg\":0},",
            "{\"k\":\"ret\",\"node\":0,\"method\":0,\"text\":\"true\"},",
            "{\"k\":\"ret\",\"node\":0,\"method\":1,\"args\":[\"2\"],\"text\":\"\\\"x\\\"\"},",
            "{\"k\":\"ret\",\"node\":0,\"method\":1,\"args\":[\"1\"],\"text\":\"\\\"Ada\\\"\"},",
            "{\"k\":\"ret\",\"node\":0,\"method\":1,\"args\":[\"2\"],\"text\":\"\\\"y\\\"\"}"
        ));
        let mut b = Builder {
            cluster: &c,
            learnt: &Default::default(),
            stmts: Vec::new(),
        };
        let rows = c.traits.iter().position(|t| t.name == "Rows").unwrap();
        let j = Tree::of(&rec).build(&mut b, 0, rows).unwrap();
        assert_eq!(b.stmts[j].callable, mock_of(&c, "Rows"));
        let str = |s: &str| Value::Str(s.into());
        assert_eq!(
            b.stmts[j].args,
            vec![
                // `next` takes no arguments: one sequence.
                Value::Seq(vec![Value::Bool(true)]),
                mock_syntax::values_by_args(vec![
                    (vec![Value::Int(2)], vec![str("x"), str("y")]),
                    (vec![Value::Int(1)], vec![str("Ada")]),
                ]),
            ]
        );
        let groups = mock_syntax::groups_by_args(&b.stmts[j].args[1]).unwrap();
        assert_eq!(groups[1], (&[Value::Int(1)][..], &[str("Ada")][..]));
        assert_eq!(mock_syntax::groups_by_args(&b.stmts[j].args[0]), None);
    }

    #[test]
    fn arguments_of_a_crate_type_are_built_once_per_group_or_the_method_keeps_a_sequence() {
        let c = cluster(KEYED);
        let journal = c.traits.iter().position(|t| t.name == "Journal").unwrap();
        let note = |args: &str| {
            format!("{{\"k\":\"ret\",\"node\":0,\"method\":0,\"args\":{args},\"text\":\"7\"}}")
        };
        let ada = "[\"Person { name: \\\"ada\\\" }\",\"\\\"me\\\"\"]";
        let rec = record(&[note(ada), note(ada)].join(","));
        let mut b = Builder {
            cluster: &c,
            learnt: &Default::default(),
            stmts: Vec::new(),
        };
        let j = Tree::of(&rec).build(&mut b, 0, journal).unwrap();
        // One `Person` for both calls, borrowed by the set-up.
        assert_eq!(j, 1);
        assert_eq!(
            b.stmts[1].args,
            vec![mock_syntax::values_by_args(vec![(
                vec![Value::Borrow(0), Value::Str("me".into())],
                vec![Value::Int(7), Value::Int(7)],
            )])]
        );
        // A call whose arguments had no `Debug`, or cannot be read back, leaves a sequence and
        // no statement behind.
        for args in [
            "[\"Person { name: \\\"ada\\\" }\",null]",
            "[\"Person(1)\",\"\\\"me\\\"\"]",
        ] {
            let rec = record(&[note(ada), note(args)].join(","));
            let mut b = Builder {
                cluster: &c,
                learnt: &Default::default(),
                stmts: Vec::new(),
            };
            let j = Tree::of(&rec).build(&mut b, 0, journal).unwrap();
            assert_eq!(j, 0, "{args}");
            assert_eq!(
                b.stmts[0].args,
                vec![Value::Seq(vec![Value::Int(7), Value::Int(7)])]
            );
        }
    }
}
