//! The driver's part of the sandbox (`hermetic-sandbox` has the layers). The engine starts the
//! driver inside Landlock and, where the kernel allows, the namespaces; from inside, the server
//! adds the seccomp allow-list, whose refusals it answers and logs itself, and each child that
//! runs a test case narrows its signals to itself. Whatever process model runs the executions,
//! the set-up is these two calls: [`contain_server`] once, [`contain_child`] in every process
//! that runs code under test, before it does.

use hermetic_protocol::{Refusal, SANDBOX_WRITES_ENV};
use hermetic_sandbox::filter::{self, Policy, Profile};
use hermetic_sandbox::{processes, refusals, Log};

/// The server's sandbox: the shared log its children's refusals go to.
pub struct Sandbox {
    log: &'static Log,
    /// Whether the seccomp filter is installed.
    pub seccomp: bool,
}

/// Installs the handler that answers and logs refusals, the allow-list filter, and the
/// supervisor of process starts, for good, in the calling process and every child it forks.
/// The calling thread is the one whose forks go on. Never fails: without seccomp the result
/// says so, and the engine warns.
pub fn contain_server() -> Sandbox {
    let log = Log::shared().expect("hermetic driver: cannot map the refusal log");
    let writes = std::env::var_os(SANDBOX_WRITES_ENV).is_some();
    let seccomp = cfg!(target_arch = "x86_64")
        && refusals::install_handler(log).is_ok()
        && filter::no_new_privs()
        && filter::program(&Policy {
            profile: Profile::Server,
            writes,
        })
        .install(true)
        .ok()
        .flatten()
        .is_some_and(|listener| processes::supervise(listener, log).is_ok());
    if std::env::var_os("HERMETIC_DEBUG").is_some() {
        eprintln!("hermetic driver: seccomp {seccomp}, writes {writes}");
    }
    Sandbox { log, seccomp }
}

/// In a freshly forked child, before it runs code under test: it dies with the server, and
/// may signal only itself (not the server, its process group, or anyone else).
pub fn contain_child() {
    // SAFETY: prctl and getpid/getppid with no pointers.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
        if libc::getppid() == 1 {
            // The server died before the death signal was set.
            libc::_exit(0);
        }
        let _ = filter::own_signals(libc::getpid() as u32).install(false);
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

    /// Refusals since the last reset (with the statement each happened in), and their number
    /// (the described ones may be fewer).
    pub fn refusals(&self) -> (u32, Vec<Refusal>) {
        let described = self
            .log
            .refusals()
            .into_iter()
            .map(|r| Refusal {
                stmt: r.tag as usize,
                what: r.what,
            })
            .collect();
        (self.log.count(), described)
    }
}
