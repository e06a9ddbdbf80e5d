//! The seccomp filters: an allow-list of the x86-64 system calls ordinary code and hermetic's
//! own processes need, everything else refused. 32-bit (`int 0x80`) and x32 calls are refused
//! whatever their number.
//!
//! In the driver, a refused call waits for the supervisor, a thread of the fork server
//! ([`crate::supervisor`]), which lets the server's own process starts and signals through,
//! and answers everything else with `EPERM`, logged where the code under test cannot reach
//! the log. In a test binary under verification, a refused call is trapped (`SIGSYS`) with no
//! handler to answer it: the binary dies, which fails the test that made the call.

use std::os::raw::c_long;

// Classic BPF for seccomp (linux/filter.h, linux/seccomp.h).
const LD_W_ABS: u16 = 0x20;
const JEQ_K: u16 = 0x15;
const JSET_K: u16 = 0x45;
const JGE_K: u16 = 0x35;
const AND_K: u16 = 0x54;
const RET_K: u16 = 0x06;
const RET_ALLOW: u32 = 0x7fff_0000;
const RET_TRAP: u32 = 0x0003_0000;
const RET_ERRNO: u32 = 0x0005_0000;
const RET_USER_NOTIF: u32 = 0x7fc0_0000;
/// Fails with `ENOSYS` when no tracer is attached (none can be: `ptrace` is refused); below a
/// request to the supervisor in the kernel's order, so a filter installed after one that
/// returns this still has its refusals logged.
const RET_TRACE: u32 = 0x7ff0_0000;
pub(crate) const AUDIT_ARCH_X86_64: u32 = 0xc000_003e;
/// System call numbers at or above this are the x32 ABI's.
pub(crate) const X32_SYSCALL_BIT: u32 = 0x4000_0000;
/// Offsets in `struct seccomp_data`.
const NR: u32 = 0;
const ARCH: u32 = 4;
const IP_LOW: u32 = 8;
const IP_HIGH: u32 = 12;
const fn arg_low(i: u8) -> u32 {
    16 + 8 * i as u32
}
const fn arg_high(i: u8) -> u32 {
    20 + 8 * i as u32
}

/// What a filter does with a system call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Allow,
    /// Refused: see the module documentation for what that means in each profile.
    Refuse,
    /// Fails with this error, silently (only for calls whose failure is a normal answer).
    Errno(i32),
}

impl Action {
    fn ret(self, refuse: u32) -> u32 {
        match self {
            Action::Allow => RET_ALLOW,
            Action::Refuse => refuse,
            Action::Errno(e) => RET_ERRNO | (e as u32 & 0xffff),
        }
    }
}

/// A test on one argument.
#[derive(Debug, Clone, Copy)]
enum Test {
    /// The low 32 bits equal this (`int` and `unsigned int` arguments).
    Eq(u32),
    /// The low 32 bits equal the process's own pid (filled in by [`Program::set_pid`]).
    OwnPid,
    /// Any of these bits is set in the low 32 bits.
    AnyBit(u32),
    /// The low 32 bits, masked, equal the value.
    Masked(u32, u32),
    /// The whole 64-bit argument equals this (a pointer).
    Exact(u64),
    /// The call is glibc's own `clone3` in `pthread_create` ([`ThreadStart`]): made from its
    /// wrapper's `syscall` instruction, with its thread entry as the function (the check's
    /// argument).
    GlibcThread(ThreadStart),
}

/// Where glibc's `pthread_create` calls `clone3`: the address after the wrapper's `syscall`
/// instruction and the thread entry it hands the call (`rdx`, the third argument), both
/// learnt at run time ([`crate::supervisor::glibc_thread_start`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ThreadStart {
    pub ip: u64,
    pub entry: u64,
}

#[derive(Debug, Clone, Copy)]
struct Check {
    arg: u8,
    test: Test,
    then: Action,
}

/// What a filter does with one system call: an action, or checks of its arguments (the first
/// that holds decides) and an action for when none holds.
#[derive(Debug, Clone)]
enum Rule {
    Always(Action),
    Checks(Vec<Check>, Action),
}

/// A compiled filter.
#[derive(Debug, Clone)]
pub struct Program {
    code: Vec<libc::sock_filter>,
    /// Instructions whose constant is the process's pid.
    pid_slots: Vec<usize>,
}

impl Program {
    /// Sets the pid the signal checks compare with (after `fork`, before installing).
    pub fn set_pid(&mut self, pid: u32) {
        for &i in &self.pid_slots {
            self.code[i].k = pid;
        }
    }

    pub fn len(&self) -> usize {
        self.code.len()
    }

    pub fn is_empty(&self) -> bool {
        self.code.is_empty()
    }

    /// Installs the filter on the calling thread, inherited by every thread and process it
    /// starts from now on; with `listener`, also returns the file descriptor on which the
    /// supervisor receives its refusals. Needs `no_new_privs` (see [`no_new_privs`]). Only system
    /// calls: safe between `fork` and `exec`.
    pub fn install(&self, listener: bool) -> std::io::Result<Option<i32>> {
        let prog = libc::sock_fprog {
            len: self.code.len() as u16,
            filter: self.code.as_ptr() as *mut libc::sock_filter,
        };
        let flags = if listener {
            libc::SECCOMP_FILTER_FLAG_NEW_LISTENER
        } else {
            0
        };
        // SAFETY: the kernel copies the program; `prog` outlives the call.
        let r = unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_SET_MODE_FILTER,
                flags,
                &prog as *const libc::sock_fprog,
            )
        };
        if r < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(listener.then_some(r as i32))
    }
}

/// Sets `no_new_privs`, which unprivileged seccomp filters and Landlock need (and which keeps
/// set-user-id programs from gaining anything, should one ever start).
pub fn no_new_privs() -> bool {
    // SAFETY: prctl with constant arguments.
    unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 }
}

/// Which process the filter is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// The driver's fork server and, inherited, the children that run test cases: refusals
    /// (process starts and signals among them) go to the supervisor, which lets the server's
    /// own starts and signals through, and signals a process sends itself.
    Server,
    /// A test binary under verification: no process starts, signals only to itself, and
    /// `execve` only of the binary itself, at the address given (the launcher's own call).
    Tests { exec_path: u64 },
}

/// The filter's settings.
#[derive(Debug, Clone, Copy)]
pub struct Policy {
    pub profile: Profile,
    /// Whether files may be created and opened for writing (where Landlock and the mount
    /// namespace let them: the scratch directory). Only when the code runs against the real
    /// environment (a benchmark); with a virtual one, the runtime serves every write, and a real
    /// one comes from code that bypassed it.
    pub writes: bool,
    /// In the server profile: glibc's own `clone3` in `pthread_create`, which then fails with
    /// `ENOSYS` at once, and glibc starts the thread with `clone`, whose flags the filter
    /// checks itself. Without it every `clone3` waits for the supervisor, which reads the
    /// flags from the caller's memory: a round trip between processes for each thread, the
    /// driver's own thread per test case among them.
    pub thread_start: Option<ThreadStart>,
}

