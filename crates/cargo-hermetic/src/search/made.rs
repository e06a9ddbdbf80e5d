//! Statement sequences that made a value of a type in an earlier run (EvoSuite's object pool).
//!
//! A value whose producers seldom succeed (a parser most strings fail, a constructor that
//! validates) stops every test that needs it, and a call taking two of them is reached only
//! when both succeed at once. A sequence that once made such a value is copied instead, now
//! and then, so the calls that need the value are reached at the rate their own inputs allow.
//! Only for such types: where producers mostly succeed, fresh calls with fresh arguments give
//! values copies would not (a builder's setters chained with new values).

use crate::test_case::Stmt;
use hermetic_protocol::StmtReport;
use std::collections::BTreeMap;

/// Sequences kept per type: the shortest seen.
const PER_TYPE: usize = 8;
/// Longest sequence kept: longer ones crowd out the statements of the test they join.
const MAX_LEN: usize = 6;

/// For each type (by its key), the sequences whose last statement stored a value of it.
#[derive(Debug, Default)]
pub struct Made {
    by_type: BTreeMap<String, Vec<Vec<Stmt>>>,
    /// For each type, how many statements that return it stored a value, and how many did not
    /// (an `Err`, a `None`).
    outcomes: BTreeMap<String, (u64, u64)>,
}

impl Made {
    /// Learns from one execution: every statement whose value was stored, with the statements
    /// its arguments came from. `key` names the type a statement stores, if any.
    pub fn learn(
        &mut self,
        stmts: &[Stmt],
        reports: &[StmtReport],
        key: impl Fn(&Stmt) -> Option<String>,
    ) {
        for (k, report) in reports.iter().enumerate().take(stmts.len()) {
            let Some(key) = key(&stmts[k]) else {
                continue;
            };
            let (made, failed) = self.outcomes.entry(key.clone()).or_default();
            if !report.stored {
                *failed += 1;
                continue;
            }
            *made += 1;
            let seq = closure(stmts, k);
            if seq.len() <= MAX_LEN {
                self.offer(key, seq);
            }
        }
    }

    fn offer(&mut self, key: String, seq: Vec<Stmt>) {
        let kept = self.by_type.entry(key).or_default();
        if kept.contains(&seq) {
            return;
        }
        if kept.len() < PER_TYPE {
            kept.push(seq);
            return;
        }
        // Full: the new one replaces the longest if it is shorter (the earliest of equals).
        let (longest, len) = kept
            .iter()
            .enumerate()
            .map(|(i, s)| (i, s.len()))
            .max_by_key(|&(i, len)| (len, std::cmp::Reverse(i)))
            .expect("full");
        if seq.len() < len {
            kept[longest] = seq;
        }
    }

    /// The sequences that made a value of the type with this key, if its producers failed
    /// more often than not.
    pub fn of(&self, key: &str) -> &[Vec<Stmt>] {
        match self.outcomes.get(key) {
            Some((made, failed)) if failed > made => {
                self.by_type.get(key).map_or(&[], Vec::as_slice)
            }
            _ => &[],
        }
    }
}

/// Statement `k` and, transitively, the statements its arguments use, renumbered from 0.
fn closure(stmts: &[Stmt], k: usize) -> Vec<Stmt> {
    let mut need = vec![false; k + 1];
    need[k] = true;
    for j in (0..=k).rev() {
        if need[j] {
            for u in stmts[j].uses() {
                if u < j {
                    need[u] = true;
                }
            }
        }
    }
    let mut index = vec![usize::MAX; k + 1];
    let mut out = Vec::new();
    for j in (0..=k).filter(|&j| need[j]) {
        index[j] = out.len();
        let mut s = stmts[j].clone();
        for a in &mut s.args {
            super::ops::renumber(a, &index);
        }
        out.push(s);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use hermetic_protocol::Value;

    fn stmt(callable: usize, args: Vec<Value>) -> Stmt {
        Stmt { callable, args }
    }

    fn stored(flags: &[bool]) -> Vec<StmtReport> {
        flags
            .iter()
            .map(|&stored| StmtReport {
                returned: None,
                stored,
            })
            .collect()
    }

    #[test]
    fn a_stored_value_is_kept_with_the_statements_it_was_made_from_only() {
        // 0: parse("1.2.3") -> Version, 1: unrelated, 2: bump(&0, Part) -> Version.
        let stmts = vec![
            stmt(5, vec![Value::Str("1.2.3".into())]),
            stmt(7, vec![]),
            stmt(8, vec![]),
            stmt(10, vec![Value::Borrow(0), Value::Use(2)]),
        ];
        let mut made = Made::default();
        let key = |s: &Stmt| matches!(s.callable, 5 | 10).then(|| "Version".to_string());
        made.learn(&stmts, &stored(&[true, true, true, true]), key);
        // Its producers have not failed yet: fresh calls do.
        assert!(made.of("Version").is_empty());
        let failed = [stmt(5, vec![Value::Str("x".into())])];
        for _ in 0..3 {
            made.learn(&failed, &stored(&[false]), key);
        }
        assert_eq!(
            made.of("Version"),
            &[
                vec![stmts[0].clone()],
                vec![
                    stmts[0].clone(),
                    stmts[2].clone(),
                    stmt(10, vec![Value::Borrow(0), Value::Use(1)]),
                ],
            ]
        );
        assert!(made.of("Part").is_empty());
    }

    #[test]
    fn a_value_that_was_not_stored_is_not_kept() {
        // The parse failed: its `Err` was not stored, so nothing was made.
        let stmts = vec![stmt(5, vec![Value::Str("x".into())])];
        let mut made = Made::default();
        made.learn(&stmts, &stored(&[false]), |_| Some("Version".into()));
        assert!(made.of("Version").is_empty());
    }

    #[test]
    fn a_full_type_keeps_the_shortest_sequences() {
        let mut made = Made::default();
        made.outcomes.insert("T".into(), (0, 1));
        for n in 0..PER_TYPE {
            let long: Vec<Stmt> = (0..4).map(|i| stmt(100 + n, vec![Value::Int(i)])).collect();
            made.offer("T".into(), long);
        }
        made.offer("T".into(), vec![stmt(1, vec![])]);
        let kept = made.of("T");
        assert_eq!(kept.len(), PER_TYPE);
        assert!(kept.contains(&vec![stmt(1, vec![])]));
        // A longer one than every kept one is not taken.
        made.offer(
            "T".into(),
            (0..5).map(|i| stmt(9, vec![Value::Int(i)])).collect(),
        );
        assert!(!made.of("T").iter().any(|s| s.len() == 5));
    }
}
