//! Record mode's standard input: the real fd 0 is read ahead into a buffer of the runtime's
//! own, and each `read` of fd 0 gets at most one line of it.
//!
//! std's `Stdin` asks for 8 KiB at a time, so without this the first call that reads a line
//! would take (and be logged with) every line a pipe held, and the calls after it would be
//! served from std's buffer with no read to log. One line per read is what a terminal gives
//! too (a short read is always legal), so line readers see no difference, and a call that
//! reads to the end still gets, and logs, all it read.

use std::sync::{Mutex, MutexGuard};

use libc::{c_void, size_t, ssize_t};

use crate::real::real;

/// How much of the real stdin one real read takes.
const CHUNK: usize = 64 << 10;

/// Read from fd 0, not yet handed out.
struct Ahead {
    data: Vec<u8>,
    pos: usize,
}

static AHEAD: Mutex<Ahead> = Mutex::new(Ahead {
    data: Vec::new(),
    pos: 0,
});

fn lock() -> MutexGuard<'static, Ahead> {
    AHEAD.lock().unwrap_or_else(|e| e.into_inner())
}

/// `read(0, buf, n)`: at most one line (up to and including its `\n`) of what is buffered,
/// reading the real stdin first when nothing is. End of file and errors are the real ones.
///
/// # Safety
///
/// `buf` is valid for writes of `n` bytes.
pub(crate) unsafe fn read(buf: *mut c_void, n: size_t) -> ssize_t {
    if n == 0 {
        return 0;
    }
    let mut ahead = lock();
    if ahead.pos == ahead.data.len() {
        ahead.data.resize(CHUNK, 0);
        ahead.pos = 0;
        let ptr = ahead.data.as_mut_ptr().cast();
        // SAFETY: glibc's read into our buffer of CHUNK bytes.
        let r =
            unsafe { real!(read: fn(libc::c_int, *mut c_void, size_t) -> ssize_t)(0, ptr, CHUNK) };
        ahead.data.truncate(r.max(0) as usize);
        if r <= 0 {
            // Unlocking may wake a waiter through a system call: keep the read's errno.
            let errno = crate::active::errno();
            drop(ahead);
            crate::active::set_errno(errno);
            return r;
        }
    }
    let rest = &ahead.data[ahead.pos..];
    // glibc's memchr: this runs once per line of the program's input.
    // SAFETY: searches our own `rest.len()` bytes.
    let newline = unsafe { libc::memchr(rest.as_ptr().cast(), b'\n' as i32, rest.len()) };
    let line = if newline.is_null() {
        rest.len()
    } else {
        newline as usize - rest.as_ptr() as usize + 1
    };
    let k = line.min(n);
    // SAFETY: `k <= n` writable bytes at `buf` (this function's contract).
    let out = unsafe { crate::libc::slice_mut(buf, k) };
    out.copy_from_slice(&rest[..k]);
    ahead.pos += k;
    k as ssize_t
}
