#include <thrust/device_vector.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <hip/hip_runtime.h>

float sum_sorted(thrust::device_vector<float> &v, hipStream_t stream) {
  thrust::sort(thrust::hip::par.on(stream), v.begin(), v.end());
  return thrust::reduce(thrust::hip::par.on(stream), v.begin(), v.end(), 0.0f);
}

float sum_plain(thrust::device_vector<float> &v) { return thrust::reduce(thrust::device, v.begin(), v.end()); }
