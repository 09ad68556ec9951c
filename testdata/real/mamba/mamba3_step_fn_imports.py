# Source: https://github.com/state-spaces/mamba/blob/e9594ce1c732d97440f0332fdc43170a2294dbfa/mamba_ssm/ops/cute/mamba3/mamba3_step_fn.py (lines 9-18).
# Licence: Apache-2.0. The test lines that were here are in tests/test_mamba3_siso.py.
# Labels (`expect` comments) added by hipport.
import torch.nn.functional as F
from torch import Tensor

import cuda.bindings.driver as cuda  # expect: HP821 python-package UNKNOWN

import cutlass  # expect-ok: folded into this directory's one HP821 finding (line 7)
import cutlass.cute as cute  # expect-ok: folded into this directory's one HP821 finding (line 7)
from cutlass import Int32, Float32, Float16, BFloat16, Boolean, const_expr  # expect-ok: folded into this directory's one HP821 finding (line 7)

from quack.compile_utils import make_fake_tensor  # expect-ok: folded into this directory's one HP821 finding (line 7)
