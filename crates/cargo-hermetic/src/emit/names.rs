//! Names in generated tests: variables after their type or role, tests after what they show
//! (seed 002, §III-F4: names a developer would have written, numbered only on conflict).

use crate::cluster::{CallableId, CallableKind, Cluster, Ty};
use heck::ToSnakeCase;
use hermetic_protocol::{EnvSpec, Observed, Value};
use proc_macro2::Ident;
use quote::format_ident;
use std::collections::{BTreeMap, HashMap, HashSet};

/// Words that do not end a test name well.
const STOP_WORDS: &[&str] = &[
    "a", "an", "and", "at", "but", "by", "for", "in", "is", "of", "on", "or", "the", "to", "with",
];

/// Longest test name we write, in characters.
const MAX_TEST_NAME: usize = 60;

/// Local variable names of one test, unique and never shadowing a function the test calls.
pub(crate) struct VarNames {
    used: HashSet<String>,
}

impl VarNames {
    /// `reserved`: names the variables must not take (functions called by their bare name).
    pub fn new(reserved: impl IntoIterator<Item = String>) -> Self {
        VarNames {
            used: reserved.into_iter().collect(),
        }
    }

    /// `base`, or `base_2`, `base_3`, .. when taken.
    pub fn fresh(&mut self, base: &str) -> Ident {
        let mut base = snake_words(base);
        if base.is_empty() {
            base = "value".to_string();
        }
        if syn::parse_str::<Ident>(&base).is_err() {
            // A keyword (`match`) or a tuple field's number (`0`).
            base = if base.starts_with(|c: char| c.is_ascii_digit()) {
                format!("value_{base}")
            } else {
                format!("{base}_value")
            };
        }
        if syn::parse_str::<Ident>(&base).is_err() {
            base = "value".to_string();
        }
        let mut name = base.clone();
        let mut n = 2;
        while self.used.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.used.insert(name.clone());
        format_ident!("{}", name)
    }
}

/// The variable name for a value of the crate type named `type_name`: `BoundedStack` → `bounded_stack`.
pub(crate) fn type_var_name(type_name: &str) -> String {
    snake_words(type_name)
}

/// The base variable name for a stored value of type `ty`: the crate type's name, else the
/// parameter it is passed to (`role`), else a word for the kind of value.
pub(crate) fn var_base(cluster: &Cluster, ty: &Ty, role: Option<&str>) -> String {
    match ty {
        Ty::Adt(id, _) => return type_var_name(&cluster.types[*id].name),
        Ty::Mock(id) => return type_var_name(&cluster.traits[*id].name),
        Ty::Box(t) => return var_base(cluster, t, role),
        _ => {}
    }
    if let Some(role) = role.map(snake_words).filter(|r| !r.is_empty()) {
        return role;
    }
    match ty {
        Ty::String | Ty::Str => "text",
        Ty::Vec(_) | Ty::Slice(_) | Ty::Array(..) => "items",
        Ty::Int(_) | Ty::Float(_) => "number",
        Ty::Bool => "flag",
        Ty::Char => "character",
        Ty::Ordering => "ordering",
        Ty::Tuple(items) if items.len() == 2 => "pair",
        _ => "value",
    }
    .to_string()
}

/// How a test's name refers to the callable it tests: `classify`, `bounded_stack_push` (the
/// type is added when another callable has the same name), `point_default`, `shape_circle`.
pub(crate) fn callee(cluster: &Cluster, id: CallableId) -> String {
    let c = &cluster.callables[id];
    let type_name = |t: &Ty| match t {
        Ty::Adt(id, _) => qualified_type_name(cluster, *id),
        _ => "value".to_string(),
    };
    match &c.kind {
        CallableKind::Function => snake_words(&c.name),
        CallableKind::Mock(t) => snake_words(&cluster.traits[*t].mock_name),
        CallableKind::Fake(_) => "fakes".to_string(),
        CallableKind::AssocFn { self_ty, .. } | CallableKind::Method { self_ty, .. } => {
            let mine = self_ty_name(self_ty);
            let ambiguous = cluster.callables.iter().enumerate().any(|(i, d)| {
                i != id && d.name == c.name && d.kind.self_ty().and_then(self_ty_name) != mine
            });
            if ambiguous {
                format!("{}_{}", type_name(self_ty), snake_words(&c.name))
            } else {
                snake_words(&c.name)
            }
        }
        // `default`, `from`, `from_str`.
        CallableKind::TraitFn { self_ty, .. } => {
            format!("{}_{}", type_name(self_ty), snake_words(&c.name))
        }
        CallableKind::StructLiteral { self_ty, .. } | CallableKind::Parse { self_ty } => {
            type_name(self_ty)
        }
        CallableKind::Variant { self_ty, .. } => {
            format!("{}_{}", type_name(self_ty), snake_words(&c.name))
        }
    }
}

