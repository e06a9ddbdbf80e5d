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

unsafe extern "C" fn cookie_read(c: *mut c_void, buf: *mut c_char, n: size_t) -> ssize_t {
    unsafe { super::io::read(fd_of(c), buf.cast(), n) }
}
unsafe extern "C" fn cookie_write(c: *mut c_void, buf: *const c_char, n: size_t) -> ssize_t {
    unsafe { super::io::write(fd_of(c), buf.cast(), n) }
}
unsafe extern "C" fn cookie_seek(c: *mut c_void, off: *mut off64_t, whence: c_int) -> c_int {
    let r = unsafe { super::io::lseek64(fd_of(c), *off, whence) };
    if r < 0 {
        return -1;
    }
    unsafe { *off = r };
    0
}
unsafe extern "C" fn cookie_close(c: *mut c_void) -> c_int {
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

unsafe fn wrap(fd: c_int, mode: *const c_char) -> *mut FILE {
    let io = CookieIo {
        read: cookie_read,
        write: cookie_write,
        seek: cookie_seek,
        close: cookie_close,
    };
    unsafe { fopencookie(fd as usize as *mut c_void, mode, io) }
}

#[no_mangle]
pub unsafe extern "C" fn fopen64(path: *const c_char, mode: *const c_char) -> *mut FILE {
    if crate::active::is_active() {
        let Some(flags) = flags_of(unsafe { bytes(mode) }) else {
            crate::active::set_errno(libc::EINVAL);
            return std::ptr::null_mut();
        };
        let fd = unsafe { super::fs::open64(path, flags, 0o666) };
        if fd < 0 {
            return std::ptr::null_mut();
        }
        let f = unsafe { wrap(fd, mode) };
        if f.is_null() {
            unsafe { super::io::close(fd) };
        }
        return f;
    }
    unsafe { real!(fopen64: fn(*const c_char, *const c_char) -> *mut FILE)(path, mode) }
}

#[no_mangle]
pub unsafe extern "C" fn fopen(path: *const c_char, mode: *const c_char) -> *mut FILE {
    if crate::active::is_active() {
        return unsafe { fopen64(path, mode) };
    }
    unsafe { real!(fopen: fn(*const c_char, *const c_char) -> *mut FILE)(path, mode) }
}

#[no_mangle]
pub unsafe extern "C" fn fdopen(fd: c_int, mode: *const c_char) -> *mut FILE {
    if fd >= VFD_BASE {
        return unsafe { wrap(fd, mode) };
    }
    unsafe { real!(fdopen: fn(c_int, *const c_char) -> *mut FILE)(fd, mode) }
}

/// A map of a virtual file is a private anonymous copy of its contents (zero past the end);
/// stores into a shared writable map do not reach the virtual file.
#[no_mangle]
pub unsafe extern "C" fn mmap64(
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    off: off64_t,
) -> *mut c_void {
    let real_mmap =
        real!(mmap64: fn(*mut c_void, size_t, c_int, c_int, c_int, off64_t) -> *mut c_void);
    if fd < VFD_BASE || flags & libc::MAP_ANONYMOUS != 0 {
        return unsafe { real_mmap(addr, len, prot, flags, fd, off) };
    }
    if off < 0 || len == 0 {
        crate::active::set_errno(libc::EINVAL);
        return libc::MAP_FAILED;
    }
    let keep = flags & (libc::MAP_FIXED | libc::MAP_FIXED_NOREPLACE | libc::MAP_NORESERVE);
    let p = unsafe {
        real_mmap(
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
    let buf = unsafe { std::slice::from_raw_parts_mut(p as *mut u8, len) };
    let n = unsafe { super::io::pread64(fd, p, len, off) };
    if n < 0 {
        let e = crate::active::errno();
        unsafe { libc::munmap(p, len) };
        crate::active::set_errno(e);
        return libc::MAP_FAILED;
    }
    buf[n as usize..].fill(0);
    if prot != libc::PROT_READ | libc::PROT_WRITE {
        unsafe { libc::mprotect(p, len, prot) };
    }
    p
}

#[no_mangle]
pub unsafe extern "C" fn mmap(
    addr: *mut c_void,
    len: size_t,
    prot: c_int,
    flags: c_int,
    fd: c_int,
    off: off64_t,
) -> *mut c_void {
    unsafe { mmap64(addr, len, prot, flags, fd, off) }
}
