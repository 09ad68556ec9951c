# Source: https://github.com/rusty1s/pytorch_scatter/blob/648dda3cf964731ffb4de11eafc445a83133eda4/.github/workflows/cuda/cu118-Linux-env.sh (whole file).
# Licence: MIT, Copyright (c) 2020 Matthias Fey. Labels (`expect` comments) added by hipport.
#!/bin/bash

CUDA_HOME=/usr/local/cuda-11.8  # expect: HP852 build-system REMEDIATION
LD_LIBRARY_PATH=${CUDA_HOME}/lib64:${LD_LIBRARY_PATH}
PATH=${CUDA_HOME}/bin:${PATH}

export FORCE_CUDA=1
export TORCH_CUDA_ARCH_LIST="3.5;5.0+PTX;6.0;7.0;7.5;8.0;8.6"  # expect: HP843 build-system PASS
