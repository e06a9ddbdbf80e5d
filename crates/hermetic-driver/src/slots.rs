//! The results of earlier statements, kept for later statements to use.

use crate::protocol::{DecodeError, Observed, Value};
use crate::Observe;
use std::any::Any;

/// Observes a stored value (of the type it was stored as) again, after later calls changed it.
pub type Observer = fn(&dyn Any) -> Option<Observed>;

/// A result to keep for later statements, with what observes it again later.
pub fn keep<T: Observe + 'static>(value: T) -> (Option<Box<dyn Any>>, Option<Observer>) {
    fn again<T: Observe + 'static>(value: &dyn Any) -> Option<Observed> {
        value.downcast_ref::<T>().map(|v| v.observe())
    }
    (Some(Box::new(value)), Some(again::<T>))
}

/// One entry per executed statement: its stored result, or nothing when the statement
/// returned no reusable value (a reference, a unit, an `Err`, a `None`).
#[derive(Default)]
pub struct Slots {
    values: Vec<Option<Box<dyn Any>>>,
    observers: Vec<Option<Observer>>,
}

impl Slots {
    /// Records the result of the statement that just ran.
    pub fn push(&mut self, value: Option<Box<dyn Any>>) {
        self.push_with(value, None);
    }

    /// Records the result of the statement that just ran, with what observes it again.
    pub fn push_with(&mut self, value: Option<Box<dyn Any>>, observer: Option<Observer>) {
        self.values.push(value);
        self.observers.push(observer);
    }

    /// The value of statement `n` as it is now (`None` once moved, or not observable).
    pub fn observe(&self, n: usize) -> Option<Observed> {
        let value = self.values.get(n)?.as_deref()?;
        self.observers.get(n).copied().flatten()?(value)
    }

    /// Makes sure there is one entry per statement, even when the dispatch stored nothing.
    pub fn pad_to(&mut self, len: usize) {
        while self.values.len() < len {
            self.values.push(None);
            self.observers.push(None);
        }
    }

    /// Drops the kept values one at a time, first statement first (the order the vector's own
    /// drop has), calling `before` with each one's statement just before it is dropped.
    pub fn drop_each(mut self, mut before: impl FnMut(usize)) {
        for (n, value) in std::mem::take(&mut self.values).into_iter().enumerate() {
            if let Some(value) = value {
                before(n);
                drop(value);
            }
        }
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Takes the value of statement `n` out of its slot (a move, or the start of a borrow).
    pub fn take<T: 'static>(&mut self, n: usize) -> Result<Box<T>, DecodeError> {
        let slot = self
            .values
            .get_mut(n)
            .ok_or_else(|| DecodeError::new(format!("statement {n} has not run")))?;
        let boxed = slot.take().ok_or_else(|| {
            DecodeError::new(format!("the value of statement {n} is not available"))
        })?;
        match boxed.downcast::<T>() {
            Ok(v) => Ok(v),
            Err(other) => {
                *slot = Some(other);
                Err(DecodeError::new(format!(
                    "the value of statement {n} is not a {}",
                    std::any::type_name::<T>()
                )))
            }
        }
    }

    /// Returns a value taken for a borrow.
    pub fn put_back<T: 'static>(&mut self, n: usize, value: Box<T>) {
        self.values[n] = Some(value);
    }

    /// The statement index an argument borrows or moves.
    pub fn slot_of(value: &Value) -> Result<usize, DecodeError> {
        match value {
            Value::Use(n) | Value::Borrow(n) | Value::BorrowMut(n) => Ok(*n),
            other => Err(DecodeError::new(format!(
                "expected a value from an earlier statement, got {other:?}"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::rc::Rc;

    /// Notes its statement in a shared journal when dropped.
    struct Noisy(usize, Rc<RefCell<Vec<String>>>);

    impl Drop for Noisy {
        fn drop(&mut self) {
            self.1.borrow_mut().push(format!("drop {}", self.0));
        }
    }

    #[test]
    fn each_kept_value_is_dropped_after_its_statement_is_named() {
        let journal = Rc::new(RefCell::new(Vec::new()));
        let mut slots = Slots::default();
        slots.push(Some(Box::new(Noisy(0, journal.clone()))));
        slots.push(None);
        slots.push(Some(Box::new(Noisy(2, journal.clone()))));
        let moved = slots.take::<Noisy>(2).unwrap();
        slots.push(Some(Box::new(Noisy(3, journal.clone()))));
        drop(moved);
        slots.drop_each(|n| journal.borrow_mut().push(format!("stmt {n}")));
        assert_eq!(
            *journal.borrow(),
            ["drop 2", "stmt 0", "drop 0", "stmt 3", "drop 3"]
        );
    }
}
