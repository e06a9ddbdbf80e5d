//! Fakes for isolated calls: what a call that leaves an isolated unit returns in a test.
//!
//! `#[hermetic::isolate]` (seed 000's AutoIsolator) rewrites, in test builds, every call of an
//! item that leaves the unit into a call through this module's table: when the running test
//! has set that callee up, the call returns the next value set up for it; otherwise the real
//! callee runs. A test sets callees up by naming them, as it would call them:
//!
//! ```ignore
//! mod db {
//!     pub fn run_query(_sql: &str) -> Result<i64, String> {
//!         Err("no database here".to_string())
//!     }
//! }
//!
//! #[cfg_attr(test, hermetic::isolate)]
//! fn balance() -> i64 {
//!     db::run_query("SELECT balance").unwrap_or(-1)
//! }
//!
//! #[test]
//! fn balance_is_what_the_query_returned() {
//!     let _fakes = hermetic::Fakes::new()
//!         .returns(db::run_query, [Ok(5), Err("down".to_string())])
//!         .enter();
//!     assert_eq!(balance(), 5);
//!     assert_eq!(balance(), -1);
//! }
//! ```
//!
//! Values are given once each, in order; a callee called more often than its test set up
//! panics with a message to regenerate the test (the code under test changed since), as a
//! mock does. The values' type is the callee's return type, so a callee whose return type
//! changes makes its tests fail to compile, and one that is renamed or removed, too.
//!
//! The table is per thread: set-up on the test's thread is not seen by threads the code
//! spawns (their isolated calls run the real callee). Code without `#[hermetic::isolate]`
//! never comes here; an isolated call with nothing set up on its thread costs two loads.
//!
//! Callees are told apart by name: a function by its path (`std::any::type_name` of the
//! function item), a method by its type's and its own (`Database::query`).
//!
//! A test names a callee through [`Callee`] (functions of up to 12 arguments), which fixes the type
//! of its values; generated tests also write out its parameter types
//! (`.returns::<(&str, &str), _>(db::run_query, [Ok(5)])`), so a callee whose parameters change
//! makes them fail to compile too. The call sites `#[hermetic::isolate]` writes go through `call0`..`call12`
//! (functions, as a `fn` pointer the arguments were coerced to) and `call_method` (methods, the
//! real call as a closure), with `_checked` forms for `returns(..)` restrictions. A [`Listener`]
//! (one per process, installed with [`listen`]: the driver's) hears every isolated call's answer;
//! with no listener and nothing set up on the thread, a call costs the two loads above.

use std::any::{type_name, Any};
use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::marker::PhantomData;
use std::sync::OnceLock;

/// The first words of every panic a fake gives.
pub const FAKE: &str = "hermetic fake:";

/// The command that regenerates a test whose fakes are out of date.
const REGENERATE: &str = "cargo hermetic generate --isolate";

/// Callees set up for the calls of one test: build with [`Fakes::returns`], then
/// [`Fakes::enter`] for the rest of the test (until the guard is dropped).
#[derive(Default)]
pub struct Fakes {
    entries: Vec<Entry>,
}

/// One callee's values.
struct Entry {
    /// The callee's name, as [`key_of`] gives it.
    callee: String,
    /// A `VecDeque<T>` of the callee's return type `T`.
    values: Box<dyn Any>,
    /// `T`'s name, for the message when a call returns another type.
    ty: &'static str,
    set_up: usize,
    /// Which `Fakes::enter` brought it, so its guard takes out only its own.
    guard: u64,
}

/// A function (or method, or closure) and the type it returns: lets [`Fakes::returns`] check
/// its values against the callee's return type.
pub trait Callee<Args> {
    type Output;
}

macro_rules! callee {
    ($($arg:ident),*) => {
        impl<F, R, $($arg),*> Callee<($($arg,)*)> for F
        where
            F: Fn($($arg),*) -> R,
        {
            type Output = R;
        }
    };
}
callee!();
callee!(A);
callee!(A, B);
callee!(A, B, C);
callee!(A, B, C, D);
callee!(A, B, C, D, E);
callee!(A, B, C, D, E, G);
callee!(A, B, C, D, E, G, H);
callee!(A, B, C, D, E, G, H, I);
callee!(A, B, C, D, E, G, H, I, J);
callee!(A, B, C, D, E, G, H, I, J, K);
callee!(A, B, C, D, E, G, H, I, J, K, L);
callee!(A, B, C, D, E, G, H, I, J, K, L, M);

impl Fakes {
    pub fn new() -> Fakes {
        Fakes::default()
    }

