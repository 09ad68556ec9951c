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
/// the component: whatever of it the ROCm build needs is one decision, not one per folder.
pub fn kind(findings: &[Finding], nested: &[String]) -> Kind {
    let files: BTreeSet<String> = findings
        .iter()
        .filter(|f| f.rule == CUTLASS && f.status != Status::Pass)
        .map(|f| f.path.clone())
        .collect();
    let dirs: BTreeSet<String> = files.iter().map(|p| dir_of(p).to_string()).collect();
    let nested = nested.to_vec();
    Kind {
        key: Box::new(move |f| {
            files.contains(&f.path).then(|| {
                let dir = dir_of(&f.path);
                nested_root(dir, &nested)
                    .cloned()
                    .unwrap_or_else(|| component_of(dir, &dirs))
            })
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
        let k = kind(findings, &[]);
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
        let k = kind(&fs, &nested);
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
}
