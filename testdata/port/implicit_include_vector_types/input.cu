#include <cstdio>

// A host-only .cu file that uses CUDA vector types: nvcc's implicit cuda_runtime.h declared them.
uint4 pack(unsigned a, unsigned b) { return make_uint4(a, b, a ^ b, a & b); }

void show(uint4 v) { printf("%u %u %u %u\n", v.x, v.y, v.z, v.w); }
