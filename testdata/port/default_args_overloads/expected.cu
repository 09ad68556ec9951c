// Two-stream pipeline: pitched staging buffers, a 3D lookup volume, events created through
// the C++ overloads of cuda_runtime.h and a CUDA 12 style graph instantiation.
#include <hip/hip_runtime.h>
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
  hipStream_t copy, compute;
  hipStreamCreateWithFlags(&copy, hipStreamNonBlocking);
  hipStreamCreateWithFlags(&compute, hipStreamNonBlocking);

  hipEvent_t uploaded, done;
  hipEventCreateWithFlags(&uploaded, hipEventDisableTiming);
  hipEventCreate(&done);

  float *src, *dst, *mapped, *sum;
  size_t pitch;
  hipMallocPitch((void**)&src, &pitch, w * sizeof(float), h);
  hipMallocPitch((void**)&dst, &pitch, w * sizeof(float), h);
  hipHostRegister(host, w * h * sizeof(float), hipHostRegisterMapped);
  hipHostGetDevicePointer((void**)&mapped, host, 0);
  hipMalloc(&sum, sizeof(float));

  hipMemcpy2DAsync(src, pitch, mapped, w * sizeof(float), w * sizeof(float), h,
                    hipMemcpyDeviceToDevice, copy);
  hipEventRecord(uploaded, copy);
  hipStreamWaitEvent(compute, uploaded, 0);

  hipGraph_t graph;
  hipGraphExec_t exec;
  hipStreamBeginCapture(compute, hipStreamCaptureModeGlobal);
  blur_rows<<<dim3((w + 127) / 128, h), 128, 0, compute>>>(dst, src, pitch, w, h);
  hipStreamEndCapture(compute, &graph);
  hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0);
  hipGraphLaunch(exec, compute);
  hipEventRecord(done, compute);
  hipStreamWaitEvent(copy, done, 0);

  hipArray_t volume;
  hipChannelFormatDesc desc = hipCreateChannelDesc<float>();
  hipMalloc3DArray(&volume, &desc, make_hipExtent(64, 64, 64), 0);

  int n = w * h;
  void *args[] = {&mapped, &sum, &n};
  hipLaunchCooperativeKernel((void *)grid_sum, dim3((n + 255) / 256), dim3(256), args, 0, 0);

  hipStreamSynchronize(copy);
  hipGraphExecDestroy(exec);
  hipGraphDestroy(graph);
  hipFreeArray(volume);
  hipFree(src);
  hipFree(dst);
  hipFree(sum);
  hipHostUnregister(host);
  hipEventDestroy(uploaded);
  hipEventDestroy(done);
  hipStreamDestroy(copy);
  hipStreamDestroy(compute);
  return 0;
}

hipError_t rebuild(hipGraphExec_t *exec, hipGraph_t graph, bool autofree) {
  if (autofree)
    return hipGraphInstantiateWithFlags(exec, graph, hipGraphInstantiateFlagAutoFreeOnLaunch);
  return hipGraphInstantiate(exec, graph, nullptr, nullptr, 0);
}
