//! The supervisor: a thread of the driver's server that answers every call the server's filter
//! refuses ([`crate::filter::Profile::Server`]). It lets the server's own process starts and
//! signals through (the server forks a child per execution and kills it when it hangs), and
//! signals a process sends to itself (`abort`, `raise`); everything else fails with `EPERM`
//! and is logged with what it named, in the server's memory, where the code under test cannot
//! reach it. A trap (`SIGSYS`) could not do this: its handler runs in the process that made the
//! call, which could then forge the log, and `posix_spawn` clones with every signal blocked, so
//! a trap there kills the caller before anything is logged.
//!
//! Nothing here allocates once running: glibc's `fork` holds the allocator's locks while the
//! server's own fork waits for the answer.

use crate::filter::{self, ThreadStart, AUDIT_ARCH_X86_64};
use crate::refusals::{Log, PATH_BYTES};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};

/// The listener's descriptor, which children must not keep (with it, they could answer their
/// own requests).
static LISTENER: AtomicI32 = AtomicI32::new(-1);

/// Installs a filter with `install` (which returns its listener, from
/// [`crate::filter::Program::install`]) on the calling thread, the server's, whose starts and
/// signals go through, and starts the supervisor that answers it. The supervisor's thread
/// starts first, outside the filter: under it, its own start (`clone3`) would wait for an
/// answer from itself.
pub fn start(
    install: impl FnOnce() -> std::io::Result<i32>,
    log: &'static Log,
) -> std::io::Result<()> {
    // SAFETY: gettid has no preconditions.
    let owner = unsafe { libc::gettid() } as u32;
    // The supervisor must be past its own start-up allocations before anyone forks.
    static READY: AtomicBool = AtomicBool::new(false);
    let (tx, rx) = std::sync::mpsc::channel::<i32>();
    std::thread::Builder::new()
        .name("hermetic-sandbox".into())
        .spawn(move || {
            let Ok(listener) = rx.recv() else { return };
            READY.store(true, Ordering::SeqCst);
            loop {
                answer_one(listener, owner, log);
            }
        })?;
    let listener = install()?;
    LISTENER.store(listener, Ordering::SeqCst);
    let _ = tx.send(listener);
    while !READY.load(Ordering::SeqCst) {
        std::thread::yield_now();
    }
    Ok(())
}

/// In a child forked by the server: closes the listener it inherited.
pub fn forget_in_child() {
    let fd = LISTENER.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: closing this process's copy of the descriptor.
        unsafe { libc::close(fd) };
    }
}

/// Where glibc's `pthread_create` makes its `clone3` call ([`ThreadStart`]), learnt in a
/// forked process that installs a filter of its own sending `clone3` to a thread of its own,
/// starts a thread, notes the call's instruction address and third argument (the thread entry
/// glibc hands its wrapper, `start_thread`), answers `ENOSYS` (glibc then uses `clone`) and
/// leaves. `None` when no `clone3` was seen (another libc, an older glibc) or the probe
/// failed: every `clone3` then waits for the supervisor. Call before the server's filter
/// (which refuses `seccomp`); costs one short-lived process.
pub fn glibc_thread_start() -> Option<ThreadStart> {
    if !cfg!(target_arch = "x86_64") {
        return None;
    }
    let mut fds = [0; 2];
    // SAFETY: a pipe, a fork whose child only probes and leaves with `_exit`, and reads of
    // its 16 bytes; every descriptor is closed on every path.
    unsafe {
        if libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            return None;
        }
        let pid = libc::fork();
        if pid == 0 {
            libc::close(fds[0]);
            let start = probe().unwrap_or(ThreadStart { ip: 0, entry: 0 });
            let mut bytes = [0u8; 16];
            bytes[..8].copy_from_slice(&start.ip.to_le_bytes());
            bytes[8..].copy_from_slice(&start.entry.to_le_bytes());
            libc::write(fds[1], bytes.as_ptr().cast(), bytes.len());
            libc::_exit(0);
        }
        libc::close(fds[1]);
        let mut bytes = [0u8; 16];
        let mut got = 0;
        // The probe takes a few milliseconds; one that hangs (its helper never answered) is
        // killed, and every `clone3` goes to the supervisor.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while pid > 0 && got < bytes.len() {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            let mut pfd = libc::pollfd {
                fd: fds[0],
                events: libc::POLLIN,
                revents: 0,
            };
            match libc::poll(&mut pfd, 1, left.as_millis() as i32) {
                0 => {
                    libc::kill(pid, libc::SIGKILL);
                    break;
                }
                r if r < 0 => continue, // interrupted
                _ => {}
            }
            let n = libc::read(fds[0], bytes[got..].as_mut_ptr().cast(), bytes.len() - got);
            if n > 0 {
                got += n as usize;
            } else if n == 0
                || std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted
            {
                break;
            }
        }
        libc::close(fds[0]);
        if pid > 0 {
            let mut status = 0;
            while libc::waitpid(pid, &mut status, 0) < 0
                && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
            {
            }
        }
        let word = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().unwrap_or_default());
        let start = ThreadStart {
            ip: word(0),
            entry: word(8),
        };
        (got == bytes.len() && start.ip != 0 && start.entry != 0).then_some(start)
    }
}

