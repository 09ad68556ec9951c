#include <cuda_runtime.h>

// CRLF line endings and a BOM must survive.
__global__ void k(float *x) { x[threadIdx.x] *= 2.0f; }

void go(float *h, int n) {
	float *d;
	cudaMalloc(&d, n * sizeof(float));   
	cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice);
	k<<<1, n>>>(d);
	cudaFree(d);
}
