//! HP837: a PyTorch extension build that lifts PyTorch's half-precision restrictions for nvcc
//! only. PyTorch compiles extensions with `-D__CUDA_NO_HALF_OPERATORS__`,
//! `-D__CUDA_NO_HALF_CONVERSIONS__`, `-D__CUDA_NO_HALF2_OPERATORS__` and
//! `-D__CUDA_NO_BFLOAT16_CONVERSIONS__` (`COMMON_NVCC_FLAGS` of `torch/utils/cpp_extension.py`);
//! kernels that use `half` arithmetic or implicit `half`↔`float` conversions undo them
//! (`-U__CUDA_NO_HALF_OPERATORS__` in the extension's nvcc flags, or the flags removed from
//! `COMMON_NVCC_FLAGS`). On ROCm PyTorch passes hipcc its own pair instead,
//! `-D__HIP_NO_HALF_OPERATORS__=1 -D__HIP_NO_HALF_CONVERSIONS__=1` (`COMMON_HIPCC_FLAGS`), which
//! nothing of that undoes: the same kernels stop at "no viable conversion" / "invalid operands"
//! until the build undoes the HIP pair too. A file that names the HIP macros at all handles it,
//! and so does one that branches for the ROCm build (its ROCm arm is the project's, built and
//! tested there: causal-conv1d keeps the CUDA `-U` flags in its HIP arm and builds).

use super::string;
use crate::inventory::ts;
use crate::inventory::Out;
use crate::registry::RuleInfo;
use tree_sitter::Node;

rule!(HALF_RESTRICTIONS_LIFTED_FOR_NVCC_ONLY, "HP837", NativeExtension, Unknown, Build,
    summary: "A PyTorch extension build undoes PyTorch's `__CUDA_NO_HALF_*` restrictions for nvcc but not the `__HIP_NO_HALF_*` pair PyTorch's ROCm build gives hipcc: UNKNOWN until a person checks whether the kernels use `half` operators or implicit conversions (then they fail to compile on ROCm) or only explicit conversion functions (then nothing breaks).",
    why: "PyTorch adds `-D__HIP_NO_HALF_OPERATORS__=1 -D__HIP_NO_HALF_CONVERSIONS__=1` to every hipcc command of an extension (`COMMON_HIPCC_FLAGS` in `torch/utils/cpp_extension.py`). `-U__CUDA_NO_HALF_OPERATORS__`, or removing the `-D__CUDA_NO_HALF_*` flags from `COMMON_NVCC_FLAGS`, does nothing to them, so on ROCm the kernels that needed the CUDA flags lifted fail to compile.",
    bad: "extra_compile_args={\"nvcc\": [\"-O3\", \"-U__CUDA_NO_HALF_OPERATORS__\", \"-U__CUDA_NO_HALF_CONVERSIONS__\"]}",
    good: "extra_compile_args={\"nvcc\": [\"-O3\", \"-U__CUDA_NO_HALF_OPERATORS__\", \"-U__CUDA_NO_HALF_CONVERSIONS__\", \"-U__HIP_NO_HALF_OPERATORS__\", \"-U__HIP_NO_HALF_CONVERSIONS__\"]}",
    fix: "Add `-U__HIP_NO_HALF_OPERATORS__` and `-U__HIP_NO_HALF_CONVERSIONS__` to the extension's `nvcc` flags (PyTorch hands them to hipcc after its own), or remove the `-D` pair from `torch.utils.cpp_extension.COMMON_HIPCC_FLAGS` as the file does for nvcc.",
    refs: ["https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py", "https://rocm.docs.amd.com/projects/HIP/en/latest/reference/low_fp_types.html"],
);

pub const RULES: &[&RuleInfo] = &[&HALF_RESTRICTIONS_LIFTED_FOR_NVCC_ONLY];

/// The CUDA macros PyTorch defines for nvcc and projects undo.
const CUDA_HALF_MACROS: [&str; 4] = [
    "__CUDA_NO_HALF_OPERATORS__",
    "__CUDA_NO_HALF_CONVERSIONS__",
    "__CUDA_NO_HALF2_OPERATORS__",
    "__CUDA_NO_BFLOAT16_CONVERSIONS__",
];

