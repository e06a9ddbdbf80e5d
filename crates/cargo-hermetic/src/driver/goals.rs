//! Coverage goals: the counters of the selected code, found by matching each counter's address
//! with the function that contains it in the executable's symbol table.
//!
//! The driver module, the test harness's `main`, the crate's own tests and code derived by
//! `#[derive]` are compiled into the same crate, so their counters are set aside here.
//!
//! Code that only a mutant runs (calls of `hermetic_driver::mutant::replaced` and `mutated`) is
//! set aside too, and compiler checks and unwinding cleanup (`cleanup.rs`) are counted apart from
//! the source's branches. The copies the compiler made of a generic function share their goals
//! (`copies.rs`).

use super::copies::{self, Counted};
use super::infeasible::{DeadCode, GaveUp, Prover};
use super::lines::{Code, SourceLine};
use crate::cluster::{Cluster, ModuleId};
pub use crate::selection::Selection;
use anyhow::{Context, Result};
use object::{Object, ObjectSymbol, SymbolKind};
use std::path::Path;

/// One coverage goal: an edge of the selected code.
#[derive(Debug, Clone, PartialEq)]
pub struct Goal {
    pub kind: GoalKind,
    /// Index of the counter in the driver's counter table.
    pub counter: u32,
    /// The function the edge is in, as a user reads it: `parser::parse_number`.
    pub function: String,
    pub module: ModuleId,
}

/// Branches are the source's own; checks are the edges the compiler adds: to the panics for
/// arithmetic overflow and out-of-bounds indexing, and to unwinding cleanup. Both are searched for, but coverage is
/// reported on branches, since most checks cannot fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GoalKind {
    Branch,
    Check,
}

pub struct GoalMap {
    pub goals: Vec<Goal>,
    /// Counters of the selected code that no execution can reach (`infeasible.rs`), by counter:
    /// they stand for no goal.
    pub infeasible: Vec<Infeasible>,
    /// What each goal no copy can reach would have been, one per goal (however many copies).
    infeasible_goals: Vec<GoalKind>,
    /// Where each goal's block starts in the source, by goal (`None`: the debug info says
    /// nothing).
    places: Vec<Option<SourceLine>>,
    /// Selected functions left without a proof, and why (for `HERMETIC_DEBUG`).
    pub unproven: Vec<(String, GaveUp)>,
    /// The time the proofs took (for `HERMETIC_DEBUG`).
    pub proof_time: std::time::Duration,
    /// Address ranges of the selected functions, sorted.
    selected_code: Vec<(u64, u64)>,
    /// Address ranges of the standard library's checks of pointers (`core::ub_checks`, the
    /// `precondition_check`s of `copy_nonoverlapping` and the like), sorted: they compare
    /// addresses and the distances between them, which move with the size of the environment
    /// and the history of the heap, so their operands are no input's values.
    pointer_checks: Vec<(u64, u64)>,
    /// For each counter, its goal index.
    by_counter: Vec<Option<u32>>,
}

/// A counter of the selected code that no execution can reach.
#[derive(Debug, Clone, PartialEq)]
pub struct Infeasible {
    pub counter: u32,
    /// The function it is in, as for goals.
    pub function: String,
    /// Its block's address (relative to the load address).
    pub pc: u64,
    /// What the goal would have been.
    pub kind: GoalKind,
}

impl GoalMap {
    /// The goals hit by an execution's covered counters, each once (copies of a generic
    /// function share goals), in order.
    pub fn goals_hit(&self, covered: &[u32]) -> impl Iterator<Item = usize> {
        let mut hit: Vec<usize> = covered
            .iter()
            .filter_map(|&c| self.by_counter.get(c as usize).copied().flatten())
            .map(|g| g as usize)
            .collect();
        hit.sort_unstable();
        hit.dedup();
        hit.into_iter()
    }

