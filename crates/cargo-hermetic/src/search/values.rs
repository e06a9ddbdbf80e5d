//! Values for arguments: drawn at random by type, from constants found in the source, and from
//! the operands the code compared against at run time; and small mutations of them.
//!
//! A range's genes are its two bounds, drawn equal, near or apart in either order, and for `impl
//! RangeBounds<T>` (`RangeKind::Bounds`) which bounds it has and whether its end is inclusive. A
//! `u128`'s upper half is drawn and mutated apart, since `Value::Int` stops at `i128::MAX`.

use crate::cluster::{FloatTy, IntTy, Literals, RangeKind, StdTy, Ty};
use hermetic_protocol::Value;
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;

/// Constants worth trying, growing as executions report what the code compared against.
#[derive(Debug, Default, Clone)]
pub struct ValuePool {
    ints: BTreeSet<i128>,
    floats: Vec<f64>,
    strings: BTreeSet<String>,
    chars: BTreeSet<char>,
    /// Insertion order of ints and strings, so draws favour neither old nor new entries by
    /// accident of sorting.
    int_list: Vec<i128>,
    string_list: Vec<String>,
    /// Integers written in the source: few, and the likeliest to matter.
    source_ints: Vec<i128>,
    /// Strings written in the source (no format strings), for the tokens of structured text.
    source_strings: Vec<String>,
    /// What the source splits or matches text on: the punctuation and blanks among its char
    /// literals and short string literals (`=`, `:`, `#`, `<`), and the line break and blank
    /// that `lines()` and `split_whitespace()` imply.
    separators: Vec<String>,
    /// The source's strings of each module (by path), format strings left out.
    module_strings: std::collections::BTreeMap<Vec<String>, Vec<String>>,
    /// The separators of each module (by path), found as `separators` in its own literals.
    module_separators: std::collections::BTreeMap<Vec<String>, Vec<String>>,
    /// The modules whose code reads digits out of text (`Literals::digit_modules`).
    digit_modules: BTreeSet<Vec<String>>,
    /// The modules whose code reads text a line at a time (`Literals::line_modules`).
    line_modules: BTreeSet<Vec<String>>,
    /// The modules whose code reads text out of bytes (`Literals::text_byte_modules`).
    text_byte_modules: BTreeSet<Vec<String>>,
    /// The lengths (in chars) of the source's strings, each once.
    source_lens: Vec<usize>,
    /// Paths the code opened or checked in its environment, and known strings that look like
    /// paths: for path arguments.
    paths: BTreeSet<String>,
    path_list: Vec<String>,
}

/// Paths a person would pass, for path arguments before the code has shown which it uses.
const COMMON_PATHS: [&str; 8] = [
    "/etc/app.conf",
    "config.toml",
    "data/input.txt",
    "notes.md",
    "/tmp",
    "",
    "/",
    "../outside",
];

const MAX_POOL: usize = 4096;

impl ValuePool {
    pub fn from_literals(lits: &Literals) -> ValuePool {
        let mut pool = ValuePool::default();
        for &i in &lits.ints {
            pool.add_int(i);
        }
        pool.source_ints = lits.ints.clone();
        pool.floats = lits.floats.clone();
        // Format strings (`"{} = {}"`) make poor values and unreadable tests.
        for s in lits.strings.iter().filter(|s| !is_format_string(s)) {
            pool.add_string(s.clone());
        }
        pool.source_strings = pool.string_list.clone();
        // A letter or digit the code looks for (`split_once('T')`, in the standard library
        // where no comparison shows it) is a word of the module too.
        pool.module_strings = lits
            .module_strings
            .iter()
            .map(|(m, strings)| {
                let kept = strings.iter().filter(|s| !is_format_string(s)).cloned();
                let chars = lits.module_chars.get(m).into_iter().flatten();
                let letters = chars.filter(|c| c.is_alphanumeric()).map(char::to_string);
                let words: BTreeSet<String> = kept.chain(letters).collect();
                (m.clone(), words.into_iter().collect())
            })
            .collect();
        let lens: BTreeSet<usize> = pool
            .source_strings
            .iter()
            .map(|s| s.chars().count())
            .collect();
        pool.source_lens = lens.into_iter().filter(|&n| n > 0).collect();
        pool.chars.extend(lits.chars.iter().copied());
        for s in &lits.strings {
            pool.chars.extend(s.chars().take(8));
        }
        pool.digit_modules = lits.digit_modules.clone();
        pool.line_modules = lits.line_modules.clone();
        pool.text_byte_modules = lits.text_byte_modules.clone();
        pool.separators = separators(&lits.chars, &lits.strings);
        pool.module_separators = lits
            .module_chars
            .iter()
            .map(|(m, chars)| {
                let strings = lits.module_strings.get(m).map_or(&[][..], Vec::as_slice);
                (m.clone(), separators(chars, strings))
            })
            .collect();
        pool
    }

    pub fn add_int(&mut self, i: i128) {
        if self.int_list.len() < MAX_POOL && self.ints.insert(i) {
            self.int_list.push(i);
        }
    }

    pub fn add_string(&mut self, s: String) {
        if looks_like_path(&s) {
            self.add_path(s.clone());
        }
        if self.string_list.len() < MAX_POOL && self.strings.insert(s.clone()) {
            self.string_list.push(s);
        }
    }

    /// A path worth passing: one the code opened or checked, or compared.
    pub fn add_path(&mut self, p: String) {
        if self.path_list.len() < MAX_POOL && self.paths.insert(p.clone()) {
            self.path_list.push(p);
        }
    }

    /// The known strings: the source's literals and what the code compared.
    pub fn known_strings(&self) -> &[String] {
        &self.string_list
    }

    /// The strings written in the source (format strings aside).
    pub fn source_strings(&self) -> &[String] {
        &self.source_strings
    }

    /// The strings written in module `path` (format strings aside).
    pub fn module_strings(&self, path: &[String]) -> &[String] {
        self.module_strings.get(path).map_or(&[], Vec::as_slice)
    }

    /// What module `path` splits or matches text on (as the field `separators`, from its own
    /// literals; the crate's when the module is not known).
    pub fn module_separators(&self, path: &[String]) -> &[String] {
        self.module_separators
            .get(path)
            .map_or(&self.separators, Vec::as_slice)
    }

