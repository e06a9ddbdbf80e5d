//! Environment genes (seed 001 §3.3): files, directories, variables, stdin, the clock and the
//! random seed join a test only for the parts of the environment the code touched, as the
//! driver's access log shows. They are changed like any other gene and minimised with the rest.

use super::values::ValuePool;
use hermetic_protocol::{AccessReport, EnvSpec, FileMode, FileSpec};
use rand::seq::SliceRandom;
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeSet;

/// What the code has touched so far, over all executions.
#[derive(Debug, Default, Clone)]
pub struct Touched {
    pub paths: BTreeSet<String>,
    pub vars: BTreeSet<String>,
    pub stdin: bool,
    pub clock: bool,
    pub random: bool,
    pub network: bool,
    pub process: bool,
    /// Files written and removed (for the report).
    pub written: BTreeSet<String>,
    /// Lines of the files the code wrote (the first `MAX_WRITTEN_LINES`): code often reads back
    /// what it writes, so they make good file contents, and changed a little, good bad ones.
    pub written_lines: BTreeSet<String>,
}

/// How many lines of written files `Touched` keeps.
const MAX_WRITTEN_LINES: usize = 64;

impl Touched {
    pub fn learn(&mut self, accesses: &[AccessReport]) {
        for a in accesses {
            match a {
                AccessReport::PathOpened { path, .. } | AccessReport::PathChecked { path, .. }
                    if usable_path(path) =>
                {
                    self.paths.insert(path.clone());
                }
                AccessReport::PathWritten { path } | AccessReport::PathRemoved { path } => {
                    self.written.insert(path.clone());
                }
                AccessReport::VarRead { name, .. } => {
                    self.vars.insert(name.clone());
                }
                AccessReport::StdinRead => self.stdin = true,
                AccessReport::ClockRead => self.clock = true,
                AccessReport::RandomRead => self.random = true,
                AccessReport::NetworkAttempt { .. } => self.network = true,
                AccessReport::ProcessAttempt { .. } => self.process = true,
                _ => {}
            }
        }
    }

    /// Learns the lines of the files an execution wrote.
    pub fn learn_written(&mut self, files: &[(String, Option<Vec<u8>>)]) {
        for (_, contents) in files {
            let Some(text) = contents
                .as_deref()
                .and_then(|c| std::str::from_utf8(c).ok())
            else {
                continue;
            };
            for line in text.lines().filter(|l| !l.trim().is_empty()) {
                if self.written_lines.len() >= MAX_WRITTEN_LINES {
                    return;
                }
                self.written_lines.insert(line.to_string());
            }
        }
    }

    /// Whether any part the search can vary was touched.
    pub fn any(&self) -> bool {
        !self.paths.is_empty() || !self.vars.is_empty() || self.stdin || self.clock || self.random
    }

    /// The parts touched, for the report.
    pub fn parts(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        if !self.paths.is_empty() || !self.written.is_empty() {
            out.push("files");
        }
        if !self.vars.is_empty() {
            out.push("variables");
        }
        for (on, name) in [
            (self.stdin, "stdin"),
            (self.clock, "clock"),
            (self.random, "randomness"),
            (self.network, "network"),
            (self.process, "processes"),
        ] {
            if on {
                out.push(name);
            }
        }
        out
    }
}

/// Paths worth creating: not the runtime's own devices, not the root.
fn usable_path(path: &str) -> bool {
    !matches!(path, "/" | "/dev" | "/tmp" | "/proc" | "/sys")
        && !path.starts_with("/dev/")
        && !path.starts_with("/proc/")
        && !path.starts_with("/sys/")
}

