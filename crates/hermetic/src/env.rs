//! The public API: the [`Env`] builder and the [`EnvGuard`] that keeps it active.

use std::collections::BTreeMap;
use std::ffi::{CString, OsStr, OsString};
use std::io;
use std::marker::PhantomData;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Once};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::access::Access;
use crate::rng::Randomness;
use crate::state::{errno_for, Clock, Host, Shared, State};
use crate::vfs::{lexical_abs, Kind, Ts, Vfs};

/// 2024-01-01T00:00:00Z, the default virtual wall-clock time.
pub const DEFAULT_NOW_SECS: u64 = 1_704_067_200;
/// The default seed of the random stream.
pub const DEFAULT_SEED: u64 = 0x6865_726d_6574_6963;
/// How far each clock read advances the virtual clocks by default.
pub const DEFAULT_CLOCK_STEP: Duration = Duration::from_millis(1);

#[derive(Clone, Debug)]
enum Entry {
    File {
        path: PathBuf,
        data: Vec<u8>,
        mode: u32,
        fail: Option<i32>,
    },
    Dir {
        path: PathBuf,
        mode: u32,
    },
    Symlink {
        path: PathBuf,
        target: PathBuf,
    },
}

/// A description of the world a test runs in: files, variables, stdin, clock, randomness and
/// host facts. Build it, then [`enter`](Env::enter) it.
///
/// Everything not described does not exist: no file but the ones given (plus `/`, `/tmp`,
/// `/dev/null`, `/dev/zero`, `/dev/random`, `/dev/urandom` and the parents of what was
/// given), no variable unless [`inherit_vars`](Env::inherit_vars) was called.
#[derive(Clone, Debug)]
pub struct Env {
    entries: Vec<Entry>,
    vars: BTreeMap<OsString, OsString>,
    inherit_vars: bool,
    stdin: Vec<u8>,
    now: SystemTime,
    step: Duration,
    seed: u64,
    random_bytes: Vec<u8>,
    hash_keys: Option<[u8; 16]>,
    cwd: PathBuf,
    hostname: String,
    pid: i32,
    cpus: usize,
    share_stdout: bool,
}

impl Default for Env {
    fn default() -> Self {
        Env::new()
    }
}

impl Env {
    /// An empty world: fixed date ([`DEFAULT_NOW_SECS`]), fixed seed, cwd `/`, no variables,
    /// empty stdin, host name `hermetic`, pid 4242, 4 CPUs.
    pub fn new() -> Env {
        Env {
            entries: Vec::new(),
            vars: BTreeMap::new(),
            inherit_vars: false,
            stdin: Vec::new(),
            now: UNIX_EPOCH + Duration::from_secs(DEFAULT_NOW_SECS),
            step: DEFAULT_CLOCK_STEP,
            seed: DEFAULT_SEED,
            random_bytes: Vec::new(),
            hash_keys: None,
            cwd: PathBuf::from("/"),
            hostname: "hermetic".into(),
            pid: 4242,
            cpus: 4,
            share_stdout: false,
        }
    }

