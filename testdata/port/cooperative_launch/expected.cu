#include <hip/hip_runtime.h>
#include <hip/hip_cooperative_groups.h>
#include <hip/hip_runtime.h>

namespace cg = cooperative_groups;

__global__ void iterate(float *x, int n) {
  cg::grid_group grid = cg::this_grid();
  for (int it = 0; it < 4; ++it) {
    int i = grid.thread_rank();
    if (i < n) x[i] += 1.0f;
    grid.sync();
  }
}

void launch(float *x, int n) {
  void *args[] = {&x, &n};
  hipLaunchCooperativeKernel((void *)iterate, dim3(4), dim3(128), args, 0, 0);
}
