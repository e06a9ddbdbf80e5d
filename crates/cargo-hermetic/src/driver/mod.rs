//! The driver: generated dispatch code injected into a shadow copy of the crate, built once with
//! coverage instrumentation, and run as a fork server that interprets test cases sent as data.

pub mod build;
pub mod cleanup;
pub mod codegen;
pub mod execute;
pub mod goals;
pub mod infeasible;
pub mod lines;
pub mod process;
