//! The writable statics a reused driver child watches (the driver's `server` and `carryover`):
//! the data objects of the crate under test and of every crate it links, found in the
//! executable's symbol table, except the driver's own support crates and std's bookkeeping,
//! which change in every execution without being state the code under test can see.
//!
//! A child runs the search's executions one after another as long as these bytes are as they
//! were when it was forked; the first execution that changes one is its last. The same crates'
//! thread-locals are watched too: a case thread runs executions one after another as long as
//! they are as a fresh thread has them (`WATCHED_THREAD_LOCALS_ENV`).

use anyhow::{bail, Context, Result};
use object::{Object, ObjectSection, ObjectSymbol, SectionFlags, SymbolKind};
use std::path::Path;

/// Crates whose statics are not watched: the driver's support crates (the runtime enters a
/// fresh environment for every execution; coverage and mutant switches are reset by the
/// driver) and std's bookkeeping (thread ids, the panic count, lazily detected CPU features).
const SUPPORT: &[&str] = &[
    "std",
    "core",
    "alloc",
    "test",
    "std_detect",
    "panic_unwind",
    "hermetic",
    "hermetic_driver",
    "hermetic_protocol",
    "hermetic_sandbox",
];

/// Parts of std that hold what one execution can leave for the next: the buffers of standard
/// input and output (a line read in part, a line written without its end) and the allocation
/// error hook. Watched although std's other statics are not.
const STD_STATE: &[&str] = &["std::io::stdio::", "std::alloc::"];

/// std's thread-locals the code can tell apart from a fresh thread's: the keys the next
/// `HashMap` hashes with (each new map moves them on; `<std::hash::random::RandomState>::new::KEYS`).
const STD_THREAD_STATE: &[&str] = &["std::hash::random::"];

/// Sections of the counters and tables SanitizerCoverage adds: the driver zeroes the counters
/// before each execution.
const SANCOV_PREFIX: &str = "__sancov";

/// Runs of watched bytes closer than this are watched as one range (the padding between
/// objects never changes), unless an unwatched object lies between them.
const MERGE_GAP: u64 = 64;

/// The most text the list may take: it travels in an environment variable.
const MAX_LEN: usize = 64 << 10;

/// The watched ranges of an executable, as the driver reads them: `start+len` in hexadecimal,
/// separated by commas.
#[derive(Clone, Debug, Default)]
pub struct Watched {
    /// Writable statics, from the load address (`WATCHED_STATICS_ENV`).
    pub statics: String,
    /// Thread-locals, from the start of a thread's block of the executable's
    /// (`WATCHED_THREAD_LOCALS_ENV`).
    pub thread_locals: String,
}

/// The watch lists of `executable`.
pub fn watch_list(executable: &Path) -> Result<Watched> {
    let data =
        std::fs::read(executable).with_context(|| format!("read {}", executable.display()))?;
    let file =
        object::File::parse(&*data).with_context(|| format!("parse {}", executable.display()))?;
    let encoded = |kind: Kind| {
        let ranges = watched(&file, kind);
        let text = encode(&ranges);
        if text.len() > MAX_LEN {
            bail!(
                "{} ranges of {}: too many to pass to the driver",
                ranges.len(),
                kind.what()
            );
        }
        Ok(text)
    };
    Ok(Watched {
        statics: encoded(Kind::Static)?,
        thread_locals: encoded(Kind::ThreadLocal)?,
    })
}

/// What a watch list holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    /// Writable statics (their addresses: from the load address).
    Static,
    /// Thread-locals (their addresses: from the start of the executable's TLS block).
    ThreadLocal,
}

impl Kind {
    fn what(self) -> &'static str {
        match self {
            Kind::Static => "writable statics",
            Kind::ThreadLocal => "thread-locals",
        }
    }

    fn holds(self, file: &object::File, sym: &object::Symbol) -> bool {
        let Some(section) = sym
            .section_index()
            .and_then(|i| file.section_by_index(i).ok())
        else {
            return false;
        };
        match self {
            Kind::Static => {
                sym.kind() == SymbolKind::Data
                    && writable(&section)
                    && !section.name().is_ok_and(|n| n.starts_with(SANCOV_PREFIX))
            }
            Kind::ThreadLocal => sym.kind() == SymbolKind::Tls,
        }
    }

    fn is_watched(self, name: &str) -> bool {
        is_watched(name)
            || (self == Kind::ThreadLocal
                && STD_THREAD_STATE
                    .iter()
                    .any(|p| name.trim_start_matches('<').starts_with(p)))
    }
}

