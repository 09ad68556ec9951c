#include <cstdio>
#include <hip/hip_runtime.h>

__global__ void vectorAdd(const float *A, const float *B, float *C, int numElements) {
  int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i < numElements) {
    C[i] = A[i] + B[i] + 0.0f;
  }
}

int main(void) {
  hipError_t err = hipSuccess;
  int numElements = 50000;
  size_t size = numElements * sizeof(float);
  float *h_A = (float *)malloc(size);
  float *d_A = NULL, *d_B = NULL, *d_C = NULL;
  err = hipMalloc((void **)&d_A, size);
  if (err != hipSuccess) {
    fprintf(stderr, "Failed to allocate device vector A (error code %s)!\n", hipGetErrorString(err));
    exit(EXIT_FAILURE);
  }
  hipMalloc((void **)&d_B, size);
  hipMalloc((void **)&d_C, size);
  err = hipMemcpy(d_A, h_A, size, hipMemcpyHostToDevice);
  int threadsPerBlock = 256;
  int blocksPerGrid = (numElements + threadsPerBlock - 1) / threadsPerBlock;
  vectorAdd<<<blocksPerGrid, threadsPerBlock>>>(d_A, d_B, d_C, numElements);
  err = hipGetLastError();
  hipMemcpy(h_A, d_C, size, hipMemcpyDeviceToHost);
  hipFree(d_A);
  hipFree(d_B);
  hipFree(d_C);
  free(h_A);
  hipDeviceReset();
  return 0;
}