/// How the policy treats a system call, before the profile decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    /// Harmless to anything outside the process, or checked by another layer.
    Allow,
    /// Opens with the flags in this argument: refused with write flags unless writes are on.
    Open(u8),
    /// Creates a path (files, directories, links, nodes) or cuts a file by path: refused unless
    /// writes are on.
    Create,
    /// Changes or removes what exists: removals, renames, permissions, owners, times,
    /// extended attributes. Always refused: the runtime serves these inside an `Env`, so a
    /// real one bypassed it.
    Change,
    /// Process-wide or machine-wide changes, privileged or foreign-process operations,
    /// system-wide objects, the network. Refused.
    Refuse,
    /// `fork` and `vfork`: refused (the supervisor lets the server's own through).
    Start,
    /// `clone`: threads are allowed, processes are starts.
    Clone,
    /// `clone3`, whose flags are in memory: the supervisor reads them and lets threads through
    /// (refusing processes); in test binaries it fails with `ENOSYS`, and libc falls back to
    /// `clone`.
    Clone3,
    /// `execve`, `execveat`.
    Exec,
    /// Sends a signal to the process or thread group in this argument: allowed only to itself
    /// (checked by the filter in test binaries, by the supervisor in the driver).
    Signal(u8),
    /// Checked by its arguments: see [`special`].
    Special,
}

use Class::*;

