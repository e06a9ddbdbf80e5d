//! Words of the source put into a test's text after a gain. Code that matches text against
//! literals (`match key { "name" => .., "retries" => .. }`, `match action { "reload" => .. }`)
//! compares lengths first, in the standard library where no hook sees it, so no comparison
//! shows the literal until the text holds a word of its length. A dictionary does not wait for
//! that: the words written in the modules of the functions a test calls, and the integers the
//! run compared (and one more, for `n > 10`), each go where the text has a word, replace the
//! whole text, or go into a copy of the word's line added after it (`name=a` ->
//! `name=a\nretries=a`: the first line still holds what the code needed), or where a line's
//! first word ends (a value: `verbose=true`); and each line is said twice (what a reader
//! refuses on a repeat) or dropped (one it refuses stops it before the rest). The edits start
//! from a test that just gained a goal, so whatever it had right (a token in another argument)
//! stays.

use super::cmp::{self, Tried};
use super::ops::Space;
use crate::test_case::TestCase;
use std::collections::BTreeSet;

/// Integers the run compared go in as words up to this size: beyond it they are addresses
/// and hashes more than counts and limits.
const MAX_WORD_INT: u64 = 1_000_000;
/// At most this many of the run's compared integers join the dictionary.
const MAX_INTS: usize = 16;
/// The key of a dictionary edit ends with this, apart from other edits' keys.
const TAG: usize = usize::MAX - 2;

/// The dictionary for `case`: the strings of the modules of the functions it calls, and the
/// integers compared in the run (`cmp_ints`, `(site, operand)` pairs of the code under test)
/// and each plus one, as decimal text. In a fixed order, each once.
pub fn dictionary(
    space: &Space,
    case: &TestCase,
    cmp_ints: &[(u64, u64)],
) -> (Vec<String>, Vec<String>) {
    let mut seen = BTreeSet::new();
    let mut strings = Vec::new();
    let modules: BTreeSet<usize> = case
        .stmts
        .iter()
        .map(|s| space.cluster.callables[s.callable].module)
        .collect();
    for m in modules {
        let path = &space.cluster.modules[m].path;
        for w in space.pool.module_strings(path) {
            if !w.is_empty() && seen.insert(w.clone()) {
                strings.push(w.clone());
            }
        }
    }
    let compared: BTreeSet<u64> = cmp_ints
        .iter()
        .map(|&(_, v)| v)
        .filter(|&v| v <= MAX_WORD_INT)
        .collect();
    let mut ints = Vec::new();
    for v in compared.into_iter().take(MAX_INTS) {
        for n in [v, v + 1] {
            if seen.insert(n.to_string()) {
                ints.push(n.to_string());
            }
        }
    }
    (strings, ints)
}

/// Every dictionary edit of the text arguments of `case`, each with the key it is tried
/// under, in two tiers. First each line repeated or dropped, the whole text replaced by a word
/// of `dict`, a line's first word (a key, a command) replaced in place and in an added copy of its line,
/// and what follows the first word and its separators (a value) replaced; `ints` (decimal
/// text) go only there. Then any other word replaced in place.
pub fn edits(
    space: &Space,
    case: &TestCase,
    dict: &[String],
    ints: &[String],
) -> [Vec<(Tried, TestCase)>; 2] {
    let mut out: [Vec<(Tried, TestCase)>; 2] = Default::default();
    for l in cmp::arg_leaves(space, case) {
        if !l.text || l.fixed {
            continue;
        }
        let Ok(s) = std::str::from_utf8(&l.bytes) else {
            continue;
        };
        let mut texts: [Vec<String>; 2] = Default::default();
        let lines: Vec<&str> = s.split('\n').collect();
        for i in 0..lines.len() {
            let mut repeated = lines.clone();
            repeated.insert(i, lines[i]);
            texts[0].push(repeated.join("\n"));
            // And dropped: a line the code refuses stops it before the lines after it.
            if lines.len() > 1 {
                let mut dropped = lines.clone();
                dropped.remove(i);
                texts[0].push(dropped.join("\n"));
            }
        }
        let words = space.pool.words(s);
        // Whether the word at `b` is its line's first.
        let first_of_line = |b: usize| {
            let start = s[..b].rfind('\n').map_or(0, |i| i + 1);
            !words.iter().any(|&(wb, _)| wb >= start && wb < b)
        };
        for w in dict {
            texts[0].push(w.clone());
        }
        for &(b, e) in &words {
            let end = s[e..].find('\n').map_or(s.len(), |i| e + i);
            if !first_of_line(b) {
                texts[1].extend(dict.iter().map(|w| format!("{}{w}{}", &s[..b], &s[e..])));
                continue;
            }
            let start = s[..b].rfind('\n').map_or(0, |i| i + 1);
            // The value: after the key and the separators that follow it, to the line's end.
            let value = end
                - s[e..end]
                    .trim_start_matches(|c| space.pool.separates(c))
                    .len();
            for w in dict {
                texts[0].push(format!("{}{w}{}", &s[..b], &s[e..]));
                // The line, copied with its key replaced, after the line.
                let copy = format!("{}{w}{}", &s[start..b], &s[e..end]);
                texts[0].push(format!("{}\n{copy}{}", &s[..end], &s[end..]));
            }
            if value > e {
                for w in dict.iter().chain(ints) {
                    texts[0].push(format!("{}{w}{}", &s[..value], &s[end..]));
                }
            }
        }
        for (tier, texts) in texts.into_iter().enumerate() {
            for text in texts {
                if text == s {
                    continue;
                }
                let mut t = case.clone();
                let new = text.clone().into_bytes();
                let (i, k) = (l.stmt, l.arg);
                if cmp::set_bytes(&l.ty, &mut t.stmts[i].args[k], &mut { l.leaf }, &mut |_| {
                    new.clone()
                }) {
                    // Keyed by the whole test: the same text with another token in another
                    // argument is another edit.
                    let whole: Vec<_> = t.stmts.iter().map(|s| (s.callable, &s.args)).collect();
                    let key = format!("{whole:?}").into_bytes();
                    out[tier].push(((key, i, k, l.leaf, TAG), t));
                }
            }
        }
    }
    out
}
