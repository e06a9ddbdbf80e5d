//! Whether an execution in a reused child left anything the next one could see
//! ([`crate::server`]'s worker).
//!
//! A worker is forked from the server like any child and runs executions one after another
//! while, after each, the writable statics of the crate under test and of the crates it links
//! (the engine lists them: `WATCHED_STATICS_ENV`) hold the bytes they held when it was forked,
//! it has the same file descriptors, no leftovers (`leftovers`: threads, handlers, panic hook)
//! and its memory has not grown much. Why that is enough: a fresh child is a copy of the server,
//! and so is the worker with pristine statics — every state of the code that lives on between
//! calls is a static or reached from one (the heap a cache or a registry owns is reached through
//! a pointer in a static, which changes when the cache is filled; a `OnceLock` changes when it
//! is set), and the statics of the server's code under test never changed (the server runs no
//! code under test). The environment is entered afresh by every execution, and coverage and
//! comparison logs are reset by the driver. Thread-locals are watched alike ([`ThreadWatch`]):
//! a case thread runs executions one after another while those of the same crates (and std's
//! hash keys) are as they were when it started, as a fresh thread has them, which is how
//! libtest runs each test. What is left is what the next execution cannot tell apart: freed
//! heap and where the allocator puts the next block.

use hermetic_protocol::{WATCHED_STATICS_ENV, WATCHED_THREAD_LOCALS_ENV};

/// More than this much growth of the worker's largest resident size since it was forked ends
/// it: leaked memory would make a later execution run out where a fresh child would not.
const MAX_GROWTH_KIB: i64 = 64 << 10;

/// Descriptors above the highest one open at the fork that are checked too: a leaked one takes
/// the lowest free number (one below the highest, or the next).
const FD_MARGIN: i32 = 2;

/// The ranges of memory watched (absolute addresses).
pub struct Watch {
    ranges: Vec<(usize, usize)>,
}

/// What the worker looked like when it was forked.
pub struct Pristine {
    bytes: Vec<u8>,
    fds: Vec<bool>,
    max_rss_kib: i64,
}

impl Watch {
    /// The engine's list (`None`: unset or unusable, so no execution runs in a reused child).
    /// Each range must lie in a writable segment of the executable: a wrong list must not make
    /// the worker fault on its own check.
    pub fn from_env(base: usize) -> Option<Watch> {
        Watch::parse(&std::env::var(WATCHED_STATICS_ENV).ok()?, base)
    }

    /// The list as the engine writes it (`start+len` in hexadecimal, from `base`, by commas).
    fn parse(text: &str, base: usize) -> Option<Watch> {
        let segments = writable_segments();
        let mut ranges = Vec::new();
        for (start, len) in parse_ranges(text)? {
            let start = base.checked_add(start)?;
            let end = start.checked_add(len)?;
            if !segments.iter().any(|&(s, e)| s <= start && end <= e) {
                return None;
            }
            ranges.push((start, len));
        }
        Some(Watch { ranges })
    }

    /// Notes the watched bytes, the open descriptors and the resident size (in the worker,
    /// before its first execution).
    pub fn snapshot(&self) -> Pristine {
        let mut bytes = Vec::with_capacity(self.ranges.iter().map(|r| r.1).sum());
        for &(start, len) in &self.ranges {
            bytes.extend_from_slice(region(start, len));
        }
        let highest = (0..1024).rev().find(|&fd| fd_open(fd)).unwrap_or(2);
        Pristine {
            bytes,
            fds: (0..=highest + FD_MARGIN).map(fd_open).collect(),
            max_rss_kib: max_rss_kib(),
        }
    }

    /// Whether the worker still looks as it did at `pristine`.
    pub fn unchanged(&self, pristine: &Pristine) -> bool {
        self.change(pristine).is_none()
    }

    /// What differs from `pristine`, the first thing found (for `HERMETIC_DEBUG`).
    pub fn change(&self, pristine: &Pristine) -> Option<String> {
        let mut at = 0;
        for &(start, len) in &self.ranges {
            if region(start, len) != &pristine.bytes[at..at + len] {
                let base = crate::coverage::load_base();
                return Some(format!("the static at {:#x}", start - base));
            }
            at += len;
        }
        let now = open_fds(pristine.fds.len());
        if let Some(fd) = (0..now.len()).find(|&fd| now[fd] != pristine.fds[fd]) {
            return Some(format!("descriptor {fd}"));
        }
        let grown = max_rss_kib() - pristine.max_rss_kib;
        (grown > MAX_GROWTH_KIB).then(|| format!("memory grew by {grown} KiB"))
    }
}

/// `start+len` ranges in hexadecimal, separated by commas.
fn parse_ranges(text: &str) -> Option<Vec<(usize, usize)>> {
    text.split(',')
        .filter(|s| !s.is_empty())
        .map(|item| {
            let (start, len) = item.split_once('+')?;
            Some((
                usize::from_str_radix(start, 16).ok()?,
                usize::from_str_radix(len, 16).ok()?,
            ))
        })
        .collect()
}

