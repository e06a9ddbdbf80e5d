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

pub mod filter;
pub mod landlock;
pub mod launch;
pub mod namespaces;
pub mod refusals;
pub mod supervisor;

pub use launch::{Layers, Pending, Sandbox};
pub use refusals::{Log, Refusal};
