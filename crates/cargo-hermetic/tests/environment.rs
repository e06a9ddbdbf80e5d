//! Code that depends on its environment (the `envdeps` fixture, after seed 001): the search sets
//! up files, stdin, variables and the clock; the emitted tests pass under a different real
//! environment; and nothing the code tries (deleting a real directory, starting `rm`,
//! connecting) reaches the machine.

mod common;

use common::{
    cargo_test_target_dir, check_generated_files, run_with_timeout, Fixture, CARGO_TEST_TIMEOUT,
};
use std::process::Command;

const CANARY: &str = "/tmp/hermetic-canary";

#[test]
fn environment_is_set_up_by_tests_and_the_machine_is_left_alone() {
    std::fs::create_dir_all(CANARY).unwrap();
    std::fs::write(format!("{CANARY}/keep.txt"), "still here\n").unwrap();
    let mut fixture = Fixture::copy("envdeps");
    // A crate that commits its lock file: the run leaves one that names the runtime.
    fixture.lock();
    let run = fixture.generate().seed(3).max_executions(20_000).run();
    run.assert_success();
    fixture.assert_lock_file_is_current();
    check_generated_files(&fixture, &run);

    // The harmful calls were refused, and the canary is intact.
    assert_eq!(
        std::fs::read_to_string(format!("{CANARY}/keep.txt"))
            .ok()
            .as_deref(),
        Some("still here\n"),
        "the canary directory was touched"
    );
    assert!(
        run.count("refused_by_runtime") > 0,
        "no refused attempts counted:\n{}",
        run.describe()
    );
    let touched: Vec<String> = run.report()["environment_touched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    for part in [
        "files",
        "variables",
        "stdin",
        "clock",
        "network",
        "processes",
    ] {
        assert!(
            touched.iter().any(|t| t == part),
            "`{part}` not among the touched parts {touched:?}"
        );
    }

    // Tests set up the environment through the runtime, which became a dev-dependency.
    assert!(
        fixture.read("Cargo.toml").contains("hermetic = { path = "),
        "{}",
        fixture.read("Cargo.toml")
    );
    let files = fixture.generated_files();
    let all: String = files.values().cloned().collect();
    assert!(
        all.contains("hermetic::Env::new()"),
        "no test sets up an environment:\n{}",
        fixture.dump_generated()
    );
    assert!(
        all.contains(".stdin("),
        "no test scripts stdin:\n{}",
        fixture.dump_generated()
    );
    assert!(
        all.contains(".file("),
        "no test creates a file:\n{}",
        fixture.dump_generated()
    );
    assert!(
        all.contains(".var(\"APP_HOME\""),
        "no test sets APP_HOME:\n{}",
        fixture.dump_generated()
    );
    assert!(
        all.contains("std::io::ErrorKind::ConnectionRefused"),
        "phone_home's refusal is not shown:\n{}",
        fixture.dump_generated()
    );
    // Seed 001, Figure 1: every branch of `check_content` is taken, the file holding today's
    // date included; the blocks the debug build emits that no input can take are no goals.
    assert!(
        !run.uncovered_functions()
            .iter()
            .any(|f| f == "content::check_content"),
        "check_content has uncovered branches:\n{}",
        run.describe()
    );
    assert!(
        all.contains("fn check_content_returns_true()"),
        "no test shows check_content returning true:\n{}",
        fixture.dump_generated()
    );

    // The tests build from the crate's repository alone (the runtime vendored inside it): the
    // crate moved to another directory passes, and keeps passing when the real environment
    // changes.
    fixture.assert_builds_from_its_repository_alone();
    let moved = tempfile::tempdir().unwrap();
    fixture.move_to(moved.path());
    fixture.cargo_test_passes();
    let app_home = tempfile::tempdir().unwrap();
    std::fs::write(
        app_home.path().join("app.conf"),
        "port = 9999\nname = real\n",
    )
    .unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    for (i, tz) in [
        "UTC",
        "America/New_York",
        "Asia/Kolkata",
        "Europe/Berlin",
        "Pacific/Auckland",
    ]
    .iter()
    .enumerate()
    {
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        cmd.arg("test")
            .arg("--manifest-path")
            .arg(fixture.manifest())
            .env("CARGO_TARGET_DIR", cargo_test_target_dir())
            .env("TZ", tz)
            .env("HOME", elsewhere.path())
            .env("USER", format!("someone{i}"))
            .env("APP_HOME", app_home.path())
            .current_dir(elsewhere.path());
        let out = run_with_timeout(cmd, CARGO_TEST_TIMEOUT);
        assert!(
            out.status.success(),
            "run {i} under a changed environment failed:\n{}\n{}",
            out.stdout,
            out.stderr
        );
    }
    assert_eq!(
        std::fs::read_to_string(format!("{CANARY}/keep.txt"))
            .ok()
            .as_deref(),
        Some("still here\n"),
        "running the generated tests touched the canary directory"
    );
}

