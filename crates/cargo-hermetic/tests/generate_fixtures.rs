//! End to end on each pure fixture crate: `generate` succeeds, reaches the expected branch
//! coverage, writes `@generated`, rustfmt-clean files with unique readable test names, and
//! `cargo test` passes on the result, which clippy accepts.

mod common;

use common::{check_generated_files, Fixture, Run};

/// Copies the fixture, generates with a fixed seed and execution budget, checks the files and
/// runs `cargo test` on the result.
fn generate(name: &str, seed: u64, max_executions: u64) -> (Fixture, Run) {
    let fixture = Fixture::copy(name);
    let run = fixture
        .generate()
        .seed(seed)
        .max_executions(max_executions)
        .run();
    run.assert_success();
    let emitted = check_generated_files(&fixture, &run);
    assert!(emitted > 0, "no tests emitted:\n{}", run.describe());
    let passed = fixture.cargo_test_passes();
    assert!(
        passed >= emitted,
        "`cargo test` ran {passed} passing tests, fewer than the {emitted} emitted:\n{}",
        fixture.dump_generated()
    );
    (fixture, run)
}

fn assert_full_coverage(run: &Run) {
    assert_eq!(
        run.count("goals_covered"),
        run.count("goals_total"),
        "not every branch goal was covered (uncovered: {:?}):\n{}",
        run.uncovered_functions(),
        run.describe()
    );
    assert!(
        run.uncovered_functions().is_empty(),
        "full coverage but `uncovered` lists functions:\n{}",
        run.describe()
    );
}

#[test]
fn abc_covers_every_branch_but_the_unreachable_error() {
    let (_fixture, run) = generate("abc", 1, 3_000);
    let coverage = run.branch_coverage();
    // `C::calls_b_with_a`'s `Err` branch cannot be reached (the answer is always 43). How many
    // goals the other functions count depends on how the tool classifies blocks, so besides
    // the brief's 85%, accept exactly that one goal uncovered.
    let uncovered = &run.report()["uncovered"];
    let only_the_unreachable_error = run.count("goals_total") - run.count("goals_covered") <= 1
        && uncovered.as_array().is_some_and(|u| {
            u.iter().all(|f| {
                f["function"]
                    .as_str()
                    .is_some_and(|n| n.ends_with("calls_b_with_a"))
                    && f["goals"].as_u64() == Some(1)
            })
        });
    assert!(
        coverage >= 0.85 || only_the_unreachable_error,
        "abc: branch coverage {:.1}% < 85%, and more than the unreachable error branch is uncovered:\n{}",
        coverage * 100.0,
        run.describe()
    );
}

#[test]
fn triangle_covers_every_branch() {
    let (_fixture, run) = generate("triangle", 1, 4_000);
    assert_full_coverage(&run);
}

#[test]
fn stack_covers_every_branch() {
    // A full stack is reached through its constructor and as many pushes as its capacity (a
    // literal of its private fields is no producer while `new` is public): seed 1 needs ~5,200.
    let (_fixture, run) = generate("stack", 1, 10_000);
    assert_full_coverage(&run);
}

#[test]
fn magic_covers_every_branch_including_unlock_ok() {
    let (fixture, run) = generate("magic", 1, 10_000);
    assert_full_coverage(&run);
    let file = fixture.read("src/hermetic_tests.rs");
    assert!(
        file.contains("Ok(Door::Opened)"),
        "magic: no test shows `unlock` returning `Ok(Door::Opened)`:\n{file}\n{}",
        run.describe()
    );
}

/// Branches and results behind arithmetic on the input (`days / 7 == 1_234`): no literal is the
/// value that takes them and the input itself is never compared. The search climbs each
/// comparison's distance; plain random generation, run alongside, does not get there.
#[test]
fn climb_reaches_what_lies_behind_arithmetic() {
    let (fixture, run) = generate("climb", 1, 10_000);
    assert_full_coverage(&run);
    let file = fixture.read("src/hermetic_tests.rs");
    for shown in [
        "fn anniversary_returns_anniversary()",
        "fn at_crane_limit_returns_true()",
        "fn oven_alarm_returns_some_paper_burns()",
        "fn on_target_returns_true()",
    ] {
        assert!(file.contains(shown), "climb: no `{shown}`:\n{file}");
    }
    let random = Fixture::copy("climb")
        .generate()
        .seed(1)
        .max_executions(10_000)
        .arg("--strategy")
        .arg("random")
        .arg("--dry-run")
        .arg("--no-verify")
        .run();
    random.assert_success();
    assert!(
        random
            .uncovered_functions()
            .contains(&"anniversary".to_string()),
        "random generation reached `days / 7 == 1_234` too: the fixture no longer shows what the search adds\n{}",
        random.describe()
    );
}

