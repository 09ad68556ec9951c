//! HP714: DLPack interop that knows only CUDA's device types. A tensor handed over by DLPack
//! carries its device type: `kDLCUDA` (2), `kDLCUDAHost` (3) and `kDLCUDAManaged` (13) on NVIDIA;
//! on ROCm, PyTorch, CuPy and JAX give `kDLROCM` (10) and `kDLROCMHost` (11). A file that tests
//! for or exports only the CUDA types (CV-CUDA's `IsCudaAccessible`, its `kDLCUDA` exports)
//! rejects every ROCm tensor or labels HIP memory as CUDA's, which a ROCm consumer refuses. The
//! names are the DLPack header's and stay as written under hipify. A file that names a ROCm type
//! too handles both (PASS, nothing reported). The pre-0.5 name `kDLGPU` is left alone: projects
//! that still spell it use it as their own dispatch key (DGL's `CallBinaryReduce<kDLGPU, …>`
//! must match DGL's specialisations), not as a DLPack exchange. nanobind spells the same device
//! types as tags with DLPack's values (`nb::device::cuda::value` is 2, `nb::device::rocm` is 10):
//! ggnn's bindings accept `nb::ndarray<…, nb::device::cuda>` and test `device_type() ==
//! nb::device::cuda::value`, which every ROCm tensor fails.

use crate::finding::Finding;
use crate::model::syntax::Src;

rule!(DLPACK_CUDA_DEVICE_TYPE, "HP714", DeviceFeature, Remediation, Runtime,
    summary: "DLPack code that names CUDA's device types (`kDLCUDA`, `kDLCUDAHost`, `kDLCUDAManaged`, nanobind's `nb::device::cuda`) and no ROCm one (`kDLROCM`, `kDLROCMHost`, `nb::device::rocm`): one finding per file.",
    why: "On ROCm, frameworks export DLPack tensors with `kDLROCM` (10) or `kDLROCMHost` (11). A test for the CUDA types rejects them (\"unsupported device\"), and a tensor exported as `kDLCUDA` from HIP memory is refused by ROCm consumers or read as another device's memory. hipify leaves the DLPack names as written.",
    bad: "if (t.device.device_type != kDLCUDA) throw std::runtime_error(\"GPU tensor expected\");",
    good: "#ifdef __HIP_PLATFORM_AMD__\nconstexpr DLDeviceType kDLGpu = kDLROCM;\n#else\nconstexpr DLDeviceType kDLGpu = kDLCUDA;\n#endif\nif (t.device.device_type != kDLGpu) throw std::runtime_error(\"GPU tensor expected\");",
    fix: "Accept and export the ROCm device types in the ROCm build (`kDLROCM` for device memory, `kDLROCMHost` for pinned host memory).",
    refs: ["https://github.com/dmlc/dlpack/blob/main/include/dlpack/dlpack.h", "https://dmlc.github.io/dlpack/latest/c_api.html"],
);

/// CUDA's DLPack device types.
const CUDA_TYPES: &[&str] = &["kDLCUDA", "kDLCUDAHost", "kDLCUDAManaged"];
/// ROCm's.
const ROCM_TYPES: &[&str] = &["kDLROCM", "kDLROCMHost"];
/// nanobind's device tags (`nb::device::cuda`), DLPack's values under other names.
const NB_CUDA: &[&str] = &["cuda", "cuda_host", "cuda_managed"];
const NB_ROCM: &[&str] = &["rocm", "rocm_host"];

