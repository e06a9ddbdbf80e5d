//! The rest of the path-taking calls that could change the real disk: ownership, special
//! files, times, extended attributes, C's `remove` and the `mkstemp` family.
//!
//! Without these, e.g. `chown` or `mkfifo` on a path of the virtual file system would act on
//! the real one (glibc's own `remove` and `mkstemp` call the kernel directly).

use libc::{c_char, c_int, c_void, gid_t, mode_t, size_t, ssize_t, uid_t, FILE};

use super::bytes;
use crate::access::Access;
use crate::real::real;
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

#[no_mangle]
pub unsafe extern "C" fn chown(path: *const c_char, uid: uid_t, gid: gid_t) -> c_int {
    virt!(|st| vchown(st, libc::AT_FDCWD, unsafe { bytes(path) }, uid, gid, true));
    unsafe { real!(chown: fn(*const c_char, uid_t, gid_t) -> c_int)(path, uid, gid) }
}

#[no_mangle]
pub unsafe extern "C" fn lchown(path: *const c_char, uid: uid_t, gid: gid_t) -> c_int {
    virt!(|st| vchown(st, libc::AT_FDCWD, unsafe { bytes(path) }, uid, gid, false));
    unsafe { real!(lchown: fn(*const c_char, uid_t, gid_t) -> c_int)(path, uid, gid) }
}

