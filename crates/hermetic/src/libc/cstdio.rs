//! C stdio and memory maps on virtual files: `fopen`/`fdopen` return a `FILE*` whose I/O is
//! routed to the virtual descriptor (glibc's own stdio would call the kernel directly), and
//! `mmap` of a virtual descriptor gives an anonymous copy of the file's contents.

use libc::{c_char, c_int, c_void, off64_t, size_t, ssize_t, FILE};

use super::bytes;
use crate::real::real;
use crate::state::VFD_BASE;

/// glibc's `cookie_io_functions_t`.
#[repr(C)]
struct CookieIo {
    read: unsafe extern "C" fn(*mut c_void, *mut c_char, size_t) -> ssize_t,
    write: unsafe extern "C" fn(*mut c_void, *const c_char, size_t) -> ssize_t,
    seek: unsafe extern "C" fn(*mut c_void, *mut off64_t, c_int) -> c_int,
    close: unsafe extern "C" fn(*mut c_void) -> c_int,
}

unsafe extern "C" {
    fn fopencookie(cookie: *mut c_void, mode: *const c_char, io: CookieIo) -> *mut FILE;
}

fn fd_of(cookie: *mut c_void) -> c_int {
    cookie as usize as c_int
}

// The cookie functions get the cookie `wrap` gave glibc (a virtual descriptor) and glibc's own
// arguments for the stream's I/O, which are those of `read`/`write`/`lseek`/`close`.

unsafe extern "C" fn cookie_read(c: *mut c_void, buf: *mut c_char, n: size_t) -> ssize_t {
    // SAFETY: glibc hands a buffer of `n` bytes, as `read` takes.
    unsafe { super::io::read(fd_of(c), buf.cast(), n) }
}
unsafe extern "C" fn cookie_write(c: *mut c_void, buf: *const c_char, n: size_t) -> ssize_t {
    // SAFETY: glibc hands `n` bytes to write, as `write` takes.
    unsafe { super::io::write(fd_of(c), buf.cast(), n) }
}
unsafe extern "C" fn cookie_seek(c: *mut c_void, off: *mut off64_t, whence: c_int) -> c_int {
    // SAFETY: `off` points at glibc's offset, to read and to update.
    let r = unsafe { super::io::lseek64(fd_of(c), *off, whence) };
    if r < 0 {
        return -1;
    }
    // SAFETY: as above.
    unsafe { *off = r };
    0
}
unsafe extern "C" fn cookie_close(c: *mut c_void) -> c_int {
    // SAFETY: closing the stream's own descriptor, once, as glibc closes the stream.
    unsafe { super::io::close(fd_of(c)) }
}

/// `fopen` mode string → `open` flags.
fn flags_of(mode: &[u8]) -> Option<c_int> {
    let plus = mode.contains(&b'+');
    let mut f = match mode.first()? {
        b'r' if plus => libc::O_RDWR,
        b'r' => libc::O_RDONLY,
        b'w' if plus => libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC,
        b'w' => libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC,
        b'a' if plus => libc::O_RDWR | libc::O_CREAT | libc::O_APPEND,
        b'a' => libc::O_WRONLY | libc::O_CREAT | libc::O_APPEND,
        _ => return None,
    };
    if mode.contains(&b'x') {
        f |= libc::O_EXCL;
    }
    Some(f | libc::O_CLOEXEC)
}

/// A `FILE*` whose I/O goes to the virtual descriptor `fd`.
///
/// # Safety
///
/// `mode` is a NUL-terminated `fopen` mode; `fd` is a descriptor the stream may own.
unsafe fn wrap(fd: c_int, mode: *const c_char) -> *mut FILE {
    let io = CookieIo {
        read: cookie_read,
        write: cookie_write,
        seek: cookie_seek,
        close: cookie_close,
    };
    // SAFETY: `mode` is the caller's; the cookie functions match glibc's signatures.
    unsafe { fopencookie(fd as usize as *mut c_void, mode, io) }
}

interpose! {
    /// A stream on a virtual file, while the thread is inside an environment.
    fn fopen64 | fopen (path: *const c_char, mode: *const c_char) -> *mut FILE {
        if !crate::active::is_active() {
            return pass!();
        }
        // SAFETY: `mode` is a C string, as fopen's contract requires.
        let Some(flags) = flags_of(unsafe { bytes(mode) }) else {
            crate::active::set_errno(libc::EINVAL);
            return std::ptr::null_mut();
        };
        // SAFETY: `path` is the caller's C string, as open takes it.
        let fd = unsafe { super::fs::open64(path, flags, 0o666) };
        if fd < 0 {
            return std::ptr::null_mut();
        }
        // SAFETY: `mode` as above; `fd` was just opened for this stream.
        let f = unsafe { wrap(fd, mode) };
        if f.is_null() {
            // SAFETY: the descriptor opened above, which no stream owns.
            unsafe { super::io::close(fd) };
        }
        f
    }

    fn fdopen(fd: c_int, mode: *const c_char) -> *mut FILE {
        if fd >= VFD_BASE {
            // SAFETY: `mode` is a C string (fdopen's contract); the caller hands `fd` over.
            return unsafe { wrap(fd, mode) };
        }
        pass!()
    }

    /// A map of a virtual file is a private anonymous copy of its contents (zero past the end);
    /// stores into a shared writable map do not reach the virtual file.
    fn mmap64 | mmap (
        addr: *mut c_void,
        len: size_t,
        prot: c_int,
        flags: c_int,
        fd: c_int,
        off: off64_t,
    ) -> *mut c_void {
        if fd < VFD_BASE || flags & libc::MAP_ANONYMOUS != 0 {
            return pass!();
        }
        if off < 0 || len == 0 {
            crate::active::set_errno(libc::EINVAL);
            return libc::MAP_FAILED;
        }
        let keep = flags & (libc::MAP_FIXED | libc::MAP_FIXED_NOREPLACE | libc::MAP_NORESERVE);
        // SAFETY: a new anonymous private map (at `addr` only where the caller asked for a
        // fixed address, which its contract makes its own business).
        let p = unsafe {
            real!(mmap64: fn(*mut c_void, size_t, c_int, c_int, c_int, off64_t) -> *mut c_void)(
                addr,
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | keep,
                -1,
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return p;
        }
        // SAFETY: the map just made: `len` writable bytes nothing else refers to yet.
        let buf = unsafe { std::slice::from_raw_parts_mut(p as *mut u8, len) };
        // SAFETY: reads at most `len` bytes into the map.
        let n = unsafe { super::io::pread64(fd, p, len, off) };
        if n < 0 {
            let e = crate::active::errno();
            // SAFETY: unmapping the map just made, which no one else has seen.
            unsafe { libc::munmap(p, len) };
            crate::active::set_errno(e);
            return libc::MAP_FAILED;
        }
        buf[n as usize..].fill(0);
        if prot != libc::PROT_READ | libc::PROT_WRITE {
            // SAFETY: the map just made, given the protection the caller asked for.
            unsafe { libc::mprotect(p, len, prot) };
        }
        p
    }
}
