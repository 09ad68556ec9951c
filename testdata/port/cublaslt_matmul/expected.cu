#include <hipblaslt/hipblaslt.h>
#include <hip/hip_runtime.h>

void matmul(hipblasLtHandle_t lt, const float *A, const float *B, float *C, int m, int n, int k) {
  hipblasLtMatmulDesc_t op;
  hipblasLtMatrixLayout_t a, b, c;
  hipblasLtMatmulDescCreate(&op, HIPBLAS_COMPUTE_32F, HIP_R_32F);
  hipblasLtMatrixLayoutCreate(&a, HIP_R_32F, m, k, m);
  hipblasLtMatrixLayoutCreate(&b, HIP_R_32F, k, n, k);
  hipblasLtMatrixLayoutCreate(&c, HIP_R_32F, m, n, m);
  float alpha = 1.f, beta = 0.f;
  hipblasLtMatmul(lt, op, &alpha, A, a, B, b, &beta, C, c, C, c, nullptr, nullptr, 0, 0);
  hipblasLtMatmulDescDestroy(op);
}
