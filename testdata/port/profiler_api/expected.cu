#include <hip/hip_runtime_api.h>
#include <hip/hip_runtime.h>

void profile_region() {
  hipProfilerStart();
  hipDeviceSynchronize();
  hipProfilerStop();
}
