//! The seam between the search and whatever runs its test cases: `DriverPool` runs them in
//! driver processes; the search's unit tests run them on a fake.

use anyhow::Result;
use hermetic_protocol::{Call, EnvSpec, ExecReport};

/// One execution to run: the calls of a test case and its environment.
#[derive(Debug, Clone, PartialEq)]
pub struct ExecRequest {
    pub calls: Vec<Call>,
    pub env: EnvSpec,
}

/// Runs test cases.
pub trait Execute {
    /// Runs every request; the i-th report answers the i-th request, whatever the number of
    /// processes behind it (which keeps searches deterministic).
    fn exec_batch(&mut self, requests: Vec<ExecRequest>) -> Result<Vec<ExecReport>>;
}
