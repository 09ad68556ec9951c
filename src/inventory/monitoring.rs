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

rule!(NVML_PYTHON, "HP881", Monitoring, Remediation, Init,
    summary: "Python uses NVML (`pynvml`, `nvidia-ml-py`).",
    why: "NVML talks to the NVIDIA driver only: `import pynvml` succeeds anywhere (the package is pure Python), and on AMD `nvmlInit()` fails (`NVMLError_LibraryNotFound`) when the program starts using it.",
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

/// Monitoring tools a C/C++ source runs: a string literal whose command word is one of
/// [`tool`]'s (`system("nvidia-smi -L")`, `execlp("nvidia-smi", …)`,
/// `popen("nvidia-smi --query-gpu=temperature.gpu …")`). A message that only names the tool
/// (`"could not invoke nvidia-smi"`) runs nothing. Read from the bytes, once per source the scan
/// already holds; lines whose code is commented out before the literal are skipped.
pub fn commands_in_source(path: &str, bytes: &[u8]) -> Vec<crate::finding::Finding> {
    let mut out = Vec::new();
    if memchr::memmem::find(bytes, b"\"nvidia-smi").is_none()
        && memchr::memmem::find(bytes, b"\"nsys").is_none()
        && memchr::memmem::find(bytes, b"\"ncu").is_none()
        && memchr::memmem::find(bytes, b"\"dcgmi").is_none()
    {
        return out;
    }
    let lines = crate::lines::LineIndex::new(bytes);
    let ctx = crate::registry::FileCtx {
        path,
        src: bytes,
        lines: &lines,
    };
    let mut in_block_comment = false;
    let mut offset = 0usize;
    for line in bytes.split(|&b| b == b'\n') {
        let start = offset;
        offset += line.len() + 1;
        let text = String::from_utf8_lossy(line);
        // Block comments spanning lines: skip what they hold.
        if in_block_comment {
            in_block_comment = !text.contains("*/");
            continue;
        }
        if text.trim_start().starts_with("/*") && !text.contains("*/") {
            in_block_comment = true;
            continue;
        }
        let code_end = text.find("//").unwrap_or(text.len());
        let mut from = 0;
        while let Some(q) = text[from..code_end].find('"') {
            let at = from + q + 1;
            let rest = &text[at..];
            let word_end = rest
                .find(|c: char| c.is_whitespace() || c == '"')
                .unwrap_or(rest.len());
            let word = &rest[..word_end];
            let base = word.rsplit('/').next().unwrap_or(word);
            let b = start + at;
            let line_no = lines.position(bytes, b).line;
            if let Some(rule) = tool(base).filter(|r| {
                // `execlp("nvidia-smi", "nvidia-smi", …)`: one command per line.
                !out.iter()
                    .any(|f: &crate::finding::Finding| f.line == line_no && f.rule == r.id.code)
            }) {
                out.push(ctx.finding(
                    rule,
                    b..b + word.len(),
                    format!("runs `{base}` from C/C++ (a command string): the tool is not on AMD nodes, so the call fails and what it reads is empty"),
                    Some(match base {
                        "nvidia-smi" => "use `amd-smi` (`amd-smi list`, `amd-smi metric --temperature`) or the amdsmi C library; handle the tool's absence".to_string(),
                        _ => "use the ROCm tool for it (rocprofv3, amd-smi)".to_string(),
                    }),
                ));
            }
            // Past the closing quote of this literal.
            from = rest
                .find('"')
                .map_or(code_end, |e| at + e + 1)
                .min(code_end);
        }
    }
    out
}

#[cfg(test)]
mod source_tests {
    /// gpu-burn's temperature poller and GPU listing; twins: an error message naming the tool,
    /// a commented-out call.
    #[test]
    fn monitoring_commands_in_c_sources() {
        let src = "int main() {\n  execlp(\"nvidia-smi\", \"nvidia-smi\", \"-l\", \"5\", NULL);\n  fprintf(stderr, \"Could not invoke nvidia-smi\\n\");\n  // system(\"nvidia-smi -L\");\n  system(\"nvidia-smi -L\");\n}\n";
        let fs = super::commands_in_source("drv.cpp", src.as_bytes());
        let lines: Vec<u32> = fs.iter().map(|f| f.line).collect();
        assert_eq!(lines, [2, 5]);
        assert!(fs.iter().all(|f| f.rule == "HP880"));
    }

    /// gaussian-splatting-cuda's CMakeLists.txt runs `nvidia-smi --query-gpu=compute_cap`
    /// while it configures: a BUILD step of the CMake build; twin: a shell script running it
    /// at run time stays RUNTIME.
    #[test]
    fn nvidia_smi_while_cmake_configures_is_a_build_step() {
        use crate::inventory::{scan_bytes, FileKind};
        let cmake = "find_program(NVIDIA_SMI nvidia-smi)\nexecute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader OUTPUT_VARIABLE CAP)\n";
        let fs = scan_bytes("CMakeLists.txt", FileKind::CMake, cmake.as_bytes());
        let smi: Vec<_> = fs.iter().filter(|f| f.rule == "HP880").collect();
        assert!(!smi.is_empty());
        assert!(smi.iter().all(|f| f.phase == crate::gate::Phase::Build));
        // QuickRunCUDA: `$(shell nvidia-smi …)` feeding a Makefile's `-gencode` flags.
        let mk = "GPU_CC := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader | tr -d .)\nGENCODE_FLAGS := -gencode arch=compute_$(GPU_CC),code=sm_$(GPU_CC)\n";
        let fs = scan_bytes("Makefile", FileKind::Make, mk.as_bytes());
        assert!(fs
            .iter()
            .any(|f| f.rule == "HP880" && f.phase == crate::gate::Phase::Build));
        let sh = "#!/bin/sh\nnvidia-smi --query-gpu=memory.used --format=csv\n";
        let fs = scan_bytes("run.sh", FileKind::Shell, sh.as_bytes());
        assert!(fs
            .iter()
            .any(|f| f.rule == "HP880" && f.phase == crate::gate::Phase::Runtime));
    }
}
