//! Record mode: the real environment is used, and what each probed call read and wrote is
//! logged against it, for `cargo hermetic record`.
//!
//! Probes (inserted into a shadow copy of the crate by `cargo hermetic record`) call [`enter`]
//! at the top of each selected function and [`Call::exit`] with its result. The first
//! [`CAPTURED_PER_SITE`] calls of each function are captured in full: their arguments and
//! result as `Debug` text (through [`Wrap`], which falls back to "opaque" for types without
//! `Debug`, and prefers the literal a [`Capture`] impl writes for crate types whose `Debug` is
//! hand-written), and, for the values the probe asks for ([`ViaDisplay`]), their `Display` text when
//! it parses back to an equal value; and the files, variables, stdin, clock and random bytes
//! the call read, and the
//! files it wrote, nested calls included. Later calls are only counted, so a hot function costs
//! a load and a store per call. Each captured call is written to the log as one JSON line as
//! soon as it returns (so calls that completed survive a crash); the counts are written at
//! exit.
//!
//! Trait-typed arguments are handed to the function as recording proxies ([`proxy`]): each
//! forwards to the real value and logs, per method, what it returned, against the call; what
//! the real value read or wrote meanwhile is its own doing and is left out of the call's
//! events (a mock stands in for it when the call is replayed).
//!
//! Record mode is process-wide and switched on by the `HERMETIC_RECORD` variable (the log
//! file's path) when the first probe runs, or the first read of stdin (a program may read its
//! first lines before it calls the library). The interposers pass every call to glibc as usual
//! and, when recording, call the `on_*` hooks here, which cost one relaxed load when off.
//!
//! Two things are done differently while recording, so that what a call read is its own:
//! stdin is handed out one line per read ([`stdin`]), and the bytes read from the random
//! devices are logged like those from `getrandom` ([`random_fds`]).
//!
//! The interposers report the bytes of reads, writes and random draws; std's `HashMap` key draws
//! are logged apart from the code's (`Event::HashKeys`), since a test replays them from a source of
//! their own. Record code's own libc calls are never logged: a per-thread busy flag is set while it
//! runs. Its own calls of the crate (a `Display` capture parsing the value back) are not captured
//! and take none of a function's captured calls.

mod random_fds;
mod stdin;

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::ffi::CStr;
use std::fmt::{Debug, Write as _};
use std::ops::{Bound, RangeBounds};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};
use std::sync::Mutex;

mod proxy;
pub use proxy::{Holder, Owned, Slot, Tap};

/// Calls of one function captured in full; later calls are counted only.
pub const CAPTURED_PER_SITE: u32 = 64;

/// The variable that names the log file and switches record mode on.
pub const LOG_VAR: &str = "HERMETIC_RECORD";

/// Largest file whose contents are logged; bigger files are logged as unreadable.
const MAX_FILE: u64 = 1 << 20;
/// What the open captured calls of a thread may log, in events and bytes; a call that reads
/// more is logged with `"overflow":true` (and becomes no test).
const MAX_EVENTS: usize = 100_000;
const MAX_EVENT_BYTES: usize = 256 << 20;

const UNKNOWN: u8 = 0;
const OFF: u8 = 1;
const ON: u8 = 2;
static MODE: AtomicU8 = AtomicU8::new(UNKNOWN);
/// Whether the interposers should call the hooks (set once the log is open).
static HOOKS: AtomicBool = AtomicBool::new(false);
static LOG_FD: AtomicI32 = AtomicI32::new(-1);
static SITES: Mutex<Vec<&'static Site>> = Mutex::new(Vec::new());
/// The last serial number given to a captured call (proxies find their call by it).
static SERIAL: AtomicU64 = AtomicU64::new(0);

/// One probed function: its id (the engine's callable index) and how often it was called.
pub struct Site {
    id: u32,
    seen: AtomicU32,
}

impl Site {
    pub const fn new(id: u32) -> Site {
        Site {
            id,
            seen: AtomicU32::new(0),
        }
    }
}

/// Collects the captured values of a call: `Some(debug text)` or `None` for an opaque value,
/// and the `Display` text of some of them (by their index among the values).
#[derive(Default)]
pub struct Writer {
    values: Vec<Option<String>>,
    shown: Vec<(usize, String)>,
}

