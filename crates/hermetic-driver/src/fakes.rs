//! Fakes in the driver: a test case's `Fake` statements enter the runtime's fakes for the rest
//! of the execution, and every isolated call is watched: which callee, answered by a fake or
//! by the real callee, with what value. The search grows a fake that ran out, trims values no
//! call asked for, and tells the user which fakes returned values the real callee never did
//! (seed 000's false behaviour).
//!
//! A `Fake` statement enters its fakes for the rest of the execution (the guard is dropped when the
//! execution's report is taken). A listener, installed at start-up with each fakeable callee's name
//! and observer, reports per callee the calls faked (and what they returned), those answered for
//! real (distinct values), and whether a fake ran out (`FakeCalls`).

use crate::protocol::{FakeCalls, Observed};
use hermetic::fakes::{Answer, Listener};
use std::any::Any;
use std::sync::Mutex;

pub use hermetic::fakes::{key_of, Fakes, FAKE};

/// How a callee's values are observed: `None` when the value is not of its return type.
pub type Observer = fn(&dyn Any) -> Option<Observed>;

/// The most values kept per callee and execution, faked and real each.
const MAX_VALUES: usize = 16;

/// The callees the driver knows, by name: the `Fake` callable that sets each up, and how its
/// values are observed.
static WATCHED: Mutex<Vec<(String, usize, Observer)>> = Mutex::new(Vec::new());
/// This execution's isolated calls, one entry per callee met.
static CALLS: Mutex<Vec<FakeCalls>> = Mutex::new(Vec::new());

struct Watch;

impl Listener for Watch {
    fn answered(&self, callee: &str, answer: Answer<'_>) {
        let watched = lock(&WATCHED);
        let Some(&(_, callable, observe)) = watched.iter().find(|(k, _, _)| k == callee) else {
            return;
        };
        drop(watched);
        let mut calls = lock(&CALLS);
        let at = match calls.iter().position(|c| c.callable == callable) {
            Some(at) => at,
            None => {
                calls.push(FakeCalls {
                    callable,
                    ..FakeCalls::default()
                });
                calls.len() - 1
            }
        };
        let c = &mut calls[at];
        match answer {
            Answer::Fake(v) => {
                c.faked += 1;
                if c.fake_values.len() < MAX_VALUES {
                    c.fake_values.extend(observe(v));
                }
            }
            Answer::Real { value, touched } => {
                c.real += 1;
                c.touched |= touched;
                if let Some(o) = observe(value) {
                    if c.real_values.len() < MAX_VALUES && !c.real_values.contains(&o) {
                        c.real_values.push(o);
                    }
                }
            }
            Answer::RanOut => c.ran_out = true,
        }
    }
}

static WATCH: Watch = Watch;

/// Registers a callee tests may fake (at start-up, from the generated dispatch code): its
/// name (`key_of` its function item), the `Fake` callable that sets it up, and its observer.
pub fn watch(callee: String, callable: usize, observe: Observer) {
    hermetic::fakes::listen(&WATCH);
    lock(&WATCHED).push((callee, callable, observe));
}

thread_local! {
    /// The fakes the running execution's statements entered.
    static ENTERED: std::cell::RefCell<Vec<hermetic::FakesGuard>> =
        const { std::cell::RefCell::new(Vec::new()) };
}

/// A `Fake` statement: its fakes answer the execution's isolated calls from here on.
pub fn enter(fakes: Fakes) {
    let guard = fakes.enter();
    ENTERED.with_borrow_mut(|e| e.push(guard));
}

/// The isolated calls counted so far, emptying the count and taking out the execution's fakes.
pub fn take_calls() -> Vec<FakeCalls> {
    ENTERED.with_borrow_mut(|e| e.clear());
    std::mem::take(&mut *lock(&CALLS))
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn query(_sql: &str) -> Result<i64, String> {
        Err("down".into())
    }

    fn configured(_sql: &str) -> Result<i64, String> {
        std::env::var("DB").map(|_| 1).map_err(|e| e.to_string())
    }

    fn observe(v: &dyn Any) -> Option<Observed> {
        v.downcast_ref::<Result<i64, String>>()
            .map(crate::observe::observe)
    }

    #[test]
    fn isolated_calls_are_counted_per_callee_with_their_values() {
        watch(key_of(&query), 7, observe);
        watch(key_of(&configured), 8, observe);
        take_calls();
        let call = || hermetic::fakes::call1(&query, query, "q");
        let _ = call();
        let _ = call();
        enter(Fakes::new().returns(query, [Ok(3)]));
        let _ = call();
        let _ = std::panic::catch_unwind(call);
        let env = hermetic::Env::new().enter();
        let _ = hermetic::fakes::call1(&configured, configured, "q");
        drop(env);
        let got = take_calls();
        assert_eq!(got.len(), 2);
        // Only the callee that read a variable touched the environment.
        assert!(got[1].touched && got[1].callable == 8, "{got:?}");
        let c = &got[0];
        assert!(!c.touched);
        assert_eq!((c.callable, c.real, c.faked, c.ran_out), (7, 2, 1, true));
        assert_eq!(c.real_values.len(), 1, "distinct values: {c:?}");
        assert_eq!(c.fake_values.len(), 1);
        // The execution's fakes went with the count.
        assert_eq!(call(), Err("down".to_string()));
    }

    #[test]
    fn the_engine_knows_how_a_fake_panic_starts() {
        assert_eq!(FAKE, crate::protocol::FAKE_PANIC);
    }
}
