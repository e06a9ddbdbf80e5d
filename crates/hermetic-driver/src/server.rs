//! The fork server: reads test cases from the engine, runs each in a child process with a time
//! limit, and answers with what happened.
//!
//! A child per execution keeps panics, aborts, stack overflows, endless loops and static state
//! from leaking into the next test case. The search's executions (`Request::Exec::reuse`) share
//! a worker child instead, which leaves after the first execution that changed anything the
//! next one could see (`carryover`): a fork then costs only where isolation needs it, and a
//! report is the one a fresh child would give. The child reports through a shared memory area, which
//! survives its death, so even a crashing execution tells which statement it reached and what it
//! covered.

use crate::coverage;
use crate::environment;
use crate::protocol::EnvSpec;
use crate::protocol::{Call, DecodeError, ExecReport, Hello, Outcome, Request, StmtReport, Value};
use crate::sandbox;
use crate::slots::Slots;
use crate::Observed;
use std::any::Any;
use std::io::{BufRead, Write};
use std::os::fd::{AsRawFd, FromRawFd};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};

/// What a dispatch entry returns: the observation of the result, and the value to keep for
/// later statements.
pub struct Returned {
    pub observed: Option<Observed>,
    pub stored: Option<Box<dyn Any>>,
    /// Observes the stored value again at the end (when a later call borrows it mutably).
    pub observer: Option<crate::slots::Observer>,
}

/// One callable of the crate under test, as compiled into the driver.
pub type Entry = fn(&[Value], &mut Slots) -> Result<Returned, DecodeError>;

pub use crate::protocol::{DRIVER_ENV, REPLY_FD, REQUEST_FD, SHARED_CHILD_ENV, UNKNOWN_PC};
const TIMEOUT_EXIT: i32 = 124;
const REPORT_MAX: usize = 8 << 20;
const MAX_CMP_INTS: usize = 512;
/// The latest distinct integer comparisons reported in order.
const MAX_CMP_LAST: usize = 256;

/// The header of the shared area; the counters and the report follow it.
#[repr(C)]
struct Header {
    stmt: AtomicU32,
    timed_out: AtomicBool,
    stack_overflow: AtomicBool,
    report_len: AtomicUsize,
}

struct Shared {
    base: *mut u8,
    counters: usize,
    /// Where the children's refusals are logged.
    sandbox: sandbox::Sandbox,
    /// A forked child's threads and signal handlers before its case (`leftovers`).
    child_before: crate::leftovers::Before,
}

// SAFETY: the mapping lives for the whole process; the child's case thread and its main thread
// never write the same part at the same time (the main thread waits for the case thread).
unsafe impl Sync for Shared {}

impl Shared {
    fn new(counters: usize, sandbox: sandbox::Sandbox) -> Shared {
        let len = std::mem::size_of::<Header>() + counters + REPORT_MAX;
        // SAFETY: an anonymous shared mapping, checked below.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        assert!(
            base != libc::MAP_FAILED,
            "hermetic driver: cannot map shared memory"
        );
        Shared {
            base: base as *mut u8,
            counters,
            sandbox,
            child_before: crate::leftovers::Before::forked_child(&child_handlers()),
        }
    }

    fn header(&self) -> &Header {
        // SAFETY: the mapping starts with a zero-initialised, suitably aligned Header.
        unsafe { &*(self.base as *const Header) }
    }

    #[allow(clippy::mut_from_ref)]
    fn counters(&self) -> &mut [u8] {
        // SAFETY: the counter area follows the header; one writer at a time (child, then parent).
        unsafe {
            std::slice::from_raw_parts_mut(
                self.base.add(std::mem::size_of::<Header>()),
                self.counters,
            )
        }
    }

    #[allow(clippy::mut_from_ref)]
    fn report(&self) -> &mut [u8] {
        // SAFETY: as for `counters`.
        unsafe {
            std::slice::from_raw_parts_mut(
                self.base.add(std::mem::size_of::<Header>() + self.counters),
                REPORT_MAX,
            )
        }
    }

    /// Before an execution: forgets the last one's counters, report and refusals.
    fn reset(&self) {
        self.reset_execution();
        self.sandbox.reset();
    }

    /// As `reset` but for the refusals, which the server's log holds (a worker's reset).
    fn reset_execution(&self) {
        let h = self.header();
        h.stmt.store(0, Ordering::SeqCst);
        h.timed_out.store(false, Ordering::SeqCst);
        h.stack_overflow.store(false, Ordering::SeqCst);
        h.report_len.store(0, Ordering::SeqCst);
        self.counters().fill(0);
    }
}

/// The shared area, for the child's signal handlers.
static SHARED: AtomicUsize = AtomicUsize::new(0);
/// The lowest address of the child's stack, to tell a stack overflow from another fault.
static STACK_LOW: AtomicUsize = AtomicUsize::new(0);

/// Runs the server until the engine closes standard input. Returns at once when the process
/// was not started by the engine (so a plain `cargo test` in the shadow copy does not block).
pub fn serve(entries: &[Entry]) {
    if std::env::var_os(DRIVER_ENV).is_none() {
        return;
    }
    // SAFETY: the engine opens fd 3 for us; we own it from here on.
    let mut reply = std::io::BufWriter::new(unsafe { std::fs::File::from_raw_fd(REPLY_FD) });
    let base = coverage::load_base();
    // The runtime puts its panic hook in place at the first environment entered: here, once,
    // so that in the children the hook is the driver's own whenever a case did not set one
    // (`leftovers`).
    drop(hermetic::Env::new().enter());
    // Contain the server itself: every child it forks inherits the restrictions, and the
    // server needs no files, programs or network (it talks through inherited pipes).
    let sandbox = sandbox::contain_server();
    let hello = Hello {
        entries: entries.len(),
        pcs: coverage::counter_pcs()
            .iter()
            .map(|&pc| pc.checked_sub(base).map_or(UNKNOWN_PC, |pc| pc as u64))
            .collect(),
        seccomp: sandbox.seccomp,
    };
    send(&mut reply, &hello);
    let shared = Shared::new(coverage::counter_count(), sandbox);
    SHARED.store(&shared as *const Shared as usize, Ordering::SeqCst);
    // SAFETY: the engine opens fd 4 for us; we own it from here on.
    let mut requests = std::io::BufReader::new(unsafe { std::fs::File::from_raw_fd(REQUEST_FD) });
    let mut line = String::new();
    let shared_child = std::env::var_os(SHARED_CHILD_ENV).is_some();
    let watch = crate::carryover::Watch::from_env(base);
    let mut pipeline = Pipeline {
        entries,
        shared: &shared,
        reuse: if shared_child {
            Some(Reuse::Always)
        } else {
            watch.as_ref().map(Reuse::WhileUnchanged)
        },
        worker: None,
        queue: std::collections::VecDeque::new(),
        lockstep: false,
    };
    loop {
        // While the worker has executions, a request is read only when one is there: the
        // engine may be waiting for their reports before it sends more.
        let waiting = request_waiting(&requests);
        if pipeline.busy() && !waiting {
            pipeline.answer_front(&mut reply);
            continue;
        }
        if !waiting {
            reply.flush().expect("hermetic driver: write reply");
        }
        line.clear();
        if requests.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        match serde_json::from_str::<Request>(&line) {
            Ok(Request::Exec {
                calls,
                env,
                timeout_ms,
                mutant,
                report_reached,
                max_site_evaluations,
                warm_up,
                reuse,
            }) => {
                // A warm-up run sets statics on purpose, and a mutant's run decides a verdict:
                // both in a fresh child. Only inside a virtual environment, and with the checks
                // of what a case left behind (they are off with the sandbox).
                let in_worker = shared_child
                    || (reuse && !warm_up && mutant == 0 && env.is_some() && sandbox::enabled());
                if in_worker && pipeline.reuse.is_some() {
                    pipeline.push(&line, timeout_ms, &mut reply);
                    continue;
                }
                pipeline.drain(&mut reply);
                // Set before the fork: the child inherits the switch.
                crate::mutant::set_active(mutant, report_reached, max_site_evaluations);
                let case = Case {
                    calls: &calls,
                    env: &env,
                    warm_up,
                };
                let status = run_forked(
                    entries,
                    &case,
                    timeout_ms,
                    &shared,
                    pipeline.worker.as_ref(),
                );
                let (head, body) = report_after(status, &shared);
                write_report(&mut reply, &head, body);
            }
            Ok(Request::Quit) => return,
            Err(e) => panic!("hermetic driver: bad request: {e}"),
        }
    }
}

