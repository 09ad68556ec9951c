// Source: https://github.com/abduld/Parboil/blob/a4c63da28f45699e9a274cbc49af3e067162aa2b/benchmarks/imghisto/src/cuda/kernel.cu (lines 49-50, 69-87 and 97-106, closing brace added).
// Licence: University of Illinois/NCSA Open Source License, (C) Copyright 2007-2012 The Board of Trustees of the University of Illinois. Labels (`expect` comments) added by hipport, by reading the code.
// Constants
#define WARP_SIZE 32  // expect-ok: only splits the reads into groups of 32 threads; nothing in the kernel exchanges lanes
__global__ void histo_R_per_block_kernel(unsigned int* histo,
                                         unsigned int* data,
                                         int size, int BINS, int BINSp, int R)
{
  // Block and thread index
  const int bx = blockIdx.x;
  const int tx = threadIdx.x;
  // Warp and lane
  const unsigned int warpid = tx >> 5;  // expect-ok: a read partition in a kernel that exchanges nothing across lanes
  const unsigned int lane = tx & 31;	  // expect-ok: as line 13, only offsets the reads

  // Offset to per-block sub-histograms
  const unsigned int off_rep = BINSp * (tx % R);

  // Constants for interleaved read access
  const int warps_block = blockDim.x / WARP_SIZE;
  const int begin = (size / warps_block) * warpid + WARP_SIZE * bx + lane;
  const int end = (size / warps_block) * (warpid + 1);
  const int step = WARP_SIZE * gridDim.x;

  // Main loop
  for(int i = begin; i < end; i += step){
    // Global memory read
    unsigned int d = data[i];

    // Atomic vote in shared memory
    atomicAdd(&Hs[off_rep + ((d * BINS) >> 12)], 1);

  }
}
