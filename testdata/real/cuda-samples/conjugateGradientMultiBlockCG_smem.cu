// Source: https://github.com/NVIDIA/cuda-samples/blob/c94ff366aed18c797b8a85dfaac7817b0228b420/Samples/4_CUDA_Libraries/conjugateGradientMultiBlockCG/conjugateGradientMultiBlockCG.cu (lines 463-465, in a function of their own; the kernel's per-warp slots are tile32.meta_group_rank(), see conjugateGradientMultiBlockCG_dot.cu).
// Licence: BSD-3-Clause, Copyright (c) 2022, NVIDIA CORPORATION. Labels (`expect` comments) added by hipport, by reading the code.
int cg_shared_memory_size()
{
    int sMemSize       = sizeof(double) * ((THREADS_PER_BLOCK / 32) + 1);  // expect-ok: one slot per 32-thread tile (the kernel uses tiled_partition<32>), which HIP keeps on 64-lane wavefronts
    int numBlocksPerSm = 0;
    int numThreads     = THREADS_PER_BLOCK;
    return sMemSize + numBlocksPerSm + numThreads;
}