/// Whether a request can be read without waiting for the engine (a whole line buffered, or
/// bytes in the pipe).
fn request_waiting(requests: &std::io::BufReader<std::fs::File>) -> bool {
    requests.buffer().contains(&b'\n') || readable(requests.get_ref().as_raw_fd(), 0)
}

/// Whether `fd` has something to read (or its writer closed it) within `ms` milliseconds.
fn readable(fd: i32, ms: u64) -> bool {
    loop {
        let mut pfd = libc::pollfd {
            fd,
            events: libc::POLLIN,
            revents: 0,
        };
        // SAFETY: one valid pollfd.
        let r = unsafe { libc::poll(&mut pfd, 1, ms.min(i32::MAX as u64) as i32) };
        if r < 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
            continue;
        }
        return r > 0;
    }
}

fn send<T: serde::Serialize>(out: &mut impl Write, msg: &T) {
    serde_json::to_writer(&mut *out, msg).expect("hermetic driver: encode reply");
    out.write_all(b"\n")
        .and_then(|_| out.flush())
        .expect("hermetic driver: write reply");
}

/// Writes an execution's report in its two lines (`ExecReport`): what the server saw, then
/// the child's report bytes as it wrote them, undecoded (decoding and encoding them again
/// here cost more than the rest of the server's work). Bytes with a line break in them are
/// not a report the child's encoder wrote (it escapes line breaks): `null` instead. Not
/// flushed: the server flushes before it waits.
fn write_report(out: &mut impl Write, head: &ExecReport, body: Option<&[u8]>) {
    serde_json::to_writer(&mut *out, head).expect("hermetic driver: encode reply");
    let body = body.filter(|b| !b.contains(&b'\n')).unwrap_or(b"null");
    out.write_all(b"\n")
        .and_then(|_| out.write_all(body))
        .and_then(|_| out.write_all(b"\n"))
        .expect("hermetic driver: write reply");
}

/// One execution's calls, environment, and whether they run once before (`Request::Exec`).
struct Case<'a> {
    calls: &'a [Call],
    env: &'a Option<EnvSpec>,
    warm_up: bool,
}

fn run_forked(
    entries: &[Entry],
    case: &Case,
    timeout_ms: u64,
    shared: &Shared,
    worker: Option<&Worker>,
) -> Option<i32> {
    shared.reset();
    // SAFETY: the child only runs the test case and leaves with `_exit`.
    let pid = unsafe { libc::fork() };
    assert!(
        pid >= 0,
        "hermetic driver: fork failed: {}",
        std::io::Error::last_os_error()
    );
    if pid == 0 {
        if let Some(w) = worker {
            // The worker's pipes are not the case's: a fresh child numbers its descriptors as
            // it would with no worker, and cannot reach the worker.
            w.close_in_child();
        }
        sandbox::contain_child();
        run_child(entries, case, shared);
    }
    Some(wait_with_timeout(pid, timeout_ms, shared))
}

/// The counters an execution hit, as the shared area holds them.
fn covered(shared: &Shared) -> Vec<u32> {
    shared
        .counters()
        .iter()
        .enumerate()
        .filter(|(_, &c)| c != 0)
        .map(|(i, _)| i as u32)
        .collect()
}

/// What the server saw of an execution: `outcome` unless the child's own report says
/// otherwise, the counters hit, and the refusals the sandbox logged.
fn server_view(outcome: Outcome, covered: Vec<u32>, shared: &Shared) -> ExecReport {
    let (sandbox_blocked, refusals) = shared.sandbox.refusals();
    ExecReport {
        covered,
        sandbox_blocked,
        refusals,
        ..ExecReport::empty(outcome)
    }
}

/// What an execution left in the shared area: the report of what the server saw, and the
/// child's own report (bytes to decode, then complete with the first: `ExecReport`) when it
/// finished the case. `status` is the child's wait status when it ended, `None` when it
/// finished the case and lives on (a shared child).
fn report_after(status: Option<i32>, shared: &Shared) -> (ExecReport, Option<&[u8]>) {
    let header = shared.header();
    let stmt = header.stmt.load(Ordering::SeqCst) as usize;
    let crashed = |outcome| server_view(outcome, covered(shared), shared);
    if let Some(status) = status.filter(|&s| libc::WIFSIGNALED(s)) {
        let outcome = Outcome::Crashed {
            stmt,
            signal: libc::WTERMSIG(status),
            stack_overflow: header.stack_overflow.load(Ordering::SeqCst),
        };
        return (crashed(outcome), None);
    }
    let code = status.map_or(0, |s| libc::WEXITSTATUS(s));
    if header.timed_out.load(Ordering::SeqCst) {
        return (crashed(Outcome::Timeout { stmt }), None);
    }
    let len = header.report_len.load(Ordering::SeqCst);
    if code != 0 || len == 0 {
        return (crashed(Outcome::Exited { stmt, code }), None);
    }
    // The code under test shares the child's memory, so the report is data to check: when
    // it is not one (the engine decodes it), the execution is a crash.
    let outcome = Outcome::Crashed {
        stmt,
        signal: 0,
        stack_overflow: false,
    };
    (crashed(outcome), shared.report().get(..len))
}

