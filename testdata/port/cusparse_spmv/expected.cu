#include <hip/hip_runtime.h>
#include <hipsparse/hipsparse.h>

int spmv(int rows, int cols, int nnz, int *dRowPtr, int *dCols, float *dVals, float *dX, float *dY) {
  hipsparseHandle_t handle;
  hipsparseSpMatDescr_t matA;
  hipsparseDnVecDescr_t vecX, vecY;
  float alpha = 1.0f, beta = 0.0f;
  size_t bufferSize = 0;
  void *dBuffer = nullptr;
  hipsparseCreate(&handle);
  hipsparseCreateCsr(&matA, rows, cols, nnz, dRowPtr, dCols, dVals, HIPSPARSE_INDEX_32I,
                    HIPSPARSE_INDEX_32I, HIPSPARSE_INDEX_BASE_ZERO, HIP_R_32F);
  hipsparseCreateDnVec(&vecX, cols, dX, HIP_R_32F);
  hipsparseCreateDnVec(&vecY, rows, dY, HIP_R_32F);
  hipsparseSpMV_bufferSize(handle, HIPSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, vecX, &beta,
                          vecY, HIP_R_32F, HIPSPARSE_SPMV_ALG_DEFAULT, &bufferSize);
  hipMalloc(&dBuffer, bufferSize);
  hipsparseSpMV(handle, HIPSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, vecX, &beta, vecY,
               HIP_R_32F, HIPSPARSE_SPMV_ALG_DEFAULT, dBuffer);
  hipsparseDestroySpMat(matA);
  hipsparseDestroyDnVec(vecX);
  hipsparseDestroyDnVec(vecY);
  hipsparseDestroy(handle);
  hipFree(dBuffer);
  return 0;
}
