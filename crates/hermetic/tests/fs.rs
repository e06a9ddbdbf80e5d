//! The virtual file system through plain std APIs.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

use hermetic::Env;

#[test]
fn reads_declared_files_and_nothing_else() {
    let _env = Env::new().file("/etc/app/app.conf", "port = 1\n").enter();
    assert_eq!(
        fs::read_to_string("/etc/app/app.conf").unwrap(),
        "port = 1\n"
    );
    assert_eq!(fs::read("/etc/app/app.conf").unwrap(), b"port = 1\n");
    assert!(Path::new("/etc/app").is_dir());
    let e = fs::read("/etc/passwd").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    assert_eq!(e.raw_os_error(), Some(libc_enoent()));
    assert!(!Path::new("/usr").exists());
}

fn libc_enoent() -> i32 {
    2
}

#[test]
fn write_then_read_back_and_inspect() {
    let env = Env::new().dir("/var/data").enter();
    fs::write("/var/data/out.txt", "hello").unwrap();
    assert_eq!(fs::read_to_string("/var/data/out.txt").unwrap(), "hello");
    assert_eq!(env.file_contents("/var/data/out.txt").unwrap(), b"hello");
    assert_eq!(env.files(), vec![PathBuf::from("/var/data/out.txt")]);
    let e = fs::write("/missing/dir/f", "x").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
}

#[test]
fn open_options_semantics() {
    let env = Env::new().file("/f", "abc").enter();
    // append
    let mut f = OpenOptions::new().append(true).open("/f").unwrap();
    f.write_all(b"def").unwrap();
    drop(f);
    assert_eq!(env.file_contents("/f").unwrap(), b"abcdef");
    // truncate
    let mut f = OpenOptions::new()
        .write(true)
        .truncate(true)
        .open("/f")
        .unwrap();
    f.write_all(b"x").unwrap();
    drop(f);
    assert_eq!(env.file_contents("/f").unwrap(), b"x");
    // create_new on an existing file
    let e = OpenOptions::new()
        .write(true)
        .create_new(true)
        .open("/f")
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::AlreadyExists);
    // create_new on a fresh one
    OpenOptions::new()
        .write(true)
        .create_new(true)
        .open("/g")
        .unwrap();
    assert_eq!(env.file_contents("/g").unwrap(), b"");
    // write without create on a missing file
    let e = OpenOptions::new().write(true).open("/h").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::NotFound);
    // File::create truncates
    File::create("/f").unwrap();
    assert_eq!(env.file_contents("/f").unwrap(), b"");
    // a write-only handle cannot be read
    let mut f = OpenOptions::new().write(true).open("/f").unwrap();
    let mut s = String::new();
    assert!(f.read_to_string(&mut s).is_err());
}

#[test]
fn read_write_seek() {
    let _env = Env::new().enter();
    let mut f = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open("/data.bin")
        .unwrap();
    f.write_all(b"0123456789").unwrap();
    assert_eq!(f.stream_position().unwrap(), 10);
    f.seek(SeekFrom::Start(2)).unwrap();
    let mut buf = [0u8; 3];
    f.read_exact(&mut buf).unwrap();
    assert_eq!(&buf, b"234");
    f.seek(SeekFrom::End(-1)).unwrap();
    let mut rest = Vec::new();
    f.read_to_end(&mut rest).unwrap();
    assert_eq!(rest, b"9");
    f.seek(SeekFrom::Start(12)).unwrap();
    f.write_all(b"!").unwrap();
    assert_eq!(fs::read("/data.bin").unwrap(), b"0123456789\0\0!");
    f.set_len(4).unwrap();
    assert_eq!(fs::read("/data.bin").unwrap(), b"0123");
    f.sync_all().unwrap();
    assert!(f.seek(SeekFrom::Current(-100)).is_err());
    // positional I/O
    use std::os::unix::fs::FileExt;
    f.write_at(b"AB", 1).unwrap();
    let mut two = [0u8; 2];
    f.read_at(&mut two, 0).unwrap();
    assert_eq!(&two, b"0A");
    // a cloned handle shares the offset
    let mut g = f.try_clone().unwrap();
    g.seek(SeekFrom::Start(0)).unwrap();
    assert_eq!(f.stream_position().unwrap(), 0);
}

