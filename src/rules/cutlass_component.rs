//! One decision per CUTLASS/CuTe component. HP603 fires on every CUTLASS include and every
//! `cutlass::`/`cute::` use: DeepSpeed's `evoformer_attn/` (an attention kernel written on
//! CUTLASS, in five folders) gives 588 of them, and the warp-size, PTX and API findings of the
//! same files come with it. What a porter decides there is one thing: rewrite the component on
//! AMD's libraries (Composable Kernel, hipBLASLt, rocWMMA) or leave it out of the ROCm build;
//! the per-line findings only matter once it is rewritten, and then the rewrite replaces them.
//!
//! So the open findings of every file with an open HP603 finding are folded into the first HP603
//! finding of its component: the folder of those files, with a sub-folder merged into the
//! nearest ancestor folder that itself holds such a file. The kept finding says how many were
//! folded, by rule and file; every folded finding stays in JSON/SARIF as PASS naming it.
//! Findings of files that use no CUTLASS are never folded.

use crate::decisions::kind::{self, Kind, Min};
use crate::finding::Finding;
use crate::gate::Status;
use std::collections::BTreeSet;

/// The code of the CUTLASS/CuTe finding that anchors a component.
const CUTLASS: &str = "HP603";

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// The component folder of `dir`: its topmost ancestor folder (or itself) that holds a file
/// using CUTLASS (`dirs`). The project root never absorbs the folders below it.
fn component_of(dir: &str, dirs: &BTreeSet<String>) -> String {
    let mut cur = dir;
    let mut best = dir;
    while let Some((parent, _)) = cur.rsplit_once('/') {
        if dirs.contains(parent) {
            best = parent;
        }
        cur = parent;
    }
    best.to_string()
}

/// The innermost of `nested` (copies of other projects in this one) that holds `dir`.
fn nested_root<'a>(dir: &str, nested: &'a [String]) -> Option<&'a String> {
    nested
        .iter()
        .filter(|r| dir == r.as_str() || dir.starts_with(&format!("{r}/")))
        .max_by_key(|r| r.len())
}

/// The CUTLASS/CuTe decision: the open findings of the files with an open HP603 finding, one
/// group per component folder, held by the component's first HP603 finding. Inside a copy of
/// another project (`nested`: a vendored CUTLASS with its examples, tests and tools) the copy is
/// the component: whatever of it the ROCm build needs is one decision, not one per folder; so
/// is a vendored copy (`third_party/cutlass/`, whose `include/cute/` and `include/cutlass/`
/// share no folder that uses CUTLASS).
///
/// `helpers` are headers that only units using CUTLASS compile ([`helpers`]): inside a
/// component's folder they are the component's too (the kernel's PTX wrappers in its
/// `utils.h`), and go with its rewrite.
pub fn kind(findings: &[Finding], nested: &[String], helpers: &BTreeSet<String>) -> Kind {
    let files: BTreeSet<String> = cutlass_files(findings);
    let dirs: BTreeSet<String> = files.iter().map(|p| dir_of(p).to_string()).collect();
    let nested = nested.to_vec();
    let helpers = helpers.clone();
    Kind {
        key: Box::new(move |f| {
            let dir = dir_of(&f.path);
            // A nested or vendored copy (`third_party/cutlass/`) is one component.
            let copy = || {
                nested_root(dir, &nested)
                    .cloned()
                    .or_else(|| crate::model::folders::component_of(&f.path))
            };
            if files.contains(&f.path) {
                return Some(copy().unwrap_or_else(|| component_of(dir, &dirs)));
            }
            if !helpers.contains(&f.path) || copy().is_some() {
                return None;
            }
            let c = component_of(dir, &dirs);
            dirs.contains(&c).then_some(c)
        }),
        head: |m| m.iter().position(|f| f.rule == CUTLASS),
        folds: kind::all,
        min: Min::Findings(2),
        summary: Box::new(|g| {
            format!(
                " — one decision for the CUTLASS/CuTe component `{}/`: {} more findings in {} files that use CUTLASS are folded here ({}); rewrite the component on AMD's libraries or leave it out of the ROCm build",
                shown(g.key),
                g.folded.len(),
                g.files(),
                g.by_rule()
            )
        }),
        note: Box::new(|g| {
            format!(
                " (folded into HP603 at `{}:{}`: the CUTLASS/CuTe component `{}/` is one decision)",
                g.head.path,
                g.head.line,
                shown(g.key)
            )
        }),
    }
}

/// The files with an open CUTLASS/CuTe finding.
fn cutlass_files(findings: &[Finding]) -> BTreeSet<String> {
    findings
        .iter()
        .filter(|f| f.rule == CUTLASS && f.status != Status::Pass)
        .map(|f| f.path.clone())
        .collect()
}