#[no_mangle]
pub unsafe extern "C" fn fchownat(
    dirfd: c_int,
    path: *const c_char,
    uid: uid_t,
    gid: gid_t,
    flags: c_int,
) -> c_int {
    virt!(|st| {
        let p = unsafe { bytes(path) };
        if p.is_empty() && flags & libc::AT_EMPTY_PATH != 0 {
            let d = st.desc(dirfd)?.path.clone();
            return vchown(st, libc::AT_FDCWD, &d, uid, gid, true);
        }
        vchown(
            st,
            dirfd,
            p,
            uid,
            gid,
            flags & libc::AT_SYMLINK_NOFOLLOW == 0,
        )
    });
    unsafe {
        real!(fchownat: fn(c_int, *const c_char, uid_t, gid_t, c_int) -> c_int)(
            dirfd, path, uid, gid, flags,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn fchown(fd: c_int, uid: uid_t, gid: gid_t) -> c_int {
    virt_fd!(fd, |st| {
        let d = st.desc(fd)?.path.clone();
        vchown(st, libc::AT_FDCWD, &d, uid, gid, true)
    });
    unsafe { real!(fchown: fn(c_int, uid_t, gid_t) -> c_int)(fd, uid, gid) }
}

#[no_mangle]
pub unsafe extern "C" fn chroot(path: *const c_char) -> c_int {
    virt!(|_st| Err::<c_int, _>(libc::EPERM));
    unsafe { real!(chroot: fn(*const c_char) -> c_int)(path) }
}

/// Special files (FIFOs, device nodes) cannot be created in the virtual file system.
fn vmknod(st: &mut State, dirfd: c_int, path: &[u8]) -> R<c_int> {
    let base = st.base_for(dirfd, path)?;
    let p = st.abs_path(&base, path);
    st.record(Access::PathWritten { path: p });
    Err(libc::EPERM)
}

#[no_mangle]
pub unsafe extern "C" fn mknod(path: *const c_char, mode: mode_t, dev: libc::dev_t) -> c_int {
    virt!(|st| vmknod(st, libc::AT_FDCWD, unsafe { bytes(path) }));
    unsafe { real!(mknod: fn(*const c_char, mode_t, libc::dev_t) -> c_int)(path, mode, dev) }
}

#[no_mangle]
pub unsafe extern "C" fn mknodat(
    dirfd: c_int,
    path: *const c_char,
    mode: mode_t,
    dev: libc::dev_t,
) -> c_int {
    virt!(|st| vmknod(st, dirfd, unsafe { bytes(path) }));
    unsafe {
        real!(mknodat: fn(c_int, *const c_char, mode_t, libc::dev_t) -> c_int)(
            dirfd, path, mode, dev,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn mkfifo(path: *const c_char, mode: mode_t) -> c_int {
    virt!(|st| vmknod(st, libc::AT_FDCWD, unsafe { bytes(path) }));
    unsafe { real!(mkfifo: fn(*const c_char, mode_t) -> c_int)(path, mode) }
}

#[no_mangle]
pub unsafe extern "C" fn mkfifoat(dirfd: c_int, path: *const c_char, mode: mode_t) -> c_int {
    virt!(|st| vmknod(st, dirfd, unsafe { bytes(path) }));
    unsafe { real!(mkfifoat: fn(c_int, *const c_char, mode_t) -> c_int)(dirfd, path, mode) }
}

/// File locks are always granted: there is no other process to contend with.
#[no_mangle]
pub unsafe extern "C" fn flock(fd: c_int, op: c_int) -> c_int {
    virt_fd!(fd, |st| st.desc(fd).map(|_| 0));
    unsafe { real!(flock: fn(c_int, c_int) -> c_int)(fd, op) }
}

fn times_of(tv: *const libc::timeval) -> Option<[libc::timespec; 2]> {
    if tv.is_null() {
        return None;
    }
    let t = unsafe { std::slice::from_raw_parts(tv, 2) };
    Some([0, 1].map(|i| libc::timespec {
        tv_sec: t[i].tv_sec,
        tv_nsec: t[i].tv_usec * 1000,
    }))
}

#[no_mangle]
pub unsafe extern "C" fn utimes(path: *const c_char, tv: *const libc::timeval) -> c_int {
    if crate::active::is_active() {
        let ts = times_of(tv);
        let p = ts.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
        return unsafe { super::fs::utimensat(libc::AT_FDCWD, path, p, 0) };
    }
    unsafe { real!(utimes: fn(*const c_char, *const libc::timeval) -> c_int)(path, tv) }
}

#[no_mangle]
pub unsafe extern "C" fn lutimes(path: *const c_char, tv: *const libc::timeval) -> c_int {
    if crate::active::is_active() {
        let ts = times_of(tv);
        let p = ts.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
        return unsafe { super::fs::utimensat(libc::AT_FDCWD, path, p, libc::AT_SYMLINK_NOFOLLOW) };
    }
    unsafe { real!(lutimes: fn(*const c_char, *const libc::timeval) -> c_int)(path, tv) }
}

#[no_mangle]
pub unsafe extern "C" fn utime(path: *const c_char, times: *const libc::utimbuf) -> c_int {
    if crate::active::is_active() {
        let ts = (!times.is_null()).then(|| {
            let t = unsafe { *times };
            [t.actime, t.modtime].map(|s| libc::timespec {
                tv_sec: s,
                tv_nsec: 0,
            })
        });
        let p = ts.as_ref().map_or(std::ptr::null(), |t| t.as_ptr());
        return unsafe { super::fs::utimensat(libc::AT_FDCWD, path, p, 0) };
    }
    unsafe { real!(utime: fn(*const c_char, *const libc::utimbuf) -> c_int)(path, times) }
}

macro_rules! no_xattrs {
    ($($name:ident($($arg:ident: $t:ty),*) -> $r:ty;)*) => {$(
        /// Extended attributes are not supported by the virtual file system.
        #[no_mangle]
        pub unsafe extern "C" fn $name($($arg: $t),*) -> $r {
            if crate::active::is_active() {
                crate::active::set_errno(libc::ENOTSUP);
                return -1;
            }
            unsafe { real!($name: fn($($t),*) -> $r)($($arg),*) }
        }
    )*};
}

no_xattrs! {
    setxattr(p: *const c_char, n: *const c_char, v: *const c_void, s: size_t, f: c_int) -> c_int;
    lsetxattr(p: *const c_char, n: *const c_char, v: *const c_void, s: size_t, f: c_int) -> c_int;
    removexattr(p: *const c_char, n: *const c_char) -> c_int;
    lremovexattr(p: *const c_char, n: *const c_char) -> c_int;
    getxattr(p: *const c_char, n: *const c_char, v: *mut c_void, s: size_t) -> ssize_t;
    lgetxattr(p: *const c_char, n: *const c_char, v: *mut c_void, s: size_t) -> ssize_t;
    listxattr(p: *const c_char, l: *mut c_char, s: size_t) -> ssize_t;
    llistxattr(p: *const c_char, l: *mut c_char, s: size_t) -> ssize_t;
}

/// C's `remove`: `unlink`, or `rmdir` for a directory.
#[no_mangle]
pub unsafe extern "C" fn remove(path: *const c_char) -> c_int {
    if crate::active::is_active() {
        let r = unsafe { super::fs::unlink(path) };
        if r == -1 && crate::active::errno() == libc::EISDIR {
            return unsafe { super::fs::rmdir(path) };
        }
        return r;
    }
    unsafe { real!(remove: fn(*const c_char) -> c_int)(path) }
}

const LETTERS: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// Fills the six `X`s before `suffix` bytes with letters from the environment's random
/// stream, and calls `create` until it does not fail with EEXIST.
unsafe fn make_temp(
    template: *mut c_char,
    suffix: usize,
    create: &dyn Fn(*mut c_char) -> c_int,
) -> c_int {
    let len = unsafe { bytes(template) }.len();
    if len < 6 + suffix {
        crate::active::set_errno(libc::EINVAL);
        return -1;
    }
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

fn open_excl(flags: c_int) -> impl Fn(*mut c_char) -> c_int {
    move |p| unsafe {
        super::fs::open64(
            p,
            libc::O_RDWR | libc::O_CREAT | libc::O_EXCL | (flags & !libc::O_ACCMODE),
            0o600,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn mkstemp(template: *mut c_char) -> c_int {
    if crate::active::is_active() {
        return unsafe { make_temp(template, 0, &open_excl(0)) };
    }
    unsafe { real!(mkstemp: fn(*mut c_char) -> c_int)(template) }
}

#[no_mangle]
pub unsafe extern "C" fn mkstemp64(template: *mut c_char) -> c_int {
    unsafe { mkstemp(template) }
}

#[no_mangle]
pub unsafe extern "C" fn mkostemp(template: *mut c_char, flags: c_int) -> c_int {
    if crate::active::is_active() {
        return unsafe { make_temp(template, 0, &open_excl(flags)) };
    }
    unsafe { real!(mkostemp: fn(*mut c_char, c_int) -> c_int)(template, flags) }
}

#[no_mangle]
pub unsafe extern "C" fn mkstemps(template: *mut c_char, suffix: c_int) -> c_int {
    if crate::active::is_active() {
        return unsafe { make_temp(template, suffix.max(0) as usize, &open_excl(0)) };
    }
    unsafe { real!(mkstemps: fn(*mut c_char, c_int) -> c_int)(template, suffix) }
}

#[no_mangle]
pub unsafe extern "C" fn mkdtemp(template: *mut c_char) -> *mut c_char {
    if crate::active::is_active() {
        let r = unsafe { make_temp(template, 0, &|p| super::fs::mkdir(p, 0o700)) };
        return if r == 0 {
            template
        } else {
            std::ptr::null_mut()
        };
    }
    unsafe { real!(mkdtemp: fn(*mut c_char) -> *mut c_char)(template) }
}

/// `tmpfile`: an unnamed temporary file (created in `/tmp`, then unlinked).
#[no_mangle]
pub unsafe extern "C" fn tmpfile64() -> *mut FILE {
    if crate::active::is_active() {
        let mut name = *b"/tmp/tmpfXXXXXX\0";
        let fd = unsafe { mkstemp(name.as_mut_ptr().cast()) };
        if fd < 0 {
            return std::ptr::null_mut();
        }
        unsafe { super::fs::unlink(name.as_ptr().cast()) };
        return unsafe { super::cstdio::fdopen(fd, c"w+".as_ptr()) };
    }
    unsafe { real!(tmpfile64: fn() -> *mut FILE)() }
}

#[no_mangle]
pub unsafe extern "C" fn tmpfile() -> *mut FILE {
    if crate::active::is_active() {
        return unsafe { tmpfile64() };
    }
    unsafe { real!(tmpfile: fn() -> *mut FILE)() }
}

/// The umask is per environment: changing the real, process-wide one would change the files
/// other tests create.
#[no_mangle]
pub unsafe extern "C" fn umask(mask: mode_t) -> mode_t {
    if let Some(cx) = crate::active::ctx() {
        // umask cannot fail.
        return cx
            .run(|st| {
                st.record(Access::Served { what: "umask" });
                Ok(std::mem::replace(&mut st.vfs.umask, mask & 0o777))
            })
            .unwrap_or(0o022);
    }
    unsafe { real!(umask: fn(mode_t) -> mode_t)(mask) }
}
