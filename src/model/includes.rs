//! The include graph between a project's own files. A file's `#include "x.h"` is resolved the
//! way a compiler without `-I` flags would find it in the tree, then in the include roots a
//! project conventionally has (`include/`, `csrc/`, `src/`, the tree's root): the first existing
//! project file wins. System headers (`<…>`) and files outside the scanned tree are not followed.
//!
//! Promises: resolution and closures are deterministic (sorted roots, first match wins, closure
//! in first-visit order), cycle-safe, and bounded ([`MAX_CLOSURE`] files per unit).

use std::collections::{BTreeMap, BTreeSet};

/// At most this many project files are followed from one unit: a generated tree that includes
/// thousands of headers is cut off rather than slowing every file.
pub const MAX_CLOSURE: usize = 512;

/// Folder names a project keeps its headers under and adds with `-I` by convention.
const ROOT_NAMES: &[&str] = &["include", "includes", "inc", "csrc", "src"];

/// The `#include "…"` paths of a lexed file, as written, in order; a `#include <…>` path with
/// a folder or an extension comes with a leading `<` (searched under the include roots only,
/// as a compiler searches `-I` folders for it).
pub fn written(bytes: &[u8], lexed: &crate::lex::Lexed) -> Vec<String> {
    written_at(bytes, lexed)
        .into_iter()
        .map(|(_, p)| p)
        .collect()
}

/// [`written`] with the byte offset of each `#include` directive.
/// What [`written_at`] lists for an include whose header a macro names (graphblast's
/// `#include __GRB_BACKEND_HEADER`): no file name, and no path matches it. The include graph of
/// a project with one is not fully known.
pub const COMPUTED: &str = "\u{1}computed include";

///
/// A computed include inside a test of its own macro (`#ifdef EIGEN_MATRIX_PLUGIN` /
/// `#include EIGEN_MATRIX_PLUGIN`, Eigen's plugin points) includes only what a definition of
/// that macro names, and a definition that names one header (`#define EIGEN_MATRIX_PLUGIN
/// "my_addons.h"`, quoted) is listed as an include of the file that writes it: neither makes the
/// graph unknown.
pub fn written_at(bytes: &[u8], lexed: &crate::lex::Lexed) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let text = |i: usize| &bytes[lexed.tokens[i].start as usize..lexed.tokens[i].end as usize];
    // The macro each open conditional's current arm requires to be defined, if any.
    let mut arms: Vec<Option<&[u8]>> = Vec::new();
    for d in &lexed.directives {
        let words: Vec<usize> = d.tokens.clone().skip(2).collect();
        match d.name.as_str() {
            "ifdef" => arms.push(words.first().map(|&i| text(i))),
            "if" => {
                let w: Vec<&[u8]> = words.iter().map(|&i| text(i)).collect();
                arms.push(match w.as_slice() {
                    [b"defined", n] | [b"defined", b"(", n, b")"] => Some(*n),
                    _ => None,
                });
            }
            "ifndef" => arms.push(None),
            "elif" | "else" | "elifdef" | "elifndef" => {
                if let Some(top) = arms.last_mut() {
                    *top = None;
                }
            }
            "endif" => {
                arms.pop();
            }
            "define" => {
                // `#define NAME "x.h"`: one header named.
                if let [_, v] = words.as_slice() {
                    if matches!(
                        lexed.tokens[*v].kind,
                        crate::lex::Tok::Str | crate::lex::Tok::HeaderName
                    ) {
                        let raw = text(*v);
                        let inner = raw.get(1..raw.len().saturating_sub(1)).unwrap_or_default();
                        if let Ok(p) = std::str::from_utf8(inner) {
                            let p = p.trim();
                            let header = p.rsplit_once('.').is_some_and(|(_, e)| {
                                matches!(e, "h" | "hpp" | "hh" | "hxx" | "cuh" | "inl" | "inc")
                            });
                            if header {
                                out.push((
                                    d.start,
                                    if raw[0] == b'<' {
                                        format!("<{p}")
                                    } else {
                                        p.to_string()
                                    },
                                ));
                            }
                        }
                    }
                }
            }
            _ => {}
        }
        if d.name != "include" {
            continue;
        }
        let Some(t) = d
            .tokens
            .clone()
            .map(|i| lexed.tokens[i])
            .find(|t| matches!(t.kind, crate::lex::Tok::Str | crate::lex::Tok::HeaderName))
        else {
            // `#include __GRB_BACKEND_HEADER`: a header named by a macro, which may be any.
            let named = d
                .tokens
                .clone()
                .find(|&i| lexed.tokens[i].kind == crate::lex::Tok::Ident && text(i) != b"include");
            if let Some(n) = named {
                if !arms.contains(&Some(text(n))) {
                    out.push((d.start, COMPUTED.to_string()));
                }
            }
            continue;
        };
        let raw = &bytes[t.start as usize..t.end as usize];
        if raw.len() > 2 && raw[0] == b'"' && raw[raw.len() - 1] == b'"' {
            if let Ok(p) = std::str::from_utf8(&raw[1..raw.len() - 1]) {
                out.push((d.start, p.trim().to_string()));
            }
        } else if raw.len() > 2 && raw[0] == b'<' && raw[raw.len() - 1] == b'>' {
            // `<rmm/detail/x.hpp>`: a project's own header through its `-I` root. Only paths
            // with a folder or an extension: `<vector>` is never a project file.
            if let Ok(p) = std::str::from_utf8(&raw[1..raw.len() - 1]) {
                let p = p.trim();
                if p.contains('/') || p.contains('.') {
                    out.push((d.start, format!("<{p}")));
                }
            }
        }
    }
    out
}

