//! Edges the compiler emits that no input can take, proven from the machine code, so their
//! counters are not goals.
//!
//! The debug build tests a value again where the source tests it once: after
//! `let Ok(text) = read_to_string(path) else { .. }`, drop elaboration re-tests the `Result`'s
//! discriminant on each path to drop what is left, and one way of each re-test contradicts the
//! first test. A forward data-flow analysis over one function shows it: its facts say that a
//! stack slot equals, or does not equal, a constant ("the 8 bytes at `[rsp+0x130]` are
//! `0x8000000000000000`"). A conditional branch adds its condition to each outgoing edge when a
//! block-local symbolic evaluation of the block can state it as such a fact (through registers,
//! spill slots, `cmp`, `cmovcc`/`setcc` booleans, `test`); a store of a constant to a slot is a
//! fact too. A write that may reach a slot forgets what was known of it, merges keep the facts
//! of every incoming edge, and an edge whose condition contradicts the facts at its branch is
//! never taken: code reached only through such edges is dead.
//!
//! **Claims only what it proves; uncertain means feasible.** A store through a pointer it cannot
//! follow, a call (the sanitizer's comparison hooks aside), or a change of `rsp`/`rbp` forgets
//! facts; an indirect jump, an undecodable byte, a branch out of the function, unreadable
//! landing pads, or code that no known entry reaches but that leads into reached code (an entry
//! we do not know of) give up on the function. Only code that the entries reach along some edge
//! is ever claimed.
//!
//! The search checks the proofs in practice: an execution that covers a counter proven infeasible
//! is counted (`infeasible_covered`), the report warns of a bug in the proof, and `HERMETIC_DEBUG`
//! shows the counter.

use super::cleanup::LandingPads;
use iced_x86::{
    ConditionCode, Decoder, DecoderOptions, FlowControl, Instruction, InstructionInfoFactory,
    Mnemonic, OpAccess, OpKind, Register, RflagsBits,
};
use object::{Object, ObjectSection, ObjectSymbol, SymbolKind};
use std::collections::{BTreeSet, VecDeque};

/// Why a function was left without a proof (nothing in it is claimed infeasible).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GaveUp {
    /// Bytes that do not decode, or a function outside `.text`.
    Undecodable,
    /// An indirect jump (a jump table): its targets are unknown entries.
    IndirectJump,
    /// A branch or call into the middle of an instruction, or a branch out of the function.
    StrayTarget,
    /// Code no known entry reaches leads into reached code: some entry is unknown to us.
    Unreached,
    /// The exception tables of the function could not be read: its landing pads are unknown.
    UnknownPads,
    /// Transactional memory instructions (`xbegin`): control can come back elsewhere.
    Transaction,
    /// The data flow did not settle within its bound.
    NoFixedPoint,
}

/// The instructions of one function that no execution reaches.
#[derive(Debug, Default)]
pub struct DeadCode {
    /// Addresses of the dead instructions, sorted.
    instructions: Vec<u64>,
}

impl DeadCode {
    /// Whether `pc` is the address of a dead instruction.
    pub fn contains(&self, pc: u64) -> bool {
        self.instructions.binary_search(&pc).is_ok()
    }
}

/// What the proofs need from the executable: its code, its landing pads and the addresses of
/// the sanitizer's comparison hooks.
pub struct Prover<'a> {
    text: &'a [u8],
    text_addr: u64,
    pads: &'a LandingPads,
    hooks: Vec<u64>,
}

impl<'a> Prover<'a> {
    pub fn new(file: &object::File<'a>, pads: &'a LandingPads) -> Prover<'a> {
        let text = file.section_by_name(".text");
        Prover {
            text: text.as_ref().and_then(|t| t.data().ok()).unwrap_or(&[]),
            text_addr: text.map(|t| t.address()).unwrap_or(0),
            pads,
            hooks: hooks(file),
        }
    }

    /// The dead instructions of the function at `start`, `size` bytes long.
    pub fn prove(&self, start: u64, size: u64) -> Result<DeadCode, GaveUp> {
        if !self.pads.readable(start) {
            return Err(GaveUp::UnknownPads);
        }
        let code = start
            .checked_sub(self.text_addr)
            .and_then(|from| self.text.get(from as usize..(from + size) as usize))
            .ok_or(GaveUp::Undecodable)?;
        let pads: Vec<u64> = self.pads.pads.range(start..start + size).copied().collect();
        dead_code(code, start, &pads, &self.hooks)
    }
}

/// The comparison hooks SanitizerCoverage calls (`__sanitizer_cov_trace_cmp8`, ...), defined by
/// the driver (`hermetic_driver::coverage`), and the mutants' switches
/// (`hermetic_driver::mutant`): they never write the caller's frame, so facts about the frame
/// survive a call to them.
fn hooks(file: &object::File) -> Vec<u64> {
    let mut hooks: Vec<u64> = Vec::new();
    for s in file.symbols() {
        if s.kind() != SymbolKind::Text || !s.is_definition() || s.address() == 0 {
            continue;
        }
        let Ok(n) = s.name() else { continue };
        if n.starts_with("__sanitizer_cov_trace_") {
            hooks.push(s.address());
            continue;
        }
        // The mutants' switches read their arguments and return a value: like the hooks, they
        // write nothing of the caller's frame (a replaced body's value may: not one of them).
        let d = format!("{:#}", rustc_demangle::demangle(n));
        if d.starts_with("hermetic_driver::mutant::")
            && !d.starts_with("hermetic_driver::mutant::replaced")
        {
            hooks.push(s.address());
        }
        // In the search no mutant is on: the code only a mutant runs is never reached.
        if d == "hermetic_driver::mutant::on" || d == "hermetic_driver::mutant::on1" {
            hooks.push(s.address() | RETURNS_ZERO);
        }
    }
    hooks.sort_unstable();
    hooks
}

/// Marks, among the hooks, those that return 0 in every execution of the search (the
/// mutants' switches).
const RETURNS_ZERO: u64 = 1 << 63;

/// The instructions of a function (its bytes `code`, at `start`) that no execution reaches.
/// Entries are `start` and the landing pads `pads`; `hooks` (sorted) are functions known not to
/// write the caller's frame.
pub fn dead_code(code: &[u8], start: u64, pads: &[u64], hooks: &[u64]) -> Result<DeadCode, GaveUp> {
    let function = Function::decode(code, start, pads)?;
    let reached = function.solve(hooks)?;
    let instructions = function
        .blocks
        .iter()
        .zip(&reached)
        .filter(|(_, reached)| !**reached)
        .flat_map(|(block, _)| function.instructions[block.first..block.end].iter())
        .map(Instruction::ip)
        .collect();
    Ok(DeadCode { instructions })
}

// ---------------------------------------------------------------------------------------------
// Facts

/// Which register a frame address is relative to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Base {
    Rsp,
    Rbp,
}

/// `size` bytes of the frame at `base + offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Slot {
    base: Base,
    offset: i64,
    size: u32,
}

impl Slot {
    /// Whether a write to `written` may change this slot: they overlap, or they are addressed
    /// from different registers, whose distance is unknown.
    fn clobbered_by(&self, written: &Slot) -> bool {
        let (start, end) = self.bytes();
        let (w_start, w_end) = written.bytes();
        self.base != written.base || (start < w_end && w_start < end)
    }

