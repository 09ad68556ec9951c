// Rodinia-style: the whole file is wrapped in extern "C" for C callers.
#ifdef __cplusplus
extern "C" {
#endif

#define BLOCK 256

__global__ void scale(float4 *p, float s, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) p[i] = make_float4(p[i].x * s, p[i].y * s, p[i].z * s, p[i].w * s);
}

void launch(float4 *p, float s, int n) { scale<<<(n + BLOCK - 1) / BLOCK, BLOCK>>>(p, s, n); }

#ifdef __cplusplus
}
#endif