/// A crate type's name in a test name: `quoter`, or `bytes_quoter` when another module has a
/// type of the same name.
fn qualified_type_name(cluster: &Cluster, id: usize) -> String {
    let t = &cluster.types[id];
    let name = type_var_name(&t.name);
    let shared = cluster
        .types
        .iter()
        .enumerate()
        .any(|(i, o)| i != id && o.name == t.name && o.module != t.module);
    match cluster.modules[t.module].path.last() {
        Some(module) if shared => format!("{}_{name}", snake_words(module)),
        _ => name,
    }
}

/// The crate type a self type names, to tell methods of different types apart.
fn self_ty_name(t: &Ty) -> Option<usize> {
    match t {
        Ty::Adt(id, _) => Some(*id),
        _ => None,
    }
}

/// What the test shows, from its last statement: `returns_scalene`, `fails_with_full`,
/// `panics_with_division_by_zero`, `succeeds`.
pub(crate) fn outcome(
    cluster: &Cluster,
    ret: &Ty,
    returned: Option<&Observed>,
    panic: Option<&str>,
) -> String {
    if let Some(message) = panic {
        // `Box<dyn Any>` is what a panic with a non-string payload says: nothing to name.
        let message = if message == "Box<dyn Any>" {
            ""
        } else {
            message
        };
        let mut words: Vec<&str> = message
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .take(5)
            .collect();
        while words
            .last()
            .is_some_and(|w| STOP_WORDS.contains(&w.to_ascii_lowercase().as_str()))
        {
            words.pop();
        }
        let words = words.join("_").to_ascii_lowercase();
        return if words.is_empty() {
            "panics".to_string()
        } else {
            format!("panics_with_{words}")
        };
    }
    let Some(obs) = returned else {
        return match ret {
            Ty::Unit => "succeeds".to_string(),
            _ => match adt_name(cluster, ret) {
                Some(name) => format!("returns_{name}"),
                None => "succeeds".to_string(),
            },
        };
    };
    match obs {
        Observed::Unit => "succeeds".to_string(),
        Observed::Err(e) => match short_value(e) {
            Some(s) => format!("fails_with_{s}"),
            None => "fails".to_string(),
        },
        Observed::Ok(o) if matches!(**o, Observed::Unit) => "succeeds".to_string(),
        Observed::Seq(items) if items.len() == 1 => "returns_1_item".to_string(),
        Observed::Seq(items) if !items.is_empty() => format!("returns_{}_items", items.len()),
        obs => match short_value(obs).or_else(|| adt_name(cluster, ret)) {
            Some(s) => format!("returns_{s}"),
            None => "returns_value".to_string(),
        },
    }
}

/// The snake-case name of the crate type inside `ty` (through `Result`, `Option`, boxes).
fn adt_name(cluster: &Cluster, ty: &Ty) -> Option<String> {
    match ty {
        Ty::Adt(id, _) => Some(type_var_name(&cluster.types[*id].name)),
        Ty::Result(t, _) | Ty::Option(t) | Ty::Box(t) | Ty::Ref(t) | Ty::RefMut(t) => {
            adt_name(cluster, t)
        }
        _ => None,
    }
}

