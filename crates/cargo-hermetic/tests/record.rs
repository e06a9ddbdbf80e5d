//! `cargo hermetic record` end to end: a real run of a fixture's program becomes unit tests that
//! replay what each call read, and they pass with the input file deleted, the variable changed
//! and the real clock elsewhere; a program that reads commands from piped stdin and draws random
//! bytes gets tests that replay each call's line and bytes, beside generate's tests; a program
//! that panics or aborts still yields tests for the calls that completed; trait-typed arguments
//! are recorded through proxies and replayed as mocks, which fail the tests when the code asks
//! them for more or less.

mod common;

use common::{
    cargo_test_target_dir, hermetic_target_dir, run_with_input, run_with_timeout, Fixture, Run,
    CARGO_TEST_TIMEOUT, RUN_TIMEOUT,
};
use serde_json::Value;
use std::path::Path;
use std::process::Command;
use std::time::Instant;

/// Runs `cargo-hermetic hermetic record --manifest-path <copy> --quiet --report-json <tmp>
/// <options> -- <program args>` in `cwd` with `envs` added.
fn record(fixture: &Fixture, cwd: &Path, envs: &[(&str, &str)], program_args: &[&str]) -> Run {
    record_with(fixture, cwd, envs, &[], program_args)
}

fn record_with(
    fixture: &Fixture,
    cwd: &Path,
    envs: &[(&str, &str)],
    options: &[&str],
    program_args: &[&str],
) -> Run {
    record_with_input(fixture, cwd, envs, options, program_args, None)
}

/// [`record_with`], with `input` piped to the program's stdin.
fn record_with_input(
    fixture: &Fixture,
    cwd: &Path,
    envs: &[(&str, &str)],
    options: &[&str],
    program_args: &[&str],
    input: Option<&str>,
) -> Run {
    let report = fixture.tmp.path().join("record-report.json");
    let _ = std::fs::remove_file(&report);
    let mut cmd = Command::new(common::BIN);
    cmd.args(["hermetic", "record", "--manifest-path"])
        .arg(fixture.manifest())
        .arg("--quiet")
        .arg("--report-json")
        .arg(&report)
        .args(options)
        .arg("--")
        .args(program_args)
        .env("CARGO_HERMETIC_TARGET_DIR", hermetic_target_dir())
        .env("HERMETIC_CACHE_DIR", common::hermetic_cache_dir())
        .current_dir(cwd);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    let started = Instant::now();
    let out = run_with_input(cmd, input, RUN_TIMEOUT);
    let run = Run {
        command: format!(
            "cargo-hermetic hermetic record -- {}",
            program_args.join(" ")
        ),
        status: out.status,
        stdout: out.stdout,
        stderr: out.stderr,
        report: std::fs::read_to_string(&report)
            .ok()
            .map(|s| serde_json::from_str::<Value>(&s).expect("the JSON report parses")),
        elapsed: started.elapsed(),
    };
    eprintln!(
        "[e2e] {} ({}): {} in {:.1}s",
        fixture.name,
        run.command,
        run.status,
        run.elapsed.as_secs_f64()
    );
    common::assert_originals_untouched();
    run
}

/// `cargo test` on the copy, in `cwd`, with `envs`.
fn cargo_test_run(fixture: &Fixture, cwd: &Path, envs: &[(&str, &str)]) -> common::Output {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.arg("test")
        .arg("--manifest-path")
        .arg(fixture.manifest())
        .env("CARGO_TARGET_DIR", cargo_test_target_dir())
        .current_dir(cwd);
    for (k, v) in envs {
        cmd.env(k, v);
    }
    run_with_timeout(cmd, CARGO_TEST_TIMEOUT)
}

