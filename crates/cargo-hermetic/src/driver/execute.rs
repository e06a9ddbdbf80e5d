//! The seam between the search and whatever runs its test cases: `DriverPool` runs them in
//! driver processes; the search's unit tests run them on a fake.

pub use crate::test_case::ExecRequest;
use anyhow::Result;
use hermetic_protocol::ExecReport;

/// Runs test cases.
pub trait Execute {
    /// Runs every request; the i-th report answers the i-th request, whatever the number of
    /// processes behind it (which keeps searches deterministic).
    fn exec_batch(&mut self, requests: Vec<ExecRequest>) -> Result<Vec<ExecReport>>;
}
