# Source: https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/flash_attn/cute/tile_scheduler.py (lines 1-16).
# Licence: BSD-3-Clause, Copyright (c) 2022, Tri Dao and the respective contributors. Labels (`expect` comments) added by hipport, by reading the code.
# Copyright (c) 2025, Tri Dao, Siyu Wang, Shengbin Di, Yuxi Chi, Johnsonms, Linfeng Zheng, Haoyan Huang, Lanbo Li, Yun Zhong, Man Yuan, Minmin Sun, Yong Li, Wei Lin.

from enum import IntEnum, auto
from typing import Optional, Tuple, Protocol, runtime_checkable
from dataclasses import dataclass

try:
    from typing import override
except ImportError:  # Python < 3.12
    from typing_extensions import override

import cutlass  # expect-ok: CuTe DSL in flash_attn/cute, a package built on NVIDIA-only packages: folded into its HP833
from cutlass.pipeline import PipelineClcFetchAsync, PipelineState  # expect-ok: folded into flash_attn/cute's HP833
from cutlass._mlir import ir  # expect-ok: folded into flash_attn/cute's HP833
import cutlass.cute as cute  # expect-ok: folded into flash_attn/cute's HP833
