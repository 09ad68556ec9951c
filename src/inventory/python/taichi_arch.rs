//! Taichi's CUDA backend chosen by name (HP805). PyTorch on ROCm keeps the `cuda` device type;
//! Taichi does not: `ti.cuda` is its CUDA backend, and on a machine without an NVIDIA driver
//! `ti.init(arch=ti.cuda)` finds it unavailable and falls back to the CPU with a warning (or
//! raises, with `enable_fallback=False`): the kernels run, slowly, on the host. `ti.gpu` is the
//! list of GPU backends Taichi tries in turn (CUDA, Metal, Vulkan, OpenGL, DX11/12, GLES,
//! AMDGPU), and `ti.amdgpu` is its AMD backend, built only where Taichi was configured with
//! `TI_WITH_AMDGPU=ON` (off by default). Sources: Taichi's `python/taichi/lang/misc.py`
//! (`gpu = [cuda, metal, vulkan, opengl, dx11, dx12, gles, amdgpu]`, `adaptive_arch_select`:
//! "Arch=… is not supported, falling back to CPU") and `cmake/TaichiCore.cmake`
//! (`option(TI_WITH_AMDGPU "Build with the AMDGPU backend" OFF)`), both at v1.8.0.
//!
//! A use of `ti.cuda` as a value (`ti.init(arch=ti.cuda)`, `{"arch": ti.cuda}`,
//! `arch=[ti.cuda]`) chooses the backend. A comparison (`ti.cfg.arch == ti.cuda`) tests which
//! one runs, and a decorator (`@ti.test(arch=ti.cuda)`) limits a test to it, which on ROCm
//! skips it: neither is reported. One finding per file, on the first place, listing the others.

use super::tvm_targets::{module_names, other_places, tvm_callee};
use crate::inventory::ts;
use crate::inventory::Out;
use crate::kinds::python::{Kind as K, NodeExt};
use tree_sitter::Node;

rule!(TAICHI_CUDA_ARCH, "HP805", FrameworkNamespace, Remediation, Performance,
    summary: "Taichi's CUDA backend chosen by name (`ti.init(arch=ti.cuda)`): on an AMD GPU Taichi finds no CUDA and runs the kernels on the CPU.",
    why: "Unlike PyTorch, Taichi does not map `cuda` to the HIP device: `ti.cuda` is its CUDA backend, which is unavailable without an NVIDIA driver, so `ti.init` falls back to the CPU with a warning (or raises with `enable_fallback=False`).",
    bad: "ti.init(arch=ti.cuda)",
    good: "ti.init(arch=ti.gpu)  # the first GPU backend available: Vulkan, or AMDGPU in a Taichi built with it",
    fix: "Choose `ti.gpu` (Taichi tries its GPU backends in turn, Vulkan and AMDGPU included) or `ti.amdgpu` with a Taichi built with `TI_WITH_AMDGPU=ON`, and check the run log for the CPU fallback warning.",
    refs: ["https://github.com/taichi-dev/taichi/blob/v1.8.0/python/taichi/lang/misc.py", "https://github.com/taichi-dev/taichi/blob/v1.8.0/cmake/TaichiCore.cmake"],
);

pub const RULES: &[&crate::registry::RuleInfo] = &[&TAICHI_CUDA_ARCH];

/// Whether `ti.cuda` (or a bare `cuda` imported from Taichi) is read as a choice: a value, not
/// an operand of a comparison (also inside a list or tuple compared), not a name being
/// imported or the head of a longer attribute, and not inside a decorator.
fn chooses(n: Node) -> bool {
    let mut p = n.parent();
    if n.node_kind() == K::Identifier
        && p.is_some_and(|p| matches!(p.node_kind(), K::Attribute | K::DottedName))
    {
        return false;
    }
    if n.node_kind() == K::Attribute && p.is_some_and(|p| p.node_kind() == K::Attribute) {
        return false;
    }
    while let Some(x) = p.filter(|x| matches!(x.node_kind(), K::List | K::Tuple)) {
        p = x.parent();
    }
    if p.is_some_and(|p| p.node_kind() == K::ComparisonOperator) {
        return false;
    }
    while let Some(x) = p {
        if matches!(x.node_kind(), K::Decorator | K::ImportFromStatement) {
            return false;
        }
        p = x.parent();
    }
    true
}

/// Whether `ti.cuda` sits in the arm of an `if`/`elif` whose condition names `"cuda"` (a
/// backend picked from a command-line or config value: `if args.arch == "cuda": arch = ti.cuda`):
/// the arm runs only where the user asked for CUDA, and its siblings serve the other backends.
fn in_cuda_arm(n: Node, src: &[u8]) -> bool {
    let mut p = n.parent();
    while let Some(x) = p {
        if matches!(x.node_kind(), K::IfStatement | K::ElifClause) {
            let cond = x.field(crate::kinds::python::Field::Condition);
            if cond.is_some_and(|c| {
                let t = ts::text(c, src);
                t.contains("\"cuda\"") || t.contains("'cuda'")
            }) {
                return true;
            }
        }
        p = x.parent();
    }
    false
}

