// Matrix transpose through shared memory: 32x32 tiles with padding. No warp assumptions.
#include <cuda_runtime.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeCoalesced(float* odata, const float* idata, int width, int height) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x;
  int y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += BLOCK_ROWS)
    if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * width + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += BLOCK_ROWS)
    if (x < height && y + j < width) odata[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

int main() {
  int w = 1024, h = 1024;
  float *a, *b;
  cudaMalloc(&a, w * h * sizeof(float));
  cudaMalloc(&b, w * h * sizeof(float));
  dim3 block(32, BLOCK_ROWS);
  dim3 grid(w / 32, h / 32);
  transposeCoalesced<<<grid, block>>>(b, a, w, h);
  int aligned = (w % 32 == 0) && (h & 31) == 0;
  size_t chunks = (w * sizeof(float)) / 32;
  cudaDeviceSynchronize();
  cudaFree(a);
  cudaFree(b);
  return aligned + (int)chunks;
}
