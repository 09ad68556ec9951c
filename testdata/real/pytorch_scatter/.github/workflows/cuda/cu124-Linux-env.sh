# Source: https://github.com/rusty1s/pytorch_scatter/blob/648dda3cf964731ffb4de11eafc445a83133eda4/.github/workflows/cuda/cu124-Linux-env.sh (whole file).
# Licence: MIT, Copyright (c) 2020 Matthias Fey. Labels (`expect` comments) added by hipport.
#!/bin/bash

CUDA_HOME=/usr/local/cuda-12.4  # expect-ok: the same line as cu118-Linux-env.sh: one decision
LD_LIBRARY_PATH=${CUDA_HOME}/lib64:${LD_LIBRARY_PATH}
PATH=${CUDA_HOME}/bin:${PATH}

export FORCE_CUDA=1
export TORCH_CUDA_ARCH_LIST="5.0+PTX;6.0;7.0;7.5;8.0;8.6;9.0"  # expect-ok: folded into cu118-Linux-env.sh
