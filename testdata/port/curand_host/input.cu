#include <cuda_runtime.h>
#include <curand.h>

#define CURAND_CALL(x) do { if ((x) != CURAND_STATUS_SUCCESS) { return 1; } } while (0)

int generate(float *devData, size_t n) {
  curandGenerator_t gen;
  CURAND_CALL(curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT));
  CURAND_CALL(curandSetPseudoRandomGeneratorSeed(gen, 1234ULL));
  CURAND_CALL(curandGenerateUniform(gen, devData, n));
  CURAND_CALL(curandGenerateNormal(gen, devData, n, 0.0f, 1.0f));
  CURAND_CALL(curandDestroyGenerator(gen));
  return 0;
}
