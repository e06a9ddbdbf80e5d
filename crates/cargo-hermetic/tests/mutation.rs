//! End to end on mutation analysis (triangle fixture): mutants compiled into the driver, the
//! score and the alive mutants in the report, every written test asserting something, the tests
//! passing under `cargo test --release` too; on by default, `--mutation off` does without.

mod common;

use common::{cargo_test_target_dir, check_generated_files, Fixture};
use std::process::Command;

#[test]
fn tests_keep_the_assertions_that_kill_mutants_and_the_score_is_reported() {
    let fixture = Fixture::copy("triangle");
    // On by default.
    let run = fixture.generate().seed(1).max_executions(3_000).run();
    run.assert_success();
    let m = &run.report()["mutation"];
    let count = |k: &str| {
        m[k].as_u64()
            .unwrap_or_else(|| panic!("no {k}:\n{}", run.describe()))
    };
    let (mutants, killed, reached) = (count("mutants"), count("killed"), count("reached"));
    assert!(
        mutants >= 20 && killed > 0 && killed <= reached && reached <= mutants,
        "mutants {mutants}, reached {reached}, killed {killed}:\n{}",
        run.describe()
    );
    let alive = m["alive"].as_array().expect("alive mutants listed");
    assert_eq!(alive.len() as u64, mutants - killed);
    for a in alive {
        let location = a["location"].as_str().unwrap_or_default();
        let change = a["change"].as_str().unwrap_or_default();
        assert!(
            location.starts_with("src/lib.rs:") && !change.is_empty(),
            "{a}"
        );
    }
    // `classify`'s results tell every one of its comparison mutants apart.
    assert!(
        !alive.iter().any(|a| a["function"] == "classify"
            && a["change"].as_str().is_some_and(|c| c.contains("=="))),
        "a comparison of classify survived:\n{}",
        run.describe()
    );

    let emitted = check_generated_files(&fixture, &run);
    assert!(emitted > 0, "no tests emitted:\n{}", run.describe());
    let file = fixture.read("src/hermetic_tests.rs");
    for test in file.split("#[test]").skip(1) {
        assert!(
            test.contains("assert") || test.contains("should_panic"),
            "a test asserts nothing:\n{test}"
        );
    }
    assert!(fixture.cargo_test_passes() >= emitted);
    let release = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
        .args(["test", "--release", "--manifest-path"])
        .arg(fixture.manifest())
        .env("CARGO_TARGET_DIR", cargo_test_target_dir())
        .output()
        .expect("run cargo test --release");
    assert!(
        release.status.success(),
        "the tests fail under --release:\n{}",
        String::from_utf8_lossy(&release.stdout)
    );

    let off = Fixture::copy("triangle");
    let run = off
        .generate()
        .seed(1)
        .max_executions(1_000)
        .arg("--mutation")
        .arg("off")
        .run();
    run.assert_success();
    assert!(run.report()["mutation"].is_null(), "{}", run.describe());
}
