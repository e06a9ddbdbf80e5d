//! Recorded proxies → mocks: what the proxies of a call's trait-typed arguments logged becomes
//! mock statements set up with what each method returned, in order (seed 002 §III-F7: the
//! children of a node are built first, then the node with its methods' return values).
//!
//! A method that returned a box of another trait gave out a proxy of its own: its mock is
//! built first and set up as that method's value (a connection's statement, a statement's rows).

use super::debug_text::{self, Why};
use super::log::{CallRecord, ProxyEvent};
use super::values::Builder;
use crate::cluster::{CallableKind, TraitId, Ty};
use crate::test_case::Stmt;
use hermetic_driver::Value;
use std::collections::BTreeMap;

/// What one proxied method call gave back.
enum Returned<'a> {
    Text(Option<&'a str>),
    Child(u32),
    Open,
}

/// A call's proxies: the node of each argument, and each node's method calls in order.
pub struct Tree<'a> {
    roots: BTreeMap<usize, u32>,
    calls: BTreeMap<u32, Vec<(usize, Returned<'a>)>>,
}

impl<'a> Tree<'a> {
    pub fn of(rec: &'a CallRecord) -> Tree<'a> {
        let mut tree = Tree {
            roots: BTreeMap::new(),
            calls: BTreeMap::new(),
        };
        for e in &rec.proxies {
            let (node, method, returned) = match e {
                ProxyEvent::Arg { node, arg } => {
                    tree.roots.insert(*arg, *node);
                    continue;
                }
                ProxyEvent::Ret { node, method, text } => {
                    (node, method, Returned::Text(text.as_deref()))
                }
                ProxyEvent::Box {
                    node,
                    method,
                    child,
                } => (node, method, Returned::Child(*child)),
                ProxyEvent::Open { node, method } => (node, method, Returned::Open),
            };
            tree.calls
                .entry(*node)
                .or_default()
                .push((*method, returned));
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
        if let Some((k, _)) = calls.iter().find(|(k, _)| *k >= methods.len()) {
            return Err(format!(
                "the log names method #{k} of `{}`, which has {}",
                cluster.traits[t].name,
                methods.len()
            ));
        }
        let mut args = Vec::new();
        for (k, (owner, m)) in methods.iter().enumerate() {
            let what = format!("`{}::{}`", cluster.traits[*owner].name, m.name);
            let mut values = Vec::new();
            for (_, returned) in calls.iter().filter(|(j, _)| *j == k) {
                values.push(match (returned, &m.ret) {
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
                });
            }
            args.push(Value::Seq(values));
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze;

    fn cluster(lib: &str) -> crate::cluster::Cluster {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("src")).unwrap();
        std::fs::write(d.path().join("src/lib.rs"), lib).unwrap();
        analyze::analyze(&d.path().join("src/lib.rs"), "demo").unwrap()
    }

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
}
