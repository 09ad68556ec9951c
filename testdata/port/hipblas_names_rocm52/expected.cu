#define ROCM_MATHLIBS_API_USE_HIP_COMPLEX // hipport: `cublasCaxpy` in ROCm 5.2.0: hipBLAS 5.x: hipblasComplex/hipblasDoubleComplex are hipFloatComplex/hipDoubleComplex
#include <hip/hip_runtime.h>
#include <hipblas/hipblas.h>
#include <hip/hip_complex.h>
#include <hip/library_types.h>

// One cuBLAS program across three ROCm releases: hipBLAS 5.x (hipblasComplex and hipblasDatatype_t
// API), 6.x (the `_v2` names with hipComplex and hipDataType) and 7.0 (the `_v2` suffix dropped).
hipblasStatus_t caxpy(hipblasHandle_t h, int n, const hipComplex *alpha, const hipComplex *x, hipComplex *y) {
  return hipblasCaxpy(h, n, alpha, x, 1, y, 1);
}

hipblasStatus_t zdotc(hipblasHandle_t h, int n, const hipDoubleComplex *x, const hipDoubleComplex *y,
                     hipDoubleComplex *result) {
  return hipblasZdotc(h, n, x, 1, y, 1, result);
}

hipblasStatus_t gemm_ex(hipblasHandle_t h, const void *A, const void *B, void *C, int m, int n, int k) {
  const float alpha = 1.0f, beta = 0.0f;
  hipblasDatatype_t ab = HIPBLAS_R_16F;
  return hipblasGemmEx(h, HIPBLAS_OP_N, HIPBLAS_OP_N, m, n, k, &alpha, A, ab, m, B, ab, k, &beta, C,
                      HIPBLAS_R_32F, m, HIPBLAS_R_32F, HIPBLAS_GEMM_DEFAULT);
}

hipblasStatus_t dot_ex(hipblasHandle_t h, int n, const void *x, const void *y, void *result) {
  return hipblasDotEx(h, n, x, HIPBLAS_R_32F, 1, y, HIPBLAS_R_32F, 1, result, HIPBLAS_R_32F, HIPBLAS_R_32F);
}
