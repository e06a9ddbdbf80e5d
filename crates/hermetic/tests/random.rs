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

fn getrandom_bytes<const N: usize>(flags: libc::c_uint) -> [u8; N] {
    let mut buf = [0u8; N];
    // SAFETY: a buffer of ours, of the length given.
    let n = unsafe { libc::getrandom(buf.as_mut_ptr().cast(), N, flags) };
    assert_eq!(n, N as isize);
    buf
}

/// Every way the code draws randomness takes the given bytes first, in order; then the
/// seeded stream follows, from its start.
#[test]
fn given_random_bytes_come_first_whatever_the_source() {
    let seeded: [u8; 8] = {
        let _env = Env::new().seed(5).enter();
        getrandom_bytes(0)
    };
    let given: Vec<u8> = (1..=20).collect();
    let _env = Env::new().seed(5).random_bytes(&given).enter();
    assert_eq!(getrandom_bytes::<4>(0), [1, 2, 3, 4]);
    let mut b = [0u8; 4];
    // SAFETY: a buffer of ours, of the length given.
    assert_eq!(unsafe { libc::getentropy(b.as_mut_ptr().cast(), 4) }, 0);
    assert_eq!(b, [5, 6, 7, 8]);
    use std::io::Read;
    std::fs::File::open("/dev/urandom")
        .unwrap()
        .read_exact(&mut b)
        .unwrap();
    assert_eq!(b, [9, 10, 11, 12]);
    // SAFETY: getrandom's arguments: a buffer of ours, of the length given.
    let r = unsafe { libc::syscall(libc::SYS_getrandom, b.as_mut_ptr(), 4usize, 0u32) };
    assert_eq!((r, b), (4, [13, 14, 15, 16]));
    // 4 given bytes are left: then the seeded stream.
    let mixed: [u8; 8] = getrandom_bytes(0);
    assert_eq!(mixed[..4], [17, 18, 19, 20]);
    assert_eq!(mixed[4..], seeded[..4]);
}

fn hash_of_zero() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u8(0);
    h.finish()
}

/// std's hash keys come from `hash_keys` whatever the seed, and never take given bytes.
#[test]
fn hash_keys_are_what_randomstate_gets() {
    let with = |seed: u64, keys: Option<(u64, u64)>| {
        let mut env = Env::new().seed(seed).random_bytes([9; 16]);
        if let Some((k0, k1)) = keys {
            env = env.hash_keys(k0, k1);
        }
        let env = env.enter();
        let out = std::thread::spawn(|| {
            let h = hash_of_zero();
            (h, getrandom_bytes::<16>(0))
        })
        .join()
        .unwrap();
        drop(env);
        out
    };
    let (a, bytes) = with(1, Some((3, 4)));
    assert_eq!(bytes, [9; 16], "the key draw left the given bytes alone");
    assert_eq!(with(2, Some((3, 4))).0, a);
    assert_ne!(with(2, Some((3, 5))).0, a);
    assert_ne!(with(1, None).0, with(2, None).0);
}

/// The case record must replay: a function that builds a `HashMap` (so the thread may draw its
/// hash keys inside it) and rolls a die with bytes from getrandom. Whether the thread draws its
/// keys inside the call or had them before, the die gets the given bytes.
fn count_and_roll() -> (usize, u32) {
    let words: HashMap<&str, usize> = ["a", "b", "a"].iter().fold(HashMap::new(), |mut m, w| {
        *m.entry(*w).or_default() += 1;
        m
    });
    let die = u32::from_le_bytes(getrandom_bytes(0)) % 6 + 1;
    (words.len(), die)
}

#[test]
fn a_die_rolled_beside_a_hashmap_gets_the_given_bytes() {
    let env = || Env::new().random_bytes(4u32.to_le_bytes());
    // Keys drawn inside the call.
    let _e = env().enter();
    let first = std::thread::spawn(count_and_roll).join().unwrap();
    drop(_e);
    // Keys drawn before the call.
    let _e = env().enter();
    let second = std::thread::spawn(|| {
        let _before: HashMap<u8, u8> = HashMap::new();
        count_and_roll()
    })
    .join()
    .unwrap();
    assert_eq!(first, (2, 5));
    assert_eq!(second, (2, 5));
}

/// Emitted tests enter their `Env` on libtest's thread for the test, which has drawn no hash
/// keys yet (libtest runs each test on a thread of its own, also with `--test-threads=1`): the
/// call's first map gets the given keys, as on a fresh thread.
#[test]
fn libtests_thread_draws_its_keys_inside_the_test() {
    let expected = {
        let _env = Env::new().hash_keys(11, 12).enter();
        std::thread::spawn(hash_of_zero).join().unwrap()
    };
    let _env = Env::new().hash_keys(11, 12).enter();
    assert_eq!(hash_of_zero(), expected);
}
