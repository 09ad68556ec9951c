// Device code lives here; the C++ scan handles this file, not the inventory.
__global__ void topk(const float* x, int* idx, int n) {}
