#include <cudnn.h>
#include <cuda_runtime.h>

void make_descs(int n, int c, int h, int w) {
  cudnnHandle_t handle;
  cudnnCreate(&handle);
  cudnnTensorDescriptor_t x;
  cudnnCreateTensorDescriptor(&x);
  cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, w);
  cudnnActivationDescriptor_t act;
  cudnnCreateActivationDescriptor(&act);
  cudnnDestroyTensorDescriptor(x);
  cudnnDestroy(handle);
}
