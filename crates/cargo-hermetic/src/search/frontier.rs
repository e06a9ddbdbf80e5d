//! Stepping stones towards comparisons the code has never seen equal (seed 003's branch
//! distance, measured at the machine's comparisons): per comparison site of the code under
//! test, the test whose operands there came closest so far. Climbing from it in steps scaled to
//! the distance reaches `x / 7 == 1234` where random values and input-to-state substitution
//! (which needs the input itself compared) do not.
//!
//! A site whose operands were equal once is done with: its `==` went both ways, its `<` met its
//! boundary. The driver reports distances of pointers as the largest, so they never lead.
//!
//! A count compared with a limit (headers read, entries parsed) is in no argument: where the
//! stone's text has about as many lines as the count, a climb says one of its lines again.
//!
//! The distances are the driver's per-site smallest (`cmp_closest`). The test that met a site is
//! retried cut after each of its calls, since outcomes are goals of a test's last call.

use super::cmp::{arg_leaves, set_bytes, ArgLeaf};
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
    /// Site → the smallest distance seen there, the test that reached it, and the smaller
    /// operand of the site's closest comparison the test's report holds.
    closest: BTreeMap<u64, (u64, TestCase, u64)>,
    /// Sites whose operands were equal in some execution.
    met: BTreeSet<u64>,
}

impl Frontier {
    /// Learns from one execution of `case`: `closest` are its `(site, distance)` pairs and
    /// `last` its latest comparisons' `(site, operand, operand)`, already limited to the code
    /// under test. Returns whether the test is a new stepping stone, and whether it met a
    /// comparison for the first time.
    pub fn offer(
        &mut self,
        case: &TestCase,
        closest: &[(u64, u64)],
        last: &[(u64, u64, u64)],
    ) -> Offer {
        let mut offer = Offer::default();
        for &(site, distance) in closest {
            if distance == 0 {
                offer.met |= self.met.insert(site);
                self.closest.remove(&site);
            } else if distance != u64::MAX
                && !self.met.contains(&site)
                && self.closest.get(&site).is_none_or(|(d, ..)| distance < *d)
            {
                let smaller = last
                    .iter()
                    .filter(|&&(at, ..)| at == site)
                    .map(|&(_, a, b)| (a.abs_diff(b), a.min(b)))
                    .min()
                    .map_or(u64::MAX, |(_, smaller)| smaller);
                self.closest.insert(site, (distance, case.clone(), smaller));
                offer.stone = true;
            }
        }
        offer
    }

