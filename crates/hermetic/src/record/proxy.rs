//! Recording proxies for trait-typed arguments (seed 002: recorded interactions with a
//! dependency become a mock that replays them).
//!
//! `cargo hermetic record` generates, for each crate trait a mock can implement, a proxy type
//! that implements the trait by forwarding every method to the real value it holds (a
//! [`Holder`]: `&dyn T`, `&mut dyn T`, `Box<dyn T>` or an [`Owned`] value). A probe hands the
//! function proxies instead of its trait-typed arguments; each proxy logs through its [`Tap`],
//! per method, the `Debug` text of every value it returned, in call order, against the probed
//! call, and with it the `Debug` text of the arguments for methods whose calls the recorded mock
//! tells apart by arguments ([`Tap::calling_with`]). A method returning `Box<dyn U>` gets the returned box wrapped in a proxy of `U`, a new
//! node of the call's tree of proxies (a connection hands out statements, which hand out rows).
//!
//! What the real value reads and writes while a proxy forwards to it is hidden from the call's
//! events: the replayed call gets a mock instead, which reads nothing.

use super::{busy, Writer, EVENTS, FRAMES};
use std::fmt::Write as _;
use std::sync::Mutex;

/// What a proxy holds: the real value, reached by reference.
pub trait Holder {
    type Target: ?Sized;
    fn get(&self) -> &Self::Target;
    fn get_mut(&mut self) -> &mut Self::Target;
}

impl<T: ?Sized> Holder for &T {
    type Target = T;
    fn get(&self) -> &T {
        self
    }
    /// Never called: code given `&Proxy` (as `&dyn T` or `&impl T`) can only reach `&self`
    /// methods, but the trait's impl must exist for every method.
    fn get_mut(&mut self) -> &mut T {
        unreachable!("hermetic record: a proxy behind a shared reference was used mutably")
    }
}

impl<T: ?Sized> Holder for &mut T {
    type Target = T;
    fn get(&self) -> &T {
        self
    }
    fn get_mut(&mut self) -> &mut T {
        self
    }
}

impl<T: ?Sized> Holder for Box<T> {
    type Target = T;
    fn get(&self) -> &T {
        self
    }
    fn get_mut(&mut self) -> &mut T {
        self
    }
}

/// A trait-typed argument passed by value (`impl T`, `P: T`).
pub struct Owned<T>(pub T);

impl<T> Holder for Owned<T> {
    type Target = T;
    fn get(&self) -> &T {
        &self.0
    }
    fn get_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// Where a proxy logs: the captured call it was made for, and its node in that call's tree of
/// proxies. A tap of a call that is not captured logs nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tap {
    call: u64,
    node: u32,
}

impl Tap {
    const OFF: Tap = Tap { call: 0, node: 0 };
}

/// What one proxied call did, in order.
#[derive(Debug, PartialEq)]
enum Entry {
    /// Node `node` is the proxy of the call's argument `arg` (the receiver counts).
    Arg { node: u32, arg: u32 },
    /// A method was called and has not returned (yet).
    Open { at: Method },
    /// It returned a value, with this `Debug` text (`None`: the type has no `Debug`).
    Value { at: Method, text: Option<String> },
    /// It returned a box, now the proxy `child`.
    Boxed { at: Method, child: u32 },
}

/// A call of a proxy's method: the proxy, the method, and its arguments' `Debug` texts when
/// they were captured (`None` each without `Debug`).
#[derive(Debug, PartialEq)]
struct Method {
    node: u32,
    method: u32,
    args: Option<Vec<Option<String>>>,
}

struct Open {
    call: u64,
    nodes: u32,
    entries: Vec<Entry>,
}

impl Open {
    /// The method call of entry `at` while it is open; the entry is left to be replaced.
    fn take_open(&mut self, at: usize) -> Option<Method> {
        match self.entries.get_mut(at) {
            Some(Entry::Open { at: m }) => Some(Method {
                args: m.args.take(),
                ..*m
            }),
            _ => None,
        }
    }
}

/// The calls with proxies that are still open, on any thread (a proxy may be used from a
/// thread the call started). Touched only by captured calls' proxies.
static OPEN: Mutex<Vec<Open>> = Mutex::new(Vec::new());

fn with_open<T>(call: u64, create: bool, f: impl FnOnce(&mut Open) -> T) -> Option<T> {
    let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
    let at = match open.iter().position(|o| o.call == call) {
        Some(at) => at,
        None if create => {
            open.push(Open {
                call,
                nodes: 0,
                entries: Vec::new(),
            });
            open.len() - 1
        }
        None => return None,
    };
    Some(f(&mut open[at]))
}

