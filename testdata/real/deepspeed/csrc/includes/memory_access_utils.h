// Source: https://github.com/microsoft/DeepSpeed/blob/38327e07f6cd39b63418f60cedd1651b0be3e7c3/csrc/includes/memory_access_utils.h (lines 6-9 and 82-106).
// Licence: Apache-2.0, Copyright (c) Microsoft Corporation. Labels (`expect` comments) added by hipport.
// The inline PTX sits behind PTX_AVAILABLE, which ds_kernel_utils.h defines only when not building for HIP:
// HIP compiles the portable #else arms.
#pragma once

#include <cuda.h>
#include "ds_kernel_utils.h"

__device__ __forceinline__ uint32_t lane_id()
{
#ifdef PTX_AVAILABLE
    unsigned int lane_id;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane_id));  // expect-ok: PTX behind a macro only the CUDA side defines
    return lane_id;
#else
    return threadIdx.x & (warpSize - 1);  // Portable
#endif
}

/////////// Load Global ///////////
template <>
__device__ __forceinline__ void load_global<16>(void* dst, const void* src)
{
    uint4* data = reinterpret_cast<uint4*>(dst);
#ifdef PTX_AVAILABLE
    asm volatile("ld.global.ca.v4.u32 {%0, %1, %2, %3}, [%4];\n"  // expect-ok: the HIP build compiles the #else
                 : "=r"(data[0].x), "=r"(data[0].y), "=r"(data[0].z), "=r"(data[0].w)
                 : "l"(src));
#else
    const uint4* src_cast = reinterpret_cast<const uint4*>(src);
    data[0] = src_cast[0];
#endif
}
