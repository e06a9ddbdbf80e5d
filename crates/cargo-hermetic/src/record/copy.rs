//! The probed copy: the crate copied, probes inserted, built; what the compiler rejects is taken
//! out and the copy built again: a probe's proxies first, then the probe; a proxy that does not
//! compile, for every probe.

use super::probes::{self, Limits, Probed};
use super::program::{self, Build};
use crate::cargo::Target;
use crate::cluster::{CallableId, Cluster};
use crate::errors::Failure;
use crate::shadow::{self, Origin, Shadow};
use anyhow::{bail, Result};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

pub struct ProbedCopy {
    pub copy: Shadow,
    pub probed: Probed,
    /// The program to run (for `Build::Binary`), as cargo left it.
    pub exe: Option<PathBuf>,
}

/// Builds the copy with probes on `chosen` and on the functions analysis skipped in
/// `skipped_fns` (item → reason).
pub fn build(
    origin: &Origin,
    target: &Target,
    cluster: &Cluster,
    chosen: &[CallableId],
    mut skipped_fns: HashMap<String, String>,
    what: &Build,
    release: bool,
) -> Result<ProbedCopy> {
    // Probes the compiler rejects are taken out, and the copy built again.
    let mut rejected: BTreeMap<usize, String> = BTreeMap::new();
    let mut limits = Limits::default();
    loop {
        let copy = shadow::copy_crate(origin, "record", &[])?;
        let copy_manifest = copy.root.join("Cargo.toml");
        shadow::add_runtime_dependency(&copy_manifest, "dependencies")?;
        let keep: Vec<CallableId> = chosen
            .iter()
            .copied()
            .filter(|c| !rejected.contains_key(c))
            .collect();
        let mut probed = probes::insert(
            cluster,
            &keep,
            &skipped_fns,
            &limits,
            &target.crate_dir,
            &copy.root,
        )?;
        if probed.probed.is_empty() {
            let mut msg = String::from(
                "no function of the selection can be recorded (check --module and --function)",
            );
            for s in cluster.skipped.iter().take(5) {
                msg += &format!("\n  - {}: {}", s.item, s.reason);
            }
            return Err(Failure::NothingToTest { what: msg }.into());
        }
        match program::build(&copy_manifest, &copy.target_dir, what, release)? {
            program::Built::Ok(exe) => {
                probed
                    .unprobed
                    .extend(rejected.iter().map(|(c, why)| (*c, why.clone())));
                return Ok(ProbedCopy { copy, probed, exe });
            }
            program::Built::Failed(errors) => {
                let failing = program::failing(&copy.root, &errors);
                let first = errors
                    .first()
                    .map(|e| e.rendered.lines().next().unwrap_or_default().to_string())
                    .unwrap_or_default();
                let mut progress = 0;
                for t in failing.proxies {
                    let why = format!("its proxy did not compile: {first}");
                    progress += usize::from(limits.broken_proxies.insert(t, why).is_none());
                }
                for t in failing.capture_types {
                    let why = format!("its Capture impl did not compile: {first}");
                    progress += usize::from(limits.no_capture.insert(t, why).is_none());
                }
                for t in failing.debug_types {
                    let why = format!("its derived Debug did not compile: {first}");
                    progress += usize::from(limits.no_debug.insert(t, why).is_none());
                }
                let mut sites = Vec::new();
                for s in failing.sites {
                    // A probe with proxies is tried again without them.
                    if probed.proxied.contains(&s) && !limits.no_proxies.contains_key(&s) {
                        let why = format!("its recording proxy did not compile: {first}");
                        limits.no_proxies.insert(s, why);
                        progress += 1;
                    } else {
                        sites.push(s);
                    }
                }
                let mut extras = 0;
                for s in &sites {
                    if let Some((item, _)) = s
                        .checked_sub(cluster.callables.len())
                        .and_then(|e| probed.extras.get(e))
                    {
                        extras += usize::from(skipped_fns.remove(item).is_some());
                    }
                }
                let new: Vec<usize> = sites
                    .into_iter()
                    .filter(|s| *s < cluster.callables.len() && !rejected.contains_key(s))
                    .collect();
                if new.is_empty() && extras == 0 && progress == 0 {
                    bail!(
                        "the probed copy of the crate did not build (in {}):\n{}",
                        copy.root.display(),
                        errors
                            .iter()
                            .map(|e| e.rendered.as_str())
                            .collect::<Vec<_>>()
                            .join("\n")
                    );
                }
                for s in new {
                    rejected.insert(s, format!("its probe did not compile: {first}"));
                }
            }
        }
    }
}
