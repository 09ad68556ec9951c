#include <cuda_runtime.h>

#ifdef USE_PINNED
#define ALLOC_HOST(p, n) cudaMallocHost((void **)&(p), (n))
#define FREE_HOST(p) cudaFreeHost(p)
#else
#define ALLOC_HOST(p, n) ((p) = (float *)malloc(n))
#define FREE_HOST(p) free(p)
#endif

void copy(float *d, int n) {
  float *h;
  ALLOC_HOST(h, n * sizeof(float));
#if defined(ASYNC_COPY)
  cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, 0);
  cudaStreamSynchronize(0);
#elif defined(PEER_COPY)
  cudaMemcpyPeer(h, 0, d, 1, n * sizeof(float));
#else
  cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost);
#endif
  FREE_HOST(h);
}