pub fn check(s: &Src, out: &mut Vec<Finding>) {
    let nanobind = memchr::memmem::find(s.ctx.src, b"device::").is_some()
        && memchr::memmem::find(s.ctx.src, b"nanobind").is_some();
    if !nanobind && memchr::memmem::find(s.ctx.src, b"kDL").is_none() {
        return;
    }
    // `device :: name`, a nanobind device tag.
    let tag = |i: usize| {
        nanobind && s.prev_text(i) == "::" && {
            let colons = s.lexed.prev_code(i).unwrap_or(0);
            s.lexed
                .prev_code(colons)
                .is_some_and(|j| s.tok(j) == "device")
        }
    };
    let mut first = None;
    let mut uses = 0;
    for (i, name) in s.idents() {
        if ROCM_TYPES.contains(&name) || (NB_ROCM.contains(&name) && tag(i)) {
            return;
        }
        if CUDA_TYPES.contains(&name) || (NB_CUDA.contains(&name) && tag(i)) {
            uses += 1;
            first.get_or_insert((i, name));
        }
    }
    let Some((i, name)) = first else { return };
    let t = s.lexed.tokens[i];
    let more = match uses {
        1 => String::new(),
        2 => " (1 more use of CUDA's device types in this file, same change)".to_string(),
        n => format!(
            " ({} more uses of CUDA's device types in this file, same change)",
            n - 1
        ),
    };
    out.push(s.ctx.finding(
        &DLPACK_CUDA_DEVICE_TYPE,
        t.range(),
        format!("DLPack device type `{}`, and no ROCm type in this file: ROCm frameworks hand over tensors as `kDLROCM`/`kDLROCMHost`, which this code rejects or never exports{more}", if CUDA_TYPES.contains(&name) { name.to_string() } else { format!("device::{name}") }),
        Some("accept and export `kDLROCM` (device) and `kDLROCMHost` (pinned host) in the ROCm build".into()),
    ));
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::hazard_findings;

    /// CV-CUDA's `IsCudaAccessible`: CUDA's types only, one finding for the file. Twins: a file
    /// that names `kDLROCM` too, and one with no DLPack at all.
    #[test]
    fn cuda_only_dlpack_device_types() {
        let run = |src: &str| -> Vec<crate::finding::Finding> {
            hazard_findings(src)
                .into_iter()
                .filter(|f| f.rule == "HP714")
                .collect()
        };
        let f = run("bool IsCudaAccessible(DLDeviceType t) {\n  return t == kDLCUDA || t == kDLCUDAHost || t == kDLCUDAManaged;\n}\n");
        assert_eq!(f.len(), 1);
        assert_eq!(f[0].line, 2);
        assert!(f[0].message.contains("2 more uses"), "{}", f[0].message);
        assert!(
            run("bool gpu(DLDeviceType t) { return t == kDLCUDA || t == kDLROCM; }\n").is_empty()
        );
        assert!(run("int kDL = 3;\n").is_empty());
        // ge-spmm's DGL kernels: `kDLGPU` keys DGL's own templates.
        assert!(run("template void CallBinaryReduce<kDLGPU, int, float>(int);\n").is_empty());
    }

    /// ggnn's nanobind bindings: `nb::device::cuda` tags and values, one finding. Twins: a
    /// file that accepts `nb::device::rocm` too, a `cuda` that is no nanobind device tag, and
    /// a file without nanobind.
    #[test]
    fn nanobind_device_tags() {
        let run = |src: &str| -> Vec<crate::finding::Finding> {
            hazard_findings(src)
                .into_iter()
                .filter(|f| f.rule == "HP714")
                .collect()
        };
        let src = "#include <nanobind/ndarray.h>\nnamespace nb = nanobind;\nusing A = nb::ndarray<float, nb::device::cuda>;\nbool gpu(A a) { return a.device_type() == nb::device::cuda::value; }\n";
        let f = run(src);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].line, 3);
        assert!(f[0].message.contains("`device::cuda`"), "{}", f[0].message);
        assert!(f[0].message.contains("1 more use"), "{}", f[0].message);
        let both = src.replace(
            "== nb::device::cuda::value;",
            "== nb::device::cuda::value || a.device_type() == nb::device::rocm::value;",
        );
        assert!(run(&both).is_empty());
        assert!(
            run("#include <nanobind/nanobind.h>\nint f(int cuda) { return cuda; }\n").is_empty()
        );
        assert!(run("namespace device { int cuda; }\nint x = device::cuda;\n").is_empty());
    }
}
