# Source: https://github.com/state-spaces/mamba/blob/e9594ce1c732d97440f0332fdc43170a2294dbfa/mamba_ssm/ops/cute/mamba3/mamba3_step_fn.py (lines 9-18)
#         and tests/ops/triton/test_mamba3_siso.py (lines 953-958). Licence: Apache-2.0.
# Labels (`expect` comments) added by hipport.
import torch.nn.functional as F
from torch import Tensor

import cuda.bindings.driver as cuda  # expect: HP821 python-package UNKNOWN

import cutlass  # expect: HP821 python-package UNKNOWN
import cutlass.cute as cute  # expect: HP821 python-package UNKNOWN
from cutlass import Int32, Float32, Float16, BFloat16, Boolean, const_expr  # expect: HP821 python-package UNKNOWN

from quack.compile_utils import make_fake_tensor  # expect: HP821 python-package UNKNOWN
import pytest


def test_blackwell_regression():
    if not torch.cuda.is_available():
        pytest.skip("CUDA not available")

    major, _ = torch.cuda.get_device_capability()
    if major not in (10, 12):  # expect: HP811 version-check REMEDIATION
        pytest.skip(f"Blackwell-specific regression -- skipping on compute capability {major}.x")
