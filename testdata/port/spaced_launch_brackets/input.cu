// Sum reduction as Visual Studio formats it: the launch brackets come out as "<< <" and ">> >".
#include "cuda_runtime.h"
#include "device_launch_parameters.h"

#include <stdio.h>
#include <stdlib.h>

#define SIZE 256
#define SHMEM_SIZE 256 * 4

extern "C"__global__ void sum_reduction(int *v, int *v_r) {
	__shared__ int partial_sum[SHMEM_SIZE];
	int tid = blockIdx.x * blockDim.x + threadIdx.x;
	partial_sum[threadIdx.x] = v[tid];
	__syncthreads();
	for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
		if (threadIdx.x < s) {
			partial_sum[threadIdx.x] += partial_sum[threadIdx.x + s];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		v_r[blockIdx.x] = partial_sum[0];
	}
}

template <typename T>
__global__ void fill(T *v, T x, int n) {
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) v[i] = x;
}

int main() {
	int n = 1 << 16;
	size_t bytes = n * sizeof(int);
	int *d_v, *d_v_r;
	cudaMalloc(&d_v, bytes);
	cudaMalloc(&d_v_r, bytes);
	int TB_SIZE = SIZE;
	int GRID_SIZE = n / TB_SIZE;
	fill<int> << <GRID_SIZE, TB_SIZE >> > (d_v, 1, n);
	sum_reduction << <GRID_SIZE, TB_SIZE >> > (d_v, d_v_r);
	sum_reduction << <1, TB_SIZE >> > (d_v_r, d_v_r);
	int result = 0;
	cudaMemcpy(&result, d_v_r, sizeof(int), cudaMemcpyDeviceToHost);
	printf("sum = %d (x << 1 = %d)\n", result, result << 1);
	cudaFree(d_v);
	cudaFree(d_v_r);
	return 0;
}
