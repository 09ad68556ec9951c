#include <hip/hip_runtime.h>
#include <cstdio>

int run_module(const char *path) {
  hipDevice_t dev;
  hipCtx_t ctx;
  hipModule_t mod;
  hipFunction_t fn;
  hipDeviceptr_t buf;
  hipInit(0);
  hipDeviceGet(&dev, 0);
  hipCtxCreate(&ctx, 0, dev);
  if (hipModuleLoad(&mod, path) != hipSuccess) {
    printf("cuModuleLoad failed\n");
    return 1;
  }
  hipModuleGetFunction(&fn, mod, "kernel");
  hipMalloc(&buf, 1024);
  void *args[] = {&buf};
  hipModuleLaunchKernel(fn, 1, 1, 1, 64, 1, 1, 0, 0, args, nullptr);
  hipCtxSynchronize();
  hipFree(buf);
  hipModuleUnload(mod);
  hipCtxDestroy(ctx);
  return 0;
}
