//! The virtual clocks: every read returns the current virtual time, then advances it by a
//! fixed step, so elapsed times are positive and identical on every run.

use libc::{c_int, c_void, clockid_t, time_t, timespec, timeval};

use crate::real::real;
use crate::vfs::Ts;

fn is_monotonic(clk: clockid_t) -> Option<bool> {
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

#[no_mangle]
pub unsafe extern "C" fn clock_gettime(clk: clockid_t, tp: *mut timespec) -> c_int {
    if let Some(mono) = is_monotonic(clk) {
        virt!(|st| {
            if tp.is_null() {
                return Err(libc::EFAULT);
            }
            let Ts { sec, nsec } = st.tick(mono);
            unsafe {
                (*tp).tv_sec = sec;
                (*tp).tv_nsec = nsec;
            }
            Ok(0)
        });
    }
    unsafe { real!(clock_gettime: fn(clockid_t, *mut timespec) -> c_int)(clk, tp) }
}

#[no_mangle]
pub unsafe extern "C" fn gettimeofday(tv: *mut timeval, tz: *mut c_void) -> c_int {
    virt!(|st| {
        let Ts { sec, nsec } = st.tick(false);
        if !tv.is_null() {
            unsafe {
                (*tv).tv_sec = sec;
                (*tv).tv_usec = nsec / 1000;
            }
        }
        Ok(0)
    });
    unsafe { real!(gettimeofday: fn(*mut timeval, *mut c_void) -> c_int)(tv, tz) }
}

#[no_mangle]
pub unsafe extern "C" fn time(t: *mut time_t) -> time_t {
    virt!(|st| {
        let now = st.tick(false).sec;
        if !t.is_null() {
            unsafe { *t = now };
        }
        Ok(now)
    });
    unsafe { real!(time: fn(*mut time_t) -> time_t)(t) }
}