impl Writer {
    pub fn debug(&mut self, v: &dyn Debug) {
        let mut s = String::new();
        let ok = write!(s, "{v:?}").is_ok();
        self.values.push(ok.then_some(s));
    }

    pub fn opaque(&mut self) {
        self.values.push(None);
    }

    /// Keeps the `Display` text of the value captured last, when parsing it gives back an equal
    /// value: a test can then rebuild the value as `text.parse::<T>()` (a hand-written `Debug`
    /// cannot be read back).
    pub fn shown<T: std::fmt::Display + std::str::FromStr + PartialEq>(&mut self, v: &T) {
        let Some(last) = self.values.len().checked_sub(1) else {
            return;
        };
        let text = v.to_string();
        if text.parse::<T>().is_ok_and(|back| back == *v) {
            self.shown.push((last, text));
        }
    }
}

/// A value to capture: `(&&&Wrap(&v)).capture(w)` picks [`ViaCapture`] when the type
/// implements [`Capture`], [`ViaDebug`] when it implements `Debug` and [`ViaOpaque`] otherwise
/// (method resolution tries `&&&Wrap`, then `&&Wrap`, then `&Wrap`).
pub struct Wrap<'a, T: ?Sized>(pub &'a T);

/// A value written as the Rust literal that builds it, field by field: what `cargo hermetic
/// record` implements, in the probed copy, for crate types whose `Debug` is hand-written (and
/// so cannot be read back). The text has derived `Debug`'s shape (`Name { field: value }`,
/// `Variant(value)`), each field captured as a probe would capture it.
pub trait Capture {
    /// `None` when a part of the value cannot be captured (a field without `Debug`).
    fn literal(&self) -> Option<String>;
}

impl<T: Capture + ?Sized> Capture for &T {
    fn literal(&self) -> Option<String> {
        (**self).literal()
    }
}

impl<T: Capture + ?Sized> Capture for &mut T {
    fn literal(&self) -> Option<String> {
        (**self).literal()
    }
}

impl<T: Capture + ?Sized> Capture for Box<T> {
    fn literal(&self) -> Option<String> {
        (**self).literal()
    }
}

impl<T: Capture> Capture for Option<T> {
    fn literal(&self) -> Option<String> {
        match self {
            None => Some("None".into()),
            Some(v) => Some(format!("Some({})", v.literal()?)),
        }
    }
}

impl<T: Capture> Capture for [T] {
    fn literal(&self) -> Option<String> {
        let items = self.iter().map(T::literal).collect::<Option<Vec<_>>>()?;
        Some(format!("[{}]", items.join(", ")))
    }
}

impl<T: Capture> Capture for Vec<T> {
    fn literal(&self) -> Option<String> {
        self.as_slice().literal()
    }
}

impl Writer {
    /// The values captured so far as the fields of `Name { a: .., b: .. }` (`names` in order).
    pub fn named_literal(self, name: &str, names: &[&str]) -> Option<String> {
        let values = self.values.into_iter().collect::<Option<Vec<_>>>()?;
        let fields: Vec<String> = names
            .iter()
            .zip(values)
            .map(|(n, v)| format!("{n}: {v}"))
            .collect();
        Some(format!("{name} {{ {} }}", fields.join(", ")))
    }

    /// The values captured so far as the fields of `Name(.., ..)`.
    pub fn tuple_literal(self, name: &str) -> Option<String> {
        let values = self.values.into_iter().collect::<Option<Vec<_>>>()?;
        Some(format!("{name}({})", values.join(", ")))
    }
}

pub trait ViaCapture {
    fn capture(&self, w: &mut Writer);
}

impl<T: Capture + ?Sized> ViaCapture for &&Wrap<'_, T> {
    fn capture(&self, w: &mut Writer) {
        w.values.push(self.0.literal())
    }
}

pub trait ViaDebug {
    fn capture(&self, w: &mut Writer);
}

impl<T: Debug + ?Sized> ViaDebug for &Wrap<'_, T> {
    fn capture(&self, w: &mut Writer) {
        w.debug(&self.0)
    }
}

pub trait ViaOpaque {
    fn capture(&self, w: &mut Writer);
}

impl<T: ?Sized> ViaOpaque for Wrap<'_, T> {
    fn capture(&self, w: &mut Writer) {
        w.opaque()
    }
}

