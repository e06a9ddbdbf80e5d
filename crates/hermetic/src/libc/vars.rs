//! Environment variables: getenv, setenv, unsetenv, putenv, clearenv.
//!
//! Values live in the environment's state (never freed while it lives), so the pointers
//! getenv hands out stay valid. `environ` itself is a process-wide global that cannot be made
//! per-thread: `std::env::vars()` reads it directly and so shows the real process variables.

use libc::{c_char, c_int};

use super::bytes;

interpose! {
    fn getenv(name: *const c_char) -> *mut c_char {
        if let Some(cx) = crate::active::ctx() {
            // SAFETY: `name` is a C string, as getenv's contract requires.
            return cx
                .run(|st| Ok(st.getenv(unsafe { bytes(name) })))
                .ok()
                .flatten()
                .map_or(std::ptr::null_mut(), |p| p as *mut c_char);
        }
        let value = pass!();
        if crate::record::hooks_on() {
            // SAFETY: the C string getenv was given, and NULL or glibc's value.
            unsafe { crate::record::on_getenv(name, value) };
        }
        value
    }

    fn secure_getenv(name: *const c_char) -> *mut c_char {
        if crate::active::is_active() {
            // SAFETY: `name` is a C string, as secure_getenv's contract requires.
            return unsafe { getenv(name) };
        }
        pass!()
    }

    fn setenv(name: *const c_char, value: *const c_char, overwrite: c_int) -> c_int {
        virt!(|st| {
            // SAFETY: both are C strings, as setenv's contract requires.
            let (name, value) = unsafe { (bytes(name), bytes(value)) };
            st.setenv(name, value, overwrite != 0).map(|_| 0)
        });
        pass!()
    }

    fn unsetenv(name: *const c_char) -> c_int {
        // SAFETY: `name` is a C string, as unsetenv's contract requires.
        virt!(|st| st.unsetenv(unsafe { bytes(name) }).map(|_| 0));
        pass!()
    }

    fn putenv(string: *mut c_char) -> c_int {
        virt!(|st| {
            // SAFETY: `string` is a C string, as putenv's contract requires.
            let s = unsafe { bytes(string) };
            match s.iter().position(|&b| b == b'=') {
                Some(i) => st.setenv(&s[..i], &s[i + 1..], true).map(|_| 0),
                None => st.unsetenv(s).map(|_| 0),
            }
        });
        pass!()
    }

    fn clearenv() -> c_int {
        virt!(|st| {
            let names: Vec<Vec<u8>> = st.vars.keys().cloned().collect();
            for n in names {
                st.unsetenv(&n)?;
            }
            Ok(0)
        });
        pass!()
    }
}
