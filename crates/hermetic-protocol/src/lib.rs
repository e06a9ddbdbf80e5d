//! The messages exchanged between the engine (`cargo-hermetic`) and the driver process.
//!
//! Both sides depend on this crate and on nothing of each other: the engine never links the
//! driver or the `hermetic` runtime (whose interposed libc symbols would serve the engine's own
//! file and clock calls), and the driver knows nothing of the search.
//!
//! A test case travels as data: a list of statements, each naming a callable by index and
//! giving its arguments as [`Value`]s. The driver answers with an [`ExecReport`]. Messages are
//! JSON lines on a pipe; they are small, and JSON keeps them easy to debug.
//!
//! It also holds the few constants both sides share (the pipes' file descriptors, the driver's
//! environment variables), and depends on `serde` alone. `cargo-hermetic`'s `tests/linkage.rs`
//! checks that the CLI binary exports no interposed libc symbol.

use serde::{Deserialize, Serialize};

/// The environment variable the engine sets when it starts the driver.
pub const DRIVER_ENV: &str = "HERMETIC_DRIVER";
/// Set (to anything) by the engine to run every execution of a driver in one long-lived child,
/// so that the crate's statics carry over from one execution to the next, as between tests in
/// one `cargo test` process. Only for the benchmark that measures what fresh children are worth.
pub const SHARED_CHILD_ENV: &str = "HERMETIC_SHARED_CHILD";
/// The writable statics a reused child watches (`Request::Exec::reuse`), set by the engine:
/// `start+len` ranges in hexadecimal, relative to the executable's load address, separated by
/// commas. Unset: no execution runs in a reused child.
pub const WATCHED_STATICS_ENV: &str = "HERMETIC_WATCHED_STATICS";
/// The thread-locals a reused case thread watches, set by the engine with
/// [`WATCHED_STATICS_ENV`]: `start+len` ranges in hexadecimal, relative to the start of a
/// thread's block of the executable's thread-locals, separated by commas. Unset or unusable:
/// every execution runs on a fresh thread.
pub const WATCHED_THREAD_LOCALS_ENV: &str = "HERMETIC_WATCHED_THREAD_LOCALS";
/// Set (to anything) by the engine when the code under test may write files in its scratch
/// directory: it runs against the real environment (benchmarks only). Otherwise the runtime
/// serves every write, and a real one is refused.
pub const SANDBOX_WRITES_ENV: &str = "HERMETIC_SANDBOX_WRITES";
/// Set (to anything) in the engine's environment, for the sandbox benchmark only
/// (`bench/src/bin/sandbox_cost.rs`): drivers start without the sandbox's layers (no Landlock,
/// namespaces, seccomp filter or leftover checks), to measure what they cost. The driver
/// inherits it. Never for users: nothing contains the code under test then.
pub const BENCH_NO_SANDBOX_ENV: &str = "HERMETIC_BENCH_NO_SANDBOX";
/// The file descriptor the driver answers on.
pub const REPLY_FD: i32 = 3;
/// The file descriptor requests come on. Not standard input: std's stdin buffer is shared with
/// the code under test, which would read our requests from it.
pub const REQUEST_FD: i32 = 4;
/// The PC reported for a block LLVM could not give an address (its table entry holds 1).
pub const UNKNOWN_PC: u64 = u64::MAX;
/// How the message of a mock's panic starts when a test did not set up a call (the runtime's
/// `hermetic::mock::NOT_SET_UP`; the driver's tests check that the two agree).
pub const MOCK_NOT_SET_UP: &str = "hermetic mock:";
/// How the message of a fake's panic starts (the runtime's `hermetic::fakes::FAKE`; the
/// driver's tests check that the two agree).
pub const FAKE_PANIC: &str = "hermetic fake:";

