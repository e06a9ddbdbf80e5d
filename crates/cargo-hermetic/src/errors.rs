//! The failures a user can meet, one variant each: what went wrong, what to do about it, and the
//! exit code that tells it apart in scripts (the README lists them). Any other error (an I/O
//! failure, cargo itself failing, a bug in hermetic) exits with 1, and a command line clap
//! rejects with 2.
//!
//! Stages return `anyhow::Result` and raise these where the failure is found; `main` finds the
//! first one in the error's chain (context added on the way keeps it) for the exit code.

/// A failure the user can do something about.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// `--manifest-path` names no file, the directory is not in a cargo project, or `-p` names
    /// no package of the workspace.
    #[error("{what}")]
    NoPackage { what: String },
    /// A workspace with several packages, and no `-p` to choose one.
    #[error("this is a workspace with several packages; choose one with -p ({})", .packages.join(", "))]
    SeveralPackages { packages: Vec<String> },
    /// The package has no `src/lib.rs` (or `[lib]`): there is no library to test.
    #[error("package `{package}` has no library target; hermetic tests library code (src/lib.rs)")]
    NoLibrary { package: String },
    /// `--module`, `--function` or `--features` names nothing in the crate.
    #[error("{what}")]
    NotInCrate { what: String },
    /// The crate does not parse or does not compile as it is: the compiler's errors, which the
    /// user fixes first.
    #[error("{what}")]
    CrateDoesNotCompile { what: String },
    /// `record`: no function of the selection can be recorded. (`generate` with nothing to
    /// search is not a failure: its report says why it wrote no tests.)
    #[error("{what}")]
    NothingToTest { what: String },
    /// A hand-written file sits where generated tests go; hermetic never replaces one.
    #[error(
        "generated tests go into files that are already taken, so nothing was done:\n{}\n\
         rename or delete those files (cargo-hermetic only replaces files it generated), then run again",
        .files.join("\n")
    )]
    FileInTheWay { files: Vec<String> },
    /// The driver process (the instrumented build running the search's executions) ended or
    /// stopped answering.
    #[error(
        "the driver stopped unexpectedly ({status}); run again with --jobs 1, and if it stops \
         again, report it with the crate"
    )]
    DriverStopped { status: String },
    /// `record`: the package has no binary to run, or several and no `--bin`, or not the one
    /// named.
    #[error("{what}")]
    NoProgram { what: String },
    /// Another run works on the same workspace (its shadow copy and driver builds).
    #[error(
        "another cargo hermetic run is working on this workspace ({work_dir}); wait for it to \
         finish, then run again"
    )]
    Busy { work_dir: String },
}

impl Failure {
    /// The process's exit code for this failure (each its own; the README lists them).
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::NoPackage { .. } => 3,
            Failure::SeveralPackages { .. } => 4,
            Failure::NoLibrary { .. } => 5,
            Failure::NotInCrate { .. } => 6,
            Failure::CrateDoesNotCompile { .. } => 7,
            Failure::NothingToTest { .. } => 8,
            Failure::FileInTheWay { .. } => 9,
            Failure::DriverStopped { .. } => 10,
            Failure::NoProgram { .. } => 11,
            Failure::Busy { .. } => 12,
        }
    }
}

/// The exit code of any other error.
pub const OTHER: i32 = 1;

/// The exit code for an error: that of the first [`Failure`] in its chain, or [`OTHER`].
pub fn exit_code(error: &anyhow::Error) -> i32 {
    error
        .chain()
        .find_map(|e| e.downcast_ref::<Failure>())
        .map_or(OTHER, Failure::exit_code)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every() -> Vec<Failure> {
        let what = || "x".to_string();
        vec![
            Failure::NoPackage { what: what() },
            Failure::SeveralPackages { packages: vec![] },
            Failure::NoLibrary { package: what() },
            Failure::NotInCrate { what: what() },
            Failure::CrateDoesNotCompile { what: what() },
            Failure::NothingToTest { what: what() },
            Failure::FileInTheWay { files: vec![] },
            Failure::DriverStopped { status: what() },
            Failure::NoProgram { what: what() },
            Failure::Busy { work_dir: what() },
        ]
    }

    #[test]
    fn each_failure_has_its_own_exit_code() {
        let mut codes: Vec<i32> = every().iter().map(Failure::exit_code).collect();
        let n = codes.len();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), n, "two failures share an exit code");
        assert!(codes.iter().all(|&c| c > 2 && c < 64), "{codes:?}");
    }

    #[test]
    fn the_exit_code_is_found_under_added_context() {
        let e = anyhow::Error::from(Failure::NoLibrary {
            package: "demo".into(),
        })
        .context("locate the package");
        assert_eq!(exit_code(&e), 5);
        assert_eq!(exit_code(&anyhow::anyhow!("disk full")), OTHER);
    }

    #[test]
    fn the_readme_lists_every_exit_code() {
        let readme = include_str!("../../../README.md");
        for f in every() {
            let row = format!("| {} |", f.exit_code());
            assert!(
                readme.contains(&row),
                "README.md has no row `{row}` for {f:?}"
            );
        }
    }
}
