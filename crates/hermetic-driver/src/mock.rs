//! Mocks in the driver: the runtime's `Returns`, and a count of calls per mock method, which
//! the search uses to set up as many values as the code asks for.

pub use hermetic::mock::{Returns, NOT_SET_UP};

use crate::protocol::MockCalls;
use std::sync::Mutex;

static CALLS: Mutex<Vec<MockCalls>> = Mutex::new(Vec::new());

/// Method `method` (its index among the mock's configured methods) of the mock built by
/// statement `stmt` was called.
pub fn called(stmt: usize, method: usize) {
    let mut calls = CALLS.lock().unwrap_or_else(|e| e.into_inner());
    match calls
        .iter_mut()
        .find(|c| c.stmt == stmt && c.method == method)
    {
        Some(c) => c.calls += 1,
        None => calls.push(MockCalls {
            stmt,
            method,
            calls: 1,
        }),
    }
}

/// The calls counted so far, emptying the count.
pub fn take_calls() -> Vec<MockCalls> {
    std::mem::take(&mut *CALLS.lock().unwrap_or_else(|e| e.into_inner()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_counted_per_statement_and_method() {
        take_calls();
        called(2, 0);
        called(2, 0);
        called(2, 1);
        called(5, 0);
        let got = take_calls();
        assert_eq!(
            got,
            vec![
                MockCalls {
                    stmt: 2,
                    method: 0,
                    calls: 2
                },
                MockCalls {
                    stmt: 2,
                    method: 1,
                    calls: 1
                },
                MockCalls {
                    stmt: 5,
                    method: 0,
                    calls: 1
                },
            ]
        );
        assert!(take_calls().is_empty());
    }

    #[test]
    fn the_engine_knows_how_a_mock_panic_starts() {
        assert_eq!(NOT_SET_UP, crate::protocol::MOCK_NOT_SET_UP);
    }
}
