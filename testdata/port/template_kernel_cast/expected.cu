#include <hip/hip_runtime.h>

template <int A, int B>
__global__ void k(float *x) { x[threadIdx.x] = A + B; }

template <typename T> struct Pair { T a, b; };

template <typename P>
__global__ void pk(P p) {}

void setup() {
  hipFuncSetAttribute(reinterpret_cast<const void*>(k<1, 2>), hipFuncAttributeMaxDynamicSharedMemorySize, 1024);
  hipFuncSetCacheConfig(reinterpret_cast<const void*>(pk<Pair<int>>), hipFuncCachePreferShared);
  hipFuncAttributes attr;
  hipFuncGetAttributes(&attr, reinterpret_cast<const void*>(k<3, (4 > 2)>));
}
