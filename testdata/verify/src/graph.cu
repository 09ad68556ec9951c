// Uses a CUDA API that HIP does not provide, so it stays un-ported.
#include <cuda_runtime.h>

int main() {
    cudaStream_t stream;
    cudaStreamCreate(&stream);
    cudaStreamCaptureStatus status;
    unsigned long long id = 0;
    cudaStreamGetCaptureInfo_v3(stream, &status, &id, nullptr, nullptr, nullptr, nullptr);
    return 0;
}
