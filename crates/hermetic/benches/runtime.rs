//! Runtime overhead benchmark: `cargo bench -p hermetic --bench runtime [-- --quick]`.
//!
//! Measures, in one run and side by side:
//! * the cost of an interposed libc call on a thread that is *not* inside an environment
//!   (our symbol, which checks a thread-local and forwards) against the same glibc function
//!   called directly through `dlsym(RTLD_NEXT, ..)`;
//! * the cost of the same calls served virtually inside an environment;
//! * virtual file write/read throughput, beside a real file in the system temp directory.
//!
//! `--quick` (or `HERMETIC_BENCH_QUICK=1`) runs in a few seconds, for CI smoke tests.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::hint::black_box;
use std::io::{Read, Write};
use std::time::Duration;

use hermetic::Env;

type GetenvFn = unsafe extern "C" fn(*const c_char) -> *mut c_char;
type ClockFn = unsafe extern "C" fn(libc::clockid_t, *mut libc::timespec) -> c_int;
type ReadFn = unsafe extern "C" fn(c_int, *mut c_void, usize) -> isize;

fn real<T>(name: &CStr) -> T {
    // SAFETY: a NUL-terminated name.
    let p = unsafe { libc::dlsym(libc::RTLD_NEXT, name.as_ptr()) };
    assert!(!p.is_null(), "dlsym {name:?}");
    // SAFETY: the caller names the symbol's C signature as `T`.
    unsafe { std::mem::transmute_copy(&p) }
}

/// Best-of-`reps` nanoseconds per call of `f` over `n` calls.
fn ns_per_call(n: u64, reps: u32, f: &mut dyn FnMut()) -> f64 {
    let mut best = f64::INFINITY;
    for _ in 0..reps {
        let t = raw_now();
        for _ in 0..n {
            f();
        }
        best = best.min((raw_now() - t).as_nanos() as f64 / n as f64);
    }
    best
}

fn throughput_mb_s(bytes: u64, d: Duration) -> f64 {
    bytes as f64 / d.as_secs_f64() / 1e6
}

struct Row {
    what: &'static str,
    ours: f64,
    glibc: f64,
    active: Option<f64>,
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick")
        || std::env::var("HERMETIC_BENCH_QUICK").is_ok_and(|v| v == "1");
    let (n, reps, mb) = if quick {
        (200_000u64, 3u32, 16u64)
    } else {
        (5_000_000, 7, 256)
    };

    let real_getenv: GetenvFn = real(c"getenv");
    let real_clock: ClockFn = real(c"clock_gettime");
    let real_read: ReadFn = real(c"read");
    let name = c"HOME";
    let zero = std::fs::File::open("/dev/zero").unwrap();
    let zfd = std::os::fd::AsRawFd::as_raw_fd(&zero);
    let mut byte = [0u8; 1];
    let mut byte2 = [0u8; 1];
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    let mut ts2 = ts;

