//! A project's own copy of a CUDA library that the port replaces with the library's ROCm
//! counterpart is one decision. dumerrill/merge-spmv keeps CUB 1.x in `cub/` and includes it as
//! `<cub/device/device_spmv.cuh>`; the port includes `<hipcub/device/device_spmv.hpp>` there,
//! so the ROCm build compiles none of the copy. Read line by line, the copy is 34 findings (its
//! PTX, its own `CUB_SMEM_BANKS` and `CubVector` read as missing CUB names) on code no ROCm
//! build reads. What a porter decides is once: check that the ROCm library has what the project
//! uses from the copy (the translator's findings on the project's own files name what it lacks,
//! `CubDebugExit`), then leave the copy out of the ROCm build.
//!
//! A folder is such a copy when some file outside it includes one of its files by a library
//! path the port rewrites to a different ROCm header (`cub/…` → `hipcub/…`), and no compilation
//! unit outside it reaches any of its files once the rewritten includes are followed to the
//! ROCm headers instead (a relative `"../cub/util_ptx.cuh"` the port keeps still reaches it:
//! then the copy is compiled and its findings stay). Its folder is the include's library folder
//! at the place the file sits (`third/cub/` for `third/cub/cub.cuh` reached as `cub/cub.cuh`).

use super::kind::{Kind, Min};
use crate::finding::Finding;
use crate::gate::Status;
use std::collections::{BTreeMap, BTreeSet};

const UNITS: [&str; 5] = ["cu", "cpp", "cc", "cxx", "c"];

fn unit(rel: &str) -> bool {
    rel.rsplit_once('.')
        .is_some_and(|(_, e)| UNITS.contains(&e.to_ascii_lowercase().as_str()))
}

/// One replaced copy: its folder, the ROCm header folder the port includes instead
/// (`hipcub`), and how many includes of it in how many files the port rewrites.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Copy {
    pub root: String,
    pub rocm: String,
    pub includes: usize,
    pub files: usize,
}

/// The replaced copies of a tree and, for each file with open findings inside one, its copy's
/// index in `list`.
#[derive(Clone, Debug, Default)]
pub struct Copies {
    pub list: Vec<Copy>,
    pub files: BTreeMap<String, usize>,
}

/// The tree's replaced copies. `includes` are every source's includes as written (`<` before an
/// angled path); `port(path)` is the header the port writes for an include path, when it writes
/// a different one.
pub fn copies(
    findings: &[Finding],
    rels: &[&str],
    includes: &[(String, Vec<String>)],
    port: &dyn Fn(&str) -> Option<String>,
) -> Copies {
    let open: BTreeSet<&str> = findings
        .iter()
        .filter(|f| f.status != Status::Pass)
        .map(|f| f.path.as_str())
        .collect();
    if open.is_empty() {
        return Default::default();
    }
    let targets = crate::model::includes::Targets::new(rels);
    // Candidate folders: the library folder of each rewritten include that lands in the tree.
    let mut roots: BTreeMap<String, (String, usize, BTreeSet<&str>)> = BTreeMap::new();
    for (from, incs) in includes {
        for inc in incs {
            let inc = inc.trim_start_matches('<');
            let Some((lib, _)) = inc.split_once('/') else {
                continue;
            };
            let Some(hip) = port(inc) else {
                continue;
            };
            let rocm = hip.split('/').next().unwrap_or(&hip).to_string();
            for t in targets.of(from, inc) {
                if t.len() < inc.len() {
                    continue;
                }
                let root = format!("{}{lib}", &t[..t.len() - inc.len()]);
                if from.starts_with(&format!("{root}/")) {
                    continue;
                }
                let e = roots
                    .entry(root)
                    .or_insert((rocm.clone(), 0, BTreeSet::new()));
                e.1 += 1;
                e.2.insert(from.as_str());
            }
        }
    }
    if roots.is_empty() {
        return Default::default();
    }
    let inside = |r: &str| {
        roots
            .keys()
            .any(|root| r.starts_with(root.as_str()) && r[root.len()..].starts_with('/'))
    };
    // What the ROCm build reaches: from the units outside the copies, following the includes
    // the port keeps.
    let edges: std::collections::HashMap<&str, &Vec<String>> =
        includes.iter().map(|(f, i)| (f.as_str(), i)).collect();
    let mut reached: BTreeSet<&str> = BTreeSet::new();
    let mut todo: Vec<&str> = rels
        .iter()
        .copied()
        .filter(|r| unit(r) && !inside(r))
        .collect();
    while let Some(f) = todo.pop() {
        if !reached.insert(f) {
            continue;
        }
        for inc in edges.get(f).map(|v| v.as_slice()).unwrap_or_default() {
            let inc = inc.trim_start_matches('<');
            if port(inc).is_some() {
                continue;
            }
            todo.extend(
                targets
                    .of(f, inc)
                    .into_iter()
                    .filter(|t| !reached.contains(t)),
            );
        }
    }
    let mut out = Vec::new();
    let mut files = BTreeMap::new();
    for (root, (rocm, n, from)) in roots {
        let prefix = format!("{root}/");
        if rels
            .iter()
            .any(|r| r.starts_with(&prefix) && reached.contains(r))
        {
            continue;
        }
        let members: Vec<&str> = open
            .iter()
            .copied()
            .filter(|p| p.starts_with(&prefix))
            .collect();
        if members.is_empty() {
            continue;
        }
        for p in members {
            files.entry(p.to_string()).or_insert(out.len());
        }
        out.push(Copy {
            root,
            rocm,
            includes: n,
            files: from.len(),
        });
    }
    Copies { list: out, files }
}

