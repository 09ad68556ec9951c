// Butterflies by absolute source lane, `lane ^ c` with c < 32: the partner is in the same
// 32-lane half, so width 32 keeps CUDA's partner whatever the lane id is. Here the lane id is
// `threadIdx.x & mask` with a mask the host sets (31 for CUDA): HIP's default width would send
// lanes 32-63 to lanes 0-31.
// Not followed yet (left at HIP's default width, no finding): a partner computed into a
// variable from a macro parameter (`MIN_EXCHANGE`'s `other`); its constant is known only at
// the macro's uses.
struct Params {
    int lane_mask;
    int lane_bits;
};

#define MIN_EXCHANGE(tgx, v, k, m)                  \
    {                                               \
        int other = (tgx) ^ (m);                    \
        float ov = __shfl_sync(0xffffffff, v, other); \
        int ok = __shfl_sync(0xffffffff, k, other); \
        if (ov < v) { v = ov; k = ok; }             \
    }

#define SUM32(tgx, s)                                \
    s += __shfl_sync(0xffffffff, s, tgx ^ 1);       \
    s += __shfl_sync(0xffffffff, s, tgx ^ 2);       \
    s += __shfl_sync(0xffffffff, s, tgx ^ 4);       \
    s += __shfl_sync(0xffffffff, s, tgx ^ 8);       \
    s += __shfl_sync(0xffffffff, s, tgx ^ 16);

__global__ void best(const float* e, float* out, int* id, Params p)
{
    __shared__ float part[32];
    int tgx = threadIdx.x & p.lane_mask;
    float s = e[blockIdx.x * blockDim.x + threadIdx.x];
    SUM32(tgx, s);
    if (tgx == 0)
        part[threadIdx.x >> p.lane_bits] = s;
    __syncthreads();
    if (threadIdx.x == 0)
        out[blockIdx.x] = part[0];
    float v = s;
    int k = threadIdx.x;
    MIN_EXCHANGE(tgx, v, k, 1)
    id[blockIdx.x * blockDim.x + threadIdx.x] = k;
}

// Twins: a source lane that is no xor of a constant below 32 keeps HIP's default width.
__global__ void other_lanes(float* a, int src)
{
    float v = a[threadIdx.x];
    v += __shfl_sync(0xffffffff, v, src);
    v += __shfl_sync(0xffffffff, v, (threadIdx.x ^ 32) | 1);
    a[threadIdx.x] = v;
}
