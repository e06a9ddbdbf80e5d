//! The rest of the path-taking calls that could change the real disk: ownership, special
//! files, times, extended attributes, C's `remove` and the `mkstemp` family.
//!
//! Without these, e.g. `chown` or `mkfifo` on a path of the virtual file system would act on
//! the real one (glibc's own `remove` and `mkstemp` call the kernel directly).

use libc::{c_char, c_int, c_void, gid_t, mode_t, size_t, ssize_t, uid_t, FILE};

use super::bytes;
use crate::access::Access;
use crate::state::State;
use crate::vfs::{GID, R, UID};

fn found(e: c_int) -> bool {
    e != libc::ENOENT && e != libc::ENOTDIR
}

/// `chown`: the virtual user owns everything and, not being root, cannot give it away.
fn vchown(
    st: &mut State,
    dirfd: c_int,
    path: &[u8],
    uid: uid_t,
    gid: gid_t,
    follow: bool,
) -> R<c_int> {
    let base = st.base_for(dirfd, path)?;
    let r = st
        .vfs
        .resolve(&base, path, follow)
        .and_then(|l| l.ino.ok_or(libc::ENOENT));
    let p = st.abs_path(&base, path);
    match r {
        Ok(_) => st.record(Access::PathWritten { path: p }),
        Err(e) => st.record(Access::PathChecked {
            path: p,
            found: found(e),
        }),
    }
    r?;
    let keeps = |want: u32, have: u32| want == u32::MAX || want == have;
    if keeps(uid, UID) && keeps(gid, GID) {
        Ok(0)
    } else {
        Err(libc::EPERM)
    }
}

/// Special files (FIFOs, device nodes) cannot be created in the virtual file system.
fn vmknod(st: &mut State, dirfd: c_int, path: &[u8]) -> R<c_int> {
    let base = st.base_for(dirfd, path)?;
    let p = st.abs_path(&base, path);
    st.record(Access::PathWritten { path: p });
    Err(libc::EPERM)
}

/// `utimes`' two timevals as `utimensat`'s timespecs (`None` for NULL: now).
///
/// # Safety
///
/// `tv` is NULL or points at two `timeval`s.
unsafe fn times_of(tv: *const libc::timeval) -> Option<[libc::timespec; 2]> {
    if tv.is_null() {
        return None;
    }
    // SAFETY: two timevals (this function's contract).
    let t = unsafe { std::slice::from_raw_parts(tv, 2) };
    Some([0, 1].map(|i| libc::timespec {
        tv_sec: t[i].tv_sec,
        tv_nsec: t[i].tv_usec * 1000,
    }))
}

const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// Fills the six `X`s before `suffix` bytes with letters from the environment's random
/// stream, and calls `create` until it does not fail with EEXIST.
///
/// # Safety
///
/// `template` is a writable NUL-terminated string that nothing else uses meanwhile.
unsafe fn make_temp(
    template: *mut c_char,
    suffix: usize,
    create: &dyn Fn(*mut c_char) -> c_int,
) -> c_int {
    // SAFETY: a C string (this function's contract).
    let len = unsafe { bytes(template) }.len();
    if len < 6 + suffix {
        crate::active::set_errno(libc::EINVAL);
        return -1;
    }
    // SAFETY: six bytes within the string's `len` (checked above), writable and ours (this
    // function's contract).
    let xs =
        unsafe { std::slice::from_raw_parts_mut(template.add(len - 6 - suffix) as *mut u8, 6) };
    if xs != b"XXXXXX" {
        crate::active::set_errno(libc::EINVAL);
        return -1;
    }
    for _ in 0..100 {
        let mut rnd = [0u8; 6];
        if let Some(cx) = crate::active::ctx() {
            let _ = cx.run(|st| {
                st.record(Access::RandomRead);
                st.random.fill(crate::rng::Draw::Names, &mut rnd);
                Ok(())
            });
        }
        for (x, r) in xs.iter_mut().zip(rnd) {
            *x = LETTERS[r as usize % LETTERS.len()];
        }
        let r = create(template);
        if r != -1 || crate::active::errno() != libc::EEXIST {
            return r;
        }
    }
    crate::active::set_errno(libc::EEXIST);
    -1
}

/// Creates the file a template names, as `mkstemp` does (`flags` added, as `mkostemp`'s).
fn open_excl(flags: c_int) -> impl Fn(*mut c_char) -> c_int {
    // SAFETY: `make_temp` passes the template, a C string.
    move |p| unsafe {
        super::fs::open64(
            p,
            libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | (flags & !libc::O_ACCMODE),
            0o600,
        )
    }
}

