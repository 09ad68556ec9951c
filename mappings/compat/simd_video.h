// id: simd_video
// names: __vabs2 __vabs4 __vneg2 __vneg4 __vadd2 __vadd4 __vsub2 __vsub4 __vavgu2 __vavgu4 __vhaddu2 __vhaddu4
// names: __vmaxs2 __vmaxs4 __vmaxu2 __vmaxu4 __vmins2 __vmins4 __vminu2 __vminu4
// names: __vabsdiffs2 __vabsdiffs4 __vabsdiffu2 __vabsdiffu4 __vsadu2 __vsadu4
// names: __vcmpeq2 __vcmpeq4 __vcmpne2 __vcmpne4 __vseteq2 __vseteq4
// rocm: 5.0.0
// exact: no
// source: https://docs.nvidia.com/cuda/cuda-math-api/cuda_math_api/group__CUDA__MATH__INTRINSIC__SIMD.html (the CUDA definitions, lane by lane)
// source: https://rocm.docs.amd.com/projects/HIPIFY/en/latest/reference/tables/CUDA_Device_API_supported_by_HIP.html (HIP has none of the SIMD intrinsics)
// semantics: HIP has no SIMD-in-a-word intrinsics. Each function here splits the 32-bit word into two 16-bit or four 8-bit lanes and applies CUDA's documented per-lane operation (wrapping add/sub/neg/abs, signed or unsigned min/max, rounded-up average for __vavgu, truncated for __vhaddu, absolute difference, sum of absolute differences, all-ones or one per lane for the comparisons). Written as plain integer code, not the single instruction CUDA uses: correct by construction per the CUDA text, slower, and to be checked against CUDA results at runtime.
// test: __global__ void k(unsigned* p) { unsigned a = p[0], b = p[1];
// test:   p[2] = __vabs2(a) ^ __vabs4(a) ^ __vneg2(a) ^ __vneg4(a) ^ __vadd2(a, b) ^ __vadd4(a, b) ^ __vsub2(a, b) ^ __vsub4(a, b);
// test:   p[3] = __vavgu2(a, b) ^ __vavgu4(a, b) ^ __vhaddu2(a, b) ^ __vhaddu4(a, b) ^ __vmaxs2(a, b) ^ __vmaxs4(a, b) ^ __vmaxu2(a, b) ^ __vmaxu4(a, b);
// test:   p[4] = __vmins2(a, b) ^ __vmins4(a, b) ^ __vminu2(a, b) ^ __vminu4(a, b) ^ __vabsdiffs2(a, b) ^ __vabsdiffs4(a, b) ^ __vabsdiffu2(a, b) ^ __vabsdiffu4(a, b);
// test:   p[5] = __vsadu2(a, b) ^ __vsadu4(a, b) ^ __vcmpeq2(a, b) ^ __vcmpeq4(a, b) ^ __vcmpne2(a, b) ^ __vcmpne4(a, b) ^ __vseteq2(a, b) ^ __vseteq4(a, b); }
// ---
// Applies f to each Bits-wide lane of a and b (Bits = 8 or 16) and packs the low Bits of each result.
template <int Bits, typename F>
static inline __host__ __device__ unsigned int __hipport_simd(unsigned int a, unsigned int b, F f) {
  const unsigned int m = (1u << Bits) - 1u;
  unsigned int r = 0;
  for (int s = 0; s < 32; s += Bits) r |= (static_cast<unsigned int>(f((a >> s) & m, (b >> s) & m)) & m) << s;
  return r;
}
// The lane value as a signed Bits-wide integer.
template <int Bits> static inline __host__ __device__ int __hipport_sext(unsigned int v) {
  return static_cast<int>(v << (32 - Bits)) >> (32 - Bits);
}
#define __HIPPORT_SIMD_PAIR(NAME, EXPR)                                                              \
  static inline __host__ __device__ unsigned int NAME##2(unsigned int a, unsigned int b) {          \
    return __hipport_simd<16>(a, b, [](unsigned int x, unsigned int y) { const int B = 16; (void)B; return EXPR; }); \
  }                                                                                                 \
  static inline __host__ __device__ unsigned int NAME##4(unsigned int a, unsigned int b) {          \
    return __hipport_simd<8>(a, b, [](unsigned int x, unsigned int y) { const int B = 8; (void)B; return EXPR; }); \
  }
#define __HIPPORT_SX(v) (B == 16 ? __hipport_sext<16>(v) : __hipport_sext<8>(v))
__HIPPORT_SIMD_PAIR(__vadd, x + y)
__HIPPORT_SIMD_PAIR(__vsub, x - y)
__HIPPORT_SIMD_PAIR(__vavgu, (x + y + 1u) >> 1)
__HIPPORT_SIMD_PAIR(__vhaddu, (x + y) >> 1)
__HIPPORT_SIMD_PAIR(__vmaxu, x > y ? x : y)
__HIPPORT_SIMD_PAIR(__vminu, x < y ? x : y)
__HIPPORT_SIMD_PAIR(__vmaxs, __HIPPORT_SX(x) > __HIPPORT_SX(y) ? x : y)
__HIPPORT_SIMD_PAIR(__vmins, __HIPPORT_SX(x) < __HIPPORT_SX(y) ? x : y)
__HIPPORT_SIMD_PAIR(__vabsdiffu, x > y ? x - y : y - x)
__HIPPORT_SIMD_PAIR(__vabsdiffs, static_cast<unsigned int>(__HIPPORT_SX(x) > __HIPPORT_SX(y) ? __HIPPORT_SX(x) - __HIPPORT_SX(y) : __HIPPORT_SX(y) - __HIPPORT_SX(x)))
__HIPPORT_SIMD_PAIR(__vcmpeq, x == y ? 0xffffu : 0u)
__HIPPORT_SIMD_PAIR(__vcmpne, x != y ? 0xffffu : 0u)
__HIPPORT_SIMD_PAIR(__vseteq, x == y ? 1u : 0u)
#undef __HIPPORT_SX
#undef __HIPPORT_SIMD_PAIR
static inline __host__ __device__ unsigned int __vabs2(unsigned int a) {
  return __hipport_simd<16>(a, 0u, [](unsigned int x, unsigned int) { int v = __hipport_sext<16>(x); return static_cast<unsigned int>(v < 0 ? -v : v); });
}
static inline __host__ __device__ unsigned int __vabs4(unsigned int a) {
  return __hipport_simd<8>(a, 0u, [](unsigned int x, unsigned int) { int v = __hipport_sext<8>(x); return static_cast<unsigned int>(v < 0 ? -v : v); });
}
static inline __host__ __device__ unsigned int __vneg2(unsigned int a) { return __vsub2(0u, a); }
static inline __host__ __device__ unsigned int __vneg4(unsigned int a) { return __vsub4(0u, a); }
static inline __host__ __device__ unsigned int __vsadu2(unsigned int a, unsigned int b) {
  unsigned int d = __vabsdiffu2(a, b);
  return (d & 0xffffu) + (d >> 16);
}
static inline __host__ __device__ unsigned int __vsadu4(unsigned int a, unsigned int b) {
  unsigned int d = __vabsdiffu4(a, b);
  return (d & 0xffu) + ((d >> 8) & 0xffu) + ((d >> 16) & 0xffu) + (d >> 24);
}
