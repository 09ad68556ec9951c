// Source: https://github.com/NVIDIA/cuda-samples/blob/c94ff366aed18c797b8a85dfaac7817b0228b420/Samples/4_CUDA_Libraries/conjugateGradientMultiBlockCG/conjugateGradientMultiBlockCG.cu
//         (includes and lines 211-243). Licence: BSD-3-Clause, Copyright (c) 2022, NVIDIA CORPORATION.
// Labels (`expect` comments) added by hipport.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>  // expect: HP004 library REMEDIATION
namespace cg = cooperative_groups;
__device__ void gpuDotProduct(float                  *vecA,
                              float                  *vecB,
                              double                 *result,
                              int                     size,
                              const cg::thread_block &cta,
                              const cg::grid_group   &grid)
{
    extern __shared__ double tmp[];

    double temp_sum = 0.0;
    for (int i = grid.thread_rank(); i < size; i += grid.size()) {
        temp_sum += static_cast<double>(vecA[i] * vecB[i]);
    }

    cg::thread_block_tile<32> tile32 = cg::tiled_partition<32>(cta);  // expect-ok: a 32-thread tile used only through cooperative groups keeps its meaning on 64-lane wavefronts (HIP tiles go up to the wavefront size)

    temp_sum = cg::reduce(tile32, temp_sum, cg::plus<double>());  // expect: HP001 unsupported-api REMEDIATION

    if (tile32.thread_rank() == 0) {
        tmp[tile32.meta_group_rank()] = temp_sum;
    }

    cg::sync(cta);

    if (tile32.meta_group_rank() == 0) {
        temp_sum = tile32.thread_rank() < tile32.meta_group_size() ? tmp[tile32.thread_rank()] : 0.0;
        temp_sum = cg::reduce(tile32, temp_sum, cg::plus<double>());  // expect: HP001 unsupported-api REMEDIATION

        if (tile32.thread_rank() == 0) {
            atomicAdd(result, temp_sum);
        }
    }
}
