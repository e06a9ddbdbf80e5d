//! The interposed C symbols. Each one passes straight through to glibc unless the calling
//! thread is inside an environment (or the descriptor it names is virtual).
//!
//! # Passing through
//!
//! Why an interposer that does not serve a call is as sound as the caller's call to glibc:
//!
//! - **Same function, same arguments.** Each symbol is defined with the C signature of glibc's
//!   function of that name (the `libc` crate's declaration), and passes the call to glibc's own
//!   definition, found with `dlsym(RTLD_NEXT, name)` (the next definition in link order; see
//!   `real.rs`), with its arguments untouched, returning glibc's result untouched. So the
//!   caller's obligations (pointers valid for the lengths given, NUL-terminated strings, open
//!   descriptors) are exactly those it took on by calling glibc; the interposer adds none and
//!   discharges none. `interpose!`'s `pass!()` is the one place this call is written.
//! - **Nothing read that the contract does not promise.** Before or after passing through, an
//!   interposer looks at its arguments only as the C function's contract makes them valid: a
//!   path as a C string, `read`'s buffer as `n` bytes, a `stat` it was just given back. Record
//!   mode's hooks read the same and no more.
//! - **Nothing held across the call.** No lock of the runtime is held while glibc runs: glibc
//!   may call back into these same symbols (its `fopen` opens, `getpwnam_r` reads files), and
//!   on a thread outside an environment those go straight through again, costing one
//!   thread-local load each. Record mode marks the runtime's own libc calls (a per-thread busy
//!   flag) so that they are not logged as the program's.
//! - **Twins are one function.** glibc's `open`/`open64`, `stat`/`stat64`, ... pairs have one
//!   ABI on 64-bit targets; each twin still passes to glibc's function of its own name.
//!
//! Serving a call virtually is the other half: there the interposer writes into the caller's
//! buffers only within the lengths the contract gives (`read` at most `n` bytes, `getcwd` at
//! most `size`), and each `unsafe` block says which part of which contract it relies on.

use std::ffi::CStr;

use libc::{c_char, c_int, c_void};

use crate::state::VFD_BASE;

/// Serves the call virtually when `fd` is ours: `virt_fd!(fd, |st| expr)` returns from the
/// enclosing interposer with `expr`'s result (errno set on error).
macro_rules! virt_fd {
    ($fd:expr, |$st:ident| $body:expr) => {
        if $crate::libc::fd_is_ours($fd) {
            if let Some(cx) = $crate::active::ctx_fd($fd) {
                return $crate::active::ret(cx.run(|$st| $body));
            }
        }
    };
}

/// `virt!(|st| expr)`: serve the call virtually when the thread is inside an environment.
macro_rules! virt {
    (|$st:ident| $body:expr) => {
        if let Some(cx) = $crate::active::ctx() {
            return $crate::active::ret(cx.run(|$st| $body));
        }
    };
}

/// Whether a call on `fd` needs the slow path: a virtual descriptor, or stdio while active.
#[inline(always)]
pub(crate) fn fd_is_ours(fd: c_int) -> bool {
    fd >= VFD_BASE || ((0..=2).contains(&fd) && crate::active::is_active())
}

/// The bytes of a C string argument (empty for NULL, which callers reject first).
///
/// # Safety
///
/// `p` is NULL or points at a NUL-terminated string that stays unchanged while the result
/// lives.
pub(crate) unsafe fn bytes<'a>(p: *const c_char) -> &'a [u8] {
    if p.is_null() {
        &[]
    } else {
        // SAFETY: a NUL-terminated string (this function's contract).
        unsafe { CStr::from_ptr(p) }.to_bytes()
    }
}

/// The `n` bytes at `p` (empty for NULL or 0).
///
/// # Safety
///
/// `p` is NULL or valid for reads of `n` bytes, unchanged while the result lives.
pub(crate) unsafe fn slice<'a>(p: *const c_void, n: usize) -> &'a [u8] {
    if p.is_null() || n == 0 {
        &[]
    } else {
        // SAFETY: `n` readable bytes (this function's contract).
        unsafe { std::slice::from_raw_parts(p.cast(), n) }
    }
}

/// The `n` bytes at `p`, to write into (empty for NULL or 0).
///
/// # Safety
///
/// `p` is NULL or valid for writes of `n` bytes, and nothing else reads or writes them while
/// the result lives.
pub(crate) unsafe fn slice_mut<'a>(p: *mut c_void, n: usize) -> &'a mut [u8] {
    if p.is_null() || n == 0 {
        &mut []
    } else {
        // SAFETY: `n` writable bytes, ours alone (this function's contract).
        unsafe { std::slice::from_raw_parts_mut(p.cast(), n) }
    }
}

