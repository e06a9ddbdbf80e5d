//! The support crates (the runtime, hermetic-driver, -protocol, -sandbox, and the serde, libc,
//! syn, ... they build on) are built once per tool version, in the cache directory: after a run
//! on one crate, the first run on another crate compiles none of them (issue 14).

mod common;

use common::{Fixture, Run};
use std::path::{Path, PathBuf};

/// The packages of the driver's support code and what they depend on.
const SUPPORT: &[&str] = &[
    "hermetic",
    "hermetic-driver",
    "hermetic-protocol",
    "hermetic-sandbox",
    "hermetic-macros",
    "serde",
    "serde_core",
    "serde_derive",
    "serde_json",
    "itoa",
    "memchr",
    "libc",
    "landlock",
    "syn",
    "quote",
    "proc-macro2",
];

/// The packages cargo compiled for the driver's first build in this run (`HERMETIC_DEBUG`'s
/// `cargo compiled for <copy>/shadow/Cargo.toml: ...` line).
fn driver_compiled(run: &Run) -> Vec<String> {
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("cargo compiled for ") && l.contains("/shadow/Cargo.toml: "))
        .unwrap_or_else(|| panic!("no driver build was reported:\n{}", run.describe()));
    let list = line.split_once("/shadow/Cargo.toml: ").unwrap().1;
    if list == "nothing" {
        return Vec::new();
    }
    list.split(' ').map(str::to_string).collect()
}

/// A first run on the fixture, with this cache directory and the default target directory (the
/// cache's: no `CARGO_HERMETIC_TARGET_DIR`); the work directory is the fixture's own
/// `target/hermetic` (no `CARGO_TARGET_DIR`).
fn first_run(fixture: &Fixture, cache: &Path) -> Run {
    let run = fixture
        .generate()
        .budget(30)
        .seed(3)
        .max_executions(300)
        .arg("--dry-run")
        .env("HERMETIC_CACHE_DIR", cache)
        .env("HERMETIC_DEBUG", "1")
        .env_remove("CARGO_HERMETIC_TARGET_DIR")
        .env_remove("CARGO_TARGET_DIR")
        .run();
    run.assert_success();
    run
}

fn support_link(fixture: &Fixture) -> PathBuf {
    std::fs::read_link(fixture.path("target/hermetic/shadow/.hermetic-support")).unwrap()
}

#[test]
fn a_first_run_on_another_crate_compiles_no_support_package() {
    let cache = tempfile::tempdir().unwrap();
    let a = Fixture::copy("stack");
    let first = first_run(&a, cache.path());
    let compiled = driver_compiled(&first);
    // The cache was empty: the first crate's run built the support crates there.
    assert!(
        compiled.iter().any(|p| p == "hermetic-driver"),
        "{compiled:?}"
    );

    let b = Fixture::copy("abc");
    let second = first_run(&b, cache.path());
    let rebuilt: Vec<String> = driver_compiled(&second)
        .into_iter()
        .filter(|p| SUPPORT.contains(&p.as_str()))
        .collect();
    assert!(
        rebuilt.is_empty(),
        "the first run on another crate compiled support packages {rebuilt:?}:\n{}",
        second.describe()
    );

    // Both copies link the one support directory, under the cache directory; neither crate's
    // work directory has support crates or builds of its own.
    let support = support_link(&a);
    assert_eq!(support, support_link(&b));
    assert!(support.starts_with(cache.path()), "{}", support.display());
    for fixture in [&a, &b] {
        for own in ["target/hermetic/support", "target/hermetic/target"] {
            assert!(!fixture.path(own).exists(), "{own} exists");
        }
        // The driver runs from the work directory, beside its scratch directory.
        assert!(fixture.path("target/hermetic/search-driver").is_file());
        assert!(fixture.path("target/hermetic/scratch").is_dir());
    }
}
