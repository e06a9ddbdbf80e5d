//! `cargo hermetic`: writes deterministic, isolated unit tests for a Rust crate.
//!
//! Data flows one way: analyze → driver → search → oracle → emit → verify → report. Only this
//! file, `generate`'s progress lines and `report` write to the terminal.

mod analyze;
mod cargo;
mod cli;
mod cluster;
mod driver;
mod emit;
mod generate;
mod isolate;
mod manifest;
mod mock_syntax;
mod mutation;
mod record;
mod report;
mod rust_syntax;
mod search;
mod shadow;
mod test_case;
mod verify;

use clap::Parser;
use cli::{CargoCli, Command, HermeticArgs};

fn main() {
    let CargoCli::Hermetic(HermeticArgs { command }) = CargoCli::parse();
    let result = match command {
        Command::Generate(args) => generate::generate(&args).and_then(|report| {
            if let Some(path) = &args.report_json {
                report.write_json(path)?;
            }
            report.print_summary(&mut std::io::stderr())?;
            Ok(())
        }),
        Command::Record(args) => record::record(&args).and_then(|report| {
            if let Some(path) = &args.report_json {
                report.write_json(path)?;
            }
            report.print_summary(&mut std::io::stderr())?;
            Ok(())
        }),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(1);
    }
}