    /// Whether the code of module `path` reads digits out of text.
    pub fn module_reads_digits(&self, path: &[String]) -> bool {
        self.digit_modules.contains(path)
    }

    /// Whether the code of the module at `path` reads text a line at a time.
    pub fn module_reads_lines(&self, path: &[String]) -> bool {
        self.line_modules.contains(path)
    }

    /// Whether the code of the module at `path` reads text out of bytes.
    pub fn module_reads_text_bytes(&self, path: &[String]) -> bool {
        self.text_byte_modules.contains(path)
    }

    /// The line break of the source's texts: `\r\n` where it holds that separator (HTTP, SMTP),
    /// else `\n`.
    pub fn line_break(&self) -> &'static str {
        line_break_of(&self.separators)
    }

    /// [`ValuePool::line_break`] of the module at `path` alone.
    pub fn module_line_break(&self, path: &[String]) -> &'static str {
        line_break_of(self.module_separators(path))
    }

    /// Bytes for code that reads text out of them (`from_utf8`): mostly a string as
    /// [`random_value`] draws one, else as it draws bytes.
    pub fn random_text_bytes(&self, rng: &mut ChaCha8Rng, ty: &Ty) -> Value {
        if rng.gen_bool(0.7) {
            bytes_of(&random_string(rng, self))
        } else {
            random_value(rng, self, ty, 0)
        }
    }

    /// Bytes that hold text, for code that reads text out of them: half the time changed as
    /// text (a word of the source in place of another, not a byte in place of a byte), else as
    /// [`mutate_value`] changes bytes.
    pub fn mutate_text_bytes(&self, rng: &mut ChaCha8Rng, ty: &Ty, v: &Value) -> Value {
        match v {
            Value::Seq(items) => match text_of(items) {
                Some(text) if rng.gen_bool(0.5) => bytes_of(&mutate_string(rng, self, &text)),
                _ => mutate_value(rng, self, ty, v),
            },
            _ => mutate_value(rng, self, ty, v),
        }
    }

    /// A known integer, if there is one.
    pub fn random_int(&self, rng: &mut ChaCha8Rng) -> Option<i128> {
        self.int_list.choose(rng).copied()
    }

    /// A string drawn as for a `&str` argument.
    pub fn random_string(&self, rng: &mut ChaCha8Rng) -> String {
        random_string(rng, self)
    }

    /// Whether the source shows text with structure: known strings, and a separator of its
    /// own beyond the line break and blank every text has. Code without one (a password
    /// check) gets plain literals, undiluted.
    fn has_structure(&self) -> bool {
        !self.string_list.is_empty() && self.separators.iter().any(|s| s != "\n" && s != " ")
    }

    /// A small change to a string.
    pub fn mutate_string(&self, rng: &mut ChaCha8Rng, s: &str) -> String {
        mutate_string(rng, self, s)
    }

    /// Learns from an execution's comparisons.
    pub fn learn(&mut self, ints: &[u64], bytes: &[Vec<u8>]) {
        for &v in ints {
            self.add_int(v as i128);
            // A 64-bit operand may be a negative number of a narrower type.
            self.add_int(v as i64 as i128);
            self.add_int(v as i32 as i128);
        }
        for b in bytes {
            if let Ok(s) = std::str::from_utf8(b) {
                self.add_string(s.to_string());
            }
        }
    }
}

/// The separators among `chars` and `strings` (see `ValuePool::separators`), in order.
fn separators(chars: &[char], strings: &[String]) -> Vec<String> {
    let separating = |s: &str| !s.is_empty() && s.chars().all(|c| !c.is_alphanumeric());
    let mut separators: BTreeSet<String> = ["\n", " "].map(String::from).into();
    separators.extend(
        chars
            .iter()
            .map(|c| c.to_string())
            .filter(|s| separating(s)),
    );
    separators.extend(
        strings
            .iter()
            .filter(|s| s.chars().count() <= 2 && separating(s))
            .cloned(),
    );
    separators.into_iter().collect()
}

/// Whether a string reads as a file path: it has a separator, or a short extension.
fn looks_like_path(s: &str) -> bool {
    let ext = s
        .rsplit_once('.')
        .is_some_and(|(stem, ext)| !stem.is_empty() && (1..=4).contains(&ext.len()));
    !s.contains(char::is_whitespace) && (s.contains('/') || ext) && s.len() <= 128
}

fn is_format_string(s: &str) -> bool {
    let bytes = s.as_bytes();
    bytes
        .windows(2)
        .any(|w| w[0] == b'{' && (w[1] == b'}' || w[1] == b':' || w[1].is_ascii_alphanumeric()))
        && s.contains('}')
}

/// Draws a value of a type that is built from data (not from an earlier statement).
pub fn random_value(rng: &mut ChaCha8Rng, pool: &ValuePool, ty: &Ty, depth: usize) -> Value {
    match ty {
        Ty::Unit => Value::Unit,
        Ty::Bool => Value::Bool(rng.gen()),
        Ty::Char => Value::Char(random_char(rng, pool)),
        Ty::Ordering => Value::Int(rng.gen_range(-1..=1)),
        // `Int` stops at `i128::MAX`: the upper half of `u128` is drawn apart.
        Ty::Int(IntTy::U128) if rng.gen_bool(0.2) => Value::uint(random_big_u128(rng)),
        Ty::Int(t) => Value::Int(random_int(rng, pool, *t)),
        Ty::Range(e, kind) => random_range(rng, pool, e, *kind, depth),
        Ty::Float(t) => Value::float(random_float(rng, pool, *t)),
        Ty::String | Ty::Str | Ty::Reader => Value::Str(random_string(rng, pool)),
        Ty::Std(kind, args) => random_std(rng, pool, *kind, args, depth),
        // Bytes are often text the code parses (`parse(s: &[u8])`): now and then a known
        // string's bytes.
        Ty::Vec(e) | Ty::Slice(e) | Ty::IntoIter(e)
            if **e == Ty::Int(IntTy::U8) && !pool.string_list.is_empty() && rng.gen_bool(0.3) =>
        {
            bytes_of(&random_string(rng, pool))
        }
        Ty::Vec(e) | Ty::Slice(e) | Ty::IntoIter(e) => {
            let len = if depth > 2 { 0 } else { small_len(rng) };
            Value::Seq(
                (0..len)
                    .map(|_| random_value(rng, pool, e, depth + 1))
                    .collect(),
            )
        }
        Ty::Array(e, n) => Value::Seq(
            (0..*n)
                .map(|_| random_value(rng, pool, e, depth + 1))
                .collect(),
        ),
        Ty::Tuple(items) => Value::Tuple(
            items
                .iter()
                .map(|t| random_value(rng, pool, t, depth + 1))
                .collect(),
        ),
        Ty::Option(e) => {
            if rng.gen_bool(0.2) || depth > 3 {
                Value::Opt(None)
            } else {
                Value::Opt(Some(Box::new(random_value(rng, pool, e, depth + 1))))
            }
        }
        Ty::Result(o, e) => {
            if rng.gen_bool(0.5) {
                Value::Ok(Box::new(random_value(rng, pool, o, depth + 1)))
            } else {
                Value::Err(Box::new(random_value(rng, pool, e, depth + 1)))
            }
        }
        // A closure's value is what it returns.
        Ty::Box(e) | Ty::Ref(e) | Ty::RefMut(e) | Ty::Closure(_, e) => {
            random_value(rng, pool, e, depth)
        }
        // Crate types come from statements; the generator never asks for them here.
        Ty::Adt(..) | Ty::Mock(_) => Value::Unit,
        Ty::IoError => Value::Str(IO_ERROR_KINDS.choose(rng).expect("non-empty").to_string()),
    }
}

