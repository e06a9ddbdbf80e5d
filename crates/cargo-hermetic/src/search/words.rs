//! Words of the source put into a test's text after a gain. Code that matches text against
//! literals (`match key { "name" => .., "retries" => .. }`, `match action { "reload" => .. }`)
//! compares lengths first, in the standard library where no hook sees it, so no comparison
//! shows the literal until the text holds a word of its length. A dictionary does not wait for
//! that: the words written in the modules of the functions a test calls, and the integers the
//! run compared (and one more, for `n > 10`), each go where the text has a word, replace the
//! whole text, or go into a copy of the word's line added after it (`name=a` ->
//! `name=a\nretries=a`: the first line still holds what the code needed), where a line's
//! first word ends (a value: `verbose=true`), or into the empty field a line starts or ends
//! with (` - ` split at ' ' -> `GET - `, `:P` -> `name:P`), or as the last field or the key of
//! the line a reader of lines stopped at (`DELETE /a 32` -> `DELETE /a HTTP/1.1`, `HEAD / :x`
//! -> `content-length:x`); and each line is said twice (what a reader refuses on a repeat) or
//! dropped (one it refuses stops it before the rest). The edits start from a test that just
//! gained a goal, so whatever it had right (a token in another argument) stays.
//!
//! Text gets the shape the code reads with the separators of those modules (their char
//! literals and short punctuation strings: what they split, strip and find on): a key without
//! a value is joined to one (`FROM:` -> `FROM=FROM`, `=5` -> `name=5`), a value starts with a
//! mark (`dir=a` -> `dir=/a`), is emptied or becomes a number. Those shape edits come first,
//! since a text without the code's separator gains nothing from words until it has one.

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

/// `case` with the text leaf `l` holding `text`, when it can hold it. Keyed by the whole
/// test: the same text with another token in another argument is another edit.
pub(super) fn with_text(
    case: &TestCase,
    l: &cmp::ArgLeaf,
    text: String,
) -> Option<(Tried, TestCase)> {
    with_bytes(case, l, text.into_bytes())
}

/// `case` with the byte leaf `l` holding `new`, when it can hold it ([`with_text`]).
pub(super) fn with_bytes(
    case: &TestCase,
    l: &cmp::ArgLeaf,
    new: Vec<u8>,
) -> Option<(Tried, TestCase)> {
    let mut t = case.clone();
    let (i, k) = (l.stmt, l.arg);
    let set = cmp::set_bytes(&l.ty, &mut t.stmts[i].args[k], &mut { l.leaf }, &mut |_| {
        new.clone()
    });
    set.then(|| {
        let whole: Vec<_> = t.stmts.iter().map(|s| (s.callable, &s.args)).collect();
        let key = format!("{whole:?}").into_bytes();
        ((key, i, k, l.leaf, TAG), t)
    })
}

/// At most this many integers compared where the code never saw both operands equal.
const MAX_OPEN: usize = 4;

/// The words of a dictionary: the strings of the modules of the functions a test calls; the
/// integers its run compared and each plus one, as decimal text; and, of those, the ones
/// compared at sites `open` says were never met (the limit a parsed number has yet to pass:
/// `retries > 10` gives 10 and 11).
pub struct Dictionary {
    pub words: Vec<String>,
    pub ints: Vec<String>,
    pub open: Vec<String>,
    /// The code turned characters into digit values (see [`converts_digits`]), in this run or
    /// an earlier one, or its source reads digits: a text of one line gets its digit shapes.
    /// False from [`dictionary`]: the search sets it.
    pub digits: bool,
    /// The source of the code called, or of code the run entered, reads digits: byte slices
    /// get digit shapes too. False from [`dictionary`]: the search sets it.
    pub source_digits: bool,
    /// The ASCII punctuation the code checks text for, as runs so far showed it
    /// ([`Separators`]). Empty from [`dictionary`]: the search fills it in.
    pub punctuation: BTreeSet<char>,
}

/// The dictionary for `case`, from `cmp_ints` (`(site, operand)` pairs of the code under
/// test) and which sites are `open`. In a fixed order, each once.
pub fn dictionary(
    space: &Space,
    case: &TestCase,
    cmp_ints: &[(u64, u64)],
    open: impl Fn(u64) -> bool,
) -> Dictionary {
    let strings = module_words(space, case);
    let mut seen: BTreeSet<String> = strings.iter().cloned().collect();
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
    let open_ints: BTreeSet<u64> = cmp_ints
        .iter()
        .filter(|&&(site, v)| v <= MAX_WORD_INT && open(site))
        .map(|&(_, v)| v)
        .collect();
    let open = open_ints
        .into_iter()
        .take(MAX_OPEN / 2)
        .flat_map(|v| [v, v + 1])
        .map(|n| n.to_string())
        .collect();
    Dictionary {
        words: strings,
        ints,
        open,
        digits: false,
        source_digits: false,
        punctuation: BTreeSet::new(),
    }
}

/// The modules of the functions `case` calls.
pub(super) fn modules_of(space: &Space, case: &TestCase) -> BTreeSet<usize> {
    case.stmts
        .iter()
        .map(|s| space.cluster.callables[s.callable].module)
        .collect()
}

