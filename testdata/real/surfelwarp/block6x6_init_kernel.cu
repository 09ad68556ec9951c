// Source: https://github.com/weigao95/surfelwarp/blob/18f83ca522516f1531e7942132c489c066911419/pcg_solver/block6x6_pcg_weber.cu (lines 79-125, the block-matrix product elided) and pcg_solver/solver_configs.h (lines 16-17).
// Licence: BSD-3-Clause, Copyright (c) 2018, Wei Gao. Labels (`expect` comments) added by hipport, by reading the code.
#include "device_intrinsics.h"

#define reduce_block_warps 32

namespace surfelwarp { namespace device {

	template <int num_warps = reduce_block_warps>
	__global__ void block6x6InitKernel(
		const float* b,
		float* reduce_partials_blk6x6,
		int size
	) {
		const int idx = threadIdx.x + blockIdx.x * blockDim.x;
		float dot_this_row = 0.0f;
		if (idx < size) {
			dot_this_row = b[idx] * b[idx];
		}

		//Warp reduction on dot_this_row
		const int warp_id = threadIdx.x >> 5;  // expect-ok: 32-lane logical warps around a 32-wide PTX scan, consistent once the scan is written with width 32
		const int lane_id = threadIdx.x & 31;  // expect-ok: the lane of that 32-lane logical warp
		float scanned_dot = dot_this_row;
		scanned_dot = warp_scan(scanned_dot);

		//Store the reduced warp_dot to shared memory for block scan
		__shared__ float warp_dot[num_warps];
		if (lane_id == 31) warp_dot[warp_id] = scanned_dot;

		//Perform reduct on the warp_dot
		__syncthreads();
		if (warp_id == 0) {
			float warp_dot_reduce = 0.0f;
			if (lane_id < num_warps)
				warp_dot_reduce = warp_dot[lane_id];
			//Do warp scan again
            warp_dot_reduce = warp_scan(warp_dot_reduce);
			//Store to global memory
			if (lane_id == 31) reduce_partials_blk6x6[blockIdx.x] = warp_dot_reduce;
		}
	}

}}
