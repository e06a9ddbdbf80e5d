//! Network and processes are refused; host facts are fixed.

use std::io::ErrorKind;
use std::net::{TcpListener, TcpStream, ToSocketAddrs, UdpSocket};
use std::process::Command;
use std::time::Duration;

use hermetic::{Access, Env};

#[test]
fn tcp_connect_is_refused() {
    let env = Env::new().enter();
    let e = TcpStream::connect("127.0.0.1:80").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ConnectionRefused);
    let e = TcpStream::connect_timeout(&"10.1.2.3:443".parse().unwrap(), Duration::from_secs(1))
        .unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ConnectionRefused);
    let acc = env.accesses();
    assert!(acc.contains(&Access::NetworkAttempt {
        what: "connect",
        target: "127.0.0.1:80".into()
    }));
    assert!(acc.contains(&Access::NetworkAttempt {
        what: "connect",
        target: "10.1.2.3:443".into()
    }));
}

#[test]
fn name_lookup_is_refused() {
    let env = Env::new().enter();
    let e = "example.com:80".to_socket_addrs().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ConnectionRefused);
    let e = TcpStream::connect("localhost:8080").unwrap_err();
    assert_eq!(e.kind(), ErrorKind::ConnectionRefused);
    assert!(env.accesses().contains(&Access::NetworkAttempt {
        what: "resolve",
        target: "example.com".into()
    }));
}

#[test]
fn listening_and_udp_are_denied() {
    let _env = Env::new().enter();
    assert_eq!(
        TcpListener::bind("127.0.0.1:0").unwrap_err().kind(),
        ErrorKind::PermissionDenied
    );
    assert_eq!(
        UdpSocket::bind("0.0.0.0:0").unwrap_err().kind(),
        ErrorKind::PermissionDenied
    );
}

#[test]
fn commands_are_refused() {
    let env = Env::new().enter();
    let e = Command::new("true").status().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::PermissionDenied);
    let e = Command::new("/bin/echo").arg("hi").output().unwrap_err();
    assert_eq!(e.kind(), ErrorKind::PermissionDenied);
    // A closure before exec forces std's fork path.
    use std::os::unix::process::CommandExt;
    let mut c = Command::new("true");
    // SAFETY: the hook does nothing, so it is async-signal-safe.
    unsafe {
        c.pre_exec(|| Ok(()));
    }
    assert_eq!(c.spawn().unwrap_err().kind(), ErrorKind::PermissionDenied);
    let acc = env.accesses();
    assert!(acc.contains(&Access::ProcessAttempt {
        what: "spawn",
        program: "true".into()
    }));
    assert!(
        acc.contains(&Access::ProcessAttempt {
            what: "fork",
            program: String::new()
        }),
        "{acc:?}"
    );
}

#[test]
fn host_facts_are_fixed() {
    let env = Env::new().enter();
    assert_eq!(std::process::id(), 4242);
    assert_eq!(std::thread::available_parallelism().unwrap().get(), 4);
    drop(env);
    let _env = Env::new().pid(7).cpus(2).hostname("box").enter();
    assert_eq!(std::process::id(), 7);
    assert_eq!(std::thread::available_parallelism().unwrap().get(), 2);
    let mut buf = [0 as libc_char; 64];
    // SAFETY: a buffer of ours, of the length given.
    assert_eq!(unsafe { gethostname(buf.as_mut_ptr(), buf.len()) }, 0);
    // SAFETY: gethostname wrote a NUL-terminated name into `buf`.
    let name = unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) };
    assert_eq!(name.to_str().unwrap(), "box");
}

#[allow(non_camel_case_types)]
type libc_char = std::ffi::c_char;
unsafe extern "C" {
    fn gethostname(name: *mut libc_char, len: usize) -> i32;
}

#[test]
fn real_process_facts_outside() {
    assert_ne!(std::process::id(), 4242);
    assert!(Command::new("true").status().unwrap().success());
}
