#include <hip/hip_bfloat16.h>
#include <hip/hip_runtime.h>

// Storage-only use of bf16 translates to hip_bfloat16 at ROCm 5.2.
struct Params {
  hip_bfloat16 *weights;
  int n;
};

void alloc(Params &p) { hipMalloc(&p.weights, p.n * sizeof(hip_bfloat16)); }
