// id: warp_reduce_sync
// names: __reduce_add_sync __reduce_min_sync __reduce_max_sync __reduce_and_sync __reduce_or_sync __reduce_xor_sync
// rocm: 5.0.0 6.4.4
// guard: HIP_VERSION < 70000000
// exact: no
// source: https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#warp-reduce-functions (semantics)
// source: https://github.com/ROCm/clr/blob/1c34a11e57c59a953722ccaeb77de58ee8b223c4/hipamd/include/hip/amd_detail/amd_warp_sync_functions.h (HIP 7.0 __reduce_*_sync, for comparison)
// semantics: A butterfly of __shfl_xor over the whole wavefront (warpSize lanes: 64 on gfx90a, where CUDA reduces 32). The mask is ignored: every lane of the wavefront must call it, as with a full CUDA mask on a full warp. and/or/xor are bitwise as in CUDA (HIP 7.0's own versions are logical). Code that reduces per 32-lane warp, or passes a partial mask, computes a different result: verify at runtime.
// test: __global__ void k(int* p, unsigned* q) { p[threadIdx.x] = __reduce_add_sync(0xffffffffu, p[threadIdx.x]) + __reduce_max_sync(0xffffffffu, 1) + __reduce_min_sync(0xffffffffu, 2); q[threadIdx.x] = __reduce_and_sync(0xffffffffu, q[0]) | __reduce_or_sync(0xffffffffu, 1u) | __reduce_xor_sync(0xffffffffu, 3u) | __reduce_add_sync(0xffffffffu, 1u); }
// ---
template <typename T, typename Op> __device__ inline T __hipport_wave_reduce(T v, Op op) {
  for (int lane_mask = warpSize / 2; lane_mask > 0; lane_mask /= 2) v = op(v, __shfl_xor(v, lane_mask));
  return v;
}
template <typename MaskT> __device__ inline int __reduce_add_sync(MaskT, int v) {
  return __hipport_wave_reduce(v, [](int a, int b) { return a + b; });
}
template <typename MaskT> __device__ inline unsigned __reduce_add_sync(MaskT, unsigned v) {
  return __hipport_wave_reduce(v, [](unsigned a, unsigned b) { return a + b; });
}
template <typename MaskT> __device__ inline int __reduce_min_sync(MaskT, int v) {
  return __hipport_wave_reduce(v, [](int a, int b) { return b < a ? b : a; });
}
template <typename MaskT> __device__ inline unsigned __reduce_min_sync(MaskT, unsigned v) {
  return __hipport_wave_reduce(v, [](unsigned a, unsigned b) { return b < a ? b : a; });
}
template <typename MaskT> __device__ inline int __reduce_max_sync(MaskT, int v) {
  return __hipport_wave_reduce(v, [](int a, int b) { return a < b ? b : a; });
}
template <typename MaskT> __device__ inline unsigned __reduce_max_sync(MaskT, unsigned v) {
  return __hipport_wave_reduce(v, [](unsigned a, unsigned b) { return a < b ? b : a; });
}
template <typename MaskT> __device__ inline unsigned __reduce_and_sync(MaskT, unsigned v) {
  return __hipport_wave_reduce(v, [](unsigned a, unsigned b) { return a & b; });
}
template <typename MaskT> __device__ inline unsigned __reduce_or_sync(MaskT, unsigned v) {
  return __hipport_wave_reduce(v, [](unsigned a, unsigned b) { return a | b; });
}
template <typename MaskT> __device__ inline unsigned __reduce_xor_sync(MaskT, unsigned v) {
  return __hipport_wave_reduce(v, [](unsigned a, unsigned b) { return a ^ b; });
}
