//! Path operations: open, mkdir, unlink, rename, links, chmod, cwd, realpath.

use libc::{c_char, c_int, c_uint, mode_t, size_t, ssize_t};

use super::{bytes, slice_mut};
use crate::access::Access;
use crate::state::{Desc, State, Target};
use crate::vfs::{lexical_abs, R};

fn found(e: c_int) -> bool {
    e != libc::ENOENT && e != libc::ENOTDIR
}

fn record_open(st: &mut State, base: &[u8], path: &[u8], writes: bool, r: &R<(u64, bool)>) {
    let p = st.abs_path(base, path);
    let a = match r {
        Ok((_, true)) => Access::PathWritten { path: p },
        Ok(_) if writes => Access::PathWritten { path: p },
        Ok(_) => Access::PathOpened {
            path: p,
            found: true,
        },
        Err(e) => Access::PathOpened {
            path: p,
            found: found(*e),
        },
    };
    st.record(a);
}

pub(crate) fn vopen(
    st: &mut State,
    dirfd: c_int,
    path: &[u8],
    flags: c_int,
    mode: u32,
) -> R<c_int> {
    if flags & libc::O_TMPFILE == libc::O_TMPFILE {
        return Err(libc::EOPNOTSUPP);
    }
    let base = st.base_for(dirfd, path)?;
    let acc = flags & libc::O_ACCMODE;
    let writes = acc != libc::O_RDONLY;
    let r = st.vfs.open(&base, path, flags, mode);
    record_open(st, &base, path, writes, &r);
    let (ino, _) = r?;
    let target = if st.vfs.node(ino).is_dir() {
        Target::Dir(ino)
    } else {
        Target::File(ino)
    };
    let canon = st.vfs.resolve(&base, path, true).map(|l| l.canon);
    let p = canon.unwrap_or_else(|_| lexical_abs(&base, path));
    Ok(st.alloc_fd(Desc::new(target, flags, p)))
}

fn vmkdir(st: &mut State, dirfd: c_int, path: &[u8], mode: mode_t) -> R<c_int> {
    let base = st.base_for(dirfd, path)?;
    let r = st.vfs.mkdir(&base, path, mode);
    let p = st.abs_path(&base, path);
    st.record(match r {
        Ok(()) => Access::PathWritten { path: p },
        Err(e) => Access::PathChecked {
            path: p,
            found: found(e),
        },
    });
    r.map(|_| 0)
}

fn vremove(st: &mut State, dirfd: c_int, path: &[u8], dir: bool) -> R<c_int> {
    let base = st.base_for(dirfd, path)?;
    let open = st.open_inodes();
    let is_open = |ino| open.contains(&ino);
    let r = if dir {
        st.vfs.rmdir(&base, path, &is_open)
    } else {
        st.vfs.unlink(&base, path, &is_open)
    };
    let p = st.abs_path(&base, path);
    st.record(match r {
        Ok(()) => Access::PathRemoved { path: p },
        Err(e) => Access::PathChecked {
            path: p,
            found: found(e),
        },
    });
    r.map(|_| 0)
}

fn vrename(
    st: &mut State,
    ofd: c_int,
    old: &[u8],
    nfd: c_int,
    new: &[u8],
    flags: c_uint,
) -> R<c_int> {
    let ob = st.base_for(ofd, old)?;
    let nb = st.base_for(nfd, new)?;
    if flags & !libc::RENAME_NOREPLACE != 0 {
        return Err(libc::EINVAL);
    }
    let open = st.open_inodes();
    let is_open = |ino| open.contains(&ino);
    let r = st.vfs.rename(
        &ob,
        old,
        &nb,
        new,
        flags & libc::RENAME_NOREPLACE != 0,
        &is_open,
    );
    let (po, pn) = (st.abs_path(&ob, old), st.abs_path(&nb, new));
    match r {
        Ok(()) => {
            st.record(Access::PathRemoved { path: po });
            st.record(Access::PathWritten { path: pn });
        }
        Err(e) => st.record(Access::PathChecked {
            path: po,
            found: found(e),
        }),
    }
    r.map(|_| 0)
}

fn vlink(st: &mut State, old: &[u8], new: &[u8], follow: bool) -> R<c_int> {
    let cwd = st.cwd.clone();
    let r = st.vfs.link(&cwd, old, new, follow);
    let p = st.abs_path(&cwd, new);
    st.record(Access::PathWritten { path: p });
    r.map(|_| 0)
}