/// Every x86-64 system call the policy knows, with its name (for reports) and class. Calls
/// missing here are refused.
const TABLE: &[(c_long, &str, Class)] = &[
    // The most frequent checked calls first: they run through the filter every time.
    (libc::SYS_openat, "openat", Open(2)),
    (libc::SYS_ioctl, "ioctl", Special),
    (libc::SYS_clone, "clone", Clone),
    (libc::SYS_open, "open", Open(1)),
    (libc::SYS_prctl, "prctl", Special),
    (libc::SYS_rt_sigaction, "rt_sigaction", Special),
    (libc::SYS_kill, "kill", Signal(0)),
    (libc::SYS_tgkill, "tgkill", Signal(0)),
    (libc::SYS_tkill, "tkill", Signal(0)),
    (libc::SYS_rt_sigqueueinfo, "rt_sigqueueinfo", Signal(0)),
    (libc::SYS_rt_tgsigqueueinfo, "rt_tgsigqueueinfo", Signal(0)),
    (libc::SYS_prlimit64, "prlimit64", Special),
    (libc::SYS_personality, "personality", Special),
    (libc::SYS_socketpair, "socketpair", Special),
    (libc::SYS_sendto, "sendto", Special),
    (libc::SYS_fork, "fork", Start),
    (libc::SYS_vfork, "vfork", Start),
    (libc::SYS_clone3, "clone3", Clone3),
    (libc::SYS_execve, "execve", Exec),
    (libc::SYS_execveat, "execveat", Exec),
    // Files: reading, and writing through descriptors already open.
    (libc::SYS_read, "read", Allow),
    (libc::SYS_write, "write", Allow),
    (libc::SYS_readv, "readv", Allow),
    (libc::SYS_writev, "writev", Allow),
    (libc::SYS_pread64, "pread64", Allow),
    (libc::SYS_pwrite64, "pwrite64", Allow),
    (libc::SYS_preadv, "preadv", Allow),
    (libc::SYS_pwritev, "pwritev", Allow),
    (libc::SYS_preadv2, "preadv2", Allow),
    (libc::SYS_pwritev2, "pwritev2", Allow),
    (libc::SYS_close, "close", Allow),
    (libc::SYS_close_range, "close_range", Allow),
    (libc::SYS_lseek, "lseek", Allow),
    (libc::SYS_fstat, "fstat", Allow),
    (libc::SYS_stat, "stat", Allow),
    (libc::SYS_lstat, "lstat", Allow),
    (libc::SYS_newfstatat, "newfstatat", Allow),
    (libc::SYS_statx, "statx", Allow),
    (libc::SYS_statfs, "statfs", Allow),
    (libc::SYS_fstatfs, "fstatfs", Allow),
    (libc::SYS_access, "access", Allow),
    (libc::SYS_faccessat, "faccessat", Allow),
    (libc::SYS_faccessat2, "faccessat2", Allow),
    (libc::SYS_readlink, "readlink", Allow),
    (libc::SYS_readlinkat, "readlinkat", Allow),
    (libc::SYS_getdents, "getdents", Allow),
    (libc::SYS_getdents64, "getdents64", Allow),
    (libc::SYS_getcwd, "getcwd", Allow),
    (libc::SYS_dup, "dup", Allow),
    (libc::SYS_dup2, "dup2", Allow),
    (libc::SYS_dup3, "dup3", Allow),
    (libc::SYS_fcntl, "fcntl", Special),
    (libc::SYS_flock, "flock", Allow),
    (libc::SYS_fsync, "fsync", Allow),
    (libc::SYS_fdatasync, "fdatasync", Allow),
    (libc::SYS_sync_file_range, "sync_file_range", Allow),
    (libc::SYS_ftruncate, "ftruncate", Allow),
    (libc::SYS_fallocate, "fallocate", Allow),
    (libc::SYS_fadvise64, "fadvise64", Allow),
    (libc::SYS_readahead, "readahead", Allow),
    (libc::SYS_copy_file_range, "copy_file_range", Allow),
    (libc::SYS_sendfile, "sendfile", Allow),
    (libc::SYS_splice, "splice", Allow),
    (libc::SYS_tee, "tee", Allow),
    (libc::SYS_vmsplice, "vmsplice", Allow),
    (libc::SYS_getxattr, "getxattr", Allow),
    (libc::SYS_lgetxattr, "lgetxattr", Allow),
    (libc::SYS_fgetxattr, "fgetxattr", Allow),
    (libc::SYS_listxattr, "listxattr", Allow),
    (libc::SYS_llistxattr, "llistxattr", Allow),
    (libc::SYS_flistxattr, "flistxattr", Allow),
    (libc::SYS_inotify_init, "inotify_init", Allow),
    (libc::SYS_inotify_init1, "inotify_init1", Allow),
    (libc::SYS_inotify_add_watch, "inotify_add_watch", Allow),
    (libc::SYS_inotify_rm_watch, "inotify_rm_watch", Allow),
    (libc::SYS_memfd_create, "memfd_create", Allow),
    (libc::SYS_memfd_secret, "memfd_secret", Allow),
    (451, "cachestat", Allow),
    // Files: creating paths.
    (libc::SYS_creat, "creat", Create),
    (libc::SYS_mkdir, "mkdir", Create),
    (libc::SYS_mkdirat, "mkdirat", Create),
    (libc::SYS_mknod, "mknod", Create),
    (libc::SYS_mknodat, "mknodat", Create),
    (libc::SYS_link, "link", Create),
    (libc::SYS_linkat, "linkat", Create),
    (libc::SYS_symlink, "symlink", Create),
    (libc::SYS_symlinkat, "symlinkat", Create),
    (libc::SYS_truncate, "truncate", Create),
    // Files: changing or removing what exists.
    (libc::SYS_unlink, "unlink", Change),
    (libc::SYS_unlinkat, "unlinkat", Change),
    (libc::SYS_rmdir, "rmdir", Change),
    (libc::SYS_rename, "rename", Change),
    (libc::SYS_renameat, "renameat", Change),
    (libc::SYS_renameat2, "renameat2", Change),
    (libc::SYS_chmod, "chmod", Change),
    (libc::SYS_fchmod, "fchmod", Change),
    (libc::SYS_fchmodat, "fchmodat", Change),
    (libc::SYS_fchmodat2, "fchmodat2", Change),
    (libc::SYS_chown, "chown", Change),
    (libc::SYS_fchown, "fchown", Change),
    (libc::SYS_lchown, "lchown", Change),
    (libc::SYS_fchownat, "fchownat", Change),
    (libc::SYS_utime, "utime", Change),
    (libc::SYS_utimes, "utimes", Change),
    (libc::SYS_utimensat, "utimensat", Change),
    (libc::SYS_futimesat, "futimesat", Change),
    (libc::SYS_setxattr, "setxattr", Change),
    (libc::SYS_lsetxattr, "lsetxattr", Change),
    (libc::SYS_fsetxattr, "fsetxattr", Change),
    (libc::SYS_removexattr, "removexattr", Change),
    (libc::SYS_lremovexattr, "lremovexattr", Change),
    (libc::SYS_fremovexattr, "fremovexattr", Change),
    (463, "setxattrat", Change),
    (466, "removexattrat", Change),
    (464, "getxattrat", Allow),
    (465, "listxattrat", Allow),
    // Memory.
    (libc::SYS_mmap, "mmap", Allow),
    (libc::SYS_munmap, "munmap", Allow),
    (libc::SYS_mprotect, "mprotect", Allow),
    (libc::SYS_mremap, "mremap", Allow),
    (libc::SYS_madvise, "madvise", Allow),
    (libc::SYS_brk, "brk", Allow),
    (libc::SYS_msync, "msync", Allow),
    (libc::SYS_mincore, "mincore", Allow),
    (libc::SYS_mlock, "mlock", Allow),
    (libc::SYS_mlock2, "mlock2", Allow),
    (libc::SYS_munlock, "munlock", Allow),
    (libc::SYS_pkey_mprotect, "pkey_mprotect", Allow),
    (libc::SYS_pkey_alloc, "pkey_alloc", Allow),
    (libc::SYS_pkey_free, "pkey_free", Allow),
    (libc::SYS_get_mempolicy, "get_mempolicy", Allow),
    (libc::SYS_membarrier, "membarrier", Allow),
    (453, "map_shadow_stack", Allow),
    (libc::SYS_mseal, "mseal", Allow),
    // Threads, time, waiting, signals to itself.
    (libc::SYS_futex, "futex", Allow),
    (libc::SYS_futex_waitv, "futex_waitv", Allow),
    (454, "futex_wake", Allow),
    (455, "futex_wait", Allow),
    (456, "futex_requeue", Allow),
    (libc::SYS_set_robust_list, "set_robust_list", Allow),
    (libc::SYS_get_robust_list, "get_robust_list", Allow),
    (libc::SYS_set_tid_address, "set_tid_address", Allow),
    (libc::SYS_rseq, "rseq", Allow),
    (libc::SYS_arch_prctl, "arch_prctl", Allow),
    (libc::SYS_sched_yield, "sched_yield", Allow),
    (libc::SYS_sched_getaffinity, "sched_getaffinity", Allow),
    (libc::SYS_sched_setaffinity, "sched_setaffinity", Special),
    (libc::SYS_sched_getparam, "sched_getparam", Allow),
    (libc::SYS_sched_getscheduler, "sched_getscheduler", Allow),
    (libc::SYS_sched_getattr, "sched_getattr", Allow),
    (
        libc::SYS_sched_get_priority_max,
        "sched_get_priority_max",
        Allow,
    ),
    (
        libc::SYS_sched_get_priority_min,
        "sched_get_priority_min",
        Allow,
    ),
    (
        libc::SYS_sched_rr_get_interval,
        "sched_rr_get_interval",
        Allow,
    ),
    (libc::SYS_getpriority, "getpriority", Allow),
    (libc::SYS_ioprio_get, "ioprio_get", Allow),
    (libc::SYS_nanosleep, "nanosleep", Allow),
    (libc::SYS_clock_nanosleep, "clock_nanosleep", Allow),
    (libc::SYS_clock_gettime, "clock_gettime", Allow),
    (libc::SYS_clock_getres, "clock_getres", Allow),
    (libc::SYS_gettimeofday, "gettimeofday", Allow),
    (libc::SYS_time, "time", Allow),
    (libc::SYS_getitimer, "getitimer", Allow),
    (libc::SYS_timer_settime, "timer_settime", Allow),
    (libc::SYS_timer_gettime, "timer_gettime", Allow),
    (libc::SYS_timer_getoverrun, "timer_getoverrun", Allow),
    (libc::SYS_timer_delete, "timer_delete", Allow),
    (libc::SYS_rt_sigprocmask, "rt_sigprocmask", Allow),
    (libc::SYS_rt_sigreturn, "rt_sigreturn", Allow),
    (libc::SYS_rt_sigsuspend, "rt_sigsuspend", Allow),
    (libc::SYS_rt_sigpending, "rt_sigpending", Allow),
    (libc::SYS_rt_sigtimedwait, "rt_sigtimedwait", Allow),
    (libc::SYS_sigaltstack, "sigaltstack", Allow),
    (libc::SYS_restart_syscall, "restart_syscall", Allow),
    (libc::SYS_pause, "pause", Allow),
    (libc::SYS_exit, "exit", Allow),
    (libc::SYS_exit_group, "exit_group", Allow),
    (libc::SYS_wait4, "wait4", Allow),
    (libc::SYS_waitid, "waitid", Allow),
    (libc::SYS_pidfd_open, "pidfd_open", Allow),
    (
        libc::SYS_landlock_create_ruleset,
        "landlock_create_ruleset",
        Allow,
    ),
    (libc::SYS_landlock_add_rule, "landlock_add_rule", Allow),
    (
        libc::SYS_landlock_restrict_self,
        "landlock_restrict_self",
        Allow,
    ),
    (335, "uretprobe", Allow),
    // Descriptors that wait: pipes, events, polls.
    (libc::SYS_pipe, "pipe", Allow),
    (libc::SYS_pipe2, "pipe2", Allow),
    (libc::SYS_eventfd, "eventfd", Allow),
    (libc::SYS_eventfd2, "eventfd2", Allow),
    (libc::SYS_signalfd, "signalfd", Allow),
    (libc::SYS_signalfd4, "signalfd4", Allow),
    (libc::SYS_timerfd_create, "timerfd_create", Allow),
    (libc::SYS_timerfd_settime, "timerfd_settime", Allow),
    (libc::SYS_timerfd_gettime, "timerfd_gettime", Allow),
    (libc::SYS_epoll_create, "epoll_create", Allow),
    (libc::SYS_epoll_create1, "epoll_create1", Allow),
    (libc::SYS_epoll_ctl, "epoll_ctl", Allow),
    (libc::SYS_epoll_wait, "epoll_wait", Allow),
    (libc::SYS_epoll_pwait, "epoll_pwait", Allow),
    (libc::SYS_epoll_pwait2, "epoll_pwait2", Allow),
    (libc::SYS_poll, "poll", Allow),
    (libc::SYS_ppoll, "ppoll", Allow),
    (libc::SYS_select, "select", Allow),
    (libc::SYS_pselect6, "pselect6", Allow),
    // Sockets: only a connected pair can exist (`socket` is refused), so these cannot reach
    // anything outside the process.
    (libc::SYS_accept, "accept", Allow),
    (libc::SYS_accept4, "accept4", Allow),
    (libc::SYS_recvfrom, "recvfrom", Allow),
    (libc::SYS_sendmsg, "sendmsg", Allow),
    (libc::SYS_recvmsg, "recvmsg", Allow),
    (libc::SYS_sendmmsg, "sendmmsg", Allow),
    (libc::SYS_recvmmsg, "recvmmsg", Allow),
    (libc::SYS_shutdown, "shutdown", Allow),
    (libc::SYS_getsockname, "getsockname", Allow),
    (libc::SYS_getpeername, "getpeername", Allow),
    (libc::SYS_setsockopt, "setsockopt", Allow),
    (libc::SYS_getsockopt, "getsockopt", Allow),
    (libc::SYS_socket, "socket", Refuse),
    (libc::SYS_connect, "connect", Refuse),
    (libc::SYS_bind, "bind", Refuse),
    (libc::SYS_listen, "listen", Refuse),
    // Facts about the process and the machine.
    (libc::SYS_getpid, "getpid", Allow),
    (libc::SYS_getppid, "getppid", Allow),
    (libc::SYS_gettid, "gettid", Allow),
    (libc::SYS_getuid, "getuid", Allow),
    (libc::SYS_geteuid, "geteuid", Allow),
    (libc::SYS_getgid, "getgid", Allow),
    (libc::SYS_getegid, "getegid", Allow),
    (libc::SYS_getresuid, "getresuid", Allow),
    (libc::SYS_getresgid, "getresgid", Allow),
    (libc::SYS_getgroups, "getgroups", Allow),
    (libc::SYS_getpgrp, "getpgrp", Allow),
    (libc::SYS_getpgid, "getpgid", Allow),
    (libc::SYS_getsid, "getsid", Allow),
    (libc::SYS_getrlimit, "getrlimit", Allow),
    (libc::SYS_getrusage, "getrusage", Allow),
    (libc::SYS_times, "times", Allow),
    (libc::SYS_uname, "uname", Allow),
    (libc::SYS_sysinfo, "sysinfo", Allow),
    (libc::SYS_getcpu, "getcpu", Allow),
    (libc::SYS_getrandom, "getrandom", Allow),
    (libc::SYS_capget, "capget", Allow),
    // Named so that reports read well; refused like everything not listed.
    (libc::SYS_setsid, "setsid", Refuse),
    (libc::SYS_setpgid, "setpgid", Refuse),
    (libc::SYS_setrlimit, "setrlimit", Refuse),
    (libc::SYS_setuid, "setuid", Refuse),
    (libc::SYS_setgid, "setgid", Refuse),
    (libc::SYS_setreuid, "setreuid", Refuse),
    (libc::SYS_setregid, "setregid", Refuse),
    (libc::SYS_setresuid, "setresuid", Refuse),
    (libc::SYS_setresgid, "setresgid", Refuse),
    (libc::SYS_setfsuid, "setfsuid", Refuse),
    (libc::SYS_setfsgid, "setfsgid", Refuse),
    (libc::SYS_setgroups, "setgroups", Refuse),
    (libc::SYS_capset, "capset", Refuse),
    (libc::SYS_umask, "umask", Refuse),
    (libc::SYS_chdir, "chdir", Refuse),
    (libc::SYS_fchdir, "fchdir", Refuse),
    (libc::SYS_chroot, "chroot", Refuse),
    (libc::SYS_setpriority, "setpriority", Refuse),
    (libc::SYS_sched_setscheduler, "sched_setscheduler", Refuse),
    (libc::SYS_sched_setparam, "sched_setparam", Refuse),
    (libc::SYS_alarm, "alarm", Refuse),
    (libc::SYS_setitimer, "setitimer", Refuse),
    (libc::SYS_timer_create, "timer_create", Refuse),
    (libc::SYS_ptrace, "ptrace", Refuse),
    (libc::SYS_process_vm_readv, "process_vm_readv", Refuse),
    (libc::SYS_process_vm_writev, "process_vm_writev", Refuse),
    (libc::SYS_pidfd_send_signal, "pidfd_send_signal", Refuse),
    (libc::SYS_pidfd_getfd, "pidfd_getfd", Refuse),
    (libc::SYS_unshare, "unshare", Refuse),
    // A filter of its own (the driver's is in place by then) would change the shared test
    // process under a plain `cargo test`: strict mode kills it, a filter with TSYNC reaches
    // every thread.
    (libc::SYS_seccomp, "seccomp", Refuse),
    // Files by handle: a path Landlock never sees.
    (libc::SYS_name_to_handle_at, "name_to_handle_at", Refuse),
    (libc::SYS_open_by_handle_at, "open_by_handle_at", Refuse),
    (libc::SYS_setns, "setns", Refuse),
    (libc::SYS_mount, "mount", Refuse),
    (libc::SYS_umount2, "umount2", Refuse),
    (libc::SYS_openat2, "openat2", Refuse),
    (libc::SYS_sync, "sync", Refuse),
    (libc::SYS_syncfs, "syncfs", Refuse),
    (libc::SYS_io_uring_setup, "io_uring_setup", Refuse),
    (libc::SYS_shmget, "shmget", Refuse),
    (libc::SYS_semget, "semget", Refuse),
    (libc::SYS_msgget, "msgget", Refuse),
    (libc::SYS_mq_open, "mq_open", Refuse),
    (libc::SYS_reboot, "reboot", Refuse),
];

