//! The virtual clocks: every read returns the current virtual time, then advances it by a
//! fixed step, so elapsed times are positive and identical on every run.

use libc::{c_int, c_void, clockid_t, time_t, timespec, timeval};

use crate::access::Access;
use crate::real::real;
use crate::vfs::Ts;

pub(crate) fn is_monotonic(clk: clockid_t) -> Option<bool> {
    match clk {
        libc::CLOCK_REALTIME | libc::CLOCK_REALTIME_COARSE | libc::CLOCK_TAI => Some(false),
        libc::CLOCK_MONOTONIC
        | libc::CLOCK_MONOTONIC_RAW
        | libc::CLOCK_MONOTONIC_COARSE
        | libc::CLOCK_BOOTTIME
        | libc::CLOCK_PROCESS_CPUTIME_ID
        | libc::CLOCK_THREAD_CPUTIME_ID => Some(true),
        _ => None,
    }
}

fn ns_of(t: &timespec) -> u64 {
    (t.tv_sec.max(0) as u64)
        .saturating_mul(1_000_000_000)
        .saturating_add(t.tv_nsec.max(0) as u64)
}

interpose! {
    fn clock_gettime(clk: clockid_t, tp: *mut timespec) -> c_int {
        if let Some(mono) = is_monotonic(clk) {
            virt!(|st| {
                if tp.is_null() {
                    return Err(libc::EFAULT);
                }
                let Ts { sec, nsec } = st.tick(mono);
                // SAFETY: a non-NULL `tp` is a writable timespec (clock_gettime's contract).
                unsafe {
                    (*tp).tv_sec = sec;
                    (*tp).tv_nsec = nsec;
                }
                Ok(0)
            });
        }
        let r = pass!();
        if r == 0 && is_monotonic(clk) == Some(false) && crate::record::hooks_on() {
            // SAFETY: the timespec glibc just filled.
            crate::record::on_now(unsafe { (*tp).tv_sec });
        }
        r
    }

    fn gettimeofday(tv: *mut timeval, tz: *mut c_void) -> c_int {
        virt!(|st| {
            let Ts { sec, nsec } = st.tick(false);
            if !tv.is_null() {
                // SAFETY: a non-NULL `tv` is a writable timeval (gettimeofday's contract).
                unsafe {
                    (*tv).tv_sec = sec;
                    (*tv).tv_usec = nsec / 1000;
                }
            }
            Ok(0)
        });
        pass!()
    }

    fn time(t: *mut time_t) -> time_t {
        virt!(|st| {
            let now = st.tick(false).sec;
            if !t.is_null() {
                // SAFETY: a non-NULL `t` is a writable time_t (time's contract).
                unsafe { *t = now };
            }
            Ok(now)
        });
        pass!()
    }

    /// Sleeping moves the virtual clocks forward instead of waiting: after `sleep(d)`,
    /// `Instant::now()` is `d` later, at once. The thread yields so that a polling loop still
    /// lets other threads run.
    fn nanosleep(req: *const timespec, rem: *mut timespec) -> c_int {
        let Some(cx) = crate::active::ctx() else {
            return pass!();
        };
        let r = cx.run(|st| {
            if req.is_null() {
                return Err(libc::EFAULT);
            }
            // SAFETY: a non-NULL `req` is a timespec (nanosleep's contract).
            let t = unsafe { &*req };
            if t.tv_nsec < 0 || t.tv_nsec >= 1_000_000_000 || t.tv_sec < 0 {
                return Err(libc::EINVAL);
            }
            st.advance(ns_of(t));
            st.record(Access::Served { what: "sleep" });
            Ok(0)
        });
        drop(cx);
        if !rem.is_null() {
            let none = timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            // SAFETY: a non-NULL `rem` is a writable timespec (nanosleep's contract).
            unsafe { rem.write(none) };
        }
        // SAFETY: sched_yield has no preconditions.
        unsafe { libc::sched_yield() };
        crate::active::ret(r)
    }

    fn clock_nanosleep(
        clk: clockid_t,
        flags: c_int,
        req: *const timespec,
        rem: *mut timespec,
    ) -> c_int {
        let Some(mono) = is_monotonic(clk) else {
            return pass!();
        };
        let Some(cx) = crate::active::ctx() else {
            return pass!();
        };
        // clock_nanosleep returns the error number instead of setting errno.
        let r = cx.run(|st| {
            if req.is_null() {
                return Err(libc::EFAULT);
            }
            // SAFETY: a non-NULL `req` is a timespec (clock_nanosleep's contract).
            let t = unsafe { *req };
            if t.tv_nsec < 0 || t.tv_nsec >= 1_000_000_000 {
                return Err(libc::EINVAL);
            }
            let ns = if flags & libc::TIMER_ABSTIME != 0 {
                st.until(
                    mono,
                    Ts {
                        sec: t.tv_sec,
                        nsec: t.tv_nsec,
                    },
                )
            } else {
                ns_of(&t)
            };
            st.advance(ns);
            st.record(Access::Served { what: "sleep" });
            Ok(())
        });
        drop(cx);
        // SAFETY: sched_yield has no preconditions.
        unsafe { libc::sched_yield() };
        match r {
            Ok(()) => 0,
            Err(e) => e,
        }
    }
}

