//! Environment variables: getenv, setenv, unsetenv, putenv, clearenv.
//!
//! Values live in the environment's state (never freed while it lives), so the pointers
//! getenv hands out stay valid. `environ` itself is a process-wide global that cannot be made
//! per-thread: `std::env::vars()` reads it directly and so shows the real process variables.

use libc::{c_char, c_int};

use super::bytes;
use crate::real::real;

#[no_mangle]
pub unsafe extern "C" fn getenv(name: *const c_char) -> *mut c_char {
    if let Some(cx) = crate::active::ctx() {
        return cx
            .run(|st| Ok(st.getenv(unsafe { bytes(name) })))
            .ok()
            .flatten()
            .map_or(std::ptr::null_mut(), |p| p as *mut c_char);
    }
    let value = unsafe { real!(getenv: fn(*const c_char) -> *mut c_char)(name) };
    if crate::record::hooks_on() {
        crate::record::on_getenv(name, value);
    }
    value
}

#[no_mangle]
pub unsafe extern "C" fn secure_getenv(name: *const c_char) -> *mut c_char {
    if crate::active::is_active() {
        return unsafe { getenv(name) };
    }
    unsafe { real!(secure_getenv: fn(*const c_char) -> *mut c_char)(name) }
}

#[no_mangle]
pub unsafe extern "C" fn setenv(
    name: *const c_char,
    value: *const c_char,
    overwrite: c_int,
) -> c_int {
    virt!(|st| st
        .setenv(
            unsafe { bytes(name) },
            unsafe { bytes(value) },
            overwrite != 0
        )
        .map(|_| 0));
    unsafe {
        real!(setenv: fn(*const c_char, *const c_char, c_int) -> c_int)(name, value, overwrite)
    }
}

#[no_mangle]
pub unsafe extern "C" fn unsetenv(name: *const c_char) -> c_int {
    virt!(|st| st.unsetenv(unsafe { bytes(name) }).map(|_| 0));
    unsafe { real!(unsetenv: fn(*const c_char) -> c_int)(name) }
}

#[no_mangle]
pub unsafe extern "C" fn putenv(string: *mut c_char) -> c_int {
    virt!(|st| {
        let s = unsafe { bytes(string) };
        match s.iter().position(|&b| b == b'=') {
            Some(i) => st.setenv(&s[..i], &s[i + 1..], true).map(|_| 0),
            None => st.unsetenv(s).map(|_| 0),
        }
    });
    unsafe { real!(putenv: fn(*mut c_char) -> c_int)(string) }
}

#[no_mangle]
pub unsafe extern "C" fn clearenv() -> c_int {
    virt!(|st| {
        let names: Vec<Vec<u8>> = st.vars.keys().cloned().collect();
        for n in names {
            st.unsetenv(&n)?;
        }
        Ok(0)
    });
    unsafe { real!(clearenv: fn() -> c_int)() }
}
