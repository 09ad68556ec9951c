// cuda-samples helper_cuda.h style: one error-string overload per library, each compiled only
// when that library's header was included, tested through the header's own macros. A unit that
// checks a cuSPARSE status needs the cuSPARSE overload to survive the port.
#include <cuda_runtime.h>
#include <cusparse.h>

#ifdef __DRIVER_TYPES_H__
static const char *_cudaGetErrorEnum(cudaError_t error) { return cudaGetErrorName(error); }
#endif

#ifdef CUBLAS_API_H_
// Not included here: this block stays out, under HIP as under CUDA.
static const char *_cudaGetErrorEnum(cublasStatus_t error) { return "cublas"; }
#endif

#ifdef CUSPARSEAPI
static const char *_cudaGetErrorEnum(cusparseStatus_t error) {
  switch (error) {
    case CUSPARSE_STATUS_SUCCESS:
      return "CUSPARSE_STATUS_SUCCESS";
    case CUSPARSE_STATUS_NOT_INITIALIZED:
      return "CUSPARSE_STATUS_NOT_INITIALIZED";
    default:
      return "<unknown>";
  }
}
#endif

template <typename T>
const char *describe(T result) {
  return _cudaGetErrorEnum(result);
}

const char *sparse_ready() {
  cusparseHandle_t handle;
  return describe(cusparseCreate(&handle));
}