#[test]
fn numparse_covers_every_branch() {
    let (_fixture, run) = generate("numparse", 2, 40_000);
    assert_full_coverage(&run);
}

#[test]
fn aliases_are_followed_and_their_tests_compile() {
    let (fixture, run) = generate("aliases", 1, 5_000);
    // Every function behind an alias is called (the driver compiled each call), but the one
    // whose alias names a `VecDeque`; `Borrowed`, an alias of a type with a lifetime, and
    // `Index`, of a `HashMap`, are followed.
    let mut skipped = run.skipped();
    skipped.sort();
    let expected = [(
        "units::queue",
        "return type: type alias `Queue`: `VecDeque<String>` is not supported",
    )];
    assert!(
        skipped.len() == expected.len()
            && skipped
                .iter()
                .zip(&expected)
                .all(|((item, reason), (want, why))| item == want && reason.contains(why)),
        "aliases: expected {expected:?} skipped:\n{}",
        run.describe()
    );
    let files = fixture.dump_generated();
    for call in [
        "parse_port(",
        "port_or(",
        "tally(",
        "metres(",
        "width(",
        "repeated(",
        "count_words(",
        "index(",
    ] {
        assert!(
            files.contains(call),
            "aliases: no test calls `{call}..)`:\n{files}"
        );
    }
    // The root's `Result<T>` hides the prelude's there, so the mock spells std's.
    let root = fixture.read("src/hermetic_tests.rs");
    assert!(
        root.contains("fn port(&self) -> std::result::Result<String, crate::error::Error>"),
        "aliases: the mock of `Config` does not spell std's `Result`:\n{root}"
    );
    let coverage = run.branch_coverage();
    assert!(
        coverage >= 0.9,
        "aliases: branch coverage {:.1}% < 90%:\n{}",
        coverage * 100.0,
        run.describe()
    );
}

#[test]
fn edition_2015_crates_get_a_driver_and_passing_tests() {
    // Edition 2015 resolves `::hermetic_driver` and `::core` only through `extern crate`.
    let fixture = Fixture::copy("triangle");
    let manifest = fixture.read("Cargo.toml");
    assert!(manifest.contains("edition = \"2021\""), "{manifest}");
    fixture.write(
        "Cargo.toml",
        &manifest.replace("edition = \"2021\"", "edition = \"2015\""),
    );
    let run = fixture.generate().seed(1).max_executions(1_000).run();
    run.assert_success();
    let emitted = check_generated_files(&fixture, &run);
    assert!(emitted > 0, "no tests emitted:\n{}", run.describe());
    assert!(fixture.cargo_test_passes() >= emitted);
}

#[test]
fn generics_skips_fn_pointer_parameters_with_a_reason_and_passes_closures() {
    let (_fixture, run) = generate("generics", 1, 2_000);
    let skipped = run.skipped();
    // `fn(i32) -> i32` pointers stay skipped, with the parameter named.
    let reasons: Vec<&String> = skipped
        .iter()
        .filter(|(i, _)| i == "apply" || i.ends_with("::apply"))
        .map(|(_, r)| r)
        .collect();
    assert!(
        !reasons.is_empty(),
        "generics: `apply` is not in `skipped`:\n{}",
        run.describe()
    );
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("parameter") && r.contains("`f`")),
        "generics: the reason `apply` was skipped does not name its parameter `f`: {reasons:?}"
    );
    let file = _fixture.read("src/hermetic_tests.rs");
    // `impl Fn(i32) -> i32` takes a closure written in the call.
    assert!(
        file.contains("with_closure(|_| "),
        "generics: no test passes a closure to `with_closure`:\n{file}"
    );
    assert!(
        !file.contains("apply("),
        "generics: a test calls the skipped `apply(..)`:\n{file}"
    );
    // A struct with bounds of its own (`Limits<T: PartialOrd + Copy> where T: Debug`): the
    // driver's impls for it repeat them, so the crate is not failed and `clamp` is called.
    assert!(
        !skipped.iter().any(|(i, _)| i.contains("Limits")),
        "generics: `Limits` was skipped:\n{}",
        run.describe()
    );
    assert!(
        file.contains(".clamp("),
        "generics: no test calls `Limits::clamp`:\n{file}"
    );
    // The private `larger` has a copy for each type it is called with; `column_width`'s copy
    // never takes the `else`. A branch of the source is one goal, covered by any copy.
    assert!(
        !run.uncovered_functions().iter().any(|f| f == "larger"),
        "generics: a branch of `larger` counts as uncovered although a copy took it:\n{}",
        run.describe()
    );
}

