// Two-stream pipeline: pitched staging buffers, a 3D lookup volume, events created through
// the C++ overloads of cuda_runtime.h and a CUDA 12 style graph instantiation.
#include <cuda_runtime.h>
#include <cstdio>

__global__ void blur_rows(float *dst, const float *src, size_t pitch, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y;
  if (x <= 0 || x >= w - 1 || y >= h) return;
  const float *row = (const float *)((const char *)src + y * pitch);
  float *out = (float *)((char *)dst + y * pitch);
  out[x] = 0.25f * row[x - 1] + 0.5f * row[x] + 0.25f * row[x + 1];
}

__global__ void grid_sum(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, in[i]);
}

int run_pipeline(int w, int h, float *host) {
  cudaStream_t copy, compute;
  cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking);
  cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);

  cudaEvent_t uploaded, done;
  cudaEventCreate(&uploaded, cudaEventDisableTiming);
  cudaEventCreate(&done);

  float *src, *dst, *mapped, *sum;
  size_t pitch;
  cudaMallocPitch(&src, &pitch, w * sizeof(float), h);
  cudaMallocPitch(&dst, &pitch, w * sizeof(float), h);
  cudaHostRegister(host, w * h * sizeof(float), cudaHostRegisterMapped);
  cudaHostGetDevicePointer(&mapped, host, 0);
  cudaMalloc(&sum, sizeof(float));

  cudaMemcpy2DAsync(src, pitch, mapped, w * sizeof(float), w * sizeof(float), h,
                    cudaMemcpyDeviceToDevice, copy);
  cudaEventRecord(uploaded, copy);
  cudaStreamWaitEvent(compute, uploaded);

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  cudaStreamBeginCapture(compute, cudaStreamCaptureModeGlobal);
  blur_rows<<<dim3((w + 127) / 128, h), 128, 0, compute>>>(dst, src, pitch, w, h);
  cudaStreamEndCapture(compute, &graph);
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, compute);
  cudaEventRecord(done, compute);
  cudaStreamWaitEvent(copy, done, 0);

  cudaArray_t volume;
  cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
  cudaMalloc3DArray(&volume, &desc, make_cudaExtent(64, 64, 64));

  int n = w * h;
  void *args[] = {&mapped, &sum, &n};
  cudaLaunchCooperativeKernel((void *)grid_sum, dim3((n + 255) / 256), dim3(256), args);

  cudaStreamSynchronize(copy);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFreeArray(volume);
  cudaFree(src);
  cudaFree(dst);
  cudaFree(sum);
  cudaHostUnregister(host);
  cudaEventDestroy(uploaded);
  cudaEventDestroy(done);
  cudaStreamDestroy(copy);
  cudaStreamDestroy(compute);
  return 0;
}

cudaError_t rebuild(cudaGraphExec_t *exec, cudaGraph_t graph, bool autofree) {
  if (autofree)
    return cudaGraphInstantiate(exec, graph, cudaGraphInstantiateFlagAutoFreeOnLaunch);
  return cudaGraphInstantiate(exec, graph);
}
