# Source: https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/setup.py (lines 42-53,101-113,285-301,459-465,519-525).
# Licence: BSD-3-Clause, Copyright (c) 2022, Tri Dao and the respective contributors. Labels (`expect` comments) added by hipport, by reading the code.
BUILD_TARGET = os.environ.get("BUILD_TARGET", "auto")  # expect-ok: the project's own ROCm switch (BUILD_TARGET)

if BUILD_TARGET == "auto":
    if IS_HIP_EXTENSION:
        IS_ROCM = True
    else:
        IS_ROCM = False
else:
    if BUILD_TARGET == "cuda":
        IS_ROCM = False
    elif BUILD_TARGET == "rocm":  # expect-ok: the project's own ROCm switch
        IS_ROCM = True
def add_cuda_gencodes(cc_flag, archs, bare_metal_version):
    """
    Adds -gencode flags based on nvcc capabilities:
      - sm_80/90 (regular)
      - sm_100/120 on CUDA >= 12.8
      - Use 100f on CUDA >= 12.9 (Blackwell family-specific)
      - Map requested 110 -> 101 if CUDA < 13.0 (Thor rename)
      - Embed PTX for newest arch for forward compatibility
    """
    # Always-regular 80
    if "80" in archs:
        cc_flag += ["-gencode", "arch=compute_80,code=sm_80"]  # expect-ok: a helper called only from the CUDA-only arm

if not SKIP_CUDA_BUILD and not IS_ROCM:  # expect-ok: the CUDA arm of the project's IS_ROCM switch
    print("\n\ntorch.__version__  = {}\n\n".format(torch.__version__))
    TORCH_MAJOR = int(torch.__version__.split(".")[0])
    TORCH_MINOR = int(torch.__version__.split(".")[1])

    check_if_cuda_home_none("flash_attn")  # expect-ok: CUDA_HOME check in the CUDA-only arm
    # Check, if CUDA11 is installed for compute capability 8.0
    cc_flag = []
    if CUDA_HOME is not None:  # expect-ok: CUDA_HOME in the CUDA-only arm
        _, bare_metal_version = get_cuda_bare_metal_version(CUDA_HOME)  # expect-ok: nvcc version in the CUDA-only arm
        if bare_metal_version < Version("11.7"):
            raise RuntimeError(
                "FlashAttention is only supported on CUDA 11.7 and above.  "
                "Note: make sure nvcc has a supported version by running nvcc -V."
            )
        # Build -gencode (regular + PTX + family-specific 'f' when available)  # expect-ok: -gencode flags added in the CUDA-only arm
        add_cuda_gencodes(cc_flag, set(cuda_archs()), bare_metal_version)
elif not SKIP_CUDA_BUILD and IS_ROCM:
    print("\n\ntorch.__version__  = {}\n\n".format(torch.__version__))
    TORCH_MAJOR = int(torch.__version__.split(".")[0])
    TORCH_MINOR = int(torch.__version__.split(".")[1])

    # Skips CK C++ extension compilation if using Triton Backend
    if ROCM_BACKEND == "ck":
        sources = ["csrc/flash_attn_ck/flash_api.cpp",
                "csrc/flash_attn_ck/flash_common.cpp",
                "csrc/flash_attn_ck/mha_bwd.cpp",
                "csrc/flash_attn_ck/mha_fwd_kvcache.cpp",
                "csrc/flash_attn_ck/mha_fwd.cpp",
                "csrc/flash_attn_ck/mha_varlen_bwd.cpp",
                "csrc/flash_attn_ck/mha_varlen_fwd.cpp"]
