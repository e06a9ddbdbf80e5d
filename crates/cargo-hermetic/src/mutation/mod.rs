//! Mutation analysis: mutants of the selected code compiled into the driver as schemata
//! (`schemata.rs`), each final test run against the mutants it reaches, and the assertions
//! chosen by the mutants they kill (`analysis.rs`), with the mutation score for the report;
//! tests sought for the mutants reached but not killed (`hunt.rs`).

pub mod analysis;
pub mod hunt;
pub mod schemata;

use serde::Serialize;
use std::path::PathBuf;

/// One mutant of the selected code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mutant {
    /// What the engine sends to switch it on (never 0).
    pub id: u32,
    /// The first id of its site (the driver reports sites reached by it).
    #[serde(skip)]
    pub site: u32,
    /// The file, relative to the crate root.
    pub file: PathBuf,
    pub line: usize,
    pub column: usize,
    /// The function it is in: `parser::Lexer::next_token`.
    pub function: String,
    /// What it changes: `replace < with <=`.
    pub change: String,
}