    /// A regular file (mode 0644) with these contents; parent directories are implied.
    /// Relative paths are taken against the virtual working directory.
    pub fn file(self, path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> Env {
        self.file_with_mode(path, contents, 0o644)
    }

    /// A read-only file (mode 0444): opening it for writing fails with `PermissionDenied`.
    pub fn read_only_file(self, path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> Env {
        self.file_with_mode(path, contents, 0o444)
    }

    /// A file with explicit permission bits (e.g. `0o000` for one that cannot be opened).
    pub fn file_with_mode(
        mut self,
        path: impl AsRef<Path>,
        contents: impl AsRef<[u8]>,
        mode: u32,
    ) -> Env {
        self.entries.push(Entry::File {
            path: path.as_ref().to_owned(),
            data: contents.as_ref().to_vec(),
            mode,
            fail: None,
        });
        self
    }

    /// A file that exists (metadata and open work) but whose reads and writes fail with
    /// `kind`. `Interrupted` fails only the first read or write (std retries it).
    ///
    /// # Panics
    /// When `kind` has no OS error code (`InvalidData`, `UnexpectedEof`, `Other`, ...): the
    /// operating system cannot produce it, so a test relying on it would test nothing real.
    pub fn file_error(mut self, path: impl AsRef<Path>, kind: io::ErrorKind) -> Env {
        let errno = errno_for(kind).unwrap_or_else(|| {
            panic!(
                "hermetic: io::ErrorKind::{kind:?} has no OS error code; the OS cannot produce it"
            )
        });
        self.entries.push(Entry::File {
            path: path.as_ref().to_owned(),
            data: Vec::new(),
            mode: 0o644,
            fail: Some(errno),
        });
        self
    }

    /// An empty directory (mode 0755), with its parents.
    pub fn dir(self, path: impl AsRef<Path>) -> Env {
        self.dir_with_mode(path, 0o755)
    }

    /// A directory with explicit permission bits (e.g. `0o555` for a read-only directory).
    pub fn dir_with_mode(mut self, path: impl AsRef<Path>, mode: u32) -> Env {
        self.entries.push(Entry::Dir {
            path: path.as_ref().to_owned(),
            mode,
        });
        self
    }

    /// A symbolic link at `path` pointing to `target`.
    pub fn symlink(mut self, path: impl AsRef<Path>, target: impl AsRef<Path>) -> Env {
        self.entries.push(Entry::Symlink {
            path: path.as_ref().to_owned(),
            target: target.as_ref().to_owned(),
        });
        self
    }

    /// An environment variable.
    pub fn var(mut self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Env {
        self.vars
            .insert(name.as_ref().to_owned(), value.as_ref().to_owned());
        self
    }

    /// Starts from the real process's variables (read at `enter`); `.var` still overrides.
    pub fn inherit_vars(mut self) -> Env {
        self.inherit_vars = true;
        self
    }

    /// What standard input yields, then end-of-file.
    pub fn stdin(mut self, bytes: impl AsRef<[u8]>) -> Env {
        self.stdin = bytes.as_ref().to_vec();
        self
    }

    /// The virtual wall-clock time of the first clock read.
    pub fn now(mut self, t: SystemTime) -> Env {
        self.now = t;
        self
    }

    /// How far every clock read advances the clocks (default 1 ms; zero freezes time).
    pub fn clock_step(mut self, step: Duration) -> Env {
        self.step = step;
        self
    }

    /// The seed of the random stream behind getrandom, getentropy and `/dev/urandom` (after
    /// any [`random_bytes`](Env::random_bytes)).
    pub fn seed(mut self, seed: u64) -> Env {
        self.seed = seed;
        self
    }

    /// Bytes the code's draws of randomness get first, in the order it draws them, before the
    /// seeded stream takes over: what `getrandom`, `getentropy`, `syscall(SYS_getrandom)` and
    /// reads of `/dev/urandom` return, so also what `rand::rng()` and `OsRng` are seeded with.
    /// `cargo hermetic record` writes the bytes a recorded call drew here. Replaces earlier
    /// bytes given.
    ///
    /// std's `HashMap` keys are not taken from these bytes (see [`hash_keys`](Env::hash_keys)):
    /// whether a thread draws its keys inside the code under test depends on what the thread
    /// did before, so they would shift the bytes meant for the code.
    ///
    /// ```
    /// use std::io::Read;
    ///
    /// fn roll() -> std::io::Result<u32> {
    ///     let mut bytes = [0u8; 4];
    ///     std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    ///     Ok(u32::from_le_bytes(bytes) % 6 + 1)
    /// }
    ///
    /// let _env = hermetic::Env::new().random_bytes([5, 0, 0, 0]).enter();
    /// assert_eq!(roll().unwrap(), 6);
    /// ```
    pub fn random_bytes(mut self, bytes: impl AsRef<[u8]>) -> Env {
        self.random_bytes = bytes.as_ref().to_vec();
        self
    }

    /// The keys std's `RandomState` (the default hasher of `HashMap` and `HashSet`) gets when a
    /// thread inside the environment draws its keys, which it does once, for its first map;
    /// later maps of the thread add one to `k0` each. With the keys a recorded call drew, maps
    /// the call builds iterate in the recorded order. Without, keys come from the seeded stream.
    ///
    /// A thread that drew its keys before it entered the environment keeps them.
    pub fn hash_keys(mut self, k0: u64, k1: u64) -> Env {
        let mut keys = [0u8; 16];
        keys[..8].copy_from_slice(&k0.to_ne_bytes());
        keys[8..].copy_from_slice(&k1.to_ne_bytes());
        self.hash_keys = Some(keys);
        self
    }

    /// The virtual working directory (created if missing). Default `/`.
    pub fn cwd(mut self, dir: impl AsRef<Path>) -> Env {
        self.cwd = dir.as_ref().to_owned();
        self
    }

    /// What `gethostname`/`uname` report. Default `hermetic`.
    pub fn hostname(mut self, name: impl Into<String>) -> Env {
        self.hostname = name.into();
        self
    }

    /// What `std::process::id()` reports. Default 4242.
    pub fn pid(mut self, pid: u32) -> Env {
        self.pid = pid as i32;
        self
    }

    /// What `std::thread::available_parallelism()` reports. Default 4.
    pub fn cpus(mut self, n: usize) -> Env {
        self.cpus = n.max(1);
        self
    }

    /// Lets other threads write to std's `io::stdout()` while this environment is entered.
    /// By default the entering thread holds std's stdout lock until it leaves (or starts a
    /// thread): std buffers stdout for the whole process, and a line half written by another
    /// thread (libtest reports each test that way) would otherwise be flushed into this
    /// environment. Share it when other threads the code waits for, started before `enter`
    /// (a thread pool), write to stdout; what they leave half written may then show in
    /// [`EnvGuard::stdout`].
    pub fn share_stdout(mut self) -> Env {
        self.share_stdout = true;
        self
    }

    /// Activates the environment on the current thread (and on threads it spawns) until the
    /// returned guard is dropped.
    ///
    /// # Panics
    /// On targets other than Linux with glibc, where interposition is not available.
    pub fn enter(self) -> EnvGuard {
        if !crate::SUPPORTED {
            panic!("hermetic: the virtual environment needs Linux with glibc (this target is not supported)");
        }
        crate::libc::link_interposers();
        install_panic_hook();
        crate::state::restart_vfds_when_none_open();
        let holds_stdout = !self.share_stdout;
        if holds_stdout {
            crate::stdout_lock::hold();
        }
        let shared = self.build();
        let prev = crate::active::enter(shared.clone());
        EnvGuard {
            shared,
            prev,
            holds_stdout,
            _not_send: PhantomData,
        }
    }

    fn build(self) -> Arc<Shared> {
        let now = ts_of(self.now);
        let mut vfs = Vfs::new(now);
        let cwd = lexical_abs(b"/", self.cwd.as_os_str().as_bytes());
        vfs.mkdir_p(&cwd);
        for e in &self.entries {
            match e {
                Entry::File {
                    path,
                    data,
                    mode,
                    fail,
                } => {
                    let p = lexical_abs(&cwd, path.as_os_str().as_bytes());
                    let ino = vfs.put_file(&p, data.clone(), *mode);
                    vfs.node_mut(ino).fail = *fail;
                }
                Entry::Dir { path, mode } => {
                    let p = lexical_abs(&cwd, path.as_os_str().as_bytes());
                    let ino = vfs.mkdir_p(&p);
                    vfs.node_mut(ino).perm = *mode & 0o7777;
                }
                Entry::Symlink { path, target } => {
                    let p = lexical_abs(&cwd, path.as_os_str().as_bytes());
                    vfs.put_symlink(&p, target.as_os_str().as_bytes());
                }
            }
        }
        let mut vars = BTreeMap::new();
        if self.inherit_vars {
            for (k, v) in std::env::vars_os() {
                if let Ok(c) = CString::new(v.into_vec()) {
                    vars.insert(k.into_vec(), c);
                }
            }
        }
        for (k, v) in self.vars {
            if let Ok(c) = CString::new(v.into_vec()) {
                vars.insert(k.into_vec(), c);
            }
        }
        let clock = Clock {
            wall_start: now,
            // Uptime of a bit more than a day: arbitrary but fixed.
            mono_start: Ts {
                sec: 100_000,
                nsec: 0,
            },
            elapsed_ns: 0,
            step_ns: self.step.as_nanos().min(u64::MAX as u128) as u64,
        };
        let host = Host {
            pid: self.pid,
            hostname: self.hostname,
            cpus: self.cpus,
        };
        let random = Randomness::new(self.seed, self.random_bytes, self.hash_keys);
        Shared::new(State::new(vfs, cwd, vars, clock, random, self.stdin, host))
    }
}

fn ts_of(t: SystemTime) -> Ts {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => Ts {
            sec: d.as_secs() as i64,
            nsec: d.subsec_nanos() as i64,
        },
        Err(e) => {
            let d = e.duration();
            let mut sec = -(d.as_secs() as i64);
            let mut nsec = -(d.subsec_nanos() as i64);
            if nsec < 0 {
                sec -= 1;
                nsec += 1_000_000_000;
            }
            Ts { sec, nsec }
        }
    }
}

/// Panic messages are for the developer, not for the virtual stderr: the hook runs with the
/// environment switched off, so it writes to the real stderr (or libtest's capture) and can
/// read debug info for backtraces from the real disk.
fn install_panic_hook() {
    static ONCE: Once = Once::new();
    // The hook cannot be changed from a panicking thread (an env entered in a Drop during
    // unwinding); a later `enter` installs it.
    if std::thread::panicking() {
        return;
    }
    ONCE.call_once(|| {
        let prev = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let _off = crate::active::Suspend::new();
            prev(info);
        }));
    });
}

