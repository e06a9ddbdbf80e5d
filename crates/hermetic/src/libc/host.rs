//! Host facts with fixed values while active: pid, CPU count, host name, user ids.

use libc::{c_char, c_int, c_long, gid_t, passwd, pid_t, size_t, uid_t};

use crate::access::Access;

fn host<T>(what: &'static str, f: impl FnOnce(&crate::state::Host) -> T) -> Option<T> {
    let cx = crate::active::ctx()?;
    cx.run(|st| {
        st.record(Access::HostQueried { what });
        Ok(f(&st.host))
    })
    .ok()
}

/// The user database's answer inside an environment: no entry (`None` outside).
///
/// # Safety
///
/// `result` is NULL or points at a `passwd` pointer to write.
unsafe fn no_user(result: *mut *mut passwd) -> Option<c_int> {
    host("user", |_| ())?;
    if !result.is_null() {
        // SAFETY: a pointer to write (this function's contract).
        unsafe { *result = std::ptr::null_mut() };
    }
    Some(0)
}

interpose! {
    fn getpid() -> pid_t {
        host("pid", |h| h.pid).unwrap_or_else(|| pass!())
    }

    fn getppid() -> pid_t {
        host("pid", |_| 1).unwrap_or_else(|| pass!())
    }

    fn sched_getaffinity(pid: pid_t, size: size_t, mask: *mut libc::cpu_set_t) -> c_int {
        let Some(cpus) = host("cpus", |h| h.cpus) else {
            return pass!();
        };
        if mask.is_null() || size < std::mem::size_of::<libc::cpu_set_t>() {
            crate::active::set_errno(libc::EINVAL);
            return -1;
        }
        // SAFETY: a `cpu_set_t` at `mask` (checked non-NULL and large enough), as
        // sched_getaffinity's contract requires; CPU_SET's indices stay below CPU_SETSIZE.
        unsafe {
            libc::CPU_ZERO(&mut *mask);
            for i in 0..cpus.min(libc::CPU_SETSIZE as usize) {
                libc::CPU_SET(i, &mut *mask);
            }
        }
        0
    }

    fn sysconf(name: c_int) -> c_long {
        if name == libc::_SC_NPROCESSORS_ONLN || name == libc::_SC_NPROCESSORS_CONF {
            if let Some(cpus) = host("cpus", |h| h.cpus) {
                return cpus as c_long;
            }
        }
        pass!()
    }

    fn get_nprocs() -> c_int {
        host("cpus", |h| h.cpus as c_int).unwrap_or_else(|| pass!())
    }

    fn gethostname(buf: *mut c_char, len: size_t) -> c_int {
        let Some(name) = host("hostname", |h| h.hostname.clone()) else {
            return pass!();
        };
        // SAFETY: `len` bytes at `buf`, as gethostname's contract requires.
        match unsafe { super::copy_cstr(name.as_bytes(), buf, len) } {
            Ok(()) => 0,
            Err(_) => {
                crate::active::set_errno(libc::ENAMETOOLONG);
                -1
            }
        }
    }

    /// The real kernel identification, with the fixed host name as `nodename`.
    fn uname(buf: *mut libc::utsname) -> c_int {
        let r = pass!();
        if r == 0 {
            if let Some(name) = host("hostname", |h| h.hostname.clone()) {
                // SAFETY: the `utsname` glibc just filled (uname's contract: `buf` is one).
                let node = unsafe { &mut (*buf).nodename };
                node.fill(0);
                for (d, &s) in node.iter_mut().zip(name.as_bytes().iter().take(64)) {
                    *d = s as c_char;
                }
            }
        }
        r
    }

    fn getuid() -> uid_t {
        host("uid", |_| crate::vfs::UID).unwrap_or_else(|| pass!())
    }

    fn geteuid() -> uid_t {
        host("uid", |_| crate::vfs::UID).unwrap_or_else(|| pass!())
    }

    fn getgid() -> gid_t {
        host("uid", |_| crate::vfs::GID).unwrap_or_else(|| pass!())
    }

    fn getegid() -> gid_t {
        host("uid", |_| crate::vfs::GID).unwrap_or_else(|| pass!())
    }

    /// The user database has no entries while active (so `std::env::home_dir` is `$HOME` or
    /// nothing, never the real user's home).
    fn getpwuid_r(
        uid: uid_t,
        pwd: *mut passwd,
        buf: *mut c_char,
        len: size_t,
        result: *mut *mut passwd,
    ) -> c_int {
        // SAFETY: `result` is where getpwuid_r's contract says the answer goes.
        unsafe { no_user(result) }.unwrap_or_else(|| pass!())
    }

    fn getpwnam_r(
        name: *const c_char,
        pwd: *mut passwd,
        buf: *mut c_char,
        len: size_t,
        result: *mut *mut passwd,
    ) -> c_int {
        // SAFETY: `result` is where getpwnam_r's contract says the answer goes.
        unsafe { no_user(result) }.unwrap_or_else(|| pass!())
    }
}
