//! `cargo hermetic`: writes deterministic, isolated unit tests for a Rust crate.
//!
//! Data flows one way: analyze → driver → search → emit (oracle) → verify → report (the full
//! order is `LAYERS` in `tests/layers.rs`). Only this file, the commands' progress lines,
//! `--dry-run`'s listing of the files and `report` write to the terminal.

mod analyze;
mod cargo;
mod cli;
mod cluster;
mod commit;
mod driver;
mod emit;
mod errors;
mod fnv;
mod generate;
mod html;
mod isolate;
mod kept;
mod lockfile;
mod manifest;
mod mock_syntax;
mod mutation;
mod record;
mod report;
mod runtime;
mod rust_syntax;
mod search;
mod selection;
mod shadow;
mod skip;
mod suite;
mod support;
mod test_binary;
mod test_case;
mod unchanged;
mod verify;
mod work_dir;

use clap::Parser;
use cli::{CargoCli, Command, HermeticArgs};

/// `generate` on the package (or, with `--workspace`, on each library package in turn), then
/// the summaries and the files the options ask for.
fn generate_and_report(args: &cli::GenerateArgs) -> anyhow::Result<()> {
    let runs: Vec<cli::GenerateArgs> = if args.workspace {
        cargo::library_packages(args.target.manifest_path.as_deref())?
            .into_iter()
            .map(|package| {
                let mut run = args.clone();
                run.target.package = Some(package);
                run.workspace = false;
                run
            })
            .collect()
    } else {
        vec![args.clone()]
    };
    let mut reports = Vec::new();
    let mut failed = Vec::new();
    for run in &runs {
        match generate::generate(run) {
            Ok(report) => {
                report.print_summary(&mut std::io::stderr())?;
                reports.push(report);
            }
            // In a workspace, one package that cannot be tested does not stop the others.
            Err(e) if args.workspace => {
                eprintln!(
                    "error: {}: {e:#}",
                    run.target.package.as_deref().unwrap_or_default()
                );
                failed.push(run.target.package.clone().unwrap_or_default());
            }
            Err(e) => return Err(e),
        }
    }
    if let Some(path) = &args.output.report_json {
        match &reports[..] {
            [one] if !args.workspace => one.write_json(path)?,
            all => report::write_json_list(all, path)?,
        }
    }
    if let Some(path) = &args.coverage_lcov {
        let text: String = reports.iter().map(report::Report::lcov).collect();
        std::fs::write(path, text)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    if let Some(path) = &args.coverage_html {
        for report in &reports {
            // One page per package in a workspace: `coverage-<package>.html`.
            let path = if args.workspace {
                let stem = path.file_stem().unwrap_or_default().to_string_lossy();
                path.with_file_name(format!("{stem}-{}.html", report.package))
            } else {
                path.clone()
            };
            std::fs::write(&path, html::page(report))
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
        }
    }
    if !failed.is_empty() {
        anyhow::bail!("no tests for {} (see above)", failed.join(", "));
    }
    Ok(())
}

fn main() {
    let CargoCli::Hermetic(HermeticArgs { command }) = CargoCli::parse();
    let result = match command {
        Command::Generate(args) => generate_and_report(&args),
        Command::Record(args) => record::record(&args).and_then(|report| {
            if let Some(path) = &args.output.report_json {
                report.write_json(path)?;
            }
            report.print_summary(&mut std::io::stderr())?;
            Ok(())
        }),
    };
    if let Err(e) = result {
        eprintln!("error: {e:#}");
        std::process::exit(errors::exit_code(&e));
    }
}
