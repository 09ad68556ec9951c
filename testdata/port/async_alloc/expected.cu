#include <hip/hip_runtime.h>

void tmp_buffer(hipStream_t s, size_t n) {
  void *p = nullptr;
  hipMallocAsync(&p, n, s);
  hipMemsetAsync(p, 0, n, s);
  hipFreeAsync(p, s);
  hipMemPool_t pool;
  hipDeviceGetDefaultMemPool(&pool, 0);
}