#[test]
#[allow(clippy::permissions_set_readonly_false)]
fn metadata_and_permissions() {
    let t = UNIX_EPOCH + Duration::from_secs(1_700_000_000);
    let _env = Env::new()
        .now(t)
        .file("/a.txt", "12345")
        .read_only_file("/ro.txt", "ro")
        .dir("/d")
        .enter();
    let m = fs::metadata("/a.txt").unwrap();
    assert!(m.is_file() && !m.is_dir());
    assert_eq!(m.len(), 5);
    assert_eq!(m.modified().unwrap(), t);
    assert!(!m.permissions().readonly());
    assert_eq!(m.permissions().mode() & 0o777, 0o644);
    assert!(fs::metadata("/d").unwrap().is_dir());
    assert!(fs::metadata("/ro.txt").unwrap().permissions().readonly());
    let e = OpenOptions::new().write(true).open("/ro.txt").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::PermissionDenied);
    let e = fs::write("/ro.txt", "x").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::PermissionDenied);
    // set_permissions makes it writable
    let mut p = fs::metadata("/ro.txt").unwrap().permissions();
    p.set_readonly(false);
    fs::set_permissions("/ro.txt", p).unwrap();
    fs::write("/ro.txt", "now").unwrap();
    // and a read-only file via set_permissions
    fs::set_permissions("/a.txt", fs::Permissions::from_mode(0o400)).unwrap();
    assert_eq!(
        fs::write("/a.txt", "x").unwrap_err().kind(),
        ErrorKind::PermissionDenied
    );
    // File::metadata
    let f = File::open("/ro.txt").unwrap();
    assert_eq!(f.metadata().unwrap().len(), 3);
    // symlink_metadata
    assert!(fs::symlink_metadata("/a.txt").unwrap().is_file());
    assert_eq!(
        fs::metadata("/nope").unwrap_err().kind(),
        ErrorKind::NotFound
    );
}

#[test]
fn modified_time_follows_virtual_clock() {
    let t = UNIX_EPOCH + Duration::from_secs(1_000);
    let _env = Env::new().now(t).enter();
    let before = std::time::SystemTime::now();
    fs::write("/f", "x").unwrap();
    let m = fs::metadata("/f").unwrap().modified().unwrap();
    assert!(m > before, "a write after a clock read is stamped later");
    assert!(m < t + Duration::from_secs(1));
}