/// A few words for a value when it is short: `true`, `5`, `minus_1`, `none`, `some_3`,
/// `ok_opened`, `scalene`, `empty`; `None` for values that do not fit in a name.
pub(crate) fn short_value(obs: &Observed) -> Option<String> {
    Some(match obs {
        Observed::Bool(b) => b.to_string(),
        Observed::Int(i) if i.unsigned_abs() < 1_000_000_000 => {
            if *i < 0 {
                format!("minus_{}", i.unsigned_abs())
            } else {
                i.to_string()
            }
        }
        Observed::Float(bits) => {
            let x = f64::from_bits(*bits);
            if x.is_nan() {
                "nan".to_string()
            } else if x.is_infinite() {
                if x > 0.0 {
                    "infinity"
                } else {
                    "minus_infinity"
                }
                .to_string()
            } else {
                let text = format!("{:?}", x.abs());
                if text.len() > 8 || text.contains('e') {
                    return None;
                }
                let text = text.trim_end_matches(".0").replace('.', "_");
                if x < 0.0 {
                    format!("minus_{text}")
                } else {
                    text
                }
            }
        }
        Observed::Char(c) if c.is_ascii_alphanumeric() => c.to_ascii_lowercase().to_string(),
        Observed::Str(s) if s.is_empty() => "empty".to_string(),
        Observed::Str(s) => {
            let w = words(s, 3);
            if w.is_empty() || w.len() > 24 {
                return None;
            }
            w
        }
        Observed::Seq(items) if items.is_empty() => "empty".to_string(),
        Observed::Seq(items) if items.len() == 1 => "1_item".to_string(),
        Observed::Seq(items) => format!("{}_items", items.len()),
        // `(1, Unquoted)` → `1_unquoted`: each item when all are short.
        Observed::Tuple(items) if !items.is_empty() && items.len() <= MAX_NAMED_ITEMS => {
            joined(items.iter().map(short_value))?
        }
        Observed::Opt(None) => "none".to_string(),
        Observed::Opt(Some(o)) => match short_value(o) {
            Some(s) => format!("some_{s}"),
            None => "some".to_string(),
        },
        Observed::Ok(o) => match short_value(o) {
            Some(s) => format!("ok_{s}"),
            None => "ok".to_string(),
        },
        Observed::Err(o) => match short_value(o) {
            Some(s) => format!("err_{s}"),
            None => "err".to_string(),
        },
        Observed::Variant(name, _) => snake_words(name),
        Observed::Shown(text) => {
            let w = words(text, 3);
            if w.is_empty() || w.len() > 24 {
                return None;
            }
            w
        }
        Observed::Debug(text) => {
            // A hand-written Debug: use its leading identifier (`ParseIntError { .. }`).
            let ident: String = text
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if ident.is_empty()
                || ident.len() > 24
                || ident.starts_with(|c: char| c.is_ascii_digit())
            {
                return None;
            }
            snake_words(&ident)
        }
        _ => return None,
    })
}

/// Items a value's name may spell out one by one (a tuple's, a short sequence argument's).
const MAX_NAMED_ITEMS: usize = 3;

/// The items' short names joined with `_`, when every item has one and the whole fits in a name.
fn joined(items: impl Iterator<Item = Option<String>>) -> Option<String> {
    let words: Vec<String> = items.collect::<Option<_>>()?;
    let text = words.join("_");
    (!text.is_empty() && text.len() <= 24).then_some(text)
}

/// A short name for an argument given as data, to tell otherwise equally named tests apart:
/// its value when short (`5`, `minus_1`, `sesame`, `92_10` for `&[92, 10]`).
pub(crate) fn arg_hint(v: &Value) -> Option<String> {
    let obs = match v {
        Value::Seq(items) | Value::Tuple(items)
            if !items.is_empty() && items.len() <= MAX_NAMED_ITEMS =>
        {
            return joined(items.iter().map(arg_hint));
        }
        Value::Bool(b) => Observed::Bool(*b),
        Value::Int(i) => Observed::Int(*i),
        Value::BigUint(u) => Observed::BigUint(*u),
        Value::Float(f) => Observed::Float(*f),
        Value::Char(c) => Observed::Char(*c),
        Value::Str(s) => Observed::Str(s.clone()),
        Value::Opt(None) => Observed::Opt(None),
        Value::Seq(items) if items.is_empty() => Observed::Seq(Vec::new()),
        _ => return None,
    };
    short_value(&obs)
}

