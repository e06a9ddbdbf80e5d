//! Containment of the code under test, in layers that fail closed.
//!
//! - [`filter`]: a seccomp allow-list of x86-64 system calls (32-bit and x32 calls refused);
//!   in the driver, what it refuses is answered and logged ([`refusals`]) by a supervisor
//!   thread of the fork server ([`supervisor`]).
//! - [`landlock`](mod@landlock): writes only below scratch directories, no TCP, no signals or
//!   abstract sockets outside the sandbox.
//! - [`namespaces`]: a read-only view of the file system but the scratch directories, and no
//!   network, where the kernel allows unprivileged user namespaces.
//! - [`launch`]: the engine starts the driver and test binaries inside these layers.
//!
//! The driver (the crate's instrumented test binary) uses the filter, the log and the
//! supervisor from inside; the engine uses the launcher. Linux on x86-64 only: elsewhere the
//! filters are not built, and the report says the sandbox is missing.
//!
//! Invariants: every layer fails closed on its own: what a layer cannot set up is reported
//! (`Pending::layers`), never an error. The filter is one table of calls and classes, compiled to
//! BPF for two profiles: the driver's server, whose refusals go to the supervisor, and test
//! binaries, whose refusals kill them. The supervisor lets the server's own forks and signals, and
//! a process's signals to itself, through, and fails the rest with `EPERM`, logged; nothing in its
//! loop allocates, and the code under test can neither answer nor forge its refusals.

pub mod filter;
pub mod landlock;
pub mod launch;
pub mod namespaces;
pub mod refusals;
pub mod supervisor;

pub use launch::{Layers, Pending, Sandbox};
pub use refusals::{Log, Refusal};
