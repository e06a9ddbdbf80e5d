//! Descriptor I/O: read/write/seek/close and friends on virtual descriptors and stdio.

use libc::{c_int, c_uint, c_ulong, c_void, iovec, off64_t, size_t, ssize_t};

use crate::access::Access;
use super::{slice, slice_mut};
use crate::real::real;
use crate::rng::Draw;
use crate::state::{Desc, State, Target};
use crate::vfs::{Device, Kind, R};

/// What `fd` refers to in this environment.
pub(crate) fn target(st: &State, fd: c_int) -> R<Target> {
    if (0..=2).contains(&fd) {
        return Ok(Target::Stdio(fd));
    }
    Ok(st.desc(fd)?.target)
}

/// A read at the descriptor's offset (`at = None`) or at a given one (pread).
pub(crate) fn vread(st: &mut State, fd: c_int, buf: &mut [u8], at: Option<u64>) -> R<usize> {
    match target(st, fd)? {
        Target::Stdio(0) => {
            if at.is_some() {
                return Err(libc::ESPIPE);
            }
            st.record(Access::StdinRead);
            let rest = &st.stdin[st.stdin_pos..];
            // One line per read, as a terminal in canonical mode does: std's process-wide
            // stdin buffer then never holds more than the reader consumed, so nothing of this
            // script is left in it for another test to read.
            let line = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(rest.len(), |i| i + 1);
            let n = line.min(buf.len());
            buf[..n].copy_from_slice(&rest[..n]);
            st.stdin_pos += n;
            Ok(n)
        }
        Target::Stdio(_) => Err(libc::EBADF),
        Target::Socket => Err(libc::ENOTCONN),
        Target::Dir(_) => Err(libc::EISDIR),
        Target::File(ino) => {
            let fail = st.vfs.node(ino).fail;
            let d = st.desc_mut(fd)?;
            if !d.readable {
                return Err(libc::EBADF);
            }
            if let Some(e) = fail {
                if e != libc::EINTR || !d.interrupted {
                    d.interrupted = true;
                    return Err(e);
                }
            }
            let pos = at.unwrap_or(d.pos);
            if let Kind::Dev(Device::Random) = st.vfs.node(ino).kind {
                st.record(Access::RandomRead);
                st.random.fill(Draw::Code, buf);
                return Ok(buf.len());
            }
            let n = st.vfs.read_at(ino, pos, buf);
            if at.is_none() {
                st.desc_mut(fd)?.pos = pos + n as u64;
            }
            Ok(n)
        }
    }
}

/// A write at the descriptor's offset (append-aware) or at a given one (pwrite).
pub(crate) fn vwrite(st: &mut State, fd: c_int, data: &[u8], at: Option<u64>) -> R<usize> {
    match target(st, fd)? {
        Target::Stdio(1) => {
            st.record(Access::StdoutWritten);
            st.stdout.extend_from_slice(data);
            Ok(data.len())
        }
        Target::Stdio(2) => {
            st.record(Access::StderrWritten);
            st.stderr.extend_from_slice(data);
            Ok(data.len())
        }
        Target::Stdio(_) => Err(libc::EBADF),
        Target::Socket => Err(libc::EPIPE),
        Target::Dir(_) => Err(libc::EISDIR),
        Target::File(ino) => {
            let fail = st.vfs.node(ino).fail;
            let size = st.vfs.node(ino).size();
            let d = st.desc_mut(fd)?;
            if !d.writable {
                return Err(libc::EBADF);
            }
            if let Some(e) = fail {
                if e != libc::EINTR || !d.interrupted {
                    d.interrupted = true;
                    return Err(e);
                }
            }
            // Linux ignores pwrite's offset on O_APPEND descriptors.
            let pos = if d.append { size } else { at.unwrap_or(d.pos) };
            let n = st.vfs.write_at(ino, pos, data)?;
            if at.is_none() {
                st.desc_mut(fd)?.pos = pos + n as u64;
            }
            Ok(n)
        }
    }
}