/// A date in the forms code usually prints (for code that compares text with the clock).
pub fn date_strings(secs: u64) -> Vec<String> {
    let (y, m, d) = civil_from_days((secs / 86_400) as i64);
    let yy = y.rem_euclid(100);
    vec![
        format!("{y:04}-{m:02}-{d:02}"),
        format!("{d:02}/{m:02}/{yy:02}"),
        format!("{d:02}/{m:02}/{y:04}"),
        format!("{m:02}/{d:02}/{yy:02}"),
        format!("{m:02}/{d:02}/{y:04}"),
        format!("{y:04}/{m:02}/{d:02}"),
        format!("{d}.{m}.{y}"),
        format!("{y:04}{m:02}{d:02}"),
    ]
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// The runtime's default clock (2024-01-01T00:00:00Z).
pub const DEFAULT_NOW: u64 = 1_704_067_200;

/// Which parts of the environment the search may vary (all by default; the benchmark switches
/// them off one by one).
#[derive(Debug, Clone, Copy)]
pub struct EnvParts {
    pub files: bool,
    pub stdin: bool,
    pub other: bool,
}

impl Default for EnvParts {
    fn default() -> Self {
        EnvParts {
            files: true,
            stdin: true,
            other: true,
        }
    }
}

/// A date the clock may be set to: the runtime's default and a few others, to reach branches on
/// the date without depending on the real one.
const DATES: &[u64] = &[
    1_704_067_200,
    0,
    951_782_400,
    1_709_164_800,
    2_000_000_000,
    4_102_444_800,
];

/// Changes one environment gene, chosen among the parts the code touched. `local` is what this
/// test's own last execution touched, preferred over what any execution touched.
pub fn mutate_env(
    rng: &mut ChaCha8Rng,
    pool: &ValuePool,
    touched: &Touched,
    local: &Touched,
    parts: EnvParts,
    env: &mut EnvSpec,
) {
    let source = if rng.gen_bool(0.75) && local.any() {
        local
    } else {
        touched
    };
    let words = Words {
        pool,
        dates: if source.clock || touched.clock {
            date_strings(env.now_secs.unwrap_or(DEFAULT_NOW))
        } else {
            Vec::new()
        },
        written: touched.written_lines.iter().cloned().collect(),
    };
    let mut choices: Vec<u8> = Vec::new();
    if parts.files && !source.paths.is_empty() {
        choices.extend([0, 0, 0, 1]);
    }
    if parts.files && (!env.files.is_empty() || !env.dirs.is_empty()) {
        choices.extend([2, 2, 3]);
    }
    if parts.other && !source.vars.is_empty() {
        choices.extend([4, 4]);
    }
    if parts.stdin && source.stdin {
        choices.extend([5, 5]);
    }
    if parts.other && source.clock {
        choices.push(6);
    }
    if parts.other && source.random {
        choices.push(7);
    }
    // Code often reads a path (from stdin or a variable) and then opens it: name a file on
    // stdin and create it in one step, or the two genes would have to meet by chance.
    if parts.stdin && parts.files && source.stdin && !touched.paths.is_empty() {
        choices.extend([8, 8]);
    }
    let Some(&choice) = choices.choose(rng) else {
        return;
    };
    match choice {
        // A file at a path the code tried.
        0 => {
            let path = pick(rng, &source.paths);
            env.files.retain(|f| f.path != path);
            env.dirs.retain(|d| *d != path);
            let mode = match rng.gen_range(0..10) {
                0 => FileMode::ReadOnly,
                1 => FileMode::Unreadable,
                _ => FileMode::Normal,
            };
            env.files.push(FileSpec {
                path,
                contents: random_text(rng, &words),
                mode,
            });
            env.files.sort();
        }
        // A directory there.
        1 => {
            let path = pick(rng, &source.paths);
            env.files.retain(|f| f.path != path);
            if !env.dirs.contains(&path) {
                env.dirs.push(path);
                env.dirs.sort();
            }
        }
        // Change a file's contents or mode.
        2 => {
            if let Some(f) = env.files.choose_mut(rng) {
                match rng.gen_range(0..4) {
                    0 => {
                        f.mode = *[FileMode::Normal, FileMode::ReadOnly, FileMode::Unreadable]
                            .choose(rng)
                            .expect("non-empty")
                    }
                    1 => f.contents = random_text(rng, &words),
                    _ => f.contents = mutate_text(rng, &words, &f.contents),
                }
            }
        }
        // Remove a file or directory.
        3 => {
            let n = env.files.len() + env.dirs.len();
            let i = rng.gen_range(0..n);
            if i < env.files.len() {
                env.files.remove(i);
            } else {
                env.dirs.remove(i - env.files.len());
            }
        }
        // Set, change or unset a variable the code read.
        4 => {
            let name = pick(rng, &source.vars);
            env.vars.retain(|(k, _)| *k != name);
            if rng.gen_bool(0.85) {
                let value = match rng.gen_range(0..3) {
                    // Paths the code tried make good values for variables that name directories.
                    0 if !touched.paths.is_empty() => {
                        let p = pick(rng, &touched.paths);
                        if rng.gen_bool(0.5) {
                            parent(&p)
                        } else {
                            p
                        }
                    }
                    _ => String::from_utf8_lossy(&random_text(rng, &words))
                        .trim_end()
                        .to_string(),
                };
                env.vars.push((name, value));
                env.vars.sort();
            }
        }
        // Standard input: lines of known strings.
        5 => {
            env.stdin = if rng.gen_bool(0.1) {
                None
            } else {
                let old = env.stdin.take().unwrap_or_default();
                Some(if rng.gen_bool(0.5) && !old.is_empty() {
                    mutate_text(rng, &words, &old)
                } else {
                    random_text(rng, &words)
                })
            };
        }
        // The clock.
        6 => {
            env.now_secs = match rng.gen_range(0..4) {
                0 => None,
                1 => pool
                    .random_int(rng)
                    .filter(|v| (0..=4_102_444_800).contains(v))
                    .map(|v| v as u64),
                _ => Some(*DATES.choose(rng).expect("non-empty")),
            };
        }
        // The random seed.
        7 => {
            env.seed = if rng.gen_bool(0.2) {
                None
            } else {
                Some(rng.gen_range(0..1000))
            }
        }
        // A file, and its name on stdin.
        _ => {
            let path = pick(rng, &touched.paths);
            let name = if rng.gen_bool(0.5) {
                path.trim_start_matches('/').to_string()
            } else {
                path.clone()
            };
            env.stdin = Some(format!("{name}\n").into_bytes());
            env.files.retain(|f| f.path != path);
            env.files.push(FileSpec {
                path,
                contents: random_text(rng, &words),
                mode: FileMode::Normal,
            });
            env.files.sort();
        }
    }
}

/// A path a file-system handle argument of a test names (`File`, `Metadata`, `ReadDir`, ..: the
/// test opens it before the call), and whether the handle lists a directory.
pub type Handle = (String, bool);

/// Backs one of a test's handle arguments with the environment: a file with contents at the
/// path it names, or, for a listing, a directory with a file or two in it. Without this the
/// argument's path and a file of the environment meet only by chance, and code that reads an
/// open file (`count_pairs(File::open(..))`) sees only what the runtime's default tree holds.
/// Nothing happens when the environment has the path already, or the path is the root or a
/// device.
pub fn back_handle(
    rng: &mut ChaCha8Rng,
    pool: &ValuePool,
    touched: &Touched,
    handles: &[Handle],
    env: &mut EnvSpec,
) {
    let Some((path, listing)) = handles.choose(rng) else {
        return;
    };
    let held = |env: &EnvSpec, p: &str| {
        env.files.iter().any(|f| f.path == p) || env.dirs.iter().any(|d| d == p)
    };
    if path.is_empty() || !usable_path(path) || held(env, path) {
        return;
    }
    let words = Words {
        pool,
        dates: if touched.clock {
            date_strings(env.now_secs.unwrap_or(DEFAULT_NOW))
        } else {
            Vec::new()
        },
        written: touched.written_lines.iter().cloned().collect(),
    };
    if *listing {
        env.dirs.push(path.clone());
        env.dirs.sort();
        // Entries named as the code's strings name things (`.toml`, `.env`).
        let names: Vec<&String> = pool
            .known_strings()
            .iter()
            .filter(|s| !s.is_empty() && s.len() <= 32 && !s.contains(['/', '\0', '\n']))
            .collect();
        for _ in 0..rng.gen_range(1..=2) {
            let name = match names.choose(rng) {
                Some(n) if rng.gen_bool(0.7) => n.to_string(),
                _ => "file.txt".to_string(),
            };
            let file = format!("{}/{name}", path.trim_end_matches('/'));
            if !held(env, &file) {
                env.files.push(FileSpec {
                    path: file,
                    contents: random_text(rng, &words),
                    mode: FileMode::Normal,
                });
            }
        }
    } else {
        env.files.push(FileSpec {
            path: path.clone(),
            contents: random_text(rng, &words),
            mode: FileMode::Normal,
        });
    }
    env.files.sort();
}

/// One member of a non-empty set, at random.
fn pick(rng: &mut ChaCha8Rng, set: &BTreeSet<String>) -> String {
    let i = rng.gen_range(0..set.len());
    set.iter().nth(i).expect("index in range").clone()
}

fn parent(path: &str) -> String {
    match path.rfind('/') {
        Some(0) | None => "/".to_string(),
        Some(i) => path[..i].to_string(),
    }
}

/// Where lines of text come from: the value pool, (for code that read the clock) today's date
/// in the usual formats, and lines of the files the code wrote.
struct Words<'a> {
    pool: &'a ValuePool,
    dates: Vec<String>,
    written: Vec<String>,
}

