//! Sources no build file compiles are one decision. A CMake project keeps folders of
//! benchmarks, experiments or old tools (`faiss/gpu/perf/`: `PerfFlat.cu`, `PerfIVFPQ.cu`) that
//! no `CMakeLists.txt`, CMake module, Makefile or `setup.py` names: the project's build, and so
//! its ROCm build, never compiles them. Reported line by line they read like port work; a porter
//! takes one decision for the folder: build and port it, or leave it out.
//!
//! A folder is unbuilt when, in a project with a `CMakeLists.txt` at its root and no recursive
//! glob (`file(GLOB_RECURSE …)`, which may pick up any folder):
//! - it holds compilation units (`.cu`, `.cpp`, `.cc`, `.cxx`, `.c`) and no build file of its own,
//!   or only a `CMakeLists.txt` without a `project()` that no build file outside the folder
//!   reaches (a part of the CMake build nothing adds);
//! - no build file names the folder as a path part (`add_subdirectory(perf)`, `gpu/perf/x.cu`)
//!   nor any of its units by file name or stem;
//! - it is not inside a vendored or nested copy (their own decisions hold those).
//!
//! The outermost unbuilt folder holds the folders below it.

use super::kind::{Kind, Min};
use crate::finding::Finding;
use std::collections::{BTreeMap, BTreeSet};

const UNITS: [&str; 5] = ["cu", "cpp", "cc", "cxx", "c"];

