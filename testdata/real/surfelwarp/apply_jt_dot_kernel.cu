// Source: https://github.com/weigao95/surfelwarp/blob/18f83ca522516f1531e7942132c489c066911419/core/warp_solver/ApplyJacobianTransposeDot.cu (lines 8-15, 40-41 and 115-130; the term evaluation elided).
// Licence: BSD-3-Clause, Copyright (c) 2018, Wei Gao. Labels (`expect` comments) added by hipport, by reading the code.
#include "device_intrinsics.h"

namespace surfelwarp { namespace device {

	enum {
		jt_dot_blk_size = 6,
		warp_size = 32,
		num_warps = 4,
		thread_blk_size = num_warps * warp_size,
	};

	__global__ void computeJtResidualWithIndexKernel(const float* terms, float* jt_dot_x) {
		const auto node_idx = blockIdx.x;
		const auto warp_id = threadIdx.x >> 5;
		const auto lane_id = threadIdx.x & 31;

		__shared__ float shared_blks[jt_dot_blk_size][thread_blk_size];
		__shared__ float shared_warp_tmp[num_warps];
		__shared__ float reduced_blks[jt_dot_blk_size];
		for (int i = 0; i < jt_dot_blk_size; i++) {
			shared_blks[i][threadIdx.x] = terms[i * thread_blk_size + threadIdx.x];
			if (threadIdx.x == 0) reduced_blks[i] = 0.0f;
		}

		//Do a reduction to reduced_men
		__syncthreads();
		for (int i = 0; i < jt_dot_blk_size; i++) {
			float data = shared_blks[i][threadIdx.x];
			data = warp_scan(data);
			if (lane_id == warpSize - 1) {  // expect: HP114 warp-size REMEDIATION
				shared_warp_tmp[warp_id] = data;
			}

			__syncthreads();
			data = threadIdx.x < num_warps ? shared_warp_tmp[threadIdx.x] : 0.0f;
			data = warp_scan(data);
			if(threadIdx.x == warpSize - 1) {
				reduced_blks[i] += data;
			}
			__syncthreads();
		}

		if(threadIdx.x < jt_dot_blk_size) jt_dot_x[jt_dot_blk_size * node_idx + threadIdx.x] = reduced_blks[threadIdx.x];
	}

}}
