//! The access log: what the code touched, found or not.

use std::path::PathBuf;

use hermetic::{Access, Env};

#[test]
fn records_paths_vars_stdin_clock_randomness() {
    let env = Env::new().file("/etc/app.conf", "x").cwd("/w").enter();
    let _ = std::fs::read_to_string("/etc/app.conf");
    let _ = std::fs::read_to_string("/etc/missing.conf");
    let _ = std::fs::metadata("rel/thing");
    let _ = std::path::Path::new("/etc/app.conf").exists();
    std::fs::write("out.txt", "o").unwrap();
    std::fs::remove_file("out.txt").unwrap();
    let _ = std::env::var("UNSET");
    let _ = std::io::Read::read(&mut std::io::stdin(), &mut [0u8; 4]);
    let _ = std::time::Instant::now();
    let mut b = [0u8; 4];
    let _ =
        std::fs::File::open("/dev/urandom").and_then(|mut f| std::io::Read::read(&mut f, &mut b));
    let acc = env.accesses();
    let p = PathBuf::from;
    let expected = [
        Access::PathOpened {
            path: p("/etc/app.conf"),
            found: true,
        },
        Access::PathOpened {
            path: p("/etc/missing.conf"),
            found: false,
        },
        Access::PathChecked {
            path: p("/w/rel/thing"),
            found: false,
        },
        Access::PathChecked {
            path: p("/etc/app.conf"),
            found: true,
        },
        Access::PathWritten {
            path: p("/w/out.txt"),
        },
        Access::PathRemoved {
            path: p("/w/out.txt"),
        },
        Access::VarRead {
            name: "UNSET".into(),
            set: false,
        },
        Access::StdinRead,
        Access::ClockRead,
        Access::PathOpened {
            path: p("/dev/urandom"),
            found: true,
        },
        Access::RandomRead,
    ];
    for e in &expected {
        assert!(acc.contains(e), "missing {e:?} in {acc:#?}");
    }
    // Order of first occurrence, each access once.
    let positions: Vec<usize> = expected
        .iter()
        .map(|e| acc.iter().position(|a| a == e).unwrap())
        .collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{acc:#?}");
    let _ = std::fs::read_to_string("/etc/app.conf");
    assert_eq!(env.accesses().len(), acc.len());
}

#[test]
fn interposition_self_check_passes_here() {
    assert!(hermetic::interposition_works());
}
