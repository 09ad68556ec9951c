//! One decision per copy of another project nested in this one outside a vendor folder
//! (`examples/hyena/flash-attention/` holding the whole upstream tree: its own `setup.py`s, its
//! own LICENSE, README and training scripts). Each of its PTX lines, gencode flags, nvcc probes
//! and NVML imports is otherwise a finding of its own; a porter takes one decision for the copy —
//! port it upstream, or replace it with that project's ROCm build — as for a vendored library
//! (`rules::vendored`).
//!
//! A nested project is a folder other than the scanned root that is a project root of its own:
//! it holds a licence file (`LICENSE*`, `LICENCE*`, `COPYING*`) and a build root (`setup.py`,
//! `pyproject.toml`, or a `CMakeLists.txt` that declares `project(`). Not one:
//! - the root project itself, and a scan of a folder that is no project (no licence and no build
//!   file at its root: a collection of projects, each of them the root of its own scan);
//! - a sub-package of the project with its own build but no licence of its own, or with a copy
//!   of the root's licence (the project packaging itself: `python/LICENSE` beside
//!   `python/setup.py`);
//! - a folder with a licence whose build is the parent's (no build root of its own), except
//!   directly under a `contrib/` or `deps/` folder, where a licence of its own marks another
//!   project's code;
//! - a folder inside a vendor folder: that is the vendored decision's.
//!
//! The outermost nested project holds everything below it, its own vendored copies included.

use super::kind::{Kind, Min};
use crate::finding::Finding;
use std::collections::{BTreeMap, BTreeSet};

/// Whether a file name is a licence file.
fn is_licence(name: &str) -> bool {
    let up = name.to_ascii_uppercase();
    ["LICENSE", "LICENCE", "COPYING"]
        .iter()
        .any(|p| up.starts_with(p))
}

/// Whether a `CMakeLists.txt` declares a project (`project(` at the start of a line).
fn declares_project(text: &[u8]) -> bool {
    String::from_utf8_lossy(text).lines().any(|l| {
        let l = l.trim_start().to_ascii_lowercase();
        l.strip_prefix("project")
            .is_some_and(|rest| rest.trim_start().starts_with('('))
    })
}

/// A licence text compared without layout: a copy of the root's licence is the same text.
fn normalised(text: &[u8]) -> String {
    String::from_utf8_lossy(text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The folders (no trailing `/`) of the scanned tree that are copies of another project,
/// outermost only. `rels` are the tree's files; `read` gives a file's text (licence files and
/// `CMakeLists.txt`).
pub fn roots(rels: &[&str], read: &dyn Fn(&str) -> Option<Vec<u8>>) -> Vec<String> {
    // Folder -> (licence files, whether it has a build root, whether it has any build file).
    let mut dirs: BTreeMap<&str, (Vec<&str>, bool, bool)> = BTreeMap::new();
    for rel in rels {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        let e = dirs.entry(dir).or_default();
        if is_licence(name) {
            e.0.push(rel);
        }
        let build = match name {
            "setup.py" | "pyproject.toml" => true,
            "CMakeLists.txt" => read(rel).is_some_and(|t| declares_project(&t)),
            _ => false,
        };
        e.1 |= build;
        e.2 |= build
            || matches!(
                name,
                "CMakeLists.txt"
                    | "Makefile"
                    | "meson.build"
                    | "setup.cfg"
                    | "BUILD"
                    | "BUILD.bazel"
            );
    }
    let Some((root_licences, _, root_build)) = dirs.get("") else {
        return Vec::new();
    };
    if root_licences.is_empty() && !root_build {
        return Vec::new();
    }
    let root_texts: BTreeSet<String> = root_licences
        .iter()
        .filter_map(|p| read(p))
        .map(|t| normalised(&t))
        .collect();
    let mut out: Vec<String> = Vec::new();
    for (dir, (licences, build, _)) in &dirs {
        // Under a `contrib/` or `deps/` folder a licence of its own is enough: such folders
        // hold other projects' code built by the parent (warp-ctc's
        // `include/contrib/moderngpu/`, its LICENSE and headers only).
        let parent = dir.rsplit_once('/').map_or("", |(p, _)| p);
        let beside_deps = matches!(
            parent
                .rsplit('/')
                .next()
                .unwrap_or(parent)
                .to_ascii_lowercase()
                .as_str(),
            "contrib" | "deps"
        );
        if dir.is_empty() || licences.is_empty() || !(*build || beside_deps) {
            continue;
        }
        if dir.split('/').any(crate::rules::vendored::is_vendor_dir) {
            continue;
        }
        let own_licence = licences
            .iter()
            .filter_map(|p| read(p))
            .any(|t| !root_texts.contains(&normalised(&t)));
        if !own_licence {
            continue;
        }
        // BTreeMap order: an outer folder comes before the folders below it.
        if out.iter().any(|o| dir.starts_with(&format!("{o}/"))) {
            continue;
        }
        out.push(dir.to_string());
    }
    out
}

/// The nested project a path is in, if any.
pub use crate::model::folders::root_of;

/// The nested-project decision: the open findings of a copy of another project, held by its
/// first REMEDIATION finding (else its first).
pub fn kind(roots: Vec<String>) -> Kind {
    Kind {
        key: Box::new(move |f| root_of(&roots, &f.path).cloned()),
        head: super::kind::first_remediation,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one decision for `{}/`, a copy of another project (its own licence and \
                 build): {} more findings in {} files are folded here ({}); port it upstream or \
                 replace it with that project's ROCm build",
                g.key,
                g.folded.len(),
                g.files(),
                g.by_rule()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(
                g,
                &format!("`{}/` is a copy of another project, one decision", g.key),
            )
        }),
    }
}