    /// Its byte range (wide, so that no offset overflows).
    fn bytes(&self) -> (i128, i128) {
        let start = i128::from(self.offset);
        (start, start + i128::from(self.size))
    }

    /// Its first `size` bytes (the low bytes: x86 is little-endian).
    fn low(self, size: u32) -> Slot {
        Slot { size, ..self }
    }
}

/// `(slot & mask) == value`, or `!=` when not `equal`: a fact, or what a branch tests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Test {
    slot: Slot,
    mask: u64,
    equal: bool,
    value: u64,
}

impl Test {
    /// The condition `(slot & mask) == value` (or `!=`), settled at once when `value` has bits
    /// the mask clears.
    fn condition(slot: Slot, mask: u64, equal: bool, value: u64) -> Condition {
        if value & !mask != 0 {
            Condition::Known(!equal)
        } else if mask == 0 {
            Condition::Known(equal == (value == 0))
        } else {
            Condition::Of(Test {
                slot,
                mask,
                equal,
                value,
            })
        }
    }

    fn negated(self) -> Test {
        Test {
            equal: !self.equal,
            ..self
        }
    }
}

/// What is known of a condition (a flag, a comparison).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Condition {
    Unknown,
    Known(bool),
    Of(Test),
}

impl Condition {
    fn negated(self) -> Condition {
        match self {
            Condition::Unknown => Condition::Unknown,
            Condition::Known(b) => Condition::Known(!b),
            Condition::Of(t) => Condition::Of(t.negated()),
        }
    }
}

/// Facts that hold at a point on every path to it.
type Facts = BTreeSet<Test>;

/// Beyond this many facts, new ones are not recorded (forgetting is always sound).
const MAX_FACTS: usize = 256;

/// Whether the facts settle a test: the same bits are known equal to (or known different from)
/// the tested value, or equalities pin every tested bit.
fn implied(facts: &Facts, test: &Test) -> Option<bool> {
    for f in facts
        .iter()
        .filter(|f| f.slot == test.slot && f.mask == test.mask)
    {
        if f.equal {
            return Some((f.value == test.value) == test.equal);
        }
        if f.value == test.value {
            return Some(!test.equal);
        }
    }
    let (known, value) = pinned_bits(facts, test.slot);
    (test.mask & !known == 0).then_some(((value & test.mask) == test.value) == test.equal)
}

/// The bits of `slot` (at most 8 bytes) that equalities on overlapping slots pin, and their
/// values.
fn pinned_bits(facts: &Facts, slot: Slot) -> (u64, u64) {
    let (mut known, mut value) = (0u64, 0u64);
    for f in facts.iter().filter(|f| f.equal && f.slot.base == slot.base) {
        for byte in 0..slot.size.min(8) {
            let at = slot.bytes().0 + i128::from(byte) - f.slot.bytes().0;
            if (0..i128::from(f.slot.size.min(8))).contains(&at) {
                let shift = 8 * at as u32;
                known |= ((f.mask >> shift) & 0xff) << (8 * byte);
                value |= ((f.value & f.mask) >> shift & 0xff) << (8 * byte);
            }
        }
    }
    (known, value)
}

/// All ones in the low `bytes` bytes.
fn mask(bytes: u32) -> u64 {
    if bytes >= 8 {
        u64::MAX
    } else {
        (1u64 << (8 * bytes)) - 1
    }
}

// ---------------------------------------------------------------------------------------------
// Values in registers and spill slots, within one block

/// What the low bytes of a register (or a stored value) hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Sym {
    Const(u64),
    /// The slot's contents (as long as nothing writes the slot).
    Loaded(Slot),
    /// 1 when the test holds, else 0 (as long as nothing writes its slot).
    Bool(Test),
    /// The address `base + offset`.
    Address(Base, i64),
}

/// A register's (or a stored value's) contents: `sym` describes the low `width` bytes; the
/// bytes above are zero when `zero_above`, else unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Value {
    sym: Sym,
    width: u32,
    zero_above: bool,
}

impl Value {
    fn constant(c: u64, width: u32) -> Value {
        Value {
            sym: Sym::Const(c & mask(width)),
            width,
            zero_above: true,
        }
        .normal()
    }

    /// Constants and booleans with zeros above are described in full (width 8), so that
    /// comparisons at any size see them.
    fn normal(self) -> Value {
        match self.sym {
            Sym::Const(_) | Sym::Bool(_) if self.zero_above => Value { width: 8, ..self },
            _ => self,
        }
    }

    /// The value as an operand of `size` bytes: described up to its width, zero from there to
    /// `size`. `None` when bytes below `size` are unknown.
    fn at_size(self, size: u32) -> Option<Value> {
        if size > self.width {
            return self.zero_above.then_some(self);
        }
        let sym = match self.sym {
            Sym::Const(c) => Sym::Const(c & mask(size)),
            Sym::Loaded(slot) => Sym::Loaded(slot.low(size)),
            Sym::Bool(t) => Sym::Bool(t),
            Sym::Address(..) if size < 8 => return None,
            address => address,
        };
        Some(Value {
            sym,
            width: size,
            zero_above: true,
        })
    }

    /// Whether the bytes from `size` up are zero.
    fn zero_from(self, size: u32) -> bool {
        if size >= 8 {
            return true;
        }
        match self.sym {
            Sym::Const(c) if self.width >= 8 || self.zero_above => c >> (8 * size) == 0,
            _ => self.zero_above && self.width <= size,
        }
    }

    /// The frame slot the value depends on, if any.
    fn slot(self) -> Option<Slot> {
        match self.sym {
            Sym::Loaded(slot) => Some(slot),
            Sym::Bool(t) => Some(t.slot),
            Sym::Const(_) | Sym::Address(..) => None,
        }
    }
}

/// The general-purpose registers, by number (`rax` = 0 ... `r15` = 15).
fn gpr(reg: Register) -> Option<usize> {
    let high_byte = matches!(
        reg,
        Register::AH | Register::CH | Register::DH | Register::BH
    );
    (reg.is_gpr() && !high_byte).then(|| reg.full_register() as usize - Register::RAX as usize)
}

const RSP: usize = 4;
const RBP: usize = 5;
/// `rax`, `rcx`, `rdx`, `rsi`, `rdi`, `r8`-`r11`: a call may change them.
const CALLER_SAVED: [usize; 9] = [0, 1, 2, 6, 7, 8, 9, 10, 11];

/// What the symbolic evaluation knows at a point of a block.
#[derive(Debug, Clone)]
struct State {
    facts: Facts,
    regs: [Option<Value>; 16],
    /// Values this block stored in the frame, newest last.
    stored: Vec<(Slot, Value)>,
    /// When ZF is set.
    zero: Condition,
}

impl State {
    fn entering(facts: Facts) -> State {
        State {
            facts,
            regs: [None; 16],
            stored: Vec::new(),
            zero: Condition::Unknown,
        }
    }

