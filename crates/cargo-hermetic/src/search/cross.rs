//! Lines of one archived test's text put into another's: the splice of AFL and libFuzzer, at
//! line boundaries. A reader of `key=value` lines keeps what one test got right (`name=2`,
//! the key without which the reader stops) while another test's line (`retries=5`) reaches
//! code that runs only after the whole text was read: neither test alone gets there, and no
//! edit of one line makes the other.

use super::cmp::{self, ArgLeaf};
use super::ops::Space;
use crate::test_case::TestCase;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// `parent` with one line of `donor`'s text (of any of its text arguments) inserted between
/// two lines of one of `parent`'s text arguments (or before the first, or after the last); a
/// line both have is then given twice (what a reader refuses on a repeat). `None` when either
/// test has no text.
pub fn lines(
    rng: &mut ChaCha8Rng,
    space: &Space,
    parent: &TestCase,
    donor: &TestCase,
) -> Option<TestCase> {
    let texts: Vec<ArgLeaf> = cmp::arg_leaves(space, parent)
        .into_iter()
        .filter(|l| l.text)
        .collect();
    let into = texts.choose(rng)?;
    let lines = into.bytes.split(|&b| b == b'\n').count();
    let offered: Vec<Vec<u8>> = cmp::arg_leaves(space, donor)
        .into_iter()
        .filter(|l| l.text)
        .flat_map(|l| {
            l.bytes
                .split(|&b| b == b'\n')
                .map(<[u8]>::to_vec)
                .collect::<Vec<_>>()
        })
        .filter(|line| !line.is_empty())
        .collect();
    let line = offered.choose(rng)?;
    let at = rng.gen_range(0..=lines);
    let mut out = parent.clone();
    let done = cmp::set_bytes(
        &into.ty,
        &mut out.stmts[into.stmt].args[into.arg],
        &mut { into.leaf },
        &mut |b| insert_line(b, line, at),
    );
    done.then_some(out)
}

/// `text` with `line` inserted as its `at`-th line.
fn insert_line(text: &[u8], line: &[u8], at: usize) -> Vec<u8> {
    let mut lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
    if text.is_empty() {
        lines.clear();
    }
    lines.insert(at.min(lines.len()), line);
    lines.join(&b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_goes_between_lines_or_at_either_end() {
        assert_eq!(
            insert_line(b"name=2", b"retries=5", 1),
            b"name=2\nretries=5"
        );
        assert_eq!(
            insert_line(b"name=2", b"retries=5", 0),
            b"retries=5\nname=2"
        );
        assert_eq!(
            insert_line(b"a\nb", b"retries=5", 1),
            b"a\nretries=5\nb".to_vec()
        );
        assert_eq!(insert_line(b"", b"x", 0), b"x");
    }
}
