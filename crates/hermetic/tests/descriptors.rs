//! Virtual descriptors are numbered from the start again once none is open, so a process that
//! runs one case after another (the driver's reused child) numbers them as a fresh process does.
//! One test in its own binary: another test's open descriptor would keep the numbers going.

use std::fs::File;
use std::os::fd::AsRawFd;

use hermetic::Env;

fn opened_in_a_new_environment() -> i32 {
    let _env = Env::new().file("/a", "x").enter();
    File::open("/a").unwrap().as_raw_fd()
}

#[test]
fn each_environment_numbers_descriptors_from_the_start_once_none_is_open() {
    let first = opened_in_a_new_environment();
    assert_eq!(opened_in_a_new_environment(), first);
    // While one is open, a new environment goes on numbering: live descriptors never share one.
    let env = Env::new().file("/b", "y").enter();
    let held = File::open("/b").unwrap();
    drop(env);
    assert_eq!(held.as_raw_fd(), first);
    assert_ne!(opened_in_a_new_environment(), first);
}