/// The `Display` text of the value captured last: `(&&Wrap(&v)).capture_shown(w)` picks
/// [`ViaDisplay`] when the type implements `Display`, `FromStr` and `PartialEq`, and
/// [`ViaNoDisplay`] (nothing) otherwise. Probes ask only for values whose `Debug` analysis
/// cannot read back.
pub trait ViaDisplay {
    fn capture_shown(&self, w: &mut Writer);
}

impl<T: std::fmt::Display + std::str::FromStr + PartialEq> ViaDisplay for &Wrap<'_, T> {
    fn capture_shown(&self, w: &mut Writer) {
        w.shown(self.0)
    }
}

pub trait ViaNoDisplay {
    fn capture_shown(&self, w: &mut Writer);
}

impl<T: ?Sized> ViaNoDisplay for Wrap<'_, T> {
    fn capture_shown(&self, _: &mut Writer) {}
}

/// The bounds of an `impl RangeBounds<T>` argument, whose own type the probe cannot name
/// (`Debug` cannot be picked for a type parameter): its `Debug` text is the range a test
/// writes (`3..7`, `3..=7`, `3..`, `..=7`, `..`), or `Debug`-less when `T` has no `Debug`.
pub struct Bounds<'a, T>(Bound<&'a T>, Bound<&'a T>);

impl<'a, T> Bounds<'a, T> {
    pub fn of(range: &'a impl RangeBounds<T>) -> Self {
        Bounds(range.start_bound(), range.end_bound())
    }
}

impl<T: Debug> Debug for Bounds<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Bound::Included(start) => write!(f, "{start:?}")?,
            // No range syntax excludes its start: text that does not read back.
            Bound::Excluded(start) => write!(f, "(excluded {start:?})")?,
            Bound::Unbounded => {}
        }
        match self.1 {
            Bound::Included(end) => write!(f, "..={end:?}"),
            Bound::Excluded(end) => write!(f, "..{end:?}"),
            Bound::Unbounded => write!(f, ".."),
        }
    }
}

/// A probed call in progress; [`Call::exit`] logs it. Dropped without `exit` (unwinding), it is
/// logged as panicked.
pub struct Call {
    /// Depth of this call's frame on the thread's stack, for captured calls.
    depth: Option<usize>,
    /// The captured call's serial number; 0 when it is not captured.
    serial: u64,
}

impl Call {
    const OFF: Call = Call {
        depth: None,
        serial: 0,
    };
}

struct Frame {
    site: u32,
    serial: u64,
    args: Vec<Option<String>>,
    /// The `Display` text of some arguments, by index.
    shown: Vec<(usize, String)>,
    /// Index of this call's first event in the thread's event list.
    start: usize,
    /// Ranges of events that the real values behind this call's proxies caused: not the
    /// call's own reads and writes.
    hidden: Vec<(usize, usize)>,
    /// The call read more than record mode keeps.
    overflow: bool,
}

impl Frame {
    fn shows(&self, event: usize) -> bool {
        event >= self.start && !self.hidden.iter().any(|&(a, b)| (a..b).contains(&event))
    }
}

/// What was at a path.
enum There {
    Missing,
    Dir,
    File(Vec<u8>),
    /// A device, a pipe, a file too big to log, or one that could not be read.
    Other,
}

enum Event {
    /// A path read or checked, and what was there.
    Path(String, There),
    Wrote(String),
    Var(String, Option<String>),
    Stdin(Vec<u8>),
    Now(u64),
    /// Random bytes the code drew (getrandom, getentropy, the random devices).
    Random(Vec<u8>),
    /// std's `RandomState` keys, drawn by the thread's first map.
    HashKeys(Vec<u8>),
}

