#include <hip/hip_runtime.h>

#ifdef USE_PINNED
#define ALLOC_HOST(p, n) hipHostMalloc((void **)&(p), (n))
#define FREE_HOST(p) hipHostFree(p)
#else
#define ALLOC_HOST(p, n) ((p) = (float *)malloc(n))
#define FREE_HOST(p) free(p)
#endif

void copy(float *d, int n) {
  float *h;
  ALLOC_HOST(h, n * sizeof(float));
#if defined(ASYNC_COPY)
  hipMemcpyAsync(h, d, n * sizeof(float), hipMemcpyDeviceToHost, 0);
  hipStreamSynchronize(0);
#elif defined(PEER_COPY)
  hipMemcpyPeer(h, 0, d, 1, n * sizeof(float));
#else
  hipMemcpy(h, d, n * sizeof(float), hipMemcpyDeviceToHost);
#endif
  FREE_HOST(h);
}
