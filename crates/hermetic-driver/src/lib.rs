//! Support library linked into hermetic's driver build (never into the user's own tests).
//!
//! The engine (`cargo-hermetic`) injects a generated driver module into a shadow copy of the
//! crate under test; that module depends on this crate for the wire protocol, the fork server
//! that runs each test case in a fresh child, the SanitizerCoverage callbacks, and the traits
//! that turn protocol values into Rust arguments (`Decode`) and results into observations
//! (`Observe`). The engine uses the same `hermetic_protocol` types on its side of the pipe.

pub mod coverage;
pub mod decode;
pub mod environment;
pub mod fakes;
pub mod leftovers;
pub mod mock;
pub mod mutant;
pub mod observe;
pub mod sandbox;
pub mod server;
pub mod slots;

/// The wire protocol, shared with the engine.
pub use hermetic_protocol as protocol;

pub use decode::{decode, AnyRange, Decode};
pub use observe::{observe, Observe};
pub use protocol::{DecodeError, Observed, Value};
pub use server::{serve, Entry, Returned};
pub use slots::{keep, Slots};
