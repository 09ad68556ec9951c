// cuda-samples helper_cuda.h / helper_cuda_drvapi.h style: an error-string overload for the
// runtime API's cudaError_t and one for the driver API's CUresult. HIP has one error type
// (hipError_t) for both, so after the port the two are one function defined twice; each copy
// is wrapped so the first one a unit compiles serves both. Driver helpers tested through cuda.h's
// include guard must survive the port too.
#define CUDA_DRIVER_API
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#ifdef __DRIVER_TYPES_H__
static const char *_cudaGetErrorEnum(cudaError_t error) {
  return cudaGetErrorName(error);
}
#endif

#ifdef CUDA_DRIVER_API
// CUDA Driver API errors
static const char *_cudaGetErrorEnum(CUresult err) {
  static char unknown[] = "<unknown>";
  const char *ret = NULL;
  cuGetErrorString(err, &ret);
  return ret ? ret : unknown;
}
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

#ifdef __cuda_cuda_h__
inline CUdevice firstDeviceDRV() {
  CUdevice dev;
  checkCudaErrors(cuInit(0));
  checkCudaErrors(cuDeviceGet(&dev, 0));
  return dev;
}
#endif

struct Stream {
  cudaStream_t s;
  void attach(cudaStream_t t) { s = t; }
  void attach(CUstream t) { s = t; }
};

int main() {
  checkCudaErrors(cudaSetDevice(0));
  CUdevice dev = firstDeviceDRV();
  Stream st;
  cudaStream_t s;
  checkCudaErrors(cudaStreamCreate(&s));
  st.attach(s);
  return dev;
}
