#include <hip/hip_runtime.h>
#include <math_constants.h>

__device__ float gauss(float x) { return expf(-0.5f * x * x) / sqrtf(2.0f * CUDART_PI_F); }
