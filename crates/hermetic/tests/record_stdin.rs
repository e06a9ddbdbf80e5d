//! Record mode hands out stdin one line per read, so each call that reads a line through std's
//! buffered `Stdin` is logged with its own line, and a call that reads to the end with all it
//! read. The program reads its first line before any probe runs (record mode starts there).
//!
//! The recorded program is this test binary again, run as a child with stdin piped.

use std::io::{BufRead, Read, Write};
use std::process::{Command, Stdio};

use hermetic::record::{enter, Site, ViaDebug as _, Wrap};

static NEXT_LINE: Site = Site::new(1);
static REST: Site = Site::new(2);

/// Set in the child: it plays the recorded program.
const CHILD: &str = "HERMETIC_RECORD_STDIN_CHILD";

fn next_line() -> Option<String> {
    let call = enter(&NEXT_LINE, |_| ());
    let mut line = String::new();
    let r = match std::io::stdin().read_line(&mut line) {
        Ok(0) | Err(_) => None,
        Ok(_) => Some(line.trim_end().to_string()),
    };
    call.exit(|w| (&&Wrap(&r)).capture(w));
    r
}

/// Copies the rest of stdin to a file with `io::copy`, which would splice a pipe in the
/// kernel (past the runtime's buffer, unlogged) if record mode let it.
fn rest() -> usize {
    let call = enter(&REST, |_| ());
    let mut file = tempfile::tempfile().unwrap();
    std::io::copy(&mut std::io::stdin().lock(), &mut file).unwrap();
    let mut all = String::new();
    std::io::Seek::rewind(&mut file).unwrap();
    file.read_to_string(&mut all).unwrap();
    let r = all.lines().count();
    call.exit(|w| (&&Wrap(&r)).capture(w));
    r
}

#[test]
fn child() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let mut header = String::new();
    std::io::stdin().lock().read_line(&mut header).unwrap();
    assert_eq!(header, "header\n");
    // One line per read: a direct read asking for much more gets one line.
    let mut buf = [0u8; 4096];
    // SAFETY: a buffer of ours, of the length given.
    let n = unsafe { libc::read(0, buf.as_mut_ptr().cast(), buf.len()) };
    assert_eq!(&buf[..n as usize], b"raw\n");
    assert_eq!(next_line().as_deref(), Some("add bolts 3"));
    assert_eq!(next_line().as_deref(), Some("roll 6"));
    assert_eq!(next_line().as_deref(), Some("report"));
    assert_eq!(rest(), 1000);
    assert_eq!(next_line(), None);
}

#[test]
fn each_call_is_logged_with_the_lines_it_read() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.jsonl");
    let mut input = String::from("header\nraw\nadd bolts 3\nroll 6\nreport\n");
    for i in 0..1000 {
        input += &format!("line {i} of the rest\n");
    }
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "child", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1")
        .env("HERMETIC_RECORD", &log)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&log).unwrap();
    let calls: Vec<&str> = text.lines().filter(|l| l.contains("\"site\"")).collect();
    let stdin_of = |line: &str| -> String {
        let events = &line[line.find("\"events\":").unwrap()..];
        assert_eq!(events.matches("\"k\":\"stdin\"").count(), 1, "{line}");
        let start = events.find("\"data\":\"").unwrap() + 8;
        events[start..start + events[start..].find('"').unwrap()].to_string()
    };
    assert_eq!(calls.len(), 5, "{text}");
    assert_eq!(stdin_of(calls[0]), "add bolts 3\\n");
    assert_eq!(stdin_of(calls[1]), "roll 6\\n");
    assert_eq!(stdin_of(calls[2]), "report\\n");
    // Read to the end: everything, as one event.
    let rest = stdin_of(calls[3]);
    assert!(rest.starts_with("line 0 of the rest\\nline 1 of"), "{rest}");
    assert!(rest.ends_with("line 999 of the rest\\n"), "{rest}");
    assert!(
        !calls[4].contains("\"k\":\"stdin\""),
        "nothing was left to read: {}",
        calls[4]
    );
}
