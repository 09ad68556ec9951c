// A project that maps the runtime's names onto HIP's in its own ROCm arm (as cuBQL's
// math/common.h does): the names its checking macro pastes together are the project's to map.
#include <cstdio>
#if defined(__HIPCC__)
#  include <hip/hip_runtime.h>
using cudaError_t = hipError_t;
typedef hipStream_t cudaStream_t;
#  define cudaSuccess        hipSuccess
#  define cudaGetErrorString hipGetErrorString
#  define cudaMalloc         hipMalloc
#  define cudaFree           hipFree
#else
#  include <hip/hip_runtime.h>
#endif

static void check(hipError_t rc, const char *what) {
  if (rc != hipSuccess) printf("%s: %s\n", what, hipGetErrorString(rc));
}

// Every use forms a name the arm maps: PASS.
#define GPU_CALL(call) check(cuda##call, #call)
// The twin: a use forms `cudaMemset`, which the arm does not map: still REMEDIATION.
#define GPU_CALL_SET(call) check(cuda##call, #call)

void buffers(size_t n, hipStream_t stream) {
  (void)stream;
  float *p = nullptr;
  GPU_CALL(Malloc(&p, n * sizeof(float)));
  GPU_CALL_SET(Memset(p, 0, n * sizeof(float)));
  GPU_CALL(Free(p));
}
