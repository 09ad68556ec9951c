// Source: https://github.com/weigao95/surfelwarp/blob/18f83ca522516f1531e7942132c489c066911419/common/device_intrinsics.h (lines 5-36, the float overloads).
// Licence: BSD-3-Clause, Copyright (c) 2018, Wei Gao. Labels (`expect` comments) added by hipport, by reading the code.
#pragma once

#include <vector_functions.h>

namespace surfelwarp {

    __device__ __forceinline__
    float shfl_add(float x, int offset)
    {
        float result = 0;

        asm volatile (  // expect: HP201 inline-asm REMEDIATION
        "{.reg .f32 r0;"
                ".reg .pred p;"
                "shfl.up.b32 r0|p, %1, %2, 0;"
                "@p add.f32 r0, r0, %1;"
                "mov.f32 %0, r0;}"
        : "=f"(result) : "f"(x), "r"(offset));

        return result;
    }

    __device__ __forceinline__
    float warp_scan(float data)
    {
        data = shfl_add(data, 1);
        data = shfl_add(data, 2);
        data = shfl_add(data, 4);
        data = shfl_add(data, 8);
        data = shfl_add(data, 16);
        return data;
    }
}
