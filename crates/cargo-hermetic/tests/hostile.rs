//! End-to-end: `generate` on a crate of hostile functions (`tests/fixtures/hostile`: raw
//! system calls through libc's `syscall`, the `syscall` instruction and `int 0x80`; kills,
//! process starts, sockets, sleeps, floods, exits; threads, hooks, handlers and exit functions
//! that act after the call returned) finishes, leaves the machine as it was, names
//! every hostile function in its report, and writes no test that does the harm, even under a
//! plain `cargo test`.

mod common;

use common::*;
use std::collections::BTreeSet;
use std::io::ErrorKind;
use std::net::{TcpListener, UdpSocket};
use std::os::unix::fs::MetadataExt;
use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};

/// What the hostile functions aim at, set up before and checked after each run.
struct Targets {
    canary: tempfile::TempDir,
    tcp: TcpListener,
    udp: UdpSocket,
    unix: UnixListener,
    /// `(path, mode, size, modified)` of every canary file.
    before: BTreeSet<(PathBuf, u32, u64, i64)>,
}

impl Targets {
    fn new() -> Targets {
        let canary = tempfile::Builder::new()
            .prefix("hermetic-hostile-canary-")
            .tempdir()
            .unwrap();
        std::fs::write(canary.path().join("keep.txt"), "still here\n").unwrap();
        let unix = UnixListener::bind(canary.path().join("socket")).unwrap();
        unix.set_nonblocking(true).unwrap();
        let tcp = TcpListener::bind("127.0.0.1:0").unwrap();
        tcp.set_nonblocking(true).unwrap();
        let udp = UdpSocket::bind("127.0.0.1:0").unwrap();
        udp.set_nonblocking(true).unwrap();
        let mut t = Targets {
            before: BTreeSet::new(),
            canary,
            tcp,
            udp,
            unix,
        };
        t.before = t.files();
        t
    }

    /// The variables the fixture reads when it is built.
    fn envs(&self) -> Vec<(&'static str, String)> {
        vec![
            ("HERMETIC_CANARY", self.canary.path().display().to_string()),
            (
                "HERMETIC_TCP_PORT",
                self.tcp.local_addr().unwrap().port().to_string(),
            ),
            (
                "HERMETIC_UDP_PORT",
                self.udp.local_addr().unwrap().port().to_string(),
            ),
        ]
    }

    fn files(&self) -> BTreeSet<(PathBuf, u32, u64, i64)> {
        std::fs::read_dir(self.canary.path())
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let m = std::fs::symlink_metadata(e.path()).unwrap();
                (e.path(), m.mode(), m.size(), m.mtime())
            })
            .collect()
    }

    /// Panics when anything reached the canary, the listeners or the home directory.
    fn assert_untouched(&self, when: &str) {
        assert_eq!(
            self.files(),
            self.before,
            "{when}: the canary directory changed"
        );
        assert_eq!(
            std::fs::read_to_string(self.canary.path().join("keep.txt")).unwrap(),
            "still here\n",
            "{when}"
        );
        let refused =
            |r: std::io::Result<()>| matches!(r, Err(e) if e.kind() == ErrorKind::WouldBlock);
        assert!(
            refused(self.tcp.accept().map(drop)),
            "{when}: a TCP connection came in"
        );
        assert!(
            refused(self.unix.accept().map(drop)),
            "{when}: a Unix connection came in"
        );
        let mut buf = [0u8; 16];
        assert!(
            refused(self.udp.recv_from(&mut buf).map(drop)),
            "{when}: a datagram came in"
        );
        if let Some(home) = std::env::var_os("HOME") {
            let written: Vec<_> = std::fs::read_dir(home)
                .unwrap()
                .filter_map(|e| e.ok())
                .filter(|e| {
                    e.file_name()
                        .to_string_lossy()
                        .starts_with("hermetic-hostile-")
                })
                .collect();
            assert!(written.is_empty(), "{when}: written in $HOME: {written:?}");
        }
    }
}

/// Processes whose working directory is below `dir` (the driver's, a verified test binary's,
/// or anything they could have started).
fn processes_below(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir("/proc").unwrap().filter_map(|e| e.ok()) {
        let Ok(cwd) = std::fs::read_link(e.path().join("cwd")) else {
            continue;
        };
        if cwd.starts_with(dir) {
            let cmd = std::fs::read(e.path().join("cmdline")).unwrap_or_default();
            found.push(format!(
                "{} {}",
                e.file_name().to_string_lossy(),
                String::from_utf8_lossy(&cmd).replace('\0', " ")
            ));
        }
    }
    found
}

