//! Sources a script of the project writes are one decision. A project checks in what its
//! generators produce (BitBLAS' `integration/fastertransformer/kenrel_output/ladder_kernel.cu`,
//! written by `kernel_generator.py` from a template): reported line by line, the output reads
//! like port work, but an edit there is lost at the next run. A porter takes one decision per
//! generator: port the generator and its templates, then regenerate.
//!
//! A source is generated when a Python file of the project, in the source's folder or above it:
//! - spells the source's file name as a string (`"ladder_kernel.cu"`, `'out/ladder_kernel.cu'`),
//! - opens a file for writing within a few lines of that string (`open(path, mode="w")`,
//!   `open(p, 'wb')`, `.write_text(`),
//! - and spells, as strings, every folder between its own folder and the source's
//!   (`"kenrel_output"`).
//!
//! Sources in vendored or nested copies are left to those decisions.

use super::kind::{Kind, Min};
use crate::finding::Finding;
use crate::gate::Status;
use std::collections::{BTreeMap, BTreeSet};

/// Lines around a file name within which a write must be opened.
const NEAR: usize = 12;

/// The generated sources among the files with open findings, each with the script that writes
/// it and the line that names it (see the module documentation). `rels` are the tree's files;
/// `others()` the texts of its other files (the Python files are read), asked only where the
/// tree has Python files; `skip` whether a file belongs to another decision (vendored, nested).
pub fn files<'o>(
    findings: &[Finding],
    rels: &[&str],
    others: &dyn Fn() -> &'o [(String, Vec<u8>)],
    skip: &dyn Fn(&str) -> bool,
) -> BTreeMap<String, (String, usize)> {
    let candidates: BTreeSet<&str> = findings
        .iter()
        .filter(|f| f.status != Status::Pass && crate::walk::is_source(&f.path) && !skip(&f.path))
        .map(|f| f.path.as_str())
        .collect();
    let mut out = BTreeMap::new();
    // The other files are read only for a tree with Python scripts and open sources.
    if candidates.is_empty() || !rels.iter().any(|r| r.ends_with(".py")) {
        return out;
    }
    for (script, bytes) in others() {
        if !script.ends_with(".py") || skip(script) {
            continue;
        }
        let Ok(text) = std::str::from_utf8(bytes) else {
            continue;
        };
        if !writes(text) {
            continue;
        }
        let dir = script.rsplit_once('/').map_or("", |(d, _)| d);
        let lines: Vec<&str> = text.lines().collect();
        let strings: BTreeSet<&str> = quoted(text).collect();
        for h in &candidates {
            if out.contains_key(*h) {
                continue;
            }
            let below = if dir.is_empty() {
                Some(*h)
            } else {
                h.strip_prefix(dir).and_then(|r| r.strip_prefix('/'))
            };
            let Some(below) = below else { continue };
            let (folders, name) = below.rsplit_once('/').unwrap_or(("", below));
            // Every folder between the script and the source spelled as a string or a string's
            // path part.
            let spelled = |seg: &str| strings.iter().any(|s| s.split('/').any(|p| p == seg));
            if !folders.is_empty() && !folders.split('/').all(spelled) {
                continue;
            }
            // A line that names the file with a write opened near it (the call may span
            // lines: `open(\n path, mode="w")`).
            let written_at = (0..lines.len()).find(|&i| {
                quoted(lines[i]).any(|s| s == name || s.ends_with(&format!("/{name}")))
                    && writes(
                        &lines[i.saturating_sub(NEAR)..(i + NEAR + 1).min(lines.len())].join("\n"),
                    )
            });
            if let Some(at) = written_at {
                out.insert(h.to_string(), (script.clone(), at + 1));
            }
        }
    }
    out
}

/// Whether Python text opens a file for writing.
fn writes(text: &str) -> bool {
    text.contains(".write_text(")
        || text.contains(".write_bytes(")
        || (text.contains("open(")
            && [
                "\"w\"", "'w'", "\"wb\"", "'wb'", "\"w+\"", "'w+'", "\"wt\"", "'wt'",
            ]
            .iter()
            .any(|m| text.contains(m)))
}

/// The contents of the one-line string literals of Python text (`"a.cu"`, `'x/a.cu'`).
fn quoted(text: &str) -> impl Iterator<Item = &str> {
    text.lines().flat_map(|l| {
        let mut out = Vec::new();
        let mut rest = l;
        while let Some(p) = rest.find(['"', '\'']) {
            let q = rest.as_bytes()[p] as char;
            let after = &rest[p + 1..];
            let Some(e) = after.find(q) else { break };
            out.push(&after[..e]);
            rest = &after[e + 1..];
        }
        out
    })
}

