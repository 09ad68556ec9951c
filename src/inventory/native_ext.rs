//! native-extension rules: PyTorch C++/CUDA extensions and the nvcc-only flags in them.

use crate::registry::RuleInfo;

rule!(TORCH_CUDA_EXTENSION, "HP830", NativeExtension, Pass, Build,
    summary: "A PyTorch CUDA extension (`CUDAExtension`, `cpp_extension.load(..., sources=[*.cu])`).",
    why: "PyTorch's ROCm build hipifies such extensions automatically at build time, so the extension call itself needs no change (PASS). What can still stop it is reported where it is: nvcc-only flags in the call (HP831) and what the kernels use (their own findings).",
    bad: "CUDAExtension(\"ops\", [\"ops.cpp\", \"kernel.cu\"])",
    good: "CUDAExtension(\"ops\", [\"ops.cpp\", \"kernel.cu\"])  # hipified by torch on ROCm; nvcc-only flags gated",
    fix: "Build it against ROCm PyTorch, gate nvcc-only flags on `torch.version.hip`, and review the kernel findings.",
    refs: ["https://pytorch.org/docs/stable/cpp_extension.html", "https://pytorch.org/docs/stable/notes/hip.html"],
);

rule!(NVCC_ONLY_EXTENSION_FLAG, "HP831", NativeExtension, Remediation, Build,
    summary: "An nvcc-only compile flag (`-gencode`, `-arch=sm_XX`, `--use_fast_math`, `-Xptxas`...) in a Python build.",
    why: "On ROCm the extension is compiled by hipcc/clang, which rejects or ignores nvcc flags and needs `--offload-arch=gfx...` instead.",
    bad: "extra_compile_args={\"nvcc\": [\"-gencode\", \"arch=compute_80,code=sm_80\"]}",
    good: "nvcc_args = [\"--offload-arch=gfx942\"] if torch.version.hip else [\"-gencode\", \"arch=compute_80,code=sm_80\"]",
    fix: "Gate the flags on `torch.version.hip` (or `IS_HIP_EXTENSION`), and set `PYTORCH_ROCM_ARCH` / `--offload-arch` for AMD targets.",
    refs: ["https://pytorch.org/docs/stable/cpp_extension.html"],
);

rule!(TORCH_BUILD_EXTENSION, "HP832", NativeExtension, Pass, Build,
    summary: "`torch.utils.cpp_extension.BuildExtension`: hipifies CUDA sources on ROCm builds.",
    why: "BuildExtension runs hipify on CUDA extensions when PyTorch is a ROCm build, so the build command itself needs no change.",
    bad: "cmdclass={\"build_ext\": BuildExtension}",
    good: "cmdclass={\"build_ext\": BuildExtension}  # unchanged",
    fix: "Nothing to do.",
    refs: ["https://pytorch.org/docs/stable/cpp_extension.html"],
);

rule!(CPP_EXTENSION_CUDA_SOURCES, "HP836", NativeExtension, Remediation, Build,
    summary: "A PyTorch `CppExtension` that lists CUDA sources (`.cu`): PyTorch hipifies only `CUDAExtension`.",
    why: "On a ROCm build of PyTorch, `CUDAExtension()` hipifies its sources and links the HIP runtime; `CppExtension()` does neither. BuildExtension still hands its `.cu` files to hipcc, unported: `cuda_runtime.h`, `cub/cub.cuh` and the CUDA runtime calls do not build there. A `CUDA_HOME` test around it (`if \"CUDA_HOME\" in os.environ:`) leaves the extension out silently on a ROCm machine.",
    bad: "CppExtension(\"ops_cuda\", sources=[\"binding.cpp\", \"kernel.cu\"])",
    good: "CUDAExtension(\"ops_cuda\", sources=[\"binding.cpp\", \"kernel.cu\"])  # hipified on ROCm",
    fix: "Declare it as a `CUDAExtension` (or hipify its sources yourself), and build it when `torch.version.hip` or `ROCM_HOME` is set, not only when `CUDA_HOME` is.",
    refs: ["https://pytorch.org/docs/stable/cpp_extension.html", "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py"],
);

pub const RULES: &[&RuleInfo] = &[
    &TORCH_CUDA_EXTENSION,
    &NVCC_ONLY_EXTENSION_FLAG,
    &TORCH_BUILD_EXTENSION,
    &CPP_EXTENSION_CUDA_SOURCES,
];

