//! stat, lstat, fstat, fstatat and statx over the virtual file system.

use libc::{c_char, c_int, c_uint};

use super::bytes;
use crate::access::Access;
use crate::state::{State, Target};
use crate::vfs::{Stat, Ts, R};

/// Device number reported for the virtual file system (and for virtual stdio).
const DEV: u64 = 0x4845;

fn stat_fd(st: &State, fd: c_int) -> R<Stat> {
    match super::io::target(st, fd)? {
        Target::File(ino) | Target::Dir(ino) => Ok(st.vfs.stat(ino)),
        Target::Stdio(n) => Ok(pseudo(libc::S_IFCHR | 0o620, n as u64 + 1)),
        Target::Socket => Ok(pseudo(libc::S_IFSOCK | 0o777, 0)),
    }
}

fn pseudo(mode: u32, ino: u64) -> Stat {
    Stat {
        ino,
        mode,
        nlink: 1,
        size: 0,
        atime: Ts::default(),
        mtime: Ts::default(),
        ctime: Ts::default(),
        rdev: 0,
    }
}

/// The shared core of every path-based stat: resolves, records, and stats.
fn stat_path(st: &mut State, dirfd: c_int, path: &[u8], flags: c_int) -> R<Stat> {
    if path.is_empty() && flags & libc::AT_EMPTY_PATH != 0 {
        if dirfd == libc::AT_FDCWD {
            let cwd = st.cwd.clone();
            return stat_path(st, libc::AT_FDCWD, &cwd, 0);
        }
        return stat_fd(st, dirfd);
    }
    let base = st.base_for(dirfd, path)?;
    let follow = flags & libc::AT_SYMLINK_NOFOLLOW == 0;
    let r = st
        .vfs
        .resolve(&base, path, follow)
        .and_then(|l| l.ino.ok_or(libc::ENOENT));
    let p = st.abs_path(&base, path);
    st.record(Access::PathChecked {
        path: p,
        found: r.is_ok() || r == Err(libc::EACCES) || r == Err(libc::ELOOP),
    });
    Ok(st.vfs.stat(r?))
}

/// Writes `s` into the caller's `stat64`.
///
/// # Safety
///
/// `out` is valid for writes of a `stat64`.
unsafe fn fill_stat(s: &Stat, out: *mut libc::stat64) {
    // SAFETY: `stat64` is plain old data, for which all zeroes is a value.
    let mut b: libc::stat64 = unsafe { std::mem::zeroed() };
    b.st_dev = DEV;
    b.st_ino = s.ino;
    b.st_nlink = s.nlink as u64;
    b.st_mode = s.mode;
    b.st_uid = crate::vfs::UID;
    b.st_gid = crate::vfs::GID;
    b.st_rdev = s.rdev;
    b.st_size = s.size as i64;
    b.st_blksize = 4096;
    b.st_blocks = s.size.div_ceil(512) as i64;
    b.st_atime = s.atime.sec;
    b.st_atime_nsec = s.atime.nsec;
    b.st_mtime = s.mtime.sec;
    b.st_mtime_nsec = s.mtime.nsec;
    b.st_ctime = s.ctime.sec;
    b.st_ctime_nsec = s.ctime.nsec;
    // SAFETY: a writable `stat64` (this function's contract).
    unsafe { out.write(b) };
}

/// Writes `s` into the caller's `statx`.
///
/// # Safety
///
/// `out` is valid for writes of a `statx`.
unsafe fn fill_statx(s: &Stat, out: *mut libc::statx) {
    let ts = |t: Ts| {
        // SAFETY: plain old data, for which all zeroes is a value.
        let mut x: libc::statx_timestamp = unsafe { std::mem::zeroed() };
        x.tv_sec = t.sec;
        x.tv_nsec = t.nsec as u32;
        x
    };
    // SAFETY: plain old data, for which all zeroes is a value.
    let mut b: libc::statx = unsafe { std::mem::zeroed() };
    b.stx_mask = libc::STATX_BASIC_STATS | libc::STATX_BTIME;
    b.stx_blksize = 4096;
    b.stx_nlink = s.nlink;
    b.stx_uid = crate::vfs::UID;
    b.stx_gid = crate::vfs::GID;
    b.stx_mode = s.mode as u16;
    b.stx_ino = s.ino;
    b.stx_size = s.size;
    b.stx_blocks = s.size.div_ceil(512);
    b.stx_atime = ts(s.atime);
    b.stx_btime = ts(s.ctime);
    b.stx_ctime = ts(s.ctime);
    b.stx_mtime = ts(s.mtime);
    b.stx_rdev_major = major(s.rdev);
    b.stx_rdev_minor = minor(s.rdev);
    b.stx_dev_major = major(DEV);
    b.stx_dev_minor = minor(DEV);
    // SAFETY: a writable `statx` (this function's contract).
    unsafe { out.write(b) };
}

