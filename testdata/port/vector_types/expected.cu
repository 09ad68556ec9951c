#include <hip/hip_runtime.h>
#include <hip/hip_vector_types.h>

__global__ void norm(const float4 *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    float4 v = in[i];
    int2 idx = make_int2(i, i + 1);
    out[i] = sqrtf(v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w) + idx.y;
  }
}

uchar4 pack(unsigned char r) { return make_uchar4(r, r, r, 255); }
