#include <rocblas/rocblas.h>
#include <hip/hip_complex.h>
#include <hip/hip_runtime.h>

// C = alpha * A * B on complex matrices, then y += a * x in double complex.
void complex_gemm(rocblas_handle handle, int n, const rocblas_float_complex *dA, const rocblas_float_complex *dB,
                  rocblas_float_complex *dC, const rocblas_double_complex *dx, rocblas_double_complex *dy) {
  const rocblas_float_complex alpha = rocblas_float_complex(1.0f, 0.0f);
  const rocblas_float_complex beta = rocblas_float_complex(0.0f, 0.0f);
  rocblas_cgemm(handle, rocblas_operation_none, rocblas_operation_none, n, n, n, &alpha, dA, n, dB, n, &beta, dC, n);
  rocblas_double_complex a = rocblas_double_complex(2.0, -1.0);
  rocblas_zaxpy(handle, n, &a, dx, 1, dy, 1);
  rocblas_datatype_ type = rocblas_datatype_f32_c;
  rocblas_gemm_ex(handle, rocblas_operation_none, rocblas_operation_none, n, n, n, &alpha, dA, type, n, dB, type, n, &beta,
               dC, rocblas_datatype_f32_c, n, CUBLAS_COMPUTE_32F, rocblas_gemm_algo_standard);
}