/// The merged ranges of the watched objects of a kind, sorted.
fn watched(file: &object::File, kind: Kind) -> Vec<(u64, u64)> {
    // Every object of the kind, watched or not, in address order.
    let mut objects: Vec<(u64, u64, bool)> = Vec::new();
    for sym in file.symbols() {
        if sym.size() == 0 || !kind.holds(file, &sym) {
            continue;
        }
        let name = sym.name().unwrap_or("");
        let watch = kind.is_watched(&format!("{:#}", rustc_demangle::demangle(name)));
        objects.push((sym.address(), sym.address() + sym.size(), watch));
    }
    objects.sort_unstable();
    let mut ranges: Vec<(u64, u64)> = Vec::new();
    let mut joinable = false;
    for (start, end, watch) in objects {
        if !watch {
            joinable = false;
            continue;
        }
        match ranges.last_mut() {
            Some(last) if joinable && start <= last.1 + MERGE_GAP => last.1 = last.1.max(end),
            _ => ranges.push((start, end)),
        }
        joinable = true;
    }
    ranges
}

/// Sections the loader makes read-only once it has relocated them (RELRO): nothing can write
/// there at run time.
const READ_ONLY_AFTER_RELOCATION: &[&str] = &[
    ".data.rel.ro",
    ".got",
    ".init_array",
    ".fini_array",
    ".dynamic",
];

/// Writable at run time, and not thread-local (watched apart: `Kind::ThreadLocal`).
fn writable(section: &object::Section) -> bool {
    let name = section.name().unwrap_or("");
    if READ_ONLY_AFTER_RELOCATION
        .iter()
        .any(|s| name == *s || name.starts_with(&format!("{s}.")))
    {
        return false;
    }
    match section.flags() {
        SectionFlags::Elf { sh_flags } => {
            sh_flags & u64::from(object::elf::SHF_WRITE) != 0
                && sh_flags & u64::from(object::elf::SHF_TLS) == 0
        }
        _ => false,
    }
}

/// Whether a static of this (demangled) name is watched: those of every crate but the support
/// crates, and std's few that hold an execution's leftovers. Names that are not Rust's (C code
/// a crate links) are watched.
fn is_watched(name: &str) -> bool {
    let mut roots = roots(name).peekable();
    if roots.peek().is_none() {
        return !SUPPORT.contains(&owner(name));
    }
    STD_STATE.iter().any(|p| name.starts_with(p)) || roots.any(|r| !SUPPORT.contains(&r))
}

/// The crates a demangled name's paths start with: `<alloc::string::String as p::Ext>::f::N`
/// (a crate's trait implemented for a std type, and the static in it) names `alloc` and `p`.
fn roots(name: &str) -> impl Iterator<Item = &str> {
    let bytes = name.as_bytes();
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    (0..bytes.len())
        .filter(move |&i| {
            ident(bytes[i]) && (i == 0 || !(ident(bytes[i - 1]) || bytes[i - 1] == b':'))
        })
        .filter_map(move |i| {
            let end = (i..bytes.len())
                .find(|&j| !ident(bytes[j]))
                .unwrap_or(bytes.len());
            name[end..].starts_with("::").then(|| &name[i..end])
        })
}

/// The crate a demangled path starts with; for `<T as Trait>::..` paths, `T`'s.
fn owner(name: &str) -> &str {
    let path = name.trim_start_matches(['<', '&', '*', '[']);
    let path = ["mut ", "const ", "dyn "]
        .iter()
        .fold(path, |p, prefix| p.strip_prefix(prefix).unwrap_or(p));
    let end = path
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(path.len());
    &path[..end]
}

