#include <cublas_v2.h>
#include <cuComplex.h>
#include <cuda_runtime.h>

// C = alpha * A * B on complex matrices, then y += a * x in double complex.
void complex_gemm(cublasHandle_t handle, int n, const cuComplex *dA, const cuComplex *dB,
                  cuComplex *dC, const cuDoubleComplex *dx, cuDoubleComplex *dy) {
  const cuComplex alpha = make_cuComplex(1.0f, 0.0f);
  const cuComplex beta = make_cuComplex(0.0f, 0.0f);
  cublasCgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, dA, n, dB, n, &beta, dC, n);
  cuDoubleComplex a = make_cuDoubleComplex(2.0, -1.0);
  cublasZaxpy(handle, n, &a, dx, 1, dy, 1);
  cudaDataType_t type = CUDA_C_32F;
  cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, dA, type, n, dB, type, n, &beta,
               dC, CUDA_C_32F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
}
