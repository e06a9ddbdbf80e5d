//! Input-to-state substitution: when an integer of a test shows up as one side of a
//! comparison in the code under test, try the other side in its place. A value compared with
//! `42` becomes `42`; a mock's second return value compared with the expected one becomes it.
//! The comparison hooks log both operands per comparison site.
//!
//! The same for text and bytes ([`splice`]): where a string or byte slice of the test holds one
//! operand of a `memcmp`/`bcmp` (a key the code matched against `"retries"`, a prefix checked
//! with `starts_with`), the other operand goes in at that offset; where it holds an integer
//! operand, as decimal text (also zero-padded to the width of the text it replaces) or as
//! little- or big-endian bytes (a checksum read from a trailer), the other operand goes there
//! in the same form.
//!
//! And the shape of text and bytes ([`reshapes`]), from the integer comparisons alone: a length
//! compared with another value (`s.len() != 29`, or what is left after a prefix) becomes that
//! value, the string padded with bytes it does not hold yet or cut; a byte compared with another
//! (`s[16] != b' '`, or `s[23].wrapping_sub(b'0') < 10`) becomes it where the test holds it.

use super::ops::Space;
use crate::cluster::{IntTy, StdTy, Ty};
use crate::test_case::TestCase;
use hermetic_protocol::Value;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;

/// The test with one integer replaced by the operand it was compared with, or `None` when no
/// integer of the test was compared (`cmp_ints` are `(site, operand)` pairs of the test's run,
/// already limited to the code under test).
pub fn substitute(
    rng: &mut ChaCha8Rng,
    case: &TestCase,
    cmp_ints: &[(u64, u64)],
) -> Option<TestCase> {
    let mut options = int_swaps(case, cmp_ints);
    options.sort_unstable();
    options.dedup();
    let &(i, k, leaf, new) = options.choose(rng)?;
    let mut out = case.clone();
    set_int(&mut out.stmts[i].args[k], &mut { leaf }, new);
    Some(out)
}

/// Every integer swap input-to-state substitution may make, as (statement, argument, leaf
/// index, replacement): a leaf of `case` equal, at some width, to an operand a comparison site
/// logged (`cmp_ints`) takes another operand of that site, read at that width. In the order of
/// the test's leaves, then the sites, widths and operands.
fn int_swaps(case: &TestCase, cmp_ints: &[(u64, u64)]) -> Vec<(usize, usize, usize, i128)> {
    let mut by_site: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for &(site, v) in cmp_ints {
        by_site.entry(site).or_default().push(v);
    }
    let mut swaps = Vec::new();
    for (i, stmt) in case.stmts.iter().enumerate() {
        for (k, arg) in stmt.args.iter().enumerate() {
            let mut leaves = Vec::new();
            ints(arg, &mut leaves);
            for (leaf, v) in leaves.into_iter().enumerate() {
                for operands in by_site.values() {
                    for width in [8u32, 16, 32, 64] {
                        let mask = if width == 64 {
                            u64::MAX
                        } else {
                            (1u64 << width) - 1
                        };
                        let mine = (v as u64) & mask;
                        if !operands.contains(&mine) {
                            continue;
                        }
                        for &other in operands.iter().filter(|&&o| o != mine) {
                            swaps.push((i, k, leaf, widen(other, width, v < 0)));
                        }
                    }
                }
            }
        }
    }
    swaps
}

/// `other`, read as a `width`-bit value, signed when the value it replaces was negative.
pub(super) fn widen(other: u64, width: u32, signed: bool) -> i128 {
    if !signed || width == 64 {
        return if signed {
            other as i64 as i128
        } else {
            other as i128
        };
    }
    let shift = 64 - width;
    (((other << shift) as i64) >> shift) as i128
}