/// A futex wait with an absolute deadline (std's timed waits: `Condvar::wait_timeout`,
/// `park_timeout`, `recv_timeout`) computes that deadline from the *virtual* clock. Translate
/// it into the same remaining time on the real clock, and when the wait times out, move the
/// virtual clock to the deadline, so waits take as long as asked and elapsed times agree.
pub(crate) unsafe fn futex_wait_bitset(args: [libc::c_long; 6]) -> Option<libc::c_long> {
    let op = args[1] as c_int;
    let cmd = op & !(libc::FUTEX_PRIVATE_FLAG | libc::FUTEX_CLOCK_REALTIME);
    if cmd != libc::FUTEX_WAIT_BITSET || args[3] == 0 {
        return None;
    }
    let realtime = op & libc::FUTEX_CLOCK_REALTIME != 0;
    let cx = crate::active::ctx()?;
    // SAFETY: a non-NULL timeout is a `timespec` (this function's contract).
    let deadline = unsafe { *(args[3] as *const timespec) };
    let deadline = Ts {
        sec: deadline.tv_sec,
        nsec: deadline.tv_nsec,
    };
    let wait_ns = cx.run(|st| Ok(st.until(!realtime, deadline))).ok()?;
    let clk = if realtime {
        libc::CLOCK_REALTIME
    } else {
        libc::CLOCK_MONOTONIC
    };
    let mut now = timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: glibc's clock_gettime into a timespec of ours.
    unsafe { real!(clock_gettime: fn(clockid_t, *mut timespec) -> c_int)(clk, &mut now) };
    let total = ns_of(&now).saturating_add(wait_ns);
    let real_deadline = timespec {
        tv_sec: (total / 1_000_000_000) as libc::time_t,
        tv_nsec: (total % 1_000_000_000) as libc::c_long,
    };
    let real_syscall = real!(syscall: fn(libc::c_long, libc::c_long, libc::c_long, libc::c_long, libc::c_long, libc::c_long, libc::c_long) -> libc::c_long);
    // SAFETY: the caller's futex call (this function's contract), with a deadline of ours.
    let r = unsafe {
        real_syscall(
            libc::SYS_futex,
            args[0],
            args[1],
            args[2],
            &real_deadline as *const timespec as libc::c_long,
            args[4],
            args[5],
        )
    };
    let err = crate::active::errno();
    if r == -1 && err == libc::ETIMEDOUT {
        let _ = cx.run(|st| {
            let ns = st.until(!realtime, deadline);
            st.advance(ns);
            Ok(())
        });
    }
    drop(cx);
    crate::active::set_errno(err);
    Some(r)
}
