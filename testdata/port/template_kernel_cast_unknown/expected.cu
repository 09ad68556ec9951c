#include <hip/hip_runtime.h>

// `tiled` comes from another header: `tiled<1, 2>` could be template arguments or two
// comparisons, so no cast is inserted and HP010 asks a person.
extern bool tiled, one;

void setup() {
  hipFuncSetAttribute(tiled<1, 2>, hipFuncAttributeMaxDynamicSharedMemorySize, 1024);
}
