// id: cg_reduce
// headers: cooperative_groups/reduce.h
// rocm: 5.0.0
// exact: no
// requires: hip/hip_cooperative_groups.h
// source: https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#reduce (cg::reduce, cg::plus, cg::less, cg::greater, cg::bit_and, cg::bit_or, cg::bit_xor)
// source: https://github.com/ROCm/clr/blob/rocm-6.2.0/hipamd/include/hip/amd_detail/amd_hip_cooperative_groups.h (thread_block_tile::shfl_xor used here)
// semantics: No released HIP through 7.2 has cooperative_groups/reduce.h. cg::reduce(tile, value, op) here is a shfl_xor butterfly over a thread_block_tile (a power of two up to the wavefront size), and returns the result in every lane as CUDA does; the function objects are those of the CUDA header. coalesced_group and thread_block are not supported (they fail to compile, they do not miscompute). The order of the operations differs from CUDA's, so floating-point sums may differ in the last bits: verify at runtime.
// test: namespace cg = cooperative_groups;
// test: __global__ void k(float* p, int* q) { auto t = cg::tiled_partition<16>(cg::this_thread_block());
// test:   p[0] = cg::reduce(t, p[threadIdx.x], cg::plus<float>()); q[0] = cg::reduce(t, q[1], cg::greater<int>()) + cg::reduce(t, q[2], cg::bit_xor<int>()); }
// ---
namespace cooperative_groups {
template <class T> struct plus { __device__ T operator()(T a, T b) const { return a + b; } };
template <class T> struct less { __device__ T operator()(T a, T b) const { return b < a ? b : a; } };
template <class T> struct greater { __device__ T operator()(T a, T b) const { return a < b ? b : a; } };
template <class T> struct bit_and { __device__ T operator()(T a, T b) const { return a & b; } };
template <class T> struct bit_or { __device__ T operator()(T a, T b) const { return a | b; } };
template <class T> struct bit_xor { __device__ T operator()(T a, T b) const { return a ^ b; } };
template <class Group, class T, class Op> __device__ T reduce(const Group& g, T value, Op op) {
  for (unsigned int lane_mask = g.size() / 2; lane_mask > 0; lane_mask /= 2)
    value = op(value, g.shfl_xor(value, lane_mask));
  return value;
}
}  // namespace cooperative_groups