/// Whether the code of a module of a function `case` calls reads text a line at a time.
fn reads_lines(space: &Space, case: &TestCase) -> bool {
    modules_of(space, case).into_iter().any(|m| {
        space
            .pool
            .module_reads_lines(&space.cluster.modules[m].path)
    })
}

/// The words of the modules of the functions `case` calls, module by module, each once.
pub(super) fn module_words(space: &Space, case: &TestCase) -> Vec<String> {
    let mut seen = BTreeSet::new();
    let mut words = Vec::new();
    for m in modules_of(space, case) {
        for w in space.pool.module_strings(&space.cluster.modules[m].path) {
            if !w.is_empty() && seen.insert(w) {
                words.push(w.clone());
            }
        }
    }
    words
}

/// Each ASCII punctuation byte the code compared, with what it was compared with
/// (`(site, operand, other)`, either way round). A separator a fixed format is checked for
/// (`text[4] != b'-'`) meets a different byte of each text; a byte the text happened to hold
/// there meets only the separator. A check the text passes logs nothing, so the run that got
/// every separator right shows none of them: the search gathers them over runs (see
/// [`Separators`]).
pub fn punctuation(cmp_last: &[(u64, u64, u64)]) -> impl Iterator<Item = (char, u64)> + '_ {
    cmp_last.iter().flat_map(|&(_, x, y)| {
        [(x, y), (y, x)].into_iter().filter_map(|(p, other)| {
            let p = u8::try_from(p).ok().filter(u8::is_ascii_punctuation)?;
            Some((char::from(p), other))
        })
    })
}

/// The punctuation compared so far, each with the values it met ([`punctuation`]): those
/// that met two or more are what the code checks text for.
#[derive(Debug, Default)]
pub struct Separators(std::collections::BTreeMap<char, BTreeSet<u64>>);

impl Separators {
    /// Learns a run's comparisons. A byte compared with several values in one run is what a
    /// `match` read (its arms are the constants): its values are not counted.
    pub fn learn(&mut self, cmp_last: &[(u64, u64, u64)]) {
        let mut run: std::collections::BTreeMap<char, BTreeSet<u64>> = Default::default();
        for (c, other) in punctuation(cmp_last) {
            run.entry(c).or_default().insert(other);
        }
        for (c, met) in run.into_iter().filter(|(_, met)| met.len() == 1) {
            self.0.entry(c).or_default().extend(met);
        }
    }

    /// The punctuation compared with two values or more.
    pub fn checked(&self) -> BTreeSet<char> {
        self.0
            .iter()
            .filter(|(_, met)| met.len() >= 2)
            .map(|(&c, _)| c)
            .collect()
    }
}

/// Whether a comparison (`(site, operand, other)`) set `b'0'` against another digit that a
/// text of `case` holds: the overflow check of `b - b'0'` once a byte of the text passed
/// `is_ascii_digit`, whose own comparison happens in the standard library where no hook sees
/// it. Code that reads no digits (a reader of words) makes no such comparison, and a parser
/// of raw bytes (a frame's) meets such values in bytes that are no text; neither gets digit
/// shapes.
pub fn converts_digits(space: &Space, case: &TestCase, cmp_last: &[(u64, u64, u64)]) -> bool {
    let zero = u64::from(b'0');
    let digit = |v: u64| (u64::from(b'1')..=u64::from(b'9')).contains(&v);
    let converted: BTreeSet<u8> = cmp_last
        .iter()
        .filter_map(|&(_, x, y)| match (x == zero, y == zero) {
            (true, false) if digit(y) => Some(y as u8),
            (false, true) if digit(x) => Some(x as u8),
            _ => None,
        })
        .collect();
    !converted.is_empty()
        && cmp::arg_leaves(space, case)
            .iter()
            .any(|l| l.text && l.bytes.iter().any(|b| converted.contains(b)))
}

/// How many tiers [`edits`] sorts its edits into.
pub const TIERS: usize = 4;

/// Of a gain's word edits, at most this many from each tier (in order; what a tier leaves
/// unused goes to the next): words at keys and values get slots of their own however many
/// shape edits a text of several lines gives.
pub const QUOTA: [usize; TIERS] = [12, 10, 6, 4];

/// At most this many tokens (see [`Edits::tokens`]) follow a gain.
pub const MAX_TOKENS: usize = 64;
/// A text of at most this many lines is replaced whole by each word among the tokens.
const WHOLE_TOKEN_LINES: usize = 2;
/// Only this many first lines of a text are said twice among the tokens.
const MAX_REPEATED: usize = 16;

/// A gain's dictionary edits: whole texts, the tokens, and the tiers.
pub struct Edits {
    /// A text of one line or two (a token the code compares whole: `match action { "reload"
    /// => .. }`) as each word of the dictionary, at most [`MAX_TOKENS`]: all of them are tried
    /// (before the tokens), as a fuzzer tries each word of its dictionary on each new input,
    /// since a `match` on text compares lengths first and shows no operand to follow.
    pub whole: Vec<(Tried, TestCase)>,
    /// Each line said twice; the value of the last line and of the line a reader stopped at
    /// as each word of the dictionary, at most [`MAX_TOKENS`]: all of them are tried.
    pub tokens: Vec<(Tried, TestCase)>,
    /// The other edits, in tiers tried in order (see [`texts`]).
    pub tiers: [Vec<(Tried, TestCase)>; TIERS],
}