/// The generated-source decision: the open findings of the sources one script writes, held by
/// the first.
pub fn kind(generated: BTreeMap<String, (String, usize)>) -> Kind {
    let by_file = generated.clone();
    Kind {
        key: Box::new(move |f: &Finding| generated.get(&f.path).map(|(g, _)| g.clone())),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(move |g| {
            let names: BTreeSet<&str> = g.members.iter().map(|f| f.path.as_str()).collect();
            let line = names
                .iter()
                .find_map(|n| by_file.get(*n).map(|(_, l)| *l))
                .unwrap_or(1);
            let shown: Vec<String> = names.iter().take(3).map(|n| format!("`{n}`")).collect();
            let more = names.len().saturating_sub(3);
            format!(
                " — one decision: {}{} {} written by `{}:{}`, a generator of the project: port \
                 the generator and its templates for HIP and regenerate, rather than editing its \
                 output ({} more findings in {} files are folded here: {})",
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} other files")
                } else {
                    String::new()
                },
                if names.len() == 1 { "is" } else { "are" },
                g.key,
                line,
                g.folded.len(),
                g.files(),
                g.by_rule()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, &format!("`{}` writes this file, one decision", g.key))
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(path: &str, line: u32) -> Finding {
        let mut f = Finding::bare("HP201", path, line);
        f.status = Status::Remediation;
        f
    }

    fn run(files: &[(&str, &str)]) -> BTreeMap<String, (String, usize)> {
        let found: Vec<Finding> = files
            .iter()
            .filter(|(p, _)| crate::walk::is_source(p))
            .map(|(p, _)| open(p, 3))
            .collect();
        let others: Vec<(String, Vec<u8>)> = files
            .iter()
            .filter(|(p, _)| !crate::walk::is_source(p))
            .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
            .collect();
        files_of(&found, &others)
    }

    fn files_of(
        found: &[Finding],
        others: &[(String, Vec<u8>)],
    ) -> BTreeMap<String, (String, usize)> {
        let rels: Vec<&str> = others.iter().map(|(p, _)| p.as_str()).collect();
        files(found, &rels, &|| others, &|p: &str| {
            p.starts_with("third_party/")
        })
    }

    const GEN: &str = "import os\n\
        cur = os.path.dirname(__file__)\n\
        out = os.path.join(cur, \"kenrel_output\")\n\
        kernel_path = os.path.join(out, \"ladder_kernel.cu\")\n\
        header_path = os.path.join(out, 'ladder_kernel.h')\n\
        with open(template, mode=\"r\") as r, open(\n\
        \x20       kernel_path, mode=\"w\", encoding=\"utf8\") as f:\n\
        \x20   f.write(data)\n";

    /// BitBLAS' shape: a checked-in kernel and header a script beside their folder writes.
    /// Twins: a source of another folder the script does not spell, a script that only reads
    /// the name, a source above the script, a vendored copy.
    #[test]
    fn sources_a_script_writes_are_generated() {
        let files = [
            ("integration/ft/kernel_generator.py", GEN),
            ("integration/ft/kenrel_output/ladder_kernel.cu", ""),
            ("integration/ft/kenrel_output/ladder_kernel.h", ""),
            ("integration/ft/other/ladder_kernel.cu", ""),
            ("integration/ladder_kernel.cu", ""),
            (
                "tools/check.py",
                "src = open(\"csrc/k.cu\").read()\nopen(log, 'w')\n",
            ),
            ("csrc/k.cu", ""),
            ("third_party/x/gen.py", "open(\"a.cu\", \"w\")\n"),
            ("third_party/x/a.cu", ""),
        ];
        let got = run(&files);
        let names: Vec<&str> = got.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "integration/ft/kenrel_output/ladder_kernel.cu",
                "integration/ft/kenrel_output/ladder_kernel.h"
            ]
        );
        assert_eq!(
            got["integration/ft/kenrel_output/ladder_kernel.cu"],
            ("integration/ft/kernel_generator.py".to_string(), 4)
        );
    }

    /// A name far from any write (a list of sources in a script that writes a log at its end)
    /// is no generated source.
    #[test]
    fn a_name_far_from_the_write_is_not_generated() {
        let mut script = String::from("SOURCES = [\"k.cu\"]\n");
        for i in 0..30 {
            script.push_str(&format!("x{i} = {i}\n"));
        }
        script.push_str("open(\"log.txt\", \"w\").write(str(SOURCES))\n");
        let files = [
            ("build_tools/list.py", script.as_str()),
            ("build_tools/k.cu", ""),
        ];
        assert!(run(&files).is_empty());
    }

    /// Three findings in two generated files of one script fold into one open finding that
    /// names the script and the line.
    #[test]
    fn the_decision_names_the_generator() {
        let files = [
            ("g/kernel_generator.py", GEN),
            ("g/kenrel_output/ladder_kernel.cu", ""),
            ("g/kenrel_output/ladder_kernel.h", ""),
        ];
        let mut fs = vec![
            open("g/kenrel_output/ladder_kernel.cu", 3),
            open("g/kenrel_output/ladder_kernel.cu", 9),
            open("g/kenrel_output/ladder_kernel.h", 4),
            open("g/k.cu", 1),
        ];
        let others = vec![(files[0].0.to_string(), files[0].1.as_bytes().to_vec())];
        let gen = files_of(&fs, &others);
        super::super::fold(&mut fs, &kind(gen));
        let open_ones: Vec<&Finding> = fs.iter().filter(|f| f.status != Status::Pass).collect();
        assert_eq!(open_ones.len(), 2);
        assert!(
            open_ones[0]
                .message
                .contains("are written by `g/kernel_generator.py:4`"),
            "{}",
            open_ones[0].message
        );
    }
}
