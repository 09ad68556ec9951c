#include <hip/hiprtc.h>
#include <hip/hip_runtime.h>
#include <string>

std::string compile(const char *src) {
  hiprtcProgram prog;
  hiprtcCreateProgram(&prog, src, "k.cu", 0, nullptr, nullptr);
  const char *opts[] = {"--gpu-architecture=compute_80"};
  hiprtcResult res = hiprtcCompileProgram(prog, 1, opts);
  if (res != HIPRTC_SUCCESS) return hiprtcGetErrorString(res);
  size_t size;
  hiprtcGetCodeSize(prog, &size);
  std::string ptx(size, '\0');
  hiprtcGetCode(prog, &ptx[0]);
  hiprtcDestroyProgram(&prog);
  return ptx;
}
