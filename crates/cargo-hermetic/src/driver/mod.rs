//! The driver: generated dispatch code injected into a shadow copy of the crate, built once with
//! coverage instrumentation, and run as a fork server that interprets test cases sent as data.
//!
//! `codegen.rs` writes the dispatch code; `build.rs` builds it, retrying with the calls the
//! compiler rejects disabled; `process.rs` runs driver processes, and `execute.rs` is the seam the
//! search runs test cases through; `goals.rs` finds the goals in the executable's symbols, with
//! compiler checks and unwinding cleanup set apart (`cleanup.rs`, which follows control from each
//! landing pad, decoding instructions with iced-x86), the edges no input can take left out
//! (`infeasible.rs`) and the copies of a generic function sharing their goals (`copies.rs`);
//! `lines.rs` maps goals to source lines; `statics.rs` lists the statics a reused child watches.

pub mod build;
pub mod cleanup;
pub mod codegen;
pub mod copies;
pub mod execute;
pub mod goals;
pub mod infeasible;
pub mod lines;
pub mod process;
pub mod statics;
