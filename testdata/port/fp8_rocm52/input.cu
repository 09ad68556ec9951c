#include <cuda_fp8.h>
#include <cuda_runtime.h>

__global__ void quantize(const float *in, __nv_fp8_e4m3 *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = __nv_fp8_e4m3(in[i]);
}
