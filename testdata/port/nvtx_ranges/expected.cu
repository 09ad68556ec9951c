#include <hip/hip_runtime.h>
#include <roctracer/roctx.h>

void step(int i) {
  roctxRangePushA("step");
  roctxMarkA("start");
  roctx_range_id_t id = roctxRangeStartA("copy");
  hipDeviceSynchronize();
  roctxRangeStop(id);
  roctxRangePop();
}
