//! The layers at work on real processes: this test binary starts copies of itself inside the
//! sandbox, each told by `HERMETIC_SANDBOX_ACT` to try one thing, and checks how they end.

use hermetic_sandbox::filter::{self, Policy, Profile};
use hermetic_sandbox::{supervisor, Layers, Log, Sandbox};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const ACT: &str = "HERMETIC_SANDBOX_ACT";

/// A fresh directory under the system's temporary directory.
fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("hermetic-sandbox-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// How a contained copy of this binary that tried `act` ended, and the layers it had.
fn contained(act: &str, sandbox: &Sandbox, arg: &Path) -> (std::process::ExitStatus, Layers) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args(["--exact", "act", "--test-threads=1", "--nocapture"])
        .env(ACT, act)
        .env("HERMETIC_SANDBOX_ARG", arg)
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let pending = sandbox.apply(&mut cmd).unwrap();
    let mut child = cmd.spawn().unwrap();
    let layers = pending.layers();
    (child.wait().unwrap(), layers)
}

fn tests_sandbox(writable: &Path) -> Sandbox {
    Sandbox {
        writable: vec![writable.to_path_buf()],
        memory: Some(hermetic_sandbox::launch::DEFAULT_MEMORY),
        namespaces: true,
        landlock: true,
        filter: true,
    }
}

/// The acts, run by contained copies (a no-op in the test run itself).
#[test]
fn act() {
    let Ok(act) = std::env::var(ACT) else { return };
    let arg = PathBuf::from(std::env::var_os("HERMETIC_SANDBOX_ARG").unwrap());
    let code = match act.as_str() {
        "nothing" => 0,
        "threads" => {
            let t: Vec<_> = (0..4).map(|i| std::thread::spawn(move || i * 2)).collect();
            (t.into_iter().map(|t| t.join().unwrap()).sum::<i32>() != 12) as i32
        }
        "read" => (std::fs::read_dir("/").unwrap().count() == 0) as i32,
        "write" => std::fs::write(&arg, "x").is_ok() as i32,
        "write_raw" => {
            let path = std::ffi::CString::new(arg.to_str().unwrap()).unwrap();
            // SAFETY: a plain system call with a valid path.
            let fd = unsafe {
                libc::syscall(
                    libc::SYS_open,
                    path.as_ptr(),
                    libc::O_CREAT | libc::O_WRONLY,
                    0o644,
                )
            };
            (fd >= 0) as i32
        }
        // SAFETY: a signal, no pointers (the sandbox is what is under test).
        "kill_parent" => unsafe { libc::kill(libc::getppid(), libc::SIGTERM) },
        // SAFETY: as above.
        "kill_group" => unsafe { libc::kill(0, libc::SIGTERM) },
        // SAFETY: as above.
        "kill_self" => unsafe { libc::kill(libc::getpid(), libc::SIGUSR2) },
        "spawn" => std::process::Command::new("/bin/true").status().is_ok() as i32,
        "int80" => {
            let mut ret: i32 = 20; // getpid on i386
                                   // SAFETY: a 32-bit system call without pointers.
            unsafe { std::arch::asm!("int 0x80", inout("eax") ret) };
            (ret > 0) as i32
        }
        // SAFETY: setsid takes no arguments.
        "setsid" => (unsafe { libc::setsid() } >= 0) as i32,
        "tcp" => std::net::TcpStream::connect(arg.to_str().unwrap()).is_ok() as i32,
        "memory" => {
            // 8 GiB, past the limit: the allocation fails (and aborts).
            let v: Vec<u8> = vec![1; 8 << 30];
            (v.len() > 1) as i32
        }
        other => panic!("unknown act {other}"),
    };
    std::process::exit(code);
}

