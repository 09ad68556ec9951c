#include <cuda_runtime.h>

// Names that contain "register", the word in comments, strings and asm templates, and an
// explicit register variable (clang accepts `register` with an asm label): nothing changes.
typedef unsigned int register_t;
struct registers { int registerX; };

__device__ unsigned int lane(register_t base, registers *r) {
  unsigned int id;
  asm volatile("mov.u32 %0, %%laneid; // register" : "=r"(id));
  register unsigned int sp asm("sp");
  const char *note = "register float x";
  return base + r->registerX + id + (note != 0);
}
