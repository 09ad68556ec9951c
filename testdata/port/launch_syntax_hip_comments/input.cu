#include <cuda_runtime.h>

__global__ void axpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += a * x[i];
}

void run(float a, const float *x, float *y, int n, cudaStream_t s) {
  // A trailing line comment in the arguments must keep the closing parenthesis.
  axpy<<<(n + 255) / 256, 256>>>(a, x, y,
                                 n  // element count
  );
  // A comment after the configuration and one between >>> and ( are kept.
  axpy<<<dim3((n + 255) / 256), dim3(256),  // already dim3: not wrapped again
         0, s>>> /* same stream */ (a, x, y, n);
  // Preprocessor lines inside a launch: the launch stays as it is.
  axpy<<<1, 64>>>(a, x,
#ifdef IN_PLACE
                  (float *)x,
#else
                  y,
#endif
                  n);
}
