#include <miopen/miopen.h>
#include <hip/hip_runtime.h>

void make_descs(int n, int c, int h, int w) {
  miopenHandle_t handle;
  miopenCreate(&handle);
  miopenTensorDescriptor_t x;
  miopenCreateTensorDescriptor(&x);
  cudnnSetTensor4dDescriptor(x, CUDNN_TENSOR_NCHW, miopenFloat, n, c, h, w);
  miopenActivationDescriptor_t act;
  miopenCreateActivationDescriptor(&act);
  miopenDestroyTensorDescriptor(x);
  miopenDestroy(handle);
}
