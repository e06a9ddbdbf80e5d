//! Plainer characters in a finished test's text arguments, so that a reader sees characters
//! they would type: the search reaches for extremes (`'\u{10ffff}'`, `'\u{100000}'`, control
//! characters) that a test prints as `\u{..}` escapes, and most of them only stand for "some
//! character". Minimisation ([`super::minimise`]) tries each [`Swap`] plan and keeps it when the
//! test still covers its goals.

use crate::test_case::TestCase;
use hermetic_protocol::Value;

/// A character a reader would type in place of one they would not: `(from, to)`.
pub type Swap = (char, char);

/// Whether a test prints `c` as a `\u{..}` escape (`\n`, `\t`, `\r`, `\0`, quotes and
/// backslashes have short escapes and stay).
fn exotic(c: char) -> bool {
    c.escape_debug().to_string().starts_with("\\u{")
}

/// The plain characters to try for `c`, likeliest first: a blank for white space (the code
/// may split on it), a letter, and for a character beyond ASCII a readable one beyond ASCII
/// (the code may tell the two apart).
fn stand_ins(c: char) -> Vec<char> {
    let mut out = Vec::new();
    if c.is_whitespace() {
        out.push(' ');
    }
    out.push('a');
    if !c.is_ascii() {
        out.push('é');
    }
    out
}

/// The swap plans for `case`'s text and character arguments, and the texts of its environment
/// (files' paths and contents, directories, stdin, variables), to try in order: every exotic
/// character at once for its first stand-in, then each distinct one alone for each of its
/// stand-ins. None when there is nothing to make plainer.
pub fn plans(case: &TestCase) -> Vec<Vec<Swap>> {
    let mut found: Vec<char> = Vec::new();
    map_texts(&mut case.clone(), &mut |c| {
        if exotic(c) && !found.contains(&c) {
            found.push(c);
        }
        c
    });
    if found.is_empty() {
        return Vec::new();
    }
    let mut out = vec![found
        .iter()
        .map(|&c| (c, stand_ins(c)[0]))
        .collect::<Vec<_>>()];
    for &c in &found {
        out.extend(stand_ins(c).into_iter().map(|to| vec![(c, to)]));
    }
    // One character alone first is the plan for all of them at once.
    out.dedup();
    out
}

/// `case` with every swap of `plan` made in its arguments' texts and characters and in its
/// environment's texts, alike everywhere (a path the code is given names a file the test makes).
pub fn with_swaps(case: &TestCase, plan: &[Swap]) -> TestCase {
    let mut out = case.clone();
    map_texts(&mut out, &mut |c| {
        plan.iter()
            .find(|&&(from, _)| from == c)
            .map_or(c, |&(_, to)| to)
    });
    out
}

/// Replaces each character of `case`'s texts by `f` of it, in order: its arguments' strings and
/// characters however deep, then its environment's files' contents and stdin (where UTF-8),
/// files' paths, directories and variables.
fn map_texts(case: &mut TestCase, f: &mut impl FnMut(char) -> char) {
    for arg in case.stmts.iter_mut().flat_map(|s| &mut s.args) {
        map_chars(arg, f);
    }
    let env = &mut case.env;
    let contents = env
        .files
        .iter_mut()
        .map(|f| &mut f.contents)
        .chain(env.stdin.as_mut());
    for bytes in contents {
        if let Ok(text) = std::str::from_utf8(bytes) {
            *bytes = text.chars().map(&mut *f).collect::<String>().into_bytes();
        }
    }
    let names = env
        .files
        .iter_mut()
        .map(|f| &mut f.path)
        .chain(&mut env.dirs);
    for text in names.chain(env.vars.iter_mut().flat_map(|(k, v)| [k, v])) {
        *text = text.chars().map(&mut *f).collect();
    }
}

