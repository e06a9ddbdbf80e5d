//! Reproducibility: the same `--seed` and `--max-executions` on fresh copies of a crate give
//! byte-identical generated files, whatever the number of `--jobs`, and also for code that
//! compares addresses; a second run bounded by time alone on unchanged code changes nothing;
//! a `--function` run changes only that function's tests; `--shard`s split the modules.

mod common;

use common::{assert_same_tree, check_generated_files, snapshot, Fixture};
use std::collections::{BTreeMap, BTreeSet};

/// Generates on a fresh copy and returns the generated files (relative path -> contents).
fn generate(name: &str, seed: u64, max_executions: u64, jobs: usize) -> BTreeMap<String, String> {
    let fixture = Fixture::copy(name);
    let run = fixture
        .generate()
        .seed(seed)
        .max_executions(max_executions)
        .jobs(jobs)
        .run();
    run.assert_success();
    check_generated_files(&fixture, &run);
    fixture.generated_files()
}

fn assert_identical(a: &BTreeMap<String, String>, b: &BTreeMap<String, String>, what: &str) {
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{what}: different files were generated"
    );
    for (path, first) in a {
        let second = &b[path];
        assert!(
            first == second,
            "{what}: {path} differs\n===== first run\n{first}\n===== second run\n{second}"
        );
    }
}

#[test]
fn same_seed_and_executions_give_identical_files() {
    let first = generate("stack", 7, 3_000, 2);
    let second = generate("stack", 7, 3_000, 2);
    assert_identical(
        &first,
        &second,
        "stack, --seed 7 --max-executions 3000, twice",
    );
}

#[test]
fn same_seed_and_executions_give_identical_files_in_a_multi_module_crate() {
    // abc never reaches full coverage (one branch is unreachable), so the search runs to the
    // execution limit: every batch counts.
    let first = generate("abc", 11, 2_000, 2);
    let second = generate("abc", 11, 2_000, 2);
    assert_identical(
        &first,
        &second,
        "abc, --seed 11 --max-executions 2000, twice",
    );
}

#[test]
fn where_the_crate_lies_does_not_change_the_files() {
    // Issue 14: the same seed and executions must give the same tests wherever the crate is
    // (the shadow copy, the support crates and the driver's paths all move with it).
    let near = generate("triangle", 5, 2_000, 2);
    let fixture = Fixture::copy_under(
        "triangle",
        "a/much/longer/path/to/where/the/crate/lies/than/the/first/copy/has",
    );
    let run = fixture
        .generate()
        .seed(5)
        .max_executions(2_000)
        .jobs(2)
        .run();
    run.assert_success();
    check_generated_files(&fixture, &run);
    assert_identical(
        &near,
        &fixture.generated_files(),
        "triangle, --seed 5 --max-executions 2000, copies at two paths of different lengths",
    );
}

#[test]
fn where_a_crate_with_path_dependencies_lies_does_not_change_the_files() {
    // Issue 14 again, for a member of a workspace: `shop` depends on a crate inside its
    // directory (`codes`) and on two beside it (`prices`, inherited from the workspace, and
    // `words`, renamed `text`, which `codes` and `prices` use too). The copy reaches them by
    // paths relative to itself, so their builds, and with them the driver's layout, are the
    // same wherever the workspace lies: `shelf::at_printer` compares its argument with the
    // address of `codes::code`, which the search finds (through the comparison) and writes
    // into a test. That test depends on the executable, so verification is off (`cargo test`
    // builds another); mutation analysis is off to keep the test short.
    // Both runs have their work directory in one target directory (`CARGO_TARGET_DIR`), at
    // paths of one length: the driver names its dispatch modules by their absolute paths there
    // (`driver/build.rs`), which would move the layout with a work directory inside the
    // workspace's own `target`.
    let target = tempfile::tempdir().expect("tempdir");
    let generate_at = |dirs: &str| {
        let fixture = Fixture::copy_member("monorepo", "shop", dirs);
        let run = fixture
            .generate()
            .seed(4)
            .max_executions(2_000)
            .jobs(2)
            .args(["--no-verify", "--mutation", "off"])
            .env("CARGO_TARGET_DIR", target.path())
            .run();
        run.assert_success();
        check_generated_files(&fixture, &run);
        assert!(
            !run.uncovered_functions()
                .iter()
                .any(|f| f.ends_with("at_printer")),
            "the search did not find the address:\n{}",
            run.describe()
        );
        fixture.generated_files()
    };
    let near = generate_at("");
    let far = generate_at("a/much/longer/path/to/where/the/workspace/lies/than/the/first/copy/has");
    assert_identical(
        &near,
        &far,
        "monorepo/shop, --seed 4 --max-executions 2000, copies at two paths of different lengths",
    );
}

#[test]
fn number_of_jobs_does_not_change_the_files() {
    // triangle's compiler checks stay uncovered, so the search runs all its executions.
    let one = generate("triangle", 3, 3_000, 1);
    let two = generate("triangle", 3, 3_000, 2);
    assert_identical(
        &one,
        &two,
        "triangle, --seed 3 --max-executions 3000, --jobs 1 vs --jobs 2",
    );
}