/// Every dictionary edit of the text arguments of `case`, each with the key it is tried
/// under. A text two tiers would give is kept in the first. `gaining`: the statements whose
/// calls covered new goals.
/// `compared` are the run's compared byte strings, in the order made (see [`stopped_line`]).
pub fn edits(
    space: &Space,
    case: &TestCase,
    dict: &Dictionary,
    compared: &[Vec<u8>],
    gaining: &BTreeSet<usize>,
) -> Edits {
    let mut out = Edits {
        whole: Vec::new(),
        tokens: Vec::new(),
        tiers: Default::default(),
    };
    let modules: BTreeSet<&[String]> = case
        .stmts
        .iter()
        .map(|s| {
            space.cluster.modules[space.cluster.callables[s.callable].module]
                .path
                .as_slice()
        })
        .collect();
    let modules: Vec<&[String]> = modules.into_iter().collect();
    let lines = modules.iter().any(|m| space.pool.module_reads_lines(m));
    let crlf = modules
        .iter()
        .any(|m| space.pool.module_line_break(m) == "\r\n");
    let nl = if crlf { "\r\n" } else { "\n" };
    let kept = kept_words(compared, space.pool.source_strings());
    // The texts of the `gaining` calls first, the latest first (`feed("RCPT")` after the calls
    // that set the session up): the whole texts and tokens are capped.
    let mut leaves = cmp::arg_leaves(space, case);
    leaves.sort_by_key(|l| match gaining.contains(&l.stmt) {
        true => (0, usize::MAX - l.stmt),
        false => (1, l.stmt),
    });
    for l in leaves {
        // Few, and only where the code reads digits: all of them, first. Other bytes get
        // these only: their words come from the byte comparisons.
        let mut seen = BTreeSet::new();
        if let Some(s) = shape_text(&l, dict.source_digits).filter(|_| dict.digits) {
            seen.insert(s.to_string());
            for text in all_digit_shapes(s, &dict.punctuation, lines, &kept) {
                if seen.insert(text.clone()) {
                    out.whole.extend(with_text(case, &l, text));
                }
            }
        }
        let Ok(s) = std::str::from_utf8(&l.bytes) else {
            continue;
        };
        // Bytes that hold text, where the code reads text out of bytes (`from_utf8`), are text.
        let text_bytes = space.text_bytes(case.stmts[l.stmt].callable, &l.ty);
        if !(l.text || text_bytes && !s.is_empty()) || l.fixed {
            continue;
        }
        seen.insert(s.to_string());
        // Where lines end with `\r\n`, the edits see `\n` and make `\r\n` (a line added
        // after `GET / HTTP/1.1` is a header).
        let plain = s.replace(nl, "\n");
        let stopped = stopped_line(&plain, compared);
        let (whole, tokens, tiers) = texts(space, &modules, &plain, dict, stopped, lines || crlf);
        let lists = [(&mut out.whole, whole), (&mut out.tokens, tokens)]
            .into_iter()
            .chain(out.tiers.iter_mut().zip(tiers));
        for (list, texts) in lists {
            for text in texts {
                let text = with_line_break(text, nl);
                if !seen.insert(text.clone()) {
                    continue;
                }
                list.extend(with_text(case, &l, text));
            }
        }
    }
    out.whole.truncate(MAX_TOKENS);
    out.tokens.truncate(MAX_TOKENS);
    out
}

/// `text`, made with `\n` for line breaks, with `nl` for them (a `\r\n` it holds stays one).
fn with_line_break(text: String, nl: &str) -> String {
    match nl {
        "\n" => text,
        _ => text.replace(nl, "\n").replace('\n', nl),
    }
}

