//! Processes, refused: fork, exec and spawn fail with EACCES (`PermissionDenied`).

use libc::{c_char, c_int, c_void, pid_t, FILE};

use super::bytes;
use crate::access::Access;
use crate::real::real;

/// Records the attempt; returns true when the call must be refused.
fn refuse(what: &'static str, program: *const c_char) -> bool {
    let Some(cx) = crate::active::ctx() else {
        return false;
    };
    let _ = cx.run(|st| {
        st.record(Access::ProcessAttempt {
            what,
            program: String::from_utf8_lossy(unsafe { bytes(program) }).into_owned(),
        });
        Ok(())
    });
    drop(cx);
    crate::active::set_errno(libc::EACCES);
    true
}

#[no_mangle]
pub unsafe extern "C" fn fork() -> pid_t {
    if refuse("fork", std::ptr::null()) {
        return -1;
    }
    unsafe { real!(fork: fn() -> pid_t)() }
}

#[no_mangle]
pub unsafe extern "C" fn vfork() -> pid_t {
    if refuse("fork", std::ptr::null()) {
        return -1;
    }
    // vfork cannot be forwarded through a function call (the child would return into our
    // frame); fork has the same observable semantics for a caller that follows the rules.
    unsafe { real!(fork: fn() -> pid_t)() }
}

#[no_mangle]
pub unsafe extern "C" fn execve(
    path: *const c_char,
    argv: *const *const c_char,
    envp: *const *const c_char,
) -> c_int {
    if refuse("exec", path) {
        return -1;
    }
    unsafe {
        real!(execve: fn(*const c_char, *const *const c_char, *const *const c_char) -> c_int)(
            path, argv, envp,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn execv(path: *const c_char, argv: *const *const c_char) -> c_int {
    if refuse("exec", path) {
        return -1;
    }
    unsafe { real!(execv: fn(*const c_char, *const *const c_char) -> c_int)(path, argv) }
}

#[no_mangle]
pub unsafe extern "C" fn execvp(file: *const c_char, argv: *const *const c_char) -> c_int {
    if refuse("exec", file) {
        return -1;
    }
    unsafe { real!(execvp: fn(*const c_char, *const *const c_char) -> c_int)(file, argv) }
}

#[no_mangle]
pub unsafe extern "C" fn execvpe(
    file: *const c_char,
    argv: *const *const c_char,
    envp: *const *const c_char,
) -> c_int {
    if refuse("exec", file) {
        return -1;
    }
    unsafe {
        real!(execvpe: fn(*const c_char, *const *const c_char, *const *const c_char) -> c_int)(
            file, argv, envp,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn fexecve(
    fd: c_int,
    argv: *const *const c_char,
    envp: *const *const c_char,
) -> c_int {
    if refuse("exec", std::ptr::null()) {
        return -1;
    }
    unsafe {
        real!(fexecve: fn(c_int, *const *const c_char, *const *const c_char) -> c_int)(
            fd, argv, envp,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn posix_spawn(
    pid: *mut pid_t,
    path: *const c_char,
    actions: *const c_void,
    attr: *const c_void,
    argv: *const *mut c_char,
    envp: *const *mut c_char,
) -> c_int {
    // posix_spawn reports failure through its return value, not errno.
    if refuse("spawn", path) {
        return libc::EACCES;
    }
    unsafe {
        real!(posix_spawn: fn(*mut pid_t, *const c_char, *const c_void, *const c_void, *const *mut c_char, *const *mut c_char) -> c_int)(
            pid, path, actions, attr, argv, envp,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn posix_spawnp(
    pid: *mut pid_t,
    file: *const c_char,
    actions: *const c_void,
    attr: *const c_void,
    argv: *const *mut c_char,
    envp: *const *mut c_char,
) -> c_int {
    if refuse("spawn", file) {
        return libc::EACCES;
    }
    unsafe {
        real!(posix_spawnp: fn(*mut pid_t, *const c_char, *const c_void, *const c_void, *const *mut c_char, *const *mut c_char) -> c_int)(
            pid, file, actions, attr, argv, envp,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn system(cmd: *const c_char) -> c_int {
    if refuse("system", cmd) {
        return -1;
    }
    unsafe { real!(system: fn(*const c_char) -> c_int)(cmd) }
}

#[no_mangle]
pub unsafe extern "C" fn popen(cmd: *const c_char, mode: *const c_char) -> *mut FILE {
    if refuse("popen", cmd) {
        return std::ptr::null_mut();
    }
    unsafe { real!(popen: fn(*const c_char, *const c_char) -> *mut FILE)(cmd, mode) }
}

/// std registers its stdio redirections before spawning; a virtual descriptor (e.g. the
/// `/dev/null` of `Stdio::null()`) would be rejected here with EBADF before the spawn itself
/// could be refused, so it is accepted (the spawn that follows fails anyway).
#[no_mangle]
pub unsafe extern "C" fn posix_spawn_file_actions_adddup2(
    actions: *mut c_void,
    fd: c_int,
    newfd: c_int,
) -> c_int {
    if fd >= crate::state::VFD_BASE {
        return 0;
    }
    unsafe {
        real!(posix_spawn_file_actions_adddup2: fn(*mut c_void, c_int, c_int) -> c_int)(
            actions, fd, newfd,
        )
    }
}

/// Signals to other processes are refused (the pid the code sees is virtual and may name an
/// unrelated real process); signals to the virtual pid itself are refused too.
#[no_mangle]
pub unsafe extern "C" fn kill(pid: pid_t, sig: c_int) -> c_int {
    if refuse("kill", std::ptr::null()) {
        crate::active::set_errno(libc::EPERM);
        return -1;
    }
    unsafe { real!(kill: fn(pid_t, c_int) -> c_int)(pid, sig) }
}

#[no_mangle]
pub unsafe extern "C" fn killpg(pgrp: pid_t, sig: c_int) -> c_int {
    if refuse("kill", std::ptr::null()) {
        crate::active::set_errno(libc::EPERM);
        return -1;
    }
    unsafe { real!(killpg: fn(pid_t, c_int) -> c_int)(pgrp, sig) }
}
