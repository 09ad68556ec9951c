#include <cuda_runtime.h>
#include <math_constants.h>

__device__ float gauss(float x) { return expf(-0.5f * x * x) / sqrtf(2.0f * CUDART_PI_F); }
__device__ double ring(double r) { return 2.0 * CUDART_PI * r; }
__global__ void fill(float *x) { x[threadIdx.x] = threadIdx.x ? gauss(x[threadIdx.x]) : CUDART_INF_F; }