thread_local! {
    /// Set while record code runs, so its own libc calls are not logged.
    static BUSY: Cell<bool> = const { Cell::new(false) };
    static FRAMES: RefCell<Vec<Frame>> = const { RefCell::new(Vec::new()) };
    static EVENTS: RefCell<Vec<Event>> = const { RefCell::new(Vec::new()) };
    static EVENT_BYTES: Cell<usize> = const { Cell::new(0) };
    /// The last `Path` event of each path, so a path read again by the same call is not read
    /// (and logged) again.
    static PATHS: RefCell<BTreeMap<String, usize>> = const { RefCell::new(BTreeMap::new()) };
    static LAST_PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

/// Whether the interposers should report to the hooks.
#[inline(always)]
pub(crate) fn hooks_on() -> bool {
    HOOKS.load(Relaxed)
}

/// Called at the top of a probed function; `args` captures its arguments (receiver first).
#[inline]
pub fn enter(site: &'static Site, args: impl FnOnce(&mut Writer)) -> Call {
    match MODE.load(Relaxed) {
        ON => {}
        OFF => return Call::OFF,
        _ => {
            if !init() {
                return Call::OFF;
            }
        }
    }
    // A load and a store rather than an atomic increment: the hot path stays a few plain
    // instructions; calls of one function on several threads at once may be under-counted.
    let n = site.seen.load(Relaxed);
    // Record code's own calls of the crate (a `Display` capture parsing the value back) take
    // none of the function's captured calls, and are not the program's.
    if n < CAPTURED_PER_SITE && BUSY.get() {
        return Call::OFF;
    }
    site.seen.store(n.saturating_add(1), Relaxed);
    if n == 0 {
        busy(|| SITES.lock().map(|mut s| s.push(site)).unwrap_or(()));
    }
    // Not captured past the first calls, or from a thread-local's destructor (the thread's
    // frames may be gone).
    if n >= CAPTURED_PER_SITE || FRAMES.try_with(|_| ()).is_err() {
        return Call::OFF;
    }
    busy(|| {
        let mut w = Writer::default();
        args(&mut w);
        let start = EVENTS.with_borrow(|e| e.len());
        let serial = SERIAL.fetch_add(1, Relaxed) + 1;
        let depth = FRAMES.with_borrow_mut(|f| {
            f.push(Frame {
                site: site.id,
                serial,
                args: w.values,
                shown: w.shown,
                start,
                hidden: Vec::new(),
                overflow: false,
            });
            f.len() - 1
        });
        Call {
            depth: Some(depth),
            serial,
        }
    })
}

impl Call {
    /// Called with the function's result just before it returns.
    #[inline]
    pub fn exit(mut self, ret: impl FnOnce(&mut Writer)) {
        if let Some(depth) = self.depth.take() {
            busy(|| {
                let mut w = Writer::default();
                ret(&mut w);
                let shown = w.shown.pop().map(|(_, text)| text);
                finish(depth, Outcome::Returned(w.values.pop().flatten(), shown));
            });
        }
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if let Some(depth) = self.depth.take() {
            busy(|| {
                let msg = LAST_PANIC.with_borrow(|m| m.clone());
                finish(depth, Outcome::Panicked(msg));
            });
        }
    }
}

enum Outcome {
    /// The result's `Debug` text and `Display` text (see [`Writer::shown`]).
    Returned(Option<String>, Option<String>),
    Panicked(String),
}

/// Logs the call at `depth` (and drops frames above it that did not finish) as one JSON line.
fn finish(depth: usize, outcome: Outcome) {
    let Some(frame) = FRAMES.with_borrow_mut(|f| {
        if depth < f.len() {
            f.truncate(depth + 1);
            f.pop()
        } else {
            None
        }
    }) else {
        return;
    };
    let mut line = String::with_capacity(256);
    let _ = write!(line, "{{\"site\":{},\"args\":[", frame.site);
    for (i, a) in frame.args.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        opt_str(&mut line, a.as_deref());
    }
    line.push_str("],");
    if !frame.shown.is_empty() {
        line.push_str("\"shown\":[");
        for (i, (arg, text)) in frame.shown.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            let _ = write!(line, "[{arg},");
            json_str(&mut line, text);
            line.push(']');
        }
        line.push_str("],");
    }
    match &outcome {
        Outcome::Returned(r, shown) => {
            line.push_str("\"ret\":");
            opt_str(&mut line, r.as_deref());
            if let Some(text) = shown {
                line.push_str(",\"ret_shown\":");
                json_str(&mut line, text);
            }
        }
        Outcome::Panicked(msg) => {
            line.push_str("\"panic\":");
            json_str(&mut line, msg);
        }
    }
    if frame.overflow {
        line.push_str(",\"overflow\":true");
    }
    proxy::write_log(&mut line, frame.serial);
    line.push_str(",\"events\":[");
    EVENTS.with_borrow_mut(|events| {
        let mut first = true;
        for (i, e) in events.iter().enumerate().skip(frame.start) {
            if !frame.shows(i) {
                continue;
            }
            if !first {
                line.push(',');
            }
            first = false;
            write_event(&mut line, e);
        }
        if depth == 0 {
            events.clear();
            EVENT_BYTES.set(0);
            PATHS.with_borrow_mut(BTreeMap::clear);
        }
    });
    line.push_str("]}\n");
    write_log(line.as_bytes());
}

