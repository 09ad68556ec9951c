# Source: https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/benchmarks/benchmark_gemm.py (lines 1-11).
# Licence: BSD-3-Clause, Copyright (c) 2022, Tri Dao and the respective contributors. Labels (`expect` comments) added by hipport, by reading the code.
import time
import torch
import torch.utils.benchmark as benchmark

from triton.testing import do_bench

if torch.version.cuda:  # expect-ok: only tests whether torch.version.cuda is set; the elif takes the ROCm build
    backendBLAS = "cuBLAS"
elif torch.version.hip:
    backendBLAS = "hipBLAS"