/// Each hostile function called with the input that makes it act (`tests/fixtures/hostile`;
/// `nap(59)` is written, inside an `Env` that keeps its sleep virtual; `at_exit(109)` acts only
/// when the test process ends: verification, in the sandbox, drops its test).
const ACTS: &[&str] = &[
    "raw_write_home(7)",
    "asm_write_canary(11)",
    "legacy_create(13)",
    "legacy_fork(17)",
    "legacy_exec(19)",
    "raw_unlink(\"go\")",
    "raw_rename(\"move\")",
    "raw_chmod(23)",
    "raw_fork(29)",
    "raw_exec(31)",
    "kill_parent(37)",
    "kill_group(41)",
    "signal_everyone(43)",
    "detach(47)",
    "lower_limits(53)",
    "flood_threads(61)",
    "flood_memory(67)",
    "spin(71)",
    "quit(73)",
    "connect_tcp(79)",
    "send_udp(83)",
    "connect_unix(89)",
    "undump(97)",
    "linger(101)",
    "hook(103)",
    "trap_interrupt(107)",
    "at_exit(109)",
    "raw_clone3(113)",
    "own_signals(127)",
    "pin_parent(131)",
    "resize_terminal(137)",
];

#[test]
fn hostile_code_does_no_harm_and_every_act_is_named() {
    let targets = Targets::new();
    let fixture = Fixture::copy("hostile");
    // 8,000 executions (about 8 s): at 3,000, one seed in six left an act unreached (seed 6:
    // `raw_rename`), and any change to the random stream could pick such a seed.
    let mut generate = fixture.generate().seed(1).max_executions(8000);
    for (k, v) in targets.envs() {
        generate = generate.env(k, v);
    }
    let run = generate.run();
    run.assert_success();
    targets.assert_untouched("after generate");
    let left = processes_below(fixture.tmp.path());
    assert!(left.is_empty(), "processes outlived the run: {left:?}");

    // Every hostile function is named, with what it tried.
    let report = run.report();
    let refused: BTreeSet<String> = report["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["function"].as_str().unwrap().to_string())
        .collect();
    for f in [
        "raw_write_home",
        "asm_write_canary",
        "legacy_create",
        "legacy_fork",
        "legacy_exec",
        "raw_unlink",
        "raw_rename",
        "raw_chmod",
        "raw_fork",
        "raw_exec",
        "kill_parent",
        "kill_group",
        "signal_everyone",
        "connect_tcp",
        "send_udp",
        "connect_unix",
        "detach",
        "lower_limits",
        "undump",
        // Acts left for later: a thread still running, a panic hook, a signal handler.
        "linger",
        "hook",
        "trap_interrupt",
        "raw_clone3",
        "own_signals",
        "pin_parent",
        "resize_terminal",
    ] {
        assert!(
            refused.contains(f),
            "`{f}` is not named among what the sandbox refused ({refused:?}):\n{}",
            run.describe()
        );
    }
    let findings: BTreeSet<String> = run.findings().into_iter().map(|(f, _)| f).collect();
    for f in ["flood_threads", "flood_memory", "spin", "quit"] {
        assert!(
            findings.contains(f),
            "`{f}` is not among the findings {findings:?}:\n{}",
            run.describe()
        );
    }
    let layers = report["containment"].clone();
    assert_eq!(layers["seccomp"], true, "{layers}");
    assert_eq!(layers["landlock"], true, "{layers}");

    // The tests written call nothing harmful (no hostile function with the input that makes
    // it act: some acts, such as `setsid` or lowered limits, would change the shared test
    // process and leave no trace a check after `cargo test` could see); a test of code that
    // slept sets up an environment, so that its sleep is virtual under `cargo test` too.
    check_generated_files(&fixture, &run);
    let tests = fixture.read("src/hermetic_tests.rs");
    for act in ACTS {
        assert!(!tests.contains(act), "a test does `{act}`:\n{tests}");
    }
    let nap = tests
        .split("#[test]")
        .find(|t| t.contains("nap(59)"))
        .unwrap_or_else(|| panic!("no test of `nap(59)`:\n{tests}"));
    assert!(nap.contains("hermetic::Env::new()"), "{nap}");
    let envs = targets.envs();
    let envs: Vec<(&str, &str)> = envs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    fixture.cargo_test_passes_with(&envs);
    targets.assert_untouched("after cargo test");
    let left = processes_below(fixture.tmp.path());
    assert!(left.is_empty(), "processes outlived cargo test: {left:?}");
}

/// Code that acts only in a test binary (libtest names each test's thread, the search's case
/// thread has no name), so the search sees its calls return and writes tests of them: under
/// verification one test sleeps for an hour and one starts threads until it cannot and then
/// waits on them. Both are dropped, each with its reason, within the per-test limit (here
/// 3 s), the run goes on, and `cargo test` of what was written passes. And a test that acts
/// only on what another test left in the process (`arm(7)`, then `fire()`) is dropped too, and
/// a call that installs a seccomp filter of its own is refused (under a plain `cargo test` it
/// would hang the test binary).
#[test]
fn tests_that_hang_flood_or_act_only_in_a_test_binary_are_dropped() {
    let fixture = Fixture::copy("abc");
    for module in ["a", "b", "c"] {
        std::fs::remove_file(fixture.path(&format!("src/{module}.rs"))).unwrap();
    }
    let manifest = fixture.read("Cargo.toml");
    fixture.write(
        "Cargo.toml",
        &manifest.replace("[dependencies]\n", "[dependencies]\nlibc = \"0.2.140\"\n"),
    );
    fixture.write(
        "src/lib.rs",
        r#"use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

static ARMED: AtomicBool = AtomicBool::new(false);

/// Arms `fire` for the rest of the process.
pub fn arm(n: u32) -> bool {
    if n == 7 {
        ARMED.store(true, Ordering::SeqCst);
    }
    n == 7
}

/// Once armed, signals its parent (0: harmless, but refused by the sandbox).
pub fn fire() -> bool {
    ARMED.load(Ordering::SeqCst) && unsafe { libc::kill(libc::getppid(), 0) } == 0
}

/// seccomp's strict mode for its thread: under the driver's filter it fails (EINVAL), under a
/// plain `cargo test` the test's thread dies and the test binary waits for it for ever.
pub fn own_filter(n: u32) -> i64 {
    if n == 5 {
        unsafe { libc::syscall(libc::SYS_seccomp, 0, 0, 0) }
    } else {
        0
    }
}

fn in_a_test() -> bool {
    std::thread::current().name().is_some_and(|n| n != "main")
}

pub fn stall(n: u32) -> u32 {
    if n == 3 && in_a_test() {
        std::thread::sleep(Duration::from_secs(3600));
    }
    n.wrapping_add(1)
}

pub fn swarm(n: u32) -> u32 {
    if n == 4 && in_a_test() {
        let mut started = Vec::new();
        while started.len() < 5_000 {
            match std::thread::Builder::new()
                .stack_size(64 * 1024)
                .spawn(|| std::thread::sleep(Duration::from_secs(3600)))
            {
                Ok(t) => started.push(t),
                Err(_) => break,
            }
        }
        for t in started {
            let _ = t.join();
        }
    }
    n.wrapping_mul(3)
}
"#,
    );
    let run = fixture
        .generate()
        .seed(1)
        .max_executions(2000)
        .env("HERMETIC_TEST_TIMEOUT_MS", "3000")
        .run();
    run.assert_success();
    let dropped: Vec<(String, String)> = run.report()["dropped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["test"].as_str().unwrap().to_string(),
                d["reason"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for f in ["stall", "swarm"] {
        assert!(
            dropped
                .iter()
                .any(|(t, why)| t.contains(f)
                    && why == "did not finish within the time limit per test"),
            "no test of `{f}` dropped for its time ({dropped:?}):\n{}",
            run.describe()
        );
    }
    // Alone `fire()` passes; after `arm(7)` in the same process the sandbox stops it.
    assert!(
        dropped.iter().any(|(t, why)| t.contains("fire")
            && why.starts_with("the sandbox stopped it after other tests ran")),
        "the test of `fire` is not dropped for acting on what another left ({dropped:?}):\n{}",
        run.describe()
    );
    let refused: Vec<String> = run.report()["refused"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| format!("{} tried {}", r["function"], r["tried"]))
        .collect();
    assert!(
        refused
            .iter()
            .any(|r| r.contains("own_filter") && r.contains("seccomp")),
        "`own_filter` is not named among what the sandbox refused ({refused:?}):\n{}",
        run.describe()
    );
    check_generated_files(&fixture, &run);
    let tests = fixture.read("src/hermetic_tests.rs");
    assert!(tests.contains("arm(7)"), "{tests}");
    // (`fire()` after `arm(7)` inside an environment stays: there its signal is virtual.)
    for act in ["stall(3)", "swarm(4)", "own_filter(5)"] {
        assert!(!tests.contains(act), "a test does `{act}`:\n{tests}");
    }
    fixture.cargo_test_passes();
    let left = processes_below(fixture.tmp.path());
    assert!(left.is_empty(), "processes outlived the run: {left:?}");
}
