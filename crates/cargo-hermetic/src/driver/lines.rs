//! Source lines of the driver's code: where each goal's block starts, read from the
//! executable's debug info (addr2line), so a report can say which branches no test took, and
//! the copies of a generic function can share their goals (`copies.rs`).
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
    /// 0 where the debug info gives none.
    pub column: u32,
}

/// A range of code (offsets from the executable's load address, as the driver reports its
/// counters' addresses) whose place in the source is wanted.
pub struct Code {
    pub range: std::ops::Range<u64>,
    /// The first instruction with a column, in the file of the first with a line: a
    /// function's prologue has its line but no column, its body's first code both (which
    /// tells apart two closures on one line).
    pub with_column: bool,
}

/// Where each range of code starts in the source: the first of its instructions that has a
/// line (a block often opens by reloading spilled values, code of no line); `None` where the
/// debug info says nothing.
pub fn source_lines(executable: &Path, code: &[Code]) -> Result<Vec<Option<SourceLine>>> {
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
    Ok(code
        .iter()
        .map(|code| {
            let range = &code.range;
            let rows = context
                .find_location_range(range.start, range.end.max(range.start + 1))
                .ok()?;
            let mut lines = rows.filter_map(|(_, _, location)| {
                Some(SourceLine {
                    file: PathBuf::from(location.file?),
                    line: location.line.filter(|&l| l > 0)?,
                    column: location.column.unwrap_or(0),
                })
            });
            let first = lines.next()?;
            if !code.with_column || first.column > 0 {
                return Some(first);
            }
            // In the function's own file: code inlined from elsewhere (`PartialOrd::gt` of
            // one type argument and not of another) is no part of where it starts.
            let columned = lines.find(|l| l.column > 0 && l.file == first.file);
            Some(columned.unwrap_or(first))
        })
        .collect())
}
