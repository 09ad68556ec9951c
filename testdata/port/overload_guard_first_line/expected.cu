// A file whose first line of code is a definition HIP already provides: the implicit runtime
// include must come before the guard, never inside it (the guard is false under hipcc).
#include <hip/hip_runtime.h>
#if !defined(__HIP__)
inline __host__ __device__ float2 operator+(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
inline __host__ __device__ void operator+=(float2 &a, float2 b) {
  a.x += b.x;
  a.y += b.y;
}
#endif  // !defined(__HIP__)
#include "stdio.h"

__global__ void shift(float2 *p, float2 d) {
  p[threadIdx.x] += d;
  p[threadIdx.x] = p[threadIdx.x] + d;
}
