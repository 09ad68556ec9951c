// A kernel compiled at run time to a cubin and loaded as a module. HIPIFY maps nvrtcGetCUBIN to
// hiprtcGetBitcode, which fails unless the program was compiled with -fgpu-rdc; the loadable
// code object is hiprtcGetCode.
#include <nvrtc.h>
#include <cuda.h>
#include <vector>

CUfunction load(const char *src, const char *name, CUmodule *mod) {
  nvrtcProgram prog;
  nvrtcCreateProgram(&prog, src, "k.cu", 0, nullptr, nullptr);
  nvrtcCompileProgram(prog, 0, nullptr);
  size_t size = 0;
  nvrtcGetCUBINSize(prog, &size);
  std::vector<char> cubin(size);
  nvrtcGetCUBIN(prog, cubin.data());
  nvrtcDestroyProgram(&prog);
  cuModuleLoadData(mod, cubin.data());
  CUfunction f;
  cuModuleGetFunction(&f, *mod, name);
  return f;
}