#[test]
fn test_binaries_do_what_harmless_code_does() {
    let scratch = temp_dir("harmless");
    for act in ["nothing", "threads", "read", "kill_self"] {
        let (status, layers) = contained(act, &tests_sandbox(&scratch), &scratch);
        if act == "kill_self" {
            assert_eq!(status.signal(), Some(libc::SIGUSR2), "{act}");
        } else {
            assert_eq!(status.code(), Some(0), "{act}: {status:?}");
        }
        assert!(layers.seccomp && layers.landlock, "{layers:?}");
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}

#[test]
fn test_binaries_die_on_a_refused_act() {
    let scratch = temp_dir("refused");
    let outside = temp_dir("refused-outside").join("canary");
    for act in [
        "write",
        "write_raw",
        "kill_parent",
        "kill_group",
        "spawn",
        "int80",
        "setsid",
    ] {
        let (status, _) = contained(act, &tests_sandbox(&scratch), &outside);
        assert_eq!(status.signal(), Some(libc::SIGSYS), "{act}: {status:?}");
    }
    assert!(!outside.exists());
    std::fs::remove_dir_all(&scratch).unwrap();
    std::fs::remove_dir_all(outside.parent().unwrap()).unwrap();
}

#[test]
fn memory_floods_fail_in_the_process() {
    let scratch = temp_dir("memory");
    let (status, _) = contained("memory", &tests_sandbox(&scratch), &scratch);
    assert_eq!(status.signal(), Some(libc::SIGABRT), "{status:?}");
    std::fs::remove_dir_all(&scratch).unwrap();
}

/// Without the filter, each of the other layers holds alone (where the kernel has it).
#[test]
fn namespaces_and_landlock_each_hold_without_the_filter() {
    let scratch = temp_dir("layers");
    let outside = temp_dir("layers-outside").join("canary");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = PathBuf::from(listener.local_addr().unwrap().to_string());
    for (namespaces, landlock) in [(true, false), (false, true)] {
        let sandbox = Sandbox {
            filter: false,
            namespaces,
            landlock,
            ..tests_sandbox(&scratch)
        };
        let (status, layers) = contained("nothing", &sandbox, &outside);
        assert_eq!(status.code(), Some(0));
        eprintln!("layers here: {layers:?}");
        assert!(!layers.seccomp);
        let fs_held = layers.read_only || layers.landlock;
        let net_held = layers.no_network || layers.landlock;
        let (status, _) = contained("write", &sandbox, &outside);
        assert_eq!(status.code() == Some(1), !fs_held, "{layers:?}");
        assert!(fs_held || std::fs::remove_file(&outside).is_ok());
        assert!(!fs_held || !outside.exists());
        let inside = scratch.join("inside");
        let (status, _) = contained("write", &sandbox, &inside);
        assert_eq!(status.code(), Some(1), "could not write inside: {layers:?}");
        std::fs::remove_file(&inside).unwrap();
        let (status, _) = contained("tcp", &sandbox, &addr);
        assert_eq!(status.code() == Some(1), !net_held, "{layers:?}");
    }
    std::fs::remove_dir_all(&scratch).unwrap();
    std::fs::remove_dir_all(outside.parent().unwrap()).unwrap();
}

/// The driver's arrangement: a server process with the filter and the supervisor forks a
/// child, which tries things; the server reads the log.
#[test]
fn the_server_filter_refuses_logs_and_lets_the_server_fork_and_signal() {
    // SAFETY: the forked process runs the checks and leaves with `_exit`.
    let pid = unsafe { libc::fork() };
    if pid == 0 {
        let code = std::panic::catch_unwind(server_side).unwrap_or(100);
        // SAFETY: the forked process leaves without running the parent's destructors.
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    // SAFETY: our child, and a status the call writes.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    assert!(libc::WIFEXITED(status), "server died: {status}");
    assert_eq!(libc::WEXITSTATUS(status), 0, "server checks failed");
}

fn server_side() -> i32 {
    let log = Log::new().unwrap();
    assert!(filter::no_new_privs());
    // glibc's own thread starts fail at once and fall back to `clone` (checked by the filter);
    // a raw `clone3` still goes to the supervisor.
    let thread_start = supervisor::glibc_thread_start();
    assert!(thread_start.is_some(), "no glibc clone3 seen");
    let program = filter::program(&Policy {
        profile: Profile::Server,
        writes: false,
        thread_start,
    });
    let mut listener = -1;
    supervisor::start(
        || {
            listener = program.install(true)?.unwrap();
            Ok(listener)
        },
        log,
    )
    .unwrap();
    log.reset();
    // SAFETY: the child tries things and leaves with `_exit`.
    let child = unsafe { libc::fork() };
    assert!(child >= 0, "the server could not fork");
    if child == 0 {
        supervisor::forget_in_child();
        log.set_tag(7);
        let mut failures = 0;
        let mut expect = |ok: bool| failures += (!ok) as i32;
        // Refused and logged, each failing with EPERM.
        let eperm = |r: libc::c_long| {
            r == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
        };
        // SAFETY: system calls with no pointers but a C string literal; the child leaves with
        // `_exit`.
        unsafe {
            expect(eperm(libc::syscall(libc::SYS_kill, libc::getppid(), 0)));
            expect(eperm(libc::syscall(libc::SYS_setsid)));
            expect(eperm(libc::syscall(
                libc::SYS_openat,
                libc::AT_FDCWD,
                c"/tmp/hermetic-sandbox-never".as_ptr(),
                libc::O_CREAT | libc::O_WRONLY,
                0o644,
            )));
            expect(std::process::Command::new("/bin/true").status().is_err());
            // A raw `clone3` of a process naming glibc's thread entry, from another
            // instruction: still the supervisor's, refused and logged.
            let entry = thread_start.map_or(0, |t| t.entry);
            let mut clone_args = [0u64; 11];
            clone_args[4] = libc::SIGCHLD as u64; // exit_signal
            let r = libc::syscall(libc::SYS_clone3, clone_args.as_mut_ptr(), 88usize, entry);
            if r == 0 {
                libc::_exit(99); // a process started: the parent sees the failure below
            }
            expect(eperm(r));
            // The listener is gone: the child cannot answer for itself.
            expect(libc::fcntl(listener, libc::F_GETFD) == -1);
            // Allowed: reading, threads, signals to itself.
            expect(std::fs::read_to_string("/proc/self/status").is_ok());
            expect(std::thread::spawn(|| 3).join().ok() == Some(3));
            expect(libc::kill(libc::getpid(), 0) == 0);
            expect(
                std::thread::spawn(|| libc::kill(libc::getpid(), 0))
                    .join()
                    .ok()
                    == Some(0),
            );
            libc::_exit(failures);
        }
    }
    // The server's own signals go through.
    // SAFETY: signal 0 to our child only checks it exists.
    unsafe { libc::kill(child, 0) };
    let mut status = 0;
    // SAFETY: our child, and a status the call writes.
    unsafe { libc::waitpid(child, &mut status, 0) };
    assert_eq!(libc::WEXITSTATUS(status), 0, "child checks failed");
    let what: Vec<String> = log
        .refusals()
        .into_iter()
        .map(|r| {
            assert_eq!(r.tag, 7);
            r.what
        })
        .collect();
    assert_eq!(
        what,
        [
            "kill of its parent (signal 0)",
            "setsid",
            "openat for writing /tmp/hermetic-sandbox-never",
            "clone3: a new process",
            "clone3: a new process",
        ],
    );
    assert!(!Path::new("/tmp/hermetic-sandbox-never").exists());
    0
}
