#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <cuda_runtime.h>

float sum_sorted(thrust::device_vector<float> &v, cudaStream_t stream) {
  thrust::sort(thrust::cuda::par.on(stream), v.begin(), v.end());
  return thrust::reduce(thrust::cuda::par.on(stream), v.begin(), v.end(), 0.0f);
}

float sum_plain(thrust::device_vector<float> &v) { return thrust::reduce(thrust::device, v.begin(), v.end()); }
