//! The API on targets without glibc interposition: it builds, and `enter` panics clearly.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::Access;

/// See the Linux documentation; on this target [`Env::enter`] panics.
#[derive(Clone, Debug, Default)]
pub struct Env {
    _private: (),
}

#[allow(unused_variables)]
impl Env {
    pub fn new() -> Env {
        Env { _private: () }
    }
    pub fn file(self, path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> Env {
        self
    }
    pub fn read_only_file(self, path: impl AsRef<Path>, contents: impl AsRef<[u8]>) -> Env {
        self
    }
    pub fn file_with_mode(
        self,
        path: impl AsRef<Path>,
        contents: impl AsRef<[u8]>,
        mode: u32,
    ) -> Env {
        self
    }
    pub fn file_error(self, path: impl AsRef<Path>, kind: io::ErrorKind) -> Env {
        self
    }
    pub fn dir(self, path: impl AsRef<Path>) -> Env {
        self
    }
    pub fn dir_with_mode(self, path: impl AsRef<Path>, mode: u32) -> Env {
        self
    }
    pub fn symlink(self, path: impl AsRef<Path>, target: impl AsRef<Path>) -> Env {
        self
    }
    pub fn var(self, name: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Env {
        self
    }
    pub fn inherit_vars(self) -> Env {
        self
    }
    pub fn stdin(self, bytes: impl AsRef<[u8]>) -> Env {
        self
    }
    pub fn now(self, t: SystemTime) -> Env {
        self
    }
    pub fn clock_step(self, step: Duration) -> Env {
        self
    }
    pub fn seed(self, seed: u64) -> Env {
        self
    }
    pub fn random_bytes(self, bytes: impl AsRef<[u8]>) -> Env {
        self
    }
    pub fn hash_keys(self, k0: u64, k1: u64) -> Env {
        self
    }
    pub fn cwd(self, dir: impl AsRef<Path>) -> Env {
        self
    }
    pub fn hostname(self, name: impl Into<String>) -> Env {
        self
    }
    pub fn pid(self, pid: u32) -> Env {
        self
    }
    pub fn cpus(self, n: usize) -> Env {
        self
    }
    pub fn enter(self) -> EnvGuard {
        panic!("hermetic: the virtual environment needs Linux with glibc (this target is not supported)")
    }
}

/// Never constructed on this target.
pub struct EnvGuard {
    never: std::convert::Infallible,
}

#[allow(unused_variables)]
impl EnvGuard {
    pub fn file_contents(&self, path: impl AsRef<Path>) -> Option<Vec<u8>> {
        match self.never {}
    }
    pub fn exists(&self, path: impl AsRef<Path>) -> bool {
        match self.never {}
    }
    pub fn is_dir(&self, path: impl AsRef<Path>) -> bool {
        match self.never {}
    }
    pub fn files(&self) -> Vec<PathBuf> {
        match self.never {}
    }
    pub fn stdout(&self) -> Vec<u8> {
        match self.never {}
    }
    pub fn stderr(&self) -> Vec<u8> {
        match self.never {}
    }
    pub fn var(&self, name: impl AsRef<OsStr>) -> Option<OsString> {
        match self.never {}
    }
    pub fn current_dir(&self) -> PathBuf {
        match self.never {}
    }
    pub fn now(&self) -> SystemTime {
        match self.never {}
    }
    pub fn stdin_remaining(&self) -> Vec<u8> {
        match self.never {}
    }
    pub fn accesses(&self) -> Vec<Access> {
        match self.never {}
    }
}

/// Always `false` on this target.
pub fn interposition_works() -> bool {
    false
}