interpose! {
    fn chown(path: *const c_char, uid: uid_t, gid: gid_t) -> c_int {
        // SAFETY: `path` is a C string, as chown's contract requires.
        virt!(|st| vchown(st, libc::AT_FDCWD, unsafe { bytes(path) }, uid, gid, true));
        pass!()
    }

    fn lchown(path: *const c_char, uid: uid_t, gid: gid_t) -> c_int {
        // SAFETY: `path` is a C string, as lchown's contract requires.
        virt!(|st| vchown(st, libc::AT_FDCWD, unsafe { bytes(path) }, uid, gid, false));
        pass!()
    }

    fn fchownat(dirfd: c_int, path: *const c_char, uid: uid_t, gid: gid_t, flags: c_int) -> c_int {
        virt!(|st| {
            // SAFETY: `path` is a C string, as fchownat's contract requires.
            let p = unsafe { bytes(path) };
            if p.is_empty() && flags & libc::AT_EMPTY_PATH != 0 {
                let d = st.desc(dirfd)?.path.clone();
                return vchown(st, libc::AT_FDCWD, &d, uid, gid, true);
            }
            let follow = flags & libc::AT_SYMLINK_NOFOLLOW == 0;
            vchown(st, dirfd, p, uid, gid, follow)
        });
        pass!()
    }

    fn fchown(fd: c_int, uid: uid_t, gid: gid_t) -> c_int {
        virt_fd!(fd, |st| {
            let d = st.desc(fd)?.path.clone();
            vchown(st, libc::AT_FDCWD, &d, uid, gid, true)
        });
        pass!()
    }

    fn chroot(path: *const c_char) -> c_int {
        virt!(|_st| Err::<c_int, _>(libc::EPERM));
        pass!()
    }

    fn mknod(path: *const c_char, mode: mode_t, dev: libc::dev_t) -> c_int {
        // SAFETY: `path` is a C string, as mknod's contract requires.
        virt!(|st| vmknod(st, libc::AT_FDCWD, unsafe { bytes(path) }));
        pass!()
    }

    fn mknodat(dirfd: c_int, path: *const c_char, mode: mode_t, dev: libc::dev_t) -> c_int {
        // SAFETY: `path` is a C string, as mknodat's contract requires.
        virt!(|st| vmknod(st, dirfd, unsafe { bytes(path) }));
        pass!()
    }

    fn mkfifo(path: *const c_char, mode: mode_t) -> c_int {
        // SAFETY: `path` is a C string, as mkfifo's contract requires.
        virt!(|st| vmknod(st, libc::AT_FDCWD, unsafe { bytes(path) }));
        pass!()
    }

    fn mkfifoat(dirfd: c_int, path: *const c_char, mode: mode_t) -> c_int {
        // SAFETY: `path` is a C string, as mkfifoat's contract requires.
        virt!(|st| vmknod(st, dirfd, unsafe { bytes(path) }));
        pass!()
    }

    /// File locks are always granted: there is no other process to contend with.
    fn flock(fd: c_int, op: c_int) -> c_int {
        virt_fd!(fd, |st| st.desc(fd).map(|_| 0));
        pass!()
    }

    fn utimes(path: *const c_char, tv: *const libc::timeval) -> c_int {
        if !crate::active::is_active() {
            return pass!();
        }
        // SAFETY: `tv` is NULL or two timevals, as utimes's contract requires.
        let ts = unsafe { times_of(tv) };
        let p = ts.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
        // SAFETY: the caller's path; `p` is NULL or the two timespecs above.
        unsafe { super::fs::utimensat(libc::AT_FDCWD, path, p, 0) }
    }

    fn lutimes(path: *const c_char, tv: *const libc::timeval) -> c_int {
        if !crate::active::is_active() {
            return pass!();
        }
        // SAFETY: `tv` is NULL or two timevals, as lutimes's contract requires.
        let ts = unsafe { times_of(tv) };
        let p = ts.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
        // SAFETY: the caller's path; `p` is NULL or the two timespecs above.
        unsafe { super::fs::utimensat(libc::AT_FDCWD, path, p, libc::AT_SYMLINK_NOFOLLOW) }
    }

    fn utime(path: *const c_char, times: *const libc::utimbuf) -> c_int {
        if !crate::active::is_active() {
            return pass!();
        }
        let ts = (!times.is_null()).then(|| {
            // SAFETY: a `utimbuf`, as utime's contract requires of a non-NULL `times`.
            let t = unsafe { *times };
            [t.actime, t.modtime].map(|s| libc::timespec {
                tv_sec: s,
                tv_nsec: 0,
            })
        });
        let p = ts.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
        // SAFETY: the caller's path; `p` is NULL or the two timespecs above.
        unsafe { super::fs::utimensat(libc::AT_FDCWD, path, p, 0) }
    }

    /// Extended attributes are not supported by the virtual file system.
    fn setxattr | lsetxattr (
        p: *const c_char,
        n: *const c_char,
        v: *const c_void,
        s: size_t,
        f: c_int,
    ) -> c_int {
        no_xattrs().unwrap_or_else(|| pass!())
    }

    fn removexattr | lremovexattr (p: *const c_char, n: *const c_char) -> c_int {
        no_xattrs().unwrap_or_else(|| pass!())
    }

    fn getxattr | lgetxattr (p: *const c_char, n: *const c_char, v: *mut c_void, s: size_t) -> ssize_t {
        no_xattrs().map_or_else(|| pass!(), |r| r as ssize_t)
    }

    fn listxattr | llistxattr (p: *const c_char, l: *mut c_char, s: size_t) -> ssize_t {
        no_xattrs().map_or_else(|| pass!(), |r| r as ssize_t)
    }

    /// C's `remove`: `unlink`, or `rmdir` for a directory.
    fn remove(path: *const c_char) -> c_int {
        if !crate::active::is_active() {
            return pass!();
        }
        // SAFETY: `path` is a C string, as remove's contract requires; `unlink` is ours.
        let r = unsafe { super::fs::unlink(path) };
        if r == -1 && crate::active::errno() == libc::EISDIR {
            // SAFETY: as above.
            return unsafe { super::fs::rmdir(path) };
        }
        r
    }

    fn mkstemp | mkstemp64 (template: *mut c_char) -> c_int {
        if !crate::active::is_active() {
            return pass!();
        }
        // SAFETY: a writable C string, as mkstemp's contract requires.
        unsafe { make_temp(template, 0, &open_excl(0)) }
    }

    fn mkostemp(template: *mut c_char, flags: c_int) -> c_int {
        if !crate::active::is_active() {
            return pass!();
        }
        // SAFETY: a writable C string, as mkostemp's contract requires.
        unsafe { make_temp(template, 0, &open_excl(flags)) }
    }

    fn mkstemps(template: *mut c_char, suffix: c_int) -> c_int {
        if !crate::active::is_active() {
            return pass!();
        }
        // SAFETY: a writable C string, as mkstemps's contract requires.
        unsafe { make_temp(template, suffix.max(0) as usize, &open_excl(0)) }
    }

    fn mkdtemp(template: *mut c_char) -> *mut c_char {
        if !crate::active::is_active() {
            return pass!();
        }
        // SAFETY: a writable C string, as mkdtemp's contract requires; `make_temp` passes it to
        // our `mkdir`.
        let r = unsafe { make_temp(template, 0, &|p| super::fs::mkdir(p, 0o700)) };
        if r == 0 {
            template
        } else {
            std::ptr::null_mut()
        }
    }

    /// `tmpfile`: an unnamed temporary file (created in `/tmp`, then unlinked).
    fn tmpfile64 | tmpfile () -> *mut FILE {
        if !crate::active::is_active() {
            return pass!();
        }
        let mut name = *b"/tmp/tmpfXXXXXX\0";
        // SAFETY: a writable template of our own.
        let fd = unsafe { mkstemp(name.as_mut_ptr().cast()) };
        if fd < 0 {
            return std::ptr::null_mut();
        }
        // SAFETY: the name `mkstemp` just wrote, a C string.
        unsafe { super::fs::unlink(name.as_ptr().cast()) };
        // SAFETY: a C string mode; the stream takes the descriptor just made.
        unsafe { super::cstdio::fdopen(fd, c"w+".as_ptr()) }
    }

    /// The umask is per environment: changing the real, process-wide one would change the
    /// files other tests create.
    fn umask(mask: mode_t) -> mode_t {
        if let Some(cx) = crate::active::ctx() {
            // umask cannot fail.
            return cx
                .run(|st| {
                    st.record(Access::Served { what: "umask" });
                    Ok(std::mem::replace(&mut st.vfs.umask, mask & 0o777))
                })
                .unwrap_or(0o022);
        }
        pass!()
    }
}

/// The answer to an extended-attribute call inside an environment (`None` outside).
fn no_xattrs() -> Option<c_int> {
    crate::active::is_active().then(|| {
        crate::active::set_errno(libc::ENOTSUP);
        -1
    })
}