/// [`written`] read from a file's text without its lex (the project passes that search every
/// source hold only the bytes): `#include "…"` and `#include <dir/…>` lines, in order. A
/// commented-out or `#if 0` include counts, as it would in any text search.
pub fn written_in_text(bytes: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for line in bytes.split(|&b| b == b'\n') {
        let l = line.trim_ascii_start();
        let Some(rest) = l.strip_prefix(b"#") else {
            continue;
        };
        let Some(rest) = rest.trim_ascii_start().strip_prefix(b"include") else {
            continue;
        };
        let rest = rest.trim_ascii();
        let (open, close) = match rest.first() {
            Some(b'"') => (b'"', b'"'),
            Some(b'<') => (b'<', b'>'),
            _ => continue,
        };
        let Some(end) = rest[1..].iter().position(|&b| b == close) else {
            continue;
        };
        let Ok(p) = std::str::from_utf8(&rest[1..1 + end]) else {
            continue;
        };
        let p = p.trim();
        if open == b'"' {
            out.push(p.to_string());
        } else if p.contains('/') || p.contains('.') {
            out.push(format!("<{p}"));
        }
    }
    out
}

/// `inc` joined to the folder `dir` (`""` for the root), `.` and `..` folded, `/`-separated.
pub fn join(dir: &str, inc: &str) -> String {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for c in inc.split('/') {
        match c {
            "." | "" => {}
            ".." => {
                parts.pop();
            }
            x => parts.push(x),
        }
    }
    parts.join("/")
}

