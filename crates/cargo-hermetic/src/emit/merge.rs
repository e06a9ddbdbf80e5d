//! Regeneration of part of a crate: a run limited by `--function` writes the tests of what it
//! selected into the file the last run wrote, in place of that code's old tests, and keeps every
//! other test as it was written (same text, same place), so the diff shows only what was asked.

use super::{GeneratedFile, GENERATED_MARKER};
use std::path::Path;
use syn::spanned::Spanned;

/// A top-level item of a test file, by the lines it spans (1-based, inclusive).
struct Item {
    /// The test's name, for `#[test]` functions.
    test: Option<String>,
    /// Identifiers a test must mention for this item to be needed (a mock's type name);
    /// empty for imports, which stay.
    needs: Vec<String>,
    first: usize,
    last: usize,
}

/// Merges each new file into the generated file already at its place (if any): the old tests
/// for which `selected` holds (by name) are replaced by the new file's tests, put where the
/// first of them was (or at the end); other old tests stay; items the new tests need that the
/// old file lacks (a mock) go before the first test. A file without old tests is left as it is.
pub fn keep_unselected(
    crate_dir: &Path,
    files: Vec<GeneratedFile>,
    selected: impl Fn(&str) -> bool,
) -> Vec<GeneratedFile> {
    files
        .into_iter()
        .map(|mut file| {
            let Ok(old) = std::fs::read_to_string(crate_dir.join(&file.path)) else {
                return file;
            };
            if !old
                .lines()
                .next()
                .is_some_and(|l| l.contains(GENERATED_MARKER))
            {
                return file; // not ours: placing the file refuses it
            }
            if let Some((contents, names)) = merge(&old, &file.contents, &selected) {
                file.contents = super::layout::rustfmt(&contents).unwrap_or(contents);
                file.test_names = names;
            }
            file
        })
        .collect()
}

/// The merged text and its test names, in file order; `None` when either file does not parse.
fn merge(old: &str, new: &str, selected: &dyn Fn(&str) -> bool) -> Option<(String, Vec<String>)> {
    let old_items = items(old)?;
    let new_items = items(new)?;
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let text_of = |lines: &[&str], it: &Item| lines[it.first - 1..it.last].join("\n");

    let new_tests: Vec<String> = new_items
        .iter()
        .filter(|it| it.test.is_some())
        .map(|it| text_of(&new_lines, it))
        .collect();
    let new_names: Vec<&str> = new_items
        .iter()
        .filter_map(|it| it.test.as_deref())
        .collect();
    // Items the new tests need that the old file does not have.
    let old_texts: Vec<String> = old_items.iter().map(|it| text_of(&old_lines, it)).collect();
    let missing: Vec<String> = new_items
        .iter()
        .filter(|it| it.test.is_none())
        .map(|it| text_of(&new_lines, it))
        .filter(|t| !old_texts.contains(t))
        .collect();

    let mut out: Vec<String> = Vec::new();
    let mut names = Vec::new();
    let mut placed = false;
    let mut inserted_missing = false;
    let mut line = 1;
    for it in &old_items {
        // Text between items (the header comment, blank lines) as it was.
        let before_gap = out.len();
        out.extend(
            old_lines[line - 1..it.first - 1]
                .iter()
                .map(|l| l.to_string()),
        );
        line = it.last + 1;
        if it.test.is_some() && !inserted_missing {
            out.extend(missing.iter().flat_map(|m| [m.clone(), String::new()]));
            inserted_missing = true;
        }
        match &it.test {
            Some(name) if selected(name) || new_names.contains(&name.as_str()) => {
                if placed {
                    out.truncate(before_gap);
                } else {
                    out.push(new_tests.join("\n\n"));
                    names.extend(new_names.iter().map(|n| n.to_string()));
                    placed = true;
                }
                continue;
            }
            Some(name) => names.push(name.clone()),
            None => {}
        }
        out.push(text_of(&old_lines, it));
    }
    out.extend(old_lines[line - 1..].iter().map(|l| l.to_string()));
    if !inserted_missing {
        out.extend(missing.iter().flat_map(|m| [String::new(), m.clone()]));
    }
    if !placed {
        for t in &new_tests {
            out.push(String::new());
            out.push(t.clone());
        }
        names.extend(new_names.iter().map(|n| n.to_string()));
    }
    // Old items no test needs any more (a mock only replaced tests used) are dropped, so the
    // file has no dead code.
    let merged = out.join("\n") + "\n";
    let unused: Vec<&Item> = old_items
        .iter()
        .filter(|it| !it.needs.is_empty())
        .filter(|it| {
            !it.needs
                .iter()
                .any(|ident| contains_ident(&merged, ident, &text_of(&old_lines, it)))
        })
        .collect();
    let merged = unused.iter().fold(merged, |text, it| {
        text.replacen(&format!("{}\n", text_of(&old_lines, it)), "", 1)
    });
    Some((merged, names))
}

