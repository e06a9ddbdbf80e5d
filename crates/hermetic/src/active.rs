//! Per-thread activation: which environment (if any) the current thread is inside.
//!
//! The flag is a `const`-initialised thread-local `Cell` holding a raw pointer: no lazy
//! initialisation, no destructor, no allocation, so it is safe to read from inside any libc
//! interposer, and the inactive fast path is one TLS load and a compare.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::{Arc, MutexGuard};

use libc::c_int;

use crate::state::{vfd_owner, Shared, State, VFD_BASE};
use crate::vfs::R;

thread_local! {
    static CURRENT: Cell<*const Shared> = const { Cell::new(ptr::null()) };
}

/// Whether the current thread is inside an environment (and not inside one of our handlers).
#[inline(always)]
pub(crate) fn is_active() -> bool {
    !CURRENT.get().is_null()
}

/// Makes `shared` the current thread's environment; returns the previous one to restore.
/// The thread-local owns one strong count of the `Arc`.
pub(crate) fn enter(shared: Arc<Shared>) -> *const Shared {
    CURRENT.replace(Arc::into_raw(shared))
}

/// Undoes [`enter`]: restores `prev` and releases the count the thread-local held.
pub(crate) fn leave(prev: *const Shared) {
    let cur = CURRENT.replace(prev);
    if !cur.is_null() {
        // SAFETY: `cur` came from `Arc::into_raw` in `enter`.
        drop(unsafe { Arc::from_raw(cur) });
    }
}

/// The current thread's environment as a new strong reference (for threads it spawns).
pub(crate) fn current_arc() -> Option<Arc<Shared>> {
    let p = CURRENT.get();
    if p.is_null() {
        return None;
    }
    // SAFETY: the thread-local holds a strong count, so the pointee is alive.
    unsafe {
        Arc::increment_strong_count(p);
        Some(Arc::from_raw(p))
    }
}

pub(crate) fn current_ptr() -> *const Shared {
    CURRENT.get()
}

/// A handler's view of the environment while it serves one call.
///
/// While a `Ctx` lives, the thread is marked inactive, so any libc call made by our own code
/// (locking, allocation, a panic message) passes straight through instead of recursing.
pub(crate) struct Ctx {
    ptr: *const Shared,
    /// Held when the environment was found through a descriptor rather than the thread.
    _owned: Option<Arc<Shared>>,
    /// The thread's own environment, restored when the call is done.
    saved: *const Shared,
    errno: c_int,
}

impl Ctx {
    #[inline]
    fn new(ptr: *const Shared, owned: Option<Arc<Shared>>) -> Ctx {
        Ctx {
            ptr,
            _owned: owned,
            saved: CURRENT.replace(ptr::null()),
            errno: errno(),
        }
    }

    pub fn lock(&self) -> MutexGuard<'_, State> {
        // SAFETY: kept alive by the thread-local's count or by `_owned`.
        unsafe { &*self.ptr }.lock()
    }

    /// Runs `f` on the locked state; a panic inside becomes EIO rather than an abort.
    /// On success errno is left as the caller had it, as libc does.
    pub fn run<T>(&self, f: impl FnOnce(&mut State) -> R<T>) -> R<T> {
        let r = catch_unwind(AssertUnwindSafe(|| f(&mut self.lock()))).unwrap_or(Err(libc::EIO));
        match r {
            Ok(v) => {
                set_errno(self.errno);
                Ok(v)
            }
            Err(e) => {
                set_errno(e);
                Err(e)
            }
        }
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        CURRENT.set(self.saved);
    }
}

/// The context for a call with no descriptor argument, if the thread is active.
#[inline(always)]
pub(crate) fn ctx() -> Option<Ctx> {
    let p = CURRENT.get();
    if p.is_null() {
        None
    } else {
        Some(Ctx::new(p, None))
    }
}

/// The context for a call on descriptor `fd`: for a virtual descriptor the environment that
/// owns it (whichever thread uses it), otherwise the thread's environment.
#[inline(always)]
pub(crate) fn ctx_fd(fd: c_int) -> Option<Ctx> {
    if fd >= VFD_BASE {
        return owner_ctx(fd);
    }
    ctx()
}

fn owner_ctx(fd: c_int) -> Option<Ctx> {
    let owner = vfd_owner(fd)?;
    let p = Arc::as_ptr(&owner);
    Some(Ctx::new(p, Some(owner)))
}

pub(crate) fn errno() -> c_int {
    // SAFETY: glibc's errno location is the calling thread's, valid for its whole life.
    unsafe { *libc::__errno_location() }
}
pub(crate) fn set_errno(e: c_int) {
    // SAFETY: as in `errno`.
    unsafe { *libc::__errno_location() = e }
}

/// `Ok(v)` → v, `Err(_)` → -1 (errno was set by [`Ctx::run`]).
pub(crate) fn ret<T: From<i8>>(r: R<T>) -> T {
    r.unwrap_or_else(|_| T::from(-1))
}

/// A strong reference to the environment a context serves (for objects that outlive it).
pub(crate) fn current_owner(cx: &Ctx) -> Arc<Shared> {
    // SAFETY: the context keeps the pointee alive while we take our own count.
    unsafe {
        Arc::increment_strong_count(cx.ptr);
        Arc::from_raw(cx.ptr)
    }
}

/// How often code has touched the current thread's environment so far (`None` outside one):
/// isolated calls compare it before and after a real call.
pub(crate) fn touches() -> Option<u64> {
    let p = CURRENT.get();
    if p.is_null() {
        return None;
    }
    let _off = Suspend::new();
    // SAFETY: the thread-local holds a strong count, so the pointee is alive.
    Some(unsafe { &*p }.lock().touches())
}

/// Switches the current thread out of its environment until dropped.
pub(crate) struct Suspend(*const Shared);

impl Suspend {
    pub fn new() -> Suspend {
        Suspend(CURRENT.replace(ptr::null()))
    }
}

impl Drop for Suspend {
    fn drop(&mut self) {
        CURRENT.set(self.0);
    }
}