fn vsymlink(st: &mut State, target: &[u8], dirfd: c_int, path: &[u8]) -> R<c_int> {
    let base = st.base_for(dirfd, path)?;
    let r = st.vfs.symlink(&base, target, path);
    let p = st.abs_path(&base, path);
    st.record(Access::PathWritten { path: p });
    r.map(|_| 0)
}

fn vreadlink(st: &mut State, dirfd: c_int, path: &[u8], buf: &mut [u8]) -> R<ssize_t> {
    let base = st.base_for(dirfd, path)?;
    let r = st.vfs.readlink(&base, path);
    let p = st.abs_path(&base, path);
    st.record(Access::PathChecked {
        path: p,
        found: r.as_ref().map_or_else(|e| found(*e), |_| true),
    });
    let t = r?;
    // readlink truncates silently and does not NUL-terminate.
    let n = t.len().min(buf.len());
    buf[..n].copy_from_slice(&t[..n]);
    Ok(n as ssize_t)
}

fn vchmod(st: &mut State, dirfd: c_int, path: &[u8], mode: mode_t, follow: bool) -> R<c_int> {
    let base = st.base_for(dirfd, path)?;
    let r = st.vfs.resolve(&base, path, follow);
    let p = st.abs_path(&base, path);
    let ino = r.and_then(|l| l.ino.ok_or(libc::ENOENT));
    match ino {
        Ok(ino) => {
            st.record(Access::PathWritten { path: p });
            st.vfs.chmod(ino, mode);
            Ok(0)
        }
        Err(e) => {
            st.record(Access::PathChecked {
                path: p,
                found: found(e),
            });
            Err(e)
        }
    }
}

fn vtruncate_path(st: &mut State, path: &[u8], len: i64) -> R<c_int> {
    let fd = vopen(st, libc::AT_FDCWD, path, libc::O_WRONLY, 0)?;
    let ino = match st.desc(fd)?.target {
        Target::File(ino) => ino,
        _ => 0,
    };
    let r = if len < 0 {
        Err(libc::EINVAL)
    } else {
        st.vfs.truncate(ino, len as u64)
    };
    st.close(fd)?;
    r.map(|_| 0)
}

fn vchdir(st: &mut State, path: &[u8]) -> R<c_int> {
    let cwd = st.cwd.clone();
    let r = st.vfs.resolve(&cwd, path, true);
    let p = st.abs_path(&cwd, path);
    let l = r.and_then(|l| l.ino.map(|i| (i, l.canon)).ok_or(libc::ENOENT));
    st.record(Access::PathChecked {
        path: p,
        found: l.as_ref().map_or_else(|e| found(*e), |_| true),
    });
    let (ino, canon) = l?;
    if !st.vfs.node(ino).is_dir() {
        return Err(libc::ENOTDIR);
    }
    st.cwd = canon;
    Ok(0)
}

fn vrealpath(st: &mut State, path: &[u8]) -> R<Vec<u8>> {
    let cwd = st.cwd.clone();
    let r = st.vfs.resolve(&cwd, path, true);
    let p = st.abs_path(&cwd, path);
    let r = r.and_then(|l| l.ino.map(|_| l.canon).ok_or(libc::ENOENT));
    st.record(Access::PathChecked {
        path: p,
        found: r.as_ref().map_or_else(|e| found(*e), |_| true),
    });
    r
}

fn vaccess(st: &mut State, dirfd: c_int, path: &[u8], mode: c_int, follow: bool) -> R<c_int> {
    let base = st.base_for(dirfd, path)?;
    let r = st.vfs.resolve(&base, path, follow);
    let p = st.abs_path(&base, path);
    let r = r.and_then(|l| l.ino.ok_or(libc::ENOENT));
    st.record(Access::PathChecked {
        path: p,
        found: r.as_ref().map_or_else(|e| found(*e), |_| true),
    });
    let n = st.vfs.node(r?);
    let want = ((mode & libc::R_OK != 0) as u32) << 2
        | ((mode & libc::W_OK != 0) as u32) << 1
        | (mode & libc::X_OK != 0) as u32;
    if (n.perm >> 6) & want != want {
        return Err(libc::EACCES);
    }
    Ok(0)
}