    /// Forgets what may depend on the slots `hit` selects.
    fn forget_slots(&mut self, hit: impl Fn(&Slot) -> bool) {
        self.facts.retain(|f| !hit(&f.slot));
        self.stored
            .retain(|(slot, v)| !hit(slot) && !v.slot().is_some_and(|s| hit(&s)));
        for r in &mut self.regs {
            if r.and_then(Value::slot).is_some_and(|s| hit(&s)) {
                *r = None;
            }
        }
        if let Condition::Of(t) = self.zero {
            if hit(&t.slot) {
                self.zero = Condition::Unknown;
            }
        }
    }

    /// After a write anywhere in memory.
    fn forget_memory(&mut self) {
        self.forget_slots(|_| true);
    }

    /// After `rsp` or `rbp` changed in a way not followed: frame addresses mean other bytes.
    fn forget_frame(&mut self) {
        self.forget_memory();
        for r in &mut self.regs {
            if matches!(r.map(|v| v.sym), Some(Sym::Address(..))) {
                *r = None;
            }
        }
    }

    /// The slot a memory operand names, when it is in the frame.
    fn address(&self, base: Register, index: Register, segment: Register, disp: u64) -> Address {
        if matches!(segment, Register::FS | Register::GS) || index != Register::None {
            return Address::Unknown;
        }
        let disp = disp as i64;
        match base {
            Register::None | Register::RIP => Address::Global,
            Register::RSP => Address::Frame(Base::Rsp, disp),
            Register::RBP => Address::Frame(Base::Rbp, disp),
            reg => match gpr(reg)
                .filter(|_| reg.size() == 8)
                .and_then(|r| self.regs[r])
            {
                Some(Value {
                    sym: Sym::Address(base, offset),
                    ..
                }) => Address::Frame(base, offset.wrapping_add(disp)),
                _ => Address::Unknown,
            },
        }
    }

    /// The value of `size` bytes at a frame slot: what this block stored there, else the
    /// slot's contents.
    fn load(&self, slot: Slot) -> Option<Value> {
        if slot.size > 8 {
            return None;
        }
        let stored = self.stored.iter().rev().find(|(s, _)| *s == slot);
        match stored {
            Some((_, v)) => v.at_size(slot.size),
            None => Some(Value {
                sym: Sym::Loaded(slot),
                width: slot.size,
                zero_above: true,
            }),
        }
    }

    fn add_fact(&mut self, test: Test) {
        if self.facts.len() < MAX_FACTS {
            self.facts.insert(test);
        }
    }
}

/// Where a memory operand points.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Address {
    /// A global (rip-relative or absolute): never the stack.
    Global,
    Frame(Base, i64),
    Unknown,
}

/// The `==` of two operands of one size (each zero above its width).
fn equality(a: Value, b: Value) -> Condition {
    match (a.sym, b.sym) {
        (Sym::Const(x), Sym::Const(y)) => Condition::Known(x == y),
        (Sym::Loaded(slot), Sym::Const(c)) | (Sym::Const(c), Sym::Loaded(slot)) => {
            Test::condition(slot, mask(slot.size), true, c)
        }
        (Sym::Bool(t), Sym::Const(c)) | (Sym::Const(c), Sym::Bool(t)) => match c {
            0 => Condition::Of(t.negated()),
            1 => Condition::Of(t),
            _ => Condition::Known(false),
        },
        _ => Condition::Unknown,
    }
}

/// When `(a & m) == 0`, `a` being an operand zero above its width.
fn zero_under(a: Value, m: u64) -> Condition {
    match a.sym {
        Sym::Const(c) => Condition::Known(c & m == 0),
        Sym::Loaded(slot) => Test::condition(slot, m & mask(slot.size), true, 0),
        Sym::Bool(_) if m & 1 == 0 => Condition::Known(true),
        Sym::Bool(t) => Condition::Of(t.negated()),
        Sym::Address(..) => Condition::Unknown,
    }
}

/// When a condition code holds, given when ZF is set; only `e` and `ne` are followed.
fn condition_code(cc: ConditionCode, zero: Condition) -> Condition {
    match cc {
        ConditionCode::e => zero,
        ConditionCode::ne => zero.negated(),
        _ => Condition::Unknown,
    }
}

// ---------------------------------------------------------------------------------------------
// The function: instructions, blocks, and the data flow over them

/// What an instruction may change, beyond what `step` models.
#[derive(Debug, Default)]
struct Clobbers {
    /// Memory operands written: (base, index, segment, displacement, size in bytes).
    memory: Vec<(Register, Register, Register, u64, u32)>,
    /// General-purpose registers written, by number.
    registers: Vec<usize>,
    /// `rsp` or `rbp` written.
    frame: bool,
    /// A string instruction with a repeat prefix: it writes an unknown length.
    repeated: bool,
    zero_flag: bool,
}

#[derive(Debug, Clone, Copy)]
struct Block {
    /// Its instructions, by index.
    first: usize,
    end: usize,
}

struct Function {
    instructions: Vec<Instruction>,
    clobbers: Vec<Clobbers>,
    blocks: Vec<Block>,
    /// Successor blocks of each block; for a conditional branch, the taken one first.
    successors: Vec<Vec<usize>>,
    entries: Vec<usize>,
}

impl Function {
    fn decode(code: &[u8], start: u64, pads: &[u64]) -> Result<Function, GaveUp> {
        let end = start + code.len() as u64;
        let mut decoder = Decoder::with_ip(64, code, start, DecoderOptions::NONE);
        let mut instructions = Vec::new();
        while decoder.can_decode() {
            let ins = decoder.decode();
            if ins.is_invalid() {
                return Err(GaveUp::Undecodable);
            }
            match ins.flow_control() {
                FlowControl::IndirectBranch => return Err(GaveUp::IndirectJump),
                FlowControl::XbeginXabortXend => return Err(GaveUp::Transaction),
                _ => {}
            }
            instructions.push(ins);
        }
        let index_of = |ip: u64| {
            instructions
                .binary_search_by_key(&ip, Instruction::ip)
                .map_err(|_| GaveUp::StrayTarget)
        };
        // Block starts: entries, branch targets, and what follows a branch.
        let mut leaders = BTreeSet::from([0]);
        let mut entries = vec![0];
        for &pad in pads {
            let i = index_of(pad)?;
            leaders.insert(i);
            entries.push(i);
        }
        for (i, ins) in instructions.iter().enumerate() {
            match ins.flow_control() {
                FlowControl::ConditionalBranch | FlowControl::UnconditionalBranch => {
                    leaders.insert(index_of(ins.near_branch_target())?);
                    leaders.insert(i + 1);
                }
                FlowControl::Return | FlowControl::Exception => {
                    leaders.insert(i + 1);
                }
                FlowControl::Call => {
                    let target = ins.near_branch_target();
                    if target != start && (start..end).contains(&target) {
                        return Err(GaveUp::StrayTarget);
                    }
                }
                _ => {}
            }
        }
        leaders.retain(|&i| i < instructions.len());
        let starts: Vec<usize> = leaders.into_iter().collect();
        let blocks: Vec<Block> = starts
            .iter()
            .enumerate()
            .map(|(b, &first)| Block {
                first,
                end: starts.get(b + 1).copied().unwrap_or(instructions.len()),
            })
            .collect();
        let block_of = |i: usize| starts.binary_search(&i).map_err(|_| GaveUp::StrayTarget);
        let mut successors = Vec::with_capacity(blocks.len());
        for (b, block) in blocks.iter().enumerate() {
            let last = &instructions[block.end - 1];
            let next = (b + 1 < blocks.len()).then_some(b + 1);
            let target = || block_of(index_of(last.near_branch_target())?);
            successors.push(match last.flow_control() {
                FlowControl::ConditionalBranch => {
                    let mut s = vec![target()?];
                    s.extend(next);
                    s
                }
                FlowControl::UnconditionalBranch => vec![target()?],
                FlowControl::Return | FlowControl::Exception => vec![],
                _ => next.into_iter().collect(),
            });
        }
        let entries = entries
            .into_iter()
            .map(block_of)
            .collect::<Result<Vec<_>, _>>()?;
        let mut factory = InstructionInfoFactory::new();
        let clobbers = instructions
            .iter()
            .map(|i| clobbers(&mut factory, i))
            .collect();
        Ok(Function {
            instructions,
            clobbers,
            blocks,
            successors,
            entries,
        })
    }