/// Replaces each character of `v`'s texts and characters by `f` of it, however deep.
fn map_chars(v: &mut Value, f: &mut impl FnMut(char) -> char) {
    match v {
        Value::Str(s) => *s = s.chars().map(&mut *f).collect(),
        Value::Char(c) => *c = f(*c),
        Value::Seq(items) | Value::Tuple(items) => items.iter_mut().for_each(|v| map_chars(v, f)),
        Value::Opt(Some(v)) | Value::Ok(v) | Value::Err(v) => map_chars(v, f),
        Value::Range { start, end, .. } => {
            start.iter_mut().chain(end).for_each(|v| map_chars(v, f));
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(args: Vec<Value>) -> TestCase {
        TestCase::one_call(args)
    }

    #[test]
    fn escapes_a_test_would_print_are_exotic_short_escapes_are_not() {
        for c in [
            '\u{10ffff}',
            '\u{100000}',
            '\u{b}',
            '\u{7f}',
            '\u{80}',
            '\u{ffff}',
        ] {
            assert!(exotic(c), "{c:?}");
        }
        for c in ['a', ' ', '\n', '\t', '\r', '\0', '"', '\\', 'é', '€'] {
            assert!(!exotic(c), "{c:?}");
        }
    }

    #[test]
    fn all_at_once_first_then_each_character_alone() {
        let c = case(vec![
            Value::Str("\u{10ffff}1\u{100000}=\u{10ffff}p\u{b}".into()),
            Value::Tuple(vec![Value::Char('\u{7f}'), Value::Str("plain\n".into())]),
        ]);
        let plans = plans(&c);
        assert_eq!(
            plans[0],
            [
                ('\u{10ffff}', 'a'),
                ('\u{100000}', 'a'),
                ('\u{b}', ' '),
                ('\u{7f}', 'a')
            ]
        );
        assert_eq!(
            plans[1..],
            [
                vec![('\u{10ffff}', 'a')],
                vec![('\u{10ffff}', 'é')],
                vec![('\u{100000}', 'a')],
                vec![('\u{100000}', 'é')],
                vec![('\u{b}', ' ')],
                vec![('\u{b}', 'a')],
                vec![('\u{7f}', 'a')],
            ]
        );
        let plain = with_swaps(&c, &plans[0]);
        assert_eq!(
            plain.stmts[0].args,
            [
                Value::Str("a1a=ap ".into()),
                Value::Tuple(vec![Value::Char('a'), Value::Str("plain\n".into())]),
            ]
        );
    }

    #[test]
    fn the_environment_s_texts_are_made_plainer_alike() {
        let mut c = case(vec![Value::Str("x".into())]);
        c.env.files.push(hermetic_protocol::FileSpec {
            path: "/etc/\u{10ffff}".into(),
            contents: "k=\u{10ffff}\n".into(),
            mode: hermetic_protocol::FileMode::Normal,
        });
        c.env.stdin = Some(vec![0xff, 0xfe]);
        c.env.vars.push(("HOME".into(), "/\u{7f}".into()));
        let plans = plans(&c);
        assert_eq!(plans[0], [('\u{10ffff}', 'a'), ('\u{7f}', 'a')]);
        let plain = with_swaps(&c, &plans[0]);
        // Bytes that are not text stay.
        assert_eq!(plain.env.files[0].path, "/etc/a");
        assert_eq!(plain.env.files[0].contents, b"k=a\n");
        assert_eq!(plain.env.stdin, Some(vec![0xff, 0xfe]));
        assert_eq!(plain.env.vars, [("HOME".to_string(), "/a".to_string())]);
    }

    #[test]
    fn one_exotic_character_is_not_tried_twice_for_the_same_stand_in() {
        let c = case(vec![Value::Opt(Some(Box::new(Value::Str(
            "x\u{10ffff}".into(),
        ))))]);
        assert_eq!(
            plans(&c),
            [vec![('\u{10ffff}', 'a')], vec![('\u{10ffff}', 'é')]]
        );
        assert!(plans(&case(vec![Value::Str("a \"b\"\n\0".into())])).is_empty());
    }
}