/// The decision: the open findings inside each replaced copy, held by the first.
pub fn kind(copies: Copies) -> Kind {
    let Copies {
        list: copies,
        files,
    } = copies;
    Kind {
        key: Box::new(move |f: &Finding| files.get(&f.path).map(|i| format!("replaced {i}"))),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(move |g| {
            let i: usize = g.key.trim_start_matches("replaced ").parse().unwrap_or(0);
            let c = &copies[i.min(copies.len() - 1)];
            format!(
                " — one decision: `{root}/` is the project's own copy of a CUDA library, and the \
                 port includes the ROCm library's headers (`{rocm}/…`) where the project \
                 includes the copy ({n} include{s} in {files} file{fs}), so the ROCm build \
                 compiles none of it: check that `{rocm}` has what the project uses from the copy \
                 (the findings on the project's own files name what it lacks), then leave the \
                 copy out of the ROCm build; {more} more findings in {in_files} files of the copy \
                 are folded here ({rules})",
                root = c.root,
                rocm = c.rocm,
                n = c.includes,
                s = if c.includes == 1 { "" } else { "s" },
                files = c.files,
                fs = if c.files == 1 { "" } else { "s" },
                more = g.folded.len(),
                in_files = g.files(),
                rules = g.by_rule(),
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(
                g,
                "a copy of a CUDA library the port replaces with its ROCm counterpart, one decision",
            )
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(path: &str, line: u32) -> Finding {
        let mut f = Finding::bare("HP001", path, line);
        f.status = Status::Remediation;
        f
    }

    fn port(inc: &str) -> Option<String> {
        inc.strip_prefix("cub/")
            .map(|r| format!("hipcub/{}", r.replace(".cuh", ".hpp")))
    }

    fn incs(v: &[(&str, &[&str])]) -> Vec<(String, Vec<String>)> {
        v.iter()
            .map(|(f, i)| (f.to_string(), i.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    /// merge-spmv: `gpu_spmv.cu` includes the bundled CUB by library paths the port rewrites;
    /// the copy's findings are one decision, the project's own stay open.
    #[test]
    fn a_copy_the_port_replaces_is_one_decision() {
        let rels = [
            "gpu_spmv.cu",
            "utils.h",
            "cub/device/device_spmv.cuh",
            "cub/util_ptx.cuh",
            "cub/block/block_load.cuh",
        ];
        let includes = incs(&[
            ("gpu_spmv.cu", &["<cub/device/device_spmv.cuh", "utils.h"]),
            (
                "cub/device/device_spmv.cuh",
                &["../util_ptx.cuh", "../block/block_load.cuh"],
            ),
            ("cub/block/block_load.cuh", &["../util_ptx.cuh"]),
        ]);
        let mut fs = vec![
            open("cub/block/block_load.cuh", 398),
            open("cub/util_ptx.cuh", 94),
            open("cub/util_ptx.cuh", 301),
            open("gpu_spmv.cu", 137),
        ];
        let found = copies(&fs, &rels, &includes, &port);
        assert_eq!(found.list.len(), 1);
        assert_eq!(found.list[0].root, "cub");
        assert_eq!(found.list[0].rocm, "hipcub");
        crate::decisions::fold(&mut fs, &kind(found));
        let open: Vec<_> = fs.iter().filter(|f| f.status != Status::Pass).collect();
        assert_eq!(open.len(), 2);
        assert!(open[0].message.contains("`cub/` is the project's own copy"));
        assert!(open[0].message.contains("(`hipcub/…`)"));
        assert_eq!(open[1].path, "gpu_spmv.cu");
    }

    /// Twin: a unit that also includes the copy by a relative path the port keeps compiles it;
    /// so does one that reaches it through a header of its own. Nothing folds.
    #[test]
    fn a_copy_still_reached_stays_open() {
        let rels = [
            "src/a.cu",
            "src/b.cu",
            "src/own.h",
            "third/cub/cub.cuh",
            "third/cub/util_ptx.cuh",
        ];
        let fs = vec![
            open("third/cub/util_ptx.cuh", 9),
            open("third/cub/util_ptx.cuh", 12),
        ];
        for kept in ["../third/cub/util_ptx.cuh", "own.h"] {
            let includes = incs(&[
                ("src/a.cu", &["<cub/cub.cuh"]),
                ("src/b.cu", &[kept]),
                ("src/own.h", &["../third/cub/cub.cuh"]),
                ("third/cub/cub.cuh", &["util_ptx.cuh"]),
            ]);
            let found = copies(&fs, &rels, &includes, &port);
            assert!(found.list.is_empty() && found.files.is_empty(), "{kept}");
        }
        // Without the kept include, the copy at `third/cub/` is replaced.
        let includes = incs(&[
            ("src/a.cu", &["<cub/cub.cuh"]),
            ("third/cub/cub.cuh", &["util_ptx.cuh"]),
        ]);
        let found = copies(&fs, &rels, &includes, &port);
        assert_eq!(found.list[0].root, "third/cub");
        assert_eq!(found.files.len(), 1);
    }
}
