#include <cstdio>
#include "common.cuh"
#include "kernels.inc"

int main() {
    float *d = nullptr;
    if (cudaMalloc(&d, N * sizeof(float)) != cudaSuccess) {
        std::printf("no device\n");
        return 0;
    }
    cudaMemset(d, 0, N * sizeof(float));
    scale<<<1, N>>>(d, 2.0f);
    cudaDeviceSynchronize();
    cudaFree(d);
    std::printf("ok\n");
    return 0;
}
