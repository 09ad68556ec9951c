// Source: https://github.com/abduld/Parboil/blob/a4c63da28f45699e9a274cbc49af3e067162aa2b/benchmarks/sad/src/cuda/sad4.cu (lines 62-66, 70-71 and 186-218).
// Licence: University of Illinois/NCSA Open Source License, (C) Copyright 2007-2012 The Board of Trustees of the University of Illinois. Labels (`expect` comments) added by hipport, by reading the code.
__global__ void mb_sad_calc(unsigned short *blk_sad,
			    unsigned short *frame,
			    int mb_width,
			    int mb_height)
{
  int bx = blockIdx.x;
  int by = blockIdx.y;
  __syncthreads();
  /* Block-copy data into global memory.
   * Threads are grouped into sets of 32, leaving some threads idle. */
  if ((threadIdx.x >> 5) < (THREADS_W * THREADS_H))  // expect-ok: groups of 32 threads over data; no lane exchange in the kernel
  {
    int tgroup = threadIdx.x & 31;  // expect-ok: a thread's place in its group of 32, not a hardware lane
    int ty = (threadIdx.x >> 5) / THREADS_W;  // expect-ok: the group's row
    int tx = (threadIdx.x >> 5) - __umul24(ty, THREADS_W);  // expect-ok: the group's column
    int index;
    /* Macroblock and sub-block coordinates */
    int mb_x = (tx + __umul24(bx, THREADS_W)) >> 2;
    int mb_y = (ty + __umul24(by, THREADS_H)) >> 2;
    int block_x = (tx + __umul24(bx, THREADS_W)) & 0x03;
    int block_y = (ty + __umul24(by, THREADS_H)) & 0x03;
    if ((mb_x < mb_width) && (mb_y < mb_height))
      {
	/* All SADs from this thread are stored in a contiguous chunk
	 * of memory starting at this offset */
	blk_sad += (__umul24(__umul24(mb_width, mb_height), 25) +
		    (__umul24(mb_y, mb_width) + mb_x) * 16 +
		    (4 * block_y + block_x)) *
	  MAX_POS_PADDED;
	/* Block copy, 32 threads at a time */
	for (index = tgroup; index < SAD_LOC_8B_ROW_SIZE; index += 32)  // expect-ok: a copy loop strided by its group of 32
	  ((vec8b *)blk_sad)[index] 
	    = SAD_LOC_8B_GET(__umul24(ty, THREADS_W) + tx, index);
      }
  }
}