/// How configuration files usually join a key and its value.
const KEY_VALUE_SEPARATORS: &[&str] = &[" = ", "=", ": "];

impl Words<'_> {
    fn line(&self, rng: &mut ChaCha8Rng) -> String {
        match self.dates.choose(rng) {
            Some(d) if rng.gen_bool(0.3) => d.clone(),
            _ if !self.written.is_empty() && rng.gen_bool(0.2) => {
                self.written.choose(rng).expect("non-empty").clone()
            }
            // Files are often `key = value` lines, keys and values among the known strings.
            _ if rng.gen_bool(0.2) => key_value_line(
                &self.pool.random_string(rng),
                KEY_VALUE_SEPARATORS.choose(rng).expect("non-empty"),
                &self.pool.random_string(rng),
            ),
            _ => self.pool.random_string(rng),
        }
    }
}

/// `key`, `separator`, `value` on one line (line breaks inside them become spaces).
fn key_value_line(key: &str, separator: &str, value: &str) -> String {
    let flat = |s: &str| s.replace(['\n', '\r'], " ");
    format!("{}{separator}{}", flat(key), flat(value))
}

/// File contents: a known string, a few lines of them, or something new.
fn random_text(rng: &mut ChaCha8Rng, words: &Words) -> Vec<u8> {
    match rng.gen_range(0..5) {
        0 => Vec::new(),
        // Bytes that are not UTF-8: text readers fail on them.
        4 => {
            let mut bytes = words.line(rng).into_bytes();
            bytes.extend_from_slice(b"\xff\xfe\n");
            bytes
        }
        1 => words.line(rng).into_bytes(),
        _ => random_lines(rng, words),
    }
}

