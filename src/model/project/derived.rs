//! Facts the project model derives from file texts and from every file's facts: the names a
//! configured header writes in every configuration, and the project switches HIP finds false
//! wherever they are defined.

use super::FileFacts;
use std::collections::{BTreeMap, BTreeSet};

/// The names a configured header's template (`config.h.in`) writes in every configuration
/// (`#cmakedefine01 NAME`): a `#ifndef NAME` fallback after it never applies.
pub(super) fn configured01(path: &str, bytes: &[u8]) -> Vec<String> {
    if !path.ends_with(".in") {
        return Vec::new();
    }
    String::from_utf8_lossy(bytes)
        .lines()
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.as_slice() {
                ["#cmakedefine01", name, ..] | ["#", "cmakedefine01", name, ..] => {
                    Some(name.to_string())
                }
                _ => None,
            }
        })
        .collect()
}

/// The switches every definition of which, in every file, is a test HIP finds false
/// ([`Project::zero_tests`]).
pub(super) fn zero_tests(facts: &[(String, FileFacts)]) -> BTreeMap<String, (String, bool)> {
    let mut out: BTreeMap<String, (String, bool)> = BTreeMap::new();
    let mut other: BTreeSet<&str> = BTreeSet::new();
    for (rel, f) in facts {
        for m in &f.macros {
            match m.hip_test {
                Some((0, arch)) => {
                    out.entry(m.name.clone())
                        .or_insert_with(|| (format!("{rel}:{}", m.line), arch));
                }
                _ => {
                    other.insert(&m.name);
                }
            }
        }
    }
    out.retain(|n, _| !other.contains(n.as_str()));
    out
}
