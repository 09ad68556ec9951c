// id: bf16_conversions
// names: __float2bfloat16 __float2bfloat16_rn __bfloat162float __nv_bfloat162=__hip_bfloat162 nv_bfloat162=__hip_bfloat162
// names: __floats2bfloat162_rn __float2bfloat162_rn __low2bfloat16 __high2bfloat16 __bfloat1622float2
// rocm: 5.0.0 5.5.1
// guard: HIP_VERSION < 50600000
// exact: no
// requires: hip/hip_bfloat16.h
// source: https://github.com/ROCm/clr/blob/rocm-5.6.0/hipamd/include/hip/amd_detail/amd_hip_bf16.h (the conversion API as HIP 5.6 declares it)
// source: https://rocm.docs.amd.com/projects/HIP/en/latest/reference/low_fp_types.html
// source: https://github.com/ROCm/HIP/blob/rocm-5.2.x/include/hip/hip_bfloat16.h (hip_bfloat16: float constructor rounds to nearest even, NaN kept)
// semantics: Before ROCm 5.6 the CUDA bf16 type maps to hip_bfloat16, whose float constructor rounds to nearest even like __float2bfloat16 and whose float conversion is exact like __bfloat162float. __hip_bfloat162 is a plain pair {x, y} of hip_bfloat16 with none of CUDA's paired arithmetic; the conversions here are the only operations. Results match CUDA bit for bit except for NaN payloads: verify at runtime where NaNs matter.
// test: __global__ void k(hip_bfloat16* p, __hip_bfloat162* q, float2* r) {
// test:   p[0] = __float2bfloat16(__bfloat162float(p[1]) * 2.0f); p[2] = __float2bfloat16_rn(1.5f);
// test:   q[0] = __floats2bfloat162_rn(1.0f, 2.0f); q[1] = __float2bfloat162_rn(3.0f);
// test:   p[3] = __low2bfloat16(q[0]); p[4] = __high2bfloat16(q[1]); r[0] = __bfloat1622float2(q[0]); }
// ---
struct __hip_bfloat162 {
  hip_bfloat16 x;
  hip_bfloat16 y;
};
static inline __host__ __device__ hip_bfloat16 __float2bfloat16(float f) { return hip_bfloat16(f); }
static inline __host__ __device__ hip_bfloat16 __float2bfloat16_rn(float f) { return hip_bfloat16(f); }
static inline __host__ __device__ float __bfloat162float(hip_bfloat16 b) { return float(b); }
static inline __host__ __device__ __hip_bfloat162 __floats2bfloat162_rn(float a, float b) {
  return __hip_bfloat162{hip_bfloat16(a), hip_bfloat16(b)};
}
static inline __host__ __device__ __hip_bfloat162 __float2bfloat162_rn(float a) {
  return __hip_bfloat162{hip_bfloat16(a), hip_bfloat16(a)};
}
static inline __host__ __device__ hip_bfloat16 __low2bfloat16(__hip_bfloat162 v) { return v.x; }
static inline __host__ __device__ hip_bfloat16 __high2bfloat16(__hip_bfloat162 v) { return v.y; }
static inline __host__ __device__ float2 __bfloat1622float2(__hip_bfloat162 v) {
  return make_float2(float(v.x), float(v.y));
}
