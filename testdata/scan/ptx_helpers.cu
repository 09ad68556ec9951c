// PTX helper functions of the kind found in hand-tuned kernels.
#include <cuda_runtime.h>
#include <cstdint>

__device__ __forceinline__ unsigned lane_id() {
  unsigned ret;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(ret));  // expect: inline-asm
  return ret;
}

__device__ __forceinline__ unsigned sm_id() {
  unsigned r;
  asm("mov.u32 %0, %%smid;" : "=r"(r));  // expect: inline-asm
  return r;
}

__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));  // expect: inline-asm
  return y;
}

__device__ __forceinline__ float ldg_stream(const float* p) {
  float v;
  asm volatile("ld.global.cs.f32 %0, [%1];"  // expect: inline-asm
               : "=f"(v)
               : "l"(p));
  return v;
}

#define BFE(out, in, pos, len) asm("bfe.u32 %0, %1, %2, %3;" : "=r"(out) : "r"(in), "r"(pos), "r"(len))  // expect: inline-asm

__device__ void compiler_barrier() {
  asm volatile("" ::: "memory");
}

__global__ void kernel(const float* in, float* out, unsigned* ids) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  unsigned field;
  BFE(field, (unsigned)i, 4, 8);
  out[i] = fast_exp2(ldg_stream(in + i)) + field;
  compiler_barrier();
  if (lane_id() == 0) ids[blockIdx.x] = sm_id();
}
