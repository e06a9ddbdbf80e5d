//! The random bytes a recorded call drew → what its test replays: the bytes in the order they
//! were drawn (`Env::random_bytes`), and std's `HashMap` keys when the call drew them
//! (`Env::hash_keys`), so maps it builds iterate in the recorded order.
//!
//! A test replays at most [`MAX_REPLAYED`] bytes (a call that drew more gets no replay), and the
//! first hash keys the call drew: a thread draws its keys once.

use super::log::Event;
use hermetic_protocol::EnvSpec;

/// Random bytes a test replays at most, so its set-up stays readable: a die roll takes 4, a
/// UUID 16, the seed of `rand::rng()` 32. A call that drew more gets a test without them, which
/// passes only if what the call returned does not depend on them.
pub const MAX_REPLAYED: usize = 256;

/// What one call drew.
#[derive(Debug, Default, PartialEq)]
pub struct Drawn {
    bytes: Vec<u8>,
    hash_keys: Option<(u64, u64)>,
    /// Draws whose bytes were not logged.
    unknown: usize,
}

pub fn drawn(events: &[Event]) -> Drawn {
    let mut d = Drawn::default();
    for e in events {
        match e {
            Event::Random { hex: Some(h) } => d.bytes.extend_from_slice(&h.0),
            Event::Random { hex: None } => d.unknown += 1,
            // A thread draws its keys once: the first draw is the call's.
            Event::HashKeys { hex } if d.hash_keys.is_none() && hex.0.len() == 16 => {
                let k0 = u64::from_ne_bytes(hex.0[..8].try_into().expect("8 bytes"));
                let k1 = u64::from_ne_bytes(hex.0[8..].try_into().expect("8 bytes"));
                d.hash_keys = Some((k0, k1));
            }
            _ => {}
        }
    }
    d
}

impl Drawn {
    /// Adds the replay to the test's environment.
    pub fn replay_in(&self, spec: &mut EnvSpec) {
        if self.unreplayed().is_none() {
            spec.random_bytes = self.bytes.clone();
        }
        spec.hash_keys = self.hash_keys;
    }

    /// Why the bytes the call drew are not replayed, when they are not.
    pub fn unreplayed(&self) -> Option<String> {
        if self.unknown > 0 {
            Some("the runtime did not log its random bytes".into())
        } else if self.bytes.len() > MAX_REPLAYED {
            Some(format!(
                "it drew {} random bytes, more than the {MAX_REPLAYED} a test replays",
                self.bytes.len()
            ))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::log::Hex;

    #[test]
    fn bytes_in_order_and_the_first_keys() {
        let keys: Vec<u8> = (1..=16).collect();
        let events = vec![
            Event::HashKeys {
                hex: Hex(keys.clone()),
            },
            Event::Random {
                hex: Some(Hex(vec![1, 2])),
            },
            Event::Now { secs: 1 },
            Event::Random {
                hex: Some(Hex(vec![3])),
            },
        ];
        let mut spec = EnvSpec::default();
        let d = drawn(&events);
        d.replay_in(&mut spec);
        assert_eq!(spec.random_bytes, vec![1, 2, 3]);
        let k0 = u64::from_ne_bytes(keys[..8].try_into().unwrap());
        assert_eq!(spec.hash_keys.map(|k| k.0), Some(k0));
        assert_eq!(d.unreplayed(), None);
    }

    #[test]
    fn too_many_or_unknown_bytes_are_not_replayed() {
        let big = vec![Event::Random {
            hex: Some(Hex(vec![7; MAX_REPLAYED + 1])),
        }];
        let mut spec = EnvSpec::default();
        drawn(&big).replay_in(&mut spec);
        assert!(spec.random_bytes.is_empty());
        assert!(drawn(&big)
            .unreplayed()
            .unwrap()
            .contains("257 random bytes"));
        let unknown = vec![Event::Random { hex: None }];
        assert!(drawn(&unknown).unreplayed().is_some());
    }
}
