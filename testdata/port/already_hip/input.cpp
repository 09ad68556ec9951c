#include <hip/hip_runtime.h>
#include <hiprand.h>

// An already-ported file: only the flat hipRAND include moves to its installed path.
void gen(float *d, size_t n) {
  hiprandGenerator_t g;
  hiprandCreateGenerator(&g, HIPRAND_RNG_PSEUDO_DEFAULT);
  hiprandGenerateUniform(g, d, n);
  hiprandDestroyGenerator(g);
  hipDeviceSynchronize();
}
