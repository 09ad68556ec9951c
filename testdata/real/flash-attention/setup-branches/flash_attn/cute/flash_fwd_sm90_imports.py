# Source: https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/flash_attn/cute/flash_fwd_sm90.py (lines 1-30).
# Licence: BSD-3-Clause, Copyright (c) 2022, Tri Dao and the respective contributors. Labels (`expect` comments) added by hipport, by reading the code.
# Copyright (c) 2025, Jay Shah, Ganesh Bikshandi, Ying Zhang, Vijay Thakkar, Pradeep Ramani, Tri Dao.
# SM90 (Hopper) forward pass for flash attention, extracted from flash_fwd.py.

from types import SimpleNamespace
from typing import Callable, Literal, Optional
from functools import partial  # expect-ok: standard library

import cuda.bindings.driver as cuda  # expect: HP821 python-package UNKNOWN

import cutlass  # expect: HP821 python-package UNKNOWN
import cutlass.cute as cute  # expect: HP821 python-package UNKNOWN
from cutlass import Float32, Int32, const_expr  # expect: HP821 python-package UNKNOWN
from cutlass.cute.nvgpu import cpasync, warpgroup  # expect: HP821 python-package UNKNOWN
from cutlass.utils import LayoutEnum  # expect: HP821 python-package UNKNOWN
import cutlass.utils.hopper_helpers as sm90_utils_basic  # expect: HP821 python-package UNKNOWN
from cutlass import pipeline  # expect: HP821 python-package UNKNOWN
from cutlass.pipeline import pipeline_init_arrive, pipeline_init_wait  # expect: HP821 python-package UNKNOWN
from cutlass.base_dsl.arch import Arch  # expect: HP821 python-package UNKNOWN

from quack import copy_utils  # expect: HP821 python-package UNKNOWN
from quack import layout_utils  # expect: HP821 python-package UNKNOWN
from quack import sm90_utils  # expect: HP821 python-package UNKNOWN

from flash_attn.cute.cute_dsl_utils import assume_tensor_aligned  # expect-ok: the project's own module
from flash_attn.cute import utils
from flash_attn.cute.mask import AttentionMask
from flash_attn.cute.softmax import Softmax, apply_score_mod_inner
from flash_attn.cute.seqlen_info import SeqlenInfoQK
from flash_attn.cute.block_info import BlockInfo
from flash_attn.cute.block_sparsity import BlockSparseTensors