    /// Isolated calls of `callee` return `values`, one per call, in order; one call more
    /// fails the test with a message to regenerate it. `Args` is the tuple of the callee's
    /// parameter types, which generated tests write out (`returns::<(&str, u32), _>(..)`) so
    /// that a callee whose parameters change makes them fail to compile.
    pub fn returns<Args, F>(
        mut self,
        callee: F,
        values: impl IntoIterator<Item = F::Output>,
    ) -> Self
    where
        F: Callee<Args>,
        F::Output: 'static,
    {
        let values: VecDeque<F::Output> = values.into_iter().collect();
        self.entries.push(Entry {
            callee: key_of(&callee),
            set_up: values.len(),
            values: Box::new(values),
            ty: type_name::<F::Output>(),
            guard: 0,
        });
        self
    }

    /// Makes the fakes answer this thread's isolated calls until the guard is dropped. Fakes
    /// entered later answer first for the callees they set up.
    pub fn enter(self) -> FakesGuard {
        let id = NEXT_GUARD.get();
        NEXT_GUARD.set(id + 1);
        TABLE.with_borrow_mut(|table| {
            table.extend(self.entries.into_iter().map(|e| Entry { guard: id, ..e }));
        });
        ACTIVE.set(true);
        FakesGuard {
            id,
            _not_send: PhantomData,
        }
    }
}

impl std::fmt::Debug for Fakes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let callees: Vec<&str> = self.entries.iter().map(|e| e.callee.as_str()).collect();
        f.debug_struct("Fakes").field("callees", &callees).finish()
    }
}

/// Keeps a thread's fakes in place; dropping it takes them out.
#[must_use = "the fakes are taken out when the guard is dropped"]
pub struct FakesGuard {
    id: u64,
    /// The table is the entering thread's.
    _not_send: PhantomData<*const ()>,
}

impl FakesGuard {
    /// How many values set up for `callee` have not been asked for.
    pub fn left<F, Args>(&self, callee: F) -> usize
    where
        F: Callee<Args>,
        F::Output: 'static,
    {
        let key = key_of(&callee);
        TABLE.with_borrow(|table| {
            table
                .iter()
                .filter(|e| e.guard == self.id && e.callee == key)
                .filter_map(|e| e.values.downcast_ref::<VecDeque<F::Output>>())
                .map(VecDeque::len)
                .sum()
        })
    }
}

impl Drop for FakesGuard {
    fn drop(&mut self) {
        TABLE.with_borrow_mut(|table| {
            table.retain(|e| e.guard != self.id);
            ACTIVE.set(!table.is_empty());
        });
    }
}

impl std::fmt::Debug for FakesGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FakesGuard").field("id", &self.id).finish()
    }
}

thread_local! {
    static TABLE: RefCell<Vec<Entry>> = const { RefCell::new(Vec::new()) };
    /// Whether `TABLE` has entries: the fast path of every isolated call reads only this.
    static ACTIVE: Cell<bool> = const { Cell::new(false) };
    static NEXT_GUARD: Cell<u64> = const { Cell::new(1) };
}

/// The name a callee is set up and found by: the path of a function item
/// (`bank::db::run_query`); for a method, its type's path and its name
/// (`bank::db::Database::query`), whether reached through the type or a trait it implements.
pub fn key_of<F>(_callee: &F) -> String {
    normalise(type_name::<F>())
}

/// `<a::X as a::Trait>::m` → `a::X::m`: a trait's method set up through the type
/// (`returns(X::m, ..)`) is the one a method call on an `X` reaches.
fn normalise(name: &str) -> String {
    if let Some(rest) = name.strip_prefix('<') {
        if let Some((ty, after)) = rest.split_once(" as ") {
            if let Some((_, method)) = after.rsplit_once(">::") {
                return format!("{ty}::{method}");
            }
        }
    }
    name.to_string()
}

