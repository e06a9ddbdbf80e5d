//! A `#![no_std]` library (heck 0.5.0 is one; before, its driver did not compile): the driver's
//! copy builds its tests with the standard library, and the tests written into the crate name
//! it themselves, so a plain `cargo test` passes them while the crate stays no_std.

mod common;

use common::{check_generated_files, Fixture};

/// Words of a text longer than a minimum, upper-cased, with `alloc` only.
const NO_STD_LIB: &str = r#"//! Shouting, without the standard library.
#![no_std]

extern crate alloc;

use alloc::string::String;
use alloc::vec::Vec;

/// The words of `text` longer than `min` bytes, upper-cased.
pub fn shout(text: &str, min: usize) -> Vec<String> {
    let mut out = Vec::new();
    for word in text.split(' ') {
        if word.len() > min {
            out.push(word.to_uppercase());
        }
    }
    out
}
"#;

#[test]
fn a_no_std_crate_gets_tests_that_pass_and_stays_no_std() {
    let fixture = Fixture::copy("triangle");
    fixture.write("src/lib.rs", NO_STD_LIB);
    let run = fixture.generate().seed(1).max_executions(1_000).run();
    run.assert_success();
    check_generated_files(&fixture, &run);
    assert_eq!(
        run.count("goals_covered"),
        run.count("goals_total"),
        "{}",
        run.describe()
    );
    let files = fixture.generated_files();
    let tests = &files["src/hermetic_tests.rs"];
    assert!(tests.contains("extern crate std;"), "{tests}");
    assert!(
        fixture
            .read("src/lib.rs")
            .starts_with("//! Shouting, without the standard library.\n#![no_std]\n"),
        "{}",
        fixture.read("src/lib.rs")
    );
    let passed = fixture.cargo_test_passes();
    assert_eq!(passed as u64, run.count("tests_emitted"));
}