/// A test with one operand of a comparison replaced, inside a string or byte slice, by the
/// other: `cmp_bytes` are the `memcmp` operand pairs of the test's run (`[a0, b0, a1, ..]`),
/// `cmp_ints` its `(site, operand)` pairs, limited to the code under test, `all_ints` those of
/// every site (for [`binary_swaps`]). `None` when no string or byte slice of the test holds an
/// operand.
pub fn splice(
    rng: &mut ChaCha8Rng,
    space: &Space,
    case: &TestCase,
    cmp_bytes: &[Vec<u8>],
    cmp_ints: &[(u64, u64)],
    all_ints: &[(u64, u64)],
) -> Option<TestCase> {
    let mut swaps: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    for pair in cmp_bytes.chunks_exact(2) {
        if pair[0] != pair[1] {
            swaps.push((pair[0].clone(), pair[1].clone()));
            swaps.push((pair[1].clone(), pair[0].clone()));
        }
    }
    // Integers as they sit in bytes: little- and big-endian at their width, and as text.
    let mut int_swaps = binary_swaps(all_ints);
    for operands in by_site(cmp_ints).values() {
        for &mine in operands {
            for &other in operands.iter().filter(|&&o| o != mine) {
                let (text, to) = (mine.to_string(), other.to_string());
                if to.len() < text.len() {
                    // At the width of the text it replaces too: a field of a fixed format
                    // (`day == 0` of `2024-11-11` wants `00`).
                    let padded = format!("{other:0>width$}", width = text.len());
                    int_swaps.push((text.clone().into_bytes(), padded.into_bytes()));
                }
                int_swaps.push((text.into_bytes(), to.into_bytes()));
                int_swaps.push((
                    (mine as i64).to_string().into_bytes(),
                    (other as i64).to_string().into_bytes(),
                ));
            }
        }
    }
    swaps.extend(int_swaps);
    swaps.sort();
    swaps.dedup();
    // (statement, argument, byte leaf, offset, replacement index)
    let mut options: Vec<(usize, usize, usize, usize, usize)> = Vec::new();
    for l in arg_leaves(space, case) {
        for (w, (from, _)) in swaps.iter().enumerate() {
            for at in occurrences(&l.bytes, from) {
                options.push((l.stmt, l.arg, l.leaf, at, w));
            }
        }
    }
    let &(i, k, leaf, at, w) = options.choose(rng)?;
    let (from, to) = &swaps[w];
    let mut out = case.clone();
    let ty = &space.arg_types(out.stmts[i].callable)[k];
    let done = set_bytes(ty, &mut out.stmts[i].args[k], &mut { leaf }, &mut |bytes| {
        let mut new = bytes[..at].to_vec();
        new.extend_from_slice(to);
        new.extend_from_slice(&bytes[at + from.len()..]);
        new
    });
    done.then_some(out)
}

/// Where an eager substitution put a value: the operand put in, and the place (statement,
/// argument, leaf, offset) it went to. A place and an operand are tried once.
pub type Tried = (Vec<u8>, usize, usize, usize, usize);

/// A test made by an eager substitution, with the key it is tried under.
pub type Eager = (Tried, TestCase);

/// An argument of a test replaced: the `arg`-th of the `stmt`-th statement becomes `value`.
/// [`eager`] makes many of which a few are taken: the test is made only then ([`ArgEdit::apply`]).
#[derive(Debug, Clone)]
pub struct ArgEdit {
    pub stmt: usize,
    pub arg: usize,
    pub value: Value,
}

impl ArgEdit {
    /// The test with the argument replaced.
    pub fn apply(&self, case: &TestCase) -> TestCase {
        let mut t = case.clone();
        t.stmts[self.stmt].args[self.arg] = self.value.clone();
        t
    }
}

/// An eager substitution, with the key it is tried under.
pub type EagerEdit = (Tried, ArgEdit);

