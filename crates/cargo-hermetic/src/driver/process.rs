//! The driver processes: the instrumented unit-test binary running its fork server, and the
//! pipes to talk to it.

use crate::errors::Failure;
use anyhow::{bail, Context, Result};
use hermetic_protocol::{Call, EnvSpec, ExecReport, Hello, Outcome, Refusal, Request as Message};
use hermetic_protocol::{DRIVER_ENV, REPLY_FD, REQUEST_FD};
use std::fs::File;
use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use super::codegen::SERVE_TEST;
use super::execute::{ExecRequest, Execute};
use hermetic_sandbox::{Layers, Sandbox};

/// One execution as the driver gets it: its calls, its environment (`None`: the real one), its
/// mutant, and whether the calls run once before (`ExecRequest::warm_up`).
#[derive(Clone)]
struct Run {
    calls: Vec<Call>,
    env: Option<EnvSpec>,
    mutation: Mutation,
    warm_up: bool,
    reuse: bool,
}

/// The mutant an execution runs against (mutation analysis), and whether it reports the
/// mutation sites it reached.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mutation {
    /// The mutant's id; 0: the original code.
    pub mutant: u32,
    pub report_reached: bool,
    /// The mutation sites the execution may evaluate with the mutant on before it is stopped
    /// as a hang; 0: no limit (`mutation::analysis::hang_limit`).
    pub max_site_evaluations: u64,
}

/// One running driver.
pub struct Driver {
    child: Child,
    requests: File,
    /// The request bytes written at once, with no writer thread: what the pipe holds for
    /// sure (`exec_all` writes to an empty pipe).
    room: usize,
    replies: BufReader<File>,
    /// The sandbox's layers it was started in (its own seccomp filter is in its `Hello`).
    pub layers: Layers,
}

/// The size asked for the request pipe (the system's default limit for an unprivileged
/// process): a batch's requests fit, and go in one write.
const REQUEST_PIPE_BYTES: i32 = 1 << 20;

/// Half of what the pipe `fd` holds, once asked to hold [`REQUEST_PIPE_BYTES`].
fn room_of(fd: &std::os::fd::OwnedFd) -> usize {
    use std::os::fd::AsRawFd;
    // SAFETY: resizes and asks the size of a pipe we own.
    let bytes = unsafe {
        libc::fcntl(fd.as_raw_fd(), libc::F_SETPIPE_SZ, REQUEST_PIPE_BYTES);
        libc::fcntl(fd.as_raw_fd(), libc::F_GETPIPE_SZ)
    };
    usize::try_from(bytes).unwrap_or(0) / 2
}

/// How to start a driver.
#[derive(Clone)]
pub struct Launch {
    pub executable: PathBuf,
    /// The working directory of the code under test (the shadow crate's root).
    pub cwd: PathBuf,
    /// The only directory the code under test may write to, outside its virtual environment.
    pub scratch: PathBuf,
    /// All executions of a driver in one child, statics carried over (benchmarks only).
    pub shared_child: bool,
    /// Executions run against the real environment instead of a virtual one, so the code may
    /// write files in `scratch` (benchmarks only).
    pub real_env: bool,
    /// The writable statics a reused child watches and the thread-locals a reused case thread
    /// watches, as the driver reads them (`statics::watch_list` of `executable`, filled in by
    /// `DriverPool::start`; empty: none is reused).
    pub watched: super::statics::Watched,
}

/// The sandbox a driver starts in: it writes only in its scratch directory, and runs where
/// the kernel allows with the rest of the file system read-only and no network.
fn sandbox(launch: &Launch) -> Sandbox {
    Sandbox {
        writable: vec![launch.scratch.clone()],
        memory: Some(hermetic_sandbox::launch::DEFAULT_MEMORY),
        namespaces: true,
        landlock: true,
        // The driver installs its own, since it answers the refusals itself.
        filter: false,
    }
}