/// An argument as data. Crate types are never built from data: they come from the result of
/// an earlier statement, referred to by its index (`Use`, `Borrow`, `BorrowMut`).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub enum Value {
    Unit,
    Bool(bool),
    Int(i128),
    /// A `u128` above `i128::MAX`, which `Int` cannot hold ([`Value::uint`] picks the variant).
    BigUint(u128),
    /// The bits of an `f64` (JSON has no NaN or infinities).
    Float(u64),
    Char(char),
    Str(String),
    /// `Vec<T>`, `&[T]` and arrays.
    Seq(Vec<Value>),
    /// A range: `start..end`, `start..=end` (`inclusive`), or a form with a bound left out
    /// (`a..`, `..b`, `..=b`, `..`) for `impl RangeBounds<T>` parameters.
    Range {
        start: Option<Box<Value>>,
        end: Option<Box<Value>>,
        inclusive: bool,
    },
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

    /// An unsigned integer: `Int` when it fits, `BigUint` above `i128::MAX`.
    pub fn uint(u: u128) -> Value {
        i128::try_from(u).map_or(Value::BigUint(u), Value::Int)
    }

    /// The statement whose stored result this value refers to, if it refers to one.
    pub fn referenced_slots(&self, out: &mut Vec<usize>) {
        match self {
            Value::Use(n) | Value::Borrow(n) | Value::BorrowMut(n) => out.push(*n),
            Value::Seq(items) | Value::Tuple(items) => {
                items.iter().for_each(|v| v.referenced_slots(out))
            }
            Value::Opt(Some(v)) | Value::Ok(v) | Value::Err(v) => v.referenced_slots(out),
            Value::Range { start, end, .. } => start
                .iter()
                .chain(end)
                .for_each(|v| v.referenced_slots(out)),
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
    /// A returned `Range` (`start..end`) or `RangeInclusive` (`start..=end`).
    Range(Box<Observed>, Box<Observed>, bool),
    /// A struct of the crate: its fields in declaration order (tuple structs use "0", "1", ..).
    Struct(Vec<(String, Observed)>),
    /// An enum variant of the crate and its fields, as for `Struct`.
    Variant(String, Vec<(String, Observed)>),
    /// Only the `Debug` text is known.
    Debug(String),
    /// A crate value known by its `Display` text, which parses back to an equal value
    /// (`cargo hermetic record` only: the driver never observes it).
    Shown(String),
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

/// The environment a test case runs in (a `hermetic::Env`). Empty means the runtime's
/// defaults: no files but the basics, no variables, empty stdin, a fixed date and seed.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EnvSpec {
    pub files: Vec<FileSpec>,
    pub dirs: Vec<String>,
    pub vars: Vec<(String, String)>,
    pub stdin: Option<Vec<u8>>,
    /// Seconds since the Unix epoch.
    pub now_secs: Option<u64>,
    pub seed: Option<u64>,
    /// Bytes the code's draws of randomness get first (`Env::random_bytes`); empty: none.
    #[serde(default)]
    pub random_bytes: Vec<u8>,
    /// std's `HashMap` keys (`Env::hash_keys`).
    #[serde(default)]
    pub hash_keys: Option<(u64, u64)>,
}

impl EnvSpec {
    pub fn is_empty(&self) -> bool {
        *self == EnvSpec::default()
    }
}

#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileSpec {
    pub path: String,
    pub contents: Vec<u8>,
    pub mode: FileMode,
}

#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileMode {
    Normal,
    ReadOnly,
    /// Exists, but reading it fails with `PermissionDenied`.
    Unreadable,
}

/// Engine → driver.
// A request lives only while it is written or read, one at a time: boxing the big variant
// would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Serialize, Deserialize, Clone, Debug)]
pub enum Request {
    /// Run the calls in a child process, inside the environment.
    Exec {
        calls: Vec<Call>,
        /// `None`: the real environment (for benchmarks that compare with it).
        env: Option<EnvSpec>,
        timeout_ms: u64,
        /// Which mutant of the selected code to switch on (`hermetic_driver::mutant`); 0: none.
        #[serde(default)]
        mutant: u32,
        /// Whether to report the mutation sites the calls reached.
        #[serde(default)]
        report_reached: bool,
        /// With a mutant switched on, the mutation sites the calls may evaluate before the
        /// execution is stopped as a hang (`Outcome::Timeout`); 0: no limit. A count, unlike
        /// the time limit, ends the same way on a busy machine as on an idle one.
        #[serde(default)]
        max_site_evaluations: u64,
        /// Run the calls once before, in the same process but in a bare environment, and report
        /// the second run: what then differs from a fresh run depends on statics an earlier
        /// call set (a `Once`, a cache, a counter), which another test of a suite may set first.
        #[serde(default)]
        warm_up: bool,
        /// May run in a child kept from earlier executions, as long as nothing they did can be
        /// seen (the driver's `server` replaces the child as soon as something could be); else
        /// in a fresh child. For the search's many executions, not for the reruns that decide
        /// what a test asserts.
        #[serde(default)]
        reuse: bool,
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
    /// Whether the seccomp allow-list contains the children (the other layers are the
    /// engine's, which started the driver inside them).
    pub seccomp: bool,
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

/// Driver → engine, one per `Exec`, in two lines: this report as the driver saw the
/// execution end (what only it knows: the counters hit, the refusals; a crash, a time-out or
/// an exit when the child did not finish the case), then the child's own report as the child
/// wrote it (`null` when there is none). The second is the code under test's memory, so data
/// to check: the engine decodes it and, when it is a report, keeps it with the first's
/// counters and refusals ([`ExecReport::completed_by`]); otherwise the first stands. The
/// driver forwards the child's bytes without decoding them.
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
    /// The operands of the `memcmp`/`bcmp` calls made while running the calls (at most 64
    /// bytes each), a pair after the other: `[a0, b0, a1, b1, ..]`, distinct pairs.
    pub cmp_bytes: Vec<Vec<u8>>,
    /// Per comparison site (relative address, sorted), the smallest distance between its
    /// operands in this execution; 0 when they were equal.
    #[serde(default)]
    pub cmp_closest: Vec<(u64, u64)>,
    /// The latest distinct integer comparisons, in the order last made (the latest last):
    /// `(address, operand, other operand)`, the operand the code read first (a constant, or
    /// a `match` arm's value, second).
    #[serde(default)]
    pub cmp_last: Vec<(u64, u64, u64)>,
    /// What the calls did to their environment.
    #[serde(default)]
    pub env: EnvReport,
    /// System calls the sandbox refused: attempts the runtime did not see (raw system calls,
    /// C code, or anything with the real environment).
    #[serde(default)]
    pub sandbox_blocked: u32,
    /// The first of those, described.
    #[serde(default)]
    pub refusals: Vec<Refusal>,
    /// How often each mock method was called.
    #[serde(default)]
    pub mock_calls: Vec<MockCalls>,
    /// What the isolated calls of each callee got: fakes, or the real callee's answers.
    #[serde(default)]
    pub fake_calls: Vec<FakeCalls>,
    /// The mutation sites the calls reached, by their first mutant id (when asked for).
    #[serde(default)]
    pub reached_mutants: Vec<u32>,
    /// How many times the calls evaluated a mutation site (the mutants' driver only).
    #[serde(default)]
    pub site_evaluations: u64,
    /// The final state of the results later calls borrowed mutably (a `&mut` argument, a
    /// `&mut self` receiver), observed after the last statement of a completed run, by
    /// statement.
    #[serde(default)]
    pub finals: Vec<(usize, Observed)>,
}

impl ExecReport {
    /// The report a child wrote, with what the driver saw (`head`, the first line): the
    /// counters hit and the sandbox's refusals.
    pub fn completed_by(mut self, head: ExecReport) -> Self {
        self.covered = head.covered;
        self.sandbox_blocked = head.sandbox_blocked;
        self.refusals = head.refusals;
        self
    }

