//! The messages exchanged between the engine and the driver process.
//!
//! A test case travels as data: a list of statements, each naming a callable by index and
//! giving its arguments as [`Value`]s. The driver answers with an [`ExecReport`]. Messages are
//! JSON lines on a pipe; they are small, and JSON keeps them easy to debug.

use serde::{Deserialize, Serialize};

/// An argument as data. Crate types are never built from data: they come from the result of
/// an earlier statement, referred to by its index (`Use`, `Borrow`, `BorrowMut`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Value {
    Unit,
    Bool(bool),
    Int(i128),
    /// The bits of an `f64` (JSON has no NaN or infinities).
    Float(u64),
    Char(char),
    Str(String),
    /// `Vec<T>`, `&[T]` and arrays.
    Seq(Vec<Value>),
    Tuple(Vec<Value>),
    Opt(Option<Box<Value>>),
    Ok(Box<Value>),
    Err(Box<Value>),
    /// Move the value stored by statement `n` into this argument.
    Use(usize),
    /// Borrow the value stored by statement `n`.
    Borrow(usize),
    /// Borrow the value stored by statement `n` mutably.
    BorrowMut(usize),
}

impl Value {
    pub fn float(x: f64) -> Value {
        Value::Float(x.to_bits())
    }

    /// The statement whose stored result this value refers to, if it refers to one.
    pub fn referenced_slots(&self, out: &mut Vec<usize>) {
        match self {
            Value::Use(n) | Value::Borrow(n) | Value::BorrowMut(n) => out.push(*n),
            Value::Seq(items) | Value::Tuple(items) => {
                items.iter().for_each(|v| v.referenced_slots(out))
            }
            Value::Opt(Some(v)) | Value::Ok(v) | Value::Err(v) => v.referenced_slots(out),
            _ => {}
        }
    }
}

/// What the driver saw of a returned value, structured so that the engine can write it back
/// as a Rust expression.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Observed {
    Unit,
    Bool(bool),
    Int(i128),
    /// Unsigned values above `i128::MAX` do not fit `Int`.
    BigUint(u128),
    /// The bits of the value as an `f64`.
    Float(u64),
    Char(char),
    Str(String),
    Seq(Vec<Observed>),
    Tuple(Vec<Observed>),
    Opt(Option<Box<Observed>>),
    Ok(Box<Observed>),
    Err(Box<Observed>),
    /// A struct of the crate: its fields in declaration order (tuple structs use "0", "1", ..).
    Struct(Vec<(String, Observed)>),
    /// An enum variant of the crate and its fields, as for `Struct`.
    Variant(String, Vec<(String, Observed)>),
    /// Only the `Debug` text is known.
    Debug(String),
    /// Nothing can be said about the value.
    Opaque,
}

/// One statement of a test case.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Call {
    /// Index into the driver's dispatch table.
    pub callable: usize,
    pub args: Vec<Value>,
}

/// Engine → driver.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub enum Request {
    /// Run the calls in a fresh child process.
    Exec {
        calls: Vec<Call>,
        timeout_ms: u64,
    },
    Quit,
}

/// Driver → engine, first message after start-up.
#[derive(Serialize, Deserialize, Clone, Debug)]
pub struct Hello {
    /// Number of dispatch entries compiled into the driver.
    pub entries: usize,
    /// For each coverage counter, the address of its basic block relative to the load address
    /// of the executable (so the engine can find the function it belongs to).
    pub pcs: Vec<u64>,
}

/// How the execution ended.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Outcome {
    /// Every statement ran.
    Completed,
    /// Statement `stmt` panicked.
    Panicked { stmt: usize, message: String },
    /// An argument of statement `stmt` could not be built (e.g. it uses a moved value).
    Invalid { stmt: usize, message: String },
    /// The child died from a signal during statement `stmt` (abort, stack overflow, ...).
    Crashed {
        stmt: usize,
        signal: i32,
        stack_overflow: bool,
    },
    /// The child exited with a code during statement `stmt` (`std::process::exit`).
    Exited { stmt: usize, code: i32 },
    /// Statement `stmt` ran past the time limit.
    Timeout { stmt: usize },
}

/// What one statement produced.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct StmtReport {
    /// The returned value, if the type can be observed.
    pub returned: Option<Observed>,
    /// Whether the result (or the `Ok`/`Some` inside it) was stored for later statements.
    pub stored: bool,
}

/// Driver → engine, one per `Exec`.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ExecReport {
    pub outcome: Outcome,
    /// One entry per statement that returned.
    pub stmts: Vec<StmtReport>,
    /// Indices of the coverage counters that were hit.
    pub covered: Vec<u32>,
    /// Integer operands of comparisons seen while running the calls, each with the address
    /// (relative to the executable's load address) of the comparison.
    pub cmp_ints: Vec<(u64, u64)>,
    /// Byte strings compared with `memcmp`/`bcmp` while running the calls.
    pub cmp_bytes: Vec<Vec<u8>>,
}

/// Why an argument could not be built.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError(pub String);

impl DecodeError {
    pub fn new(msg: impl Into<String>) -> Self {
        DecodeError(msg.into())
    }
}

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
