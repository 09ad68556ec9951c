//! A made-up pre-purchase project walked by a newcomer from `hipport record init` to
//! `hipport gate` with CLI commands only (no TOML edited by hand), on a machine with neither an
//! AMD GPU nor nvidia-smi: a kernel, a setup.py, a Dockerfile, and vLLM benchmark JSON for the
//! CUDA baseline and the ROCm candidate. Each step's exit code is asserted, then the board.

mod common;

use common::{hipport, read, write, Run};
use std::path::{Path, PathBuf};

fn step(dir: &Path, args: &[&str], code: i32) -> Run {
    let r = hipport(dir, args);
    assert_eq!(
        r.code, code,
        "{args:?} exits {code}:\n{}{}",
        r.stdout, r.stderr
    );
    r
}

fn project() -> (tempfile::TempDir, PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let root = d.path().join("prepurchase");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::create_dir_all(root.join("csrc")).unwrap();
    write(
        &root.join("csrc/fused_gelu.cu"),
        "#include <cuda_runtime.h>\n__global__ void fused_gelu(const float* x, float* y, int n) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) y[i] = 0.5f * x[i] * (1.0f + tanhf(0.79788456f * x[i]));\n  if ((threadIdx.x & 31) == 0) { /* one lane per warp */ }\n}\n",
    );
    write(
        &root.join("setup.py"),
        "from setuptools import setup\nfrom torch.utils.cpp_extension import BuildExtension, CUDAExtension\nsetup(name='fused_gelu', ext_modules=[CUDAExtension('fused_gelu', ['csrc/fused_gelu.cu'])], cmdclass={'build_ext': BuildExtension})\n",
    );
    write(
        &root.join("Dockerfile"),
        "FROM nvidia/cuda:12.4.1-devel-ubuntu22.04\nRUN pip install torch==2.4.1 vllm==0.6.3\n",
    );
    let perf = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/perf");
    std::fs::create_dir_all(root.join("bench")).unwrap();
    for f in [
        "vllm_serving_cuda_a100.json",
        "vllm_serving_rocm_mi300x.json",
        "vllm_serving_rocm_mi300x_slow.json",
    ] {
        std::fs::copy(perf.join(f), root.join("bench").join(f)).unwrap();
    }
    write(
        &root.join("bench/logits_cuda.csv"),
        "token,logit\n1,0.25\n2,-1.5\n3,3.0\n",
    );
    write(
        &root.join("bench/logits_rocm.csv"),
        "token,logit\n1,0.25\n2,-1.5000001\n3,3.0\n",
    );
    write(
        &root.join("bench/a100-run.log"),
        "A100 baseline run: 200 requests, all completed\n",
    );
    (d, root)
}