fn vseek(st: &mut State, fd: c_int, off: i64, whence: c_int) -> R<i64> {
    let t = target(st, fd)?;
    let size = match t {
        Target::File(ino) | Target::Dir(ino) => st.vfs.node(ino).size() as i64,
        _ => return Err(libc::ESPIPE),
    };
    let d = st.desc_mut(fd)?;
    let base = match whence {
        libc::SEEK_SET => 0,
        libc::SEEK_CUR => d.pos as i64,
        libc::SEEK_END => size,
        libc::SEEK_DATA if off < size => 0,
        libc::SEEK_HOLE if off < size => return Ok(size),
        libc::SEEK_DATA | libc::SEEK_HOLE => return Err(libc::ENXIO),
        _ => return Err(libc::EINVAL),
    };
    let new = base.checked_add(off).ok_or(libc::EOVERFLOW)?;
    if new < 0 {
        return Err(libc::EINVAL);
    }
    d.pos = new as u64;
    Ok(new)
}

fn vclose(st: &mut State, fd: c_int) -> R<c_int> {
    if (0..=2).contains(&fd) {
        // The real stdio of the test process must survive code that closes its own.
        return Ok(0);
    }
    st.close(fd).map(|_| 0)
}

fn vtruncate(st: &mut State, fd: c_int, len: i64) -> R<c_int> {
    if len < 0 {
        return Err(libc::EINVAL);
    }
    let d = st.desc(fd)?;
    match d.target {
        Target::File(ino) if d.writable => {
            st.vfs.truncate(ino, len as u64)?;
            Ok(0)
        }
        Target::File(_) => Err(libc::EBADF),
        _ => Err(libc::EINVAL),
    }
}

fn vdup(st: &mut State, fd: c_int) -> R<c_int> {
    if (0..=2).contains(&fd) {
        let flags = if fd == 0 {
            libc::O_RDONLY
        } else {
            libc::O_WRONLY
        };
        return Ok(st.alloc_fd(Desc::new(Target::Stdio(fd), flags, Vec::new())));
    }
    st.dup_fd(fd)
}

/// The `cnt` buffers of a `readv`/`writev`-style call (EINVAL past `IOV_MAX`, 1024).
///
/// # Safety
///
/// `iov` points at `cnt` `iovec`s (any pointer when `cnt` is 0), unchanged while the result
/// lives.
unsafe fn iovecs<'a>(iov: *const iovec, cnt: c_int) -> R<&'a [iovec]> {
    if !(0..=1024).contains(&cnt) {
        return Err(libc::EINVAL);
    }
    if cnt == 0 {
        return Ok(&[]);
    }
    // SAFETY: `cnt` iovecs (this function's contract).
    Ok(unsafe { std::slice::from_raw_parts(iov, cnt as usize) })
}

/// `readv`: reads into each buffer in turn, stopping at a short read.
///
/// # Safety
///
/// Each `iovec` is valid for writes of its length, and nothing else uses those bytes meanwhile.
unsafe fn vreadv(st: &mut State, fd: c_int, iov: &[iovec], mut at: Option<u64>) -> R<ssize_t> {
    let mut total = 0usize;
    for v in iov {
        // SAFETY: a writable buffer of `iov_len` bytes (this function's contract).
        let buf = unsafe { slice_mut(v.iov_base, v.iov_len) };
        let n = vread(st, fd, buf, at)?;
        total += n;
        at = at.map(|a| a + n as u64);
        if n < buf.len() {
            break;
        }
    }
    Ok(total as ssize_t)
}

/// `writev`: writes each buffer in turn.
///
/// # Safety
///
/// Each `iovec` is valid for reads of its length.
unsafe fn vwritev(st: &mut State, fd: c_int, iov: &[iovec], mut at: Option<u64>) -> R<ssize_t> {
    let mut total = 0usize;
    for v in iov {
        // SAFETY: a readable buffer of `iov_len` bytes (this function's contract).
        let n = vwrite(st, fd, unsafe { slice(v.iov_base, v.iov_len) }, at)?;
        total += n;
        at = at.map(|a| a + n as u64);
    }
    Ok(total as ssize_t)
}