/// The texts the edits of `s` give, by tier. First the shape of its lines, whatever the
/// words: each line dropped (a line the code refuses stops it before the rest); a key without
/// a value given a separator of the source and a value (`word` -> `word=word`, `word:` ->
/// `word=0`), so a text without structure gets some; a value
/// emptied, made the first of `ints`, or started with one of the source's marks (`dir=a` ->
/// `dir=/a`, what `starts_with('/')` asks); a value that is a number replaced by each of
/// `ints`. Then `dict` where a line's first word is (in place, in a copy
/// of the line added after it, before a line that starts at its separator: `=1` -> `name=1`,
/// or with a separator and the old word after it: `x` -> `name=x`; in a text without words,
/// `name=name`) and where its value is
/// (after the first word and its separators; `ints` go only there), and as the whole text.
/// Then `dict` in place of any other word. Apart from the tiers, the whole texts: a text of
/// one line (or two) gives each word of `dict` as the whole text; and tokens: each line
/// repeated (a key given twice), and words compared whole: the value of the last line and of
/// the line a reader `stopped` at gets each word of `dict` in its place, and where the code
/// `reads_lines`, their last field and a key holding a blank too.
fn texts(
    space: &Space,
    modules: &[&[String]],
    s: &str,
    dictionary: &Dictionary,
    stopped: Option<usize>,
    reads_lines: bool,
) -> (Vec<String>, Vec<String>, [Vec<String>; TIERS]) {
    let (dict, ints) = (&dictionary.words, &dictionary.ints);
    let pool = &space.pool;
    let mut texts: [Vec<String>; TIERS] = Default::default();
    // Separators a line's key and value can be joined by, and marks a value can start with:
    // those of the modules of the functions called.
    let joins: BTreeSet<&str> = modules
        .iter()
        .flat_map(|m| pool.module_separators(m))
        .map(String::as_str)
        .filter(|j| !j.contains('\n'))
        .collect();
    let marks: Vec<&str> = joins
        .iter()
        .copied()
        .filter(|j| !j.trim().is_empty())
        .collect();
    let lines: Vec<&str> = s.split('\n').collect();
    let mut tokens = Vec::new();
    for i in 0..lines.len() {
        // A line said twice is a token too: few, and a duplicate a reader refuses is a branch
        // of each key's own.
        if i < MAX_REPEATED {
            let mut repeated = lines.clone();
            repeated.insert(i, lines[i]);
            tokens.push(repeated.join("\n"));
        }
        if lines.len() > 1 {
            let mut dropped = lines.clone();
            dropped.remove(i);
            texts[0].push(dropped.join("\n"));
        }
    }
    let separates = |c: char| c == '\n' || joins.iter().any(|j| j.contains(c));
    // A line of fields gets one more: its last separator and field again (`0.0` -> `0.0.0`,
    // what a third `split('.').next()` asks for). A token, all tried: as a shape edit it took
    // the slots a text of one line leaves to the words.
    let splits_on = |c: char| {
        joins
            .iter()
            .any(|j| j.len() == c.len_utf8() && j.starts_with(c))
    };
    // Where a line's last field starts: after the last separator the code splits on.
    let last_field = |line: &str| {
        let (at, c) = line.char_indices().rev().find(|&(_, c)| splits_on(c))?;
        Some((at, at + c.len_utf8()))
    };
    for (i, line) in lines.iter().enumerate().take(MAX_REPEATED) {
        let Some((at, field)) = last_field(line) else {
            continue;
        };
        if line.len() > field {
            let mut grown: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
            grown[i].push_str(&line[at..]);
            tokens.push(grown.join("\n"));
        }
    }
    // Where the code reads lines, the line a reader stopped at, and the last line with text (a
    // reader of headers compares none it could be found by), get each word as their last
    // field, and as their key where the key holds a blank. A field compared whole (`match
    // parts[2] { "HTTP/1.1" => .. }`) compares lengths first and shows no operand, and the
    // fields before it passed (`DELETE /a 32` -> `DELETE /a HTTP/1.1`); a key that must be one
    // token is no word to replace (`HEAD / :x` -> `content-length:x`). Tokens, all tried: a
    // word after a line's first is a late tier's, a slot or two per gain.
    let last_line = s.trim_end().rfind('\n').map_or(0, |i| i + 1);
    let ends: BTreeSet<usize> = match reads_lines {
        true => stopped.into_iter().chain([last_line]).collect(),
        false => BTreeSet::new(),
    };
    for start in ends {
        let end = s[start..].find('\n').map_or(s.len(), |i| start + i);
        let line = &s[start..end];
        let (head, tail) = (&s[..start], &s[end..]);
        if let Some((_, field)) = last_field(line) {
            let fields = &line[..field];
            tokens.extend(dict.iter().map(|w| format!("{head}{fields}{w}{tail}")));
        }
        // Which separator ends the key is unknown (`/` is a mark the path starts with): the
        // first of each, whose key holds a blank.
        let marks: BTreeSet<char> = line
            .chars()
            .filter(|&c| !c.is_whitespace() && splits_on(c))
            .collect();
        for at in marks.into_iter().filter_map(|c| line.find(c)) {
            if line[..at].trim().contains(char::is_whitespace) {
                let rest = &line[at..];
                tokens.extend(dict.iter().map(|w| format!("{head}{w}{rest}{tail}")));
            }
        }
    }
    let words = words_of(s, separates);
    let mut whole = Vec::new();
    // A short text is likely one token with a stray line in it (`8:452:no\nno:-l` met the
    // `match action` a one-line text would).
    if lines.len() <= WHOLE_TOKEN_LINES {
        whole.extend(dict.iter().cloned());
    } else {
        texts[2].extend(dict.iter().cloned());
    }
    let [keyed, prefixed, valued] = compounds(dict, &marks, ints.first());
    // A blank-separated word that starts with a prefix literal (the code stripped `--` off
    // it and then matched the rest) gets each compound of that prefix in its place, all
    // tried: `--verbose` -> `--level`, `--level=0`.
    let prefixes: Vec<&String> = prefixes(dict).collect();
    for (b, e) in words_of(s, char::is_whitespace) {
        let (head, word, tail) = (&s[..b], &s[b..e], &s[e..]);
        for p in prefixes.iter().filter(|p| word.starts_with(p.as_str())) {
            for c in prefixed.iter().chain(&valued) {
                if c.starts_with(p.as_str()) && c != word {
                    tokens.push(format!("{head}{c}{tail}"));
                }
            }
        }
    }
    texts[1].extend(prefixed.iter().cloned());
    texts[2].extend(valued);
    // A literal that ends with a mark and its shaped value are a shape of their own, few and
    // what the code reads next; words after a literal of marks, a tier later.
    let compounds: Vec<(usize, &String)> = keyed
        .iter()
        .map(|c| (0, c))
        .chain(prefixed.iter().map(|c| (1, c)))
        .collect();
    if words.is_empty() {
        for j in &marks {
            texts[2].extend(dict.iter().map(|w| format!("{w}{j}{w}")));
        }
    }
    // Whether the word at `b` is its line's first.
    let first_of_line = |b: usize| {
        let start = s[..b].rfind('\n').map_or(0, |i| i + 1);
        !words.iter().any(|&(wb, _)| wb >= start && wb < b)
    };
    for &(b, e) in &words {
        let end = s[e..].find('\n').map_or(s.len(), |i| e + i);
        if !first_of_line(b) {
            // A word after a line's first is an argument: `MAIL x` -> `MAIL FROM:<a@a>`, each
            // keyed compound all tried (as after a verb alone: one sampled among the shape
            // edits, it waited behind a deep queue, session seed 2).
            let (head, tail) = (&s[..b], &s[e..]);
            for &(tier, w) in &compounds {
                let text = format!("{head}{w}{tail}");
                match tier {
                    0 => tokens.push(text),
                    _ => texts[tier].push(text),
                }
            }
            texts[3].extend(dict.iter().map(|w| format!("{head}{w}{tail}")));
            continue;
        }
        let start = s[..b].rfind('\n').map_or(0, |i| i + 1);
        let (head, word, tail) = (&s[..b], &s[b..e], &s[e..]);
        // The value: after the key, blanks, one separator and blanks, to the line's end (a
        // mark after the separator is the value's: `dir=/a`).
        let rest = s[e..end].trim_start();
        let rest = rest
            .strip_prefix(|c: char| separates(c) && !c.is_whitespace())
            .unwrap_or(rest)
            .trim_start();
        let value = end - rest.len();
        if value == end {
            // A key without a value: joined to one (its own word or a compared number) by
            // each separator, in place of the separators it has.
            let rest = &s[end..];
            for j in &joins {
                texts[0].push(format!("{head}{word}{j}{word}{rest}"));
                if let Some(n) = ints.first() {
                    texts[0].push(format!("{head}{word}{j}{n}{rest}"));
                }
                if marks.contains(j) {
                    texts[2].extend(dict.iter().map(|w| format!("{head}{w}{j}{word}{rest}")));
                }
            }
            // A line of one word (a verb) gets an argument after a blank: each keyed
            // compound, all of them tried (`MAIL` -> `MAIL FROM:<a@a>`), and the others.
            if joins.contains(" ") {
                for &(tier, c) in &compounds {
                    let text = format!("{head}{word} {c}{rest}");
                    if tier == 0 {
                        tokens.push(text);
                    } else {
                        texts[tier].push(text);
                    }
                }
            }
        } else {
            let (before, after) = (&s[..value], &s[end..]);
            texts[0].push(format!("{before}{after}"));
            // A number, before the others: a value the code parses gains nothing until then.
            texts[0].extend(ints.first().map(|n| format!("{before}{n}{after}")));
            for m in &marks {
                texts[0].push(format!("{before}{m}{}{after}", &s[value..end]));
            }
        }
        // A line that starts at a separator has no key yet: one goes before it. A blank
        // counts where the code splits on it (` - ` split at ' ' starts with an empty field).
        let field_mark = |c: char| separates(c) && (!c.is_whitespace() || splits_on(c));
        if s[start..b].chars().any(field_mark) {
            let (line_head, line) = (&s[..start], &s[start..]);
            texts[1].extend(dict.iter().map(|w| format!("{line_head}{w}{line}")));
        }
        // One that ends at a separator has no last field yet: one goes after it (`GET /a `
        // split at ' ' ends with an empty version).
        if s[..end].ends_with(field_mark) {
            let (line, rest) = (&s[..end], &s[end..]);
            texts[1].extend(dict.iter().map(|w| format!("{line}{w}{rest}")));
        }
        for w in dict {
            texts[1].push(format!("{head}{w}{tail}"));
            // The line, copied with its key replaced, after the line; and with a number the
            // code has yet to pass as its value.
            let copy = format!("{}{w}{}", &s[start..b], &s[e..end]);
            texts[2].push(format!("{}\n{copy}{}", &s[..end], &s[end..]));
            if value > e {
                for n in &dictionary.open {
                    let copy = format!("{}{w}{}{n}", &s[start..b], &s[e..value]);
                    texts[2].push(format!("{}\n{copy}{}", &s[..end], &s[end..]));
                }
            }
        }
        if value > e {
            // A number is likely parsed, then compared with the limits the run compared.
            let number = value < end && s[value..end].bytes().all(|c| c.is_ascii_digit());
            let (before, after) = (&s[..value], &s[end..]);
            texts[usize::from(!number)].extend(ints.iter().map(|n| format!("{before}{n}{after}")));
            if s[end..].trim().is_empty() || stopped == Some(start) {
                // The value of the line a reader stopped at, or of the last line (the last it
                // read); compared whole (`match value { "true" | "yes" => .. }`) like a token.
                tokens.extend(dict.iter().map(|w| format!("{before}{w}{after}")));
            } else {
                texts[1].extend(dict.iter().map(|w| format!("{before}{w}{after}")));
            }
        }
    }
    (whole, tokens, texts)
}