fn random_lines(rng: &mut ChaCha8Rng, words: &Words) -> Vec<u8> {
    let n = *[1, 1, 1, 2, 3].choose(rng).expect("non-empty");
    let mut out = String::new();
    for _ in 0..n {
        out += &words.line(rng);
        out.push('\n');
    }
    out.into_bytes()
}

fn mutate_text(rng: &mut ChaCha8Rng, words: &Words, text: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(text);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    match rng.gen_range(0..4) {
        0 if !lines.is_empty() => {
            let i = rng.gen_range(0..lines.len());
            lines.remove(i);
        }
        1 => {
            let i = rng.gen_range(0..=lines.len());
            lines.insert(i, words.line(rng));
        }
        _ if !lines.is_empty() => {
            let i = rng.gen_range(0..lines.len());
            lines[i] = words.pool.mutate_string(rng, &lines[i]);
        }
        _ => lines.push(words.line(rng)),
    }
    let mut out = lines.join("\n");
    out.push('\n');
    out.into_bytes()
}

/// The genes of an environment, for shrinking: each can be removed on its own.
pub fn gene_count(env: &EnvSpec) -> usize {
    env.files.len()
        + env.dirs.len()
        + env.vars.len()
        + env.stdin.is_some() as usize
        + env.now_secs.is_some() as usize
        + env.seed.is_some() as usize
        + !env.random_bytes.is_empty() as usize
        + env.hash_keys.is_some() as usize
}