/// The thread-locals a case thread watches: ranges in a thread's block of the executable's
/// thread-locals (offsets from its start).
pub struct ThreadWatch {
    ranges: Vec<(usize, usize)>,
}

/// A thread's watched thread-locals as they were when it started.
pub struct FreshThread {
    block: usize,
    bytes: Vec<u8>,
}

impl ThreadWatch {
    /// The engine's list (`None`: unset or unusable, so every execution runs on a fresh
    /// thread). Each range must lie in the executable's block.
    pub fn from_env() -> Option<ThreadWatch> {
        let (_, size) = executable_thread_locals()?;
        ThreadWatch::parse(&std::env::var(WATCHED_THREAD_LOCALS_ENV).ok()?, size)
    }

    fn parse(text: &str, size: usize) -> Option<ThreadWatch> {
        let ranges = parse_ranges(text)?;
        ranges
            .iter()
            .all(|&(start, len)| start.checked_add(len).is_some_and(|end| end <= size))
            .then_some(ThreadWatch { ranges })
    }

    /// The calling thread's watched bytes (on a thread that has run no case yet).
    pub fn snapshot(&self) -> Option<FreshThread> {
        let (block, _) = executable_thread_locals()?;
        let mut bytes = Vec::with_capacity(self.ranges.iter().map(|r| r.1).sum());
        for &(start, len) in &self.ranges {
            bytes.extend_from_slice(region(block + start, len));
        }
        Some(FreshThread { block, bytes })
    }

    /// Whether the calling thread's watched thread-locals are still as `fresh` (its own).
    pub fn unchanged(&self, fresh: &FreshThread) -> bool {
        let mut at = 0;
        self.ranges.iter().all(|&(start, len)| {
            let same = region(fresh.block + start, len) == &fresh.bytes[at..at + len];
            at += len;
            same
        })
    }
}

/// The calling thread's block of the executable's thread-locals, and its size.
fn executable_thread_locals() -> Option<(usize, usize)> {
    unsafe extern "C" fn first(
        info: *mut libc::dl_phdr_info,
        size: libc::size_t,
        data: *mut libc::c_void,
    ) -> libc::c_int {
        let out = &mut *(data as *mut Option<(usize, usize)>);
        let info = &*info;
        // An older C library's record may end before the thread-local fields.
        let known = std::mem::offset_of!(libc::dl_phdr_info, dlpi_tls_data)
            + std::mem::size_of::<*mut libc::c_void>();
        if size < known || info.dlpi_tls_data.is_null() {
            return 1;
        }
        for i in 0..info.dlpi_phnum as usize {
            let ph = &*info.dlpi_phdr.add(i);
            if ph.p_type == libc::PT_TLS {
                *out = Some((info.dlpi_tls_data as usize, ph.p_memsz as usize));
            }
        }
        1 // the first object is the executable; stop there
    }
    let mut out: Option<(usize, usize)> = None;
    // SAFETY: the callback only reads the headers and writes through the pointer we pass.
    unsafe { libc::dl_iterate_phdr(Some(first), &mut out as *mut _ as *mut libc::c_void) };
    out
}

fn region(start: usize, len: usize) -> &'static [u8] {
    // SAFETY: `from_env` kept only ranges inside the executable's writable segments, which
    // stay mapped for the life of the process, or inside the calling thread's block of
    // thread-locals, which lives as long as the thread; the bytes are read while no case runs.
    unsafe { std::slice::from_raw_parts(start as *const u8, len) }
}

fn fd_open(fd: i32) -> bool {
    // SAFETY: asks for a descriptor's flags, changes nothing.
    unsafe { libc::fcntl(fd, libc::F_GETFD) >= 0 }
}

/// Whether each descriptor below `n` is open, in one `poll` (a closed one answers
/// `POLLNVAL`; no events are asked for, and it waits for none) rather than a `fcntl` each; by
/// `fcntl` where `poll` fails.
fn open_fds(n: usize) -> Vec<bool> {
    let mut fds: Vec<libc::pollfd> = (0..n as i32)
        .map(|fd| libc::pollfd {
            fd,
            events: 0,
            revents: 0,
        })
        .collect();
    // SAFETY: `fds` holds `n` pollfds; a timeout of 0 never blocks. The system call itself:
    // libc's `poll` may be the runtime's.
    let r = unsafe { libc::syscall(libc::SYS_poll, fds.as_mut_ptr(), fds.len(), 0) };
    if r < 0 {
        return (0..n as i32).map(fd_open).collect();
    }
    fds.iter()
        .map(|p| p.revents & libc::POLLNVAL == 0)
        .collect()
}

