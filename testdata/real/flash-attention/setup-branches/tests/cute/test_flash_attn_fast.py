# Source: https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/tests/cute/test_flash_attn_fast.py (lines 1-29).
# Licence: BSD-3-Clause, Copyright (c) 2022, Tri Dao and the respective contributors. Labels (`expect` comments) added by hipport, by reading the code.
# Copyright (c) 2025, Jay Shah, Ganesh Bikshandi, Ying Zhang, Vijay Thakkar, Pradeep Ramani, Tri Dao.
# Fast subset of test_flash_attn.py for quick iteration.
# Covers: causal/noncausal, varlen/not varlen, MHA/GQA, split/not split, fwd+bwd.

import os
import random

import pytest
import torch
from einops import rearrange

from flash_attn.cute.cache_utils import JITCache
from flash_attn.cute.interface import (
    _flash_attn_fwd,
    flash_attn_combine,
    flash_attn_func,
    flash_attn_varlen_func,
)
from flash_attn.cute.testing import (
    attention_ref,
    generate_qkv,
    generate_random_padding_mask,
    is_fake_mode,
    maybe_fake_tensor_mode,
)

USE_FAKE_TENSOR = int(os.getenv("FLASH_ATTENTION_FAKE_TENSOR", 0)) == 1
IS_SM90 = torch.cuda.get_device_capability()[0] == 9  # expect-ok: a test of flash_attn.cute, which it imports at module level: folded into that package's HP833
IS_SM120 = torch.cuda.get_device_capability()[0] == 12  # expect-ok: folded into flash_attn/cute's HP833
