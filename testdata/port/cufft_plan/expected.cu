#include <hipfft/hipfft.h>
#include <hip/hip_runtime.h>

int fft(hipfftComplex *data, int nx, int batch) {
  hipfftHandle plan;
  if (hipfftPlan1d(&plan, nx, HIPFFT_C2C, batch) != HIPFFT_SUCCESS) return 1;
  hipfftExecC2C(plan, data, data, HIPFFT_FORWARD);
  hipfftExecC2C(plan, data, data, HIPFFT_BACKWARD);
  hipDeviceSynchronize();
  hipfftDestroy(plan);
  return 0;
}
