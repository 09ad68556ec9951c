//! container rules: Dockerfiles and compose files built on NVIDIA images or configured for the
//! NVIDIA container runtime.

use crate::registry::RuleInfo;

rule!(NVIDIA_BASE_IMAGE, "HP860", Container, Remediation, Build,
    summary: "An image built on or running an NVIDIA image (`nvidia/cuda`, `nvcr.io/nvidia/...`).",
    why: "These images carry the CUDA user space; a ROCm workload needs a ROCm image.",
    bad: "FROM nvidia/cuda:12.1.0-devel-ubuntu22.04",
    good: "FROM rocm/dev-ubuntu-22.04:6.2.4",
    fix: "Start from the ROCm image named in the message (exact tag; match the ROCm release you target).",
    refs: ["https://hub.docker.com/u/rocm", "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html"],
);

rule!(NVIDIA_CONTAINER_RUNTIME_ENV, "HP861", Container, Remediation, Init,
    summary: "NVIDIA container runtime variables (`NVIDIA_VISIBLE_DEVICES`, `NVIDIA_DRIVER_CAPABILITIES`, `NVIDIA_REQUIRE_CUDA`).",
    why: "Only the NVIDIA container toolkit reads them; AMD GPUs are passed in as /dev/kfd and /dev/dri devices.",
    bad: "ENV NVIDIA_VISIBLE_DEVICES=all",
    good: "# docker run --device=/dev/kfd --device=/dev/dri --group-add video ...; select GPUs with ROCR_VISIBLE_DEVICES",
    fix: "Remove them; pass the devices in and use `ROCR_VISIBLE_DEVICES`/`HIP_VISIBLE_DEVICES` to select GPUs.",
    refs: ["https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html"],
);

rule!(DOCKER_GPUS_FLAG, "HP862", Container, Remediation, Init,
    summary: "`docker run --gpus ...` (NVIDIA container toolkit).",
    why: "`--gpus` is implemented by the NVIDIA container toolkit; AMD GPUs are exposed as devices.",
    bad: "docker run --gpus all image",
    good: "docker run --device=/dev/kfd --device=/dev/dri --group-add video image",
    fix: "Replace with `--device=/dev/kfd --device=/dev/dri --group-add video` (plus `--security-opt seccomp=unconfined` where needed).",
    refs: ["https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html"],
);

rule!(CUDA_ENV_IN_CONTAINER, "HP863", Container, Remediation, Runtime,
    summary: "A container sets CUDA paths (`CUDA_HOME`, `/usr/local/cuda` in `PATH`/`LD_LIBRARY_PATH`).",
    why: "Those paths do not exist in a ROCm image; tools that read them fail or fall back silently.",
    bad: "ENV LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH",
    good: "ENV ROCM_PATH=/opt/rocm LD_LIBRARY_PATH=/opt/rocm/lib:$LD_LIBRARY_PATH",
    fix: "Use `ROCM_PATH=/opt/rocm` and its lib/bin directories.",
    refs: ["https://rocm.docs.amd.com/projects/install-on-linux/en/latest/"],
);

rule!(CUDA_WHEEL_INDEX_IN_CONTAINER, "HP864", Container, Remediation, Install,
    summary: "A container build installs wheels from a CUDA PyTorch index (`download.pytorch.org/whl/cu12x`), or another project's wheel page of CUDA builds (`data.pyg.org/whl/torch-2.1.0+cu121.html`).",
    why: "That index serves CUDA builds of torch and friends; they do not use AMD GPUs.",
    bad: "RUN pip install torch --index-url https://download.pytorch.org/whl/cu121",
    good: "RUN pip install torch --index-url https://download.pytorch.org/whl/rocm6.2",
    fix: "Use the ROCm index matching your ROCm release (e.g. https://download.pytorch.org/whl/rocm6.2), or a rocm/pytorch base image.",
    refs: ["https://pytorch.org/get-started/locally/", "https://download.pytorch.org/whl/rocm6.2"],
);

pub const RULES: &[&RuleInfo] = &[
    &NVIDIA_BASE_IMAGE,
    &NVIDIA_CONTAINER_RUNTIME_ENV,
    &DOCKER_GPUS_FLAG,
    &CUDA_ENV_IN_CONTAINER,
    &CUDA_WHEEL_INDEX_IN_CONTAINER,
];
