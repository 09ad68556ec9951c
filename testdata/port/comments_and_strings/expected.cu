#include <hip/hip_runtime.h>
#include <cstdio>

/* cudaMalloc and cudaFree in a block comment stay as they are. */
static const char *kMessage = "cudaMalloc failed: check cudaGetLastError()";
static const char kQuote = '"';
static const char *kRaw = R"doc(cudaMemcpy(dst, src, n, cudaMemcpyHostToDevice);)doc";

void report(hipError_t e) {
  // Log: cudaError_t value from cudaGetErrorName
  printf("%s: %s (%s) %c\n", kMessage, hipGetErrorName(e), kRaw, kQuote);
  printf("cudaDeviceSynchronize returned %d\n", (int)hipDeviceSynchronize());
}
