//! Which command's tests a file holds. `generate` and `record` write files of their own in each
//! module, each declared by its own `#[cfg(test)] mod ..;` line, so a crate keeps both and a
//! run of one never replaces the other's tests. The suite also says how mocks are set up.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suite {
    /// `cargo hermetic generate`: tests the search found; mocks are `MockLedger::default()`,
    /// their last value repeats.
    Generated,
    /// `cargo hermetic record`: tests from a real run; mocks are `MockLedger::recorded()`, each
    /// value once, all of them.
    Recorded,
}

impl Suite {
    pub const ALL: [Suite; 2] = [Suite::Generated, Suite::Recorded];

    /// The test module in each module of the crate, and its file's stem.
    pub fn module(self) -> &'static str {
        match self {
            Suite::Generated => "hermetic_tests",
            Suite::Recorded => "hermetic_recorded",
        }
    }

    /// The file name in each module's directory.
    pub fn file_name(self) -> String {
        format!("{}.rs", self.module())
    }
}
