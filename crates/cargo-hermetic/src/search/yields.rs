//! Which kind of follow-up edit pays off on the code under test. A run that gained a goal is
//! followed by edits of five kinds (towards its deciding comparisons, reshapes, integer and
//! byte substitutions, words of the source), and only a quarter of each batch goes to them: the order decides
//! which are tried while the run is fresh. No kind is best everywhere: a chain of checks of
//! one field after another (a date's) is climbed by the deciding edits, a reader whose keys
//! are compared as strings (`match key { "name" => .. }`) by the reshapes and byte splices.
//! So the kinds take turns in proportion to how often each one's edits gained a goal (or, for
//! the deciding ones, got past the comparison they aimed at) so far in this run, as a
//! fuzzer's mutation scheduler weighs its operators by their yield.

/// The kind of a follow-up edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Deciding,
    Reshape,
    Int,
    Byte,
    /// Words of the source put into text ([`super::words`]).
    Word,
    /// A token of one line, or the last line's value, as each word ([`super::words::Edits`]).
    Token,
    /// Towards a comparison never met, after a run that gained nothing
    /// ([`super::Search::approach`]): counted apart, so that its many misses do not make the
    /// deciding edits after a gain go later.
    Approach,
    /// A fake for a callee the gaining run called for real (`--isolate`, [`super::fakes`]).
    Fake,
    /// A text another function accepted, put into the gaining test's text
    /// ([`super::cross::pieces`]).
    Piece,
    /// A test of the search's own (a random test, a mutant) that failed a checksum, put right
    /// ([`super::repair`]); repaired edits keep their own kind.
    Repair,
}

pub const KINDS: usize = 10;

impl Kind {
    pub fn index(self) -> usize {
        self as usize
    }
}

/// Tries and wins of each kind, over the run so far.
#[derive(Debug, Default, Clone)]
pub struct Yields {
    tries: [u64; KINDS],
    wins: [u64; KINDS],
}

impl Yields {
    /// Counts one executed edit of `kind`, and whether it paid off.
    pub fn record(&mut self, kind: Kind, won: bool) {
        self.tries[kind.index()] += 1;
        self.wins[kind.index()] += u64::from(won);
    }

    /// The edits of each kind (in the order each list holds them) merged into one queue: at
    /// each place the kind that has had the fewest turns for its weight goes, its weight the
    /// share of its edits that paid off (one win in two tries counted for each kind from the
    /// start, so an untried kind gets its turn and a kind that stopped paying keeps a small
    /// one). Ties go to the kind listed first.
    pub fn interleave<T>(&self, lists: [Vec<T>; KINDS]) -> Vec<T> {
        let total: usize = lists.iter().map(Vec::len).sum();
        let mut out = Vec::with_capacity(total);
        let mut iters = lists.map(|l| l.into_iter().peekable());
        let mut taken = [0u64; KINDS];
        while out.len() < total {
            // Kind k's next turn comes at (taken + 1) / weight, weight = (wins + 1) / (tries
            // + 2); compared by cross-multiplying, in integers, so the order never depends on
            // rounding.
            let next = (0..KINDS)
                .filter(|&k| iters[k].peek().is_some())
                .min_by(|&a, &b| {
                    let at = |k: usize, other: usize| {
                        u128::from(taken[k] + 1)
                            * u128::from(self.tries[k] + 2)
                            * u128::from(self.wins[other] + 1)
                    };
                    at(a, b).cmp(&at(b, a))
                })
                .expect("an edit is left");
            out.extend(iters[next].next());
            taken[next] += 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn untried_kinds_take_turns_in_their_order() {
        let y = Yields::default();
        let merged = y.interleave([
            vec!["d1", "d2"],
            vec!["r1", "r2", "r3"],
            vec![],
            vec!["b1"],
            vec![],
            vec![],
            vec![],
            vec![],
            vec![],
            vec![],
        ]);
        assert_eq!(merged, ["d1", "r1", "b1", "d2", "r2", "r3"]);
    }

    #[test]
    fn a_kind_that_pays_goes_more_often_and_one_that_does_not_still_gets_turns() {
        let mut y = Yields::default();
        for _ in 0..10 {
            y.record(Kind::Deciding, false);
            y.record(Kind::Reshape, true);
        }
        // Weights 1/12 and 11/12: the reshapes go first and eleven times as often.
        let merged = y.interleave([
            vec!['d'; 3],
            vec!['r'; 30],
            vec![],
            vec![],
            vec![],
            vec![],
            vec![],
            vec![],
            vec![],
            vec![],
        ]);
        assert_eq!(merged[..12].iter().filter(|&&c| c == 'r').count(), 11);
        assert_eq!(merged[0], 'r');
        assert_eq!(merged.len(), 33);
        assert_eq!(merged.iter().filter(|&&c| c == 'd').count(), 3);
    }
}
