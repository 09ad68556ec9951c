//! Code built on a library with no ROCm counterpart is one decision. A TensorRT backend
//! (`backend_ops/tensorrt/*/`: plugins whose every unit includes the project's
//! `trt_plugin_base.hpp`, which includes `NvInferRuntime.h`) is reported today file by file: the
//! TensorRT includes, the cuBLAS handle in the plugin interface TensorRT dictates, the cuDNN
//! calls of one plugin, the libraries its CMake file links. None of it builds without TensorRT,
//! which has no ROCm build: what a person decides is once, for the library: leave that code out
//! of the ROCm build, or rewrite it for another runtime (MIGraphX for TensorRT).
//!
//! The model: a file is *bound* to a library with no ROCm counterpart
//! (`mappings/hand/libraries.tsv`, empty ROCm column) when it uses the library itself (any
//! finding naming its API or headers, whatever its status) or includes, through the project's
//! own quoted includes, a file bound to it within the folder above the user's folder (a
//! plugin base header binds the plugins beside it; an umbrella header that includes an
//! optional solver does not bind every program); so is a project file that only bound files
//! include.
//! A *region* is the widest folder below the tree's
//! root whose every file with an open finding is bound, or is a build file (CMake, Make, setup.py…) of a
//! folder with bound files beneath it and nothing else open, and which holds a user of the
//! library itself. All open findings in a library's regions, and its Python imports
//! where that library is the only one named, fold into one finding per library.

use super::kind::{Group, Kind, Min};
use crate::finding::Finding;
use crate::gate::Status;
use crate::mappings::libraries::{self, Library};
use std::collections::{BTreeMap, BTreeSet};

/// A library with no ROCm counterpart and the folders of code built only with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    pub library: String,
    pub folders: Vec<String>,
}

fn dir_of(p: &str) -> &str {
    p.rsplit_once('/').map_or(".", |(d, _)| d)
}

/// Whether `p` is `dir` or below it.
fn under(p: &str, dir: &str) -> bool {
    dir == "." || p == dir || p.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// The library without a ROCm counterpart a finding uses (any status).
fn bare_library(f: &Finding) -> Option<&'static Library> {
    super::library_use::library_of(f).filter(|l| l.rocm.is_none())
}

/// The library an open Python import finding (HP821) names as its only package.
fn python_library(f: &Finding) -> Option<&'static Library> {
    if f.rule != "HP821" || f.message.matches(" (`").count() != 1 {
        return None;
    }
    libraries::table()
        .iter()
        .filter(|l| l.rocm.is_none())
        .find(|l| f.message.contains(&format!(": {} (`", l.name)))
}