/// What an isolated call got, for a [`Listener`].
pub enum Answer<'a> {
    /// A value its test set up.
    Fake(&'a dyn Any),
    /// What the real callee returned, and whether the call touched its thread's environment
    /// (a file, a variable, the clock, the network ...): a callee that never does is one a test
    /// can steer through its own inputs.
    Real { value: &'a dyn Any, touched: bool },
    /// Nothing: its test set the callee up with fewer values than the code asks for (the call
    /// panics next).
    RanOut,
}

/// Told about every isolated call of the process (test generation watches what callees
/// return; tests never install one).
pub trait Listener: Sync {
    fn answered(&self, callee: &str, answer: Answer<'_>);
}

static LISTENER: OnceLock<&'static dyn Listener> = OnceLock::new();

/// Installs the process's listener (once; later calls are ignored).
pub fn listen(listener: &'static dyn Listener) {
    let _ = LISTENER.set(listener);
}

/// The value set up for a call of `callee` (named by [`key_of`]), if its test set one up:
/// `Some(Ok(value))`, or `Some(Err(message))` when the test is out of date.
fn next_value<R: 'static>(callee: &str) -> Option<Result<R, String>> {
    TABLE.with_borrow_mut(|table| {
        let entry = table.iter_mut().rev().find(|e| e.callee == callee)?;
        let Some(values) = entry.values.downcast_mut::<VecDeque<R>>() else {
            return Some(Err(format!(
                "{FAKE} `{callee}` was set up with values of type `{}`, but it returns `{}`. \
                 The code under test has changed since the test was generated: regenerate it \
                 with `{REGENERATE}`.",
                entry.ty,
                type_name::<R>()
            )));
        };
        Some(values.pop_front().ok_or_else(|| {
            format!(
                "{FAKE} `{callee}` was called more often than this test set up ({} value{}). \
                 The code under test has changed since the test was generated: regenerate it \
                 with `{REGENERATE}`.",
                entry.set_up,
                if entry.set_up == 1 { "" } else { "s" }
            )
        }))
    })
}

/// Isolated calls of functions, as `#[hermetic::isolate]` writes them, one function per
/// number of arguments: `call2(&callee, real, a, b)` is `callee(a, b)` answered by the test's
/// fakes if it set `callee` (the function item, which names it) up, else by `real` (the same
/// function as a pointer, whose parameter types the arguments were coerced to). The
/// `call_checked` forms take the unit's restriction on the values
/// (`returns(callee, pattern)`): a value set up that `allowed` refuses fails the test.
macro_rules! calls {
    ($($call:ident $checked:ident ($($arg:ident: $ty:ident),*);)*) => {$(
        #[doc(hidden)]
        #[track_caller]
        #[allow(clippy::too_many_arguments)]
        pub fn $call<F, $($ty,)* R: 'static>(callee: &F, real: fn($($ty),*) -> R, $($arg: $ty),*) -> R {
            if !ACTIVE.get() && LISTENER.get().is_none() {
                return real($($arg),*);
            }
            answer(key_of(callee), || real($($arg),*), |_| true, "")
        }

        #[doc(hidden)]
        #[track_caller]
        #[allow(clippy::too_many_arguments)]
        pub fn $checked<F, $($ty,)* R: 'static>(
            callee: &F,
            real: fn($($ty),*) -> R,
            allowed: impl Fn(&R) -> bool,
            restriction: &str,
            $($arg: $ty),*
        ) -> R {
            if !ACTIVE.get() && LISTENER.get().is_none() {
                return real($($arg),*);
            }
            answer(key_of(callee), || real($($arg),*), allowed, restriction)
        }
    )*};
}

calls! {
    call0 call_checked0 ();
    call1 call_checked1 (a: A);
    call2 call_checked2 (a: A, b: B);
    call3 call_checked3 (a: A, b: B, c: C);
    call4 call_checked4 (a: A, b: B, c: C, d: D);
    call5 call_checked5 (a: A, b: B, c: C, d: D, e: E);
    call6 call_checked6 (a: A, b: B, c: C, d: D, e: E, g: G);
    call7 call_checked7 (a: A, b: B, c: C, d: D, e: E, g: G, h: H);
    call8 call_checked8 (a: A, b: B, c: C, d: D, e: E, g: G, h: H, i: I);
    call9 call_checked9 (a: A, b: B, c: C, d: D, e: E, g: G, h: H, i: I, j: J);
    call10 call_checked10 (a: A, b: B, c: C, d: D, e: E, g: G, h: H, i: I, j: J, k: K);
    call11 call_checked11 (a: A, b: B, c: C, d: D, e: E, g: G, h: H, i: I, j: J, k: K, l: L);
    call12 call_checked12 (a: A, b: B, c: C, d: D, e: E, g: G, h: H, i: I, j: J, k: K, l: L, m: M);
}

/// The most arguments an isolated function call may have.
pub const MAX_ARGS: usize = 12;

/// An isolated call of method `method` on a receiver of type `T`: a value the test set up,
/// else what `real` (the call as written) returns.
#[doc(hidden)]
#[track_caller]
pub fn call_method<T: ?Sized, R: 'static>(method: &str, real: impl FnOnce() -> R) -> R {
    if !ACTIVE.get() && LISTENER.get().is_none() {
        return real();
    }
    answer(method_key::<T>(method), real, |_| true, "")
}

