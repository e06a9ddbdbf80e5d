//! Containment of the child that runs a test case, for what the runtime cannot see (raw system
//! calls, C libraries, or the real environment in benchmarks): Landlock allows file writes only
//! below a scratch directory and no TCP at all; seccomp filters refuse starting programs and
//! processes, removing files and opening non-local sockets, and count each refusal.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

/// How well the child is contained.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Containment {
    pub landlock: bool,
    pub seccomp: bool,
}

/// Refusals by the seccomp filter's traps in this child (the server copies it to shared memory).
pub static BLOCKED: AtomicU32 = AtomicU32::new(0);

/// Restricts the calling process for good. Never fails: what the kernel does not offer is
/// reported in the result, and the caller warns.
pub fn contain(scratch: &Path) -> Containment {
    // SAFETY: prctl with constant arguments; required before unprivileged Landlock/seccomp.
    unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) };
    Containment {
        landlock: landlock(scratch),
        seccomp: seccomp() && no_new_processes(),
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
const BPF_JSET_K: u16 = 0x45;
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
    install(&mut prog)
}

/// Installs the SIGSYS handler that answers traps, then the filter, for good.
#[cfg(target_arch = "x86_64")]
fn install(prog: &mut [libc::sock_filter]) -> bool {
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

/// Process starts refused since the last [`take_processes_refused`] (counted in the server).
static PROCESSES_REFUSED: AtomicU32 = AtomicU32::new(0);

/// Refuses every new process but the calling thread's own: `fork`, `vfork`, and `clone`
/// without `CLONE_THREAD` (new threads are still allowed) wait for a supervisor thread, which
/// lets the caller's own forks go on (the server forking a child per execution) and answers
/// everyone else (the code under test, in those children) with `EPERM`, counting each; `clone3`,
/// whose flags a filter cannot read, fails with `ENOSYS`, so glibc falls back to `clone`.
/// [`contain`]'s filter refuses starting programs too, but inside `posix_spawn`'s child, where
/// nothing can be counted; and a trap (SIGSYS) cannot answer `posix_spawn`'s `clone`, which
/// runs with every signal blocked: so the answer comes from a thread listening in user space.
/// Installed once, in the server, so children pay nothing for it.
#[cfg(target_arch = "x86_64")]
fn no_new_processes() -> bool {
    let mut prog = [
        stmt(BPF_LD_W_ABS, 4), // arch
        jump(AUDIT_ARCH_X86_64, 1, 0),
        stmt(BPF_RET_K, SECCOMP_RET_ALLOW),
        stmt(BPF_LD_W_ABS, 0), // syscall number
        jump(libc::SYS_clone3 as u32, 0, 1),
        stmt(BPF_RET_K, SECCOMP_RET_ERRNO | libc::ENOSYS as u32),
        jump(libc::SYS_fork as u32, 4, 0),
        jump(libc::SYS_vfork as u32, 3, 0),
        jump(libc::SYS_clone as u32, 0, 3),
        stmt(BPF_LD_W_ABS, 16), // clone's flags (low half of args[0])
        libc::sock_filter {
            code: BPF_JSET_K,
            jt: 1,
            jf: 0,
            k: libc::CLONE_THREAD as u32,
        },
        stmt(BPF_RET_K, libc::SECCOMP_RET_USER_NOTIF),
        stmt(BPF_RET_K, SECCOMP_RET_ALLOW),
    ];
    let fprog = libc::sock_fprog {
        len: prog.len() as u16,
        filter: prog.as_mut_ptr(),
    };
    // SAFETY: installs a filter that outlives this function; the kernel copies the program.
    let listener = unsafe {
        libc::syscall(
            libc::SYS_seccomp,
            libc::SECCOMP_SET_MODE_FILTER,
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
            &fprog as *const libc::sock_fprog,
        )
    };
    if listener < 0 {
        return false;
    }
    // SAFETY: gettid has no preconditions.
    let owner = unsafe { libc::gettid() } as u32;
    // The supervisor inherits the filter but never starts a process. glibc's `fork` holds the
    // allocator's locks while it waits for the answer, so the supervisor must be past its own
    // start-up allocations before anyone forks, and must not allocate in its loop.
    static READY: AtomicBool = AtomicBool::new(false);
    let started = std::thread::Builder::new()
        .name("hermetic-sandbox".into())
        .spawn(move || {
            READY.store(true, Ordering::SeqCst);
            loop {
                answer_one(listener as libc::c_int, owner);
            }
        })
        .is_ok();
    while started && !READY.load(Ordering::SeqCst) {
        std::thread::yield_now();
    }
    started
}

#[cfg(not(target_arch = "x86_64"))]
fn no_new_processes() -> bool {
    false
}

/// Waits for one request and answers it: `owner`'s own forks go on, the rest fail with `EPERM`.
fn answer_one(listener: libc::c_int, owner: u32) {
    // SAFETY: the kernel wants a zeroed request to fill in; the answer names its id.
    unsafe {
        let mut request: libc::seccomp_notif = std::mem::zeroed();
        if libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_RECV, &mut request) != 0 {
            return; // interrupted, or the caller is gone
        }
        let mut answer = libc::seccomp_notif_resp {
            id: request.id,
            val: 0,
            error: 0,
            flags: 0,
        };
        if request.pid == owner {
            answer.flags = libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32;
        } else {
            // Counted before the answer: once the caller resumes, its refusal is counted.
            PROCESSES_REFUSED.fetch_add(1, Ordering::SeqCst);
            answer.error = -libc::EPERM;
        }
        libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_SEND, &mut answer);
    }
}

/// Process starts refused since the last call, in any process contained by this one.
pub fn take_processes_refused() -> u32 {
    PROCESSES_REFUSED.swap(0, Ordering::SeqCst)
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

    #[test]
    fn new_processes_are_refused_and_counted_threads_are_not() {
        let scratch =
            std::env::temp_dir().join(format!("hermetic-sandbox-procs-{}", std::process::id()));
        std::fs::create_dir_all(&scratch).unwrap();
        // The contained process plays the server: it may fork; its child may not.
        let code = in_contained_child(&scratch, |c| {
            let mut bits = (!c.seccomp) as i32;
            // SAFETY: the child runs the attempts and leaves with `_exit`.
            let pid = unsafe { libc::fork() };
            if pid == 0 {
                let mut bits = 0;
                let spawned = std::process::Command::new("true").status();
                bits |= (spawned.is_ok() as i32) << 1;
                bits |= ((spawned.err().map(|e| e.kind())
                    != Some(std::io::ErrorKind::PermissionDenied)) as i32)
                    << 2;
                // SAFETY: if the fork were allowed, the grandchild would leave at once.
                let grandchild = unsafe { libc::fork() };
                if grandchild == 0 {
                    unsafe { libc::_exit(0) };
                }
                bits |= ((grandchild != -1) as i32) << 3;
                bits |= ((std::thread::spawn(|| 7).join().ok() != Some(7)) as i32) << 4;
                unsafe { libc::_exit(bits) };
            }
            let mut status = 0;
            // SAFETY: waiting for our own child.
            unsafe { libc::waitpid(pid, &mut status, 0) };
            bits |= libc::WEXITSTATUS(status);
            bits |= ((take_processes_refused() != 2) as i32) << 5;
            bits
        });
        std::fs::remove_dir_all(&scratch).unwrap();
        assert_eq!(code, 0, "bits: 1 not contained, 2 a program ran, 4 not PermissionDenied, 8 forked, 16 no thread, 32 not counted twice");
    }
}
