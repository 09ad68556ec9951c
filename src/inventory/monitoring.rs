//! monitoring rules: nvidia-smi (also in health, readiness and liveness checks), NVML/pynvml,
//! DCGM and NVIDIA profilers, with the AMD tool for each.

use crate::registry::RuleInfo;

rule!(NVIDIA_SMI, "HP880", Monitoring, Remediation, Runtime,
    summary: "Runs `nvidia-smi` (in a script, a health check or a Kubernetes probe).",
    why: "nvidia-smi is absent on AMD nodes: a readiness or liveness probe that runs it fails and the pod never becomes ready or is restarted forever.",
    bad: "readinessProbe:\n  exec:\n    command: [\"nvidia-smi\"]",
    good: "readinessProbe:\n  exec:\n    command: [\"amd-smi\", \"list\"]",
    fix: "Use `amd-smi` (e.g. `amd-smi list`, `amd-smi metric`) or `rocm-smi`; for probes prefer a check of the application itself.",
    refs: ["https://rocm.docs.amd.com/projects/amdsmi/en/latest/"],
);

rule!(NVML_PYTHON, "HP881", Monitoring, Remediation, Import,
    summary: "Python uses NVML (`pynvml`, `nvidia-ml-py`).",
    why: "NVML talks to the NVIDIA driver only; on AMD `nvmlInit()` fails.",
    bad: "import pynvml\npynvml.nvmlInit()",
    good: "import amdsmi\namdsmi.amdsmi_init()",
    fix: "Port the calls to the `amdsmi` Python package (shipped with ROCm).",
    refs: ["https://rocm.docs.amd.com/projects/amdsmi/en/latest/"],
);

rule!(DCGM, "HP882", Monitoring, Remediation, Runtime,
    summary: "DCGM / dcgm-exporter / dcgmi for GPU metrics.",
    why: "DCGM reads NVIDIA GPUs only; dashboards and alerts built on DCGM_FI_* metrics go blank.",
    bad: "image: nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04",
    good: "image: rocm/device-metrics-exporter:v1.0.0",
    fix: "Deploy AMD's Device Metrics Exporter and rebuild dashboards on its metric names.",
    refs: ["https://pkg.go.dev/github.com/ROCm/device-metrics-exporter", "https://github.com/ROCm/device-metrics-exporter"],
);

rule!(NVIDIA_PROFILER, "HP883", Monitoring, Remediation, Performance,
    summary: "An NVIDIA profiler (`nsys`, `ncu`, `nvprof`, Nsight).",
    why: "The Nsight tools profile NVIDIA GPUs only.",
    bad: "nsys profile -o report python train.py",
    good: "rocprofv3 --kernel-trace --stats -- python train.py",
    fix: "Use `rocprofv3` for traces and `rocprof-compute` (ROCm Compute Profiler) for kernel analysis.",
    refs: ["https://rocm.docs.amd.com/projects/rocprofiler-sdk/en/latest/", "https://rocm.docs.amd.com/projects/rocprofiler-compute/en/latest/"],
);

pub const RULES: &[&RuleInfo] = &[&NVIDIA_SMI, &NVML_PYTHON, &DCGM, &NVIDIA_PROFILER];

/// The monitoring rule a command name (basename) belongs to, if any.
pub fn tool(name: &str) -> Option<&'static RuleInfo> {
    Some(match name {
        "nvidia-smi" => &NVIDIA_SMI,
        "dcgmi" | "dcgm-exporter" | "nv-hostengine" => &DCGM,
        "nsys" | "ncu" | "nvprof" | "nv-nsight-cu-cli" | "nsight-sys" | "nsight-compute"
        | "ncu-ui" | "nsys-ui" => &NVIDIA_PROFILER,
        _ => return None,
    })
}
