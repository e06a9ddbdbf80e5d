//! Host facts with fixed values while active: pid, CPU count, host name, user ids.

use libc::{c_char, c_int, c_long, gid_t, passwd, pid_t, size_t, uid_t};

use crate::access::Access;
use crate::real::real;

fn host<T>(what: &'static str, f: impl FnOnce(&crate::state::Host) -> T) -> Option<T> {
    let cx = crate::active::ctx()?;
    cx.run(|st| {
        st.record(Access::HostQueried { what });
        Ok(f(&st.host))
    })
    .ok()
}

#[no_mangle]
pub unsafe extern "C" fn getpid() -> pid_t {
    if let Some(p) = host("pid", |h| h.pid) {
        return p;
    }
    unsafe { real!(getpid: fn() -> pid_t)() }
}

#[no_mangle]
pub unsafe extern "C" fn getppid() -> pid_t {
    if let Some(p) = host("pid", |_| 1) {
        return p;
    }
    unsafe { real!(getppid: fn() -> pid_t)() }
}

#[no_mangle]
pub unsafe extern "C" fn sched_getaffinity(
    pid: pid_t,
    size: size_t,
    mask: *mut libc::cpu_set_t,
) -> c_int {
    if let Some(cpus) = host("cpus", |h| h.cpus) {
        if mask.is_null() || size < std::mem::size_of::<libc::cpu_set_t>() {
            crate::active::set_errno(libc::EINVAL);
            return -1;
        }
        unsafe {
            libc::CPU_ZERO(&mut *mask);
            for i in 0..cpus.min(libc::CPU_SETSIZE as usize) {
                libc::CPU_SET(i, &mut *mask);
            }
        }
        return 0;
    }
    unsafe {
        real!(sched_getaffinity: fn(pid_t, size_t, *mut libc::cpu_set_t) -> c_int)(pid, size, mask)
    }
}

#[no_mangle]
pub unsafe extern "C" fn sysconf(name: c_int) -> c_long {
    if name == libc::_SC_NPROCESSORS_ONLN || name == libc::_SC_NPROCESSORS_CONF {
        if let Some(cpus) = host("cpus", |h| h.cpus) {
            return cpus as c_long;
        }
    }
    unsafe { real!(sysconf: fn(c_int) -> c_long)(name) }
}

#[no_mangle]
pub unsafe extern "C" fn get_nprocs() -> c_int {
    if let Some(cpus) = host("cpus", |h| h.cpus) {
        return cpus as c_int;
    }
    unsafe { real!(get_nprocs: fn() -> c_int)() }
}

#[no_mangle]
pub unsafe extern "C" fn gethostname(buf: *mut c_char, len: size_t) -> c_int {
    if let Some(name) = host("hostname", |h| h.hostname.clone()) {
        return match unsafe { super::copy_cstr(name.as_bytes(), buf, len) } {
            Ok(()) => 0,
            Err(_) => {
                crate::active::set_errno(libc::ENAMETOOLONG);
                -1
            }
        };
    }
    unsafe { real!(gethostname: fn(*mut c_char, size_t) -> c_int)(buf, len) }
}

/// The real kernel identification, with the fixed host name as `nodename`.
#[no_mangle]
pub unsafe extern "C" fn uname(buf: *mut libc::utsname) -> c_int {
    let r = unsafe { real!(uname: fn(*mut libc::utsname) -> c_int)(buf) };
    if r == 0 {
        if let Some(name) = host("hostname", |h| h.hostname.clone()) {
            let node = unsafe { &mut (*buf).nodename };
            node.fill(0);
            for (d, &s) in node.iter_mut().zip(name.as_bytes().iter().take(64)) {
                *d = s as c_char;
            }
        }
    }
    r
}

#[no_mangle]
pub unsafe extern "C" fn getuid() -> uid_t {
    if let Some(u) = host("uid", |_| crate::vfs::UID) {
        return u;
    }
    unsafe { real!(getuid: fn() -> uid_t)() }
}

#[no_mangle]
pub unsafe extern "C" fn geteuid() -> uid_t {
    if let Some(u) = host("uid", |_| crate::vfs::UID) {
        return u;
    }
    unsafe { real!(geteuid: fn() -> uid_t)() }
}

#[no_mangle]
pub unsafe extern "C" fn getgid() -> gid_t {
    if let Some(g) = host("uid", |_| crate::vfs::GID) {
        return g;
    }
    unsafe { real!(getgid: fn() -> gid_t)() }
}

#[no_mangle]
pub unsafe extern "C" fn getegid() -> gid_t {
    if let Some(g) = host("uid", |_| crate::vfs::GID) {
        return g;
    }
    unsafe { real!(getegid: fn() -> gid_t)() }
}

/// The user database has no entries while active (so `std::env::home_dir` is `$HOME` or
/// nothing, never the real user's home).
#[no_mangle]
pub unsafe extern "C" fn getpwuid_r(
    uid: uid_t,
    pwd: *mut passwd,
    buf: *mut c_char,
    len: size_t,
    result: *mut *mut passwd,
) -> c_int {
    if host("user", |_| ()).is_some() {
        if !result.is_null() {
            unsafe { *result = std::ptr::null_mut() };
        }
        return 0;
    }
    unsafe {
        real!(getpwuid_r: fn(uid_t, *mut passwd, *mut c_char, size_t, *mut *mut passwd) -> c_int)(
            uid, pwd, buf, len, result,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn getpwnam_r(
    name: *const c_char,
    pwd: *mut passwd,
    buf: *mut c_char,
    len: size_t,
    result: *mut *mut passwd,
) -> c_int {
    if host("user", |_| ()).is_some() {
        if !result.is_null() {
            unsafe { *result = std::ptr::null_mut() };
        }
        return 0;
    }
    unsafe {
        real!(getpwnam_r: fn(*const c_char, *mut passwd, *mut c_char, size_t, *mut *mut passwd) -> c_int)(
            name, pwd, buf, len, result,
        )
    }
}
