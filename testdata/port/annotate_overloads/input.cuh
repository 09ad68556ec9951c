#pragma once
#include <cuda_runtime.h>

////////////////////////////////////////////////////////////////////////////////
// negate
////////////////////////////////////////////////////////////////////////////////

inline __host__ __device__ float2 operator-(float2 &a) { return make_float2(-a.x, -a.y); }
// the int2 version
inline __host__ __device__ int2 operator-(int2 &a) { return make_int2(-a.x, -a.y); }

// not an operator: stays outside the guard
inline __host__ __device__ float dot(float2 a, float2 b) { return a.x * b.x + a.y * b.y; }

inline __host__ __device__ void operator*=(float2 &a, float b) {
  a.x *= b;
  a.y *= b;
}
