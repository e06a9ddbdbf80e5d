//! Starting a program contained: the engine starts the driver and, in verification, the test
//! binaries through [`Sandbox::apply`]. Between `fork` and `exec` the child takes its own
//! process group (so a timeout can kill everything it is), limits its memory and core dumps,
//! offers itself to the OOM killer first, enters the namespaces and Landlock, and, for test
//! binaries, installs the seccomp filter and starts the binary itself (the filter lets exactly
//! that `execve` through). The driver installs its own filter once running, since it answers
//! refusals itself ([`crate::refusals`], [`crate::supervisor`]); until then it runs under
//! [`filter::floor`].

use crate::filter::{self, Policy, Profile, Program};
use crate::landlock::Ruleset;
use crate::namespaces::{Entered, Plan};
use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Command;

/// What the started process may do.
#[derive(Debug, Clone)]
pub struct Sandbox {
    /// The only directories it may write to (they must exist).
    pub writable: Vec<PathBuf>,
    /// Its address-space limit in bytes (`None`: none), which turns a memory flood into a
    /// failed allocation in that process rather than the machine's OOM killer at work.
    pub memory: Option<u64>,
    /// Enter the namespaces where the kernel allows.
    pub namespaces: bool,
    /// Enforce Landlock where the kernel has it.
    pub landlock: bool,
    /// Install the test binaries' filter ([`Profile::Tests`]) before it starts.
    pub filter: bool,
}

/// The layers a started process runs under.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Layers {
    /// Landlock (file writes, TCP, and with ABI 6 signals and abstract sockets).
    pub landlock: bool,
    /// The read-only mount namespace.
    pub read_only: bool,
    /// The empty network namespace.
    pub no_network: bool,
    /// The seccomp filter, installed by the launcher (test binaries) or the driver itself.
    pub seccomp: bool,
}

/// Set up on a command by [`Sandbox::apply`]: after `spawn`, [`Pending::layers`] says what
/// the child entered.
pub struct Pending {
    status: OwnedFd,
}

/// The default memory limit: enough for any unit test, far from what the machine has.
pub const DEFAULT_MEMORY: u64 = 4 << 30;

impl Sandbox {
    /// Sets `cmd` up to start contained (its program and arguments must be set already; a
    /// test binary's program must be a path). Call [`Pending::layers`] after spawning it.
    pub fn apply(&self, cmd: &mut Command) -> std::io::Result<Pending> {
        let writable: Vec<&std::path::Path> = self.writable.iter().map(PathBuf::as_path).collect();
        let ruleset = self.landlock.then(|| Ruleset::new(&writable));
        let plan = self.namespaces.then(|| Plan::new(&writable));
        let memory = self.memory;
        let (status_read, status_write) = pipe()?;
        // A test binary is started by the launcher itself, by the one `execve` its filter
        // allows: the address of this very path.
        let exec = if self.filter {
            let path = CString::new(cmd.get_program().as_bytes())?;
            let mut argv: Vec<CString> = vec![path.clone()];
            for a in cmd.get_args() {
                argv.push(CString::new(a.as_bytes())?);
            }
            let program = filter::program(&Policy {
                profile: Profile::Tests {
                    exec_path: path.as_ptr() as u64,
                },
                writes: false,
                thread_start: None,
            });
            Some(Exec::new(path, argv, environment(cmd)?, program))
        } else {
            None
        };
        let mut exec = exec;
        // Without a filter of its own from the start (the driver installs one once running),
        // the floor keeps what runs before that in the process group.
        let floor = (!self.filter).then(filter::floor);
        cmd.process_group(0);
        // SAFETY: the hook makes only system calls, on data prepared above.
        unsafe {
            cmd.pre_exec(move || {
                limit(libc::RLIMIT_CORE, 0);
                if let Some(bytes) = memory {
                    limit(libc::RLIMIT_AS, bytes);
                }
                prefer_for_oom_killer();
                let entered = plan.as_ref().map(Plan::enter).unwrap_or_default();
                let landlock =
                    filter::no_new_privs() && ruleset.as_ref().is_some_and(Ruleset::enforce);
                if let Some(floor) = &floor {
                    if landlock || filter::no_new_privs() {
                        let _ = floor.install(false);
                    }
                }
                let seccomp = exec.is_some();
                let status = entered.bits() | (landlock as u8) << 2 | (seccomp as u8) << 3;
                libc::write(status_write.as_raw_fd(), [status].as_ptr().cast(), 1);
                match exec.as_mut() {
                    Some(e) => Err(e.run()),
                    None => Ok(()),
                }
            });
        }
        Ok(Pending {
            status: status_read,
        })
    }
}

