// Device features that behave differently (or do not exist) on AMD GPUs.
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cooperative_groups.h>
#include <ctime>
#include <cstdio>

namespace cg = cooperative_groups;

texture<float, 1, cudaReadModeElementType> texIn;  // expect: device-feature

__global__ void child(int* data) { data[threadIdx.x] += 1; }

__global__ void parent(int* data) {
  if (threadIdx.x == 0) {
    child<<<1, 64>>>(data);  // expect: device-feature
  }
}

__global__ void __launch_bounds__(256, 4) timed(float* out, long long* cycles) {  // expect: device-feature
  long long start = clock64();  // expect: device-feature
  float v = tex1Dfetch(texIn, threadIdx.x);
  out[threadIdx.x] = v * 2.0f;
  cycles[threadIdx.x] = clock64() - start;  // expect: device-feature
}

__global__ void __launch_bounds__(128) bounded(float* out) { out[threadIdx.x] = 1.0f; }

__global__ void grid_sum(float* data, float* total, int n) {
  cg::grid_group grid = cg::this_grid();  // expect: device-feature
  int i = grid.thread_rank();
  if (i < n) atomicAdd(total, data[i]);  // expect: device-feature
  grid.sync();
}

__global__ void publish(int* flag, float* result) {
  result[0] = 42.0f;
  __threadfence_system();  // expect: device-feature
  atomicAdd_system(flag, 1);  // expect: device-feature
}

__global__ void half_ops(__half2* h, float* out) {
  __half2 v = h[threadIdx.x];
  __half lo = v.x;  // a `__half` member from ROCm 6.0 on (HP710 fires only before 6.0)
  out[threadIdx.x] = __half2float(lo) + __half2float(__high2half(v));
}

__global__ void quantize(const float* in, __nv_fp8_e4m3* q, float scale) {  // expect: device-feature
  q[threadIdx.x] = __nv_fp8_e4m3(in[threadIdx.x] * scale);  // expect: device-feature
}

int main() {
  clock_t t0 = clock();
  float *data, *total;
  int* flag;
  cudaMallocManaged(&data, 1024 * sizeof(float));
  cudaMallocManaged(&total, sizeof(float));
  cudaHostAlloc((void**)&flag, sizeof(int), cudaHostAllocMapped);
  int dev = 0;
  cudaMemAdvise(data, 1024 * sizeof(float), cudaMemAdviseSetReadMostly, dev);  // expect: device-feature
  cudaMemPrefetchAsync(data, 1024 * sizeof(float), dev, 0);  // expect: device-feature
  int n = 1024;
  void* args[] = {&data, &total, &n};
  cudaLaunchCooperativeKernel((void*)grid_sum, dim3(4), dim3(256), args);  // expect: device-feature
  cudaDeviceSynchronize();
  printf("%f %ld\n", *total, (long)(clock() - t0));
  return 0;
}
