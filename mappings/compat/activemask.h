// id: activemask
// names: __activemask
// rocm: 5.0.0 6.1.5
// guard: HIP_VERSION < 60200000
// exact: yes
// source: https://github.com/ROCm/clr/blob/rocm-6.2.0/hipamd/include/hip/amd_detail/amd_warp_functions.h (HIP 6.2 __activemask, MIT licence, (c) AMD)
// semantics: HIP 6.2's own body, __ballot(true): the lanes of a wavefront do not make independent progress, so the active mask is exactly the lanes executing the call. The result is 64-bit (one bit per lane of a 64-wide wavefront); code that stores it in a 32-bit unsigned loses the upper half.
// test: __global__ void k(unsigned long long* p) { p[threadIdx.x] = __activemask(); }
// ---
__device__ inline unsigned long long __activemask() { return __ballot(true); }
