//! A test case as the search builds it: a home module and a straight-line list of calls.

use crate::cluster::{CallableId, ModuleId};
use hermetic_protocol::Value;
use hermetic_protocol::{Call, EnvSpec, ExecReport};
use std::collections::BTreeSet;

/// One execution to run: the calls of a test case and its environment.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecRequest {
    pub calls: Vec<Call>,
    pub env: EnvSpec,
    /// Run the calls once before in a bare environment, in the same process
    /// (`hermetic_protocol::Request::Exec`): the report shows what a test gets when another
    /// test of the suite has set the code's statics first.
    pub warm_up: bool,
    /// May run in a child reused from earlier executions (`hermetic_protocol::Request::Exec`):
    /// the search's own executions, whose reports are the same either way; never the reruns
    /// that decide what a test asserts.
    pub reuse: bool,
}

/// A candidate unit test. Statement `i`'s result is referred to by later arguments as
/// `Value::Use(i)`, `Value::Borrow(i)` or `Value::BorrowMut(i)`; for a method, `args[0]` is the
/// receiver. Every callable used is visible from `home`, the module the test will live in.
#[derive(Debug, Clone, PartialEq)]
pub struct TestCase {
    pub home: ModuleId,
    pub stmts: Vec<Stmt>,
    /// The environment the calls run in (files, variables, stdin, clock, seed).
    pub env: EnvSpec,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Stmt {
    pub callable: CallableId,
    pub args: Vec<Value>,
}

#[cfg(test)]
impl TestCase {
    /// A test of one call, of callable 0 with `args`, in module 0 (for unit tests of edits).
    pub fn one_call(args: Vec<Value>) -> TestCase {
        TestCase {
            home: 0,
            stmts: vec![Stmt { callable: 0, args }],
            env: Default::default(),
        }
    }
}

impl TestCase {
    /// The statements as the driver receives them.
    pub fn calls(&self) -> Vec<Call> {
        self.stmts
            .iter()
            .map(|s| Call {
                callable: s.callable,
                args: s.args.clone(),
            })
            .collect()
    }

    /// What the driver needs to run the test.
    pub fn request(&self) -> ExecRequest {
        ExecRequest {
            calls: self.calls(),
            env: self.env.clone(),
            warm_up: false,
            reuse: false,
        }
    }

    /// As [`TestCase::request`], in a reused child where the driver can keep one.
    pub fn search_request(&self) -> ExecRequest {
        ExecRequest {
            reuse: true,
            ..self.request()
        }
    }

    /// The test run after its calls ran once in a bare environment (`ExecRequest::warm_up`).
    pub fn warm_request(&self) -> ExecRequest {
        ExecRequest {
            warm_up: true,
            ..self.request()
        }
    }
}

impl Stmt {
    /// The statements whose results this one uses.
    pub fn uses(&self) -> Vec<usize> {
        let mut out = Vec::new();
        for a in &self.args {
            a.referenced_slots(&mut out);
        }
        out
    }
}

/// A test the search keeps, with what its last execution showed.
#[derive(Debug, Clone, PartialEq)]
pub struct FinishedTest {
    pub case: TestCase,
    pub report: ExecReport,
    /// Whether the test calls an item that is not public API (seed 003: private access only as
    /// a last resort).
    pub uses_private: bool,
    /// Whether the test builds a mock (seed 003: mocks only as a last resort).
    pub uses_mocks: bool,
    /// Whether the test sets up fakes of isolated calls (seed 000: a last resort after mocks).
    pub uses_fakes: bool,
    /// The values its fakes returned that the real callee never returned in the run's other
    /// executions (seed 000's false behaviour): the `Fake` callable and the value's index.
    pub unseen_fakes: Vec<(CallableId, usize)>,
    /// The assertions to write, chosen by the mutants they kill; `None`: every one the
    /// observations allow.
    pub assertions: Option<BTreeSet<Assertion>>,
}

/// An assertion a test can make about what its execution showed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Assertion {
    /// The value statement `i` returned.
    Result(usize),
    /// The value statement `i` returned, as the later calls that borrowed it mutably left it
    /// (a `&mut` argument, a `&mut self` receiver).
    Final(usize),
    /// What the code left in the file at this path.
    File(String),
    /// What the code wrote to fd 1.
    Stdout,
    /// What the code wrote to fd 2.
    Stderr,
}
