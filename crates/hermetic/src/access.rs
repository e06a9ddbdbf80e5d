//! The log of what code under an active environment touched.

use std::path::PathBuf;

/// One thing the code under test touched while an environment was active.
///
/// [`EnvGuard::accesses`](crate::EnvGuard::accesses) lists each distinct access once, in the
/// order it first happened. Paths are absolute and lexically normalised against the virtual
/// working directory, exactly as the code asked for them (before symlinks are followed).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Access {
    /// A path was opened for reading (a file, or a directory listing); `found` tells whether
    /// it existed.
    PathOpened { path: PathBuf, found: bool },
    /// A path was inspected without being opened: metadata, `exists`, `canonicalize`, ...
    PathChecked { path: PathBuf, found: bool },
    /// A path was created, written, truncated, had its permissions changed, or was the
    /// destination of a rename or copy.
    PathWritten { path: PathBuf },
    /// A path was removed, or was the source of a rename.
    PathRemoved { path: PathBuf },
    /// An environment variable was read; `set` tells whether it had a value.
    VarRead { name: String, set: bool },
    /// An environment variable was set or removed.
    VarWritten { name: String },
    /// Standard input was read.
    StdinRead,
    /// Standard output (fd 1) was written.
    StdoutWritten,
    /// Standard error (fd 2) was written.
    StderrWritten,
    /// A clock was read (wall clock or monotonic).
    ClockRead,
    /// Random bytes were requested (getrandom, getentropy, `/dev/urandom`).
    RandomRead,
    /// The code tried to use the network: `what` is the operation (`connect`, `bind`,
    /// `resolve`, `socket`), `target` the address or host name when known.
    NetworkAttempt { what: &'static str, target: String },
    /// The code tried to start a process (`spawn`, `fork`, `exec`, `system`, `popen`);
    /// `program` is the program when known.
    ProcessAttempt { what: &'static str, program: String },
    /// A host fact was read: `"pid"`, `"hostname"`, `"cpus"`, `"uid"`, `"user"`.
    HostQueried { what: &'static str },
    /// The environment served a call that outside one would act on the real process or take
    /// real time: `"sleep"`, `"thread"` (a thread started), `"chdir"`, `"umask"`. Nothing to
    /// set up, but a test of such code needs an environment too.
    Served { what: &'static str },
}