/// [`call_method`] for a method the unit restricts (as `call_checked` for functions): `callee` is the method (`T::method`),
/// whose return type `allowed` takes; the call's `R` is that type whenever the receiver's
/// type is `T`, which the expansion has checked.
#[doc(hidden)]
#[track_caller]
pub fn call_method_checked<T: ?Sized, R: 'static, F, Args>(
    method: &str,
    _callee: &F,
    real: impl FnOnce() -> R,
    allowed: impl Fn(&F::Output) -> bool,
    restriction: &str,
) -> R
where
    F: Callee<Args>,
    F::Output: 'static,
{
    if !ACTIVE.get() && LISTENER.get().is_none() {
        return real();
    }
    let allowed = |v: &R| match (v as &dyn Any).downcast_ref::<F::Output>() {
        Some(v) => allowed(v),
        None => true,
    };
    answer(method_key::<T>(method), real, allowed, restriction)
}

fn method_key<T: ?Sized>(method: &str) -> String {
    format!("{}::{method}", normalise(type_name::<T>()))
}

#[track_caller]
fn answer<R: 'static>(
    callee: String,
    real: impl FnOnce() -> R,
    allowed: impl Fn(&R) -> bool,
    restriction: &str,
) -> R {
    let listener = LISTENER.get();
    let next = if ACTIVE.get() {
        next_value::<R>(&callee)
    } else {
        None
    };
    match next {
        Some(Ok(value)) => {
            if !allowed(&value) {
                panic!(
                    "{FAKE} a value set up for `{callee}` is one the isolated code rules out \
                     (`{restriction}`). The code under test has changed since the test was \
                     generated: regenerate it with `{REGENERATE}`."
                );
            }
            if let Some(l) = listener {
                l.answered(&callee, Answer::Fake(&value));
            }
            value
        }
        Some(Err(message)) => {
            if let Some(l) = listener {
                l.answered(&callee, Answer::RanOut);
            }
            panic!("{message}")
        }
        None => {
            let before = listener.and_then(|_| crate::active::touches());
            let value = real();
            if let Some(l) = listener {
                let touched = before != crate::active::touches();
                l.answered(
                    &callee,
                    Answer::Real {
                        value: &value,
                        touched,
                    },
                );
            }
            value
        }
    }
}

/// The type of a method call's receiver, without evaluating anything twice: lets the
/// expansion of `#[hermetic::isolate]` pick, at compile time, whether the receiver is of a
/// type whose calls are isolated.
#[doc(hidden)]
pub struct Receiver<T: ?Sized>(PhantomData<fn(&T)>);

impl<T: ?Sized> Receiver<T> {
    #[doc(hidden)]
    pub fn of(_receiver: &T) -> Self {
        Receiver(PhantomData)
    }
}

impl<T: ?Sized> Clone for Receiver<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for Receiver<T> {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    mod db {
        pub fn run_query(_sql: &str, _user: &str) -> Result<i64, String> {
            Err("no database".into())
        }
        pub fn user() -> Result<i64, String> {
            std::env::var("DB_USER")
                .map(|u| u.len() as i64)
                .map_err(|e| e.to_string())
        }
        pub fn count(n: i64) -> Result<i64, String> {
            Ok(n)
        }
        pub struct Database;
        impl Database {
            pub fn query(&self, _sql: &str) -> u32 {
                7
            }
        }
    }

    fn isolated(sql: &str) -> Result<i64, String> {
        call2(&db::run_query, db::run_query, sql, "ada")
    }

    #[test]
    fn set_up_may_name_the_parameter_types() {
        let _fakes = Fakes::new()
            .returns::<(&str, &str), _>(db::run_query, [Ok(9)])
            .returns::<(&db::Database, &str), _>(db::Database::query, [1])
            .enter();
        assert_eq!(isolated("a"), Ok(9));
    }

    #[test]
    fn without_set_up_the_real_callee_runs() {
        assert_eq!(isolated("x"), Err("no database".into()));
    }

    #[test]
    fn set_up_values_come_once_each_in_order() {
        let fakes = Fakes::new().returns(db::run_query, [Ok(0), Ok(5)]).enter();
        assert_eq!(fakes.left(db::run_query), 2);
        assert_eq!(isolated("a"), Ok(0));
        assert_eq!(isolated("b"), Ok(5));
        assert_eq!(fakes.left(db::run_query), 0);
        drop(fakes);
        assert_eq!(isolated("c"), Err("no database".into()));
    }

