//! The `--isolate` attributes the user's crate gets with its tests: decided from the fakes the
//! kept tests set up (and, with `--isolate=off`, the crate's other test files), checked before
//! anything is written, added to the same all-or-nothing changes as the tests, and reported.

use super::{GeneratedFile, UnseenFake};
use crate::cluster::{Callee, Cluster, Ty, UnitId};
use crate::commit::Changes;
use crate::isolate::{self, Isolate, Isolation, Layout};
use crate::suite::Suite;
use anyhow::Result;
use serde::Serialize;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::Instant;

/// The attributes the tests in `files` need (`On`), for their verification.
pub fn needed_by(
    plan: &Isolation,
    cluster: &Cluster,
    files: &[GeneratedFile],
) -> Vec<(UnitId, Vec<String>)> {
    match plan.mode {
        Some(Isolate::On) => {
            isolate::user_attributes(cluster, &plan.units, &faked_by(cluster, files), Isolate::On)
        }
        _ => Vec::new(),
    }
}

/// What `--isolate` does to the user's crate in one run, once the tests are known.
pub struct Isolated {
    plan: Isolation,
    /// Each unit's new `only(..)` list (empty: the attribute is taken out).
    attributes: Vec<(UnitId, Vec<String>)>,
}

impl Isolated {
    /// Decides the user's crate's attributes from the kept tests (`files`) and, with `Off`, the
    /// crate's other test files; checks that they can be written (nothing is written otherwise).
    pub fn decide(
        mut plan: Isolation,
        cluster: &Cluster,
        files: &[GeneratedFile],
        crate_dir: &Path,
    ) -> Result<Isolated> {
        let started = Instant::now();
        let attributes = match plan.mode {
            Some(Isolate::On) => needed_by(&plan, cluster, files),
            Some(Isolate::Off) => {
                let mut used = faked_by(cluster, files);
                used.extend(faked_elsewhere(cluster, files, crate_dir));
                isolate::user_attributes(cluster, &plan.units, &used, Isolate::Off)
            }
            None => Vec::new(),
        };
        isolate::planned_texts(crate_dir, crate_dir, cluster, &attributes, Layout::Rustfmt)?;
        plan.time += started.elapsed();
        Ok(Isolated { plan, attributes })
    }

    /// Adds the decided attributes to the changes of the user's crate, on top of what those
    /// changes already do to the same files (the `mod` lines of the tests).
    pub fn add_to(
        &mut self,
        changes: &mut Changes,
        cluster: &Cluster,
        crate_dir: &Path,
    ) -> Result<()> {
        let started = Instant::now();
        let read = |path: &Path| match changes.planned(path) {
            Some(Some(text)) => Ok(String::from_utf8_lossy(text).into_owned()),
            _ => isolate::read_source(path),
        };
        let texts = isolate::texts_from(
            &read,
            crate_dir,
            crate_dir,
            cluster,
            &self.attributes,
            Layout::Rustfmt,
        )?;
        for (path, text) in texts {
            changes.write(path, text);
        }
        self.plan.time += started.elapsed();
        Ok(())
    }

    /// The decided attributes as `--dry-run` shows them: each unit's file, name and attribute.
    pub fn preview(&self, cluster: &Cluster, crate_dir: &Path) -> Vec<String> {
        self.attributes
            .iter()
            .map(|(u, only)| {
                let unit = &cluster.units[*u];
                let file = super::relative_to(&cluster.modules[unit.module].file, Some(crate_dir));
                format!(
                    "// ===== {} `{}`: isolate attribute =====\n{}",
                    file.display(),
                    unit.name,
                    isolate::attribute_of(cluster, *u, only)
                )
            })
            .collect()
    }

    /// The functions of the units it looks at, named as goals name theirs
    /// (`bank::transfer_money`, `processor::TransferProcessor::process`).
    pub fn unit_functions(&self, cluster: &Cluster) -> BTreeSet<String> {
        self.plan
            .units
            .iter()
            .flat_map(|&u| &cluster.units[u].members)
            .map(|&c| crate::selection::callable_name(cluster, c))
            .collect()
    }