impl super::Call {
    /// The tap for the proxy of argument `arg` (the receiver counts).
    pub fn tap(&self, arg: u32) -> Tap {
        if self.serial == 0 {
            return Tap::OFF;
        }
        busy(|| {
            with_open(self.serial, true, |o| {
                let node = o.nodes;
                o.nodes += 1;
                o.entries.push(Entry::Arg { node, arg });
                Tap {
                    call: self.serial,
                    node,
                }
            })
            .unwrap_or(Tap::OFF)
        })
    }
}

impl Tap {
    /// A proxy's method `method` (its index among the mock's set-up methods) is called; its
    /// value is logged by [`Slot::returned`] or [`Slot::returned_box`].
    pub fn calling(&self, method: u32) -> Slot {
        self.open(method, None)
    }

    /// As [`Tap::calling`], for a method whose calls a recorded mock tells apart by their
    /// arguments: `args` captures them (as a probe's arguments), before the real value gets
    /// them.
    pub fn calling_with(&self, method: u32, args: impl FnOnce(&mut Writer)) -> Slot {
        if self.call == 0 {
            return Slot::OFF;
        }
        let args = busy(|| {
            let mut w = Writer::default();
            args(&mut w);
            w.values
        });
        self.open(method, Some(args))
    }

    fn open(&self, method: u32, args: Option<Vec<Option<String>>>) -> Slot {
        if self.call == 0 {
            return Slot::OFF;
        }
        busy(|| {
            let at = Method {
                node: self.node,
                method,
                args,
            };
            let entry = with_open(self.call, false, |o| {
                o.entries.push(Entry::Open { at });
                o.entries.len() - 1
            });
            Slot {
                call: self.call,
                entry,
                hide_from: hide_from(self.call),
            }
        })
    }

    /// A proxy's method that returns nothing is called: nothing is logged, but what the real
    /// value does meanwhile is hidden from the call.
    pub fn forwarding(&self) -> Slot {
        if self.call == 0 {
            return Slot::OFF;
        }
        busy(|| Slot {
            call: self.call,
            entry: None,
            hide_from: hide_from(self.call),
        })
    }
}

/// The first event the real value may log, when the call is open on this thread.
fn hide_from(call: u64) -> Option<usize> {
    let here = FRAMES
        .try_with(|f| f.borrow().iter().any(|f| f.serial == call))
        .unwrap_or(false);
    here.then(|| EVENTS.with_borrow(Vec::len))
}

/// A proxied method in progress. Dropped without a value (the real method panicked), it stays
/// logged as open, and the call cannot be replayed.
pub struct Slot {
    call: u64,
    entry: Option<usize>,
    hide_from: Option<usize>,
}

impl Slot {
    const OFF: Slot = Slot {
        call: 0,
        entry: None,
        hide_from: None,
    };

    /// The method returned the value `value` captures.
    pub fn returned(mut self, value: impl FnOnce(&mut Writer)) {
        let Some(at) = self.entry.take() else {
            return;
        };
        busy(|| {
            let mut w = Writer::default();
            value(&mut w);
            let text = w.values.pop().flatten();
            with_open(self.call, false, |o| {
                if let Some(m) = o.take_open(at) {
                    o.entries[at] = Entry::Value { at: m, text };
                }
            });
        })
    }

    /// The method returned a box: the tap for the proxy that wraps it.
    pub fn returned_box(mut self) -> Tap {
        let Some(at) = self.entry.take() else {
            return Tap::OFF;
        };
        busy(|| {
            with_open(self.call, false, |o| {
                let Some(m) = o.take_open(at) else {
                    return Tap::OFF;
                };
                let child = o.nodes;
                o.nodes += 1;
                o.entries[at] = Entry::Boxed { at: m, child };
                Tap {
                    call: self.call,
                    node: child,
                }
            })
            .unwrap_or(Tap::OFF)
        })
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let Some(from) = self.hide_from.take() else {
            return;
        };
        let call = self.call;
        busy(|| {
            let to = EVENTS.with_borrow(Vec::len);
            let _ = FRAMES.try_with(|f| {
                if let Some(frame) = f.borrow_mut().iter_mut().find(|f| f.serial == call) {
                    frame.hidden.push((from, to));
                }
            });
        })
    }
}