/// The unbuilt folders of a tree (see the module documentation). `rels` are the tree's files;
/// `read` gives a build file's text; `skip` says whether a folder belongs to another decision
/// (vendored, nested).
pub fn roots(
    rels: &[&str],
    read: &dyn Fn(&str) -> Option<Vec<u8>>,
    skip: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    // The project's CMake builds: the root's `CMakeLists.txt`, or (a project that keeps its
    // build in a folder, cuml's `cpp/`) each top-level `CMakeLists.txt` that is a project's top:
    // it declares a `project()` or a `cmake_minimum_required()` (Bonsai's `runtime/`, whose
    // CMake 2.8 file has no `project()`). Only units under them are judged.
    let build_roots: Vec<String> = if rels.contains(&"CMakeLists.txt") {
        vec![String::new()]
    } else {
        let lists: Vec<&str> = rels
            .iter()
            .filter_map(|r| r.strip_suffix("/CMakeLists.txt"))
            .collect();
        lists
            .iter()
            .filter(|d| {
                !lists
                    .iter()
                    .any(|o| o != *d && d.starts_with(&format!("{o}/")))
            })
            .filter(|d| {
                read(&format!("{d}/CMakeLists.txt"))
                    .is_some_and(|t| is_top(&String::from_utf8_lossy(&t)))
            })
            .map(|d| d.to_string())
            .collect()
    };
    let under_root = |dir: &str| {
        build_roots
            .iter()
            .any(|r| r.is_empty() || dir.starts_with(&format!("{r}/")))
    };
    let mut build_texts: Vec<String> = Vec::new();
    let mut build_files: Vec<(&str, usize)> = Vec::new();
    let mut dirs_with_build: BTreeSet<&str> = BTreeSet::new();
    let mut units: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for rel in rels {
        let (dir, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        if crate::inventory::kind::is_build(rel) {
            dirs_with_build.insert(dir);
            if let Some(t) = read(rel) {
                build_files.push((rel, build_texts.len()));
                build_texts.push(without_comments(&String::from_utf8_lossy(&t)));
            }
        } else if name
            .rsplit_once('.')
            .is_some_and(|(_, e)| UNITS.contains(&e.to_ascii_lowercase().as_str()))
        {
            units.entry(dir).or_default().push(name);
        }
    }
    // A recursive glob may pick up any folder below its base: those folders are left alone.
    let Some(glob_bases) = recursive_glob_bases(&build_files, &build_texts) else {
        return Vec::new();
    };
    let globbed = |dir: &str| {
        glob_bases.iter().any(|b| {
            dir == b
                || dir.starts_with(&format!("{b}/"))
                || dir.ends_with(&format!("/{b}"))
                || dir.contains(&format!("/{b}/"))
        })
    };
    // Every path segment the build files spell (tokens split at anything that is not a name
    // character, `.` or `/`, then at `/`: `gpu/perf/PerfFlat.cu` gives `gpu`, `perf`,
    // `PerfFlat.cu`), and the segments that follow a `/` (`extra/k`: `k`), one pass.
    let mut segments: BTreeSet<&str> = BTreeSet::new();
    let mut after_slash: BTreeSet<&str> = BTreeSet::new();
    for t in &build_texts {
        for token in
            t.split(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '/')))
        {
            for (k, seg) in token.split('/').enumerate() {
                let seg = seg.trim_end_matches('.');
                if seg.is_empty() {
                    continue;
                }
                segments.insert(seg);
                if k > 0 {
                    after_slash.insert(seg);
                }
            }
        }
    }
    // A unit is named by its file name, its object, or its stem as a path segment; a bare stem
    // counts only when it is not a plain word (`format.cu` is not named by `string(FORMAT …)`
    // or a `format` target of another folder, `gemm_s4_f16.cu` is by `gemm_s4_f16`).
    let unit_named = |f: &str| {
        let stem = f.rsplit_once('.').map_or(f, |(s, _)| s);
        segments.contains(f)
            || segments.contains(format!("{stem}.o").as_str())
            || segments.contains(format!("{stem}.obj").as_str())
            || after_slash.contains(stem)
            || (segments.contains(stem) && !stem.bytes().all(|b| b.is_ascii_lowercase()))
    };
    // A glob that may match compilation units picks up a folder's files without naming them;
    // one for headers only (magma's `file(GLOB headers include/*.h)`) does not.
    let reach: Option<Vec<(String, bool)>> = build_files
        .iter()
        .map(|(r, t)| unit_glob_reach(r, &build_texts[*t]))
        .collect::<Option<Vec<_>>>()
        .map(|v| v.into_iter().flatten().collect());
    let globs_here = |dir: &str| {
        reach.as_ref().is_none_or(|v| {
            v.iter().any(|(b, below)| {
                dir == b || (*below && (b.is_empty() || dir.starts_with(&format!("{b}/"))))
            })
        })
    };
    // Parts of a CMake build nothing adds and Makefile folders nothing runs are judged in a
    // CMake project; standalone CMake projects nothing runs, beside any root build.
    let mut orphans = Vec::new();
    if !build_roots.is_empty() {
        orphans = orphan_cmake_dirs(&dirs_with_build, &build_files, &build_texts, skip);
        orphans.extend(orphan_make_dirs(
            rels,
            &dirs_with_build,
            &build_files,
            &build_texts,
            read,
            skip,
        ));
    }
    orphans.extend(orphan_standalone_dirs(
        rels,
        &build_files,
        &build_texts,
        read,
        skip,
    ));
    let mut out: Vec<String> = Vec::new();
    for (dir, files) in &units {
        if dir.is_empty() || skip(dir) || globbed(dir) {
            continue;
        }
        if out.iter().any(|o| dir.starts_with(&format!("{o}/"))) {
            continue;
        }
        if let Some(o) = orphans
            .iter()
            .find(|o| *dir == o.as_str() || dir.starts_with(&format!("{o}/")))
        {
            out.push(o.clone());
            continue;
        }
        if !under_root(dir) {
            continue;
        }
        if dirs_with_build.contains(dir) {
            // A folder with its own build file that lists its units one by one (magma's
            // `testing/Makefile.src`): a unit no build file names, by file name, object or
            // (in the folder's own build files, where `all: saxpy` builds `saxpy.cu`) stem, is
            // unbuilt alone.
            if !globs_here(dir) && files.iter().any(|f| segments.contains(*f)) {
                let prefix = format!("{dir}/");
                let own: Vec<&str> = build_files
                    .iter()
                    .filter(|(r, _)| r.strip_prefix(&prefix).is_some_and(|n| !n.contains('/')))
                    .map(|(_, t)| build_texts[*t].as_str())
                    .collect();
                for f in files.iter().filter(|f| !unit_named(f)) {
                    let stem = f.rsplit_once('.').map_or(*f, |(s, _)| s);
                    let by_stem = own.iter().any(|t| {
                        t.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                            .any(|w| w == stem)
                    });
                    if !by_stem {
                        out.push(format!("{dir}/{f}"));
                    }
                }
            }
            continue;
        }
        let last = dir.rsplit('/').next().unwrap_or(dir);
        let named = segments.contains(last) || files.iter().any(|f| unit_named(f));
        if !named {
            out.push(dir.to_string());
        } else if !globs_here(dir) {
            // A built folder's unit no build file names (aphrodite's
            // `marlin_cuda_kernel_zero.cu` beside the listed `marlin_cuda_kernel.cu`), where the
            // folder's units are listed one by one: the file alone.
            let listed = files.iter().filter(|f| segments.contains(**f)).count();
            if listed > 0 {
                for f in files.iter().filter(|f| !unit_named(f)) {
                    out.push(format!("{dir}/{f}"));
                }
            }
        }
    }
    out
}

