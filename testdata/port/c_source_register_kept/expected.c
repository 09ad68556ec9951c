#include <hip/hip_runtime_api.h>

/* In C, register is valid and stays. */
int count_devices(void) {
  int n = 0;
  register int twice;
  hipGetDeviceCount(&n);
  twice = 2 * n;
  return twice;
}
