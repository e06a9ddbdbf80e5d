//! One goal per branch of the source, however many copies of a generic function the compiler
//! made: each set of type arguments gets its own copy of the function (and of its closures),
//! with its own counters, and the edges of one branch of the source are one goal.
//!
//! The `k`-th counter of a kind and shape at a source place (file, line, column) in one copy is
//! paired with the `k`-th of that kind and shape at that place in every other copy of the same
//! source function. A block's shape is what it calls ([`block_shape`]): a drop that one copy
//! makes and another does not (of a `String` where the other has a `&str`) stays its own goal
//! rather than shifting the pairs after it.
//! A source function is a copy's symbol without its type arguments, closures kept apart
//! (`f::{closure#0}`; legacy mangling names every closure of `f` `f::{{closure}}`, so the place
//! where the copy starts is part of it). Ordinals count the counters proven dead too, so a dead
//! one in one copy does not shift the rest. A merged goal is dead when it is dead in every copy,
//! and covered when any copy's counter is.

use super::goals::{Goal, GoalKind};
use super::lines::SourceLine;
use crate::cluster::ModuleId;
use std::collections::BTreeMap;

/// A counter of the selected code, before merging.
#[derive(Debug, Clone)]
pub struct Counted {
    pub counter: u32,
    pub kind: GoalKind,
    /// The function, as a user reads it (as for goals).
    pub function: String,
    pub module: ModuleId,
    /// Proven unreachable in this copy (`infeasible.rs`).
    pub dead: bool,
    /// The copy it is in: its symbol's index.
    pub copy: usize,
    /// The source function the copy is of ([`source_function`]), `None` where it cannot be
    /// told (the counter then stays its own goal).
    pub source: Option<String>,
    /// Where its block starts in the source, `None` where the debug info says nothing (the
    /// counter then stays its own goal).
    pub at: Option<SourceLine>,
    /// What its block calls ([`block_shape`]).
    pub shape: String,
}

/// The goals, and which goal each live counter stands for.
#[derive(Debug, Default, PartialEq)]
pub struct Merged {
    pub goals: Vec<Goal>,
    /// For each counted counter (in the order given), its goal; `None` for a dead one.
    pub goal_of: Vec<Option<u32>>,
    /// Where each goal's block starts in the source.
    pub places: Vec<Option<SourceLine>>,
    /// The kind of each goal that is dead in every copy: one per merged goal.
    pub infeasible: Vec<GoalKind>,
}

/// Merges the counters of the copies of each source function; `counted` is in counter order
/// (each copy's counters in the order of its blocks).
pub fn merge(counted: &[Counted]) -> Merged {
    type Key<'a> = (&'a str, bool, &'a SourceLine, &'a str, usize);
    // How many counters of a kind and shape a copy has at a place so far, dead ones included.
    let mut seen: BTreeMap<(usize, bool, &SourceLine, &str), usize> = BTreeMap::new();
    // Each key's group: the indices of its counters.
    let mut groups: Vec<Vec<usize>> = Vec::new();
    let mut group_of: BTreeMap<Key, usize> = BTreeMap::new();
    for (i, c) in counted.iter().enumerate() {
        let branch = c.kind == GoalKind::Branch;
        let key = match (&c.source, &c.at) {
            (Some(source), Some(at)) => {
                let k = seen.entry((c.copy, branch, at, &c.shape)).or_default();
                *k += 1;
                Some((source.as_str(), branch, at, c.shape.as_str(), *k))
            }
            _ => None,
        };
        match key.and_then(|key| group_of.get(&key).copied().map(|g| (key, g))) {
            Some((_, g)) => groups[g].push(i),
            None => {
                if let Some(key) = key {
                    group_of.insert(key, groups.len());
                }
                groups.push(vec![i]);
            }
        }
    }
    let mut merged = Merged {
        goal_of: vec![None; counted.len()],
        ..Merged::default()
    };
    for group in groups {
        let kind = counted[group[0]].kind;
        let live: Vec<usize> = group.into_iter().filter(|&i| !counted[i].dead).collect();
        let Some(&first) = live.first() else {
            merged.infeasible.push(kind);
            continue;
        };
        let c = &counted[first];
        let index = merged.goals.len() as u32;
        merged.goals.push(Goal {
            kind,
            counter: c.counter,
            function: c.function.clone(),
            module: c.module,
        });
        merged.places.push(c.at.clone());
        for i in live {
            merged.goal_of[i] = Some(index);
        }
    }
    merged
}