    // Inactive: this thread never entered an environment. Ours and glibc's alternate within
    // each repetition, so drift in machine load affects both alike; best of `reps` each.
    let pair = |n: u64, a: &mut dyn FnMut(), b: &mut dyn FnMut()| -> (f64, f64) {
        let (mut best_a, mut best_b) = (f64::INFINITY, f64::INFINITY);
        for _ in 0..reps {
            best_a = best_a.min(ns_per_call(n, 1, &mut *a));
            best_b = best_b.min(ns_per_call(n, 1, &mut *b));
        }
        (best_a, best_b)
    };
    let (getenv_ours, getenv_glibc) = pair(
        n,
        // SAFETY: a C string of ours.
        &mut || unsafe {
            black_box(libc::getenv(black_box(name.as_ptr())));
        },
        // SAFETY: glibc's getenv, with a C string of ours.
        &mut || unsafe {
            black_box(real_getenv(black_box(name.as_ptr())));
        },
    );
    let (clock_ours, clock_glibc) = pair(
        n,
        // SAFETY: a timespec of ours.
        &mut || unsafe {
            black_box(libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts));
        },
        // SAFETY: glibc's clock_gettime, into a timespec of ours.
        &mut || unsafe {
            black_box(real_clock(libc::CLOCK_MONOTONIC, &mut ts2));
        },
    );
    let rn = n / 10;
    let (read_ours, read_glibc) = pair(
        rn,
        // SAFETY: a buffer of ours, of the length given.
        &mut || unsafe {
            black_box(libc::read(zfd, byte.as_mut_ptr().cast(), 1));
        },
        // SAFETY: glibc's read, into a buffer of ours of the length given.
        &mut || unsafe {
            black_box(real_read(zfd, byte2.as_mut_ptr().cast(), 1));
        },
    );

    // Active: the same calls served by the environment.
    let env = Env::new()
        .var("HOME", "/home/bench")
        .file("/zero", vec![0u8; 1 << 20])
        .enter();
    // SAFETY: a C string of ours.
    let getenv_active = ns_per_call(n / 10, reps, &mut || unsafe {
        black_box(libc::getenv(black_box(name.as_ptr())));
    });
    // SAFETY: a timespec of ours.
    let clock_active = ns_per_call(n / 10, reps, &mut || unsafe {
        black_box(libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts));
    });
    let vf = std::fs::File::open("/zero").unwrap();
    let vfd = std::os::fd::AsRawFd::as_raw_fd(&vf);
    // SAFETY: a buffer of ours, of the length given, and our descriptor.
    let read_active = ns_per_call(rn, reps, &mut || unsafe {
        if libc::read(vfd, byte.as_mut_ptr().cast(), 1) == 0 {
            libc::lseek(vfd, 0, libc::SEEK_SET);
        }
    });
    drop(vf);
    drop(env);

    let rows = [
        Row {
            what: "getenv(\"HOME\")",
            ours: getenv_ours,
            glibc: getenv_glibc,
            active: Some(getenv_active),
        },
        Row {
            what: "clock_gettime(MONOTONIC)",
            ours: clock_ours,
            glibc: clock_glibc,
            active: Some(clock_active),
        },
        Row {
            what: "read(fd, 1 byte)",
            ours: read_ours,
            glibc: read_glibc,
            active: Some(read_active),
        },
    ];
    println!(
        "hermetic runtime benchmark ({})",
        if quick { "quick" } else { "full" }
    );
    println!();
    println!(
        "{:<26} {:>12} {:>10} {:>8} {:>7} {:>11}",
        "call", "inactive ns", "glibc ns", "+ns", "ratio", "virtual ns"
    );
    for r in &rows {
        println!(
            "{:<26} {:>12.1} {:>10.1} {:>8.1} {:>7.2} {:>11}",
            r.what,
            r.ours,
            r.glibc,
            r.ours - r.glibc,
            r.ours / r.glibc,
            r.active.map_or(String::new(), |a| format!("{a:.1}"))
        );
    }

    // Throughput: write then read `mb` MiB in 64 KiB chunks.
    let chunk = vec![0x5au8; 64 << 10];
    let total = mb << 20;
    let mut buf = vec![0u8; 64 << 10];
    let run = |path: &std::path::Path, buf: &mut Vec<u8>| -> (Duration, Duration) {
        let t = raw_now();
        let mut f = std::fs::File::create(path).unwrap();
        for _ in 0..total / chunk.len() as u64 {
            f.write_all(&chunk).unwrap();
        }
        drop(f);
        let w = raw_now() - t;
        let t = raw_now();
        let mut f = std::fs::File::open(path).unwrap();
        let mut got = 0u64;
        loop {
            let k = f.read(buf).unwrap();
            if k == 0 {
                break;
            }
            got += k as u64;
        }
        assert_eq!(got, total);
        (w, raw_now() - t)
    };
    let (vw, vr) = {
        let _env = Env::new().enter();
        run(std::path::Path::new("/tmp/bench.bin"), &mut buf.clone())
    };
    let real_path = std::env::temp_dir().join(format!("hermetic-bench-{}", std::process::id()));
    let (rw, rr) = run(&real_path, &mut buf);
    let _ = std::fs::remove_file(&real_path);
    println!();
    println!(
        "{:<26} {:>14} {:>14} {:>8}",
        "file I/O (64 KiB chunks)", "virtual MB/s", "real MB/s", "ratio"
    );
    for (what, v, r) in [("write", vw, rw), ("read", vr, rr)] {
        let (v, r) = (throughput_mb_s(total, v), throughput_mb_s(total, r));
        println!(
            "{:<26} {:>14.0} {:>14.0} {:>8.2}",
            format!("{what} {mb} MiB"),
            v,
            r,
            v / r
        );
    }
    println!();
    println!(
        "ratio = ours / glibc (inactive thread) and virtual / real (file I/O); real file in {}",
        std::env::temp_dir().display()
    );
}

/// Monotonic time straight from the kernel: `syscall(SYS_clock_gettime)` is passed through
/// even inside an environment, whose own clocks are virtual.
fn raw_now() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: the kernel's clock_gettime, into a timespec of ours.
    unsafe { libc::syscall(libc::SYS_clock_gettime, libc::CLOCK_MONOTONIC, &mut ts) };
    Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
}
