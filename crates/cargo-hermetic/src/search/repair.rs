//! Checksum repair, as Redqueen does it: a format whose trailer holds a checksum of its body
//! (`found != adler32(body)`) refuses every edit of the body, so the edits that would reach
//! what lies behind the check (a body of one byte, a kind byte made `A`) fail at it and teach
//! nothing. Where a run decided at a comparison that other runs met, whose operand the test
//! holds in binary (a little- or big-endian integer in a byte slice) and whose other operand
//! the code computed (it took several values), the test goes again with that operand in its
//! place: the edit, its checksum put right.

use super::ops::Space;
use super::{cmp, deciding};
use crate::test_case::TestCase;
use std::collections::{BTreeMap, BTreeSet};

/// How many values a site's other operand must have taken to count as computed: a magic
/// number compared with the input is one value, a checksum of changing bodies many.
const COMPUTED: usize = 3;

/// The other operands each comparison site was seen with where the test held the operand
/// in binary (at most [`COMPUTED`] each), and the tests repaired so far (by digest): a test
/// many runs break the same way is put right once.
#[derive(Default)]
pub struct Checksums {
    others: BTreeMap<u64, BTreeSet<u64>>,
    made: BTreeSet<Vec<u8>>,
}

impl Checksums {
    /// The test of a run that decided at `pairs` ([`deciding::deciding`], latest first) with
    /// its checksum put right: the latest of them at a checksum that runs have met (`met`).
    /// Not only the last site: what the code does with a refusal (formats its error) may
    /// compare more after it.
    pub fn repair(
        &mut self,
        space: &Space,
        case: &TestCase,
        pairs: &[(u64, u64, u64)],
        met: impl Fn(u64) -> bool,
    ) -> Option<TestCase> {
        // The test's strings and byte slices, read once for all the pairs (a checksum's loop
        // compares many).
        let mut leaves = None;
        for &(site, x, y) in pairs {
            if x.max(y) <= 0xff || !met(site) {
                continue;
            }
            let leaves = leaves.get_or_insert_with(|| cmp::arg_leaves(space, case));
            let fixed = deciding::binary_splices(case, leaves, x, y);
            let Some(first) = fixed.into_iter().next() else {
                continue;
            };
            let seen = self.others.entry(site).or_default();
            if seen.len() < COMPUTED {
                seen.insert(y);
            }
            if seen.len() >= COMPUTED {
                return self.made.insert(deciding::key_of(&first)).then_some(first);
            }
        }
        None
    }
}
