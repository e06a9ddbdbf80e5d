//! The log of refused system calls: a page of memory shared by the driver's server and its
//! children, so that a refusal is seen even when the child dies after it. The `SIGSYS` handler
//! (in the child whose call was trapped) and the process supervisor (a thread of the server)
//! both write to it; the server reads it after each execution.

use crate::filter::{self, AUDIT_ARCH_X86_64, X32_SYSCALL_BIT};
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering};

/// Refusals kept per execution (more are counted, not described).
const ENTRIES: usize = 32;
/// Bytes of a path kept per refusal.
const PATH_WORDS: usize = 12;

#[repr(C)]
struct Entry {
    tag: AtomicU32,
    arch: AtomicU32,
    nr: AtomicI64,
    args: [AtomicU64; 3],
    /// The caller's parent, to say "its parent" when a signal was meant for it.
    parent: AtomicU32,
    path: [AtomicU64; PATH_WORDS],
}

/// The shared log; see the module documentation.
#[repr(C)]
pub struct Log {
    /// What the process is doing now (the driver: the statement it runs); each refusal is
    /// logged with it.
    tag: AtomicU32,
    /// Refusals since the last [`Log::reset`], described or not.
    count: AtomicU32,
    entries: [Entry; ENTRIES],
}

/// One refused system call, as the report gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The log's tag when it happened.
    pub tag: u32,
    /// What the code tried, in words: `kill of its parent (signal 9)`, `openat for writing
    /// /home/me/x`, `a 32-bit system call (int 0x80), number 5`.
    pub what: String,
}

impl Log {
    /// A log in fresh memory shared with every process forked from now on. Lives for the
    /// whole process.
    pub fn shared() -> std::io::Result<&'static Log> {
        let len = std::mem::size_of::<Log>();
        // SAFETY: an anonymous shared mapping, zeroed by the kernel (all-zero is a valid Log).
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if base == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: the mapping is never unmapped, suitably aligned and zeroed.
        Ok(unsafe { &*(base as *const Log) })
    }

    /// Forgets every refusal (before an execution).
    pub fn reset(&self) {
        self.count.store(0, Ordering::SeqCst);
        self.tag.store(0, Ordering::SeqCst);
    }

    /// Sets the tag later refusals get.
    pub fn set_tag(&self, tag: u32) {
        self.tag.store(tag, Ordering::SeqCst);
    }

    /// Refusals since the last reset.
    pub fn count(&self) -> u32 {
        self.count.load(Ordering::SeqCst)
    }

    /// Logs a refusal. Async-signal-safe. `path`, when given, is read up to its NUL (the
    /// caller vouches that it points at readable memory).
    ///
    /// # Safety
    /// `path` is null or points at a readable string the call was about to use.
    pub unsafe fn record(&self, arch: u32, nr: i64, args: [u64; 3], path: *const u8) {
        let i = self.count.fetch_add(1, Ordering::SeqCst) as usize;
        let Some(e) = self.entries.get(i) else { return };
        e.tag
            .store(self.tag.load(Ordering::SeqCst), Ordering::SeqCst);
        e.arch.store(arch, Ordering::SeqCst);
        e.nr.store(nr, Ordering::SeqCst);
        for (slot, a) in e.args.iter().zip(args) {
            slot.store(a, Ordering::SeqCst);
        }
        // SAFETY: getppid has no preconditions.
        e.parent
            .store(unsafe { libc::getppid() } as u32, Ordering::SeqCst);
        for w in &e.path {
            w.store(0, Ordering::SeqCst);
        }
        if path.is_null() {
            return;
        }
        // Word by word, the last byte of the last word left 0 as the terminator.
        let mut word = [0u8; 8];
        for (n, w) in e.path.iter().enumerate() {
            for (j, b) in word.iter_mut().enumerate() {
                let at = n * 8 + j;
                // SAFETY: the caller vouches for the string; we stop at its NUL.
                *b = if at + 1 < PATH_WORDS * 8 {
                    unsafe { *path.add(at) }
                } else {
                    0
                };
            }
            w.store(u64::from_le_bytes(word), Ordering::SeqCst);
            if word.contains(&0) {
                break;
            }
        }
    }

    /// The refusals since the last reset, described (the first [`ENTRIES`]; later ones as one
    /// line that counts them).
    pub fn refusals(&self) -> Vec<Refusal> {
        let count = self.count() as usize;
        let mut out: Vec<Refusal> = self.entries[..count.min(ENTRIES)]
            .iter()
            .map(|e| {
                let mut bytes = Vec::new();
                for w in &e.path {
                    bytes.extend(w.load(Ordering::SeqCst).to_le_bytes());
                }
                let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
                let path = String::from_utf8_lossy(&bytes[..end]).into_owned();
                let args = [0, 1, 2].map(|i| e.args[i].load(Ordering::SeqCst));
                Refusal {
                    tag: e.tag.load(Ordering::SeqCst),
                    what: describe(
                        e.arch.load(Ordering::SeqCst),
                        e.nr.load(Ordering::SeqCst),
                        args,
                        &path,
                        e.parent.load(Ordering::SeqCst),
                    ),
                }
            })
            .collect();
        if count > ENTRIES {
            out.push(Refusal {
                tag: self.tag.load(Ordering::SeqCst),
                what: format!("{} more refused system calls", count - ENTRIES),
            });
        }
        out
    }
}

