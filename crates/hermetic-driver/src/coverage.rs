//! SanitizerCoverage callbacks: where the instrumented crate's counters live, and the operands
//! of the comparisons it makes while a test case runs.
//!
//! Only the crate under test is instrumented, so every counter here belongs to it (the engine
//! later sets aside the counters of the driver module and the test harness, which are compiled
//! into that crate too).
//!
//! The `unsafe extern "C"` functions here are called by instrumented code and by libc's
//! callers with the C contracts of their names; they have no other callers.
#![allow(clippy::missing_safety_doc)]

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

const MAX_REGIONS: usize = 64;
const MAX_CMP_INTS: usize = 4096;
/// The latest integer comparisons kept in order ([`LAST`]): enough that the code's own last
/// ones survive what the harness compares after the call returns.
const LAST_CMPS: usize = 1024;
/// `memcmp`/`bcmp` calls logged per execution (each with both operands).
const MAX_CMP_BYTES: usize = 128;
const MAX_CMP_BYTES_LEN: usize = 64;
/// The closest-comparison table has `2^SITE_BITS` slots and keeps at most `MAX_CMP_SITES`
/// sites per execution (three quarters full, so a probe always ends at a free slot soon). A
/// site is dropped only once that many distinct sites were met in one execution, and then the
/// later ones (in the order the code met them), never by where the code lies.
const SITE_BITS: u32 = 12;
const CMP_SLOTS: usize = 1 << SITE_BITS;
const MAX_CMP_SITES: usize = CMP_SLOTS / 4 * 3;

/// Fixed-size tables filled by module constructors before `main` and by the hooks of the one
/// thread that runs a test case in the child; nothing here allocates.
struct Table<T: Copy, const N: usize> {
    items: UnsafeCell<[T; N]>,
    len: AtomicUsize,
}

// SAFETY: writers are module constructors (single-threaded, before main) or the hooks in a
// forked child that runs the test case on one thread; readers run after those writes.
unsafe impl<T: Copy, const N: usize> Sync for Table<T, N> {}

impl<T: Copy, const N: usize> Table<T, N> {
    const fn new(zero: T) -> Self {
        Table {
            items: UnsafeCell::new([zero; N]),
            len: AtomicUsize::new(0),
        }
    }

    #[inline(always)]
    fn push(&self, item: T) -> bool {
        // Full (a hot loop's comparisons fill it early): a plain load, not the locked add.
        if self.len.load(Ordering::Relaxed) >= N {
            return false;
        }
        let i = self.len.fetch_add(1, Ordering::Relaxed);
        if i >= N {
            self.len.store(N, Ordering::Relaxed);
            return false;
        }
        // SAFETY: see the `Sync` impl; index checked above.
        unsafe { (*self.items.get())[i] = item };
        true
    }

    fn as_slice(&self) -> &[T] {
        let len = self.len.load(Ordering::Relaxed).min(N);
        // SAFETY: the first `len` items were written by `push`.
        unsafe { std::slice::from_raw_parts(self.items.get() as *const T, len) }
    }

    fn clear(&self) {
        self.len.store(0, Ordering::Relaxed);
    }
}

static COUNTERS: Table<(usize, usize), MAX_REGIONS> = Table::new((0, 0));
static PCS: Table<(usize, usize), MAX_REGIONS> = Table::new((0, 0));
static CMP_INTS: Table<(usize, u64), MAX_CMP_INTS> = Table::new((0, 0));
/// The operands of a byte comparison: both, and their length.
type BytePair = ([u8; MAX_CMP_BYTES_LEN], [u8; MAX_CMP_BYTES_LEN], usize);
static CMP_BYTES: Table<BytePair, MAX_CMP_BYTES> =
    Table::new(([0; MAX_CMP_BYTES_LEN], [0; MAX_CMP_BYTES_LEN], 0));
static RECORDING: AtomicBool = AtomicBool::new(false);

/// The latest integer comparisons of the execution in the order made, `(pc, operand,
/// other operand)`, the operand first that the code read (a constant comes second): the
/// last one of the code under test is usually the one that failed and decided where the run
/// went, and the search aims at it. A ring: older comparisons are overwritten.
struct Last {
    items: UnsafeCell<[(usize, u64, u64); LAST_CMPS]>,
    /// Comparisons logged since the last clear (the next write goes to `n % LAST_CMPS`).
    n: AtomicUsize,
}

