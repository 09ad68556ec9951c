#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>
#include "hipport_compat.h"

__global__ void accumulate(const __half2 *in, __half2 *sum, float *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    atomicAdd(sum, in[i]);
    atomicAdd(count, 1.0f);
  }
}
