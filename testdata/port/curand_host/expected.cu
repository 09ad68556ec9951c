#include <hip/hip_runtime.h>
#include <hiprand/hiprand.h>

#define CURAND_CALL(x) do { if ((x) != HIPRAND_STATUS_SUCCESS) { return 1; } } while (0)

int generate(float *devData, size_t n) {
  hiprandGenerator_t gen;
  CURAND_CALL(hiprandCreateGenerator(&gen, HIPRAND_RNG_PSEUDO_DEFAULT));
  CURAND_CALL(hiprandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
  CURAND_CALL(hiprandGenerateUniform(gen, devData, n));
  CURAND_CALL(hiprandGenerateNormal(gen, devData, n, 0.0f, 1.0f));
  CURAND_CALL(hiprandDestroyGenerator(gen));
  return 0;
}
