#include <hip/hip_runtime.h>

__device__ float warp_sum(float v) {
  // hipport HP104 [REMEDIATION/CORRECTNESS]: shuffle loop sized for 32 lanes (offsets 16…1): on 64-lane wavefronts each half is reduced separately
  // hipport HP005 [PASS/CORRECTNESS]: `__shfl_down_sync` does not exist in ROCm 5.2: translated to `__shfl_down`; the dropped mask `0xffffffff` named every lane, as the mask-less form does
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);
  return v;
}

void legacy() {
  // hipport HP001 [REMEDIATION/BUILD]: `cudaDeviceFlushGPUDirectRDMAWrites` has no HIP equivalent (runtime API)
  // hipport HP001 [REMEDIATION/BUILD]: `cudaFlushGPUDirectRDMAWritesTargetCurrentDevice` has no HIP equivalent (runtime API)
  // hipport HP001 [REMEDIATION/BUILD]: `cudaFlushGPUDirectRDMAWritesToOwner` has no HIP equivalent (runtime API)
  cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                                     cudaFlushGPUDirectRDMAWritesToOwner);
}
