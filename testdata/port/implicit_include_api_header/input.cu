// Row-wise scaling with profiler markers around the timed region.
#include <cstdio>
#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

#define CHECK(call)                                                     \
  do {                                                                  \
    cudaError_t err_ = (call);                                          \
    if (err_ != cudaSuccess) {                                          \
      fprintf(stderr, "CUDA error %s at %s:%d\n",                       \
              cudaGetErrorString(err_), __FILE__, __LINE__);            \
      return 1;                                                         \
    }                                                                   \
  } while (0)

__global__ void scale_rows(float *m, const float *s, int rows, int cols) {
  int r = blockIdx.y;
  int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows && c < cols) m[r * cols + c] *= s[r];
}

int main() {
  const int rows = 512, cols = 1024;
  float *m, *s;
  CHECK(cudaMalloc(&m, rows * cols * sizeof(float)));
  CHECK(cudaMalloc(&s, rows * sizeof(float)));
  CHECK(cudaMemset(m, 0, rows * cols * sizeof(float)));
  CHECK(cudaMemset(s, 0, rows * sizeof(float)));
  dim3 block(256);
  dim3 grid((cols + block.x - 1) / block.x, rows);
  cudaProfilerStart();
  scale_rows<<<grid, block>>>(m, s, rows, cols);
  CHECK(cudaDeviceSynchronize());
  cudaProfilerStop();
  CHECK(cudaFree(m));
  CHECK(cudaFree(s));
  return 0;
}
