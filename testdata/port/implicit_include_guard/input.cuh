#ifndef REDUCE_UTILS_CUH
#define REDUCE_UTILS_CUH

// Device helpers shared by the reduction kernels.
template <typename T>
__device__ __forceinline__ T block_sum(T v, T *smem) {
  smem[threadIdx.x] = v;
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) smem[threadIdx.x] += smem[threadIdx.x + s];
    __syncthreads();
  }
  return smem[0];
}

#endif  // REDUCE_UTILS_CUH