/// Flags for nvcc in a tree nvcc never compiles anything of: no CUDA source file (`.cu`,
/// `.cuh`), no Python build that hands CUDA code inline (`load_inline(…, cuda_sources=…)`) and
/// none that names a CUDA source (`sources=["k.cu"]`: a file the checkout lacks is still built).
/// PyTorch's extensions pass `extra_cuda_cflags` and the `nvcc` flags of `extra_compile_args`
/// only to `.cu` sources; YOLOX's op builder (a copy of DeepSpeed's) keeps `--use_fast_math` and
/// the half-operator switches for ops it never has, its one op being C++. HP831 and HP837 there
/// are PASS, saying so.
/// Whether [`settle_without_cuda_sources`] can settle something: no CUDA source, no submodules
/// (a tree with submodules may lack the sources they hold: not judged), and an open flag finding.
pub fn may_settle(
    findings: &[crate::finding::Finding],
    cuda_sources: &[String],
    rels: &[&str],
) -> bool {
    cuda_sources.is_empty()
        && !rels.contains(&".gitmodules")
        && findings.iter().any(|f| {
            matches!(f.rule.as_str(), "HP831" | "HP837") && f.status != crate::gate::Status::Pass
        })
}

pub fn settle_without_cuda_sources(
    findings: &mut [crate::finding::Finding],
    cuda_sources: &[String],
    pythons: &[(&str, &[u8])],
) {
    if !cuda_sources.is_empty() {
        return;
    }
    // Inline CUDA code, or a build that names CUDA sources the checkout lacks.
    let inline = pythons.iter().any(|(_, b)| {
        [
            &b"load_inline"[..],
            b"cuda_sources",
            b".cu\"",
            b".cu'",
            b".cuh\"",
            b".cuh'",
        ]
        .iter()
        .any(|w| memchr::memmem::find(b, w).is_some())
    });
    if inline {
        return;
    }
    for f in findings.iter_mut().filter(|f| {
        matches!(f.rule.as_str(), "HP831" | "HP837")
            && f.status != crate::gate::Status::Pass
            && f.path.ends_with(".py")
    }) {
        f.settle(" — inert here: the tree has no CUDA source (no `.cu`/`.cuh` file, no inline CUDA code), and PyTorch hands these flags only to CUDA sources, so no compiler ever reads them");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::finding::Finding;
    use crate::gate::Status;

    fn open(rule: &str, path: &str) -> Finding {
        Finding {
            status: Status::Remediation,
            ..Finding::bare(rule, path, 60)
        }
    }

    /// YOLOX: nvcc flags of an op builder whose only op is C++. Twins: a tree with a `.cu`
    /// source, and one whose Python builds CUDA code inline, keep them open.
    #[test]
    fn nvcc_flags_without_cuda_sources_are_inert() {
        let fresh = || {
            vec![
                open("HP831", "yolox/layers/jit_ops.py"),
                open("HP837", "yolox/layers/jit_ops.py"),
            ]
        };
        let py: &[u8] =
            b"op = load(name, sources=glob('*.cpp'), extra_cuda_cflags=['--use_fast_math'])\n";
        let mut fs = fresh();
        settle_without_cuda_sources(&mut fs, &[], &[("jit_ops.py", py)]);
        assert!(fs.iter().all(|f| f.status == Status::Pass));
        let mut fs = fresh();
        settle_without_cuda_sources(&mut fs, &["csrc/k.cu".to_string()], &[("jit_ops.py", py)]);
        assert!(fs.iter().all(|f| f.status == Status::Remediation));
        let named: &[u8] =
            b"load(name='k', sources=['k.cu'], extra_cuda_cflags=['--use_fast_math'])\n";
        let mut fs = fresh();
        settle_without_cuda_sources(&mut fs, &[], &[("build.py", named)]);
        assert!(fs.iter().all(|f| f.status == Status::Remediation));
        let inline: &[u8] = b"m = load_inline(name='k', cpp_sources=c, cuda_sources=k, extra_cuda_cflags=['--use_fast_math'])\n";
        let mut fs = fresh();
        settle_without_cuda_sources(&mut fs, &[], &[("jit_ops.py", inline)]);
        assert!(fs.iter().all(|f| f.status == Status::Remediation));
    }
}