    /// The counters proven infeasible among an execution's covered counters: each one is a
    /// bug in the proof.
    pub fn infeasible_hit<'a>(
        &'a self,
        covered: &'a [u32],
    ) -> impl Iterator<Item = &'a Infeasible> + 'a {
        covered.iter().filter_map(|&c| {
            self.infeasible
                .binary_search_by_key(&c, |i| i.counter)
                .ok()
                .map(|i| &self.infeasible[i])
        })
    }

    pub fn len(&self) -> usize {
        self.goals.len()
    }

    /// Where a goal's block starts in the source, if the debug info says.
    pub fn place(&self, goal: usize) -> Option<&SourceLine> {
        self.places.get(goal)?.as_ref()
    }

    /// The number of goals of a kind.
    pub fn count(&self, kind: GoalKind) -> usize {
        self.goals.iter().filter(|g| g.kind == kind).count()
    }

    /// The number of goals of a kind proven infeasible (in every copy of their function).
    pub fn count_infeasible(&self, kind: GoalKind) -> usize {
        self.infeasible_goals.iter().filter(|&&k| k == kind).count()
    }

    /// Goals for the search's unit tests: counter `i` is branch goal `i` of `function` in
    /// module 0, and comparisons at addresses in `selected_code` belong to the selected code.
    #[cfg(test)]
    pub fn for_tests(functions: &[(&str, usize)], selected_code: Vec<(u64, u64)>) -> GoalMap {
        let mut goals = Vec::new();
        for (function, n) in functions {
            for _ in 0..*n {
                goals.push(Goal {
                    kind: GoalKind::Branch,
                    counter: goals.len() as u32,
                    function: function.to_string(),
                    module: 0,
                });
            }
        }
        GoalMap {
            by_counter: (0..goals.len() as u32).map(Some).collect(),
            goals,
            infeasible: Vec::new(),
            infeasible_goals: Vec::new(),
            places: Vec::new(),
            unproven: Vec::new(),
            proof_time: std::time::Duration::ZERO,
            selected_code,
            pointer_checks: Vec::new(),
        }
    }

    /// As [`GoalMap::for_tests`], with the address ranges of checks of pointers.
    #[cfg(test)]
    pub fn with_pointer_checks(mut self, ranges: Vec<(u64, u64)>) -> GoalMap {
        self.pointer_checks = ranges;
        self
    }

    /// Whether an address (relative to the load address) lies in selected code.
    pub fn in_selected_code(&self, pc: u64) -> bool {
        in_ranges(&self.selected_code, pc)
    }

    /// Whether an address (relative to the load address) lies in a check of pointers.
    pub fn in_pointer_check(&self, pc: u64) -> bool {
        in_ranges(&self.pointer_checks, pc)
    }
}

/// Whether `pc` lies in one of `ranges` (sorted, not overlapping).
fn in_ranges(ranges: &[(u64, u64)], pc: u64) -> bool {
    let i = ranges.partition_point(|&(start, _)| start <= pc);
    i > 0 && pc < ranges[i - 1].1
}

/// Whether a function (its demangled name) checks pointers rather than values.
fn checks_pointers(name: &str) -> bool {
    name.starts_with("core::ub_checks::") || name.contains("::precondition_check")
}

const DERIVABLE: &[&str] = &[
    "Debug",
    "Clone",
    "Copy",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "Hash",
    "Default",
];