#[test]
fn shapes_example_generates_passing_tests() {
    let (fixture, run) = generate("shapes", 1, 6_000);
    let coverage = run.branch_coverage();
    assert!(
        coverage >= 0.9,
        "shapes: branch coverage {:.1}% < 90%:\n{}",
        coverage * 100.0,
        run.describe()
    );
    // One file per module with tests, beside the module.
    let files = fixture.generated_files();
    for module in ["canvas", "geometry", "shape"] {
        let rel = format!("src/{module}/hermetic_tests.rs");
        assert!(
            files.contains_key(&rel),
            "shapes: no {rel} (written: {:?})",
            files.keys()
        );
        let parent = fixture.read(&format!("src/{module}.rs"));
        assert_eq!(
            common::count_mod_lines(&parent),
            1,
            "shapes: src/{module}.rs should declare `mod hermetic_tests;` once:\n{parent}"
        );
    }
}

#[test]
fn ordering_is_passed_and_checked_by_its_variant() {
    let (fixture, run) = generate("versions", 1, 3_000);
    let file = fixture.read("src/hermetic_tests.rs");
    assert!(
        file.contains("assert_eq!(verdict(std::cmp::Ordering::Less), \"upgrade\");"),
        "no Ordering passed to `verdict`:\n{file}\n{}",
        run.describe()
    );
    // `compare` has no branch of its own, so one test of it is kept, checked by whichever
    // variant its versions give.
    let checked = ["Less", "Equal", "Greater"]
        .iter()
        .any(|variant| file.contains(&format!("std::cmp::Ordering::{variant});")));
    assert!(
        checked,
        "no result of `compare` checked by its variant:\n{file}\n{}",
        run.describe()
    );
}

#[test]
fn ranges_and_128_bit_edges_are_generated_and_checked() {
    // A reversed range is the point of its test: allowed, so clippy had nothing to say.
    let (fixture, run) = generate("ranges", 1, 4_000);
    let file = fixture.read("src/hermetic_tests.rs");
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    // An empty range reaches the panic; `impl RangeBounds` gets forms without a bound; a `u128`
    // past `i128::MAX` and `i128::MIN` are passed as literals; a `Range` result is compared.
    for expected in [
        "#[should_panic(expected=\"emptyrange\")]",
        "#[should_panic(expected=\"reversedrange\")]",
        "assert!(upper_half(",
        "assert_eq!(negate(-170141183460469231731687303715884105728),None);",
        "assert_eq!(window(",
    ] {
        assert!(
            flat.contains(expected),
            "no {expected}:\n{file}\n{}",
            run.describe()
        );
    }
    assert!(
        file.contains("..=") && file.contains("clamp("),
        "no inclusive range passed to `clamp`:\n{file}"
    );
    // Every goal but `clamp`'s excluded start bound, which no range syntax writes.
    let uncovered = run.uncovered_functions();
    assert!(
        uncovered.iter().all(|f| f.ends_with("clamp")),
        "uncovered: {uncovered:?}\n{}",
        run.describe()
    );
}

