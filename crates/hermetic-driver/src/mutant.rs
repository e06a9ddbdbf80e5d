//! Mutation schemata: the switch that the driver build's mutated copy of the selected code
//! consults, and the helpers its rewritten expressions call.
//!
//! The engine rewrites each mutation site of the selected code once (`a < b` becomes a call of
//! [`lt`] that gets the original result and the operands); every mutant has an id, and the
//! engine sends the id of the one to switch on with each execution ([`set_active`]), so a test
//! runs against any mutant without a rebuild. A site owns the ids `first..first + n`, one per
//! alternative. With no mutant switched on, each helper returns the original value.
//!
//! The helpers are `extern "C"`: a call that cannot unwind is not an `invoke`, so the rewritten
//! code has the same basic blocks, and the same coverage goals, as the original (a mutated value
//! that panics aborts instead: the mutant is killed all the same). Code that only a mutant runs
//! (a replaced function body) calls [`replaced`] or runs inside [`mutated`]; the engine finds
//! those calls in the executable and keeps such code out of the goals.

#![allow(improper_ctypes_definitions)]

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// The mutant switched on in this execution; 0: none.
static ACTIVE: AtomicU32 = AtomicU32::new(0);

/// Sites reached in this execution, by their first id (a bit each; ids past the end are not
/// recorded).
static REACHED: [AtomicU64; REACHED_WORDS] = [const { AtomicU64::new(0) }; REACHED_WORDS];
const REACHED_WORDS: usize = 1024;

/// Whether [`reached`] reports the sites (the engine asks only when it needs them).
static REPORT: AtomicBool = AtomicBool::new(false);

/// Mutation sites evaluated in this execution.
static EVALUATIONS: AtomicU64 = AtomicU64::new(0);
/// With a mutant on, the evaluations past which the execution is stopped as a hang; 0: none.
static LIMIT: AtomicU64 = AtomicU64::new(0);

/// Switches mutant `id` on (0: none), forgets the sites reached so far, says whether
/// [`reached`] reports them, and how many site evaluations the execution may make with the
/// mutant on before it is stopped as a hang (0: no limit).
pub fn set_active(id: u32, report_reached: bool, limit: u64) {
    ACTIVE.store(id, Ordering::Relaxed);
    REPORT.store(report_reached, Ordering::Relaxed);
    EVALUATIONS.store(0, Ordering::Relaxed);
    LIMIT.store(limit, Ordering::Relaxed);
    for w in &REACHED {
        w.store(0, Ordering::Relaxed);
    }
}

/// How many times the execution evaluated a mutation site.
pub fn evaluations() -> u64 {
    EVALUATIONS.load(Ordering::Relaxed)
}

/// The first ids of the sites reached since [`set_active`], if it asked for them.
pub fn reached() -> Vec<u32> {
    let mut out = Vec::new();
    if !REPORT.load(Ordering::Relaxed) {
        return out;
    }
    for (i, w) in REACHED.iter().enumerate() {
        let mut bits = w.load(Ordering::Relaxed);
        while bits != 0 {
            let b = bits.trailing_zeros();
            out.push((i * 64) as u32 + b);
            bits &= bits - 1;
        }
    }
    out
}

/// Which alternative of the site `first..first + n` is switched on: 0 for none (the original),
/// else 1..=n. Records that the site was reached.
#[inline(never)]
pub extern "C" fn on(first: u32, n: u32) -> u32 {
    // The search's executions ask for neither: two loads.
    if REPORT.load(Ordering::Relaxed) {
        if let Some(w) = REACHED.get(first as usize / 64) {
            w.fetch_or(1 << (first % 64), Ordering::Relaxed);
        }
    }
    let active = ACTIVE.load(Ordering::Relaxed);
    let evaluated = EVALUATIONS.fetch_add(1, Ordering::Relaxed) + 1;
    if active != 0 {
        let limit = LIMIT.load(Ordering::Relaxed);
        if limit != 0 && evaluated > limit {
            // A hang by count, so that whether a mutant hangs does not depend on how busy the
            // machine is: the child's timeout handler (`server::on_timeout`) saves coverage
            // and leaves, and the engine sees `Outcome::Timeout`.
            // SAFETY: raising a signal on the calling thread; the driver's child handles it.
            unsafe { libc::raise(libc::SIGUSR1) };
        }
    }
    if active >= first && active - first < n {
        active - first + 1
    } else {
        0
    }
}

