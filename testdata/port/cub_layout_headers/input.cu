// Block-level radix sort of hashed indices, as voxel-mapping libraries write it: CUB's
// per-algorithm headers, included with quotes and with angle brackets.
#include "cub/block/block_radix_sort.cuh"
#include <cub/block/block_discontinuity.cuh>
#include <cub/warp/warp_scan.cuh>
// hipCUB has no counterpart of CUB's agent internals: reported, left as written.
#include "cub/agent/agent_reduce.cuh"
// The project's own header that happens to sit in a folder named like a library is not touched.
#include "mycub/block_sort.cuh"

template <int kThreads, int kItems>
__global__ void sort_hashes(unsigned long long* keys, int* idx, int* heads) {
  typedef cub::BlockRadixSort<unsigned long long, kThreads, kItems, int> Sort;
  typedef cub::BlockDiscontinuity<unsigned long long, kThreads> Flags;
  __shared__ union {
    typename Sort::TempStorage sort;
    typename Flags::TempStorage flags;
  } tmp;
  unsigned long long k[kItems];
  int v[kItems];
  int h[kItems];
  for (int i = 0; i < kItems; ++i) {
    k[i] = keys[threadIdx.x * kItems + i];
    v[i] = idx[threadIdx.x * kItems + i];
  }
  Sort(tmp.sort).SortBlockedToStriped(k, v);
  __syncthreads();
  Flags(tmp.flags).FlagHeads(h, k, cub::Inequality());
  for (int i = 0; i < kItems; ++i) heads[threadIdx.x * kItems + i] = h[i];
}
