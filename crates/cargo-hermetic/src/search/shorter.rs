//! Shorter text for a finished test's string arguments, so that a reader sees what the input
//! needs: the search builds strings from the crate's literals (error messages among them) and
//! random characters, and a test whose goals need three characters may carry fifty. Minimisation
//! ([`super::minimise`]) tries these candidates and keeps one when the test still covers its
//! goals.

/// Strings shorter than this are left as they are.
pub const MIN_LEN: usize = 12;

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
}
