#include <cuda_runtime.h>

// The project's own ROCm layer: its `#define cudaX hipX` lines stay as written.
#if defined(USE_ROCM)
#define cudaGraphNode_t hipGraphNode_t
#define cudaGraphExec_t hipGraphExec_t
#undef cudaGraphExec_t
#define cudaGraphExec_t hipGraphExec_t
#endif

void build(cudaGraph_t g) {
  cudaGraphNode_t node;
  cudaGraphAddEmptyNode(&node, g, nullptr, 0);
}