/// Keeps an [`Env`] active on the current thread; dropping it switches the thread back to
/// the real world. Also the way to inspect what the code under test did.
///
/// Threads spawned while active stay in the environment until they finish, even if the
/// guard is dropped first. The guard cannot be sent to another thread.
pub struct EnvGuard {
    shared: Arc<Shared>,
    prev: *const Shared,
    /// It holds std's stdout lock (see [`Env::share_stdout`]).
    holds_stdout: bool,
    _not_send: PhantomData<*const ()>,
}

impl EnvGuard {
    /// Runs `f` with this thread outside the environment (our own code must not recurse
    /// into the interposers while holding the state lock).
    fn inspect<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        let _off = crate::active::Suspend::new();
        f(&mut self.shared.lock())
    }

    /// The current contents of a virtual regular file (after symlinks), if there is one.
    pub fn file_contents(&self, path: impl AsRef<Path>) -> Option<Vec<u8>> {
        self.inspect(|st| {
            let l = st
                .vfs
                .resolve(&st.cwd, path.as_ref().as_os_str().as_bytes(), true)
                .ok()?;
            match &st.vfs.node(l.ino?).kind {
                Kind::File(d) => Some(d.clone()),
                _ => None,
            }
        })
    }

    /// The contents of a virtual regular file as text; `None` when there is no such file or
    /// it is not UTF-8.
    pub fn file_string(&self, path: impl AsRef<Path>) -> Option<String> {
        String::from_utf8(self.file_contents(path)?).ok()
    }

    /// Whether `path` exists in the virtual file system (any kind).
    pub fn exists(&self, path: impl AsRef<Path>) -> bool {
        self.inspect(|st| {
            st.vfs
                .resolve(&st.cwd, path.as_ref().as_os_str().as_bytes(), true)
                .is_ok_and(|l| l.ino.is_some())
        })
    }

    /// Whether `path` is a directory in the virtual file system.
    pub fn is_dir(&self, path: impl AsRef<Path>) -> bool {
        self.inspect(|st| {
            st.vfs
                .resolve(&st.cwd, path.as_ref().as_os_str().as_bytes(), true)
                .ok()
                .and_then(|l| l.ino)
                .is_some_and(|i| st.vfs.node(i).is_dir())
        })
    }

    /// Every regular file in the virtual file system, in path order.
    pub fn files(&self) -> Vec<PathBuf> {
        self.inspect(|st| {
            st.vfs
                .walk_files()
                .into_iter()
                .map(|(p, _)| PathBuf::from(OsString::from_vec(p)))
                .collect()
        })
    }

    /// Bytes written to fd 1 so far (see the crate docs on libtest's output capture).
    pub fn stdout(&self) -> Vec<u8> {
        self.flush_std();
        self.inspect(|st| st.stdout.clone())
    }

    /// Bytes written to fd 2 so far.
    pub fn stderr(&self) -> Vec<u8> {
        self.flush_std();
        self.inspect(|st| st.stderr.clone())
    }

    /// [`stdout`](EnvGuard::stdout) as text (bytes that are not UTF-8 become U+FFFD).
    pub fn stdout_string(&self) -> String {
        String::from_utf8_lossy(&self.stdout()).into_owned()
    }

    /// [`stderr`](EnvGuard::stderr) as text (bytes that are not UTF-8 become U+FFFD).
    pub fn stderr_string(&self) -> String {
        String::from_utf8_lossy(&self.stderr()).into_owned()
    }

    /// The value of a virtual variable now.
    pub fn var(&self, name: impl AsRef<OsStr>) -> Option<OsString> {
        self.inspect(|st| {
            st.vars
                .get(name.as_ref().as_bytes())
                .map(|c| OsString::from_vec(c.as_bytes().to_vec()))
        })
    }

    /// The virtual working directory now.
    pub fn current_dir(&self) -> PathBuf {
        self.inspect(|st| PathBuf::from(OsString::from_vec(st.cwd.clone())))
    }

    /// The virtual wall-clock time now (without reading, so without advancing, the clock).
    pub fn now(&self) -> SystemTime {
        self.inspect(|st| {
            let t = st.peek(false);
            if t.sec >= 0 {
                UNIX_EPOCH + Duration::new(t.sec as u64, t.nsec as u32)
            } else {
                UNIX_EPOCH - Duration::from_secs(t.sec.unsigned_abs())
                    + Duration::from_nanos(t.nsec as u64)
            }
        })
    }

    /// Unread standard input.
    pub fn stdin_remaining(&self) -> Vec<u8> {
        self.inspect(|st| st.stdin[st.stdin_pos..].to_vec())
    }

    /// What the code touched: each distinct access once, in order of first occurrence.
    pub fn accesses(&self) -> Vec<Access> {
        self.inspect(|st| st.accesses())
    }

    /// std buffers `io::stdout()` per line: flush it (into this environment, when this
    /// thread is in it) so what was written is visible.
    fn flush_std(&self) {
        if std::ptr::eq(crate::active::current_ptr(), Arc::as_ptr(&self.shared)) {
            use std::io::Write;
            let _ = io::stdout().flush();
            let _ = io::stderr().flush();
        }
    }
}

