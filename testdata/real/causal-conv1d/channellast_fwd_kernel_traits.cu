// Source: https://github.com/Dao-AILab/causal-conv1d/blob/0d2252d161f25f7907bbd05985c08ab98d255874/csrc/causal_conv1d_fwd.cu (lines 172-197).
// Licence: BSD-3-Clause, Copyright (c) 2022, the respective contributors. Labels (`expect` comments) added by hipport, by reading the code.
template<int kNThreads_, int kWidth_, int kChunkSizeL_, bool kIsVecLoad_, typename input_t_, typename weight_t_>
struct Causal_conv1d_channellast_fwd_kernel_traits {
    // The cache line is 128 bytes, and we try to read 16 bytes per thread.
    // So we have 8 threads per "row", so 32 or 64 elements in the channel dimension.
    // That leaves 4 columns per warp, and so 16 columns per block (assuming each block has 128
    // threads). Each each load is 16 x 32|64 elements in the L x C dimensions.
    using input_t = input_t_;
    using weight_t = weight_t_;
    static constexpr int kNThreads = kNThreads_;
    static_assert(kNThreads % 32 == 0);  // expect-ok: the block size is a multiple of 32 on both platforms (the launch uses 128 threads)
    static constexpr int kNWarps = kNThreads / 32;  // expect-noise: HP102
    static constexpr int kWidth = kWidth_;
    static constexpr int kChunkSizeL = kChunkSizeL_;
    static constexpr int kNBytes = sizeof(input_t);
    static_assert(kNBytes == 2 || kNBytes == 4);
    static constexpr int kNElts = kNBytes == 4 ? 4 : 8;
    static constexpr int kNEltsPerRow = 128 / kNBytes;
    static constexpr int kNThreadsPerRow = kNEltsPerRow / kNElts;  // Always 8 for now
    static_assert(kNThreadsPerRow * kNBytes * kNElts == 128);
    static constexpr int kNColsPerWarp = 32 / kNThreadsPerRow;  // Always 4 for now  // expect-ok: 32 columns of a 128-byte row, not lanes
    static_assert(kNColsPerWarp * kNThreadsPerRow == 32);  // expect-ok: 32 columns of a 128-byte row, not lanes
    static constexpr int kNColsPerLoad = kNColsPerWarp * kNWarps;  // expect-ok: kNColsPerWarp * kNWarps = kNThreads / 8: independent of the wavefront size
    static constexpr int kNLoads = kChunkSizeL / kNColsPerLoad;
    static_assert(kNLoads * kNColsPerLoad == kChunkSizeL);
    static constexpr bool kIsVecLoad = kIsVecLoad_;
    using vec_t = typename BytesToType<kNBytes * kNElts>::Type;
