#include <hip/hip_runtime.h>
#include "hipport_compat.h"

__device__ float gauss(float x) { return expf(-0.5f * x * x) / sqrtf(2.0f * HIP_PI_F); }
__device__ double ring(double r) { return 2.0 * HIP_PI * r; }
__global__ void fill(float *x) { x[threadIdx.x] = threadIdx.x ? gauss(x[threadIdx.x]) : HIP_INF_F; }
