//! Headers no file includes are one decision. A project keeps headers beside its compiled
//! sources that nothing includes any more (stable-fast's `operators/cutlass/lookup_activation.h`
//! beside the `.cu` files its `setup.py` compiles): no build, and so no ROCm build, compiles
//! them. Reported line by line they read like port work; a porter takes one decision: port
//! them with the code that will include them again, or remove them.
//!
//! A header is unincluded when, in a project with a build file:
//! - its folder holds compilation units (`.cu`, `.cpp`, `.cc`, `.cxx`, `.c`): it sits among
//!   the sources of a build, not in a header-only library;
//! - another header of its folder is included: the folder's include graph is seen (a tree of
//!   excerpts whose includers were not kept shows none);
//! - no folder on its path is named `include` (a public interface other projects include);
//! - no `#include` of any source resolves to it or names its file name (`<pkg/x.h>` through a
//!   `-I` folder), and no other file the project keeps (build files, Python, scripts, data)
//!   spells its file name (a run-time compiler or an install rule may name it);
//! - it is not inside a vendored or nested copy (their own decisions hold those).

use super::kind::{Kind, Min};
use crate::finding::Finding;
use crate::gate::Status;
use std::collections::BTreeSet;

const UNITS: [&str; 5] = ["cu", "cpp", "cc", "cxx", "c"];

/// Whether a source includes a header a macro names: it may be any header, so none is known
/// to be unincluded (graphblast's `#include __GRB_BACKEND_HEADER` reaches `backend/cuda/`).
fn computed<'a>(mut includes: impl Iterator<Item = &'a (String, Vec<String>)>) -> bool {
    includes.any(|(_, v)| v.iter().any(|i| i == crate::model::includes::COMPUTED))
}

fn ext(rel: &str) -> String {
    rel.rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default()
}

/// The unincluded headers among the files with open findings (see the module documentation).
/// `rels` are the tree's files; `includes` every source's `#include` paths as written;
/// `others()` the texts of the tree's other files (build files, scripts, Python, Rust), read
/// only when a header is a candidate; `skip` whether a file belongs to another decision
/// (vendored, nested). A file among the others that writes `#include` lines (nccl's
/// `src/device/generate.py`) generates sources: no header in its folder or below is judged.
pub fn headers<'o>(
    findings: &[Finding],
    rels: &[&str],
    includes: &[(String, Vec<String>)],
    others: &dyn Fn() -> &'o [(String, Vec<u8>)],
    skip: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    if !rels.iter().any(|r| crate::inventory::kind::is_build(r)) || computed(includes.iter()) {
        return Vec::new();
    }
    let candidates: BTreeSet<&str> = findings
        .iter()
        .filter(|f| f.status != Status::Pass && crate::walk::is_header(&f.path))
        .map(|f| f.path.as_str())
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let unit_dirs: BTreeSet<&str> = rels
        .iter()
        .filter(|r| UNITS.contains(&ext(r).as_str()))
        .map(|r| r.rsplit_once('/').map_or("", |(d, _)| d))
        .collect();
    // Every include, resolved from its file's folder, and every file name an include names.
    let mut resolved: BTreeSet<String> = BTreeSet::new();
    let mut named: BTreeSet<&str> = BTreeSet::new();
    for (from, incs) in includes {
        for i in incs {
            let i = i.trim_start_matches('<');
            resolved.insert(crate::model::includes::join(
                crate::model::includes::dir_of(from),
                i,
            ));
            named.insert(i.rsplit('/').next().unwrap_or(i));
        }
    }
    let included = |h: &str| {
        let name = h.rsplit('/').next().unwrap_or(h);
        resolved.contains(h) || named.contains(name)
    };
    // Folders where some header is included: their include graph is seen (a tree of
    // excerpts, whose includers were not kept, shows none).
    let seen_dirs: BTreeSet<&str> = rels
        .iter()
        .filter(|r| crate::walk::is_header(r) && included(r))
        .map(|r| r.rsplit_once('/').map_or("", |(d, _)| d))
        .collect();
    let candidates: Vec<&str> = candidates
        .into_iter()
        .filter(|h| {
            let (dir, name) = h.rsplit_once('/').unwrap_or(("", h));
            unit_dirs.contains(dir)
                && seen_dirs.contains(dir)
                && !dir.split('/').any(|p| p.eq_ignore_ascii_case("include"))
                && !skip(h)
                && !resolved.contains(*h)
                && !named.contains(name)
        })
        .collect();
    if candidates.is_empty() {
        return Vec::new();
    }
    let others = others();
    let generators: Vec<&str> = others
        .iter()
        .filter(|(_, b)| memchr::memmem::find(b, b"#include").is_some())
        .map(|(r, _)| r.rsplit_once('/').map_or("", |(d, _)| d))
        .collect();
    candidates
        .into_iter()
        .filter(|h| {
            let name = h.rsplit('/').next().unwrap_or(h);
            !generators
                .iter()
                .any(|g| g.is_empty() || h.starts_with(&format!("{g}/")))
                && !others
                    .iter()
                    .any(|(r, b)| r != h && memchr::memmem::find(b, name.as_bytes()).is_some())
        })
        .map(str::to_string)
        .collect()
}