/// Waits for the child; past the time limit, asks it to save its coverage and leave, then kills
/// it. Returns the wait status.
fn wait_with_timeout(pid: libc::pid_t, timeout_ms: u64, shared: &Shared) -> i32 {
    // SAFETY: plain system calls on our own child.
    unsafe {
        let pidfd = libc::syscall(libc::SYS_pidfd_open, pid, 0) as i32;
        if pidfd >= 0 {
            let exited = |ms: u64| {
                let mut pfd = libc::pollfd {
                    fd: pidfd,
                    events: libc::POLLIN,
                    revents: 0,
                };
                loop {
                    let r = libc::poll(&mut pfd, 1, ms.min(i32::MAX as u64) as i32);
                    if r < 0
                        && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                    {
                        continue;
                    }
                    return r > 0;
                }
            };
            if !exited(timeout_ms) && !waited_for_cpu(timeout_ms, &|| cpu_ms(pid), &exited) {
                libc::kill(pid, libc::SIGUSR1);
                if !exited(500) {
                    shared.header().timed_out.store(true, Ordering::SeqCst);
                    libc::kill(pid, libc::SIGKILL);
                }
            }
            libc::close(pidfd);
        }
        let mut status = 0;
        while libc::waitpid(pid, &mut status, 0) < 0 {
            if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
                break;
            }
        }
        status
    }
}

/// How much longer than its time limit a case may take on the clock on the wall: the limit
/// counts the CPU time the case used, so that on a busy machine a case waiting for a core is
/// not taken for a hang (the search's verdicts, and so the tests written, would depend on the
/// load); a case that blocks without using the CPU is stopped at this many times the limit.
const WALL_FACTOR: u64 = 5;

/// The CPU time `pid` has used so far (all its threads), in milliseconds.
fn cpu_ms(pid: libc::pid_t) -> Option<u64> {
    let mut clock: libc::clockid_t = 0;
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: plain calls on our own child, with out-parameters of ours.
    let ok = unsafe {
        libc::clock_getcpuclockid(pid, &mut clock) == 0 && libc::clock_gettime(clock, &mut t) == 0
    };
    ok.then(|| t.tv_sec.max(0) as u64 * 1000 + t.tv_nsec.max(0) as u64 / 1_000_000)
}

/// Called when `limit_ms` have passed on the wall: waits on with `ended` (which waits up to
/// the milliseconds given and says whether the case ended) while the case has used less than
/// `limit_ms` of CPU time (`used`: since it started), up to [`WALL_FACTOR`] times the limit in
/// all. Whether the case ended.
fn waited_for_cpu(
    limit_ms: u64,
    used: &dyn Fn() -> Option<u64>,
    ended: &dyn Fn(u64) -> bool,
) -> bool {
    let cap = limit_ms.saturating_mul(WALL_FACTOR);
    let mut waited = limit_ms;
    while waited < cap {
        let Some(used) = used() else {
            return false;
        };
        if used >= limit_ms {
            return false;
        }
        // Not `clamp`: it panics when less than its lower bound is left before the cap.
        let step = (limit_ms - used).max(10).min(cap - waited);
        if ended(step) {
            return true;
        }
        waited += step;
    }
    false
}

/// The stack of the thread that runs a test case: libtest's default for test threads.
const CASE_STACK: usize = 2 << 20;

fn run_child(entries: &[Entry], case: &Case, shared: &Shared) -> ! {
    install_child_handlers();
    crate::leftovers::quiet_panic_hook();
    run_warm(entries, case, shared);
    // What it left is logged as refusals; the child ends here anyway.
    let _ = crate::leftovers::check(&shared.child_before);
    // SAFETY: leave without running destructors or atexit handlers of the parent's state.
    unsafe { libc::_exit(0) }
}

/// Runs the case, after a first run in a bare environment when it asks for one, and leaves the
/// report of the last run in the shared area.
fn run_warm(entries: &[Entry], case: &Case, shared: &Shared) {
    if case.warm_up && case.env.is_some() {
        run_on_fresh_thread(entries, case.calls, &Some(EnvSpec::default()), shared);
        // What the first run covered, refused or reported is not this execution's.
        shared.reset();
    }
    run_on_fresh_thread(entries, case.calls, case.env, shared);
}

/// Runs the case and leaves its report in the shared area.
fn run_on_fresh_thread(entries: &[Entry], calls: &[Call], env: &Option<EnvSpec>, shared: &Shared) {
    // A fresh thread, as libtest gives each test: its thread-locals (std's hash keys, the
    // code's own) start unset, so they are filled inside the environment, not inherited.
    let report = std::thread::scope(|scope| {
        std::thread::Builder::new()
            .stack_size(CASE_STACK)
            .spawn_scoped(scope, || {
                let alt_stack = prepare_case_thread();
                let report = run_case(entries, calls, env, shared);
                // A shared child runs many cases: give the alternate stack back each time.
                release_alt_stack(alt_stack);
                report
            })
            .expect("hermetic driver: start the test case's thread")
            .join()
    })
    .unwrap_or_else(|_| {
        // SAFETY: the case thread died outside its own panic catching; nothing to report.
        unsafe { libc::_exit(70) }
    });
    store_report(&report, shared);
}

/// Leaves an execution's report in the shared area (none when it does not fit).
fn store_report(report: &ExecReport, shared: &Shared) {
    let bytes = serde_json::to_vec(report).expect("hermetic driver: encode report");
    let out = shared.report();
    if bytes.len() <= out.len() {
        out[..bytes.len()].copy_from_slice(&bytes);
        shared
            .header()
            .report_len
            .store(bytes.len(), Ordering::SeqCst);
    }
}

/// A long-lived child that runs one execution after another. It leaves when its request pipe
/// closes (when the server does), or after an execution that changed what the next one would
/// see ([`Reuse::WhileUnchanged`]).
struct Worker {
    pid: libc::pid_t,
    /// Request lines go to the child here.
    requests: std::fs::File,
    /// The bytes `requests` holds: requests are handed ahead only while they fit, so a write
    /// never waits for a worker that waits for the server to read its answers.
    capacity: usize,
    /// The child answers each execution here ([`answer_bytes`]).
    done: std::fs::File,
}

impl Worker {
    /// Closes the server's ends of the worker's pipes, in a child forked for another case.
    fn close_in_child(&self) {
        use std::os::fd::AsRawFd;
        // SAFETY: in the forked child, which never uses these again (it leaves with `_exit`).
        unsafe {
            libc::close(self.requests.as_raw_fd());
            libc::close(self.done.as_raw_fd());
        }
    }
}

/// How long a worker lives.
#[derive(Clone, Copy)]
enum Reuse<'w> {
    /// Until an execution changes a watched static, a descriptor or the memory size, or leaves
    /// something behind (`carryover`): the next execution then gets a fresh child.
    WhileUnchanged(&'w crate::carryover::Watch),
    /// For good, statics carried over (`SHARED_CHILD_ENV`, benchmarks only).
    Always,
}

/// The worker's answers after an execution: it goes on, or it has left.
const KEPT: u8 = 1;
const RETIRED: u8 = 2;

/// Requests handed to a worker before it answered the ones before them: it runs one
/// execution after another while the server forwards reports (a round trip through three
/// processes per execution cost more than the execution).
const AHEAD: usize = 16;
/// The size asked for the worker's pipes (the system's default limit for an unprivileged
/// process).
const PIPE_BYTES: i32 = 1 << 20;

