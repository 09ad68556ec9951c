//! framework-namespace rules: CUDA-named framework APIs that PyTorch on ROCm keeps as they are.
//! They are inventoried as PASS with the reason, so a reviewer sees them and nobody "fixes" them.

use crate::registry::RuleInfo;

rule!(TORCH_CUDA_NAMESPACE, "HP800", FrameworkNamespace, Pass, Runtime,
    summary: "`torch.cuda.*`, `torch.device(\"cuda\")`, `.cuda()`, `.to(\"cuda\")`: PyTorch's device namespace.",
    why: "PyTorch built for ROCm keeps the `cuda` device type and the `torch.cuda` module: HIP devices appear as `cuda` devices, so this code runs unchanged on AMD GPUs.",
    bad: "model = model.cuda()\ntorch.cuda.synchronize()",
    good: "model = model.cuda()  # unchanged: on ROCm, 'cuda' is the HIP device",
    fix: "Nothing to do. Keep it; do not rename to 'hip'.",
    refs: ["https://pytorch.org/docs/stable/notes/hip.html"],
);

rule!(NCCL_PROCESS_GROUP_BACKEND, "HP801", FrameworkNamespace, Pass, Init,
    summary: "`backend=\"nccl\"` in torch.distributed: served by RCCL on ROCm.",
    why: "PyTorch on ROCm maps the `nccl` process-group backend to RCCL, which implements the NCCL API.",
    bad: "dist.init_process_group(backend=\"nccl\")",
    good: "dist.init_process_group(backend=\"nccl\")  # unchanged: RCCL on ROCm",
    fix: "Nothing to do.",
    refs: ["https://pytorch.org/docs/stable/notes/hip.html", "https://rocm.docs.amd.com/projects/rccl/en/latest/"],
);

rule!(TORCH_BACKENDS_CUDNN, "HP802", FrameworkNamespace, Pass, Runtime,
    summary: "`torch.backends.cudnn.*` flags: MIOpen serves them on ROCm.",
    why: "On ROCm builds `torch.backends.cudnn` controls MIOpen; flags such as `benchmark` and `deterministic` keep working.",
    bad: "torch.backends.cudnn.benchmark = True",
    good: "torch.backends.cudnn.benchmark = True  # MIOpen on ROCm",
    fix: "Nothing to do. Re-measure the effect of `benchmark` on AMD hardware.",
    refs: ["https://pytorch.org/docs/stable/notes/hip.html"],
);

rule!(CUDNN_VERSION_THRESHOLD, "HP803", FrameworkNamespace, Remediation, Correctness,
    summary: "`torch.backends.cudnn.version()` compared with a number (a cuDNN release).",
    why: "On ROCm builds `torch.backends.cudnn` is served by MIOpen and `version()` reports MIOpen's version, so a threshold written for cuDNN releases (`>= 8000` for cuDNN 8) picks its path by an unrelated number.",
    bad: "if torch.backends.cudnn.version() >= 8000:\n    use_fused_path()",
    good: "if torch.version.hip or torch.backends.cudnn.version() >= 8000:\n    use_fused_path()  # decided for MIOpen on its own",
    fix: "Decide the MIOpen case on its own (`torch.version.hip`), or test the feature the threshold stands for.",
    refs: ["https://github.com/pytorch/pytorch/blob/main/torch/csrc/cuda/shared/cudnn.cpp", "https://rocm.docs.amd.com/projects/MIOpen/en/latest/"],
);

pub const RULES: &[&RuleInfo] = &[
    &TORCH_CUDA_NAMESPACE,
    &NCCL_PROCESS_GROUP_BACKEND,
    &TORCH_BACKENDS_CUDNN,
    &CUDNN_VERSION_THRESHOLD,
];
