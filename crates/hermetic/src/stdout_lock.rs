//! std's `io::stdout()` is one line buffer for the whole process, and libtest's main thread
//! writes its report through it a piece at a time (`write_all`, then `flush`, each taking the
//! lock on its own). A test thread writing to fd 1 between the two flushed libtest's half line
//! (`test other ... `) into its own environment, so its check on stdout failed one run in a few
//! thousand under load. A thread inside an environment therefore holds std's stdout lock: other
//! threads wait to write until it leaves. It lets go when it starts a thread, which may write
//! to stdout while this one waits for it; from then on the buffer is shared as before.

use std::cell::RefCell;
use std::io::{self, StdoutLock, Write};

thread_local! {
    /// The lock this thread holds, and how many of its environments asked for it.
    static HELD: RefCell<Option<(StdoutLock<'static>, usize)>> = const { RefCell::new(None) };
}

/// Takes std's stdout lock for an environment about to be entered on this thread; what is
/// left in the buffer goes to the real fd 1 first (it is not the environment's).
pub(crate) fn hold() {
    let _ = HELD.try_with(|held| {
        let mut held = held.borrow_mut();
        match &mut *held {
            Some((_, count)) => *count += 1,
            None => {
                let mut lock = io::stdout().lock();
                let _ = lock.flush();
                *held = Some((lock, 1));
            }
        }
    });
}

/// Gives back what [`hold`] took, once the environment was left.
pub(crate) fn release() {
    let _ = HELD.try_with(|held| {
        let mut held = held.borrow_mut();
        if let Some((_, count)) = &mut *held {
            *count -= 1;
            if *count == 0 {
                *held = None;
            }
        }
    });
}

/// Lets go of the lock for good (this thread's environments share the buffer from now on):
/// the thread is starting another, which may write to stdout while this one waits for it.
/// Called inside the environment, so the flush puts its own half line where it belongs.
pub(crate) fn let_go() {
    let _ = HELD.try_with(|held| {
        if let Ok(mut held) = held.try_borrow_mut() {
            if let Some((mut lock, _)) = held.take() {
                let _ = lock.flush();
            }
        }
    });
}
