// Unity build of the solver: the CUDA code lives in the headers this file pulls in, which
// rely on nvcc's implicit cuda_runtime.h being there first.
#define SOLVER_HEADER_ONLY
#include "solver_config.h"
#include <stdio.h>

int main(int argc, char **argv) {
  unsigned long rows = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024;
  printf("solving %lu rows\n", rows);
  return 0;
}