fn write_event(line: &mut String, e: &Event) {
    match e {
        Event::Path(p, state) => {
            line.push_str("{\"k\":\"path\",\"path\":");
            json_str(line, p);
            write_there(line, state);
            line.push('}');
        }
        Event::Wrote(p) => {
            line.push_str("{\"k\":\"wrote\",\"path\":");
            json_str(line, p);
            write_there(line, &read_path(p));
            line.push('}');
        }
        Event::Var(name, value) => {
            line.push_str("{\"k\":\"var\",\"name\":");
            json_str(line, name);
            line.push_str(",\"value\":");
            opt_str(line, value.as_deref());
            line.push('}');
        }
        Event::Stdin(data) => {
            line.push_str("{\"k\":\"stdin\",\"data\":");
            json_bytes(line, data);
            line.push('}');
        }
        Event::Now(secs) => {
            let _ = write!(line, "{{\"k\":\"now\",\"secs\":{secs}}}");
        }
        Event::Random(data) => write_hex(line, "random", data),
        Event::HashKeys(data) => write_hex(line, "hashkeys", data),
    }
}

/// Random bytes in hex: compact, and never mistaken for text.
fn write_hex(line: &mut String, kind: &str, data: &[u8]) {
    let _ = write!(line, "{{\"k\":\"{kind}\",\"hex\":\"");
    for b in data {
        let _ = write!(line, "{b:02x}");
    }
    line.push_str("\"}");
}

fn write_there(line: &mut String, there: &There) {
    match there {
        There::Missing => line.push_str(",\"state\":\"missing\""),
        There::Dir => line.push_str(",\"state\":\"dir\""),
        There::Other => line.push_str(",\"state\":\"other\""),
        There::File(data) => {
            line.push_str(",\"state\":\"file\",\"data\":");
            json_bytes(line, data);
        }
    }
}

/// Reads the log's path from the environment; opens the log, registers the exit hook and the
/// panic hook. Returns whether record mode is on.
#[cold]
fn init() -> bool {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        BUSY.set(true);
        crate::libc::link_interposers();
        let path = std::env::var_os(LOG_VAR);
        let fd = path.and_then(|p| {
            let c = std::ffi::CString::new(p.as_bytes()).ok()?;
            // SAFETY: a C string of ours.
            let fd = unsafe {
                libc::open(
                    c.as_ptr(),
                    libc::O_WRONLY | libc::O_CREAT | libc::O_APPEND | libc::O_CLOEXEC,
                    0o644,
                )
            };
            (fd >= 0).then_some(fd)
        });
        match fd {
            Some(fd) => {
                LOG_FD.store(fd, Relaxed);
                // SAFETY: `write_counts` is an `extern "C" fn()` that lives as long as the
                // process.
                unsafe { libc::atexit(write_counts) };
                let previous = std::panic::take_hook();
                std::panic::set_hook(Box::new(move |info| {
                    let msg = if let Some(s) = info.payload().downcast_ref::<&str>() {
                        s.to_string()
                    } else if let Some(s) = info.payload().downcast_ref::<String>() {
                        s.clone()
                    } else {
                        String::new()
                    };
                    LAST_PANIC.with_borrow_mut(|m| *m = msg);
                    // What the hook reads (RUST_BACKTRACE, debug info) is not the call's doing.
                    busy(|| previous(info));
                }));
                HOOKS.store(true, Relaxed);
                MODE.store(ON, Relaxed);
            }
            None => MODE.store(OFF, Relaxed),
        }
        BUSY.set(false);
    });
    MODE.load(Relaxed) == ON
}

/// Writes how often each probed function was called (at exit).
extern "C" fn write_counts() {
    BUSY.set(true);
    let mut line = String::from("{\"counts\":[");
    if let Ok(sites) = SITES.lock() {
        for (i, s) in sites.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            let _ = write!(line, "[{},{}]", s.id, s.seen.load(Relaxed));
        }
    }
    line.push_str("]}\n");
    write_log(line.as_bytes());
}

