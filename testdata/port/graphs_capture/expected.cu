#include <hip/hip_runtime.h>

__global__ void step(float *x) { x[threadIdx.x] += 1.0f; }

void capture(float *d, hipStream_t s) {
  hipGraph_t graph;
  hipGraphExec_t exec;
  hipStreamBeginCapture(s, hipStreamCaptureModeGlobal);
  for (int i = 0; i < 10; ++i) step<<<1, 64, 0, s>>>(d);
  hipStreamEndCapture(s, &graph);
  hipGraphInstantiate(&exec, graph, nullptr, nullptr, 0);
  hipGraphLaunch(exec, s);
  hipStreamSynchronize(s);
  hipGraphExecDestroy(exec);
  hipGraphDestroy(graph);
}
