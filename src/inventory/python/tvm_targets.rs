//! TVM's CUDA devices and targets (HP804). PyTorch on ROCm keeps the `cuda` device type, so
//! `.cuda()` and `device("cuda")` are portable there (HP800). TVM does not: it names AMD GPUs
//! `rocm` — `tvm.rocm(0)` / `tvm.runtime.rocm(0)` for the device, `Target("rocm")` /
//! `tvm.target.rocm()` for code generation — and a TVM built for ROCm has no CUDA runtime, so
//! `tvm.cuda(0)` or a `"cuda"` target fails when it is first used. Sources: TVM's Python API
//! (<https://tvm.apache.org/docs/reference/api/python/target.html>, `tvm.runtime.rocm(dev_id)`)
//! and its device/target notes
//! (<https://tvm.apache.org/docs/arch/device_target_interactions.html>).
//!
//! Only a file that imports TVM is read, and only calls that reach TVM through a name it
//! imported (`tvm`, `import tvm as t`, `from tvm.target import Target`). One finding per file,
//! on the first place, listing the others: the file's device choice is one edit (usually one
//! variable the others read). A call in an arm the ROCm build does not run is settled by the
//! file's platform model, like every Python finding.

use super::{args, dotted, keyword, string};
use crate::inventory::ts;
use crate::inventory::Out;
use crate::kinds::python::{Field as F, Kind as K, NodeExt};
use std::ops::Range;
use tree_sitter::Node;

rule!(TVM_CUDA_TARGET, "HP804", FrameworkNamespace, Remediation, Runtime,
    summary: "A TVM device or target named for CUDA (`tvm.cuda(0)`, `tvm.device(\"cuda\")`, `Target(\"cuda\")`, `tvm.target.cuda()`, `target=\"cuda\"`): unlike PyTorch, TVM names AMD GPUs `rocm`.",
    why: "TVM built for ROCm has a `rocm` device and target kind and no CUDA runtime: a `cuda` device or target fails when it is first used, where PyTorch would have mapped `cuda` to the HIP device.",
    bad: "dev = tvm.cuda(0)\nlib = tvm.build(mod, target=\"cuda\")",
    good: "dev = tvm.rocm(0) if on_rocm else tvm.cuda(0)\nlib = tvm.build(mod, target=\"rocm\" if on_rocm else \"cuda\")",
    fix: "Choose the device and target once from the platform (`tvm.rocm(0)`, `Target(\"rocm\")`, or `tvm.target.Target.from_device(dev)`), and use that choice everywhere.",
    refs: ["https://tvm.apache.org/docs/reference/api/python/target.html", "https://tvm.apache.org/docs/arch/device_target_interactions.html"],
);

pub const RULES: &[&crate::registry::RuleInfo] = &[&TVM_CUDA_TARGET];

/// The names through which the file reaches TVM: `tvm` (and `import tvm as t`'s `t`), and the
/// names `from tvm… import` brings in, each with the dotted path it stands for (empty when the
/// file imports no TVM).
pub(super) fn names(nodes: &[Node], src: &[u8]) -> Vec<(String, String)> {
    module_names(nodes, src, "tvm")
}

/// The names through which the file reaches `module` (a top-level package): the package (and
/// `import module as m`'s `m`), and the names `from module… import` brings in, each with the
/// dotted path it stands for.
pub(super) fn module_names(nodes: &[Node], src: &[u8], module: &str) -> Vec<(String, String)> {
    let ours = |p: &str| p == module || p.strip_prefix(module).is_some_and(|r| r.starts_with('.'));
    let mut names = Vec::new();
    for n in nodes {
        match n.node_kind() {
            K::ImportStatement => {
                let mut c = n.walk();
                for m in n.named_children(&mut c) {
                    let (path, alias) = if m.node_kind() == K::AliasedImport {
                        let path = m.field(F::Name).map(|x| ts::text(x, src)).unwrap_or("");
                        let alias = m.field(F::Alias).map(|x| ts::text(x, src)).unwrap_or("");
                        (path, alias.to_string())
                    } else {
                        let p = ts::text(m, src);
                        (p, p.split('.').next().unwrap_or("").to_string())
                    };
                    if ours(path) {
                        let stands = if m.node_kind() == K::AliasedImport {
                            path.to_string()
                        } else {
                            module.to_string()
                        };
                        names.push((alias, stands));
                    }
                }
            }
            K::ImportFromStatement => {
                let Some(from) = n.field(F::ModuleName) else {
                    continue;
                };
                let from = ts::text(from, src);
                if !ours(from) {
                    continue;
                }
                let mut c = n.walk();
                for m in n.children_by_field_name("name", &mut c) {
                    let (name, alias) = if m.node_kind() == K::AliasedImport {
                        (
                            m.field(F::Name).map(|x| ts::text(x, src)).unwrap_or(""),
                            m.field(F::Alias).map(|x| ts::text(x, src)).unwrap_or(""),
                        )
                    } else {
                        let t = ts::text(m, src);
                        (t, t)
                    };
                    names.push((alias.to_string(), format!("{from}.{name}")));
                }
            }
            _ => {}
        }
    }
    names
}

/// A dotted name as the path it stands for through the file's imports (`t.cuda` → `tvm.cuda`),
/// if its head is one of `names`.
pub(super) fn tvm_callee(callee: &str, names: &[(String, String)]) -> Option<String> {
    let (head, rest) = callee.split_once('.').unwrap_or((callee, ""));
    let (_, stands) = names.iter().find(|(n, _)| n == head)?;
    Some(if rest.is_empty() {
        stands.clone()
    } else {
        format!("{stands}.{rest}")
    })
}

