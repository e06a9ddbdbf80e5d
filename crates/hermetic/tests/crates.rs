//! Popular crates that reach the environment through std.

use std::io::{Read, Seek, Write};

use hermetic::Env;

#[test]
fn tempfile_creates_virtual_files() {
    let names = |seed| {
        std::thread::spawn(move || {
            let env = Env::new().seed(seed).enter();
            let mut named = tempfile::NamedTempFile::new().unwrap();
            named.write_all(b"named").unwrap();
            let path = named.path().to_owned();
            assert_eq!(env.file_contents(&path).unwrap(), b"named");
            let mut unnamed = tempfile::tempfile().unwrap();
            unnamed.write_all(b"unnamed").unwrap();
            unnamed.rewind().unwrap();
            let mut s = String::new();
            unnamed.read_to_string(&mut s).unwrap();
            assert_eq!(s, "unnamed");
            let dir = tempfile::tempdir().unwrap();
            std::fs::write(dir.path().join("f"), "x").unwrap();
            (path, dir.path().to_owned())
        })
        .join()
        .unwrap()
    };
    let (file, dir) = names(5);
    assert!(file.starts_with("/tmp"));
    assert!(!file.exists() && !dir.exists(), "nothing on the real disk");
    // Names are not repeatable: fastrand seeds from the ThreadId, a process-wide counter.
    let (file2, _) = names(5);
    assert!(!file2.exists());
}
