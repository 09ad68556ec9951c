#!/bin/bash
# Profile one step and collect DCGM counters.
ncu --set full -o step python jit.py
dcgmi dmon -e 1001,1004 -c 10
docker run --rm --gpus all nvcr.io/nvidia/pytorch:24.05-py3 python -c "print(1)"