/// Where a build file's patterns may pick up compilation units without naming them: a CMake
/// `file(GLOB…)`, a Make `$(wildcard …)` or `$(shell ls …)` whose pattern's tail after its last
/// `*` is empty, has another wildcard, or ends in a unit's extension (`*.cu`, `*`, `*.c*`).
/// Each such pattern reaches its folder (from the root and from the build file's folder; a
/// recursive glob also the folders below), and anywhere when a variable other than the build
/// file's own folder spells it (`$(cdir)/*.cpp`) or for CMake's `aux_source_directory`. A
/// pattern for headers or data (magma's `file(GLOB headers include/*.h)`) reaches none.
/// `None`: anywhere.
fn unit_glob_reach(rel: &str, text: &str) -> Option<Vec<(String, bool)>> {
    let lower = text.to_ascii_lowercase();
    if lower.contains("aux_source_directory") {
        return None;
    }
    let here = rel.rsplit_once('/').map_or("", |(d, _)| d);
    let unit_tail = |w: &str| {
        let Some((_, tail)) = w.rsplit_once('*') else {
            return false;
        };
        tail.is_empty()
            || tail.contains(['?', '[', '$'])
            || UNITS
                .iter()
                .any(|e| tail.to_ascii_lowercase().ends_with(&format!(".{e}")))
    };
    let mut out = Vec::new();
    for key in ["glob", "wildcard", "shell"] {
        for (at, _) in lower.match_indices(key) {
            let recursive = lower[at..].starts_with("glob_recurse");
            // The call's arguments, to the parenthesis that closes it (`$(wildcard $(S)/*.cu)`).
            let mut depth = 1usize;
            let end = text[at..]
                .char_indices()
                .find(|(_, c)| {
                    match c {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    depth == 0
                })
                .map_or(text.len(), |(i, _)| at + i);
            for w in text[at..end].split(|c: char| c.is_whitespace() || c == ',') {
                let w = w.trim_matches(|c| c == '"' || c == '\'' || c == ')');
                if !unit_tail(w) {
                    continue;
                }
                let head = w.split('*').next().unwrap_or("");
                let folder = head.rsplit_once('/').map_or("", |(d, _)| d);
                let mut own = false;
                let folder = folder
                    .split('/')
                    .skip_while(|c| {
                        let this = matches!(
                            *c,
                            "${CMAKE_CURRENT_SOURCE_DIR}"
                                | "${CMAKE_CURRENT_LIST_DIR}"
                                | "$(CURDIR)"
                                | "$(PWD)"
                                | "."
                        );
                        own |= this;
                        this
                    })
                    .collect::<Vec<_>>()
                    .join("/");
                if folder.contains('$') {
                    return None;
                }
                let from_here = match (here.is_empty(), folder.is_empty()) {
                    (true, _) => folder.clone(),
                    (false, true) => here.to_string(),
                    (false, false) => format!("{here}/{folder}"),
                };
                if recursive && from_here.is_empty() {
                    return None;
                }
                out.push((from_here, recursive));
                if !own && !here.is_empty() {
                    out.push((folder, recursive));
                }
            }
        }
    }
    Some(out)
}

/// Folders whose own `CMakeLists.txt` no build file outside them reaches: no
/// `add_subdirectory`, `include` or path names the folder, and the file declares no `project()`
/// of its own (a standalone project is built on its own; a part of this one that nothing adds
/// is not built at all: flashlight's `pkg/halide/`, which its package list never registers).
/// Outermost first.
fn orphan_cmake_dirs(
    dirs_with_build: &BTreeSet<&str>,
    build_files: &[(&str, usize)],
    texts: &[String],
    skip: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    // Subfolders found by listing a folder (`file(GLOB children RELATIVE …)` then
    // `add_subdirectory(${child})`) are added without their names being spelled.
    let squash = |t: &str| -> String {
        t.to_ascii_lowercase()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect()
    };
    if texts.iter().any(|t| {
        let t = squash(t);
        t.contains("file(glob") && (t.contains("add_subdirectory(${") || t.contains("include(${"))
    }) {
        return Vec::new();
    }
    // Which build files spell each name, read once.
    let mut spelled_in: std::collections::HashMap<&str, Vec<&str>> =
        std::collections::HashMap::new();
    for (rel, t) in build_files {
        for w in texts[*t].split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-')) {
            if !w.is_empty() {
                let v = spelled_in.entry(w).or_default();
                if v.last() != Some(rel) {
                    v.push(rel);
                }
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    for dir in dirs_with_build {
        if dir.is_empty() || skip(dir) || out.iter().any(|o| dir.starts_with(&format!("{o}/"))) {
            continue;
        }
        let prefix = format!("{dir}/");
        let inside = |rel: &str| rel.starts_with(&prefix);
        let own: Vec<&(&str, usize)> = build_files.iter().filter(|(r, _)| inside(r)).collect();
        let cmake_only = own
            .iter()
            .all(|(r, _)| r.ends_with("CMakeLists.txt") || r.ends_with(".cmake"))
            && own
                .iter()
                .any(|(r, _)| *r == format!("{dir}/CMakeLists.txt"));
        let standalone = own.iter().any(|(_, t)| is_top(&texts[*t]));
        if !cmake_only || standalone {
            continue;
        }
        let last = dir.rsplit('/').next().unwrap_or(dir);
        let named_outside = spelled_in
            .get(last)
            .is_some_and(|files| files.iter().any(|r| !inside(r)));
        if !named_outside {
            out.push(dir.to_string());
        }
    }
    out
}

/// The folders recursive globs (`file(GLOB_RECURSE V "tests/cpp/*.cpp")`) may reach: each
/// pattern's path before its first wildcard, without leading variables (`${PROJECT_SOURCE_DIR}/`),
/// relative to the root and to the globbing file's folder. `None` when a pattern has no such
/// path (`*.cu`, `${SRC}/*.cu` in the root): it may reach any folder.
fn recursive_glob_bases(build_files: &[(&str, usize)], texts: &[String]) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for (rel, t) in build_files {
        let text = &texts[*t];
        let dir = rel.rsplit_once('/').map_or("", |(d, _)| d);
        for (at, _) in text.match_indices("GLOB_RECURSE") {
            let args = text[at..].split(')').next().unwrap_or("");
            let mut any = false;
            let mut headers_only = false;
            for w in args.split_whitespace().skip(2) {
                let w = w.trim_matches('"');
                if !w.contains('*') {
                    continue;
                }
                // A pattern of one extension no compilation unit has (gadgetron's doxygen
                // `GLOB_RECURSE … ${DIR}/*.h`) picks up no unit.
                let ext = w
                    .rsplit('/')
                    .next()
                    .and_then(|n| n.rsplit_once('.'))
                    .map(|(_, e)| e);
                if ext.is_some_and(|e| {
                    !e.contains('*') && !UNITS.contains(&e.to_ascii_lowercase().as_str())
                }) {
                    headers_only = true;
                    continue;
                }
                any = true;
                let head = w.split('*').next().unwrap_or("");
                let head = head.rsplit_once('/').map_or("", |(d, _)| d);
                // Leading variables (`${CMAKE_CURRENT_SOURCE_DIR}/`) name a root; what follows
                // is the base.
                let base = head
                    .split('/')
                    .skip_while(|c| c.starts_with("${") || c.is_empty() || *c == ".")
                    .collect::<Vec<_>>()
                    .join("/");
                // `*.cu` in the root, or a variable's folder itself (`${SRC}/*.cu`): anywhere.
                if base.is_empty() && (dir.is_empty() || head.contains("${")) {
                    return None;
                }
                if !base.is_empty() {
                    out.push(base.clone());
                }
                if !dir.is_empty() {
                    out.push(if base.is_empty() {
                        dir.to_string()
                    } else {
                        format!("{dir}/{base}")
                    });
                }
            }
            if !any && !headers_only {
                return None;
            }
        }
    }
    Some(out)
}

/// Folders of a CMake project built only by a Makefile of their own that nothing runs: no build
/// file outside the folder names it, and no CI file, script, Python file or document spells its
/// path (taichi's `misc/baselines/`, experiments with their own `Makefile`). `make` in that
/// folder is something a person does by hand; the project's build, so its ROCm build, never
/// compiles them.
fn orphan_make_dirs(
    rels: &[&str],
    dirs_with_build: &BTreeSet<&str>,
    build_files: &[(&str, usize)],
    texts: &[String],
    read: &dyn Fn(&str) -> Option<Vec<u8>>,
    skip: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let is_make = |r: &str| {
        let n = r.rsplit('/').next().unwrap_or(r).to_ascii_lowercase();
        n.starts_with("makefile") || n.ends_with(".mk")
    };
    let mut cands: Vec<&str> = Vec::new();
    for dir in dirs_with_build {
        if dir.is_empty() || skip(dir) {
            continue;
        }
        let prefix = format!("{dir}/");
        let own: Vec<&str> = rels
            .iter()
            .filter(|r| {
                r.strip_prefix(&prefix)
                    .is_some_and(|rest| !rest.contains('/'))
                    && crate::inventory::kind::is_build(r)
            })
            .copied()
            .collect();
        if own.is_empty() || !own.iter().all(|r| is_make(r)) {
            continue;
        }
        let named_by_build = named_outside(dir, build_files, texts);
        if !named_by_build {
            cands.push(dir);
        }
    }
    if cands.is_empty() {
        return Vec::new();
    }
    // The files that run or document things, read once, for the folders' paths.
    let mut named: BTreeSet<&str> = BTreeSet::new();
    for r in rels {
        if !crate::inventory::scripts::reader(r) || crate::inventory::kind::is_build(r) {
            continue;
        }
        let Some(t) = read(r) else { continue };
        for d in &cands {
            if !r.starts_with(&format!("{d}/")) && memchr::memmem::find(&t, d.as_bytes()).is_some()
            {
                named.insert(d);
            }
        }
    }
    let mut out: Vec<String> = Vec::new();
    for d in cands {
        if !named.contains(d) && !out.iter().any(|o| d.starts_with(&format!("{o}/"))) {
            out.push(d.to_string());
        }
    }
    out
}

/// Standalone CMake projects nothing runs: a folder below the root whose `CMakeLists.txt`
/// declares a `project()` of its own, in a tree whose root has a build of its own (`setup.py`,
/// `pyproject.toml`, a root `CMakeLists.txt` or Makefile), where no file outside the folder (build
/// files, CI, scripts, Python, documents) spells the folder's path, nor a build file its name
/// (BitBLAS' `testing/cpp/`: CUDA gtests with `CUDA_ARCHITECTURES 80` that `setup.py`, the
/// install scripts and CI never build). Someone builds it by hand; the project's build, so its
/// ROCm build, never does. Outermost first.
fn orphan_standalone_dirs(
    rels: &[&str],
    build_files: &[(&str, usize)],
    texts: &[String],
    read: &dyn Fn(&str) -> Option<Vec<u8>>,
    skip: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let root_build = rels.iter().any(|r| {
        !r.contains('/') && (crate::inventory::kind::is_build(r) || *r == "pyproject.toml")
    });
    if !root_build {
        return Vec::new();
    }
    let mut cands: Vec<&str> = Vec::new();
    for (rel, t) in build_files {
        let Some(dir) = rel.strip_suffix("/CMakeLists.txt") else {
            continue;
        };
        if skip(dir)
            || !is_top(&texts[*t])
            || cands.iter().any(|c| dir.starts_with(&format!("{c}/")))
        {
            continue;
        }
        let prefix = format!("{dir}/");
        let named_by_build = named_outside(dir, build_files, texts);
        if !named_by_build {
            cands.retain(|c| !c.starts_with(&prefix));
            cands.push(dir);
        }
    }
    if cands.is_empty() {
        return Vec::new();
    }
    // Build files of other tools (Maven's `pom.xml` runs `${basedir}/src/main/native`) count
    // as files that run things; a path is spelled from the root or from the file's folder.
    let runs = |r: &str| {
        crate::inventory::scripts::reader(r)
            || [".xml", ".gradle", ".kts"].iter().any(|e| r.ends_with(e))
    };
    let mut named: BTreeSet<&str> = BTreeSet::new();
    for r in rels {
        if !runs(r) || cands.iter().all(|d| r.starts_with(&format!("{d}/"))) {
            continue;
        }
        let Some(t) = read(r) else { continue };
        let folder = r.rsplit_once('/').map_or("", |(f, _)| f);
        for d in &cands {
            if r.starts_with(&format!("{d}/")) {
                continue;
            }
            let relative = d
                .strip_prefix(folder)
                .and_then(|x| x.strip_prefix('/'))
                .filter(|_| !folder.is_empty());
            if spells_path(&t, d) || relative.is_some_and(|x| spells_path(&t, x)) {
                named.insert(d);
            }
        }
    }
    cands
        .into_iter()
        .filter(|d| !named.contains(d))
        .map(str::to_string)
        .collect()
}

/// Whether `text` spells the folder path `dir` as a path (`cd testing/cpp`, `testing/cpp/x`,
/// `"cpp"`), not inside a longer name (`cppx`, `test.cpp`).
fn spells_path(text: &[u8], dir: &str) -> bool {
    path_at(text, dir).is_some()
}

/// Where `text` first spells the path `dir` as a path (see [`spells_path`]).
pub(crate) fn path_at(text: &[u8], dir: &str) -> Option<usize> {
    let name = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.');
    memchr::memmem::find_iter(text, dir.as_bytes()).find(|&at| {
        let end = at + dir.len();
        // A sentence's full stop after the path is no longer name.
        let after_ok = end >= text.len()
            || !name(text[end])
            || (text[end] == b'.' && !text.get(end + 1).is_some_and(|b| name(*b)));
        (at == 0 || !name(text[at - 1])) && after_ok
    })
}

/// Whether a build file outside the folder `dir` spells its last name as a word
/// (`add_subdirectory(baselines)`, `make -C misc/baselines`).
fn named_outside(dir: &str, build_files: &[(&str, usize)], texts: &[String]) -> bool {
    let prefix = format!("{dir}/");
    let last = dir.rsplit('/').next().unwrap_or(dir);
    build_files.iter().any(|(r, t)| {
        !r.starts_with(&prefix)
            && texts[*t]
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '-'))
                .any(|w| w == last)
    })
}