#[test]
fn directories() {
    let env = Env::new().enter();
    fs::create_dir("/a").unwrap();
    assert_eq!(
        fs::create_dir("/a").unwrap_err().kind(),
        ErrorKind::AlreadyExists
    );
    assert_eq!(
        fs::create_dir("/x/y").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    fs::create_dir_all("/a/b/c/d").unwrap();
    fs::create_dir_all("/a/b/c/d").unwrap();
    fs::write("/a/b/file", "1").unwrap();
    assert_eq!(
        fs::remove_dir("/a/b").unwrap_err().kind(),
        ErrorKind::DirectoryNotEmpty
    );
    assert_eq!(
        fs::remove_dir("/a/b/file").unwrap_err().kind(),
        ErrorKind::NotADirectory
    );
    assert_eq!(
        fs::remove_file("/a/b").unwrap_err().kind(),
        ErrorKind::IsADirectory
    );
    fs::remove_dir("/a/b/c/d").unwrap();
    fs::remove_file("/a/b/file").unwrap();
    assert_eq!(
        fs::remove_file("/a/b/file").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    fs::create_dir_all("/a/b/c/e/f").unwrap();
    fs::write("/a/b/c/e/f/g", "x").unwrap();
    fs::remove_dir_all("/a").unwrap();
    assert!(!Path::new("/a").exists());
    assert!(!env.exists("/a"));
    // reading a directory as a file
    fs::create_dir("/dir").unwrap();
    assert_eq!(
        fs::read("/dir").unwrap_err().kind(),
        ErrorKind::IsADirectory
    );
    assert_eq!(
        fs::write("/dir", "x").unwrap_err().kind(),
        ErrorKind::IsADirectory
    );
}

#[test]
fn read_dir_is_deterministic_and_complete() {
    let _env = Env::new()
        .file("/d/b.txt", "b")
        .file("/d/a.txt", "a")
        .file("/d/c/inner", "c")
        .symlink("/d/link", "/d/a.txt")
        .enter();
    let entries: Vec<_> = fs::read_dir("/d").unwrap().map(|e| e.unwrap()).collect();
    let names: Vec<_> = entries
        .iter()
        .map(|e| e.file_name().into_string().unwrap())
        .collect();
    assert_eq!(names, ["a.txt", "b.txt", "c", "link"]);
    assert_eq!(entries[0].path(), Path::new("/d/a.txt"));
    assert!(entries[2].file_type().unwrap().is_dir());
    assert!(entries[3].file_type().unwrap().is_symlink());
    assert_eq!(entries[1].metadata().unwrap().len(), 1);
    assert_eq!(
        fs::read_dir("/nope").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert_eq!(
        fs::read_dir("/d/a.txt").unwrap_err().kind(),
        ErrorKind::NotADirectory
    );
}

#[test]
fn rename_copy_links() {
    let env = Env::new().file("/src.txt", "data").dir("/dst").enter();
    fs::rename("/src.txt", "/dst/moved.txt").unwrap();
    assert!(!Path::new("/src.txt").exists());
    assert_eq!(fs::read_to_string("/dst/moved.txt").unwrap(), "data");
    assert_eq!(
        fs::rename("/nope", "/x").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    let n = fs::copy("/dst/moved.txt", "/copy.txt").unwrap();
    assert_eq!(n, 4);
    assert_eq!(env.file_contents("/copy.txt").unwrap(), b"data");
    // rename over an existing file replaces it
    fs::write("/other", "old").unwrap();
    fs::rename("/copy.txt", "/other").unwrap();
    assert_eq!(fs::read_to_string("/other").unwrap(), "data");
    // directories move with their contents
    fs::create_dir_all("/tree/sub").unwrap();
    fs::write("/tree/sub/leaf", "leaf").unwrap();
    fs::rename("/tree", "/moved").unwrap();
    assert_eq!(fs::read_to_string("/moved/sub/leaf").unwrap(), "leaf");
    // hard and symbolic links
    fs::hard_link("/other", "/hard").unwrap();
    fs::write("/other", "changed").unwrap();
    assert_eq!(fs::read_to_string("/hard").unwrap(), "changed");
    std::os::unix::fs::symlink("/other", "/soft").unwrap();
    assert_eq!(fs::read_link("/soft").unwrap(), Path::new("/other"));
    assert_eq!(fs::read_to_string("/soft").unwrap(), "changed");
    assert!(fs::symlink_metadata("/soft")
        .unwrap()
        .file_type()
        .is_symlink());
    fs::remove_file("/other").unwrap();
    assert!(!Path::new("/soft").exists());
    assert_eq!(fs::read_to_string("/hard").unwrap(), "changed");
}

#[test]
fn an_unlinked_open_file_stays_readable() {
    let _env = Env::new().file("/f", "still here").enter();
    let mut f = File::open("/f").unwrap();
    fs::remove_file("/f").unwrap();
    let mut s = String::new();
    f.read_to_string(&mut s).unwrap();
    assert_eq!(s, "still here");
}

#[test]
fn relative_paths_cwd_and_canonicalize() {
    let env = Env::new().cwd("/work").file("/work/in.txt", "in").enter();
    assert_eq!(std::env::current_dir().unwrap(), Path::new("/work"));
    assert_eq!(fs::read_to_string("in.txt").unwrap(), "in");
    assert_eq!(fs::read_to_string("./../work/in.txt").unwrap(), "in");
    fs::write("out.txt", "o").unwrap();
    assert_eq!(env.file_contents("/work/out.txt").unwrap(), b"o");
    assert_eq!(
        fs::canonicalize("in.txt").unwrap(),
        Path::new("/work/in.txt")
    );
    assert_eq!(
        fs::canonicalize("/work/../work/./in.txt").unwrap(),
        Path::new("/work/in.txt")
    );
    assert_eq!(
        fs::canonicalize("missing").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    std::os::unix::fs::symlink("/work", "/w").unwrap();
    assert_eq!(
        fs::canonicalize("/w/in.txt").unwrap(),
        Path::new("/work/in.txt")
    );
    fs::create_dir("/elsewhere").unwrap();
    std::env::set_current_dir("/elsewhere").unwrap();
    assert_eq!(std::env::current_dir().unwrap(), Path::new("/elsewhere"));
    fs::write("x", "x").unwrap();
    assert!(env.exists("/elsewhere/x"));
    assert_eq!(env.current_dir(), Path::new("/elsewhere"));
    assert_eq!(
        std::env::set_current_dir("/nope").unwrap_err().kind(),
        ErrorKind::NotFound
    );
    assert!(Path::new("x").exists());
    assert!(fs::exists("/work/in.txt").unwrap());
    assert!(!fs::exists("/work/none").unwrap());
}

#[test]
fn file_error_fails_reads_with_the_chosen_kind() {
    let _env = Env::new()
        .file_error("/broken", ErrorKind::PermissionDenied)
        .file_error("/flaky", ErrorKind::Interrupted)
        .file_error("/full", ErrorKind::StorageFull)
        .enter();
    assert!(Path::new("/broken").exists());
    assert_eq!(
        fs::read("/broken").unwrap_err().kind(),
        ErrorKind::PermissionDenied
    );
    // std retries EINTR: the first read fails, then the file reads normally (empty).
    assert_eq!(fs::read("/flaky").unwrap(), b"");
    assert_eq!(
        fs::write("/full", "x").unwrap_err().kind(),
        ErrorKind::StorageFull
    );
}

#[test]
#[should_panic(expected = "has no OS error code")]
fn file_error_rejects_kinds_the_os_cannot_produce() {
    let _ = Env::new().file_error("/x", ErrorKind::InvalidData);
}

#[test]
fn devices_and_tmp() {
    let _env = Env::new().enter();
    assert!(Path::new("/tmp").is_dir());
    fs::write("/dev/null", "discarded").unwrap();
    assert_eq!(fs::read("/dev/null").unwrap(), b"");
    let mut z = [1u8; 4];
    File::open("/dev/zero").unwrap().read_exact(&mut z).unwrap();
    assert_eq!(z, [0; 4]);
    let mut r = [0u8; 16];
    File::open("/dev/urandom")
        .unwrap()
        .read_exact(&mut r)
        .unwrap();
    assert_ne!(r, [0; 16]);
    assert_eq!(std::env::temp_dir(), Path::new("/tmp"));
}

#[test]
fn read_only_directory_refuses_new_entries() {
    let _env = Env::new()
        .file("/ro/existing", "e")
        .dir_with_mode("/ro", 0o555)
        .enter();
    assert_eq!(
        fs::write("/ro/new", "x").unwrap_err().kind(),
        ErrorKind::PermissionDenied
    );
    assert_eq!(
        fs::remove_file("/ro/existing").unwrap_err().kind(),
        ErrorKind::PermissionDenied
    );
    assert_eq!(fs::read_to_string("/ro/existing").unwrap(), "e");
}

#[test]
fn file_handle_works_from_a_thread_outside_the_env() {
    let env = Env::new().file("/shared", "from env").enter();
    let f = File::open("/shared").unwrap();
    // A thread started outside any environment (e.g. a pre-existing pool thread).
    drop(env);
    let s = std::thread::spawn(move || {
        let mut f = f;
        let mut s = String::new();
        f.read_to_string(&mut s).map(|_| s)
    })
    .join()
    .unwrap();
    assert_eq!(s.unwrap(), "from env");
}

#[test]
fn c_stdio_and_mmap_see_virtual_files() {
    use std::ffi::CStr;
    let env = Env::new().file("/c.txt", "from the env\n").enter();
    // SAFETY: C strings of ours, and the stream fopen returns, used until closed.
    unsafe {
        let f = libc_fopen(c"/c.txt".as_ptr(), c"r".as_ptr());
        assert!(!f.is_null());
        let mut buf = [0 as std::ffi::c_char; 64];
        assert!(!libc_fgets(buf.as_mut_ptr(), 64, f).is_null());
        assert_eq!(
            CStr::from_ptr(buf.as_ptr()).to_str().unwrap(),
            "from the env\n"
        );
        libc_fclose(f);
        let w = libc_fopen(c"/w.txt".as_ptr(), c"w".as_ptr());
        assert!(!w.is_null());
        libc_fputs(c"written by C".as_ptr(), w);
        libc_fclose(w);
        assert!(libc_fopen(c"/none".as_ptr(), c"r".as_ptr()).is_null());
    }
    assert_eq!(env.file_contents("/w.txt").unwrap(), b"written by C");
    // A read-only map of a virtual file.
    let f = File::open("/c.txt").unwrap();
    // SAFETY: a map of our own open file, unmapped below.
    let p = unsafe {
        libc_mmap(
            std::ptr::null_mut(),
            13,
            1, /* PROT_READ */
            2, /* MAP_PRIVATE */
            std::os::fd::AsRawFd::as_raw_fd(&f),
            0,
        )
    };
    assert_ne!(p as isize, -1);
    // SAFETY: the map holds the file's 13 bytes.
    let bytes = unsafe { std::slice::from_raw_parts(p as *const u8, 13) };
    assert_eq!(bytes, b"from the env\n");
}

type CFile = std::ffi::c_void;
unsafe extern "C" {
    #[link_name = "fopen"]
    fn libc_fopen(path: *const std::ffi::c_char, mode: *const std::ffi::c_char) -> *mut CFile;
    #[link_name = "fgets"]
    fn libc_fgets(buf: *mut std::ffi::c_char, n: i32, f: *mut CFile) -> *mut std::ffi::c_char;
    #[link_name = "fputs"]
    fn libc_fputs(s: *const std::ffi::c_char, f: *mut CFile) -> i32;
    #[link_name = "fclose"]
    fn libc_fclose(f: *mut CFile) -> i32;
    #[link_name = "mmap"]
    fn libc_mmap(
        addr: *mut std::ffi::c_void,
        len: usize,
        prot: i32,
        flags: i32,
        fd: i32,
        off: i64,
    ) -> *mut std::ffi::c_void;
}

#[test]
fn more_edge_cases() {
    use std::os::fd::AsRawFd;
    let t = UNIX_EPOCH + Duration::from_secs(1_234_567_890);
    let _env = Env::new().file("/d/f", "x").enter();
    // Virtual descriptors live far above the kernel's.
    let f = File::open("/d/f").unwrap();
    assert!(f.as_raw_fd() >= 1 << 30);
    // set_modified goes through futimens.
    let w = OpenOptions::new().write(true).open("/d/f").unwrap();
    w.set_modified(t).unwrap();
    assert_eq!(fs::metadata("/d/f").unwrap().modified().unwrap(), t);
    // A directory opens for reading but does not read.
    let mut d = File::open("/d").unwrap();
    assert!(d.metadata().unwrap().is_dir());
    let mut s = String::new();
    assert_eq!(
        d.read_to_string(&mut s).unwrap_err().kind(),
        ErrorKind::IsADirectory
    );
    assert_eq!(
        OpenOptions::new()
            .write(true)
            .open("/d")
            .unwrap_err()
            .kind(),
        ErrorKind::IsADirectory
    );
    // A dangling symlink does not "exist" but has link metadata.
    std::os::unix::fs::symlink("/nowhere", "/dangling").unwrap();
    assert!(!Path::new("/dangling").exists());
    assert!(fs::symlink_metadata("/dangling").unwrap().is_symlink());
    // remove_dir_all on a symlink to a directory removes only the link.
    std::os::unix::fs::symlink("/d", "/dlink").unwrap();
    fs::remove_dir_all("/dlink").unwrap();
    assert!(Path::new("/d/f").exists());
    // A path through a file is not a directory.
    assert_eq!(
        fs::read("/d/f/x").unwrap_err().kind(),
        ErrorKind::NotADirectory
    );
    assert_eq!(
        fs::create_dir_all("/d/f/x").unwrap_err().kind(),
        ErrorKind::NotADirectory
    );
}
