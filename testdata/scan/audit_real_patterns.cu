// Patterns from an audit of real CUDA projects: code a HIP-aware author already separated,
// look-alikes that are not hazards, and hazards spelled in ways the first rules missed.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cstdint>

// An IDE shim, not a test of the architecture.
#ifdef __CLION_IDE__
#define __CUDA_ARCH__ 900
#endif

// The project switches on its own HIP macro: the HIP side is decided explicitly.
#ifdef USE_ROCM
constexpr int kWaveLanes = 64;
#else
constexpr int kWaveLanes = 32;
#endif

#if !defined(USE_ROCM) && CUDART_VERSION >= 11070
#define HAS_ASYNC_COPY 1
#endif

#if defined(__HIP_PLATFORM_AMD__) || __CUDA_ARCH__ >= 800
#define HAS_BF16_MATH 1
#endif

#ifndef USE_ROCM
__device__ __forceinline__ unsigned lanemask_lt() {
  unsigned m;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
  return m;
}
#endif

// Loads through a macro that holds the opcode.
#define LD_NC_GLOBAL "ld.global.nc"
__device__ __forceinline__ int ld_nc(const int* p) {
  int v;
  asm volatile(LD_NC_GLOBAL ".s32 %0, [%1];" : "=r"(v) : "l"(p));  // expect: inline-asm
  return v;
}

__device__ __forceinline__ void st_na(float* p, float v) {
  asm volatile(ST_NO_ALLOC ".f32 [%0], %1;" ::"l"(p), "f"(v));  // expect: inline-asm
}

// `a` is a float2 here and a half2 below: only the half2 use is a hazard.
__device__ float2 widen(__half2 h) {
  float2 a = __half22float2(h);
  a.x = a.x * 2.0f;
  return a;
}

__device__ float first_half(__half2 a) {
  return __half2float(a.x);  // a `__half` member from ROCm 6.0 on, as in CUDA (HP710 only before 6.0)
}

// Warp counts from thread counts, and lane ids from any thread number.
template <int kNumThreads>
__global__ void per_warp_sums(const float* in, float* out) {
  constexpr int kNumWarps = kNumThreads / 32;  // expect: warp-size
  __shared__ float partial[kNumWarps];
  const unsigned t = threadIdx.x;
  int lane = unsigned(t) % 32;  // expect: warp-size
  float v = in[blockIdx.x * kNumThreads + t];
  if (lane == 0) partial[t / warpSize] = v;
  __syncthreads();
  if (t == 0) {
    float s = 0.f;
    for (int i = 0; i < kNumWarps; ++i) s += partial[i];
    out[blockIdx.x] = s;
  }
}

void launch_sums(const float* in, float* out, int n, int block_size, cudaStream_t st) {
  size_t smem = block_size / 32 * sizeof(float);  // expect: warp-size
  per_warp_sums<256><<<n / 256, 256, smem, st>>>(in, out);
}
