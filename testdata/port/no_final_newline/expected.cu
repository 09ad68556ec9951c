#include <hip/hip_runtime.h>
__global__ void k() {}
void f() { k<<<1, 1>>>(); hipDeviceSynchronize(); }