#include <hip/hip_runtime.h>

void legacy_sync() {
  hipDeviceSynchronize();
  hipDeviceReset();
}
