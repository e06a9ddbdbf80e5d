//! What a test case leaves behind in its process: threads still running after the call
//! returned, a panic hook or signal handlers of its own. Each would act later (in another
//! test, at a signal, at any time) where no refusal of this execution is seen, so a generated
//! test would carry the act out under `cargo test`. The child that ran the case waits a moment
//! for its threads, then logs each leftover as a refusal (through the supervisor,
//! [`hermetic_sandbox::refusals::left_behind`]), and the execution is never a test.

use hermetic_sandbox::refusals::{left_behind, LeftBehind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// How long the threads a case started get to finish after it returned. Threads that act a
/// little later (after a short sleep, which is virtual) act within it and are refused.
const GRACE: Duration = Duration::from_millis(50);

/// Signals whose handler is checked: those that come from outside or from faults, for which a
/// handler set by the code would act later (`SIGKILL`, `SIGSTOP` have none; `SIGSYS` (31),
/// whose handler could answer refusals, the filter keeps even from being read).
const SIGNALS: std::ops::RangeInclusive<i32> = 1..=30;

/// The address of the driver's own panic hook (its box), to tell it from another.
static QUIET_HOOK: AtomicUsize = AtomicUsize::new(0);

/// The process as the driver set it up, before the case.
#[derive(Clone)]
pub struct Before {
    threads: usize,
    handlers: [KernelSigaction; 32],
}

/// Installs the driver's panic hook (silent: panics are caught and reported as outcomes).
pub fn quiet_panic_hook() {
    // Not zero-sized, so its box has an address no other hook has.
    let marker = 1u8;
    let hook: Box<dyn Fn(&std::panic::PanicHookInfo<'_>) + Sync + Send> = Box::new(move |_| {
        std::hint::black_box(&marker);
    });
    QUIET_HOOK.store(address(&*hook), Ordering::SeqCst);
    std::panic::set_hook(hook);
}

fn address<T: ?Sized>(v: &T) -> usize {
    v as *const T as *const () as usize
}

/// Notes the threads and handlers of the process (in the child, before the case).
pub fn before() -> Before {
    let mut handlers = [KernelSigaction::default(); 32];
    if !crate::sandbox::enabled() {
        return Before {
            threads: 1,
            handlers,
        };
    }
    for sig in SIGNALS {
        handlers[sig as usize] = disposition(sig).unwrap_or_default();
    }
    Before {
        threads: threads().unwrap_or(1),
        handlers,
    }
}

impl Before {
    /// As `self` with a case thread running beside (a worker's case thread checks after each
    /// of its executions while the worker's main thread waits for it).
    pub fn with_case_thread(&self) -> Before {
        Before {
            threads: self.threads + 1,
            ..self.clone()
        }
    }

    /// What a child forked from this process looks like once it has set `handlers` (signal,
    /// handler address) and before it runs a case: one thread (a fork copies only the caller)
    /// and this process's other dispositions, which it inherits. Noted once in the server
    /// instead of by every child (30 `rt_sigaction` and a read of `/proc/self/stat` per
    /// execution).
    pub fn forked_child(handlers: &[(i32, usize)]) -> Before {
        let mut before = before();
        before.threads = 1;
        for &(sig, handler) in handlers {
            if let Some(h) = before.handlers.get_mut(sig as usize) {
                h.handler = handler;
            }
        }
        before
    }
}

/// After the case: waits up to [`GRACE`] for its threads, logs what it left behind, and puts
/// the driver's hook and handlers back (a shared child runs the next case). Whether nothing
/// was left.
pub fn check(before: &Before) -> bool {
    if !crate::sandbox::enabled() {
        return true;
    }
    let deadline = Instant::now() + GRACE;
    let mut extra = 0;
    let mut status = None;
    while let Some(now) = Status::read() {
        extra = now.threads.saturating_sub(before.threads);
        status = Some(now);
        if extra == 0 || Instant::now() >= deadline {
            break;
        }
        std::thread::sleep(Duration::from_micros(100));
    }
    let mut clean = extra == 0;
    if extra > 0 {
        left_behind(LeftBehind::Threads, extra as u64);
    }
    let hook = std::panic::take_hook();
    if address(&*hook) == QUIET_HOOK.load(Ordering::SeqCst) {
        std::panic::set_hook(hook);
    } else {
        left_behind(LeftBehind::PanicHook, 0);
        clean = false;
        // Its own drop is code under test too: it runs here, inside the sandbox.
        drop(hook);
        quiet_panic_hook();
    }
    for sig in SIGNALS {
        let was = &before.handlers[sig as usize];
        if status.as_ref().is_some_and(|s| s.same_kind(sig, was)) && !catches(was) {
            // Still the default, or still ignored: no handler to compare.
            continue;
        }
        if disposition(sig).is_some_and(|now| now.handler != was.handler) {
            left_behind(LeftBehind::SignalHandler, sig as u64);
            clean = false;
            // SAFETY: the disposition the kernel gave before the case, as it gave it.
            unsafe { sigaction(sig, was, std::ptr::null_mut()) };
        }
    }
    clean
}

/// The kernel's `struct sigaction` on x86-64 (what `rt_sigaction` reads and writes).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
struct KernelSigaction {
    handler: usize,
    flags: u64,
    restorer: usize,
    mask: u64,
}

