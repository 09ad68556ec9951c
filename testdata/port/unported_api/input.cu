#include <cuda_runtime.h>

void flush_rdma() {
  cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                                     cudaFlushGPUDirectRDMAWritesToOwner);
  cudaDeviceSynchronize();
}