impl Drop for EnvGuard {
    fn drop(&mut self) {
        if std::ptr::eq(crate::active::current_ptr(), Arc::as_ptr(&self.shared)) {
            use std::io::{BufRead, Write};
            let _ = io::stdout().flush();
            // std's stdin is one process-wide buffer: leave nothing of our script in it for
            // the next test to read.
            if self.inspect(|st| st.stdin_pos > 0) {
                let mut lock = io::stdin().lock();
                while let Ok(buf) = lock.fill_buf() {
                    let n = buf.len();
                    if n == 0 {
                        break;
                    }
                    lock.consume(n);
                }
            }
        }
        crate::active::leave(self.prev);
        if self.holds_stdout {
            crate::stdout_lock::release();
        }
    }
}

/// A cheap self-check that this binary's libc calls reach the runtime: on a fresh thread,
/// enters a throwaway environment and checks that `std::fs`, `std::env::var`,
/// `SystemTime::now` and `getrandom` are served by it. `false` means the environment would
/// not isolate anything here (a statically linked binary, or a std that bypasses libc).
///
/// It cannot see raw system calls made by other code (e.g. rustix's `linux_raw` backend).
pub fn interposition_works() -> bool {
    std::thread::spawn(|| {
        let t = UNIX_EPOCH + Duration::from_secs(1);
        let env = Env::new()
            .file("/hermetic-self-check", "ok")
            .var("HERMETIC_SELF_CHECK", "1")
            .now(t)
            .enter();
        let fs = std::fs::read_to_string("/hermetic-self-check").is_ok_and(|s| s == "ok");
        let var = std::env::var("HERMETIC_SELF_CHECK").is_ok_and(|v| v == "1");
        let clock = SystemTime::now() == t;
        let mut buf = [0u8; 8];
        // SAFETY: getrandom into our own buffer.
        let random = unsafe { libc::getrandom(buf.as_mut_ptr().cast(), buf.len(), 0) } == 8
            && env.accesses().contains(&Access::RandomRead);
        fs && var && clock && random
    })
    .join()
    .unwrap_or(false)
}