/// A copy's demangled symbol without its type arguments (`f::<T>`, `Wrapper<i64>`): the same
/// for every copy of one function, and different for each closure in it. A qualified path's
/// own brackets (`<Point as Display>::fmt`, `<impl Trait for S>`) stay.
pub fn source_function(demangled: &str) -> String {
    let mut out = String::with_capacity(demangled.len());
    let mut chars = demangled.char_indices();
    while let Some((at, c)) = chars.next() {
        // `a::<impl b::C for D>::f` (legacy mangling): a segment, not arguments.
        let arguments = c == '<'
            && !demangled[at..].starts_with("<impl ")
            && out
                .chars()
                .last()
                .is_some_and(|p| p.is_alphanumeric() || p == '_' || p == ':');
        if !arguments {
            out.push(c);
            continue;
        }
        if out.ends_with("::") {
            out.truncate(out.len() - 2);
        }
        // Skip to the matching `>`; the `>` of an arrow (`fn() -> T`) closes nothing.
        let mut depth = 1;
        let mut previous = c;
        for (_, c) in chars.by_ref() {
            match c {
                '<' => depth += 1,
                '>' if previous != '-' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                break;
            }
            previous = c;
        }
    }
    out
}

/// A block's shape, the same in every copy of its function: the first function it calls, by
/// its last name without type arguments (`drop_in_place`, `as_ref`, `{{closure}}`; `*` for a
/// call through a register or memory, `?` for one to an address no symbol starts at), or
/// nothing. Only the first: the code after a block's first call up to the next counter may
/// hold cleanup that one copy needs and another does not. The coverage instrumentation's own
/// calls (`__sanitizer_cov_trace_cmp4` or `..8`, as the compared type is) are left out.
/// `name_of` names the function starting at an address.
pub fn block_shape(code: &[u8], ip: u64, name_of: impl Fn(u64) -> Option<String>) -> String {
    use iced_x86::{Decoder, DecoderOptions, FlowControl};
    let mut decoder = Decoder::with_ip(64, code, ip, DecoderOptions::NONE);
    while decoder.can_decode() {
        let ins = decoder.decode();
        if ins.is_invalid() {
            break;
        }
        match ins.flow_control() {
            FlowControl::Call => {
                let name = name_of(ins.near_branch_target()).unwrap_or_else(|| "?".into());
                if !name.starts_with("__sanitizer_cov") {
                    return last_name(&source_function(&name)).to_string();
                }
            }
            FlowControl::IndirectCall => return "*".into(),
            _ => {}
        }
    }
    String::new()
}