// SAFETY: as for `Table`: written by the one thread that runs the test case, read after.
unsafe impl Sync for Last {}

static LAST: Last = Last {
    items: UnsafeCell::new([(0, 0, 0); LAST_CMPS]),
    n: AtomicUsize::new(0),
};

impl Last {
    #[inline(always)]
    fn push(&self, item: (usize, u64, u64)) {
        let n = self.n.load(Ordering::Relaxed);
        // SAFETY: see the `Sync` impl; the index is reduced modulo the length.
        let items = unsafe { &mut *self.items.get() };
        // A loop comparing the same operands again adds nothing.
        if n > 0 && items[(n - 1) % LAST_CMPS] == item {
            return;
        }
        items[n % LAST_CMPS] = item;
        self.n.store(n + 1, Ordering::Relaxed);
    }

    /// What the ring holds, oldest first.
    fn in_order(&self) -> Vec<(usize, u64, u64)> {
        let n = self.n.load(Ordering::Relaxed);
        // SAFETY: see the `Sync` impl; read after the test case ran.
        let items = unsafe { &*self.items.get() };
        if n <= LAST_CMPS {
            return items[..n].to_vec();
        }
        let at = n % LAST_CMPS;
        items[at..].iter().chain(&items[..at]).copied().collect()
    }
}

/// Per comparison site, how close its operands came in this execution: `(pc, distance)`, open
/// addressing by `pc` (0 = a free slot), linear probing. The search climbs these distances towards equality (seed 003's branch distance,
/// at the level of the machine's comparisons).
struct Closest {
    slots: UnsafeCell<[(usize, u64); CMP_SLOTS]>,
    /// The slots taken since the last clear: clearing touches only them (and the pages they
    /// lie on), not the whole table, in every forked child.
    used: Table<u16, MAX_CMP_SITES>,
}

// SAFETY: as for `Table`: written by the one thread that runs the test case, read after.
unsafe impl Sync for Closest {}

static CLOSEST: Closest = Closest {
    slots: UnsafeCell::new([(0, 0); CMP_SLOTS]),
    used: Table::new(0),
};

impl Closest {
    /// Keeps the smaller of the site's distance so far and `distance`. A full table drops new
    /// sites: the search loses guidance, nothing else.
    #[inline(always)]
    fn note(&self, pc: usize, distance: u64) {
        // SAFETY: see the `Sync` impl; the reference ends with this call.
        let slots = unsafe { &mut *self.slots.get() };
        let mut i = pc.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SITE_BITS);
        // Never more than MAX_CMP_SITES slots are taken, so a free slot ends every probe.
        loop {
            let slot = &mut slots[i];
            if slot.0 == pc {
                slot.1 = slot.1.min(distance);
                return;
            }
            if slot.0 == 0 {
                if self.used.as_slice().len() < MAX_CMP_SITES {
                    *slot = (pc, distance);
                    self.used.push(i as u16);
                }
                return;
            }
            i = (i + 1) & (CMP_SLOTS - 1);
        }
    }

    /// The sites met, each with its smallest distance.
    fn sites(&self) -> impl Iterator<Item = (usize, u64)> + '_ {
        // SAFETY: see the `Sync` impl; read after the test case ran.
        let slots = unsafe { &*self.slots.get() };
        self.used.as_slice().iter().map(|&i| slots[i as usize])
    }

    fn clear(&self) {
        // SAFETY: see the `Sync` impl; called before the test case runs.
        let slots = unsafe { &mut *self.slots.get() };
        for &i in self.used.as_slice() {
            slots[i as usize] = (0, 0);
        }
        self.used.clear();
    }
}

/// Every code-generation unit's constructor reports the whole merged section, so a region is
/// registered once, by its start.
fn register(table: &Table<(usize, usize), MAX_REGIONS>, start: usize, end: usize) {
    if start < end && !table.as_slice().iter().any(|&(s, _)| s == start) {
        table.push((start, end));
    }
}

#[no_mangle]
pub extern "C" fn __sanitizer_cov_8bit_counters_init(start: *mut u8, end: *mut u8) {
    register(&COUNTERS, start as usize, end as usize);
}

#[no_mangle]
pub extern "C" fn __sanitizer_cov_pcs_init(start: *const usize, end: *const usize) {
    register(&PCS, start as usize, end as usize);
}

/// The instrumented crate's counters, in a fixed order.
pub fn counter_regions() -> impl Iterator<Item = &'static mut [u8]> {
    COUNTERS.as_slice().iter().map(|&(start, end)| {
        // SAFETY: the region was handed to us by the sanitizer runtime contract and lives for
        // the whole process.
        unsafe { std::slice::from_raw_parts_mut(start as *mut u8, end - start) }
    })
}

/// Number of counters in all regions.
pub fn counter_count() -> usize {
    COUNTERS.as_slice().iter().map(|&(s, e)| e - s).sum()
}

/// The basic-block address of each counter, in counter order (the PC table holds
/// `(pc, flags)` pairs, one per counter).
pub fn counter_pcs() -> Vec<usize> {
    let mut pcs = Vec::with_capacity(counter_count());
    for &(start, end) in PCS.as_slice() {
        let n = (end - start) / std::mem::size_of::<usize>();
        // SAFETY: as for `counter_regions`.
        let table = unsafe { std::slice::from_raw_parts(start as *const usize, n) };
        pcs.extend(table.chunks_exact(2).map(|pair| pair[0]));
    }
    pcs
}

/// Zeroes the counters and the comparison log, and starts logging comparisons.
pub fn start_recording() {
    for region in counter_regions() {
        region.fill(0);
    }
    CMP_INTS.clear();
    CMP_BYTES.clear();
    CLOSEST.clear();
    LAST.n.store(0, Ordering::Relaxed);
    RECORDING.store(true, Ordering::Relaxed);
}

pub fn stop_recording() {
    RECORDING.store(false, Ordering::Relaxed);
}

/// Copies the counters into `out` (which holds `counter_count()` bytes). Async-signal-safe.
pub fn copy_counters(out: &mut [u8]) {
    let mut at = 0;
    for region in counter_regions() {
        let n = region.len().min(out.len() - at);
        out[at..at + n].copy_from_slice(&region[..n]);
        at += n;
    }
}

/// The distinct integer comparison operands logged since `start_recording`, at most `limit`,
/// each with the address (relative to `base`) of the code that compared it.
pub fn cmp_ints(limit: usize, base: usize) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = CMP_INTS
        .as_slice()
        .iter()
        .map(|&(pc, x)| (pc.wrapping_sub(base) as u64, x))
        .collect();
    v.sort_unstable();
    v.dedup();
    v.truncate(limit);
    v
}

/// The distinct integer comparisons of the latest ones made since `start_recording`, at most
/// `limit`, as `(pc relative to base, operand, other operand)`, each where it was last made,
/// the latest last.
pub fn cmp_last(limit: usize, base: usize) -> Vec<(u64, u64, u64)> {
    let mut out: Vec<(u64, u64, u64)> = Vec::new();
    // Not a `HashSet`: std's would move the case thread's hash keys on (`carryover`).
    let mut seen = std::collections::BTreeSet::new();
    for (pc, a, b) in LAST.in_order().into_iter().rev() {
        if out.len() == limit {
            break;
        }
        let item = (pc.wrapping_sub(base) as u64, a, b);
        if seen.insert(item) {
            out.push(item);
        }
    }
    out.reverse();
    out
}

/// Each comparison site seen since `start_recording` (relative to `base`) with the smallest
/// distance between its operands there, 0 when they were ever equal; sorted by site.
pub fn cmp_closest(base: usize) -> Vec<(u64, u64)> {
    let mut v: Vec<(u64, u64)> = CLOSEST
        .sites()
        .map(|(pc, d)| (pc.wrapping_sub(base) as u64, d))
        .collect();
    v.sort_unstable();
    v
}

/// The byte comparisons since `start_recording`, each as its two operands one after the other
/// (`[a0, b0, a1, b1, ..]`), distinct pairs in the order first made: the search splices one
/// operand in where it finds the other in its input.
pub fn cmp_bytes() -> Vec<Vec<u8>> {
    let mut seen: Vec<(&[u8], &[u8])> = Vec::new();
    for (a, b, len) in CMP_BYTES.as_slice() {
        let pair = (&a[..*len], &b[..*len]);
        if !seen.contains(&pair) {
            seen.push(pair);
        }
    }
    seen.into_iter()
        .flat_map(|(a, b)| [a.to_vec(), b.to_vec()])
        .collect()
}

/// Logs the operands of a comparison made at `pc` (a return address in the instrumented code).
/// Addresses are left out: code that compares pointers (`ptr::eq`, a null check) would feed
/// the search values that change from run to run, and the same seed would not give the same
/// tests.
#[inline(always)]
fn log_cmp(a: u64, b: u64, bits: u32, pc: usize, constant_first: bool) {
    if !RECORDING.load(Ordering::Relaxed) {
        return;
    }
    let addresses = [looks_like_an_address(a), looks_like_an_address(b)];
    // A comparison of pointers is as far as anything (see `distance`): no slot for its site.
    if addresses == [false, false] {
        CLOSEST.note(pc, distance(a, b, bits));
    }
    if a != b {
        for (x, address) in [a, b].into_iter().zip(addresses) {
            if !address {
                CMP_INTS.push((pc, x));
            }
        }
        if addresses == [false, false] {
            // The operand read from the input first; either may be for a comparison of two
            // variables.
            if constant_first {
                LAST.push((pc, b, a));
            } else {
                LAST.push((pc, a, b));
                LAST.push((pc, b, a));
            }
        }
    }
}

/// How far apart two `bits`-wide operands are, the shorter way round, so `-1` and `1` are 2
/// apart whatever the signedness. Pointers are as far as anything: their distances are noise
/// that changes from run to run.
fn distance(a: u64, b: u64, bits: u32) -> u64 {
    if looks_like_an_address(a) || looks_like_an_address(b) {
        return u64::MAX;
    }
    let mask = u64::MAX >> (64 - bits);
    (a.wrapping_sub(b) & mask).min(b.wrapping_sub(a) & mask)
}

/// Where x86_64 Linux maps user-space code, heap, libraries and stacks, with or without ASLR:
/// position-independent executables and their heap at 0x5555_5555_4000 plus up to 2^40
/// (0x55.. to 0x56..), libraries, mappings and stacks below 0x7fff_ffff_f000 down to 2^40 and
/// the stack gap under it (0x7e.. to 0x7f..). The 46-bit constants between (`0x7A3F_19C2_44E1`,
/// a token the code checks) are values, and reach the search as such.
fn looks_like_an_address(x: u64) -> bool {
    (0x5500_0000_0000..0x5700_0000_0000).contains(&x)
        || (0x7e00_0000_0000..0x8000_0000_0000).contains(&x)
}

/// The comparison hooks: a naked entry reads the return address (the comparison's place in the
/// code, so the engine can keep only the comparisons of the code under test) and jumps to a
/// handler that takes it as a third argument. They must never write the caller's stack frame:
/// the engine's proofs of infeasible edges (`driver/infeasible.rs`) keep what they know of the
/// frame across calls to `__sanitizer_cov_trace_*`.
macro_rules! cmp_hook {
    ($hook:ident, $handler:ident, $t:ty, $constant_first:expr) => {
        #[cfg(target_arch = "x86_64")]
        #[unsafe(naked)]
        #[no_mangle]
        pub unsafe extern "C" fn $hook(a: $t, b: $t) {
            core::arch::naked_asm!("mov rdx, [rsp]", "jmp {}", sym $handler)
        }

        #[cfg(not(target_arch = "x86_64"))]
        #[no_mangle]
        pub extern "C" fn $hook(a: $t, b: $t) {
            $handler(a, b, 0)
        }

        extern "C" fn $handler(a: $t, b: $t, pc: usize) {
            log_cmp(a as u64, b as u64, <$t>::BITS, pc, $constant_first)
        }
    };
}

cmp_hook!(__sanitizer_cov_trace_cmp1, on_cmp1, u8, false);
cmp_hook!(__sanitizer_cov_trace_cmp2, on_cmp2, u16, false);
cmp_hook!(__sanitizer_cov_trace_cmp4, on_cmp4, u32, false);
cmp_hook!(__sanitizer_cov_trace_cmp8, on_cmp8, u64, false);
cmp_hook!(__sanitizer_cov_trace_const_cmp1, on_const_cmp1, u8, true);
cmp_hook!(__sanitizer_cov_trace_const_cmp2, on_const_cmp2, u16, true);
cmp_hook!(__sanitizer_cov_trace_const_cmp4, on_const_cmp4, u32, true);
cmp_hook!(__sanitizer_cov_trace_const_cmp8, on_const_cmp8, u64, true);

#[cfg(target_arch = "x86_64")]
#[unsafe(naked)]
#[no_mangle]
pub unsafe extern "C" fn __sanitizer_cov_trace_switch(value: u64, cases: *const u64) {
    core::arch::naked_asm!("mov rdx, [rsp]", "jmp {}", sym on_switch)
}

#[cfg(not(target_arch = "x86_64"))]
#[no_mangle]
pub unsafe extern "C" fn __sanitizer_cov_trace_switch(value: u64, cases: *const u64) {
    on_switch(value, cases, 0)
}

/// `cases[0]` is the number of cases, `cases[1]` the operand width, then the case values.
unsafe extern "C" fn on_switch(value: u64, cases: *const u64, pc: usize) {
    if !RECORDING.load(Ordering::Relaxed) {
        return;
    }
    let n = *cases as usize;
    let values = std::slice::from_raw_parts(cases.add(2), n);
    CMP_INTS.push((pc, value));
    for &c in values {
        CMP_INTS.push((pc, c));
        if c != value {
            LAST.push((pc, value, c));
        }
    }
}

fn log_bytes(a: *const u8, b: *const u8, n: usize) {
    if !RECORDING.load(Ordering::Relaxed) || n == 0 || n > MAX_CMP_BYTES_LEN {
        return;
    }
    let mut pair = ([0u8; MAX_CMP_BYTES_LEN], [0u8; MAX_CMP_BYTES_LEN], n);
    // SAFETY: memcmp's contract: both pointers are valid for `n` bytes.
    unsafe {
        std::ptr::copy_nonoverlapping(a, pair.0.as_mut_ptr(), n);
        std::ptr::copy_nonoverlapping(b, pair.1.as_mut_ptr(), n);
    }
    CMP_BYTES.push(pair);
}

type CmpFn = unsafe extern "C" fn(*const u8, *const u8, usize) -> i32;

/// The C library's own function of that name, found once.
fn next_symbol(cache: &AtomicUsize, name: &std::ffi::CStr) -> CmpFn {
    let mut f = cache.load(Ordering::Relaxed);
    if f == 0 {
        // SAFETY: dlsym with a valid NUL-terminated name.
        f = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) } as usize;
        assert!(f != 0, "hermetic driver: the C library has no {name:?}");
        cache.store(f, Ordering::Relaxed);
    }
    // SAFETY: the symbol is the C library's memcmp/bcmp, which has this signature.
    unsafe { std::mem::transmute::<usize, CmpFn>(f) }
}

static REAL_MEMCMP: AtomicUsize = AtomicUsize::new(0);
static REAL_BCMP: AtomicUsize = AtomicUsize::new(0);

/// String and slice equality in debug builds ends here; the operands feed the search.
#[no_mangle]
pub unsafe extern "C" fn memcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    log_bytes(a, b, n);
    next_symbol(&REAL_MEMCMP, c"memcmp")(a, b, n)
}

#[no_mangle]
pub unsafe extern "C" fn bcmp(a: *const u8, b: *const u8, n: usize) -> i32 {
    log_bytes(a, b, n);
    next_symbol(&REAL_BCMP, c"bcmp")(a, b, n)
}

/// The load address of the executable, so that PCs can be matched with its symbol table.
/// Looked up once (the server does, before it forks): the children run the same mapping.
pub fn load_base() -> usize {
    static BASE: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *BASE.get_or_init(find_load_base)
}

