//! Threads: inheritance, isolation between parallel environments, inactive threads untouched.

use std::path::PathBuf;
use std::sync::{Arc, Barrier};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hermetic::Env;

#[test]
fn spawned_threads_inherit_the_environment() {
    let env = Env::new().file("/in", "virtual").var("V", "1").enter();
    let (content, var) = std::thread::spawn(|| {
        std::fs::write("/out", "from child").unwrap();
        // A grandchild is inside too.
        let inner = std::thread::spawn(|| std::fs::read_to_string("/in").unwrap())
            .join()
            .unwrap();
        (inner, std::env::var("V").unwrap())
    })
    .join()
    .unwrap();
    assert_eq!(content, "virtual");
    assert_eq!(var, "1");
    assert_eq!(env.file_contents("/out").unwrap(), b"from child");
    // Scoped threads too.
    std::thread::scope(|s| {
        s.spawn(|| assert_eq!(std::fs::read_to_string("/in").unwrap(), "virtual"));
    });
}

/// One worker: its own environment, overlapping in time with the others.
fn worker(i: usize, barrier: Arc<Barrier>) -> Result<(), String> {
    let t = UNIX_EPOCH + Duration::from_secs(1_000_000 * i as u64);
    // The workers wait for each other inside their environments: none may hold std's stdout
    // lock, which the others would wait for.
    let env = Env::new()
        .share_stdout()
        .file("/cfg", format!("worker {i}"))
        .var("WORKER", i.to_string())
        .now(t)
        .seed(i as u64)
        .enter();
    barrier.wait();
    for round in 0..50 {
        let cfg = std::fs::read_to_string("/cfg").map_err(|e| e.to_string())?;
        if cfg != format!("worker {i}") {
            return Err(format!("worker {i} read {cfg:?}"));
        }
        if std::env::var("WORKER").unwrap() != i.to_string() {
            return Err(format!("worker {i} saw another WORKER"));
        }
        let now = SystemTime::now();
        if now < t || now > t + Duration::from_secs(1) {
            return Err(format!("worker {i} saw time {now:?}"));
        }
        std::fs::write(format!("/out-{round}"), i.to_string()).unwrap();
    }
    barrier.wait();
    if env.files().len() != 51 {
        return Err(format!("worker {i} has {} files", env.files().len()));
    }
    Ok(())
}

#[test]
fn eight_parallel_threads_with_different_environments() {
    let barrier = Arc::new(Barrier::new(8));
    let handles: Vec<_> = (0..8)
        .map(|i| {
            let b = barrier.clone();
            std::thread::spawn(move || worker(i, b))
        })
        .collect();
    for h in handles {
        h.join().unwrap().unwrap();
    }
}

// Eight #[test]s that libtest runs in parallel, each with its own environment.
macro_rules! parallel_tests {
    ($($name:ident = $i:expr),*) => {$(
        #[test]
        fn $name() {
            worker($i, Arc::new(Barrier::new(1))).unwrap();
        }
    )*};
}
parallel_tests!(
    par_1 = 1,
    par_2 = 2,
    par_3 = 3,
    par_4 = 4,
    par_5 = 5,
    par_6 = 6,
    par_7 = 7,
    par_8 = 8
);

fn real_temp_file(tag: &str) -> PathBuf {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    std::env::temp_dir().join(format!(
        "hermetic-real-{tag}-{}-{nanos}",
        std::process::id()
    ))
}

#[test]
fn inactive_threads_are_unaffected_while_another_thread_is_active() {
    let path = real_temp_file("inactive");
    std::fs::write(&path, "real contents").unwrap();
    let entered = Arc::new(Barrier::new(2));
    let checked = Arc::new(Barrier::new(2));
    let (e2, c2, p2) = (entered.clone(), checked.clone(), path.clone());
    let active = std::thread::spawn(move || {
        let _env = Env::new().enter();
        e2.wait();
        // Inside: the real file does not exist.
        let inside = std::fs::read_to_string(&p2).is_err();
        c2.wait();
        inside
    });
    entered.wait();
    // This thread never entered: everything is real.
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "real contents");
    assert!(std::env::var("PATH").is_ok());
    assert!(SystemTime::now() > UNIX_EPOCH + Duration::from_secs(1_750_000_000));
    assert_ne!(std::process::id(), 4242);
    checked.wait();
    assert!(active.join().unwrap());
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn a_file_opened_before_entering_keeps_working() {
    let path = real_temp_file("before");
    std::fs::write(&path, "opened outside").unwrap();
    let mut f = std::fs::File::open(&path).unwrap();
    let _env = Env::new().enter();
    let mut s = String::new();
    use std::io::Read;
    f.read_to_string(&mut s).unwrap();
    assert_eq!(s, "opened outside");
    drop(_env);
    std::fs::remove_file(&path).unwrap();
}

#[test]
fn nested_environments_restore_the_outer_one() {
    let outer = Env::new().var("LEVEL", "outer").enter();
    {
        let _inner = Env::new().var("LEVEL", "inner").enter();
        assert_eq!(std::env::var("LEVEL").unwrap(), "inner");
    }
    assert_eq!(std::env::var("LEVEL").unwrap(), "outer");
    drop(outer);
    assert!(std::env::var("LEVEL").is_err());
}

#[test]
fn entering_during_unwinding_is_fine() {
    struct EnterOnDrop;
    impl Drop for EnterOnDrop {
        fn drop(&mut self) {
            let env = Env::new().file("/f", "x").enter();
            assert_eq!(std::fs::read_to_string("/f").unwrap(), "x");
            drop(env);
        }
    }
    let r = std::panic::catch_unwind(|| {
        let _e = EnterOnDrop;
        panic!("unwinding");
    });
    assert!(r.is_err());
}
