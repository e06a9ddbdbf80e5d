//! An environment's randomness: bytes the test gave first, then a small deterministic stream
//! (xoshiro256** seeded through splitmix64).
//!
//! Each kind of draw has its own source (`Draw`): the code's draws get the bytes the test gave
//! first (`Env::random_bytes`, what a recorded call drew), std's hash-key draws get the keys the
//! test gave (`Env::hash_keys`), since whether a thread draws its keys inside a call depends on
//! what it did before, and names the runtime makes up (`mkstemp`) get the stream only.

/// What a draw of random bytes is for: the replay serves each kind from its own source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Draw {
    /// The code asked (getrandom, getentropy, `/dev/urandom`): given bytes first.
    Code,
    /// std's `RandomState` keys of a thread: the given keys, if any. Kept apart from
    /// [`Draw::Code`] because whether a thread draws its keys inside a call depends on what the
    /// thread did before, which a test cannot repeat.
    HashKeys,
    /// Names the runtime makes up itself (`mkstemp`): never the given bytes, which replay what
    /// a real run drew through the C library.
    Names,
}

pub(crate) struct Randomness {
    seeded: Rng,
    given: Vec<u8>,
    given_pos: usize,
    hash_keys: Option<[u8; 16]>,
}

impl Randomness {
    pub fn new(seed: u64, given: Vec<u8>, hash_keys: Option<[u8; 16]>) -> Randomness {
        Randomness {
            seeded: Rng::new(seed),
            given,
            given_pos: 0,
            hash_keys,
        }
    }

    pub fn fill(&mut self, draw: Draw, buf: &mut [u8]) {
        match (draw, self.hash_keys) {
            (Draw::Code, _) => {
                let rest = &self.given[self.given_pos..];
                let n = rest.len().min(buf.len());
                buf[..n].copy_from_slice(&rest[..n]);
                self.given_pos += n;
                self.seeded.fill(&mut buf[n..]);
            }
            (Draw::HashKeys, Some(keys)) if buf.len() == keys.len() => buf.copy_from_slice(&keys),
            _ => self.seeded.fill(buf),
        }
    }
}

pub(crate) struct Rng {
    s: [u64; 4],
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut x = seed;
        let mut next = || {
            x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = x;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        Rng {
            s: [next(), next(), next(), next()],
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.s;
        let result = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        result
    }

    pub fn fill(&mut self, buf: &mut [u8]) {
        for chunk in buf.chunks_mut(8) {
            let v = self.next_u64().to_le_bytes();
            chunk.copy_from_slice(&v[..chunk.len()]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_bytes_come_first_then_the_seeded_stream() {
        let mut seeded = [0u8; 8];
        Rng::new(3).fill(&mut seeded);
        let mut r = Randomness::new(3, vec![1, 2, 3], None);
        let mut a = [0u8; 2];
        r.fill(Draw::Code, &mut a);
        assert_eq!(a, [1, 2]);
        let mut b = [0u8; 9];
        r.fill(Draw::Code, &mut b);
        assert_eq!(b[0], 3);
        assert_eq!(b[1..], seeded);
    }

    #[test]
    fn hash_keys_and_names_never_take_given_bytes() {
        let keys = [7u8; 16];
        let mut r = Randomness::new(3, vec![1], Some(keys));
        let mut k = [0u8; 16];
        r.fill(Draw::HashKeys, &mut k);
        assert_eq!(k, keys);
        let mut again = [0u8; 16];
        r.fill(Draw::HashKeys, &mut again);
        assert_eq!(again, keys, "every thread gets the given keys");
        let mut name = [0u8; 6];
        r.fill(Draw::Names, &mut name);
        let mut c = [0u8; 1];
        r.fill(Draw::Code, &mut c);
        assert_eq!(c, [1]);
    }
}