    /// Which blocks some execution may reach (`false`: dead). Only code that the entries reach
    /// along some edges is claimed; code they do not reach at all (padding, a trap the compiler
    /// left without predecessors) is not, and gives up the proof when it leads into reached
    /// code: it would be an entry we do not know of, bringing no facts.
    fn solve(&self, hooks: &[u64]) -> Result<Vec<bool>, GaveUp> {
        let structural = self.reachable();
        let unknown_entry = (0..self.blocks.len())
            .filter(|&b| !structural[b])
            .any(|b| self.successors[b].iter().any(|&s| structural[s]));
        if unknown_entry {
            return Err(GaveUp::Unreached);
        }
        let at_entry = self.fixed_point(hooks)?;
        Ok(at_entry
            .iter()
            .zip(structural)
            .map(|(facts, structural)| facts.is_some() || !structural)
            .collect())
    }

    /// The blocks reached from the entries along every edge.
    fn reachable(&self) -> Vec<bool> {
        let mut seen = vec![false; self.blocks.len()];
        let mut queue: Vec<usize> = self.entries.clone();
        while let Some(b) = queue.pop() {
            if !std::mem::replace(&mut seen[b], true) {
                queue.extend(&self.successors[b]);
            }
        }
        seen
    }

    /// The facts at the start of each block (`None`: no feasible edge reaches it).
    fn fixed_point(&self, hooks: &[u64]) -> Result<Vec<Option<Facts>>, GaveUp> {
        let mut at_entry: Vec<Option<Facts>> = vec![None; self.blocks.len()];
        let mut queue = VecDeque::new();
        let mut queued = vec![false; self.blocks.len()];
        for &e in &self.entries {
            at_entry[e] = Some(Facts::new());
            queue.push_back(e);
            queued[e] = true;
        }
        let mut budget = 64 * self.blocks.len() + 1024;
        while let Some(b) = queue.pop_front() {
            queued[b] = false;
            budget = budget.checked_sub(1).ok_or(GaveUp::NoFixedPoint)?;
            let facts = at_entry[b].clone().expect("queued blocks are reached");
            for (succ, out) in self.transfer(b, facts, hooks) {
                let Some(out) = out else {
                    continue;
                };
                let merged = match &at_entry[succ] {
                    None => out,
                    Some(old) => old.intersection(&out).copied().collect(),
                };
                if at_entry[succ].as_ref() != Some(&merged) {
                    at_entry[succ] = Some(merged);
                    if !std::mem::replace(&mut queued[succ], true) {
                        queue.push_back(succ);
                    }
                }
            }
        }
        Ok(at_entry)
    }

    /// Runs a block from the facts at its start: the facts along each outgoing edge, `None`
    /// for an edge whose condition contradicts them.
    fn transfer(&self, b: usize, facts: Facts, hooks: &[u64]) -> Vec<(usize, Option<Facts>)> {
        let block = self.blocks[b];
        let mut state = State::entering(facts);
        for i in block.first..block.end {
            self.step(&mut state, i, hooks);
        }
        let last = &self.instructions[block.end - 1];
        let succ = &self.successors[b];
        if last.flow_control() != FlowControl::ConditionalBranch {
            return succ
                .iter()
                .map(|&s| (s, Some(state.facts.clone())))
                .collect();
        }
        let taken_when = condition_code(last.condition_code(), state.zero);
        let (taken, not_taken) = branch(&state.facts, taken_when);
        let mut out = vec![(succ[0], taken)];
        if let Some(&next) = succ.get(1) {
            out.push((next, not_taken));
        }
        out
    }

    /// One instruction's effect on the state.
    fn step(&self, state: &mut State, i: usize, hooks: &[u64]) {
        let ins = &self.instructions[i];
        match ins.flow_control() {
            FlowControl::Call | FlowControl::IndirectCall => {
                let target = ins.near_branch_target();
                let hook =
                    ins.flow_control() == FlowControl::Call && hooks.binary_search(&target).is_ok();
                let zero = hook && hooks.binary_search(&(target | RETURNS_ZERO)).is_ok();
                call(state, hook);
                if zero {
                    state.regs[0] = Some(Value::constant(0, 8));
                }
                return;
            }
            FlowControl::Interrupt => {
                // `syscall`, `int3`: anything may change.
                state.forget_frame();
                state.regs = [None; 16];
                state.zero = Condition::Unknown;
                return;
            }
            _ => {}
        }
        let effect = model(state, ins);
        let clobbers = &self.clobbers[i];
        let written = clobber(state, clobbers);
        if let Some((r, v)) = effect.register.filter(|_| clobbers.memory.is_empty()) {
            state.regs[r] = Some(v);
        }
        if let Some((slot, v)) = effect.stored {
            // A value read from the bytes now overwritten no longer describes them.
            if !v.slot().is_some_and(|s| s.clobbered_by(&slot)) && written == Some(slot) {
                state.stored.push((slot, v));
            }
            if let Sym::Const(c) = v.sym {
                if written == Some(slot) && slot.size <= 8 {
                    let m = mask(slot.size);
                    state.add_fact(Test {
                        slot,
                        mask: m,
                        equal: true,
                        value: c & m,
                    });
                }
            }
        }
        if let Some(zero) = effect.zero {
            state.zero = zero;
        }
    }
}

/// A call: a hook writes nothing of the frame above `rsp`; anything else may write anywhere
/// (pointers to the frame may have escaped). Either may change the caller-saved registers.
fn call(state: &mut State, hook: bool) {
    if hook {
        // The return address and the callee's frame go below `rsp`; `rbp`'s distance to it is
        // not followed.
        state.forget_slots(|s| s.base == Base::Rbp || s.offset < 0);
    } else {
        state.forget_memory();
    }
    for r in CALLER_SAVED {
        state.regs[r] = None;
    }
    state.zero = Condition::Unknown;
}

