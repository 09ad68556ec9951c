#include <hip/hip_runtime.h>

void flush_rdma() {
  cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                                     cudaFlushGPUDirectRDMAWritesToOwner);
  hipDeviceSynchronize();
}
