#pragma once
#include <hip/hip_runtime.h>

////////////////////////////////////////////////////////////////////////////////
// negate
////////////////////////////////////////////////////////////////////////////////

#if !defined(__HIP__)
// hipport HP008 [PASS/BUILD]: `operator-` on HIP vector types is already defined by HIP: this definition was guarded out for HIP (`hipport port` wraps it in `#if !defined(__HIP__)`, so HIP's own is used)
inline __host__ __device__ float2 operator-(float2 &a) { return make_float2(-a.x, -a.y); }
// the int2 version
// hipport HP008 [PASS/BUILD]: `operator-` on HIP vector types is already defined by HIP: this definition was guarded out for HIP (`hipport port` wraps it in `#if !defined(__HIP__)`, so HIP's own is used)
inline __host__ __device__ int2 operator-(int2 &a) { return make_int2(-a.x, -a.y); }
#endif  // !defined(__HIP__)

// not an operator: stays outside the guard
inline __host__ __device__ float dot(float2 a, float2 b) { return a.x * b.x + a.y * b.y; }

#if !defined(__HIP__)
// hipport HP008 [PASS/BUILD]: `operator*=` on HIP vector types is already defined by HIP: this definition was guarded out for HIP (`hipport port` wraps it in `#if !defined(__HIP__)`, so HIP's own is used)
inline __host__ __device__ void operator*=(float2 &a, float b) {
  a.x *= b;
  a.y *= b;
}
#endif  // !defined(__HIP__)