impl Pending {
    /// The layers the child entered (after a successful `spawn`).
    pub fn layers(self) -> Layers {
        let mut b = [0u8; 1];
        // SAFETY: reading one byte from our own pipe; the child wrote it before `exec`, and
        // its end closed on `exec`, so this does not block.
        let n = unsafe { libc::read(self.status.as_raw_fd(), b.as_mut_ptr().cast(), 1) };
        if n != 1 {
            return Layers::default();
        }
        let entered = Entered::from_bits(b[0]);
        Layers {
            landlock: b[0] & 4 != 0,
            read_only: entered.read_only,
            no_network: entered.no_network,
            seccomp: b[0] & 8 != 0,
        }
    }
}

/// The environment `cmd` gives its program: ours with its changes (`env_clear` is not seen).
fn environment(cmd: &Command) -> std::io::Result<Vec<CString>> {
    let mut vars: std::collections::BTreeMap<std::ffi::OsString, std::ffi::OsString> =
        std::env::vars_os().collect();
    for (k, v) in cmd.get_envs() {
        match v {
            Some(v) => vars.insert(k.to_owned(), v.to_owned()),
            None => vars.remove(k),
        };
    }
    vars.into_iter()
        .map(|(k, v)| {
            let mut kv = k.into_vec();
            kv.push(b'=');
            kv.extend(v.into_vec());
            Ok(CString::new(kv)?)
        })
        .collect()
}

/// NUL-terminated pointers to the strings (which must outlive them).
fn pointers(strings: &[CString]) -> Vec<*const libc::c_char> {
    let mut p: Vec<*const libc::c_char> = strings.iter().map(|a| a.as_ptr()).collect();
    p.push(std::ptr::null());
    p
}

/// The test binary's own start: its filter, then `execve` of exactly `path`.
struct Exec {
    path: CString,
    _strings: [Vec<CString>; 2],
    argv: Vec<*const libc::c_char>,
    envp: Vec<*const libc::c_char>,
    program: Program,
}

// SAFETY: the pointers point into `_strings`, owned alongside them and never changed.
unsafe impl Send for Exec {}
// SAFETY: as for `Send`: nothing writes through the pointers.
unsafe impl Sync for Exec {}

impl Exec {
    fn new(path: CString, argv: Vec<CString>, envp: Vec<CString>, program: Program) -> Exec {
        Exec {
            path,
            argv: pointers(&argv),
            envp: pointers(&envp),
            _strings: [argv, envp],
            program,
        }
    }

    /// Installs the filter and starts the binary; returns only on failure.
    fn run(&mut self) -> std::io::Error {
        // SAFETY: getpid has no preconditions.
        self.program.set_pid(unsafe { libc::getpid() } as u32);
        if let Err(e) = self.program.install(false) {
            return e;
        }
        // SAFETY: NUL-terminated path, argv and envp.
        unsafe { libc::execve(self.path.as_ptr(), self.argv.as_ptr(), self.envp.as_ptr()) };
        std::io::Error::last_os_error()
    }
}

fn pipe() -> std::io::Result<(OwnedFd, OwnedFd)> {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the array on success; each end is owned from here on.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok((OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])))
    }
}

fn limit(resource: libc::__rlimit_resource_t, bytes: u64) {
    let r = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    };
    // SAFETY: a valid rlimit for this process.
    unsafe { libc::setrlimit(resource, &r) };
}

/// Asks the OOM killer to take this process (and what it starts) before anything else.
fn prefer_for_oom_killer() {
    // SAFETY: open/write/close of a /proc file with a constant path and contents.
    unsafe {
        let fd = libc::open(
            c"/proc/self/oom_score_adj".as_ptr(),
            libc::O_WRONLY | libc::O_CLOEXEC,
        );
        if fd >= 0 {
            libc::write(fd, b"1000".as_ptr().cast(), 4);
            libc::close(fd);
        }
    }
}