/// The regions of each library without a ROCm counterpart (see the module documentation).
/// `includes` are each source's quoted includes as written; `rels` every file of the run.
pub fn regions(
    findings: &[Finding],
    includes: &[(String, Vec<String>)],
    rels: &[&str],
) -> Vec<Region> {
    let mut direct: BTreeMap<&'static str, BTreeSet<String>> = BTreeMap::new();
    for f in findings {
        if let Some(l) = bare_library(f) {
            direct
                .entry(l.name.as_str())
                .or_default()
                .insert(f.path.clone());
        }
    }
    if direct.is_empty() {
        return Vec::new();
    }
    // The project's include graph, reversed: who includes each file.
    let known: BTreeSet<&str> = rels.iter().copied().collect();
    let roots = crate::model::includes::roots(rels.iter().copied());
    // A quoted include the folder and the conventional roots do not resolve is found through
    // the build's `-I` folders, which are not read here: a file name only one project file has
    // is that file (`#include "trt_plugin_base.hpp"` from each plugin's folder).
    let mut by_name: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for r in rels {
        by_name
            .entry(r.rsplit('/').next().unwrap_or(r))
            .or_default()
            .push(r);
    }
    let mut includers: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (rel, incs) in includes {
        for i in incs {
            let exists = |p: &str| known.contains(p);
            let to =
                crate::model::includes::resolve(rel, i, &roots, &exists).or_else(|| match by_name
                    .get(i.rsplit('/').next().unwrap_or(i))
                    .map(Vec::as_slice)
                {
                    Some([one]) if one.ends_with(i.as_str()) => Some(one.to_string()),
                    _ => None,
                });
            if let Some(to) = to {
                includers.entry(to).or_default().push(rel.as_str());
            }
        }
    }
    let open: Vec<&str> = findings
        .iter()
        .filter(|f| f.status != Status::Pass)
        .map(|f| f.path.as_str())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut out = Vec::new();
    for (lib, files) in direct {
        // Bound files: the users and, transitively, their includers within the user's
        // neighbourhood (the folder above the user's folder): a plugin base header binds the
        // plugins beside it, while an umbrella header that includes an optional solver
        // (`matx.h` → `solve_cudss.h`) does not bind every program of the project.
        let mut bound: BTreeSet<String> = files.clone();
        let mut todo: Vec<(String, String)> = files
            .iter()
            .map(|f| {
                let d = dir_of(f);
                let up = if d == "." { "." } else { dir_of(d) };
                let scope = if up == "." { d } else { up };
                (f.clone(), scope.to_string())
            })
            .collect();
        let users = files;
        while let Some((f, scope)) = todo.pop() {
            for by in includers.get(&f).into_iter().flatten() {
                if under(by, &scope) && bound.insert(by.to_string()) {
                    todo.push((by.to_string(), scope.clone()));
                }
            }
        }
        // A project file only bound files include is part of that code too
        // (`scaled_dot_product_attention_kernel.hpp`, included by the plugin alone).
        loop {
            let more: Vec<String> = includers
                .iter()
                .filter(|(to, by)| !bound.contains(*to) && by.iter().all(|b| bound.contains(*b)))
                .map(|(to, _)| to.clone())
                .collect();
            if more.is_empty() {
                break;
            }
            bound.extend(more);
        }
        let folders: BTreeSet<&str> = bound.iter().map(|f| dir_of(f)).collect();
        // A build file is part of a region when the folder it builds has bound files beneath
        // it and every other open file beneath it is bound.
        let ok = |p: &str| {
            if bound.contains(p) {
                return true;
            }
            let d = dir_of(p);
            crate::inventory::kind::is_build(p)
                && d != "."
                && folders.iter().any(|b| under(b, d))
                && open
                    .iter()
                    .filter(|q| under(q, d) && !crate::inventory::kind::is_build(q))
                    .all(|q| bound.contains(*q))
        };
        let mut tops: BTreeSet<String> = BTreeSet::new();
        for b in &folders {
            if *b == "." {
                continue;
            }
            // Climb while the whole subtree's open files belong to the library.
            let mut top: Option<&str> = None;
            let mut a: &str = b;
            while a != "." && open.iter().filter(|q| under(q, a)).all(|q| ok(q)) {
                top = Some(a);
                a = dir_of(a);
            }
            if let Some(t) = top.filter(|t| users.iter().any(|u| under(u, t))) {
                tops.insert(t.to_string());
            }
        }
        // Outermost only.
        let all: Vec<String> = tops.iter().cloned().collect();
        let folders: Vec<String> = all
            .iter()
            .filter(|t| !all.iter().any(|o| o != *t && under(t, o)))
            .cloned()
            .collect();
        if !folders.is_empty() {
            out.push(Region {
                library: lib.to_string(),
                folders,
            });
        }
    }
    out
}

/// The region of `path`, if any: the library's name.
fn region_of<'r>(regions: &'r [Region], path: &str) -> Option<&'r Region> {
    regions
        .iter()
        .find(|r| r.folders.iter().any(|d| under(path, d)))
}

/// What the head of a region's decision says: a later decision on the same library (its use
/// outside the regions) joins this head instead of opening a second one.
const MARK: &str = "builds only with it";

/// Whether `f` holds the decision of code built only with `library`.
pub fn is_head_for(f: &Finding, library: &str) -> bool {
    f.message.contains(&format!(
        " — one decision: {library} has no ROCm counterpart"
    )) && f.message.contains(MARK)
}

