//! The mutable state of one environment, shared by every thread that entered it.

use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::hash::BuildHasherDefault;

/// Maps with fixed hash keys: `std`'s `RandomState` would draw the thread's hash keys from the
/// real `getrandom` while the environment is being built, and the code under test's maps on
/// that thread would then iterate in a different order on every run.
pub(crate) type HashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<DefaultHasher>>;
type HashSet<T> = std::collections::HashSet<T, BuildHasherDefault<DefaultHasher>>;
use std::ffi::CString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};

use libc::c_int;

use crate::access::Access;
use crate::rng::Randomness;
use crate::vfs::{lexical_abs, Errno, Ts, Vfs, R};

/// Virtual descriptors start here: far above any real descriptor (Linux caps `nr_open` at
/// 2^20 by default), so they never collide with the kernel's.
pub(crate) const VFD_BASE: c_int = 1 << 30;
static NEXT_VFD: AtomicI32 = AtomicI32::new(VFD_BASE);

/// Which environment owns each live virtual descriptor. A descriptor keeps its environment
/// alive: a `File` opened inside an environment keeps working (and closes cleanly) from any
/// thread, even after the guard was dropped.
static VFD_OWNERS: Mutex<BTreeMap<c_int, Arc<Shared>>> = Mutex::new(BTreeMap::new());

pub(crate) struct Shared {
    state: Mutex<State>,
}

impl Shared {
    pub fn new(state: State) -> Arc<Shared> {
        Arc::new_cyclic(|me| {
            let mut state = state;
            state.me = me.clone();
            Shared {
                state: Mutex::new(state),
            }
        })
    }
    pub fn lock(&self) -> MutexGuard<'_, State> {
        // A panic inside a handler must not wedge every later call.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Virtual descriptors are numbered from the base again when none is open, so a process that
/// runs one case after another (the driver's reused child) numbers them as a fresh one does.
pub(crate) fn restart_vfds_when_none_open() {
    let owners = VFD_OWNERS.lock().unwrap_or_else(|e| e.into_inner());
    if owners.is_empty() {
        NEXT_VFD.store(VFD_BASE, Ordering::Relaxed);
    }
}

pub(crate) fn vfd_owner(fd: c_int) -> Option<Arc<Shared>> {
    let owners = VFD_OWNERS.lock().unwrap_or_else(|e| e.into_inner());
    owners.get(&fd).cloned()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    File(u64),
    Dir(u64),
    Socket,
    /// A duplicate of virtual stdin/stdout/stderr.
    Stdio(c_int),
}

#[derive(Debug)]
pub(crate) struct Desc {
    pub target: Target,
    pub pos: u64,
    pub readable: bool,
    pub writable: bool,
    pub append: bool,
    pub status_flags: c_int,
    /// Absolute path it was opened with (the base for `*at` calls on a directory).
    pub path: Vec<u8>,
    refs: usize,
    /// An `Interrupted` file fails its first read only (std retries EINTR).
    pub interrupted: bool,
}

impl Desc {
    pub fn new(target: Target, flags: c_int, path: Vec<u8>) -> Desc {
        let acc = flags & libc::O_ACCMODE;
        Desc {
            target,
            pos: 0,
            readable: acc == libc::O_RDONLY || acc == libc::O_RDWR,
            writable: acc == libc::O_WRONLY || acc == libc::O_RDWR,
            append: flags & libc::O_APPEND != 0,
            status_flags: flags & !(libc::O_CLOEXEC | libc::O_CREAT | libc::O_EXCL | libc::O_TRUNC),
            path,
            refs: 0,
            interrupted: false,
        }
    }
}

pub(crate) struct Clock {
    pub wall_start: Ts,
    pub mono_start: Ts,
    pub elapsed_ns: u64,
    pub step_ns: u64,
}

fn add_ns(t: Ts, ns: u64) -> Ts {
    let total = t.nsec as u64 + ns;
    Ts {
        sec: t.sec + (total / 1_000_000_000) as i64,
        nsec: (total % 1_000_000_000) as i64,
    }
}

pub(crate) struct Host {
    pub pid: c_int,
    pub hostname: String,
    pub cpus: usize,
}

pub(crate) struct State {
    me: Weak<Shared>,
    pub vfs: Vfs,
    pub cwd: Vec<u8>,
    fds: HashMap<c_int, u64>,
    descs: HashMap<u64, Desc>,
    next_desc: u64,
    pub vars: BTreeMap<Vec<u8>, CString>,
    /// Values replaced by setenv stay alive: a `getenv` pointer must not dangle.
    pub graveyard: Vec<CString>,
    pub clock: Clock,
    pub random: Randomness,
    pub stdin: Vec<u8>,
    pub stdin_pos: usize,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    accesses: Vec<Access>,
    seen: HashSet<Access>,
    /// Every access, repeated ones too: a change tells that a call touched the environment.
    touches: u64,
    pub host: Host,
}

impl State {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        vfs: Vfs,
        cwd: Vec<u8>,
        vars: BTreeMap<Vec<u8>, CString>,
        clock: Clock,
        random: Randomness,
        stdin: Vec<u8>,
        host: Host,
    ) -> State {
        State {
            me: Weak::new(),
            vfs,
            cwd,
            fds: HashMap::default(),
            descs: HashMap::default(),
            next_desc: 1,
            vars,
            graveyard: Vec::new(),
            clock,
            random,
            stdin,
            stdin_pos: 0,
            stdout: Vec::new(),
            stderr: Vec::new(),
            accesses: Vec::new(),
            seen: HashSet::default(),
            touches: 0,
            host,
        }
    }

