// Block sum reduction with warp shuffles (classic two-stage pattern).
#include <cuda_runtime.h>
#include <cstdio>

#define WARP_SIZE 32  // expect: warp-size
#define FULL_MASK 0xffffffff  // expect: warp-size
#define BLOCK 256

__inline__ __device__ float warpReduceSum(float val) {
  for (int offset = 16; offset > 0; offset /= 2)  // expect: warp-size
    val += __shfl_down_sync(FULL_MASK, val, offset);  // expect: warp-size
  return val;
}

__inline__ __device__ float blockReduceSum(float val) {
  static __shared__ float shared[32];  // expect: warp-size
  int lane = threadIdx.x % 32;  // expect: warp-size
  int wid = threadIdx.x / 32;  // expect: warp-size

  val = warpReduceSum(val);
  if (lane == 0) shared[wid] = val;
  __syncthreads();

  val = (threadIdx.x < blockDim.x / 32) ? shared[lane] : 0.0f;  // expect: warp-size
  if (wid == 0) val = warpReduceSum(val);
  return val;
}

__global__ void reduce(const float* in, float* out, int n) {
  float sum = 0.0f;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
    sum += in[i];
  sum = blockReduceSum(sum);
  if (threadIdx.x == 0) atomicAdd(out, sum);
}

int main() {
  const int n = 1 << 20;
  float *d_in, *d_out;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, sizeof(float));
  cudaMemset(d_out, 0, sizeof(float));
  int blocks = (n + BLOCK - 1) / BLOCK;
  size_t bytes = 32 * sizeof(float);
  reduce<<<blocks, BLOCK>>>(d_in, d_out, n);
  cudaDeviceSynchronize();
  printf("%zu\n", bytes);
  cudaFree(d_in);
  cudaFree(d_out);
  return 0;
}
