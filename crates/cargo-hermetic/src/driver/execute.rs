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

    /// As [`Execute::exec_batch`], handing the reports to `each` in the requests' order; an
    /// executor that can hands each over as it comes, so the caller works on it while the
    /// later requests run.
    fn exec_each(
        &mut self,
        requests: Vec<ExecRequest>,
        each: &mut dyn FnMut(ExecReport),
    ) -> Result<()> {
        self.exec_batch(requests)?.into_iter().for_each(each);
        Ok(())
    }
}