/// One test to be named: its base name, hints from its arguments and its environment, and a
/// key that orders tests with the same name deterministically.
pub(crate) struct Unnamed {
    pub base: String,
    pub hints: Vec<Option<String>>,
    /// What the test sets up ([`env_hint`]).
    pub env: String,
    pub key: String,
}

/// What a test sets up, as a name's ending: `with_app_conf`, `with_stdin_and_home`,
/// `without_setup`.
pub(crate) fn env_hint(env: &EnvSpec) -> String {
    let mut parts: Vec<String> = Vec::new();
    if let [file] = &env.files[..] {
        let base = file.path.rsplit('/').next().unwrap_or_default();
        parts.push(words(base, 3));
    } else if !env.files.is_empty() {
        parts.push("files".into());
    }
    if !env.dirs.is_empty() {
        parts.push("dir".into());
    }
    if env.stdin.is_some() {
        parts.push("stdin".into());
    }
    parts.extend(env.vars.iter().take(2).map(|(k, _)| words(k, 3)));
    if env.now_secs.is_some() {
        parts.push("clock".into());
    }
    if env.seed.is_some() || !env.random_bytes.is_empty() {
        parts.push("random".into());
    }
    parts.retain(|p| !p.is_empty());
    if parts.is_empty() {
        "without_setup".to_string()
    } else {
        format!("with_{}", parts.join("_and_"))
    }
}

/// Final, unique test names, in the order of `tests`. A name that is taken (by another test
/// or by a name in `reserved`) gets a hint of its arguments when that tells the tests apart,
/// else `_2`, `_3`, ...
pub(crate) fn unique_test_names(tests: &[Unnamed], reserved: &HashSet<String>) -> Vec<String> {
    let mut groups: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    for (i, t) in tests.iter().enumerate() {
        groups.entry(&t.base).or_default().push(i);
    }
    let mut names = vec![String::new(); tests.len()];
    let mut taken: HashSet<String> = reserved.clone();
    for (base, mut members) in groups {
        members.sort_by(|&a, &b| tests[a].key.cmp(&tests[b].key));
        let candidates: Vec<String> = if members.len() == 1 {
            vec![base.to_string()]
        } else {
            let arity = members
                .iter()
                .map(|&m| tests[m].hints.len())
                .max()
                .unwrap_or(0);
            let distinct = (0..arity).find_map(|a| {
                let hints: Vec<&String> = members
                    .iter()
                    .map(|&m| tests[m].hints.get(a).and_then(|h| h.as_ref()))
                    .collect::<Option<_>>()?;
                let set: HashSet<&String> = hints.iter().copied().collect();
                (set.len() == hints.len()).then(|| {
                    hints
                        .iter()
                        .map(|h| join_limited(base, &format!("for_{h}")))
                        .collect()
                })
            });
            // The arguments in which the tests differ, together.
            let varying: Vec<Option<String>> = members
                .iter()
                .map(|&m| varying_hints(tests, &members, m))
                .collect();
            let together = || {
                let hints: Vec<&String> =
                    varying.iter().map(Option::as_ref).collect::<Option<_>>()?;
                let set: HashSet<&String> = hints.iter().copied().collect();
                (set.len() == hints.len()).then(|| {
                    hints
                        .iter()
                        .map(|h| join_limited(base, &format!("for_{h}")))
                        .collect()
                })
            };
            let by_env = || {
                let envs: Vec<String> = members
                    .iter()
                    .map(|&m| join_limited(base, &tests[m].env))
                    .collect();
                let set: HashSet<&String> = envs.iter().collect();
                (set.len() == envs.len()).then_some(envs)
            };
            // Else each test says what it can, and numbers tell apart what is left.
            let partly = || {
                varying
                    .iter()
                    .map(|h| match h {
                        Some(h) => join_limited(base, &format!("for_{h}")),
                        None => base.to_string(),
                    })
                    .collect()
            };
            distinct
                .or_else(together)
                .or_else(by_env)
                .unwrap_or_else(partly)
        };
        for (&m, candidate) in members.iter().zip(candidates) {
            let mut name = candidate.clone();
            let mut n = 2;
            while taken.contains(&name) {
                name = format!("{candidate}_{n}");
                n += 1;
            }
            taken.insert(name.clone());
            names[m] = name;
        }
    }
    names
}