/// The kinds of I/O error an argument is drawn from: those code tells apart most, first
/// (the driver's `Decode for io::Error` reads the same names).
pub const IO_ERROR_KINDS: [&str; 12] = [
    "NotFound",
    "PermissionDenied",
    "AlreadyExists",
    "InvalidInput",
    "InvalidData",
    "UnexpectedEof",
    "Interrupted",
    "WouldBlock",
    "TimedOut",
    "BrokenPipe",
    "Unsupported",
    "Other",
];

/// A value of a std type outside the prelude.
fn random_std(
    rng: &mut ChaCha8Rng,
    pool: &ValuePool,
    kind: StdTy,
    args: &[Ty],
    depth: usize,
) -> Value {
    if let Some(form) = kind.value_form(args) {
        return random_value(rng, pool, &form, depth);
    }
    match kind {
        k if k.is_path() => Value::Str(random_path(rng, pool)),
        StdTy::Duration => Value::Int(random_duration(rng, pool)),
        StdTy::SystemTime => Value::Int(random_time(rng, pool)),
        StdTy::OsString | StdTy::OsStrRef => Value::Str(random_string(rng, pool)),
        _ => Value::Str(random_string(rng, pool)),
    }
}

const NANOS_PER_SEC: i128 = 1_000_000_000;

/// Durations a person would pass: none, a blink, a second, a minute, an hour, a day, and the
/// largest there is.
const COMMON_DURATIONS: [i128; 9] = [
    0,
    1,
    NANOS_PER_SEC / 1000,
    NANOS_PER_SEC / 10,
    NANOS_PER_SEC,
    30 * NANOS_PER_SEC,
    60 * NANOS_PER_SEC,
    3600 * NANOS_PER_SEC,
    86_400 * NANOS_PER_SEC,
];

/// The most nanoseconds a `Duration` holds (`Duration::MAX`).
const MAX_DURATION: i128 = (u64::MAX as i128 + 1) * NANOS_PER_SEC - 1;

/// The furthest from the epoch a time is drawn or moved: `SystemTime` holds seconds as an
/// `i64` on Unix, and a test adds a `Duration` to the epoch to write one.
const MAX_TIME: i128 = i64::MAX as i128 * NANOS_PER_SEC;

/// A duration in nanoseconds: a common one, or a number the source wrote or the code
/// compared, read as seconds, milliseconds or nanoseconds (`Duration::from_secs(30)` shows
/// `30`; comparing durations compares their seconds and their nanoseconds).
fn random_duration(rng: &mut ChaCha8Rng, pool: &ValuePool) -> i128 {
    let unit = *[NANOS_PER_SEC, NANOS_PER_SEC / 1000, 1]
        .choose(rng)
        .expect("non-empty");
    let known = |rng: &mut ChaCha8Rng| {
        let list = if !pool.source_ints.is_empty() && rng.gen_bool(0.5) {
            &pool.source_ints
        } else {
            &pool.int_list
        };
        list.choose(rng).copied()
    };
    let d = match rng.gen_range(0..10) {
        0..=3 => known(rng).map(|n| n.saturating_mul(unit)),
        4..=6 => COMMON_DURATIONS.choose(rng).copied(),
        7 => Some(MAX_DURATION),
        _ => Some(rng.gen_range(0..100_000) * unit),
    };
    d.unwrap_or(NANOS_PER_SEC).clamp(0, MAX_DURATION)
}

/// A time in nanoseconds from the epoch: the test environment's clock (when the code compares
/// with `now`) or near it, the epoch, a moment before it, or a number the code showed read as
/// seconds from the epoch.
fn random_time(rng: &mut ChaCha8Rng, pool: &ValuePool) -> i128 {
    let now = crate::search::env::DEFAULT_NOW as i128 * NANOS_PER_SEC;
    let t = match rng.gen_range(0..10) {
        0..=3 => {
            let back = COMMON_DURATIONS.choose(rng).expect("non-empty");
            if rng.gen_bool(0.7) {
                now - back
            } else {
                now + back
            }
        }
        4 => now,
        5 => 0,
        6 => -NANOS_PER_SEC,
        7 | 8 => pool
            .random_int(rng)
            .map_or(now, |n| n.saturating_mul(NANOS_PER_SEC)),
        _ => rng.gen_range(0..4_000_000_000) * NANOS_PER_SEC,
    };
    t.clamp(-MAX_TIME, MAX_TIME)
}

/// A small change to a time or duration (nanoseconds): a unit of time more or less, twice or
/// half as long, or whole seconds only.
fn mutate_nanos(rng: &mut ChaCha8Rng, n: i128, lo: i128, hi: i128) -> i128 {
    let step = *[
        1,
        NANOS_PER_SEC / 1000,
        NANOS_PER_SEC,
        60 * NANOS_PER_SEC,
        86_400 * NANOS_PER_SEC,
    ]
    .choose(rng)
    .expect("non-empty");
    let moved = match rng.gen_range(0..5) {
        0 => n.saturating_add(step),
        1 => n.saturating_sub(step),
        2 => n.saturating_mul(2),
        3 => n / 2,
        _ => n - n % NANOS_PER_SEC,
    };
    moved.clamp(lo, hi)
}