    #[test]
    #[should_panic(
        expected = "hermetic fake: `hermetic::fakes::tests::db::run_query` was called \
                               more often than this test set up (1 value). The code under test \
                               has changed since the test was generated: regenerate it with \
                               `cargo hermetic generate --isolate`."
    )]
    fn one_call_too_many_asks_for_regeneration() {
        let _fakes = Fakes::new().returns(db::run_query, [Ok(1)]).enter();
        let _ = isolated("a");
        let _ = isolated("b");
    }

    #[test]
    fn methods_are_found_by_their_type_and_name() {
        let _fakes = Fakes::new().returns(db::Database::query, [3]).enter();
        let d = db::Database;
        let got = call_method::<db::Database, u32>("query", || d.query("x"));
        assert_eq!(got, 3);
        let real = call_method::<db::Database, u32>("other", || d.query("x"));
        assert_eq!(real, 7);
    }

    #[test]
    fn later_fakes_answer_first_and_leave_with_their_guard() {
        let _outer = Fakes::new().returns(db::run_query, [Ok(1), Ok(2)]).enter();
        {
            let _inner = Fakes::new().returns(db::run_query, [Ok(10)]).enter();
            assert_eq!(isolated(""), Ok(10));
        }
        assert_eq!(isolated(""), Ok(1));
    }

    #[test]
    #[should_panic(
        expected = "is one the isolated code rules out (`returns(db::run_query, Ok(0..))`)"
    )]
    fn values_the_unit_rules_out_fail_the_test() {
        let _fakes = Fakes::new().returns(db::run_query, [Ok(-3)]).enter();
        let _ = call_checked2(
            &db::run_query,
            db::run_query,
            |v| matches!(v, Ok(0..)),
            "returns(db::run_query, Ok(0..))",
            "",
            "ada",
        );
    }

    #[test]
    fn fakes_are_per_thread() {
        let _fakes = Fakes::new().returns(db::run_query, [Ok(1)]).enter();
        let other = std::thread::spawn(|| isolated("x")).join().unwrap();
        assert_eq!(other, Err("no database".into()));
        assert_eq!(isolated("x"), Ok(1));
    }

    #[test]
    fn trait_methods_are_named_by_the_type() {
        assert_eq!(normalise("<a::X as a::T>::m"), "a::X::m");
        assert_eq!(normalise("<a::X<u8> as a::T<i8>>::m"), "a::X<u8>::m");
        assert_eq!(normalise("a::f"), "a::f");
    }

    #[test]
    fn a_listener_hears_real_and_fake_answers_and_which_real_calls_touched_the_environment() {
        type Heard = Mutex<Vec<(String, bool, Option<i64>, bool)>>;
        struct Hear(Heard);
        impl Listener for Hear {
            fn answered(&self, callee: &str, answer: Answer<'_>) {
                let (fake, v, touched) = match answer {
                    Answer::Fake(v) => (true, v, false),
                    Answer::Real { value, touched } => (false, value, touched),
                    Answer::RanOut => return,
                };
                let v = v
                    .downcast_ref::<Result<i64, String>>()
                    .and_then(|r| r.clone().ok());
                let heard = (callee.to_string(), fake, v, touched);
                self.0.lock().unwrap().push(heard);
            }
        }
        static HEARD: Hear = Hear(Mutex::new(Vec::new()));
        listen(&HEARD);
        std::thread::spawn(|| {
            let _ = isolated("a");
            let _fakes = Fakes::new().returns(db::run_query, [Ok(4)]).enter();
            let _ = isolated("b");
            let _env = crate::Env::new().var("DB_USER", "ada").enter();
            // Inside an environment: one call reads it, the other only computes.
            let _ = call0(&db::user, db::user);
            let _ = call1(&db::count, db::count, 3);
        })
        .join()
        .unwrap();
        let heard = HEARD.0.lock().unwrap().clone();
        let key = |f: &str| format!("hermetic::fakes::tests::db::{f}");
        assert!(
            heard.contains(&(key("run_query"), false, None, false)),
            "{heard:?}"
        );
        assert!(
            heard.contains(&(key("run_query"), true, Some(4), false)),
            "{heard:?}"
        );
        assert!(
            heard.contains(&(key("user"), false, Some(3), true)),
            "{heard:?}"
        );
        assert!(
            heard.contains(&(key("count"), false, Some(3), false)),
            "{heard:?}"
        );
    }
}
