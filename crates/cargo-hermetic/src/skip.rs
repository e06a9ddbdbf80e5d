//! Why items were skipped: a kind of obstacle a user can count ([`SkipReason`]) with the
//! detail of where it was met, and the tally the report shows (most frequent first).

use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// An item analysis, the driver build or record's probes could not use.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    /// The item as a user would name it: `parser::tokenize`, `Stack::with_hook`.
    pub item: String,
    /// The kind of obstacle, which the report counts.
    pub reason: SkipReason,
    /// Where it was met: `parameter `path`: `&Path` is not supported`.
    pub detail: String,
}

/// The kinds of obstacle, each a thing hermetic could learn to handle. Variants with a name
/// are counted per name (`type `PathBuf``, `bound `AsRef<Path>``), since that is what a
/// user (or the next change to hermetic) acts on.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(tag = "kind", content = "name", rename_all = "snake_case")]
pub enum SkipReason {
    /// A std or dependency type with no value kind, by its last path segment (`PathBuf`,
    /// `HashMap`, `io::Error` as an argument).
    UnsupportedType(String),
    /// A name analysis cannot resolve to a type (made by a macro, imported by a glob from a
    /// dependency, ambiguous).
    UnknownType,
    /// A type parameter or `impl Trait`/`dyn Trait` whose bound no type hermetic builds
    /// satisfies, by the bound as written (`AsRef<Path>`, `Into<String>`).
    UnmetBound(String),
    /// A closure or function pointer (`impl Fn(u8) -> bool`, `fn(&str)`).
    Closure,
    /// A crate type with lifetime parameters (`Parser<'a>`).
    LifetimeParameters,
    /// A crate type, function or alias with const generic parameters.
    ConstGenerics,
    /// A reference inside a parameter type or a field (`Option<&str>`, `&[&str]`).
    ReferenceInside,
    /// `&mut str`, `&mut [T]`.
    MutableBorrow,
    /// `str` or `[T]` not behind a reference, `!`.
    UnsizedType,
    /// `impl Trait` or a trait object returned.
    OpaqueReturn,
    /// `*const T`, `*mut T`.
    RawPointer,
    /// `<T as Trait>::Item`.
    QualifiedPath,
    /// An array whose length is not a literal (`[u8; N]`).
    ArrayLength,
    /// A type with the wrong number of generic arguments, or a type alias that cannot be
    /// followed (a cycle, missing arguments).
    TypeArguments,
    /// A `where` clause on something other than a type parameter.
    WhereClause,
    /// A crate trait no mock can implement, or a parameter of such a trait.
    TraitNotMockable,
    /// A receiver other than `self`, `&self`, `&mut self` (`self: Box<Self>`).
    Receiver,
    /// An associated function without `self` of a crate trait implemented for an unsized std
    /// type (`impl PathExt for Path`), whose `Self` no value can be.
    TraitAssocFn,
    /// Behind a `#[cfg]` analysis cannot evaluate.
    Cfg,
    UnsafeFn,
    AsyncFn,
    /// `extern "C" fn`, variadic functions.
    ExternFn,
    Union,
    /// The crate's `main`.
    Main,
    /// The crate's own tests.
    TestCode,
    /// Analysis accepted it, but the compiler rejected the driver's call of it.
    DriverRejected,
    /// Record only: a function the probes cannot wrap.
    NotProbed,
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = match self {
            SkipReason::UnsupportedType(name) => {
                return write!(f, "type `{name}` is not supported")
            }
            SkipReason::UnmetBound(bound) => {
                return write!(f, "no type hermetic builds satisfies `{bound}`")
            }
            SkipReason::UnknownType => "a type analysis cannot resolve",
            SkipReason::Closure => "closures and function pointers",
            SkipReason::LifetimeParameters => "types with lifetime parameters",
            SkipReason::ConstGenerics => "const generic parameters",
            SkipReason::ReferenceInside => "references inside parameter types or fields",
            SkipReason::MutableBorrow => "`&mut str` and mutable slices",
            SkipReason::UnsizedType => "unsized types not behind a reference",
            SkipReason::OpaqueReturn => "`impl Trait` or trait objects returned",
            SkipReason::RawPointer => "raw pointers",
            SkipReason::QualifiedPath => "qualified paths (`<T as Trait>::Item`)",
            SkipReason::ArrayLength => "array lengths that are not literals",
            SkipReason::TypeArguments => "types or aliases with arguments analysis cannot follow",
            SkipReason::WhereClause => "`where` clauses on other types than parameters",
            SkipReason::TraitNotMockable => "traits no mock can implement",
            SkipReason::Receiver => "receivers other than `self`, `&self`, `&mut self`",
            SkipReason::TraitAssocFn => {
                "associated functions of crate traits for unsized std types"
            }
            SkipReason::Cfg => "behind a `#[cfg]` analysis cannot evaluate",
            SkipReason::UnsafeFn => "`unsafe fn`",
            SkipReason::AsyncFn => "`async fn`",
            SkipReason::ExternFn => "`extern` or variadic functions",
            SkipReason::Union => "unions",
            SkipReason::Main => "the crate's `main`",
            SkipReason::TestCode => "the crate's own tests",
            SkipReason::DriverRejected => "the compiler rejected the driver's call",
            SkipReason::NotProbed => "functions record cannot probe",
        };
        f.write_str(text)
    }
}

