//! Code that panics, aborts, overflows its stack or never returns: generation still succeeds,
//! the bad calls are reported as findings (never emitted as tests), an explicit panic becomes a
//! `#[should_panic]` test, and `cargo test` passes on the result.

mod common;

use common::{check_generated_files, Fixture};

#[test]
fn misbehaving_calls_are_reported_and_panics_become_should_panic_tests() {
    let fixture = Fixture::copy("misbehave");
    let run = fixture
        .generate()
        .seed(1)
        .max_executions(3_000)
        .arg("--timeout-ms")
        .arg("300")
        .run();
    run.assert_success();
    check_generated_files(&fixture, &run);

    let findings = run.findings();
    for (call, outcome_words) in [
        ("abort_if", &["abort"][..]),
        ("recurse", &["stack"][..]),
        ("spin", &["not return", "timed out", "hang"][..]),
    ] {
        let outcomes: Vec<&String> = findings
            .iter()
            .filter(|(c, _)| c == call || c.ends_with(&format!("::{call}")))
            .map(|(_, o)| o)
            .collect();
        assert!(
            outcomes
                .iter()
                .any(|o| outcome_words.iter().any(|w| o.contains(w))),
            "misbehave: no finding for `{call}` saying {outcome_words:?} (its findings: {outcomes:?}):\n{}",
            run.describe()
        );
    }

    let file = fixture.read("src/hermetic_tests.rs");
    assert!(
        file.contains("#[should_panic(expected = \"division by zero\")]"),
        "misbehave: `divide`'s panic is not a should_panic test:\n{file}\n{}",
        run.describe()
    );
    // The calls that take the process down are findings, never tests.
    for bad in ["abort_if(true)", "spin(7)"] {
        assert!(
            !file.contains(bad),
            "misbehave: a test calls `{bad}`, which takes the test process down:\n{file}"
        );
    }

    fixture.cargo_test_passes();
}
