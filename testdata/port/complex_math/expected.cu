#include <hip/hip_complex.h>
#include <hip/hip_runtime.h>

__global__ void cmul(const hipFloatComplex *a, const hipFloatComplex *b, hipFloatComplex *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    c[i] = hipCmulf(a[i], b[i]);
    float mag = hipCabsf(c[i]);
    c[i] = make_hipFloatComplex(hipCrealf(c[i]) / mag, hipCimagf(c[i]) / mag);
  }
}

__host__ __device__ hipDoubleComplex conj_add(hipDoubleComplex x, hipDoubleComplex y) {
  return hipCadd(hipConj(x), y);
}
