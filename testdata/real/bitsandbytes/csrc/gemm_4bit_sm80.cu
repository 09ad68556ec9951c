// Source: https://github.com/bitsandbytes-foundation/bitsandbytes/blob/95f9af309d4d5793847169c39288dcd3fcbdf564/csrc/gemm_4bit_sm80.cu
// (lines 30-41). Licence: MIT, Copyright (c) Facebook, Inc. and its affiliates.
// Labels (`expect` comments) added by hipport. CMakeLists.txt lists this file only under if(BUILD_CUDA).
template <typename T>
__device__ __forceinline__ void mma_m16n8k16(FragC& accum, const uint32_t a[4], const uint32_t b[2]) {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) {
        // clang-format off
        asm volatile(  // expect-ok: built only by the CUDA arm of CMakeLists.txt; the HIP build compiles gemm_4bit_simt.cu instead
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
            "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
            : "+f"(accum.x[0]), "+f"(accum.x[1]), "+f"(accum.x[2]), "+f"(accum.x[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]),
              "r"(b[0]), "r"(b[1])
        );
    }
}
