//! Return values for generated mocks: what each mocked method gives back, call after call.
//!
//! `cargo hermetic generate` writes one mock type per trait a test needs (`MockLedger` for
//! `Ledger`), with a [`Returns`] per method. A test sets up the values it needs; the mock hands
//! them out in order, and the last one again on later calls when the type is `Clone`. A method
//! called for a value the test never set up panics: the code under test changed since the test
//! was generated, and the test must be regenerated rather than pass on a made-up default.
//! Calls of a generated test's mock are not verified (how often, in what order): such checks
//! break on harmless changes.
//!
//! `cargo hermetic record` writes the same mock types, built with `MockLedger::recorded()`:
//! their values are what the real dependency returned in a recorded run, so each is given once
//! and a mock dropped with values left fails the test (seed 002's `verify`: the code asks its
//! dependency for less than it did when the test was recorded). Asking for more fails as
//! before.
//!
//! A recorded mock's method that takes arguments is set up per list of arguments (seed 002's
//! access events: `get(1)` returned "ada", `get(2)` "engineer"), with
//! [`Returns::set_for`]; a call finds the values for its arguments by their `Debug` text, so
//! any `Debug` argument type will do and none needs `PartialEq`. A call with arguments the
//! recorded run never passed is a change in the code under test, and panics saying which were
//! passed.

use std::collections::VecDeque;
use std::fmt::Debug;
use std::sync::Mutex;

/// The values one mocked method returns, in order.
pub struct Returns<T> {
    values: Mutex<Values<T>>,
    /// For a recorded mock: the method's name (`Ledger::balance`).
    recorded: Option<&'static str>,
}

/// What a [`Returns`] has still to give.
struct Values<T> {
    /// Set up by [`Returns::set`], for calls with any arguments.
    any: VecDeque<T>,
    /// How many values `set` set up.
    any_set_up: usize,
    /// Set up by [`Returns::set_for`], in the order they were set up.
    by_args: Vec<ForArgs<T>>,
}

/// The values for calls with one list of arguments (seed 002's access event).
struct ForArgs<T> {
    /// The arguments' `Debug` text, as a call would write them: `"visits-ada", "3"`.
    args: String,
    values: VecDeque<T>,
    set_up: usize,
}

impl<T> Values<T> {
    fn left(&self) -> usize {
        self.any.len() + self.by_args.iter().map(|g| g.values.len()).sum::<usize>()
    }
}

impl<T> Default for Returns<T> {
    /// No values: any call panics with the "regenerate" message.
    fn default() -> Self {
        Returns::with(None)
    }
}

impl<T> std::fmt::Debug for Returns<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Returns({} left)", self.left())
    }
}

impl<T> Returns<T> {
    pub fn new(values: impl IntoIterator<Item = T>) -> Self {
        let mut r = Returns::default();
        r.set(values);
        r
    }

    /// No values yet, for method `method` (`Ledger::balance`) of a recorded mock: each value
    /// is given once, and all must be asked for before the mock is dropped.
    pub fn recorded(method: &'static str) -> Self {
        Returns::with(Some(method))
    }

    fn with(recorded: Option<&'static str>) -> Self {
        Returns {
            values: Mutex::new(Values {
                any: VecDeque::new(),
                any_set_up: 0,
                by_args: Vec::new(),
            }),
            recorded,
        }
    }

    /// Sets the values up for calls with any arguments (replacing any such values), keeping
    /// the mode.
    pub fn set(&mut self, values: impl IntoIterator<Item = T>) {
        let v = self.values.get_mut().unwrap_or_else(|e| e.into_inner());
        v.any = values.into_iter().collect();
        v.any_set_up = v.any.len();
    }

    /// Sets values up for calls with the arguments `args` (after those already set up for
    /// them), handed out by [`Returns::next_for`]. Arguments are told apart by their `Debug`
    /// text, so any argument type with `Debug` will do, references included.
    pub fn set_for(&mut self, args: &[&dyn Debug], values: impl IntoIterator<Item = T>) {
        let args = args_text(args);
        let v = self.values.get_mut().unwrap_or_else(|e| e.into_inner());
        let at = match v.by_args.iter().position(|g| g.args == args) {
            Some(at) => at,
            None => {
                v.by_args.push(ForArgs {
                    args,
                    values: VecDeque::new(),
                    set_up: 0,
                });
                v.by_args.len() - 1
            }
        };
        let group = &mut v.by_args[at];
        let before = group.values.len();
        group.values.extend(values);
        group.set_up += group.values.len() - before;
    }

    /// How many values are still set up.
    pub fn left(&self) -> usize {
        self.lock().left()
    }

    /// The next value; each value is given out once. `method` names the mocked method
    /// (`Ledger::balance`) for the panic message.
    #[track_caller]
    pub fn next_once(&self, method: &str) -> T {
        let next = self.lock().any.pop_front();
        next.unwrap_or_else(|| not_set_up(method, self.recorded.is_some()))
    }