/// The edges' facts for a branch taken when `taken_when` holds: (taken, not taken).
fn branch(facts: &Facts, taken_when: Condition) -> (Option<Facts>, Option<Facts>) {
    let with = |t: Test| {
        let mut f = facts.clone();
        if f.len() < MAX_FACTS {
            f.insert(t);
        }
        Some(f)
    };
    match taken_when {
        Condition::Unknown => (Some(facts.clone()), Some(facts.clone())),
        Condition::Known(true) => (Some(facts.clone()), None),
        Condition::Known(false) => (None, Some(facts.clone())),
        Condition::Of(t) => match implied(facts, &t) {
            Some(true) => (Some(facts.clone()), None),
            Some(false) => (None, Some(facts.clone())),
            None => (with(t), with(t.negated())),
        },
    }
}

/// What an instruction may write, from iced-x86's instruction info.
fn clobbers(factory: &mut InstructionInfoFactory, ins: &Instruction) -> Clobbers {
    let info = factory.info(ins);
    let writes = |a: OpAccess| {
        matches!(
            a,
            OpAccess::Write | OpAccess::CondWrite | OpAccess::ReadWrite | OpAccess::ReadCondWrite
        )
    };
    let mut c = Clobbers {
        repeated: ins.is_string_instruction() && (ins.has_rep_prefix() || ins.has_repne_prefix()),
        zero_flag: ins.rflags_modified() & RflagsBits::ZF != 0,
        ..Clobbers::default()
    };
    for m in info.used_memory().iter().filter(|m| writes(m.access())) {
        c.memory.push((
            m.base(),
            m.index(),
            m.segment(),
            m.displacement(),
            m.memory_size().size() as u32,
        ));
    }
    for r in info.used_registers().iter().filter(|r| writes(r.access())) {
        match gpr(r.register()) {
            Some(RSP | RBP) => c.frame = true,
            Some(n) => c.registers.push(n),
            // `ah`..`bh`: the full register.
            None if r.register().is_gpr() => c
                .registers
                .push(r.register().full_register() as usize - Register::RAX as usize),
            None => {}
        }
    }
    c
}

/// Applies what an instruction may write; returns the one frame slot it wrote, if that is all
/// it wrote.
fn clobber(state: &mut State, c: &Clobbers) -> Option<Slot> {
    let mut written = None;
    if c.repeated {
        state.forget_memory();
    }
    for &(base, index, segment, disp, size) in &c.memory {
        match state.address(base, index, segment, disp) {
            Address::Global => {}
            Address::Frame(base, offset) if size > 0 => {
                let slot = Slot { base, offset, size };
                state.forget_slots(|s| s.clobbered_by(&slot));
                written = Some(slot);
            }
            Address::Frame(..) | Address::Unknown => state.forget_memory(),
        }
    }
    if c.frame {
        state.forget_frame();
    }
    for &r in &c.registers {
        state.regs[r] = None;
    }
    if c.zero_flag {
        state.zero = Condition::Unknown;
    }
    written.filter(|_| c.memory.len() == 1 && !c.repeated && !c.frame)
}

/// What `step` models of an instruction, computed on the state before it.
#[derive(Debug, Default)]
struct Effect {
    register: Option<(usize, Value)>,
    stored: Option<(Slot, Value)>,
    /// When ZF is set afterwards, when the instruction sets it in a way followed.
    zero: Option<Condition>,
}

/// The instructions the debug build uses to compare and branch: moves (`mov`, `movzx`, `lea`),
/// `xor`, `and`, `sub`, `cmp`, `test`, `cmove`/`cmovne`, `sete`/`setne`.
fn model(state: &State, ins: &Instruction) -> Effect {
    let mut effect = Effect::default();
    if ins.op_count() == 0 {
        return effect;
    }
    let size = operand_size(ins, 0);
    let read = |op: u32, size: u32| operand(state, ins, op, size);
    let result = match ins.mnemonic() {
        Mnemonic::Mov => read(1, size),
        Mnemonic::Movzx => read(1, operand_size(ins, 1)).map(|v| Value {
            zero_above: true,
            ..v
        }),
        Mnemonic::Lea => lea(state, ins).filter(|_| size == 8),
        Mnemonic::Xor if same_register(ins) => {
            effect.zero = Some(Condition::Known(true));
            Some(Value::constant(0, size))
        }
        Mnemonic::Xor => {
            let v = xor(read(0, size), read(1, size), size);
            effect.zero = Some(v.map_or(Condition::Unknown, |v| zero_under(v, mask(size))));
            v
        }
        Mnemonic::And => {
            let (a, b) = (read(0, size), read(1, size));
            effect.zero = Some(test(a, b, size));
            and(a, b, size)
        }
        Mnemonic::Test => {
            let (a, b) = (read(0, size), read(1, size));
            effect.zero = Some(if same_register(ins) {
                a.map_or(Condition::Unknown, |a| zero_under(a, mask(size)))
            } else {
                test(a, b, size)
            });
            return effect;
        }
        Mnemonic::Cmp => {
            effect.zero = Some(compare(read(0, size), read(1, size)));
            return effect;
        }
        Mnemonic::Sub if same_register(ins) => {
            effect.zero = Some(Condition::Known(true));
            Some(Value::constant(0, size))
        }
        Mnemonic::Sub => {
            let (a, b) = (read(0, size), read(1, size));
            effect.zero = Some(compare(a, b));
            match (a.map(|v| v.sym), b.map(|v| v.sym)) {
                (Some(Sym::Const(x)), Some(Sym::Const(y))) => {
                    Some(Value::constant(x.wrapping_sub(y), size))
                }
                _ => None,
            }
        }
        Mnemonic::Cmove | Mnemonic::Cmovne => {
            let when = condition_code(ins.condition_code(), state.zero);
            choose(when, read(1, size), read(0, size), size)
        }
        Mnemonic::Sete | Mnemonic::Setne => {
            let when = condition_code(ins.condition_code(), state.zero);
            choose(
                when,
                Some(Value::constant(1, 1)),
                Some(Value::constant(0, 1)),
                1,
            )
        }
        _ => return effect,
    };
    match ins.op_kind(0) {
        OpKind::Register => {
            if let Some(r) = gpr(ins.op_register(0)) {
                effect.register = result
                    .and_then(|v| written_to(state.regs[r], v, size))
                    .map(|v| (r, v));
            }
        }
        OpKind::Memory => {
            if let (Address::Frame(base, offset), Some(v)) = (memory_operand(state, ins), result) {
                effect.stored = Some((Slot { base, offset, size }, v));
            }
        }
        _ => {}
    }
    effect
}

/// The register after writing an operand of `size` bytes to it: 32-bit writes clear the upper
/// half, 8- and 16-bit writes keep the old upper bytes.
fn written_to(old: Option<Value>, v: Value, size: u32) -> Option<Value> {
    if size >= 4 {
        return Some(
            Value {
                zero_above: true,
                ..v
            }
            .normal(),
        );
    }
    let low = v.at_size(size)?;
    Some(
        Value {
            zero_above: old.is_some_and(|o| o.zero_from(size)),
            ..low
        }
        .normal(),
    )
}

/// The size in bytes of operand `op`.
fn operand_size(ins: &Instruction, op: u32) -> u32 {
    match ins.op_kind(op) {
        OpKind::Register => ins.op_register(op).size() as u32,
        OpKind::Memory => ins.memory_size().size() as u32,
        _ => 0,
    }
}

