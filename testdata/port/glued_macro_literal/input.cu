#include <cinttypes>
#include <cstdio>

#define NODE_FMT "%d"

// nvcc (gcc) accepts a macro glued to a string literal; clang reads it as a literal suffix.
void show(int node, int64_t offset) {
  printf("node ("NODE_FMT"): offset %"PRId64"\n", node, offset);
  printf("%s\n", "plain"
                 "concatenation");
}