/// What a refused call tried, in words.
pub fn describe(arch: u32, nr: i64, args: [u64; 3], path: &str, parent: u32) -> String {
    if arch != AUDIT_ARCH_X86_64 {
        return format!("a 32-bit system call (int 0x80), number {nr}");
    }
    if nr >= X32_SYSCALL_BIT as i64 {
        return format!("an x32 system call, number {}", nr - X32_SYSCALL_BIT as i64);
    }
    let name = filter::name(nr)
        .map(str::to_string)
        .unwrap_or_else(|| format!("system call {nr}"));
    let n = nr as libc::c_long;
    let int = |a: u64| a as u32 as i32;
    match n {
        libc::SYS_kill
        | libc::SYS_tkill
        | libc::SYS_tgkill
        | libc::SYS_rt_sigqueueinfo
        | libc::SYS_rt_tgsigqueueinfo => {
            let pid = int(args[0]);
            let target = match pid {
                0 => "its process group".to_string(),
                -1 => "every process".to_string(),
                p if p < -1 => "a process group".to_string(),
                p if p as u32 == parent => "its parent".to_string(),
                _ => "another process".to_string(),
            };
            let sig = if n == libc::SYS_tgkill {
                args[2]
            } else {
                args[1]
            };
            format!("{name} of {target} (signal {})", int(sig))
        }
        libc::SYS_fork | libc::SYS_vfork | libc::SYS_clone => {
            format!("{name}: a new process")
        }
        libc::SYS_socket => format!("socket (domain {})", int(args[0])),
        libc::SYS_socketpair => format!("socketpair (type {})", int(args[1])),
        libc::SYS_prctl => format!("prctl (option {})", int(args[0])),
        libc::SYS_prlimit64 => format!("prlimit64: set limit {}", int(args[1])),
        libc::SYS_setrlimit => format!("setrlimit: limit {}", int(args[0])),
        libc::SYS_ioctl => format!("ioctl (request {:#x})", args[1] as u32),
        libc::SYS_open | libc::SYS_openat => format!("{name} for writing {path}"),
        _ if !path.is_empty() => format!("{name} {path}"),
        _ => name,
    }
}

static HANDLER_LOG: AtomicU64 = AtomicU64::new(0);

