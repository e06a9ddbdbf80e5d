//! Containment of the child that runs a test case, for what the runtime cannot see (raw system
//! calls, C libraries, or the real environment in benchmarks): Landlock allows file writes only
//! below a scratch directory and no TCP at all; a seccomp filter refuses starting programs and
//! opening non-local sockets, and counts each refusal.

use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

/// How well the child is contained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Containment {
    pub landlock: bool,
    pub seccomp: bool,
}

/// Refusals by the seccomp filter in this child (the server copies it to shared memory).
pub static BLOCKED: AtomicU32 = AtomicU32::new(0);

/// Restricts the calling process for good. Never fails: what the kernel does not offer is
/// reported in the result, and the caller warns.
pub fn contain(scratch: &Path) -> Containment {
    // SAFETY: prctl with constant arguments; required before unprivileged Landlock/seccomp.
    unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) };
    Containment {
        landlock: landlock(scratch),
        seccomp: seccomp(),
    }
}

fn landlock(scratch: &Path) -> bool {
    use landlock::{
        path_beneath_rules, AccessFs, AccessNet, Ruleset, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus, ABI,
    };
    let abi = ABI::V5;
    let status = Ruleset::default()
        .handle_access(AccessFs::from_write(abi))
        .and_then(|r| r.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp))
        .and_then(|r| r.create())
        .and_then(|r| {
            r.add_rules(path_beneath_rules(
                [scratch, Path::new("/dev/null")],
                AccessFs::from_write(abi),
            ))
        })
        .and_then(|r| r.restrict_self());
    if std::env::var_os("HERMETIC_DEBUG").is_some() {
        eprintln!("landlock: {status:?}");
    }
    matches!(status, Ok(s) if s.ruleset != RulesetStatus::NotEnforced)
}

// Classic BPF for seccomp (linux/filter.h, linux/seccomp.h).
const BPF_LD_W_ABS: u16 = 0x20;
const BPF_JEQ_K: u16 = 0x15;
const BPF_RET_K: u16 = 0x06;
const SECCOMP_RET_ALLOW: u32 = 0x7fff_0000;
const SECCOMP_RET_TRAP: u32 = 0x0003_0000;
const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter {
        code: BPF_JEQ_K,
        jt,
        jf,
        k,
    }
}

/// Refuses `execve` and `execveat`; traps `socket` for anything but local (Unix) sockets,
/// removals and renames, and calls that change the machine: the SIGSYS handler makes them fail
/// with `EPERM` and counts them.
#[cfg(target_arch = "x86_64")]
fn seccomp() -> bool {
    let denied = [
        libc::SYS_ptrace,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_reboot,
        libc::SYS_kexec_load,
        libc::SYS_init_module,
        libc::SYS_finit_module,
        libc::SYS_delete_module,
        libc::SYS_settimeofday,
        libc::SYS_clock_settime,
        libc::SYS_swapon,
        libc::SYS_swapoff,
        // Removing and renaming: the runtime serves these for code inside an `Env`, so a real
        // call comes from code that bypasses it (or from the real environment in benchmarks).
        // Landlock would refuse most of them too, but silently; a trap is counted, and an
        // execution the sandbox had to stop never becomes a test.
        libc::SYS_unlink,
        libc::SYS_unlinkat,
        libc::SYS_rmdir,
        libc::SYS_rename,
        libc::SYS_renameat,
        libc::SYS_renameat2,
    ];
    let n = denied.len() as u8;
    let mut prog = vec![
        stmt(BPF_LD_W_ABS, 4), // arch
        jump(AUDIT_ARCH_X86_64, 1, 0),
        stmt(BPF_RET_K, SECCOMP_RET_ALLOW),
        stmt(BPF_LD_W_ABS, 0), // syscall number
        // Starting a program fails with EPERM at once: posix_spawn's child runs with default
        // signal handlers, so a trap could not be answered (nor counted) there.
        jump(libc::SYS_execve as u32, 1, 0),
        jump(libc::SYS_execveat as u32, 0, 1),
        stmt(BPF_RET_K, SECCOMP_RET_ERRNO | libc::EPERM as u32),
    ];
    for (i, nr) in denied.iter().enumerate() {
        // On a match, jump to the TRAP at the end of the list.
        prog.push(jump(*nr as u32, n - i as u8 + 4, 0));
    }
    prog.extend([
        jump(libc::SYS_socket as u32, 1, 0),
        stmt(BPF_RET_K, SECCOMP_RET_ALLOW),
        stmt(BPF_LD_W_ABS, 16), // socket's domain (low half of args[0])
        jump(libc::AF_UNIX as u32, 0, 1),
        stmt(BPF_RET_K, SECCOMP_RET_ALLOW),
        stmt(BPF_RET_K, SECCOMP_RET_TRAP),
    ]);
    // SAFETY: installing a SIGSYS handler, then a filter that outlives this function.
    unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_sigsys as *const () as usize;
        sa.sa_flags = libc::SA_SIGINFO;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGSYS, &sa, std::ptr::null_mut());
        let fprog = libc::sock_fprog {
            len: prog.len() as u16,
            filter: prog.as_mut_ptr(),
        };
        libc::prctl(
            libc::PR_SET_SECCOMP,
            libc::SECCOMP_MODE_FILTER,
            &fprog as *const libc::sock_fprog,
        ) == 0
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn seccomp() -> bool {
    false
}

