// cuda-samples helper_cuda.h / helper_cuda_drvapi.h style: an error-string overload for the
// runtime API's cudaError_t and one for the driver API's CUresult. HIP has one error type
// (hipError_t) for both, so after the port the two are one function defined twice; each copy
// is wrapped so the first one a unit compiles serves both. Driver helpers tested through cuda.h's
// include guard must survive the port too.
#define CUDA_DRIVER_API
#include <hip/hip_runtime.h>
#include <hip/hip_runtime.h>
#include <cstdio>
#include <cstdlib>

#ifdef HIP_INCLUDE_HIP_DRIVER_TYPES_H
#ifndef HIPPORT_ONCE_cudaGetErrorEnum_hipError_t
#define HIPPORT_ONCE_cudaGetErrorEnum_hipError_t
static const char *_cudaGetErrorEnum(hipError_t error) {
  return hipGetErrorName(error);
}
#endif  // HIPPORT_ONCE_cudaGetErrorEnum_hipError_t
#endif

#ifdef CUDA_DRIVER_API
// CUDA Driver API errors
#ifndef HIPPORT_ONCE_cudaGetErrorEnum_hipError_t
#define HIPPORT_ONCE_cudaGetErrorEnum_hipError_t
static const char *_cudaGetErrorEnum(hipError_t err) {
  static char unknown[] = "<unknown>";
  const char *ret = NULL;
  cuGetErrorString(err, &ret);
  return ret ? ret : unknown;
}
#endif  // HIPPORT_ONCE_cudaGetErrorEnum_hipError_t
#endif

template <typename T>
void check(T result, char const *const func, const char *const file, int const line) {
  if (result) {
    fprintf(stderr, "CUDA error at %s:%d code=%d(%s) \"%s\" \n", file, line,
            static_cast<unsigned int>(result), _cudaGetErrorEnum(result), func);
    exit(EXIT_FAILURE);
  }
}
#define checkCudaErrors(val) check((val), #val, __FILE__, __LINE__)

#ifdef HIP_INCLUDE_HIP_HIP_RUNTIME_H
inline hipDevice_t firstDeviceDRV() {
  hipDevice_t dev;
  checkCudaErrors(hipInit(0));
  checkCudaErrors(hipDeviceGet(&dev, 0));
  return dev;
}
#endif

struct Stream {
  hipStream_t s;
#ifndef HIPPORT_ONCE_Stream_attach_hipStream_t
#define HIPPORT_ONCE_Stream_attach_hipStream_t
  void attach(hipStream_t t) { s = t; }
#endif  // HIPPORT_ONCE_Stream_attach_hipStream_t
#ifndef HIPPORT_ONCE_Stream_attach_hipStream_t
#define HIPPORT_ONCE_Stream_attach_hipStream_t
  void attach(hipStream_t t) { s = t; }
#endif  // HIPPORT_ONCE_Stream_attach_hipStream_t
};

int main() {
  checkCudaErrors(hipSetDevice(0));
  hipDevice_t dev = firstDeviceDRV();
  Stream st;
  hipStream_t s;
  checkCudaErrors(hipStreamCreate(&s));
  st.attach(s);
  return dev;
}
