//! The log of refused system calls. The supervisor ([`crate::supervisor`]), a thread of the
//! driver's server, writes it in the server's own memory, out of reach of the code under test;
//! the server reads it after each execution. Only the tag, which says what the child is doing
//! (the statement it runs), is in memory shared with the children.

use crate::filter::{self, AUDIT_ARCH_X86_64, X32_SYSCALL_BIT};
use std::sync::atomic::{AtomicI64, AtomicU32, AtomicU64, Ordering};

/// Refusals kept per execution (more are counted, not described).
const ENTRIES: usize = 32;
/// Bytes of a path kept per refusal (the last one a terminator).
pub const PATH_BYTES: usize = 96;

#[derive(Default)]
struct Entry {
    tag: AtomicU32,
    arch: AtomicU32,
    nr: AtomicI64,
    args: [AtomicU64; 3],
    /// The caller's parent, to say "its parent" when a signal was meant for it.
    parent: AtomicU32,
    path: [AtomicU64; PATH_BYTES / 8],
}

/// The log; see the module documentation. Written without allocating (the supervisor may
/// answer while the server's `fork` holds the allocator's locks).
pub struct Log {
    /// What the child is doing now, set by the child (shared memory).
    tag: &'static AtomicU32,
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
    /// A log whose tag is shared with every process forked from now on. Lives for the whole
    /// process.
    pub fn new() -> std::io::Result<&'static Log> {
        // SAFETY: an anonymous shared mapping, zeroed by the kernel (a valid AtomicU32).
        let tag = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                std::mem::size_of::<AtomicU32>(),
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if tag == libc::MAP_FAILED {
            return Err(std::io::Error::last_os_error());
        }
        Ok(Box::leak(Box::new(Log {
            // SAFETY: the mapping is never unmapped, aligned and zeroed.
            tag: unsafe { &*(tag as *const AtomicU32) },
            count: AtomicU32::new(0),
            entries: Default::default(),
        })))
    }

    /// Forgets every refusal (before an execution).
    pub fn reset(&self) {
        self.count.store(0, Ordering::SeqCst);
        self.tag.store(0, Ordering::SeqCst);
    }

    /// Sets the tag later refusals get (the child calls it: the tag is shared).
    pub fn set_tag(&self, tag: u32) {
        self.tag.store(tag, Ordering::SeqCst);
    }

    /// Refusals since the last reset.
    pub fn count(&self) -> u32 {
        self.count.load(Ordering::SeqCst)
    }

    /// Logs a refusal, with the path it named (up to its NUL, at most [`PATH_BYTES`]) and the
    /// caller's parent. Allocates nothing.
    pub fn record(&self, arch: u32, nr: i64, args: [u64; 3], path: &[u8], parent: u32) {
        let i = self.count.fetch_add(1, Ordering::SeqCst) as usize;
        let Some(e) = self.entries.get(i) else { return };
        e.tag
            .store(self.tag.load(Ordering::SeqCst), Ordering::SeqCst);
        e.arch.store(arch, Ordering::SeqCst);
        e.nr.store(nr, Ordering::SeqCst);
        for (slot, a) in e.args.iter().zip(args) {
            slot.store(a, Ordering::SeqCst);
        }
        e.parent.store(parent, Ordering::SeqCst);
        let end = path
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(path.len())
            .min(PATH_BYTES - 1);
        for (n, w) in e.path.iter().enumerate() {
            let mut word = [0u8; 8];
            for (j, b) in word.iter_mut().enumerate() {
                if n * 8 + j < end {
                    *b = path[n * 8 + j];
                }
            }
            w.store(u64::from_le_bytes(word), Ordering::SeqCst);
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

/// A `prctl` option no kernel has, refused like every unknown one: the driver makes this call
/// to log what a test case left behind in its process (a thread still running, a panic hook or
/// signal handler of its own), which would act later, in other tests or at exit, where no
/// refusal is seen. Only the supervisor writes the log, so the code under test cannot take it
/// back.
pub const LEFT_BEHIND: i32 = 0x6865_7200;

/// What a test case left behind ([`LEFT_BEHIND`]'s second argument).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u64)]
pub enum LeftBehind {
    /// Threads still running after the call returned (their number).
    Threads = 1,
    /// A panic hook in place of the driver's.
    PanicHook = 2,
    /// A handler of its own for a signal (its number).
    SignalHandler = 3,
}

/// Logs `what` (with its number) as a refusal of the calling process.
pub fn left_behind(what: LeftBehind, n: u64) {
    // SAFETY: a prctl the filter refuses; the kernel never sees it.
    unsafe { libc::syscall(libc::SYS_prctl, LEFT_BEHIND, what as u64, n) };
}

/// The names of the 32-bit calls hostile code uses most.
fn i386_name(nr: i64) -> Option<&'static str> {
    Some(match nr {
        1 => "exit",
        2 => "fork",
        4 => "write",
        5 => "open",
        8 => "creat",
        10 => "unlink",
        11 => "execve",
        15 => "chmod",
        37 => "kill",
        38 => "rename",
        66 => "setsid",
        102 => "socketcall",
        120 => "clone",
        190 => "vfork",
        _ => return None,
    })
}

/// What a refused call tried, in words.
pub fn describe(arch: u32, nr: i64, args: [u64; 3], path: &str, parent: u32) -> String {
    if arch != AUDIT_ARCH_X86_64 {
        return match i386_name(nr) {
            Some(name) => format!("a 32-bit system call (int 0x80): {name}"),
            None => format!("a 32-bit system call (int 0x80), number {nr}"),
        };
    }
    if nr >= X32_SYSCALL_BIT as i64 {
        return format!("an x32 system call, number {}", nr - X32_SYSCALL_BIT as i64);
    }
    let name = filter::name(nr)
        .map(str::to_string)
        .unwrap_or_else(|| format!("system call {nr}"));
    let n = nr as libc::c_long;
    let int = |a: u64| a as u32 as i32;
    let path = path.escape_debug().to_string();
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
        libc::SYS_fork | libc::SYS_vfork | libc::SYS_clone | libc::SYS_clone3 => {
            format!("{name}: a new process")
        }
        libc::SYS_socket => format!("socket (domain {})", int(args[0])),
        libc::SYS_socketpair => format!("socketpair (type {})", int(args[1])),
        libc::SYS_prctl if int(args[0]) == LEFT_BEHIND => match args[1] {
            1 => format!("to leave {} thread(s) running after it returned", args[2]),
            2 => "to replace the process's panic hook".into(),
            _ => format!("to handle signal {} (for the whole process)", int(args[2])),
        },
        libc::SYS_prctl => format!("prctl (option {})", int(args[0])),
        libc::SYS_prlimit64 => format!("prlimit64: set limit {}", int(args[1])),
        libc::SYS_setrlimit => format!("setrlimit: limit {}", int(args[0])),
        libc::SYS_ioctl => format!("ioctl (request {:#x})", args[1] as u32),
        libc::SYS_fcntl => format!("fcntl (command {})", int(args[1])),
        libc::SYS_sched_setaffinity => "sched_setaffinity of another process".into(),
        libc::SYS_open | libc::SYS_openat => format!("{name} for writing {path}").trim().into(),
        _ if !path.is_empty() => format!("{name} {path}"),
        _ => name,
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
            "a 32-bit system call (int 0x80): open"
        );
        assert_eq!(
            describe(x86, X32_SYSCALL_BIT as i64 + 2, [0; 3], "", 1),
            "an x32 system call, number 2"
        );
        assert_eq!(describe(x86, 4000, [0; 3], "", 1), "system call 4000");
        let left = LEFT_BEHIND as u64;
        assert_eq!(
            describe(x86, libc::SYS_prctl, [left, 1, 2], "", 1),
            "to leave 2 thread(s) running after it returned"
        );
        assert_eq!(
            describe(x86, libc::SYS_prctl, [left, 3, 2], "", 1),
            "to handle signal 2 (for the whole process)"
        );
    }

    #[test]
    fn the_log_keeps_paths_and_counts_past_its_entries() {
        let log = Log::new().unwrap();
        log.reset();
        log.set_tag(3);
        let long = format!("/{}", "a".repeat(200));
        log.record(
            AUDIT_ARCH_X86_64,
            libc::SYS_unlink,
            [0; 3],
            b"/tmp/x\0junk",
            1,
        );
        log.record(
            AUDIT_ARCH_X86_64,
            libc::SYS_unlink,
            [0; 3],
            long.as_bytes(),
            1,
        );
        for _ in 0..40 {
            log.record(AUDIT_ARCH_X86_64, libc::SYS_setsid, [0; 3], b"", 1);
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
        assert_eq!(r[1].what.len(), "unlink ".len() + PATH_BYTES - 1);
        assert_eq!(r[2].what, "setsid");
        assert_eq!(r[ENTRIES].what, "10 more refused system calls");
        log.reset();
        assert!(log.refusals().is_empty());
    }
}
