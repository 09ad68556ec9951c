#!/usr/bin/env bash
# Launch 8 ranks per node; tuned on the DGX A100 cluster.
set -euo pipefail
export NCCL_DEBUG=INFO
export NCCL_ALGO=Tree
export NCCL_NVLS_ENABLE=1
nvidia-smi --query-gpu=name,memory.used --format=csv
nsys profile -o /tmp/rank0 torchrun --nproc_per_node 8 train.py
