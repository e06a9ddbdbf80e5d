//! The driver's part of the sandbox (`hermetic-sandbox` has the layers). The engine starts the
//! driver inside Landlock and, where the kernel allows, the namespaces; from inside, the server
//! adds the seccomp allow-list, whose refusals it answers and logs itself, and each child that
//! runs a test case narrows its signals to itself. Whatever process model runs the executions,
//! the set-up is these two calls: [`contain_server`] once, [`contain_child`] in every process
//! that runs code under test, before it does.

use hermetic_protocol::{Refusal, SANDBOX_WRITES_ENV};
use hermetic_sandbox::filter::{self, Policy, Profile};
use hermetic_sandbox::{supervisor, Log};

/// Marks a log tag as the drop of a statement's value ([`Sandbox::dropping`]).
const DROPPING: u32 = 1 << 31;

/// The server's sandbox: the shared log its children's refusals go to.
pub struct Sandbox {
    log: &'static Log,
    /// Whether the seccomp filter is installed.
    pub seccomp: bool,
}

/// Installs the allow-list filter and its supervisor, which answers and logs refusals, for
/// good, in the calling process and every child it forks. The calling thread is the one whose
/// forks and signals go through. Never fails: without seccomp the result says so, and the
/// engine warns.
pub fn contain_server() -> Sandbox {
    let log = Log::new().expect("hermetic driver: cannot map the refusal log");
    let writes = std::env::var_os(SANDBOX_WRITES_ENV).is_some();
    // Learnt before the filter, which refuses `seccomp` (the probe installs one of its own).
    let thread_start = if enabled() {
        supervisor::glibc_thread_start()
    } else {
        None
    };
    let seccomp = enabled()
        && cfg!(target_arch = "x86_64")
        && filter::no_new_privs()
        && supervisor::start(
            || {
                let program = filter::program(&Policy {
                    profile: Profile::Server,
                    writes,
                    thread_start,
                });
                program
                    .install(true)?
                    .ok_or(std::io::ErrorKind::Unsupported.into())
            },
            log,
        )
        .is_ok();
    if std::env::var_os("HERMETIC_DEBUG").is_some() {
        eprintln!("hermetic driver: seccomp {seccomp}, writes {writes}, {thread_start:x?}");
    }
    Sandbox { log, seccomp }
}

/// False only in the sandbox benchmark's runs without the sandbox
/// ([`hermetic_protocol::BENCH_NO_SANDBOX_ENV`]).
pub fn enabled() -> bool {
    static ENABLED: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ENABLED.get_or_init(|| std::env::var_os(hermetic_protocol::BENCH_NO_SANDBOX_ENV).is_none())
}

/// In a freshly forked child, before it runs code under test: it keeps none of the server's
/// descriptors but those it was given (not the engine's pipes, not the supervisor's
/// listener, with which it could answer its own refusals).
pub fn contain_child() {
    supervisor::forget_in_child();
    for fd in [hermetic_protocol::REPLY_FD, hermetic_protocol::REQUEST_FD] {
        // SAFETY: closing this process's copies of the server's descriptors.
        unsafe { libc::close(fd) };
    }
}

impl Sandbox {
    /// Forgets the refusals of the last execution.
    pub fn reset(&self) {
        self.log.reset();
    }

    /// The statement now running: refusals from here on are its.
    pub fn running(&self, stmt: usize) {
        self.log.set_tag(stmt as u32);
    }

    /// The value statement `stmt` returned is being dropped at the end of the case: refusals
    /// from here on are its `Drop`'s, named as such with that statement.
    pub fn dropping(&self, stmt: usize) {
        self.log.set_tag(stmt as u32 | DROPPING);
    }

    /// The number of refusals since the last reset.
    pub fn count(&self) -> u32 {
        self.log.count()
    }

    /// Refusals since the last reset (with the statement each happened in), and their number
    /// (the described ones may be fewer).
    pub fn refusals(&self) -> (u32, Vec<Refusal>) {
        let described = self
            .log
            .refusals()
            .into_iter()
            .map(|r| Refusal {
                stmt: (r.tag & !DROPPING) as usize,
                what: if r.tag & DROPPING != 0 {
                    format!("{} (dropping the value it returned)", r.what)
                } else {
                    r.what
                },
            })
            .collect();
        (self.log.count(), described)
    }
}