/// Applies `utimensat`-style times (NULL = now; UTIME_NOW / UTIME_OMIT honoured).
///
/// # Safety
///
/// `times` is NULL or points at two `timespec`s (access, then modification).
pub(crate) unsafe fn set_times(st: &mut State, ino: u64, times: *const libc::timespec) {
    let now = st.vfs.now;
    let pick = |i: usize, old: crate::vfs::Ts| -> crate::vfs::Ts {
        if times.is_null() {
            return now;
        }
        // SAFETY: `i` < 2, within the two timespecs (this function's contract).
        let t = unsafe { *times.add(i) };
        match t.tv_nsec {
            libc::UTIME_NOW => now,
            libc::UTIME_OMIT => old,
            _ => crate::vfs::Ts {
                sec: t.tv_sec,
                nsec: t.tv_nsec,
            },
        }
    };
    let n = st.vfs.node_mut(ino);
    n.atime = pick(0, n.atime);
    n.mtime = pick(1, n.mtime);
    n.ctime = now;
}

interpose! {
    fn open64 | open (path: *const c_char, flags: c_int, mode: c_uint) -> c_int {
        // SAFETY: `path` is a C string, as open's contract requires.
        virt!(|st| vopen(st, libc::AT_FDCWD, unsafe { bytes(path) }, flags, mode));
        let fd = pass!();
        if crate::record::hooks_on() {
            // SAFETY: the C string the open was given.
            unsafe { crate::record::on_open(libc::AT_FDCWD, path, flags, fd) };
        }
        fd
    }

    fn openat64 | openat (dirfd: c_int, path: *const c_char, flags: c_int, mode: c_uint) -> c_int {
        // SAFETY: `path` is a C string, as openat's contract requires.
        virt!(|st| vopen(st, dirfd, unsafe { bytes(path) }, flags, mode));
        let fd = pass!();
        if crate::record::hooks_on() {
            // SAFETY: the C string the open was given.
            unsafe { crate::record::on_open(dirfd, path, flags, fd) };
        }
        fd
    }

    fn creat | creat64 (path: *const c_char, mode: mode_t) -> c_int {
        // SAFETY: `path` is a C string, as creat's contract requires; `open64` is ours.
        unsafe { open64(path, libc::O_CREAT | libc::O_WRONLY | libc::O_TRUNC, mode) }
    }

    fn mkdir(path: *const c_char, mode: mode_t) -> c_int {
        // SAFETY: `path` is a C string, as mkdir's contract requires.
        virt!(|st| vmkdir(st, libc::AT_FDCWD, unsafe { bytes(path) }, mode));
        pass!()
    }

    fn mkdirat(dirfd: c_int, path: *const c_char, mode: mode_t) -> c_int {
        // SAFETY: `path` is a C string, as mkdirat's contract requires.
        virt!(|st| vmkdir(st, dirfd, unsafe { bytes(path) }, mode));
        pass!()
    }

    fn rmdir(path: *const c_char) -> c_int {
        // SAFETY: `path` is a C string, as rmdir's contract requires.
        virt!(|st| vremove(st, libc::AT_FDCWD, unsafe { bytes(path) }, true));
        pass!()
    }

    fn unlink(path: *const c_char) -> c_int {
        // SAFETY: `path` is a C string, as unlink's contract requires.
        virt!(|st| vremove(st, libc::AT_FDCWD, unsafe { bytes(path) }, false));
        pass!()
    }

    fn unlinkat(dirfd: c_int, path: *const c_char, flags: c_int) -> c_int {
        virt!(|st| {
            // SAFETY: `path` is a C string, as unlinkat's contract requires.
            let path = unsafe { bytes(path) };
            vremove(st, dirfd, path, flags & libc::AT_REMOVEDIR != 0)
        });
        pass!()
    }

    fn rename(old: *const c_char, new: *const c_char) -> c_int {
        virt!(|st| {
            // SAFETY: both are C strings, as rename's contract requires.
            let (old, new) = unsafe { (bytes(old), bytes(new)) };
            vrename(st, libc::AT_FDCWD, old, libc::AT_FDCWD, new, 0)
        });
        pass!()
    }

    fn renameat(ofd: c_int, old: *const c_char, nfd: c_int, new: *const c_char) -> c_int {
        virt!(|st| {
            // SAFETY: both are C strings, as renameat's contract requires.
            let (old, new) = unsafe { (bytes(old), bytes(new)) };
            vrename(st, ofd, old, nfd, new, 0)
        });
        pass!()
    }

    fn renameat2(
        ofd: c_int,
        old: *const c_char,
        nfd: c_int,
        new: *const c_char,
        flags: c_uint,
    ) -> c_int {
        virt!(|st| {
            // SAFETY: both are C strings, as renameat2's contract requires.
            let (old, new) = unsafe { (bytes(old), bytes(new)) };
            vrename(st, ofd, old, nfd, new, flags)
        });
        match crate::real::real_opt!(
            renameat2: fn(c_int, *const c_char, c_int, *const c_char, c_uint) -> c_int
        ) {
            // SAFETY: glibc's own renameat2, with the caller's arguments (as `pass!`).
            Some(f) => unsafe { f(ofd, old, nfd, new, flags) },
            // glibc < 2.28.
            // SAFETY: the system call renameat2 stands for, with the same arguments.
            None => unsafe { libc::syscall(libc::SYS_renameat2, ofd, old, nfd, new, flags) as c_int },
        }
    }

    fn link(old: *const c_char, new: *const c_char) -> c_int {
        virt!(|st| {
            // SAFETY: both are C strings, as link's contract requires.
            let (old, new) = unsafe { (bytes(old), bytes(new)) };
            vlink(st, old, new, false)
        });
        pass!()
    }

    fn linkat(
        ofd: c_int,
        old: *const c_char,
        nfd: c_int,
        new: *const c_char,
        flags: c_int,
    ) -> c_int {
        virt!(|st| {
            // SAFETY: both are C strings, as linkat's contract requires.
            let (o, n) = unsafe { (bytes(old), bytes(new)) };
            let o = lexical_abs(&st.base_for(ofd, o)?, o);
            let n = lexical_abs(&st.base_for(nfd, n)?, n);
            vlink(st, &o, &n, flags & libc::AT_SYMLINK_FOLLOW != 0)
        });
        pass!()
    }

    fn symlink(target: *const c_char, path: *const c_char) -> c_int {
        virt!(|st| {
            // SAFETY: both are C strings, as symlink's contract requires.
            let (target, path) = unsafe { (bytes(target), bytes(path)) };
            vsymlink(st, target, libc::AT_FDCWD, path)
        });
        pass!()
    }

    fn symlinkat(target: *const c_char, dirfd: c_int, path: *const c_char) -> c_int {
        virt!(|st| {
            // SAFETY: both are C strings, as symlinkat's contract requires.
            let (target, path) = unsafe { (bytes(target), bytes(path)) };
            vsymlink(st, target, dirfd, path)
        });
        pass!()
    }

    fn readlink(path: *const c_char, buf: *mut c_char, size: size_t) -> ssize_t {
        virt!(|st| {
            // SAFETY: a C string and a buffer of `size` bytes, as readlink's contract requires.
            let (path, buf) = unsafe { (bytes(path), slice_mut(buf.cast(), size)) };
            vreadlink(st, libc::AT_FDCWD, path, buf)
        });
        pass!()
    }

    fn readlinkat(dirfd: c_int, path: *const c_char, buf: *mut c_char, size: size_t) -> ssize_t {
        virt!(|st| {
            // SAFETY: a C string and a buffer of `size` bytes, as readlinkat's contract
            // requires.
            let (path, buf) = unsafe { (bytes(path), slice_mut(buf.cast(), size)) };
            vreadlink(st, dirfd, path, buf)
        });
        pass!()
    }

    fn chmod(path: *const c_char, mode: mode_t) -> c_int {
        // SAFETY: `path` is a C string, as chmod's contract requires.
        virt!(|st| vchmod(st, libc::AT_FDCWD, unsafe { bytes(path) }, mode, true));
        pass!()
    }

    fn fchmodat(dirfd: c_int, path: *const c_char, mode: mode_t, flags: c_int) -> c_int {
        virt!(|st| {
            // SAFETY: `path` is a C string, as fchmodat's contract requires.
            let path = unsafe { bytes(path) };
            vchmod(st, dirfd, path, mode, flags & libc::AT_SYMLINK_NOFOLLOW == 0)
        });
        pass!()
    }

    fn truncate64 | truncate (path: *const c_char, len: libc::off64_t) -> c_int {
        // SAFETY: `path` is a C string, as truncate's contract requires.
        virt!(|st| vtruncate_path(st, unsafe { bytes(path) }, len));
        pass!()
    }

    fn chdir(path: *const c_char) -> c_int {
        virt!(|st| {
            st.record(Access::Served { what: "chdir" });
            // SAFETY: `path` is a C string, as chdir's contract requires.
            vchdir(st, unsafe { bytes(path) })
        });
        pass!()
    }

    fn fchdir(fd: c_int) -> c_int {
        virt_fd!(fd, |st| {
            st.record(Access::Served { what: "chdir" });
            let d = st.desc(fd)?;
            match d.target {
                Target::Dir(_) => {
                    st.cwd = d.path.clone();
                    Ok(0)
                }
                _ => Err(libc::ENOTDIR),
            }
        });
        pass!()
    }

    fn getcwd(buf: *mut c_char, size: size_t) -> *mut c_char {
        let Some(cx) = crate::active::ctx() else {
            return pass!();
        };
        let Ok(cwd) = cx.run(|st| Ok(st.cwd.clone())) else {
            return std::ptr::null_mut();
        };
        drop(cx);
        if buf.is_null() {
            // glibc extension: allocate (at least `size` bytes) for the caller to free.
            return super::malloc_cstr(&cwd);
        }
        // SAFETY: `buf` holds `size` bytes, as getcwd's contract requires.
        match unsafe { super::copy_cstr(&cwd, buf, size) } {
            Ok(()) => buf,
            Err(e) => {
                crate::active::set_errno(e);
                std::ptr::null_mut()
            }
        }
    }

    fn realpath(path: *const c_char, resolved: *mut c_char) -> *mut c_char {
        let Some(cx) = crate::active::ctx() else {
            return pass!();
        };
        if path.is_null() {
            crate::active::set_errno(libc::EINVAL);
            return std::ptr::null_mut();
        }
        // SAFETY: `path` is a C string, as realpath's contract requires.
        match cx.run(|st| vrealpath(st, unsafe { bytes(path) })) {
            Ok(canon) if resolved.is_null() => super::malloc_cstr(&canon),
            Ok(canon) => {
                // SAFETY: `resolved` holds PATH_MAX bytes, as realpath's contract requires.
                match unsafe { super::copy_cstr(&canon, resolved, libc::PATH_MAX as usize) } {
                    Ok(()) => resolved,
                    Err(_) => {
                        crate::active::set_errno(libc::ENAMETOOLONG);
                        std::ptr::null_mut()
                    }
                }
            }
            Err(_) => std::ptr::null_mut(),
        }
    }

    fn canonicalize_file_name(path: *const c_char) -> *mut c_char {
        // SAFETY: `path` is a C string, as canonicalize_file_name's contract requires;
        // `realpath` is ours, and allocates the result as glibc's would.
        unsafe { realpath(path, std::ptr::null_mut()) }
    }

    fn access(path: *const c_char, mode: c_int) -> c_int {
        // SAFETY: `path` is a C string, as access's contract requires.
        virt!(|st| vaccess(st, libc::AT_FDCWD, unsafe { bytes(path) }, mode, true));
        pass!()
    }

    fn faccessat(dirfd: c_int, path: *const c_char, mode: c_int, flags: c_int) -> c_int {
        virt!(|st| {
            // SAFETY: `path` is a C string, as faccessat's contract requires.
            let path = unsafe { bytes(path) };
            vaccess(st, dirfd, path, mode, flags & libc::AT_SYMLINK_NOFOLLOW == 0)
        });
        pass!()
    }

    fn utimensat(
        dirfd: c_int,
        path: *const c_char,
        times: *const libc::timespec,
        flags: c_int,
    ) -> c_int {
        virt!(|st| {
            // SAFETY: `path` is a C string, as utimensat's contract requires.
            let path = unsafe { bytes(path) };
            let base = st.base_for(dirfd, path)?;
            let ino = st
                .vfs
                .resolve(&base, path, flags & libc::AT_SYMLINK_NOFOLLOW == 0)?
                .ino
                .ok_or(libc::ENOENT)?;
            let p = st.abs_path(&base, path);
            st.record(Access::PathWritten { path: p });
            // SAFETY: `times` is NULL or two timespecs, as utimensat's contract requires.
            unsafe { set_times(st, ino, times) };
            Ok(0)
        });
        pass!()
    }
}
