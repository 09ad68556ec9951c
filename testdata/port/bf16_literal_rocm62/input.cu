#include <cuda_bf16.h>
#include <cuda_runtime.h>

// ROCm 5.2's hip_bfloat16 has only `explicit hip_bfloat16(float)`: `= 0` does not compile.
// Exact literals (integers, float literals) are wrapped; from 5.7 __hip_bfloat16 takes them as is.
__global__ void init(__nv_bfloat16 *out, float *sum) {
  __nv_bfloat16 zero = 0;
  __nv_bfloat16 acc;
  acc = 0;
  __nv_bfloat16 half = 0.5f;
  out[threadIdx.x] = zero;
  out[threadIdx.x + 1] = acc;
  out[threadIdx.x + 2] = half;
  *sum = acc == zero ? 1.0f : 0.0f;
}
