#include <hip/hip_runtime.h>

__global__ void sample(hipTextureObject_t tex, float *out, int w) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < w) out[x] = tex1Dfetch<float>(tex, x);
}

hipTextureObject_t make_tex(float *d, int n) {
  hipResourceDesc res = {};
  res.resType = hipResourceTypeLinear;
  res.res.linear.devPtr = d;
  res.res.linear.desc = hipCreateChannelDesc<float>();
  res.res.linear.sizeInBytes = n * sizeof(float);
  hipTextureDesc td = {};
  td.readMode = hipReadModeElementType;
  hipTextureObject_t tex = 0;
  hipCreateTextureObject(&tex, &res, &td, nullptr);
  return tex;
}
