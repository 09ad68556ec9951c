#include <nvrtc.h>
#include <cuda.h>
#include <string>

std::string compile(const char *src) {
  nvrtcProgram prog;
  nvrtcCreateProgram(&prog, src, "k.cu", 0, nullptr, nullptr);
  const char *opts[] = {"--gpu-architecture=compute_80"};
  nvrtcResult res = nvrtcCompileProgram(prog, 1, opts);
  if (res != NVRTC_SUCCESS) return nvrtcGetErrorString(res);
  size_t size;
  nvrtcGetPTXSize(prog, &size);
  std::string ptx(size, '\0');
  nvrtcGetPTX(prog, &ptx[0]);
  nvrtcDestroyProgram(&prog);
  return ptx;
}
