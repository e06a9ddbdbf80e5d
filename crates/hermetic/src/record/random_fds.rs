//! Record mode's view of `/dev/urandom` and `/dev/random`: which descriptors read them, so
//! the bytes a call reads from there are logged as randomness it drew.

use std::sync::atomic::{AtomicI32, Ordering::Relaxed};

use libc::c_int;

/// Open descriptors of the random devices; -1 is a free slot. A few are enough: programs open
/// the device once (std keeps its descriptor for the life of the process); past that many
/// open at once, reads are not logged.
static FDS: [AtomicI32; 4] = [const { AtomicI32::new(-1) }; 4];

/// Whether `path` (as opened) is one of the random devices.
pub(crate) fn is_device(path: &[u8]) -> bool {
    matches!(path, b"/dev/urandom" | b"/dev/random")
}

pub(crate) fn opened(fd: c_int) {
    for slot in &FDS {
        if slot.compare_exchange(-1, fd, Relaxed, Relaxed).is_ok() {
            return;
        }
    }
}

pub(crate) fn closed(fd: c_int) {
    for slot in &FDS {
        let _ = slot.compare_exchange(fd, -1, Relaxed, Relaxed);
    }
}

pub(crate) fn contains(fd: c_int) -> bool {
    fd >= 0 && FDS.iter().any(|slot| slot.load(Relaxed) == fd)
}
