// A width-halving reduction with partial masks (the form of Tencent/TNN's CUDA layer kernels,
// BSD-3-Clause; written here, not copied): every lane of each 32-lane warp runs each shuffle,
// the width confines the exchange, and the results land in per-warp slots.
#include <hip/hip_runtime.h>

template <int THREADS>
__global__ void block_sum(const float* in, float* out, int n) {
    __shared__ float partial[THREADS / 32];
    float v = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) v += in[blockIdx.x * n + i];
    v += __shfl_down_sync((0xffffffffull << (__lane_id() & 32)), v, 16, 32);
    v += __shfl_down_sync((0xffffffffull << (__lane_id() & 32)), v, 8, 16);
    v += __shfl_down_sync((0xffffffffull << (__lane_id() & 32)), v, 4, 8);
    v += __shfl_down_sync((0xffffffffull << (__lane_id() & 32)), v, 2, 4);
    v += __shfl_down_sync((0xffffffffull << (__lane_id() & 32)), v, 1, 2);
    if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x == 0) {
        float s = 0.f;
        for (int w = 0; w < THREADS / 32; ++w) s += partial[w];
        out[blockIdx.x] = s;
    }
}

template __global__ void block_sum<256>(const float*, float*, int);