fn small_len(rng: &mut ChaCha8Rng) -> usize {
    *[0usize, 1, 1, 2, 2, 3, 4, 6]
        .choose(rng)
        .expect("non-empty")
}

pub fn int_range(t: IntTy) -> (i128, i128) {
    match t {
        IntTy::I8 => (i8::MIN as i128, i8::MAX as i128),
        IntTy::I16 => (i16::MIN as i128, i16::MAX as i128),
        IntTy::I32 => (i32::MIN as i128, i32::MAX as i128),
        IntTy::I64 | IntTy::Isize => (i64::MIN as i128, i64::MAX as i128),
        IntTy::I128 => (i128::MIN, i128::MAX),
        IntTy::U8 => (0, u8::MAX as i128),
        IntTy::U16 => (0, u16::MAX as i128),
        IntTy::U32 => (0, u32::MAX as i128),
        IntTy::U64 | IntTy::Usize => (0, u64::MAX as i128),
        IntTy::U128 => (0, i128::MAX),
    }
}

fn random_int(rng: &mut ChaCha8Rng, pool: &ValuePool, t: IntTy) -> i128 {
    let (lo, hi) = int_range(t);
    let fits = |v: i128| v >= lo && v <= hi;
    let roll = rng.gen_range(0..10);
    if roll < 4 && !pool.int_list.is_empty() {
        let list = if !pool.source_ints.is_empty() && rng.gen_bool(0.5) {
            &pool.source_ints
        } else {
            &pool.int_list
        };
        let v = *list.choose(rng).expect("non-empty");
        let v = match rng.gen_range(0..6) {
            0 => v.saturating_add(1),
            1 => v.saturating_sub(1),
            _ => v,
        };
        if fits(v) {
            return v;
        }
    }
    match roll {
        0..=5 => rng.gen_range(lo.max(-10)..=hi.min(10)),
        6 | 7 => *[lo, hi, 0, 1, lo.max(-1)].choose(rng).expect("non-empty"),
        _ => {
            // Uniform over the type's range, by bits (i128 ranges overflow gen_range's span).
            let bits = rng.gen::<u128>();
            let span = (hi as u128).wrapping_sub(lo as u128);
            if span == u128::MAX {
                bits as i128
            } else {
                lo.wrapping_add((bits % (span + 1)) as i128)
            }
        }
    }
}

/// A `u128` above `i128::MAX` (the edge values, or random bits with the top one set).
fn random_big_u128(rng: &mut ChaCha8Rng) -> u128 {
    match rng.gen_range(0..4) {
        0 => u128::MAX,
        1 => u128::MAX - 1,
        2 => 1 << 127,
        _ => rng.gen::<u128>() | 1 << 127,
    }
}

/// A small change to a `u128`, over its whole range.
fn mutate_u128(rng: &mut ChaCha8Rng, u: u128) -> u128 {
    match rng.gen_range(0..3) {
        0 => u.wrapping_add(*[1u128, 2, 10, 100].choose(rng).expect("non-empty")),
        1 => u.wrapping_sub(*[1u128, 2, 10, 100].choose(rng).expect("non-empty")),
        _ => u ^ 1 << rng.gen_range(0..128),
    }
}

/// A range's bounds: the same value (an empty `a..a`), a value near the start, or another
/// draw, in whichever order they come, so reversed ranges are drawn as often as ordered ones
/// and code's checks of empty or reversed ranges are reached. For `impl RangeBounds` each
/// bound may be left out and the end is inclusive or not.
fn random_range(
    rng: &mut ChaCha8Rng,
    pool: &ValuePool,
    elem: &Ty,
    kind: RangeKind,
    depth: usize,
) -> Value {
    let start = random_value(rng, pool, elem, depth + 1);
    let end = match rng.gen_range(0..3) {
        0 => start.clone(),
        1 => mutate_value(rng, pool, elem, &start),
        _ => random_value(rng, pool, elem, depth + 1),
    };
    let (has_start, has_end, inclusive) = match kind {
        RangeKind::HalfOpen => (true, true, false),
        RangeKind::Inclusive => (true, true, true),
        RangeKind::Bounds => (rng.gen_bool(0.8), rng.gen_bool(0.8), rng.gen()),
    };
    Value::Range {
        start: has_start.then(|| Box::new(start)),
        end: has_end.then(|| Box::new(end)),
        inclusive,
    }
}

/// A small change to a range: its bounds swapped, one bound changed, or (for
/// `impl RangeBounds`) another form: a bound left out or put back, the end made inclusive or not.
fn mutate_range(
    rng: &mut ChaCha8Rng,
    pool: &ValuePool,
    elem: &Ty,
    kind: RangeKind,
    value: &Value,
) -> Value {
    let Value::Range {
        start,
        end,
        inclusive,
    } = value
    else {
        return random_range(rng, pool, elem, kind, 0);
    };
    let (mut start, mut end, mut inclusive) = (start.clone(), end.clone(), *inclusive);
    let change = |rng: &mut ChaCha8Rng, bound: &mut Option<Box<Value>>| {
        if let Some(v) = bound {
            **v = mutate_value(rng, pool, elem, v);
        }
    };
    let toggle = |rng: &mut ChaCha8Rng, bound: &mut Option<Box<Value>>| {
        *bound = match bound {
            Some(_) => None,
            None => Some(Box::new(random_value(rng, pool, elem, 1))),
        };
    };
    match rng.gen_range(0..6) {
        0 if start.is_some() && end.is_some() => std::mem::swap(&mut start, &mut end),
        0 | 1 => change(rng, &mut start),
        2 | 3 => change(rng, &mut end),
        4 if kind == RangeKind::Bounds && rng.gen() => toggle(rng, &mut start),
        4 if kind == RangeKind::Bounds => toggle(rng, &mut end),
        _ if kind == RangeKind::Bounds => inclusive = !inclusive,
        _ => change(rng, &mut end),
    }
    Value::Range {
        start,
        end,
        inclusive,
    }
}

