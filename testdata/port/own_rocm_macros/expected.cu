#include <hip/hip_runtime.h>

// The project's own ROCm layer: its `#define cudaX hipX` lines stay as written.
#if defined(USE_ROCM)
#define cudaGraphNode_t hipGraphNode_t
#define cudaGraphExec_t hipGraphExec_t
#undef cudaGraphExec_t
#define cudaGraphExec_t hipGraphExec_t
#endif

void build(hipGraph_t g) {
  hipGraphNode_t node;
  hipGraphAddEmptyNode(&node, g, nullptr, 0);
}
