// Row softmax, one warp per row; a reviewed line is suppressed in code.
#include <cuda_runtime.h>
#include <cfloat>

__global__ void softmax_rows(const float* in, float* out, int rows, int cols) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;  // expect: warp-size
  // hipport: allow(HP102) reviewed: this kernel is only built for wave32 RDNA targets
  int lane = threadIdx.x % 32;
  if (warp >= rows) return;
  const float* row = in + (size_t)warp * cols;
  float m = -FLT_MAX;
  for (int c = lane; c < cols; c += warpSize) m = fmaxf(m, row[c]);
  for (int o = warpSize / 2; o > 0; o /= 2) m = fmaxf(m, __shfl_xor(m, o));  // expect: warp-size
  float sum = 0.0f;
  for (int c = lane; c < cols; c += warpSize) sum += __expf(row[c] - m);
  for (int o = warpSize / 2; o > 0; o /= 2) sum += __shfl_xor(sum, o);  // expect: warp-size
  for (int c = lane; c < cols; c += warpSize) out[(size_t)warp * cols + c] = __expf(row[c] - m) / sum;
}

int main() {
  int rows = 4096, cols = 1000;
  float *in, *out;
  cudaMalloc(&in, rows * cols * sizeof(float));
  cudaMalloc(&out, rows * cols * sizeof(float));
  int threads = 256;
  int blocks = (rows * 32 + threads - 1) / threads;
  softmax_rows<<<blocks, threads>>>(in, out, rows, cols);
  cudaDeviceSynchronize();
  cudaFree(in);
  cudaFree(out);
  return 0;
}
