#include <cuda_runtime.h>

// After mmdeploy's connected-components kernels (Apache-2.0): the kernel has no lane
// arithmetic of its own, but every launch gives it 32-thread rows, so each row is one CUDA
// warp: width 32 and the lane's own half of the ballot keep that meaning on 64-lane wavefronts.
__global__ void relabel_rows(int *label, const unsigned char *mask, int w) {
  int tx = threadIdx.x;
  int k = blockIdx.y * blockDim.y * w + threadIdx.y * w + tx;
  unsigned active = __ballot_sync(0xffffffff, tx < w);
  int idx = label[k];
  idx = __shfl_sync(active, idx, tx > 0 ? tx - 1 : 0);
  if (mask[k]) label[k] = idx;
}

// Negative twin: 64-thread rows span the wavefront; the shuffle keeps its default width.
__global__ void relabel_wide(int *label, int w) {
  int tx = threadIdx.x;
  int idx = label[tx];
  idx = __shfl_sync(0xffffffff, idx, tx > 0 ? tx - 1 : 0);
  label[tx] = idx;
}

void run(int *label, const unsigned char *mask, int h, int w) {
  dim3 threads(32, 4);
  dim3 blocks(1, (h + 3) / 4);
  relabel_rows<<<blocks, threads>>>(label, mask, w);
  dim3 wide(64, 2);
  relabel_wide<<<blocks, wide>>>(label, w);
}