/// The last segment of a path, outside brackets: `<a::B as c::D>::f` → `f`.
fn last_name(path: &str) -> &str {
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = path.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' | b'(' | b'[' => depth += 1,
            b'>' | b')' | b']' => depth -= 1,
            b':' if depth == 0 && i > 0 && bytes[i - 1] == b':' => start = i + 1,
            _ => {}
        }
    }
    &path[start..]
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A branch counter of copy `copy` (of the source function `source`), on line `line`; its
    /// goal's function is `f`, as closures of `f` classify to their parent.
    pub(crate) fn counted(
        counter: u32,
        copy: usize,
        source: &str,
        line: u32,
        dead: bool,
    ) -> Counted {
        Counted {
            counter,
            kind: GoalKind::Branch,
            function: "f".into(),
            module: 0,
            dead,
            copy,
            source: Some(source.into()),
            at: Some(SourceLine {
                file: "src/lib.rs".into(),
                line,
                column: 9,
            }),
            shape: String::new(),
        }
    }

    fn counters(merged: &Merged) -> Vec<u32> {
        merged.goals.iter().map(|g| g.counter).collect()
    }

    #[test]
    fn the_copies_of_a_function_share_the_goals_of_each_line_in_order() {
        let counted = vec![
            counted(0, 0, "f at 2:5", 3, false),
            counted(1, 0, "f at 2:5", 3, false),
            counted(2, 0, "f at 2:5", 4, false),
            counted(3, 1, "f at 2:5", 3, false),
            counted(4, 1, "f at 2:5", 3, false),
            counted(5, 1, "f at 2:5", 4, false),
            // A third branch on line 3 that only this copy has.
            counted(6, 1, "f at 2:5", 3, false),
        ];
        let merged = merge(&counted);
        assert_eq!(counters(&merged), [0, 1, 2, 6]);
        let goal_of: Vec<Option<u32>> = [0, 1, 2, 0, 1, 2, 3].into_iter().map(Some).collect();
        assert_eq!(merged.goal_of, goal_of);
        assert!(merged.infeasible.is_empty());
    }

    #[test]
    fn a_closure_and_its_parent_on_one_line_keep_their_own_goals() {
        // Two copies of `f` and two of its closure, all with two branches on line 3; the
        // closure's goals are named for `f` too.
        let mut counted = Vec::new();
        for (copy, source) in [(0, "f at 2:5"), (1, "f at 2:5")]
            .into_iter()
            .chain([(2, "f::{{closure}} at 3:20"), (3, "f::{{closure}} at 3:20")])
        {
            for _ in 0..2 {
                counted.push(super::tests::counted(
                    counted.len() as u32,
                    copy,
                    source,
                    3,
                    false,
                ));
            }
        }
        let merged = merge(&counted);
        assert_eq!(counters(&merged), [0, 1, 4, 5]);
        let goal_of: Vec<Option<u32>> = [0, 1, 0, 1, 2, 3, 2, 3].into_iter().map(Some).collect();
        assert_eq!(merged.goal_of, goal_of);
    }

    #[test]
    fn a_goal_dead_in_one_copy_shifts_no_other_and_is_infeasible_only_when_dead_in_all() {
        let counted = vec![
            // Copy 0: the second branch on line 3 is proven dead.
            counted(0, 0, "f at 2:5", 3, false),
            counted(1, 0, "f at 2:5", 3, true),
            counted(2, 0, "f at 2:5", 3, false),
            counted(3, 0, "f at 2:5", 5, true),
            // Copy 1: all live on line 3; line 5's is dead too.
            counted(4, 1, "f at 2:5", 3, false),
            counted(5, 1, "f at 2:5", 3, false),
            counted(6, 1, "f at 2:5", 3, false),
            counted(7, 1, "f at 2:5", 5, true),
        ];
        let merged = merge(&counted);
        // The second goal stands on copy 1's counter; copy 0's third branch is the third goal.
        assert_eq!(counters(&merged), [0, 5, 2]);
        assert_eq!(
            merged.goal_of,
            [
                Some(0),
                None,
                Some(2),
                None,
                Some(0),
                Some(1),
                Some(2),
                None
            ]
        );
        // Line 5's branch is one goal proven infeasible, not one per copy.
        assert_eq!(merged.infeasible, [GoalKind::Branch]);
    }

    #[test]
    fn a_block_one_copy_has_and_another_not_pairs_with_nothing() {
        // Copy 0 drops a `String` between its two branches on line 3; copy 1 holds a `&str`.
        let mut counted = vec![
            counted(0, 0, "f at 2:5", 3, false),
            counted(1, 0, "f at 2:5", 3, false),
            counted(2, 0, "f at 2:5", 3, false),
            counted(3, 1, "f at 2:5", 3, false),
            counted(4, 1, "f at 2:5", 3, false),
        ];
        counted[1].shape = "drop_in_place".into();
        let merged = merge(&counted);
        assert_eq!(counters(&merged), [0, 1, 2]);
        let goal_of: Vec<Option<u32>> = [0, 1, 2, 0, 2].into_iter().map(Some).collect();
        assert_eq!(merged.goal_of, goal_of);
        // Checks and branches pair apart; a counter without a place stays its own goal.
        let mut check = counted[3].clone();
        check.kind = GoalKind::Check;
        let mut nowhere = counted[4].clone();
        nowhere.at = None;
        let merged = merge(&[counted[0].clone(), check, nowhere]);
        assert_eq!(merged.goals.len(), 3);
    }

    #[test]
    fn type_arguments_go_and_closures_stay() {
        assert_eq!(
            source_function("demo::parse::<alloc::string::String, u8>::{closure#0}"),
            "demo::parse::{closure#0}"
        );
        assert_eq!(
            source_function("demo::parse::<u8>::{closure#1}"),
            "demo::parse::{closure#1}"
        );
        assert_eq!(
            source_function("<demo::Wrapper<i64> as core::fmt::Display>::fmt"),
            "<demo::Wrapper as core::fmt::Display>::fmt"
        );
        assert_eq!(
            source_function("demo::apply::<fn() -> u8, u8>"),
            "demo::apply"
        );
        for kept in [
            "demo::strings::<impl demo::Ext for S>::into_ocow",
            "demo::f::{{closure}}",
        ] {
            assert_eq!(source_function(kept), kept);
        }
    }

    #[test]
    fn a_blocks_shape_is_its_first_call_but_the_instrumentations() {
        // At 0x1000: call 0x2000 (a comparison's trace); call 0x3000 (a drop); call 0x4000.
        let code = [
            0xE8, 0xFB, 0x0F, 0x00, 0x00, 0xE8, 0xF6, 0x1F, 0x00, 0x00, 0xE8, 0xF1, 0x2F, 0x00,
            0x00,
        ];
        let name_of = |address| match address {
            0x2000 => Some("__sanitizer_cov_trace_cmp8".to_string()),
            0x3000 => Some("core::ptr::drop_in_place<alloc::string::String>".to_string()),
            0x4000 => Some("demo::f".to_string()),
            _ => None,
        };
        assert_eq!(block_shape(&code, 0x1000, name_of), "drop_in_place");
        assert_eq!(block_shape(&code[10..], 0x100A, name_of), "f");
        assert_eq!(block_shape(&code[10..], 0x100B, name_of), "?");
        assert_eq!(block_shape(&[0x90, 0xC3], 0x1000, name_of), "");
    }
}