#[test]
fn cfgs_are_analysed_as_cargo_builds_the_crate() {
    let (fixture, run) = generate("configs", 1, 3_000);
    let files = fixture.dump_generated();
    // `sizes` is a default feature; the host is Linux with glibc.
    for call in ["size_class(", "word_bits("] {
        assert!(
            files.contains(call),
            "configs: no test calls `{call}..)`:\n{files}"
        );
    }
    // Neither `units` nor `nightly` is on; `not(feature = "sizes")` is off.
    for call in ["kibibytes(", "unstable("] {
        assert!(
            !files.contains(call),
            "configs: a test calls `{call}..)`:\n{files}"
        );
    }
    // Variants and fields of other platforms are left out of `Operation`: its values are built
    // and passed (its variants for this host only).
    for call in [
        "describe_failure(",
        "Operation::ReadAt{offset:",
        "Operation::Chmod{mode:",
    ] {
        assert!(
            files
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
                .contains(call),
            "configs: no test builds `{call}..`:\n{files}"
        );
    }
    assert!(!files.contains("SeekRead"), "configs: {files}");
    // Only the build-script cfg is unknown, and it is counted by its kind.
    let skipped = run.skipped();
    assert!(
        skipped.len() == 1 && skipped[0].0 == "atomics" && skipped[0].1.contains("has_atomics"),
        "configs: expected only `atomics` skipped:\n{}",
        run.describe()
    );
    assert_eq!(
        run.report()["skipped_by_reason"][0]["reason"]["kind"],
        "cfg"
    );
    // The crate's own `#[cfg(test)] mod unit_checks` holds no goals.
    assert!(
        !run.uncovered_functions()
            .iter()
            .any(|f| f.contains("unit_checks")),
        "configs: the crate's own test module counts as code under test:\n{}",
        run.describe()
    );
}

#[test]
fn paths_and_os_strings_are_passed_and_checked_as_paths() {
    let (fixture, run) = generate("paths", 1, 3_000);
    let file = fixture.read("src/hermetic_tests.rs");
    // `P: AsRef<Path>` and `impl AsRef<Path>` take a path literal (no turbofish); `&Path`,
    // `PathBuf`, `&OsStr` and `Vec<OsString>` are written by their std constructors, imported
    // once; a `PathBuf` result (and one in a struct) is compared with its literal;
    // `impl SlashExt for Path` gives `Path::new("a").to_slash()`.
    for expected in [
        "use std::path::{Path, PathBuf};",
        "use std::ffi::{OsStr, OsString};",
        "load(\"",
        "stays_below(\"",
        "kind(Path::new(\"",
        "program_name(OsStr::new(\"",
        "OsString::from(\"",
        "source: PathBuf::from(\"",
        // A crate trait's methods on `Path` itself, the default one included.
        ".to_slash()",
        ".slash_len()",
        // Its associated function on `PathBuf`, by the trait.
        "<PathBuf as FromSlash>::from_slash(\"",
    ] {
        assert!(
            file.contains(expected),
            "no {expected}:\n{file}\n{}",
            run.describe()
        );
    }
    assert!(
        run.count("goals_covered") * 10 >= run.count("goals_total") * 8,
        "less than 80% of the branches:\n{}",
        run.describe()
    );
}

#[test]
fn types_with_lifetimes_are_built_and_borrow_from_earlier_statements() {
    let (fixture, run) = generate("borrows", 1, 3_000);
    let file = fixture.read("src/hermetic_tests.rs");
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    // A lexer over a literal yields tokens borrowed from it; a checker borrows rules built by
    // an earlier statement; `&[&str]` and `Option<&str>` are passed as literals.
    for expected in [
        "letmutlexer=Lexer::new(\"",
        "lexer.next_token(),Some(Token::Word(\"",
        "letmutchecker=Checker::new(&rules);",
        "first_other(&[",
        ",Some(\"",
        "document.count_matching(&[",
    ] {
        assert!(
            flat.contains(expected),
            "no {expected}:\n{file}\n{}",
            run.describe()
        );
    }
    assert!(
        run.count("goals_covered") * 10 >= run.count("goals_total") * 9,
        "less than 90% of the branches:\n{}",
        run.describe()
    );
}

#[test]
fn durations_and_times_are_passed_and_checked_from_the_epoch() {
    let (fixture, run) = generate("timing", 1, 3_000);
    let file = fixture.read("src/hermetic_tests.rs");
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    // Durations by their std constructors, times as an offset from the epoch, imported once;
    // a `Duration` result, and durations in a struct, compared with their literals.
    for expected in [
        "usestd::time::{Duration,SystemTime};",
        "timeout_label(Duration::from_secs(",
        "parse_duration(\"",
        "Ok(Duration::",
        "SystemTime::UNIX_EPOCH+Duration::from_secs(",
        "max:Duration::",
    ] {
        assert!(
            flat.contains(expected),
            "no {expected}:\n{file}\n{}",
            run.describe()
        );
    }
    assert!(
        run.count("goals_covered") * 10 >= run.count("goals_total") * 9,
        "less than 90% of the branches:\n{}",
        run.describe()
    );
}