/// Whether `ti.cuda` sits beside another Taichi backend in one list, tuple or dict: an arch
/// list Taichi tries in turn (`arch=[ti.cuda, ti.vulkan]`) or a table of names
/// (`{"cuda": ti.cuda, "vulkan": ti.vulkan}`), which choose nothing on their own.
fn among_others(n: Node, stands: &dyn Fn(Node) -> Option<String>) -> bool {
    let Some(mut c) = n.parent() else {
        return false;
    };
    if c.node_kind() == K::Pair {
        match c.parent() {
            Some(d) => c = d,
            None => return false,
        }
    }
    if !matches!(c.node_kind(), K::List | K::Tuple | K::Set | K::Dictionary) {
        return false;
    }
    let mut other = false;
    ts::each(c, &mut |x| {
        if x.id() != n.id()
            && x.node_kind() == K::Attribute
            && stands(x).is_some_and(|p| p.starts_with("taichi.") && p != "taichi.cuda")
        {
            other = true;
        }
    });
    other
}

/// One HP805 per file: the first place names the others.
pub(super) fn check(out: &mut Out, nodes: &[Node], src: &[u8]) {
    let names = module_names(nodes, src, "taichi");
    if names.is_empty() {
        return;
    }
    let stands = |n: Node| tvm_callee(ts::text(n, src), &names);
    let places: Vec<Node> = nodes
        .iter()
        .copied()
        .filter(|n| matches!(n.node_kind(), K::Attribute | K::Identifier) && chooses(*n))
        .filter(|n| stands(*n).is_some_and(|p| p == "taichi.cuda"))
        .filter(|n| !among_others(*n, &stands) && !in_cuda_arm(*n, src))
        .collect();
    let Some(first) = places.first() else {
        return;
    };
    let starts: Vec<usize> = places.iter().map(|n| n.start_byte()).collect();
    let others = other_places(src, &starts);
    out.push(
        &TAICHI_CUDA_ARCH,
        first.byte_range(),
        format!(
            "`{}`: Taichi's CUDA backend, unavailable on an AMD GPU: `ti.init` falls back to the CPU (a warning, or an error with `enable_fallback=False`); PyTorch's `cuda` device maps to HIP, Taichi's does not{others}",
            ts::text(*first, src)
        ),
        Some("`ti.gpu` (Taichi tries its GPU backends in turn: Vulkan, or AMDGPU in a Taichi built with `TI_WITH_AMDGPU=ON`), or `ti.amdgpu`".into()),
    );
}

#[cfg(test)]
mod tests {
    use super::super::super::{kind::FileKind, scan_bytes};

    fn hp805(src: &str) -> Vec<(u32, String)> {
        scan_bytes("x.py", FileKind::Python, src.as_bytes())
            .into_iter()
            .filter(|f| f.rule == "HP805")
            .map(|f| (f.line, f.message))
            .collect()
    }

    /// stable-dreamfusion: the backend chosen in a dict of `ti.init` arguments, and again in a
    /// call through `from taichi import cuda`: one finding on the first, naming the other.
    #[test]
    fn taichi_cuda_backend_chosen_is_one_finding_per_file() {
        let src = "import taichi as ti\nargs = {\"arch\": ti.cuda, \"device_memory_GB\": 4.0}\nti.init(**args)\nfrom taichi import cuda\nti.init(arch=[cuda])\n";
        let got = hp805(src);
        assert_eq!(got.len(), 1, "{got:?}");
        assert_eq!(got[0].0, 2);
        assert!(got[0].1.contains("also line 5"), "{}", got[0].1);
    }

    /// Twins: `ti.gpu` and `ti.amdgpu`, a comparison of the running backend, a test limited to
    /// CUDA by its decorator, and a `cuda` attribute of a module that is not Taichi.
    #[test]
    fn portable_choices_tests_and_other_modules_are_not_reported() {
        assert!(
            hp805("import taichi as ti\nti.init(arch=ti.gpu)\nti.init(arch=ti.amdgpu)\n")
                .is_empty()
        );
        assert!(hp805("import taichi as ti\nif ti.lang.impl.current_cfg().arch == ti.cuda:\n    pass\nok = ti.cfg.arch in [ti.cuda, ti.vulkan]\n").is_empty());
        assert!(
            hp805("import taichi as ti\n@ti.test(arch=ti.cuda)\ndef test_a():\n    pass\n")
                .is_empty()
        );
        assert!(hp805("import torch as ti\nx = ti.cuda\n").is_empty());
        // An arch list with a portable backend, and a table of backends by name.
        assert!(hp805("import taichi as ti\nif args.arch == \"cuda\":\n    arch = ti.cuda\nelif args.arch == 'x64':\n    arch = ti.x64\n").is_empty());
        assert!(hp805("import taichi as ti\nsupported = {ti.cpu, ti.cuda}\n").is_empty());
        assert!(hp805("import taichi as ti\nti.init(arch=[ti.cuda, ti.vulkan])\nARCH = {\"cuda\": ti.cuda, \"vulkan\": ti.vulkan}\n").is_empty());
    }
}
