//! Path calls beyond std's core: ownership, special files, locks, C's remove and mkstemp.

use std::ffi::{c_char, c_int, CStr};
use std::fs::{self, File};
use std::io::ErrorKind;
use std::path::Path;

use hermetic::Env;

unsafe extern "C" {
    fn mkfifo(path: *const c_char, mode: u32) -> c_int;
    fn remove(path: *const c_char) -> c_int;
    fn mkstemp(template: *mut c_char) -> c_int;
    fn mkdtemp(template: *mut c_char) -> *mut c_char;
    fn close(fd: c_int) -> c_int;
    fn tmpfile() -> *mut std::ffi::c_void;
    fn fclose(f: *mut std::ffi::c_void) -> c_int;
    fn fputs(s: *const c_char, f: *mut std::ffi::c_void) -> c_int;
}

#[test]
fn ownership_can_be_kept_not_given_away() {
    let _env = Env::new().file("/f", "x").enter();
    std::os::unix::fs::chown("/f", Some(1000), Some(1000)).unwrap();
    std::os::unix::fs::chown("/f", None, None).unwrap();
    let e = std::os::unix::fs::chown("/f", Some(0), None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::PermissionDenied);
    let e = std::os::unix::fs::lchown("/missing", None, None).unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    let f = File::open("/f").unwrap();
    std::os::unix::fs::fchown(&f, Some(1000), None).unwrap();
    use std::os::unix::fs::MetadataExt;
    assert_eq!(fs::metadata("/f").unwrap().uid(), 1000);
    assert_eq!(
        std::os::unix::fs::chroot("/").unwrap_err().kind(),
        ErrorKind::PermissionDenied
    );
}

#[test]
fn special_files_are_refused_and_never_real() {
    let path = format!("/tmp/hermetic-fifo-{}", std::process::id());
    let c = std::ffi::CString::new(path.clone()).unwrap();
    let _env = Env::new().enter();
    // SAFETY: a C string of ours.
    assert_eq!(unsafe { mkfifo(c.as_ptr(), 0o600) }, -1);
    assert_eq!(
        std::io::Error::last_os_error().kind(),
        ErrorKind::PermissionDenied
    );
    drop(_env);
    assert!(!Path::new(&path).exists());
}

#[test]
fn file_locks_are_granted() {
    let _env = Env::new().file("/lock", "").enter();
    let f = File::open("/lock").unwrap();
    f.lock().unwrap();
    f.unlock().unwrap();
    assert!(f.try_lock_shared().is_ok());
}

#[test]
fn c_remove_mkstemp_mkdtemp_tmpfile_stay_virtual() {
    let env = Env::new()
        .seed(3)
        .file("/gone", "x")
        .dir("/gone-dir")
        .enter();
    // SAFETY: C strings of ours.
    assert_eq!(unsafe { remove(c"/gone".as_ptr()) }, 0);
    // SAFETY: as above.
    assert_eq!(unsafe { remove(c"/gone-dir".as_ptr()) }, 0);
    assert!(!env.exists("/gone") && !env.exists("/gone-dir"));
    let mut tpl = *b"/tmp/hermetic-stemp-XXXXXX\0";
    // SAFETY: a writable template of ours.
    let fd = unsafe { mkstemp(tpl.as_mut_ptr().cast()) };
    assert!(fd >= 1 << 30, "a virtual descriptor");
    // SAFETY: the descriptor mkstemp just opened.
    unsafe { close(fd) };
    let name = CStr::from_bytes_until_nul(&tpl)
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(!name.ends_with("XXXXXX"));
    assert_eq!(env.file_contents(&name).unwrap(), b"");
    let mut dtpl = *b"/tmp/hermetic-dtemp-XXXXXX\0";
    // SAFETY: a writable template of ours.
    assert!(!unsafe { mkdtemp(dtpl.as_mut_ptr().cast()) }.is_null());
    let dname = CStr::from_bytes_until_nul(&dtpl)
        .unwrap()
        .to_str()
        .unwrap()
        .to_owned();
    assert!(env.is_dir(&dname));
    // SAFETY: tmpfile takes nothing.
    let f = unsafe { tmpfile() };
    assert!(!f.is_null());
    // SAFETY: the stream tmpfile returned, closed once.
    unsafe {
        fputs(c"scratch".as_ptr(), f);
        fclose(f);
    }
    drop(env);
    assert!(!Path::new(&name).exists() && !Path::new(&dname).exists());
    // Same seed, same names.
    let env = Env::new().seed(3).enter();
    let mut again = *b"/tmp/hermetic-stemp-XXXXXX\0";
    // SAFETY: a writable template of ours.
    let fd = unsafe { mkstemp(again.as_mut_ptr().cast()) };
    // SAFETY: the descriptor mkstemp just opened.
    unsafe { close(fd) };
    drop(env);
    assert_eq!(again, tpl);
}

