// 32-lane logical warps spelled through macros: the lane count, mask and log2 are constants,
// the warp index a macro of the thread index. The ballot is cut to 32 bits by a compound
// assignment; the shuffles take source lanes computed in 32-lane space.
#define LANE_COUNT 32
#define LANE_MASK 31
#define LANE_LOG 5
#define WARP_INDEX (threadIdx.x >> LANE_LOG)
#define SUB_START (WARP_INDEX * 480)

__global__ void rank(const unsigned* keys, unsigned* out, unsigned* hist)
{
    const unsigned key = keys[SUB_START + (threadIdx.x & LANE_MASK)];
    unsigned flags = 0xffffffff;
    for (int k = 0; k < 8; ++k)
    {
        const bool bit = key >> k & 1;
        flags &= (bit ? 0 : 0xffffffff) ^ __ballot_sync(0xffffffff, bit);
    }
    unsigned pre;
    if (__popc(flags) > 0)
        pre = atomicAdd(&hist[key & 255], __popc(flags));
    out[threadIdx.x] = __shfl_sync(0xffffffff, pre, __ffs(flags) - 1);
}

__global__ void scan(unsigned* s)
{
    if (threadIdx.x < 8)
        s[threadIdx.x << LANE_LOG] += 1;
    __syncthreads();
    s[threadIdx.x] += (threadIdx.x & LANE_MASK) ? __shfl_sync(0xfffffffe, s[threadIdx.x - 1], 1) : 0;
}

// Lanes of the wavefront: keeps HIP's default width.
__global__ void wave(unsigned* s)
{
    const int lane = threadIdx.x % warpSize;
    s[threadIdx.x] = __shfl_sync(0xffffffff, s[threadIdx.x], 0) + lane;
}