/// Maps counters (by their addresses relative to the executable's load address) to goals.
pub fn map_goals(
    executable: &Path,
    pcs: &[u64],
    cluster: &Cluster,
    selection: &Selection,
) -> Result<GoalMap> {
    let data =
        std::fs::read(executable).with_context(|| format!("read {}", executable.display()))?;
    let file =
        object::File::parse(&*data).with_context(|| format!("parse {}", executable.display()))?;
    let checks = CheckCalls::new(&file, is_check_panic);
    // Code that only a mutant runs (`hermetic_driver::mutant`): a replaced body's value, and
    // the closures computing it.
    let replaced = CheckCalls::new(&file, |n| {
        n.starts_with("hermetic_driver::mutant::replaced")
    });
    let mutated = CheckCalls::new(&file, |n| n == "hermetic_driver::mutant::mutated");
    let mut mutant_only: std::collections::HashMap<usize, bool> = Default::default();
    let pads = super::cleanup::landing_pads(&file);
    let cleanup = super::cleanup::cleanup_counters(&pads.pads, pcs, checks.text, checks.text_addr);
    let prover = Prover::new(&file, &pads);
    let mut proofs: std::collections::HashMap<usize, Result<DeadCode, GaveUp>> = Default::default();
    let mut infeasible = Vec::new();
    let mut proof_time = std::time::Duration::ZERO;
    let mut functions: Vec<(u64, u64, String)> = file
        .symbols()
        .filter(|s| s.kind() == SymbolKind::Text && s.size() > 0)
        .filter_map(|s| Some((s.address(), s.size(), s.name().ok()?.to_string())))
        .collect();
    functions.sort();
    let pointer_checks: Vec<(u64, u64)> = functions
        .iter()
        .filter(|(_, _, name)| checks_pointers(&format!("{:#}", rustc_demangle::demangle(name))))
        .map(|&(addr, size, _)| (addr, addr + size))
        .collect();
    // The selected counters, live and dead, and each one's block (`None`: address unknown).
    let mut counted: Vec<Counted> = Vec::new();
    let mut blocks: Vec<Option<std::ops::Range<u64>>> = Vec::new();
    let mut selected_code: Vec<(u64, u64)> = Vec::new();
    let mut verdicts: std::collections::HashMap<usize, Option<(String, ModuleId)>> =
        Default::default();
    // Blocks without an address (unwind cleanup, mostly) sit in the table among their
    // function's other blocks.
    let mut last_known = 0;
    for (counter, &pc) in pcs.iter().enumerate() {
        let unknown = pc == hermetic_protocol::UNKNOWN_PC;
        let pc = if unknown { last_known } else { pc };
        last_known = pc;
        let idx = functions.partition_point(|(addr, _, _)| *addr <= pc);
        if idx == 0 {
            continue;
        }
        let (addr, size, name) = &functions[idx - 1];
        if pc >= addr + size {
            continue;
        }
        let verdict = verdicts.entry(idx - 1).or_insert_with(|| {
            classify(
                &format!("{:#}", rustc_demangle::demangle(name)),
                cluster,
                selection,
            )
        });
        if let Some((function, module)) = verdict {
            let only_mutants = *mutant_only
                .entry(idx - 1)
                .or_insert_with(|| mutated.block_calls(*addr, addr + size, usize::MAX));
            let next = pcs
                .get(counter + 1)
                .copied()
                .filter(|&n| n > pc && n < addr + size);
            if only_mutants
                || (!unknown && replaced.block_calls(pc, next.unwrap_or(addr + size), 256))
            {
                continue;
            }
            if selected_code.last() != Some(&(*addr, addr + size)) {
                selected_code.push((*addr, addr + size));
            }
            let kind = if unknown
                || cleanup.contains(&counter)
                || checks.block_calls(pc, next.unwrap_or(addr + size), 48)
            {
                GoalKind::Check
            } else {
                GoalKind::Branch
            };
            let proof = proofs.entry(idx - 1).or_insert_with(|| {
                let started = std::time::Instant::now();
                let proof = prover.prove(*addr, *size);
                proof_time += started.elapsed();
                proof
            });
            let dead = !unknown && proof.as_ref().is_ok_and(|dead| dead.contains(pc));
            if dead {
                infeasible.push(Infeasible {
                    counter: counter as u32,
                    function: function.clone(),
                    pc,
                    kind,
                });
            }
            counted.push(Counted {
                counter: counter as u32,
                kind,
                function: function.clone(),
                module: *module,
                dead,
                copy: idx - 1,
                source: None,
                at: None,
                shape: String::new(),
            });
            blocks.push((!unknown).then(|| pc..next.unwrap_or(addr + size)));
        }
    }
    place_copies(executable, &functions, &mut counted, &blocks);
    shape_blocks(&checks, &functions, &mut counted, &blocks);
    let merged = copies::merge(&counted);
    let by_counter = by_counter(pcs.len(), &counted, &merged.goal_of);
    selected_code.sort();
    selected_code.dedup();
    let mut unproven: Vec<(String, GaveUp)> = proofs
        .into_iter()
        .filter_map(|(idx, proof)| {
            let why = proof.err()?;
            let name = format!("{:#}", rustc_demangle::demangle(&functions[idx].2));
            Some((name, why))
        })
        .collect();
    unproven.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(GoalMap {
        goals: merged.goals,
        infeasible,
        infeasible_goals: merged.infeasible,
        places: merged.places,
        unproven,
        proof_time,
        selected_code,
        pointer_checks,
        by_counter,
    })
}

