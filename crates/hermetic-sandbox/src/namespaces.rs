//! The namespace layer, which holds whatever the filter lets through: a user namespace in
//! which the process keeps its own user and group but no capabilities; a mount namespace in
//! which every mount is read-only but the writable directories; and a network namespace with
//! nothing in it (not even a loopback that is up). Entered between `fork` and `exec`, where
//! the process is single-threaded (a user namespace needs that); where the kernel refuses (no
//! unprivileged user namespaces, a container's filter), the process goes on without it and the
//! caller says so.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// Which parts were entered.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Entered {
    /// Only the writable directories can be written, whatever the process does.
    pub read_only: bool,
    /// No network at all.
    pub no_network: bool,
}

impl Entered {
    pub(crate) fn bits(self) -> u8 {
        self.read_only as u8 | (self.no_network as u8) << 1
    }

    pub(crate) fn from_bits(b: u8) -> Entered {
        Entered {
            read_only: b & 1 != 0,
            no_network: b & 2 != 0,
        }
    }
}

/// Everything the child needs, prepared before `fork` (nothing is allocated after it).
pub struct Plan {
    uid_map: Vec<u8>,
    gid_map: Vec<u8>,
    writable: Vec<CString>,
}

// `struct mount_attr` (linux/mount.h).
#[repr(C)]
struct MountAttr {
    attr_set: u64,
    attr_clr: u64,
    propagation: u64,
    userns_fd: u64,
}
const MOUNT_ATTR_RDONLY: u64 = 1;
const AT_RECURSIVE: libc::c_uint = 0x8000;

impl Plan {
    pub fn new(writable: &[&Path]) -> Plan {
        // SAFETY: getuid and getgid have no preconditions.
        let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
        Plan {
            uid_map: format!("{uid} {uid} 1\n").into_bytes(),
            gid_map: format!("{gid} {gid} 1\n").into_bytes(),
            writable: writable
                .iter()
                .filter_map(|p| CString::new(p.as_os_str().as_bytes()).ok())
                .collect(),
        }
    }

    /// Enters the namespaces. Only system calls: safe between `fork` and `exec`.
    pub fn enter(&self) -> Entered {
        let mut entered = Entered::default();
        // SAFETY: system calls on this (single-threaded, forked) process with arguments that
        // outlive them.
        unsafe {
            let flags = libc::CLONE_NEWUSER | libc::CLONE_NEWNS | libc::CLONE_NEWNET;
            if libc::unshare(flags) != 0 {
                return entered;
            }
            entered.no_network = true;
            let mapped = write_file(c"/proc/self/setgroups", b"deny")
                && write_file(c"/proc/self/uid_map", &self.uid_map)
                && write_file(c"/proc/self/gid_map", &self.gid_map);
            entered.read_only = mapped && self.read_only_but_writable();
            drop_capabilities();
        }
        entered
    }

    /// Every mount read-only, the writable directories excepted. Changes made here stay in
    /// this namespace.
    unsafe fn read_only_but_writable(&self) -> bool {
        let none = std::ptr::null::<libc::c_char>();
        let root = c"/".as_ptr();
        if libc::mount(
            none,
            root,
            none,
            libc::MS_REC | libc::MS_PRIVATE,
            std::ptr::null(),
        ) != 0
        {
            return false;
        }
        // Each writable directory becomes a mount of its own, so it can stay writable.
        for dir in &self.writable {
            let d = dir.as_ptr();
            if libc::mount(d, d, none, libc::MS_BIND | libc::MS_REC, std::ptr::null()) != 0 {
                return false;
            }
        }
        let set = |path: *const libc::c_char, attr: &MountAttr| {
            libc::syscall(
                libc::SYS_mount_setattr,
                libc::AT_FDCWD,
                path,
                AT_RECURSIVE,
                attr as *const MountAttr,
                std::mem::size_of::<MountAttr>(),
            ) == 0
        };
        let read_only = MountAttr {
            attr_set: MOUNT_ATTR_RDONLY,
            attr_clr: 0,
            propagation: 0,
            userns_fd: 0,
        };
        let writable = MountAttr {
            attr_set: 0,
            attr_clr: MOUNT_ATTR_RDONLY,
            propagation: 0,
            userns_fd: 0,
        };
        set(root, &read_only) && self.writable.iter().all(|d| set(d.as_ptr(), &writable))
    }
}

/// Writes `data` to a file (the namespace's maps). Only system calls.
unsafe fn write_file(path: &std::ffi::CStr, data: &[u8]) -> bool {
    let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
    if fd < 0 {
        return false;
    }
    let ok = libc::write(fd, data.as_ptr().cast(), data.len()) == data.len() as isize;
    libc::close(fd);
    ok
}

/// Gives up every capability for good: the process and the programs it starts keep none,
/// even as user 0 (so it cannot undo the read-only mounts).
unsafe fn drop_capabilities() {
    // SECBIT_NOROOT, SECBIT_NO_SETUID_FIXUP, SECBIT_NO_CAP_AMBIENT_RAISE, each locked, and
    // SECBIT_KEEP_CAPS locked off.
    const SECURE_BITS: libc::c_ulong = 0b1110_1111;
    libc::prctl(libc::PR_SET_SECUREBITS, SECURE_BITS, 0, 0, 0);
    for cap in 0..64 {
        libc::prctl(libc::PR_CAPBSET_DROP, cap, 0, 0, 0);
    }
    #[repr(C)]
    struct Header {
        version: u32,
        pid: i32,
    }
    #[repr(C)]
    struct Data {
        effective: u32,
        permitted: u32,
        inheritable: u32,
    }
    let header = Header {
        version: 0x2008_0522, // _LINUX_CAPABILITY_VERSION_3
        pid: 0,
    };
    let data = [
        Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        },
        Data {
            effective: 0,
            permitted: 0,
            inheritable: 0,
        },
    ];
    libc::syscall(libc::SYS_capset, &header as *const Header, data.as_ptr());
}
