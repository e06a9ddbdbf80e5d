//! Bad input and the user's files: clear errors that name the problem, and nothing in the crate
//! changes unless the user asked for it (a crate that does not compile, a missing manifest, an
//! unknown module, `--dry-run`, a hand-written file in the way, regenerating over earlier output).

mod common;

use common::{
    assert_each_generated_file_declared_once, assert_same_tree, check_generated_files,
    count_mod_lines, diff, Fixture,
};
use std::process::{Command, Stdio};

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

/// A crate whose own test build fails on this toolchain (a lint its `deny(warnings)` makes an
/// error under `cfg(test)`, as in num_cpus 1.16.0) gets that said, not blamed on the tests.
#[test]
fn crate_whose_own_tests_do_not_compile_is_told_so_and_changes_nothing() {
    let fixture = Fixture::copy("triangle");
    let lib = fixture.read("src/lib.rs");
    fixture.write(
        "src/lib.rs",
        &format!("#![cfg_attr(test, deny(warnings))]\n{lib}\n#[cfg(test)]\nfn never_used() {{}}\n"),
    );
    let before = fixture.snapshot();
    let run = fixture.generate().seed(1).max_executions(300).run();
    run.assert_exit_code(7);
    assert!(
        run.stderr.contains("the crate's own tests do not compile")
            && run.stderr.contains("never_used"),
        "stderr should blame the crate's own test build, with its error:\n{}",
        run.describe()
    );
    assert_same_tree(&before, &fixture.snapshot(), "triangle");
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
    // The first run only adds generated files, their cases, the sources' fingerprint and `mod`
    // lines.
    for change in diff(&original, &after_first) {
        let path = change.split_whitespace().nth(1).unwrap_or_default();
        assert!(
            change.starts_with("added ")
                && (path.ends_with("hermetic_tests.rs")
                    || path.starts_with(".hermetic/cases/")
                        && (path.ends_with(".rs.jsonl") || path.ends_with("/sources")))
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

/// A write that fails half-way through the commit (`src/c.rs`, the last module file to get its
/// `mod` line, is immutable: both test files and `src/a.rs` are already replaced by then)
/// puts every file back and leaves nothing of its own behind. Where `chattr +i` is not
/// permitted, the failure comes earlier: `src/c` is a file where the directory of `c`'s test
/// file must go.
#[test]
fn a_write_that_fails_half_way_leaves_the_crate_as_it_was() {
    let fixture = Fixture::copy("abc");
    let lib = fixture.path("src/c.rs");
    let immutable = Command::new("chattr")
        .arg("+i")
        .arg(&lib)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    // The tree is removed at the end: take the attribute off again whatever happens.
    struct Mutable(std::path::PathBuf);
    impl Drop for Mutable {
        fn drop(&mut self) {
            let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
        }
    }
    let _mutable = immutable.then(|| Mutable(lib.clone()));
    if !immutable {
        fixture.write("src/c", "in the way\n");
    }
    let before = fixture.snapshot();
    let run = fixture
        .generate()
        .seed(1)
        .max_executions(1_000)
        .arg("--no-verify")
        .run();
    assert!(!run.status.success(), "{}", run.describe());
    let blamed = if immutable { "src/c.rs" } else { "src/c/" };
    assert!(
        run.stderr.contains(blamed),
        "stderr should name {blamed}:\n{}",
        run.describe()
    );
    assert_same_tree(
        &before,
        &fixture.snapshot(),
        &format!("abc with a write that fails (immutable c.rs: {immutable})"),
    );
}

/// `SIGINT` while the files are being written (sent as soon as a temporary file of the commit
/// shows in `src/`) leaves the crate as it was or exactly as an uninterrupted run leaves it.
#[test]
fn an_interrupted_write_leaves_the_crate_as_it_was_or_fully_updated() {
    let args = [
        "--seed",
        "1",
        "--max-executions",
        "1000",
        "--jobs",
        "1",
        "--no-verify",
    ];
    let whole = Fixture::copy("abc");
    whole.generate().args(args).run().assert_success();
    let updated = whole.snapshot();

    let fixture = Fixture::copy("abc");
    let before = fixture.snapshot();
    assert_ne!(before, updated, "the uninterrupted run changed nothing");
    let mut command = Command::new(common::BIN);
    // A shell starts background jobs with SIGINT ignored; the tool keeps an inherited
    // disposition, so the child gets the default one whatever ran this suite.
    // SAFETY: `signal` is async-signal-safe, and nothing else runs in the forked child.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut command, || {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            Ok(())
        })
    };
    let mut child = command
        .args(["hermetic", "generate", "--quiet", "--manifest-path"])
        .arg(fixture.manifest())
        .args(args)
        // The same command as the uninterrupted run (`generate()` passes the suite's budget):
        // the sources' fingerprint names the options, so another budget is another file.
        .args(["--budget", &common::BUDGET_SECS.to_string()])
        .env("CARGO_HERMETIC_TARGET_DIR", common::hermetic_target_dir())
        .env("HERMETIC_CACHE_DIR", common::hermetic_cache_dir())
        .current_dir(fixture.tmp.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let src = fixture.path("src");
    let started = std::time::Instant::now();
    let mut interrupted = false;
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(
            started.elapsed() < common::RUN_TIMEOUT,
            "generate did not finish"
        );
        let writing = std::fs::read_dir(&src)
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().contains(".hermetic-new-"));
        if writing && !interrupted {
            // SAFETY: signalling our own child.
            unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
            interrupted = true;
        }
    };
    eprintln!("[e2e] interrupted while writing: {interrupted}; {status}");
    let after = fixture.snapshot();
    assert!(
        after == before || after == updated,
        "neither as before nor fully updated:\nagainst before:\n{}\nagainst updated:\n{}",
        diff(&before, &after).join("\n"),
        diff(&updated, &after).join("\n")
    );
    if interrupted {
        use std::os::unix::process::ExitStatusExt;
        assert!(
            status.signal() == Some(libc::SIGINT) || !status.success(),
            "{status}"
        );
    }
}