/// The name of an x86-64 system call, when the policy knows it.
pub fn name(nr: i64) -> Option<&'static str> {
    TABLE
        .iter()
        .find(|(n, _, _)| *n == nr)
        .map(|(_, name, _)| *name)
}

/// The index of the argument that holds a path, for the calls that take one (to say what a
/// refused call tried).
pub fn path_arg(nr: i64) -> Option<u8> {
    let n = nr as c_long;
    Some(match n {
        libc::SYS_open
        | libc::SYS_creat
        | libc::SYS_mkdir
        | libc::SYS_mknod
        | libc::SYS_truncate
        | libc::SYS_unlink
        | libc::SYS_rmdir
        | libc::SYS_rename
        | libc::SYS_chmod
        | libc::SYS_chown
        | libc::SYS_lchown
        | libc::SYS_utime
        | libc::SYS_utimes
        | libc::SYS_setxattr
        | libc::SYS_lsetxattr
        | libc::SYS_removexattr
        | libc::SYS_lremovexattr
        | libc::SYS_execve
        | libc::SYS_chdir
        | libc::SYS_chroot => 0,
        libc::SYS_openat
        | libc::SYS_mkdirat
        | libc::SYS_mknodat
        | libc::SYS_unlinkat
        | libc::SYS_renameat
        | libc::SYS_renameat2
        | libc::SYS_fchmodat
        | libc::SYS_fchmodat2
        | libc::SYS_fchownat
        | libc::SYS_futimesat
        | libc::SYS_utimensat
        | libc::SYS_execveat
        | libc::SYS_link
        | libc::SYS_symlink => 1,
        libc::SYS_symlinkat => 2,
        libc::SYS_linkat => 3,
        _ => return None,
    })
}