    /// Under `HERMETIC_DEBUG`: the sites still open and the closest each came.
    pub fn describe(&self) {
        for (site, (distance, stone, _)) in &self.closest {
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
    /// argument reaches through a steeper function); or, for a count the code compares, one of
    /// its lines said again ([`repeat_line`]). `None` when the stone has neither.
    pub fn climb(&self, rng: &mut ChaCha8Rng, space: &Space) -> Option<TestCase> {
        let stones: Vec<&(u64, TestCase, u64)> = self.closest.values().collect();
        let &&(distance, ref stone, smaller) = stones.choose(rng)?;
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
        // A count of lines closes a small distance only (a limit of headers, of entries), and
        // only where the compared count is no more than the lines the text holds.
        let lines = if distance <= MAX_COUNT_DISTANCE {
            line_leaves(space, stone, smaller)
        } else {
            Vec::new()
        };
        if !lines.is_empty() && (places.is_empty() || rng.gen_bool(0.5)) {
            return repeat_line(rng, space, stone, &lines, distance);
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

/// Most times a climb says a line again, and the longest text it grows (stones climb from
/// stones: without a cap on the whole, texts would grow without end).
const MAX_REPEATS: usize = 64;
const MAX_GROWN_BYTES: usize = 4096;
/// The largest distance a climb tries to close by saying lines again.
const MAX_COUNT_DISTANCE: u64 = 4 * MAX_REPEATS as u64;

/// Lines with text a compared count may stand for, at most: a header's count is compared
/// before it is added, after the request line, and a file's first lines are often a header.
const COUNT_SLACK: u64 = 3;

/// The stone's texts and byte strings that may grow and whose lines with text number `count`
/// to `count + COUNT_SLACK` (a count of them, not a byte or an index into them).
fn line_leaves(space: &Space, stone: &TestCase, count: u64) -> Vec<ArgLeaf> {
    let mut leaves = arg_leaves(space, stone);
    leaves.retain(|l| {
        let lines = line_starts(&l.bytes).len() as u64;
        !l.fixed
            && l.bytes.contains(&b'\n')
            && count >= 1
            && (count..=count + COUNT_SLACK).contains(&lines)
    });
    leaves
}

/// A step from a stone whose input has lines: one of its lines said again a number of times
/// scaled to the distance, for counts the code compares with a limit (headers read against a
/// maximum, entries against a capacity) that no integer argument holds.
fn repeat_line(
    rng: &mut ChaCha8Rng,
    space: &Space,
    stone: &TestCase,
    leaves: &[ArgLeaf],
    distance: u64,
) -> Option<TestCase> {
    let leaf = leaves.choose(rng)?;
    let &start = line_starts(&leaf.bytes).choose(rng)?;
    let times = usize::try_from(step(rng, distance)).unwrap_or(MAX_REPEATS);
    let grown = with_line_repeated(&leaf.bytes, start, times)?;
    let mut child = stone.clone();
    let ty = space.arg_types(child.stmts[leaf.stmt].callable)[leaf.arg].clone();
    let arg = &mut child.stmts[leaf.stmt].args[leaf.arg];
    set_bytes(&ty, arg, &mut { leaf.leaf }, &mut |_| grown.clone()).then_some(child)
}

/// Where each line of `bytes` that holds more than its break starts.
fn line_starts(bytes: &[u8]) -> Vec<usize> {
    let starts = std::iter::once(0).chain(
        (0..bytes.len())
            .filter(|&i| bytes[i] == b'\n')
            .map(|i| i + 1),
    );
    starts
        .filter(|&i| {
            bytes[i..]
                .iter()
                .take_while(|&&b| b != b'\n')
                .any(|&b| b != b'\r')
        })
        .collect()
}

/// `bytes` with the line at `start` said `times` more times after it (at most [`MAX_REPEATS`],
/// and not beyond [`MAX_GROWN_BYTES`] in all); a last line without a break of its own gets the
/// text's.
fn with_line_repeated(bytes: &[u8], start: usize, times: usize) -> Option<Vec<u8>> {
    let end = bytes[start..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |p| start + p + 1);
    let mut line = bytes[start..end].to_vec();
    if !line.ends_with(b"\n") {
        let crlf = bytes.windows(2).any(|w| w == b"\r\n");
        let brk: &[u8] = if crlf { b"\r\n" } else { b"\n" };
        line.splice(0..0, brk.iter().copied());
    }
    let room = MAX_GROWN_BYTES.saturating_sub(bytes.len());
    let times = times.min(MAX_REPEATS).min(room / line.len());
    if times == 0 {
        return None;
    }
    let mut out = bytes[..end].to_vec();
    (0..times).for_each(|_| out.extend_from_slice(&line));
    out.extend_from_slice(&bytes[end..]);
    Some(out)
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
        assert_eq!(f.offer(&case(1), &[(10, 50), (20, u64::MAX)], &[]), stone);
        assert_eq!(
            f.offer(&case(2), &[(10, 50)], &[]),
            Offer::default(),
            "no closer"
        );
        let last = [(10, 9, 1), (10, 4, 11), (30, 1, 1)];
        assert_eq!(f.offer(&case(3), &[(10, 7)], &last), stone);
        assert_eq!(
            f.closest[&10],
            (7, case(3), 4),
            "the closest pair's smaller operand"
        );
        assert!(!f.closest.contains_key(&20), "pointer distances never lead");
        let met = Offer {
            stone: false,
            met: true,
        };
        assert_eq!(f.offer(&case(4), &[(10, 0)], &[]), met);
        assert!(f.is_empty());
        assert_eq!(f.offer(&case(4), &[(10, 0)], &[]), Offer::default());
        assert_eq!(
            f.offer(&case(5), &[(10, 3)], &[]),
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
    fn a_line_is_said_again_with_its_break() {
        let head = b"GET / HTTP/1.1\r\nHost: a\r\n\r\nbody";
        let starts = line_starts(head);
        assert_eq!(starts, [0, 16, 27], "the empty line is no line to repeat");
        assert_eq!(
            with_line_repeated(head, 16, 2).unwrap(),
            b"GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\nHost: a\r\n\r\nbody"
        );
        assert_eq!(
            with_line_repeated(head, 27, 1).unwrap(),
            b"GET / HTTP/1.1\r\nHost: a\r\n\r\nbody\r\nbody",
            "the last line gets the text's break"
        );
        assert_eq!(with_line_repeated(b"k=v", 0, 2).unwrap(), b"k=v\nk=v\nk=v");
        let long = with_line_repeated(b"x\n", 0, 1000).unwrap();
        assert_eq!(
            long.len(),
            2 * (1 + MAX_REPEATS),
            "at most MAX_REPEATS more"
        );
        assert_eq!(with_line_repeated(b"x\n", 0, 0), None);
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
