//! Who calls whom across a project's files, for the project passes that follow a kernel's
//! launches into the device functions it calls (HP110, HP111, HP112).
//!
//! A device function defined in a source file (`.cu`, `.cpp`) belongs to its translation unit:
//! CUDA compiles each source apart, and a call leaves the unit only under `-rdc` with a
//! declaration in the caller's unit. A helper of the same name in another source (`max`,
//! `warpReduce`, `blockReduceSum`: every file of an operator library has its own) is another
//! function. So a source file's function is called from its own file and from the files that
//! include that source (`#include "kernels.cu"`); a header's function is called from every
//! file. Kernels are launched by name from any file (a launch links to the kernel's host stub).

use super::launch_rows::{Def, FileRows};
use std::collections::HashMap;

/// A function that calls another: its name, its file, whether it is a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Caller<'a> {
    pub name: &'a str,
    pub path: &'a str,
    pub kernel: bool,
    /// Its key in a project pass (`Owner::name` for a method).
    pub key: &'a str,
    /// The class whose method it is, and the names its body mentions.
    owner: Option<&'a str>,
    mentions: &'a [String],
}

pub struct Graph<'a> {
    /// Callee name → the functions whose bodies call it (recursion left out).
    by_callee: HashMap<&'a str, Vec<Caller<'a>>>,
    /// Each file's quoted includes, by the last part of the path.
    includes: HashMap<&'a str, &'a [String]>,
    /// Method name → the classes that define a method of that name.
    owners: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> Graph<'a> {
    pub fn new(files: &[(&'a str, &'a FileRows)]) -> Self {
        let mut by_callee: HashMap<&str, Vec<Caller>> = HashMap::new();
        let mut includes = HashMap::new();
        let mut owners: HashMap<&str, Vec<&str>> = HashMap::new();
        for (path, f) in files {
            includes.insert(*path, f.includes.as_slice());
            for d in &f.defs {
                if let Some(o) = &d.owner {
                    let v = owners.entry(d.name.as_str()).or_default();
                    if !v.contains(&o.as_str()) {
                        v.push(o.as_str());
                    }
                }
                for c in &d.callees {
                    if *c != d.name {
                        by_callee.entry(c.as_str()).or_default().push(Caller {
                            name: d.name.as_str(),
                            path,
                            kernel: d.kernel,
                            key: d.qualified.as_str(),
                            owner: d.owner.as_deref(),
                            mentions: &d.mentions,
                        });
                    }
                }
            }
        }
        Graph {
            by_callee,
            includes,
            owners,
        }
    }

    /// The functions that call the method `name` of class `owner` (defined in `path`): where
    /// several classes define a method of that name (the aligners of a sequence library, each
    /// with its `computeMultiPass`), a caller that names some of those classes calls theirs
    /// only (`using Processor = FloatAligner<…>; processor.computeMultiPass(…)`); a method of
    /// the same class calls its own; a caller that names none of them may call any.
    pub fn callers_of<'s>(
        &'s self,
        name: &'s str,
        path: &'s str,
        owner: Option<&'s str>,
    ) -> impl Iterator<Item = Caller<'a>> + 's {
        let rivals = self.owners.get(name).map_or(&[][..], Vec::as_slice);
        self.callers(name, path).filter(move |c| {
            let Some(o) = owner.filter(|_| rivals.len() > 1) else {
                return true;
            };
            if let Some(co) = c.owner.filter(|co| rivals.contains(co)) {
                return co == o || c.mentions.binary_search_by(|m| m.as_str().cmp(o)).is_ok();
            }
            let names = |r: &str| c.mentions.binary_search_by(|m| m.as_str().cmp(r)).is_ok();
            names(o) || !rivals.iter().any(|r| names(r))
        })
    }

    /// The functions that call `name` as defined in `path` (see the module documentation).
    pub fn callers<'s>(
        &'s self,
        name: &str,
        path: &'s str,
    ) -> impl Iterator<Item = Caller<'a>> + 's {
        let header = crate::model::project::is_header(path);
        let file = path.rsplit('/').next().unwrap_or(path);
        self.by_callee
            .get(name)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .copied()
            .filter(move |c| {
                header
                    || c.path == path
                    || self
                        .includes
                        .get(c.path)
                        .is_some_and(|inc| inc.iter().any(|i| i.rsplit('/').next() == Some(file)))
            })
    }

    /// Whether anything calls `name` as defined in `path`.
    pub fn is_called(&self, name: &str, path: &str) -> bool {
        self.callers(name, path).next().is_some()
    }
}

