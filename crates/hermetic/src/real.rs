//! The real libc functions behind our interposers, found once with `dlsym(RTLD_NEXT, ..)`.

use std::ffi::c_void;

/// Looks a symbol up in the objects loaded after the executable (glibc, in practice).
///
/// Called at most a few times per symbol (the result is cached by [`real!`]); a missing
/// symbol is fatal because there is nothing sensible to pass the call through to.
pub(crate) fn lookup(name: &'static str) -> *mut c_void {
    debug_assert!(name.ends_with('\0'));
    // SAFETY: `name` is NUL-terminated (the `real!` macro adds the NUL).
    let p = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr().cast()) };
    if p.is_null() {
        let msg = b"hermetic: cannot find the real libc symbol ";
        // SAFETY: raw writes of our own buffers to fd 2 (no allocation, no libc stdio: this
        // may run inside any libc call), then abort.
        unsafe {
            libc::syscall(libc::SYS_write, 2, msg.as_ptr(), msg.len());
            libc::syscall(libc::SYS_write, 2, name.as_ptr(), name.len() - 1);
            libc::syscall(libc::SYS_write, 2, b"\n".as_ptr(), 1);
            libc::abort();
        }
    }
    p
}

/// `real!(name: fn(args) -> ret)` evaluates to the real function pointer, resolved on first
/// use and cached in a static atomic (a relaxed load on the fast path).
macro_rules! real {
    ($name:ident : fn($($t:ty),* $(,)?) -> $r:ty) => {{
        static PTR: ::std::sync::atomic::AtomicPtr<::std::ffi::c_void> =
            ::std::sync::atomic::AtomicPtr::new(::std::ptr::null_mut());
        let mut p = PTR.load(::std::sync::atomic::Ordering::Relaxed);
        if p.is_null() {
            p = $crate::real::lookup(concat!(stringify!($name), "\0"));
            PTR.store(p, ::std::sync::atomic::Ordering::Relaxed);
        }
        // SAFETY: `p` is glibc's definition of `$name`, which the caller names with its C
        // signature.
        #[allow(clippy::missing_transmute_annotations, unused_unsafe)]
        let f: unsafe extern "C" fn($($t),*) -> $r = unsafe { ::std::mem::transmute(p) };
        f
    }};
}
pub(crate) use real;

/// `real_opt!(name: fn(args) -> ret)`: like [`real!`] but `None` when libc lacks the symbol
/// (e.g. `stat64` is only exported since glibc 2.33; older ones get a raw-syscall fallback).
macro_rules! real_opt {
    ($name:ident : fn($($t:ty),* $(,)?) -> $r:ty) => {{
        // 1 = looked up and missing.
        static PTR: ::std::sync::atomic::AtomicPtr<::std::ffi::c_void> =
            ::std::sync::atomic::AtomicPtr::new(::std::ptr::null_mut());
        let mut p = PTR.load(::std::sync::atomic::Ordering::Relaxed);
        if p.is_null() {
            // SAFETY: a NUL-terminated name.
            p = unsafe { ::libc::dlsym(::libc::RTLD_NEXT, concat!(stringify!($name), "\0").as_ptr().cast()) };
            if p.is_null() {
                p = ::std::ptr::without_provenance_mut(1);
            }
            PTR.store(p, ::std::sync::atomic::Ordering::Relaxed);
        }
        if p.addr() == 1 {
            None
        } else {
            // SAFETY: as in `real!`.
            #[allow(clippy::missing_transmute_annotations, unused_unsafe)]
            let f: unsafe extern "C" fn($($t),*) -> $r = unsafe { ::std::mem::transmute(p) };
            Some(f)
        }
    }};
}
pub(crate) use real_opt;
