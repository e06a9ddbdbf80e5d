//! hermetic: a virtual environment for deterministic tests, at the libc boundary.
//!
//! A test builds an [`Env`] — files, variables, standard input, the time, a random seed —
//! and [`enter`](Env::enter)s it. Until the returned [`EnvGuard`] is dropped, everything the
//! code under test does on that thread (and on threads it spawns) through the C library is
//! served from that environment instead of the machine: `std::fs`, `std::env::var`,
//! `SystemTime::now`, `Instant::now`, `HashMap`'s random keys, `rand::rng()`, stdin/stdout,
//! `TcpStream::connect`, `Command::spawn`, `available_parallelism`, `process::id`.
//! Nothing reaches the real disk, network or process table, and every run sees the same
//! world. Afterwards the guard tells what the code wrote and what it touched.
//!
//! ```
//! use hermetic::{Access, Env};
//! use std::time::{Duration, SystemTime, UNIX_EPOCH};
//!
//! // The code under test: reads its config, writes a report with a timestamp.
//! fn run() -> std::io::Result<u16> {
//!     let home = std::env::var("APP_HOME").map_err(std::io::Error::other)?;
//!     let conf = std::fs::read_to_string(format!("{home}/app.conf"))?;
//!     let port: u16 = conf.trim().trim_start_matches("port = ").parse().unwrap();
//!     let secs = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_secs();
//!     std::fs::create_dir_all("data")?;
//!     std::fs::write("data/out.txt", format!("{port} at {secs}\n"))?;
//!     println!("done");
//!     Ok(port)
//! }
//!
//! let env = Env::new()
//!     .file("/etc/app/app.conf", "port = 8080\n")
//!     .var("APP_HOME", "/etc/app")
//!     .now(UNIX_EPOCH + Duration::from_secs(1_700_000_000))
//!     .cwd("/srv/app")
//!     .enter();
//! assert_eq!(run().unwrap(), 8080);
//! assert_eq!(
//!     env.file_contents("/srv/app/data/out.txt").unwrap(),
//!     b"8080 at 1700000000\n"
//! );
//! assert!(env.accesses().contains(&Access::VarRead { name: "APP_HOME".into(), set: true }));
//! assert!(std::path::Path::new("/srv/app/data/out.txt").exists()); // virtual, from inside
//! drop(env);
//! // Back in the real world: nothing was written to the disk.
//! assert!(!std::path::Path::new("/srv/app/data/out.txt").exists());
//! ```
//!
//! # What is virtual
//!
//! * **Files**: an in-memory file system with POSIX semantics for what std does: open with
//!   every `OpenOptions` combination, read/write/seek, metadata (size, kind, permissions,
//!   times from the virtual clock), permissions enforced for a non-root owner (a read-only
//!   file cannot be written even when tests run as root), directories, `read_dir` in byte
//!   order, rename, copy, hard and symbolic links, `canonicalize`, the working directory.
//!   Errors carry the errno Linux would give (`NotFound`, `AlreadyExists`,
//!   `PermissionDenied`, `DirectoryNotEmpty`, ...). Only `/`, `/tmp`, `/dev/{null,zero,random,
//!   urandom}` and what the builder declares exist. Virtual descriptors are numbered from
//!   2^30, above anything the kernel hands out; a `File` opened inside keeps working from any
//!   thread. C code compiled into the test binary is covered too (its `open`/`read` calls
//!   resolve to ours; `fopen`/`fdopen` return a `FILE*` routed to the virtual file), and
//!   `mmap` of a virtual file gives a private copy of its contents. Every libc call that
//!   could change the disk through a path is covered, including `chown` (the virtual user
//!   owns everything and cannot give it away), `mkfifo`/`mknod` (refused), `utimes`,
//!   extended attributes (unsupported), C's `remove` and the `mkstemp` family (names from the
//!   seeded stream).
//! * **Clock**: `SystemTime::now` starts at the configured time (default 2024-01-01), and
//!   `Instant::now` at a fixed uptime; every read advances both by a fixed step (1 ms by
//!   default), so elapsed times are positive and the same on every run. `thread::sleep`
//!   returns at once and moves the clocks forward by the time slept.
//! * **Randomness**: `getrandom`, `getentropy`, `syscall(SYS_getrandom)` and `/dev/urandom`
//!   give a stream determined by the seed, after any bytes given with [`Env::random_bytes`]
//!   (what a recorded call drew). std's `HashMap` keys are drawn apart: from
//!   [`Env::hash_keys`] when given, else from the seeded stream, never from the given bytes.
//!   Note std's `RandomState` and rand's `ThreadRng` seed once per thread: to repeat them,
//!   create them on a thread that is inside the environment from its start (a thread spawned
//!   by the test under the env, or libtest's thread for the test).
//! * **Variables**: `getenv`/`setenv`/`unsetenv`, so `std::env::var(_os)`, `set_var`,
//!   `remove_var`. Only declared variables exist unless [`Env::inherit_vars`].
//! * **stdin/stdout/stderr**: fd 0 reads the scripted bytes then end-of-file; writes to fds 1
//!   and 2 are captured ([`EnvGuard::stdout`], [`EnvGuard::stderr`]); they are never
//!   terminals, and closing them does not close the real ones.
//! * **Network**: sockets are virtual; `connect` fails with `ConnectionRefused`, `bind` and
//!   `listen` with `PermissionDenied`, name lookup with `ConnectionRefused`.
//! * **Processes**: `fork`, `exec*`, `posix_spawn(p)`, `system`, `popen`, `kill` fail with
//!   `PermissionDenied` (so does `Command::spawn/status/output`). The umask is per
//!   environment. `std::process::exit` still exits the test process.
//! * **Host facts**: pid 4242, 4 CPUs, host name `hermetic`, uid/gid 1000, no user database
//!   entries (configurable with [`Env::pid`], [`Env::cpus`], [`Env::hostname`]).
//! * **Threads** started inside an environment are inside it too (shared state, as threads of
//!   one process share a file system).
//! * **Accesses**: [`EnvGuard::accesses`] lists what the code touched, found or not, each
//!   distinct [`Access`] once in order of first occurrence.
//!
//! Threads that did not enter an environment — the test harness, other tests — pass straight
//! through to glibc at the cost of one thread-local load; tests running in parallel, each
//! with its own `Env`, do not see each other.
//!
//! # Record mode
//!
//! [`record`] is the other way round: the real environment is used and what probed calls read
//! and wrote is logged, for `cargo hermetic record` (its probes call it; tests never do). While
//! recording, stdin is handed to the program one line per read, so each call's lines are its
//! own.
//!
//! # Limits (read these)
//!
//! * **Linux with glibc only.** The runtime works by defining the C symbols (`open64`, `read`,
//!   `statx`, `clock_gettime`, `getenv`, `getrandom`, ...) in the test binary, which takes
//!   precedence over glibc's. On other targets the crate compiles, but [`Env::enter`] panics.
//!   A statically linked musl binary is not supported either. Developed and tested on glibc
//!   2.36 (x86_64); symbols older glibc lacks (`stat64` before 2.33, `statx`, `getrandom`, ...)
//!   fall back to raw system calls when passing through.
//! * **Raw system calls bypass it**: code that issues system calls itself — inline `asm!`,
//!   the `syscalls`/`sc` crates, rustix's `linux_raw` backend (rustix's default on Linux;
//!   `cargo tree -i rustix` shows who uses it) — reaches the real kernel. (Calls through
//!   libc's `syscall(2)` function are covered for randomness, the common file calls, getpid
//!   and timed futex waits.) So do calls made
//!   inside glibc itself: `localtime` reading `/etc/localtime`, NSS lookups other than
//!   `getpwuid_r`/`getpwnam_r`, `execl*`. std and the crates tested here (`rand`, `tempfile`)
//!   go through libc. [`interposition_works`] cheaply checks that std's calls reach the runtime
//!   in this binary; raw system calls cannot be detected cheaply.
//! * **`std::env::vars()` and `std::env::args()`** read process-wide globals (`environ`, the
//!   saved `argv`) without a function call; they show the real process's values.
//! * **libtest's output capture**: under `cargo test` without `--nocapture`, `print!`,
//!   `println!`, `eprint!` and `eprintln!` in a test go to libtest's capture buffer, not to
//!   fd 1/2, so [`EnvGuard::stdout`] does not see them; `io::stdout().write_all(..)` (and
//!   `writeln!(io::stdout(), ..)`) do reach fd 1 and are captured. With `--nocapture` both
//!   are captured.
//! * **std buffers stdin and stdout process-wide.** Virtual stdin is served one line per
//!   read (like a terminal), so std's buffer holds no more than the reader consumed, and the
//!   guard drains it when it drops. Into std's one stdout buffer every thread writes, libtest
//!   too (half a line at a time), so the thread that enters an environment holds std's stdout
//!   lock until it leaves: other threads' writes to stdout wait meanwhile. It lets go when it
//!   starts a thread (which may print while it waits for it), and never takes it with
//!   [`Env::share_stdout`]; from then on what another thread left half written may be flushed
//!   into the environment, so such tests should not run beside others that print. Code that
//!   waits inside the environment for a thread started before it (a pool) that writes to
//!   stdout needs `share_stdout`: that thread would wait for the lock.
//! * Not virtualised: writes through a shared memory map (maps are copies), `select`, `dup2`
//!   onto a chosen number, `O_TMPFILE` (refused, so `tempfile` falls back to a named file),
//!   `O_PATH` semantics, inotify; file locks are always granted.
//! * **Thread pools**: a thread is inside the environment of the thread that spawned it, for
//!   its whole life. Work handed to a pool that was started outside (e.g. rayon's global pool
//!   created earlier) runs outside the environment; a process-global pool first started from
//!   inside an environment stays in that one. Start such pools inside each test (scoped or
//!   per-test pools, a tokio runtime per test) for isolation.
//! * Panic messages are printed with the environment switched off (to the real stderr).
//! * `std::thread::ThreadId`s come from a process-wide counter: code that seeds from them
//!   (e.g. `fastrand`, hence `tempfile`'s names) is not repeatable across runs of a test
//!   inside a larger test binary, though everything it does stays virtual.
//! * Timed waits in std (`Condvar::wait_timeout`, `park_timeout`, `recv_timeout`) wait the
//!   real time asked for, and the virtual clock moves to their deadline when they time out;
//!   `thread::sleep` does not wait at all but moves the virtual clock. Timed waits of C code
//!   (`pthread_cond_timedwait`, `sem_timedwait`) are not translated.
//!
//! The runtime knows nothing of the search or of test generation; its only dependencies are `libc`
//! and `hermetic-macros` (a proc macro: compile time only).

#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]
#![cfg_attr(not(all(target_os = "linux", target_env = "gnu")), allow(dead_code))]

mod access;
pub use access::Access;
pub mod fakes;
pub mod mock;
pub use fakes::{Fakes, FakesGuard};
pub use hermetic_macros::isolate;

#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod active;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod env;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod libc;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod real;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub mod record;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod rng;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod state;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod stdout_lock;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
mod vfs;
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub use env::{
    interposition_works, Env, EnvGuard, DEFAULT_CLOCK_STEP, DEFAULT_NOW_SECS, DEFAULT_SEED,
};

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
mod unsupported;
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub use unsupported::{interposition_works, Env, EnvGuard};

/// Whether this target can host a virtual environment.
pub const SUPPORTED: bool = cfg!(all(target_os = "linux", target_env = "gnu"));