/// Every test with one operand of a comparison put where the test holds the other, each with
/// the key it is tried under ([`Tried`]): integers of the test compared at a site (`cmp_ints`,
/// the run's `(site, operand)` pairs in the code under test) replaced by another operand of
/// that site (the first list), and strings or byte slices holding one operand of a byte
/// comparison (`cmp_bytes`, `[a0, b0, a1, ..]`), or the bytes of an integer compared at any
/// site (`all_ints`, [`binary_swaps`]), with the other spliced in at that offset (the
/// second). Deterministic: the order follows the test and the reports. Each is an edit of
/// `case`, the test made when it is taken.
pub fn eager(
    space: &Space,
    case: &TestCase,
    cmp_ints: &[(u64, u64)],
    cmp_bytes: &[Vec<u8>],
    all_ints: &[(u64, u64)],
) -> (Vec<EagerEdit>, Vec<EagerEdit>) {
    let mut out = Vec::new();
    let types: Vec<Vec<Ty>> = case
        .stmts
        .iter()
        .map(|stmt| space.arg_types(stmt.callable))
        .collect();
    for (i, k, leaf, new) in int_swaps(case, cmp_ints) {
        let key = (new.to_le_bytes().to_vec(), i, k, leaf, usize::MAX);
        let mut value = case.stmts[i].args[k].clone();
        // Only values of the leaf's type: an `Ordering` stays -1, 0 or 1.
        let fits = |v: &Value| types[i].get(k).is_some_and(|ty| ints_fit(ty, v));
        if set_int(&mut value, &mut { leaf }, new) && fits(&value) {
            out.push((
                key,
                ArgEdit {
                    stmt: i,
                    arg: k,
                    value,
                },
            ));
        }
    }
    let ints = std::mem::take(&mut out);
    let leaves = arg_leaves(space, case);
    if leaves.is_empty() {
        // No string or byte slice to splice into: no swaps to make.
        return (ints, out);
    }
    // (found, other, whether the bytes must match exactly: binary integers do)
    let mut swaps: Vec<(&[u8], &[u8], bool)> = Vec::new();
    for pair in cmp_bytes.chunks_exact(2) {
        if pair[0] != pair[1] {
            swaps.push((&pair[0], &pair[1], false));
            swaps.push((&pair[1], &pair[0], false));
        }
    }
    let binary = binary_swaps(all_ints);
    swaps.extend(binary.iter().map(|(a, b)| (&a[..], &b[..], true)));
    for l in leaves {
        let (i, k, leaf) = (l.stmt, l.arg, l.leaf);
        for &(from, to, exact) in &swaps {
            let places = if exact {
                exact_occurrences(&l.bytes, from)
            } else {
                occurrences(&l.bytes, from)
            };
            // The leaf made by `make` from its bytes, tried under `place`.
            let mut edit = |place: usize, make: &mut dyn FnMut(&[u8]) -> Vec<u8>| {
                let mut value = case.stmts[i].args[k].clone();
                if set_bytes(&l.ty, &mut value, &mut { leaf }, make) {
                    let edit = ArgEdit {
                        stmt: i,
                        arg: k,
                        value,
                    };
                    out.push(((to.to_vec(), i, k, leaf, place), edit));
                }
            };
            for at in places {
                edit(at, &mut |b| {
                    let mut new = b[..at].to_vec();
                    new.extend_from_slice(to);
                    new.extend_from_slice(&b[at + from.len()..]);
                    new
                });
                // The text's start was compared and no more of it: an ordering compares the
                // shorter length's bytes, then the lengths (`BTreeMap<String, _>::get`, a
                // sorted slice's search), so the other operand is likely all there is of it.
                if !exact && at == 0 && from.len() < l.bytes.len() {
                    edit(WHOLE, &mut |_| to.to_vec());
                }
            }
        }
    }
    (ints, out)
}

/// The place of an eager substitution that replaced a whole string or byte slice.
const WHOLE: usize = usize::MAX - 4;

/// How far from a string's or byte slice's length an operand may be and still be taken for
/// it: code often compares the length of what is left after a prefix (`"Wednesday, "`, the
/// 19 bytes of `YYYY-MM-DDTHH:MM:SS` before a zone compared with `"Z"`) or after trimming.
pub(super) const LEN_SLACK: u64 = 32;
/// No input grows past this many bytes by a resize.
pub(super) const MAX_RESIZED: i128 = 4096;
/// What code subtracts from a byte before it compares it (`b.wrapping_sub(b'0') < 10`, a hex
/// digit's `b - b'a'`); 0: the byte compared as it is (`s[16] == b' '`).
pub(super) const BYTE_BASES: [u8; 4] = [0, b'0', b'a', b'A'];
/// The bytes a string or byte slice is padded with, each once while they last: a byte the
/// code later compares at a fixed offset (`s[16] == b' '`) is then found at that one place.
const PAD: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// A change to one string or byte slice of a test, towards a comparison the code made.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Edit {
    /// Padded (at its end) or cut to this many bytes: an operand near its length was compared
    /// with another (`s.len() != 29`, `rest.len() < 22`).
    Resize(usize),
    /// Cut to this many bytes, keeping the first byte and the tail: a binary record's tag,
    /// its payload shortened, its trailer (a length compared was the payload's).
    Inner(usize),
    /// The byte at this offset becomes this one: the byte (less one of [`BYTE_BASES`]) was
    /// compared with another value.
    Byte(usize, u8),
}

