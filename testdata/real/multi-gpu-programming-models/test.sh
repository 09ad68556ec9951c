#!/bin/bash
# Source: https://github.com/NVIDIA/multi-gpu-programming-models/blob/9a600f5ea8f5e53614e30b7b36e9136107178dd8/test.sh (lines 39-42).
# Licence: BSD-3-Clause, Copyright (c) 2017,2024, NVIDIA CORPORATION. Labels (`expect` comments) added by hipport, by reading the code.
    if [ ! -v NCCL_HOME ] || [ ! -d ${NCCL_HOME} ]; then
        export NCCL_HOME=$(dirname `echo $LD_LIBRARY_PATH | tr ':' '\n' | grep nccl | grep -v sharp`)  # expect-ok: NCCL's install location found from LD_LIBRARY_PATH, not NCCL tuning
        echo "Setting NCCL_HOME=${NCCL_HOME}"
    fi 
