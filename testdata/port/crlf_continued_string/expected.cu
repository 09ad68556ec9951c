#include <cstdio>
#include <hip/hip_runtime.h>

// A string continued with a backslash in a CRLF file: the continuation is still the string.
static const char *kUsage = "usage: run with cudaMalloc-backed buffers, \
cudaFree is called at exit";

void report(void *p) {
  hipFree(p);
  printf("%s\n", kUsage);
}