/// Open flags that write or create.
const WRITE_FLAGS: u32 =
    (libc::O_WRONLY | libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC) as u32 | 0o20000000; // __O_TMPFILE
/// `prctl` options that only read, or change the calling thread alone.
const PRCTL_ALLOWED: &[i32] = &[
    libc::PR_SET_NAME,
    libc::PR_GET_NAME,
    libc::PR_GET_DUMPABLE,
    libc::PR_GET_SECCOMP,
    libc::PR_CAPBSET_READ,
    libc::PR_GET_TIMERSLACK,
    libc::PR_SET_NO_NEW_PRIVS,
    libc::PR_GET_NO_NEW_PRIVS,
    libc::PR_GET_TID_ADDRESS,
    libc::PR_GET_THP_DISABLE,
    libc::PR_GET_PDEATHSIG,
    libc::PR_GET_CHILD_SUBREAPER,
    libc::PR_GET_KEEPCAPS,
    libc::PR_GET_SECUREBITS,
    libc::PR_GET_SPECULATION_CTRL,
    0x5356_4d41, // PR_SET_VMA: names of anonymous memory (glibc's allocator)
];
/// Terminal requests (`0x54..`) that only read or change the descriptor alone: `TCGETS`,
/// `TCGETA`, `TIOCGPGRP`, `TIOCOUTQ`, `TIOCGWINSZ`, `TIOCMGET`, `TIOCGSOFTCAR`, `FIONREAD`,
/// `TIOCGSERIAL`, `FIONBIO`, `TIOCGETD`, `TIOCGSID`, `TCGETS2`, `TIOCGPTN`, `TIOCGDEV`,
/// `TIOCGPKT`, `TIOCGPTLCK`, `TIOCGEXCL`, `FIONCLEX`, `FIOCLEX`, `FIOASYNC` (no owner can be
/// set), `TIOCGICOUNT`, `FIOQSIZE`. The rest of the range is refused.
const TTY_READS: &[u32] = &[
    0x5401,
    0x5405,
    0x540f,
    0x5411,
    0x5413,
    0x5415,
    0x5419,
    0x541b,
    0x541e,
    0x5421,
    0x5424,
    0x5429,
    0x802c_542a,
    0x8004_5430,
    0x8004_5432,
    0x8004_5438,
    0x8004_5439,
    0x8004_5440,
    0x5450,
    0x5451,
    0x5452,
    0x545d,
    0x5460,
];
/// Terminal requests that reach beyond the process: faking input, console control.
#[cfg(test)]
const TIOCSTI: u32 = 0x5412;
/// `fcntl`'s command that sets the owner with its type (not in the `libc` crate).
const F_SETOWN_EX: i32 = 15;
/// Setting which process gets a socket's signals.
const FIOSETOWN: u32 = 0x8901;
const SIOCSPGRP: u32 = 0x8902;

fn check(arg: u8, test: Test, then: Action) -> Check {
    Check { arg, test, then }
}

/// Rules for the [`Class::Special`] calls.
fn special(nr: c_long) -> Rule {
    match nr {
        libc::SYS_prctl => Rule::Checks(
            PRCTL_ALLOWED
                .iter()
                .map(|&o| check(0, Test::Eq(o as u32), Action::Allow))
                .collect(),
            Action::Refuse,
        ),
        // Terminal requests that only read are allowed; those that change the terminal (its
        // settings, size, process group, input) reach whoever else uses it. Setting the owner
        // of a socket's signals would signal another process.
        libc::SYS_ioctl => Rule::Checks(
            TTY_READS
                .iter()
                .map(|&r| check(1, Test::Eq(r), Action::Allow))
                .chain([
                    check(1, Test::Masked(0xff00, 0x5400), Action::Refuse),
                    check(1, Test::Eq(FIOSETOWN), Action::Refuse),
                    check(1, Test::Eq(SIOCSPGRP), Action::Refuse),
                ])
                .collect(),
            Action::Allow,
        ),
        // The owner of a descriptor's signals (`SIGIO`, `SIGURG`) would be another process;
        // a lease makes everyone else who opens the file wait.
        libc::SYS_fcntl => Rule::Checks(
            [libc::F_SETOWN, F_SETOWN_EX, libc::F_SETLEASE]
                .iter()
                .map(|&c| check(1, Test::Eq(c as u32), Action::Refuse))
                .collect(),
            Action::Allow,
        ),
        // Only the calling thread's own (pid 0): another process's is not its to change.
        libc::SYS_sched_setaffinity => {
            Rule::Checks(vec![check(0, Test::Eq(0), Action::Allow)], Action::Refuse)
        }
        // Only the thread's own handler may answer a refusal.
        libc::SYS_rt_sigaction => Rule::Checks(
            vec![check(0, Test::Eq(libc::SIGSYS as u32), Action::Refuse)],
            Action::Allow,
        ),
        // Reading limits is fine; setting them changes the whole process.
        libc::SYS_prlimit64 => Rule::Checks(
            vec![check(2, Test::Exact(0), Action::Allow)],
            Action::Refuse,
        ),
        // 0xffffffff only asks for the current persona.
        libc::SYS_personality => Rule::Checks(
            vec![check(0, Test::Eq(0xffff_ffff), Action::Allow)],
            Action::Refuse,
        ),
        // A connected pair of stream sockets cannot be pointed at anything else; datagram
        // sockets could send to any address.
        libc::SYS_socketpair => Rule::Checks(
            vec![
                check(
                    1,
                    Test::Masked(0xf, libc::SOCK_STREAM as u32),
                    Action::Allow,
                ),
                check(
                    1,
                    Test::Masked(0xf, libc::SOCK_SEQPACKET as u32),
                    Action::Allow,
                ),
            ],
            Action::Refuse,
        ),
        // With an address, a datagram goes wherever it says.
        libc::SYS_sendto => Rule::Checks(
            vec![check(4, Test::Exact(0), Action::Allow)],
            Action::Refuse,
        ),
        _ => Rule::Always(Action::Refuse),
    }
}

fn rule(nr: c_long, class: Class, policy: &Policy) -> Rule {
    let writes = |a: Action| if policy.writes { Action::Allow } else { a };
    match class {
        Allow => Rule::Always(Action::Allow),
        Open(arg) => Rule::Checks(
            vec![check(
                arg,
                Test::AnyBit(WRITE_FLAGS),
                writes(Action::Refuse),
            )],
            Action::Allow,
        ),
        Create => Rule::Always(writes(Action::Refuse)),
        Change | Refuse | Start => Rule::Always(Action::Refuse),
        Clone => Rule::Checks(
            vec![check(
                0,
                Test::AnyBit(libc::CLONE_THREAD as u32),
                Action::Allow,
            )],
            Action::Refuse,
        ),
        Exec => match policy.profile {
            Profile::Tests { exec_path } if nr == libc::SYS_execve => Rule::Checks(
                vec![check(0, Test::Exact(exec_path), Action::Allow)],
                Action::Refuse,
            ),
            _ => Rule::Always(Action::Refuse),
        },
        Signal(arg) => match policy.profile {
            Profile::Server => Rule::Always(Action::Refuse),
            Profile::Tests { .. } => Rule::Checks(
                vec![check(arg, Test::OwnPid, Action::Allow)],
                Action::Refuse,
            ),
        },
        Special => special(nr),
        Clone3 => match policy.profile {
            Profile::Server => match policy.thread_start {
                Some(start) => Rule::Checks(
                    vec![check(
                        2,
                        Test::GlibcThread(start),
                        Action::Errno(libc::ENOSYS),
                    )],
                    Action::Refuse,
                ),
                None => Rule::Always(Action::Refuse),
            },
            Profile::Tests { .. } => Rule::Always(Action::Errno(libc::ENOSYS)),
        },
    }
}