fn write_log(mut bytes: &[u8]) {
    let fd = LOG_FD.load(Relaxed);
    while !bytes.is_empty() {
        // SAFETY: writes our own buffer.
        let n = unsafe { libc::write(fd, bytes.as_ptr().cast(), bytes.len()) };
        if n <= 0 {
            return;
        }
        bytes = &bytes[n as usize..];
    }
}

/// Runs `f` with this thread's libc calls unlogged.
fn busy<T>(f: impl FnOnce() -> T) -> T {
    let was = BUSY.replace(true);
    let r = f();
    BUSY.set(was);
    r
}

/// Logs `event()` against the open captured calls of this thread, if any.
fn log(event: impl FnOnce() -> Option<Event>) {
    if BUSY.get() || FRAMES.try_with(|f| f.borrow().is_empty()).unwrap_or(true) {
        return;
    }
    let errno = crate::active::errno();
    busy(|| {
        if let Some(e) = event() {
            push(e);
        }
    });
    crate::active::set_errno(errno);
}

/// Adds an event, unless the thread's open calls have logged too much already: then they are
/// marked as overflowing.
fn push(e: Event) {
    let size = match &e {
        Event::Path(p, There::File(data)) => p.len() + data.len(),
        Event::Stdin(data) | Event::Random(data) | Event::HashKeys(data) => data.len(),
        _ => 16,
    };
    let bytes = EVENT_BYTES.get() + size;
    let full = EVENTS.with_borrow(|events| events.len() >= MAX_EVENTS) || bytes > MAX_EVENT_BYTES;
    if full {
        FRAMES.with_borrow_mut(|frames| frames.iter_mut().for_each(|f| f.overflow = true));
        return;
    }
    EVENT_BYTES.set(bytes);
    let start = FRAMES.with_borrow(|f| f.last().map_or(0, |f| f.start));
    EVENTS.with_borrow_mut(|events| {
        // Consecutive reads of stdin by the same call are one event: stdin comes a line per
        // read, and a call that reads to the end would otherwise log an event per line.
        let ours = events.len() > start;
        if let (Event::Stdin(more), Some(Event::Stdin(data)), true) = (&e, events.last_mut(), ours)
        {
            data.extend_from_slice(more);
            return;
        }
        if let Event::Path(p, _) = &e {
            PATHS.with_borrow_mut(|paths| paths.insert(p.clone(), events.len()));
        }
        events.push(e);
    });
}

/// Whether the innermost open call already logged `path` (a read by the real value behind one
/// of its proxies does not count: it is not the call's).
fn path_logged(path: &str) -> bool {
    let Some(i) = PATHS.with_borrow(|paths| paths.get(path).copied()) else {
        return false;
    };
    FRAMES.with_borrow(|f| f.last().is_some_and(|f| f.shows(i)))
}

/// What is at `path` now.
fn read_path(path: &str) -> There {
    let Ok(meta) = std::fs::metadata(path) else {
        return There::Missing;
    };
    if meta.is_dir() {
        return There::Dir;
    }
    if !meta.is_file() || meta.len() > MAX_FILE {
        return There::Other;
    }
    std::fs::read(path).map_or(There::Other, There::File)
}

/// A C string argument as text (`None` for NULL).
///
/// # Safety
///
/// `path` is NULL or a C string.
unsafe fn path_string(path: *const libc::c_char) -> Option<String> {
    if path.is_null() {
        return None;
    }
    // SAFETY: a C string (this function's contract).
    let bytes = unsafe { CStr::from_ptr(path) }.to_bytes();
    Some(String::from_utf8_lossy(bytes).into_owned())
}

/// After a real `open`: a read is logged with what was there, a write with the path (its
/// contents are read when the call returns).
///
/// # Safety
///
/// `path` is NULL or a C string (the one the open was given).
pub(crate) unsafe fn on_open(
    dirfd: libc::c_int,
    path: *const libc::c_char,
    flags: libc::c_int,
    fd: libc::c_int,
) {
    if fd >= 0 && !path.is_null() && !BUSY.get() {
        // SAFETY: a C string (this function's contract).
        let opened = unsafe { CStr::from_ptr(path) }.to_bytes();
        if random_fds::is_device(opened) {
            random_fds::opened(fd);
        }
    }
    if dirfd != libc::AT_FDCWD {
        return;
    }
    log(|| {
        // SAFETY: NULL or a C string (this function's contract).
        let p = unsafe { path_string(path) }?;
        if flags & libc::O_ACCMODE != libc::O_RDONLY || flags & libc::O_CREAT != 0 {
            (fd >= 0).then_some(Event::Wrote(p))
        } else if path_logged(&p) {
            None
        } else {
            let state = read_path(&p);
            Some(Event::Path(p, state))
        }
    });
}

