# Source: https://github.com/rusty1s/pytorch_scatter/blob/648dda3cf964731ffb4de11eafc445a83133eda4/setup.py (lines 3-14, 40, 63-68 and 70-82, dedented by 4).
# Licence: MIT, Copyright (c) 2020 Matthias Fey. Labels (`expect` comments) added by hipport.
import os.path as osp
import platform
import sys
from itertools import product

import torch
from setuptools import find_packages, setup
from torch.__config__ import parallel_info
from torch.utils.cpp_extension import (CUDA_HOME, BuildExtension, CppExtension,
                                       CUDAExtension)

__version__ = '2.1.2'
for main, suffix in product(main_files, suffices):
    # Compile for mac arm64
    if sys.platform == 'darwin':
        extra_compile_args['cxx'] += ['-D_LIBCPP_DISABLE_AVAILABILITY']
        if platform.machine == 'arm64':
            extra_compile_args['cxx'] += ['-arch', 'arm64']  # expect-ok: Apple clang's -arch (macOS build), not nvcc
            extra_link_args += ['-arch', 'arm64']  # expect-ok: Apple linker's -arch
    if suffix == 'cuda':
        define_macros += [('WITH_CUDA', None)]
        nvcc_flags = os.getenv('NVCC_FLAGS', '')
        nvcc_flags = [] if nvcc_flags == '' else nvcc_flags.split(' ')
        nvcc_flags += ['-O3']
        if torch.version.hip:
            # USE_ROCM was added to later versions of PyTorch.
            # Define here to support older PyTorch versions as well:
            define_macros += [('USE_ROCM', None)]
            undef_macros += ['__HIP_NO_HALF_CONVERSIONS__']
        else:
            nvcc_flags += ['--expt-relaxed-constexpr']
        extra_compile_args['nvcc'] = nvcc_flags
