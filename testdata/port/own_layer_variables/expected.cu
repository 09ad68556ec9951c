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
#include <hip/hip_runtime.h>
#endif

__global__ void scale(float *x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}

int run(float *host, int n, hipStream_t s) {
  int devices = 0;
  if (hipGetDeviceCount(&devices) != hipSuccess || devices == 0) return 1;
  float *d = nullptr;
  hipMalloc(&d, n * sizeof(float));
  hipMemsetAsync(d, 0, n * sizeof(float), s);
  hipMemcpyAsync(d, host, n * sizeof(float), hipMemcpyHostToDevice, s);
  scale<<<(n + 255) / 256, 256, 0, s>>>(d, 2.0f, n);
  hipMemcpyAsync(host, d, n * sizeof(float), hipMemcpyDeviceToHost, s);
  hipStreamSynchronize(s);
  hipFree(d);
  return 0;
}
