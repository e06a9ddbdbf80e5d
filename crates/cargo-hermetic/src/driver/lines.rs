//! Source lines of the driver's code: where each goal's block starts, read from the
//! executable's debug info (addr2line), so a report can say which branches no test took.
//!
//! Used for the uncovered lines in the summary and JSON, `--coverage-lcov` (`report.rs`) and
//! `--coverage-html` (`html.rs`: one self-contained page).

use anyhow::{Context, Result};
use object::{Object, ObjectSection};
use std::borrow::Cow;
use std::path::{Path, PathBuf};

/// A place in the source.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct SourceLine {
    /// As the debug info names it: absolute, in the copy the driver was built from.
    pub file: PathBuf,
    pub line: u32,
}

/// The source line of each address (offsets from the executable's load address, as the
/// driver reports its counters' addresses); `None` where the debug info says nothing.
pub fn source_lines(executable: &Path, pcs: &[u64]) -> Result<Vec<Option<SourceLine>>> {
    let data =
        std::fs::read(executable).with_context(|| format!("read {}", executable.display()))?;
    let file =
        object::File::parse(&*data).with_context(|| format!("parse {}", executable.display()))?;
    let load = |id: gimli::SectionId| -> Result<Cow<[u8]>, gimli::Error> {
        Ok(file
            .section_by_name(id.name())
            .and_then(|s| s.uncompressed_data().ok())
            .unwrap_or(Cow::Borrowed(&[])))
    };
    let sections = gimli::DwarfSections::load(load)?;
    let dwarf = sections.borrow(|s| gimli::EndianSlice::new(s, gimli::RunTimeEndian::Little));
    let context = addr2line::Context::from_dwarf(dwarf).context("read the driver's debug info")?;
    Ok(pcs
        .iter()
        .map(|&pc| {
            let location = context.find_location(pc).ok().flatten()?;
            Some(SourceLine {
                file: PathBuf::from(location.file?),
                line: location.line?,
            })
        })
        .collect())
}
