#include <hip/hip_runtime.h>

template <typename T, int BLOCK>
__global__ void axpy(T a, const T *__restrict__ x, T *__restrict__ y, int n) {
  int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}

template <typename T>
void launch_axpy(T a, const T *x, T *y, int n, hipStream_t s) {
  constexpr int kBlock = 128;
  axpy<T, kBlock><<<(n + kBlock - 1) / kBlock, kBlock, 0, s>>>(a, x, y, n);
}

template void launch_axpy<float>(float, const float *, float *, int, hipStream_t);
template void launch_axpy<double>(double, const double *, double *, int, hipStream_t);