fn random_float(rng: &mut ChaCha8Rng, pool: &ValuePool, t: FloatTy) -> f64 {
    let v = match rng.gen_range(0..10) {
        0..=2 if !pool.floats.is_empty() => *pool.floats.choose(rng).expect("non-empty"),
        0..=2 => rng.gen_range(-2.0..2.0),
        3 | 4 => rng.gen_range(-10i32..=10) as f64,
        5 => *[
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ]
        .choose(rng)
        .expect("non-empty"),
        6 if !pool.int_list.is_empty() => *pool.int_list.choose(rng).expect("non-empty") as f64,
        _ => rng.gen_range(-1000.0..1000.0),
    };
    match t {
        FloatTy::F32 => v as f32 as f64,
        FloatTy::F64 => v,
    }
}

fn random_char(rng: &mut ChaCha8Rng, pool: &ValuePool) -> char {
    if rng.gen_bool(0.4) && !pool.chars.is_empty() {
        let chars: Vec<char> = pool.chars.iter().copied().collect();
        return *chars.choose(rng).expect("non-empty");
    }
    *[
        'a', 'z', 'A', '0', '9', ' ', '_', '-', '.', '\n', 'é', '\0', 'x', 'F',
    ]
    .choose(rng)
    .expect("non-empty")
}

fn random_string(rng: &mut ChaCha8Rng, pool: &ValuePool) -> String {
    if pool.has_structure() && rng.gen_bool(0.2) {
        return structured_string(rng, pool);
    }
    let roll = rng.gen_range(0..10);
    if roll < 5 && !pool.string_list.is_empty() {
        // The source's own literals as often as everything comparisons taught: those grow to
        // thousands and would bury a key like `"rotate-logs-now"`, which no comparison shows
        // until a string of its length is passed.
        let list = if (1..=2).contains(&roll) && !pool.source_strings.is_empty() {
            &pool.source_strings
        } else {
            &pool.string_list
        };
        let s = list.choose(rng).expect("non-empty").clone();
        return if roll == 0 {
            mutate_string(rng, pool, &s)
        } else {
            s
        };
    }
    match roll {
        5 => String::new(),
        6 if !pool.int_list.is_empty() => pool.int_list.choose(rng).expect("non-empty").to_string(),
        _ => {
            let len = rng.gen_range(1..8);
            (0..len).map(|_| random_char(rng, pool)).collect()
        }
    }
}

/// Text with the structure parsers look for: one to three records (lines, or what a
/// separator of the source splits), each a token, or tokens joined by a separator of the
/// source (`name=1`, `fatal: disk`, `-l 9`); tokens are known strings (the source's literals and
/// what the code compared), numbers, or short words.
fn structured_string(rng: &mut ChaCha8Rng, pool: &ValuePool) -> String {
    let record_separator = if rng.gen_bool(0.7) {
        pool.line_break()
    } else {
        separator(rng, pool)
    };
    // Records join their tokens the same way (`a=1\nb=2`), as the code reading them expects.
    let join = separator(rng, pool);
    let records = *[1, 1, 2, 3].choose(rng).expect("non-empty");
    let mut out = String::new();
    for r in 0..records {
        if r > 0 {
            out.push_str(record_separator);
        }
        out.push_str(&token(rng, pool));
        let joins = *[0, 1, 1, 1, 2].choose(rng).expect("non-empty");
        for _ in 0..joins {
            out.push_str(if rng.gen_bool(0.8) {
                join
            } else {
                separator(rng, pool)
            });
            out.push_str(&token(rng, pool));
        }
    }
    out
}

fn separator<'p>(rng: &mut ChaCha8Rng, pool: &'p ValuePool) -> &'p str {
    pool.separators.choose(rng).map_or(" ", |s| s.as_str())
}

/// One word of structured text.
fn token(rng: &mut ChaCha8Rng, pool: &ValuePool) -> String {
    match rng.gen_range(0..8) {
        // The source's own words (keys, commands) more often than what comparisons taught.
        0..=2 if !pool.source_strings.is_empty() => {
            pool.source_strings.choose(rng).expect("non-empty").clone()
        }
        0..=4 if !pool.string_list.is_empty() => {
            pool.string_list.choose(rng).expect("non-empty").clone()
        }
        5 | 6 => match pool.int_list.choose(rng) {
            Some(i) if rng.gen_bool(0.5) => i.to_string(),
            _ => rng.gen_range(0..=10).to_string(),
        },
        _ => (0..rng.gen_range(1..5))
            .map(|_| random_char(rng, pool))
            .collect(),
    }
}

/// `s` with one word (a run of chars no separator of the source holds) replaced by a token;
/// `None` when `s` has no word.
fn replace_token(rng: &mut ChaCha8Rng, pool: &ValuePool, s: &str) -> Option<String> {
    let &(b, e) = words(pool, s).choose(rng)?;
    // Half the time one of the source's words: a key of a literal's length is what makes the
    // code compare it with that literal at all (`match key` compares lengths first).
    // Or this word at the length of one: then the code compares it with every literal of that
    // length, and the comparison's operands are spliced in (`cmp::eager`).
    let word = match rng.gen_range(0..3) {
        0 if !pool.source_strings.is_empty() => {
            pool.source_strings.choose(rng).expect("non-empty").clone()
        }
        1 if !pool.source_lens.is_empty() => {
            let len = *pool.source_lens.choose(rng).expect("non-empty");
            s[b..e]
                .chars()
                .chain(std::iter::repeat('x'))
                .take(len)
                .collect()
        }
        _ => token(rng, pool),
    };
    Some(format!("{}{word}{}", &s[..b], &s[e..]))
}

/// The byte ranges of the words of `s` (runs of chars no separator of the source holds).
fn words(pool: &ValuePool, s: &str) -> Vec<(usize, usize)> {
    let separating = |c: char| pool.separators.iter().any(|sep| sep.contains(c));
    let mut words = Vec::new();
    let mut start = None;
    // The end closes the last word.
    for (i, c) in s.char_indices().chain([(s.len(), ' ')]) {
        match (start, i == s.len() || separating(c)) {
            (None, false) => start = Some(i),
            (Some(b), true) => {
                words.push((b, i));
                start = None;
            }
            _ => {}
        }
    }
    words
}

/// `s` with one of its lines repeated after itself.
fn repeat_line(rng: &mut ChaCha8Rng, s: &str) -> String {
    let mut lines: Vec<&str> = s.split('\n').collect();
    let i = rng.gen_range(0..lines.len());
    lines.insert(i, lines[i]);
    lines.join("\n")
}

