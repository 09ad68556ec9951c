#include <cuda_runtime.h>
#include <cstdio>

// A checking macro that pastes the runtime's prefix onto its argument (HP018): the names it
// forms (`cudaMalloc`, `cudaFree`) appear only after preprocessing, so the port cannot rename them.
#define GPU_CALL(call)                                                   \
  {                                                                      \
    cudaError_t rc = cuda##call;                                         \
    if (rc != cudaSuccess) printf("%s: %s\n", #call, cudaGetErrorString(rc)); \
  }

// The negative twin: pasting that forms no CUDA name.
#define CAT(a, b) a##b
#define KERNEL_NAME(x) CAT(kernel_, x)

void KERNEL_NAME(setup)(float *p) { (void)p; }
