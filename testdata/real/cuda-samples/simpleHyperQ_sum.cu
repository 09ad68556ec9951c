// Source: https://github.com/NVIDIA/cuda-samples/blob/c94ff366aed18c797b8a85dfaac7817b0228b420/Samples/0_Introduction/simpleHyperQ/simpleHyperQ.cu
//         (lines 36-39, 79-106 and 202). Licence: BSD-3-Clause, Copyright (c) 2022, NVIDIA CORPORATION.
// Labels (`expect` comments) added by hipport.
#include <cooperative_groups.h>
#include <stdio.h>

namespace cg = cooperative_groups;
__global__ void sum(clock_t *d_clocks, int N)
{
    // Handle to thread block group
    cg::thread_block   cta = cg::this_thread_block();
    __shared__ clock_t s_clocks[32];  // expect: HP105 warp-size REMEDIATION

    clock_t my_sum = 0;

    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        my_sum += d_clocks[i];
    }

    s_clocks[threadIdx.x] = my_sum;
    cg::sync(cta);

    for (int i = warpSize / 2; i > 0; i /= 2) {
        if (threadIdx.x < i) {
            s_clocks[threadIdx.x] += s_clocks[threadIdx.x + i];
        }

        cg::sync(cta);
    }

    if (threadIdx.x == 0) {
        d_clocks[0] = s_clocks[0];
    }
}

void launch_sum(clock_t *d_a, int nstreams) {
    sum<<<1, 32>>>(d_a, 2 * nstreams);  // expect: HP107 warp-size UNKNOWN
}
