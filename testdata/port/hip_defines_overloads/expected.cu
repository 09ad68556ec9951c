#include <hip/hip_runtime.h>

// Operators copied from helper_math.h: HIP's vector types already define them.
#if !defined(__HIP__)
inline __host__ __device__ float4 operator+(float4 a, float4 b) {
  return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}
inline __host__ __device__ void operator+=(float4 &a, float4 b) {
  a.x += b.x;
  a.y += b.y;
  a.z += b.z;
  a.w += b.w;
}
#endif  // !defined(__HIP__)

// Not an operator on vector types: stays.
inline __host__ __device__ float dot(float4 a, float4 b) { return a.x * b.x + a.y * b.y; }

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 600
#if !defined(__HIP__)
__device__ double atomicAdd(double *address, double val) {
  unsigned long long int *p = (unsigned long long int *)address;
  unsigned long long int old = *p, assumed;
  do {
    assumed = old;
    old = atomicCAS(p, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));
  } while (assumed != old);
  return __longlong_as_double(old);
}
#endif  // !defined(__HIP__)
#endif

__global__ void accumulate(float4 *acc, const float4 *x, double *total) {
  acc[threadIdx.x] += x[threadIdx.x];
  atomicAdd(total, 1.0);
}
