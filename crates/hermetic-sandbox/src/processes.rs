//! The supervisor of process starts. The filter sends `fork`, `vfork` and `clone` without
//! `CLONE_THREAD` to a thread listening in user space ([`crate::filter::Action::Notify`]),
//! which lets one thread's own forks go on (the driver's server forking a child per
//! execution) and answers everyone else (the code under test, in those children) with
//! `EPERM`, logging each. A trap could not do this: `posix_spawn` clones with every signal
//! blocked, so a `SIGSYS` there kills the caller before anything can be logged.

use crate::refusals::Log;
use std::sync::atomic::{AtomicBool, Ordering};

/// Starts the supervisor on `listener` (from [`crate::filter::Program::install`]); the
/// calling thread's own process starts are let through.
pub fn supervise(listener: i32, log: &'static Log) -> std::io::Result<()> {
    // SAFETY: gettid has no preconditions.
    let owner = unsafe { libc::gettid() } as u32;
    // glibc's `fork` holds the allocator's locks while it waits for the answer, so the
    // supervisor must be past its own start-up allocations before anyone forks, and must not
    // allocate in its loop.
    static READY: AtomicBool = AtomicBool::new(false);
    std::thread::Builder::new()
        .name("hermetic-sandbox".into())
        .spawn(move || {
            READY.store(true, Ordering::SeqCst);
            loop {
                answer_one(listener, owner, log);
            }
        })?;
    while !READY.load(Ordering::SeqCst) {
        std::thread::yield_now();
    }
    Ok(())
}

/// Waits for one request and answers it: `owner`'s own starts go on, the rest fail with
/// `EPERM`.
fn answer_one(listener: libc::c_int, owner: u32, log: &Log) {
    // SAFETY: the kernel wants a zeroed request to fill in; the answer names its id.
    unsafe {
        let mut request: libc::seccomp_notif = std::mem::zeroed();
        if libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_RECV, &mut request) != 0 {
            return; // interrupted, or the caller is gone
        }
        let mut answer = libc::seccomp_notif_resp {
            id: request.id,
            val: 0,
            error: 0,
            flags: 0,
        };
        if request.pid == owner {
            answer.flags = libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32;
        } else {
            // Logged before the answer: once the caller resumes, its refusal is there.
            let d = &request.data;
            log.record(
                d.arch,
                d.nr as i64,
                [d.args[0], d.args[1], d.args[2]],
                std::ptr::null(),
            );
            answer.error = -libc::EPERM;
        }
        libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_SEND, &mut answer);
    }
}