    /// A report of `outcome` that observed nothing: the base that stopped runs and tests
    /// fill in.
    pub fn empty(outcome: Outcome) -> Self {
        ExecReport {
            outcome,
            stmts: Vec::new(),
            covered: Vec::new(),
            cmp_ints: Vec::new(),
            cmp_bytes: Vec::new(),
            cmp_closest: Vec::new(),
            cmp_last: Vec::new(),
            env: EnvReport::default(),
            sandbox_blocked: 0,
            refusals: Vec::new(),
            mock_calls: Vec::new(),
            fake_calls: Vec::new(),
            reached_mutants: Vec::new(),
            site_evaluations: 0,
            finals: Vec::new(),
        }
    }
}

/// The isolated calls of one callee in one execution (`#[hermetic::isolate]`).
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct FakeCalls {
    /// The `Fake` callable that sets the callee up.
    pub callable: usize,
    /// Calls its test's fake answered, and what it returned (the first few).
    pub faked: u32,
    pub fake_values: Vec<Observed>,
    /// Calls the real callee answered, and the distinct values it returned (the first few).
    pub real: u32,
    pub real_values: Vec<Observed>,
    /// Whether a real call touched the environment (a callee that never does is pure as far
    /// as the run shows: its test could steer it through its own inputs).
    #[serde(default)]
    pub touched: bool,
    /// Whether a call found the fake set up but out of values (the test then panics).
    pub ran_out: bool,
}

/// A system call the sandbox refused.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    /// The statement that was running.
    pub stmt: usize,
    /// What the code tried, in words (`kill of its parent (signal 9)`, `openat for writing
    /// /home/me/notes`, `a 32-bit system call (int 0x80), number 2`).
    pub what: String,
}

/// The calls of one method of one mock.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct MockCalls {
    /// The statement that built the mock.
    pub stmt: usize,
    /// The method, by its index among the mock's configured methods.
    pub method: usize,
    pub calls: u32,
}

/// What the code touched in its environment, and what it left there.
#[derive(Serialize, Deserialize, Clone, Debug, Default, PartialEq)]
pub struct EnvReport {
    pub accesses: Vec<AccessReport>,
    /// Files the code wrote or removed, with their contents at the end (`None`: gone, or not
    /// a regular file).
    pub files: Vec<(String, Option<Vec<u8>>)>,
    /// Directories the code created, there at the end (not in `files`).
    #[serde(default)]
    pub dirs: Vec<String>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

/// One access, as `hermetic::Access` reports it.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum AccessReport {
    PathOpened {
        path: String,
        found: bool,
    },
    PathChecked {
        path: String,
        found: bool,
    },
    PathWritten {
        path: String,
    },
    PathRemoved {
        path: String,
    },
    VarRead {
        name: String,
        set: bool,
    },
    VarWritten {
        name: String,
    },
    StdinRead,
    StdoutWritten,
    StderrWritten,
    ClockRead,
    RandomRead,
    NetworkAttempt {
        what: String,
        target: String,
    },
    ProcessAttempt {
        what: String,
        program: String,
    },
    HostQueried {
        what: String,
    },
    /// Served by the environment without real effect: `sleep`, `thread`, `chdir`, `umask`.
    Served {
        what: String,
    },
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
