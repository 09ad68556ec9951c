#include <cuda_runtime.h>

template <typename T, int N>
__global__ void tile_copy(const T *in, T *out) {
  __shared__ T buf[N];
  buf[threadIdx.x] = in[blockIdx.x * N + threadIdx.x];
  __syncthreads();
  out[blockIdx.x * N + threadIdx.x] = buf[N - 1 - threadIdx.x];
}

__global__ void noargs() {}

void run(const float *in, float *out, int blocks, cudaStream_t stream) {
  dim3 grid(blocks), block(64);
  tile_copy<float, 64><<<grid, block, 64 * sizeof(float), stream>>>(in, out);
  noargs<<<1, 1>>>();
  tile_copy<float, 64><<<blocks, 64>>>(
      in,
      out);
}