#[test]
fn a_crate_implementation_stands_in_for_a_trait_no_mock_can_implement_and_iterators_are_collected()
{
    let (fixture, run) = generate("systems", 1, 3_000);
    let file = fixture.read("src/hermetic_tests.rs");
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    // `Sys` has an associated type, so no mock: the crate's `RealSys` is passed, in the test's
    // virtual environment; a generic type's methods run on `Finder<RealSys, Noop>`; returned
    // iterators are collected and compared as vectors.
    for expected in [
        "letreal_sys=RealSys;",
        "candidates(real_sys,\"",
        ".map(|items|items.collect::<Vec<_>>()),Some(",
        "Finder::<RealSys,Noop>::new_with_sys(real_sys);",
        "long_words(\"",
        ").collect::<Vec<_>>(),vec![",
        "Err(\"nolimit\".to_string())",
    ] {
        assert!(
            flat.contains(expected),
            "no {expected}:\n{file}\n{}",
            run.describe()
        );
    }
    assert_full_coverage(&run);
}

#[test]
fn every_public_function_of_a_builder_gets_a_test_though_its_setters_have_no_branches() {
    let (fixture, run) = generate("builders", 1, 1_500);
    let file = fixture.read("src/hermetic_tests.rs");
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    // Setters and getters cover no branch that `check`'s tests have not covered already: each
    // is called by a test of its own (a method goal). `handler<G>` takes a handler that
    // satisfies `H`'s bounds; `metadata`'s `fs::Metadata` cannot be written, its call is.
    for expected in [
        "Walk::<Noop>::new(\"",
        ".depth(",
        ".hidden(",
        ".root(),",
        ".max_depth(),",
        // `G` takes `H`'s bound, `Handler`.
        ".handler(noop)",
        ".metadata()",
        ".check()",
    ] {
        assert!(
            flat.contains(expected),
            "no {expected}:\n{file}\n{}",
            run.describe()
        );
    }
    // `new`, `depth`, `hidden`, `root`, `max_depth`, `handler`, `check`, `metadata`.
    assert_eq!(run.count("public_functions"), 8, "{}", run.describe());
    assert_eq!(
        run.count("public_functions_called"),
        8,
        "{}",
        run.describe()
    );
    assert_full_coverage(&run);
}

#[test]
fn cow_text_iterables_and_std_trait_impls_are_called_as_users_write_them() {
    let (fixture, run) = generate("texts", 1, 3_000);
    let file = fixture.read("src/hermetic_tests.rs");
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    // `Cow<str>` built from a literal and compared with one; words as a vector of `&str`;
    // `Display` through `to_string()`, `FromStr` through `parse`, `Iterator` through `next()`;
    // I/O errors by their kind.
    for expected in [
        "usestd::borrow::Cow;",
        "squeeze(Cow::from(\"",
        // `Cow<Path>` and `Cow<[u8]>`, by what they borrow or own.
        "from_root(Path::new(\"",
        "Cow::from(Path::new(\"",
        "trim_zeros(Cow::from(vec![",
        "expand_home(\"~",
        "join_words(vec![\"",
        ".to_string(),\"",
        ".parse::<Level>(),Ok(Level::",
        ".parse::<Level>(),Err(BadLevel(",
        ".next(),Some(\"",
        // `IntoIterator`: the crate's iterator that only `into_iter()` gives.
        ".into_iter();",
        "explain(&std::io::Error::from(std::io::ErrorKind::NotFound))",
        "LoadError::Io(std::io::Error::from(std::io::ErrorKind::",
    ] {
        assert!(
            flat.contains(expected),
            "no {expected}:\n{file}\n{}",
            run.describe()
        );
    }
    assert!(run.skipped().is_empty(), "{}", run.describe());
    assert!(
        run.count("goals_covered") * 10 >= run.count("goals_total") * 9,
        "less than 90% of the branches:\n{}",
        run.describe()
    );
}

