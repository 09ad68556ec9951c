// The built-in index variables used as whole vectors, as graphics code with
// helper_math.h-style operators writes them (after NVIDIA/gvdb-voxels,
// cuda_gvdb_copydata.cu and cuda_gvdb_operators.cuh, BSD-3-Clause; reduced).
#include <cuda_runtime.h>

inline __host__ __device__ uint3 operator*(uint3 a, uint3 b) { return make_uint3(a.x * b.x, a.y * b.y, a.z * b.z); }
inline __host__ __device__ uint3 operator+(uint3 a, uint3 b) { return make_uint3(a.x + b.x, a.y + b.y, a.z + b.z); }
inline __host__ __device__ uint3 operator+(uint3 a, int b) { return make_uint3(a.x + b, a.y + b, a.z + b); }

__global__ void copy3(const float* in, float* out, uint3 res) {
  uint3 t = blockIdx * make_uint3(blockDim.x, blockDim.y, blockDim.z) + threadIdx;
  if (t.x >= res.x || t.y >= res.y || t.z >= res.z) return;
  uint3 local = threadIdx + 1;
  const uint3 b = blockIdx;
  dim3 d = threadIdx;
  out[(t.z * res.y + t.y) * res.x + t.x] = in[local.x + b.y + d.z];
}

int main() {
  // A host variable of the same name is the file's own: left alone.
  dim3 gridDim(4, 4, 4);
  copy3<<<gridDim, dim3(8, 8, 8)>>>(nullptr, nullptr, make_uint3(32, 32, 32));
  return 0;
}
