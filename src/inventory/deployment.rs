//! deployment rules: Kubernetes/Helm manifests and compose services that schedule onto NVIDIA
//! GPUs through the NVIDIA device plugin, runtime class, labels or GPU operator.

use crate::registry::RuleInfo;

rule!(K8S_NVIDIA_GPU_RESOURCE, "HP870", Deployment, Remediation, Init,
    summary: "A pod requests `nvidia.com/gpu`.",
    why: "On AMD nodes the AMD GPU device plugin advertises `amd.com/gpu`; a pod asking for `nvidia.com/gpu` is never scheduled there.",
    bad: "resources:\n  limits:\n    nvidia.com/gpu: 1",
    good: "resources:\n  limits:\n    amd.com/gpu: 1",
    fix: "Request `amd.com/gpu` and deploy AMD's device plugin (or the AMD GPU Operator) on the nodes.",
    refs: ["https://instinct.docs.amd.com/projects/k8s-device-plugin/en/latest/", "https://kubernetes.io/docs/tasks/manage-gpus/scheduling-gpus/"],
);

rule!(K8S_NVIDIA_RUNTIME_CLASS, "HP871", Deployment, Remediation, Init,
    summary: "`runtimeClassName: nvidia` (or compose `runtime: nvidia`).",
    why: "The nvidia runtime class exists only where the NVIDIA container toolkit is installed; AMD GPUs need no special runtime class with the AMD device plugin.",
    bad: "runtimeClassName: nvidia",
    good: "# no runtimeClassName; request amd.com/gpu",
    fix: "Remove it (or use the runtime class your AMD cluster defines).",
    refs: ["https://instinct.docs.amd.com/projects/k8s-device-plugin/en/latest/"],
);

rule!(K8S_NVIDIA_NODE_SELECTOR, "HP872", Deployment, Remediation, Init,
    summary: "A node selector, affinity or toleration on NVIDIA labels (`nvidia.com/gpu.*`).",
    why: "The NVIDIA GPU feature discovery labels do not exist on AMD nodes, so the pod never lands there.",
    bad: "nodeSelector:\n  nvidia.com/gpu.product: A100-SXM4-80GB",
    good: "nodeSelector:\n  amd.com/gpu.product-name: AMD_Instinct_MI300X  # from the AMD node labeller",
    fix: "Select on the AMD node labeller's labels (`amd.com/gpu.*`) or your own node labels.",
    refs: ["https://instinct.docs.amd.com/projects/k8s-device-plugin/en/latest/", "https://pkg.go.dev/github.com/RadeonOpenCompute/k8s-device-plugin/cmd/k8s-node-labeller"],
);

rule!(K8S_NVIDIA_GPU_OPERATOR, "HP873", Deployment, Remediation, Init,
    summary: "NVIDIA device plugin / GPU operator objects (`ClusterPolicy`, `nvidia-device-plugin`).",
    why: "They manage NVIDIA drivers and devices only.",
    bad: "kind: ClusterPolicy\napiVersion: nvidia.com/v1",
    good: "kind: DeviceConfig\napiVersion: amd.com/v1alpha1  # AMD GPU Operator",
    fix: "Deploy AMD's GPU Operator (DeviceConfig) or the AMD device plugin DaemonSet (rocm/k8s-device-plugin).",
    refs: ["https://instinct.docs.amd.com/projects/gpu-operator/en/main/device_plugin/device-plugin.html", "https://pkg.go.dev/github.com/ROCm/gpu-operator"],
);

rule!(COMPOSE_NVIDIA_GPU_RESERVATION, "HP874", Deployment, Remediation, Init,
    summary: "A compose service reserves GPUs through the NVIDIA driver (`driver: nvidia`, `capabilities: [gpu]`).",
    why: "The compose GPU reservation is implemented by the NVIDIA container toolkit.",
    bad: "devices:\n  - driver: nvidia\n    count: all\n    capabilities: [gpu]",
    good: "devices:\n  - /dev/kfd\n  - /dev/dri\ngroup_add:\n  - video",
    fix: "Pass /dev/kfd and /dev/dri as devices and add the video group.",
    refs: ["https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html"],
);

rule!(CI_NVIDIA_RUNNER_LABEL, "HP875", Deployment, Remediation, Init,
    summary: "A CI job (GitHub Actions `runs-on`) asks for a runner labelled as an NVIDIA GPU machine.",
    why: "Runner labels such as `nvidia`, `cuda`, `a100` or `h100` select NVIDIA machines: the job never runs on an AMD GPU, so the ROCm port is not tested in CI.",
    bad: "runs-on: [self-hosted, linux, nvidia, a100]",
    good: "runs-on: [self-hosted, linux, rocm, mi300x]  # labels your AMD runners carry",
    fix: "Register AMD GPU runners with their own labels and run the job there (or in a matrix over both).",
    refs: ["https://docs.github.com/en/actions/hosting-your-own-runners/managing-self-hosted-runners/using-labels-with-self-hosted-runners"],
);

/// A runner label that names NVIDIA hardware or its stack (compared lower-case, split on `-`/`_`).
pub(crate) fn nvidia_runner_label(label: &str) -> bool {
    const WORDS: &[&str] = &[
        "nvidia", "cuda", "a100", "h100", "h200", "b200", "v100", "t4", "l4", "l40", "l40s",
        "a10g", "a10", "rtx", "tesla",
    ];
    let lower = label.to_ascii_lowercase();
    lower.split(['-', '_', '.', ' ']).any(|w| {
        WORDS.contains(&w) || (w.starts_with("cuda") && w[4..].chars().all(|c| c.is_ascii_digit()))
    })
}

pub const RULES: &[&RuleInfo] = &[
    &K8S_NVIDIA_GPU_RESOURCE,
    &K8S_NVIDIA_RUNTIME_CLASS,
    &K8S_NVIDIA_NODE_SELECTOR,
    &K8S_NVIDIA_GPU_OPERATOR,
    &COMPOSE_NVIDIA_GPU_RESERVATION,
    &CI_NVIDIA_RUNNER_LABEL,
];