/// After a real `stat`: the path and what is there.
///
/// # Safety
///
/// `path` is NULL or a C string.
pub(crate) unsafe fn on_stat(path: *const libc::c_char) {
    log(|| {
        // SAFETY: NULL or a C string (this function's contract).
        let p = unsafe { path_string(path) }?;
        if path_logged(&p) {
            return None;
        }
        let state = read_path(&p);
        Some(Event::Path(p, state))
    });
}

/// After a real `getenv`: the variable and its value (`None`: unset).
///
/// # Safety
///
/// `name` and `value` are NULL or C strings.
pub(crate) unsafe fn on_getenv(name: *const libc::c_char, value: *const libc::c_char) {
    log(|| {
        // SAFETY: NULL or C strings (this function's contract).
        let (n, v) = unsafe { (path_string(name)?, path_string(value)) };
        Some(Event::Var(n, v))
    });
}

/// After a real read of fd 0 that returned `data`.
pub(crate) fn on_stdin(data: &[u8]) {
    log(|| Some(Event::Stdin(data.to_vec())));
}

pub(crate) fn on_now(secs: i64) {
    log(|| Some(Event::Now(secs.max(0) as u64)));
}

/// After a real draw of random bytes.
pub(crate) fn on_random(data: &[u8], draw: crate::rng::Draw) {
    log(|| {
        Some(match draw {
            crate::rng::Draw::HashKeys => Event::HashKeys(data.to_vec()),
            _ => Event::Random(data.to_vec()),
        })
    });
}

/// After a real `close`.
pub(crate) fn on_close(fd: libc::c_int) {
    random_fds::closed(fd);
}

/// Whether a read of `fd` goes through [`read`]: in record mode. A read of stdin switches
/// record mode on when no probe has yet, so that lines read before the first call are handed
/// out one at a time too.
#[inline(always)]
pub(crate) fn reads_hooked(fd: libc::c_int) -> bool {
    match MODE.load(Relaxed) {
        ON => true,
        UNKNOWN if fd == 0 => init(),
        _ => false,
    }
}

/// `read` in record mode: stdin a line at a time, logged; the random devices logged.
///
/// # Safety
///
/// `buf` is valid for writes of `n` bytes (read's contract).
pub(crate) unsafe fn read(fd: libc::c_int, buf: *mut libc::c_void, n: usize) -> isize {
    if fd == 0 {
        // SAFETY: `n` writable bytes (this function's contract).
        let r = unsafe { stdin::read(buf, n) };
        if r > 0 {
            // SAFETY: the `r` bytes just read into `buf`.
            on_stdin(unsafe { crate::libc::slice(buf, r as usize) });
        }
        return r;
    }
    // SAFETY: glibc's read, with the caller's arguments.
    let r = unsafe {
        crate::real::real!(read: fn(libc::c_int, *mut libc::c_void, usize) -> isize)(fd, buf, n)
    };
    if r > 0 && random_fds::contains(fd) {
        // SAFETY: the `r` bytes just read into `buf`.
        let drawn = unsafe { crate::libc::slice(buf, r as usize) };
        on_random(drawn, crate::rng::Draw::Code);
    }
    r
}

fn opt_str(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => json_str(out, s),
        None => out.push_str("null"),
    }
}