/// Makes trapped calls fail with `EPERM` and logs them in `log`, in this process and those it
/// forks (install before the filter).
pub fn install_handler(log: &'static Log) -> std::io::Result<()> {
    HANDLER_LOG.store(log as *const Log as u64, Ordering::SeqCst);
    // SAFETY: installs a handler that only touches the shared log and the saved registers.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigsys as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut sa.sa_mask);
        if libc::sigaction(libc::SIGSYS, &sa, std::ptr::null_mut()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// `siginfo_t` for `SIGSYS` (`_sigsys` in the kernel's union).
#[repr(C)]
struct SigsysInfo {
    signo: i32,
    errno: i32,
    code: i32,
    _pad: i32,
    call_addr: *mut libc::c_void,
    syscall: i32,
    arch: u32,
}

extern "C" fn on_sigsys(_: libc::c_int, info: *mut libc::siginfo_t, context: *mut libc::c_void) {
    // SAFETY: the kernel passes a valid siginfo (of SIGSYS's shape) and ucontext to an
    // SA_SIGINFO handler.
    unsafe {
        let info = &*(info as *const SigsysInfo);
        let uc = &mut *(context as *mut libc::ucontext_t);
        let regs = &mut uc.uc_mcontext.gregs;
        let args = [
            regs[libc::REG_RDI as usize],
            regs[libc::REG_RSI as usize],
            regs[libc::REG_RDX as usize],
            regs[libc::REG_R10 as usize],
        ]
        .map(|r| r as u64);
        let nr = info.syscall as i64;
        let log = HANDLER_LOG.load(Ordering::SeqCst) as *const Log;
        if !log.is_null() {
            let path = if info.arch == AUDIT_ARCH_X86_64 {
                filter::path_arg(nr).map_or(std::ptr::null(), |i| args[i as usize] as *const u8)
            } else {
                std::ptr::null()
            };
            (*log).record(info.arch, nr, [args[0], args[1], args[2]], path);
        }
        regs[libc::REG_RAX as usize] = -(libc::EPERM as i64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn describes_what_was_tried() {
        let x86 = AUDIT_ARCH_X86_64;
        assert_eq!(
            describe(x86, libc::SYS_kill, [77, 9, 0], "", 77),
            "kill of its parent (signal 9)"
        );
        assert_eq!(
            describe(x86, libc::SYS_kill, [0, 15, 0], "", 77),
            "kill of its process group (signal 15)"
        );
        assert_eq!(
            describe(x86, libc::SYS_kill, [u32::MAX as u64, 9, 0], "", 77),
            "kill of every process (signal 9)"
        );
        assert_eq!(
            describe(x86, libc::SYS_openat, [0, 0, 0], "/home/x", 1),
            "openat for writing /home/x"
        );
        assert_eq!(describe(x86, libc::SYS_setsid, [0; 3], "", 1), "setsid");
        assert_eq!(
            describe(0x4000_0003, 5, [0; 3], "", 1),
            "a 32-bit system call (int 0x80), number 5"
        );
        assert_eq!(
            describe(x86, X32_SYSCALL_BIT as i64 + 2, [0; 3], "", 1),
            "an x32 system call, number 2"
        );
        assert_eq!(describe(x86, 4000, [0; 3], "", 1), "system call 4000");
    }

    #[test]
    fn the_log_keeps_paths_and_counts_past_its_entries() {
        let log = Log::shared().unwrap();
        log.reset();
        log.set_tag(3);
        let long = format!("/{}\0", "a".repeat(200));
        unsafe {
            log.record(
                AUDIT_ARCH_X86_64,
                libc::SYS_unlink,
                [0; 3],
                b"/tmp/x\0".as_ptr(),
            );
            log.record(AUDIT_ARCH_X86_64, libc::SYS_unlink, [0; 3], long.as_ptr());
            for _ in 0..40 {
                log.record(
                    AUDIT_ARCH_X86_64,
                    libc::SYS_setsid,
                    [0; 3],
                    std::ptr::null(),
                );
            }
        }
        let r = log.refusals();
        assert_eq!(log.count(), 42);
        assert_eq!(r.len(), ENTRIES + 1);
        assert_eq!(
            r[0],
            Refusal {
                tag: 3,
                what: "unlink /tmp/x".into()
            }
        );
        assert!(r[1].what.starts_with("unlink /aaa"), "{}", r[1].what);
        assert_eq!(r[1].what.len(), "unlink ".len() + PATH_WORDS * 8 - 1);
        assert_eq!(r[2].what, "setsid");
        assert_eq!(r[ENTRIES].what, "10 more refused system calls");
        log.reset();
        assert!(log.refusals().is_empty());
    }
}
