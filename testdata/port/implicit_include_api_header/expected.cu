// Row-wise scaling with profiler markers around the timed region.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <hip/hip_runtime_api.h>
#include <hip/hip_runtime_api.h>

#define CHECK(call)                                                     \
  do {                                                                  \
    hipError_t err_ = (call);                                          \
    if (err_ != hipSuccess) {                                          \
      fprintf(stderr, "CUDA error %s at %s:%d\n",                       \
              hipGetErrorString(err_), __FILE__, __LINE__);            \
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
  CHECK(hipMalloc(&m, rows * cols * sizeof(float)));
  CHECK(hipMalloc(&s, rows * sizeof(float)));
  CHECK(hipMemset(m, 0, rows * cols * sizeof(float)));
  CHECK(hipMemset(s, 0, rows * sizeof(float)));
  dim3 block(256);
  dim3 grid((cols + block.x - 1) / block.x, rows);
  hipProfilerStart();
  scale_rows<<<grid, block>>>(m, s, rows, cols);
  CHECK(hipDeviceSynchronize());
  hipProfilerStop();
  CHECK(hipFree(m));
  CHECK(hipFree(s));
  return 0;
}
