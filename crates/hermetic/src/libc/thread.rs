//! Thread creation: a thread started from inside an environment enters the same environment.

use libc::{c_int, c_void, pthread_attr_t, pthread_t};

use crate::access::Access;
use crate::real::real;
use crate::state::Shared;

type StartFn = extern "C" fn(*mut c_void) -> *mut c_void;

struct Start {
    start: StartFn,
    arg: *mut c_void,
    env: std::sync::Arc<Shared>,
}

extern "C" fn trampoline(p: *mut c_void) -> *mut c_void {
    // SAFETY: `p` is the box leaked by `pthread_create` below, used exactly once.
    let s = unsafe { Box::from_raw(p as *mut Start) };
    let prev = crate::active::enter(s.env);
    let r = (s.start)(s.arg);
    crate::active::leave(prev);
    r
}

interpose! {
    fn pthread_create(
        thread: *mut pthread_t,
        attr: *const pthread_attr_t,
        start: StartFn,
        arg: *mut c_void,
    ) -> c_int {
        let Some(env) = crate::active::current_arc() else {
            return pass!();
        };
        // The new thread may write to stdout while this one waits for it.
        crate::stdout_lock::let_go();
        if let Some(cx) = crate::active::ctx() {
            let _ = cx.run(|st| {
                st.record(Access::Served { what: "thread" });
                Ok(())
            });
        }
        let boxed = Box::into_raw(Box::new(Start { start, arg, env }));
        // SAFETY: glibc's pthread_create with the caller's `thread` and `attr`, starting
        // `trampoline`, which takes the box and runs the caller's `start(arg)` inside the
        // environment.
        let r = unsafe {
            real!(pthread_create: fn(*mut pthread_t, *const pthread_attr_t, StartFn, *mut c_void) -> c_int)(
                thread,
                attr,
                trampoline,
                boxed.cast(),
            )
        };
        if r != 0 {
            // SAFETY: no thread was started: the box is still ours alone.
            drop(unsafe { Box::from_raw(boxed) });
        }
        r
    }
}