/// Whether the site's one mutant is switched on (`&&` ↔ `||` is written in the crate's own
/// code as an exclusive or with this).
#[inline(never)]
pub extern "C" fn on1(first: u32) -> bool {
    on(first, 1) != 0
}

/// `==` ↔ `!=`: the original result, negated when the mutant is on.
#[inline(never)]
pub extern "C" fn flip(first: u32, original: bool) -> bool {
    original != (on(first, 1) != 0)
}

/// `<` → `==`, `>`, `<=` (cargo-mutants' alternatives).
#[inline(never)]
pub extern "C" fn lt<L: ?Sized + PartialOrd<R>, R: ?Sized>(
    first: u32,
    original: bool,
    l: &L,
    r: &R,
) -> bool {
    match on(first, 3) {
        0 => original,
        1 => l == r,
        2 => l > r,
        _ => l <= r,
    }
}

/// `>` → `==`, `<`, `>=`.
#[inline(never)]
pub extern "C" fn gt<L: ?Sized + PartialOrd<R>, R: ?Sized>(
    first: u32,
    original: bool,
    l: &L,
    r: &R,
) -> bool {
    match on(first, 3) {
        0 => original,
        1 => l == r,
        2 => l < r,
        _ => l >= r,
    }
}

/// `<=` → `>`.
#[inline(never)]
pub extern "C" fn le<L: ?Sized + PartialOrd<R>, R: ?Sized>(
    first: u32,
    original: bool,
    l: &L,
    r: &R,
) -> bool {
    match on(first, 1) {
        0 => original,
        _ => l > r,
    }
}

/// `>=` → `<`.
#[inline(never)]
pub extern "C" fn ge<L: ?Sized + PartialOrd<R>, R: ?Sized>(
    first: u32,
    original: bool,
    l: &L,
    r: &R,
) -> bool {
    match on(first, 1) {
        0 => original,
        _ => l < r,
    }
}

/// Numbers whose arithmetic operators a mutant may swap. Integer mutants wrap instead of
/// checking overflow; a division by zero panics (and so aborts: the mutant is killed).
pub trait Arith: Copy {
    fn add(self, r: Self) -> Self;
    fn sub(self, r: Self) -> Self;
    fn mul(self, r: Self) -> Self;
    fn div(self, r: Self) -> Self;
    fn rem(self, r: Self) -> Self;
}

macro_rules! arith_int {
    ($($t:ty)*) => {$(
        impl Arith for $t {
            fn add(self, r: Self) -> Self { self.wrapping_add(r) }
            fn sub(self, r: Self) -> Self { self.wrapping_sub(r) }
            fn mul(self, r: Self) -> Self { self.wrapping_mul(r) }
            fn div(self, r: Self) -> Self { self.wrapping_div(r) }
            fn rem(self, r: Self) -> Self { self.wrapping_rem(r) }
        }
    )*};
}
arith_int!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize);

macro_rules! arith_float {
    ($($t:ty)*) => {$(
        impl Arith for $t {
            fn add(self, r: Self) -> Self { self + r }
            fn sub(self, r: Self) -> Self { self - r }
            fn mul(self, r: Self) -> Self { self * r }
            fn div(self, r: Self) -> Self { self / r }
            fn rem(self, r: Self) -> Self { self % r }
        }
    )*};
}
arith_float!(f32 f64);

/// `+` → `-`, `*`.
#[inline(never)]
pub extern "C" fn add<T: Arith>(first: u32, l: T, r: T, original: T) -> T {
    match on(first, 2) {
        0 => original,
        1 => l.sub(r),
        _ => l.mul(r),
    }
}