/// A pipe whose ends are closed on exec (the child gets its copies through `dup2`).
fn pipe() -> Result<(std::os::fd::OwnedFd, std::os::fd::OwnedFd)> {
    use std::os::fd::FromRawFd;
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the array on success; we own both descriptors from here on.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        bail!(
            "create a pipe for the driver: {}",
            std::io::Error::last_os_error()
        );
    }
    // SAFETY: pipe2 succeeded: both descriptors are open and nothing else owns them.
    Ok(unsafe {
        (
            std::os::fd::OwnedFd::from_raw_fd(fds[0]),
            std::os::fd::OwnedFd::from_raw_fd(fds[1]),
        )
    })
}

impl Driver {
    pub fn start(launch: &Launch) -> Result<(Driver, Hello)> {
        use std::os::fd::AsRawFd;
        let (reply_read, reply_write) = pipe()?;
        let (request_read, request_write) = pipe()?;
        let (reply_fd, request_fd) = (reply_write.as_raw_fd(), request_read.as_raw_fd());
        let mut cmd = Command::new(&launch.executable);
        // libtest captures the output of the print macros here as it does under `cargo test`
        // (the case threads inherit the capture), so what reaches fd 1 and 2 in the search is
        // what the emitted tests will see there.
        cmd.args(["--exact", SERVE_TEST, "--test-threads=1"])
            .env(DRIVER_ENV, "1")
            .env("HERMETIC_SCRATCH", &launch.scratch)
            .env("RUST_BACKTRACE", "0")
            .current_dir(&launch.cwd)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        if launch.shared_child {
            cmd.env(hermetic_protocol::SHARED_CHILD_ENV, "1");
        }
        if !launch.watched.statics.is_empty() {
            cmd.env(
                hermetic_protocol::WATCHED_STATICS_ENV,
                &launch.watched.statics,
            );
            cmd.env(
                hermetic_protocol::WATCHED_THREAD_LOCALS_ENV,
                &launch.watched.thread_locals,
            );
        }
        if launch.real_env {
            cmd.env(hermetic_protocol::SANDBOX_WRITES_ENV, "1");
        }
        // SAFETY: only async-signal-safe calls between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if libc::dup2(reply_fd, REPLY_FD) < 0 || libc::dup2(request_fd, REQUEST_FD) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                // Descriptors the engine inherited without close-on-exec (a terminal's or a
                // harness's extra pipes) are not the driver's: the code under test could reach
                // them, and the worker checks every descriptor up to the highest after each
                // execution (`carryover`). Marked, not closed: the sandbox's status pipe and
                // std's error pipe are still written before `exec`. Where the kernel has no
                // `close_range`, they stay open, as before.
                libc::syscall(
                    libc::SYS_close_range,
                    REQUEST_FD.max(REPLY_FD) + 1,
                    u32::MAX,
                    libc::CLOSE_RANGE_CLOEXEC,
                );
                // Without address randomisation, code that compares or prints addresses (or
                // bits of them) sees the same values in every run, so the same seed gives the
                // same tests. Where the kernel refuses, runs are just less reproducible.
                libc::personality(libc::ADDR_NO_RANDOMIZE as libc::c_ulong);
                Ok(())
            });
        }
        let pending = if std::env::var_os(hermetic_protocol::BENCH_NO_SANDBOX_ENV).is_none() {
            Some(
                sandbox(launch)
                    .apply(&mut cmd)
                    .context("set up the driver's sandbox")?,
            )
        } else {
            // A group of its own all the same: `Drop` kills the group.
            cmd.process_group(0);
            None
        };
        let spawned = cmd.spawn();
        // The child has its copies; ours of its ends must go, so that EOF is seen when it dies.
        drop((reply_write, request_read));
        let child =
            spawned.with_context(|| format!("start the driver {}", launch.executable.display()))?;
        let mut driver = Driver {
            child,
            room: room_of(&request_write),
            requests: File::from(request_write),
            replies: BufReader::new(File::from(reply_read)),
            layers: pending.map(|p| p.layers()).unwrap_or_default(),
        };
        let hello: Hello = driver.receive().context("the driver did not start")?;
        Ok((driver, hello))
    }

    /// The request line of `run` (its calls and environment, encoded once: a run the driver
    /// stopped on is sent again as it was).
    fn request_line(run: Run, timeout_ms: u64) -> Result<Vec<u8>> {
        let mut line = serde_json::to_vec(&Message::Exec {
            calls: run.calls,
            env: run.env,
            // The calls run twice.
            timeout_ms: if run.warm_up {
                timeout_ms.saturating_mul(2)
            } else {
                timeout_ms
            },
            mutant: run.mutation.mutant,
            report_reached: run.mutation.report_reached,
            max_site_evaluations: run.mutation.max_site_evaluations,
            warm_up: run.warm_up,
            reuse: run.reuse,
        })?;
        line.push(b'\n');
        Ok(line)
    }

    /// Sends every request line at once and hands the reports to `reports` as they come,
    /// until the first that does not. The driver answers its requests one after another, in
    /// order, so a request waiting in the pipe changes nothing it does; while it runs the next,
    /// this thread decodes the last report (the lines go in one write when the pipe holds
    /// them, else a writer thread keeps the pipe full). On an error
    /// the driver is killed: the requests after the failed one never ran.
    fn exec_all(&mut self, lines: &[Vec<u8>], reports: &mut Sink) -> Result<()> {
        let Driver {
            child,
            requests,
            room,
            replies,
            ..
        } = self;
        let all: usize = lines.iter().map(Vec::len).sum();
        let at_once = all <= *room;
        if at_once {
            // Every report before was read, so the driver read every request before: the
            // pipe is empty and takes these without waiting (no thread to start per batch).
            // A driver that died leaves the reader an end of file.
            let _ = requests.write_all(&lines.concat());
        }
        std::thread::scope(|scope| {
            let writer = (!at_once).then(|| {
                scope.spawn(move || -> std::io::Result<()> {
                    for line in lines {
                        requests.write_all(line)?;
                    }
                    requests.flush()
                })
            });
            let mut result = Ok(());
            for _ in lines {
                match receive_report(replies, child) {
                    Ok(report) => reports.push(report),
                    Err(e) => {
                        // Before the writer is joined: it may wait on a full pipe.
                        kill_driver(child);
                        result = Err(e);
                        break;
                    }
                }
            }
            // A writer that failed (the driver died) left the reader an end of file.
            if let Some(writer) = writer {
                let _ = writer.join();
            }
            result
        })
    }

    fn receive<T: serde::de::DeserializeOwned>(&mut self) -> Result<T> {
        receive(&mut self.replies, &mut self.child)
    }
}

