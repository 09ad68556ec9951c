//! The project's include directories, read from its build files when there is no compilation
//! database: CMake `include_directories`/`target_include_directories`, Makefile `-I` flags, and
//! every directory named `include`. Only directories that exist in the tree are returned, as
//! paths relative to the root, sorted.

use std::collections::BTreeSet;
use std::path::{Component, Path, PathBuf};

/// Include directories of the tree at `root`, relative to it (`""` is the root itself).
/// `files` are the tree's files, relative and `/`-separated.
pub fn project_include_dirs(root: &Path, files: &[String]) -> Vec<String> {
    let mut dirs = BTreeSet::new();
    for rel in files {
        let path = Path::new(rel);
        let dir = path.parent().unwrap_or(Path::new(""));
        for c in dir.ancestors() {
            if c.file_name().is_some_and(|n| n == "include") {
                dirs.insert(c.to_path_buf());
            }
        }
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        let found = if name == "CMakeLists.txt" || name.ends_with(".cmake") {
            read(root, rel).map(|t| cmake_dirs(&t))
        } else if name == "Makefile"
            || name == "makefile"
            || name == "GNUmakefile"
            || name.ends_with(".mk")
        {
            read(root, rel).map(|t| make_dirs(&t))
        } else {
            None
        };
        for d in found.unwrap_or_default() {
            if let Some(p) = resolve(root, dir, &d) {
                dirs.insert(p);
            }
        }
    }
    dirs.into_iter()
        .filter(|d| root.join(d).is_dir())
        .map(|d| crate::walk::rel_string(&d))
        .collect()
}

fn read(root: &Path, rel: &str) -> Option<String> {
    std::fs::read_to_string(root.join(rel)).ok()
}

/// Paths named in `include_directories(...)` and `target_include_directories(...)`.
fn cmake_dirs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lower = text.to_ascii_lowercase();
    for cmd in ["target_include_directories", "include_directories"] {
        let mut from = 0;
        while let Some(pos) = lower[from..].find(cmd) {
            let start = from + pos;
            from = start + cmd.len();
            // `target_include_directories` contains `include_directories`: skip the inner match.
            if cmd == "include_directories" && lower[..start].ends_with("target_") {
                continue;
            }
            let rest = &text[from..];
            let Some(open) = rest.trim_start().strip_prefix('(') else {
                continue;
            };
            let Some(close) = open.find(')') else {
                continue;
            };
            let mut tokens = open[..close]
                .split_whitespace()
                .map(|t| t.trim_matches('"'));
            if cmd == "target_include_directories" {
                tokens.next(); // the target name
            }
            for t in tokens {
                const KEYWORDS: &[&str] = &[
                    "PUBLIC",
                    "PRIVATE",
                    "INTERFACE",
                    "SYSTEM",
                    "BEFORE",
                    "AFTER",
                ];
                if KEYWORDS.contains(&t) {
                    continue;
                }
                let t = t
                    .strip_prefix("$<BUILD_INTERFACE:")
                    .and_then(|x| x.strip_suffix('>'))
                    .unwrap_or(t);
                out.push(t.to_string());
            }
        }
    }
    out
}

/// `-Idir` and `-I dir` words in a Makefile.
fn make_dirs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut words = text.split_whitespace().peekable();
    while let Some(w) = words.next() {
        let w = w.trim_matches(|c| c == '"' || c == '\'');
        if w == "-I" {
            if let Some(n) = words.next() {
                out.push(n.trim_matches(|c| c == '"' || c == '\'').to_string());
            }
        } else if let Some(d) = w.strip_prefix("-I") {
            out.push(d.to_string());
        }
    }
    out
}

/// Resolves a path written in a build file in directory `dir` (relative to root) to a path
/// relative to root; `None` when it leaves the tree or uses variables we cannot expand.
fn resolve(root: &Path, dir: &Path, written: &str) -> Option<PathBuf> {
    const HERE: &[&str] = &[
        "${CMAKE_CURRENT_SOURCE_DIR}",
        "${CMAKE_CURRENT_LIST_DIR}",
        "$(CURDIR)",
        "$(PWD)",
        "${PWD}",
    ];
    const TOP: &[&str] = &["${PROJECT_SOURCE_DIR}", "${CMAKE_SOURCE_DIR}"];
    let (base, rest): (PathBuf, String) =
        if let Some(r) = HERE.iter().find_map(|v| written.strip_prefix(v)) {
            (dir.to_path_buf(), r.to_string())
        } else if let Some(r) = TOP.iter().find_map(|v| written.strip_prefix(v)) {
            (PathBuf::new(), r.to_string())
        } else if Path::new(written).is_absolute() {
            let r = Path::new(written).strip_prefix(root).ok()?;
            (PathBuf::new(), r.to_string_lossy().into_owned())
        } else {
            (dir.to_path_buf(), written.to_string())
        };
    if rest.contains('$') {
        return None;
    }
    normalize(&base.join(rest.trim_start_matches('/')))
}

fn normalize(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::Normal(n) => out.push(n),
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_cmake_and_make_include_dirs() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        for dir in ["include", "lib/inc", "third/eigen", "app/headers", "src"] {
            std::fs::create_dir_all(r.join(dir)).unwrap();
        }
        std::fs::write(
            r.join("CMakeLists.txt"),
            "include_directories(${PROJECT_SOURCE_DIR}/third/eigen)\ntarget_include_directories(lib PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_SOURCE_DIR}/lib/inc> PRIVATE ${CUDA_INCLUDE_DIRS} /usr/include)\n",
        )
        .unwrap();
        std::fs::write(
            r.join("app/Makefile"),
            "CFLAGS = -I headers -I../include -I/opt/x\n",
        )
        .unwrap();
        let files: Vec<String> = ["CMakeLists.txt", "app/Makefile", "include/a.h", "src/a.cu"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            project_include_dirs(r, &files),
            ["app/headers", "include", "lib/inc", "third/eigen"]
        );
    }
}
