// A project's own ROCm layer that aliases the runtime's names to HIP's with variables, as
// supranational/sppark's util/cuda2hip.hpp does (its ROCm build force-includes the header):
// the names it declares stay as written (renamed, `static const auto hipMemcpyAsync =
// hipMemcpyAsync;` would not compile); their uses are translated.
#ifdef __HIPCC__
#include <hip/hip_runtime.h>
static const auto cudaGetDeviceCount = hipGetDeviceCount;
static const auto cudaMemcpyAsync = hipMemcpyAsync;
static const auto cudaMemsetAsync = hipMemsetAsync;
using cudaStream_t = hipStream_t;
#else
#include <cuda_runtime.h>
#endif

__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int run(float *host, int n, cudaStream_t s) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) return 1;
  float *d = nullptr;
  cudaMalloc(&d, n * sizeof(float));
  cudaMemsetAsync(d, 0, n * sizeof(float), s);
  cudaMemcpyAsync(d, host, n * sizeof(float), cudaMemcpyHostToDevice, s);
  scale<<<(n + 255) / 256, 256, 0, s>>>(d, 2.0f, n);
  cudaMemcpyAsync(host, d, n * sizeof(float), cudaMemcpyDeviceToHost, s);
  cudaStreamSynchronize(s);
  cudaFree(d);
  return 0;
}