/// Copies `src` plus a NUL into a caller buffer of `size` bytes; ERANGE if it does not fit.
///
/// # Safety
///
/// `buf` is valid for writes of `size` bytes.
pub(crate) unsafe fn copy_cstr(src: &[u8], buf: *mut c_char, size: usize) -> Result<(), c_int> {
    if src.len() + 1 > size {
        return Err(libc::ERANGE);
    }
    // SAFETY: `src.len() + 1 <= size` bytes written into `buf` (this function's contract).
    unsafe {
        std::ptr::copy_nonoverlapping(src.as_ptr(), buf.cast(), src.len());
        *buf.add(src.len()) = 0;
    }
    Ok(())
}

/// A `malloc`ed NUL-terminated copy (for APIs whose result the caller `free`s); NULL when
/// `malloc` fails.
pub(crate) fn malloc_cstr(src: &[u8]) -> *mut c_char {
    // SAFETY: malloc has no preconditions.
    let p = unsafe { libc::malloc(src.len() + 1) as *mut c_char };
    if !p.is_null() {
        // SAFETY: `p` is a fresh allocation of `src.len() + 1` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(src.as_ptr(), p.cast(), src.len());
            *p.add(src.len()) = 0;
        }
    }
    p
}

/// Defines a module's interposers, one entry each:
///
/// ```ignore
/// /// What the virtual version does.
/// fn open64 | open (path: *const c_char, flags: c_int, mode: c_uint) -> c_int {
///     virt!(|st| ..);
///     pass!()
/// }
/// ```
///
/// Each name becomes a `#[no_mangle] pub unsafe extern "C" fn` with that signature and body;
/// the names after the first are glibc's twins of it (`open`/`open64`, `stat`/`stat64`: one
/// ABI on x86_64, one body). In the body, `pass!()` passes the call through to glibc's own
/// function of the symbol being defined, with the caller's arguments unchanged (see the module
/// docs for why that is sound), and `try_pass!()` does the same for a symbol older glibcs lack
/// (`None` there, for the body's fallback). The module also gets `keep()`, which names every
/// symbol it defines, for [`KEEP`].
macro_rules! interpose {
    ($(
        $(#[$attr:meta])*
        fn $name:ident $(| $twin:ident)* ($($args:tt)*) -> $ret:ty $body:block
    )*) => {
        $( interpose!(@symbols [$(#[$attr])*] [$name $($twin)*] ($($args)*) -> $ret $body); )*

        /// Names every interposer of this module, for `libc::KEEP`.
        #[inline(never)]
        pub(crate) unsafe extern "C" fn keep() {
            $(
                ::std::hint::black_box($name as *const ());
                $( ::std::hint::black_box($twin as *const ()); )*
            )*
        }
    };
    (@symbols $attrs:tt [$($name:ident)+] $args:tt -> $ret:ty $body:block) => {
        $( interpose!(@symbol $attrs $name $args -> $ret $body); )+
    };
    (@symbol [$($attr:tt)*] $name:ident ($($arg:ident : $ty:ty),* $(,)?) -> $ret:ty $body:block) => {
        $($attr)*
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $ty),*) -> $ret {
            #[allow(unused_macros)]
            macro_rules! pass {
                () => {
                    // SAFETY: glibc's own function of this very symbol, of this signature,
                    // called with the caller's arguments as they came: the caller's contract
                    // with libc is the one it made (module docs, "Passing through").
                    unsafe { $crate::real::real!($name: fn($($ty),*) -> $ret)($($arg),*) }
                };
            }
            #[allow(unused_macros)]
            macro_rules! try_pass {
                () => {
                    match $crate::real::real_opt!($name: fn($($ty),*) -> $ret) {
                        // SAFETY: as `pass!`.
                        Some(f) => Some(unsafe { f($($arg),*) }),
                        None => None,
                    }
                };
            }
            $body
        }
    };
}

/// The modules of interposers, and [`KEEP`], which holds each module's `keep()` (and through
/// it every interposer).
macro_rules! modules {
    ($($module:ident),* $(,)?) => {
        $(pub(crate) mod $module;)*

        /// Every interposer, referenced from the object that defines `Env::enter`, so the
        /// linker pulls them into any binary that uses an environment (rlib members are
        /// otherwise linked only when something names them, and std's references come too late
        /// in the link order).
        #[used]
        pub(crate) static KEEP: [unsafe extern "C" fn(); [$(stringify!($module)),*].len()] =
            [$($module::keep),*];
    };
}

modules!(cstdio, dir, fs, fsmisc, host, io, net, process, random, stat, thread, time, vars,);

/// Makes sure [`KEEP`] is referenced from the caller's object file.
#[inline(never)]
pub(crate) fn link_interposers() {
    std::hint::black_box(&KEEP);
}
