//! Reading hipcc's diagnostics: the first error of a failed compile and what kind of failure it
//! is. A failed unit is never a BLOCKER: a missing ROCm library header says the machine lacks a
//! package (UNKNOWN: the port cannot be judged here), a missing third-party header (PyTorch's
//! `torch/`, `ATen/`, `c10/`, pybind11, Python, or a git submodule that is not checked out) says
//! a dependency is absent here (UNKNOWN, with what to install), an un-ported CUDA name says the
//! code still needs work (REMEDIATION), anything else is UNKNOWN until a person looks. Headers
//! of known packages (rocThrust, hipCUB, OpenMP, MPI, OpenGL…) are named with what to install by
//! [`super::packages`].

use crate::gate::Status;
use serde::{Deserialize, Serialize};

/// How one translation unit fared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Pass,
    /// A ROCm library header (hipBLAS, rocBLAS, MIOpen, …) is not installed.
    MissingHeader,
    /// A CUDA name survived translation and the compiler does not know it.
    UnportedApi,
    /// A third-party header (PyTorch, pybind11, Python, a submodule) is not available here.
    MissingThirdParty,
    Other,
}

impl Outcome {
    /// The `result` words shown to people and written to JSON.
    pub fn label(self) -> &'static str {
        match self {
            Outcome::Pass => "PASS",
            Outcome::MissingHeader => "BUILD FAIL (missing ROCm library header)",
            Outcome::UnportedApi => "BUILD FAIL (un-ported API)",
            Outcome::MissingThirdParty => "BUILD FAIL (missing third-party header)",
            Outcome::Other => "BUILD FAIL (other)",
        }
    }
    pub fn status(self) -> Status {
        match self {
            Outcome::Pass => Status::Pass,
            Outcome::UnportedApi => Status::Remediation,
            Outcome::MissingHeader | Outcome::MissingThirdParty | Outcome::Other => Status::Unknown,
        }
    }
}

/// Header path prefixes installed by ROCm libraries (the `<lib>/` directories and the flat
/// pre-5.2 names share these stems).
const ROCM_HEADER_STEMS: &[&str] = &[
    "hip",
    "roc",
    "rccl",
    "miopen",
    "rocm",
    "amd_",
    "rocthrust",
    "thrust/system/hip",
    "hsa",
    "roctx",
    "roctracer",
    "composable_kernel",
    "ck/",
    "migraphx",
    "rpp",
];

/// CUDA headers that translation should have replaced.
const CUDA_HEADER_STEMS: &[&str] = &[
    "cuda",
    "cu",
    "nv",
    "cub/",
    "thrust/system/cuda",
    "cooperative_groups",
    "device_launch_parameters",
    "sm_",
    "mma.h",
    "crt/",
];

/// Classifies a failed compile's combined output: the outcome and the first error line.
pub fn classify(output: &str) -> (Outcome, String) {
    let first = first_error(output);
    let Some(first) = first else {
        return (
            Outcome::Other,
            "the compiler failed without an error line".into(),
        );
    };
    // Any un-ported CUDA name anywhere in the errors is the most useful thing to say.
    for line in error_lines(output) {
        if let Some(header) = missing_header(line) {
            let stem = header.trim_start_matches('/');
            if is_cuda_header(stem) {
                return (Outcome::UnportedApi, line.to_string());
            }
        }
    }
    if let Some(header) = missing_header(&first) {
        return if is_rocm_header(header) {
            (Outcome::MissingHeader, first)
        } else if third_party_package(header).is_some() {
            (Outcome::MissingThirdParty, first)
        } else {
            (Outcome::Other, first)
        };
    }
    if let Some(line) = error_lines(output).find(|l| unknown_cuda_name(l).is_some()) {
        return (Outcome::UnportedApi, line.to_string());
    }
    (Outcome::Other, first)
}

fn error_lines(output: &str) -> impl Iterator<Item = &str> {
    output
        .lines()
        .map(str::trim_end)
        .filter(|l| l.contains("error: ") && !l.starts_with("clang: warning"))
}

/// The first `file:line:col: error: …` (or `fatal error`, or a driver `error:`) line.
pub fn first_error(output: &str) -> Option<String> {
    error_lines(output).next().map(str::to_string)
}

/// The header named by the first "file not found" error, if the first error is one.
pub fn first_missing_header(output: &str) -> Option<String> {
    first_error(output)
        .as_deref()
        .and_then(missing_header)
        .map(str::to_string)
}

/// Headers of PyTorch and the Python toolchain its extensions build against.
const THIRD_PARTY_STEMS: &[(&str, &str)] = &[
    ("torch/", "PyTorch"),
    ("ATen/", "PyTorch"),
    ("c10/", "PyTorch"),
    ("caffe2/", "PyTorch"),
    ("THC/", "PyTorch"),
    ("pybind11/", "pybind11"),
    ("Python.h", "Python"),
];

/// The third-party package a header belongs to (`torch/extension.h` → PyTorch).
pub fn third_party_package(header: &str) -> Option<&'static str> {
    THIRD_PARTY_STEMS
        .iter()
        .find(|(s, _)| header.starts_with(s))
        .map(|(_, p)| *p)
}