/// In the probe's process: the first `clone3` of a thread start, as a listener sees it.
fn probe() -> Option<ThreadStart> {
    use std::sync::atomic::AtomicU64;
    static IP: AtomicU64 = AtomicU64::new(0);
    static ENTRY: AtomicU64 = AtomicU64::new(0);
    if !filter::no_new_privs() {
        return None;
    }
    let (tx, rx) = std::sync::mpsc::channel::<i32>();
    // Started before the filter, which it does not get: it answers the one request.
    std::thread::spawn(move || {
        let Ok(listener) = rx.recv() else { return };
        // SAFETY: as in `answer_one`.
        unsafe {
            let mut request: libc::seccomp_notif = std::mem::zeroed();
            while libc::ioctl(listener, NOTIF_RECV, &mut request) != 0 {
                if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                    return;
                }
                request = std::mem::zeroed();
            }
            IP.store(request.data.instruction_pointer, Ordering::SeqCst);
            ENTRY.store(request.data.args[2], Ordering::SeqCst);
            let mut answer = libc::seccomp_notif_resp {
                id: request.id,
                val: 0,
                error: -libc::ENOSYS,
                flags: 0,
            };
            libc::ioctl(listener, NOTIF_SEND, &mut answer);
        }
    });
    let listener = filter::clone3_probe().install(true).ok()??;
    tx.send(listener).ok()?;
    // The request is answered before the call returns, so the stores are seen after it.
    std::thread::spawn(|| ()).join().ok()?;
    Some(ThreadStart {
        ip: IP.load(Ordering::SeqCst),
        entry: ENTRY.load(Ordering::SeqCst),
    })
}

/// `SECCOMP_IOCTL_NOTIF_RECV` and `_SEND` (`_IOWR('!', 0 | 1, ..)` on the 80-byte
/// `seccomp_notif` and the 24-byte `seccomp_notif_resp`), spelled here: libc before 0.2.188
/// lacks them, and a crate under test may pin such a libc in its lock file (humantime 2.4.0:
/// libc 0.2.186).
const NOTIF_RECV: libc::c_ulong = 0xc050_2100;
const NOTIF_SEND: libc::c_ulong = 0xc018_2101;

/// Waits for one request and answers it.
fn answer_one(listener: libc::c_int, owner: u32, log: &Log) {
    // SAFETY: the kernel wants a zeroed request to fill in; the answer names its id.
    unsafe {
        let mut request: libc::seccomp_notif = std::mem::zeroed();
        if libc::ioctl(listener, NOTIF_RECV, &mut request) != 0 {
            return; // interrupted, or the caller is gone
        }
        let d = &request.data;
        let nr = d.nr as i64;
        let x86 = d.arch == AUDIT_ARCH_X86_64;
        if x86 && nr == libc::SYS_clone3 && (request.pid == owner || new_thread(&request)) {
            // Let through: the kernel reads the flags again, so code racing to change them
            // could start a process here, but one that inherits every layer and this filter.
            let mut answer = libc::seccomp_notif_resp {
                id: request.id,
                val: 0,
                error: 0,
                flags: libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32,
            };
            libc::ioctl(listener, NOTIF_SEND, &mut answer);
            return;
        }
        let signal = filter::signal_target(nr).filter(|_| x86);
        let allowed = if request.pid == owner {
            x86 && (filter::starts_process(nr) || signal.is_some())
        } else {
            signal.is_some_and(|arg| to_itself(request.pid, nr, d.args[arg as usize] as i32))
        };
        let mut answer = libc::seccomp_notif_resp {
            id: request.id,
            val: 0,
            error: 0,
            flags: 0,
        };
        if allowed {
            answer.flags = libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32;
        } else {
            // Logged before the answer: once the caller resumes, its refusal is there.
            let mut path = [0u8; PATH_BYTES];
            if let Some(arg) = filter::path_arg(nr).filter(|_| x86) {
                read_memory(request.pid, d.args[arg as usize], &mut path);
            }
            let parent = status_field(request.pid, b"PPid:").unwrap_or(0);
            log.record(d.arch, nr, [d.args[0], d.args[1], d.args[2]], &path, parent);
            answer.error = -libc::EPERM;
        }
        libc::ioctl(listener, NOTIF_SEND, &mut answer);
    }
}

