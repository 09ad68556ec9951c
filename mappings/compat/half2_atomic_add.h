// id: half2_atomic_add
// uses: atomicAdd
// with: __half2 half2
// rocm: 5.0.0
// exact: no
// requires: hip/hip_fp16.h
// source: https://docs.nvidia.com/cuda/cuda-c-programming-guide/index.html#atomicadd (the CUDA overload: __half2 atomicAdd(__half2*, __half2), atomic per 32-bit word)
// source: https://github.com/ROCm/clr/blob/rocm-6.2.0/hipamd/include/hip/amd_detail/amd_hip_fp16.h (HIP has unsafeAtomicAdd(__half2*) in later releases, no atomicAdd overload)
// semantics: HIP declares no atomicAdd(__half2*, __half2). This overload is a compare-and-swap loop on the 32-bit word holding both halves, so the pair is updated atomically as one word (CUDA guarantees atomicity per half only: stronger, not weaker). Under contention it is slower than a hardware packed add. The file uses atomicAdd and __half2: the overload only matters for calls that pass a __half2*.
// test: __global__ void k(__half2* p, __half2 v) { __half2 old = atomicAdd(p, v); p[1] = old; }
// ---
static inline __device__ __half2 atomicAdd(__half2* address, __half2 val) {
  unsigned int* word = reinterpret_cast<unsigned int*>(address);
  unsigned int old = *word;
  unsigned int assumed;
  do {
    assumed = old;
    __half2 sum = __hadd2(*reinterpret_cast<__half2*>(&assumed), val);
    old = atomicCAS(word, assumed, *reinterpret_cast<unsigned int*>(&sum));
  } while (assumed != old);
  return *reinterpret_cast<__half2*>(&old);
}
