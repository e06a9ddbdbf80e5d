//! The interposed C symbols. Each one passes straight through to glibc unless the calling
//! thread is inside an environment (or the descriptor it names is virtual).

use std::ffi::CStr;

use libc::{c_char, c_int};

use crate::state::VFD_BASE;

/// Serves the call virtually when `fd` is ours: `virt_fd!(fd, |st| expr)` returns from the
/// enclosing interposer with `expr`'s result (errno set on error).
macro_rules! virt_fd {
    ($fd:expr, |$st:ident| $body:expr) => {
        if $crate::libc::fd_is_ours($fd) {
            if let Some(cx) = $crate::active::ctx_fd($fd) {
                return $crate::active::ret(cx.run(|$st| $body));
            }
        }
    };
}

/// `virt!(|st| expr)`: serve the call virtually when the thread is inside an environment.
macro_rules! virt {
    (|$st:ident| $body:expr) => {
        if let Some(cx) = $crate::active::ctx() {
            return $crate::active::ret(cx.run(|$st| $body));
        }
    };
}

pub(crate) mod cstdio;
pub(crate) mod dir;
pub(crate) mod fs;
pub(crate) mod fsmisc;
pub(crate) mod host;
pub(crate) mod io;
pub(crate) mod net;
pub(crate) mod process;
pub(crate) mod random;
pub(crate) mod stat;
pub(crate) mod thread;
pub(crate) mod time;
pub(crate) mod vars;

/// Whether a call on `fd` needs the slow path: a virtual descriptor, or stdio while active.
#[inline(always)]
pub(crate) fn fd_is_ours(fd: c_int) -> bool {
    fd >= VFD_BASE || ((0..=2).contains(&fd) && crate::active::is_active())
}

/// The bytes of a C string argument (empty for NULL, which callers reject first).
pub(crate) unsafe fn bytes<'a>(p: *const c_char) -> &'a [u8] {
    if p.is_null() {
        &[]
    } else {
        unsafe { CStr::from_ptr(p) }.to_bytes()
    }
}

/// Copies `src` plus a NUL into a caller buffer of `size` bytes; ERANGE if it does not fit.
pub(crate) unsafe fn copy_cstr(src: &[u8], buf: *mut c_char, size: usize) -> Result<(), c_int> {
    if src.len() + 1 > size {
        return Err(libc::ERANGE);
    }
    unsafe {
        std::ptr::copy_nonoverlapping(src.as_ptr(), buf.cast(), src.len());
        *buf.add(src.len()) = 0;
    }
    Ok(())
}

/// A `malloc`ed NUL-terminated copy (for APIs whose result the caller `free`s).
pub(crate) unsafe fn malloc_cstr(src: &[u8]) -> *mut c_char {
    unsafe {
        let p = libc::malloc(src.len() + 1) as *mut c_char;
        if !p.is_null() {
            std::ptr::copy_nonoverlapping(src.as_ptr(), p.cast(), src.len());
            *p.add(src.len()) = 0;
        }
        p
    }
}

/// Every interposer, referenced from the object that defines `Env::enter`, so the linker
/// pulls them into any binary that uses an environment (rlib members are otherwise linked
/// only when something names them, and std's references come too late in the link order).
#[used]
pub(crate) static KEEP: [unsafe extern "C" fn(); 3] = [
    keep_fs as unsafe extern "C" fn(),
    keep_io as unsafe extern "C" fn(),
    keep_misc as unsafe extern "C" fn(),
];

macro_rules! keep {
    ($fname:ident: $($path:path),* $(,)?) => {
        #[inline(never)]
        unsafe extern "C" fn $fname() {
            $( std::hint::black_box($path as *const ()); )*
        }
    };
}

keep!(keep_fs:
    fs::open, fs::open64, fs::openat, fs::openat64, fs::creat, fs::creat64,
    fs::mkdir, fs::mkdirat, fs::rmdir, fs::unlink, fs::unlinkat, fs::rename, fs::renameat,
    fs::renameat2, fs::link, fs::linkat, fs::symlink, fs::symlinkat, fs::readlink,
    fs::readlinkat, fs::chmod, fs::fchmodat, fs::truncate, fs::truncate64, fs::chdir,
    fs::fchdir, fs::getcwd, fs::realpath, fs::canonicalize_file_name, fs::access,
    fs::faccessat, fs::utimensat,
    stat::stat, stat::stat64, stat::lstat, stat::lstat64, stat::fstat, stat::fstat64,
    stat::fstatat, stat::fstatat64, stat::statx,
    dir::opendir, dir::fdopendir, dir::readdir, dir::readdir64, dir::closedir, dir::dirfd,
    dir::rewinddir,
    fsmisc::chown, fsmisc::lchown, fsmisc::fchownat, fsmisc::fchown, fsmisc::chroot,
    fsmisc::mknod, fsmisc::mknodat, fsmisc::mkfifo, fsmisc::mkfifoat, fsmisc::flock,
    fsmisc::utimes, fsmisc::lutimes, fsmisc::utime, fsmisc::setxattr, fsmisc::lsetxattr,
    fsmisc::removexattr, fsmisc::lremovexattr, fsmisc::getxattr, fsmisc::lgetxattr,
    fsmisc::listxattr, fsmisc::llistxattr, fsmisc::remove, fsmisc::mkstemp, fsmisc::mkstemp64,
    fsmisc::mkostemp, fsmisc::mkstemps, fsmisc::mkdtemp, fsmisc::tmpfile, fsmisc::tmpfile64, fsmisc::umask,
);
keep!(keep_io:
    io::read, io::write, io::pread, io::pread64, io::pwrite, io::pwrite64, io::readv,
    io::writev, io::lseek, io::lseek64, io::close, io::ftruncate, io::ftruncate64, io::fsync,
    io::fdatasync, io::fchmod, io::fcntl, io::fcntl64, io::ioctl, io::isatty, io::dup,
    io::dup2, io::dup3, io::copy_file_range, io::sendfile, io::sendfile64, io::splice,
    io::futimens, io::poll, io::preadv64, io::pwritev64,
    cstdio::fopen, cstdio::fopen64, cstdio::fdopen, cstdio::mmap, cstdio::mmap64,
);
keep!(keep_misc:
    time::clock_gettime, time::gettimeofday, time::time, time::nanosleep, time::clock_nanosleep,
    random::getrandom, random::getentropy, random::syscall,
    vars::getenv, vars::secure_getenv, vars::setenv, vars::unsetenv, vars::putenv,
    vars::clearenv,
    net::socket, net::connect, net::bind, net::listen, net::getaddrinfo,
    net::setsockopt, net::getsockopt,
    process::fork, process::vfork, process::execve, process::execv, process::execvp,
    process::execvpe, process::fexecve, process::posix_spawn, process::posix_spawnp,
    process::system, process::popen, process::posix_spawn_file_actions_adddup2,
    process::kill, process::killpg,
    host::getpid, host::getppid, host::sched_getaffinity, host::sysconf, host::get_nprocs,
    host::gethostname, host::uname, host::getuid, host::geteuid, host::getgid,
    host::getegid, host::getpwuid_r, host::getpwnam_r,
    thread::pthread_create,
);

/// Makes sure [`KEEP`] is referenced from the caller's object file.
#[inline(never)]
pub(crate) fn link_interposers() {
    std::hint::black_box(&KEEP);
}
