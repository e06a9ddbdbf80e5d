//! The coverage page (`--coverage-html FILE`): the crate's source files that have branches,
//! each line marked by whether tests take the branches that start on it, and a list of the
//! lines with branches no test takes, linked to them. One self-contained file, no scripts.

use crate::report::{Branch, Report};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::path::Path;

/// How a line's branches fared.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Mark {
    Covered,
    Partial,
    Uncovered,
}

impl Mark {
    fn class(self) -> &'static str {
        match self {
            Mark::Covered => "covered",
            Mark::Partial => "partial",
            Mark::Uncovered => "uncovered",
        }
    }
}

const STYLE: &str = "body{font-family:sans-serif;margin:1.5em}\
table{border-collapse:collapse;font-family:monospace;font-size:13px}\
td{padding:0 .6em;white-space:pre;vertical-align:top}\
td.n{color:#888;text-align:right;user-select:none}\
tr.covered td.s{background:#dff5df}tr.partial td.s{background:#fff3c4}\
tr.uncovered td.s{background:#fbd9d9}h2{font-size:1.1em;margin-top:2em}\
.legend span{padding:0 .5em;margin-right:.5em}";

/// The page's HTML.
pub fn page(report: &Report) -> String {
    let crate_dir = &report.crate_dir;
    let mut by_file: BTreeMap<&Path, BTreeMap<u32, Mark>> = BTreeMap::new();
    for Branch {
        file,
        line,
        covered,
    } in &report.branches
    {
        let lines = by_file.entry(file).or_default();
        let mark = match (lines.get(line), covered) {
            (None, true) => Mark::Covered,
            (None, false) => Mark::Uncovered,
            (Some(Mark::Covered), true) => Mark::Covered,
            (Some(Mark::Uncovered), false) => Mark::Uncovered,
            _ => Mark::Partial,
        };
        lines.insert(*line, mark);
    }
    let mut html = String::new();
    let title = format!("hermetic: branch coverage of {}", escape(&report.package));
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{title}</title>\
         <style>{STYLE}</style></head><body>\n<h1>{title}</h1>\n<p id=\"summary\">{} of {} \
         branches taken by the generated tests ({:.1}%).</p>\n<p class=\"legend\">\
         <span class=\"covered\" style=\"background:#dff5df\">all branches taken</span>\
         <span style=\"background:#fff3c4\">some taken</span>\
         <span style=\"background:#fbd9d9\">none taken</span></p>\n",
        report.goals_covered,
        report.goals_total,
        report.coverage_percent()
    );
    let missing: Vec<(&Path, u32)> = by_file
        .iter()
        .flat_map(|(f, lines)| {
            lines
                .iter()
                .filter(|(_, m)| **m != Mark::Covered)
                .map(move |(l, _)| (*f, *l))
        })
        .collect();
    if !missing.is_empty() {
        html += "<h2>Lines with branches no test takes</h2>\n<ul id=\"missing\">\n";
        for (file, line) in &missing {
            let id = anchor(file, *line);
            let _ = writeln!(
                html,
                "<li><a href=\"#{id}\">{}:{line}</a></li>",
                escape(&file.display().to_string())
            );
        }
        html += "</ul>\n";
    }
    for (file, marks) in &by_file {
        let name = escape(&file.display().to_string());
        let _ = writeln!(html, "<h2>{name}</h2>\n<table data-file=\"{name}\">");
        let source = std::fs::read_to_string(crate_dir.join(file)).unwrap_or_default();
        for (i, text) in source.lines().enumerate() {
            let n = i as u32 + 1;
            let class = marks
                .get(&n)
                .map(|m| format!(" class=\"{}\"", m.class()))
                .unwrap_or_default();
            let _ = writeln!(
                html,
                "<tr id=\"{}\"{class}><td class=\"n\">{n}</td><td class=\"s\">{}</td></tr>",
                anchor(file, n),
                escape(text)
            );
        }
        html += "</table>\n";
    }
    html += "</body></html>\n";
    html
}

fn anchor(file: &Path, line: u32) -> String {
    let file: String = file
        .display()
        .to_string()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    format!("{file}-{line}")
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn lines_are_marked_by_their_branches_and_the_missing_ones_listed() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("src/lib.rs"),
            "fn f(x: u8) -> bool {\n    if x < 3 {\n        true\n    } else {\n        false\n    }\n}\n",
        )
        .unwrap();
        let at = |line, covered| Branch {
            file: PathBuf::from("src/lib.rs"),
            line,
            covered,
        };
        let report = Report {
            package: "p<q>".into(),
            goals_total: 4,
            goals_covered: 2,
            branches: vec![at(2, true), at(3, true), at(5, false), at(2, false)],
            crate_dir: dir.path().to_path_buf(),
            ..Report::default()
        };
        let page = page(&report);
        assert!(page.contains("<title>hermetic: branch coverage of p&lt;q&gt;</title>"));
        assert!(
            page.contains("<tr id=\"src-lib-rs-3\" class=\"covered\">"),
            "{page}"
        );
        assert!(
            page.contains("<tr id=\"src-lib-rs-2\" class=\"partial\">"),
            "{page}"
        );
        assert!(page.contains("<tr id=\"src-lib-rs-5\" class=\"uncovered\"><td class=\"n\">5</td><td class=\"s\">        false</td></tr>"), "{page}");
        assert!(page.contains("<li><a href=\"#src-lib-rs-5\">src/lib.rs:5</a></li>"));
        assert!(page.contains("<tr id=\"src-lib-rs-1\"><td class=\"n\">1</td><td class=\"s\">fn f(x: u8) -&gt; bool {</td></tr>"));
    }
}
