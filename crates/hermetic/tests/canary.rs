//! Nothing done under an environment reaches the real disk.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

use hermetic::{Access, Env};

#[test]
fn canary_directory_in_tmp_never_exists_on_the_real_disk() {
    // Named from the real pid and clock, before entering.
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    let dir = PathBuf::from(format!(
        "/tmp/hermetic-canary-{}-{nanos}",
        std::process::id()
    ));
    let (d, d2) = (dir.clone(), dir.clone());

    // A helper thread of the real world, started before entering, checks the real disk on
    // request while the environment is active.
    let (ask, asked) = std::sync::mpsc::channel::<PathBuf>();
    let (tell, told) = std::sync::mpsc::channel::<bool>();
    let helper = std::thread::spawn(move || {
        for p in asked {
            tell.send(p.exists()).unwrap();
        }
    });

    let env = Env::new().enter();
    std::fs::create_dir_all(d.join("sub")).unwrap();
    std::fs::write(d.join("sub/a.txt"), "canary").unwrap();
    std::fs::rename(d.join("sub/a.txt"), d.join("b.txt")).unwrap();
    assert_eq!(std::fs::read_to_string(d.join("b.txt")).unwrap(), "canary");
    assert!(d.join("b.txt").exists());
    // While the environment is active, the real world has no trace of it.
    ask.send(d.join("b.txt")).unwrap();
    assert!(!told.recv().unwrap());
    ask.send(d.clone()).unwrap();
    assert!(!told.recv().unwrap());
    std::fs::remove_file(d.join("b.txt")).unwrap();
    std::fs::write(d.join("left-behind"), "x").unwrap();
    let acc = env.accesses();
    drop(env);
    drop(ask);
    helper.join().unwrap();

    assert!(acc.contains(&Access::PathWritten {
        path: dir.join("sub/a.txt")
    }));
    assert!(acc.contains(&Access::PathRemoved {
        path: dir.join("b.txt")
    }));
    // Checked from a thread that never entered an environment.
    let exists = std::thread::spawn(move || d2.exists()).join().unwrap();
    assert!(!exists, "{} leaked to the real disk", dir.display());
    assert!(!dir.exists());
}