/// One line from the driver, decoded; its end: the driver stopped.
fn receive<T: serde::de::DeserializeOwned>(
    replies: &mut BufReader<File>,
    child: &mut Child,
) -> Result<T> {
    let mut line = String::new();
    if replies
        .read_line(&mut line)
        .context("read from the driver")?
        == 0
    {
        let status = child.try_wait().ok().flatten();
        return Err(Failure::DriverStopped {
            status: status
                .map(|s| s.to_string())
                .unwrap_or_else(|| "still running".into()),
        }
        .into());
    }
    serde_json::from_str(&line).context("decode the driver's reply")
}

/// An execution's report, in its two lines (`ExecReport`): what the driver saw, then the
/// child's own report, data to check (bytes, not text: the code under test can write there).
fn receive_report(replies: &mut BufReader<File>, child: &mut Child) -> Result<ExecReport> {
    let head: ExecReport = receive(replies, child)?;
    let mut body = Vec::new();
    if replies
        .read_until(b'\n', &mut body)
        .context("read from the driver")?
        == 0
    {
        bail!("the driver stopped in the middle of a report");
    }
    Ok(match serde_json::from_slice::<ExecReport>(&body) {
        Ok(report) => report.completed_by(head),
        Err(_) => head,
    })
}

/// Kills the server and the child running a case, if any: the group the launcher gave it;
/// and the server itself, in case it is in no group of its own (then `wait` would wait for
/// ever: it still has our end of its requests).
fn kill_driver(child: &mut Child) {
    // SAFETY: signalling a process group and a process we started.
    unsafe {
        libc::kill(-(child.id() as i32), libc::SIGKILL);
        libc::kill(child.id() as i32, libc::SIGKILL);
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        kill_driver(&mut self.child);
        let _ = self.child.wait();
    }
}

