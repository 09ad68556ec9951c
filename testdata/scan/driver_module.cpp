// Loading a PTX module through the driver API and launching a kernel from it.
#include <cuda.h>
#include <cstdio>
#include <cstring>

#define CHECK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { printf("error %d\n", r); return 1; } } while (0)

int main() {
  CUdevice dev;
  CUcontext ctx;
  CUmodule mod;
  CUfunction fn;
  CHECK(cuInit(0));
  CHECK(cuDeviceGet(&dev, 0));
  CHECK(cuCtxCreate(&ctx, 0, dev));  // expect: driver-api
  CHECK(cuModuleLoad(&mod, "vector_add.ptx"));  // expect: driver-api
  CHECK(cuModuleGetFunction(&fn, mod, "vector_add"));

  CUjit_option options[2];  // expect: driver-api
  void* values[2];
  char log[4096];
  options[0] = CU_JIT_ERROR_LOG_BUFFER;  // expect: driver-api
  values[0] = log;
  options[1] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES;  // expect: driver-api
  values[1] = (void*)sizeof(log);
  CUlinkState link;
  CHECK(cuLinkCreate(2, options, values, &link));  // expect: driver-api
  const char* ptx = "// ptx";
  CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void*)ptx, strlen(ptx) + 1, "k.ptx", 0, 0, 0));  // expect: driver-api
  void* cubin;
  size_t cubin_size;
  CHECK(cuLinkComplete(link, &cubin, &cubin_size));  // expect: driver-api
  CUmodule linked;
  CHECK(cuModuleLoadData(&linked, cubin));  // expect: driver-api
  CHECK(cuLinkDestroy(link));  // expect: driver-api

  const int n = 1024;
  CUdeviceptr d_a, d_b;
  CHECK(cuMemAlloc(&d_a, 2 * n * sizeof(float)));
  d_b = d_a + n * sizeof(float);  // expect: driver-api
  void* args[] = {&d_a, &d_b};
  CHECK(cuLaunchKernel(fn, n / 256, 1, 1, 256, 1, 1, 0, 0, args, 0));
  CHECK(cuCtxSynchronize());
  CHECK(cuMemFree(d_a));
  CHECK(cuCtxDestroy(ctx));  // expect: driver-api
  return 0;
}