/// `-` → `+`, `/`.
#[inline(never)]
pub extern "C" fn sub<T: Arith>(first: u32, l: T, r: T, original: T) -> T {
    match on(first, 2) {
        0 => original,
        1 => l.add(r),
        _ => l.div(r),
    }
}

/// `*` → `+`, `/`.
#[inline(never)]
pub extern "C" fn mul<T: Arith>(first: u32, l: T, r: T, original: T) -> T {
    match on(first, 2) {
        0 => original,
        1 => l.add(r),
        _ => l.div(r),
    }
}

/// `/` → `%`, `*`.
#[inline(never)]
pub extern "C" fn div<T: Arith>(first: u32, l: T, r: T, original: T) -> T {
    match on(first, 2) {
        0 => original,
        1 => l.rem(r),
        _ => l.mul(r),
    }
}

/// `%` → `/`, `+`.
#[inline(never)]
pub extern "C" fn rem<T: Arith>(first: u32, l: T, r: T, original: T) -> T {
    match on(first, 2) {
        0 => original,
        1 => l.div(r),
        _ => l.add(r),
    }
}

/// Deletes a unary operator (`!x` → `x`, `-x` → `x`): `operand` without it, `original` with it.
#[inline(never)]
pub extern "C" fn unary<T>(first: u32, operand: T, original: T) -> T {
    if on(first, 1) != 0 {
        operand
    } else {
        original
    }
}

/// Integers whose constants a mutant may change by one.
pub trait Int: Copy {
    fn plus_one(self) -> Self;
    fn minus_one(self) -> Self;
}

macro_rules! int {
    ($($t:ty)*) => {$(
        impl Int for $t {
            fn plus_one(self) -> Self { self.wrapping_add(1) }
            fn minus_one(self) -> Self { self.wrapping_sub(1) }
        }
    )*};
}
int!(u8 u16 u32 u64 u128 usize i8 i16 i32 i64 i128 isize);

/// A constant → itself + 1, itself - 1.
#[inline(never)]
pub extern "C" fn constant<T: Int>(first: u32, value: T) -> T {
    match on(first, 2) {
        0 => value,
        1 => value.plus_one(),
        _ => value.minus_one(),
    }
}

/// The value a replaced function body returns: alternative `k` (0-based) of the site's
/// replacements, which `values` (a closure that starts with [`mutated`]) computes. Called only
/// when [`on`] said one of them is switched on.
#[inline(never)]
pub extern "C" fn replaced<R, F: FnOnce(u32) -> R>(first: u32, n: u32, values: F) -> R {
    values(on(first, n).saturating_sub(1))
}

/// Marks code that only a mutant runs (the closures of replaced bodies): the engine keeps the
/// functions that call it out of the coverage goals.
#[inline(never)]
pub extern "C" fn mutated() {
    std::hint::black_box(());
}

#[cfg(test)]
mod tests {
    use super::*;

    // One test: the switch is process-wide.
    #[test]
    fn sites_answer_only_their_own_mutants_and_record_that_they_were_reached() {
        set_active(0, true, 0);
        assert!(lt(10, true, &1, &2));
        assert_eq!(add(20, 2, 3, 5), 5);
        assert_eq!(reached(), vec![10, 20]);
        assert_eq!(evaluations(), 2);
        set_active(11, true, 1_000);
        assert_eq!(reached(), Vec::<u32>::new());
        assert_eq!(evaluations(), 0, "counted afresh");
        assert!(!lt(10, true, &1, &2), "`<` → `>`");
        assert_eq!(add(20, 2, 3, 5), 5, "another site's id");
        set_active(21, true, 0);
        assert_eq!(add(20, 2, 3, 5), 6, "`+` → `*`");
        assert_eq!(constant(30, 7u8), 7);
        set_active(31, true, 0);
        assert_eq!(constant(30, 0u8), 255, "wraps");
        set_active(40, true, 0);
        assert!(!flip(40, true));
        assert!(!unary(41, true, false), "another site");
        assert_eq!(replaced(40, 1, |k| k + 7), 7);
        set_active(0, true, 0);
    }
}
