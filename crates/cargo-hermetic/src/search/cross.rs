//! Lines of one archived test's text put into another's: the splice of AFL and libFuzzer, at
//! line boundaries. A reader of `key=value` lines keeps what one test got right (`name=2`,
//! the key without which the reader stops) while another test's line (`retries=5`) reaches
//! code that runs only after the whole text was read: neither test alone gets there, and no
//! edit of one line makes the other.
//!
//! And whole texts of other functions' tests put into the fields of a gaining test's text
//! ([`pieces`]): a parser built of parsers (`date T time zone`) gets what each of its callees
//! accepted, where the part it hands that callee starts.

use super::cmp::{self, ArgLeaf, Tried};
use super::ops::Space;
use crate::test_case::TestCase;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;

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
    // Text, and bytes that hold text where the code reads text out of bytes.
    let text = |t: &TestCase, l: &ArgLeaf| {
        l.text
            || std::str::from_utf8(&l.bytes).is_ok()
                && space.text_bytes(t.stmts[l.stmt].callable, &l.ty)
    };
    let texts: Vec<ArgLeaf> = cmp::arg_leaves(space, parent)
        .into_iter()
        .filter(|l| text(parent, l))
        .collect();
    let into = texts.choose(rng)?;
    let nl = space.pool.line_break().as_bytes();
    let lines = split_lines(&into.bytes, nl).len();
    let offered: Vec<Vec<u8>> = cmp::arg_leaves(space, donor)
        .into_iter()
        .filter(|l| text(donor, l))
        .flat_map(|l| {
            split_lines(&l.bytes, nl)
                .into_iter()
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
        &mut |b| insert_line(b, line, at, nl),
    );
    done.then_some(out)
}

/// At most this many fields of a text take each piece ([`fields`]).
const MAX_FIELDS: usize = 8;
/// Longer texts take no pieces: pieces put before fields would grow them without end.
const MAX_TEXT: usize = 256;

/// `case` with each of `pieces` (texts the code accepted elsewhere) written into each field of
/// the texts `into` picks, fields as `separates` cuts them ([`fields`]): in place of the
/// field (`RCPT` cut at `T` -> `2024-02-29T`), over what follows its start
/// (`2024-02-29Tab:cdefghi` -> `2024-02-29T12:30:00hi`), before it, and in place of all up to
/// its end ([`with_piece`]); and with each of
/// `ends` (words of the source) in place of all from a field's start (`..T12:30:00hi` ->
/// `..T12:30:00Z`). Piece by piece, in the order given, the ends last.
pub fn pieces(
    space: &Space,
    case: &TestCase,
    pieces: &[String],
    ends: &[String],
    separates: &dyn Fn(char) -> bool,
    into: &dyn Fn(&ArgLeaf) -> bool,
) -> Vec<(Tried, TestCase)> {
    let mut out = Vec::new();
    for l in cmp::arg_leaves(space, case) {
        let Some(s) = std::str::from_utf8(&l.bytes)
            .ok()
            .filter(|s| l.text && !l.fixed && s.len() <= MAX_TEXT && into(&l))
        else {
            continue;
        };
        let fields = fields(s, separates);
        let mut texts = Vec::new();
        for piece in pieces.iter().filter(|p| !s.contains(p.as_str())) {
            texts.extend(with_piece(s, piece, &fields));
        }
        for end in ends {
            texts.extend(
                fields
                    .iter()
                    .map(|&(start, _)| format!("{}{end}", &s[..start])),
            );
        }
        let mut seen = BTreeSet::from([s.to_string()]);
        for text in texts {
            if seen.insert(text.clone()) {
                out.extend(super::words::with_text(case, &l, text));
            }
        }
    }
    out
}

/// `case` with `piece`, bytes that are no text which `callee` took elsewhere, as each such
/// byte argument of the other callables: alone, twice, and before and after what it holds (a
/// decoder of a chain of records gets the record its callee decoded: the checksum is right
/// already).
pub fn byte_pieces(
    space: &Space,
    case: &TestCase,
    piece: &[u8],
    callee: usize,
) -> Vec<(Tried, TestCase)> {
    let mut out = Vec::new();
    for l in cmp::arg_leaves(space, case) {
        if l.text || l.fixed || case.stmts[l.stmt].callable == callee {
            continue;
        }
        let mut seen = BTreeSet::from([l.bytes.clone()]);
        for bytes in [
            piece.to_vec(),
            [piece, piece].concat(),
            [piece, &l.bytes].concat(),
            [&l.bytes, piece].concat(),
        ] {
            if seen.insert(bytes.clone()) {
                out.extend(super::words::with_bytes(case, &l, bytes));
            }
        }
    }
    out
}