/// `cargo test` on the copy, in `cwd`, with `envs`, and clippy on the recorded tests; returns
/// the number of passing tests.
fn cargo_test_in(fixture: &Fixture, cwd: &Path, envs: &[(&str, &str)]) -> usize {
    let out = cargo_test_run(fixture, cwd, envs);
    assert!(
        out.status.success(),
        "`cargo test` on the recorded tests failed:\n{}\n{}\n{}",
        out.stdout,
        out.stderr,
        fixture.dump_generated()
    );
    fixture.assert_generated_tests_are_lint_clean();
    common::passed_tests(&out.stdout)
}

fn percent(run: &Run) -> f64 {
    run.report()["calls_tested_percent"].as_f64().unwrap()
}

#[test]
fn a_recorded_run_of_the_inventory_becomes_tests_that_replay_it() {
    let fixture = Fixture::copy("inventory");
    let data = fixture.tmp.path().join("data");
    std::fs::create_dir_all(&data).unwrap();
    let csv = data.join("stock.csv");
    std::fs::write(&csv, "name,qty\nbolts,3\nnuts,12\nwashers,0\n").unwrap();
    let run = record(
        &fixture,
        &data,
        &[
            ("INVENTORY_THRESHOLD", "4"),
            ("INVENTORY_OUT", "report.txt"),
        ],
        &["stock.csv"],
    );
    run.assert_success();
    // The program ran for real, in the given directory and environment.
    assert!(run.stdout.contains("LOW bolts (3)"), "{}", run.describe());
    let saved = std::fs::read_to_string(data.join("report.txt")).unwrap();
    assert!(saved.contains("threshold 4"), "{saved}");

    assert_eq!(run.count("functions_probed"), 7, "{}", run.describe());
    assert_eq!(run.count("calls_traced"), 9, "{}", run.describe());
    assert!(percent(&run) >= 95.0, "{}", run.describe());
    let emitted = run.count("tests_emitted") as usize;
    let files = fixture.recorded_files();
    let all: String = files.values().cloned().collect();
    for f in [
        "parse_line",
        "load",
        "threshold",
        "low_stock",
        "timestamp",
        "report",
        "save_report",
    ] {
        assert!(
            all.contains(&format!("fn {f}_")),
            "no test for `{f}`:\n{all}"
        );
    }
    assert!(all.contains(".file(\"stock.csv\""), "{all}");
    assert!(
        all.contains(".var(\"INVENTORY_THRESHOLD\", \"4\")"),
        "{all}"
    );
    assert!(all.contains(".now("), "{all}");
    assert!(all.contains("env.file_string(\"report.txt\")"), "{all}");

    // The world changes: the file is gone, the variable differs, the clock has moved on.
    std::fs::remove_file(&csv).unwrap();
    std::fs::remove_file(data.join("report.txt")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let passed = cargo_test_in(&fixture, &data, &[("INVENTORY_THRESHOLD", "2")]);
    // The recorded tests, plus the fixture's own integration test (tests/report.rs).
    assert_eq!(passed, emitted + 1, "{}", fixture.dump_generated());
    assert!(
        !data.join("report.txt").exists(),
        "a test wrote to the real disk"
    );
}

/// The commands the `tally` program reads, one a line.
const COMMANDS: &str =
    "add bolts 3\nadd nuts 12\nroll 6\nticket\nlucky\nadd bolts 2\nreport\nlucky\nfly away\n";

/// Where rustup and cargo keep the toolchain, for runs with another `HOME`.
fn toolchain_homes() -> Vec<(&'static str, String)> {
    let home = std::env::var("HOME").unwrap_or_default();
    [("RUSTUP_HOME", ".rustup"), ("CARGO_HOME", ".cargo")]
        .into_iter()
        .map(|(var, dir)| {
            (
                var,
                std::env::var(var).unwrap_or_else(|_| format!("{home}/{dir}")),
            )
        })
        .collect()
}

#[test]
fn commands_from_stdin_and_random_draws_replay_beside_generated_tests() {
    let fixture = Fixture::copy("tally");
    // generate first: record's tests go beside its tests and leave them as they are.
    let generated = fixture
        .generate()
        .arg("--function")
        .arg("parse")
        .max_executions(300)
        .seed(1)
        .run();
    generated.assert_success();
    let generated_emitted = generated.count("tests_emitted") as usize;
    let generated_before = fixture.generated_files();
    assert!(generated_emitted > 0, "{}", generated.describe());

    let home = fixture.tmp.path().join("home");
    let cwd = fixture.tmp.path().join("work");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    std::fs::write(home.join(".tallyrc"), "title = Depot 7\n").unwrap();
    let homes = toolchain_homes();
    let mut envs: Vec<(&str, &str)> = homes.iter().map(|(k, v)| (*k, v.as_str())).collect();
    envs.push(("HOME", home.to_str().unwrap()));
    let run = record_with_input(&fixture, &cwd, &envs, &[], &[], Some(COMMANDS));
    run.assert_success();
    let rolled = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("rolled "))
        .unwrap_or_else(|| panic!("{}", run.describe()));
    let ticket = run
        .stdout
        .lines()
        .find_map(|l| l.strip_prefix("ticket "))
        .unwrap_or_else(|| panic!("{}", run.describe()));

    // Every call is traced and shown by a passing test: each way `next_command` and `parse`
    // ended (one per command) has its own test, and nothing fails verification.
    assert_eq!(run.count("calls_traced"), 30, "{}", run.describe());
    assert_eq!(run.count("calls_tested"), 30, "{}", run.describe());
    assert_eq!(
        run.report()["calls_skipped"].as_array().map(Vec::len),
        Some(0),
        "{}",
        run.describe()
    );

    let recorded = fixture.recorded_files();
    let tests = &recorded["src/hermetic_recorded.rs"];
    assert!(tests.starts_with("// @generated by cargo-hermetic — `cargo hermetic record"));
    // Each call that read a line replays its own line.
    for line in ["add bolts 3", "roll 6", "ticket", "lucky"] {
        assert!(tests.contains(&format!(".stdin(\"{line}\\n\")")), "{tests}");
    }
    // The random draws: getrandom (roll), /dev/urandom (ticket), and std's hash keys of the
    // first map (lucky → totals); the tests assert what the run printed.
    assert!(tests.contains(".random_bytes(b\"\\x"), "{tests}");
    assert!(tests.contains(".hash_keys(0x"), "{tests}");
    assert!(tests.contains(&format!("roll(6), {rolled})")), "{tests}");
    assert!(
        tests.contains(&format!("ticket(), \"{ticket}\")")),
        "{tests}"
    );
    assert!(tests.contains(".var(\"HOME\""), "{tests}");

    // generate's file is as it was, and each file is declared once.
    assert_eq!(fixture.generated_files(), generated_before);
    let lib = fixture.read("src/lib.rs");
    assert_eq!(lib.matches("mod hermetic_tests;").count(), 1, "{lib}");
    assert_eq!(lib.matches("mod hermetic_recorded;").count(), 1, "{lib}");

    // The world changes: no input, the rc file gone, another HOME and cwd, a later clock.
    std::fs::remove_dir_all(&home).unwrap();
    let elsewhere = fixture.tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1100));
    let mut envs: Vec<(&str, &str)> = homes.iter().map(|(k, v)| (*k, v.as_str())).collect();
    envs.push(("HOME", elsewhere.to_str().unwrap()));
    let passed = cargo_test_in(&fixture, &elsewhere, &envs);
    let recorded_emitted = run.count("tests_emitted") as usize;
    assert_eq!(
        passed,
        recorded_emitted + generated_emitted,
        "{}",
        fixture.dump_generated()
    );
}