/// One HP837 at the first flag that lifts a [`CUDA_HALF_MACROS`] restriction (`-U…`, or `-D…`
/// in a file that edits PyTorch's `COMMON_NVCC_FLAGS`), unless the file names `__HIP_NO_HALF`
/// anywhere (it handles the ROCm side) or is no extension build.
pub fn check(out: &mut Out, root: Node, src: &[u8]) {
    if memchr::memmem::find(src, b"__CUDA_NO_HALF").is_none()
        && memchr::memmem::find(src, b"__CUDA_NO_BFLOAT16").is_none()
    {
        return;
    }
    if memchr::memmem::find(src, b"__HIP_NO_HALF").is_some()
        || memchr::memmem::find(src, b"cpp_extension").is_none()
    {
        return;
    }
    // The file edits PyTorch's own list of nvcc flags (`COMMON_NVCC_FLAGS.remove(flag)`).
    let removes_from_torch = memchr::memmem::find(src, b"COMMON_NVCC_FLAGS").is_some();
    let mut first: Option<(String, std::ops::Range<usize>)> = None;
    let mut named: Vec<&str> = Vec::new();
    ts::each(root, &mut |n| {
        let Some((text, range)) = string(n, src) else {
            return;
        };
        let flag = text.trim();
        for m in CUDA_HALF_MACROS {
            // `-U__CUDA_NO_HALF_OPERATORS__`, or the `-D` flag taken out of PyTorch's list; a
            // `-D` the project adds itself keeps the restriction.
            let lifted = flag.strip_prefix("-U").is_some_and(|r| r.trim() == m)
                || (flag.strip_prefix("-D").is_some_and(|r| r.trim() == m) && removes_from_torch);
            if lifted {
                if !named.contains(&m) {
                    named.push(m);
                }
                if first.is_none() {
                    first = Some((text.clone(), range.clone()));
                }
            }
        }
    });
    let Some((text, range)) = first else {
        return;
    };
    let undo = if text.trim_start().starts_with("-U") {
        "undoes"
    } else {
        "removes"
    };
    out.push(
        &HALF_RESTRICTIONS_LIFTED_FOR_NVCC_ONLY,
        range,
        format!(
            "the build {undo} PyTorch's `{}` for nvcc; on ROCm PyTorch gives hipcc `-D__HIP_NO_HALF_OPERATORS__=1 -D__HIP_NO_HALF_CONVERSIONS__=1`, which nothing here undoes: kernels that use `half` operators or implicit `half`/`float` conversions fail to compile there (explicit `__half2float`-style calls are unaffected)",
            named.join("`, `")
        ),
        Some("check the kernels for `half` arithmetic or implicit conversions; if they have any, add \"-U__HIP_NO_HALF_OPERATORS__\", \"-U__HIP_NO_HALF_CONVERSIONS__\" to the extension's nvcc flags (PyTorch passes them to hipcc after its own)".into()),
    );
}

#[cfg(test)]
mod tests {
    use crate::inventory::{kind::FileKind, scan_bytes};

    fn hp837(file: &str, text: &str) -> Vec<(u32, String)> {
        scan_bytes(file, FileKind::SetupPy, text.as_bytes())
            .into_iter()
            .filter(|f| f.rule == "HP837")
            .map(|f| (f.line, f.status.as_str().to_string()))
            .collect()
    }

    /// Positive: `-U` flags in the nvcc args, and the `-D` flags removed from PyTorch's list
    /// (punica's `remove_unwanted_pytorch_nvcc_flags`). Twins: the same file that also undoes
    /// the HIP pair; a build that adds the `-D` restrictions itself (BasicSR).
    #[test]
    fn lifting_cuda_half_restrictions_needs_the_hip_pair_too() {
        let u = "from torch.utils.cpp_extension import CUDAExtension\nargs = {\"nvcc\": [\"-O3\", \"-U__CUDA_NO_HALF_OPERATORS__\", \"-U__CUDA_NO_HALF_CONVERSIONS__\"]}\next = CUDAExtension(\"k\", [\"k.cu\"], extra_compile_args=args)\n";
        assert_eq!(hp837("setup.py", u), [(2, "UNKNOWN".to_string())]);
        let removed = "import torch.utils.cpp_extension as torch_cpp_ext\nfor flag in [\"-D__CUDA_NO_HALF_OPERATORS__\", \"-D__CUDA_NO_HALF_CONVERSIONS__\"]:\n    torch_cpp_ext.COMMON_NVCC_FLAGS.remove(flag)\n";
        assert_eq!(hp837("setup.py", removed), [(2, "UNKNOWN".to_string())]);
        let both = u.replace(
            "\"-O3\",",
            "\"-O3\", \"-U__HIP_NO_HALF_OPERATORS__\", \"-U__HIP_NO_HALF_CONVERSIONS__\",",
        );
        assert!(hp837("setup.py", &both).is_empty());
        let branched = format!(
            "import torch\nif torch.version.hip:\n    hip = [\"--offload-arch=gfx942\"]\n{u}"
        );
        assert!(hp837("setup.py", &branched).is_empty());
        let adds = "from torch.utils.cpp_extension import CUDAExtension\nargs = {\"nvcc\": [\"-D__CUDA_NO_HALF_OPERATORS__\", \"-D__CUDA_NO_HALF_CONVERSIONS__\"]}\n";
        assert!(hp837("setup.py", adds).is_empty());
        // Twin: a build without PyTorch that copies its flag list and drives nvcc itself
        // (TIGRE's `setup.py`, which names `cpp_extension` only in a comment): no PyTorch
        // gives hipcc the HIP pair there.
        let own = "# Code from torch/utils/cpp_extension.py\nCOMMON_NVCC_FLAGS = [\"-D__CUDA_NO_HALF_OPERATORS__\"]\nCOMMON_NVCC_FLAGS.remove(\"-D__CUDA_NO_HALF_OPERATORS__\")\n";
        assert_eq!(hp837("setup.py", own), []);
    }
}
