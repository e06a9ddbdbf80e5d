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

use std::collections::VecDeque;
use std::sync::Mutex;

/// The values one mocked method returns, in order.
pub struct Returns<T> {
    values: Mutex<VecDeque<T>>,
    /// For a recorded mock: the method's name and how many values were set up.
    recorded: Option<(&'static str, usize)>,
}

impl<T> Default for Returns<T> {
    /// No values: any call panics with the "regenerate" message.
    fn default() -> Self {
        Returns {
            values: Mutex::new(VecDeque::new()),
            recorded: None,
        }
    }
}

impl<T> std::fmt::Debug for Returns<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Returns({} left)", self.left())
    }
}

impl<T> Returns<T> {
    pub fn new(values: impl IntoIterator<Item = T>) -> Self {
        Returns {
            values: Mutex::new(values.into_iter().collect()),
            recorded: None,
        }
    }

    /// No values yet, for method `method` (`Ledger::balance`) of a recorded mock: each value
    /// is given once, and all must be asked for before the mock is dropped.
    pub fn recorded(method: &'static str) -> Self {
        Returns {
            values: Mutex::new(VecDeque::new()),
            recorded: Some((method, 0)),
        }
    }

    /// Sets the values up (replacing any), keeping the mode.
    pub fn set(&mut self, values: impl IntoIterator<Item = T>) {
        let values: VecDeque<T> = values.into_iter().collect();
        if let Some((_, n)) = &mut self.recorded {
            *n = values.len();
        }
        *self.values.get_mut().unwrap_or_else(|e| e.into_inner()) = values;
    }

    /// How many values are still set up.
    pub fn left(&self) -> usize {
        self.lock().len()
    }

    /// The next value; each value is given out once. `method` names the mocked method
    /// (`Ledger::balance`) for the panic message.
    #[track_caller]
    pub fn next_once(&self, method: &str) -> T {
        let next = self.lock().pop_front();
        next.unwrap_or_else(|| not_set_up(method, self.recorded.is_some()))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<T>> {
        // A panic elsewhere cannot leave the queue half-changed.
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
        match values.len() {
            0 => {
                drop(values);
                not_set_up(method, false)
            }
            1 => values[0].clone(),
            _ => values.pop_front().expect("non-empty"),
        }
    }
}

impl<T> Drop for Returns<T> {
    /// A recorded mock checks that the code asked for every recorded value (unless the test is
    /// failing already).
    fn drop(&mut self) {
        let Some((method, set_up)) = self.recorded else {
            return;
        };
        let left = self.left();
        if left > 0 && !std::thread::panicking() {
            panic!(
                "{NOT_SET_UP} `{method}` was called {} time(s), {set_up} in the recorded run. \
                 The code under test has changed since the test was recorded: regenerate it \
                 with `cargo hermetic record`.",
                set_up - left
            );
        }
    }
}

/// The first words of the panic a mock gives for a call its test did not set up.
pub const NOT_SET_UP: &str = "hermetic mock:";

#[track_caller]
fn not_set_up(method: &str, recorded: bool) -> ! {
    let (when, command) = if recorded {
        ("recorded", "record")
    } else {
        ("generated", "generate")
    };
    panic!(
        "{NOT_SET_UP} `{method}` was called more often than this test set up. The code under \
         test has changed since the test was {when}: regenerate it with \
         `cargo hermetic {command}`."
    )
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
}