/// The hints of test `m` at the argument positions where the `members` differ, joined with
/// `_and_`; `None` when it has none there.
fn varying_hints(tests: &[Unnamed], members: &[usize], m: usize) -> Option<String> {
    let hint = |t: usize, a: usize| tests[t].hints.get(a).cloned().flatten();
    let arity = members
        .iter()
        .map(|&t| tests[t].hints.len())
        .max()
        .unwrap_or(0);
    let words: Vec<String> = (0..arity)
        .filter(|&a| members.iter().any(|&t| hint(t, a) != hint(m, a)))
        .filter_map(|a| hint(m, a))
        .collect();
    (!words.is_empty()).then(|| words.join("_and_"))
}

/// The final names when some tests keep the names they had (`kept`: name as computed → name
/// kept): the others keep theirs, numbered only where a kept name took it.
pub(crate) fn keeping(names: &[String], kept: &HashMap<String, String>) -> Vec<String> {
    let mut taken: HashSet<String> = kept.values().cloned().collect();
    names
        .iter()
        .map(|n| {
            if let Some(old) = kept.get(n) {
                return old.clone();
            }
            let mut name = n.clone();
            let mut k = 2;
            while taken.contains(&name) {
                name = format!("{n}_{k}");
                k += 1;
            }
            taken.insert(name.clone());
            name
        })
        .collect()
}

/// `<callee>_<outcome>`, shortened at a word boundary to fit in a readable name.
pub(crate) fn test_name(callee: &str, outcome: &str) -> String {
    join_limited(callee, outcome)
}

fn join_limited(a: &str, b: &str) -> String {
    let mut name = format!("{a}_{b}");
    if name.len() > MAX_TEST_NAME {
        let cut = name[..MAX_TEST_NAME].rfind('_').unwrap_or(MAX_TEST_NAME);
        name.truncate(cut.max(a.len().min(MAX_TEST_NAME)));
    }
    let name = name.trim_end_matches('_').to_string();
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("test_{name}")
    } else {
        name
    }
}

/// Up to `max` lowercase ASCII words of `text`, joined with `_`.
pub(crate) fn words(text: &str, max: usize) -> String {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(max)
        .map(|w| w.to_ascii_lowercase())
        .collect::<Vec<_>>()
        .join("_")
}

