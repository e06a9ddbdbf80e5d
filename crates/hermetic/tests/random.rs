//! Deterministic randomness: getrandom, HashMap order, the rand crate.

use std::collections::HashMap;

use hermetic::{Access, Env};

/// Runs `f` on a thread that is inside an environment with `seed` from its start (std's
/// and rand's per-thread generators are seeded on first use in a thread).
fn in_fresh_thread<T: Send + 'static>(seed: u64, f: fn() -> T) -> (T, Vec<Access>) {
    let env = Env::new().seed(seed).enter();
    let out = std::thread::spawn(f).join().unwrap();
    (out, env.accesses())
}

fn hashmap_order() -> Vec<u32> {
    let m: HashMap<u32, ()> = (0..64).map(|i| (i, ())).collect();
    m.keys().copied().collect()
}

#[test]
fn hashmap_iteration_order_repeats_under_the_same_seed() {
    let (a, acc) = in_fresh_thread(7, hashmap_order);
    let (b, _) = in_fresh_thread(7, hashmap_order);
    assert_eq!(a, b);
    assert!(acc.contains(&Access::RandomRead));
    // A different seed gives (with overwhelming probability) a different order.
    let (c, _) = in_fresh_thread(8, hashmap_order);
    assert_ne!(a, c);
}

fn rand_values() -> Vec<u64> {
    use rand::Rng;
    let mut r = rand::rng();
    (0..8).map(|_| r.random()).collect()
}

#[test]
fn rand_thread_rng_repeats_under_the_same_seed() {
    let (a, _) = in_fresh_thread(42, rand_values);
    let (b, _) = in_fresh_thread(42, rand_values);
    let (c, _) = in_fresh_thread(43, rand_values);
    assert_eq!(a, b);
    assert_ne!(a, c);
}

fn os_rng_values() -> [u8; 32] {
    use rand::TryRngCore;
    let mut buf = [0u8; 32];
    rand::rngs::OsRng.try_fill_bytes(&mut buf).unwrap();
    buf
}

#[test]
fn os_randomness_is_the_seeded_stream() {
    let (a, _) = in_fresh_thread(1, os_rng_values);
    let (b, _) = in_fresh_thread(1, os_rng_values);
    assert_eq!(a, b);
    // Also on the test thread itself, and through /dev/urandom.
    let first = {
        let _env = Env::new().seed(1).enter();
        os_rng_values()
    };
    assert_eq!(first, a);
    let from_dev = {
        let _env = Env::new().seed(1).enter();
        let mut buf = [0u8; 32];
        use std::io::Read;
        std::fs::File::open("/dev/urandom")
            .unwrap()
            .read_exact(&mut buf)
            .unwrap();
        buf
    };
    assert_eq!(from_dev, a);
}

#[test]
fn real_randomness_outside() {
    let mut a = [0u8; 16];
    let mut b = [0u8; 16];
    use rand::TryRngCore;
    rand::rngs::OsRng.try_fill_bytes(&mut a).unwrap();
    rand::rngs::OsRng.try_fill_bytes(&mut b).unwrap();
    assert_ne!(a, b);
}

/// The runtime builds its own state on the thread that enters an environment; that must not
/// draw the thread's `RandomState` keys from the real `getrandom` (the code under test's first
/// `RandomState` on the thread would then differ from run to run).
#[test]
fn first_random_state_on_an_entering_thread_follows_the_seed() {
    use std::hash::{BuildHasher, Hasher};
    let draw = || {
        std::thread::spawn(|| {
            let _env = hermetic::Env::new().seed(11).enter();
            let mut h = std::collections::hash_map::RandomState::new().build_hasher();
            h.write_u8(0);
            h.finish()
        })
        .join()
        .unwrap()
    };
    assert_eq!(draw(), draw());
}