#[test]
fn from_record_init_to_gate_without_amd_hardware_or_hand_edited_toml() {
    let (_d, root) = project();
    let r = step(&root, &["record", "init"], 0);
    assert!(r.stdout.contains("every gate UNKNOWN"), "{}", r.stdout);
    // What the tool finds, before any evidence.
    step(&root, &["scan", "."], 0);

    // The CUDA baseline, stated by hand: no nvidia-smi on this machine.
    let r = step(
        &root,
        &[
            "record",
            "baseline",
            "--gpu",
            "NVIDIA A100-SXM4-80GB",
            "--toolkit",
            "12.4",
            "--driver",
            "550.54.15",
            "--commit",
            "4f2a9c1",
        ],
        0,
    );
    assert!(
        r.stdout.contains("every required field is filled"),
        "{}",
        r.stdout
    );
    step(
        &root,
        &[
            "record",
            "gate",
            "baseline",
            "--status",
            "PASS",
            "--evidence",
            "bench/a100-run.log",
        ],
        0,
    );

    // The target before the purchase: no kernel, no driver yet.
    let r = step(
        &root,
        &common::tuple::record_target(&["--kernel"], &["--framework", "vllm=0.6.3"]),
        0,
    );
    assert!(
        r.stdout.contains("kernel UNKNOWN") && r.stdout.contains("driver UNKNOWN"),
        "{}",
        r.stdout
    );
    step(
        &root,
        &[
            "record",
            "production",
            "--precision",
            "bf16",
            "--gpus",
            "1",
            "--engine",
            "vllm",
            "--require",
            "p99_ttft_ms<=250",
        ],
        0,
    );

    // Benchmarks: the baseline, then two named candidates; neither replaces the other.
    step(
        &root,
        &[
            "record",
            "perf",
            "baseline",
            "bench/vllm_serving_cuda_a100.json",
            "--no-probe",
            "--cuda",
            "12.4",
            "--gpus",
            "1",
        ],
        0,
    );
    let candidate = |file: &str, name: &str| {
        step(
            &root,
            &[
                "record",
                "perf",
                "candidate",
                file,
                "--name",
                name,
                "--no-probe",
                "--gpu",
                "Instinct MI300X:gfx942",
                "--rocm",
                "6.4.1",
                "--gpus",
                "1",
            ],
            0,
        )
    };
    candidate("bench/vllm_serving_rocm_mi300x.json", "tuned");
    let r = candidate("bench/vllm_serving_rocm_mi300x_slow.json", "default-flags");
    assert!(r.stdout.contains("candidate `tuned` kept"), "{}", r.stdout);
    let r = candidate("bench/vllm_serving_rocm_mi300x.json", "tuned");
    assert!(
        r.stdout.contains("candidate `default-flags` kept"),
        "{}",
        r.stdout
    );
    let toml = read(&root.join("hipport-migration.toml"));
    assert!(toml.contains("candidate_name = \"tuned\""), "{toml}");
    assert!(
        toml.contains("[perf.other_candidates.default-flags]"),
        "{toml}"
    );

    // Correctness from a comparison that ran, not from a typed command.
    let r = step(
        &root,
        &[
            "record",
            "gate",
            "correctness",
            "--status",
            "PASS",
            "--evidence",
            "hipport compare bench/logits_cuda.csv bench/logits_rocm.csv",
        ],
        2,
    );
    assert!(r.stderr.contains("compare A B --record"), "{}", r.stderr);
    step(
        &root,
        &[
            "compare",
            "bench/logits_cuda.csv",
            "bench/logits_rocm.csv",
            "--record",
        ],
        0,
    );
    // The performance gate comes from the runs: a recorded PASS is refused, not ignored.
    let r = step(
        &root,
        &[
            "record",
            "gate",
            "performance",
            "--status",
            "PASS",
            "--evidence",
            "bench/a100-run.log",
        ],
        2,
    );
    assert!(r.stderr.contains("hipport record perf"), "{}", r.stderr);

    // The board: NOT READY (nothing built or run on AMD yet), with what was recorded.
    let g = step(&root, &["gate"], 1);
    let v: serde_json::Value =
        serde_json::from_str(&step(&root, &["gate", "--format", "json"], 1).stdout).unwrap();
    let gate = |name: &str| {
        v["gates"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == name)
            .unwrap()
            .clone()
    };
    for (name, status) in [
        ("baseline", "PASS"),
        ("target", "PASS"),
        ("correctness", "PASS"),
        ("performance", "PASS"),
        ("distributed", "PASS"),
        ("build", "UNKNOWN"),
        ("functional", "UNKNOWN"),
        ("precision", "UNKNOWN"),
        ("operations", "UNKNOWN"),
    ] {
        assert_eq!(gate(name)["status"], status, "{name}: {}", g.stdout);
    }
    assert_eq!(gate("baseline")["source"], "person");
    assert_eq!(gate("correctness")["source"], "compare");
    let target = gate("target")["reason"].as_str().unwrap().to_string();
    assert!(
        target.contains("kernel, driver UNKNOWN until known"),
        "{target}"
    );
    let correctness = gate("correctness")["reason"].as_str().unwrap().to_string();
    assert!(
        correctness.contains("bench/logits_cuda.csv vs bench/logits_rocm.csv"),
        "{correctness}"
    );
    // Every gate without evidence names the command that fills it; no `?` counts.
    for x in v["gates"].as_array().unwrap() {
        if x["status"] == "UNKNOWN" {
            assert!(x["reason"].as_str().unwrap().contains("`hipport "), "{x}");
        }
    }
    assert!(!g.stdout.contains("? open item"), "{}", g.stdout);
    assert!(
        g.stdout.contains("performance judges candidate `tuned`")
            && g.stdout.contains("default-flags"),
        "{}",
        g.stdout
    );
    assert!(g.stdout.contains("VERDICT: NOT READY"), "{}", g.stdout);
}