fn stmt(code: u16, k: u32) -> libc::sock_filter {
    libc::sock_filter {
        code,
        jt: 0,
        jf: 0,
        k,
    }
}

fn jump(code: u16, k: u32, jt: u8, jf: u8) -> libc::sock_filter {
    libc::sock_filter { code, jt, jf, k }
}

/// Appends the instructions of one rule (they end in returns); records pid slots. `refuse` is
/// what a refusal returns.
fn compile_rule(
    rule: &Rule,
    refuse: u32,
    code: &mut Vec<libc::sock_filter>,
    pid_slots: &mut Vec<usize>,
) {
    let (checks, otherwise) = match rule {
        Rule::Always(a) => {
            code.push(stmt(RET_K, a.ret(refuse)));
            return;
        }
        Rule::Checks(checks, otherwise) => (checks, *otherwise),
    };
    for c in checks {
        match c.test {
            Test::Eq(k) => {
                code.push(stmt(LD_W_ABS, arg_low(c.arg)));
                code.push(jump(JEQ_K, k, 0, 1));
            }
            Test::OwnPid => {
                code.push(stmt(LD_W_ABS, arg_low(c.arg)));
                pid_slots.push(code.len());
                code.push(jump(JEQ_K, 0, 0, 1));
            }
            Test::AnyBit(bits) => {
                code.push(stmt(LD_W_ABS, arg_low(c.arg)));
                code.push(jump(JSET_K, bits, 0, 1));
            }
            Test::Masked(mask, k) => {
                code.push(stmt(LD_W_ABS, arg_low(c.arg)));
                code.push(stmt(AND_K, mask));
                code.push(jump(JEQ_K, k, 0, 1));
            }
            Test::Exact(v) => {
                code.push(stmt(LD_W_ABS, arg_low(c.arg)));
                code.push(jump(JEQ_K, v as u32, 0, 3));
                code.push(stmt(LD_W_ABS, arg_high(c.arg)));
                code.push(jump(JEQ_K, (v >> 32) as u32, 0, 1));
            }
            Test::GlibcThread(ThreadStart { ip, entry }) => {
                // All four words must match; a mismatch skips past this check's return.
                let words = [
                    (IP_LOW, ip as u32),
                    (IP_HIGH, (ip >> 32) as u32),
                    (arg_low(c.arg), entry as u32),
                    (arg_high(c.arg), (entry >> 32) as u32),
                ];
                for (i, (offset, k)) in words.into_iter().enumerate() {
                    code.push(stmt(LD_W_ABS, offset));
                    code.push(jump(JEQ_K, k, 0, (2 * (3 - i) + 1) as u8));
                }
            }
        }
        code.push(stmt(RET_K, c.then.ret(refuse)));
    }
    code.push(stmt(RET_K, otherwise.ret(refuse)));
}

/// The allow-list filter for a policy: other architectures (`int 0x80`) and the x32 ABI
/// refused, each listed call by its rule, the rest refused.
pub fn program(policy: &Policy) -> Program {
    let refuse = match policy.profile {
        Profile::Server => RET_USER_NOTIF,
        Profile::Tests { .. } => RET_TRAP,
    };
    let mut code = vec![
        stmt(LD_W_ABS, ARCH),
        jump(JEQ_K, AUDIT_ARCH_X86_64, 1, 0),
        stmt(RET_K, refuse),
        stmt(LD_W_ABS, NR),
        jump(JGE_K, X32_SYSCALL_BIT, 0, 1),
        stmt(RET_K, refuse),
    ];
    let mut pid_slots = Vec::new();
    for &(nr, _, class) in TABLE {
        let mut block = Vec::new();
        let mut slots = Vec::new();
        compile_rule(&rule(nr, class, policy), refuse, &mut block, &mut slots);
        // Skip the block unless the number matches (each block ends in returns).
        assert!(block.len() <= u8::MAX as usize, "filter block too long");
        code.push(jump(JEQ_K, nr as u32, 0, block.len() as u8));
        let at = code.len();
        pid_slots.extend(slots.into_iter().map(|s| s + at));
        code.extend(block);
    }
    code.push(stmt(RET_K, refuse));
    Program { code, pid_slots }
}

/// The filter the driver starts under, before its own ([`program`]) is in place: it keeps
/// code that runs when the binary loads (constructors) from leaving the process group, which
/// is killed as a whole when the driver is done (`setsid`, `setpgid`, and every 32-bit or x32
/// call, fail). Everything else is left to the layers around it and to the driver's own
/// filter, which stacks on this one: the floor answers with [`RET_TRACE`], which the kernel
/// ranks below the driver's requests to its supervisor, so those refusals are still logged.
pub fn floor() -> Program {
    let refused = RET_TRACE;
    let code = vec![
        stmt(LD_W_ABS, ARCH),
        jump(JEQ_K, AUDIT_ARCH_X86_64, 1, 0),
        stmt(RET_K, refused),
        stmt(LD_W_ABS, NR),
        jump(JGE_K, X32_SYSCALL_BIT, 0, 1),
        stmt(RET_K, refused),
        jump(JEQ_K, libc::SYS_setsid as u32, 1, 0),
        jump(JEQ_K, libc::SYS_setpgid as u32, 0, 1),
        stmt(RET_K, refused),
        stmt(RET_K, RET_ALLOW),
    ];
    Program {
        code,
        pid_slots: Vec::new(),
    }
}

/// The probe's filter ([`crate::supervisor::glibc_thread_start`]): every x86-64 `clone3` to a
/// listener, everything else allowed.
pub(crate) fn clone3_probe() -> Program {
    let code = vec![
        stmt(LD_W_ABS, ARCH),
        jump(JEQ_K, AUDIT_ARCH_X86_64, 0, 3),
        stmt(LD_W_ABS, NR),
        jump(JEQ_K, libc::SYS_clone3 as u32, 0, 1),
        stmt(RET_K, RET_USER_NOTIF),
        stmt(RET_K, RET_ALLOW),
    ];
    Program {
        code,
        pid_slots: Vec::new(),
    }
}

/// For a call that sends a signal, the argument that says to whom (a pid or thread group).
pub fn signal_target(nr: i64) -> Option<u8> {
    TABLE
        .iter()
        .find(|(n, _, _)| *n == nr)
        .and_then(|(_, _, class)| match class {
            Signal(arg) => Some(*arg),
            _ => None,
        })
}

