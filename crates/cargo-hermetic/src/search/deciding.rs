//! Input-to-state towards the comparisons that decided a run: the last ones the code under
//! test made before it returned (`ExecReport::cmp_last`, in the order made). A parser that
//! gave up did so at its last comparison: the month byte that matched no arm, the checksum
//! read from a trailer that was not the one computed, the length that was not 24. Where the
//! test holds the operand the code read, the other operand goes in its place, in the form the
//! test holds it: an integer argument, a byte of a string or byte slice (also through `b'0'`,
//! `b'a'`, `b'A'`, as `b - b'0' < 10` compares), a little- or big-endian `u16`/`u32`/`u64`
//! inside bytes, decimal text, or a length (the string padded or cut; a byte slice also cut
//! from inside, after its first byte: a record's payload between its tag and its trailer).

use super::cmp::{self, ArgLeaf, Eager, Edit};
use super::ops::Space;
use crate::test_case::TestCase;
use hermetic_protocol::Value;
use std::collections::BTreeSet;

/// What a candidate made by [`follow`] aimed at: its parent's deciding comparison site, and
/// how many comparisons of the code under test its parent's run made.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Aim {
    site: u64,
    depth: usize,
}

impl Aim {
    /// The deciding comparison of a run: the first of its [`deciding`] pairs; `depth` is how
    /// many comparisons of the code under test it made.
    pub fn of(pairs: &[(u64, u64, u64)], depth: usize) -> Option<Aim> {
        let &(site, _, _) = pairs.first()?;
        Some(Aim { site, depth })
    }

    /// Whether a run deciding at `now` got past this aim: it decided at another site (not at
    /// the same one with another operand: a miss by one, a sideways move), after as many
    /// comparisons at least (not earlier, at a check the edit broke).
    pub fn passed_by(&self, now: Option<&Aim>) -> bool {
        now.is_some_and(|n| n.site != self.site && n.depth >= self.depth)
    }
}

/// How many distinct comparison sites, counted back from the run's last, are aimed at.
const SITES: usize = 3;

/// The run's deciding comparisons: of `last` (`(site, operand, other)`, oldest first, already
/// limited to the code under test), those of its last [`SITES`] sites, latest first.
pub fn deciding(last: &[(u64, u64, u64)]) -> Vec<(u64, u64, u64)> {
    let mut sites: Vec<u64> = Vec::new();
    for &(site, _, _) in last.iter().rev() {
        if sites.len() == SITES {
            break;
        }
        if !sites.contains(&site) {
            sites.push(site);
        }
    }
    let mut out: Vec<(u64, u64, u64)> = last
        .iter()
        .rev()
        .copied()
        .filter(|(site, _, _)| sites.contains(site))
        .collect();
    // Latest site first; within a site, latest first.
    out.sort_by_key(|&(site, _, _)| sites.iter().position(|&s| s == site));
    out
}

/// Every test with an operand of a deciding comparison (`pairs`, from [`deciding`]) replaced
/// where `case` holds it, each with the key it is tried under: exact replacements first (the
/// comparisons' order), then the neighbours (`y - 1`, `y + 1`: a `<` or `>` missed by one).
/// The key is the test made: the same edit of another test is another try (the byte that
/// failed the month check this time may have failed an earlier check before), the same test
/// is not.
pub fn follow(space: &Space, case: &TestCase, pairs: &[(u64, u64, u64)]) -> Vec<Eager> {
    follow_by_offset(space, case, pairs).concat()
}

/// [`follow`]'s edits in three lists: the exact replacements, the ones by one less, by one
/// more.
pub fn follow_by_offset(
    space: &Space,
    case: &TestCase,
    pairs: &[(u64, u64, u64)],
) -> [Vec<Eager>; 3] {
    let leaves = cmp::arg_leaves(space, case);
    let mut out: [Vec<Eager>; 3] = Default::default();
    let mut seen: BTreeSet<cmp::Tried> = BTreeSet::new();
    for (list, delta) in out.iter_mut().zip([0i128, -1, 1]) {
        for &(_, x, y) in pairs {
            let Some(y) = (y as i128).checked_add(delta).filter(|y| *y >= 0) else {
                continue;
            };
            let y = y as u64;
            if y == x {
                continue;
            }
            let mut made = int_leaves(space, case, x, y);
            made.extend(byte_edits(space, case, &leaves, x, y));
            if made.is_empty() {
                made = shifted_ints(space, case, x, y);
            }
            for t in made {
                let key = (key_of(&t), 0, 0, 0, usize::MAX - 2);
                if seen.insert(key.clone()) {
                    list.push((key, t));
                }
            }
        }
    }
    out
}

