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