fn max_rss_kib() -> i64 {
    // SAFETY: getrusage fills the struct we pass.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut usage);
        usage.ru_maxrss
    }
}

/// The executable's writable loaded segments (absolute address ranges).
fn writable_segments() -> Vec<(usize, usize)> {
    unsafe extern "C" fn first(
        info: *mut libc::dl_phdr_info,
        _: libc::size_t,
        data: *mut libc::c_void,
    ) -> libc::c_int {
        let out = &mut *(data as *mut Vec<(usize, usize)>);
        let info = &*info;
        for i in 0..info.dlpi_phnum as usize {
            let ph = &*info.dlpi_phdr.add(i);
            if ph.p_type == libc::PT_LOAD && ph.p_flags & libc::PF_W != 0 {
                let start = info.dlpi_addr as usize + ph.p_vaddr as usize;
                out.push((start, start + ph.p_memsz as usize));
            }
        }
        1 // the first object is the executable; stop there
    }
    let mut out: Vec<(usize, usize)> = Vec::new();
    // SAFETY: the callback only reads the headers and writes through the pointer we pass.
    unsafe { libc::dl_iterate_phdr(Some(first), &mut out as *mut _ as *mut libc::c_void) };
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    static WATCHED: AtomicU64 = AtomicU64::new(7);

    fn watch_of(addr: usize) -> Option<Watch> {
        let base = crate::coverage::load_base();
        Watch::parse(&format!("{:x}+8", addr.wrapping_sub(base)), base)
    }

    #[test]
    fn a_changed_static_is_seen() {
        let watch = watch_of(&WATCHED as *const _ as usize).expect("a static is accepted");
        let pristine = watch.snapshot();
        assert!(watch.unchanged(&pristine));
        WATCHED.fetch_add(1, Ordering::SeqCst);
        assert!(!watch.unchanged(&pristine));
        WATCHED.fetch_sub(1, Ordering::SeqCst);
        assert!(watch.unchanged(&pristine));
    }

    #[test]
    fn a_leaked_descriptor_is_seen() {
        // In a forked child, where no other test opens or closes descriptors meanwhile.
        let watch = Watch { ranges: Vec::new() };
        // SAFETY: the child makes system calls and allocates (glibc's fork leaves the
        // allocator usable), then leaves with `_exit`.
        let pid = unsafe { libc::fork() };
        if pid == 0 {
            let pristine = watch.snapshot();
            let clean = watch.unchanged(&pristine);
            // SAFETY: a NUL-terminated constant path.
            let fd = unsafe { libc::open(c"/proc/self/stat".as_ptr(), libc::O_RDONLY) };
            let leaked = !watch.unchanged(&pristine);
            // SAFETY: our own descriptor.
            unsafe { libc::close(fd) };
            let clean_again = watch.unchanged(&pristine);
            let code = if clean && leaked && clean_again { 0 } else { 1 };
            // SAFETY: leaves the forked test process at once.
            unsafe { libc::_exit(code) };
        }
        let mut status = 0;
        // SAFETY: waits for our own child.
        unsafe { libc::waitpid(pid, &mut status, 0) };
        assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0);
    }

    #[test]
    fn one_poll_tells_the_open_descriptors_as_fcntl_does() {
        let n = 64;
        let expected: Vec<bool> = (0..n as i32).map(fd_open).collect();
        assert_eq!(open_fds(n), expected);
        assert!(expected[..3].iter().any(|&open| open));
    }

    thread_local! {
        static THREAD_WATCHED: std::cell::Cell<u64> = const { std::cell::Cell::new(7) };
    }

    #[test]
    fn a_changed_thread_local_is_seen_and_another_threads_is_not() {
        let (block, size) = executable_thread_locals().expect("the executable has a block");
        let at = THREAD_WATCHED.with(|c| c.as_ptr() as usize) - block;
        assert!(at + 8 <= size);
        let watch = ThreadWatch::parse(&format!("{at:x}+8"), size).expect("accepted");
        let fresh = watch.snapshot().unwrap();
        assert!(watch.unchanged(&fresh));
        std::thread::spawn(|| THREAD_WATCHED.with(|c| c.set(8)))
            .join()
            .unwrap();
        assert!(watch.unchanged(&fresh), "another thread's copy changed");
        THREAD_WATCHED.with(|c| c.set(9));
        assert!(!watch.unchanged(&fresh));
        THREAD_WATCHED.with(|c| c.set(7));
        assert!(watch.unchanged(&fresh));
        assert!(ThreadWatch::parse(&format!("{:x}+8", size), size).is_none());
    }

    #[test]
    fn a_range_outside_the_executables_data_is_refused() {
        let on_the_heap = Box::new(0u64);
        assert!(watch_of(&*on_the_heap as *const u64 as usize).is_none());
        assert!(Watch::parse("zz+8", 0).is_none());
    }
}
