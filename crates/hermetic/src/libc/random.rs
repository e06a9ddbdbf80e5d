//! Randomness from the environment: getrandom, getentropy, and the raw `syscall` entry point
//! (used by older getrandom crates and by std for a few calls). In record mode the bytes each
//! call drew are logged, std's hash-key draws apart from the others.

use libc::{c_int, c_long, c_uint, c_void, size_t, ssize_t};

use crate::access::Access;
use crate::real::real;
use crate::rng::Draw;
use crate::state::State;
use crate::vfs::R;

/// How std asks for a thread's `RandomState` keys: 16 bytes with `GRND_INSECURE` (or
/// `GRND_NONBLOCK` where the kernel lacks it); everything else std and the `getrandom` crate
/// draw uses no such flag.
fn draw_of(len: size_t, flags: c_uint) -> Draw {
    let insecure = flags & libc::GRND_INSECURE != 0;
    let nonblock_keys = flags & libc::GRND_NONBLOCK != 0 && len == 16;
    if insecure || nonblock_keys {
        Draw::HashKeys
    } else {
        Draw::Code
    }
}

/// Fills `len` bytes at `buf` from the environment's random stream.
///
/// # Safety
///
/// `buf` is valid for writes of `len` bytes, which nothing else uses meanwhile.
unsafe fn fill(st: &mut State, draw: Draw, buf: *mut c_void, len: size_t) -> R<usize> {
    st.record(Access::RandomRead);
    // SAFETY: `len` writable bytes (this function's contract).
    st.random.fill(draw, unsafe { super::slice_mut(buf, len) });
    Ok(len)
}

/// Record mode: logs what a real draw of `r` bytes (or -1) put in `buf`.
///
/// # Safety
///
/// When `r > 0`, `buf` holds `r` readable bytes.
unsafe fn logged(r: c_long, buf: *mut c_void, draw: Draw) -> c_long {
    if r > 0 && crate::record::hooks_on() {
        // SAFETY: `r` bytes the draw just wrote (this function's contract).
        crate::record::on_random(unsafe { super::slice(buf, r as usize) }, draw);
    }
    r
}

interpose! {
    fn getrandom(buf: *mut c_void, len: size_t, flags: c_uint) -> ssize_t {
        // SAFETY: `len` writable bytes at `buf`, as getrandom's contract requires.
        virt!(|st| unsafe { fill(st, draw_of(len, flags), buf, len) }.map(|n| n as ssize_t));
        let r = match crate::real::real_opt!(getrandom: fn(*mut c_void, size_t, c_uint) -> ssize_t)
        {
            // SAFETY: glibc's own getrandom, with the caller's arguments (as `pass!`).
            Some(f) => unsafe { f(buf, len, flags) },
            // glibc < 2.25: the kernel's call, not our `syscall` (which would log it again).
            // SAFETY: the system call getrandom stands for, with the same arguments.
            None => unsafe {
                real!(syscall: fn(c_long, c_long, c_long, c_long, c_long, c_long, c_long) -> c_long)(
                    libc::SYS_getrandom,
                    buf as c_long,
                    len as c_long,
                    flags as c_long,
                    0,
                    0,
                    0,
                ) as ssize_t
            },
        };
        // SAFETY: `r` bytes, when positive, were just drawn into `buf`.
        unsafe { logged(r as c_long, buf, draw_of(len, flags)) as ssize_t }
    }

    fn getentropy(buf: *mut c_void, len: size_t) -> c_int {
        virt!(|st| {
            if len > 256 {
                return Err(libc::EIO);
            }
            // SAFETY: `len` writable bytes at `buf`, as getentropy's contract requires.
            unsafe { fill(st, Draw::Code, buf, len) }.map(|_| 0)
        });
        match crate::real::real_opt!(getentropy: fn(*mut c_void, size_t) -> c_int) {
            // glibc's getentropy asks the kernel itself, past our getrandom: logged here.
            Some(f) => {
                // SAFETY: glibc's own getentropy, with the caller's arguments (as `pass!`).
                let r = unsafe { f(buf, len) };
                if r == 0 {
                    // SAFETY: getentropy filled all `len` bytes.
                    unsafe { logged(len as c_long, buf, Draw::Code) };
                }
                r
            }
            // glibc < 2.25 (getentropy is getrandom for at most 256 bytes)
            None if len > 256 => {
                crate::active::set_errno(libc::EIO);
                -1
            }
            // SAFETY: the caller's buffer of `len` bytes, to our getrandom.
            None => (unsafe { getrandom(buf, len, 0) } as usize == len) as c_int - 1,
        }
    }

    /// `syscall(2)`: on an active thread, the numbers that have a virtual meaning (randomness,
    /// the file calls, getpid, timed futex waits) are served like their libc wrappers;
    /// everything else — futex wake-ups and untimed waits above all, and `SYS_clock_gettime`,
    /// which stays the real clock — goes straight to the kernel.
    fn syscall(
        n: c_long,
        a1: c_long,
        a2: c_long,
        a3: c_long,
        a4: c_long,
        a5: c_long,
        a6: c_long,
    ) -> c_long {
        if crate::active::is_active() {
            // SAFETY: syscall(2)'s contract: the arguments are those the numbered system call
            // takes. Each arm passes them, as their C types, to our wrapper of that call, whose
            // contract is the system call's.
            let served = unsafe { served(n, [a1, a2, a3, a4, a5, a6]) };
            if let Some(r) = served {
                return r;
            }
        }
        let r = pass!();
        if n == libc::SYS_getrandom {
            // SAFETY: `r` bytes, when positive, were just drawn into the buffer at `a1`.
            return unsafe { logged(r, a1 as *mut c_void, draw_of(a2 as size_t, a3 as c_uint)) };
        }
        r
    }
}