/// `'hipblas/hipblas.h' file not found` → `hipblas/hipblas.h`.
fn missing_header(line: &str) -> Option<&str> {
    let rest = line.split("fatal error: '").nth(1)?;
    let (header, tail) = rest.split_once('\'')?;
    tail.contains("file not found").then_some(header)
}

fn is_rocm_header(h: &str) -> bool {
    let h = h.to_ascii_lowercase();
    ROCM_HEADER_STEMS.iter().any(|s| h.starts_with(s))
}

fn is_cuda_header(h: &str) -> bool {
    let h = h.to_ascii_lowercase();
    !is_rocm_header(&h) && CUDA_HEADER_STEMS.iter().any(|s| h.starts_with(s))
}

/// The CUDA-looking name in an "undeclared"/"unknown type"/"no member" error, if any.
fn unknown_cuda_name(line: &str) -> Option<&str> {
    const KINDS: &[&str] = &[
        "use of undeclared identifier '",
        "unknown type name '",
        "no member named '",
        "no template named '",
        "use of undeclared label '",
        "no type named '",
        "unknown template name '",
    ];
    let name = KINDS.iter().find_map(|k| line.split(k).nth(1))?;
    let name = name.split('\'').next()?;
    is_cuda_name(name).then_some(name)
}

/// `cudaX`, `cuX`, `CUx`, `CUDA_X`, `cublasX`, `nvtxX`, `__nv_x`, `nvcuda::…` (not `cursor`).
pub fn is_cuda_name(name: &str) -> bool {
    const LIBS: &[&str] = &[
        "cuda", "cublas", "cufft", "curand", "cusparse", "cusolver", "cudnn", "cutensor",
        "cutlass", "cub", "nvtx", "nvml", "nvrtc", "nvcuda", "nvjpeg", "__nv_", "__cuda", "CU",
    ];
    let n = name.trim_start_matches("::");
    LIBS.iter().any(|p| n.starts_with(p))
        || (n.starts_with("cu") && n[2..].starts_with(|c: char| c.is_ascii_uppercase()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const WARN: &str =
        "clang: warning: -lgcc_s: 'linker' input unused [-Wunused-command-line-argument]\n";

    #[test]
    fn missing_rocm_library_header() {
        let out = format!("{WARN}gemm.cu:2:10: fatal error: 'hipblas/hipblas.h' file not found\n#include <hipblas/hipblas.h>\n         ^~~~\n1 error generated when compiling for host.\n");
        let (o, e) = classify(&out);
        assert_eq!(o, Outcome::MissingHeader);
        assert_eq!(
            e,
            "gemm.cu:2:10: fatal error: 'hipblas/hipblas.h' file not found"
        );
        assert_eq!(o.status(), Status::Unknown);
    }

    #[test]
    fn unported_names_and_headers() {
        let (o, e) = classify("a.cu:2:13: error: use of undeclared identifier 'cudaGraphFoo'\n");
        assert_eq!(o, Outcome::UnportedApi);
        assert!(e.contains("cudaGraphFoo"));
        let (o, _) = classify("a.cu:2:1: error: unknown type name 'CUdevice'\n");
        assert_eq!(o, Outcome::UnportedApi);
        let (o, _) = classify("a.cu:1:10: fatal error: 'cudnn.h' file not found\n");
        assert_eq!(o, Outcome::UnportedApi);
        assert_eq!(o.status(), Status::Remediation);
    }

    #[test]
    fn other_failures() {
        let (o, _) = classify("a.cu:1:10: fatal error: 'project/config.h' file not found\n");
        assert_eq!(o, Outcome::Other);
        let (o, e) = classify("a.cu:3:5: error: expected ';' after expression\n");
        assert_eq!(o, Outcome::Other);
        assert_eq!(e, "a.cu:3:5: error: expected ';' after expression");
        let (o, _) = classify("a.cu:3:5: error: use of undeclared identifier 'foo'\n");
        assert_eq!(o, Outcome::Other);
        let (o, _) = classify("a.cu:3:5: error: use of undeclared identifier 'cursor'\n");
        assert_eq!(o, Outcome::Other);
        assert!(
            is_cuda_name("cuMemAlloc") && is_cuda_name("CUdevice") && is_cuda_name("::cudaFree")
        );
        let (o, _) = classify("");
        assert_eq!(o, Outcome::Other);
    }

    #[test]
    fn pytorch_headers_are_third_party() {
        let out = "ext.cu:1:10: fatal error: 'torch/extension.h' file not found\n";
        let (o, e) = classify(out);
        assert_eq!(o, Outcome::MissingThirdParty);
        assert_eq!(o.status(), Status::Unknown);
        assert!(e.contains("torch/extension.h"));
        assert_eq!(
            first_missing_header(out).as_deref(),
            Some("torch/extension.h")
        );
        assert_eq!(third_party_package("ATen/ATen.h"), Some("PyTorch"));
        assert_eq!(third_party_package("project/config.h"), None);
        let (o, _) = classify("a.cu:3:5: error: expected ';' after expression\n");
        assert_ne!(o, Outcome::MissingThirdParty);
        assert!(first_missing_header("a.cu:3:5: error: expected ';'\n").is_none());
    }
}