fn names_cuda(s: &str) -> bool {
    let kind = s.split([' ', ':', '-']).next().unwrap_or("");
    matches!(kind, "cuda" | "nvptx")
}

/// What the call names for CUDA, if anything: `tvm.cuda(0)`, `tvm.gpu(0)`, `tvm.target.cuda()`,
/// `tvm.device("cuda", 0)`, `Target("cuda …")`, and any TVM call's `target="cuda"`.
fn cuda_place(call: Node, src: &[u8], names: &[(String, String)]) -> Option<String> {
    let func = call.field(F::Function)?;
    let callee = dotted(func, src)?;
    let path = tvm_callee(&callee, names)?;
    let last = path.rsplit('.').next().unwrap_or("");
    let first = args(call).into_iter().next().and_then(|a| string(a, src));
    let shown = || ts::text(call, src).chars().take(60).collect::<String>();
    match last {
        "cuda" | "gpu" if !path.contains(".contrib.") => return Some(shown()),
        "device" | "Target" if first.as_ref().is_some_and(|(s, _)| names_cuda(s)) => {
            return Some(shown())
        }
        _ => {}
    }
    let target = keyword(call, "target", src).and_then(|v| string(v, src))?;
    names_cuda(&target.0).then(|| format!("target=\"{}\"", target.0))
}

/// Whether `callee` (a call's dotted callee) reaches TVM through the file's imports.
pub(super) fn is_tvm_call(callee: &str, names: &[(String, String)]) -> bool {
    tvm_callee(callee, names).is_some()
}

/// What a per-file finding on the first of several places (their byte offsets) adds: ` (N
/// places in this file; also lines a, b, …)`, nothing for one place.
pub(super) fn other_places(src: &[u8], starts: &[usize]) -> String {
    if starts.len() < 2 {
        return String::new();
    }
    let line = |at: usize| src[..at].iter().filter(|&&b| b == b'\n').count() + 1;
    let lines: Vec<String> = starts[1..]
        .iter()
        .take(8)
        .map(|&at| line(at).to_string())
        .collect();
    format!(
        " ({} places in this file; also line{} {}{})",
        starts.len(),
        if starts.len() > 2 { "s" } else { "" },
        lines.join(", "),
        if starts.len() > 9 { ", …" } else { "" }
    )
}

/// One HP804 per file: the first place names the others.
pub(super) fn check(out: &mut Out, nodes: &[Node], src: &[u8], names: &[(String, String)]) {
    if names.is_empty() {
        return;
    }
    let places: Vec<(Range<usize>, String)> = nodes
        .iter()
        .filter(|n| n.node_kind() == K::Call)
        .filter_map(|&n| cuda_place(n, src, names).map(|s| (n.byte_range(), s)))
        .collect();
    let Some((first, what)) = places.first() else {
        return;
    };
    let starts: Vec<usize> = places.iter().map(|(r, _)| r.start).collect();
    let others = other_places(src, &starts);
    out.push(
        &TVM_CUDA_TARGET,
        first.clone(),
        format!("`{what}`: TVM names AMD GPUs `rocm` (`tvm.rocm(0)`, `Target(\"rocm\")`), not `cuda` as PyTorch does; a TVM built for ROCm has no CUDA device or target{others}"),
        Some("choose the device and target once from the platform (`tvm.rocm(0)` / `Target(\"rocm\")` on ROCm) and use that choice everywhere".into()),
    );
}

#[cfg(test)]
mod tests {
    use super::super::super::{kind::FileKind, scan_bytes};

    fn hp804(src: &str) -> Vec<(u32, String)> {
        scan_bytes("x.py", FileKind::Python, src.as_bytes())
            .into_iter()
            .filter(|f| f.rule == "HP804")
            .map(|f| (f.line, f.message))
            .collect()
    }

    /// mlc-llm and BitBLAS: a CUDA device, a CUDA target and a `target="cuda"` build in one
    /// file are one finding on the first, listing the others; through an alias and a
    /// `from tvm.target import Target` too. PyTorch's `.cuda()` in the same file stays HP800.
    #[test]
    fn tvm_cuda_devices_and_targets_are_one_finding_per_file() {
        let src = "import tvm as t\nfrom tvm.target import Target\nimport torch\ndev = t.cuda(0)\ntgt = Target(\"cuda -arch=sm_80\")\nlib = t.build(mod, target=\"cuda\")\nx = torch.zeros(3).cuda()\n";
        let got = hp804(src);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, 4);
        assert!(got[0].1.contains("`t.cuda(0)`"), "{}", got[0].1);
        assert!(
            got[0].1.contains("3 places in this file; also lines 5, 6"),
            "{}",
            got[0].1
        );
        let all = scan_bytes("x.py", FileKind::Python, src.as_bytes());
        assert!(all.iter().any(|f| f.rule == "HP800" && f.line == 7));
        assert!(!all.iter().any(|f| f.rule == "HP800" && f.line == 4));
    }

    /// Twins: no TVM import (a project's own `Target` and `.cuda()`), TVM's ROCm names, a
    /// non-CUDA target, and TVM's nvcc helper module.
    #[test]
    fn rocm_targets_and_files_without_tvm_are_not_reported() {
        assert!(hp804("class Target: pass\ndev = Target(\"cuda\")\nm = model.cuda()\n").is_empty());
        assert!(hp804("import tvm\ndev = tvm.rocm(0)\ntgt = tvm.target.Target(\"rocm\")\nlib = tvm.build(m, target=\"llvm\")\n").is_empty());
        assert!(
            hp804("import tvm.contrib.nvcc\nptx = tvm.contrib.nvcc.compile_cuda(code)\n")
                .is_empty()
        );
        assert_eq!(
            hp804("import tvm\ndev = tvm.device(\"cuda\", 0)\n").len(),
            1
        );
    }
}
