//! Running a test case inside a `hermetic::Env`, and reading back what it touched.

use crate::protocol::{AccessReport, EnvReport, EnvSpec, FileMode};
use hermetic::{Access, Env, EnvGuard};
use std::time::{Duration, UNIX_EPOCH};

/// Enters the environment on this thread; drop the guard to leave.
pub fn enter(spec: &EnvSpec) -> EnvGuard {
    // No other thread of the driver writes to stdout, and a thread pool the code started in
    // an earlier execution may print while the case waits for it.
    let mut env = Env::new().share_stdout();
    for d in &spec.dirs {
        env = env.dir(d);
    }
    for f in &spec.files {
        env = match f.mode {
            FileMode::Normal => env.file(&f.path, &f.contents),
            FileMode::ReadOnly => env.read_only_file(&f.path, &f.contents),
            FileMode::Unreadable => env.file_error(&f.path, std::io::ErrorKind::PermissionDenied),
        };
    }
    for (k, v) in &spec.vars {
        env = env.var(k, v);
    }
    if let Some(stdin) = &spec.stdin {
        env = env.stdin(stdin);
    }
    if let Some(secs) = spec.now_secs {
        env = env.now(UNIX_EPOCH + Duration::from_secs(secs));
    }
    if let Some(seed) = spec.seed {
        env = env.seed(seed);
    }
    if !spec.random_bytes.is_empty() {
        env = env.random_bytes(&spec.random_bytes);
    }
    if let Some((k0, k1)) = spec.hash_keys {
        env = env.hash_keys(k0, k1);
    }
    env.enter()
}

/// What the code did to the environment.
pub fn report(guard: &EnvGuard) -> EnvReport {
    let accesses: Vec<AccessReport> = guard.accesses().into_iter().map(convert).collect();
    let mut files = Vec::new();
    let mut dirs: Vec<String> = Vec::new();
    for a in &accesses {
        if let AccessReport::PathWritten { path } | AccessReport::PathRemoved { path } = a {
            if files.iter().any(|(p, _)| p == path) || dirs.contains(path) {
                continue;
            }
            // A directory has no contents: reported apart, not as a file that is gone.
            if guard.is_dir(path) {
                dirs.push(path.clone());
            } else {
                files.push((path.clone(), guard.file_contents(path)));
            }
        }
    }
    EnvReport {
        accesses,
        files,
        dirs,
        stdout: guard.stdout(),
        stderr: guard.stderr(),
    }
}

fn convert(a: Access) -> AccessReport {
    let s = |p: std::path::PathBuf| p.to_string_lossy().into_owned();
    match a {
        Access::PathOpened { path, found } => AccessReport::PathOpened {
            path: s(path),
            found,
        },
        Access::PathChecked { path, found } => AccessReport::PathChecked {
            path: s(path),
            found,
        },
        Access::PathWritten { path } => AccessReport::PathWritten { path: s(path) },
        Access::PathRemoved { path } => AccessReport::PathRemoved { path: s(path) },
        Access::VarRead { name, set } => AccessReport::VarRead { name, set },
        Access::VarWritten { name } => AccessReport::VarWritten { name },
        Access::StdinRead => AccessReport::StdinRead,
        Access::StdoutWritten => AccessReport::StdoutWritten,
        Access::StderrWritten => AccessReport::StderrWritten,
        Access::ClockRead => AccessReport::ClockRead,
        Access::RandomRead => AccessReport::RandomRead,
        Access::NetworkAttempt { what, target } => AccessReport::NetworkAttempt {
            what: what.into(),
            target,
        },
        Access::ProcessAttempt { what, program } => AccessReport::ProcessAttempt {
            what: what.into(),
            program,
        },
        Access::HostQueried { what } => AccessReport::HostQueried { what: what.into() },
        Access::Served { what } => AccessReport::Served { what: what.into() },
    }
}
