//! Directory streams: opendir/fdopendir/readdir/closedir over virtual directories.
//!
//! A virtual `DIR*` is our own heap object. It starts with a magic word whose low half is -1:
//! a real glibc `DIR` starts with its descriptor, which is never -1, so the two cannot be
//! confused and calls on real streams pass through untouched, on any thread.

use std::sync::Arc;

use libc::{c_char, c_int, c_void, dirent64};

use super::bytes;
use crate::active::{ctx, ctx_fd, set_errno};
use crate::state::{Shared, State, Target};
use crate::vfs::R;

const MAGIC: u64 = 0x4845_524d_ffff_ffff;

#[repr(C)]
struct VDir {
    magic: u64,
    owner: Arc<Shared>,
    fd: c_int,
    entries: Vec<(Vec<u8>, u64, u8)>,
    next: usize,
    ent: dirent64,
}

/// The virtual stream `d` is, if it is one of ours.
///
/// # Safety
///
/// `d` is NULL or a directory stream: one of ours (from [`new_vdir`], not yet closed) or
/// glibc's; the stream is not used elsewhere while the result lives.
unsafe fn as_vdir<'a>(d: *mut c_void) -> Option<&'a mut VDir> {
    if d.is_null() {
        return None;
    }
    // SAFETY: both kinds start with 8 readable bytes (glibc's DIR is far larger than that).
    if unsafe { *(d as *const u64) } == MAGIC {
        // SAFETY: the magic word marks a `VDir` of ours, which lives until `closedir`.
        Some(unsafe { &mut *(d as *mut VDir) })
    } else {
        None
    }
}

/// Lists a directory descriptor's entries (snapshot at open, like a buffered getdents).
fn snapshot(st: &State, fd: c_int) -> R<Vec<(Vec<u8>, u64, u8)>> {
    let d = st.desc(fd)?;
    let ino = match d.target {
        Target::Dir(ino) => ino,
        _ => return Err(libc::ENOTDIR),
    };
    let parent_path = crate::vfs::lexical_abs(&d.path, b"..");
    let parent = st
        .vfs
        .resolve(b"/", &parent_path, true)
        .ok()
        .and_then(|l| l.ino)
        .unwrap_or(ino);
    st.vfs.list(ino, parent)
}

fn new_vdir(owner: Arc<Shared>, fd: c_int, entries: Vec<(Vec<u8>, u64, u8)>) -> *mut c_void {
    Box::into_raw(Box::new(VDir {
        magic: MAGIC,
        owner,
        fd,
        entries,
        next: 0,
        // SAFETY: `dirent64` is plain old data, for which all zeroes is a value.
        ent: unsafe { std::mem::zeroed() },
    }))
    .cast()
}

interpose! {
    fn opendir(path: *const c_char) -> *mut c_void {
        let Some(cx) = ctx() else {
            return pass!();
        };
        let owner = crate::active::current_owner(&cx);
        let r = cx.run(|st| {
            let fd = super::fs::vopen(
                st,
                libc::AT_FDCWD,
                // SAFETY: `path` is a C string, as opendir's contract requires.
                unsafe { bytes(path) },
                libc::O_RDONLY | libc::O_DIRECTORY | libc::O_CLOEXEC,
                0,
            )?;
            match snapshot(st, fd) {
                Ok(e) => Ok((fd, e)),
                Err(e) => {
                    let _ = st.close(fd);
                    Err(e)
                }
            }
        });
        match r {
            Ok((fd, entries)) => new_vdir(owner, fd, entries),
            Err(_) => std::ptr::null_mut(),
        }
    }

    fn fdopendir(fd: c_int) -> *mut c_void {
        if crate::libc::fd_is_ours(fd) {
            if let Some(cx) = ctx_fd(fd) {
                let owner = crate::active::current_owner(&cx);
                return match cx.run(|st| snapshot(st, fd)) {
                    Ok(entries) => new_vdir(owner, fd, entries),
                    Err(_) => std::ptr::null_mut(),
                };
            }
        }
        pass!()
    }

    fn readdir64 | readdir (d: *mut c_void) -> *mut dirent64 {
        // SAFETY: `d` is an open directory stream (readdir's contract), used by this call
        // alone.
        let Some(v) = (unsafe { as_vdir(d) }) else {
            return pass!();
        };
        let Some((name, ino, t)) = v.entries.get(v.next) else {
            return std::ptr::null_mut();
        };
        v.next += 1;
        let e = &mut v.ent;
        e.d_ino = *ino;
        e.d_off = v.next as i64;
        e.d_reclen = std::mem::size_of::<dirent64>() as u16;
        e.d_type = *t;
        let n = name.len().min(e.d_name.len() - 1);
        for (dst, &src) in e.d_name.iter_mut().zip(&name[..n]) {
            *dst = src as c_char;
        }
        e.d_name[n] = 0;
        e
    }

    fn closedir(d: *mut c_void) -> c_int {
        // SAFETY: `d` is an open directory stream (closedir's contract).
        if unsafe { as_vdir(d) }.is_none() {
            return pass!();
        }
        let _off = crate::active::Suspend::new();
        // SAFETY: a `VDir` of ours (checked above), made by `Box::into_raw`, closed once.
        let v = unsafe { Box::from_raw(d as *mut VDir) };
        let fd = v.fd;
        let r = {
            let mut st = v.owner.lock();
            st.close(fd)
        };
        match r {
            Ok(()) => 0,
            Err(e) => {
                set_errno(e);
                -1
            }
        }
    }

    fn dirfd(d: *mut c_void) -> c_int {
        // SAFETY: `d` is an open directory stream (dirfd's contract).
        match unsafe { as_vdir(d) } {
            Some(v) => v.fd,
            None => pass!(),
        }
    }

    fn rewinddir(d: *mut c_void) -> () {
        // SAFETY: `d` is an open directory stream (rewinddir's contract), used by this call
        // alone.
        let Some(v) = (unsafe { as_vdir(d) }) else {
            return pass!();
        };
        let _off = crate::active::Suspend::new();
        let owner = v.owner.clone();
        if let Ok(e) = snapshot(&owner.lock(), v.fd) {
            v.entries = e;
        }
        v.next = 0;
    }
}
