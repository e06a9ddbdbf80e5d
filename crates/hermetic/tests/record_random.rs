//! Record mode logs the random bytes each probed call drew, std's hash-key draw apart, and an
//! `Env` given those bytes replays the call: a function that builds a `HashMap` and rolls a die
//! with bytes from getrandom, called first on a thread that has no hash keys yet (it draws them
//! inside the call) and then again (the keys were drawn before).

use std::collections::HashMap;

use hermetic::record::{enter, Site, ViaDebug as _, Wrap};
use hermetic::Env;

static TALLY: Site = Site::new(1);

/// The words in the map's iteration order (which the hash keys decide), and a die roll.
fn tally_and_roll(words: &[&str]) -> (Vec<String>, u32) {
    let call = enter(&TALLY, |w| (&&Wrap(&words)).capture(w));
    let mut counts: HashMap<&str, usize> = HashMap::new();
    for w in words {
        *counts.entry(w).or_default() += 1;
    }
    let mut die = [0u8; 4];
    // SAFETY: a buffer of ours, of the length given.
    assert_eq!(unsafe { libc::getrandom(die.as_mut_ptr().cast(), 4, 0) }, 4);
    let r = (
        counts.keys().map(|k| k.to_string()).collect(),
        u32::from_le_bytes(die) % 6 + 1,
    );
    call.exit(|w| (&&Wrap(&r)).capture(w));
    r
}

/// The bytes of the log line's first event of kind `k`, in hex.
fn hex_of(line: &str, k: &str) -> Option<Vec<u8>> {
    let start = line.find(&format!("\"k\":\"{k}\",\"hex\":\""))? + k.len() + 14;
    let hex = &line[start..start + line[start..].find('"')?];
    Some(
        (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect(),
    )
}

fn replay(
    random: &[u8],
    keys: Option<&[u8]>,
    words: &'static [&'static str],
) -> (Vec<String>, u32) {
    let mut env = Env::new().random_bytes(random);
    if let Some(k) = keys {
        let k0 = u64::from_ne_bytes(k[..8].try_into().unwrap());
        let k1 = u64::from_ne_bytes(k[8..].try_into().unwrap());
        env = env.hash_keys(k0, k1);
    }
    let _env = env.enter();
    // A fresh thread, as libtest runs each test on.
    std::thread::spawn(move || tally_and_roll(words))
        .join()
        .unwrap()
}

const WORDS: &[&str] = &[
    "pear", "fig", "pear", "kiwi", "plum", "lime", "date", "sloe",
];

#[test]
fn random_bytes_and_hash_keys_are_logged_and_replay_the_call() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log.jsonl");
    // SAFETY: the only test in this binary; no other thread reads the environment yet.
    unsafe { std::env::set_var("HERMETIC_RECORD", &log) };
    let (first, second) = std::thread::spawn(|| (tally_and_roll(WORDS), tally_and_roll(WORDS)))
        .join()
        .unwrap();
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");

    // The first call drew the thread's hash keys, then 4 bytes for the die.
    let keys = hex_of(lines[0], "hashkeys").expect("the key draw is logged");
    assert_eq!(keys.len(), 16);
    let die = hex_of(lines[0], "random").expect("the die's bytes are logged");
    assert_eq!(die.len(), 4, "{}", lines[0]);
    // Replayed with both, the call returns what it did: the same die, the same map order.
    assert_eq!(replay(&die, Some(&keys), WORDS), first);

    // The second call found the keys drawn: only the die is logged. In a test the call draws
    // keys of its own (from the seed), which take none of the die's bytes.
    assert!(hex_of(lines[1], "hashkeys").is_none(), "{}", lines[1]);
    let die = hex_of(lines[1], "random").unwrap();
    assert_eq!(replay(&die, None, WORDS).1, second.1);
}
