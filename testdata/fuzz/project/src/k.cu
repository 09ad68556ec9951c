// Fixture of `cargo xtask fuzz` for mutated hipport.toml, hipport-migration.toml and
// hipport-baseline.json: a kernel with a warp-size assumption and an un-ported call.
#include <cuda_runtime.h>
__global__ void k(float *p) {
    int lane = threadIdx.x % 32;
    p[threadIdx.x] = __shfl_down_sync(0xffffffff, p[lane], 16);
}
void f(float *p) { k<<<1, 32>>>(p); cudaDeviceSynchronize(); cudaFree(p); }