/// Appends `,"proxies":[..]` for the call `serial` to its log line, if it had proxies, and
/// forgets them.
pub(super) fn write_log(line: &mut String, serial: u64) {
    let entries = {
        let mut open = OPEN.lock().unwrap_or_else(|e| e.into_inner());
        match open.iter().position(|o| o.call == serial) {
            Some(at) => open.swap_remove(at).entries,
            None => return,
        }
    };
    line.push_str(",\"proxies\":[");
    for (i, e) in entries.iter().enumerate() {
        if i > 0 {
            line.push(',');
        }
        match e {
            Entry::Arg { node, arg } => {
                let _ = write!(line, "{{\"k\":\"arg\",\"node\":{node},\"arg\":{arg}");
            }
            Entry::Open { at } => write_method(line, "open", at),
            Entry::Value { at, text } => {
                write_method(line, "ret", at);
                line.push_str(",\"text\":");
                super::opt_str(line, text.as_deref());
            }
            Entry::Boxed { at, child } => {
                write_method(line, "box", at);
                let _ = write!(line, ",\"child\":{child}");
            }
        }
        line.push('}');
    }
    line.push(']');
}

/// `{"k":"ret","node":0,"method":1,"args":["1"]`: the start of an entry for a method call,
/// left open for what it returned.
fn write_method(line: &mut String, kind: &str, at: &Method) {
    let _ = write!(
        line,
        "{{\"k\":\"{kind}\",\"node\":{},\"method\":{}",
        at.node, at.method
    );
    if let Some(args) = &at.args {
        line.push_str(",\"args\":[");
        for (i, a) in args.iter().enumerate() {
            if i > 0 {
                line.push(',');
            }
            super::opt_str(line, a.as_deref());
        }
        line.push(']');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(serial: u64) -> super::super::Call {
        super::super::Call {
            depth: None,
            serial,
        }
    }

    #[test]
    // The double borrow is the point: it is how proxies pick `Debug` when there is one.
    #[allow(clippy::needless_borrow)]
    fn a_tree_of_proxies_is_logged_in_call_order() {
        use super::super::{ViaDebug as _, ViaOpaque as _, Wrap};
        let c = call(u64::MAX - 1);
        let root = c.tap(1);
        root.calling(0).returned(|w| (&&Wrap(&Some(4))).capture(w));
        let child = root.calling(2).returned_box();
        struct NoDebug;
        child.calling(0).returned(|w| (&&Wrap(&NoDebug)).capture(w));
        drop(child.calling(1));
        // A method told apart by its arguments logs them, `Debug` or not.
        let column = 2usize;
        child
            .calling_with(3, |w| {
                (&&Wrap(&column)).capture(w);
                (&&Wrap(&"ada")).capture(w);
                (&&Wrap(&NoDebug)).capture(w);
            })
            .returned(|w| (&&Wrap(&"engineer")).capture(w));
        let mut line = String::new();
        write_log(&mut line, c.serial);
        assert_eq!(
            line,
            concat!(
                ",\"proxies\":[{\"k\":\"arg\",\"node\":0,\"arg\":1},",
                "{\"k\":\"ret\",\"node\":0,\"method\":0,\"text\":\"Some(4)\"},",
                "{\"k\":\"box\",\"node\":0,\"method\":2,\"child\":1},",
                "{\"k\":\"ret\",\"node\":1,\"method\":0,\"text\":null},",
                "{\"k\":\"open\",\"node\":1,\"method\":1},",
                "{\"k\":\"ret\",\"node\":1,\"method\":3,\"args\":[\"2\",\"\\\"ada\\\"\",null],",
                "\"text\":\"\\\"engineer\\\"\"}]"
            )
        );
        // Forgotten once written; a proxy used after its call returned logs nothing.
        root.calling(0).returned(|w| w.opaque());
        let mut again = String::new();
        write_log(&mut again, c.serial);
        assert_eq!(again, "");
    }

    #[test]
    fn a_call_that_is_not_captured_has_silent_proxies() {
        let tap = call(0).tap(0);
        assert_eq!(tap, Tap::OFF);
        assert!(tap.calling(0).entry.is_none());
        let slot = tap.calling_with(0, |_| unreachable!("a silent proxy captures nothing"));
        assert!(slot.entry.is_none());
        assert_eq!(tap.calling(0).returned_box(), Tap::OFF);
    }

    #[test]
    fn holders_reach_the_real_value() {
        let mut n = 3;
        let mut by_mut: &mut i32 = &mut n;
        *by_mut.get_mut() += 1;
        assert_eq!(*by_mut.get(), 4);
        let mut owned = Owned(String::from("a"));
        owned.get_mut().push('b');
        assert_eq!(owned.get(), "ab");
        let boxed: Box<dyn std::fmt::Debug> = Box::new(1);
        assert_eq!(format!("{:?}", boxed.get()), "1");
    }
}