/// A deterministic digest of a test (SipHash with fixed keys), as a [`cmp::Tried`] operand.
pub(super) fn key_of(t: &TestCase) -> Vec<u8> {
    use std::hash::Hasher;
    /// Hashes text as it is written: the digest of the `String` the text makes, without it.
    struct HashText<H>(H);
    impl<H: Hasher> std::fmt::Write for HashText<H> {
        fn write_str(&mut self, s: &str) -> std::fmt::Result {
            self.0.write(s.as_bytes());
            Ok(())
        }
    }
    #[allow(deprecated)]
    let mut text = HashText(std::hash::SipHasher::new());
    std::fmt::Write::write_fmt(&mut text, format_args!("{:?}", t.stmts))
        .expect("hashing cannot fail");
    // What `str`'s `Hash` adds after the bytes.
    let mut h = text.0;
    h.write_u8(0xff);
    let mut key = b"decided".to_vec();
    key.extend(h.finish().to_le_bytes());
    key
}

/// Integer leaves of the test equal to `x` at some width, set to `y` at that width.
fn int_leaves(space: &Space, case: &TestCase, x: u64, y: u64) -> Vec<TestCase> {
    let mut out = Vec::new();
    for (i, stmt) in case.stmts.iter().enumerate() {
        for (k, arg) in stmt.args.iter().enumerate() {
            let mut held = Vec::new();
            cmp::ints(arg, &mut held);
            for (leaf, v) in held.into_iter().enumerate() {
                for width in [8u32, 16, 32, 64] {
                    let mask = u64::MAX >> (64 - width);
                    if (v as u64) & mask != x || y & !mask != 0 && width < 64 {
                        continue;
                    }
                    let new = cmp::widen(y, width, v < 0);
                    let mut t = case.clone();
                    if cmp::set_int(&mut t.stmts[i].args[k], &mut { leaf }, new)
                        && cmp::arg_fits(space, &t, i, k)
                    {
                        out.push(t);
                    }
                    break;
                }
            }
        }
    }
    out
}

/// Where the test holds no `x`, the code compared something it worked out (`credit + coin`
/// against a limit): each integer the test holds outside a sequence moved by `y - x`, what
/// the comparison would then see were the worked-out value that integer plus a constant.
fn shifted_ints(space: &Space, case: &TestCase, x: u64, y: u64) -> Vec<TestCase> {
    let by = y.wrapping_sub(x) as i64 as i128;
    let mut out = Vec::new();
    for (i, stmt) in case.stmts.iter().enumerate() {
        for (k, arg) in stmt.args.iter().enumerate() {
            let mut held = Vec::new();
            cmp::ints(arg, &mut held);
            let mut scalars = Vec::new();
            scalar_ints(arg, &mut 0, &mut scalars);
            for leaf in scalars {
                let mut t = case.clone();
                if cmp::set_int(&mut t.stmts[i].args[k], &mut { leaf }, held[leaf] + by)
                    && cmp::arg_fits(space, &t, i, k)
                {
                    out.push(t);
                }
            }
        }
    }
    out
}

/// The indices (in [`cmp::ints`] order) of the integers of `v` outside a sequence: the bytes
/// of a slice have edits of their own.
fn scalar_ints(v: &Value, next: &mut usize, out: &mut Vec<usize>) {
    match v {
        Value::Int(_) => {
            out.push(*next);
            *next += 1;
        }
        Value::Seq(_) => {
            let mut inside = Vec::new();
            cmp::ints(v, &mut inside);
            *next += inside.len();
        }
        Value::Tuple(items) => items.iter().for_each(|i| scalar_ints(i, next, out)),
        Value::Opt(Some(i)) | Value::Ok(i) | Value::Err(i) => scalar_ints(i, next, out),
        _ => {}
    }
}