/// Headers with open findings that no compilation unit of the tree reaches through the include
/// graph (Bonsai keeps a copy of the b40c library under `runtime/include/b40c/` whose headers
/// include one another while no source includes any of them, and a driver-API header
/// `include/my_cuda.h` its sources replaced with `my_cuda_rt.h`). An include is followed to the
/// file it resolves to from the includer's folder, or else to every file whose path ends with
/// it (`b40c/util/spine.cuh` through a `-I` root), so a header some unit may reach is never
/// judged. Judged only where the graph is seen (some unit includes a project header); a header a
/// file of another kind spells by name (a run-time compile, an install rule), one the project
/// installs (`install(DIRECTORY …)`, `PUBLIC_HEADER`), or one in a vendored or nested copy is
/// left alone, and so is a CUTLASS/CuTe header, which its component's rewrite holds.
pub fn unreached<'o>(
    findings: &[Finding],
    rels: &[&str],
    includes: &[&(String, Vec<String>)],
    others: &dyn Fn() -> &'o [(String, Vec<u8>)],
    skip: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    if computed(includes.iter().copied()) {
        return Vec::new();
    }
    // A CUTLASS/CuTe header (HP603) goes with its component's rewrite.
    let cutlass: BTreeSet<&str> = findings
        .iter()
        .filter(|f| f.rule == "HP603")
        .map(|f| f.path.as_str())
        .collect();
    let candidates: BTreeSet<&str> = findings
        .iter()
        .filter(|f| {
            f.status != Status::Pass
                && crate::walk::is_header(&f.path)
                && !skip(&f.path)
                && !cutlass.contains(f.path.as_str())
        })
        .map(|f| f.path.as_str())
        .collect();
    if candidates.is_empty() || !rels.iter().any(|r| crate::inventory::kind::is_build(r)) {
        return Vec::new();
    }
    let edges: std::collections::HashMap<&str, &Vec<String>> =
        includes.iter().map(|(f, i)| (f.as_str(), i)).collect();
    let targets = crate::model::includes::Targets::new(rels);
    let mut reached: BTreeSet<&str> = BTreeSet::new();
    let mut todo: Vec<&str> = rels
        .iter()
        .copied()
        .filter(|r| UNITS.contains(&ext(r).as_str()))
        .collect();
    let mut project_edge = false;
    while let Some(f) = todo.pop() {
        if !reached.insert(f) {
            continue;
        }
        for inc in edges.get(f).map(|v| v.as_slice()).unwrap_or_default() {
            for t in targets.of(f, inc) {
                project_edge |= UNITS.contains(&ext(f).as_str());
                if !reached.contains(t) {
                    todo.push(t);
                }
            }
        }
    }
    if !project_edge {
        return Vec::new();
    }
    let left: Vec<&str> = candidates
        .into_iter()
        .filter(|h| !reached.contains(h))
        .collect();
    if left.is_empty() {
        return Vec::new();
    }
    let others = others();
    // The folders of build files that install headers: an install rule installs what lies in
    // its own folder's tree (Eigen's `install(FILES …)` in a copy under `Include/` says nothing
    // of the project's other headers).
    let installers: Vec<&str> = others
        .iter()
        .filter(|(r, b)| {
            crate::inventory::kind::is_build(r) && {
                let t = String::from_utf8_lossy(b).to_ascii_lowercase();
                t.contains("public_header")
                    || t.match_indices("install(").any(|(i, _)| {
                        let args = t[i..].split(')').next().unwrap_or("");
                        args.contains("directory") || args.contains("files")
                    })
            }
        })
        .map(|(r, _)| crate::model::includes::dir_of(r))
        .collect();
    left.into_iter()
        .filter(|h| {
            let name = h.rsplit('/').next().unwrap_or(h);
            !installers
                .iter()
                .any(|d| d.is_empty() || h.starts_with(&format!("{d}/")))
                && !others
                    .iter()
                    .any(|(r, b)| r != h && memchr::memmem::find(b, name.as_bytes()).is_some())
        })
        .map(str::to_string)
        .collect()
}

