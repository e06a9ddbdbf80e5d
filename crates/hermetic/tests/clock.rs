//! The virtual clocks.

use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use hermetic::{Access, Env};

#[test]
fn system_time_starts_at_the_set_time_and_advances_by_a_fixed_step() {
    let t = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let env = Env::new().now(t).enter();
    let a = SystemTime::now();
    let b = SystemTime::now();
    assert_eq!(a, t);
    assert_eq!(b.duration_since(a).unwrap(), Duration::from_millis(1));
    assert!(env.accesses().contains(&Access::ClockRead));
}

#[test]
fn default_date_is_fixed() {
    let _env = Env::new().enter();
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap();
    assert_eq!(now.as_secs(), hermetic::DEFAULT_NOW_SECS);
}

#[test]
fn instant_elapsed_is_positive_and_deterministic() {
    let run = || {
        let _env = Env::new().enter();
        let start = Instant::now();
        let mid = Instant::now();
        (mid - start, start.elapsed())
    };
    let (a1, b1) = run();
    let (a2, b2) = run();
    assert_eq!(a1, Duration::from_millis(1));
    assert_eq!(b1, Duration::from_millis(2));
    assert_eq!((a1, b1), (a2, b2));
}

#[test]
fn clock_step_is_configurable() {
    let _env = Env::new().clock_step(Duration::ZERO).enter();
    let a = Instant::now();
    assert_eq!(a.elapsed(), Duration::ZERO);
    drop(_env);
    let _env = Env::new().clock_step(Duration::from_secs(5)).enter();
    let a = Instant::now();
    assert_eq!(a.elapsed(), Duration::from_secs(5));
}

#[test]
fn inactive_threads_see_the_real_clock() {
    // A thread started before the environment is entered stays in the real world.
    let (ask, asked) = std::sync::mpsc::channel::<()>();
    let (tell, told) = std::sync::mpsc::channel();
    let outside = std::thread::spawn(move || {
        asked.recv().unwrap();
        tell.send(SystemTime::now()).unwrap();
    });
    let _env = Env::new().enter();
    ask.send(()).unwrap();
    let real = told.recv().unwrap();
    outside.join().unwrap();
    assert!(real > UNIX_EPOCH + Duration::from_secs(1_750_000_000));
    assert_eq!(
        SystemTime::now(),
        UNIX_EPOCH + Duration::from_secs(hermetic::DEFAULT_NOW_SECS)
    );
}

#[test]
fn sleep_advances_the_virtual_clock_without_waiting() {
    let real_start = std::time::Instant::now();
    let _env = Env::new().clock_step(Duration::ZERO).enter();
    let start = Instant::now();
    std::thread::sleep(Duration::from_secs(3600));
    assert_eq!(start.elapsed(), Duration::from_secs(3600));
    drop(_env);
    assert!(real_start.elapsed() < Duration::from_secs(60));
}

#[test]
fn timed_waits_take_real_time_as_asked_and_agree_with_the_virtual_clock() {
    let real_start = std::time::Instant::now();
    let _env = Env::new().clock_step(Duration::ZERO).enter();
    let (_tx, rx) = std::sync::mpsc::channel::<()>();
    let start = Instant::now();
    let r = rx.recv_timeout(Duration::from_millis(50));
    assert!(r.is_err());
    assert!(start.elapsed() >= Duration::from_millis(50));
    let pair = (std::sync::Mutex::new(false), std::sync::Condvar::new());
    let g = pair.0.lock().unwrap();
    let (_g, t) = pair.1.wait_timeout(g, Duration::from_millis(20)).unwrap();
    assert!(t.timed_out());
    drop(_env);
    let real = real_start.elapsed();
    assert!(
        real >= Duration::from_millis(70) && real < Duration::from_secs(30),
        "{real:?}"
    );
}

#[test]
fn guard_reports_the_virtual_time_without_advancing_it() {
    let t = UNIX_EPOCH + Duration::from_secs(42);
    let env = Env::new().now(t).enter();
    assert_eq!(env.now(), t);
    assert_eq!(env.now(), t);
    let _ = SystemTime::now();
    assert_eq!(env.now(), t + Duration::from_millis(1));
    // Before the epoch works too.
    drop(env);
    let before = UNIX_EPOCH - Duration::from_millis(1500);
    let env = Env::new().now(before).enter();
    assert_eq!(SystemTime::now(), before);
    assert_eq!(env.now(), before + Duration::from_millis(1));
}