/// A char boundary of `s`, at random.
fn boundary(rng: &mut ChaCha8Rng, s: &str) -> usize {
    let bounds: Vec<usize> = (0..=s.len()).filter(|&i| s.is_char_boundary(i)).collect();
    *bounds.choose(rng).expect("0 is a boundary")
}

/// A path: one the code used or compared, one a person would pass, a known name under a known
/// directory, or any string.
fn random_path(rng: &mut ChaCha8Rng, pool: &ValuePool) -> String {
    match rng.gen_range(0..10) {
        0..=3 if !pool.path_list.is_empty() => {
            pool.path_list.choose(rng).expect("non-empty").clone()
        }
        4 if !pool.path_list.is_empty() && !pool.string_list.is_empty() => {
            let dir = pool.path_list.choose(rng).expect("non-empty");
            let name = pool.string_list.choose(rng).expect("non-empty");
            format!("{}/{name}", dir.trim_end_matches('/'))
        }
        0..=6 => COMMON_PATHS.choose(rng).expect("non-empty").to_string(),
        _ => random_string(rng, pool),
    }
}

/// A small change to a path: another component added, the last one dropped or changed, or
/// the text changed as any string's.
fn mutate_path(rng: &mut ChaCha8Rng, pool: &ValuePool, p: &str) -> String {
    match rng.gen_range(0..4) {
        0 => {
            let name = pool
                .string_list
                .choose(rng)
                .map_or("file.txt", String::as_str);
            format!("{}/{name}", p.trim_end_matches('/'))
        }
        1 => match p.rsplit_once('/') {
            Some((parent, _)) => parent.to_string(),
            None => String::new(),
        },
        2 => random_path(rng, pool),
        _ => mutate_string(rng, pool, p),
    }
}

/// `\r\n` when it is among `separators`, else `\n`.
fn line_break_of(separators: &[String]) -> &'static str {
    if separators.iter().any(|s| s == "\r\n") {
        "\r\n"
    } else {
        "\n"
    }
}

/// The bytes of `s`, as a sequence of integers.
fn bytes_of(s: &str) -> Value {
    Value::Seq(s.bytes().map(|b| Value::Int(b.into())).collect())
}

/// The text a sequence of bytes holds, when it is non-empty UTF-8.
fn text_of(items: &[Value]) -> Option<String> {
    let bytes: Vec<u8> = items
        .iter()
        .map(|v| match v {
            Value::Int(b) => u8::try_from(*b).ok(),
            _ => None,
        })
        .collect::<Option<_>>()?;
    String::from_utf8(bytes).ok().filter(|s| !s.is_empty())
}

fn mutate_string(rng: &mut ChaCha8Rng, pool: &ValuePool, s: &str) -> String {
    if pool.has_structure() && rng.gen_bool(0.3) {
        match rng.gen_range(0..6) {
            // A word between separators becomes another (`name=x` -> `retries=x`, `name=3`):
            // a line that parsed gets to the arms of the keys it did not name.
            0..=2 => {
                if let Some(t) = replace_token(rng, pool, s) {
                    return t;
                }
            }
            // A line said twice (`retries=3\nretries=3`): what a reader refuses on a repeat.
            3 => return repeat_line(rng, s),
            _ => {}
        }
        // Structure: a separator and a token, or a whole record, spliced in at a boundary.
        let at = boundary(rng, s);
        let piece = match rng.gen_range(0..3) {
            0 => separator(rng, pool).to_string(),
            1 => format!("{}{}", separator(rng, pool), token(rng, pool)),
            _ => structured_string(rng, pool),
        };
        return format!("{}{piece}{}", &s[..at], &s[at..]);
    }
    let mut chars: Vec<char> = s.chars().collect();
    match rng.gen_range(0..5) {
        0 if !chars.is_empty() => {
            let i = rng.gen_range(0..chars.len());
            chars.remove(i);
        }
        1 => {
            let i = rng.gen_range(0..=chars.len());
            chars.insert(i, random_char(rng, pool));
        }
        2 if !chars.is_empty() => {
            let i = rng.gen_range(0..chars.len());
            chars[i] = random_char(rng, pool);
        }
        3 if !pool.string_list.is_empty() => {
            // Join two known strings: prefixes and keywords often come in pairs.
            let other = pool.string_list.choose(rng).expect("non-empty");
            return format!("{s}{other}");
        }
        _ => {
            let extra = random_string(rng, &ValuePool::default());
            return format!("{s}{extra}");
        }
    }
    chars.into_iter().collect()
}