/// [`digit_shapes`] of `s`: around its punctuation, then around the punctuation the code
/// checks text for alone (`ba: s:qu` -> `11:11:11`), then around the punctuation that stands
/// between letters or digits only (`--AB-DE-GH` -> `1111-11-11`: a separator sits between
/// fields, where one at the start stands in a field's place), then around the first of each
/// run of punctuation (`EHLO--E-LO` -> `1111-11-11`); a text of digits and punctuation with
/// one mark next to a digit made a digit ([`one_digit_more`]); and around its punctuation and
/// the `words` it holds ([`kept_words`]: `Monday, IJ:KL GMT` -> `Monday, 11:11 GMT`). Where
/// the code reads no lines, a line break is a field's char like a letter (`11\nr-ta-e-` ->
/// `1111-11-11`); where it does, a text of several lines is a reader's, its keys words, not
/// digits: no shapes.
fn all_digit_shapes(
    s: &str,
    checked: &BTreeSet<char>,
    lines: bool,
    words: &[Vec<u8>],
) -> Vec<String> {
    if lines && s.contains('\n') {
        return Vec::new();
    }
    let chars: Vec<char> = s.chars().collect();
    let kept = kept_chars(s, words);
    let punct = |i: usize| !chars[i].is_alphanumeric() && (lines || chars[i] != '\n');
    let field = |i: usize| i < chars.len() && !punct(i);
    let between = |i: usize| punct(i) && i > 0 && field(i - 1) && field(i + 1);
    let first_of_run = |i: usize| punct(i) && (i == 0 || !punct(i - 1));
    let mut out = digit_shapes(s, punct);
    let others = [
        digit_shapes(s, |i| checked.contains(&chars[i])),
        digit_shapes(s, between),
        digit_shapes(s, first_of_run),
        one_digit_more(&chars, punct),
        digit_shapes(s, |i| punct(i) || kept[i]),
    ];
    for t in others.into_iter().flatten() {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}

/// The words a digit shape keeps where a text holds them: those the code found equal to what
/// it looked for, two bytes or more, of `compared` (a run's byte comparisons, `[a0, b0, a1,
/// ..]`), and the source's strings of two chars or more with a letter or digit (`Monday, `,
/// ` GMT`: a 4-byte literal is compared as one integer, not by `memcmp`).
fn kept_words(compared: &[Vec<u8>], source: &[String]) -> Vec<Vec<u8>> {
    let met = compared
        .chunks_exact(2)
        .filter(|pair| pair[0] == pair[1] && pair[0].len() >= 2)
        .map(|pair| pair[0].clone());
    let written = source
        .iter()
        .filter(|w| w.len() >= 2 && w.chars().any(char::is_alphanumeric))
        .map(|w| w.as_bytes().to_vec());
    let mut words: Vec<Vec<u8>> = met.chain(written).collect();
    words.sort();
    words.dedup();
    words
}

/// For each char of `s`, whether it sits in one of the `kept` words (see [`kept_words`]): a digit
/// shape keeps those as it keeps punctuation (`Monday, IJ-KLM-NO GMT` -> `Monday, 11-111-11
/// GMT`, where the other shapes make the weekday digits too).
fn kept_chars(s: &str, kept: &[Vec<u8>]) -> Vec<bool> {
    let mut bytes = vec![false; s.len()];
    for w in kept {
        for at in cmp::occurrences(s.as_bytes(), w) {
            bytes[at..at + w.len()].fill(true);
        }
    }
    s.char_indices().map(|(b, _)| bytes[b]).collect()
}

/// At most this many marks of a text are each made a digit by [`one_digit_more`].
const MAX_ONE_DIGIT_MORE: usize = 8;

/// A text of digits and punctuation only (a digit shape, or one a mutation made) with one of
/// its marks next to a digit made a digit, for each such mark: `00-0-00-00`, whose separators
/// at 4 and 7 are in place, fails at the `-` in a field (`0010-00-00`), which no shape changes.
fn one_digit_more(chars: &[char], punct: impl Fn(usize) -> bool) -> Vec<String> {
    let shaped = (0..chars.len()).all(|i| punct(i) || chars[i].is_ascii_digit());
    if !shaped {
        return Vec::new();
    }
    let digit = |i: Option<usize>| {
        i.and_then(|i| chars.get(i))
            .is_some_and(char::is_ascii_digit)
    };
    (0..chars.len())
        .filter(|&i| punct(i) && (digit(i.checked_sub(1)) || digit(Some(i + 1))))
        .take(MAX_ONE_DIGIT_MORE)
        .map(|i| with_digit(chars.iter().copied(), |j| j == i, '1'))
        .collect()
}

/// The text of a leaf that digit shapes apply to: a string's; and an ASCII byte slice's where
/// `bytes` (the source of the code called reads digits): a parser of `&[u8]` reads a fixed
/// format (`06-Nov-94 08:49:37 GMT`, digits by `s[0].wrapping_sub(b'0')`) as one of `&str` does.
fn shape_text(l: &cmp::ArgLeaf, bytes: bool) -> Option<&str> {
    let shapeable = l.text || (bytes && l.bytes.is_ascii());
    if l.fixed || !shapeable {
        return None;
    }
    std::str::from_utf8(&l.bytes).ok()
}

/// The digit shapes of every text argument of `case` (see [`all_digit_shapes`]), each with
/// the key it is tried under: for the archive's tests, once the code showed it converts
/// digits or checks for another separator, which their gains came before.
pub fn digit_edits(
    space: &Space,
    case: &TestCase,
    checked: &BTreeSet<char>,
    source_digits: bool,
) -> Vec<(Tried, TestCase)> {
    let lines = reads_lines(space, case);
    let mut out = Vec::new();
    for l in cmp::arg_leaves(space, case) {
        let Some(s) = shape_text(&l, source_digits) else {
            continue;
        };
        for text in all_digit_shapes(s, checked, lines, &[]) {
            out.extend(with_text(case, &l, text));
        }
    }
    out
}

/// The digits each letter and digit of `s` becomes in [`digit_shapes`]: the least, the
/// least that is no zero (a month, a day), and the most.
const SHAPE_DIGITS: [char; 3] = ['0', '1', '9'];

/// `s` (one line) with every char but those it `keeps` (by their index among its chars) made
/// one digit: a text of a fixed format that the code reads a digit at a time (`YYYY-MM-DD`,
/// `HH:MM:SS`) passes every
/// `is_ascii_digit` at once once its separators are in place, where a digit a mutation puts
/// in gains nothing before the others are digits too. `1111-11-11` is a date; `0000-00-00`
/// and `9999-99-99` are out of range.
fn digit_shapes(s: &str, keeps: impl Fn(usize) -> bool) -> Vec<String> {
    let n = s.chars().count();
    if !(0..n).any(&keeps) || (0..n).all(&keeps) {
        return Vec::new();
    }
    SHAPE_DIGITS
        .iter()
        .map(|&d| with_digit(s.chars(), |i| !keeps(i), d))
        .filter(|t| t != s)
        .collect()
}

/// `chars` with those at the indices `made` picks made the digit `d`, one for each of their
/// bytes, so what the code finds at a byte offset stays there.
fn with_digit(chars: impl Iterator<Item = char>, made: impl Fn(usize) -> bool, d: char) -> String {
    let mut t = String::new();
    for (i, c) in chars.enumerate() {
        if made(i) {
            t.extend(std::iter::repeat_n(d, c.len_utf8()));
        } else {
            t.push(c);
        }
    }
    t
}

/// Where a reader of lines stopped in `s`: the start of the line that holds (last) the latest
/// text the run compared that `s` holds, two bytes or more. A reader that refuses a value in
/// the middle of the text (`verbose=zz` between other lines) compared its key last, and what
/// the value should be is found in that line, not in the last one.
fn stopped_line(s: &str, compared: &[Vec<u8>]) -> Option<usize> {
    compared
        .iter()
        .rev()
        .filter(|c| c.len() >= 2)
        .find_map(|c| {
            let at = s.rfind(std::str::from_utf8(c).ok()?)?;
            Some(s[..at].rfind('\n').map_or(0, |i| i + 1))
        })
}

/// Words made of the dictionary's `dict` and the `marks` of the source, for texts whose words
/// the code strips off one by one. A literal of marks alone (`--`) goes before each word
/// (`--verbose`: what `strip_prefix("--")` then `match name` asks); a literal that ends with a
/// mark (`FROM:`) before a value: a word, a word in a pair of brackets among the marks, or two
/// words joined by another mark in them (`FROM:<a@a>`: `strip_prefix('<')`, `split_once('@')`).
/// Then, apart, the first words with a mark and a value after them (`--level=0`, with `n`, the
/// first of the numbers the run compared). A literal of one mark (`.`) is no prefix: a lone
/// mark before a value is a shape edit already, and before every word it buries the rest.
/// Returned as [keyed values, prefixed words, prefixed words with values].
fn compounds(dict: &[String], marks: &[&str], n: Option<&String>) -> [Vec<String>; 3] {
    let is_word = |w: &str| {
        w.chars().next().is_some_and(char::is_alphanumeric) && !w.contains(char::is_whitespace)
    };
    let prefixes: Vec<&String> = prefixes(dict).collect();
    let keyed = dict
        .iter()
        .filter(|w| is_word(w) && w.chars().last().is_some_and(|c| c.is_ascii_punctuation()));
    let mut prefixed = Vec::new();
    let mut valued = Vec::new();
    for p in &prefixes {
        for w in dict.iter().filter(|w| is_word(w)) {
            prefixed.push(format!("{p}{w}"));
            for j in marks
                .iter()
                .filter(|j| j.chars().count() == 1 && !p.contains(**j))
            {
                valued.push(format!("{p}{w}{j}{}", n.unwrap_or(w)));
            }
        }
    }
    let one: Vec<&str> = marks
        .iter()
        .copied()
        .filter(|m| m.chars().count() == 1)
        .collect();
    let pairs = [("<", ">"), ("(", ")"), ("[", "]"), ("{", "}"), ("\"", "\"")];
    let pairs: Vec<(&str, &str)> = pairs
        .into_iter()
        .filter(|(o, c)| one.contains(o) && one.contains(c))
        .collect();
    let mut out = Vec::new();
    for k in keyed {
        out.push(format!("{k}a"));
        for &(o, c) in &pairs {
            out.push(format!("{k}{o}a{c}"));
            for m in one.iter().filter(|m| **m != o && **m != c) {
                out.push(format!("{k}{o}a{m}a{c}"));
            }
        }
    }
    [out, prefixed, valued]
}

/// The literals of marks alone that [`compounds`] puts before words (`--`).
fn prefixes(dict: &[String]) -> impl Iterator<Item = &String> {
    dict.iter()
        .filter(|w| (2..=3).contains(&w.len()) && w.chars().all(|c| c.is_ascii_punctuation()))
}

/// The byte ranges of the words of `s`: the runs of chars `separates` is false for.
fn words_of(s: &str, separates: impl Fn(char) -> bool) -> Vec<(usize, usize)> {
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in s.char_indices() {
        match (start, separates(c)) {
            (None, false) => start = Some(i),
            (Some(b), true) => {
                words.push((b, i));
                start = None;
            }
            _ => {}
        }
    }
    words.extend(start.map(|b| (b, s.len())));
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_compared_with_several_bytes_is_checked_for() {
        let mut seps = Separators::default();
        seps.learn(&[(1, 0x60, 0x3a), (1, 0x39, 0x30), (2, 5, 0x1_002d)]);
        // `:` met only '`' so far, and '`' only `:`.
        assert!(seps.checked().is_empty());
        seps.learn(&[(1, 0x3a, 0x65)]);
        assert_eq!(seps.checked(), BTreeSet::from([':']));
        // A byte a `match` read meets each arm in one run: the arms are the constants.
        seps.learn(&[(2, 0x2e, 0x2b), (2, 0x2e, 0x2d)]);
        assert_eq!(seps.checked(), BTreeSet::from([':']));
        seps.learn(&[(2, 0x2f, 0x2b), (2, 0x2f, 0x2d)]);
        assert_eq!(seps.checked(), BTreeSet::from(['+', '-', ':']));
    }

    #[test]
    fn digit_shapes_keep_punctuation_and_byte_offsets() {
        let punct = |s: &str| {
            let chars: Vec<char> = s.chars().collect();
            move |i: usize| !chars[i].is_alphanumeric()
        };
        assert_eq!(
            digit_shapes("ab3x-q1-zz", punct("ab3x-q1-zz")),
            ["0000-00-00", "1111-11-11", "9999-99-99"]
        );
        assert!(digit_shapes("é:x", punct("é:x")).contains(&"11:1".to_string()));
        // Only the punctuation kept: the blank where a `:` is missing becomes a digit too.
        let colon = |i: usize| "ba: s:qu".chars().nth(i) == Some(':');
        assert!(digit_shapes("ba: s:qu", colon).contains(&"11:11:11".to_string()));
        // No punctuation, or only punctuation: no shape.
        assert!(digit_shapes("ab3x", punct("ab3x")).is_empty());
        assert!(digit_shapes("-:", punct("-:")).is_empty());
    }

    #[test]
    fn a_line_break_is_a_field_char_where_the_code_reads_no_lines() {
        let none = BTreeSet::new();
        assert!(all_digit_shapes("a-1\nb-2", &none, true, &[]).is_empty());
        let shapes = all_digit_shapes("11\nr-ta-e-", &none, false, &[]);
        assert!(shapes.contains(&"1111-11-11".to_string()), "{shapes:?}");
        assert!(shapes.iter().all(|t| !t.contains('\n')), "{shapes:?}");
    }

    #[test]
    fn the_words_a_run_accepted_or_the_source_holds_stay_in_a_digit_shape() {
        let compared = [
            b"Monday, ".to_vec(),
            b"Monday, ".to_vec(),
            b"IJ".to_vec(),
            b"-J".to_vec(),
        ];
        let kept = kept_words(&compared, &[" GMT".to_string(), ":".to_string()]);
        assert_eq!(kept, [b" GMT".to_vec(), b"Monday, ".to_vec()]);
        let text = "Monday, IJ-KLM-NO GMT";
        let shapes = all_digit_shapes(text, &BTreeSet::new(), false, &kept);
        assert!(
            shapes.contains(&"Monday, 11-111-11 GMT".to_string()),
            "{shapes:?}"
        );
    }

    #[test]
    fn a_mark_amid_digits_becomes_a_digit_once_the_letters_are_digits() {
        let none = BTreeSet::new();
        let shapes = all_digit_shapes("00-0-00-00", &none, false, &[]);
        for one in ["0010-00-00", "00-0100-00", "00-0-00100"] {
            assert!(shapes.contains(&one.to_string()), "{shapes:?}");
        }
        // Letters still to be made digits: the other shapes do that first.
        let shapes = all_digit_shapes("ab-c-de-fg", &none, false, &[]);
        assert!(!shapes.contains(&"ab1c-de-fg".to_string()), "{shapes:?}");
        let chars: Vec<char> = "ab-c".chars().collect();
        assert!(one_digit_more(&chars, |i| chars[i] == '-').is_empty());
    }

    #[test]
    fn a_separator_between_fields_is_kept_where_one_at_the_start_is_not() {
        let shapes = all_digit_shapes("--AB-DE-GH", &BTreeSet::new(), false, &[]);
        assert!(shapes.contains(&"--11-11-11".to_string()));
        assert!(shapes.contains(&"1111-11-11".to_string()));
        let shapes = all_digit_shapes("EHLO--E-LO", &BTreeSet::new(), false, &[]);
        assert!(shapes.contains(&"1111-11-11".to_string()));
    }
}
