//! Environment variables.

use std::env;

use hermetic::{Access, Env};

#[test]
fn only_declared_variables_exist() {
    let env = Env::new().var("APP_HOME", "/etc/app").enter();
    assert_eq!(env::var("APP_HOME").unwrap(), "/etc/app");
    assert_eq!(env::var("PATH"), Err(env::VarError::NotPresent));
    assert_eq!(env::var("HOME"), Err(env::VarError::NotPresent));
    assert!(env::var_os("CARGO").is_none());
    let acc = env.accesses();
    assert!(acc.contains(&Access::VarRead {
        name: "APP_HOME".into(),
        set: true
    }));
    assert!(acc.contains(&Access::VarRead {
        name: "PATH".into(),
        set: false
    }));
}

#[test]
fn set_and_remove_stay_inside() {
    let env = Env::new().var("A", "1").enter();
    // SAFETY: no other thread of this test reads the process environment meanwhile (the variables are virtual anyway).
    unsafe {
        env::set_var("B", "2");
        env::set_var("A", "changed");
        env::remove_var("A");
    }
    assert_eq!(env::var("B").unwrap(), "2");
    assert!(env::var("A").is_err());
    assert_eq!(env.var("B").unwrap(), "2");
    assert!(env
        .accesses()
        .contains(&Access::VarWritten { name: "B".into() }));
    drop(env);
    // The real process environment never saw B.
    assert!(env::var("B").is_err());
}

#[test]
fn inherit_vars_starts_from_the_real_environment() {
    let real_path = env::var("PATH").ok();
    let _env = Env::new().inherit_vars().var("EXTRA", "x").enter();
    assert_eq!(env::var("PATH").ok(), real_path);
    assert_eq!(env::var("EXTRA").unwrap(), "x");
}

#[test]
fn non_utf8_values_and_home_dir() {
    let _env = Env::new()
        .var("BIN", std::ffi::OsStr::new("a\u{e9}"))
        .enter();
    assert!(env::var("BIN").is_ok());
    // No HOME and no user database entry: no home directory at all.
    #[allow(deprecated)]
    let home = env::home_dir();
    assert_eq!(home, None);
    drop(_env);
    let _env = Env::new().var("HOME", "/home/tester").enter();
    #[allow(deprecated)]
    let home = env::home_dir();
    assert_eq!(home.unwrap(), std::path::Path::new("/home/tester"));
}

#[test]
fn vars_iterates_the_real_environment_a_documented_limit() {
    // `std::env::vars()` reads the process-wide `environ` directly, with no libc call to
    // interpose; this test pins the documented behaviour.
    let real_has_path = env::var_os("PATH").is_some();
    let _env = Env::new().var("ONLY", "1").enter();
    assert_eq!(env::vars_os().any(|(k, _)| k == "PATH"), real_has_path);
    assert!(!env::vars_os().any(|(k, _)| k == "ONLY"));
}
