//! The Landlock layer: file writes only below the writable directories (and to `/dev/null`),
//! no TCP, and, where the kernel has scopes (ABI 6), no signals to processes outside the
//! sandbox and no connections to abstract Unix sockets made outside it. Refusals are silent
//! (`EACCES`); the seccomp filter refuses, visibly, what Landlock would (see [`crate::filter`]),
//! so this layer only holds when the filter misses something.

use landlock::{
    path_beneath_rules, Access, AccessFs, AccessNet, Ruleset as Builder, RulesetAttr,
    RulesetCreatedAttr, Scope, ABI,
};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::Path;

/// A ruleset made before `fork`, enforced in the child by [`Ruleset::enforce`].
pub struct Ruleset {
    fd: Option<OwnedFd>,
}

/// The Landlock ABI the kernel offers (0: none).
pub fn abi() -> i32 {
    // SAFETY: LANDLOCK_CREATE_RULESET_VERSION with no attributes only asks for the version.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32, // LANDLOCK_CREATE_RULESET_VERSION
        )
    };
    v.max(0) as i32
}

impl Ruleset {
    /// The rules for these writable directories (which must exist). A kernel without Landlock
    /// gives a ruleset that enforces nothing.
    pub fn new(writable: &[&Path]) -> Ruleset {
        let abi = ABI::V9;
        let created = Builder::default()
            .handle_access(AccessFs::from_write(abi))
            .and_then(|r| r.handle_access(AccessNet::BindTcp | AccessNet::ConnectTcp))
            .and_then(|r| r.scope(Scope::from_all(abi)))
            .and_then(|r| r.create())
            .and_then(|r| {
                let mut dirs: Vec<&Path> = writable.to_vec();
                dirs.push(Path::new("/dev/null"));
                r.add_rules(path_beneath_rules(dirs, AccessFs::from_write(abi)))
            });
        Ruleset {
            fd: created.ok().and_then(Into::into),
        }
    }

    /// Enforces the rules on the calling thread and what it starts from now on. Only system
    /// calls: safe between `fork` and `exec`. Needs `no_new_privs`.
    pub fn enforce(&self) -> bool {
        let Some(fd) = &self.fd else { return false };
        // SAFETY: a valid ruleset descriptor and no flags.
        unsafe { libc::syscall(libc::SYS_landlock_restrict_self, fd.as_raw_fd(), 0u32) == 0 }
    }
}