#[test]
fn code_that_compares_addresses_gets_the_same_search_twice() {
    // The page number of a heap address reaches the search through the comparison hooks; the
    // driver runs without address randomisation, so it is the same in both runs. The tests
    // themselves would depend on the address, so verification is off: this is about the search.
    // Mutation analysis is off too: with it on (the mutants' build beside the search), one run
    // in six to eight wrote other tests, the reruns of the search's tests having seen another
    // page (not yet explained; see the notes of issue 14). The search alone gave the same tests
    // in ten runs of ten.
    let search = || {
        let fixture = Fixture::copy("addresses");
        let run = fixture
            .generate()
            .seed(5)
            .max_executions(1_500)
            .jobs(1)
            .arg("--mutation")
            .arg("off")
            .arg("--no-verify")
            .arg("--dry-run")
            .run();
        run.assert_success();
        (run.stdout.clone(), run.uncovered_functions())
    };
    let (first, uncovered) = search();
    let (second, _) = search();
    assert!(
        first == second,
        "two runs differ:\n===== first\n{first}\n===== second\n{second}"
    );
    // The search found the page: `lands_on` returned true in some execution. (No test asserts
    // it: where a box lands depends on what ran before in the process.)
    assert!(
        !uncovered.iter().any(|f| f == "lands_on"),
        "{uncovered:?}\n{first}"
    );
}

/// The file without the tests whose names start with `prefix` (each `#[test]` item runs to
/// the first `}` at the start of a line), and the number taken out.
fn without_tests(file: &str, prefix: &str) -> (String, usize) {
    let mut out = Vec::new();
    let mut lines = file.lines().peekable();
    let mut removed = 0;
    while let Some(line) = lines.next() {
        if line == "#[test]" {
            let mut item = vec![line];
            for l in lines.by_ref() {
                item.push(l);
                if l == "}" {
                    break;
                }
            }
            if item.iter().any(|l| l.starts_with(&format!("fn {prefix}"))) {
                removed += 1;
                // The blank line after it goes too.
                if lines.peek() == Some(&"") {
                    lines.next();
                }
                continue;
            }
            out.extend(item);
            continue;
        }
        out.push(line);
    }
    (out.join("\n"), removed)
}

#[test]
fn a_function_run_replaces_that_function_s_tests_and_keeps_the_rest_as_written() {
    let fixture = Fixture::copy("triangle");
    let first = fixture.generate().seed(1).max_executions(1_500).run();
    first.assert_success();
    let before = fixture.read("src/hermetic_tests.rs");
    let (others_before, is_right_before) = without_tests(&before, "is_right_");
    assert!(
        is_right_before > 0 && others_before.contains("fn classify_"),
        "{before}"
    );

    let second = fixture
        .generate()
        .seed(2)
        .max_executions(1_500)
        .arg("--function")
        .arg("is_right")
        .run();
    second.assert_success();
    check_generated_files(&fixture, &second);
    let after = fixture.read("src/hermetic_tests.rs");
    let (others_after, is_right_after) = without_tests(&after, "is_right_");
    assert!(is_right_after > 0, "no test of is_right left:\n{after}");
    assert!(
        others_before == others_after,
        "--function is_right changed other tests:\n===== before\n{before}\n===== after\n{after}"
    );
    fixture.cargo_test_passes();
}

/// The same command run again on unchanged code keeps every test the first run wrote, by name
/// and text, adds none and leaves the crate as it was, although the first run's search was cut
/// short (100 executions, branches left it would reach): the rerun finds the sources and the
/// command as the first run left them (`.hermetic/cases/<package>/sources`), runs the kept
/// tests and writes the same files. Another command (a larger budget) searches again and adds
/// tests for the branches left.
#[test]
fn a_second_run_on_unchanged_code_changes_nothing_even_after_a_search_cut_short() {
    let fixture = Fixture::copy("numparse");
    let first = fixture.generate().seed(1).max_executions(100).run();
    first.assert_success();
    check_generated_files(&fixture, &first);
    let before = snapshot(&fixture.root);
    let cases: Vec<_> = before
        .keys()
        .filter(|p| p.starts_with(".hermetic/cases"))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    assert!(
        cases.len() == fixture.generated_files().len(),
        "a cases file per test file expected, found {cases:?}\n{}",
        first.describe()
    );
    assert!(
        before.contains_key(std::path::Path::new(".hermetic/cases/numparse/sources")),
        "no fingerprint of the sources beside the cases:\n{}",
        first.describe()
    );

    let second = fixture.generate().seed(1).max_executions(100).run();
    second.assert_success();
    assert_same_tree(
        &before,
        &snapshot(&fixture.root),
        "a second run on unchanged code",
    );
    assert_eq!(
        second.count("tests_emitted"),
        first.count("tests_emitted"),
        "{}",
        second.describe()
    );
    assert!(
        second.report()["search_stopped"]
            .as_str()
            .is_some_and(|s| s.contains("as the last run left them")),
        "{}",
        second.describe()
    );
    fixture.cargo_test_passes();

    let third = fixture.generate().seed(1).max_executions(3_000).run();
    third.assert_success();
    assert!(
        third.count("goals_covered") > first.count("goals_covered")
            && third.count("tests_emitted") > first.count("tests_emitted"),
        "a larger budget should reach branches the first run's 100 executions did not:\n{}\n{}",
        first.describe(),
        third.describe()
    );
}

#[test]
fn shards_take_disjoint_shares_of_the_modules() {
    let fixture = Fixture::copy("abc");
    let mut files: Vec<BTreeSet<String>> = Vec::new();
    for shard in ["1/2", "2/2"] {
        let run = fixture
            .generate()
            .seed(1)
            .max_executions(500)
            .arg("--no-verify")
            .arg("--shard")
            .arg(shard)
            .run();
        run.assert_success();
        let written: BTreeSet<String> = run.report()["files"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_string())
            .collect();
        assert!(
            !written.is_empty(),
            "shard {shard} wrote nothing:\n{}",
            run.describe()
        );
        files.push(written);
    }
    assert!(
        files[0].is_disjoint(&files[1]),
        "the shards wrote the same files: {files:?}"
    );
}
