# Source: https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/flash_attn/cute/flash_fwd_sm90.py (lines 1-30).
# Licence: BSD-3-Clause, Copyright (c) 2022, Tri Dao and the respective contributors. Labels (`expect` comments) added by hipport, by reading the code.
# Copyright (c) 2025, Jay Shah, Ganesh Bikshandi, Ying Zhang, Vijay Thakkar, Pradeep Ramani, Tri Dao.
# SM90 (Hopper) forward pass for flash attention, extracted from flash_fwd.py.

from types import SimpleNamespace
from typing import Callable, Literal, Optional
from functools import partial  # expect-ok: standard library

import cuda.bindings.driver as cuda  # expect-ok: CuTe DSL in flash_attn/cute, a package built on NVIDIA-only packages: folded into its HP833

import cutlass  # expect-ok: folded into flash_attn/cute's HP833
import cutlass.cute as cute  # expect-ok: folded into flash_attn/cute's HP833
from cutlass import Float32, Int32, const_expr  # expect-ok: folded into flash_attn/cute's HP833
from cutlass.cute.nvgpu import cpasync, warpgroup  # expect-ok: folded into flash_attn/cute's HP833
from cutlass.utils import LayoutEnum  # expect-ok: folded into flash_attn/cute's HP833
import cutlass.utils.hopper_helpers as sm90_utils_basic  # expect-ok: folded into flash_attn/cute's HP833
from cutlass import pipeline  # expect-ok: folded into flash_attn/cute's HP833
from cutlass.pipeline import pipeline_init_arrive, pipeline_init_wait  # expect-ok: folded into flash_attn/cute's HP833
from cutlass.base_dsl.arch import Arch  # expect-ok: folded into flash_attn/cute's HP833

from quack import copy_utils  # expect-ok: folded into flash_attn/cute's HP833
from quack import layout_utils  # expect-ok: folded into flash_attn/cute's HP833
from quack import sm90_utils  # expect-ok: folded into flash_attn/cute's HP833

from flash_attn.cute.cute_dsl_utils import assume_tensor_aligned  # expect-ok: the project's own module
from flash_attn.cute import utils
from flash_attn.cute.mask import AttentionMask
from flash_attn.cute.softmax import Softmax, apply_score_mod_inner
from flash_attn.cute.seqlen_info import SeqlenInfoQK
from flash_attn.cute.block_info import BlockInfo
from flash_attn.cute.block_sparsity import BlockSparseTensors