/// Several drivers, so that `--jobs` executions run at once. Results come back in the order
/// of the requests, whatever the number of jobs, which keeps runs deterministic.
pub struct DriverPool {
    launch: Launch,
    drivers: Vec<Option<Driver>>,
    pub hello: Hello,
    /// The layers the first driver was started in (all are started alike).
    pub layers: Layers,
    pub timeout_ms: u64,
    /// Run against the real environment instead of a virtual one (benchmarks only).
    pub real_env: bool,
}

impl DriverPool {
    pub fn start(mut launch: Launch, jobs: usize, timeout_ms: u64) -> Result<DriverPool> {
        // Without the list, every execution runs in a fresh child: slower, never wrong.
        launch.watched = super::statics::watch_list(&launch.executable).unwrap_or_else(|e| {
            if std::env::var_os("HERMETIC_DEBUG").is_some() {
                eprintln!("hermetic: no reused children: {e:#}");
            }
            Default::default()
        });
        let (first, hello) = Driver::start(&launch)?;
        let layers = Layers {
            seccomp: hello.seccomp,
            ..first.layers
        };
        let real_env = launch.real_env;
        let mut drivers = vec![Some(first)];
        for _ in 1..jobs.max(1) {
            drivers.push(Some(Driver::start(&launch)?.0));
        }
        Ok(DriverPool {
            launch,
            drivers,
            hello,
            layers,
            timeout_ms,
            real_env,
        })
    }

    /// Runs every test case against its mutant, each with the time limit `timeout`; the i-th
    /// report answers the i-th case.
    pub fn exec_mutants(
        &mut self,
        cases: Vec<(Vec<Call>, EnvSpec, Mutation)>,
        timeout: u64,
    ) -> Result<Vec<ExecReport>> {
        let runs = cases
            .into_iter()
            .map(|(calls, env, mutation)| (calls, env, mutation, false, false))
            .collect();
        self.exec_runs(runs, timeout)
    }

    /// As [`DriverPool::exec_mutants`], each case saying whether its calls run once before and
    /// whether it may run in a reused child.
    fn exec_runs(
        &mut self,
        cases: Vec<(Vec<Call>, EnvSpec, Mutation, bool, bool)>,
        timeout: u64,
    ) -> Result<Vec<ExecReport>> {
        let mut reports = Vec::with_capacity(cases.len());
        self.exec_runs_each(cases, timeout, &mut |r| reports.push(r))?;
        Ok(reports)
    }

