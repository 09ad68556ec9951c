//! HP714: DLPack interop that knows only CUDA's device types. A tensor handed over by DLPack
//! carries its device type: `kDLCUDA` (2), `kDLCUDAHost` (3) and `kDLCUDAManaged` (13) on NVIDIA;
//! on ROCm, PyTorch, CuPy and JAX give `kDLROCM` (10) and `kDLROCMHost` (11). A file that tests
//! for or exports only the CUDA types (CV-CUDA's `IsCudaAccessible`, its `kDLCUDA` exports)
//! rejects every ROCm tensor or labels HIP memory as CUDA's, which a ROCm consumer refuses. The
//! names are the DLPack header's and stay as written under hipify. A file that names a ROCm type
//! too handles both (PASS, nothing reported). The pre-0.5 name `kDLGPU` is left alone: projects
//! that still spell it use it as their own dispatch key (DGL's `CallBinaryReduce<kDLGPU, …>`
//! must match DGL's specialisations), not as a DLPack exchange.

use crate::finding::Finding;
use crate::model::syntax::Src;

rule!(DLPACK_CUDA_DEVICE_TYPE, "HP714", DeviceFeature, Remediation, Runtime,
    summary: "DLPack code that names CUDA's device types (`kDLCUDA`, `kDLCUDAHost`, `kDLCUDAManaged`) and no ROCm one (`kDLROCM`, `kDLROCMHost`): one finding per file.",
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

pub fn check(s: &Src, out: &mut Vec<Finding>) {
    if memchr::memmem::find(s.ctx.src, b"kDL").is_none() {
        return;
    }
    let mut first = None;
    let mut uses = 0;
    for (i, name) in s.idents() {
        if ROCM_TYPES.contains(&name) {
            return;
        }
        if CUDA_TYPES.contains(&name) {
            uses += 1;
            first.get_or_insert((i, name));
        }
    }
    let Some((i, name)) = first else { return };
    let t = s.lexed.tokens[i];
    let more = match uses {
        1 => String::new(),
        n => format!(
            " ({} more uses of CUDA's device types in this file, same change)",
            n - 1
        ),
    };
    out.push(s.ctx.finding(
        &DLPACK_CUDA_DEVICE_TYPE,
        t.range(),
        format!("DLPack device type `{name}`, and no ROCm type in this file: ROCm frameworks hand over tensors as `kDLROCM`/`kDLROCMHost`, which this code rejects or never exports{more}"),
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
}
