# Source: https://github.com/rusty1s/pytorch_scatter/blob/648dda3cf964731ffb4de11eafc445a83133eda4/torch_scatter/__init__.py (lines 1-3, 5 and 49-66).
# Licence: MIT, Copyright (c) 2020 Matthias Fey. Labels (`expect` comments) added by hipport.
import importlib
import os
import os.path as osp

import torch

cuda_version = torch.ops.torch_scatter.cuda_version()
is_not_hip = torch.version.hip is None
is_cuda = torch.version.cuda is not None  # expect-ok: a None test, False on ROCm
if is_not_hip and is_cuda and cuda_version != -1:  # pragma: no cover
    if cuda_version < 10000:
        major, minor = int(str(cuda_version)[0]), int(str(cuda_version)[2])
    else:
        major, minor = int(str(cuda_version)[0:2]), int(str(cuda_version)[3])
    t_major, t_minor = [int(x) for x in torch.version.cuda.split('.')]  # expect-ok: only when is_not_hip

    if t_major != major:
        raise RuntimeError(
            f'Detected that PyTorch and torch_scatter were compiled with '
            f'different CUDA versions. PyTorch has CUDA version '
            f'{t_major}.{t_minor} and torch_scatter has CUDA version '
            f'{major}.{minor}. Please reinstall the torch_scatter that '
            f'matches your PyTorch install.')

