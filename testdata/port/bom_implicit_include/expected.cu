// BOM first: the inserted include goes after it.
#include <hip/hip_runtime.h>
__global__ void k(int *p) { p[0] = 1; }
void f(int *d) { hipMemset(d, 0, 4); k<<<1, 1>>>(d); }
