// std::function and std::bind with no <functional>: nvcc's cuda_runtime.h brought it
// (--extended-lambda); HIP 5.2's hip_runtime.h does not declare either name.
#include <hip/hip_runtime.h>
#include <functional>
#include <vector>

__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }

void run_all(const std::vector<std::function<void()>> &steps) {
  for (const auto &s : steps) s();
}

void enqueue(std::vector<std::function<void()>> &steps, float *dev) {
  steps.push_back(std::bind([](float *p) { scale<<<1, 32>>>(p, 2.0f); }, dev));
  steps.push_back([dev] { hipMemset(dev, 0, 32 * sizeof(float)); });
}