/// Why something cannot be used: analysis's error, carried up from the type that failed to
/// the item, each level adding where (`parameter `p`: ...`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Why {
    pub reason: SkipReason,
    pub detail: String,
}

impl Why {
    pub fn new(reason: SkipReason, detail: impl Into<String>) -> Why {
        Why {
            reason,
            detail: detail.into(),
        }
    }

    /// The same obstacle, met inside `place` (`parameter `path``, `return type`).
    pub fn within(self, place: impl fmt::Display) -> Why {
        Why {
            detail: format!("{place}: {}", self.detail),
            ..self
        }
    }

    /// The skip entry for `item`.
    pub fn skipped(self, item: impl Into<String>) -> Skipped {
        Skipped {
            item: item.into(),
            reason: self.reason,
            detail: self.detail,
        }
    }
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.detail)
    }
}

/// How often each reason was met, most frequent first (ties by reason).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReasonCount {
    pub reason: SkipReason,
    /// The reason as the summary says it.
    pub text: String,
    pub count: usize,
}

/// The skips grouped by reason, most frequent first.
pub fn by_reason(skipped: &[Skipped]) -> Vec<ReasonCount> {
    let mut counts: BTreeMap<&SkipReason, usize> = BTreeMap::new();
    for s in skipped {
        *counts.entry(&s.reason).or_default() += 1;
    }
    let mut out: Vec<ReasonCount> = counts
        .into_iter()
        .map(|(reason, count)| ReasonCount {
            reason: reason.clone(),
            text: reason.to_string(),
            count,
        })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.reason.cmp(&b.reason)));
    out
}

/// The name a type's skip is counted under: the last segment of its path, with `io::` and
/// `fmt::` kept so `io::Error` is not taken for a crate's `Error`.
pub fn type_name<S: AsRef<str>>(path: &[S]) -> String {
    match path {
        [.., m, last] if matches!(m.as_ref(), "io" | "fmt") => {
            format!("{}::{}", m.as_ref(), last.as_ref())
        }
        [.., last] => last.as_ref().to_string(),
        [] => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn skip(reason: SkipReason) -> Skipped {
        Why::new(reason, "x").skipped("f")
    }

    #[test]
    fn reasons_are_counted_most_frequent_first_and_by_name() {
        let path = || SkipReason::UnsupportedType("PathBuf".into());
        let all = [
            skip(SkipReason::Closure),
            skip(path()),
            skip(SkipReason::UnsupportedType("HashMap".into())),
            skip(path()),
        ];
        let counts = by_reason(&all);
        let shown: Vec<(String, usize)> =
            counts.iter().map(|c| (c.text.clone(), c.count)).collect();
        assert_eq!(
            shown,
            [
                ("type `PathBuf` is not supported".to_string(), 2),
                ("type `HashMap` is not supported".to_string(), 1),
                ("closures and function pointers".to_string(), 1),
            ]
        );
    }

    #[test]
    fn details_say_where_and_json_keeps_the_kind_apart_from_the_name() {
        let s = Why::new(
            SkipReason::UnsupportedType("Path".into()),
            "`&Path` is not supported",
        )
        .within("parameter `p`")
        .skipped("open");
        assert_eq!(s.detail, "parameter `p`: `&Path` is not supported");
        let json = serde_json::to_value(&s).unwrap();
        assert_eq!(json["reason"]["kind"], "unsupported_type");
        assert_eq!(json["reason"]["name"], "Path");
        assert_eq!(
            serde_json::to_value(skip(SkipReason::Cfg)).unwrap()["reason"]["kind"],
            "cfg"
        );
    }

    #[test]
    fn types_are_named_by_their_last_segment_keeping_io() {
        assert_eq!(type_name(&["std", "path", "PathBuf"]), "PathBuf");
        assert_eq!(type_name(&["std", "io", "Error"]), "io::Error");
        assert_eq!(type_name(&["HashMap"]), "HashMap");
    }
}