/// Whether a CMake file is a project's top: it declares a `project()` or a
/// `cmake_minimum_required()` (a CMake 2.8 top without `project()`); a part another file adds
/// has neither.
fn is_top(text: &str) -> bool {
    declares_project(text) || text.to_ascii_lowercase().contains("cmake_minimum_required")
}

/// Whether a CMake file calls `project(…)` (any case, spaces before the parenthesis allowed).
fn declares_project(text: &str) -> bool {
    let l = text.to_ascii_lowercase();
    l.match_indices("project").any(|(i, _)| {
        let before = l[..i].chars().next_back();
        let name_before = before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_');
        !name_before && l[i + "project".len()..].trim_start().starts_with('(')
    })
}

pub use crate::model::folders::root_of;

/// An unbuilt root as the report names it: a folder with its `/`, a file as it is.
fn shown(root: &str) -> String {
    let file = root
        .rsplit('/')
        .next()
        .and_then(|n| n.rsplit_once('.'))
        .is_some_and(|(_, e)| UNITS.contains(&e.to_ascii_lowercase().as_str()));
    if file {
        root.to_string()
    } else {
        format!("{root}/")
    }
}

/// The unbuilt-folder decision: the open findings of such a folder, held by its first.
pub fn kind(roots: Vec<String>) -> Kind {
    Kind {
        key: Box::new(move |f: &Finding| {
            root_of(&roots, &f.path)
                .or_else(|| roots.iter().find(|r| **r == f.path))
                .cloned()
        }),
        head: super::kind::first,
        folds: super::kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            // A folder built only by a Makefile of its own that nothing runs (a sample beside
            // a CMake build): that Makefile is its build, not the project's.
            let own_make = g.members.iter().any(|f| {
                super::cuda_build::is_makefile_name(&f.path)
                    && f.path.rsplit_once('/').map(|(d, _)| d) == Some(g.key)
            });
            if own_make {
                return format!(
                    " — one decision: the project's build never compiles `{}`: only a Makefile \
                     of its own does, which no other build file, CI job, script or document runs \
                     (`make` there is done by hand): build and port it, or leave it out ({} more \
                     findings in {} files are folded here: {})",
                    shown(g.key),
                    g.folded.len(),
                    g.files(),
                    g.by_rule()
                );
            }
            format!(
                " — one decision: no build file of the project compiles `{}` (no \
                 CMakeLists.txt, CMake module, Makefile or setup.py names it or its sources): \
                 build and port it, or leave it out ({} more findings in {} files are folded \
                 here: {})",
                shown(g.key),
                g.folded.len(),
                g.files(),
                g.by_rule()
            )
        }),
        note: Box::new(|g| {
            super::kind::folded_into(
                g,
                &format!("no build file compiles `{}`, one decision", shown(g.key)),
            )
        }),
    }
}

/// A build file's text without its `#` line comments (CMake, Make, Python, shell): a folder
/// named only in a commented-out `#  add_subdirectory(2d_golden_ratio_gui)` (gadgetron) is
/// reached by nothing. A `#` inside a quoted string, or escaped (`\\#` in a Makefile), starts
/// no comment.
fn without_comments(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let mut quote: Option<char> = None;
        let mut prev = ' ';
        let mut cut = None;
        for (k, c) in line.char_indices() {
            match (quote, c) {
                (Some(q), _) if c == q && prev != '\\' => quote = None,
                (None, '"' | '\'') => quote = Some(c),
                (None, '#') if prev != '\\' => {
                    cut = Some(k);
                    break;
                }
                _ => {}
            }
            prev = c;
        }
        match cut {
            Some(k) => {
                out.push_str(&line[..k]);
                if line.ends_with('\n') {
                    out.push('\n');
                }
            }
            None => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
#[path = "unbuilt_tests.rs"]
mod tests;
