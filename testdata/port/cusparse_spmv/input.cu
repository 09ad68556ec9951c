#include <cuda_runtime.h>
#include <cusparse.h>

int spmv(int rows, int cols, int nnz, int *dRowPtr, int *dCols, float *dVals, float *dX, float *dY) {
  cusparseHandle_t handle;
  cusparseSpMatDescr_t matA;
  cusparseDnVecDescr_t vecX, vecY;
  float alpha = 1.0f, beta = 0.0f;
  size_t bufferSize = 0;
  void *dBuffer = nullptr;
  cusparseCreate(&handle);
  cusparseCreateCsr(&matA, rows, cols, nnz, dRowPtr, dCols, dVals, CUSPARSE_INDEX_32I,
                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
  cusparseCreateDnVec(&vecX, cols, dX, CUDA_R_32F);
  cusparseCreateDnVec(&vecY, rows, dY, CUDA_R_32F);
  cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, vecX, &beta,
                          vecY, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &bufferSize);
  cudaMalloc(&dBuffer, bufferSize);
  cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, vecX, &beta, vecY,
               CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, dBuffer);
  cusparseDestroySpMat(matA);
  cusparseDestroyDnVec(vecX);
  cusparseDestroyDnVec(vecY);
  cusparseDestroy(handle);
  cudaFree(dBuffer);
  return 0;
}
