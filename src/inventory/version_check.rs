//! version-check rules outside C++: Python and scripts that branch on the CUDA version or on
//! NVIDIA compute capability, which mean something else (or nothing) on ROCm.

use crate::registry::RuleInfo;

rule!(TORCH_VERSION_CUDA, "HP810", VersionCheck, Remediation, Runtime,
    summary: "Code reads `torch.version.cuda`, which is None on ROCm builds.",
    why: "On ROCm `torch.version.cuda` is None and `torch.version.hip` holds the HIP version; comparisons or parsing of it take the wrong branch or raise.",
    bad: "if torch.version.cuda and float(torch.version.cuda) >= 11.8:",
    good: "if torch.version.hip or (torch.version.cuda and float(torch.version.cuda) >= 11.8):",
    fix: "Branch on `torch.version.hip` for ROCm, or test the feature you need instead of a version.",
    refs: ["https://pytorch.org/docs/stable/notes/hip.html"],
);

rule!(DEVICE_CAPABILITY_THRESHOLD, "HP811", VersionCheck, Remediation, Runtime,
    summary: "A threshold on `torch.cuda.get_device_capability()` (NVIDIA compute capability).",
    why: "On ROCm the capability tuple is derived from the gfx architecture (e.g. (9, 4) for gfx942), so thresholds meant for Volta/Ampere/Hopper select the wrong code path.",
    bad: "if torch.cuda.get_device_capability() >= (8, 0):",
    good: "arch = torch.cuda.get_device_properties(0).gcnArchName  # e.g. 'gfx942:sramecc+:xnack-'",
    fix: "On ROCm test `gcnArchName` or the feature itself (dtype support, kernels available).",
    refs: ["https://pytorch.org/docs/stable/notes/hip.html"],
);

rule!(NVCC_VERSION_PROBE, "HP812", VersionCheck, Remediation, Build,
    summary: "Runs `nvcc --version` (or `nvcc -V`) to find the CUDA version.",
    why: "There is no nvcc on a ROCm system; the probe fails or its parse returns nothing.",
    bad: "out = subprocess.check_output([\"nvcc\", \"--version\"])",
    good: "out = subprocess.check_output([\"hipcc\", \"--version\"])  # or read torch.version.hip",
    fix: "Probe `hipcc --version` / `hipconfig --version`, or read `torch.version.hip`.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/"],
);

rule!(ROCM_ARM_FAILS, "HP813", VersionCheck, Remediation, Import,
    summary: "A platform test whose ROCm arm raises, exits or fails an assertion.",
    why: "`if torch.version.cuda is None: raise RuntimeError(...)` reads like a check for a GPU build, but `torch.version.cuda` is None exactly on ROCm builds of PyTorch: there the arm is taken and the package fails when it is imported (installed, for setup.py; run, inside a function). The test decides the platform, so it is never a PASS.",
    bad: "if torch.version.cuda is None:\n    raise RuntimeError(\"CUDA is required\")",
    good: "if torch.version.cuda is None and torch.version.hip is None:\n    raise RuntimeError(\"a GPU build of PyTorch is required\")",
    fix: "Accept ROCm in the test (`torch.version.hip`) or give ROCm its own arm; if the feature has no ROCm path, make it optional and say so.",
    refs: ["https://pytorch.org/docs/stable/notes/hip.html"],
);

pub const RULES: &[&RuleInfo] = &[
    &TORCH_VERSION_CUDA,
    &DEVICE_CAPABILITY_THRESHOLD,
    &NVCC_VERSION_PROBE,
    &ROCM_ARM_FAILS,
];