/// The tree's files an include may name, for the graph walks that judge what no unit reaches:
/// the path from the includer's folder, else every file whose path ends with it (`b40c/util/
/// spine.cuh` through a `-I` root). Indexed by file name once.
pub struct Targets<'a> {
    known: BTreeSet<&'a str>,
    by_name: std::collections::HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Targets<'a> {
    pub fn new(rels: &[&'a str]) -> Targets<'a> {
        let mut by_name: std::collections::HashMap<&'a str, Vec<&'a str>> = Default::default();
        for r in rels {
            by_name
                .entry(r.rsplit('/').next().unwrap_or(r))
                .or_default()
                .push(*r);
        }
        Targets {
            known: rels.iter().copied().collect(),
            by_name,
        }
    }

    /// The files `inc` (as written, `<` before an angled path) may name from file `from`.
    pub fn of(&self, from: &str, inc: &str) -> Vec<&'a str> {
        let inc = inc.trim_start_matches('<');
        let joined = join(dir_of(from), inc);
        if let Some(k) = self.known.get(joined.as_str()) {
            return vec![*k];
        }
        let name = inc.rsplit('/').next().unwrap_or(inc);
        self.by_name
            .get(name)
            .map(|v| {
                v.iter()
                    .copied()
                    .filter(|r| *r == inc || r.ends_with(&format!("/{inc}")))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// The folder of a relative path (`""` at the root).
pub fn dir_of(rel: &str) -> &str {
    rel.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The include roots of a tree: the root, then every folder named like `ROOT_NAMES` that holds
/// a file of the tree, sorted (shallow first, then by name).
pub fn roots<'a>(files: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut found: BTreeSet<(usize, String)> = BTreeSet::new();
    for f in files {
        let mut at = String::new();
        for part in dir_of(f).split('/').filter(|p| !p.is_empty()) {
            if !at.is_empty() {
                at.push('/');
            }
            at.push_str(part);
            if ROOT_NAMES.contains(&part) {
                found.insert((at.matches('/').count(), at.clone()));
            }
        }
    }
    std::iter::once(String::new())
        .chain(found.into_iter().map(|(_, d)| d))
        .collect()
}

/// `inc`, included from `from`, as a file of the project: next to `from` first, then under each
/// root. `None` when no project file has that path.
pub fn resolve(
    from: &str,
    inc: &str,
    roots: &[String],
    exists: &impl Fn(&str) -> bool,
) -> Option<String> {
    let (next_to, inc) = match inc.strip_prefix('<') {
        Some(angled) => (None, angled),
        None => (Some(dir_of(from)), inc),
    };
    // The roots of the includer's own part of the tree first: nsparse's `cuda-c/src/kernel/x.cu`
    // includes `<nsparse.h>` through its Makefile's `-I./inc`, which is `cuda-c/inc`, not the
    // sibling `cuda-cpp/inc` (stable: equally near roots keep their order).
    let mut near: Vec<&str> = roots.iter().map(|r| r.as_str()).collect();
    near.sort_by_key(|r| std::cmp::Reverse(shared_folders(dir_of(from), r)));
    next_to
        .into_iter()
        .chain(near)
        .map(|d| join(d, inc))
        .find(|p| p != from && exists(p))
}

/// How many leading folders two folder paths share.
fn shared_folders(a: &str, b: &str) -> usize {
    a.split('/')
        .zip(b.split('/'))
        .take_while(|(x, y)| x == y && !x.is_empty())
        .count()
}

/// How a project's includes resolve: next to the includer, under the include roots
/// ([`resolve`]), and then, for a quoted include neither finds, the one project file with that
/// name whose path ends with the include as written: the build's own `-I` folders, which are
/// not read (`#include "cuda_compat.h"` from `kernels/rocm/` is `kernels/cuda_compat.h` when the
/// tree has one file of that name; an angled include only when it names a folder,
/// `<fmha/utils.h>`). Two files whose paths end with the include leave it unresolved.
#[derive(Clone, Debug, Default)]
pub struct Lookup {
    pub roots: Vec<String>,
    by_name: BTreeMap<String, Vec<String>>,
}

impl Lookup {
    /// The lookup of a tree from its files' relative paths.
    pub fn new<'a>(files: impl Iterator<Item = &'a str> + Clone) -> Lookup {
        let mut by_name: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for f in files.clone() {
            by_name
                .entry(f.rsplit('/').next().unwrap_or(f).to_string())
                .or_default()
                .push(f.to_string());
        }
        Lookup {
            roots: roots(files),
            by_name,
        }
    }

    /// `inc`, included from `from`, as a project file (see [`Lookup`]).
    pub fn resolve(&self, from: &str, inc: &str, exists: &impl Fn(&str) -> bool) -> Option<String> {
        resolve(from, inc, &self.roots, exists).or_else(|| {
            // An angled include with a folder (`<flash_attn/fmha/utils.h>` under `-I src/kernel`)
            // is the project's file that ends with that path, as a quoted one is; a bare name
            // (`<cuda.h>`) is a system header's.
            let inc = match inc.strip_prefix('<') {
                Some(angled) if angled.contains('/') => angled,
                Some(_) => return None,
                None => inc,
            };
            let inc = inc.trim_start_matches("./");
            let ends = |one: &String| {
                one != from
                    && one.ends_with(inc)
                    && (one.len() == inc.len() || one.as_bytes()[one.len() - inc.len() - 1] == b'/')
            };
            let mut found = self
                .by_name
                .get(inc.rsplit('/').next().unwrap_or(inc))?
                .iter()
                .filter(|one| ends(one));
            match (found.next(), found.next()) {
                (Some(one), None) => Some(one.clone()),
                _ => None,
            }
        })
    }
}

/// Resolved include edges between project files: file → the project files it includes.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub edges: BTreeMap<String, Vec<String>>,
}

impl Graph {
    /// Every project file reachable from `direct` (a unit's own resolved includes), each once, in
    /// first-visit (depth-first, written) order, at most [`MAX_CLOSURE`].
    pub fn closure(&self, direct: &[String]) -> Vec<String> {
        let mut seen: BTreeSet<&str> = BTreeSet::new();
        let mut out = Vec::new();
        let mut stack: Vec<&str> = direct.iter().rev().map(|s| s.as_str()).collect();
        while let Some(f) = stack.pop() {
            if out.len() >= MAX_CLOSURE {
                break;
            }
            if !seen.insert(f) {
                continue;
            }
            out.push(f.to_string());
            if let Some(next) = self.edges.get(f) {
                stack.extend(next.iter().rev().map(|s| s.as_str()));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn includes_resolve_next_to_the_file_then_under_roots() {
        let files = [
            "csrc/k.cu",
            "csrc/util/compat.cuh",
            "include/lib/api.h",
            "a.h",
        ];
        let exists = |p: &str| files.contains(&p);
        let roots = roots(files.iter().copied());
        assert_eq!(roots, ["", "csrc", "include"]);
        // Relative to the includer.
        assert_eq!(
            resolve("csrc/k.cu", "util/compat.cuh", &roots, &exists).as_deref(),
            Some("csrc/util/compat.cuh")
        );
        assert_eq!(
            resolve("csrc/util/compat.cuh", "../../a.h", &roots, &exists).as_deref(),
            Some("a.h")
        );
        // Through a root (`-Iinclude`).
        assert_eq!(
            resolve("csrc/k.cu", "lib/api.h", &roots, &exists).as_deref(),
            Some("include/lib/api.h")
        );
        // Not a project file (a system or third-party header): not followed.
        assert_eq!(resolve("csrc/k.cu", "cuda_fp16.h", &roots, &exists), None);
        // `<lib/api.h>`: under the roots, never next to the includer.
        assert_eq!(
            resolve("csrc/k.cu", "<lib/api.h", &roots, &exists).as_deref(),
            Some("include/lib/api.h")
        );
        assert_eq!(
            resolve("csrc/k.cu", "<util/compat.cuh", &roots, &exists).as_deref(),
            Some("csrc/util/compat.cuh")
        );
        assert_eq!(
            resolve("include/lib/api.h", "<a.h", &roots, &exists).as_deref(),
            Some("a.h")
        );
        let lexed =
            crate::lex::lex(b"#include <vector>\n#include <rmm/detail/x.hpp>\n#include \"y.h\"\n");
        assert_eq!(
            written(
                b"#include <vector>\n#include <rmm/detail/x.hpp>\n#include \"y.h\"\n",
                &lexed
            ),
            ["<rmm/detail/x.hpp", "y.h"]
        );
    }

    /// nsparse: two builds side by side, each with its own `inc/` (`-I./inc` in each Makefile).
    /// `<nsparse.h>` from `cuda-c/src/kernel/` is `cuda-c/inc/nsparse.h`; from `cuda-cpp/` the
    /// same name is `cuda-cpp/inc/nsparse.h`. Twin: a name in neither stays a system header's.
    #[test]
    fn an_angled_include_takes_the_nearest_inc_folder() {
        let files = [
            "cuda-c/inc/nsparse.h",
            "cuda-c/src/kernel/k.cu",
            "cuda-cpp/inc/nsparse.h",
            "cuda-cpp/sample/s.cu",
        ];
        let exists = |p: &str| files.contains(&p);
        let roots = roots(files.iter().copied());
        assert_eq!(roots, ["", "cuda-c/inc", "cuda-c/src", "cuda-cpp/inc"]);
        assert_eq!(
            resolve("cuda-c/src/kernel/k.cu", "<nsparse.h", &roots, &exists).as_deref(),
            Some("cuda-c/inc/nsparse.h")
        );
        assert_eq!(
            resolve("cuda-cpp/sample/s.cu", "<nsparse.h", &roots, &exists).as_deref(),
            Some("cuda-cpp/inc/nsparse.h")
        );
        assert_eq!(
            resolve("cuda-cpp/sample/s.cu", "<cuda.h", &roots, &exists),
            None
        );
    }

    /// aphrodite's `kernels/rocm/attention.cu` includes `"cuda_compat.h"` through the build's
    /// `-I kernels`: the one file of that name. Twins: two files of that name, an angled
    /// include, and a path whose folders do not match stay unresolved.
    #[test]
    fn a_quoted_include_nothing_else_finds_is_the_one_file_of_its_name() {
        let files = [
            "kernels/cuda_compat.h",
            "kernels/rocm/attention.cu",
            "a/x.h",
            "b/x.h",
        ];
        let l = Lookup::new(files.iter().copied());
        let exists = |p: &str| files.contains(&p);
        assert_eq!(
            l.resolve("kernels/rocm/attention.cu", "cuda_compat.h", &exists)
                .as_deref(),
            Some("kernels/cuda_compat.h")
        );
        assert_eq!(l.resolve("kernels/rocm/attention.cu", "x.h", &exists), None);
        assert_eq!(
            l.resolve("kernels/rocm/attention.cu", "<cuda_compat.h", &exists),
            None
        );
        assert_eq!(
            l.resolve("kernels/rocm/attention.cu", "other/cuda_compat.h", &exists),
            None
        );
        // An angled include that names a folder is found as a quoted one (flash-attention's
        // `<flash_attn/fmha/utils.h>` under `-I src/kernel`); a bare angled name is not.
        let files = [
            "src/kernel/fa/fmha/utils.h",
            "src/kernel/fa/k.cu",
            "third/cuda.h",
            "third/cutlass/utils.h",
        ];
        let l = Lookup::new(files.iter().copied());
        let exists = |p: &str| files.contains(&p);
        assert_eq!(
            l.resolve("src/kernel/fa/k.cu", "<fa/fmha/utils.h", &exists)
                .as_deref(),
            Some("src/kernel/fa/fmha/utils.h")
        );
        assert_eq!(
            l.resolve("src/kernel/fa/k.cu", "<fmha/other.h", &exists),
            None
        );
        assert_eq!(l.resolve("src/kernel/fa/k.cu", "<cuda.h", &exists), None);
    }

    /// A header a macro names is listed as [`COMPUTED`]; twins: a quoted and an angled one.
    #[test]
    fn a_computed_include_is_marked() {
        let src = b"#define H <g/backend/cuda/cuda.hpp>\n#include H\n#include \"a.h\"\n#include <b/c.h>\n";
        let lexed = crate::lex::lex(src);
        let got: Vec<String> = written_at(src, &lexed)
            .into_iter()
            .map(|(_, p)| p)
            .collect();
        assert_eq!(got, [COMPUTED, "a.h", "<b/c.h"]);
    }

    /// Eigen's plugin points: `#include PLUGIN` under `#ifdef PLUGIN` (or `#if defined(…)`)
    /// includes what a definition names, listed where it is written. Twins: under another
    /// macro's test, or in the `#else` arm, the include stays computed.
    #[test]
    fn a_plugin_include_under_its_own_test_is_not_computed() {
        let go = |src: &[u8]| -> Vec<String> {
            let lexed = crate::lex::lex(src);
            written_at(src, &lexed)
                .into_iter()
                .map(|(_, p)| p)
                .collect()
        };
        let src = b"#ifdef EIGEN_MATRIX_PLUGIN\n#  include EIGEN_MATRIX_PLUGIN\n#endif\n\
#if defined(EIGEN_ARRAY_PLUGIN)\n#include EIGEN_ARRAY_PLUGIN\n#endif\n";
        assert!(go(src).is_empty());
        assert_eq!(
            go(b"#define EIGEN_MATRIX_PLUGIN \"my_addons.h\"\n#define V 3\n"),
            ["my_addons.h"]
        );
        assert_eq!(
            go(b"#ifdef OTHER\n#include PLUGIN\n#endif\n#ifdef PLUGIN\n#else\n#include PLUGIN\n#endif\n"),
            [COMPUTED, COMPUTED]
        );
    }

    #[test]
    fn closures_are_transitive_ordered_and_cycle_safe() {
        let mut g = Graph::default();
        let e = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        g.edges.insert("a.h".into(), e(&["b.h", "c.h"]));
        g.edges.insert("b.h".into(), e(&["a.h", "d.h"]));
        g.edges.insert("c.h".into(), e(&["d.h"]));
        assert_eq!(g.closure(&e(&["a.h"])), ["a.h", "b.h", "d.h", "c.h"]);
        assert_eq!(g.closure(&e(&["c.h"])), ["c.h", "d.h"]);
        assert!(g.closure(&[]).is_empty());
    }
}
