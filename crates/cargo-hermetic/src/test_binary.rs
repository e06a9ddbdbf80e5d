//! Running a test binary (libtest's harness) the way verification needs: inside the same
//! sandbox as the search, with a time limit per test and per binary, reading which tests
//! passed and failed from its output as it comes. A test that does not finish in time is
//! killed with its whole process group; a test the sandbox stops (a refused system call kills
//! a test binary, which has no handler to answer it) ends the binary. Either way the tests that
//! did not finish are named, and [`run_alone`] runs one at a time to tell which did it.

use anyhow::{Context, Result};
use hermetic_sandbox::Sandbox;
use std::collections::BTreeSet;
use std::io::BufRead;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long a test may run, by default, before it counts as hanging: no test finishes for
/// this long. Generated tests run in milliseconds (their clocks are virtual).
pub const TEST_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a whole binary may run.
pub const BINARY_TIMEOUT: Duration = Duration::from_secs(300);

/// The time limits (`HERMETIC_TEST_TIMEOUT_MS` overrides the per-test one).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub test: Duration,
    pub binary: Duration,
}

impl Default for Limits {
    fn default() -> Limits {
        let test = std::env::var("HERMETIC_TEST_TIMEOUT_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(TEST_TIMEOUT, Duration::from_millis);
        Limits {
            test,
            binary: BINARY_TIMEOUT,
        }
    }
}

/// How one run of a test binary went.
#[derive(Debug, Default)]
pub struct Ran {
    /// Tests that passed and failed, by full path.
    pub passed: BTreeSet<String>,
    pub failed: BTreeSet<String>,
    /// Tests listed (with `--list --format terse`), by full path.
    pub listed: BTreeSet<String>,
    /// The binary was killed for taking too long.
    pub timed_out: bool,
    /// The signal that ended the binary, if one did (`SIGSYS`: the sandbox stopped it).
    pub signal: Option<i32>,
    /// The binary exited with a failure and ran no test.
    pub broken: Option<String>,
}

impl Ran {
    /// Whether the sandbox stopped the binary (a refused system call).
    pub fn refused(&self) -> bool {
        self.signal == Some(libc::SIGSYS)
    }