/// One [`Edit`] at a place: (statement, argument, byte leaf, edit).
pub type Reshape = (usize, usize, usize, Edit);

/// How urgent a comparison site is, lowest first: one this run reached for the first time,
/// one never met, the rest.
pub type Rank<'a> = &'a dyn Fn(u64) -> u8;

/// Every edit of a string or byte slice of `case` that the run's integer comparisons
/// (`cmp_ints`, `(site, operand)` pairs of the code under test) point to: a length compared
/// with another value becomes that value (the difference kept when the code compared what is
/// left after a prefix), and a byte compared with another value becomes it, or one less (for
/// `<`), the base the code subtracted added back. Arrays keep their length. Deterministic:
/// the order follows the sites' `rank`, then the test.
pub fn reshapes(
    space: &Space,
    case: &TestCase,
    cmp_ints: &[(u64, u64)],
    rank: Rank,
) -> Vec<Reshape> {
    let mut by_site: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for &(site, v) in cmp_ints {
        by_site.entry(site).or_default().push(v);
    }
    let mut out: Vec<(u8, Reshape)> = Vec::new();
    for l in arg_leaves(space, case) {
        let (i, k, leaf, bytes, text, fixed) = (l.stmt, l.arg, l.leaf, &l.bytes, &l.text, l.fixed);
        // Edit -> the most urgent rank of the sites that ask for it.
        let mut edits: BTreeMap<Edit, u8> = BTreeMap::new();
        let len = bytes.len() as u64;
        let mut at_byte: Vec<Vec<usize>> = vec![Vec::new(); 256];
        for (at, &b) in bytes.iter().enumerate() {
            at_byte[b as usize].push(at);
        }
        for (&site, operands) in &by_site {
            let rank = rank(site);
            let mut add = |e: Edit| {
                let r = edits.entry(e).or_insert(rank);
                *r = (*r).min(rank);
            };
            if !fixed {
                for &x in operands.iter().filter(|x| x.abs_diff(len) <= LEN_SLACK) {
                    for &y in operands.iter().filter(|&&y| y != x) {
                        let to = len as i128 + y as i128 - x as i128;
                        if (0..=MAX_RESIZED).contains(&to) && to != len as i128 {
                            add(Edit::Resize(to as usize));
                        }
                    }
                }
            }
            let small: Vec<u8> = operands
                .iter()
                .filter(|&&v| v <= 0xff)
                .map(|&v| v as u8)
                .collect();
            for &x in &small {
                for base in BYTE_BASES {
                    let from = x.wrapping_add(base);
                    let places = &at_byte[from as usize];
                    if places.is_empty() || (*text && from >= 0x80) {
                        continue;
                    }
                    for &y in small.iter().filter(|&&y| y != x) {
                        // Through a base only for a range check missed from above
                        // (`b - b'0' < 10` for a letter, or for a byte below `'0'`).
                        if base != 0 && !(y <= 36 && x > y) {
                            continue;
                        }
                        for to in [y, y.wrapping_sub(1)].map(|t| t.wrapping_add(base)) {
                            if to == from || (*text && to >= 0x80) {
                                continue;
                            }
                            places.iter().for_each(|&at| add(Edit::Byte(at, to)));
                        }
                    }
                }
            }
        }
        out.extend(edits.into_iter().map(|(e, rank)| (rank, (i, k, leaf, e))));
    }
    // Stable: by rank, each rank in the test's order.
    out.sort_by_key(|(rank, _)| *rank);
    out.into_iter().map(|(_, r)| r).collect()
}

/// The test with one [`Reshape`] made; `None` when it does not fit (text cut inside a char).
pub fn reshape(space: &Space, case: &TestCase, r: &Reshape) -> Option<TestCase> {
    let (i, k, leaf, edit) = r;
    let mut t = case.clone();
    let ty = &space.arg_types(t.stmts[*i].callable)[*k];
    let done = set_bytes(
        ty,
        &mut t.stmts[*i].args[*k],
        &mut { *leaf },
        &mut |b| match edit {
            Edit::Resize(n) if *n <= b.len() => b[..*n].to_vec(),
            Edit::Resize(n) => {
                let mut new = b.to_vec();
                let fresh: Vec<u8> = PAD.iter().copied().filter(|c| !b.contains(c)).collect();
                let pad = if fresh.is_empty() { PAD } else { &fresh };
                new.extend(pad.iter().cycle().take(n - b.len()));
                new
            }
            Edit::Inner(n) if (1..b.len()).contains(n) => {
                [&b[..1], &b[b.len() - (n - 1)..]].concat()
            }
            Edit::Inner(_) => b.to_vec(),
            Edit::Byte(at, to) => {
                let mut new = b.to_vec();
                new[*at] = *to;
                new
            }
        },
    );
    done.then_some(t)
}

