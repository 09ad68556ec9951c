#include <cuComplex.h>
#include <cuda_runtime.h>

__global__ void cmul(const cuFloatComplex *a, const cuFloatComplex *b, cuFloatComplex *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = cuCmulf(a[i], b[i]);
    float mag = cuCabsf(c[i]);
    c[i] = make_cuFloatComplex(cuCrealf(c[i]) / mag, cuCimagf(c[i]) / mag);
  }
}

__host__ __device__ cuDoubleComplex conj_add(cuDoubleComplex x, cuDoubleComplex y) {
  return cuCadd(cuConj(x), y);
}
