#include <hip/hip_runtime.h>
#include "hipport_compat.h"

// Sum of absolute differences of 4 packed bytes per word (block matching).
__global__ void sad(const unsigned *a, const unsigned *b, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) {
    unsigned d = __vabsdiffu4(a[i], b[i]);
    out[i] = __vsadu4(a[i], b[i]) + (__vmaxu4(d, __vabs4(a[i])) & 0xff);
  }
}
