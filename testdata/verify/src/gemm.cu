// Needs hipBLAS after translation; Debian bookworm's ROCm 5.2 packages do not ship it.
#include <cuda_runtime.h>
#include <cublas_v2.h>

int main() {
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
    cublasDestroy(handle);
    return 0;
}
