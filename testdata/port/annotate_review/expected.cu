#include <hip/hip_runtime.h>

__device__ float warp_sum(float v) {
  // hipport HP104 [PASS/CORRECTNESS]: shuffle loop sized for 32 lanes (offsets 16…1): on 64-lane wavefronts each half is reduced separately, but the function's lanes are 32-lane logical warps (offsets 16…1) and `hipport port` passes width 32 to its shuffles, so each half of the wavefront reduces as one CUDA warp (safe rewrite, HP109: nothing to change)
  // hipport HP005 [PASS/CORRECTNESS]: `__shfl_down_sync` does not exist in ROCm 5.2: translated to `__shfl_down`; the dropped mask `0xffffffff` named every lane, as the mask-less form does
  // hipport HP109 [PASS/CORRECTNESS]: `__shfl_down_sync` in a function of 32-lane logical warps (offsets 16…1): width 32 on the shuffle, so each half of a 64-lane wavefront shuffles as one CUDA warp (safe rewrite, done by `hipport port`)
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o, 32);
  return v;
}

void legacy() {
  // hipport HP001 [REMEDIATION/BUILD]: `cudaDeviceFlushGPUDirectRDMAWrites` has no HIP equivalent (runtime API)
  // hipport HP001 [REMEDIATION/BUILD]: `cudaFlushGPUDirectRDMAWritesTargetCurrentDevice` has no HIP equivalent (runtime API)
  // hipport HP001 [REMEDIATION/BUILD]: `cudaFlushGPUDirectRDMAWritesToOwner` has no HIP equivalent (runtime API)
  cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                                     cudaFlushGPUDirectRDMAWritesToOwner);
}
