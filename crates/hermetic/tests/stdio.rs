//! Scripted stdin, captured stdout/stderr.

use std::io::{self, BufRead, IsTerminal, Read, Write};

use hermetic::{Access, Env};

/// std's stdout buffer is process-wide: tests whose environments share it (they start threads
/// or ask to) must not overlap with another test writing to stdout (see the crate docs).
static STDOUT_TESTS: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn stdin_reads_the_script_then_eof() {
    let env = Env::new().stdin("first line\nsecond\n").enter();
    let mut line = String::new();
    io::stdin().read_line(&mut line).unwrap();
    assert_eq!(line, "first line\n");
    let rest: Vec<String> = io::stdin().lock().lines().map(|l| l.unwrap()).collect();
    assert_eq!(rest, ["second"]);
    let mut more = String::new();
    assert_eq!(io::stdin().read_to_string(&mut more).unwrap(), 0);
    assert!(env.accesses().contains(&Access::StdinRead));
}

#[test]
fn empty_stdin_by_default() {
    let _env = Env::new().enter();
    let mut s = String::new();
    assert_eq!(io::stdin().read_to_string(&mut s).unwrap(), 0);
}

#[test]
fn writes_to_fd_1_and_2_are_captured() {
    let _serial = STDOUT_TESTS.lock().unwrap_or_else(|e| e.into_inner());
    let env = Env::new().enter();
    io::stdout().write_all(b"to stdout\n").unwrap();
    writeln!(io::stderr(), "to stderr").unwrap();
    // Partial lines are flushed by `stdout()`.
    write!(io::stdout(), "partial").unwrap();
    assert_eq!(env.stdout(), b"to stdout\npartial");
    assert_eq!(env.stderr(), b"to stderr\n");
    assert_eq!(env.stdout_string(), "to stdout\npartial");
    assert_eq!(env.stderr_string(), "to stderr\n");
    assert!(env.accesses().contains(&Access::StdoutWritten));
}

#[test]
fn stdio_is_not_a_terminal() {
    let _env = Env::new().enter();
    assert!(!io::stdin().is_terminal());
    assert!(!io::stdout().is_terminal());
}

#[test]
fn writes_from_spawned_threads_are_captured() {
    // Starting a thread lets go of std's stdout lock: the buffer is shared from then on.
    let _serial = STDOUT_TESTS.lock().unwrap_or_else(|e| e.into_inner());
    let env = Env::new().enter();
    std::thread::spawn(|| {
        io::stdout().write_all(b"from thread\n").unwrap();
    })
    .join()
    .unwrap();
    assert_eq!(env.stdout(), b"from thread\n");
}

#[test]
fn a_line_another_thread_half_wrote_stays_out_of_the_environment() {
    // libtest's main thread reports a test as `write_all("test x ... ")` then `flush()`, each
    // taking std's stdout lock on its own; a thread writing to fd 1 inside an environment in
    // between used to flush that half line into its environment. Here another thread does the
    // same, inside an environment of its own that shares stdout (so nothing reaches the real
    // fd 1), while this one writes whole lines.
    let _serial = STDOUT_TESTS.lock().unwrap_or_else(|e| e.into_inner());
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let reporter = std::thread::spawn({
        let stop = stop.clone();
        move || {
            let env = Env::new().share_stdout().enter();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                io::stdout().write_all(b"half ").unwrap();
                std::thread::yield_now();
                io::stdout().flush().unwrap();
            }
            env.stdout_string()
        }
    });
    for i in 0..2_000 {
        let env = Env::new().enter();
        writeln!(io::stdout(), "line {i}").unwrap();
        std::thread::yield_now();
        assert_eq!(env.stdout_string(), format!("line {i}\n"));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let reported = reporter.join().unwrap();
    assert!(reported.starts_with("half ") && !reported.contains("line"));
}

#[test]
fn parallel_scripts_do_not_leak_into_each_other() {
    let handles: Vec<_> = (0..4)
        .map(|i| {
            std::thread::spawn(move || {
                let script = format!("{i}-a\n{i}-b\n{i}-c\n");
                let _env = Env::new().stdin(&script).enter();
                let lines: Vec<String> = io::stdin().lock().lines().map(|l| l.unwrap()).collect();
                assert_eq!(
                    lines,
                    [format!("{i}-a"), format!("{i}-b"), format!("{i}-c")]
                );
            })
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
}

#[test]
fn println_goes_to_libtest_capture_unless_nocapture() {
    let _serial = STDOUT_TESTS.lock().unwrap_or_else(|e| e.into_inner());
    // libtest's own capture (on by default) takes print!/println! of the test thread and of
    // threads it spawns before they reach fd 1; `io::stdout().write_all` always reaches fd 1.
    let nocapture = std::env::args().any(|a| a == "--nocapture")
        || std::env::var_os("RUST_TEST_NOCAPTURE").is_some();
    let env = Env::new().enter();
    println!("via println");
    io::stdout().write_all(b"via write_all\n").unwrap();
    let out = env.stdout();
    if nocapture {
        assert_eq!(out, b"via println\nvia write_all\n");
    } else {
        assert_eq!(out, b"via write_all\n");
    }
}

#[test]
#[should_panic(expected = "boom inside")]
fn a_panic_inside_an_environment_is_reported_normally() {
    let _env = Env::new().enter();
    panic!("boom inside");
}
