// A device-pass test whose arm reads `__CUDA_ARCH__`'s value in code (after Rodinia 3.1,
// cuda/dwt2d/dwt_cuda/transform_buffer.h, University of Virginia licence, BSD-style; reduced).
// HIP defines no `__CUDA_ARCH__`: widened with `__HIP_DEVICE_COMPILE__`, HIP's device pass would
// meet an undeclared identifier in the enum, so `port` leaves the test as written and HP401
// says why. The second test has no value read in its arm and is widened (its negative twin).
#include <hip/hip_runtime.h>

template <int SIZE_X, int SIZE_Y>
class TransformBuffer {
 public:
  enum { VERTICAL_STRIDE = SIZE_X / 2 };

 private:
  enum {
#ifdef __CUDA_ARCH__
    SHM_BANKS = ((__CUDA_ARCH__ >= 200) ? 32 : 16),
#else
    SHM_BANKS = 16,  // for host code only - can be anything, won't be used
#endif
    BUFFER_SIZE = VERTICAL_STRIDE * SIZE_Y,
    PADDING = SHM_BANKS - ((BUFFER_SIZE + SHM_BANKS / 2) % SHM_BANKS)
  };

 public:
  float data[2 * BUFFER_SIZE + PADDING];

  __host__ __device__ int where() const {
#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
    return 1;
#else
    return 0;
#endif
  }
};

__global__ void k(int* out) {
  __shared__ TransformBuffer<64, 8> buf;
  buf.data[threadIdx.x] = 0.0f;
  out[threadIdx.x] = buf.where();
}