/// Operand `op` as a value of `size` bytes.
fn operand(state: &State, ins: &Instruction, op: u32, size: u32) -> Option<Value> {
    match ins.op_kind(op) {
        OpKind::Register => gpr(ins.op_register(op))
            .and_then(|r| state.regs[r])
            .and_then(|v| v.at_size(size)),
        OpKind::Memory => match memory_operand(state, ins) {
            Address::Frame(base, offset) => state.load(Slot { base, offset, size }),
            _ => None,
        },
        OpKind::Immediate8
        | OpKind::Immediate16
        | OpKind::Immediate32
        | OpKind::Immediate64
        | OpKind::Immediate8to16
        | OpKind::Immediate8to32
        | OpKind::Immediate8to64
        | OpKind::Immediate32to64 => Some(Value::constant(ins.immediate(op), size)),
        _ => None,
    }
}

fn memory_operand(state: &State, ins: &Instruction) -> Address {
    state.address(
        ins.memory_base(),
        ins.memory_index(),
        ins.segment_prefix(),
        ins.memory_displacement64(),
    )
}

fn lea(state: &State, ins: &Instruction) -> Option<Value> {
    match memory_operand(state, ins) {
        Address::Frame(base, offset) => Some(Value {
            sym: Sym::Address(base, offset),
            width: 8,
            zero_above: true,
        }),
        _ => None,
    }
}

fn same_register(ins: &Instruction) -> bool {
    ins.op_count() == 2
        && ins.op_kind(0) == OpKind::Register
        && ins.op_kind(1) == OpKind::Register
        && ins.op_register(0) == ins.op_register(1)
}

fn compare(a: Option<Value>, b: Option<Value>) -> Condition {
    match (a, b) {
        (Some(a), Some(b)) => equality(a, b),
        _ => Condition::Unknown,
    }
}

/// The constant an operand holds, if known.
fn constant(v: Option<Value>) -> Option<u64> {
    match v?.sym {
        Sym::Const(c) => Some(c),
        _ => None,
    }
}

/// When `a & b` is zero, one of them being a constant.
fn test(a: Option<Value>, b: Option<Value>, size: u32) -> Condition {
    let (v, m) = match (constant(a), constant(b)) {
        (_, Some(m)) => (a, m),
        (Some(m), None) => (b, m),
        (None, None) => return Condition::Unknown,
    };
    match v {
        _ if m & mask(size) == 0 => Condition::Known(true),
        Some(v) => zero_under(v, m & mask(size)),
        None => Condition::Unknown,
    }
}

fn and(a: Option<Value>, b: Option<Value>, size: u32) -> Option<Value> {
    let (v, m) = match (constant(a), constant(b)) {
        (_, Some(m)) => (a, m),
        (Some(m), None) => (b, m),
        (None, None) => return None,
    };
    if m & mask(size) == 0 {
        return Some(Value::constant(0, size));
    }
    match v?.sym {
        Sym::Const(x) => Some(Value::constant(x & m, size)),
        Sym::Bool(t) if m & 1 == 1 => Some(Value {
            sym: Sym::Bool(t),
            width: size,
            zero_above: true,
        }),
        Sym::Bool(_) => Some(Value::constant(0, size)),
        _ => None,
    }
}

fn xor(a: Option<Value>, b: Option<Value>, size: u32) -> Option<Value> {
    match (a?.sym, b?.sym) {
        (Sym::Const(x), Sym::Const(y)) => Some(Value::constant(x ^ y, size)),
        (Sym::Bool(t), Sym::Const(1)) | (Sym::Const(1), Sym::Bool(t)) => Some(Value {
            sym: Sym::Bool(t.negated()),
            width: size,
            zero_above: true,
        }),
        _ => None,
    }
}

