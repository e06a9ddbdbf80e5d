//! Bad input and the user's files: clear errors that name the problem, and nothing in the crate
//! changes unless the user asked for it (a crate that does not compile, a missing manifest, an
//! unknown module, `--dry-run`, a hand-written file in the way, regenerating over earlier output).

mod common;

use common::{
    assert_each_generated_file_declared_once, assert_same_tree, check_generated_files,
    count_mod_lines, diff, Fixture,
};

#[test]
fn crate_that_does_not_compile_is_an_error_and_changes_nothing() {
    let fixture = Fixture::copy("broken");
    let before = fixture.snapshot();
    let run = fixture.generate().seed(1).max_executions(1_000).run();
    run.assert_exit_code(7);
    assert!(
        run.stderr.contains("does not compile"),
        "broken: stderr should say the crate does not compile:\n{}",
        run.describe()
    );
    // The compiler's own error is shown, pointing into the user's source.
    assert!(
        run.stderr.contains("src/lib.rs"),
        "broken: stderr should show the compiler error in src/lib.rs:\n{}",
        run.describe()
    );
    assert_same_tree(&before, &fixture.snapshot(), "broken");
}

#[test]
fn missing_manifest_is_an_error_naming_the_path() {
    let fixture = Fixture::copy("stack");
    let missing = fixture.tmp.path().join("no-such-crate/Cargo.toml");
    let before = fixture.snapshot();
    let run = fixture.generate().manifest_path(&missing).run();
    run.assert_exit_code(3);
    assert!(
        run.stderr.contains(&*missing.to_string_lossy()),
        "stderr should name the missing manifest {}:\n{}",
        missing.display(),
        run.describe()
    );
    assert!(
        !missing.parent().unwrap().exists(),
        "the missing crate's directory was created"
    );
    assert_same_tree(&before, &fixture.snapshot(), "stack (untouched crate)");
}

#[test]
fn unknown_module_is_an_error_listing_the_modules() {
    let fixture = Fixture::copy("numparse");
    let before = fixture.snapshot();
    let run = fixture.generate().arg("--module").arg("nosuch").run();
    run.assert_exit_code(6);
    assert!(
        run.stderr.contains("nosuch"),
        "stderr should name the unknown module:\n{}",
        run.describe()
    );
    for module in ["parser", "parser::prefix"] {
        assert!(
            run.stderr.contains(module),
            "stderr should list the crate's module `{module}`:\n{}",
            run.describe()
        );
    }
    assert_same_tree(&before, &fixture.snapshot(), "numparse --module nosuch");
}

#[test]
fn dry_run_prints_the_tests_and_changes_nothing() {
    let fixture = Fixture::copy("magic");
    let before = fixture.snapshot();
    let run = fixture
        .generate()
        .seed(1)
        .max_executions(10_000)
        .arg("--dry-run")
        .run();
    run.assert_success();
    for expected in ["@generated", "#[test]", "fn unlock_", "hermetic_tests.rs"] {
        assert!(
            run.stdout.contains(expected),
            "--dry-run should print the tests (missing {expected:?}):\n{}",
            run.describe()
        );
    }
    let printed = common::count_tests(&run.stdout) as u64;
    assert_eq!(
        printed,
        run.count("tests_emitted"),
        "--dry-run printed a different number of tests than the report counts:\n{}",
        run.describe()
    );
    assert_same_tree(&before, &fixture.snapshot(), "magic --dry-run");
}

#[test]
fn hand_written_file_in_the_way_is_an_error_and_nothing_is_written() {
    let fixture = Fixture::copy("stack");
    fixture.write(
        "src/hermetic_tests.rs",
        "// My own tests, not generated.\n#[test]\nfn mine() {}\n",
    );
    let before = fixture.snapshot();
    let run = fixture.generate().seed(1).max_executions(2_000).run();
    run.assert_exit_code(9);
    assert!(
        run.stderr.contains("src/hermetic_tests.rs"),
        "stderr should name the file in the way:\n{}",
        run.describe()
    );
    assert_same_tree(
        &before,
        &fixture.snapshot(),
        "stack with a hand-written file",
    );
}

#[test]
fn hand_written_file_in_a_submodule_blocks_every_file() {
    // The files are written all or nothing: the root's file is not written either.
    let fixture = Fixture::copy("shapes");
    std::fs::create_dir_all(fixture.path("src/geometry")).unwrap();
    fixture.write("src/geometry/hermetic_tests.rs", "// hand-written\n");
    let before = fixture.snapshot();
    let run = fixture.generate().seed(1).max_executions(2_000).run();
    run.assert_exit_code(9);
    assert!(
        run.stderr.contains("src/geometry/hermetic_tests.rs"),
        "stderr should name the file in the way:\n{}",
        run.describe()
    );
    assert_same_tree(
        &before,
        &fixture.snapshot(),
        "shapes with a hand-written file",
    );
}

#[test]
fn regenerating_replaces_only_the_generated_files() {
    let fixture = Fixture::copy("abc");
    let original = fixture.snapshot();

    let first = fixture.generate().seed(1).max_executions(2_000).run();
    first.assert_success();
    check_generated_files(&fixture, &first);
    assert_each_generated_file_declared_once(&fixture);
    let after_first = fixture.snapshot();
    // The first run only adds generated files, their cases and `mod` lines.
    for change in diff(&original, &after_first) {
        let path = change.split_whitespace().nth(1).unwrap_or_default();
        assert!(
            change.starts_with("added ")
                && (path.ends_with("hermetic_tests.rs")
                    || path.starts_with(".hermetic/cases/") && path.ends_with(".rs.jsonl"))
                || change.starts_with("changed ") && path.ends_with(".rs:"),
            "abc: the first run made an unexpected change: {change}"
        );
    }

    // Make the generated files stale (they still say `@generated`): the same run must put
    // them back and touch nothing else.
    for (rel, contents) in fixture.generated_files() {
        fixture.write(
            &rel,
            &format!("{contents}\n// stale: edited after generation\n"),
        );
    }
    let second = fixture.generate().seed(1).max_executions(2_000).run();
    second.assert_success();
    check_generated_files(&fixture, &second);
    assert_each_generated_file_declared_once(&fixture);
    assert_same_tree(
        &after_first,
        &fixture.snapshot(),
        "abc: the second run (same seed) did not restore exactly the first run's files",
    );
    // The `mod` lines are still there exactly once.
    let lib = fixture.read("src/lib.rs");
    assert!(
        count_mod_lines(&lib) <= 1,
        "src/lib.rs declares the generated module more than once:\n{lib}"
    );
}
