//! Processes, refused: fork, exec and spawn fail with EACCES (`PermissionDenied`).

use libc::{c_char, c_int, c_void, pid_t, FILE};

use super::bytes;
use crate::access::Access;
use crate::real::real;

/// Records the attempt; returns true when the call must be refused (on a thread inside an
/// environment).
///
/// # Safety
///
/// `program` is NULL or a C string.
unsafe fn refuse(what: &'static str, program: *const c_char) -> bool {
    let Some(cx) = crate::active::ctx() else {
        return false;
    };
    let _ = cx.run(|st| {
        // SAFETY: NULL or a C string (this function's contract).
        let program = unsafe { bytes(program) };
        st.record(Access::ProcessAttempt {
            what,
            program: String::from_utf8_lossy(program).into_owned(),
        });
        Ok(())
    });
    drop(cx);
    crate::active::set_errno(libc::EACCES);
    true
}

interpose! {
    fn fork() -> pid_t {
        // SAFETY: no program named.
        if unsafe { refuse("fork", std::ptr::null()) } {
            return -1;
        }
        pass!()
    }

    fn vfork() -> pid_t {
        // SAFETY: no program named.
        if unsafe { refuse("fork", std::ptr::null()) } {
            return -1;
        }
        // vfork cannot be forwarded through a function call (the child would return into our
        // frame); fork has the same observable semantics for a caller that follows the rules.
        // SAFETY: glibc's fork, which takes nothing.
        unsafe { real!(fork: fn() -> pid_t)() }
    }

    fn execve(
        path: *const c_char,
        argv: *const *const c_char,
        envp: *const *const c_char,
    ) -> c_int {
        // SAFETY: `path` is a C string, as execve's contract requires.
        if unsafe { refuse("exec", path) } {
            return -1;
        }
        pass!()
    }

    fn execv(path: *const c_char, argv: *const *const c_char) -> c_int {
        // SAFETY: `path` is a C string, as execv's contract requires.
        if unsafe { refuse("exec", path) } {
            return -1;
        }
        pass!()
    }

    fn execvp(file: *const c_char, argv: *const *const c_char) -> c_int {
        // SAFETY: `file` is a C string, as execvp's contract requires.
        if unsafe { refuse("exec", file) } {
            return -1;
        }
        pass!()
    }

    fn execvpe(
        file: *const c_char,
        argv: *const *const c_char,
        envp: *const *const c_char,
    ) -> c_int {
        // SAFETY: `file` is a C string, as execvpe's contract requires.
        if unsafe { refuse("exec", file) } {
            return -1;
        }
        pass!()
    }

    fn fexecve(fd: c_int, argv: *const *const c_char, envp: *const *const c_char) -> c_int {
        // SAFETY: no program named.
        if unsafe { refuse("exec", std::ptr::null()) } {
            return -1;
        }
        pass!()
    }

    /// posix_spawn reports failure through its return value, not errno.
    fn posix_spawn(
        pid: *mut pid_t,
        path: *const c_char,
        actions: *const c_void,
        attr: *const c_void,
        argv: *const *mut c_char,
        envp: *const *mut c_char,
    ) -> c_int {
        // SAFETY: `path` is a C string, as posix_spawn's contract requires.
        if unsafe { refuse("spawn", path) } {
            return libc::EACCES;
        }
        pass!()
    }

    fn posix_spawnp(
        pid: *mut pid_t,
        file: *const c_char,
        actions: *const c_void,
        attr: *const c_void,
        argv: *const *mut c_char,
        envp: *const *mut c_char,
    ) -> c_int {
        // SAFETY: `file` is a C string, as posix_spawnp's contract requires.
        if unsafe { refuse("spawn", file) } {
            return libc::EACCES;
        }
        pass!()
    }

    fn system(cmd: *const c_char) -> c_int {
        // SAFETY: `cmd` is NULL or a C string, as system's contract requires.
        if unsafe { refuse("system", cmd) } {
            return -1;
        }
        pass!()
    }

    fn popen(cmd: *const c_char, mode: *const c_char) -> *mut FILE {
        // SAFETY: `cmd` is a C string, as popen's contract requires.
        if unsafe { refuse("popen", cmd) } {
            return std::ptr::null_mut();
        }
        pass!()
    }

    /// std registers its stdio redirections before spawning; a virtual descriptor (e.g. the
    /// `/dev/null` of `Stdio::null()`) would be rejected here with EBADF before the spawn
    /// itself could be refused, so it is accepted (the spawn that follows fails anyway).
    fn posix_spawn_file_actions_adddup2(actions: *mut c_void, fd: c_int, newfd: c_int) -> c_int {
        if fd >= crate::state::VFD_BASE {
            return 0;
        }
        pass!()
    }

    /// Signals to other processes are refused (the pid the code sees is virtual and may name
    /// an unrelated real process); signals to the virtual pid itself are refused too.
    fn kill(pid: pid_t, sig: c_int) -> c_int {
        // SAFETY: no program named.
        if unsafe { refuse("kill", std::ptr::null()) } {
            crate::active::set_errno(libc::EPERM);
            return -1;
        }
        pass!()
    }

    fn killpg(pgrp: pid_t, sig: c_int) -> c_int {
        // SAFETY: no program named.
        if unsafe { refuse("kill", std::ptr::null()) } {
            crate::active::set_errno(libc::EPERM);
            return -1;
        }
        pass!()
    }
}