/// For each of `n` counters, the goal it stands for: a counter of any copy covers its goal.
fn by_counter(n: usize, counted: &[Counted], goal_of: &[Option<u32>]) -> Vec<Option<u32>> {
    let mut by_counter = vec![None; n];
    for (c, goal) in counted.iter().zip(goal_of) {
        by_counter[c.counter as usize] = *goal;
    }
    by_counter
}

/// Sets each counter's source place, and the source function of its copy: the symbol without
/// type arguments, and where the copy's body starts (which tells closures apart under legacy
/// mangling, where every closure of `f` is `f::{{closure}}`, even two on one line). Without
/// debug info, every copy keeps its own goals.
fn place_copies(
    executable: &Path,
    functions: &[(u64, u64, String)],
    counted: &mut [Counted],
    blocks: &[Option<std::ops::Range<u64>>],
) {
    let mut copies: Vec<usize> = counted.iter().map(|c| c.copy).collect();
    copies.sort_unstable();
    copies.dedup();
    let code: Vec<Code> = blocks
        .iter()
        .flatten()
        .map(|range| Code {
            range: range.clone(),
            with_column: false,
        })
        .chain(copies.iter().map(|&copy| {
            let (addr, size, _) = functions[copy];
            Code {
                range: addr..addr + size,
                with_column: true,
            }
        }))
        .collect();
    let mut places = match super::lines::source_lines(executable, &code) {
        Ok(places) => places,
        Err(e) => {
            if std::env::var_os("HERMETIC_DEBUG").is_some() {
                eprintln!("no source lines: {e:#}");
            }
            return;
        }
    };
    let starts = places.split_off(code.len() - copies.len());
    let sources: std::collections::HashMap<usize, String> = copies
        .iter()
        .zip(starts)
        .filter_map(|(&copy, start)| {
            let start = start?;
            let name = format!("{:#}", rustc_demangle::demangle(&functions[copy].2));
            let source = format!(
                "{} at {}:{}:{}",
                copies::source_function(&name),
                start.file.display(),
                start.line,
                start.column
            );
            Some((copy, source))
        })
        .collect();
    let mut places = places.into_iter();
    for (c, block) in counted.iter_mut().zip(blocks) {
        c.source = sources.get(&c.copy).cloned();
        c.at = block.as_ref().and_then(|_| places.next().flatten());
    }
}

/// Sets each counter's block shape ([`copies::block_shape`]).
fn shape_blocks(
    code: &CheckCalls,
    functions: &[(u64, u64, String)],
    counted: &mut [Counted],
    blocks: &[Option<std::ops::Range<u64>>],
) {
    let name_of = |address: u64| {
        let i = functions.binary_search_by_key(&address, |f| f.0).ok()?;
        Some(format!("{:#}", rustc_demangle::demangle(&functions[i].2)))
    };
    for (c, block) in counted.iter_mut().zip(blocks) {
        let Some(block) = block else { continue };
        let bytes = block
            .start
            .checked_sub(code.text_addr)
            .zip(block.end.checked_sub(code.text_addr))
            .and_then(|(from, to)| code.text.get(from as usize..to as usize));
        if let Some(bytes) = bytes {
            c.shape = copies::block_shape(bytes, block.start, name_of);
        }
    }
}

