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

/// Whether a macro body is a ballot of the wavefront (`__ballot_sync(FULL_MASK, P)`,
/// `__ballot(P)`): its first name.
pub fn is_ballot_body(body: &str) -> bool {
    let first = body
        .trim_start_matches(|c: char| c == '(' || c.is_whitespace())
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    matches!(first, "__ballot_sync" | "__ballot" | "__activemask")
}

/// The index (into the code tokens `text` reads) of the `)` that closes the first `(` after
/// `k`, looking at most 400 tokens ahead; `None` past that, at the end, or, when `strict`, at a
/// `;`, `{` or `}` (a declaration's parameter list holds none).
pub(crate) fn closing_paren<'b>(
    text: impl Fn(usize) -> Option<&'b [u8]>,
    k: usize,
    len: usize,
    strict: bool,
) -> Option<usize> {
    let mut depth = 0usize;
    for n in k + 1..len.min(k + 400) {
        match text(n)? {
            b"(" => depth += 1,
            b")" => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(n);
                }
            }
            b";" | b"{" | b"}" if strict => return None,
            _ => {}
        }
    }
    None
}

/// A function a header defines: whether its body does warp-level work itself, and the names it
/// calls (read by the warp-size rules' `function_calls` token pass).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FnCalls {
    pub name: String,
    pub direct: bool,
    pub calls: Vec<String>,
}

/// The project's functions that do warp-level work: directly, through a warp-work macro of any
/// header, or by calling (two levels deep, by name) a function that does; device functions only
/// ([`FnCalls`]). A name defined
/// twice counts when either definition does.
pub(super) fn warp_fns(facts: &[(String, FileFacts)]) -> BTreeSet<String> {
    let macros: BTreeSet<&str> = facts
        .iter()
        .flat_map(|(_, f)| f.warp_work_macros.iter().map(String::as_str))
        .collect();
    let mut out: BTreeSet<String> = BTreeSet::new();
    // Two levels of callers: a kernel calling a model method that reduces (graphvite), and
    // its wrapper. Vendored copies (a CUB in `third_party/`) are their own projects.
    let own = || {
        facts
            .iter()
            .filter(|(rel, _)| crate::model::folders::component_of(rel).is_none())
    };
    for round in 0..3 {
        let before = out.len();
        for (_, f) in own() {
            for c in &f.fn_calls {
                let calls_warp =
                    |n: &String| (round == 0 && macros.contains(n.as_str())) || out.contains(n);
                if !out.contains(&c.name)
                    && ((round == 0 && c.direct) || c.calls.iter().any(calls_warp))
                {
                    out.insert(c.name.clone());
                }
            }
        }
        if round > 0 && out.len() == before {
            break;
        }
    }
    out
}