/// The unincluded-header decision: the open findings of those headers, held by the first.
pub fn kind(headers: Vec<String>) -> Kind {
    Kind {
        key: Box::new(move |f: &Finding| {
            headers
                .contains(&f.path)
                .then(|| "unincluded headers".to_string())
        }),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            let names: BTreeSet<&str> = g.members.iter().map(|f| f.path.as_str()).collect();
            let shown: Vec<String> = names.iter().take(3).map(|n| format!("`{n}`")).collect();
            let more = names.len().saturating_sub(3);
            format!(
                " — one decision: no source file of the project includes {}{} (directly or \
                 through other headers) and no build file or script names {}, so no build \
                 compiles {}: port with the code that will include them again, or remove them \
                 ({} more findings in {} files are folded here: {})",
                shown.join(", "),
                if more > 0 {
                    format!(" and {more} other headers")
                } else {
                    String::new()
                },
                if names.len() == 1 { "it" } else { "them" },
                if names.len() == 1 { "it" } else { "them" },
                g.folded.len(),
                g.files(),
                g.by_rule()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(g, "no file includes this header, one decision")
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(path: &str) -> Finding {
        let mut f = Finding::bare("HP001", path, 3);
        f.status = Status::Remediation;
        f
    }

    /// A fixture's include lists and the texts of its files that are neither units nor headers.
    #[allow(clippy::type_complexity)]
    fn graph(
        files: &[(&str, &str)],
        includes: &[(&str, &[&str])],
    ) -> (Vec<(String, Vec<String>)>, Vec<(String, Vec<u8>)>) {
        let incs = includes
            .iter()
            .map(|(f, i)| (f.to_string(), i.iter().map(|s| s.to_string()).collect()))
            .collect();
        let texts = files
            .iter()
            .filter(|(p, _)| !UNITS.contains(&ext(p).as_str()) && !crate::walk::is_header(p))
            .map(|(p, t)| (p.to_string(), t.as_bytes().to_vec()))
            .collect();
        (incs, texts)
    }

    fn run(files: &[(&str, &str)], includes: &[(&str, &[&str])]) -> Vec<String> {
        let rels: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
        let found: Vec<Finding> = rels
            .iter()
            .filter(|r| crate::walk::is_header(r))
            .map(|r| open(r))
            .collect();
        let (incs, texts) = graph(files, includes);
        headers(&found, &rels, &incs, &|| texts.as_slice(), &|p: &str| {
            p.starts_with("third_party/")
        })
    }

    /// stable-fast's shape: a header beside the compiled sources that no source includes.
    /// Twins: a header included by its quoted path, one through a `-I` root by file name, one
    /// a Python file names (a run-time compile), one a `build.rs` lists, a public `include/`
    /// header, a header-only folder, a vendored copy, headers beside a script that writes
    /// `#include` lines (nccl's `generate.py`), a folder none of whose headers is included (a
    /// tree of excerpts), a tree without a build file.
    #[test]
    fn headers_no_file_includes_are_one_decision() {
        let files = [
            (
                "setup.py",
                "ext = CUDAExtension('x', glob('csrc/**/*.cu'))\n",
            ),
            ("csrc/ops/a.cu", ""),
            ("csrc/ops/used.h", ""),
            ("csrc/ops/rooted.cuh", ""),
            ("csrc/ops/dead.h", ""),
            ("csrc/ops/jit.cuh", ""),
            ("csrc/include/api.h", ""),
            ("csrc/include/b.cu", ""),
            ("csrc/headers_only/lib.cuh", ""),
            ("third_party/lib/c.cu", ""),
            ("third_party/lib/v.h", ""),
            ("pkg/load.py", "src = open('csrc/ops/jit.cuh').read()\n"),
            ("csrc/ops/watched.h", ""),
            ("build.rs", "let watched = [\"csrc/ops/watched.h\"];\n"),
            ("gen/generate.py", "out.write(f'#include \"{op}.h\"')\n"),
            ("gen/k.cu", ""),
            ("gen/all_gather.h", ""),
            ("excerpts/k.cu", ""),
            ("excerpts/reduce.cuh", ""),
        ];
        let includes: [(&str, &[&str]); 2] = [
            ("csrc/ops/a.cu", &["used.h"]),
            ("csrc/include/b.cu", &["<pkg/ops/rooted.cuh"]),
        ];
        assert_eq!(run(&files, &includes), ["csrc/ops/dead.h"]);
        let no_build: Vec<(&str, &str)> = files
            .iter()
            .copied()
            .filter(|(p, _)| *p != "setup.py")
            .collect();
        assert!(run(&no_build, &includes).is_empty());
        // graphblast's `#include __GRB_BACKEND_HEADER`: a header a macro names may be any, so
        // none is judged unincluded.
        let computed: [(&str, &[&str]); 3] = [
            includes[0],
            includes[1],
            ("csrc/ops/a.cu", &[crate::model::includes::COMPUTED]),
        ];
        assert!(run(&files, &computed).is_empty());
    }

    /// Bonsai's shape: a copy of b40c whose headers include one another, and a driver-API header,
    /// that no source reaches. Twins: a header reached through another header, one through a
    /// `-I` root by its path's tail, a CUTLASS header (its component's), a header a script
    /// names, a project that installs its headers (but not a copy of another library that installs
    /// its own), a tree where no unit includes anything.
    #[test]
    fn headers_no_unit_reaches_are_one_decision() {
        let files = [
            (
                "runtime/CMakeLists.txt",
                "cmake_minimum_required(VERSION 2.8)\n",
            ),
            ("runtime/src/main.cu", ""),
            ("runtime/include/my_cuda_rt.h", ""),
            ("runtime/include/common.h", ""),
            ("runtime/include/my_cuda.h", ""),
            ("runtime/include/b40c/radix_sort/enactor.cuh", ""),
            ("runtime/include/b40c/util/spine.cuh", ""),
            ("runtime/include/b40c/util/used.cuh", ""),
            ("runtime/include/cutlass_ext/tma.hpp", ""),
            ("runtime/include/jit.cuh", ""),
            ("tools/load.py", "open('jit.cuh')\n"),
        ];
        let includes: [(&str, &[&str]); 3] = [
            (
                "runtime/src/main.cu",
                &["../include/my_cuda_rt.h", "<b40c/util/used.cuh"],
            ),
            ("runtime/include/my_cuda_rt.h", &["common.h"]),
            (
                "runtime/include/b40c/radix_sort/enactor.cuh",
                &["../util/spine.cuh"],
            ),
        ];
        let go = |files: &[(&str, &str)], includes: &[(&str, &[&str])]| -> Vec<String> {
            let rels: Vec<&str> = files.iter().map(|(p, _)| *p).collect();
            let mut found: Vec<Finding> = rels
                .iter()
                .filter(|r| crate::walk::is_header(r))
                .map(|r| open(r))
                .collect();
            found.push(Finding {
                rule: "HP603".into(),
                ..open("runtime/include/cutlass_ext/tma.hpp")
            });
            let (incs, texts) = graph(files, includes);
            let incs: Vec<&(String, Vec<String>)> = incs.iter().collect();
            unreached(&found, &rels, &incs, &|| texts.as_slice(), &|_: &str| false)
        };
        assert_eq!(
            go(&files, &includes),
            [
                "runtime/include/b40c/radix_sort/enactor.cuh",
                "runtime/include/b40c/util/spine.cuh",
                "runtime/include/my_cuda.h"
            ]
        );
        let mut installed = files.to_vec();
        installed[0] = (
            "runtime/CMakeLists.txt",
            "cmake_minimum_required(VERSION 2.8)\ninstall(DIRECTORY include/ DESTINATION include)\n",
        );
        assert!(go(&installed, &includes).is_empty());
        // VoxelHashing: a copy of Eigen under `third/eigen/` installs its own headers; that
        // says nothing of the project's.
        let mut eigen = files.to_vec();
        eigen.push((
            "third/eigen/CMakeLists.txt",
            "install(FILES Core DESTINATION include/eigen)\n",
        ));
        assert_eq!(go(&eigen, &includes).len(), 3);
        assert!(go(&files, &[]).is_empty());
    }

    /// Three findings in one unincluded header fold into one open finding naming it.
    #[test]
    fn the_decision_names_the_headers() {
        let mut fs = vec![open("x/dead.h"), open("x/dead.h"), open("x/a.cu")];
        fs[1].line = 9;
        super::super::fold(&mut fs, &kind(vec!["x/dead.h".into()]));
        let open_ones: Vec<&Finding> = fs.iter().filter(|f| f.status != Status::Pass).collect();
        assert_eq!(open_ones.len(), 2);
        assert!(
            open_ones[0]
                .message
                .contains("no source file of the project includes `x/dead.h`"),
            "{}",
            open_ones[0].message
        );
    }
}
