//! What a run aims at (`--module`, `--function`, `--shard`) and the names users give the
//! crate's callables: shared by generate, record and the stages under them.

use crate::cluster::{Cluster, ModuleId};
use crate::errors::Failure;
use anyhow::Result;

/// What to aim at: everything, or one module and/or one function.
#[derive(Debug, Clone, Default)]
pub struct Selection {
    /// `parser::lexer` as segments.
    pub module: Option<Vec<String>>,
    /// A function or method name, `parse` or `Lexer::next_token`.
    pub function: Option<String>,
    /// `--shard k/n`: only the modules of this share.
    pub shard: Option<Shard>,
}

/// One of `count` shares of a crate's modules (`--shard index/count`, 1-based as written): a
/// module belongs to the share `its position in the crate, modulo count`, so the shares are
/// disjoint, cover every module, and their test files never collide.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1 to `count`.
    pub index: usize,
    pub count: usize,
}

impl Shard {
    pub fn has(&self, module: ModuleId) -> bool {
        module % self.count == self.index - 1
    }
}

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(text: &str) -> Result<Shard, String> {
        let bad = || format!("`{text}` is not a shard: write k/n, with 1 <= k <= n (1/4 to 4/4)");
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            k.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }
}

/// The `--module` and `--function` options, checked against the crate.
pub fn selection_of(
    module: Option<&str>,
    function: Option<&str>,
    cluster: &Cluster,
) -> Result<Selection> {
    let module = match module {
        None => None,
        Some(m) => {
            let path: Vec<String> = m
                .trim_start_matches("crate::")
                .split("::")
                .map(str::to_string)
                .collect();
            if !cluster.modules.iter().any(|md| md.path == path) {
                let known: Vec<String> = cluster
                    .modules
                    .iter()
                    .skip(1)
                    .map(|md| md.path.join("::"))
                    .collect();
                return Err(Failure::NotInCrate {
                    what: format!(
                        "no module `{m}` in this crate (modules: {})",
                        if known.is_empty() {
                            "none besides the root".into()
                        } else {
                            known.join(", ")
                        }
                    ),
                }
                .into());
            }
            Some(path)
        }
    };
    if let Some(f) = function {
        let last = f.rsplit("::").next().unwrap_or(f);
        if !cluster.callables.iter().any(|c| c.name == last)
            && !cluster.skipped.iter().any(|s| s.item.ends_with(last))
        {
            return Err(Failure::NotInCrate {
                what: format!("no function or method `{f}` in this crate"),
            }
            .into());
        }
    }
    Ok(Selection {
        module,
        function: function.map(str::to_string),
        shard: None,
    })
}

/// Whether a callable is one of the tests' subjects under the selection.
pub fn selected(cluster: &Cluster, c: usize, sel: &Selection) -> bool {
    let callable = &cluster.callables[c];
    let module_ok = sel.module.as_ref().is_none_or(|m| {
        let p = &cluster.modules[callable.module].path;
        p.len() >= m.len() && p[..m.len()] == m[..]
    });
    let function_ok = sel.function.as_ref().is_none_or(|f| {
        let name = callable_name(cluster, c);
        f == &callable.name || name.ends_with(&format!("::{f}")) || name == *f
    });
    let shard_ok = sel.shard.is_none_or(|s| s.has(callable.module));
    module_ok && function_ok && shard_ok
}

/// `parser::Lexer::next_token`, as a user names it.
pub fn callable_name(cluster: &Cluster, c: usize) -> String {
    use crate::cluster::{CallableKind, Ty};
    let callable = &cluster.callables[c];
    let mut parts = cluster.modules[callable.module].path.clone();
    let owner = match callable.kind.self_ty() {
        Some(Ty::Adt(id, _)) => Some(cluster.types[*id].name.clone()),
        _ => None,
    };
    parts.extend(owner);
    if !matches!(callable.kind, CallableKind::StructLiteral { .. }) {
        parts.push(callable.name.clone());
    }
    parts.join("::")
}