/// `fcntl` on a virtual descriptor.
///
/// # Safety
///
/// For `F_GETLK`/`F_OFD_GETLK`, `arg` is NULL or points at a `flock` to write.
unsafe fn vfcntl(st: &mut State, fd: c_int, cmd: c_int, arg: c_ulong) -> R<c_int> {
    let t = target(st, fd)?;
    match cmd {
        libc::F_GETFD => Ok(libc::FD_CLOEXEC),
        libc::F_SETFD => Ok(0),
        libc::F_GETFL => Ok(match t {
            Target::Stdio(0) => libc::O_RDONLY,
            Target::Stdio(_) => libc::O_WRONLY,
            _ => st.desc(fd)?.status_flags,
        }),
        libc::F_SETFL => {
            if let Ok(d) = st.desc_mut(fd) {
                let keep = d.status_flags & libc::O_ACCMODE;
                d.status_flags = keep | (arg as c_int & !libc::O_ACCMODE);
                d.append = arg as c_int & libc::O_APPEND != 0;
            }
            Ok(0)
        }
        libc::F_DUPFD | libc::F_DUPFD_CLOEXEC => vdup(st, fd),
        // Locks always succeed: there is no other process to contend with.
        libc::F_SETLK | libc::F_SETLKW | libc::F_OFD_SETLK | libc::F_OFD_SETLKW => Ok(0),
        libc::F_GETLK | libc::F_OFD_GETLK => {
            let fl = arg as *mut libc::flock;
            if !fl.is_null() {
                // SAFETY: a `flock` for the answer (this function's contract).
                unsafe { (*fl).l_type = libc::F_UNLCK as i16 };
            }
            Ok(0)
        }
        _ => Err(libc::EINVAL),
    }
}

/// In record mode stdin is read through [`read`] (read ahead, a line at a time, logged): a
/// kernel-side copy from fd 0 fails with EINVAL, which makes std's `io::copy` fall back to
/// reading.
fn stdin_copied_in_record_mode(fd_in: c_int) -> bool {
    fd_in == 0 && crate::record::hooks_on()
}