    /// What the report says of it; `files` are the kept tests; `unit_branches` the branches
    /// of [`Isolated::unit_functions`] covered, and in all.
    pub fn report(
        &self,
        cluster: &Cluster,
        files: &[GeneratedFile],
        unit_branches: [usize; 2],
    ) -> Option<IsolationReport> {
        let mode = self.plan.mode?;
        Some(IsolationReport {
            mode: format!("{mode:?}").to_lowercase(),
            units: self.plan.units.len(),
            unit_branches,
            callees: cluster.fakes.len(),
            transform_s: self.plan.time.as_secs_f64(),
            attributes: self
                .attributes
                .iter()
                .map(|(u, only)| {
                    let unit = &cluster.units[*u];
                    let mut name = cluster.modules[unit.module].path.clone();
                    name.push(unit.name.clone());
                    AttributeReport {
                        unit: name.join("::"),
                        only: only.clone(),
                    }
                })
                .collect(),
            unseen: files.iter().flat_map(|f| f.unseen_fakes.clone()).collect(),
        })
    }
}

/// The callees the tests in `files` fake.
fn faked_by(cluster: &Cluster, files: &[GeneratedFile]) -> BTreeSet<Callee> {
    files
        .iter()
        .flat_map(|f| faked_in(cluster, &f.contents))
        .collect()
}

/// The callees the crate's test files of the modules `files` leaves alone fake (`--isolate=off`
/// keeps what any test of the crate needs).
fn faked_elsewhere(
    cluster: &Cluster,
    files: &[GeneratedFile],
    crate_dir: &Path,
) -> BTreeSet<Callee> {
    let mut out = BTreeSet::new();
    for m in (0..cluster.modules.len()).filter(|m| !files.iter().any(|f| f.module == *m)) {
        for suite in Suite::ALL {
            let rel = super::test_file_path(cluster, m, suite, Some(crate_dir));
            if let Ok(text) = std::fs::read_to_string(crate_dir.join(rel)) {
                out.extend(faked_in(cluster, &text));
            }
        }
    }
    out
}

/// The callees a test file sets fakes up for, by the `Fake` callables' names as written in
/// `.returns(<path>, ..)` or `.returns::<(<parameter types>), _>(<path>, ..)`: for
/// `--isolate=off`, which needs every test file of the crate.
fn faked_in(cluster: &Cluster, text: &str) -> BTreeSet<Callee> {
    let mut out = BTreeSet::new();
    for piece in text.split(".returns").skip(1) {
        let Some(piece) = after_turbofish(piece).strip_prefix('(') else {
            continue;
        };
        let path: String = piece
            .chars()
            .take_while(|c| !matches!(c, ',' | ')'))
            .filter(|c| !c.is_whitespace())
            .collect();
        for f in &cluster.fakes {
            let tail = match &f.callee {
                Callee::Crate(c) => {
                    let callee = &cluster.callables[*c];
                    match callee.kind.self_ty() {
                        Some(Ty::Adt(t, _)) => {
                            format!("{}::{}", cluster.types[*t].name, callee.name)
                        }
                        _ => callee.name.clone(),
                    }
                }
                Callee::Extern(p) => p.join("::"),
            };
            if path == tail || path.ends_with(&format!("::{tail}")) {
                out.insert(f.callee.clone());
            }
        }
    }
    out
}

/// `text` after a leading turbofish (`::<(&str, u32), _>`), if any, and whitespace.
fn after_turbofish(text: &str) -> &str {
    let text = text.trim_start();
    let Some(rest) = text.strip_prefix("::<") else {
        return text;
    };
    let mut depth = 1;
    let mut previous = ' ';
    for (i, c) in rest.char_indices() {
        match c {
            '<' => depth += 1,
            // `->` in a function pointer's type closes nothing.
            '>' if previous != '-' => {
                depth -= 1;
                if depth == 0 {
                    return rest[i + 1..].trim_start();
                }
            }
            _ => {}
        }
        previous = c;
    }
    ""
}