    /// The next value for a call with the arguments `args`, once each. Without values set up
    /// by [`Returns::set_for`], as [`Returns::next_once`]; with them, arguments nothing was set
    /// up for panic, naming the arguments that were.
    #[track_caller]
    pub fn next_for(&self, args: &[&dyn Debug], method: &str) -> T {
        let mut values = self.lock();
        if values.by_args.is_empty() {
            drop(values);
            return self.next_once(method);
        }
        let args = args_text(args);
        let Some(group) = values.by_args.iter_mut().find(|g| g.args == args) else {
            let known: Vec<String> = values.by_args.iter().map(|g| g.args.clone()).collect();
            drop(values);
            unknown_args(method, &args, &known, self.recorded.is_some())
        };
        let next = group.values.pop_front();
        drop(values);
        next.unwrap_or_else(|| not_set_up(&format!("{method}({args})"), self.recorded.is_some()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Values<T>> {
        // A panic elsewhere cannot leave the values half-changed.
        self.values.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<T: Clone> Returns<T> {
    /// The next value; the last one is given out again on every later call.
    #[track_caller]
    pub fn next(&self, method: &str) -> T {
        if self.recorded.is_some() {
            return self.next_once(method);
        }
        let mut values = self.lock();
        match values.any.len() {
            0 => {
                drop(values);
                not_set_up(method, false)
            }
            1 => values.any[0].clone(),
            _ => values.any.pop_front().expect("non-empty"),
        }
    }
}

impl<T> Drop for Returns<T> {
    /// A recorded mock checks that the code asked for every recorded value (unless the test is
    /// failing already).
    fn drop(&mut self) {
        let Some(method) = self.recorded else {
            return;
        };
        if std::thread::panicking() {
            return;
        }
        let v = self.values.get_mut().unwrap_or_else(|e| e.into_inner());
        let mut short = Vec::new();
        if !v.any.is_empty() {
            short.push(called(method, v.any_set_up, v.any.len()));
        }
        for g in v.by_args.iter().filter(|g| !g.values.is_empty()) {
            let call = format!("{method}({})", g.args);
            short.push(called(&call, g.set_up, g.values.len()));
        }
        if !short.is_empty() {
            panic!(
                "{NOT_SET_UP} {}. The code under test has changed since the test was recorded: \
                 regenerate it with `cargo hermetic record`.",
                short.join("; ")
            );
        }
    }
}

/// "`Store::get(\"ada\")` was called 1 time(s), 2 in the recorded run".
fn called(call: &str, set_up: usize, left: usize) -> String {
    format!(
        "`{call}` was called {} time(s), {set_up} in the recorded run",
        set_up - left
    )
}

/// Arguments as a call writes them, each by its `Debug` text: `"visits-ada", "3"`.
fn args_text(args: &[&dyn Debug]) -> String {
    let texts: Vec<String> = args.iter().map(|a| format!("{a:?}")).collect();
    texts.join(", ")
}

/// The first words of the panic a mock gives for a call its test did not set up.
pub const NOT_SET_UP: &str = "hermetic mock:";

#[track_caller]
fn not_set_up(method: &str, recorded: bool) -> ! {
    let (when, command) = regenerate(recorded);
    panic!(
        "{NOT_SET_UP} `{method}` was called more often than this test set up. The code under \
         test has changed since the test was {when}: regenerate it with \
         `cargo hermetic {command}`."
    )
}

/// A call with arguments the test set up no values for: which they were, and which were.
#[track_caller]
fn unknown_args(method: &str, args: &str, known: &[String], recorded: bool) -> ! {
    let (when, command) = regenerate(recorded);
    let known: Vec<String> = known.iter().map(|k| format!("`{method}({k})`")).collect();
    let only = if recorded {
        "the recorded run only called"
    } else {
        "this test only set up"
    };
    panic!(
        "{NOT_SET_UP} `{method}({args})` was called, but {only} {}. The code under test has \
         changed since the test was {when}: regenerate it with `cargo hermetic {command}`.",
        known.join(", ")
    )
}

/// How the test came to be, and the command that makes it again.
fn regenerate(recorded: bool) -> (&'static str, &'static str) {
    if recorded {
        ("recorded", "record")
    } else {
        ("generated", "generate")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_in_order_and_the_last_repeats() {
        let r = Returns::new([5, 42]);
        assert_eq!(r.next("X::next"), 5);
        assert_eq!(r.next("X::next"), 42);
        assert_eq!(r.next("X::next"), 42);
    }

    #[test]
    fn values_that_cannot_be_cloned_are_given_once() {
        struct Token(u8);
        let r = Returns::new([Token(1), Token(2)]);
        assert_eq!(r.next_once("X::take").0, 1);
        assert_eq!(r.next_once("X::take").0, 2);
        assert_eq!(r.left(), 0);
    }

    #[test]
    #[should_panic(expected = "hermetic mock: `Ledger::balance` was called more often")]
    fn a_call_nobody_set_up_asks_for_regeneration() {
        Returns::<u64>::default().next("Ledger::balance");
    }

    fn recorded<T>(values: impl IntoIterator<Item = T>) -> Returns<T> {
        let mut r = Returns::recorded("Ledger::balance");
        r.set(values);
        r
    }

    #[test]
    fn a_recorded_mock_gives_each_value_once() {
        let r = recorded([5, 42]);
        assert_eq!(r.next("Ledger::balance"), 5);
        assert_eq!(r.next("Ledger::balance"), 42);
        assert_eq!(r.left(), 0);
    }

    #[test]
    #[should_panic(
        expected = "was called more often than this test set up. The code under test \
                               has changed since the test was recorded: regenerate it with \
                               `cargo hermetic record`"
    )]
    fn a_recorded_mock_asked_once_more_asks_for_regeneration() {
        let r = recorded([5]);
        r.next("Ledger::balance");
        r.next("Ledger::balance");
    }

    #[test]
    #[should_panic(expected = "`Ledger::balance` was called 1 time(s), 2 in the recorded run")]
    fn a_recorded_mock_asked_less_fails_when_dropped() {
        let r = recorded([5, 6]);
        r.next("Ledger::balance");
    }

    #[test]
    #[should_panic(expected = "the code's own panic")]
    fn a_failing_test_is_not_failed_again_by_its_recorded_mock() {
        let _r = recorded([5, 6]);
        panic!("the code's own panic");
    }

    #[test]
    #[should_panic(expected = "regenerate it with `cargo hermetic generate`")]
    fn running_out_of_once_values_asks_for_regeneration() {
        let r = Returns::new([String::new()]);
        r.next_once("Rows::next");
        r.next_once("Rows::next");
    }

    /// `Rows::get` as a recorded run saw it: column 1 twice, column 2 once.
    fn columns() -> Returns<String> {
        let mut r = Returns::recorded("Rows::get");
        r.set_for(&[&1usize], ["ada".to_string(), "grace".to_string()]);
        r.set_for(&[&2usize], ["engineer".to_string()]);
        r
    }

    #[test]
    fn values_set_up_by_arguments_come_per_arguments_in_order() {
        let r = columns();
        assert_eq!(r.next_for(&[&2usize], "Rows::get"), "engineer");
        assert_eq!(r.next_for(&[&1usize], "Rows::get"), "ada");
        assert_eq!(r.next_for(&[&1usize], "Rows::get"), "grace");
        assert_eq!(r.left(), 0);
    }

    #[test]
    fn arguments_match_by_debug_text_references_and_several_included() {
        #[derive(Debug)]
        struct Person {
            name: &'static str,
        }
        let ada = Person { name: "ada" };
        let mut r = Returns::recorded("Store::put");
        r.set_for(&[&"visits-ada", &&ada, &b"3".as_slice()], [Ok(())]);
        r.set_for(
            &[&"visits-ada".to_string(), &&ada, &[4u8].as_slice()],
            [Err(2)],
        );
        // An owned `String` and a `&str` with the same text are the same argument.
        let key = String::from("visits-ada");
        assert_eq!(
            r.next_for(&[&key, &&ada, &&[4u8][..]], "Store::put"),
            Err(2)
        );
        assert_eq!(
            r.next_for(&[&"visits-ada", &ada, &b"3"], "Store::put"),
            Ok(())
        );
        assert_eq!(ada.name, "ada");
    }

    #[test]
    #[should_panic(
        expected = "hermetic mock: `Rows::get(3)` was called, but the recorded run \
                               only called `Rows::get(1)`, `Rows::get(2)`. The code under test \
                               has changed since the test was recorded: regenerate it with \
                               `cargo hermetic record`."
    )]
    fn arguments_the_recorded_run_never_passed_ask_for_regeneration() {
        columns().next_for(&[&3usize], "Rows::get");
    }

    #[test]
    #[should_panic(
        expected = "hermetic mock: `Rows::get(2)` was called more often than this \
                               test set up. The code under test has changed since the test was \
                               recorded"
    )]
    fn known_arguments_asked_once_more_ask_for_regeneration() {
        let r = columns();
        r.next_for(&[&2usize], "Rows::get");
        r.next_for(&[&2usize], "Rows::get");
    }

    #[test]
    #[should_panic(
        expected = "hermetic mock: `Rows::get(1)` was called 1 time(s), 2 in the \
                               recorded run; `Rows::get(2)` was called 0 time(s), 1 in the \
                               recorded run. The code under test has changed"
    )]
    fn values_left_for_some_arguments_fail_the_test_when_dropped() {
        let r = columns();
        r.next_for(&[&1usize], "Rows::get");
    }

    #[test]
    fn without_values_by_arguments_the_arguments_are_not_looked_at() {
        let r = recorded([5, 6]);
        assert_eq!(r.next_for(&[&"a"], "Ledger::balance"), 5);
        assert_eq!(r.next_for(&[&"b"], "Ledger::balance"), 6);
    }
}
