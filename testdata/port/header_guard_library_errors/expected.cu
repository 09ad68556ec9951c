// cuda-samples helper_cuda.h style: one error-string overload per library, each compiled only
// when that library's header was included, tested through the header's own macros. A unit that
// checks a cuSPARSE status needs the cuSPARSE overload to survive the port.
#include <hip/hip_runtime.h>
#include <hipsparse/hipsparse.h>

#ifdef HIP_INCLUDE_HIP_DRIVER_TYPES_H
static const char *_cudaGetErrorEnum(hipError_t error) { return hipGetErrorName(error); }
#endif

#ifdef HIPBLAS_H
// Not included here: this block stays out, under HIP as under CUDA.
static const char *_cudaGetErrorEnum(hipblasStatus_t error) { return "cublas"; }
#endif

#ifdef HIPSPARSE_EXPORT
static const char *_cudaGetErrorEnum(hipsparseStatus_t error) {
  switch (error) {
    case HIPSPARSE_STATUS_SUCCESS:
      return "CUSPARSE_STATUS_SUCCESS";
    case HIPSPARSE_STATUS_NOT_INITIALIZED:
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
  hipsparseHandle_t handle;
  return describe(hipsparseCreate(&handle));
}