/// The environment without its `i`-th gene (in the order of `gene_count`).
pub fn without_gene(env: &EnvSpec, mut i: usize) -> EnvSpec {
    let mut e = env.clone();
    if i < e.files.len() {
        e.files.remove(i);
        return e;
    }
    i -= e.files.len();
    if i < e.dirs.len() {
        e.dirs.remove(i);
        return e;
    }
    i -= e.dirs.len();
    if i < e.vars.len() {
        e.vars.remove(i);
        return e;
    }
    i -= e.vars.len();
    let set = [
        e.stdin.is_some(),
        e.now_secs.is_some(),
        e.seed.is_some(),
        !e.random_bytes.is_empty(),
        e.hash_keys.is_some(),
    ];
    let which = set
        .iter()
        .enumerate()
        .filter(|(_, s)| **s)
        .nth(i)
        .map(|(k, _)| k);
    match which {
        Some(0) => e.stdin = None,
        Some(1) => e.now_secs = None,
        Some(2) => e.seed = None,
        Some(3) => e.random_bytes.clear(),
        Some(4) => e.hash_keys = None,
        _ => {}
    }
    e
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;

    #[test]
    fn genes_come_only_from_touched_parts() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let pool = ValuePool::default();
        let nothing = Touched::default();
        let mut env = EnvSpec::default();
        for _ in 0..100 {
            mutate_env(
                &mut rng,
                &pool,
                &nothing,
                &nothing,
                EnvParts::default(),
                &mut env,
            );
        }
        assert!(env.is_empty());
        let mut touched = Touched::default();
        touched.learn(&[
            AccessReport::PathOpened {
                path: "/etc/app.conf".into(),
                found: false,
            },
            AccessReport::VarRead {
                name: "HOME".into(),
                set: false,
            },
        ]);
        for _ in 0..200 {
            mutate_env(
                &mut rng,
                &pool,
                &touched,
                &touched,
                EnvParts::default(),
                &mut env,
            );
        }
        assert!(env.stdin.is_none() && env.now_secs.is_none() && env.seed.is_none());
        assert!(env.files.iter().all(|f| f.path == "/etc/app.conf"));
        assert!(env.vars.iter().all(|(k, _)| k == "HOME"));
    }

    #[test]
    fn lines_of_written_files_are_learnt_up_to_a_limit() {
        let mut touched = Touched::default();
        touched.learn_written(&[
            ("/a".into(), Some(b"port = 80\n\nname = x\n".to_vec())),
            ("/gone".into(), None),
            ("/bin".into(), Some(vec![0xff, 0xfe])),
        ]);
        assert_eq!(
            touched.written_lines.iter().collect::<Vec<_>>(),
            ["name = x", "port = 80"]
        );
        let many: Vec<u8> = (0..100)
            .flat_map(|i| format!("{i}\n").into_bytes())
            .collect();
        touched.learn_written(&[("/b".into(), Some(many))]);
        assert_eq!(touched.written_lines.len(), MAX_WRITTEN_LINES);
    }

    #[test]
    fn key_value_lines_stay_on_one_line() {
        assert_eq!(key_value_line("port", " = ", "80"), "port = 80");
        assert_eq!(key_value_line("a\nb", ": ", "c\r"), "a b: c ");
    }

    #[test]
    fn dates_follow_the_clock() {
        assert_eq!(date_strings(DEFAULT_NOW)[0], "2024-01-01");
        assert_eq!(date_strings(DEFAULT_NOW)[1], "01/01/24");
        assert_eq!(date_strings(951_782_400)[0], "2000-02-29");
    }

    #[test]
    fn each_gene_can_be_removed() {
        let env = EnvSpec {
            files: vec![FileSpec {
                path: "/a".into(),
                contents: vec![],
                mode: FileMode::Normal,
            }],
            dirs: vec!["/d".into()],
            vars: vec![("X".into(), "1".into())],
            stdin: Some(b"x\n".to_vec()),
            now_secs: None,
            seed: Some(3),
            ..EnvSpec::default()
        };
        assert_eq!(gene_count(&env), 5);
        for i in 0..5 {
            assert_eq!(gene_count(&without_gene(&env, i)), 4, "gene {i}");
        }
        assert!(without_gene(&env, 4).seed.is_none());
    }
}
