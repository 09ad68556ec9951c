// Source: https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/csrc/layer_norm/ln_utils.cuh (lines 1-14,118-142,172-178,374-379).
// Licence: BSD-3-Clause, Copyright (c) 2022, Tri Dao and the respective contributors. Labels (`expect` comments) added by hipport, by reading the code.
#pragma once

#include <cassert>

#include <cuda_bf16.h>  // expect-ok: translated to the HIP bf16 header
#include <cuda_fp16.h>

#include "ln.h"

////////////////////////////////////////////////////////////////////////////////////////////////////

constexpr uint32_t THREADS_PER_WARP = 32;  // expect: HP101 warp-size REMEDIATION

////////////////////////////////////////////////////////////////////////////////////////////////////
    }
};

////////////////////////////////////////////////////////////////////////////////////////////////////

template<typename T>
inline __device__ T warp_shuffle_xor(const T & x, uint32_t idx){
    return __shfl_xor_sync(uint32_t(-1), x, idx);  // expect: HP006 warp-size PASS; HP007 build-system REMEDIATION
}

template<>
inline __device__ float2 warp_shuffle_xor<float2>(const float2 & x, uint32_t idx){
    return { warp_shuffle_xor(x.x, idx), warp_shuffle_xor(x.y, idx) };
}

template<typename T>
inline __device__ T warp_shuffle_down(const T & x, uint32_t idx){
    return __shfl_down_sync(uint32_t(-1), x, idx);  // expect: HP006 warp-size PASS
}

template<>
inline __device__ float2 warp_shuffle_down<float2>(const float2 & x, uint32_t idx){
    return { warp_shuffle_down(x.x, idx), warp_shuffle_down(x.y, idx) };
}

};

template<>
struct BytesToType<32> {  // expect-ok: a 32-byte type, not a warp
    using Type = uint8;
    static_assert(sizeof(Type) == 32);  // expect-ok: 32 bytes
};
    inline __device__ void spin_wait_(int *barrier, int step, int expected) {
        asm volatile("red.release.gpu.global.add.s32 [%0], %1;" ::"l"(barrier), "r"(step));  // expect: HP201 inline-asm REMEDIATION
        for( int found = -1; found != expected; ) {
            asm volatile("ld.global.acquire.gpu.b32 %0, [%1];" : "=r"(found) : "l"(barrier));  // expect: HP201 inline-asm PASS
        }
    }