/// The headers with open findings that only units using CUTLASS compile: at least one unit
/// (`.cu`, `.cpp`…) reaches the header through its includes (`includes`: each file's includes
/// as written, `resolve` turning one into a project path), and every unit that reaches it also
/// reaches a file with an open HP603 finding (or is one). A header some unit without CUTLASS
/// compiles stays its own matter, as does one nothing reaches.
pub fn helpers(
    findings: &[Finding],
    includes: &[(String, Vec<String>)],
    resolve: &dyn Fn(&str, &str) -> String,
) -> BTreeSet<String> {
    let cutlass = cutlass_files(findings);
    if cutlass.is_empty() {
        return BTreeSet::new();
    }
    let open: BTreeSet<&str> = findings
        .iter()
        .filter(|f| f.status != Status::Pass && !cutlass.contains(&f.path))
        .map(|f| f.path.as_str())
        .collect();
    let mut graph = crate::model::includes::Graph::default();
    for (from, incs) in includes {
        graph.edges.insert(
            from.clone(),
            incs.iter().map(|i| resolve(from, i)).collect(),
        );
    }
    let unit = |p: &str| {
        matches!(
            p.rsplit_once('.')
                .map(|(_, e)| e.to_ascii_lowercase())
                .as_deref(),
            Some("cu" | "cpp" | "cc" | "cxx" | "c" | "hip")
        )
    };
    // Per header: whether some unit reaches it, and whether every one that does uses CUTLASS.
    let mut reached: std::collections::BTreeMap<String, bool> = Default::default();
    for (u, _) in includes.iter().filter(|(u, _)| unit(u)) {
        let closure = graph.closure(std::slice::from_ref(u));
        let uses = closure.iter().any(|f| cutlass.contains(f));
        for h in closure
            .into_iter()
            .filter(|h| open.contains(h.as_str()) && !unit(h))
        {
            *reached.entry(h).or_insert(true) &= uses;
        }
    }
    reached
        .into_iter()
        .filter(|(_, all)| *all)
        .map(|(h, _)| h)
        .collect()
}

