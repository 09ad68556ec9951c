// id: syncwarp
// names: __syncwarp
// rocm: 5.0.0 6.4.4
// guard: HIP_VERSION < 70000000
// exact: no
// source: https://github.com/ROCm/clr/blob/1c34a11e57c59a953722ccaeb77de58ee8b223c4/hipamd/include/hip/amd_detail/amd_warp_sync_functions.h (HIP 7.0 __syncwarp, MIT licence, (c) AMD)
// source: https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#warp-cross-lane-functions
// semantics: HIP 7.0's own body: a wavefront-scope release fence, a wave barrier and an acquire fence. The lanes of an AMD wavefront do not make independent progress, so there is nothing to reconverge; the fences order the shared-memory accesses of the lanes as CUDA's __syncwarp does. The mask is accepted at any integer width and ignored (HIP 7.0 requires a 64-bit mask and asserts that every named lane is active): code that passes a partial mask or calls it divergently must be checked.
// test: __global__ void k(int* p) { p[threadIdx.x] = 1; __syncwarp(); __syncwarp(0xffffffffu); p[0] += p[1]; }
// ---
__device__ inline void __syncwarp() {
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
  __builtin_amdgcn_wave_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
template <typename MaskT> __device__ inline void __syncwarp(MaskT) { __syncwarp(); }