/// Whether a call starts a process (`fork`, `vfork`, or `clone`, which the filter refuses
/// only for processes).
pub fn starts_process(nr: i64) -> bool {
    let n = nr as c_long;
    n == libc::SYS_fork || n == libc::SYS_vfork || n == libc::SYS_clone
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs a program on one system call, as the kernel would.
    fn run(p: &Program, arch: u32, nr: i64, args: [u64; 6]) -> u32 {
        run_at(p, arch, nr, 0, args)
    }

    /// As [`run`], for a call made from instruction address `ip`.
    fn run_at(p: &Program, arch: u32, nr: i64, ip: u64, args: [u64; 6]) -> u32 {
        let mut data = [0u32; 16];
        data[0] = nr as u32;
        data[1] = arch;
        data[2] = ip as u32;
        data[3] = (ip >> 32) as u32;
        for (i, a) in args.iter().enumerate() {
            data[4 + 2 * i] = *a as u32;
            data[5 + 2 * i] = (a >> 32) as u32;
        }
        let (mut acc, mut pc) = (0u32, 0usize);
        loop {
            let ins = p.code[pc];
            pc += 1;
            match ins.code {
                LD_W_ABS => acc = data[ins.k as usize / 4],
                AND_K => acc &= ins.k,
                RET_K => return ins.k,
                JEQ_K | JSET_K | JGE_K => {
                    let taken = match ins.code {
                        JEQ_K => acc == ins.k,
                        JSET_K => acc & ins.k != 0,
                        _ => acc >= ins.k,
                    };
                    pc += if taken { ins.jt } else { ins.jf } as usize;
                }
                c => panic!("unknown instruction {c:#x}"),
            }
        }
    }

    /// What the server's filter returns for a refusal: a request to the supervisor.
    const REFUSED: u32 = RET_USER_NOTIF;

    fn server(writes: bool) -> Program {
        program(&Policy {
            profile: Profile::Server,
            writes,
            thread_start: None,
        })
    }

    fn tests_profile(pid: u32) -> Program {
        let mut p = program(&Policy {
            profile: Profile::Tests {
                exec_path: 0x1234_5678_9abc,
            },
            writes: false,
            thread_start: None,
        });
        p.set_pid(pid);
        p
    }

    fn x86(p: &Program, nr: c_long, args: [u64; 6]) -> u32 {
        run(p, AUDIT_ARCH_X86_64, nr, args)
    }

    #[test]
    fn other_architectures_and_x32_are_refused() {
        for (p, refused) in [(server(false), REFUSED), (tests_profile(1), RET_TRAP)] {
            assert_eq!(run(&p, 0x4000_0003, 4, [0; 6]), refused, "int 0x80 write");
            let x32 = (X32_SYSCALL_BIT + 1) as i64;
            assert_eq!(run(&p, AUDIT_ARCH_X86_64, x32, [0; 6]), refused);
            assert_eq!(x86(&p, libc::SYS_write, [1, 0, 0, 0, 0, 0]), RET_ALLOW);
        }
    }

    #[test]
    fn unknown_calls_are_refused() {
        let p = server(true);
        assert_eq!(x86(&p, libc::SYS_kexec_load, [0; 6]), REFUSED);
        assert_eq!(run(&p, AUDIT_ARCH_X86_64, 999, [0; 6]), REFUSED);
        assert_eq!(x86(&p, libc::SYS_setsid, [0; 6]), REFUSED);
        let unix = [libc::AF_UNIX as u64, 1, 0, 0, 0, 0];
        assert_eq!(x86(&p, libc::SYS_socket, unix), REFUSED);
        assert_eq!(x86(&tests_profile(1), libc::SYS_socket, unix), RET_TRAP);
        // Strict mode (0) or a filter of its own, for the shared test process.
        for mode in [0, 1] {
            let args = [mode, 0, 0, 0, 0, 0];
            assert_eq!(x86(&p, libc::SYS_seccomp, args), REFUSED);
            assert_eq!(x86(&tests_profile(1), libc::SYS_seccomp, args), RET_TRAP);
        }
        assert_eq!(x86(&p, libc::SYS_open_by_handle_at, [0; 6]), REFUSED);
        assert_eq!(name(libc::SYS_open_by_handle_at), Some("open_by_handle_at"));
    }

    #[test]
    fn opening_for_writing_depends_on_writes() {
        for (writes, expected) in [(false, REFUSED), (true, RET_ALLOW)] {
            let p = server(writes);
            let wr = libc::O_WRONLY as u64 | libc::O_CREAT as u64;
            assert_eq!(x86(&p, libc::SYS_openat, [0, 0, wr, 0, 0, 0]), expected);
            let rdwr = [0, libc::O_RDWR as u64, 0, 0, 0, 0];
            assert_eq!(x86(&p, libc::SYS_open, rdwr), expected);
            assert_eq!(x86(&p, libc::SYS_mkdir, [0; 6]), expected);
            let ro = libc::O_RDONLY as u64 | libc::O_CLOEXEC as u64;
            assert_eq!(x86(&p, libc::SYS_openat, [0, 0, ro, 0, 0, 0]), RET_ALLOW);
            assert_eq!(x86(&p, libc::SYS_unlink, [0; 6]), REFUSED);
            assert_eq!(x86(&p, libc::SYS_chmod, [0; 6]), REFUSED);
        }
    }

    #[test]
    fn threads_are_allowed_processes_and_signals_go_to_the_supervisor() {
        let p = server(false);
        let thread = (libc::CLONE_VM | libc::CLONE_THREAD | libc::CLONE_SIGHAND) as u64;
        assert_eq!(x86(&p, libc::SYS_clone, [thread, 0, 0, 0, 0, 0]), RET_ALLOW);
        let process = (libc::CLONE_VM | libc::CLONE_VFORK) as u64 | libc::SIGCHLD as u64;
        assert_eq!(x86(&p, libc::SYS_clone, [process, 0, 0, 0, 0, 0]), REFUSED);
        assert_eq!(x86(&p, libc::SYS_fork, [0; 6]), REFUSED);
        assert_eq!(x86(&p, libc::SYS_kill, [1, 9, 0, 0, 0, 0]), REFUSED);
        assert_eq!(x86(&p, libc::SYS_clone3, [0; 6]), REFUSED);
        assert_eq!(
            x86(&tests_profile(1), libc::SYS_clone3, [0; 6]),
            RET_ERRNO | libc::ENOSYS as u32
        );
        assert_eq!(x86(&p, libc::SYS_execve, [0; 6]), REFUSED);
        assert!(starts_process(libc::SYS_vfork));
        assert_eq!(signal_target(libc::SYS_tgkill), Some(0));
        assert_eq!(signal_target(libc::SYS_read), None);
    }

    #[test]
    fn glibc_s_own_thread_start_fails_at_once_and_any_other_clone3_goes_to_the_supervisor() {
        let start = ThreadStart {
            ip: 0x7f12_3456_789a,
            entry: 0x7f12_3450_0000,
        };
        let p = program(&Policy {
            profile: Profile::Server,
            writes: false,
            thread_start: Some(start),
        });
        let nosys = RET_ERRNO | libc::ENOSYS as u32;
        let call = |ip: u64, entry: u64| {
            run_at(
                &p,
                AUDIT_ARCH_X86_64,
                libc::SYS_clone3,
                ip,
                [0x1000, 88, entry, 0, 0x2000, 0],
            )
        };
        assert_eq!(call(start.ip, start.entry), nosys);
        // Each of the four words must match.
        for (ip, entry) in [
            (start.ip + 2, start.entry),
            (start.ip ^ (1 << 40), start.entry),
            (start.ip, start.entry + 16),
            (start.ip, start.entry ^ (1 << 40)),
            (0, 0),
        ] {
            assert_eq!(call(ip, entry), REFUSED, "{ip:#x} {entry:#x}");
        }
        // Nothing else changes: clone with thread flags is still allowed, processes refused.
        let thread = (libc::CLONE_VM | libc::CLONE_THREAD | libc::CLONE_SIGHAND) as u64;
        assert_eq!(x86(&p, libc::SYS_clone, [thread, 0, 0, 0, 0, 0]), RET_ALLOW);
        assert_eq!(
            x86(&p, libc::SYS_clone, [libc::SIGCHLD as u64, 0, 0, 0, 0, 0]),
            REFUSED
        );
    }

    #[test]
    fn tests_signal_only_themselves_and_exec_only_the_launcher_path() {
        let p = tests_profile(4321);
        assert_eq!(x86(&p, libc::SYS_kill, [4321, 6, 0, 0, 0, 0]), RET_ALLOW);
        assert_eq!(
            x86(&p, libc::SYS_tgkill, [4321, 4325, 6, 0, 0, 0]),
            RET_ALLOW
        );
        assert_eq!(x86(&p, libc::SYS_kill, [0, 9, 0, 0, 0, 0]), RET_TRAP);
        let everyone = [u32::MAX as u64, 9, 0, 0, 0, 0];
        assert_eq!(x86(&p, libc::SYS_kill, everyone), RET_TRAP);
        assert_eq!(x86(&p, libc::SYS_kill, [1, 9, 0, 0, 0, 0]), RET_TRAP);
        let launcher = [0x1234_5678_9abc, 0, 0, 0, 0, 0];
        assert_eq!(x86(&p, libc::SYS_execve, launcher), RET_ALLOW);
        assert_eq!(
            x86(&p, libc::SYS_execve, [0x5678_9abc, 0, 0, 0, 0, 0]),
            RET_TRAP
        );
        assert_eq!(x86(&p, libc::SYS_fork, [0; 6]), RET_TRAP);
    }

    #[test]
    fn checked_arguments() {
        let p = server(false);
        let name = libc::PR_SET_NAME as u64;
        assert_eq!(x86(&p, libc::SYS_prctl, [name, 0, 0, 0, 0, 0]), RET_ALLOW);
        let dumpable = libc::PR_SET_DUMPABLE as u64;
        assert_eq!(x86(&p, libc::SYS_prctl, [dumpable, 0, 0, 0, 0, 0]), REFUSED);
        let pdeath = libc::PR_SET_PDEATHSIG as u64;
        assert_eq!(x86(&p, libc::SYS_prctl, [pdeath, 9, 0, 0, 0, 0]), REFUSED);
        let get = [0, 7, 0, 0x7fff_0000, 0, 0];
        assert_eq!(x86(&p, libc::SYS_prlimit64, get), RET_ALLOW);
        let set_low = [0, 7, 0x7fff_0000, 0, 0, 0];
        assert_eq!(x86(&p, libc::SYS_prlimit64, set_low), REFUSED);
        let set_high = [0, 7, 1 << 40, 0, 0, 0];
        assert_eq!(x86(&p, libc::SYS_prlimit64, set_high), REFUSED);
        let query = [0xffff_ffff, 0, 0, 0, 0, 0];
        assert_eq!(x86(&p, libc::SYS_personality, query), RET_ALLOW);
        let change = [0x0040_0000, 0, 0, 0, 0, 0];
        assert_eq!(x86(&p, libc::SYS_personality, change), REFUSED);
        let stream = libc::SOCK_STREAM as u64 | libc::SOCK_CLOEXEC as u64;
        assert_eq!(
            x86(&p, libc::SYS_socketpair, [1, stream, 0, 0, 0, 0]),
            RET_ALLOW
        );
        assert_eq!(x86(&p, libc::SYS_socketpair, [1, 2, 0, 0, 0, 0]), REFUSED);
        assert_eq!(x86(&p, libc::SYS_sendto, [3, 0, 0, 0, 0, 0]), RET_ALLOW);
        assert_eq!(x86(&p, libc::SYS_sendto, [3, 0, 0, 0, 0x7000, 0]), REFUSED);
        let fcntl = |cmd: i32| x86(&p, libc::SYS_fcntl, [3, cmd as u64, 77, 0, 0, 0]);
        assert_eq!(fcntl(libc::F_GETFL), RET_ALLOW);
        assert_eq!(fcntl(libc::F_SETFD), RET_ALLOW);
        assert_eq!(fcntl(libc::F_SETOWN), REFUSED);
        assert_eq!(fcntl(libc::F_SETLEASE), REFUSED);
        let affinity = |pid: u64| x86(&p, libc::SYS_sched_setaffinity, [pid, 8, 0x7000, 0, 0, 0]);
        assert_eq!(affinity(0), RET_ALLOW);
        assert_eq!(affinity(4321), REFUSED);
        let ioctl = |req: u64| x86(&p, libc::SYS_ioctl, [0, req, 0, 0, 0, 0]);
        assert_eq!(ioctl(0x5413), RET_ALLOW, "TIOCGWINSZ");
        assert_eq!(ioctl(0x802c_542a), RET_ALLOW, "TCGETS2");
        assert_eq!(ioctl(0x5402), REFUSED, "TCSETS");
        assert_eq!(ioctl(0x5414), REFUSED, "TIOCSWINSZ");
        assert_eq!(ioctl(0x402c_542b), REFUSED, "TCSETS2");
        assert_eq!(ioctl(0x8901), REFUSED, "FIOSETOWN");
        assert_eq!(ioctl(0x4004_6601), RET_ALLOW, "FS_IOC_GETFLAGS");
        let tiocsti = [0, TIOCSTI as u64, 0, 0, 0, 0];
        assert_eq!(x86(&p, libc::SYS_ioctl, tiocsti), REFUSED);
        assert_eq!(
            x86(&p, libc::SYS_ioctl, [0, libc::TCGETS, 0, 0, 0, 0]),
            RET_ALLOW
        );
        assert_eq!(
            x86(&p, libc::SYS_rt_sigaction, [31, 0, 0, 0, 0, 0]),
            REFUSED
        );
        assert_eq!(
            x86(&p, libc::SYS_rt_sigaction, [6, 0, 0, 0, 0, 0]),
            RET_ALLOW
        );
    }

    #[test]
    fn the_floor_keeps_the_process_group() {
        let p = floor();
        let refused = RET_TRACE;
        assert_eq!(x86(&p, libc::SYS_setsid, [0; 6]), refused);
        assert_eq!(x86(&p, libc::SYS_setpgid, [0; 6]), refused);
        assert_eq!(run(&p, 0x4000_0003, 66, [0; 6]), refused, "int 0x80 setsid");
        assert_eq!(x86(&p, libc::SYS_fork, [0; 6]), RET_ALLOW);
        assert_eq!(x86(&p, libc::SYS_write, [0; 6]), RET_ALLOW);
    }

    #[test]
    fn every_listed_call_has_one_entry_and_fits() {
        let mut seen = std::collections::BTreeSet::new();
        for (nr, name, _) in TABLE {
            assert!(seen.insert(*nr), "{name} listed twice");
        }
        assert!(server(false).len() < 1024);
    }
}