/// Whether a `clone3` request starts a thread (its `clone_args` begin with the flags).
fn new_thread(request: &libc::seccomp_notif) -> bool {
    let mut flags = [0u8; 8];
    read_memory(request.pid, request.data.args[0], &mut flags);
    u64::from_le_bytes(flags) & libc::CLONE_THREAD as u64 != 0
}

/// Whether a signal from thread `tid` goes to its own process (or thread).
fn to_itself(tid: u32, nr: i64, target: i32) -> bool {
    if target <= 0 {
        return false; // a process group, or every process
    }
    if target as u32 == tid {
        return true;
    }
    let tgid = status_field(tid, b"Tgid:");
    // `tkill` names a thread, the others a process (thread group).
    let target_group = if nr == libc::SYS_tkill {
        status_field(target as u32, b"Tgid:")
    } else {
        Some(target as u32)
    };
    tgid.is_some() && tgid == target_group
}

/// `/proc/<pid>/<file>` as a NUL-terminated path in `buf`.
fn proc_path<'a>(pid: u32, file: &[u8], buf: &'a mut [u8; 48]) -> &'a [u8] {
    let mut digits = [0u8; 10];
    let mut n = pid;
    let mut len = 0;
    loop {
        digits[len] = b'0' + (n % 10) as u8;
        len += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let mut at = 0;
    for &b in b"/proc/"
        .iter()
        .chain(digits[..len].iter().rev())
        .chain(b"/")
        .chain(file)
    {
        buf[at] = b;
        at += 1;
    }
    buf[at] = 0;
    &buf[..=at]
}

/// Reads up to `out.len()` bytes of process `pid`'s memory at `addr` (zeros where it cannot).
fn read_memory(pid: u32, addr: u64, out: &mut [u8]) {
    let mut buf = [0u8; 48];
    let path = proc_path(pid, b"mem", &mut buf);
    // SAFETY: a NUL-terminated path; reads into `out` within its length.
    unsafe {
        let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return;
        }
        libc::pread(fd, out.as_mut_ptr().cast(), out.len(), addr as libc::off_t);
        libc::close(fd);
    }
}

/// A number from `/proc/<pid>/status` (`Tgid:`, `PPid:`).
fn status_field(pid: u32, field: &[u8]) -> Option<u32> {
    let mut buf = [0u8; 48];
    let path = proc_path(pid, b"status", &mut buf);
    let mut text = [0u8; 1024];
    // SAFETY: a NUL-terminated path; reads into `text` within its length.
    let n = unsafe {
        let fd = libc::open(path.as_ptr().cast(), libc::O_RDONLY | libc::O_CLOEXEC);
        if fd < 0 {
            return None;
        }
        let n = libc::read(fd, text.as_mut_ptr().cast(), text.len());
        libc::close(fd);
        n
    };
    let text = &text[..n.max(0) as usize];
    let at = text.windows(field.len()).position(|w| w == field)? + field.len();
    let value = text[at..]
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .take_while(|b| b.is_ascii_digit())
        .fold(0u32, |v, b| v * 10 + (b - b'0') as u32);
    Some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_its_own_status_and_memory() {
        let me = std::process::id();
        let mut buf = [0u8; 48];
        assert_eq!(proc_path(1234, b"mem", &mut buf), b"/proc/1234/mem\0");
        assert_eq!(status_field(me, b"Tgid:"), Some(me));
        let text = b"/some/path\0";
        let mut out = [0u8; 16];
        read_memory(me, text.as_ptr() as u64, &mut out);
        assert_eq!(&out[..11], text);
        assert!(to_itself(me, libc::SYS_kill, me as i32));
        assert!(!to_itself(me, libc::SYS_kill, 1));
        assert!(!to_itself(me, libc::SYS_kill, 0));
        assert!(!to_itself(me, libc::SYS_kill, -1));
    }

    #[test]
    fn notification_ioctls_are_the_kernels() {
        assert_eq!(libc::SECCOMP_IOCTL_NOTIF_RECV, NOTIF_RECV);
        assert_eq!(libc::SECCOMP_IOCTL_NOTIF_SEND, NOTIF_SEND);
    }
}
