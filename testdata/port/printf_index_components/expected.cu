// Device printf of the index variables, as CUDA teaching code writes it (after OLCF's CUDA
// training series, exercises/hw1/hello_solution.cu; reduced). Before ROCm 6.1 HIP's index
// components are objects that convert to `unsigned int`, and a variadic argument takes no
// conversion: hipcc 5.2 stops with "cannot compile this non-scalar arg to printf yet". `port`
// casts each bare component to `unsigned int` (HP026); an expression already has that type.
#include <hip/hip_runtime.h>
#include <cstdio>

__global__ void hello(int n) {
  printf("Hello from block: %u, thread: %u of %d\n", (unsigned int)blockIdx.x, (unsigned int)threadIdx.x, n);
  printf("global index %u\n", blockIdx.x * blockDim.x + threadIdx.x);
}

int main() {
  hello<<<2, 2>>>(4);
  hipDeviceSynchronize();
  return 0;
}