/// A pipe (read end, write end) of [`PIPE_BYTES`] where the system allows, and the bytes it
/// holds.
fn pipe_pair() -> (std::fs::File, std::fs::File, usize) {
    let mut fds = [0; 2];
    // SAFETY: pipe2 fills the array on success; each end is owned by one File from here on.
    unsafe {
        assert!(
            libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) == 0,
            "hermetic driver: cannot create a pipe"
        );
        libc::fcntl(fds[1], libc::F_SETPIPE_SZ, PIPE_BYTES);
        let capacity = libc::fcntl(fds[1], libc::F_GETPIPE_SZ).max(4096) as usize;
        (
            std::fs::File::from_raw_fd(fds[0]),
            std::fs::File::from_raw_fd(fds[1]),
            capacity,
        )
    }
}

fn spawn_worker(entries: &[Entry], shared: &Shared, reuse: Reuse) -> Worker {
    let (request_read, request_write, capacity) = pipe_pair();
    let (done_read, done_write, _) = pipe_pair();
    // SAFETY: the child only serves executions and leaves with `_exit`.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "hermetic driver: fork failed");
    if pid == 0 {
        sandbox::contain_child();
        drop((request_write, done_read));
        install_child_handlers();
        crate::leftovers::quiet_panic_hook();
        let worker = InWorker {
            entries,
            shared,
            before: crate::leftovers::before(),
            // As the server's statics are: what a fresh child would start from.
            pristine: match reuse {
                Reuse::WhileUnchanged(watch) => Some((watch, watch.snapshot())),
                Reuse::Always => None,
            },
            thread_watch: crate::carryover::ThreadWatch::from_env(),
            debug: std::env::var_os("HERMETIC_DEBUG").is_some(),
        };
        let mut requests = std::io::BufReader::new(request_read);
        let mut done = done_write;
        loop {
            // A case thread serves executions until one changes its thread-locals; that one
            // is answered once the thread (and its thread-locals' destructors) is gone.
            std::thread::scope(|scope| {
                std::thread::Builder::new()
                    .stack_size(CASE_STACK)
                    .spawn_scoped(scope, || {
                        worker.serve_on_case_thread(&mut requests, &mut done)
                    })
                    .expect("hermetic driver: start the test case's thread")
                    .join()
            })
            .unwrap_or_else(|_| {
                // SAFETY: the case thread died outside its own panic catching.
                unsafe { libc::_exit(70) }
            });
            worker.answer(&worker.before, &mut done);
        }
    }
    Worker {
        pid,
        requests: request_write,
        capacity,
        done: done_read,
    }
}

/// A worker child's state between executions.
struct InWorker<'a> {
    entries: &'a [Entry],
    shared: &'a Shared,
    /// The process before its first case (`leftovers`), with no case thread.
    before: crate::leftovers::Before,
    /// The watched statics as they were at the fork (`None`: carried over, `Reuse::Always`).
    pristine: Option<(&'a crate::carryover::Watch, crate::carryover::Pristine)>,
    /// The thread-locals a case thread watches (`None`: a fresh thread for every execution).
    thread_watch: Option<crate::carryover::ThreadWatch>,
    debug: bool,
}

impl InWorker<'_> {
    /// Runs executions on this (case) thread while its watched thread-locals are as they were
    /// when it started; returns after the first that changed them, unanswered. Leaves the
    /// process when the requests end.
    fn serve_on_case_thread(&self, requests: &mut impl BufRead, done: &mut impl Write) {
        let alt_stack = prepare_case_thread();
        let fresh = self
            .thread_watch
            .as_ref()
            .and_then(|w| Some((w, w.snapshot()?)));
        // This thread runs beside the worker's main thread, which waits for it.
        let before = self.before.with_case_thread();
        let mut line = String::new();
        loop {
            line.clear();
            if requests.read_line(&mut line).unwrap_or(0) == 0 {
                // SAFETY: as in `run_child`.
                unsafe { libc::_exit(0) }
            }
            // Whether this thread is still as a fresh one (its stack's low end noted, its
            // watched thread-locals unset).
            let mut fresh_still = true;
            self.shared.reset_execution();
            if let Ok(Request::Exec {
                calls,
                env,
                mutant,
                report_reached,
                max_site_evaluations,
                warm_up,
                ..
            }) = serde_json::from_str::<Request>(&line)
            {
                crate::mutant::set_active(mutant, report_reached, max_site_evaluations);
                if warm_up {
                    // Two runs, each on a fresh thread of its own (`Reuse::Always` only),
                    // which noted their own stacks.
                    let case = Case {
                        calls: &calls,
                        env: &env,
                        warm_up,
                    };
                    run_warm(self.entries, &case, self.shared);
                    fresh_still = false;
                } else {
                    store_report(
                        &run_case(self.entries, &calls, &env, self.shared),
                        self.shared,
                    );
                }
            }
            fresh_still &= fresh.as_ref().is_some_and(|(w, f)| w.unchanged(f));
            if !fresh_still {
                if self.debug {
                    let text =
                        "hermetic driver: a new case thread after a change of its thread-locals\n";
                    // SAFETY: writes our own buffer to standard error.
                    unsafe { libc::write(2, text.as_ptr().cast(), text.len()) };
                }
                release_alt_stack(alt_stack);
                return;
            }
            self.answer(&before, done);
        }
    }

    /// After an execution: whether it left the worker as the next one may find it (nothing
    /// left behind, the watched statics unchanged), said to the server; the worker leaves
    /// when it did not.
    fn answer(&self, before: &crate::leftovers::Before, done: &mut impl Write) {
        let left_nothing = crate::leftovers::check(before);
        let mut kept = true;
        if let Some((watch, p)) = &self.pristine {
            let change = if left_nothing {
                watch.change(p)
            } else {
                Some("leftovers".into())
            };
            if let Some(change) = change.as_ref().filter(|_| self.debug) {
                // Not `eprintln!`: libtest captures it.
                let text = format!("hermetic driver: a new child after a change of {change}\n");
                // SAFETY: writes our own buffer to standard error.
                unsafe { libc::write(2, text.as_ptr().cast(), text.len()) };
            }
            kept = change.is_none();
        }
        if done.write_all(&answer_bytes(kept, self.shared)).is_err() || !kept {
            // SAFETY: as in `run_child`.
            unsafe { libc::_exit(0) }
        }
    }
}