/// A small change to a data value of type `ty`; slot references are left alone.
pub fn mutate_value(rng: &mut ChaCha8Rng, pool: &ValuePool, ty: &Ty, value: &Value) -> Value {
    if rng.gen_bool(0.25) {
        return random_value(rng, pool, ty, 0);
    }
    match (ty, value) {
        (Ty::Int(IntTy::U128), Value::BigUint(u)) => Value::uint(mutate_u128(rng, *u)),
        // A `u128`'s `Int` is never negative.
        (Ty::Int(IntTy::U128), Value::Int(i)) => Value::uint(mutate_u128(rng, *i as u128)),
        (Ty::Range(e, kind), v) => mutate_range(rng, pool, e, *kind, v),
        (Ty::Int(t), Value::Int(v)) => {
            let (lo, hi) = int_range(*t);
            let delta = *[1i128, -1, 2, -2, 10, -10, 100, -100]
                .choose(rng)
                .expect("non-empty");
            let shifted = match rng.gen_range(0..3) {
                0 => v.checked_add(delta),
                1 => Some(v ^ (1i128 << rng.gen_range(0..64))),
                _ => Some(random_int(rng, pool, *t)),
            };
            Value::Int(shifted.filter(|x| *x >= lo && *x <= hi).unwrap_or(*v))
        }
        (Ty::Float(_), Value::Float(bits)) => {
            let x = f64::from_bits(*bits);
            Value::float(match rng.gen_range(0..3) {
                0 => x + rng.gen_range(-1.0..1.0),
                1 => x * 2.0,
                _ => -x,
            })
        }
        (Ty::Bool, Value::Bool(b)) => Value::Bool(!b),
        (Ty::String | Ty::Str | Ty::Reader, Value::Str(s)) => {
            Value::Str(mutate_string(rng, pool, s))
        }
        (Ty::Std(kind, args), v) if kind.value_form(args).is_some() => {
            let form = kind.value_form(args).expect("a value form");
            mutate_value(rng, pool, &form, v)
        }
        (Ty::Std(StdTy::Duration, _), Value::Int(n)) => {
            Value::Int(mutate_nanos(rng, *n, 0, MAX_DURATION))
        }
        (Ty::Std(StdTy::SystemTime, _), Value::Int(n)) => {
            Value::Int(mutate_nanos(rng, *n, -MAX_TIME, MAX_TIME))
        }
        (Ty::Std(kind, _), Value::Str(s)) if kind.is_path() => {
            Value::Str(mutate_path(rng, pool, s))
        }
        (Ty::Std(kind, _), Value::Str(s)) if kind.is_text() => {
            Value::Str(mutate_string(rng, pool, s))
        }
        (Ty::Vec(e) | Ty::Slice(e) | Ty::IntoIter(e), Value::Seq(items)) if !contains_adt(e) => {
            let mut items = items.clone();
            match rng.gen_range(0..3) {
                0 if !items.is_empty() => {
                    let i = rng.gen_range(0..items.len());
                    items.remove(i);
                }
                1 => {
                    let i = rng.gen_range(0..=items.len());
                    items.insert(i, random_value(rng, pool, e, 1));
                }
                _ if !items.is_empty() => {
                    let i = rng.gen_range(0..items.len());
                    items[i] = mutate_value(rng, pool, e, &items[i]);
                }
                _ => items.push(random_value(rng, pool, e, 1)),
            }
            Value::Seq(items)
        }
        (Ty::Array(e, _), Value::Seq(items)) if !items.is_empty() && !contains_adt(e) => {
            let mut items = items.clone();
            let i = rng.gen_range(0..items.len());
            items[i] = mutate_value(rng, pool, e, &items[i]);
            Value::Seq(items)
        }
        (Ty::Tuple(tys), Value::Tuple(items)) if !items.is_empty() && !contains_adt(ty) => {
            let mut items = items.clone();
            let i = rng.gen_range(0..items.len());
            items[i] = mutate_value(rng, pool, &tys[i], &items[i]);
            Value::Tuple(items)
        }
        (Ty::Option(e), Value::Opt(Some(v))) if !contains_adt(e) => {
            if rng.gen_bool(0.3) {
                Value::Opt(None)
            } else {
                Value::Opt(Some(Box::new(mutate_value(rng, pool, e, v))))
            }
        }
        (Ty::Box(e) | Ty::Ref(e) | Ty::RefMut(e) | Ty::Closure(_, e), v) => {
            mutate_value(rng, pool, e, v)
        }
        _ if contains_adt(ty) => value.clone(),
        _ => random_value(rng, pool, ty, 0),
    }
}

/// Whether building a value of this type needs results of earlier statements.
pub fn contains_adt(ty: &Ty) -> bool {
    ty.mentions(&built_by_statements)
}