#[test]
fn utimes_sets_virtual_times() {
    use std::time::{Duration, UNIX_EPOCH};
    let _env = Env::new().file("/t", "").enter();
    let t = UNIX_EPOCH + Duration::from_secs(1_000_000);
    File::options()
        .write(true)
        .open("/t")
        .unwrap()
        .set_times(fs::FileTimes::new().set_modified(t).set_accessed(t))
        .unwrap();
    let m = fs::metadata("/t").unwrap();
    assert_eq!(m.modified().unwrap(), t);
    assert_eq!(m.accessed().unwrap(), t);
}

unsafe extern "C" {
    fn umask(mask: u32) -> u32;
    fn kill(pid: i32, sig: i32) -> i32;
}

#[test]
fn umask_is_per_environment_and_kill_is_refused() {
    use std::os::unix::fs::PermissionsExt;
    let _env = Env::new().enter();
    // SAFETY: umask has no preconditions.
    assert_eq!(unsafe { umask(0o077) }, 0o022);
    fs::write("/private", "x").unwrap();
    assert_eq!(
        fs::metadata("/private").unwrap().permissions().mode() & 0o777,
        0o600
    );
    // SAFETY: kill with signal 0 only checks.
    assert_eq!(unsafe { kill(std::process::id() as i32, 0) }, -1);
    assert_eq!(
        std::io::Error::last_os_error().kind(),
        ErrorKind::PermissionDenied
    );
    drop(_env);
    // The real umask was never touched.
    // SAFETY: umask has no preconditions.
    let real = unsafe { umask(0o022) };
    // SAFETY: umask has no preconditions.
    unsafe { umask(real) };
    assert_ne!(real, 0o077);
}

unsafe extern "C" {
    fn syscall(n: i64, ...) -> i64;
}

#[test]
#[cfg(target_arch = "x86_64")]
fn file_calls_through_syscall_are_virtual_too() {
    const SYS_OPENAT: i64 = 257;
    const SYS_READ: i64 = 0;
    const SYS_CLOSE: i64 = 3;
    const AT_FDCWD: i64 = -100;
    let _env = Env::new().file("/via-syscall", "raw").enter();
    // SAFETY: openat's arguments: a C string of ours.
    let fd = unsafe { syscall(SYS_OPENAT, AT_FDCWD, c"/via-syscall".as_ptr(), 0i64, 0i64) };
    assert!(fd >= 1 << 30, "{fd}");
    let mut buf = [0u8; 8];
    // SAFETY: read's arguments: a buffer of ours, of the length given.
    let n = unsafe { syscall(SYS_READ, fd, buf.as_mut_ptr(), buf.len()) };
    assert_eq!(&buf[..n as usize], b"raw");
    // SAFETY: close's argument: the descriptor opened above.
    assert_eq!(unsafe { syscall(SYS_CLOSE, fd) }, 0);
}
