//! `--isolate` (seed 000) on the `isolated` fixture: a money transfer over a concrete database
//! and payment processor (Listing 1), a forecast through an HTTP-like client of another module,
//! and a greeting read through another crate. With isolation the search fakes what those
//! calls return and reaches every branch of the transfer; the tests pass under plain
//! `cargo test`; the crate built without `cfg(test)` is exactly the code as written; a callee
//! whose signature changes or that is called more often than a test set up makes the tests
//! fail to compile or fail with the regenerate message; `--isolate=off` takes the attribute out
//! again when no test needs it.

mod common;

use common::{cargo_test_target_dir, check_generated_files, run_with_timeout, Fixture};
use std::process::Command;

#[test]
fn isolation_reaches_every_outcome_and_fails_loudly_when_a_callee_changes() {
    let fixture = Fixture::copy("isolated");
    let original_bank = fixture.read("src/bank.rs");

    // Without isolation the search cannot get past the database.
    let plain = fixture
        .generate()
        .seed(1)
        .max_executions(600)
        .args(["--module", "bank", "--no-verify", "--dry-run"])
        .run();
    plain.assert_success();
    assert!(
        plain.count("goals_covered") < plain.count("goals_total"),
        "{}",
        plain.describe()
    );

    // The greeting's settings are isolated already, by a user who allows only `Some` from them.
    let greeting = fixture.read("src/greeting.rs");
    fixture.write(
        "src/greeting.rs",
        &greeting.replace(
            "pub fn greet(",
            "#[cfg_attr(test, hermetic::isolate(only(settings::load), returns(settings::load, Some(_))))]\npub fn greet(",
        ),
    );
    let before = expanded(&fixture);

    // `--env virtual`: files come only from fakes, so the greeting needs its other crate faked.
    let run = fixture
        .generate()
        .seed(1)
        .max_executions(5000)
        .args(["--isolate", "--env", "virtual", "--isolate-start", "0"])
        .run();
    run.assert_success();
    check_generated_files(&fixture, &run);
    let uncovered = run.uncovered_functions();
    assert!(
        !uncovered.iter().any(|f| f == "bank::transfer_money"),
        "not every branch of transfer_money is covered:\n{}",
        run.describe()
    );
    let files = fixture.generated_files();
    let bank = &files["src/bank/hermetic_tests.rs"];
    for name in [
        "transfer_money_fails_with_invalid_amount",
        "transfer_money_fails_with_database",
        "transfer_money_fails_with_not_enough_balance",
        "transfer_money_returns_ok_false",
        "transfer_money_returns_ok_true",
    ] {
        assert!(bank.contains(&format!("fn {name}")), "no {name}:\n{bank}");
    }
    // The set-up writes out each callee's parameter types (the receiver first).
    assert!(
        squashed(bank).contains("&str,&str),_>(crate::db::Database::run_query,[Ok("),
        "{bank}"
    );
    assert!(
        bank.contains("crate::processor::TransferProcessor::process"),
        "{bank}"
    );
    assert!(
        squashed(&files["src/weather/hermetic_tests.rs"])
            .contains("_>(crate::http::Client::get,[Ok("),
        "{}",
        files["src/weather/hermetic_tests.rs"]
    );
    let greetings = &files["src/greeting/hermetic_tests.rs"];
    assert!(
        squashed(greetings).contains("_>(settings::load,[Some("),
        "{greetings}"
    );
    // The restriction holds: no fake of the settings returns `None`, and it stays in place.
    assert!(
        !squashed(greetings).contains("(settings::load,[None"),
        "{greetings}"
    );
    assert!(
        fixture
            .read("src/greeting.rs")
            .contains("#[cfg_attr(test, hermetic::isolate(only(settings::load), returns(settings::load, Some(_))))]"),
        "{}",
        fixture.read("src/greeting.rs")
    );
    // Fakes are counted, and reviewed where the real callee never returned their values.
    let with_fakes = run.count("tests_using_fakes");
    assert!(with_fakes >= 3, "{}", run.describe());
    assert!(
        with_fakes <= run.count("goals_needing_fakes"),
        "{}",
        run.describe()
    );
    let isolation = &run.report()["isolation"];
    assert!(
        !isolation["unseen"].as_array().unwrap().is_empty(),
        "{}",
        run.describe()
    );
    // The isolated units' own branches are counted apart from their callees' code.
    let unit_branches: Vec<u64> = isolation["unit_branches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect();
    assert!(
        unit_branches[1] > 0
            && unit_branches[0] <= unit_branches[1]
            && unit_branches[1] < run.count("goals_total"),
        "{unit_branches:?}\n{}",
        run.describe()
    );
    // The transformation is a small part of the run.
    let transform = isolation["transform_s"].as_f64().unwrap();
    let elapsed = run.report()["elapsed_s"].as_f64().unwrap();
    assert!(transform < 0.1 * elapsed, "{transform} s of {elapsed} s");

    // The attribute went in once, where the unit calls out.
    let bank_src = fixture.read("src/bank.rs");
    assert_eq!(
        bank_src.matches("hermetic::isolate").count(),
        1,
        "{bank_src}"
    );
    assert!(
        bank_src.contains("#[cfg_attr(\n    test,\n    hermetic::isolate(only(\n        crate::db::Database::run_query,"),
        "{bank_src}"
    );
    assert_eq!(
        fixture
            .read("src/db.rs")
            .matches("hermetic::isolate")
            .count(),
        0
    );
    // Built without `cfg(test)`, the crate is the code as written.
    assert_eq!(expanded(&fixture), before, "the non-test build changed");
    let passed = fixture.cargo_test_passes();
    assert_eq!(passed as u64, run.count("tests_emitted"));

    // A callee's return type changes: its tests' fake values no longer compile.
    let db = fixture.read("src/db.rs");
    fixture.write(
        "src/db.rs",
        &db.replace(
            "user: &str) -> Result<i64, DbError> {",
            "user: &str) -> Result<Option<i64>, DbError> {",
        )
        .replace(
            "reply.trim().parse().map_err(|_| DbError::BadReply)",
            "Ok(reply.trim().parse().ok())",
        ),
    );
    fixture.write(
        "src/bank.rs",
        &bank_src.replace(
            ".map_err(TransferError::Database)?;",
            ".map_err(TransferError::Database)?.unwrap_or(0);",
        ),
    );
    let out = fixture.cargo_test();
    assert!(!out.0, "tests passed after run_query's return type changed");
    // The values no longer have the callee's return type (E0271: `Fakes::returns` ties them
    // to it).
    assert!(
        out.1.contains("E0271") || out.1.contains("E0308"),
        "not a type error:\n{}",
        out.1
    );
    fixture.write("src/db.rs", &db);

    // A callee renamed: the tests that fake it do not compile.
    let processor = fixture.read("src/processor.rs");
    fixture.write(
        "src/processor.rs",
        &processor.replace("pub fn process(", "pub fn execute("),
    );
    fixture.write(
        "src/bank.rs",
        &bank_src
            .replace("processor.process(", "processor.execute(")
            .replace("TransferProcessor::process", "TransferProcessor::execute"),
    );
    let out = fixture.cargo_test();
    assert!(!out.0, "tests passed after process was renamed");
    assert!(
        out.1.contains("E0599"),
        "not an unknown-item error:\n{}",
        out.1
    );
    fixture.write("src/processor.rs", &processor);

    // A callee's parameters change, its return type stays: the tests that fake it do not
    // compile, whether a parameter is added (`run_query`) or changes type (`process`).
    fixture.write(
        "src/db.rs",
        &db.replace(
            "user: &str) -> Result<i64, DbError> {",
            "user: &str, limit: u32) -> Result<i64, DbError> {",
        )
        .replace(
            "writeln!(stream, \"{query} {user}\")",
            "writeln!(stream, \"{query} {user} {limit}\")",
        ),
    );
    fixture.write(
        "src/bank.rs",
        &bank_src.replace(
            ".run_query(\"GetBalance\", user)",
            ".run_query(\"GetBalance\", user, 1)",
        ),
    );
    assert_fails_to_compile(&fixture, "run_query took one more parameter");
    fixture.write("src/db.rs", &db);
    fixture.write(
        "src/processor.rs",
        &processor.replace(
            "amount: i64, destination: &str)",
            "amount: u64, destination: &str)",
        ),
    );
    fixture.write(
        "src/bank.rs",
        &bank_src.replace(
            "processor.process(amount, destination)",
            "processor.process(amount as u64, destination)",
        ),
    );
    assert_fails_to_compile(&fixture, "process's amount became a u64");
    fixture.write("src/processor.rs", &processor);

    // The code calls a faked callee once more than its test set up: the test says to
    // regenerate it.
    fixture.write(
        "src/bank.rs",
        &bank_src.replace(
            "    if balance < amount {",
            "    let _audit = db.run_query(\"Audit\", user);\n    if balance < amount {",
        ),
    );
    let out = fixture.cargo_test();
    assert!(
        !out.0,
        "tests passed although the code asks a fake for one more value"
    );
    assert!(
        out.1
            .contains("regenerate it with `cargo hermetic generate --isolate`"),
        "no regenerate message:\n{}",
        out.1
    );
    fixture.write("src/bank.rs", &bank_src);

    // `--isolate=off`: the new tests fake nothing, so the attribute goes.
    let off = fixture
        .generate()
        .seed(1)
        .max_executions(300)
        .args(["--module", "bank", "--isolate=off", "--no-verify"])
        .run();
    off.assert_success();
    assert_eq!(
        fixture.read("src/bank.rs"),
        format!("{original_bank}\n#[cfg(test)]\nmod hermetic_tests;\n")
    );
}

/// `text` without whitespace: what the set-up says, however rustfmt broke its lines.
fn squashed(text: &str) -> String {
    text.chars().filter(|c| !c.is_whitespace()).collect()
}

/// `cargo test` fails because the tests do not compile (after `what`), not on made-up values.
fn assert_fails_to_compile(fixture: &Fixture, what: &str) {
    let (passed, output) = fixture.cargo_test();
    assert!(!passed, "tests passed after {what}");
    assert!(
        output.contains("error[E") && !output.contains("test result:"),
        "not a compile error after {what}:\n{output}"
    );
}

/// The crate's library as rustc sees it after expansion, without `cfg(test)`.
fn expanded(fixture: &Fixture) -> String {
    let mut cmd = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cmd.args(["rustc", "--lib", "--quiet", "--manifest-path"])
        .arg(fixture.manifest())
        .args(["--", "-Zunpretty=expanded"])
        .env("RUSTC_BOOTSTRAP", "1")
        .env("CARGO_TARGET_DIR", cargo_test_target_dir());
    let out = run_with_timeout(cmd, common::CARGO_TEST_TIMEOUT);
    assert!(out.status.success(), "{}\n{}", out.stdout, out.stderr);
    out.stdout
}