/// `text` in snake case, ASCII letters, digits and single underscores only.
fn snake_words(text: &str) -> String {
    let snake = text.to_snake_case();
    let mut out = String::new();
    for c in snake.chars() {
        let c = if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        };
        if c == '_' && (out.is_empty() || out.ends_with('_')) {
            continue;
        }
        out.push(c);
    }
    out.trim_end_matches('_').to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_snake_case_words() {
        assert_eq!(type_var_name("BoundedStack"), "bounded_stack");
        assert_eq!(
            words("attempt to divide by zero", 5),
            "attempt_to_divide_by_zero"
        );
        assert_eq!(short_value(&Observed::Int(-3)).as_deref(), Some("minus_3"));
        assert_eq!(
            short_value(&Observed::Ok(Box::new(Observed::Variant(
                "Opened".into(),
                vec![]
            ))))
            .as_deref(),
            Some("ok_opened")
        );
    }

    #[test]
    fn variables_are_numbered_on_conflict_and_avoid_keywords() {
        let mut names = VarNames::new(["point".to_string()]);
        assert_eq!(names.fresh("point").to_string(), "point_2");
        assert_eq!(names.fresh("point").to_string(), "point_3");
        assert_eq!(names.fresh("Match").to_string(), "match_value");
        // A tuple struct's field is named by its number.
        assert_eq!(names.fresh("0").to_string(), "value_0");
    }

    #[test]
    fn colliding_test_names_use_argument_hints_or_numbers() {
        let t = |base: &str, hint: Option<&str>, key: &str| Unnamed {
            base: base.to_string(),
            hints: vec![hint.map(str::to_string)],
            env: "without_setup".to_string(),
            key: key.to_string(),
        };
        let names = unique_test_names(
            &[
                t("unlock_returns_opened", Some("sesame"), "b"),
                t("unlock_returns_opened", Some("open"), "a"),
                t("pop_returns_none", None, "b"),
                t("pop_returns_none", None, "a"),
            ],
            &HashSet::new(),
        );
        assert_eq!(
            names,
            [
                "unlock_returns_opened_for_sesame",
                "unlock_returns_opened_for_open",
                "pop_returns_none_2",
                "pop_returns_none"
            ]
        );
    }

    #[test]
    fn ties_are_told_apart_by_all_arguments_then_by_what_the_tests_set_up() {
        let t = |base: &str, hints: &[Option<&str>], env: &str| Unnamed {
            base: base.to_string(),
            hints: hints.iter().map(|h| h.map(str::to_string)).collect(),
            env: env.to_string(),
            key: format!("{hints:?}{env}"),
        };
        let names = unique_test_names(
            &[
                t("f_returns_false", &[Some("1"), Some("a")], "without_setup"),
                t("f_returns_false", &[Some("1"), Some("b")], "without_setup"),
                t("f_returns_false", &[Some("2"), Some("a")], "without_setup"),
                t("load_fails", &[None], "with_app_conf"),
                t("load_fails", &[None], "without_setup"),
            ],
            &HashSet::new(),
        );
        assert_eq!(
            names,
            [
                "f_returns_false_for_1_and_a",
                "f_returns_false_for_1_and_b",
                "f_returns_false_for_2_and_a",
                "load_fails_with_app_conf",
                "load_fails_without_setup",
            ]
        );
    }

    #[test]
    fn tuples_and_sequences_are_named_by_their_items() {
        let unquoted = Observed::Variant("Unquoted".into(), vec![]);
        let pair = Observed::Tuple(vec![Observed::Int(1), unquoted]);
        assert_eq!(short_value(&pair).as_deref(), Some("1_unquoted"));
        let words = Observed::Seq(vec![Observed::Str("a".into()), Observed::Str("b".into())]);
        assert_eq!(
            short_value(&Observed::Opt(Some(Box::new(words)))).as_deref(),
            Some("some_2_items")
        );
        // A tuple with an item no name can hold says nothing.
        let opaque = Observed::Tuple(vec![Observed::Int(1), Observed::Opaque]);
        assert_eq!(short_value(&opaque), None);
        // Short sequences as arguments: their items.
        let bytes = Value::Seq(vec![Value::Int(92), Value::Int(10)]);
        assert_eq!(arg_hint(&bytes).as_deref(), Some("92_10"));
        let long = Value::Seq((0..4).map(Value::Int).collect());
        assert_eq!(arg_hint(&long), None);
    }

    #[test]
    fn only_the_arguments_that_differ_name_a_test_and_numbers_come_last() {
        let t = |hints: &[Option<&str>], key: &str| Unnamed {
            base: "parse_double_fails".to_string(),
            hints: hints.iter().map(|h| h.map(str::to_string)).collect(),
            env: "without_setup".to_string(),
            key: key.to_string(),
        };
        // The same `&mut vec![8, 96]` everywhere; the receivers' bytes differ.
        let names = unique_test_names(
            &[
                t(&[Some("8_96"), Some("33_92")], "a"),
                t(&[Some("8_96"), Some("92_10")], "b"),
                t(&[Some("8_96"), None], "c"),
                t(&[Some("8_96"), None], "d"),
            ],
            &HashSet::new(),
        );
        assert_eq!(
            names,
            [
                "parse_double_fails_for_33_92",
                "parse_double_fails_for_92_10",
                "parse_double_fails",
                "parse_double_fails_2",
            ]
        );
    }

    #[test]
    fn long_names_are_cut_at_a_word_boundary() {
        let name = test_name(
            "parse",
            "panics_with_the_configuration_file_could_not_be_read_because_reasons",
        );
        assert!(name.len() <= MAX_TEST_NAME, "{name}");
        assert!(name.starts_with("parse_panics_with_the_configuration"));
        assert!(!name.ends_with('_'));
    }
}