/// `s` with `piece` written at each of its `fields`: in place of the field, over what follows
/// its start, before it, and in place of all up to the field's end (`go ahead\nRSET` cut at
/// `T` -> `2024-02-29T`: the code hands its callee what comes before a separator).
fn with_piece(s: &str, piece: &str, fields: &[(usize, usize)]) -> Vec<String> {
    let mut texts = Vec::new();
    for &(start, end) in fields {
        let over = (start + piece.len()..=s.len())
            .find(|&e| s.is_char_boundary(e))
            .unwrap_or(s.len());
        for rest in [end, over, start] {
            texts.push(format!("{}{piece}{}", &s[..start], &s[rest..]));
        }
        if start > 0 {
            texts.push(format!("{piece}{}", &s[end..]));
        }
    }
    texts
}

/// The fields of `s`: the parts between the chars that `separates` (and where digits meet
/// letters: `00bye`), as byte ranges, at most [`MAX_FIELDS`].
fn fields(s: &str, separates: &dyn Fn(char) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut last: Option<char> = None;
    for (i, c) in s.char_indices() {
        let kinds_meet = last.is_some_and(|p| {
            p.is_alphanumeric() && c.is_alphanumeric() && p.is_ascii_digit() != c.is_ascii_digit()
        });
        if separates(c) || kinds_meet {
            out.push((start, i));
            start = if separates(c) { i + c.len_utf8() } else { i };
        }
        // A separator ends a field and starts none: what follows it is one field.
        last = Some(c).filter(|&c| !separates(c));
    }
    out.push((start, s.len()));
    out.truncate(MAX_FIELDS);
    out
}

/// The parts of `s` that end before one of its punctuation chars (`12`, `12:30` of
/// `12:30:00`), shortest first.
pub fn heads(s: &str) -> impl Iterator<Item = String> + '_ {
    s.char_indices()
        .filter(|&(i, c)| i > 0 && c.is_ascii_punctuation())
        .map(|(i, _)| s[..i].to_string())
}

/// The lines of `text`, cut at each `nl`.
fn split_lines<'t>(text: &'t [u8], nl: &[u8]) -> Vec<&'t [u8]> {
    let mut lines = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.windows(nl.len()).position(|w| w == nl) {
        lines.push(&rest[..i]);
        rest = &rest[i + nl.len()..];
    }
    lines.push(rest);
    lines
}

/// `text` with `line` inserted as its `at`-th line, lines ending with `nl`.
fn insert_line(text: &[u8], line: &[u8], at: usize, nl: &[u8]) -> Vec<u8> {
    let mut lines = split_lines(text, nl);
    if text.is_empty() {
        lines.clear();
    }
    lines.insert(at.min(lines.len()), line);
    lines.join(nl)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_end_at_separators_and_where_digits_meet_letters() {
        let seps = |c: char| c == 'T' || c.is_ascii_punctuation();
        assert_eq!(fields("RCPT", &seps), [(0, 3), (4, 4)]);
        let s = "2024-02-29T12:30:00bye";
        let got: Vec<&str> = fields(s, &seps).iter().map(|&(a, b)| &s[a..b]).collect();
        assert_eq!(got, ["2024", "02", "29", "12", "30", "00", "bye"]);
        assert_eq!(fields("", &seps), [(0, 0)]);
    }

    #[test]
    fn a_piece_goes_at_a_field_over_it_before_it_and_over_all_before_its_end() {
        let seps = |c: char| c == 'T' || c.is_whitespace();
        let s = "go ahead\nRSET";
        let texts = with_piece(s, "2024-02-29", &fields(s, &seps));
        for want in [
            "2024-02-29 ahead\nRSET",
            "go 2024-02-29\nRSET",
            "go ahead\n2024-02-29T",
            "2024-02-29T",
            "go 2024-02-29",
            "go ahead\n2024-02-29RSET",
        ] {
            assert!(texts.iter().any(|t| t == want), "{want:?} not in {texts:?}");
        }
    }

    #[test]
    fn heads_end_before_punctuation() {
        assert_eq!(heads("12:30:00").collect::<Vec<_>>(), ["12", "12:30"]);
        assert_eq!(heads("abc").count(), 0);
    }

    #[test]
    fn a_line_goes_between_lines_or_at_either_end() {
        assert_eq!(
            insert_line(b"name=2", b"retries=5", 1, b"\n"),
            b"name=2\nretries=5"
        );
        assert_eq!(
            insert_line(b"name=2", b"retries=5", 0, b"\n"),
            b"retries=5\nname=2"
        );
        assert_eq!(
            insert_line(b"a\nb", b"retries=5", 1, b"\n"),
            b"a\nretries=5\nb".to_vec()
        );
        assert_eq!(insert_line(b"", b"x", 0, b"\n"), b"x");
        assert_eq!(
            insert_line(b"GET / HTTP/1.1\r\nA: b", b"C: d", 1, b"\r\n"),
            b"GET / HTTP/1.1\r\nC: d\r\nA: b".to_vec()
        );
    }
}
