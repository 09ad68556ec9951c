#include <cuda.h>
#include <cstdio>

int run_module(const char *path) {
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction fn;
  CUdeviceptr buf;
  cuInit(0);
  cuDeviceGet(&dev, 0);
  cuCtxCreate(&ctx, 0, dev);
  if (cuModuleLoad(&mod, path) != CUDA_SUCCESS) {
    printf("cuModuleLoad failed\n");
    return 1;
  }
  cuModuleGetFunction(&fn, mod, "kernel");
  cuMemAlloc(&buf, 1024);
  void *args[] = {&buf};
  cuLaunchKernel(fn, 1, 1, 1, 64, 1, 1, 0, 0, args, nullptr);
  cuCtxSynchronize();
  cuMemFree(buf);
  cuModuleUnload(mod);
  cuCtxDestroy(ctx);
  return 0;
}
