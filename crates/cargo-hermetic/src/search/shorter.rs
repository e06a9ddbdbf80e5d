//! Shorter string and sequence arguments for a finished test, so that a reader sees what the
//! input needs: the search builds strings from the crate's literals (error messages among them)
//! and random characters, and a test whose goals need three characters may carry fifty.
//! Minimisation ([`super::minimise`]) tries these candidates and keeps one when the test still
//! covers its goals.

use hermetic_protocol::Value;

/// Strings shorter than this are left as they are.
pub const MIN_LEN: usize = 12;

/// Sequences shorter than this are left as they are.
const MIN_ITEMS: usize = 4;

/// Whether `v` is an argument worth shortening.
pub fn worth_shortening(v: &Value) -> bool {
    match v {
        Value::Str(s) => s.chars().count() >= MIN_LEN,
        Value::Seq(items) => items.len() >= MIN_ITEMS,
        _ => false,
    }
}

/// Shorter versions of an argument: a string's [`candidates`], a sequence's halves.
pub fn shorter_values(v: &Value, known: &[String]) -> Vec<Value> {
    match v {
        Value::Str(s) => candidates(s, known).into_iter().map(Value::Str).collect(),
        Value::Seq(items) if items.len() >= MIN_ITEMS => {
            let (a, b) = items.split_at(items.len() / 2);
            vec![Value::Seq(a.to_vec()), Value::Seq(b.to_vec())]
        }
        _ => Vec::new(),
    }
}

/// Known strings at least this long are taken out whole where they occur.
const MIN_KNOWN: usize = 12;

/// Shorter versions of `s`, the likeliest first: `s` without a long known string it contains
/// (the crate's literals), then its first half, then its second half.
pub fn candidates(s: &str, known: &[String]) -> Vec<String> {
    if s.chars().count() < MIN_LEN {
        return Vec::new();
    }
    let mut out: Vec<String> = Vec::new();
    let mut push = |c: String| {
        if c.len() < s.len() && !out.contains(&c) {
            out.push(c);
        }
    };
    for k in known.iter().filter(|k| k.len() >= MIN_KNOWN) {
        if s.contains(k.as_str()) {
            push(s.replace(k.as_str(), ""));
        }
    }
    let half = s
        .char_indices()
        .map(|(i, _)| i)
        .nth(s.chars().count() / 2)
        .unwrap_or(s.len());
    push(s[..half].to_string());
    push(s[half..].to_string());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_long_strings_go_first_then_halves() {
        let known = vec![
            "cannot shell-quote string containing nul byte".to_string(),
            "nul".to_string(),
        ];
        let s = "10)cannot shell-quote string containing nul byte\n.\u{0}";
        assert_eq!(
            candidates(s, &known),
            [
                "10)\n.\u{0}".to_string(),
                "10)cannot shell-quote str".to_string(),
                "ing containing nul byte\n.\u{0}".to_string(),
            ]
        );
        // Short strings stay; halves split between characters, never inside one.
        assert!(candidates("a b c", &known).is_empty());
        let wide = "ééééééééééééé";
        for c in candidates(wide, &[]) {
            assert!(c.chars().all(|ch| ch == 'é'), "{c}");
        }
    }

    #[test]
    fn sequences_are_halved() {
        let bytes = Value::Seq([0, 14, 34, 92, 41].map(Value::Int).to_vec());
        assert!(worth_shortening(&bytes));
        assert_eq!(
            shorter_values(&bytes, &[]),
            [
                Value::Seq([0, 14].map(Value::Int).to_vec()),
                Value::Seq([34, 92, 41].map(Value::Int).to_vec()),
            ]
        );
        let short = Value::Seq([32, 1].map(Value::Int).to_vec());
        assert!(!worth_shortening(&short) && shorter_values(&short, &[]).is_empty());
    }
}
