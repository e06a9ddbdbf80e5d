//! Words of the source put into a test's text after a gain. Code that matches text against
//! literals (`match key { "name" => .., "retries" => .. }`, `match action { "reload" => .. }`)
//! compares lengths first, in the standard library where no hook sees it, so no comparison
//! shows the literal until the text holds a word of its length. A dictionary does not wait for
//! that: the words written in the modules of the functions a test calls, and the integers the
//! run compared (and one more, for `n > 10`), each go where the text has a word, replace the
//! whole text, or go into a copy of the word's line added after it (`name=a` ->
//! `name=a\nretries=a`: the first line still holds what the code needed); and each line is
//! said twice (what a reader refuses on a repeat). The edits start from a test that just
//! gained a goal, so whatever it had right (a token in another argument) stays.

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

/// The dictionary for `case`: the strings of the modules of the functions it calls, then
/// the integers compared in the run (`cmp_ints`, `(site, operand)` pairs of the code under
/// test) and each plus one, as decimal text. In a fixed order, each once.
pub fn dictionary(space: &Space, case: &TestCase, cmp_ints: &[(u64, u64)]) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let mut add = |w: String| {
        if !w.is_empty() && seen.insert(w.clone()) {
            out.push(w);
        }
    };
    let modules: BTreeSet<usize> = case
        .stmts
        .iter()
        .map(|s| space.cluster.callables[s.callable].module)
        .collect();
    for m in modules {
        let path = &space.cluster.modules[m].path;
        space.pool.module_strings(path).iter().cloned().for_each(&mut add);
    }
    let ints: BTreeSet<u64> = cmp_ints
        .iter()
        .map(|&(_, v)| v)
        .filter(|&v| v <= MAX_WORD_INT)
        .collect();
    for v in ints.into_iter().take(MAX_INTS) {
        add(v.to_string());
        add((v + 1).to_string());
    }
    out
}

/// Every dictionary edit of the text arguments of `case`, each with the key it is tried
/// under: per text, each line repeated, then per word of `dict` the whole text replaced, and
/// per word of the text that word replaced in place and in an added copy of its line.
pub fn edits(space: &Space, case: &TestCase, dict: &[String]) -> Vec<(Tried, TestCase)> {
    let mut out = Vec::new();
    for l in cmp::arg_leaves(space, case) {
        if !l.text || l.fixed {
            continue;
        }
        let Ok(s) = std::str::from_utf8(&l.bytes) else {
            continue;
        };
        let mut texts = Vec::new();
        let lines: Vec<&str> = s.split('\n').collect();
        for i in 0..lines.len() {
            let mut repeated = lines.clone();
            repeated.insert(i, lines[i]);
            texts.push(repeated.join("\n"));
        }
        let words = space.pool.words(s);
        for w in dict {
            texts.push(w.clone());
            for &(b, e) in &words {
                texts.push(format!("{}{w}{}", &s[..b], &s[e..]));
                // The word's line, copied with the word replaced, after the line.
                let start = s[..b].rfind('\n').map_or(0, |i| i + 1);
                let end = s[e..].find('\n').map_or(s.len(), |i| e + i);
                let copy = format!("{}{w}{}", &s[start..b], &s[e..end]);
                texts.push(format!("{}\n{copy}{}", &s[..end], &s[end..]));
            }
        }
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
                out.push(((key, i, k, l.leaf, TAG), t));
            }
        }
    }
    out
}