    /// Whether the binary ended before reporting every test it started.
    pub fn cut_short(&self) -> bool {
        self.timed_out || self.signal.is_some()
    }
}

/// The sandbox test binaries run in: nothing writable, no network, the seccomp allow-list.
fn sandbox() -> Sandbox {
    Sandbox {
        writable: Vec::new(),
        memory: Some(hermetic_sandbox::launch::DEFAULT_MEMORY),
        namespaces: true,
        landlock: true,
        filter: true,
    }
}

/// Sets `cmd` (a test binary with its arguments, working directory and environment set) up to
/// run in the sandbox; call [`Pending::layers`](hermetic_sandbox::launch::Pending::layers)
/// after spawning it.
pub fn contain(cmd: &mut Command) -> Result<hermetic_sandbox::launch::Pending> {
    // Without `TERM`, libtest does not look for terminfo under the user's home, which without
    // `HOME` means asking the name service over a Unix socket (refused).
    cmd.env_remove(hermetic_protocol::DRIVER_ENV)
        .env_remove("TERM");
    sandbox().apply(cmd).context("set up the sandbox")
}

/// Runs `cmd` (a test binary with its arguments, working directory and environment set)
/// contained, killing it when no test has finished for `limits.test` or the whole run takes
/// longer than `limits.binary`.
pub fn run(mut cmd: Command, limits: Limits) -> Result<Ran> {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let pending = contain(&mut cmd)?;
    let mut child = cmd
        .spawn()
        .with_context(|| format!("run {}", cmd.get_program().to_string_lossy()))?;
    if std::env::var_os("HERMETIC_DEBUG").is_some() {
        eprintln!(
            "verify: {:?} in {:?}",
            cmd.get_args().collect::<Vec<_>>(),
            pending.layers()
        );
    } else {
        pending.layers();
    }
    let mut ran = Ran::default();
    let group = child.id() as i32;
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().expect("piped");
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut stderr = child.stderr.take().expect("piped");
    let err_reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut text);
        text
    });
    let started = Instant::now();
    let mut progress = Instant::now();
    loop {
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(Ok(line)) => {
                if let Some(test) = line.strip_suffix(": test") {
                    ran.listed.insert(test.to_string());
                } else if let Some((test, ok)) = outcome(&line) {
                    progress = Instant::now();
                    if ok {
                        ran.passed.insert(test);
                    } else {
                        ran.failed.insert(test);
                    }
                }
            }
            Ok(Err(_)) | Err(RecvTimeoutError::Disconnected) => break,
            Err(RecvTimeoutError::Timeout) => {
                if progress.elapsed() > limits.test || started.elapsed() > limits.binary {
                    ran.timed_out = true;
                    break;
                }
            }
        }
    }
    // Standard output is closed (or we gave up on it): the binary should be leaving; give it
    // a moment, then end its whole group.
    let deadline = Instant::now()
        + if ran.timed_out {
            Duration::ZERO
        } else {
            limits.test
        };
    let status = loop {
        if let Some(s) = child.try_wait()? {
            break s;
        }
        if Instant::now() >= deadline {
            ran.timed_out = true;
            // SAFETY: signalling the process group the sandbox gave the binary.
            unsafe { libc::kill(-group, libc::SIGKILL) };
            break child.wait()?;
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    // Whatever it started is gone with it (the sandbox lets it start nothing; this is for
    // good measure).
    // SAFETY: as above.
    unsafe { libc::kill(-group, libc::SIGKILL) };
    ran.signal = status.signal().filter(|_| !ran.timed_out);
    let stderr = err_reader.join().unwrap_or_default();
    if !status.success()
        && !ran.cut_short()
        && ran.passed.is_empty()
        && ran.failed.is_empty()
        && ran.listed.is_empty()
    {
        ran.broken = Some(stderr);
    }
    Ok(ran)
}

/// `test <path> ... ok` / `... FAILED`: the test and whether it passed (libtest writes
/// `<path> - should panic` for a `#[should_panic]` test).
pub fn outcome(line: &str) -> Option<(String, bool)> {
    let (path, result) = line.strip_prefix("test ")?.rsplit_once(" ... ")?;
    let path = path.strip_suffix(" - should panic").unwrap_or(path);
    let result = result.trim();
    if result == "ok" {
        Some((path.to_string(), true))
    } else if result.starts_with("FAILED") {
        Some((path.to_string(), false))
    } else {
        None
    }
}

/// How a test run alone went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Alone {
    Passed,
    Failed,
    /// Did not finish in time.
    TimedOut,
    /// The sandbox stopped it: it tried something refused.
    Refused,
}

/// Runs `test` (a full path) alone in a fresh process, set up by `setup` (working directory,
/// environment, extra arguments).
pub fn run_alone(
    exe: &Path,
    test: &str,
    limits: Limits,
    setup: &dyn Fn(&mut Command) -> Result<()>,
) -> Result<Alone> {
    let mut cmd = Command::new(exe);
    cmd.args([test, "--exact"]);
    setup(&mut cmd)?;
    let ran = run(cmd, limits)?;
    Ok(if ran.refused() {
        Alone::Refused
    } else if ran.timed_out {
        Alone::TimedOut
    } else if ran.passed.contains(test) && ran.signal.is_none() {
        Alone::Passed
    } else {
        Alone::Failed
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_results_of_lines() {
        assert_eq!(
            outcome("test a::hermetic_tests::one ... ok"),
            Some(("a::hermetic_tests::one".into(), true))
        );
        assert_eq!(outcome("test b ... FAILED"), Some(("b".into(), false)));
        assert_eq!(
            outcome("test m::f_panics - should panic ... FAILED"),
            Some(("m::f_panics".into(), false))
        );
        assert_eq!(outcome("test c ... ignored"), None);
        assert_eq!(outcome("running 3 tests"), None);
    }
}