#[test]
fn the_crates_own_test_suite_becomes_unit_tests_with_dash_dash_test() {
    let fixture = Fixture::copy("inventory");
    let cwd = fixture.tmp.path().to_path_buf();
    // The integration test (tests/report.rs) writes a file under the real temp dir and reads it.
    let run = record_with(&fixture, &cwd, &[], &["--test"], &[]);
    run.assert_success();
    assert_eq!(run.count("calls_traced"), 7, "{}", run.describe());
    assert!(percent(&run) >= 95.0, "{}", run.describe());
    let all: String = fixture.recorded_files().values().cloned().collect();
    assert!(all.contains("/stock.csv\""), "{all}");
    let emitted = run.count("tests_emitted") as usize;
    // The recorded unit tests plus the integration test.
    assert_eq!(cargo_test_in(&fixture, &cwd, &[]), emitted + 1);
}

#[test]
fn a_program_that_panics_or_aborts_still_yields_tests_for_completed_calls() {
    let fixture = Fixture::copy("crashy");
    let cwd = fixture.tmp.path().to_path_buf();
    let run = record(&fixture, &cwd, &[], &[]);
    run.assert_success();
    let report = run.report();
    assert_eq!(
        report["program_status"],
        "exit code 101",
        "{}",
        run.describe()
    );
    // `Lines::put`, a method of a trait impl, is probed too (called through `log_to`'s proxy).
    assert_eq!(run.count("calls_traced"), 10, "{}", run.describe());
    // `call_hook` takes a value that cannot have Debug even derived (a closure): skipped and
    // counted, with the reason. It is the only one: `log_to` takes a trait object, recorded
    // through a proxy, and `describe` a `Handle`, which has no Debug but gets one derived in
    // the probed copy.
    let skipped = report["calls_skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 1, "{}", run.describe());
    assert!(
        skipped.iter().any(|s| s["function"] == "call_hook"
            && s["reason"].as_str().unwrap().contains("no Debug")
            && s["calls"] == 1),
        "{}",
        run.describe()
    );
    assert_eq!(run.count("calls_tested"), 9, "{}", run.describe());
    let all: String = fixture.recorded_files().values().cloned().collect();
    assert!(
        squash(&all).contains("lethandle=Handle{id:7};assert_eq!(describe(&handle),\"handle#7\");"),
        "{all}"
    );
    assert!(
        all.contains("#[should_panic(expected = \"level 5 is too high\")]"),
        "{all}"
    );
    assert!(
        !all.contains("hermetic::Env"),
        "the panic hook's reads leaked into a test:\n{all}"
    );
    // The sink's one method returns nothing: its mock needs no values.
    assert!(
        all.contains("let mut sink = MockSink::recorded();")
            && all.contains("log_to(&mut sink, \"started\")"),
        "{all}"
    );
    let emitted = run.count("tests_emitted") as usize;
    assert_eq!(cargo_test_in(&fixture, &cwd, &[]), emitted);

    // Killed by a signal: no counts at exit, the calls that returned are still there.
    let run = record(&fixture, &cwd, &[], &["abort"]);
    run.assert_success();
    assert_eq!(
        run.report()["program_status"],
        "killed by signal 6",
        "{}",
        run.describe()
    );
    assert_eq!(run.count("calls_traced"), 9, "{}", run.describe());
    assert_eq!(run.count("calls_tested"), 8, "{}", run.describe());
}

/// The text without white space or trailing commas, to find code however it is laid out.
fn squash(text: &str) -> String {
    let s: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    s.replace(",)", ")").replace(",]", "]")
}

#[test]
fn trait_typed_arguments_are_recorded_through_proxies_and_replayed_as_mocks() {
    let fixture = Fixture::copy("people");
    let cwd = fixture.tmp.path().to_path_buf();
    let data = cwd.join("data");
    std::fs::create_dir_all(data.join("notes")).unwrap();
    std::fs::write(
        data.join("people.csv"),
        "name,occupation\nada,engineer\ngrace,engineer\nalan,mathematician\n",
    )
    .unwrap();
    std::fs::write(data.join("notes/ada"), "counts on engines").unwrap();
    std::fs::write(data.join("notes/visits-ada"), "2").unwrap();
    let run = record(&fixture, &cwd, &[], &["data", "ada", "zed"]);
    run.assert_success();
    // The program ran for real: the file-backed store counted the visits.
    assert!(run.stdout.contains("visit 3"), "{}", run.describe());
    assert_eq!(
        std::fs::read_to_string(data.join("notes/visits-ada")).unwrap(),
        "3"
    );

    // Every call became a test, those of `MemoryStore`'s trait impl methods included.
    assert_eq!(run.count("functions_probed"), 8, "{}", run.describe());
    assert_eq!(run.count("calls_traced"), 16, "{}", run.describe());
    assert_eq!(run.count("calls_tested"), 16, "{}", run.describe());
    let files = fixture.recorded_files();
    let db = squash(&files["src/db/hermetic_recorded.rs"]);
    let store = squash(&files["src/store/hermetic_recorded.rs"]);
    // A tree of mocks (connection → statement → rows) set up with the recorded values, by
    // the arguments each method was called with (seed 002's access events).
    for expected in [
        "letrows=MockRows::recorded().next_returns([true]).get_returns_for(1,[\"ada\".to_string()]).get_returns_for(2,[\"engineer\".to_string()]);",
        "letstatement=MockStatement::recorded().query_returns([Box::new(rows)]);",
        "letconnection=MockConnection::recorded().prepare_returns_for(\"SELECTname,occupationFROMpeopleWHEREname=?\",[Box::new(statement)]);",
        "person_details(&connection,\"ada\")",
        "MockRows::recorded().next_returns([true,true,false]);",
        "count_with(Box::new(connection),\"engineer\")",
        // Owned `String`, a crate type by reference and `&[u8]` arguments.
        "MockJournal::recorded().note_returns_for(\"main\".to_string(),&person,b\"ada\",[1]);",
    ] {
        assert!(db.contains(expected), "no {expected}:\n{}", files["src/db/hermetic_recorded.rs"]);
    }
    for expected in [
        "MockStore::recorded().get_returns_for(\"visits-ada\",[Some(\"2\".to_string())]).put_returns_for(\"visits-ada\",\"3\",[Ok(())]);",
        "visit(&mutstore,\"ada\"),Ok(3)",
        "greeting(&store,\"zed\")",
        "notes_of::<MockStore>(store,&[\"ada\".to_string(),\"bob\".to_string()])",
        "memory_store.put(\"ada\",\"writesprogramsforengines\"),Ok(())",
    ] {
        assert!(
            store.contains(expected),
            "no {expected}:\n{}",
            files["src/store/hermetic_recorded.rs"]
        );
    }
    // What the real store and database read is theirs: no test replays their files.
    assert!(!db.contains("hermetic::Env") && !store.contains("hermetic::Env"));

    // The mocks stand in for the files, which are gone.
    std::fs::remove_dir_all(&data).unwrap();
    let emitted = run.count("tests_emitted") as usize;
    assert_eq!(emitted, 15, "{}", run.describe());
    assert_eq!(cargo_test_in(&fixture, &cwd, &[]), emitted);
    assert!(!data.exists(), "a test wrote to the real disk");

    // The code asks its dependencies for more (greeting reads the note twice), for less (visit
    // no longer stores the count) and for something else (another column): the recorded mocks
    // fail those tests.
    let lib = fixture.read("src/store.rs");
    let changed = lib
        .replace(
            "    match store.get(name) {",
            "    let _ = store.get(name);\n    match store.get(name) {",
        )
        .replace("    store.put(&key, &n.to_string())?;\n", "");
    assert_ne!(changed, lib);
    fixture.write("src/store.rs", &changed);
    let db = fixture.read("src/db.rs");
    let changed = db.replace("occupation: rows.get(2),", "occupation: rows.get(3),");
    assert_ne!(changed, db);
    fixture.write("src/db.rs", &changed);
    let out = cargo_test_run(&fixture, &cwd, &[]);
    assert!(!out.status.success(), "{}", out.stdout);
    for message in [
        "`Store::get(\"zed\")` was called more often than this test set up. The code under test \
         has changed since the test was recorded: regenerate it with `cargo hermetic record`.",
        "`Store::put(\"visits-ada\", \"3\")` was called 0 time(s), 1 in the recorded run.",
        "`Rows::get(3)` was called, but the recorded run only called `Rows::get(1)`, \
         `Rows::get(2)`. The code under test has changed since the test was recorded: \
         regenerate it with `cargo hermetic record`.",
    ] {
        assert!(
            out.stdout.contains(message),
            "no {message}:\n{}",
            out.stdout
        );
    }
    for failed in [
        "greeting_returns_hello_zed",
        "visit_returns_ok_1",
        "person_details_returns_ok",
    ] {
        assert!(
            out.stdout.contains(&format!("{failed} ... FAILED")),
            "{}",
            out.stdout
        );
    }
}

#[test]
fn user_mistakes_get_clear_errors_and_change_nothing() {
    // A package without a binary: record its tests instead.
    let fixture = Fixture::copy("triangle");
    let before = fixture.snapshot();
    let cwd = fixture.tmp.path().to_path_buf();
    let run = record(&fixture, &cwd, &[], &[]);
    run.assert_failure();
    assert!(
        run.stderr.contains("has no binary target") && run.stderr.contains("--test"),
        "{}",
        run.describe()
    );
    common::assert_same_tree(&before, &fixture.snapshot(), "record without a binary");

    // A function that does not exist.
    let fixture = Fixture::copy("inventory");
    let cwd = fixture.tmp.path().to_path_buf();
    let run = record_with(&fixture, &cwd, &[], &["--function", "nope"], &["x.csv"]);
    run.assert_failure();
    assert!(
        run.stderr.contains("no function or method `nope`"),
        "{}",
        run.describe()
    );
    assert!(fixture.recorded_files().is_empty());
}

#[test]
fn values_with_a_hand_written_debug_are_rebuilt_from_their_display_text() {
    let fixture = Fixture::copy("versions");
    let cwd = fixture.tmp.path().to_path_buf();
    let run = record(
        &fixture,
        &cwd,
        &[],
        &["0.9.1", "1.2.3", "0.9.1", "0.1.0", "x.1.2", "1.2"],
    );
    run.assert_success();
    // Every call became a test: `Version` (a hand-written Debug) by its Display text, `Part`
    // (no Debug) by its literal, `Ordering` results and arguments by their variant.
    assert_eq!(run.count("calls_traced"), 18, "{}", run.describe());
    assert_eq!(run.count("calls_tested"), 18, "{}", run.describe());
    let text = &fixture.recorded_files()["src/hermetic_recorded.rs"];
    let flat = squash(text);
    for expected in [
        // Receivers, arguments and results, the `Ok` of a result included.
        "letversion=\"0.9.1\".parse::<Version>().unwrap();letpart=Part::Major;assert_eq!(version.bump(part),\"1.0.0\".parse::<Version>().unwrap());",
        "assert_eq!(parse_version(\"1.2.3\"),Ok(\"1.2.3\".parse::<Version>().unwrap()));",
        "letversion_2=\"1.2.3\".parse::<Version>().unwrap();assert_eq!(compare(&version,&version_2),std::cmp::Ordering::Less);",
        "assert_eq!(verdict(std::cmp::Ordering::Equal),\"uptodate\");",
    ] {
        assert!(flat.contains(expected), "no {expected}:\n{text}");
    }
    let emitted = run.count("tests_emitted") as usize;
    assert_eq!(cargo_test_in(&fixture, &cwd, &[]), emitted);
}

#[test]
fn values_with_only_a_hand_written_debug_are_captured_field_by_field_and_unsafe_fns_called() {
    let fixture = Fixture::copy("checksum");
    let cwd = fixture.tmp.path().to_path_buf();
    let run = record(
        &fixture,
        &cwd,
        &[],
        &["seed=7,salt=3/4,plain", "abcd", "ef", "12345678"],
    );
    run.assert_success();
    // Every call but `Table::apply`'s became a test: `Hasher` and `Mode` (hand-written Debug,
    // no Display) by their literal, the `unsafe fn` inside `unsafe { .. }`.
    let skipped = run.report()["calls_skipped"].as_array().unwrap().clone();
    assert_eq!(skipped.len(), 1, "{}", run.describe());
    assert_eq!(skipped[0]["function"], "Table::apply");
    let reason = skipped[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("`Table` has a hand-written Debug and cannot be captured field by field: its field `step`"),
        "{reason}"
    );
    assert_eq!(
        run.count("calls_tested") + 1,
        run.count("calls_traced"),
        "{}",
        run.describe()
    );
    let text = &fixture.recorded_files()["src/hermetic_recorded.rs"];
    let flat = squash(text);
    for expected in [
        "letkernel=crate::kernel::Kernel{lanes};letmuthasher=Hasher{amount:0,state:0,kernel:Some(kernel),};hasher.update(b\"abcd\");",
        "assert_eq!(parse_mode(\"salt=3/4\"),Some(Mode::Salted(3,4)));",
        "assert_eq!(parse_mode(\"seed=7\"),Some(Mode::Seeded{seed:7}));",
        "letmode=Mode::Plain;",
        "#[allow(unsafe_code)]fnsum_words_returns_value",
        "//SAFETY:therecordedrunmadethisverycallwiththesearguments.assert_eq!(unsafe{sum_words(b\"abcd\")},1684234849);",
    ] {
        assert!(flat.contains(expected), "no {expected}:\n{text}");
    }
    let emitted = run.count("tests_emitted") as usize;
    assert_eq!(cargo_test_in(&fixture, &cwd, &[]), emitted);
}

#[test]
fn ranges_and_u128_values_past_i128_are_recorded_from_the_test_suite() {
    let fixture = Fixture::copy("ranges");
    let cwd = fixture.tmp.path().to_path_buf();
    let run = record_with(&fixture, &cwd, &[], &["--test"], &["--test-threads=1"]);
    run.assert_success();
    // Every call could become a test (ranges in every form, `impl RangeBounds` ones through
    // their bounds, generators whose `u128` state is past `i128::MAX`): the only calls without
    // one are those past the tests a function gets.
    let skipped = run.report()["calls_skipped"].as_array().unwrap().clone();
    assert!(
        skipped
            .iter()
            .all(|s| s["reason"] == "over the limit of tests per function"),
        "{}",
        run.describe()
    );
    let text = &fixture.recorded_files()["src/hermetic_recorded.rs"];
    let flat = squash(text);
    for expected in [
        "assert_eq!(clamp(5,7..),7);",
        "assert_eq!(clamp(9,..8),7);",
        "assert_eq!(clamp(25,10..=20),20);",
        "assert_eq!(letters('a'..='e'),5);",
        "assert_eq!(window(10,4),8..12);",
        "assert!(upper_half(340282366920938463463374607431768211455));",
        "assert_eq!(negate(-170141183460469231731687303715884105728),None);",
        "state:338770000845734292516042252062085074415",
        "letmutpcg=Pcg{state:143321262559587402669855873279506529247,inc:117397592171526113268558934119004209487,};let_=pcg.in_range(5..5);",
    ] {
        assert!(flat.contains(expected), "no {expected}:\n{text}");
    }
    let emitted = run.count("tests_emitted") as usize;
    // The recorded unit tests plus the five integration tests.
    assert_eq!(cargo_test_in(&fixture, &cwd, &[]), emitted + 5);
}