    pub fn record(&mut self, a: Access) {
        self.touches += 1;
        if !self.seen.contains(&a) {
            self.seen.insert(a.clone());
            self.accesses.push(a);
        }
    }
    pub fn accesses(&self) -> Vec<Access> {
        self.accesses.clone()
    }
    pub fn touches(&self) -> u64 {
        self.touches
    }

    pub fn abs_path(&self, base: &[u8], path: &[u8]) -> PathBuf {
        use std::os::unix::ffi::OsStrExt;
        PathBuf::from(std::ffi::OsStr::from_bytes(&lexical_abs(base, path)))
    }

    /// The directory a `*at` call resolves relative paths against.
    pub fn base_for(&self, dirfd: c_int, path: &[u8]) -> R<Vec<u8>> {
        if dirfd == libc::AT_FDCWD || path.starts_with(b"/") {
            return Ok(self.cwd.clone());
        }
        let d = self.desc(dirfd)?;
        match d.target {
            Target::Dir(_) => Ok(d.path.clone()),
            _ => Err(libc::ENOTDIR),
        }
    }

    // ---- clock

    /// Reads a clock: returns the current value and advances by one step.
    pub fn tick(&mut self, monotonic: bool) -> Ts {
        self.record(Access::ClockRead);
        let e = self.clock.elapsed_ns;
        self.clock.elapsed_ns += self.clock.step_ns;
        self.vfs.now = add_ns(self.clock.wall_start, self.clock.elapsed_ns);
        let start = if monotonic {
            self.clock.mono_start
        } else {
            self.clock.wall_start
        };
        add_ns(start, e)
    }

    /// The current value of a clock, without reading (advancing) it.
    pub fn peek(&self, monotonic: bool) -> Ts {
        let start = if monotonic {
            self.clock.mono_start
        } else {
            self.clock.wall_start
        };
        add_ns(start, self.clock.elapsed_ns)
    }

    /// Moves the clocks forward by `ns` (a virtual sleep).
    pub fn advance(&mut self, ns: u64) {
        self.clock.elapsed_ns = self.clock.elapsed_ns.saturating_add(ns);
        self.vfs.now = add_ns(self.clock.wall_start, self.clock.elapsed_ns);
    }

    /// Nanoseconds from the clock's current value until `t` (0 if `t` has passed).
    pub fn until(&self, monotonic: bool, t: Ts) -> u64 {
        let now = self.peek(monotonic);
        let d = (t.sec as i128 - now.sec as i128) * 1_000_000_000 + (t.nsec - now.nsec) as i128;
        d.clamp(0, u64::MAX as i128) as u64
    }

    // ---- descriptors

    pub fn alloc_fd(&mut self, desc: Desc) -> c_int {
        let id = self.next_desc;
        self.next_desc += 1;
        self.descs.insert(id, desc);
        self.bind_fd(id)
    }

    fn bind_fd(&mut self, id: u64) -> c_int {
        // Numbered under the owners' lock, so a restart (`restart_vfds_when_none_open`) never
        // hands out a number that is being bound.
        let mut owners = VFD_OWNERS.lock().unwrap_or_else(|e| e.into_inner());
        let fd = NEXT_VFD.fetch_add(1, Ordering::Relaxed);
        self.descs.get_mut(&id).expect("desc").refs += 1;
        self.fds.insert(fd, id);
        if let Some(me) = self.me.upgrade() {
            owners.insert(fd, me);
        }
        fd
    }

    /// `dup`: a new descriptor sharing the open file description (and its offset).
    pub fn dup_fd(&mut self, fd: c_int) -> R<c_int> {
        let id = *self.fds.get(&fd).ok_or(libc::EBADF)?;
        Ok(self.bind_fd(id))
    }

    pub fn desc(&self, fd: c_int) -> R<&Desc> {
        let id = self.fds.get(&fd).ok_or(libc::EBADF)?;
        Ok(&self.descs[id])
    }
    pub fn desc_mut(&mut self, fd: c_int) -> R<&mut Desc> {
        let id = self.fds.get(&fd).ok_or(libc::EBADF)?;
        Ok(self.descs.get_mut(id).expect("desc"))
    }