/// The key a [`Reshape`] is tried under: the callable and what the leaf held are part of it,
/// so the same edit of another call's argument, or of another length or byte, is another try.
pub fn reshape_key(space: &Space, case: &TestCase, r: &Reshape) -> Tried {
    let (i, k, leaf, edit) = r;
    let stmt = &case.stmts[*i];
    let mut held = Vec::new();
    byte_leaves(
        &space.arg_types(stmt.callable)[*k],
        &stmt.args[*k],
        &mut held,
    );
    let mut tag = (stmt.callable as u64).to_le_bytes().to_vec();
    match edit {
        Edit::Resize(n) => {
            tag.extend((*n as u64).to_le_bytes());
            tag.extend((held[*leaf].len() as u64).to_le_bytes());
            (tag, *i, *k, *leaf, usize::MAX - 1)
        }
        Edit::Inner(n) => {
            tag.extend((*n as u64).to_le_bytes());
            tag.extend((held[*leaf].len() as u64).to_le_bytes());
            (tag, *i, *k, *leaf, usize::MAX - 3)
        }
        Edit::Byte(at, to) => {
            tag.extend([held[*leaf][*at], *to]);
            (tag, *i, *k, *leaf, *at)
        }
    }
}

/// The operands of each comparison site (`(site, operand)` pairs), by site.
fn by_site(cmp_ints: &[(u64, u64)]) -> BTreeMap<u64, Vec<u64>> {
    let mut out: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for &(site, v) in cmp_ints {
        out.entry(site).or_default().push(v);
    }
    out
}

/// See [`binary_swaps`].
const MAX_BINARY_OPERANDS: usize = 16;