/// `--isolate` (seed 000): the units isolated, the time it took, and the fakes to review.
#[derive(Debug, Default, Serialize)]
pub struct IsolationReport {
    /// `on` or `off`.
    pub mode: String,
    /// Units (functions, `impl` blocks) of the selected code whose outgoing calls the search
    /// could fake (`on`), or that had an attribute of ours (`off`).
    pub units: usize,
    /// Branches of the units' own code (their functions and the closures in them) covered,
    /// and in all: what isolation is for, apart from the callees' code the fakes stand in for.
    pub unit_branches: [usize; 2],
    /// Callees the search could fake.
    pub callees: usize,
    /// Time spent finding the units and writing their attributes (the shadow copy's and the
    /// crate's), in seconds: the transformation's cost, beside `elapsed_s`.
    pub transform_s: f64,
    /// Attributes added, changed or taken out in the crate (`only` empty: taken out).
    pub attributes: Vec<AttributeReport>,
    /// Fake values the real callee never returned during the run: false behaviour to review.
    pub unseen: Vec<UnseenFake>,
}

#[derive(Debug, Serialize)]
pub struct AttributeReport {
    /// The function or `impl` block, as `module::name`.
    pub unit: String,
    pub only: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::isolate::tests::{crate_with, LIB};
    use std::collections::BTreeMap;
    use std::path::PathBuf;

    #[test]
    fn attributes_go_in_with_the_tests_or_not_at_all() {
        let (d, mut c) = crate_with(LIB);
        let chosen = vec![true; c.callables.len()];
        let plan = Isolation::plan(
            Some(Isolate::On),
            &mut c,
            &chosen,
            &d.path().join("Cargo.toml"),
        );
        let edits = plan.shadow(&c);
        let mut isolated = Isolated {
            plan,
            attributes: edits,
        };
        let tests = GeneratedFile {
            module: 0,
            path: PathBuf::from("src/hermetic_tests.rs"),
            contents: format!("// {}\n", super::super::GENERATED_MARKER),
            test_names: vec!["transfer_returns_0".into()],
            using_private: Vec::new(),
            using_mocks: Vec::new(),
            using_fakes: Vec::new(),
            unseen_fakes: Vec::new(),
            asserting_output: Vec::new(),
            written_from: BTreeMap::new(),
        };
        let lib = d.path().join("src/lib.rs");
        let test_file = d.path().join("src/hermetic_tests.rs");
        let run = |isolated: &mut Isolated| {
            super::super::apply_or_print(
                d.path(),
                &c,
                Suite::Generated,
                std::slice::from_ref(&tests),
                &crate::manifest::RuntimeEdit::default(),
                &mut |changes| isolated.add_to(changes, &c, d.path()),
                false,
            )
        };
        // An attribute that cannot be written (its function was renamed since the analysis):
        // neither it nor the tests nor their `mod` line are written.
        let renamed = LIB.replace("pub fn transfer(", "pub fn transfer_all(");
        std::fs::write(&lib, &renamed).unwrap();
        let err = run(&mut isolated).unwrap_err();
        assert!(
            format!("{err:#}").contains("no longer where it was analysed"),
            "{err:#}"
        );
        assert_eq!(std::fs::read_to_string(&lib).unwrap(), renamed);
        assert!(!test_file.exists());
        // Otherwise one write of lib.rs gives it both the attribute and the `mod` line.
        std::fs::write(&lib, LIB).unwrap();
        run(&mut isolated).unwrap();
        let text = std::fs::read_to_string(&lib).unwrap();
        assert!(
            text.contains("#[cfg_attr(test, hermetic::isolate(only(crate::db::Database::query, db::run_query)))]\npub fn transfer("),
            "{text}"
        );
        assert!(
            text.ends_with("\n#[cfg(test)]\nmod hermetic_tests;\n"),
            "{text}"
        );
        assert!(test_file.exists());
    }

    #[test]
    fn test_files_tell_which_callees_they_fake() {
        let (_d, mut c) = crate_with(LIB);
        let chosen = vec![true; c.callables.len()];
        Isolation::plan(Some(Isolate::On), &mut c, &chosen, Path::new("Cargo.toml"));
        let text = "let _fakes = hermetic::Fakes::new()\n    .returns(crate::db::run_query, [Ok(1)])\n    .returns::<(&Database, Vec<u8>), _>(\n        Database::query,\n        [Ok(2)],\n    )\n    .enter();";
        let got: Vec<String> = faked_in(&c, text)
            .into_iter()
            .map(|callee| match callee {
                Callee::Crate(id) => c.callables[id].name.clone(),
                Callee::Extern(p) => p.join("::"),
            })
            .collect();
        assert_eq!(got, ["query", "run_query"]);
    }
}