/// A trapped system call returns `-EPERM` to its caller.
#[cfg(target_arch = "x86_64")]
extern "C" fn on_sigsys(_: libc::c_int, _: *mut libc::siginfo_t, context: *mut libc::c_void) {
    BLOCKED.fetch_add(1, Ordering::Relaxed);
    // SAFETY: the kernel passes a valid ucontext to an SA_SIGINFO handler.
    unsafe {
        let uc = &mut *(context as *mut libc::ucontext_t);
        uc.uc_mcontext.gregs[libc::REG_RAX as usize] = -(libc::EPERM as i64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `f` in a contained child; returns its exit code.
    fn in_contained_child(scratch: &Path, f: impl FnOnce(Containment) -> i32) -> i32 {
        // SAFETY: the child runs `f` and leaves with `_exit`.
        unsafe {
            let pid = libc::fork();
            if pid == 0 {
                let c = contain(scratch);
                libc::_exit(f(c));
            }
            let mut status = 0;
            libc::waitpid(pid, &mut status, 0);
            libc::WEXITSTATUS(status)
        }
    }

    #[test]
    fn writes_outside_scratch_programs_and_tcp_are_refused() {
        let scratch = std::env::temp_dir().join(format!("hermetic-sandbox-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).unwrap();
        let outside =
            std::env::temp_dir().join(format!("hermetic-sandbox-outside-{}", std::process::id()));
        let inside = scratch.join("ok");
        let code = in_contained_child(&scratch, |c| {
            let mut bits = 0;
            bits |= (!c.landlock) as i32;
            bits |= (!c.seccomp as i32) << 1;
            bits |= (std::fs::write(&outside, "x").is_ok() as i32) << 2;
            bits |= (std::fs::write(&inside, "x").is_err() as i32) << 3;
            bits |= (std::process::Command::new("true")
                .status()
                .is_ok_and(|s| s.success()) as i32)
                << 4;
            bits |= (std::net::TcpStream::connect("127.0.0.1:9").is_ok() as i32) << 5;
            let before = BLOCKED.load(Ordering::Relaxed);
            bits |= ((before == 0) as i32) << 6;
            // A removal, even inside the scratch directory, is trapped and counted.
            bits |= (std::fs::remove_file(&inside).is_ok() as i32) << 7;
            bits |= ((BLOCKED.load(Ordering::Relaxed) <= before) as i32) << 8;
            bits
        });
        assert!(!outside.exists());
        std::fs::remove_dir_all(&scratch).unwrap();
        assert_eq!(code, 0, "bits: 1 no landlock, 2 no seccomp, 4 wrote outside, 8 could not write inside, 16 ran a program, 32 connected, 64 nothing counted, 128 removed a file, 256 removal not counted");
    }
}