    pub fn close(&mut self, fd: c_int) -> R<()> {
        let id = self.fds.remove(&fd).ok_or(libc::EBADF)?;
        // Dropping the registry's reference cannot free this state: the caller holds one.
        let owner = VFD_OWNERS
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&fd);
        drop(owner);
        let d = self.descs.get_mut(&id).expect("desc");
        d.refs -= 1;
        if d.refs == 0 {
            let d = self.descs.remove(&id).expect("desc");
            if let Target::File(ino) | Target::Dir(ino) = d.target {
                if !self.is_open(ino) {
                    self.vfs.release(ino);
                }
            }
        }
        Ok(())
    }

    pub fn is_open(&self, ino: u64) -> bool {
        self.descs
            .values()
            .any(|d| matches!(d.target, Target::File(i) | Target::Dir(i) if i == ino))
    }

    /// Set of inodes held open, for unlink's "free when last closed" rule.
    pub fn open_inodes(&self) -> HashSet<u64> {
        self.descs
            .values()
            .filter_map(|d| match d.target {
                Target::File(i) | Target::Dir(i) => Some(i),
                Target::Socket | Target::Stdio(_) => None,
            })
            .collect()
    }

    // ---- variables

    pub fn getenv(&mut self, name: &[u8]) -> Option<*const libc::c_char> {
        let v = self.vars.get(name).map(|c| c.as_ptr());
        self.record(Access::VarRead {
            name: String::from_utf8_lossy(name).into_owned(),
            set: v.is_some(),
        });
        v
    }

    pub fn setenv(&mut self, name: &[u8], value: &[u8], overwrite: bool) -> R<()> {
        if name.is_empty() || name.contains(&b'=') {
            return Err(libc::EINVAL);
        }
        self.record(Access::VarWritten {
            name: String::from_utf8_lossy(name).into_owned(),
        });
        if !overwrite && self.vars.contains_key(name) {
            return Ok(());
        }
        let v = CString::new(value).map_err(|_| libc::EINVAL)?;
        if let Some(old) = self.vars.insert(name.to_vec(), v) {
            self.graveyard.push(old);
        }
        Ok(())
    }

    pub fn unsetenv(&mut self, name: &[u8]) -> R<()> {
        if name.is_empty() || name.contains(&b'=') {
            return Err(libc::EINVAL);
        }
        self.record(Access::VarWritten {
            name: String::from_utf8_lossy(name).into_owned(),
        });
        if let Some(old) = self.vars.remove(name) {
            self.graveyard.push(old);
        }
        Ok(())
    }
}

/// errno values for the `io::ErrorKind`s the OS can produce (std's own mapping, inverted).
pub(crate) fn errno_for(kind: std::io::ErrorKind) -> Option<Errno> {
    use std::io::ErrorKind as K;
    Some(match kind {
        K::NotFound => libc::ENOENT,
        K::PermissionDenied => libc::EACCES,
        K::ConnectionRefused => libc::ECONNREFUSED,
        K::ConnectionReset => libc::ECONNRESET,
        K::HostUnreachable => libc::EHOSTUNREACH,
        K::NetworkUnreachable => libc::ENETUNREACH,
        K::ConnectionAborted => libc::ECONNABORTED,
        K::NotConnected => libc::ENOTCONN,
        K::AddrInUse => libc::EADDRINUSE,
        K::AddrNotAvailable => libc::EADDRNOTAVAIL,
        K::NetworkDown => libc::ENETDOWN,
        K::BrokenPipe => libc::EPIPE,
        K::AlreadyExists => libc::EEXIST,
        K::WouldBlock => libc::EAGAIN,
        K::NotADirectory => libc::ENOTDIR,
        K::IsADirectory => libc::EISDIR,
        K::DirectoryNotEmpty => libc::ENOTEMPTY,
        K::ReadOnlyFilesystem => libc::EROFS,
        K::StaleNetworkFileHandle => libc::ESTALE,
        K::InvalidInput => libc::EINVAL,
        K::TimedOut => libc::ETIMEDOUT,
        K::StorageFull => libc::ENOSPC,
        K::NotSeekable => libc::ESPIPE,
        K::QuotaExceeded => libc::EDQUOT,
        K::FileTooLarge => libc::EFBIG,
        K::ResourceBusy => libc::EBUSY,
        K::ExecutableFileBusy => libc::ETXTBSY,
        K::Deadlock => libc::EDEADLK,
        K::CrossesDevices => libc::EXDEV,
        K::TooManyLinks => libc::EMLINK,
        K::InvalidFilename => libc::ENAMETOOLONG,
        K::ArgumentListTooLong => libc::E2BIG,
        K::Interrupted => libc::EINTR,
        K::Unsupported => libc::ENOSYS,
        K::OutOfMemory => libc::ENOMEM,
        _ => return None,
    })
}
