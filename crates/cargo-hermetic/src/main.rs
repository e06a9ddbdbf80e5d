//! `cargo hermetic`: writes deterministic, isolated unit tests for a Rust crate.
//!
//! Data flows one way: analyze → driver → search → oracle → emit → verify → report. Only this
//! file and `report` print to the terminal.

mod analyze;
mod cargo;
mod cluster;
mod driver;
mod emit;
mod rust_syntax;
mod shadow;
mod test_case;

fn main() {
    let _ = analyze::analyze;
    let _ = emit::emit;
}