/// Finds blocks that call some functions (the compiler's check panics; the mutants' helpers),
/// directly or through the GOT.
struct CheckCalls<'a> {
    text: &'a [u8],
    text_addr: u64,
    /// Addresses of the functions.
    targets: Vec<u64>,
    /// GOT slots that hold the address of one.
    slots: Vec<u64>,
}

/// Functions the compiler calls when an inserted check fails.
fn is_check_panic(demangled: &str) -> bool {
    demangled.starts_with("core::panicking::panic_const::")
        || demangled == "core::panicking::panic_bounds_check"
        || (demangled.starts_with("core::slice::index::slice_") && demangled.ends_with("_fail"))
}

impl<'a> CheckCalls<'a> {
    /// The calls of the functions whose demangled names `wanted` accepts.
    fn new(file: &object::File<'a>, wanted: fn(&str) -> bool) -> CheckCalls<'a> {
        use object::{ObjectSection, RelocationTarget};
        let text = file.section_by_name(".text");
        let mut targets: Vec<u64> = file
            .symbols()
            .filter(|s| s.kind() == SymbolKind::Text)
            .filter(|s| {
                s.name()
                    .is_ok_and(|n| wanted(&format!("{:#}", rustc_demangle::demangle(n))))
            })
            .map(|s| s.address())
            .collect();
        targets.sort_unstable();
        let mut slots: Vec<u64> = Vec::new();
        for (offset, reloc) in file.dynamic_relocations().into_iter().flatten() {
            let target = match reloc.target() {
                RelocationTarget::Absolute => Some(reloc.addend() as u64),
                RelocationTarget::Symbol(i) => file.symbol_by_index(i).ok().map(|s| s.address()),
                _ => None,
            };
            if target.is_some_and(|t| targets.binary_search(&t).is_ok()) {
                slots.push(offset);
            }
        }
        slots.sort_unstable();
        CheckCalls {
            text: text.as_ref().and_then(|t| t.data().ok()).unwrap_or(&[]),
            text_addr: text.map(|t| t.address()).unwrap_or(0),
            targets,
            slots,
        }
    }

    /// Whether the code from `start` to `end` (`window` bytes at most) calls one of the
    /// functions: `call rel32` to one, or `call [rip + disp32]` through a GOT slot holding one,
    /// or a load of such a slot into a register (debug builds then `call reg`).
    fn block_calls(&self, start: u64, end: u64, window: usize) -> bool {
        if self.targets.is_empty() && self.slots.is_empty() {
            return false;
        }
        let end = end.min(start.saturating_add(window as u64));
        let (Some(from), Some(to)) = (
            start.checked_sub(self.text_addr),
            end.checked_sub(self.text_addr),
        ) else {
            return false;
        };
        let (from, to) = (from as usize, (to as usize).min(self.text.len()));
        let rel32 = |i: usize| {
            i32::from_le_bytes(self.text[i..i + 4].try_into().expect("4 bytes")) as i64 as u64
        };
        (from..to.saturating_sub(5)).any(|i| {
            let at = self.text_addr + i as u64;
            match (self.text[i], self.text[i + 1]) {
                (0xE8, _) => self
                    .targets
                    .binary_search(&(at + 5).wrapping_add(rel32(i + 1)))
                    .is_ok(),
                (0xFF, 0x15) if i + 6 <= self.text.len() => self
                    .slots
                    .binary_search(&(at + 6).wrapping_add(rel32(i + 2)))
                    .is_ok(),
                // `mov [rip + disp32], reg` loading a check panic's GOT slot, for `call reg`.
                (0x48 | 0x4C, 0x8B) if i + 7 <= self.text.len() && self.text[i + 2] & 0xC7 == 5 => {
                    self.slots
                        .binary_search(&(at + 7).wrapping_add(rel32(i + 3)))
                        .is_ok()
                }
                _ => false,
            }
        })
    }
}

/// Whether a function (by demangled name) is selected code, and if so its display name and
/// module.
pub fn classify(
    demangled: &str,
    cluster: &Cluster,
    selection: &Selection,
) -> Option<(String, ModuleId)> {
    let (owner, trait_name, rest) = split_qualified(demangled);
    let mut segments: Vec<String> = split_path(&owner)
        .into_iter()
        .map(|s| strip_generics(&s))
        .collect();
    segments.extend(rest.iter().map(|s| strip_generics(s)));
    if segments.first().map(String::as_str) != Some(cluster.crate_name.as_str()) {
        return None;
    }
    let segments = &segments[1..];
    // The crate's own test modules, whatever their names (`tests` and `test` below are the
    // usual ones, also when analysis did not see them).
    if cluster
        .left_out_modules
        .iter()
        .any(|m| segments.starts_with(m))
    {
        return None;
    }
    if segments.iter().any(|s| {
        s == crate::driver::codegen::DISPATCH_MODULE
            || crate::suite::Suite::ALL.iter().any(|t| s == t.module())
            || s == "tests"
            || s == "test"
    }) || segments == ["main"]
    {
        return None;
    }
    // The deepest module of the cluster the path goes through.
    let mut module = 0;
    let mut depth = 0;
    while depth < segments.len() {
        let next = cluster
            .modules
            .iter()
            .position(|m| m.parent == Some(module) && m.path.last() == Some(&segments[depth]));
        match next {
            Some(m) => {
                module = m;
                depth += 1;
            }
            None => break,
        }
    }
    let inner = &segments[depth..];
    if let (Some(tr), Some(type_name)) = (&trait_name, inner.first()) {
        let tr_last = strip_generics(tr.rsplit("::").next().unwrap_or(tr));
        let derived = cluster
            .types
            .iter()
            .any(|t| t.module == module && &t.name == type_name && t.derives.contains(&tr_last));
        if derived && DERIVABLE.contains(&tr_last.as_str()) {
            return None;
        }
    }
    if let Some(want) = &selection.module {
        if cluster.modules[module].path.len() < want.len()
            || cluster.modules[module].path[..want.len()] != want[..]
        {
            return None;
        }
    }
    if selection.shard.is_some_and(|s| !s.has(module)) {
        return None;
    }
    let named: Vec<&String> = inner.iter().filter(|s| !s.starts_with("{{")).collect();
    if let Some(f) = &selection.function {
        let joined = named
            .iter()
            .map(|s| s.as_str())
            .collect::<Vec<_>>()
            .join("::");
        let last = named.last().map(|s| s.as_str()).unwrap_or("");
        if joined != *f && last != f {
            return None;
        }
    }
    let mut display = cluster.modules[module].path.clone();
    display.extend(named.iter().map(|s| s.to_string()));
    Some((display.join("::"), module))
}

/// `<a::B as c::D>::f::{{closure}}` → ("a::B", Some("c::D"), ["f", "{{closure}}"]);
/// a plain path is its own owner.
fn split_qualified(name: &str) -> (String, Option<String>, Vec<String>) {
    if !name.starts_with('<') {
        return (name.to_string(), None, Vec::new());
    }
    let mut depth = 0;
    let mut close = None;
    for (i, c) in name.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(i);
                    break;
                }
            }
            _ => {}
        }
    }
    let Some(close) = close else {
        return (name.to_string(), None, Vec::new());
    };
    let inside = &name[1..close];
    let rest = name[close + 1..].trim_start_matches("::");
    let rest = split_path(rest);
    match find_top_level(inside, " as ") {
        Some(at) => (
            inside[..at].to_string(),
            Some(inside[at + 4..].to_string()),
            rest,
        ),
        None => (inside.to_string(), None, rest),
    }
}