/// What `syscall(n, a..)` returns when the thread's environment serves it (`None`: the kernel
/// does).
///
/// # Safety
///
/// `a` holds the arguments system call `n` takes (syscall(2)'s contract).
unsafe fn served(n: c_long, a: [c_long; 6]) -> Option<c_long> {
    let [a1, a2, a3, a4, a5, a6] = a;
    // SAFETY: each arm calls our wrapper of system call `n` with `n`'s arguments (this
    // function's contract), as the C types the wrapper takes.
    unsafe {
        Some(match n {
            libc::SYS_getrandom => getrandom(a1 as *mut c_void, a2 as size_t, a3 as c_uint) as c_long,
            libc::SYS_statx => super::stat::statx(
                a1 as c_int,
                a2 as *const libc::c_char,
                a3 as c_int,
                a4 as c_uint,
                a5 as *mut libc::statx,
            ) as c_long,
            libc::SYS_copy_file_range => super::io::copy_file_range(
                a1 as c_int,
                a2 as *mut i64,
                a3 as c_int,
                a4 as *mut i64,
                a5 as size_t,
                a6 as c_uint,
            ) as c_long,
            libc::SYS_getpid => super::host::getpid() as c_long,
            // File calls made through syscall(2) by crates that skip the libc wrappers.
            libc::SYS_read => super::io::read(a1 as c_int, a2 as *mut c_void, a3 as size_t) as c_long,
            libc::SYS_write => {
                super::io::write(a1 as c_int, a2 as *const c_void, a3 as size_t) as c_long
            }
            libc::SYS_pread64 => {
                super::io::pread64(a1 as c_int, a2 as *mut c_void, a3 as size_t, a4) as c_long
            }
            libc::SYS_pwrite64 => {
                super::io::pwrite64(a1 as c_int, a2 as *const c_void, a3 as size_t, a4) as c_long
            }
            libc::SYS_lseek => super::io::lseek64(a1 as c_int, a2, a3 as c_int),
            libc::SYS_close => super::io::close(a1 as c_int) as c_long,
            libc::SYS_ftruncate => super::io::ftruncate64(a1 as c_int, a2) as c_long,
            libc::SYS_openat => super::fs::openat64(
                a1 as c_int,
                a2 as *const libc::c_char,
                a3 as c_int,
                a4 as c_uint,
            ) as c_long,
            libc::SYS_fstat => super::stat::fstat64(a1 as c_int, a2 as *mut libc::stat64) as c_long,
            libc::SYS_newfstatat => super::stat::fstatat64(
                a1 as c_int,
                a2 as *const libc::c_char,
                a3 as *mut libc::stat64,
                a4 as c_int,
            ) as c_long,
            libc::SYS_mkdirat => {
                super::fs::mkdirat(a1 as c_int, a2 as *const libc::c_char, a3 as libc::mode_t)
                    as c_long
            }
            libc::SYS_unlinkat => {
                super::fs::unlinkat(a1 as c_int, a2 as *const libc::c_char, a3 as c_int) as c_long
            }
            libc::SYS_renameat2 => super::fs::renameat2(
                a1 as c_int,
                a2 as *const libc::c_char,
                a3 as c_int,
                a4 as *const libc::c_char,
                a5 as c_uint,
            ) as c_long,
            libc::SYS_readlinkat => super::fs::readlinkat(
                a1 as c_int,
                a2 as *const libc::c_char,
                a3 as *mut libc::c_char,
                a4 as size_t,
            ) as c_long,
            libc::SYS_futex => return super::time::futex_wait_bitset(a),
            _ => return None,
        })
    }
}
