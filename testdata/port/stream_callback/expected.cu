#include <cstdio>
#include <hip/hip_runtime.h>

void on_done(hipStream_t stream, hipError_t status, void *data) {
  printf("stream done: %d\\n", (int)status);
}

void enqueue(hipStream_t s) { hipStreamAddCallback(s, on_done, nullptr, 0); }