#[test]
fn closures_are_passed_for_fn_bounds_as_users_write_them() {
    let (fixture, run) = generate("closures", 1, 1_500);
    let file = fixture.read("src/hermetic_tests.rs");
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    // `P: FnMut(&str) -> bool`, `F: FnMut(&str, &str) -> Ordering`, `&T where T: ?Sized +
    // Fn(&str) -> Option<String>`, `&dyn Fn(u64) -> char`, `Box<dyn FnOnce(&str) -> bool>`:
    // each a closure written in the call, returning a value the search chose.
    for expected in [
        ".filter_entry(|_|",
        ".sort_by(|_,_|std::cmp::Ordering::",
        // `F: FnMut(&str) -> K, K: Ord`: the key type chosen first, the closure returns it.
        ".sort_by_key::<i64,_>(|_|",
        "count_matching(&[",
        "config_home(&|_|None)",
        "config_home(&|_|Some(\"/",
        "retry(",
        ",&|_|'",
        "Box::new(|_|",
        // `C: FnMut(&str) -> Result<Option<CO>, E>, CO: AsRef<str>` (shellexpand): the closure
        // returns owned text.
        "expand_with::<&str,String,_,i64>(&\"",
        // `std::env::VarError` passed and compared as its variants.
        "describe_var_error(&VarError::NotPresent)",
        "describe_var_error(&VarError::NotUnicode(OsString::from(",
        "usestd::env::VarError;",
    ] {
        assert!(
            flat.contains(expected),
            "no {expected}:\n{file}\n{}",
            run.describe()
        );
    }
    // A closure kept in a field has no type tests can name: skipped with its reason.
    let skipped = run.skipped();
    assert_eq!(skipped.len(), 1, "{}", run.describe());
    assert!(
        skipped[0].0 == "Options" && skipped[0].1.contains("closure"),
        "{skipped:?}"
    );
    assert!(
        run.count("goals_covered") * 10 >= run.count("goals_total") * 9,
        "less than 90% of the branches:\n{}",
        run.describe()
    );
}

#[test]
fn files_and_metadata_are_opened_in_the_tests_environment() {
    let (fixture, run) = generate("handles", 1, 1_500);
    let file = fixture.read("src/hermetic_tests.rs");
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    // `File` and `&Metadata` parameters: opened at a path the test's environment holds.
    for expected in [
        "usestd::fs::File;",
        "count_pairs(File::open(\"",
        "describe(&std::fs::metadata(\"",
        "hermetic::Env::new()",
        // `FileType`, `&Permissions`, `ReadDir` and `&DirEntry`: read at a path, by std paths.
        "type_mark(std::fs::metadata(\"",
        ").unwrap().file_type()",
        "is_locked(&std::fs::metadata(\"",
        "toml_names(std::fs::read_dir(\"",
        "entry_line(&std::fs::read_dir(\"",
        ".flatten().find(|e|e.file_name()==\"",
        // `&OpenOptions`: built by its flags, by its std path.
        "open_with(&std::fs::OpenOptions::new()",
    ] {
        assert!(
            flat.contains(expected),
            "no {expected}:\n{file}\n{}",
            run.describe()
        );
    }
    assert!(run.skipped().is_empty(), "{}", run.describe());
    assert!(
        run.count("goals_covered") * 10 >= run.count("goals_total") * 6,
        "less than 60% of the branches:\n{}",
        run.describe()
    );
}

#[test]
fn maps_and_sets_are_passed_and_checked_in_any_order() {
    let (fixture, run) = generate("tables", 1, 3_000);
    let file = fixture.read("src/hermetic_tests.rs");
    let flat: String = file.chars().filter(|c| !c.is_whitespace()).collect();
    // Maps and sets by their `from` constructors or `new`, imported once; a `HashMap` result
    // compared with its literal (equality does not depend on the order).
    for expected in [
        "usestd::collections::{",
        "word_counts(\"",
        "HashMap::from([(\"",
        "expand(\"",
        "merge(BTreeMap::",
        "allowed(\"",
        "&HashSet::",
        "BTreeSet::from([",
    ] {
        assert!(
            flat.contains(expected),
            "no {expected}:\n{file}\n{}",
            run.describe()
        );
    }
    assert!(
        run.count("goals_covered") * 10 >= run.count("goals_total") * 9,
        "less than 90% of the branches:\n{}",
        run.describe()
    );
}

#[test]
fn parsing_code_gets_tests_that_pass_and_clippy_accepts() {
    // The search benchmark's fixture (bench/): every module gets tests, which pass and lint
    // clean like every other fixture's.
    let (fixture, run) = generate("parsing", 1, 3_000);
    let files = fixture.generated_files();
    for module in ["config", "tokenize", "date", "session", "frame"] {
        assert!(
            files.contains_key(&format!("src/{module}/hermetic_tests.rs")),
            "no tests for {module}: {:?}\n{}",
            files.keys(),
            run.describe()
        );
    }
}