/// What a worker writes after each execution: [`KEPT`] or [`RETIRED`], the statement it
/// reached (`u32`), the counters it hit (a `u32` count, then each index as a `u32`), and its
/// report's bytes (a `u32` length, then the bytes; all little-endian). The refusals are the
/// server's to add: only its log is beyond the code's reach.
fn answer_bytes(kept: bool, shared: &Shared) -> Vec<u8> {
    let header = shared.header();
    let stmt = header.stmt.load(Ordering::SeqCst);
    let covered = covered(shared);
    let len = header.report_len.load(Ordering::SeqCst);
    let fallback;
    let body = match shared.report().get(..len).filter(|b| !b.is_empty()) {
        Some(body) => body,
        // No report (it did not fit): as a child that left without one.
        None => {
            let outcome = Outcome::Exited {
                stmt: stmt as usize,
                code: 0,
            };
            fallback = serde_json::to_vec(&ExecReport::empty(outcome))
                .expect("hermetic driver: encode report");
            &fallback
        }
    };
    let mut out = Vec::with_capacity(13 + 4 * covered.len() + body.len());
    out.push(if kept { KEPT } else { RETIRED });
    out.extend(stmt.to_le_bytes());
    out.extend((covered.len() as u32).to_le_bytes());
    covered.iter().for_each(|c| out.extend(c.to_le_bytes()));
    out.extend((body.len() as u32).to_le_bytes());
    out.extend(body);
    out
}

/// A worker's answer, as [`answer_bytes`] wrote it.
struct Answer {
    kept: bool,
    stmt: u32,
    covered: Vec<u32>,
    body: Vec<u8>,
}

impl Answer {
    /// Reads one answer; `None` when the pipe ends first or the answer is out of bounds (the
    /// worker died, or the code under test wrote to the pipe).
    fn read(from: &mut impl std::io::Read, counters: usize) -> Option<Answer> {
        let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        // Three reads (the pipe is not buffered): the answer, statement and count; the
        // counters with the report's length; the report.
        let mut head = [0u8; 9];
        from.read_exact(&mut head).ok()?;
        let (stmt, n) = (word(&head[1..5]), word(&head[5..9]) as usize);
        if n > counters || !matches!(head[0], KEPT | RETIRED) {
            return None;
        }
        let mut bytes = vec![0u8; 4 * n + 4];
        from.read_exact(&mut bytes).ok()?;
        let covered = bytes[..4 * n].chunks_exact(4).map(word).collect();
        let len = word(&bytes[4 * n..]) as usize;
        if len > REPORT_MAX {
            return None;
        }
        let mut body = vec![0; len];
        from.read_exact(&mut body).ok()?;
        Some(Answer {
            kept: head[0] == KEPT,
            stmt,
            covered,
            body,
        })
    }
}

/// A request handed, or to hand, to the worker.
struct Queued {
    line: String,
    timeout_ms: u64,
    /// Written to the worker's pipe.
    sent: bool,
}

/// The executions that run in a worker, one after another, each handed to it before the
/// ones ahead of it are answered; the reports go to the engine in the order of the requests.
struct Pipeline<'a> {
    entries: &'a [Entry],
    shared: &'a Shared,
    /// How a worker lives (`None`: no worker, every execution in a fresh child).
    reuse: Option<Reuse<'a>>,
    worker: Option<Worker>,
    /// The executions not answered yet, oldest first; those sent come first.
    queue: std::collections::VecDeque<Queued>,
    /// One execution at a time, until the queue empties: refusals were logged while the
    /// worker had more than one execution, and whose they were could not be told.
    lockstep: bool,
}

impl Pipeline<'_> {
    /// Whether executions wait for their answers.
    fn busy(&self) -> bool {
        !self.queue.is_empty()
    }

    /// Queues an execution for the worker (`line`: its request); answers the oldest while
    /// too many wait.
    fn push(&mut self, line: &str, timeout_ms: u64, reply: &mut impl Write) {
        self.queue.push_back(Queued {
            line: format!("{}\n", line.trim_end()),
            timeout_ms,
            sent: false,
        });
        self.send_ready();
        while self.queue.len() > AHEAD {
            self.answer_front(reply);
        }
    }

    /// Answers every queued execution.
    fn drain(&mut self, reply: &mut impl Write) {
        while self.busy() {
            self.answer_front(reply);
        }
    }

    /// Hands the worker (started when there is none) the queued requests it has room for.
    fn send_ready(&mut self) {
        if self.queue.is_empty() {
            self.lockstep = false;
            return;
        }
        let (entries, shared) = (self.entries, self.shared);
        let reuse = self
            .reuse
            .expect("executions are queued only with a worker to run them");
        let w = self
            .worker
            .get_or_insert_with(|| spawn_worker(entries, shared, reuse));
        let mut in_pipe: usize = self
            .queue
            .iter()
            .filter(|q| q.sent)
            .map(|q| q.line.len())
            .sum();
        for q in self.queue.iter_mut().skip_while(|q| q.sent) {
            let first = in_pipe == 0;
            if !first && (self.lockstep || in_pipe + q.line.len() > w.capacity) {
                break;
            }
            // A worker that died cannot take it: its answer (none) says so.
            if w.requests.write_all(q.line.as_bytes()).is_err() {
                break;
            }
            q.sent = true;
            in_pipe += q.line.len();
        }
    }

    /// Waits for the oldest execution's answer (or the worker's death or time-out) and
    /// writes its report; hands the worker what then fits.
    fn answer_front(&mut self, reply: &mut impl Write) {
        let shared = self.shared;
        let w = self
            .worker
            .as_mut()
            .expect("a worker runs the queued executions");
        let front = &self.queue[0];
        let others_sent = self.queue.get(1).is_some_and(|q| q.sent);
        if !readable(w.done.as_raw_fd(), 0) {
            // The engine reads on while the worker runs.
            reply.flush().expect("hermetic driver: write reply");
        }
        let ended = wait_for_worker(w, front.timeout_ms, shared);
        let refused = shared.sandbox.count() > 0;
        if refused && others_sent && !matches!(ended, Ended::Died(_)) {
            // The refusals may be the next execution's too: again, one at a time, from a
            // fresh worker (a worker's report is the one a fresh child would give).
            self.retire_worker(true);
            shared.sandbox.reset();
            self.lockstep = true;
            self.send_ready();
            return;
        }
        let (head, body) = match ended {
            Ended::Answered(answer) => {
                let outcome = Outcome::Crashed {
                    stmt: answer.stmt as usize,
                    signal: 0,
                    stack_overflow: false,
                };
                if !answer.kept {
                    // It finished the case and left; the next execution starts a new one.
                    self.retire_worker(false);
                }
                (
                    server_view(outcome, answer.covered, shared),
                    Some(answer.body),
                )
            }
            Ended::Died(status) => {
                // Reaped already.
                self.worker = None;
                self.queue.iter_mut().for_each(|q| q.sent = false);
                let (head, body) = report_after(Some(status), shared);
                (head, body.map(<[u8]>::to_vec))
            }
        };
        write_report(reply, &head, body.as_deref());
        if refused {
            // The worker has nothing else: the log is this execution's alone.
            shared.sandbox.reset();
        }
        self.queue.pop_front();
        self.send_ready();
    }

    /// Lets the worker go (killed when `kill`; else it left of itself) and marks what it was
    /// handed as not sent.
    fn retire_worker(&mut self, kill: bool) {
        if let Some(w) = self.worker.take() {
            if kill {
                // SAFETY: our own child, not yet reaped.
                unsafe { libc::kill(w.pid, libc::SIGKILL) };
            }
            reap(w.pid);
        }
        self.queue.iter_mut().for_each(|q| q.sent = false);
    }
}