/// Seed 001, Figure 1, as the issue measures it (`--module content`): every branch of
/// `check_content` is covered. After `let Ok(text) = read_to_string(path) else { .. }` the debug
/// build tests the `Result`'s discriminant again on each path to drop what is left, and one way
/// of each re-test contradicts the first test: those three blocks are proven infeasible and are
/// not goals (and no execution reaches them: `common` checks `infeasible_covered` is 0).
#[test]
fn check_content_reaches_every_branch() {
    let fixture = Fixture::copy("envdeps");
    let run = fixture
        .generate()
        .arg("--module")
        .arg("content")
        .seed(1)
        .max_executions(3_000)
        .arg("--no-verify")
        .arg("--dry-run")
        .run();
    run.assert_success();
    assert_eq!(
        run.count("goals_covered"),
        run.count("goals_total"),
        "{}",
        run.describe()
    );
    assert!(run.count("goals_infeasible") >= 3, "{}", run.describe());
    assert!(
        run.stdout.contains("fn check_content_returns_true()"),
        "{}",
        run.describe()
    );
}

/// Seed 001 §3.2: `counter::made` reads a static that `Counter::new` (and `label`) changes. Each execution of
/// the search runs in a fresh child, so the search sees `made() == 0`; beside a test that makes a
/// counter first, in one test process, that test fails. Verification tells it apart from a
/// flaky test: it passes alone.
#[test]
fn tests_that_depend_on_static_state_are_dropped_and_counted_apart() {
    let fixture = Fixture::copy("envdeps");
    let run = fixture
        .generate()
        .arg("--module")
        .arg("counter")
        .seed(1)
        .max_executions(2_000)
        .arg("--dry-run")
        .run();
    run.assert_success();
    let dropped = run.report()["dropped"].as_array().unwrap();
    let static_drops: Vec<&str> = dropped
        .iter()
        .filter(|d| d["reason"].as_str().unwrap().starts_with("static state"))
        .map(|d| d["test"].as_str().unwrap())
        .collect();
    assert!(
        static_drops.iter().any(|t| t.starts_with("made_")),
        "the test of `made` was not dropped for static state:\n{}",
        run.describe()
    );
    assert_eq!(
        run.count("tests_dropped_static_state"),
        static_drops.len() as u64
    );
    assert!(
        run.stdout.contains("tests dropped (static state)")
            || run.stderr.contains("tests dropped (static state)"),
        "{}",
        run.describe()
    );
}

/// Thread-locals (the `perthread` fixture): the search runs executions one after another on a
/// case thread while the crate's thread-locals are as a fresh thread has them, and on a new
/// thread after one that set them. libtest gives every test a fresh thread, so a test written
/// from an execution that saw another's count or kept value fails under `cargo test`. Without
/// verification, nothing hides such a test.
#[test]
fn each_execution_sees_thread_locals_as_a_fresh_thread_does() {
    let fixture = Fixture::copy("perthread");
    let run = fixture
        .generate()
        .seed(1)
        .max_executions(2_000)
        .arg("--no-verify")
        .run();
    run.assert_success();
    let tests = fixture.read("src/hermetic_tests.rs");
    assert!(
        tests.contains("assert!(first_on_this_thread());")
            && tests.contains("assert_eq!(tick(), 1);"),
        "{}",
        run.describe()
    );
    assert!(fixture.cargo_test_passes() >= 5, "{}", run.describe());
}

