// A kernel compiled at run time to a cubin and loaded as a module. HIPIFY maps nvrtcGetCUBIN to
// hiprtcGetBitcode, which fails unless the program was compiled with -fgpu-rdc; the loadable
// code object is hiprtcGetCode.
#include <hip/hiprtc.h>
#include <hip/hip_runtime.h>
#include <vector>

hipFunction_t load(const char *src, const char *name, hipModule_t *mod) {
  hiprtcProgram prog;
  hiprtcCreateProgram(&prog, src, "k.cu", 0, nullptr, nullptr);
  hiprtcCompileProgram(prog, 0, nullptr);
  size_t size = 0;
  hiprtcGetCodeSize(prog, &size);
  std::vector<char> cubin(size);
  hiprtcGetCode(prog, cubin.data());
  hiprtcDestroyProgram(&prog);
  hipModuleLoadData(mod, cubin.data());
  hipFunction_t f;
  hipModuleGetFunction(&f, *mod, name);
  return f;
}
