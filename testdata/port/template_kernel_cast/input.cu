#include <cuda_runtime.h>

template <int A, int B>
__global__ void k(float *x) { x[threadIdx.x] = A + B; }

template <typename T> struct Pair { T a, b; };

template <typename P>
__global__ void pk(P p) {}

void setup() {
  cudaFuncSetAttribute(k<1, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024);
  cudaFuncSetCacheConfig(pk<Pair<int>>, cudaFuncCachePreferShared);
  cudaFuncAttributes attr;
  cudaFuncGetAttributes(&attr, k<3, (4 > 2)>);
}
