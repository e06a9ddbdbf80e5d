//! The network, refused: sockets are virtual descriptors that cannot connect, bind or listen,
//! and name lookups fail, all with errors that do not depend on the machine.

use libc::{addrinfo, c_char, c_int, c_void, sockaddr, socklen_t};

use super::bytes;
use crate::access::Access;
use crate::state::{Desc, State, Target};
use crate::vfs::R;

/// An address as a person reads it: `127.0.0.1:80`, `[::1]:80`, `unix:/run/x.sock`.
///
/// # Safety
///
/// `addr` is NULL or valid for reads of `len` bytes.
unsafe fn describe(addr: *const sockaddr, len: socklen_t) -> String {
    if addr.is_null() || (len as usize) < std::mem::size_of::<libc::sa_family_t>() {
        return String::new();
    }
    // SAFETY: `len` readable bytes (this function's contract), at least as many as the
    // address family's struct read in each arm (checked there, or `sun_path` cut to `len`).
    unsafe {
        match (*addr).sa_family as c_int {
            libc::AF_INET if len as usize >= std::mem::size_of::<libc::sockaddr_in>() => {
                let a = &*(addr as *const libc::sockaddr_in);
                let ip = std::net::Ipv4Addr::from(u32::from_be(a.sin_addr.s_addr));
                format!("{ip}:{}", u16::from_be(a.sin_port))
            }
            libc::AF_INET6 if len as usize >= std::mem::size_of::<libc::sockaddr_in6>() => {
                let a = &*(addr as *const libc::sockaddr_in6);
                let ip = std::net::Ipv6Addr::from(a.sin6_addr.s6_addr);
                format!("[{ip}]:{}", u16::from_be(a.sin6_port))
            }
            libc::AF_UNIX => {
                let a = &*(addr as *const libc::sockaddr_un);
                let n = (len as usize).saturating_sub(2).min(a.sun_path.len());
                let p: Vec<u8> = a.sun_path[..n]
                    .iter()
                    .take_while(|&&c| c != 0)
                    .map(|&c| c as u8)
                    .collect();
                format!("unix:{}", String::from_utf8_lossy(&p))
            }
            f => format!("family {f}"),
        }
    }
}

fn refuse(st: &mut State, fd: c_int, what: &'static str, target: String, errno: c_int) -> R<c_int> {
    if st.desc(fd)?.target != Target::Socket {
        return Err(libc::ENOTSOCK);
    }
    st.record(Access::NetworkAttempt { what, target });
    Err(errno)
}

interpose! {
    fn socket(domain: c_int, ty: c_int, proto: c_int) -> c_int {
        virt!(|st| {
            let flags = libc::O_RDWR | (ty & libc::O_NONBLOCK);
            Ok(st.alloc_fd(Desc::new(Target::Socket, flags, Vec::new())))
        });
        pass!()
    }

    fn connect(fd: c_int, addr: *const sockaddr, len: socklen_t) -> c_int {
        virt_fd!(fd, |st| {
            // SAFETY: `len` bytes of address at `addr`, as connect's contract requires.
            let target = unsafe { describe(addr, len) };
            refuse(st, fd, "connect", target, libc::ECONNREFUSED)
        });
        pass!()
    }

    fn bind(fd: c_int, addr: *const sockaddr, len: socklen_t) -> c_int {
        virt_fd!(fd, |st| {
            // SAFETY: `len` bytes of address at `addr`, as bind's contract requires.
            let target = unsafe { describe(addr, len) };
            refuse(st, fd, "bind", target, libc::EACCES)
        });
        pass!()
    }

    fn listen(fd: c_int, backlog: c_int) -> c_int {
        virt_fd!(fd, |st| refuse(st, fd, "listen", String::new(), libc::EACCES));
        pass!()
    }

    fn setsockopt(fd: c_int, level: c_int, name: c_int, val: *const c_void, len: socklen_t) -> c_int {
        virt_fd!(fd, |st| st.desc(fd).map(|_| 0));
        pass!()
    }

    fn getsockopt(
        fd: c_int,
        level: c_int,
        name: c_int,
        val: *mut c_void,
        len: *mut socklen_t,
    ) -> c_int {
        virt_fd!(fd, |st| {
            st.desc(fd)?;
            // SAFETY: `len` points at the size of the buffer at `val`, as getsockopt's contract
            // requires; 4 bytes are written only when it holds at least 4.
            unsafe {
                if !val.is_null() && !len.is_null() && *len as usize >= 4 {
                    *(val as *mut c_int) = 0;
                    *len = 4;
                }
            }
            Ok(0)
        });
        pass!()
    }

    /// Name lookup fails with `EAI_SYSTEM` and errno ECONNREFUSED, which std reports as an
    /// `io::Error` of kind `ConnectionRefused`.
    fn getaddrinfo(
        node: *const c_char,
        service: *const c_char,
        hints: *const addrinfo,
        res: *mut *mut addrinfo,
    ) -> c_int {
        let Some(cx) = crate::active::ctx() else {
            return pass!();
        };
        let _ = cx.run(|st| {
            // SAFETY: `node` is NULL or a C string, as getaddrinfo's contract requires.
            let node = unsafe { bytes(node) };
            st.record(Access::NetworkAttempt {
                what: "resolve",
                target: String::from_utf8_lossy(node).into_owned(),
            });
            Err::<(), _>(libc::ECONNREFUSED)
        });
        drop(cx);
        crate::active::set_errno(libc::ECONNREFUSED);
        libc::EAI_SYSTEM
    }
}