    /// As [`DriverPool::exec_runs`], handing each report to `each` in order; with one driver
    /// as it comes.
    fn exec_runs_each(
        &mut self,
        cases: Vec<(Vec<Call>, EnvSpec, Mutation, bool, bool)>,
        timeout: u64,
        each: &mut dyn FnMut(ExecReport),
    ) -> Result<()> {
        let n = self.drivers.len();
        let real = self.real_env;
        let launch = &self.launch;
        let mut shares: Vec<Vec<Run>> = vec![Vec::new(); n];
        for (i, (calls, env, mutation, warm_up, reuse)) in cases.into_iter().enumerate() {
            let run = Run {
                calls,
                env: (!real).then_some(env),
                mutation,
                warm_up,
                reuse,
            };
            shares[i % n].push(run);
        }
        if let ([slot], [share]) = (&mut self.drivers[..], &mut shares[..]) {
            // One driver: on this thread, with no thread to start and join per batch.
            let mut sink = Sink::new(each);
            return exec_share(slot, launch, std::mem::take(share), timeout, &mut sink);
        }
        let outcomes: Vec<Result<Vec<ExecReport>>> = std::thread::scope(|scope| {
            let handles: Vec<_> = self
                .drivers
                .iter_mut()
                .zip(shares.iter_mut())
                .map(|(slot, share)| {
                    let share = std::mem::take(share);
                    scope.spawn(move || {
                        let mut reports = Vec::with_capacity(share.len());
                        let mut push = |r| reports.push(r);
                        exec_share(slot, launch, share, timeout, &mut Sink::new(&mut push))?;
                        Ok(reports)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("driver thread panicked"))
                .collect()
        });
        // Case i went to driver i % n, the n-th of its share.
        let mut outcomes = outcomes
            .into_iter()
            .map(|o| o.map(Vec::into_iter))
            .collect::<Result<Vec<_>>>()?;
        let total = outcomes.iter().map(ExactSizeIterator::len).sum();
        (0..total).for_each(|i| each(outcomes[i % n].next().expect("a report for each case")));
        Ok(())
    }
}

/// The cases of search requests (no mutant).
fn search_cases(requests: Vec<ExecRequest>) -> Vec<(Vec<Call>, EnvSpec, Mutation, bool, bool)> {
    requests
        .into_iter()
        .map(|r| (r.calls, r.env, Mutation::default(), r.warm_up, r.reuse))
        .collect()
}

impl Execute for DriverPool {
    fn exec_batch(&mut self, requests: Vec<ExecRequest>) -> Result<Vec<ExecReport>> {
        self.exec_runs(search_cases(requests), self.timeout_ms)
    }

    fn exec_each(
        &mut self,
        requests: Vec<ExecRequest>,
        each: &mut dyn FnMut(ExecReport),
    ) -> Result<()> {
        self.exec_runs_each(search_cases(requests), self.timeout_ms, each)
    }
}

/// Where a driver's reports go, in order, as they come; counted.
struct Sink<'a> {
    each: &'a mut dyn FnMut(ExecReport),
    count: usize,
}

impl<'a> Sink<'a> {
    fn new(each: &'a mut dyn FnMut(ExecReport)) -> Sink<'a> {
        Sink { each, count: 0 }
    }

    fn push(&mut self, report: ExecReport) {
        (self.each)(report);
        self.count += 1;
    }
}

/// Runs a driver's share of the cases in order, starting the driver again if it died (it
/// should not: each case runs in a child the sandbox keeps from harming it). When a fresh
/// driver dies on the case too, the case did it: it is reported as a crash of its last call,
/// with what happened, and the search goes on with a new driver.
fn exec_share(
    slot: &mut Option<Driver>,
    launch: &Launch,
    runs: Vec<Run>,
    timeout: u64,
    reports: &mut Sink,
) -> Result<()> {
    let last_calls: Vec<usize> = runs
        .iter()
        .map(|r| r.calls.len().saturating_sub(1))
        .collect();
    let lines = runs
        .into_iter()
        .map(|run| Driver::request_line(run, timeout))
        .collect::<Result<Vec<_>>>()?;
    // A fresh sink: its count is the cases answered so far.
    while reports.count < lines.len() {
        if let Some(d) = slot.as_mut() {
            match d.exec_all(&lines[reports.count..], reports) {
                Ok(()) => break,
                Err(_) => *slot = None,
            }
        }
        // The first case without a report, alone on a fresh driver.
        let k = reports.count;
        let (mut d, _) = Driver::start(launch)?;
        match d.exec_all(&lines[k..=k], reports) {
            Ok(()) => *slot = Some(d),
            Err(e) => reports.push(stopped_the_driver(last_calls[k], &e)),
        }
    }
    Ok(())
}

/// The report of a case that stopped the driver itself.
fn stopped_the_driver(stmt: usize, why: &anyhow::Error) -> ExecReport {
    ExecReport {
        sandbox_blocked: 1,
        refusals: vec![Refusal {
            stmt,
            what: format!("to stop hermetic's driver ({why:#})"),
        }],
        ..ExecReport::empty(Outcome::Crashed {
            stmt,
            signal: 0,
            stack_overflow: false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A driver started without the sandbox's process group (the benchmark's
    /// `HERMETIC_BENCH_NO_SANDBOX`) still dies when dropped: before, `drop` signalled only the
    /// group, which did not exist, and waited for ever.
    #[test]
    fn a_driver_in_no_group_of_its_own_is_killed_when_dropped() {
        let child = Command::new("sleep").arg("1000").spawn().unwrap();
        let pid = child.id();
        let (read, write) = std::io::pipe().unwrap();
        let driver = Driver {
            child,
            requests: File::from(std::os::fd::OwnedFd::from(write)),
            room: 0,
            replies: BufReader::new(File::from(std::os::fd::OwnedFd::from(read))),
            layers: Layers::default(),
        };
        let started = std::time::Instant::now();
        drop(driver);
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
        // SAFETY: signal 0 only asks whether the process exists.
        assert_ne!(unsafe { libc::kill(pid as i32, 0) }, 0, "still running");
    }
}
