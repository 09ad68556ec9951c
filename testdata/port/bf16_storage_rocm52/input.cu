#include <cuda_bf16.h>
#include <cuda_runtime.h>

// Storage-only use of bf16 translates to hip_bfloat16 at ROCm 5.2.
struct Params {
  __nv_bfloat16 *weights;
  int n;
};

void alloc(Params &p) { cudaMalloc(&p.weights, p.n * sizeof(__nv_bfloat16)); }
