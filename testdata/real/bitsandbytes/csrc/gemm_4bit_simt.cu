// Source: https://github.com/bitsandbytes-foundation/bitsandbytes/blob/95f9af309d4d5793847169c39288dcd3fcbdf564/csrc/gemm_4bit_simt.cu
// (lines 1-2 and 134-140, inside the kernel body). Licence: MIT, Copyright (c) Facebook, Inc. and
// its affiliates. Labels (`expect` comments) added by hipport. CMakeLists.txt builds this file for HIP too.
// The excerpt exchanges nothing across lanes, so its 32-lane ids keep their meaning (PASS);
// in the full kernel the lane ids meet a reduction from 16 that `hipport port` gives width 32.
// SIMT 4-bit GEMM kernel. Compiles for all CUDA architectures (sm60+) and for
// ROCm/HIP (RDNA wave32 and CDNA wave64).
__global__ void gemm_4bit_simt_excerpt(const int WARPS_PER_BLOCK, const int M_BLOCK) {
    constexpr int NUM_VAL = 32;            // 4-bit elements per lane per outer K step
    constexpr int K_STRIDE = 32 * NUM_VAL; // = 1024 K elements per outer step

    const int lane_id = threadIdx.x & 31;  // expect: HP102 warp-size PASS
    const int warp_id = threadIdx.x >> 5;  // expect: HP102 warp-size PASS
    const int warp_n = blockIdx.x * WARPS_PER_BLOCK + warp_id;
    const int base_m = blockIdx.y * M_BLOCK;
}
