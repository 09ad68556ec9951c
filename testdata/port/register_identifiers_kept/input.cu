#include <cuda_runtime.h>

// Names that contain "register", and the word in comments, strings and asm templates:
// nothing changes.
typedef unsigned int register_count_t;
struct registers { int registerX; };

__device__ unsigned int lane(register_count_t base, registers *r) {
  unsigned int id;
  asm volatile("mov.u32 %0, %%laneid; // register" : "=r"(id));
  const char *note = "register float x";
  return base + r->registerX + id + (note != 0);
}