fn encode(ranges: &[(u64, u64)]) -> String {
    ranges
        .iter()
        .map(|(start, end)| format!("{start:x}+{:x}", end - start))
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_is_the_first_crate_of_the_path() {
        assert_eq!(owner("triangle::COUNT"), "triangle");
        assert_eq!(owner("std::thread::ThreadId::new::COUNTER"), "std");
        assert_eq!(
            owner("<parser::Config as core::fmt::Debug>::fmt::CACHE"),
            "parser"
        );
        assert_eq!(owner("<&mut dyn log::Log as x::Y>::Z"), "log");
        assert_eq!(owner("completed.0"), "completed");
    }

    #[test]
    fn the_support_crates_are_not_watched_but_the_standard_streams_are() {
        assert!(is_watched("triangle::COUNT"));
        assert!(is_watched("serde_json::SOMETHING"));
        assert!(is_watched("environ"));
        assert!(!is_watched("hermetic_driver::coverage::CMP_INTS"));
        assert!(!is_watched("hermetic::env::CURRENT"));
        assert!(!is_watched("std::thread::ThreadId::new::COUNTER"));
        assert!(is_watched("std::io::stdio::STDOUT"));
        assert!(is_watched("std::io::stdio::stdin::INSTANCE"));
        // A crate's trait implemented for a std type: the static is the crate's.
        assert!(is_watched(
            "<alloc::string::String as mycrate::Ext>::hits::CALLS"
        ));
        assert!(is_watched("<core::option::Option<T> as p::T>::f::N"));
        assert!(!is_watched("<std::path::Path as core::fmt::Debug>::fmt::X"));
    }

    #[test]
    fn ranges_are_written_in_hexadecimal_from_the_load_address() {
        assert_eq!(encode(&[(0x10, 0x18), (0x100, 0x101)]), "10+8,100+1");
    }

    static PROBE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

    #[test]
    fn a_crates_own_static_is_watched_and_the_standard_librarys_bookkeeping_is_not() {
        // This test binary's own symbols: a static of this crate and std's.
        PROBE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let data = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let ranges = watched(&file, Kind::Static);
        assert!(ranges.windows(2).all(|w| w[0].1 <= w[1].0));
        let covered = |at: u64| ranges.iter().any(|&(s, e)| s <= at && at < e);
        let (mut own, mut std_seen) = (0, 0);
        for sym in file
            .symbols()
            .filter(|s| s.kind() == SymbolKind::Data && s.size() > 0)
        {
            let name = format!("{:#}", rustc_demangle::demangle(sym.name().unwrap_or("")));
            if name.ends_with("statics::tests::PROBE") {
                assert!(covered(sym.address()), "{name}");
                own += 1;
            } else if owner(&name) == "std" && !is_watched(&name) {
                assert!(!covered(sym.address()), "{name}");
                std_seen += 1;
            }
        }
        assert_eq!(own, 1);
        assert!(std_seen > 0);
    }

    thread_local! {
        static THREAD_PROBE: std::cell::Cell<u64> = const { std::cell::Cell::new(1) };
    }

    #[test]
    fn a_crates_own_thread_local_and_the_hash_keys_are_watched() {
        THREAD_PROBE.with(|p| p.set(p.get() + 1));
        let _ = std::collections::HashMap::<u8, u8>::new();
        let data = std::fs::read(std::env::current_exe().unwrap()).unwrap();
        let file = object::File::parse(&*data).unwrap();
        let ranges = watched(&file, Kind::ThreadLocal);
        let covered = |at: u64| ranges.iter().any(|&(s, e)| s <= at && at < e);
        let (mut seen, mut std_seen) = (Vec::new(), 0);
        for sym in file
            .symbols()
            .filter(|s| s.kind() == SymbolKind::Tls && s.size() > 0)
        {
            let name = format!("{:#}", rustc_demangle::demangle(sym.name().unwrap_or("")));
            if name.contains("THREAD_PROBE") || name.contains("std::hash::random::") {
                assert!(covered(sym.address()), "{name}");
                seen.push(name);
            } else if owner(&name) == "std" && !Kind::ThreadLocal.is_watched(&name) {
                assert!(!covered(sym.address()), "{name}");
                std_seen += 1;
            }
        }
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert!(std_seen > 0);
    }
}
