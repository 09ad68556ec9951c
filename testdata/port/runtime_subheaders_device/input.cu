// Sub-headers of cuda_runtime.h that older projects include by name (warp-rnnt's core.cu,
// ccminer's cuda_helper.h): ROCm ships none of them; hip_runtime.h declares what they held.
#include <device_atomic_functions.h>
#include <device_double_functions.h>
#include <host_defines.h>
#include <sm_32_atomic_functions.h>

__global__ void count(unsigned long long* hits, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0.f) atomicAdd(hits, 1ull);
}