fn find_top_level(s: &str, pat: &str) -> Option<usize> {
    let mut depth = 0i32;
    for (i, c) in s.char_indices() {
        match c {
            '<' | '(' | '[' => depth += 1,
            '>' | ')' | ']' => depth -= 1,
            _ if depth == 0 && s[i..].starts_with(pat) => return Some(i),
            _ => {}
        }
    }
    None
}

/// Splits at `::` outside of generic arguments.
fn split_path(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'<' | b'(' | b'[' => depth += 1,
            b'>' | b')' | b']' => depth -= 1,
            b':' if depth == 0 && bytes.get(i + 1) == Some(&b':') => {
                out.push(s[start..i].to_string());
                start = i + 2;
                i += 1;
            }
            _ => {}
        }
        i += 1;
    }
    if start < s.len() {
        out.push(s[start..].to_string());
    }
    out.retain(|seg| !seg.is_empty());
    out
}

fn strip_generics(s: &str) -> String {
    match s.find('<') {
        Some(i) => s[..i].to_string(),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::{Fields, Module, ModuleBody, TypeDef, TypeKind, Vis};

    #[test]
    fn a_goal_is_covered_when_any_copy_is_and_counted_once() {
        use copies::tests::counted;
        // Two copies of `f`: two branches each on line 3, the second dead in both.
        let counted = vec![
            counted(0, 0, "f at 2:5", 3, false),
            counted(1, 0, "f at 2:5", 3, true),
            counted(2, 1, "f at 2:5", 3, false),
            counted(3, 1, "f at 2:5", 3, true),
        ];
        let merged = copies::merge(&counted);
        let map = GoalMap {
            by_counter: by_counter(4, &counted, &merged.goal_of),
            goals: merged.goals,
            infeasible: Vec::new(),
            infeasible_goals: merged.infeasible,
            places: merged.places,
            unproven: Vec::new(),
            proof_time: std::time::Duration::ZERO,
            selected_code: Vec::new(),
            pointer_checks: Vec::new(),
        };
        assert_eq!(map.count(GoalKind::Branch), 1);
        assert_eq!(map.count_infeasible(GoalKind::Branch), 1);
        assert_eq!(map.goals_hit(&[2]).collect::<Vec<_>>(), [0]);
        assert_eq!(map.goals_hit(&[0, 2]).collect::<Vec<_>>(), [0]);
        assert_eq!(map.goals_hit(&[1, 3]).count(), 0);
        assert_eq!(map.place(0).map(|p| p.line), Some(3));
    }

    #[test]
    fn the_standard_librarys_checks_of_pointers_are_told_from_code_that_compares_values() {
        for name in [
            "core::ub_checks::maybe_is_nonoverlapping::runtime",
            "core::ptr::copy_nonoverlapping::precondition_check",
            "core::slice::raw::from_raw_parts::precondition_check",
        ] {
            assert!(checks_pointers(name), "{name}");
        }
        for name in [
            "parsing::frame::open",
            "core::slice::<impl [T]>::copy_from_slice",
        ] {
            assert!(!checks_pointers(name), "{name}");
        }
    }

    fn cluster() -> Cluster {
        let module = |path: &[&str], parent| Module {
            path: path.iter().map(|s| s.to_string()).collect(),
            parent,
            vis: Vis::Pub,
            file: "src/lib.rs".into(),
            body: ModuleBody::File,
            mod_rs: true,
            shadowed_prelude: Vec::new(),
        };
        Cluster {
            crate_name: "demo".into(),
            modules: vec![module(&[], None), module(&["shapes"], Some(0))],
            types: vec![TypeDef {
                name: "Point".into(),
                module: 1,
                vis: Vis::Pub,
                generics: vec![],
                bounds: vec![],
                unsupported_generics: None,
                lifetimes: 0,
                derives: vec!["Debug".into(), "PartialEq".into()],
                impls: vec!["Display".into()],
                kind: TypeKind::Struct(Fields::Unit),
            }],
            ..Cluster::default()
        }
    }

    #[test]
    fn keeps_the_crates_own_functions() {
        let c = cluster();
        let all = Selection::default();
        assert_eq!(
            classify("demo::shapes::Point::new", &c, &all),
            Some(("shapes::Point::new".into(), 1))
        );
        assert_eq!(
            classify("demo::parse::{{closure}}", &c, &all),
            Some(("parse".into(), 0))
        );
        assert_eq!(
            classify("<demo::shapes::Point as core::fmt::Display>::fmt", &c, &all),
            Some(("shapes::Point::fmt".into(), 1))
        );
        assert_eq!(
            classify("<demo::Wrapper<i64>>::new", &c, &all),
            Some(("Wrapper::new".into(), 0))
        );
    }

    #[test]
    fn sets_aside_driver_harness_tests_derives_and_other_crates() {
        let c = cluster();
        let all = Selection::default();
        assert_eq!(
            classify("demo::__hermetic_dispatch::call_3", &c, &all),
            None
        );
        assert_eq!(classify("demo::main", &c, &all), None);
        assert_eq!(classify("demo::tests::it_works", &c, &all), None);
        // The crate's own `#[cfg(test)] mod error_checks` in `shapes`, by any name.
        let mut own = cluster();
        own.left_out_modules = vec![vec!["shapes".into(), "error_checks".into()]];
        assert!(classify("demo::shapes::error_checks::helper", &c, &all).is_some());
        assert_eq!(
            classify("demo::shapes::error_checks::helper", &own, &all),
            None
        );
        assert_eq!(
            classify("<demo::shapes::error_checks::Probe>::new", &own, &all),
            None
        );
        assert_eq!(
            classify("<demo::shapes::Point as core::fmt::Debug>::fmt", &c, &all),
            None
        );
        assert_eq!(
            classify(
                "<alloc::vec::Vec<demo::shapes::Point> as core::clone::Clone>::clone",
                &c,
                &all
            ),
            None
        );
        assert_eq!(
            classify("core::ptr::drop_in_place<demo::shapes::Point>", &c, &all),
            None
        );
    }

    #[test]
    fn honours_module_and_function_filters() {
        let c = cluster();
        let shapes = Selection {
            module: Some(vec!["shapes".into()]),
            ..Selection::default()
        };
        assert!(classify("demo::shapes::Point::new", &c, &shapes).is_some());
        assert!(classify("demo::parse", &c, &shapes).is_none());
        let new = Selection {
            function: Some("Point::new".into()),
            ..Selection::default()
        };
        assert!(classify("demo::shapes::Point::new", &c, &new).is_some());
        assert!(classify("demo::shapes::Point::area", &c, &new).is_none());
        // The root module (0) is in the first of two shares, `shapes` (1) in the second.
        let share = |text: &str| Selection {
            shard: Some(text.parse().unwrap()),
            ..Selection::default()
        };
        assert!(classify("demo::parse", &c, &share("1/2")).is_some());
        assert!(classify("demo::shapes::Point::new", &c, &share("1/2")).is_none());
        assert!(classify("demo::shapes::Point::new", &c, &share("2/2")).is_some());
        assert!(classify("demo::parse", &c, &share("1/1")).is_some());
        for bad in ["0/2", "3/2", "2", "a/b"] {
            assert!(bad.parse::<crate::selection::Shard>().is_err(), "{bad}");
        }
    }

    #[test]
    fn a_check_panic_called_through_a_register_loaded_from_its_got_slot() {
        // 0x1000: mov 0x100(%rip),%rax (slot 0x1107); call *%rax; ud2.
        let text = [
            0x48, 0x8B, 0x05, 0x00, 0x01, 0x00, 0x00, 0xFF, 0xD0, 0x0F, 0x0B, 0x90,
        ];
        let checks = CheckCalls {
            text: &text,
            text_addr: 0x1000,
            targets: vec![],
            slots: vec![0x1107],
        };
        assert!(checks.block_calls(0x1000, 0x100c, 48));
        let other = CheckCalls {
            slots: vec![0x2000],
            ..checks
        };
        assert!(!other.block_calls(0x1000, 0x100c, 48));
    }
}
