// id: sparse_error_string
// names: cusparseGetErrorString=hipsparseGetErrorString cusparseGetErrorName=hipsparseGetErrorName
// rocm: 5.0.0 5.7.1
// guard: HIP_VERSION < 60000000
// exact: no
// hip-only: yes
// requires: cuda:cusparse.h
// source: https://github.com/ROCm/hipSPARSE/blob/rocm-6.0.0/library/include/hipsparse.h (hipsparseGetErrorName/String appear in 6.0)
// source: https://github.com/ROCm/hipSPARSE/blob/rocm-5.2.0/library/include/hipsparse.h (hipsparseStatus_t values)
// semantics: hipSPARSE 6.0 returns rocSPARSE's name and description for the status; this switch returns the hipSPARSE enumerator name, and a short description, for the status values of the target's hipsparseStatus_t. Only the text differs: code that compares the strings must be checked.
// test: #include <cstdio>
// test: void f(hipsparseStatus_t s) { std::puts(hipsparseGetErrorString(s)); std::puts(hipsparseGetErrorName(s)); }
// ---
static inline const char* hipsparseGetErrorName(hipsparseStatus_t status) {
  switch (status) {
  case HIPSPARSE_STATUS_SUCCESS: return "HIPSPARSE_STATUS_SUCCESS";
  case HIPSPARSE_STATUS_NOT_INITIALIZED: return "HIPSPARSE_STATUS_NOT_INITIALIZED";
  case HIPSPARSE_STATUS_ALLOC_FAILED: return "HIPSPARSE_STATUS_ALLOC_FAILED";
  case HIPSPARSE_STATUS_INVALID_VALUE: return "HIPSPARSE_STATUS_INVALID_VALUE";
  case HIPSPARSE_STATUS_ARCH_MISMATCH: return "HIPSPARSE_STATUS_ARCH_MISMATCH";
  case HIPSPARSE_STATUS_MAPPING_ERROR: return "HIPSPARSE_STATUS_MAPPING_ERROR";
  case HIPSPARSE_STATUS_EXECUTION_FAILED: return "HIPSPARSE_STATUS_EXECUTION_FAILED";
  case HIPSPARSE_STATUS_INTERNAL_ERROR: return "HIPSPARSE_STATUS_INTERNAL_ERROR";
  case HIPSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "HIPSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED";
  case HIPSPARSE_STATUS_ZERO_PIVOT: return "HIPSPARSE_STATUS_ZERO_PIVOT";
  case HIPSPARSE_STATUS_NOT_SUPPORTED: return "HIPSPARSE_STATUS_NOT_SUPPORTED";
  case HIPSPARSE_STATUS_INSUFFICIENT_RESOURCES: return "HIPSPARSE_STATUS_INSUFFICIENT_RESOURCES";
  default: return "Unrecognized status code";
  }
}
static inline const char* hipsparseGetErrorString(hipsparseStatus_t status) {
  switch (status) {
  case HIPSPARSE_STATUS_SUCCESS: return "success";
  case HIPSPARSE_STATUS_NOT_INITIALIZED: return "hipSPARSE was not initialized";
  case HIPSPARSE_STATUS_ALLOC_FAILED: return "resource allocation failed";
  case HIPSPARSE_STATUS_INVALID_VALUE: return "unsupported value passed to the function";
  case HIPSPARSE_STATUS_ARCH_MISMATCH: return "device architecture not supported";
  case HIPSPARSE_STATUS_MAPPING_ERROR: return "access to GPU memory space failed";
  case HIPSPARSE_STATUS_EXECUTION_FAILED: return "GPU program failed to execute";
  case HIPSPARSE_STATUS_INTERNAL_ERROR: return "an internal hipSPARSE operation failed";
  case HIPSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED: return "matrix type not supported";
  case HIPSPARSE_STATUS_ZERO_PIVOT: return "zero pivot was computed";
  case HIPSPARSE_STATUS_NOT_SUPPORTED: return "operation is not supported";
  case HIPSPARSE_STATUS_INSUFFICIENT_RESOURCES: return "resources are insufficient";
  default: return "Unrecognized status code";
  }
}
