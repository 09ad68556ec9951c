#include <hip/hip_runtime.h>
#include <hip/hip_math_constants.h>

__device__ float gauss(float x) { return expf(-0.5f * x * x) / sqrtf(2.0f * HIP_PI_F); }
