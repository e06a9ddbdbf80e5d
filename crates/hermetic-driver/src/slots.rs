//! The results of earlier statements, kept for later statements to use.

use crate::protocol::{DecodeError, Value};
use std::any::Any;

/// One entry per executed statement: its stored result, or nothing when the statement
/// returned no reusable value (a reference, a unit, an `Err`, a `None`).
#[derive(Default)]
pub struct Slots {
    values: Vec<Option<Box<dyn Any>>>,
}

impl Slots {
    /// Records the result of the statement that just ran.
    pub fn push(&mut self, value: Option<Box<dyn Any>>) {
        self.values.push(value);
    }

    /// Makes sure there is one entry per statement, even when the dispatch stored nothing.
    pub fn pad_to(&mut self, len: usize) {
        while self.values.len() < len {
            self.values.push(None);
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