/// A string's or byte slice's edits that put `y` where it holds `x`: a byte (`x` and `y`
/// bytes, also through a base), a length within [`cmp::LEN_SLACK`], a wider
/// integer as little- or big-endian bytes, or as decimal text.
fn byte_edits(space: &Space, case: &TestCase, leaves: &[ArgLeaf], x: u64, y: u64) -> Vec<TestCase> {
    let mut out = Vec::new();
    for l in leaves {
        let mut edits: Vec<Edit> = Vec::new();
        let len = l.bytes.len() as u64;
        if !l.fixed && x.abs_diff(len) <= cmp::LEN_SLACK {
            let to = len as i128 + y as i128 - x as i128;
            if (0..=cmp::MAX_RESIZED).contains(&to) {
                edits.push(Edit::Resize(to as usize));
            }
            // Bytes cut from inside, after the first: a record's payload, between its tag (what
            // the code read before it compared the length) and its trailer.
            if !l.text && (0..len as i128 - 1).contains(&to) {
                edits.push(Edit::Inner(to as usize + 1));
            }
        }
        if x <= 0xff && y <= 0xff {
            for base in cmp::BYTE_BASES {
                // Through a base only for a range check missed from above (`b - b'0' < 10`).
                if base != 0 && !(y <= 36 && x > y) {
                    continue;
                }
                let (from, to) = ((x as u8).wrapping_add(base), (y as u8).wrapping_add(base));
                if l.text && (from >= 0x80 || to >= 0x80) {
                    continue;
                }
                for (at, _) in l.bytes.iter().enumerate().filter(|(_, &b)| b == from) {
                    edits.push(Edit::Byte(at, to));
                }
            }
        }
        for e in edits {
            let r = (l.stmt, l.arg, l.leaf, e);
            out.extend(cmp::reshape(space, case, &r));
        }
        for (from, to) in encodings(x, y) {
            for at in cmp::occurrences(&l.bytes, &from) {
                out.extend(cmp::splice_at(case, l, at, from.len(), &to));
            }
        }
    }
    out
}

/// The forms an integer `x` may take inside bytes, each with `y` in the same form: its
/// [`binary_forms`], and decimal text (a digit too: `retries=2` against `retries > 10` needs
/// two digits, which no byte edit makes).
fn encodings(x: u64, y: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = binary_forms(x, y);
    out.push((x.to_string().into_bytes(), y.to_string().into_bytes()));
    out
}

/// `x` and `y` as binary input holds them: little- and big-endian at the widths both fit,
/// from two bytes up (a single byte is a byte edit).
fn binary_forms(x: u64, y: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    for width in [2usize, 4, 8] {
        let fits = |v: u64| width == 8 || v >> (8 * width) == 0;
        if x > 0xff && fits(x) && fits(y) {
            out.push((
                x.to_le_bytes()[..width].to_vec(),
                y.to_le_bytes()[..width].to_vec(),
            ));
            out.push((
                x.to_be_bytes()[8 - width..].to_vec(),
                y.to_be_bytes()[8 - width..].to_vec(),
            ));
        }
    }
    out
}

/// The test with `x` replaced by `y` wherever one of its strings or byte slices (`leaves`,
/// from [`cmp::arg_leaves`]) holds it in binary ([`binary_forms`]), one test per place.
pub fn binary_splices(case: &TestCase, leaves: &[ArgLeaf], x: u64, y: u64) -> Vec<TestCase> {
    let mut out = Vec::new();
    for l in leaves {
        for (from, to) in binary_forms(x, y) {
            for at in cmp::occurrences(&l.bytes, &from) {
                out.extend(cmp::splice_at(case, l, at, from.len(), &to));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_sites_come_first_each_in_the_order_compared() {
        let last = [
            (1, 5, 6),
            (2, 74, 65),
            (3, 9, 10),
            (2, 74, 70),
            (4, 0, 1),
            (5, 2, 3),
        ];
        assert_eq!(
            deciding(&last),
            vec![(5, 2, 3), (4, 0, 1), (2, 74, 70), (2, 74, 65)]
        );
    }

    #[test]
    fn a_tests_key_is_the_digest_of_its_calls_text() {
        use crate::test_case::Stmt;
        use hermetic_protocol::Value;
        use std::hash::{Hash, Hasher};
        let case = TestCase {
            home: 0,
            stmts: vec![Stmt {
                callable: 3,
                args: vec![Value::Int(-7), Value::Str("name=1\nretries=3".into())],
            }],
            env: Default::default(),
        };
        // As the key was made before it hashed the text as written: the same digest.
        #[allow(deprecated)]
        let mut h = std::hash::SipHasher::new();
        format!("{:?}", case.stmts).hash(&mut h);
        let mut expected = b"decided".to_vec();
        expected.extend(h.finish().to_le_bytes());
        assert_eq!(key_of(&case), expected);
    }

    #[test]
    fn integers_take_every_form_they_have_in_bytes() {
        let forms = encodings(0x1234_5678, 0x0A0B_0C0D);
        assert!(forms.contains(&(vec![0x78, 0x56, 0x34, 0x12], vec![0x0D, 0x0C, 0x0B, 0x0A])));
        assert!(forms.contains(&(vec![0x12, 0x34, 0x56, 0x78], vec![0x0A, 0x0B, 0x0C, 0x0D])));
        assert!(forms.contains(&(b"305419896".to_vec(), b"168496141".to_vec())));
        // A small value is a byte edit, and decimal text: `retries=2` against `> 10`.
        assert_eq!(encodings(2, 11), vec![(b"2".to_vec(), b"11".to_vec())]);
    }
}