/// A `Once` that loads `.env` into the process's variables (as dotenv crates do) runs in the
/// environment of whichever test calls first. What a test sees only when it calls first (the
/// file's variables, the loader's panic on a bad line) makes no assertion: the search's last
/// run of each test comes after the same calls ran once in a bare environment, so no test is
/// left that passes or fails by its place in the suite.
#[test]
fn what_a_test_sees_only_when_it_calls_first_is_not_asserted() {
    let fixture = Fixture::copy("envdeps");
    let run = fixture
        .generate()
        .arg("--module")
        .arg("dotenv")
        .seed(1)
        .max_executions(2_000)
        .arg("--dry-run")
        .run();
    run.assert_success();
    assert_eq!(
        run.count("tests_dropped_static_state"),
        0,
        "a test depended on calling first:\n{}",
        run.describe()
    );
    assert!(
        run.count("tests_emitted") > 0 && run.uncovered_functions().is_empty(),
        "{}",
        run.describe()
    );
}

/// A directory the code makes is checked as one (`env.is_dir(..)`), not as a path that is
/// gone: `config::log_dir` makes `$APP_HOME/logs`, and its test keeps passing.
#[test]
fn directories_the_code_makes_are_checked_as_directories() {
    let fixture = Fixture::copy("envdeps");
    let run = fixture
        .generate()
        .arg("--module")
        .arg("config")
        .arg("--function")
        .arg("log_dir")
        .seed(1)
        .max_executions(2_000)
        .arg("--dry-run")
        .run();
    run.assert_success();
    assert!(
        run.stdout.contains("env.is_dir(") && run.stdout.contains("/logs\"));"),
        "no test checks the directory log_dir made:\n{}",
        run.describe()
    );
    assert_eq!(run.count("tests_dropped_unstable"), 0, "{}", run.describe());
}

/// The benchmarks' hidden mode without static isolation (one long-lived child per driver runs
/// every execution): a child that aborts, overflows its stack or hangs is reported as in the
/// default mode, and the next execution gets a new child.
#[test]
fn without_static_isolation_a_dead_child_is_a_finding_and_is_replaced() {
    let fixture = Fixture::copy("misbehave");
    let run = fixture
        .generate()
        .seed(1)
        .max_executions(3_000)
        .arg("--timeout-ms")
        .arg("300")
        .arg("--no-static-isolation")
        .arg("--no-verify")
        .arg("--dry-run")
        .run();
    run.assert_success();
    let findings = run.findings();
    for (call, words) in [
        ("abort_if", &["abort"][..]),
        ("recurse", &["stack"][..]),
        ("spin", &["not return", "timed out"][..]),
    ] {
        assert!(
            findings
                .iter()
                .any(|(c, o)| c.ends_with(call) && words.iter().any(|w| o.contains(w))),
            "no finding for `{call}` saying {words:?}:\n{}",
            run.describe()
        );
    }
    assert!(
        run.count("goals_covered") >= run.count("goals_total") - 2,
        "the search stalled after a child died:\n{}",
        run.describe()
    );
}

/// An execution the sandbox had to stop (a trapped system call: here a TCP socket, with the
/// benchmarks' `--env real`, where nothing goes through the virtual environment) never becomes a
/// test: run by `cargo test`, outside the sandbox, it would really connect. (Landlock's refusals
/// and refused program starts are not counted by the driver yet, so `wipe` and `spawn_rm` are
/// not covered by this rule; see bench/README.md.)
#[test]
fn executions_the_sandbox_stopped_are_not_tests() {
    // The real environment: only the sandbox stands between the code and the machine, and
    // verification runs emitted tests outside it, so no test may come of what it stopped.
    let fixture = Fixture::copy("envdeps");
    let run = fixture
        .generate()
        .arg("--module")
        .arg("harm")
        .arg("--env")
        .arg("real")
        .seed(1)
        .max_executions(500)
        .arg("--dry-run")
        .run();
    run.assert_success();
    assert!(run.count("refused_by_sandbox") > 0, "{}", run.describe());
    for harmful in ["phone_home(", "spawn_rm(", "wipe("] {
        assert!(
            !run.stdout.contains(harmful),
            "a test calling `{harmful}..)` was emitted:\n{}",
            run.describe()
        );
    }
    assert_eq!(run.count("tests_dropped_unstable"), 0, "{}", run.describe());
    // Starting `rm` is refused in the process that tries (it gets an error), so nothing
    // crashes.
    let findings = &run.report.as_ref().expect("a report")["findings"];
    assert_eq!(
        findings.as_array().map(Vec::len),
        Some(0),
        "{}",
        run.describe()
    );
}