/// How an execution in the worker ended.
enum Ended {
    /// The case finished; the worker goes on, or has left.
    Answered(Answer),
    /// The worker died during the case (its wait status; it was reaped).
    Died(i32),
}

/// Waits until the worker answers the execution it runs or dies; past the time limit it is
/// asked to save its coverage and leave, then killed.
fn wait_for_worker(w: &mut Worker, timeout_ms: u64, shared: &Shared) -> Ended {
    let cpu_before = cpu_ms(w.pid).unwrap_or(0);
    let done = w.done.as_raw_fd();
    let within = |ms: u64| readable(done, ms);
    let ready = within(timeout_ms)
        || waited_for_cpu(
            timeout_ms,
            &|| cpu_ms(w.pid).map(|c| c.saturating_sub(cpu_before)),
            &within,
        );
    if !ready {
        // The same escalation as `wait_with_timeout`.
        return Ended::Died(wait_with_timeout(w.pid, 0, shared));
    }
    match Answer::read(&mut w.done, shared.counters) {
        Some(answer) => Ended::Answered(answer),
        // The pipe closed: the child died during the case (or the case closed the pipe and
        // the worker lives on: it must not keep the server waiting).
        None => {
            // SAFETY: our own child, not yet reaped.
            unsafe { libc::kill(w.pid, libc::SIGKILL) };
            Ended::Died(reap(w.pid))
        }
    }
}

fn reap(pid: libc::pid_t) -> i32 {
    let mut status = 0;
    // SAFETY: waiting for our own child.
    while unsafe { libc::waitpid(pid, &mut status, 0) } < 0 {
        if std::io::Error::last_os_error().kind() != std::io::ErrorKind::Interrupted {
            break;
        }
    }
    status
}

/// Runs the calls in the environment; the report has everything but the covered counters,
/// which the parent reads from shared memory.
fn run_case(
    entries: &[Entry],
    calls: &[Call],
    env: &Option<EnvSpec>,
    shared: &Shared,
) -> ExecReport {
    let guard = env.as_ref().map(environment::enter);
    coverage::start_recording();
    let mut slots = Slots::default();
    let mut stmts = Vec::with_capacity(calls.len());
    let mut outcome = Outcome::Completed;
    for (i, call) in calls.iter().enumerate() {
        shared.header().stmt.store(i as u32, Ordering::SeqCst);
        shared.sandbox.running(i);
        let Some(entry) = entries.get(call.callable) else {
            outcome = Outcome::Invalid {
                stmt: i,
                message: format!("no callable {}", call.callable),
            };
            break;
        };
        match catch_unwind(AssertUnwindSafe(|| entry(&call.args, &mut slots))) {
            Ok(Ok(returned)) => {
                slots.pad_to(i);
                stmts.push(StmtReport {
                    returned: returned.observed,
                    stored: returned.stored.is_some(),
                });
                slots.push_with(returned.stored, returned.observer);
            }
            Ok(Err(e)) => {
                outcome = Outcome::Invalid {
                    stmt: i,
                    message: e.0,
                };
                break;
            }
            Err(payload) => {
                outcome = Outcome::Panicked {
                    stmt: i,
                    message: panic_message(payload.as_ref()),
                };
                break;
            }
        }
    }
    coverage::stop_recording();
    // What the calls left in the values they borrowed mutably: side effects to check.
    let mut finals = Vec::new();
    if outcome == Outcome::Completed {
        let mut borrowed = Vec::new();
        for call in calls {
            call.args
                .iter()
                .for_each(|a| borrowed_mut(a, &mut borrowed));
        }
        borrowed.sort_unstable();
        borrowed.dedup();
        finals = borrowed
            .into_iter()
            .filter_map(|n| Some((n, slots.observe(n)?)))
            .collect();
    }
    let env_report = guard.as_ref().map(environment::report).unwrap_or_default();
    drop(guard);
    coverage::copy_counters(shared.counters());
    let base = coverage::load_base();
    let report = ExecReport {
        outcome,
        stmts,
        covered: Vec::new(),
        cmp_ints: coverage::cmp_ints(MAX_CMP_INTS, base),
        cmp_bytes: coverage::cmp_bytes(),
        cmp_closest: coverage::cmp_closest(base),
        cmp_last: coverage::cmp_last(MAX_CMP_LAST, base),
        env: env_report,
        sandbox_blocked: 0,
        refusals: Vec::new(),
        mock_calls: crate::mock::take_calls(),
        fake_calls: crate::fakes::take_calls(),
        reached_mutants: crate::mutant::reached(),
        site_evaluations: crate::mutant::evaluations(),
        finals,
    };
    // The values the calls returned and the case kept are dropped last, as before, one at a
    // time: what a `Drop` tries is that value's, not the last call's.
    slots.drop_each(|n| shared.sandbox.dropping(n));
    report
}

/// The statements whose results `value` borrows mutably.
fn borrowed_mut(value: &Value, out: &mut Vec<usize>) {
    match value {
        Value::BorrowMut(n) => out.push(*n),
        Value::Seq(items) | Value::Tuple(items) => items.iter().for_each(|v| borrowed_mut(v, out)),
        Value::Opt(Some(v)) | Value::Ok(v) | Value::Err(v) => borrowed_mut(v, out),
        _ => {}
    }
}

/// The text of a panic payload, as `#[should_panic(expected = ..)]` will match it.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        String::from("Box<dyn Any>")
    }
}

fn shared_from_handler() -> Option<&'static Shared> {
    let p = SHARED.load(Ordering::SeqCst);
    // SAFETY: set in `serve` before any child exists; the Shared outlives the children.
    (p != 0).then(|| unsafe { &*(p as *const Shared) })
}

extern "C" fn on_abort(_: libc::c_int) {
    if let Some(shared) = shared_from_handler() {
        coverage::copy_counters(shared.counters());
    }
    // SAFETY: restoring the default action; abort() raises again after we return.
    unsafe { libc::signal(libc::SIGABRT, libc::SIG_DFL) };
}

extern "C" fn on_timeout(_: libc::c_int) {
    if let Some(shared) = shared_from_handler() {
        coverage::copy_counters(shared.counters());
        shared.header().timed_out.store(true, Ordering::SeqCst);
    }
    // SAFETY: async-signal-safe exit.
    unsafe { libc::_exit(TIMEOUT_EXIT) }
}

extern "C" fn on_segv(sig: libc::c_int, info: *mut libc::siginfo_t, _: *mut libc::c_void) {
    // SAFETY: the kernel hands a valid siginfo to an SA_SIGINFO handler.
    let addr = unsafe { (*info).si_addr() } as usize;
    let low = STACK_LOW.load(Ordering::SeqCst);
    if let Some(shared) = shared_from_handler() {
        if low != 0 && addr.abs_diff(low) < (1 << 20) {
            shared.header().stack_overflow.store(true, Ordering::SeqCst);
        }
        coverage::copy_counters(shared.counters());
    }
    // SAFETY: with the default action restored, the faulting instruction kills the child.
    unsafe { libc::signal(sig, libc::SIG_DFL) };
}

