# Source: https://github.com/pytorch/ao/blob/36027d82d1ad9949597ea16002ff4940374b1b94/torchao/utils.py (lines 1134-1154, with its `import torch`).
# Licence: BSD-3-Clause, Copyright 2023 Meta and the respective contributors. Labels (`expect` comments) added by hipport.
import torch

def is_sm_version(major: int, minor: int) -> bool:
    """Check if the CUDA version is exactly major.minor"""
    is_cuda = torch.cuda.is_available() and torch.version.cuda  # expect-ok: only tested for being set
    return torch.cuda.get_device_capability() == (major, minor) if is_cuda else False  # expect-ok: only when is_cuda


def is_sm_at_least_89():
    return (
        torch.cuda.is_available()
        and torch.version.cuda  # expect-ok: only tested for being set
        and torch.cuda.get_device_capability() >= (8, 9)  # expect-ok: evaluated only when torch.version.cuda is set
    )


def is_sm_at_least_90():
    return (
        torch.cuda.is_available()
        and torch.version.cuda  # expect-ok: only tested for being set
        and torch.cuda.get_device_capability() >= (9, 0)  # expect-ok: evaluated only on CUDA
    )