/// The decision: open findings in a library's regions, and its own Python imports.
pub fn kind(regions: Vec<Region>) -> Kind {
    let rs = regions.clone();
    Kind {
        key: Box::new(move |f: &Finding| {
            if let Some(r) = region_of(&rs, &f.path) {
                return Some(r.library.clone());
            }
            let l = python_library(f)?;
            rs.iter()
                .find(|r| r.library == l.name)
                .map(|r| r.library.clone())
        }),
        head: |m| {
            Some(
                m.iter()
                    .position(|f| f.status == Status::Remediation && bare_library(f).is_some())
                    .or_else(|| m.iter().position(|f| f.status == Status::Remediation))
                    .unwrap_or(0),
            )
        },
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(move |g: &Group| {
            let lib = libraries::table().iter().find(|l| l.name == g.key);
            let note = lib.map_or(String::new(), |l| format!(" ({})", l.note));
            let folders = regions
                .iter()
                .find(|r| r.library == g.key)
                .map(|r| {
                    let shown: Vec<String> = r
                        .folders
                        .iter()
                        .take(4)
                        .map(|d| format!("`{d}/`"))
                        .collect();
                    match r.folders.len().saturating_sub(4) {
                        0 => shown.join(", "),
                        more => format!("{} and {more} more folders", shown.join(", ")),
                    }
                })
                .unwrap_or_default();
            format!(
                " — one decision: {} has no ROCm counterpart{note}, and the code in {folders} {MARK} (its files include it directly or through the project's own headers): leave that code out of the ROCm build, or rewrite it for a ROCm runtime ({} more findings in {} files folded here: {})",
                g.key,
                g.folded.len(),
                g.files(),
                g.by_rule()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(
                g,
                &format!(
                    "code built only with {}, which has no ROCm counterpart: one decision",
                    g.key
                ),
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::decisions::test_support::open;

    fn f(rule: &str, path: &str, line: u32, msg: &str) -> Finding {
        Finding {
            message: msg.into(),
            ..Finding::bare(rule, path, line)
        }
    }

    fn trt(path: &str, line: u32) -> Finding {
        f(
            "HP004",
            path,
            line,
            "`NvInferRuntime.h` has no HIP counterpart in ROCm 7.2: TensorRT has no ROCm counterpart",
        )
    }

    #[test]
    fn a_backend_built_only_with_tensorrt_is_one_decision() {
        // mmdeploy's shape: plugins include the project's base header, which includes TensorRT.
        let rels = [
            "ops/trt/CMakeLists.txt",
            "ops/trt/common/base.hpp",
            "ops/trt/norm/norm.cpp",
            "ops/trt/norm/norm.hpp",
            "ops/trt/attn/attn.cu",
            "ops/common/kernel.cu",
            "codebase/cc.cu",
        ];
        let includes = vec![
            (
                "ops/trt/norm/norm.hpp".to_string(),
                vec!["../common/base.hpp".to_string()],
            ),
            (
                "ops/trt/norm/norm.cpp".to_string(),
                vec!["norm.hpp".to_string()],
            ),
            (
                "ops/trt/attn/attn.cu".to_string(),
                vec!["../common/base.hpp".to_string()],
            ),
        ];
        let mut fs = vec![
            f("HP851", "ops/trt/CMakeLists.txt", 28, "links CUDA library cublas"),
            trt("ops/trt/common/base.hpp", 4),
            f("HP001", "ops/trt/common/base.hpp", 39, "`cublasContext` has no HIP equivalent (blas API)"),
            f("HP001", "ops/trt/norm/norm.cpp", 76, "`cudnnSetTensor4dDescriptor` has no HIP equivalent (dnn API)"),
            f("HP601", "ops/trt/attn/attn.cu", 69, "`cudnnCreate`: MIOpen's equivalent needs a different call sequence"),
            // Outside the backend: its own findings.
            f("HP015", "codebase/cc.cu", 72, "32-bit mask"),
            f("HP102", "ops/common/kernel.cu", 3, "lane id"),
            // A Python import of TensorRT alone joins; one that names two packages does not.
            f("HP821", "py/necks.py", 31, "the Python modules in `py/` import NVIDIA-only packages with no ROCm build: TensorRT (`tensorrt`) in 1 file"),
            f("HP821", "py/calib.py", 5, "the Python modules in `py2/` import NVIDIA-only packages with no ROCm build: TensorRT (`tensorrt`) in 4 files, PyCUDA (`pycuda`) in 2 files"),
        ];
        let rs = regions(&fs, &includes, &rels);
        assert_eq!(
            rs,
            [Region {
                library: "TensorRT".into(),
                folders: vec!["ops/trt".into()]
            }]
        );
        super::super::fold(&mut fs, &kind(rs));
        assert_eq!(
            open(&fs),
            [
                ("ops/trt/common/base.hpp", 4),
                ("codebase/cc.cu", 72),
                ("ops/common/kernel.cu", 3),
                ("py/calib.py", 5)
            ]
        );
        let m = &fs[1].message;
        assert!(m.contains("TensorRT has no ROCm counterpart"), "{m}");
        assert!(m.contains("`ops/trt/`"), "{m}");
        assert!(fs[0].message.contains("code built only with TensorRT"));
    }

    #[test]
    fn a_folder_with_other_open_code_is_not_a_region() {
        // Negative twin: the TensorRT user sits beside a file with open work that does not
        // include it: the folder is not the library's.
        let rels = ["net/trt_net.h", "net/ppl.cpp"];
        let fs = vec![
            trt("net/trt_net.h", 6),
            f("HP851", "net/ppl.cpp", 17, "links CUDA library nvrtc"),
        ];
        let rs = regions(&fs, &[], &rels);
        assert!(rs.is_empty(), "{rs:?}");
        // An umbrella header that includes an optional solver binds nothing beyond the
        // solver's neighbourhood (MatX: `matx.h` → `operators/solve.h` → `solve_cudss.h`).
        let rels = [
            "include/lib/transforms/solve/solve_cudss.h",
            "include/lib/transforms/solve/solve_dense.h",
            "include/lib/operators/solve.h",
            "include/lib.h",
            "bench/b.cu",
        ];
        let includes = vec![
            (
                "include/lib/operators/solve.h".to_string(),
                vec!["lib/transforms/solve/solve_cudss.h".to_string()],
            ),
            (
                "include/lib.h".to_string(),
                vec!["lib/operators/solve.h".to_string()],
            ),
            ("bench/b.cu".to_string(), vec!["lib.h".to_string()]),
        ];
        let fs = vec![
            f(
                "HP001",
                "include/lib/transforms/solve/solve_cudss.h",
                83,
                "`cudssCreate` has no HIP equivalent (sparse API)",
            ),
            f(
                "HP001",
                "include/lib/transforms/solve/solve_cudss.h",
                84,
                "`cudssConfigCreate` has no HIP equivalent (sparse API)",
            ),
            f(
                "HP001",
                "include/lib/transforms/solve/solve_dense.h",
                9,
                "`cusolverDnXsyevd` has no HIP equivalent (solver API)",
            ),
            f(
                "HP002",
                "bench/b.cu",
                5,
                "`cudaProfilerStart` → `hipProfilerStart`, deprecated",
            ),
        ];
        assert!(regions(&fs, &includes, &rels).is_empty());
        // A library with a ROCm counterpart is never a region.
        let fs = vec![
            f(
                "HP601",
                "dnn/a.cpp",
                1,
                "`cudnnCreate`: MIOpen's equivalent needs a different call sequence",
            ),
            f(
                "HP001",
                "dnn/a.cpp",
                2,
                "`cudnnSetTensor4dDescriptor` has no HIP equivalent (dnn API)",
            ),
        ];
        assert!(regions(&fs, &[], &["dnn/a.cpp"]).is_empty());
    }
}