fn find_load_base() -> usize {
    unsafe extern "C" fn first(
        info: *mut libc::dl_phdr_info,
        _: libc::size_t,
        data: *mut libc::c_void,
    ) -> libc::c_int {
        *(data as *mut usize) = (*info).dlpi_addr as usize;
        1 // the first object is the executable; stop there
    }
    let mut base = 0usize;
    // SAFETY: the callback only writes through the pointer we pass.
    unsafe { libc::dl_iterate_phdr(Some(first), &mut base as *mut usize as *mut libc::c_void) };
    base
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_are_told_from_values() {
        let on_the_heap = Box::new(7u64);
        let on_the_stack = 7u64;
        for p in [&*on_the_heap as *const u64, &on_the_stack as *const u64] {
            assert!(looks_like_an_address(p as u64), "{p:p}");
        }
        assert!(looks_like_an_address(main_like as fn() as usize as u64));
        for v in [
            0,
            42,
            u64::MAX,
            i64::MIN as u64,
            0x5EC2_E7A1_B00F >> 4,
            0x7A3F_19C2_44E1,
        ] {
            assert!(!looks_like_an_address(v), "{v:#x}");
        }
    }

    fn main_like() {}

    #[test]
    fn distances_go_the_short_way_round_in_the_operands_width() {
        assert_eq!(distance(1234, 1230, 64), 4);
        assert_eq!(distance(1230, 1234, 64), 4);
        assert_eq!(distance(-1i32 as u32 as u64, 1, 32), 2);
        assert_eq!(distance(-1i64 as u64, 1, 64), 2);
        assert_eq!(distance(255, 0, 8), 1);
        assert_eq!(distance(7, 7, 16), 0);
        let heap = Box::new(0u8);
        assert_eq!(distance(&*heap as *const u8 as u64, 0, 64), u64::MAX);
    }

    #[test]
    fn each_site_keeps_its_closest_comparison() {
        // One test: the table is global, so two tests using it would race in parallel threads.
        start_recording();
        for (a, b) in [(100, 10), (100, 90), (100, 200)] {
            log_cmp(a, b, 64, 0x1000, false);
        }
        log_cmp(5, 5, 32, 0x2000, false);
        stop_recording();
        assert_eq!(cmp_closest(0x100), vec![(0xf00, 10), (0x1f00, 0)]);
        start_recording();
        stop_recording();
        assert!(cmp_closest(0).is_empty());

        // Sites a few bytes apart, as the comparisons of one function are: a table that probed
        // a few slots only dropped some of them, which ones depending on where the code lies.
        // Every site is kept while there is room; past it, the later sites are dropped.
        start_recording();
        for site in 0..MAX_CMP_SITES + 10 {
            log_cmp(3, 1, 32, 0x40_0000 + 5 * site, false);
        }
        log_cmp(1, 1, 32, 0x40_0000, false); // a kept site still gets closer
        stop_recording();
        let got = cmp_closest(0x40_0000);
        assert_eq!(got.len(), MAX_CMP_SITES);
        assert_eq!(got[0], (0, 0));
        assert!(got[1..].iter().all(|&(site, d)| site % 5 == 0 && d == 2));
        assert_eq!(got.last().unwrap().0, 5 * (MAX_CMP_SITES as u64 - 1));
        start_recording();
        log_cmp(1, 1, 8, 0x10, false);
        stop_recording();
        assert_eq!(
            cmp_closest(0),
            vec![(0x10, 0)],
            "cleared before the next execution"
        );

        // The latest comparisons in order, the operand read first (a constant second), the
        // last one kept however many came before.
        start_recording();
        log_cmp(b'J' as u64, b'X' as u64, 8, 0x100, true);
        log_cmp(5, 7, 32, 0x200, false);
        stop_recording();
        assert_eq!(
            cmp_last(8, 0),
            vec![
                (0x100, b'X' as u64, b'J' as u64),
                (0x200, 5, 7),
                (0x200, 7, 5)
            ]
        );
        start_recording();
        for i in 0..LAST_CMPS as u64 + 5 {
            log_cmp(1, i + 1000, 32, 0x300, true);
        }
        log_cmp(24, 29, 64, 0x400, true);
        stop_recording();
        assert_eq!(
            cmp_last(2, 0),
            vec![(0x300, LAST_CMPS as u64 + 1004, 1), (0x400, 29, 24)]
        );
    }
}
