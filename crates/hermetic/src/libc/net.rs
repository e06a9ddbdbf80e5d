//! The network, refused: sockets are virtual descriptors that cannot connect, bind or listen,
//! and name lookups fail, all with errors that do not depend on the machine.

use libc::{addrinfo, c_char, c_int, c_void, sockaddr, socklen_t};

use super::bytes;
use crate::access::Access;
use crate::real::real;
use crate::state::{Desc, State, Target};
use crate::vfs::R;

fn describe(addr: *const sockaddr, len: socklen_t) -> String {
    if addr.is_null() || (len as usize) < std::mem::size_of::<libc::sa_family_t>() {
        return String::new();
    }
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

#[no_mangle]
pub unsafe extern "C" fn socket(domain: c_int, ty: c_int, proto: c_int) -> c_int {
    virt!(|st| Ok(st.alloc_fd(Desc::new(
        Target::Socket,
        libc::O_RDWR | (ty & libc::O_NONBLOCK),
        Vec::new()
    ))));
    unsafe { real!(socket: fn(c_int, c_int, c_int) -> c_int)(domain, ty, proto) }
}

#[no_mangle]
pub unsafe extern "C" fn connect(fd: c_int, addr: *const sockaddr, len: socklen_t) -> c_int {
    virt_fd!(fd, |st| refuse(
        st,
        fd,
        "connect",
        describe(addr, len),
        libc::ECONNREFUSED
    ));
    unsafe { real!(connect: fn(c_int, *const sockaddr, socklen_t) -> c_int)(fd, addr, len) }
}

#[no_mangle]
pub unsafe extern "C" fn bind(fd: c_int, addr: *const sockaddr, len: socklen_t) -> c_int {
    virt_fd!(fd, |st| refuse(
        st,
        fd,
        "bind",
        describe(addr, len),
        libc::EACCES
    ));
    unsafe { real!(bind: fn(c_int, *const sockaddr, socklen_t) -> c_int)(fd, addr, len) }
}

#[no_mangle]
pub unsafe extern "C" fn listen(fd: c_int, backlog: c_int) -> c_int {
    virt_fd!(fd, |st| refuse(
        st,
        fd,
        "listen",
        String::new(),
        libc::EACCES
    ));
    unsafe { real!(listen: fn(c_int, c_int) -> c_int)(fd, backlog) }
}

#[no_mangle]
pub unsafe extern "C" fn setsockopt(
    fd: c_int,
    level: c_int,
    name: c_int,
    val: *const c_void,
    len: socklen_t,
) -> c_int {
    virt_fd!(fd, |st| st.desc(fd).map(|_| 0));
    unsafe {
        real!(setsockopt: fn(c_int, c_int, c_int, *const c_void, socklen_t) -> c_int)(
            fd, level, name, val, len,
        )
    }
}

#[no_mangle]
pub unsafe extern "C" fn getsockopt(
    fd: c_int,
    level: c_int,
    name: c_int,
    val: *mut c_void,
    len: *mut socklen_t,
) -> c_int {
    virt_fd!(fd, |st| {
        st.desc(fd)?;
        if !val.is_null() && !len.is_null() && unsafe { *len } as usize >= 4 {
            unsafe {
                *(val as *mut c_int) = 0;
                *len = 4;
            }
        }
        Ok(0)
    });
    unsafe {
        real!(getsockopt: fn(c_int, c_int, c_int, *mut c_void, *mut socklen_t) -> c_int)(
            fd, level, name, val, len,
        )
    }
}

/// Name lookup fails with `EAI_SYSTEM` and errno ECONNREFUSED, which std reports as an
/// `io::Error` of kind `ConnectionRefused`.
#[no_mangle]
pub unsafe extern "C" fn getaddrinfo(
    node: *const c_char,
    service: *const c_char,
    hints: *const addrinfo,
    res: *mut *mut addrinfo,
) -> c_int {
    if let Some(cx) = crate::active::ctx() {
        let _ = cx.run(|st| {
            st.record(Access::NetworkAttempt {
                what: "resolve",
                target: String::from_utf8_lossy(unsafe { bytes(node) }).into_owned(),
            });
            Err::<(), _>(libc::ECONNREFUSED)
        });
        drop(cx);
        crate::active::set_errno(libc::ECONNREFUSED);
        return libc::EAI_SYSTEM;
    }
    unsafe {
        real!(getaddrinfo: fn(*const c_char, *const c_char, *const addrinfo, *mut *mut addrinfo) -> c_int)(
            node, service, hints, res,
        )
    }
}