/// The functions (by name and file) that only kernels of `seeds` reach (the kernels
/// themselves, and device functions every live caller of which is such a function, through up
/// to `depth` calls), each with the seed kernel and its text that show it. A function nothing
/// calls is not reached.
pub fn reached_only_from<'a>(
    files: &'a [(&'a str, &'a FileRows)],
    graph: &Graph<'a>,
    seeds: &HashMap<&'a str, &'a str>,
    depth: usize,
) -> HashMap<(&'a str, &'a str), (&'a str, &'a str)> {
    let mut reach: HashMap<(&str, &str), (&str, &str)> = HashMap::new();
    for (path, d) in defs(files) {
        if d.kernel {
            if let Some(s) = seeds.get(d.name.as_str()) {
                reach.insert((d.qualified.as_str(), path), (d.name.as_str(), *s));
            }
        }
    }
    let live = |c: &Caller| c.kernel || graph.is_called(c.name, c.path);
    for _ in 0..depth {
        let mut grew = false;
        for (path, d) in defs(files) {
            let key = (d.qualified.as_str(), path);
            if d.kernel || reach.contains_key(&key) {
                continue;
            }
            let mut live_callers: Vec<(&str, &str)> = graph
                .callers_of(&d.name, path, d.owner.as_deref())
                .filter(|c| live(c))
                .map(|c| (c.key, c.path))
                .collect();
            if live_callers.is_empty() || !live_callers.iter().all(|c| reach.contains_key(c)) {
                continue;
            }
            live_callers.sort_unstable();
            let via = reach[&live_callers[0]];
            reach.insert(key, via);
            grew = true;
        }
        if !grew {
            break;
        }
    }
    reach
}

/// The kernels every launch of which (at least one) `shape` accepts, with the first launch's
/// shape text (`<<<…, 32>>>` at `k.cu:12`).
pub fn kernels_launched_only<'a>(
    files: &[(&'a str, &'a FileRows)],
    shape: impl Fn(&super::launch_rows::Launch) -> bool,
) -> HashMap<&'a str, &'a str> {
    let mut rows: std::collections::BTreeMap<&str, Option<&str>> = Default::default();
    for (_, f) in files {
        for l in &f.launches {
            let text = l.x.as_ref().filter(|_| shape(l)).map(|(_, s)| s.as_str());
            let e = rows.entry(l.kernel.as_str()).or_insert(text);
            if text.is_none() {
                *e = None;
            }
        }
    }
    rows.into_iter()
        .filter_map(|(k, s)| Some((k, s?)))
        .collect()
}

/// The [`FileRows`] of test files (path, text).
#[cfg(test)]
pub fn rows_of(files: &[(&str, &str)]) -> Vec<(String, FileRows)> {
    files
        .iter()
        .filter_map(|(p, s)| {
            let lexed = crate::lex::lex(s.as_bytes());
            super::launch_rows::file_rows(p, s.as_bytes(), &lexed).map(|r| (p.to_string(), r))
        })
        .collect()
}

/// The definitions of every file, with their paths.
pub fn defs<'a>(files: &'a [(&'a str, &'a FileRows)]) -> impl Iterator<Item = (&'a str, &'a Def)> {
    files
        .iter()
        .flat_map(|(p, f)| f.defs.iter().map(move |d| (*p, d)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(files: &[(&str, &str)]) -> Vec<(String, FileRows)> {
        files
            .iter()
            .filter_map(|(p, s)| {
                let lexed = crate::lex::lex(s.as_bytes());
                super::super::launch_rows::file_rows(p, s.as_bytes(), &lexed)
                    .map(|r| (p.to_string(), r))
            })
            .collect()
    }

    /// CV-CUDA: `max` defined in one operator's source is not the `max` another operator's
    /// kernel calls; a header's helper is everyone's; a source another source includes is part
    /// of the includer's unit.
    #[test]
    fn a_source_files_functions_are_its_units() {
        let files = rows(&[
            ("ops/find.cu", "__device__ float max(float a, float b) { return a > b ? a : b; }\n__global__ void fit(float* p) { p[0] = max(p[1], p[2]); }\n"),
            ("ops/minmax.cu", "__global__ void find_min_max(float* p) { p[0] = cuda::max(p[1], p[2]); }\n"),
            ("ops/reduce.cuh", "__device__ float reduce(float v) { return v; }\n"),
            ("ops/sum.cu", "#include \"reduce.cuh\"\n__global__ void sum(float* p) { p[0] = reduce(p[1]); }\n"),
            ("ops/all.cu", "#include \"find.cu\"\n__global__ void both(float* p) { p[0] = max(p[1], p[2]); }\n"),
        ]);
        let files: Vec<(&str, &FileRows)> = files.iter().map(|(p, r)| (p.as_str(), r)).collect();
        let g = Graph::new(&files);
        let names = |n: &str, p: &'static str| {
            let mut v: Vec<&str> = g.callers(n, p).map(|c| c.name).collect();
            v.sort();
            v
        };
        assert_eq!(names("max", "ops/find.cu"), vec!["both", "fit"]);
        assert_eq!(names("reduce", "ops/reduce.cuh"), vec!["sum"]);
        assert!(!g.is_called("sum", "ops/sum.cu"));
    }
}
