#include <hip/hip_runtime.h>

// `a < b, c > d` is two comparisons, not a template argument list: `<` opens template
// arguments only after a name the file declares as a template, so the call keeps its four
// arguments and gains HIP's missing defaults.
__global__ void k(float *x) { x[threadIdx.x] = 0.f; }

void launch(int a, int b, int c, int d, void **args) {
  hipLaunchCooperativeKernel((void *)k, a < b, c > d, args, 0, 0);
}
