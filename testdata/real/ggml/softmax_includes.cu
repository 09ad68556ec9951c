// Source: https://github.com/ggml-org/ggml/blob/d99724f2b141fed9e1a9f402213506c081433465/src/ggml-cuda/softmax.cu (lines 1-12,78-83,118-122).
// Licence: MIT, Copyright (c) 2023-2026 The ggml authors. Labels (`expect` comments) added by hipport, by reading the code.
#include "common.cuh"
#include "ggml.h"
#include "softmax.cuh"

#ifdef GGML_USE_HIP
#include <hip/hip_cooperative_groups.h>  // expect-ok: the project's own HIP branch
#else
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>  // expect-ok: in the CUDA-only branch of the project's GGML_USE_HIP switch
#endif // GGML_USE_HIP

#include <cstdint>
    const float slope = get_alibi_slope(p.max_bias, i02, p.n_head_log2, p.m0, p.m1);

    extern __shared__ float data_soft_max_f32[];
    float * buf_iw = data_soft_max_f32; // shared memory buffer for inter-warp communication  // expect-ok: offset by the WARP_SIZE define (one fact, at the define)
    // shared memory buffer to cache values between iterations:
    float * vals = use_shared ? buf_iw + WARP_SIZE : dst;
  // expect-ok: compares with the WARP_SIZE define (one fact, at the define)
    if (block_size > WARP_SIZE) {
        // sync is needed as we reuse buf_iw across block_reduce invocations, see #26385
        // for block_size <= WARP_SIZE, block_reduce does not access buf_iw
        __syncthreads();