/// The size of a case thread's alternate signal stack.
const ALT_STACK: usize = 256 << 10;

/// Records where the case thread's stack ends (to recognise an overflow) and gives it an
/// alternate stack for the overflow handler to run on; returns that stack.
fn prepare_case_thread() -> Option<*mut libc::c_void> {
    // SAFETY: queries and sets this thread's own stack attributes.
    unsafe {
        let mut attr: libc::pthread_attr_t = std::mem::zeroed();
        if libc::pthread_getattr_np(libc::pthread_self(), &mut attr) == 0 {
            let mut addr = std::ptr::null_mut();
            let mut size = 0;
            libc::pthread_attr_getstack(&attr, &mut addr, &mut size);
            STACK_LOW.store(addr as usize, Ordering::SeqCst);
            libc::pthread_attr_destroy(&mut attr);
        }
        // An alternate stack, so the overflow handler has room to run.
        let stack = libc::mmap(
            std::ptr::null_mut(),
            ALT_STACK,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if stack == libc::MAP_FAILED {
            return None;
        }
        let ss = libc::stack_t {
            ss_sp: stack,
            ss_flags: 0,
            ss_size: ALT_STACK,
        };
        libc::sigaltstack(&ss, std::ptr::null_mut());
        Some(stack)
    }
}

/// Switches the case thread's alternate stack off and unmaps it.
fn release_alt_stack(stack: Option<*mut libc::c_void>) {
    let Some(stack) = stack else { return };
    // SAFETY: the stack was mapped by `prepare_case_thread` on this thread and is not in use
    // (no signal handler runs here).
    unsafe {
        let off = libc::stack_t {
            ss_sp: std::ptr::null_mut(),
            ss_flags: libc::SS_DISABLE,
            ss_size: 0,
        };
        libc::sigaltstack(&off, std::ptr::null_mut());
        libc::munmap(stack, ALT_STACK);
    }
}

/// The child's signal handlers (process-wide): save coverage on abort, crash and timeout.
/// Each: signal, handler, flags.
fn child_handler_table() -> [(libc::c_int, usize, libc::c_int); 4] {
    [
        (libc::SIGABRT, on_abort as *const () as usize, 0),
        (libc::SIGUSR1, on_timeout as *const () as usize, 0),
        (
            libc::SIGSEGV,
            on_segv as *const () as usize,
            libc::SA_SIGINFO,
        ),
        (
            libc::SIGBUS,
            on_segv as *const () as usize,
            libc::SA_SIGINFO,
        ),
    ]
}

/// The handlers [`install_child_handlers`] sets (signal, handler).
fn child_handlers() -> Vec<(i32, usize)> {
    child_handler_table()
        .iter()
        .map(|&(sig, handler, _)| (sig, handler))
        .collect()
}

/// Installs the child's signal handlers ([`child_handler_table`]).
fn install_child_handlers() {
    for (sig, handler, flags) in child_handler_table() {
        // SAFETY: handler installation in the single-threaded child.
        unsafe {
            let mut sa: libc::sigaction = std::mem::zeroed();
            sa.sa_sigaction = handler;
            sa.sa_flags = flags | libc::SA_ONSTACK;
            libc::sigemptyset(&mut sa.sa_mask);
            libc::sigaction(sig, &sa, std::ptr::null_mut());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermetic_protocol::{DRIVER_ENV, REPLY_FD, REQUEST_FD};
    use std::process::{Child, Command};
    use std::time::{Duration, Instant};

    fn ends_within(child: &mut Child) -> impl Fn(u64) -> bool + '_ {
        let child = std::cell::RefCell::new(child);
        move |ms| {
            std::thread::sleep(Duration::from_millis(ms));
            child.borrow_mut().try_wait().unwrap().is_some()
        }
    }

    #[test]
    fn a_case_that_waits_without_using_the_cpu_is_not_stopped_at_the_limit() {
        // Like a case waiting for a core on a busy machine: 600 ms on the wall, no CPU, within
        // the cap of 1.5 s however slowly a loaded machine starts `sleep`.
        let mut child = Command::new("sleep").arg("0.6").spawn().unwrap();
        let pid = child.id() as libc::pid_t;
        let ended = ends_within(&mut child);
        assert!(!ended(300), "the limit of 300 ms passed on the wall");
        assert!(waited_for_cpu(300, &|| cpu_ms(pid), &ended));
    }

    #[test]
    fn a_case_that_blocks_is_stopped_at_the_wall_cap() {
        let mut child = Command::new("sleep").arg("5").spawn().unwrap();
        let pid = child.id() as libc::pid_t;
        let started = Instant::now();
        {
            let ended = ends_within(&mut child);
            assert!(!ended(100));
            assert!(!waited_for_cpu(100, &|| cpu_ms(pid), &ended));
        }
        let took = started.elapsed();
        assert!(took < Duration::from_secs(3), "{took:?}");
        child.kill().unwrap();
        child.wait().unwrap();
    }

    #[test]
    fn the_last_wait_before_the_cap_may_be_shorter_than_the_least_step() {
        // A case that used 1 ms of CPU waits 999 ms at a time: 4 ms are left before 5 s.
        let waits = std::cell::RefCell::new(Vec::new());
        let never = |ms| {
            waits.borrow_mut().push(ms);
            false
        };
        assert!(!waited_for_cpu(1000, &|| Some(1), &never));
        let waits = waits.into_inner();
        assert_eq!(waits.iter().sum::<u64>(), 4000, "{waits:?}");
        assert!(waits.last().is_some_and(|&w| w < 10), "{waits:?}");
    }

    /// Bumped by [`bump`]: what a reused child must not carry over.
    static COUNT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

    fn returning(observed: Observed) -> Result<Returned, DecodeError> {
        Ok(Returned {
            observed: Some(observed),
            stored: None,
            observer: None,
        })
    }

    /// A function with a static counter that branches on it.
    fn bump(_: &[Value], _: &mut Slots) -> Result<Returned, DecodeError> {
        let n = COUNT.fetch_add(1, Ordering::SeqCst);
        returning(Observed::Str(if n == 0 { "first" } else { "again" }.into()))
    }

    fn pure(args: &[Value], _: &mut Slots) -> Result<Returned, DecodeError> {
        let Some(Value::Int(x)) = args.first() else {
            return Err(DecodeError("an integer".into()));
        };
        returning(Observed::Int(x * 2))
    }

    /// The driver's environment variable that watches [`COUNT`]: executions share a worker
    /// until one changes it.
    fn watching_count() -> (&'static str, String) {
        let count = &COUNT as *const _ as usize - coverage::load_base();
        (crate::protocol::WATCHED_STATICS_ENV, format!("{count:x}+8"))
    }

    /// Counts the executions [`seen`] ran in its process (not watched: it tells whether a
    /// child was reused).
    static SEEN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

    fn seen(_: &[Value], _: &mut Slots) -> Result<Returned, DecodeError> {
        returning(Observed::Int(SEEN.fetch_add(1, Ordering::SeqCst).into()))
    }

    /// Ends its process, as a crash does.
    fn die(_: &[Value], _: &mut Slots) -> Result<Returned, DecodeError> {
        std::process::abort()
    }

    const ENTRIES: [Entry; 4] = [bump, pure, seen, die];

    /// The driver [`run_sequence`] starts: this test binary, serving [`ENTRIES`].
    #[test]
    fn serves_when_started_by_a_test() {
        serve(&ENTRIES);
    }

    /// Runs `calls` (entry, argument) one execution each in a driver started from this test
    /// binary, all with `reuse` set; `env` is added to the driver's environment. The reports,
    /// as JSON lines. Each request waits for the report before it, as the engine's do when
    /// it has one at a time.
    fn run_sequence(calls: &[(usize, i128)], env: &[(&str, String)]) -> Vec<String> {
        run_requests(calls, env, false)
    }

    /// As [`run_sequence`], `ahead`: every request sent before the first report is read.
    fn run_requests(calls: &[(usize, i128)], env: &[(&str, String)], ahead: bool) -> Vec<String> {
        use std::io::{BufRead, BufReader, Write};
        use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
        use std::os::unix::process::CommandExt;
        let pipe = || {
            let mut fds = [0; 2];
            // SAFETY: pipe2 fills the array; each end is owned once from here on.
            unsafe {
                assert_eq!(libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC), 0);
                (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1]))
            }
        };
        let (reply_read, reply_write) = pipe();
        let (request_read, request_write) = pipe();
        let (reply_fd, request_fd) = (reply_write.as_raw_fd(), request_read.as_raw_fd());
        let scratch = std::env::temp_dir();
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.args([
            "--exact",
            "server::tests::serves_when_started_by_a_test",
            "--test-threads=1",
        ])
        .env(DRIVER_ENV, "1")
        .env("HERMETIC_SCRATCH", &scratch)
        .env_remove(crate::protocol::WATCHED_STATICS_ENV)
        .env_remove(SHARED_CHILD_ENV)
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null());
        // SAFETY: only dup2 between fork and exec.
        unsafe {
            cmd.pre_exec(move || {
                if libc::dup2(reply_fd, REPLY_FD) < 0 || libc::dup2(request_fd, REQUEST_FD) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let mut child = cmd.spawn().unwrap();
        drop((reply_write, request_read));
        let mut replies = BufReader::new(std::fs::File::from(reply_read));
        let mut requests = std::fs::File::from(request_write);
        let mut line = String::new();
        replies.read_line(&mut line).unwrap();
        let mut reports = Vec::new();
        let mut read_report = |replies: &mut BufReader<std::fs::File>| {
            line.clear();
            replies.read_line(&mut line).unwrap();
            let head: ExecReport = serde_json::from_str(&line).unwrap();
            line.clear();
            replies.read_line(&mut line).unwrap();
            let report = serde_json::from_str::<ExecReport>(&line)
                .map_or(head.clone(), |r| r.completed_by(head));
            reports.push(serde_json::to_string(&report).unwrap());
        };
        let mut text = Vec::new();
        for &(callable, arg) in calls {
            let request = Request::Exec {
                calls: vec![Call {
                    callable,
                    args: vec![Value::Int(arg)],
                }],
                env: Some(EnvSpec::default()),
                timeout_ms: 10_000,
                mutant: 0,
                report_reached: false,
                max_site_evaluations: 0,
                warm_up: false,
                reuse: true,
            };
            serde_json::to_writer(&mut text, &request).unwrap();
            text.push(b'\n');
            if !ahead {
                requests.write_all(&std::mem::take(&mut text)).unwrap();
                read_report(&mut replies);
            }
        }
        if ahead {
            // In one write: the server finds them all waiting.
            requests.write_all(&text).unwrap();
            calls.iter().for_each(|_| read_report(&mut replies));
        }
        drop(requests);
        child.wait().unwrap();
        reports
    }

    fn returned(report: &str) -> Observed {
        let report: ExecReport = serde_json::from_str(report).unwrap();
        assert_eq!(report.outcome, Outcome::Completed, "{report:?}");
        report.stmts[0].returned.clone().unwrap()
    }

    #[test]
    fn a_reused_child_gives_the_reports_fresh_children_give() {
        const BUMP: usize = 0;
        const PURE: usize = 1;
        const SEEN: usize = 2;
        let calls = [
            (PURE, 1),
            (SEEN, 0),
            (SEEN, 0),
            (BUMP, 0),
            (SEEN, 0),
            (BUMP, 0),
            (BUMP, 0),
            (PURE, 2),
        ];
        let watched = watching_count();
        let fresh = run_sequence(&calls, &[]);
        let reused = run_sequence(&calls, std::slice::from_ref(&watched));
        // Without the list every execution has a child of its own; with it, the first ones
        // share one until a bump changes the counter.
        let zero = Observed::Int(0);
        assert_eq!(returned(&fresh[2]), zero);
        assert_eq!(returned(&reused[1]), zero);
        assert_eq!(returned(&reused[2]), Observed::Int(1));
        assert_eq!(returned(&reused[4]), zero);
        for (i, &(callable, _)) in calls.iter().enumerate() {
            if callable != SEEN {
                assert_eq!(fresh[i], reused[i], "execution {i}");
            }
        }
        assert_eq!(returned(&reused[6]), Observed::Str("first".into()));
        // Handed to the worker before the reports ahead of them: the same reports (after a
        // bump the requests it held go to a new worker).
        let reused_ahead = run_requests(&calls, &[watched], true);
        assert_eq!(reused_ahead, reused);
        // Where statics carry over (the benchmark mode), the counter shows it: the check
        // above can fail.
        let carried = run_sequence(&calls, &[(SHARED_CHILD_ENV, "1".into())]);
        assert_eq!(returned(&carried[5]), Observed::Str("again".into()));
    }

    #[test]
    fn requests_handed_to_a_worker_that_dies_run_in_the_next_one() {
        const PURE: usize = 1;
        const DIE: usize = 3;
        let calls = [
            (PURE, 1),
            (DIE, 0),
            (PURE, 2),
            (DIE, 0),
            (PURE, 3),
            (PURE, 4),
        ];
        // A watched static: executions share a worker.
        let watched = [watching_count()];
        let reports = run_requests(&calls, &watched, true);
        assert_eq!(reports, run_sequence(&calls, &[]));
        for (i, n) in [(0, 2), (2, 4), (4, 6), (5, 8)] {
            assert_eq!(returned(&reports[i]), Observed::Int(n), "execution {i}");
        }
        let died: ExecReport = serde_json::from_str(&reports[1]).unwrap();
        assert!(
            matches!(died.outcome, Outcome::Crashed { signal, .. } if signal == libc::SIGABRT),
            "{died:?}"
        );
    }

    #[test]
    fn the_cpu_time_of_a_child_can_be_read() {
        let mut child = Command::new("sleep").arg("1").spawn().unwrap();
        assert!(cpu_ms(child.id() as libc::pid_t).is_some_and(|ms| ms < 500));
        child.kill().unwrap();
        child.wait().unwrap();
    }
}