interpose! {
    fn read(fd: c_int, buf: *mut c_void, n: size_t) -> ssize_t {
        virt_fd!(fd, |st| {
            // SAFETY: `n` writable bytes at `buf`, as read's contract requires.
            let buf = unsafe { slice_mut(buf, n) };
            vread(st, fd, buf, None).map(|n| n as ssize_t)
        });
        if crate::record::reads_hooked(fd) {
            // SAFETY: the caller's buffer of `n` bytes, as above.
            return unsafe { crate::record::read(fd, buf, n) };
        }
        pass!()
    }

    fn write(fd: c_int, buf: *const c_void, n: size_t) -> ssize_t {
        virt_fd!(fd, |st| {
            // SAFETY: `n` readable bytes at `buf`, as write's contract requires.
            let buf = unsafe { slice(buf, n) };
            vwrite(st, fd, buf, None).map(|n| n as ssize_t)
        });
        pass!()
    }

    fn pread64 | pread (fd: c_int, buf: *mut c_void, n: size_t, off: off64_t) -> ssize_t {
        virt_fd!(fd, |st| {
            if off < 0 {
                return Err(libc::EINVAL);
            }
            // SAFETY: `n` writable bytes at `buf`, as pread's contract requires.
            let buf = unsafe { slice_mut(buf, n) };
            vread(st, fd, buf, Some(off as u64)).map(|n| n as ssize_t)
        });
        pass!()
    }

    fn pwrite64 | pwrite (fd: c_int, buf: *const c_void, n: size_t, off: off64_t) -> ssize_t {
        virt_fd!(fd, |st| {
            if off < 0 {
                return Err(libc::EINVAL);
            }
            // SAFETY: `n` readable bytes at `buf`, as pwrite's contract requires.
            let buf = unsafe { slice(buf, n) };
            vwrite(st, fd, buf, Some(off as u64)).map(|n| n as ssize_t)
        });
        pass!()
    }

    fn readv(fd: c_int, iov: *const iovec, cnt: c_int) -> ssize_t {
        // SAFETY: `cnt` iovecs of writable buffers, as readv's contract requires.
        virt_fd!(fd, |st| unsafe { vreadv(st, fd, iovecs(iov, cnt)?, None) });
        if fd == 0 && crate::record::hooks_on() {
            // Record mode holds stdin read ahead: serve the first buffer from it (a short
            // read).
            // SAFETY: as above.
            let first = unsafe { iovecs(iov, cnt) }
                .ok()
                .and_then(|v| v.iter().find(|v| v.iov_len > 0));
            if let Some(v) = first {
                // SAFETY: a writable buffer of `iov_len` bytes, as above.
                return unsafe { crate::record::read(0, v.iov_base, v.iov_len) };
            }
        }
        pass!()
    }

    fn writev(fd: c_int, iov: *const iovec, cnt: c_int) -> ssize_t {
        // SAFETY: `cnt` iovecs of readable buffers, as writev's contract requires.
        virt_fd!(fd, |st| unsafe { vwritev(st, fd, iovecs(iov, cnt)?, None) });
        pass!()
    }

    fn preadv64(fd: c_int, iov: *const iovec, cnt: c_int, off: off64_t) -> ssize_t {
        virt_fd!(fd, |st| {
            let at = Some(off.max(0) as u64);
            // SAFETY: `cnt` iovecs of writable buffers, as preadv's contract requires.
            unsafe { vreadv(st, fd, iovecs(iov, cnt)?, at) }
        });
        pass!()
    }

    fn pwritev64(fd: c_int, iov: *const iovec, cnt: c_int, off: off64_t) -> ssize_t {
        virt_fd!(fd, |st| {
            let at = Some(off.max(0) as u64);
            // SAFETY: `cnt` iovecs of readable buffers, as pwritev's contract requires.
            unsafe { vwritev(st, fd, iovecs(iov, cnt)?, at) }
        });
        pass!()
    }

    fn lseek64 | lseek (fd: c_int, off: off64_t, whence: c_int) -> off64_t {
        virt_fd!(fd, |st| vseek(st, fd, off, whence));
        pass!()
    }

    fn close(fd: c_int) -> c_int {
        virt_fd!(fd, |st| vclose(st, fd));
        if crate::record::hooks_on() {
            crate::record::on_close(fd);
        }
        pass!()
    }

    fn ftruncate64 | ftruncate (fd: c_int, len: off64_t) -> c_int {
        virt_fd!(fd, |st| vtruncate(st, fd, len));
        pass!()
    }

    fn fsync(fd: c_int) -> c_int {
        virt_fd!(fd, |st| target(st, fd).map(|_| 0));
        pass!()
    }

    fn fdatasync(fd: c_int) -> c_int {
        virt_fd!(fd, |st| target(st, fd).map(|_| 0));
        pass!()
    }

    fn fchmod(fd: c_int, mode: libc::mode_t) -> c_int {
        virt_fd!(fd, |st| match target(st, fd)? {
            Target::File(ino) | Target::Dir(ino) => {
                let path = st.desc(fd)?.path.clone();
                st.record(Access::PathWritten {
                    path: st.abs_path(b"/", &path),
                });
                st.vfs.chmod(ino, mode);
                Ok(0)
            }
            _ => Ok(0),
        });
        pass!()
    }

    fn futimens(fd: c_int, times: *const libc::timespec) -> c_int {
        virt_fd!(fd, |st| match target(st, fd)? {
            Target::File(ino) | Target::Dir(ino) => {
                // SAFETY: `times` is NULL or two timespecs, as futimens's contract requires.
                unsafe { crate::libc::fs::set_times(st, ino, times) };
                Ok(0)
            }
            _ => Ok(0),
        });
        pass!()
    }

    fn fcntl(fd: c_int, cmd: c_int, arg: c_ulong) -> c_int {
        // SAFETY: `arg` is what `cmd` takes, as fcntl's contract requires.
        virt_fd!(fd, |st| unsafe { vfcntl(st, fd, cmd, arg) });
        pass!()
    }

    fn fcntl64(fd: c_int, cmd: c_int, arg: c_ulong) -> c_int {
        // SAFETY: `arg` is what `cmd` takes, as fcntl's contract requires.
        virt_fd!(fd, |st| unsafe { vfcntl(st, fd, cmd, arg) });
        match crate::real::real_opt!(fcntl64: fn(c_int, c_int, c_ulong) -> c_int) {
            // SAFETY: glibc's own fcntl64, with the caller's arguments (as `pass!`).
            Some(f) => unsafe { f(fd, cmd, arg) },
            // glibc < 2.28: on 64-bit targets fcntl is the same call.
            // SAFETY: as above, through glibc's fcntl.
            None => unsafe { real!(fcntl: fn(c_int, c_int, c_ulong) -> c_int)(fd, cmd, arg) },
        }
    }

    fn ioctl(fd: c_int, req: c_ulong, arg: *mut c_void) -> c_int {
        virt_fd!(fd, |st| {
            target(st, fd)?;
            match req {
                libc::FIONBIO | libc::FIOCLEX | libc::FIONCLEX => Ok(0),
                _ => Err(libc::ENOTTY),
            }
        });
        pass!()
    }

    /// Virtual stdio is never a terminal, so output formatting does not depend on the machine
    /// running the tests. isatty returns 0 (not -1) with errno set.
    fn isatty(fd: c_int) -> c_int {
        if crate::libc::fd_is_ours(fd) {
            if let Some(cx) = crate::active::ctx_fd(fd) {
                let _ = cx.run(|st| target(st, fd).and(Err::<c_int, _>(libc::ENOTTY)));
                return 0;
            }
        }
        pass!()
    }

    fn dup(fd: c_int) -> c_int {
        virt_fd!(fd, |st| vdup(st, fd));
        pass!()
    }

    /// Redirecting onto a chosen descriptor number is not virtualised.
    fn dup2(fd: c_int, new: c_int) -> c_int {
        virt_fd!(fd, |st| target(st, fd).and(Err::<c_int, _>(libc::EINVAL)));
        pass!()
    }

    fn dup3(fd: c_int, new: c_int, flags: c_int) -> c_int {
        virt_fd!(fd, |st| target(st, fd).and(Err::<c_int, _>(libc::EINVAL)));
        pass!()
    }

    /// Kernel-side copies never involve a virtual descriptor: EXDEV makes std fall back to its
    /// read/write loop (and, unlike ENOSYS, is not cached as "unsupported" process-wide).
    fn copy_file_range(
        fd_in: c_int,
        off_in: *mut off64_t,
        fd_out: c_int,
        off_out: *mut off64_t,
        len: size_t,
        flags: c_uint,
    ) -> ssize_t {
        if crate::libc::fd_is_ours(fd_in) || crate::libc::fd_is_ours(fd_out) {
            crate::active::set_errno(libc::EXDEV);
            return -1;
        }
        if stdin_copied_in_record_mode(fd_in) {
            crate::active::set_errno(libc::EINVAL);
            return -1;
        }
        match crate::real::real_opt!(
            copy_file_range: fn(c_int, *mut off64_t, c_int, *mut off64_t, size_t, c_uint) -> ssize_t
        ) {
            // SAFETY: glibc's own copy_file_range, with the caller's arguments (as `pass!`).
            Some(f) => unsafe { f(fd_in, off_in, fd_out, off_out, len, flags) },
            // glibc < 2.27.
            // SAFETY: the system call copy_file_range stands for, with the same arguments.
            None => unsafe {
                libc::syscall(
                    libc::SYS_copy_file_range,
                    fd_in,
                    off_in,
                    fd_out,
                    off_out,
                    len,
                    flags,
                ) as ssize_t
            },
        }
    }

    fn sendfile64 | sendfile (out: c_int, inp: c_int, off: *mut off64_t, n: size_t) -> ssize_t {
        if crate::libc::fd_is_ours(out)
            || crate::libc::fd_is_ours(inp)
            || stdin_copied_in_record_mode(inp)
        {
            crate::active::set_errno(libc::EINVAL);
            return -1;
        }
        pass!()
    }

    fn splice(
        fd_in: c_int,
        off_in: *mut off64_t,
        fd_out: c_int,
        off_out: *mut off64_t,
        len: size_t,
        flags: c_uint,
    ) -> ssize_t {
        if crate::libc::fd_is_ours(fd_in)
            || crate::libc::fd_is_ours(fd_out)
            || stdin_copied_in_record_mode(fd_in)
        {
            crate::active::set_errno(libc::EINVAL);
            return -1;
        }
        pass!()
    }

    /// Virtual descriptors are always ready; a set mixing real and virtual ones is not
    /// supported (the real ones are reported not ready).
    fn poll(fds: *mut libc::pollfd, n: libc::nfds_t, timeout: c_int) -> c_int {
        if !fds.is_null() && n > 0 {
            // SAFETY: `n` pollfds at `fds`, as poll's contract requires.
            let set = unsafe { std::slice::from_raw_parts_mut(fds, n as usize) };
            if set.iter().any(|p| crate::libc::fd_is_ours(p.fd)) {
                let mut ready = 0;
                for p in set.iter_mut() {
                    p.revents = if crate::libc::fd_is_ours(p.fd) {
                        p.events & (libc::POLLIN | libc::POLLOUT)
                    } else {
                        0
                    };
                    if p.revents != 0 {
                        ready += 1;
                    }
                }
                return ready;
            }
        }
        pass!()
    }
}