/// Whether a finding lies in one of the nested projects (later, finer kinds leave it alone).
pub fn inside(roots: &[String], f: &Finding) -> bool {
    root_of(roots, &f.path).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BSD: &str = "BSD 3-Clause License\nCopyright (c) 2022, Tri Dao";
    const APACHE: &str = "Apache License\nVersion 2.0";

    /// A tree of (path, text) files.
    fn tree(files: &[(&str, &str)]) -> Vec<String> {
        let rels: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
        let read = |p: &str| {
            files
                .iter()
                .find(|(q, _)| *q == p)
                .map(|(_, t)| t.as_bytes().to_vec())
        };
        roots(&rels, &read)
    }

    #[test]
    fn a_folder_with_its_own_licence_and_build_is_a_copy() {
        let r = tree(&[
            ("LICENSE", APACHE),
            ("setup.py", ""),
            ("examples/hyena/flash-attention/LICENSE", BSD),
            ("examples/hyena/flash-attention/setup.py", ""),
            ("examples/hyena/flash-attention/csrc/rotary/setup.py", ""),
            ("examples/hyena/flash-attention/csrc/ft/LICENSE", APACHE),
            ("examples/hyena/flash-attention/csrc/ft/setup.py", ""),
            ("tools/cm/COPYING", BSD),
            (
                "tools/cm/CMakeLists.txt",
                "cmake_minimum_required(VERSION 3.18)\nproject (cm CXX)\n",
            ),
        ]);
        // The outermost copy only; a CMake project counts.
        assert_eq!(r, ["examples/hyena/flash-attention", "tools/cm"]);
    }

    /// Under `contrib/` or `deps/`, a licence of its own is enough (headers built by the
    /// parent, warp-ctc's `include/contrib/moderngpu/`); twins: elsewhere a licence without a
    /// build root is not, nor a `contrib/` folder with the root's licence or none.
    #[test]
    fn a_licensed_folder_under_contrib_or_deps_is_a_copy() {
        let r = tree(&[
            ("LICENSE", APACHE),
            ("CMakeLists.txt", "project(x)"),
            ("include/contrib/moderngpu/LICENSE", BSD),
            ("include/contrib/moderngpu/include/device/ctascan.cuh", ""),
            ("deps/zlib/LICENSE", BSD),
            ("deps/zlib/adler32.c", ""),
            ("kernels/LICENSE", BSD),
            ("kernels/k.cu", ""),
            ("contrib/ours/LICENSE", APACHE),
            ("contrib/ours/a.cu", ""),
            ("contrib/plain/a.cu", ""),
        ]);
        assert_eq!(r, ["deps/zlib", "include/contrib/moderngpu"]);
    }

    #[test]
    fn the_projects_own_folders_are_not_copies() {
        let r = tree(&[
            ("LICENSE", APACHE),
            ("CMakeLists.txt", "project(x)"),
            // A sub-package with its own build and no licence.
            ("python/sub/setup.py", ""),
            // A sub-package shipping a copy of the root's licence.
            ("python/LICENSE", "Apache License\n\nVersion 2.0\n"),
            ("python/setup.py", ""),
            // A licence but the parent's build (a CMakeLists.txt with no `project(`).
            ("kernels/LICENSE", BSD),
            ("kernels/CMakeLists.txt", "add_library(k k.cu)"),
            // Inside a vendor folder: the vendored decision's.
            ("third_party/fi/LICENSE", BSD),
            ("third_party/fi/setup.py", ""),
        ]);
        assert!(r.is_empty(), "{r:?}");
        // Twin: no project at the scanned root (a folder of projects): none folds.
        let r = tree(&[("a/LICENSE", BSD), ("a/setup.py", ""), ("README.md", "")]);
        assert!(r.is_empty(), "{r:?}");
        // Twin of the first: the sub-package's own, different licence makes it a copy.
        let r = tree(&[
            ("LICENSE", APACHE),
            ("python/LICENSE", BSD),
            ("python/setup.py", ""),
        ]);
        assert_eq!(r, ["python"]);
    }

    #[test]
    fn root_of_matches_whole_folders() {
        let roots = vec!["ex/fa".to_string()];
        assert_eq!(
            root_of(&roots, "ex/fa/csrc/a.cu").map(String::as_str),
            Some("ex/fa")
        );
        assert_eq!(root_of(&roots, "ex/fa2/a.cu"), None);
        assert_eq!(root_of(&roots, "ex/fa"), None);
    }
}
