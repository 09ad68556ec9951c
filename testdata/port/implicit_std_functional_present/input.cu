// The negative twin: the file includes <functional> itself, so nothing is added after the
// runtime include; std::hash is declared by HIP's runtime header and needs nothing either.
#include <functional>
#include <vector>

__global__ void scale(float *x, float a) { x[threadIdx.x] *= a; }

size_t key(int device) { return std::hash<int>{}(device); }

void enqueue(std::vector<std::function<void()>> &steps, float *dev) {
  steps.push_back([dev] { scale<<<1, 32>>>(dev, 2.0f); });
  steps.push_back([dev] { cudaMemset(dev, 0, 32 * sizeof(float)); });
}
