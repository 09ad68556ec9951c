# Source: https://github.com/state-spaces/mamba/blob/e9594ce1c732d97440f0332fdc43170a2294dbfa/setup.py (lines 133,135,207-247,279-299).
# Licence: Apache-2.0, Copyright (c) 2023 Tri Dao, Albert Gu. Labels (`expect` comments) added by hipport, by reading the code.
HIP_BUILD = bool(torch.version.hip)  # expect-ok: the project's ROCm switch (HIP_BUILD from torch.version.hip)
if KEEP_CUDA_BUILD:
    if FORCE_CXX11_ABI:
        torch._C._GLIBCXX_USE_CXX11_ABI = True

    if HIP_BUILD:

        extra_compile_args = {
            "cxx": ["-O3", "-std=c++17"],
            "nvcc": [  # expect-ok: --offload-arch in the ROCm arm
                "-O3",
                "-std=c++17",
                f"--offload-arch={os.getenv('HIP_ARCHITECTURES', 'native')}",
                "-U__CUDA_NO_HALF_OPERATORS__",
                "-U__CUDA_NO_HALF_CONVERSIONS__",
                "-fgpu-flush-denormals-to-zero",
            ]
            + cc_flag,
        }
    else:
        extra_compile_args = {
            "cxx": ["-O3", "-std=c++17"],
            "nvcc": append_nvcc_threads(
                [
                    "-O3",
                    "-std=c++17",
                    "-U__CUDA_NO_HALF_OPERATORS__",
                    "-U__CUDA_NO_HALF_CONVERSIONS__",
                    "-U__CUDA_NO_BFLOAT16_OPERATORS__",
                    "-U__CUDA_NO_BFLOAT16_CONVERSIONS__",
                    "-U__CUDA_NO_BFLOAT162_OPERATORS__",
                    "-U__CUDA_NO_BFLOAT162_CONVERSIONS__",
                    "--expt-relaxed-constexpr",  # expect-ok: nvcc-only flag in the CUDA-only arm of if HIP_BUILD
                    "--expt-extended-lambda",  # expect-ok: nvcc-only flag in the CUDA-only arm of if HIP_BUILD
                    "--use_fast_math",  # expect-ok: nvcc-only flag in the CUDA-only arm of if HIP_BUILD
                    "--ptxas-options=-v",  # expect-ok: nvcc-only flag in the CUDA-only arm of if HIP_BUILD
                    "-lineinfo",  # expect-ok: nvcc-only flag in the CUDA-only arm of if HIP_BUILD
                ]  # expect-ok: nvcc-only flag in the CUDA-only arm of if HIP_BUILD
                + cc_flag
            ),
        }

    ext_modules.append(
def get_wheel_url():
    # Determine the version numbers that will be used to determine the correct wheel
    torch_version_raw = parse(torch.__version__)

    if HIP_BUILD:
        # We're using the HIP version used to build torch, not the one currently installed
        torch_hip_version = get_torch_hip_version()
        hip_ver = f"{torch_hip_version.major}{torch_hip_version.minor}"
    else:
        # We're using the CUDA version used to build torch, not the one currently installed
        # _, cuda_version_raw = get_cuda_bare_metal_version(CUDA_HOME)
        torch_cuda_version = parse(torch.version.cuda)  # expect-ok: torch.version.cuda in the CUDA-only arm of if HIP_BUILD
        # For CUDA 11, we only compile for CUDA 11.8, and for CUDA 12 we only compile for CUDA 12.3
        # to save CI time. Minor versions should be compatible.
        if torch_cuda_version.major == 11:
            torch_cuda_version = parse("11.8")
        elif torch_cuda_version.major == 12:
            torch_cuda_version = parse("12.3")
        elif torch_cuda_version.major == 13:
            torch_cuda_version = parse("13.0")
        else:
