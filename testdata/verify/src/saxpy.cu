// Valid HIP for ROCm 5.2 after translation.
#include <cstdio>
#include <cuda_runtime.h>
#include "scale.cuh"

__global__ void saxpy(int n, float a, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * scale_of(x[i]) + y[i];
}

int main() {
    const int n = 1024;
    float *x = nullptr, *y = nullptr;
    cudaMalloc(&x, n * sizeof(float));
    cudaMalloc(&y, n * sizeof(float));
    saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, x, y);
    cudaError_t err = cudaDeviceSynchronize();
    if (err != cudaSuccess) {
        std::printf("error: %s\n", cudaGetErrorString(err));
        return 1;
    }
    cudaFree(x);
    cudaFree(y);
    return 0;
}
