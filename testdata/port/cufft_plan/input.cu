#include <cufft.h>
#include <cuda_runtime.h>

int fft(cufftComplex *data, int nx, int batch) {
  cufftHandle plan;
  if (cufftPlan1d(&plan, nx, CUFFT_C2C, batch) != CUFFT_SUCCESS) return 1;
  cufftExecC2C(plan, data, data, CUFFT_FORWARD);
  cufftExecC2C(plan, data, data, CUFFT_INVERSE);
  cudaDeviceSynchronize();
  cufftDestroy(plan);
  return 0;
}
