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

pub const RULES: &[&RuleInfo] = &[
    &TORCH_CUDA_NAMESPACE,
    &NCCL_PROCESS_GROUP_BACKEND,
    &TORCH_BACKENDS_CUDNN,
];