/// The major and minor numbers of a device number, as glibc's `gnu_dev_major`/`gnu_dev_minor`
/// split it. Written here because `libc::major` is an `unsafe fn` in the libc versions a user's
/// `Cargo.lock` may still hold (0.2.140: the tests would not build) and safe in later ones.
fn major(dev: u64) -> u32 {
    (((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff)) as u32
}

fn minor(dev: u64) -> u32 {
    ((dev & 0xff) | ((dev >> 12) & !0xff)) as u32
}

/// A path-based stat into the caller's `stat64` (EFAULT for NULL pointers).
///
/// # Safety
///
/// `path` is NULL or a C string; `out` is NULL or valid for writes of a `stat64`.
unsafe fn vstat(
    st: &mut State,
    dirfd: c_int,
    path: *const c_char,
    flags: c_int,
    out: *mut libc::stat64,
) -> R<c_int> {
    if path.is_null() || out.is_null() {
        return Err(libc::EFAULT);
    }
    // SAFETY: a C string (this function's contract).
    let s = stat_path(st, dirfd, unsafe { bytes(path) }, flags)?;
    // SAFETY: a writable `stat64` (this function's contract).
    unsafe { fill_stat(&s, out) };
    Ok(0)
}

/// Whether a `*at` call must be served virtually: the thread is active, or the directory
/// descriptor is virtual (real `dirfd`s on an active thread still get virtual paths).
fn at_ctx(dirfd: c_int) -> Option<crate::active::Ctx> {
    if dirfd >= crate::state::VFD_BASE {
        crate::active::ctx_fd(dirfd)
    } else {
        crate::active::ctx()
    }
}

interpose! {
    fn stat64(path: *const c_char, out: *mut libc::stat64) -> c_int {
        // SAFETY: a C string and a writable `stat64`, as stat's contract requires.
        virt!(|st| unsafe { vstat(st, libc::AT_FDCWD, path, 0, out) });
        // SAFETY: as above.
        let r = try_pass!().unwrap_or_else(|| unsafe { raw_fstatat(libc::AT_FDCWD, path, out, 0) });
        if crate::record::hooks_on() {
            // SAFETY: NULL (statx's probe) or the C string the stat was given.
            unsafe { crate::record::on_stat(path) };
        }
        r
    }

    fn stat(path: *const c_char, out: *mut libc::stat64) -> c_int {
        // SAFETY: a C string and a writable `stat64`, as stat's contract requires.
        virt!(|st| unsafe { vstat(st, libc::AT_FDCWD, path, 0, out) });
        // SAFETY: as above.
        try_pass!().unwrap_or_else(|| unsafe { raw_fstatat(libc::AT_FDCWD, path, out, 0) })
    }

    fn lstat64 | lstat (path: *const c_char, out: *mut libc::stat64) -> c_int {
        let nofollow = libc::AT_SYMLINK_NOFOLLOW;
        // SAFETY: a C string and a writable `stat64`, as lstat's contract requires.
        virt!(|st| unsafe { vstat(st, libc::AT_FDCWD, path, nofollow, out) });
        // SAFETY: as above.
        try_pass!().unwrap_or_else(|| unsafe { raw_fstatat(libc::AT_FDCWD, path, out, nofollow) })
    }

    fn fstat64 | fstat (fd: c_int, out: *mut libc::stat64) -> c_int {
        virt_fd!(fd, |st| {
            let s = stat_fd(st, fd)?;
            // SAFETY: a writable `stat64`, as fstat's contract requires.
            unsafe { fill_stat(&s, out) };
            Ok(0)
        });
        // SAFETY: as above; the empty path with AT_EMPTY_PATH names `fd` itself.
        try_pass!().unwrap_or_else(|| unsafe {
            raw_fstatat(fd, c"".as_ptr(), out, libc::AT_EMPTY_PATH)
        })
    }

    fn fstatat64 | fstatat (
        dirfd: c_int,
        path: *const c_char,
        out: *mut libc::stat64,
        flags: c_int,
    ) -> c_int {
        if let Some(cx) = at_ctx(dirfd) {
            // SAFETY: a C string and a writable `stat64`, as fstatat's contract requires.
            return crate::active::ret(cx.run(|st| unsafe { vstat(st, dirfd, path, flags, out) }));
        }
        // SAFETY: as above.
        try_pass!().unwrap_or_else(|| unsafe { raw_fstatat(dirfd, path, out, flags) })
    }

    fn statx(
        dirfd: c_int,
        path: *const c_char,
        flags: c_int,
        mask: c_uint,
        out: *mut libc::statx,
    ) -> c_int {
        // std probes for statx with `statx(0, NULL, ..)` and expects EFAULT from the kernel;
        // the probe must reach the real function so it does not disable statx process-wide.
        if !path.is_null() {
            if let Some(cx) = at_ctx(dirfd) {
                return crate::active::ret(cx.run(|st| {
                    if out.is_null() {
                        return Err(libc::EFAULT);
                    }
                    // SAFETY: a C string, as statx's contract requires.
                    let s = stat_path(st, dirfd, unsafe { bytes(path) }, flags)?;
                    // SAFETY: a writable `statx`, as statx's contract requires.
                    unsafe { fill_statx(&s, out) };
                    Ok(0)
                }));
            }
        }
        let r = try_pass!().unwrap_or_else(|| {
            // SAFETY: the system call statx stands for, with the caller's arguments.
            unsafe { libc::syscall(libc::SYS_statx, dirfd, path, flags, mask, out) as c_int }
        });
        if crate::record::hooks_on() && dirfd == libc::AT_FDCWD {
            // SAFETY: NULL (statx's probe) or the C string the stat was given.
            unsafe { crate::record::on_stat(path) };
        }
        r
    }
}

/// The stat family straight from the kernel, for glibc < 2.33, which exports only
/// `__xstat64` and friends (x86_64's and aarch64's `struct stat` are the kernel's).
///
/// # Safety
///
/// `path` is a C string; `out` is valid for writes of a `stat64`.
pub(crate) unsafe fn raw_fstatat(
    dirfd: c_int,
    path: *const c_char,
    out: *mut libc::stat64,
    flags: c_int,
) -> c_int {
    #[cfg(target_arch = "x86_64")]
    let nr = libc::SYS_newfstatat;
    #[cfg(not(target_arch = "x86_64"))]
    let nr = libc::SYS_fstatat;
    // SAFETY: the kernel's fstatat, with a C string and a writable `stat64` (this function's
    // contract).
    unsafe { libc::syscall(nr, dirfd, path, out, flags) as c_int }
}

#[cfg(test)]
mod tests {
    #[test]
    fn raw_fallback_matches_glibc() {
        // SAFETY: plain old data, for which all zeroes is a value.
        let (mut a, mut b): (libc::stat64, libc::stat64) = unsafe { std::mem::zeroed() };
        // SAFETY: a C string and a writable `stat64`.
        let r = unsafe { super::raw_fstatat(libc::AT_FDCWD, c"/".as_ptr(), &mut a, 0) };
        assert_eq!(r, 0);
        // SAFETY: as above.
        assert_eq!(unsafe { super::stat64(c"/".as_ptr(), &mut b) }, 0);
        assert_eq!(
            (a.st_ino, a.st_mode, a.st_dev),
            (b.st_ino, b.st_mode, b.st_dev)
        );
        let missing = c"/definitely/missing".as_ptr();
        // SAFETY: as above.
        let e = unsafe { super::raw_fstatat(libc::AT_FDCWD, missing, &mut a, 0) };
        assert_eq!((e, crate::active::errno()), (-1, libc::ENOENT));
    }

    #[test]
    #[allow(unused_unsafe)] // `libc::major` is safe in the libc this workspace locks
    fn device_numbers_split_as_libc_splits_them() {
        for dev in [
            0u64,
            0x4845,
            0x0801,
            0xfff_ffff_ffff,
            u64::MAX,
            0x1234_5678_9abc_def0,
        ] {
            // SAFETY: `major`/`minor` only compute on their argument.
            let want = unsafe { (libc::major(dev), libc::minor(dev)) };
            assert_eq!((super::major(dev), super::minor(dev)), want, "{dev:#x}");
        }
    }
}
