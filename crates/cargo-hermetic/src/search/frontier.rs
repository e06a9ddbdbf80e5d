//! Stepping stones towards comparisons the code has never seen equal (seed 003's branch
//! distance, measured at the machine's comparisons): per comparison site of the code under
//! test, the test whose operands there came closest so far. Climbing from it in steps scaled to
//! the distance reaches `x / 7 == 1234` where random values and input-to-state substitution
//! (which needs the input itself compared) do not.
//!
//! A site whose operands were equal once is done with: its `==` went both ways, its `<` met its
//! boundary. The driver reports distances of pointers as the largest, so they never lead.
//!
//! The distances are the driver's per-site smallest (`cmp_closest`). The test that met a site is
//! retried cut after each of its calls, since outcomes are goals of a test's last call.

use super::ops::Space;
use super::values::int_range;
use crate::cluster::Ty;
use crate::test_case::TestCase;
use hermetic_protocol::Value;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Default, Debug, PartialEq)]
pub struct Offer {
    pub stone: bool,
    pub met: bool,
}

/// The test cut after each of its calls but the last, shortest first: a comparison met inside
/// an earlier call shows in that call's result only when it is the last one (outcomes are goals
/// of a test's last call).
pub fn prefixes(case: &TestCase) -> impl Iterator<Item = TestCase> + '_ {
    (1..case.stmts.len()).map(|n| {
        let mut cut = case.clone();
        cut.stmts.truncate(n);
        cut
    })
}

#[derive(Default)]
pub struct Frontier {
    /// Site → the smallest distance seen there and the test that reached it.
    closest: BTreeMap<u64, (u64, TestCase)>,
    /// Sites whose operands were equal in some execution.
    met: BTreeSet<u64>,
}

impl Frontier {
    /// Learns from one execution of `case`: `closest` are its `(site, distance)` pairs, already
    /// limited to the code under test. Returns whether the test is a new stepping stone, and
    /// whether it met a comparison for the first time.
    pub fn offer(&mut self, case: &TestCase, closest: &[(u64, u64)]) -> Offer {
        let mut offer = Offer::default();
        for &(site, distance) in closest {
            if distance == 0 {
                offer.met |= self.met.insert(site);
                self.closest.remove(&site);
            } else if distance != u64::MAX
                && !self.met.contains(&site)
                && self.closest.get(&site).is_none_or(|(d, _)| distance < *d)
            {
                self.closest.insert(site, (distance, case.clone()));
                offer.stone = true;
            }
        }
        offer
    }

    /// Under `HERMETIC_DEBUG`: the sites still open and the closest each came.
    pub fn describe(&self) {
        for (site, (distance, stone)) in &self.closest {
            eprintln!(
                "comparison at {site:#x}: {distance} away in {:?}",
                stone.stmts
            );
        }
        eprintln!("comparisons met: {}", self.met.len());
    }

    /// Whether the operands of this comparison site were ever equal.
    pub fn is_met(&self, site: u64) -> bool {
        self.met.contains(&site)
    }

    pub fn is_empty(&self) -> bool {
        self.closest.is_empty()
    }

    /// A step from one stepping stone: one of its integer arguments moved by an amount scaled
    /// to how far that stone's comparison still is (or by a power of two, for comparisons the
    /// argument reaches through a steeper function). `None` when the stone has no integer.
    pub fn climb(&self, rng: &mut ChaCha8Rng, space: &Space) -> Option<TestCase> {
        let stones: Vec<&(u64, TestCase)> = self.closest.values().collect();
        let &&(distance, ref stone) = stones.choose(rng)?;
        let mut places = Vec::new();
        for (i, stmt) in stone.stmts.iter().enumerate() {
            for (k, (ty, value)) in space
                .arg_types(stmt.callable)
                .into_iter()
                .zip(&stmt.args)
                .enumerate()
            {
                if let (Ty::Int(t), Value::Int(v)) = (ty, value) {
                    places.push((i, k, *v, int_range(t)));
                }
            }
        }
        let &(i, k, v, (lo, hi)) = places.choose(rng)?;
        let step = step(rng, distance);
        let moved = if rng.gen_bool(0.5) {
            v.saturating_add(step)
        } else {
            v.saturating_sub(step)
        };
        let mut child = stone.clone();
        child.stmts[i].args[k] = Value::Int(moved.clamp(lo, hi));
        Some(child)
    }
}

/// How far to move an integer whose comparison is `distance` away: the distance itself scaled
/// by 1/16 to 16 (linear code, or code that divides or multiplies the input), or a power of two
/// up to twice its magnitude (anything else).
fn step(rng: &mut ChaCha8Rng, distance: u64) -> i128 {
    let magnitude = 64 - distance.leading_zeros();
    if rng.gen_bool(0.5) {
        let scaled = match rng.gen_range(-4i32..=4) {
            k if k < 0 => distance >> -k,
            k => distance.saturating_mul(1 << k),
        };
        i128::from(scaled.max(1))
    } else {
        1i128 << rng.gen_range(0..=magnitude.min(63))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_case::Stmt;

    fn case(x: i128) -> TestCase {
        TestCase {
            home: 0,
            stmts: vec![Stmt {
                callable: 0,
                args: vec![Value::Int(x)],
            }],
            env: Default::default(),
        }
    }

    #[test]
    fn a_site_keeps_its_closest_test_until_it_is_met() {
        let stone = Offer {
            stone: true,
            met: false,
        };
        let mut f = Frontier::default();
        assert_eq!(f.offer(&case(1), &[(10, 50), (20, u64::MAX)]), stone);
        assert_eq!(
            f.offer(&case(2), &[(10, 50)]),
            Offer::default(),
            "no closer"
        );
        assert_eq!(f.offer(&case(3), &[(10, 7)]), stone);
        assert_eq!(f.closest[&10], (7, case(3)));
        assert!(!f.closest.contains_key(&20), "pointer distances never lead");
        let met = Offer {
            stone: false,
            met: true,
        };
        assert_eq!(f.offer(&case(4), &[(10, 0)]), met);
        assert!(f.is_empty());
        assert_eq!(f.offer(&case(4), &[(10, 0)]), Offer::default());
        assert_eq!(
            f.offer(&case(5), &[(10, 3)]),
            Offer::default(),
            "a met site is done with"
        );
    }

    #[test]
    fn prefixes_end_at_each_call_but_the_last() {
        let mut t = case(1);
        t.stmts.push(t.stmts[0].clone());
        t.stmts.push(t.stmts[0].clone());
        let lengths: Vec<usize> = prefixes(&t).map(|p| p.stmts.len()).collect();
        assert_eq!(lengths, vec![1, 2]);
    }

    #[test]
    fn steps_scale_with_the_distance() {
        use rand::SeedableRng;
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let steps: Vec<i128> = (0..400).map(|_| step(&mut rng, 1 << 20)).collect();
        assert!(steps.iter().all(|&s| (1..=1 << 24).contains(&s)));
        assert!(steps.contains(&(1 << 20)), "the distance itself");
        assert!(steps.contains(&(1 << 16)), "a sixteenth");
        assert!(steps.iter().any(|&s| s < 1 << 10), "small powers of two");
        let tiny: Vec<i128> = (0..50).map(|_| step(&mut rng, 1)).collect();
        assert!(tiny.iter().all(|&s| (1..=16).contains(&s)));
    }
}
