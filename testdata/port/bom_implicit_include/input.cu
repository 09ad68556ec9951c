// BOM first: the inserted include goes after it.
__global__ void k(int *p) { p[0] = 1; }
void f(int *d) { cudaMemset(d, 0, 4); k<<<1, 1>>>(d); }
