#include <hip/hip_runtime.h>

namespace mylib {
namespace cub {  // a user namespace that happens to be called cub
int Sum(int a, int b) { return a + b; }
}  // namespace cub
}  // namespace mylib

struct Launcher {
  hipStream_t cudaStream;  // a field named like an API stays a field
  int hipMalloc;           // even this one
};

int use(Launcher &l) {
  l.hipMalloc = mylib::cub::Sum(1, 2);
  return l.hipMalloc;
}