/// `when ? if_true : if_false` (a `cmovcc` or `setcc`): a boolean when the two are 1 and 0.
fn choose(
    when: Condition,
    if_true: Option<Value>,
    if_false: Option<Value>,
    size: u32,
) -> Option<Value> {
    let (t, f) = (if_true?, if_false?);
    let boolean = |test: Test| Value {
        sym: Sym::Bool(test),
        width: size,
        zero_above: true,
    };
    match (when, t.sym, f.sym) {
        (Condition::Known(b), ..) => Some(if b { t } else { f }),
        (_, Sym::Const(x), Sym::Const(y)) if x == y => Some(t),
        (Condition::Of(test), Sym::Const(1), Sym::Const(0)) => Some(boolean(test)),
        (Condition::Of(test), Sym::Const(0), Sym::Const(1)) => Some(boolean(test.negated())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    const START: u64 = 0x1000;
    /// A comparison hook, and some other function (a drop, `read_to_string`).
    const HOOK: u64 = 0x9000;
    const OTHER: u64 = 0xa000;
    /// `Err`'s niche in a `Result<String, io::Error>`: the value the re-tests compare with.
    const NICHE: [u8; 8] = [0, 0, 0, 0, 0, 0, 0, 0x80];

    /// A tiny assembler for the tests: raw instructions (encodings checked with GNU `as`),
    /// labels, and rel32 jumps and calls.
    #[derive(Default)]
    struct Asm {
        code: Vec<u8>,
        labels: HashMap<&'static str, u64>,
        fixups: Vec<(usize, &'static str)>,
    }

    impl Asm {
        fn raw(&mut self, bytes: &[u8]) -> &mut Self {
            self.code.extend_from_slice(bytes);
            self
        }

        fn label(&mut self, name: &'static str) -> &mut Self {
            self.labels.insert(name, START + self.code.len() as u64);
            self
        }

        /// `jmp` (`&[0xE9]`), `je` (`&[0x0F, 0x84]`), `jne` (`&[0x0F, 0x85]`) to a label.
        fn jump(&mut self, opcode: &[u8], to: &'static str) -> &mut Self {
            self.code.extend_from_slice(opcode);
            self.fixups.push((self.code.len(), to));
            self.raw(&[0; 4])
        }

        fn jmp(&mut self, to: &'static str) -> &mut Self {
            self.jump(&[0xE9], to)
        }

        fn je(&mut self, to: &'static str) -> &mut Self {
            self.jump(&[0x0F, 0x84], to)
        }

        fn jne(&mut self, to: &'static str) -> &mut Self {
            self.jump(&[0x0F, 0x85], to)
        }

        fn call(&mut self, target: u64) -> &mut Self {
            let next = START + self.code.len() as u64 + 5;
            self.code.push(0xE8);
            let rel = target.wrapping_sub(next) as i32;
            self.code.extend_from_slice(&rel.to_le_bytes());
            self
        }

        /// `nop`: stands for a block's counter.
        fn counter(&mut self) -> &mut Self {
            self.raw(&[0x90])
        }

        /// The debug build's test of the 8-byte slot at `[rsp+0x10]` against `NICHE` (seed
        /// shape from `check_content`): spilled through `[rsp+8]` around the comparison hook,
        /// a `cmove` boolean in `rax`, then `test $1,%rax`; ZF is set when the slot differs.
        fn test_slot(&mut self, hook: u64) -> &mut Self {
            self.raw(&[0x48, 0x8B, 0x74, 0x24, 0x10]) // mov 0x10(%rsp),%rsi
                .raw(&[0x48, 0x89, 0x74, 0x24, 0x08]) // mov %rsi,0x8(%rsp)
                .raw(&[0x48, 0xBF]) // movabs $NICHE,%rdi
                .raw(&NICHE)
                .call(hook)
                .raw(&[0x48, 0x8B, 0x54, 0x24, 0x08]) // mov 0x8(%rsp),%rdx
                .raw(&[0x48, 0xBE]) // movabs $NICHE,%rsi
                .raw(&NICHE)
                .raw(&[0x31, 0xC0]) // xor %eax,%eax
                .raw(&[0xB9, 0x01, 0x00, 0x00, 0x00]) // mov $1,%ecx
                .raw(&[0x48, 0x39, 0xF2]) // cmp %rsi,%rdx
                .raw(&[0x48, 0x0F, 0x44, 0xC1]) // cmove %rcx,%rax
                .raw(&[0x48, 0xA9, 0x01, 0x00, 0x00, 0x00]) // test $1,%rax
        }

        fn prologue(&mut self) -> &mut Self {
            self.raw(&[0x48, 0x83, 0xEC, 0x48]) // sub $0x48,%rsp
        }

        fn epilogue(&mut self) -> &mut Self {
            self.label("end")
                .raw(&[0x48, 0x83, 0xC4, 0x48]) // add $0x48,%rsp
                .raw(&[0xC3]) // ret
        }

        fn assemble(&mut self) -> (Vec<u8>, HashMap<&'static str, u64>) {
            for &(at, to) in &self.fixups {
                let next = START + at as u64 + 4;
                let rel = self.labels[to].wrapping_sub(next) as i32;
                self.code[at..at + 4].copy_from_slice(&rel.to_le_bytes());
            }
            (self.code.clone(), self.labels.clone())
        }
    }

    /// Which of the labels are dead.
    fn dead(asm: &mut Asm, pads: &[&str]) -> Vec<&'static str> {
        let (code, labels) = asm.assemble();
        let pads: Vec<u64> = pads.iter().map(|p| labels[p]).collect();
        let dead = dead_code(&code, START, &pads, &[HOOK]).expect("a proof");
        let mut names: Vec<&str> = labels
            .iter()
            .filter(|(_, &at)| dead.contains(at))
            .map(|(&name, _)| name)
            .collect();
        names.sort_unstable();
        names
    }

    /// `let Ok(text) = read_to_string(..) else { return }` and the drops after it: each path
    /// tests the discriminant again, and one way of each re-test contradicts the first test.
    /// `between` runs on the `Ok` path before its re-test.
    fn retest(between: impl FnOnce(&mut Asm)) -> Asm {
        let mut a = Asm::default();
        a.prologue().call(OTHER).test_slot(HOOK).je("ok");
        // Err: the slot is NICHE.
        a.label("err").test_slot(HOOK).jne("err_live");
        a.label("err_dead").counter().jmp("end");
        a.label("err_live").counter().jmp("end");
        // Ok: the slot is not NICHE. The debug build copies the value out first.
        a.label("ok").raw(&[0x48, 0x89, 0x44, 0x24, 0x28]); // mov %rax,0x28(%rsp)
        between(&mut a);
        a.test_slot(HOOK).jne("ok_dead");
        a.label("ok_live").counter().jmp("end");
        a.label("ok_dead").counter().call(OTHER).jmp("ok_dropped");
        a.label("ok_dropped").counter().jmp("end");
        a.epilogue();
        a
    }

    #[test]
    fn a_re_test_that_contradicts_the_first_test_is_dead() {
        assert_eq!(
            dead(&mut retest(|_| {}), &[]),
            ["err_dead", "ok_dead", "ok_dropped"]
        );
    }

    #[test]
    fn a_store_to_the_slot_between_the_tests_keeps_the_re_test_live() {
        // mov %eax,0x14(%rsp): 4 bytes inside the 8-byte slot at 0x10.
        let mut asm = retest(|a| {
            a.raw(&[0x89, 0x44, 0x24, 0x14]);
        });
        assert_eq!(dead(&mut asm, &[]), ["err_dead"]);
        // lea 0x10(%rsp),%rdi; mov %rax,(%rdi): the same slot through a register.
        let mut asm = retest(|a| {
            a.raw(&[0x48, 0x8D, 0x7C, 0x24, 0x10])
                .raw(&[0x48, 0x89, 0x07]);
        });
        assert_eq!(dead(&mut asm, &[]), ["err_dead"]);
    }

    #[test]
    fn stores_that_may_reach_the_slot_keep_the_re_test_live() {
        for store in [
            &[0x48, 0x89, 0x07][..],   // mov %rax,(%rdi): an unknown pointer
            &[0x48, 0x89, 0x45, 0xF8], // mov %rax,-0x8(%rbp): another base
            &[0x50, 0x58],             // push %rax; pop %rax: rsp moves
            &[0xF3, 0x48, 0xAB],       // rep stos %rax,(%rdi)
        ] {
            let mut asm = retest(|a| {
                a.raw(store);
            });
            assert_eq!(dead(&mut asm, &[]), ["err_dead"], "{store:02x?}");
        }
    }

    #[test]
    fn a_store_beside_the_slot_keeps_the_proof() {
        // mov %rax,0x18(%rsp): the next 8 bytes.
        let mut asm = retest(|a| {
            a.raw(&[0x48, 0x89, 0x44, 0x24, 0x18]);
        });
        assert_eq!(dead(&mut asm, &[]), ["err_dead", "ok_dead", "ok_dropped"]);
    }

    #[test]
    fn a_call_between_the_tests_keeps_the_re_test_live() {
        let mut asm = retest(|a| {
            a.call(OTHER);
        });
        assert_eq!(dead(&mut asm, &[]), ["err_dead"]);
        // call *%rax
        let mut asm = retest(|a| {
            a.raw(&[0xFF, 0xD0]);
        });
        assert_eq!(dead(&mut asm, &[]), ["err_dead"]);
    }

    #[test]
    fn a_call_to_a_comparison_hook_between_the_tests_keeps_the_proof() {
        let mut asm = retest(|a| {
            a.call(HOOK);
        });
        assert_eq!(dead(&mut asm, &[]), ["err_dead", "ok_dead", "ok_dropped"]);
    }

    #[test]
    fn a_merge_keeps_only_the_facts_of_every_incoming_edge() {
        // One path to `join` knows the slot is not NICHE, the other that it is.
        let mut a = Asm::default();
        a.prologue().call(OTHER).test_slot(HOOK).je("differs");
        a.label("same").counter().jmp("join");
        a.label("differs").counter().jmp("join");
        a.label("join").test_slot(HOOK).jne("is_niche");
        a.label("not_niche").counter().jmp("end");
        a.label("is_niche").counter().jmp("end");
        a.epilogue();
        assert!(dead(&mut a, &[]).is_empty());

        // Both paths to `join` know it is not NICHE (another test between).
        let mut a = Asm::default();
        a.prologue().call(OTHER).test_slot(HOOK).je("differs");
        a.label("same").counter().jmp("end");
        a.label("differs")
            .raw(&[0x8A, 0x44, 0x24, 0x30]) // mov 0x30(%rsp),%al
            .raw(&[0xA8, 0x01]) // test $1,%al
            .je("flag_clear");
        a.label("flag_set").counter().jmp("join");
        a.label("flag_clear").counter().jmp("join");
        a.label("join").test_slot(HOOK).jne("is_niche");
        a.label("not_niche").counter().jmp("end");
        a.label("is_niche").counter().jmp("end");
        a.epilogue();
        assert_eq!(dead(&mut a, &[]), ["is_niche"]);
    }

    #[test]
    fn a_landing_pad_is_an_entry_without_facts() {
        // The dead block is also a landing pad: it runs when a call unwinds.
        assert_eq!(dead(&mut retest(|_| {}), &["ok_dead"]), ["err_dead"]);
        // A pad that tests the slot: both ways are live, the pad knows nothing.
        let mut a = retest(|_| {});
        a.label("pad").test_slot(HOOK).jne("pad_niche");
        a.label("pad_other").counter().raw(&[0x0F, 0x0B]); // ud2
        a.label("pad_niche").counter().raw(&[0x0F, 0x0B]);
        assert_eq!(
            dead(&mut a, &["pad"]),
            ["err_dead", "ok_dead", "ok_dropped"]
        );
    }

    #[test]
    fn constant_stores_and_constant_tests_decide_branches() {
        // A drop flag cleared, then tested: the drop never runs.
        let mut a = Asm::default();
        a.prologue()
            .raw(&[0xC6, 0x44, 0x24, 0x20, 0x00]) // movb $0,0x20(%rsp)
            .raw(&[0x8A, 0x44, 0x24, 0x20]) // mov 0x20(%rsp),%al
            .raw(&[0xA8, 0x01]) // test $1,%al
            .jne("drop");
        a.label("keep").counter().jmp("check");
        a.label("drop").counter().call(OTHER).jmp("check");
        // `x / 1460` cannot overflow: the debug build's `(x == MIN) & false`.
        a.label("check")
            .raw(&[0x48, 0x8B, 0x44, 0x24, 0x10]) // mov 0x10(%rsp),%rax
            .raw(&[0x48, 0x39, 0xC8]) // cmp %rcx,%rax
            .raw(&[0x0F, 0x94, 0xC0]) // sete %al
            .raw(&[0x24, 0x00]) // and $0,%al
            .raw(&[0xA8, 0x01]) // test $1,%al
            .jne("overflow");
        a.label("divide").counter().jmp("end");
        a.label("overflow").counter().call(OTHER).raw(&[0x0F, 0x0B]); // ud2
        a.epilogue();
        assert_eq!(dead(&mut a, &[]), ["drop", "overflow"]);
    }

    #[test]
    fn a_sete_boolean_spilled_and_tested_again() {
        // b = slot == 5 (8 bytes at 0x10); if b {..}; the same test again.
        let mut a = Asm::default();
        let compare = |a: &mut Asm| {
            a.raw(&[0x48, 0x83, 0x7C, 0x24, 0x10, 0x05]) // cmpq $5,0x10(%rsp)
                .raw(&[0x0F, 0x94, 0xC0]) // sete %al
                .raw(&[0x24, 0x01]) // and $1,%al
                .raw(&[0x88, 0x44, 0x24, 0x20]) // mov %al,0x20(%rsp)
                .raw(&[0x8A, 0x44, 0x24, 0x20]) // mov 0x20(%rsp),%al
                .raw(&[0xA8, 0x01]); // test $1,%al
        };
        a.prologue().call(OTHER);
        compare(&mut a);
        a.jne("five");
        a.label("other").counter().jmp("end");
        a.label("five").counter();
        compare(&mut a);
        a.je("contradiction");
        a.label("still_five").counter().jmp("end");
        a.label("contradiction").counter().jmp("end");
        a.epilogue();
        assert_eq!(dead(&mut a, &[]), ["contradiction"]);
    }

    #[test]
    fn gives_up_on_what_it_cannot_follow() {
        let give_up = |a: &mut Asm, pads: &[u64]| {
            let (code, _) = a.assemble();
            dead_code(&code, START, pads, &[HOOK]).err()
        };
        // jmp *%rax: a jump table's targets are unknown entries.
        let mut a = retest(|a| {
            a.raw(&[0xFF, 0xE0]);
        });
        assert_eq!(give_up(&mut a, &[]), Some(GaveUp::IndirectJump));
        // Code that no entry reaches and that leads into reached code: an entry we do not
        // know of (a landing pad missing from the tables), which brings no facts.
        let mut a = retest(|_| {});
        a.label("orphan").counter().jmp("ok_dead");
        assert_eq!(give_up(&mut a, &[]), Some(GaveUp::Unreached));
        // ... unless it leads nowhere else: padding, or a trap left without predecessors.
        let mut a = retest(|_| {});
        a.label("orphan")
            .counter()
            .raw(&[0x0F, 0x0B, 0xCC, 0xCC, 0x90]);
        assert_eq!(dead(&mut a, &[]), ["err_dead", "ok_dead", "ok_dropped"]);
        // A byte that is no instruction in 64-bit mode (`push %es`).
        let mut a = retest(|_| {});
        a.raw(&[0x06]);
        assert_eq!(give_up(&mut a, &[]), Some(GaveUp::Undecodable));
        // A landing pad inside an instruction.
        let mut a = retest(|_| {});
        assert_eq!(give_up(&mut a, &[START + 1]), Some(GaveUp::StrayTarget));
    }
}

/// A stress test and a timing on a real executable, every function of it (the standard
/// library's optimised code included):
/// `HERMETIC_PROVE=<driver executable> cargo test -p cargo-hermetic --bin cargo-hermetic
/// prove_every_function -- --ignored --nocapture`.
#[cfg(test)]
mod on_an_executable {
    use super::*;

    #[test]
    #[ignore]
    fn prove_every_function() {
        let Some(path) = std::env::var_os("HERMETIC_PROVE") else {
            return;
        };
        let data = std::fs::read(path).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let pads = super::super::cleanup::landing_pads(&file);
        let prover = Prover::new(&file, &pads);
        let functions: Vec<(u64, u64, String)> = file
            .symbols()
            .filter(|s| s.kind() == SymbolKind::Text && s.size() > 0)
            .map(|s| (s.address(), s.size(), s.name().unwrap_or("").to_string()))
            .collect();
        let started = std::time::Instant::now();
        let mut gave_up: std::collections::BTreeMap<String, usize> = Default::default();
        let (mut proven, mut dead) = (0, 0);
        for (start, size, name) in &functions {
            match prover.prove(*start, *size) {
                Ok(d) => {
                    proven += 1;
                    dead += d.instructions.len();
                    if let Some(first) = d.instructions.first() {
                        let name = rustc_demangle::demangle(name);
                        eprintln!("dead: {first:#x} ({}) in {name:#}", d.instructions.len());
                    }
                }
                Err(why) => *gave_up.entry(format!("{why:?}")).or_default() += 1,
            }
        }
        eprintln!(
            "{} functions in {:.1} ms: {proven} proven ({dead} dead instructions), gave up {gave_up:?}",
            functions.len(),
            started.elapsed().as_secs_f64() * 1e3
        );
    }
}
