// Source: https://github.com/ggml-org/ggml/blob/d99724f2b141fed9e1a9f402213506c081433465/src/ggml-cuda/dequantize.cuh (lines 124-142; the closing brace is added).
// Licence: MIT, Copyright (c) 2023-2026 The ggml authors. Labels (`expect` comments) added by hipport, by reading the code (ggml's HIP build compiles it unchanged).
// Each call dequantizes one super-block of QK_K values into y using the
// thread layout of the caller: 32 threads for q4_K, 64 threads otherwise.

template<typename dst_t>
static __device__ __forceinline__ void dequantize_q2_K(const void * vx, const int64_t ib, dst_t * yy, const int tid) {
    const block_q2_K * x = (const block_q2_K *) vx;

    const int64_t n   = tid/32;  // expect-ok: splits the caller's threads over the super-block's data (no warp-level work here)
    const int64_t l   = tid - 32*n;  // expect-ok: an element index within a 32-value group, not a lane
    const int64_t is  = 8*n + l/16;

    const uint8_t q = x[ib].qs[32*n + l];  // expect-ok: data layout of block_q2_K
    dst_t * y = yy + 128*n;

    float dall = __low2half(x[ib].dm);
    float dmin = __high2half(x[ib].dm);
    y[l+ 0] = ggml_cuda_cast<dst_t>(dall * (x[ib].scales[is+0] & 0xF) * ((q >> 0) & 3) - dmin * (x[ib].scales[is+0] >> 4));
    y[l+32] = ggml_cuda_cast<dst_t>(dall * (x[ib].scales[is+2] & 0xF) * ((q >> 2) & 3) - dmin * (x[ib].scales[is+2] >> 4));
    y[l+64] = ggml_cuda_cast<dst_t>(dall * (x[ib].scales[is+4] & 0xF) * ((q >> 4) & 3) - dmin * (x[ib].scales[is+4] >> 4));
}