/// Crate types and mocks: values come from statements, never from data.
pub fn built_by_statements(ty: &Ty) -> bool {
    matches!(ty, Ty::Adt(..) | Ty::Mock(_))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn integers_stay_in_range_of_their_type() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut pool = ValuePool::default();
        pool.add_int(100_000);
        pool.add_int(-5);
        for _ in 0..2000 {
            let Value::Int(v) = random_value(&mut rng, &pool, &Ty::Int(IntTy::U8), 0) else {
                panic!()
            };
            assert!((0..=255).contains(&v));
        }
    }

    #[test]
    fn pool_constants_are_drawn() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut pool = ValuePool::default();
        pool.add_int(0x5EC2_E7A1_B00F);
        pool.add_string("sesame".into());
        let ints: Vec<Value> = (0..200)
            .map(|_| random_value(&mut rng, &pool, &Ty::Int(IntTy::U64), 0))
            .collect();
        assert!(ints.contains(&Value::Int(0x5EC2_E7A1_B00F)));
        let strs: Vec<Value> = (0..200)
            .map(|_| random_value(&mut rng, &pool, &Ty::Str, 0))
            .collect();
        assert!(strs.contains(&Value::Str("sesame".into())));
    }

    #[test]
    fn the_sources_literals_are_not_buried_by_what_comparisons_taught() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let lits = Literals {
            strings: vec!["rotate-logs-now".into(), "reload".into()],
            ..Default::default()
        };
        let mut pool = ValuePool::from_literals(&lits);
        let learned: Vec<Vec<u8>> = (0..3000).map(|i| format!("k{i}").into_bytes()).collect();
        pool.learn(&[], &learned);
        let hits = (0..2000)
            .filter(|_| pool.random_string(&mut rng) == "rotate-logs-now")
            .count();
        // One draw in ten or so, not one in three thousand.
        assert!(hits > 100, "{hits}");
    }

    #[test]
    fn u128_values_cover_its_upper_half() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let pool = ValuePool::default();
        let ty = Ty::Int(IntTy::U128);
        let mut values: Vec<Value> = (0..300)
            .map(|_| random_value(&mut rng, &pool, &ty, 0))
            .collect();
        assert!(values.contains(&Value::BigUint(u128::MAX)));
        let mutated: Vec<Value> = values
            .iter()
            .map(|v| mutate_value(&mut rng, &pool, &ty, v))
            .collect();
        values.extend(mutated);
        // Never an `Int` that a `u128` would not take, nor a `BigUint` that fits `Int`.
        assert!(values.iter().all(|v| match v {
            Value::Int(i) => *i >= 0,
            Value::BigUint(u) => *u > i128::MAX as u128,
            _ => false,
        }));
    }

    #[test]
    fn ranges_come_ordered_empty_reversed_and_in_every_form() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let pool = ValuePool::default();
        let int = |v: &Option<Box<Value>>| match v.as_deref() {
            Some(Value::Int(i)) => Some(*i),
            _ => None,
        };
        let half_open = Ty::Range(Box::new(Ty::Int(IntTy::U8)), RangeKind::HalfOpen);
        let mut orders = BTreeSet::new();
        for _ in 0..300 {
            let v = random_value(&mut rng, &pool, &half_open, 0);
            let v = mutate_value(&mut rng, &pool, &half_open, &v);
            let Value::Range {
                start,
                end,
                inclusive: false,
            } = &v
            else {
                panic!("not a half-open range: {v:?}")
            };
            orders.insert(int(start).unwrap().cmp(&int(end).unwrap()));
        }
        assert_eq!(orders.len(), 3, "{orders:?}");
        let bounds = Ty::Range(Box::new(Ty::Int(IntTy::U64)), RangeKind::Bounds);
        let mut forms = BTreeSet::new();
        for _ in 0..300 {
            let Value::Range {
                start,
                end,
                inclusive,
            } = random_value(&mut rng, &pool, &bounds, 0)
            else {
                panic!("not a range")
            };
            forms.insert((start.is_some(), end.is_some(), end.is_some() && inclusive));
        }
        // `a..b`, `a..=b`, `a..`, `..b`, `..=b`, `..`.
        assert_eq!(forms.len(), 6, "{forms:?}");
    }

    #[test]
    fn strings_are_built_from_literals_joined_by_the_separators_the_code_splits_on() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let lits = Literals {
            strings: vec!["name".into(), "retries".into(), "fatal".into()],
            chars: vec!['=', ':'],
            ..Default::default()
        };
        let pool = ValuePool::from_literals(&lits);
        assert_eq!(pool.separators, vec!["\n", " ", ":", "="]);
        let drawn: Vec<String> = (0..5000)
            .map(|_| match random_value(&mut rng, &pool, &Ty::Str, 0) {
                Value::Str(s) => s,
                v => panic!("{v:?}"),
            })
            .collect();
        let has = |f: &dyn Fn(&str) -> bool| drawn.iter().any(|s| f(s));
        // `name=1\nretries=3` and `fatal: disk` are ordinary candidates.
        assert!(has(&|s| s.lines().count() >= 2
            && s.lines().all(
                |l| l.starts_with("name=") || l.starts_with("retries=")
            )));
        assert!(has(&|s| s.lines().any(
            |l| l.starts_with("retries=") && l[8..].parse::<u32>().is_ok()
        )));
        assert!(has(&|s| s.starts_with("fatal:")));
        // Mutation splices structure into a known string.
        let mutated: Vec<String> = (0..500)
            .map(|_| mutate_string(&mut rng, &pool, "name"))
            .collect();
        assert!(
            mutated.iter().any(|s| s.starts_with("name=")),
            "{mutated:?}"
        );
        // A line that parsed gets another key, another value, or is said twice.
        let mutated: Vec<String> = (0..3000)
            .map(|_| mutate_string(&mut rng, &pool, "name=x\nfatal: disk"))
            .collect();
        for want in [
            "retries=x\nfatal: disk",
            "name=retries\nfatal: disk",
            "name=x\nfatal: name",
            "name=x\nname=x\nfatal: disk",
            "name=x\nfatal: disk\nfatal: disk",
        ] {
            assert!(
                mutated.iter().any(|s| s == want),
                "{want:?} not in {mutated:?}"
            );
        }
    }

    #[test]
    fn words_are_what_lies_between_separators() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let lits = Literals {
            strings: vec!["k".into()],
            chars: vec!['='],
            ..Default::default()
        };
        let pool = ValuePool::from_literals(&lits);
        let got: BTreeSet<String> = (0..300)
            .filter_map(|_| replace_token(&mut rng, &pool, "=ab= c\n"))
            .collect();
        // Only `ab` and `c` are words; separators stay where they were.
        assert!(
            got.contains("=k= c\n") && got.contains("=ab= k\n"),
            "{got:?}"
        );
        assert!(got.iter().all(|s| s.starts_with('=') && s.ends_with('\n')));
        assert_eq!(replace_token(&mut rng, &pool, "= \n="), None);
        // A word is also made as long as a literal of the source (`k`, one char).
        assert!(got.contains("=a= c\n"), "{got:?}");
        assert_eq!(repeat_line(&mut rng, "only"), "only\nonly");
    }

    #[test]
    fn paths_come_from_what_the_code_opened_and_compared() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut pool = ValuePool::default();
        pool.add_path("/srv/data/app.conf".into());
        pool.add_string("settings.toml".into());
        pool.add_string("not a path".into());
        let ty = Ty::Std(StdTy::PathStr, Vec::new());
        let drawn: BTreeSet<String> = (0..300)
            .map(|_| {
                let v = random_value(&mut rng, &pool, &ty, 0);
                mutate_value(&mut rng, &pool, &ty, &v)
            })
            .filter_map(|v| match v {
                Value::Str(s) => Some(s),
                _ => None,
            })
            .collect();
        for p in ["/srv/data/app.conf", "settings.toml", "/etc/app.conf"] {
            assert!(drawn.contains(p), "{p} never drawn: {drawn:?}");
        }
        assert!(!pool.paths.contains("not a path"));
    }

    #[test]
    fn times_are_valid_and_come_from_the_source_and_the_clock() {
        let mut rng = ChaCha8Rng::seed_from_u64(6);
        let pool = ValuePool::from_literals(&Literals {
            ints: vec![250],
            ..Literals::default()
        });
        let draw = |rng: &mut ChaCha8Rng, kind| -> BTreeSet<i128> {
            let ty = Ty::Std(kind, Vec::new());
            (0..400)
                .map(|_| {
                    let v = random_value(rng, &pool, &ty, 0);
                    let v = mutate_value(rng, &pool, &ty, &v);
                    match v {
                        Value::Int(n) => n,
                        other => panic!("{other:?}"),
                    }
                })
                .collect()
        };
        let durations = draw(&mut rng, StdTy::Duration);
        assert!(durations.iter().all(|n| (0..=MAX_DURATION).contains(n)));
        // `250` in the source: 250 s, 250 ms; and none, a second.
        for d in [0, 250 * NANOS_PER_SEC, 250_000_000, NANOS_PER_SEC] {
            assert!(durations.contains(&d), "{d} never drawn");
        }
        let times = draw(&mut rng, StdTy::SystemTime);
        assert!(times.iter().all(|n| (-MAX_TIME..=MAX_TIME).contains(n)));
        let now = crate::search::env::DEFAULT_NOW as i128 * NANOS_PER_SEC;
        for t in [0, now, now - 60 * NANOS_PER_SEC, -NANOS_PER_SEC] {
            assert!(times.contains(&t), "{t} never drawn");
        }
    }

    #[test]
    fn same_seed_same_values() {
        let pool = ValuePool::default();
        let draw = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            (0..50)
                .map(|_| random_value(&mut rng, &pool, &Ty::Vec(Box::new(Ty::String)), 0))
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(7), draw(7));
    }
}
