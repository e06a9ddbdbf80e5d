//! Support library linked into hermetic's driver build (never into the user's own tests).
//!
//! The engine (`cargo-hermetic`) injects a generated driver module into a shadow copy of the
//! crate under test; that module depends on this crate for the wire protocol, the fork server
//! that runs each test case in a fresh child, the SanitizerCoverage callbacks, and the traits
//! that turn protocol values into Rust arguments (`Decode`) and results into observations
//! (`Observe`). The engine uses the same `hermetic_protocol` types on its side of the pipe.
//!
//! The pieces: [`server`] (the fork server), [`coverage`] (the SanitizerCoverage callbacks),
//! [`decode`](mod@decode) and [`observe`](mod@observe), [`environment`] (the per-execution
//! `hermetic::Env`), [`fakes`] (isolated calls' fakes and what they answered), [`mock`] (call
//! counts of generated mocks), [`mutant`] (the mutants' switch and the `extern "C"` helpers the
//! schemata call), [`sandbox`] (the driver's part of the containment; refusals come back per
//! statement in `ExecReport.refusals`), [`leftovers`] (what a test case leaves behind),
//! [`carryover`] (whether a reused child still looks fresh) and [`slots`].
//!
//! Invariants: never linked into the user's own tests; every execution runs in a forked child
//! that is fresh or looks it (a search execution may reuse the child of earlier ones while
//! nothing they did can be seen, `carryover`), inside an `Env`, contained; a crash of the child
//! is a report, never a crash of the server. The one exception is a hidden benchmark mode, `--no-static-isolation`
//! (`SHARED_CHILD_ENV`), where one long-lived child runs a driver's executions so statics carry
//! over; it measures what fresh children are worth.
//!
//! The engine embeds the sources of this crate, `hermetic-protocol` and `hermetic-sandbox` (its
//! `shadow.rs`), so an installed binary needs no source tree.

pub mod carryover;
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
