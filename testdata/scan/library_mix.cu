// Library usage that does not port name-for-name.
#include <cudnn.h>  // expect: library
#include <cublasLt.h>  // expect: library
#include <mma.h>  // expect: library
#include <thrust/device_vector.h>
#include <thrust/sort.h>
#include <thrust/execution_policy.h>
#include <nvml.h>  // expect: library

using namespace nvcuda;  // expect: library

__global__ void wmma_gemm(const half* a, const half* b, float* c, int ld) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a_frag;  // expect: library
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b_frag;  // expect: library
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;  // expect: library
  wmma::fill_fragment(acc, 0.0f);  // expect: library
  wmma::load_matrix_sync(a_frag, a, ld);  // expect: library
  wmma::load_matrix_sync(b_frag, b, ld);  // expect: library
  wmma::mma_sync(acc, a_frag, b_frag, acc);  // expect: library
  wmma::store_matrix_sync(c, acc, ld, wmma::mem_row_major);  // expect: library
}

void conv(cudnnHandle_t h, cudnnTensorDescriptor_t x, cudnnFilterDescriptor_t w,
          cudnnConvolutionDescriptor_t cd, cudnnTensorDescriptor_t y,
          const void* dx, const void* dw, void* dy, void* ws, size_t wsz) {
  cudnnSetConvolution2dDescriptor(cd, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT);
  int returned = 0;
  cudnnConvolutionFwdAlgoPerf_t perf;
  cudnnGetConvolutionForwardAlgorithm_v7(h, x, w, cd, y, 1, &returned, &perf);  // expect: library
  size_t need = 0;
  cudnnGetConvolutionForwardWorkspaceSize(h, x, w, cd, y, perf.algo, &need);  // expect: library
  float alpha = 1.0f, beta = 0.0f;
  cudnnConvolutionForward(h, &alpha, x, dx, w, dw, cd, perf.algo, ws, wsz, &beta, y, dy);  // expect: library
}

void matmul(cublasLtHandle_t lt, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t la,
            const void* A, const void* B, void* C, cudaStream_t s) {
  cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_RELU_BIAS;
  cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi));  // expect: library
  float alpha = 1.0f, beta = 0.0f;
  cublasLtMatmul(lt, desc, &alpha, A, la, B, la, &beta, C, la, C, la, nullptr, nullptr, 0, s);  // expect: library
}

void sort_keys(thrust::device_vector<int>& v, cudaStream_t s) {
  thrust::sort(thrust::cuda::par.on(s), v.begin(), v.end());  // expect: library
  thrust::sort(thrust::device, v.begin(), v.end());
}

unsigned temperature() {
  nvmlDevice_t dev;
  unsigned t = 0;
  nvmlInit();  // expect: library
  nvmlDeviceGetHandleByIndex(0, &dev);  // expect: library
  nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &t);  // expect: library
  return t;
}
