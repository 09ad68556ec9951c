#include <cub/cub.cuh>
#include <cuda_runtime.h>

template <int BLOCK>
__global__ void block_sum(const int *in, int *out) {
  typedef cub::BlockReduce<int, BLOCK> BlockReduce;
  __shared__ typename BlockReduce::TempStorage temp;
  int v = in[blockIdx.x * BLOCK + threadIdx.x];
  int sum = BlockReduce(temp).Sum(v);
  if (threadIdx.x == 0) out[blockIdx.x] = sum;
}

void device_sum(const int *d_in, int *d_out, int n) {
  void *tmp = nullptr;
  size_t bytes = 0;
  cub::DeviceReduce::Sum(tmp, bytes, d_in, d_out, n);
  cudaMalloc(&tmp, bytes);
  cub::DeviceReduce::Sum(tmp, bytes, d_in, d_out, n);
  cudaFree(tmp);
}