/// A component folder as messages name it (`.` for the project root).
fn shown(dir: &str) -> &str {
    if dir.is_empty() {
        "."
    } else {
        dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// This decision alone, as the scan applies it.
    fn fold(findings: &mut [Finding]) {
        let k = kind(findings, &[], &BTreeSet::new());
        crate::decisions::fold(findings, &k);
    }

    fn f(path: &str, line: u32, rule: &str) -> Finding {
        Finding {
            message: "m".into(),
            ..Finding::bare(rule, path, line)
        }
    }

    fn open_places(fs: &[Finding]) -> Vec<(&str, u32)> {
        fs.iter()
            .filter(|x| x.status != Status::Pass)
            .map(|x| (x.path.as_str(), x.line))
            .collect()
    }

    #[test]
    fn a_cutlass_component_is_one_finding() {
        let mut fs = vec![
            f("ev/attention.cu", 3, "HP603"),
            f("ev/attention.cu", 9, "HP102"),
            f("ev/gemm/mma.h", 5, "HP603"),
            f("ev/gemm/mma.h", 6, "HP603"),
            f("ev/iter/tile.h", 30, "HP201"),
            f("ev/iter/tile.h", 31, "HP603"),
            // A file of the component's folder that uses no CUTLASS: its own decision.
            f("ev/plain.cu", 4, "HP102"),
            // Another component elsewhere.
            f("ops/gemm/k.cu", 2, "HP603"),
            f("ops/gemm/k.cu", 8, "HP603"),
        ];
        fold(&mut fs);
        let open = open_places(&fs);
        assert_eq!(
            open,
            [
                ("ev/attention.cu", 3),
                ("ev/plain.cu", 4),
                ("ops/gemm/k.cu", 2)
            ]
        );
        assert!(fs[0]
            .message
            .contains("component `ev/`: 5 more findings in 3 files"));
        assert!(fs[0].message.contains("HP603 ×3, HP102 ×1, HP201 ×1"));
        assert!(fs[3]
            .message
            .contains("folded into HP603 at `ev/attention.cu:3`"));
    }

    #[test]
    fn sibling_folders_without_a_common_cutlass_parent_stay_apart() {
        let mut fs = vec![
            f("csrc/a/k.cu", 1, "HP603"),
            f("csrc/a/k.cu", 2, "HP603"),
            f("csrc/b/k.cu", 1, "HP603"),
            f("csrc/b/k.cu", 2, "HP401"),
            f("csrc/c/k.cu", 1, "HP102"),
        ];
        fold(&mut fs);
        let open = open_places(&fs);
        assert_eq!(
            open,
            [("csrc/a/k.cu", 1), ("csrc/b/k.cu", 1), ("csrc/c/k.cu", 1)]
        );
        // Without CUTLASS, nothing is folded.
        let mut plain = vec![f("x/k.cu", 1, "HP102"), f("x/k.cu", 2, "HP102")];
        fold(&mut plain);
        assert!(plain.iter().all(|x| x.status == Status::Remediation));
    }

    /// A vendored copy of CUTLASS (a nested project: its examples, tests and tools each a
    /// folder of CUTLASS users) is one component; the twin: the same folders outside a nested
    /// copy stay apart, and the project's own CuTe code beside the copy keeps its decision.
    #[test]
    fn a_nested_copy_is_one_component() {
        let files = || {
            vec![
                f(
                    "attn/csrc/cutlass/examples/00_basic_gemm/gemm.cu",
                    5,
                    "HP603",
                ),
                f("attn/csrc/cutlass/examples/08_turing/turing.cu", 7, "HP603"),
                f("attn/csrc/cutlass/test/unit/conv/cache.h", 9, "HP603"),
                f(
                    "attn/csrc/cutlass/tools/util/include/cutlass/util/blas.hpp",
                    3,
                    "HP603",
                ),
                f("attn/kernels/fwd.h", 2, "HP603"),
            ]
        };
        let nested = vec!["attn/csrc/cutlass".to_string()];
        let mut fs = files();
        let k = kind(&fs, &nested, &BTreeSet::new());
        crate::decisions::fold(&mut fs, &k);
        assert_eq!(
            open_places(&fs),
            [
                ("attn/csrc/cutlass/examples/00_basic_gemm/gemm.cu", 5),
                ("attn/kernels/fwd.h", 2)
            ]
        );
        assert!(fs[0].message.contains("component `attn/csrc/cutlass/`"));
        let mut twin = files();
        fold(&mut twin);
        assert_eq!(open_places(&twin).len(), 5);
    }

    /// flash-attention's v1 kernel: `fmha/gemm.h` includes CUTLASS and `fmha/utils.h`, whose
    /// PTX wrappers only the kernel's units compile; the wrappers go with the component's
    /// rewrite. Twins: a helper some unit without CUTLASS also compiles, and one in a folder of
    /// no component, stay open; a vendored copy's `include/cute/` and `include/cutlass/` are one
    /// component.
    #[test]
    fn helpers_only_cutlass_units_compile_go_with_the_component() {
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        let includes = vec![
            ("k/fwd.cu".to_string(), s(&["fmha/gemm.h"])),
            (
                "k/fmha/gemm.h".to_string(),
                s(&["<cutlass/arch/mma.h", "utils.h"]),
            ),
            ("k/plain.cu".to_string(), s(&["fmha/shared.h"])),
            (
                "k/fwd2.cu".to_string(),
                s(&["fmha/gemm.h", "fmha/shared.h", "../util/log.h"]),
            ),
        ];
        let resolve = |from: &str, inc: &str| {
            crate::model::includes::join(crate::model::includes::dir_of(from), inc)
        };
        let findings = || {
            vec![
                f("k/fmha/gemm.h", 30, "HP603"),
                f("k/fmha/gemm.h", 31, "HP603"),
                f("k/fmha/utils.h", 342, "HP201"),
                f("k/fmha/utils.h", 407, "HP201"),
                f("k/fmha/shared.h", 5, "HP201"),
                f("util/log.h", 3, "HP201"),
            ]
        };
        let mut fs = findings();
        let helpers = helpers(&fs, &includes, &resolve);
        assert_eq!(
            helpers.iter().map(String::as_str).collect::<Vec<_>>(),
            ["k/fmha/utils.h", "util/log.h"]
        );
        let k = kind(&fs, &[], &helpers);
        crate::decisions::fold(&mut fs, &k);
        assert_eq!(
            open_places(&fs),
            [
                ("k/fmha/gemm.h", 30),
                ("k/fmha/shared.h", 5),
                ("util/log.h", 3)
            ]
        );
        // Without the include graph the helper is its own matter.
        let mut alone = findings();
        fold(&mut alone);
        assert_eq!(open_places(&alone).len(), 5);
        // A vendored CUTLASS is one component.
        let mut vendored = vec![
            f("third_party/cutlass/include/cute/a.hpp", 1, "HP603"),
            f("third_party/cutlass/include/cutlass/b.h", 1, "HP603"),
        ];
        fold(&mut vendored);
        assert_eq!(
            open_places(&vendored),
            [("third_party/cutlass/include/cute/a.hpp", 1)]
        );
    }
}
