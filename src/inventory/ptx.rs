//! ptx-artifact rules: PTX, cubin and fatbin files in the tree, and PTX shipped inside source
//! strings for NVRTC / `cuModuleLoadData`. AMD GPUs cannot load any of them.

use super::Out;
use crate::registry::RuleInfo;

rule!(PTX_FILE, "HP910", PtxArtifact, Unknown, Runtime,
    summary: "A PTX file (NVIDIA virtual ISA) in the tree.",
    why: "ROCm cannot load PTX. If its source is in the tree, port and rebuild that; if not, the kernel must be rewritten or obtained for AMD.",
    bad: "kernels/softmax.ptx",
    good: "kernels/softmax.hip compiled with hipcc --genco --offload-arch=gfx942 (a code object)",
    fix: "Find the source that produced it and build an AMD code object (`hipcc --genco`), or load HIP source with hiprtc.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_rtc.html"],
);

rule!(CUBIN_FATBIN_FILE, "HP911", PtxArtifact, Unknown, Runtime,
    summary: "A cubin or fatbin file (NVIDIA machine code) in the tree.",
    why: "NVIDIA machine code cannot run on AMD GPUs; without its source it needs a replacement.",
    bad: "kernels/gemm_sm80.cubin",
    good: "kernels/gemm_gfx942.hsaco (built from source)",
    fix: "Rebuild from source for AMD (`hipcc --genco`), or replace the kernel.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_rtc.html"],
);

/// Defined beside the C/C++ check that raises it too (PTX text in a C string).
pub use crate::rules::inline_asm::ptx_text::EMBEDDED_PTX;

pub const RULES: &[&RuleInfo] = &[
    &PTX_FILE,
    &CUBIN_FATBIN_FILE,
    &EMBEDDED_PTX,
    &crate::inventory::python::device_strings::PTX_IN_PYTHON_DEVICE_CODE,
];

/// A `.ptx`, `.cubin` or `.fatbin` file: one finding at its start.
pub fn scan_file(out: &mut Out) {
    let path = out.ctx.path.to_ascii_lowercase();
    if path.ends_with(".ptx") {
        let target = ptx_target(out.src()).unwrap_or_default();
        let msg = if target.is_empty() {
            "PTX file: ROCm cannot load PTX; rebuild its source for AMD or replace it".to_string()
        } else {
            format!("PTX file for {target}: ROCm cannot load PTX; rebuild its source for AMD or replace it")
        };
        out.push(&PTX_FILE, 0..0, msg, Some("build an AMD code object from the kernel source (hipcc --genco --offload-arch=gfx...)".into()));
    } else {
        out.push(
            &CUBIN_FATBIN_FILE,
            0..0,
            "NVIDIA machine code (cubin/fatbin): no AMD equivalent without the source".into(),
            Some("rebuild from source with hipcc --genco, or replace the kernel".into()),
        );
    }
}

/// The `.target sm_XX` of PTX text, if present.
pub fn ptx_target(src: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(&src[..src.len().min(4096)]);
    text.lines()
        .map(str::trim)
        .find_map(|l| l.strip_prefix(".target"))
        .map(|t| t.trim().split(',').next().unwrap_or("").trim().to_string())
}

/// Whether a string's text looks like PTX (a `.version` directive and a `.target`/`.entry`).
pub fn looks_like_ptx(s: &str) -> bool {
    s.contains(".version") && (s.contains(".target") || s.contains(".entry"))
}