/// Whether `ident` appears in `text` outside `own` (the item that defines it).
fn contains_ident(text: &str, ident: &str, own: &str) -> bool {
    text.replacen(own, "", 1)
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == ident)
}

/// The file's top-level items with their line spans.
fn items(text: &str) -> Option<Vec<Item>> {
    let file = syn::parse_file(text).ok()?;
    Some(
        file.items
            .iter()
            .map(|item| {
                let attrs: &[syn::Attribute] = match item {
                    syn::Item::Fn(f) => &f.attrs,
                    syn::Item::Struct(s) => &s.attrs,
                    syn::Item::Impl(i) => &i.attrs,
                    syn::Item::Use(u) => &u.attrs,
                    _ => &[],
                };
                let first = attrs
                    .first()
                    .map_or(item.span().start().line, |a| a.span().start().line);
                let test = match item {
                    syn::Item::Fn(f) if f.attrs.iter().any(|a| a.path().is_ident("test")) => {
                        Some(f.sig.ident.to_string())
                    }
                    _ => None,
                };
                let needs = match item {
                    syn::Item::Struct(s) => vec![s.ident.to_string()],
                    syn::Item::Impl(i) => match &*i.self_ty {
                        syn::Type::Path(p) => p
                            .path
                            .segments
                            .last()
                            .map(|s| vec![s.ident.to_string()])
                            .unwrap_or_default(),
                        _ => Vec::new(),
                    },
                    _ => Vec::new(),
                };
                Item {
                    test,
                    needs,
                    first,
                    last: item.span().end().line,
                }
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const OLD: &str =
        "// @generated by cargo-hermetic — `cargo hermetic generate` rewrites this file
use super::*;

#[test]
fn add_returns_3() {
    assert_eq!(add(1, 2), 3);
}

#[test]
fn halve_returns_2() {
    assert_eq!(halve(4), 2);
}

#[test]
fn halve_panics() {
    halve(0);
}

#[test]
fn negate_returns_minus_1() {
    assert_eq!(negate(1), -1);
}
";

    #[test]
    fn only_the_selected_function_s_tests_are_replaced_in_place() {
        let new = "// @generated by cargo-hermetic — `cargo hermetic generate --function halve` rewrites this file
use super::*;

#[test]
fn halve_returns_5() {
    assert_eq!(halve(10), 5);
}
";
        let (merged, names) = merge(OLD, new, &|n| n.starts_with("halve_")).unwrap();
        assert_eq!(
            names,
            ["add_returns_3", "halve_returns_5", "negate_returns_minus_1"]
        );
        assert_eq!(
            merged,
            OLD.replace(
                "#[test]\nfn halve_returns_2() {\n    assert_eq!(halve(4), 2);\n}\n\n#[test]\nfn halve_panics() {\n    halve(0);\n}\n",
                "#[test]\nfn halve_returns_5() {\n    assert_eq!(halve(10), 5);\n}\n"
            )
        );
    }

    #[test]
    fn tests_of_a_function_new_to_the_file_go_at_the_end_with_their_mock() {
        let new = "// @generated by cargo-hermetic
use super::*;

#[derive(Debug, Default)]
struct MockStore {}

#[test]
fn load_returns_1() {
    assert_eq!(load(&MockStore::default()), 1);
}
";
        let (merged, names) = merge(OLD, new, &|n| n.starts_with("load_")).unwrap();
        assert_eq!(names.last().map(String::as_str), Some("load_returns_1"));
        assert!(merged.starts_with(OLD.split("#[test]").next().unwrap()));
        let mock = merged.find("struct MockStore").unwrap();
        assert!(mock < merged.find("fn add_returns_3").unwrap(), "{merged}");
        assert!(
            merged.ends_with("assert_eq!(load(&MockStore::default()), 1);\n}\n"),
            "{merged}"
        );
    }

    #[test]
    fn a_mock_only_replaced_tests_used_goes_with_them() {
        let old = "// @generated by cargo-hermetic
use super::*;

#[derive(Debug, Default)]
struct MockStore {}

#[test]
fn load_returns_1() {
    assert_eq!(load(&MockStore::default()), 1);
}

#[test]
fn add_returns_3() {
    assert_eq!(add(1, 2), 3);
}
";
        let new = "// @generated by cargo-hermetic
use super::*;

#[test]
fn load_returns_2() {
    assert_eq!(load(&Store::new()), 2);
}
";
        let (merged, _) = merge(old, new, &|n| n.starts_with("load_")).unwrap();
        assert!(!merged.contains("MockStore"), "{merged}");
        assert!(merged.contains("fn load_returns_2"));
        assert!(merged.contains("fn add_returns_3"));
    }
}
