// Shapes from PyTorch extensions such as state-spaces/mamba's selective scan (written for this
// test, not copied): scan operators are members of user structs, templates and namespaced
// helpers. None of them is HIP's definition, so none may be guarded; only the free
// helper_math-style operator and the double atomic at file scope are HIP's.
#include <hip/hip_runtime.h>

template <typename scalar_t> struct SSMScanOp;

template <> struct SSMScanOp<float> {
  __device__ __forceinline__ float2 operator()(const float2 &ab0, const float2 &ab1) const {
    return make_float2(ab1.x * ab0.x, ab1.x * ab0.y + ab1.y);
  }
};

struct Accum {
  float2 v;
  __device__ Accum &operator+=(const float2 &o) {
    v.x += o.x;
    v.y += o.y;
    return *this;
  }
  friend __device__ float2 operator*(const Accum &a, float s) { return make_float2(a.v.x * s, a.v.y * s); }
};

template <typename T> __device__ T operator*(T a, int n) { return a; }

namespace ssm {
inline __device__ float2 operator-(float2 a, float2 b) { return make_float2(a.x - b.x, a.y - b.y); }
__device__ float2 combine(float2 a, float2 b) { return a - b; }
}  // namespace ssm

extern "C" {
__device__ float scale_one(float x) { return 2.0f * x; }
}

// A mixed-type operator HIP does not define: kept.
inline __host__ __device__ float3 operator*(float3 a, float4 b) {
  return make_float3(a.x * b.x, a.y * b.y, a.z * b.z);
}

#if !defined(__HIP__)
inline __host__ __device__ float2 operator*(float2 a, float s) { return make_float2(a.x * s, a.y * s); }

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

__global__ void scan(float2 *x, double *total, float3 *w) {
  SSMScanOp<float> op;
  Accum acc{make_float2(0.f, 0.f)};
  acc += op(x[0], x[threadIdx.x]);
  x[threadIdx.x] = ssm::combine(acc.v, x[0]) * 0.5f;
  w[threadIdx.x] = w[threadIdx.x] * make_float4(1.f, 1.f, 1.f, 1.f);
  atomicAdd(total, 1.0);
}
