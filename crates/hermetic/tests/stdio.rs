//! Scripted stdin, captured stdout/stderr.

use std::io::{self, BufRead, IsTerminal, Read, Write};

use hermetic::{Access, Env};

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
    let env = Env::new().enter();
    io::stdout().write_all(b"to stdout\n").unwrap();
    writeln!(io::stderr(), "to stderr").unwrap();
    // Partial lines are flushed by `stdout()`.
    write!(io::stdout(), "partial").unwrap();
    assert_eq!(env.stdout(), b"to stdout\npartial");
    assert_eq!(env.stderr(), b"to stderr\n");
    assert!(env.accesses().contains(&Access::StdoutWritten));
}

#[test]
fn stdio_is_not_a_terminal() {
    let _env = Env::new().enter();
    assert!(!io::stdin().is_terminal());
    assert!(!io::stdout().is_terminal());
}

#[test]
fn println_reaches_the_env_from_spawned_threads_without_capture() {
    // libtest captures print! of the test thread (and threads it spawns) when capture is on;
    // without capture (--nocapture) it goes to fd 1 and so to the environment.
    let env = Env::new().enter();
    std::thread::spawn(|| {
        io::stdout().write_all(b"from thread\n").unwrap();
    })
    .join()
    .unwrap();
    assert_eq!(env.stdout(), b"from thread\n");
}
