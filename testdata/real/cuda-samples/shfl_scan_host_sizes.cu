// Source: https://github.com/NVIDIA/cuda-samples/blob/c94ff366aed18c797b8a85dfaac7817b0228b420/Samples/2_Concepts_and_Techniques/shfl_scan/shfl_scan.cu (lines 251-256 and 279-280, in a function of their own).
// Licence: BSD-3-Clause, Copyright (c) 2022, NVIDIA CORPORATION. Labels (`expect` comments) added by hipport, by reading the code.
void shfl_scan_sizes(int n_elements, int *d_data, int *d_partial_sums, int p_gridSize, int p_blockSize)
{
    int blockSize     = 256;
    int gridSize      = n_elements / blockSize;
    int nWarps        = blockSize / 32;  // expect-ok: only sizes shared memory for per-warp sums: 32-lane warps outnumber 64-lane ones, so the buffer is large enough
    int shmem_sz      = nWarps * sizeof(int);
    int n_partialSums = n_elements / blockSize;
    int partial_sz    = n_partialSums * sizeof(int);

    shfl_scan_test<<<gridSize, blockSize, shmem_sz>>>(d_data, 32, d_partial_sums);
    shfl_scan_test<<<p_gridSize, p_blockSize, shmem_sz>>>(d_partial_sums, 32);
}