/// Integers as they sit in binary input, as (found, other) byte pairs: each operand of a site
/// with each other operand of that site, one of them wider than a byte, little- and big-endian
/// at 2, 4 and 8 bytes where both fit (a magic number or a checksum read from a trailer, also
/// a checksum field that holds 1 yet). Sites outside the code under test count too: a short
/// slice compared with a constant array (`trailer[..2] != MAGIC`) is compared inside the
/// standard library's generic code, and bytes of the input that equal an operand are a signal
/// wherever they were compared, as fuzzers find magic values. Two values of a byte each (a
/// loop's counter and its bound) are left out: they would match anywhere. Of a site only the
/// first [`MAX_BINARY_OPERANDS`] operands: one a loop compares with every value it computes
/// (a digit parser's overflow check on a long text) would give each pair of them.
pub(super) fn binary_swaps(cmp_ints: &[(u64, u64)]) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    for operands in by_site(cmp_ints).values() {
        let operands = &operands[..operands.len().min(MAX_BINARY_OPERANDS)];
        for &mine in operands {
            for &other in operands
                .iter()
                .filter(|&&o| o != mine && o.max(mine) > 0xff)
            {
                for width in [2usize, 4, 8] {
                    let fits = |v: u64| width == 8 || v >> (8 * width) == 0;
                    if fits(mine) && fits(other) {
                        out.push((
                            mine.to_le_bytes()[..width].to_vec(),
                            other.to_le_bytes()[..width].to_vec(),
                        ));
                        out.push((
                            mine.to_be_bytes()[8 - width..].to_vec(),
                            other.to_be_bytes()[8 - width..].to_vec(),
                        ));
                    }
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Where `needle` starts in `hay`, byte for byte.
fn exact_occurrences(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return Vec::new();
    }
    (0..=hay.len() - needle.len())
        .filter(|&at| hay[at..at + needle.len()] == *needle)
        .collect()
}

/// Where `needle` starts in `hay`, ASCII case aside (code often compares an upper-cased copy).
pub(super) fn occurrences(hay: &[u8], needle: &[u8]) -> Vec<usize> {
    if needle.is_empty() || needle.len() > hay.len() {
        return Vec::new();
    }
    (0..=hay.len() - needle.len())
        .filter(|&at| hay[at..at + needle.len()].eq_ignore_ascii_case(needle))
        .collect()
}

/// Whether a type's values are text or bytes to splice into, and how long they must stay.
enum Bytes {
    Text,
    /// A byte sequence; `Some(n)`: an array, whose length is fixed.
    Raw(Option<usize>),
}

fn bytes_kind(ty: &Ty) -> Option<Bytes> {
    match ty {
        Ty::Str | Ty::String | Ty::Reader => Some(Bytes::Text),
        Ty::Vec(e) | Ty::Slice(e) | Ty::IntoIter(e) if **e == Ty::Int(IntTy::U8) => {
            Some(Bytes::Raw(None))
        }
        Ty::Array(e, n) if **e == Ty::Int(IntTy::U8) => Some(Bytes::Raw(Some(*n))),
        _ => None,
    }
}

/// The type of each item of a map or set the search holds as a sequence (a map's items are
/// `(key, value)` tuples), whose strings are leaves as a vector's are.
fn collection_item(ty: &Ty) -> Option<Ty> {
    match ty {
        Ty::Std(StdTy::HashMap | StdTy::BTreeMap, kv) if kv.len() == 2 => {
            Some(Ty::Tuple(kv.clone()))
        }
        Ty::Std(StdTy::HashSet | StdTy::BTreeSet, t) if t.len() == 1 => Some(t[0].clone()),
        _ => None,
    }
}

/// The strings and byte sequences of a value, in order, as bytes.
fn byte_leaves(ty: &Ty, v: &Value, out: &mut Vec<Vec<u8>>) {
    let mut all = Vec::new();
    byte_leaves_kind(ty, v, &mut all);
    out.extend(all.into_iter().map(|(bytes, _, _)| bytes));
}

/// As [`byte_leaves`], each leaf with whether it is text and whether its length is fixed.
fn byte_leaves_kind(ty: &Ty, v: &Value, out: &mut Vec<(Vec<u8>, bool, bool)>) {
    match (bytes_kind(ty), v) {
        (Some(Bytes::Text), Value::Str(s)) => out.push((s.as_bytes().to_vec(), true, false)),
        (Some(Bytes::Raw(fixed)), Value::Seq(items)) => {
            out.push((items.iter().map(byte_of).collect(), false, fixed.is_some()))
        }
        _ => match (ty, v) {
            (Ty::Box(t) | Ty::Ref(t) | Ty::RefMut(t) | Ty::Closure(_, t), v) => {
                byte_leaves_kind(t, v, out)
            }
            (Ty::Option(t), Value::Opt(Some(v))) => byte_leaves_kind(t, v, out),
            (Ty::Vec(t) | Ty::Slice(t) | Ty::Array(t, _), Value::Seq(items)) => {
                items.iter().for_each(|i| byte_leaves_kind(t, i, out))
            }
            (Ty::Tuple(ts), Value::Tuple(items)) => ts
                .iter()
                .zip(items)
                .for_each(|(t, i)| byte_leaves_kind(t, i, out)),
            (Ty::Std(..), Value::Seq(items)) => {
                if let Some(t) = collection_item(ty) {
                    items.iter().for_each(|i| byte_leaves_kind(&t, i, out))
                }
            }
            _ => {}
        },
    }
}

/// A byte leaf of one of a test's arguments, with where it sits.
pub(super) struct ArgLeaf {
    pub stmt: usize,
    pub arg: usize,
    /// The argument's type.
    pub ty: Ty,
    /// Its index among the argument's leaves ([`byte_leaves_kind`] order).
    pub leaf: usize,
    pub bytes: Vec<u8>,
    pub text: bool,
    pub fixed: bool,
}

/// Every byte leaf of the test's arguments, statement by statement, argument by argument.
pub(super) fn arg_leaves(space: &Space, case: &TestCase) -> Vec<ArgLeaf> {
    let mut out = Vec::new();
    for (stmt, s) in case.stmts.iter().enumerate() {
        for (arg, (ty, value)) in space
            .arg_types(s.callable)
            .into_iter()
            .zip(&s.args)
            .enumerate()
        {
            let mut leaves = Vec::new();
            byte_leaves_kind(&ty, value, &mut leaves);
            for (leaf, (bytes, text, fixed)) in leaves.into_iter().enumerate() {
                out.push(ArgLeaf {
                    stmt,
                    arg,
                    ty: ty.clone(),
                    leaf,
                    bytes,
                    text,
                    fixed,
                });
            }
        }
    }
    out
}

fn byte_of(v: &Value) -> u8 {
    match v {
        Value::Int(i) => *i as u8,
        _ => 0,
    }
}

/// Rewrites the `n`-th byte leaf of a value (in `byte_leaves` order) with `f`; false when the
/// result does not fit (text that is no longer UTF-8, an array of another length).
pub(super) fn set_bytes(
    ty: &Ty,
    v: &mut Value,
    n: &mut usize,
    f: &mut dyn FnMut(&[u8]) -> Vec<u8>,
) -> bool {
    let this = |n: &mut usize| {
        if *n == 0 {
            true
        } else {
            *n -= 1;
            false
        }
    };
    match (bytes_kind(ty), v) {
        (Some(Bytes::Text), Value::Str(s)) => {
            if !this(n) {
                return false;
            }
            match String::from_utf8(f(s.as_bytes())) {
                Ok(new) => {
                    *s = new;
                    true
                }
                Err(_) => {
                    // This was the leaf: no later one may take its place.
                    *n = usize::MAX;
                    false
                }
            }
        }
        (Some(Bytes::Raw(fixed)), Value::Seq(items)) => {
            if !this(n) {
                return false;
            }
            let old: Vec<u8> = items.iter().map(byte_of).collect();
            let new = f(&old);
            if fixed.is_some_and(|len| len != new.len()) {
                *n = usize::MAX;
                return false;
            }
            *items = new.into_iter().map(|b| Value::Int(b.into())).collect();
            true
        }
        (_, v) => match (ty, v) {
            (Ty::Box(t) | Ty::Ref(t) | Ty::RefMut(t) | Ty::Closure(_, t), v) => {
                set_bytes(t, v, n, f)
            }
            (Ty::Option(t), Value::Opt(Some(v))) => set_bytes(t, v, n, f),
            (Ty::Vec(t) | Ty::Slice(t) | Ty::Array(t, _), Value::Seq(items)) => {
                items.iter_mut().any(|i| set_bytes(t, i, n, f))
            }
            (Ty::Tuple(ts), Value::Tuple(items)) => ts
                .iter()
                .zip(items.iter_mut())
                .any(|(t, i)| set_bytes(t, i, n, f)),
            (Ty::Std(..), Value::Seq(items)) => collection_item(ty)
                .is_some_and(|t| items.iter_mut().any(|i| set_bytes(&t, i, n, f))),
            _ => false,
        },
    }
}

/// The test with `len` bytes of a leaf at `at` replaced by `to`; `None` when the result does
/// not fit (text no longer UTF-8, an array of another length).
pub(super) fn splice_at(
    case: &TestCase,
    l: &ArgLeaf,
    at: usize,
    len: usize,
    to: &[u8],
) -> Option<TestCase> {
    let mut t = case.clone();
    let done = set_bytes(
        &l.ty,
        &mut t.stmts[l.stmt].args[l.arg],
        &mut { l.leaf },
        &mut |b| {
            let mut new = b[..at].to_vec();
            new.extend_from_slice(to);
            new.extend_from_slice(&b[at + len..]);
            new
        },
    );
    done.then_some(t)
}

/// Whether the integers of the `k`-th argument of the `i`-th statement lie in its type's range.
pub(super) fn arg_fits(space: &Space, t: &TestCase, i: usize, k: usize) -> bool {
    space
        .arg_types(t.stmts[i].callable)
        .get(k)
        .is_some_and(|ty| ints_fit(ty, &t.stmts[i].args[k]))
}

/// Whether every integer of a value lies in its type's range (an `Ordering` is -1, 0 or 1).
/// Values whose shape the type does not describe (a mock's answers) are not judged.
fn ints_fit(ty: &Ty, v: &Value) -> bool {
    match (ty, v) {
        (Ty::Int(t), Value::Int(x)) => {
            let (lo, hi) = super::values::int_range(*t);
            (lo..=hi).contains(x)
        }
        (Ty::Ordering, Value::Int(x)) => (-1..=1).contains(x),
        (Ty::Box(t) | Ty::Ref(t) | Ty::RefMut(t), v) => ints_fit(t, v),
        (Ty::Option(t), Value::Opt(Some(v))) => ints_fit(t, v),
        (Ty::Result(t, _), Value::Ok(v)) | (Ty::Result(_, t), Value::Err(v)) => ints_fit(t, v),
        (Ty::Vec(t) | Ty::Slice(t) | Ty::Array(t, _) | Ty::IntoIter(t), Value::Seq(items)) => {
            items.iter().all(|i| ints_fit(t, i))
        }
        (Ty::Tuple(ts), Value::Tuple(items)) => ts.iter().zip(items).all(|(t, i)| ints_fit(t, i)),
        _ => true,
    }
}

/// The integers of a value, in order.
pub fn ints(v: &Value, out: &mut Vec<i128>) {
    match v {
        Value::Int(x) => out.push(*x),
        Value::Seq(items) | Value::Tuple(items) => items.iter().for_each(|i| ints(i, out)),
        Value::Opt(Some(i)) | Value::Ok(i) | Value::Err(i) => ints(i, out),
        _ => {}
    }
}

/// Sets the `n`-th integer of a value (in `ints` order).
pub fn set_int(v: &mut Value, n: &mut usize, new: i128) -> bool {
    match v {
        Value::Int(x) => {
            if *n == 0 {
                *x = new;
                return true;
            }
            *n -= 1;
            false
        }
        Value::Seq(items) | Value::Tuple(items) => items.iter_mut().any(|i| set_int(i, n, new)),
        Value::Opt(Some(i)) | Value::Ok(i) | Value::Err(i) => set_int(i, n, new),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    fn case(args: Vec<Value>) -> TestCase {
        TestCase::one_call(args)
    }

    /// The strings of a map's keys and values, and of a set's items, are leaves: a value a
    /// lookup found gets the words the code matches it with.
    #[test]
    fn the_strings_inside_maps_and_sets_are_leaves() {
        let map = Ty::Std(StdTy::BTreeMap, vec![Ty::String, Ty::String]);
        let entry =
            |k: &str, v: &str| Value::Tuple(vec![Value::Str(k.into()), Value::Str(v.into())]);
        let mut v = Value::Seq(vec![entry("a", "x"), entry("b", "y")]);
        let mut leaves = Vec::new();
        byte_leaves(&map, &v, &mut leaves);
        assert_eq!(
            leaves,
            [b"a".to_vec(), b"x".to_vec(), b"b".to_vec(), b"y".to_vec()]
        );
        assert!(set_bytes(&map, &mut v, &mut 3, &mut |_| b"true".to_vec()));
        assert_eq!(v, Value::Seq(vec![entry("a", "x"), entry("b", "true")]));
        let set = Ty::Std(StdTy::HashSet, vec![Ty::Str]);
        let mut leaves = Vec::new();
        byte_leaves(
            &set,
            &Value::Seq(vec![Value::Str("on".into())]),
            &mut leaves,
        );
        assert_eq!(leaves, [b"on".to_vec()]);
    }

    #[test]
    fn an_integer_compared_with_a_constant_becomes_the_constant() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let t = case(vec![Value::Seq(vec![
            Value::Int(5),
            Value::Int(1_317_929_979),
        ])]);
        // Site 7 compared 5 with 5 (not logged: equal), site 9 compared 1317929979 with 42.
        let got = substitute(&mut rng, &t, &[(9, 1_317_929_979), (9, 42)]).unwrap();
        assert_eq!(
            got.stmts[0].args,
            vec![Value::Seq(vec![Value::Int(5), Value::Int(42)])]
        );
    }

    #[test]
    fn negative_values_are_matched_and_replaced_at_their_width() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let t = case(vec![Value::Int(-3)]);
        // An i32 comparison of -3 with -100 logs both as 32-bit patterns.
        let got = substitute(
            &mut rng,
            &t,
            &[(1, 0xFFFF_FFFD), (1, (-100i32) as u32 as u64)],
        );
        assert_eq!(got.unwrap().stmts[0].args, vec![Value::Int(-100)]);
    }

    #[test]
    fn nothing_compared_nothing_to_do() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let t = case(vec![Value::Int(8), Value::Str("x".into())]);
        assert!(substitute(&mut rng, &t, &[(1, 3), (1, 4)]).is_none());
    }
}
