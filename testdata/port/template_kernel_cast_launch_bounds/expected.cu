// cuda-convnet2's shape: `__launch_bounds__` between the template head and the kernel's name.
#include <hip/hip_runtime.h>

template <int B_Y, int B_X, bool scale>
__global__ void
__launch_bounds__(128, 4)
filterActs(float *images, float *targets) { targets[threadIdx.x] = images[B_Y * B_X]; }

template <int N>
__global__ void __attribute__((noinline)) plain(float *x) { x[threadIdx.x] = N; }

void setup() {
  hipFuncSetCacheConfig(reinterpret_cast<const void*>(filterActs < 4, 32, false >), hipFuncCachePreferL1);
  hipFuncSetCacheConfig(reinterpret_cast<const void*>(plain<2>), hipFuncCachePreferShared);
}