/// `rt_sigaction` itself (libc's `sigaction` translates, and may be served by the runtime).
unsafe fn sigaction(sig: i32, new: *const KernelSigaction, old: *mut KernelSigaction) -> i64 {
    libc::syscall(libc::SYS_rt_sigaction, sig, new, old, 8usize)
}

/// A signal's disposition (handler, `SIG_DFL` or `SIG_IGN`, flags), asked of the kernel.
fn disposition(sig: i32) -> Option<KernelSigaction> {
    let mut old = KernelSigaction::default();
    // SAFETY: reads the disposition into `old`, changes nothing.
    let r = unsafe { sigaction(sig, std::ptr::null(), &mut old) };
    (r == 0).then_some(old)
}

/// Whether a disposition is a handler (neither `SIG_DFL` nor `SIG_IGN`).
fn catches(d: &KernelSigaction) -> bool {
    d.handler != libc::SIG_DFL && d.handler != libc::SIG_IGN
}

/// What `/proc/self/stat` says of the process: its threads, and the signals it ignores and
/// catches (bit `sig - 1`, signals 1 to 31). One read tells which dispositions are still the
/// default or ignored, where asking the kernel took a system call a signal.
struct Status {
    threads: usize,
    ignored: u64,
    caught: u64,
}

impl Status {
    fn read() -> Option<Status> {
        // Read with system calls alone: the runtime serves libc's file functions to code
        // inside a virtual environment, and this must see the real file.
        let mut buf = [0u8; 1024];
        // SAFETY: a NUL-terminated constant path; reads into `buf` within its length.
        let n = unsafe {
            let fd = libc::syscall(
                libc::SYS_open,
                c"/proc/self/stat".as_ptr(),
                libc::O_RDONLY | libc::O_CLOEXEC,
            );
            if fd < 0 {
                return None;
            }
            let n = libc::syscall(libc::SYS_read, fd, buf.as_mut_ptr(), buf.len());
            libc::syscall(libc::SYS_close, fd);
            n
        };
        Status::parse(std::str::from_utf8(buf.get(..usize::try_from(n).ok()?)?).ok()?)
    }

    fn parse(text: &str) -> Option<Status> {
        // After the command name's closing parenthesis: state is field 3, threads field 20,
        // the ignored and caught signals fields 33 and 34 (decimal).
        let mut fields = text[text.rfind(')')? + 1..].split_whitespace();
        let threads = fields.nth(17)?.parse().ok()?;
        let ignored = fields.nth(12)?.parse().ok()?;
        let caught = fields.next()?.parse().ok()?;
        Some(Status {
            threads,
            ignored,
            caught,
        })
    }

    /// Whether `sig` is as `was` left it in kind: the default, ignored, or a handler (which
    /// handler is the kernel's to say).
    fn same_kind(&self, sig: i32, was: &KernelSigaction) -> bool {
        let bit = |mask: u64| mask >> (sig - 1) & 1 == 1;
        bit(self.ignored) == (was.handler == libc::SIG_IGN) && bit(self.caught) == catches(was)
    }
}

/// The process's number of threads.
fn threads() -> Option<usize> {
    Some(Status::read()?.threads)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_threads_and_reads_handlers() {
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || rx.recv());
        assert!(threads().unwrap() >= 2);
        tx.send(()).unwrap();
        t.join().unwrap().unwrap();
        assert_eq!(disposition(libc::SIGKILL).unwrap().handler, libc::SIG_DFL);
    }

    #[test]
    fn the_status_tells_each_disposition_s_kind() {
        let status = Status::read().unwrap();
        for sig in SIGNALS {
            let was = disposition(sig).unwrap();
            assert!(status.same_kind(sig, &was), "signal {sig}");
        }
        let text = "7 (a b) S 1 7 7 0 -1 4194560 9 0 0 0 0 0 0 0 20 0 3 0 1 2 3 4 5 6 7 8 0 0 0 4096 576 9 0 0 0 17 1 0 0\n";
        let parsed = Status::parse(text).unwrap();
        assert_eq!(parsed.threads, 3);
        let (dfl, ign) = (
            KernelSigaction::default(),
            KernelSigaction {
                handler: libc::SIG_IGN,
                ..Default::default()
            },
        );
        let handler = KernelSigaction {
            handler: 0x1234,
            ..Default::default()
        };
        // SIGPIPE (13) ignored, SIGUSR1 (10) and SIGBUS (7) caught, SIGINT (2) the default.
        assert!(parsed.same_kind(13, &ign) && !parsed.same_kind(13, &dfl));
        assert!(parsed.same_kind(10, &handler) && parsed.same_kind(7, &handler));
        assert!(parsed.same_kind(2, &dfl) && !parsed.same_kind(2, &handler));
    }

    #[test]
    fn the_quiet_hook_is_known_by_its_address() {
        // The first environment entered in a process wraps the hook then in place, on any
        // thread: here other tests do, so enter one first, as the server does before forking.
        drop(hermetic::Env::new().enter());
        quiet_panic_hook();
        let hook = std::panic::take_hook();
        assert_eq!(address(&*hook), QUIET_HOOK.load(Ordering::SeqCst));
        std::panic::set_hook(Box::new(|_| {}));
        let other = std::panic::take_hook();
        assert_ne!(address(&*other), QUIET_HOOK.load(Ordering::SeqCst));
        std::panic::set_hook(hook);
    }
}
