//! Return values for generated mocks: what each mocked method gives back, call after call.
//!
//! `cargo hermetic generate` writes one mock type per trait a test needs (`MockLedger` for
//! `Ledger`), with a [`Returns`] per method. A test sets up the values it needs; the mock hands
//! them out in order, and the last one again on later calls when the type is `Clone`. A method
//! called for a value the test never set up panics: the code under test changed since the test
//! was generated, and the test must be regenerated rather than pass on a made-up default.
//! Calls are never verified (how often, in what order): such checks break on harmless changes.

use std::collections::VecDeque;
use std::sync::Mutex;

/// The values one mocked method returns, in order.
pub struct Returns<T> {
    values: Mutex<VecDeque<T>>,
}

impl<T> Default for Returns<T> {
    /// No values: any call panics with the "regenerate" message.
    fn default() -> Self {
        Returns {
            values: Mutex::new(VecDeque::new()),
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
        }
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
        next.unwrap_or_else(|| not_set_up(method))
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
        let mut values = self.lock();
        match values.len() {
            0 => {
                drop(values);
                not_set_up(method)
            }
            1 => values[0].clone(),
            _ => values.pop_front().expect("non-empty"),
        }
    }
}

/// The first words of the panic a mock gives for a call its test did not set up.
pub const NOT_SET_UP: &str = "hermetic mock:";

#[track_caller]
fn not_set_up(method: &str) -> ! {
    panic!(
        "{NOT_SET_UP} `{method}` was called more often than this test set up. The code under \
         test has changed since the test was generated: regenerate it with \
         `cargo hermetic generate`."
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

    #[test]
    #[should_panic(expected = "regenerate it with `cargo hermetic generate`")]
    fn running_out_of_once_values_asks_for_regeneration() {
        let r = Returns::new([String::new()]);
        r.next_once("Rows::next");
        r.next_once("Rows::next");
    }
}