#[test]
fn output_the_code_writes_to_fd_1_and_2_is_checked_where_it_holds_without_capture_too() {
    let fixture = Fixture::copy("console");
    let run = fixture.generate().seed(1).max_executions(2_000).run();
    run.assert_success();
    let tests = &fixture.generated_files()["src/hermetic_tests.rs"];
    // What `greet` wrote through fd 1 and 2 itself is checked.
    assert!(
        tests.contains("assert_eq!(env.stdout_string(), \"hello, "),
        "{tests}"
    );
    assert!(
        tests.contains("assert_eq!(env.stderr_string(), \"greet: no name given\\n\");"),
        "{tests}"
    );
    // `println!` goes to libtest under `cargo test`: `announce`'s output is never checked.
    assert!(tests.contains("announce("), "{tests}");
    assert!(!tests.contains("count: "), "{tests}");
    // `banner` prints through both: a check on fd 1 would fail without libtest's capture, so
    // verification dropped the tests that had one.
    assert!(!tests.contains("== "), "{tests}");
    let dropped = run.report()["dropped"].as_array().unwrap();
    assert!(
        !dropped.is_empty()
            && dropped
                .iter()
                .all(|d| d["test"].as_str().unwrap().starts_with("banner")
                    && d["reason"]
                        .as_str()
                        .unwrap()
                        .contains("only under libtest's capture")),
        "the banner tests were not dropped for their capture-bound checks:\n{}",
        run.describe()
    );
    check_generated_files(&fixture, &run);
    // The tests pass with and without libtest's capture.
    for args in [&[][..], &["--", "--nocapture"][..]] {
        let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
        cmd.arg("test")
            .arg("--manifest-path")
            .arg(fixture.manifest())
            .args(args)
            .env("CARGO_TARGET_DIR", cargo_test_target_dir());
        let out = run_with_timeout(cmd, CARGO_TEST_TIMEOUT);
        assert!(
            out.status.success(),
            "cargo test {args:?} failed:\n{}\n{}\n{tests}",
            out.stdout,
            out.stderr
        );
    }
    fixture.assert_generated_tests_are_lint_clean();
}

#[test]
fn verification_drops_tests_that_lean_on_the_real_machine() {
    // In the real environment the search sees this machine's TZ and HOME; verification runs
    // the tests again under another time zone and HOME, where those tests fail.
    let fixture = Fixture::copy("machine");
    let real = fixture
        .generate()
        .arg("--env")
        .arg("real")
        .seed(1)
        .max_executions(300)
        .arg("--dry-run")
        .run();
    real.assert_success();
    assert!(
        !real.stdout.contains("time_zone()") && !real.stdout.contains("has_home()"),
        "a test leaning on the real TZ or HOME was kept:\n{}",
        real.describe()
    );
    let dropped = real.report()["dropped"].as_array().unwrap();
    assert!(
        dropped.len() >= 2
            && dropped.iter().all(|d| d["reason"]
                .as_str()
                .unwrap()
                .starts_with("leans on the real machine")),
        "{}",
        real.describe()
    );
    // In the virtual environment the same functions get tests that hold anywhere.
    let virtual_env = fixture.generate().seed(1).max_executions(300).run();
    virtual_env.assert_success();
    let tests = &fixture.generated_files()["src/hermetic_tests.rs"];
    assert!(
        tests.contains("time_zone()") && tests.contains("has_home()"),
        "{tests}"
    );
    check_generated_files(&fixture, &virtual_env);
    fixture.cargo_test_passes();
}
