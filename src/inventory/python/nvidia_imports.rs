//! NVIDIA-only Python packages imported by module name (HP821), each with its ROCm path: the
//! import finding and the folder's folded decision name the counterpart a porter moves to
//! (TensorRT → MIGraphX), not a generic list.
//!
//! Sources of the ROCm paths and of the packages with none: nvdiffrast
//! <https://github.com/NVlabs/nvdiffrast> (a PyTorch `CUDAExtension`; third-party wheels list ROCm
//! as not supported, NVlabs/nvdiffrast#236), Kaolin
//! <https://github.com/NVIDIAGameWorks/kaolin/blob/v0.13.0/docs/notes/installation.rst> (full
//! functionality needs an NVIDIA GPU). Sources of the ROCm paths: MIGraphX <https://rocm.docs.amd.com/projects/AMDMIGraphX/en/latest/>
//! (ONNX models parsed and compiled through its Python API); hip-python
//! <https://github.com/ROCm/hip-python> (HIP runtime, driver and hiprtc bindings); numba-hip
//! <https://github.com/ROCm/numba-hip>; rocSHMEM <https://github.com/ROCm/rocSHMEM>; Triton's
//! AMD backend <https://rocm.docs.amd.com/en/latest/how-to/rocm-for-ai/inference-optimization/optimizing-triton-kernel.html>.

use crate::inventory::python::NUMBA_CUDA;

/// One package: its label in the message (`TensorRT (`tensorrt`)`) and what it moves to on
/// ROCm.
pub(crate) struct Import {
    pub label: &'static str,
    pub rocm: &'static str,
}

const TABLE: &[(&str, Import)] = &[
    (
        "numba.cuda",
        Import {
            label: NUMBA_CUDA,
            rocm: "numba-hip for the numba kernels",
        },
    ),
    (
        "cuda.bindings",
        Import {
            label: "cuda-python (`cuda.bindings`)",
            rocm: "hip-python for the runtime and driver calls",
        },
    ),
    (
        "cutlass",
        Import {
            label: "nvidia-cutlass-dsl / nvidia-cutlass (`cutlass`)",
            rocm: "Triton or Composable Kernel for the CUTLASS kernels",
        },
    ),
    (
        "quack",
        Import {
            label: "quack-kernels (`quack`)",
            rocm: "Triton for the quack kernels",
        },
    ),
    (
        "pycuda",
        Import {
            label: "PyCUDA (`pycuda`; hip-python is a port, not a drop-in: github.com/ROCm/hip-python)",
            rocm: "hip-python for PyCUDA's memory, stream and kernel calls",
        },
    ),
    (
        "tensorrt",
        Import {
            label: "TensorRT (`tensorrt`)",
            rocm: "MIGraphX for TensorRT: parse the ONNX model and compile it with `migraphx` instead of building engines",
        },
    ),
    (
        "torch2trt",
        Import {
            label: "torch2trt (`torch2trt`; converts PyTorch modules to TensorRT engines, NVIDIA-only: github.com/NVIDIA-AI-IOT/torch2trt)",
            rocm: "MIGraphX for the TensorRT engines (export to ONNX, compile with `migraphx`), or the PyTorch model as is",
        },
    ),
    (
        "pynvrtc",
        Import {
            label: "pynvrtc (`pynvrtc`; NVRTC compiles CUDA C to PTX, which AMD GPUs cannot load: hiprtc through hip-python compiles HIP C++)",
            rocm: "hiprtc through hip-python for the run-time compiled kernels",
        },
    ),
    (
        "tinycudann",
        Import {
            label: "tiny-cuda-nn's PyTorch bindings (`tinycudann`; built from its CUDA sources with nvcc, no ROCm build published)",
            rocm: "a PyTorch implementation of its encodings and MLPs, or a HIP port of tiny-cuda-nn",
        },
    ),
    (
        "nvdiffrast",
        Import {
            label: "nvdiffrast (`nvdiffrast`; its ops build as a PyTorch CUDA extension, no ROCm build published)",
            rocm: "a HIP port of nvdiffrast's CUDA rasterizer, or another differentiable rasterizer",
        },
    ),
    (
        "kaolin",
        Import {
            label: "NVIDIA Kaolin (`kaolin`; its operators are CUDA extensions, no ROCm build published)",
            rocm: "a HIP port of the Kaolin operators the project calls, or PyTorch code for them",
        },
    ),
    (
        "nvshmem",
        Import {
            label: "nvshmem4py (`nvshmem`; ROCm's counterpart is rocSHMEM, with its own API)",
            rocm: "rocSHMEM for the NVSHMEM calls",
        },
    ),
];

/// The NVIDIA-only package an import names: `modules` are the statement's dotted names as
/// written (the first is the module imported from), `from` whether it is `from … import …`.
pub(crate) fn imported(modules: &[&str], from: bool) -> Option<&'static Import> {
    let name = *modules.first()?;
    let top = |p: &str| name == p || name.starts_with(&format!("{p}."));
    let names = |xs: &[&str]| from && modules[1..].iter().any(|o| xs.contains(o));
    let key = if top("numba.cuda") || (name == "numba" && names(&["cuda"])) {
        "numba.cuda"
    } else if top("cuda.bindings")
        || (name == "cuda" && names(&["cuda", "cudart", "nvrtc", "bindings"]))
    {
        "cuda.bindings"
    } else {
        TABLE
            .iter()
            .map(|(k, _)| *k)
            .find(|k| !k.contains('.') && top(k))?
    };
    TABLE.iter().find(|(k, _)| *k == key).map(|(_, i)| i)
}

/// The ROCm path of the package a message labels (see [`Import::label`]).
pub(crate) fn rocm_path(label: &str) -> Option<&'static str> {
    TABLE
        .iter()
        .find(|(_, i)| i.label == label)
        .map(|(_, i)| i.rocm)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_import_names_its_package_and_rocm_path() {
        let t = imported(&["tensorrt"], false).unwrap();
        assert!(t.rocm.contains("MIGraphX"));
        assert_eq!(rocm_path(t.label), Some(t.rocm));
        assert!(imported(&["pycuda.driver"], false).is_some());
        assert!(imported(&["numba", "cuda"], true).is_some());
        assert!(imported(&["cuda", "cudart"], true).is_some());
        assert!(imported(&["nvdiffrast.torch"], false).is_some());
        assert!(imported(&["kaolin", "ops"], true).is_some());
        assert!(imported(&["kaolinite"], false).is_none());
        // Twins: a module only named like one, `import numba`, `from cuda import x`.
        assert!(imported(&["tensorrt_llm_like"], false).is_none());
        assert!(imported(&["numba"], false).is_none());
        assert!(imported(&["cuda", "x"], true).is_none());
        assert!(imported(&["numba", "cuda"], false).is_none());
    }
}
