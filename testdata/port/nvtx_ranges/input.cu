#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

void step(int i) {
  nvtxRangePushA("step");
  nvtxMarkA("start");
  nvtxRangeId_t id = nvtxRangeStartA("copy");
  cudaDeviceSynchronize();
  nvtxRangeEnd(id);
  nvtxRangePop();
}
