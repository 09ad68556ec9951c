// A warp reduction as CUDA code often writes it (fixture for the HTML review page).
#include <cuda_runtime.h>
#include <cstdio>

__global__ void reduce(const float* in, float* out, int n) {
    int lane = threadIdx.x % 32;
    float v = threadIdx.x < n ? in[threadIdx.x] : 0.0f;
    for (int offset = 16; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffff, v, offset);
    if (lane == 0) atomicAdd(out, v);
}

int main() {
    float *d_in, *d_out;
    cudaMalloc(&d_in, 1024 * sizeof(float));
    cudaMalloc(&d_out, sizeof(float));
    reduce<<<1, 1024>>>(d_in, d_out, 1024);
    cudaDeviceSynchronize();
    cudaFree(d_in);
    cudaFree(d_out);
    return 0;
}