fn json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Text as a JSON string, other bytes as an array of numbers.
fn json_bytes(out: &mut String, data: &[u8]) {
    match std::str::from_utf8(data) {
        Ok(s) => json_str(out, s),
        Err(_) => {
            out.push('[');
            for (i, b) in data.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{b}");
            }
            out.push(']');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_bounds_show_as_the_range_a_test_writes() {
        let text = |b: Bounds<'_, u64>| format!("{b:?}");
        assert_eq!(text(Bounds::of(&(3..7))), "3..7");
        assert_eq!(text(Bounds::of(&(3..=7))), "3..=7");
        assert_eq!(text(Bounds::of(&(3..))), "3..");
        assert_eq!(text(Bounds::of(&(..=7))), "..=7");
        assert_eq!(text(Bounds::of(&(..))), "..");
    }

    #[test]
    // The double borrow is the point: it is how probes pick `Debug` when there is one.
    #[allow(clippy::needless_borrow)]
    fn values_without_debug_are_opaque() {
        struct NoDebug;
        let mut w = Writer::default();
        (&&Wrap(&"a\n")).capture(&mut w);
        (&&Wrap(&NoDebug)).capture(&mut w);
        (&&Wrap(&vec![Some(1)])).capture(&mut w);
        assert_eq!(
            w.values,
            vec![Some("\"a\\n\"".into()), None, Some("[Some(1)]".into())]
        );
    }

    #[test]
    #[allow(clippy::needless_borrow)]
    fn values_with_a_capture_impl_are_written_as_literals_field_by_field() {
        struct NoDebug;
        struct Hasher {
            amount: u64,
            spec: Option<char>,
        }
        impl Debug for Hasher {
            fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("Hasher { .. }")
            }
        }
        // What the probed copy generates.
        impl Capture for Hasher {
            fn literal(&self) -> Option<String> {
                let mut w = Writer::default();
                (&&&Wrap(&self.amount)).capture(&mut w);
                (&&&Wrap(&self.spec)).capture(&mut w);
                w.named_literal("Hasher", &["amount", "spec"])
            }
        }
        struct Opaque(NoDebug, u8);
        impl Capture for Opaque {
            fn literal(&self) -> Option<String> {
                let mut w = Writer::default();
                (&&&Wrap(&self.0)).capture(&mut w);
                (&&&Wrap(&self.1)).capture(&mut w);
                w.tuple_literal("Opaque")
            }
        }
        let h = Hasher {
            amount: 3,
            spec: Some('x'),
        };
        let mut w = Writer::default();
        (&&&Wrap(&h)).capture(&mut w);
        (&&&Wrap(&&h)).capture(&mut w);
        (&&&Wrap(&Some(&h))).capture(&mut w);
        (&&&Wrap(&Opaque(NoDebug, 1))).capture(&mut w);
        (&&&Wrap(&7u8)).capture(&mut w);
        (&&&Wrap(&NoDebug)).capture(&mut w);
        let h = "Hasher { amount: 3, spec: Some('x') }".to_string();
        assert_eq!(
            w.values,
            vec![
                Some(h.clone()),
                Some(h.clone()),
                Some(format!("Some({h})")),
                None,
                Some("7".into()),
                None
            ]
        );
    }

    #[test]
    #[allow(clippy::needless_borrow)]
    fn display_text_is_kept_when_it_parses_back_to_the_same_value() {
        #[derive(PartialEq)]
        struct Lossy(f64);
        impl std::fmt::Display for Lossy {
            fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                write!(f, "{:.1}", self.0)
            }
        }
        impl std::str::FromStr for Lossy {
            type Err = std::num::ParseFloatError;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                s.parse().map(Lossy)
            }
        }
        struct NoDisplay;
        let mut w = Writer::default();
        for (i, v) in [Lossy(1.5), Lossy(1.25)].iter().enumerate() {
            (&&Wrap(v)).capture(&mut w);
            (&&Wrap(v)).capture_shown(&mut w);
            assert_eq!(w.values[i], None);
        }
        (&&Wrap(&NoDisplay)).capture(&mut w);
        (&&Wrap(&NoDisplay)).capture_shown(&mut w);
        (&&Wrap(&std::net::Ipv4Addr::LOCALHOST)).capture(&mut w);
        (&&Wrap(&std::net::Ipv4Addr::LOCALHOST)).capture_shown(&mut w);
        // 1.25 shows as 1.2, another value: only what round-trips is kept.
        assert_eq!(
            w.shown,
            vec![(0, "1.5".to_string()), (3, "127.0.0.1".to_string())]
        );
    }

    #[test]
    fn json_escapes_text_and_keeps_bytes() {
        let mut s = String::new();
        json_str(&mut s, "a\"b\\\n\u{1}");
        assert_eq!(s, "\"a\\\"b\\\\\\n\\u0001\"");
        let mut b = String::new();
        json_bytes(&mut b, &[0xff, 1]);
        assert_eq!(b, "[255,1]");
    }
}
