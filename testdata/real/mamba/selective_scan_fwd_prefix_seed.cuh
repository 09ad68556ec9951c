// Source: https://github.com/state-spaces/mamba/blob/e9594ce1c732d97440f0332fdc43170a2294dbfa/csrc/selective_scan/selective_scan_fwd_kernel.cuh (lines 240-258, trimmed: the complex branch and the code around it).
// Licence: Apache-2.0, Copyright (c) 2023, Tri Dao. Labels (`expect` comments) added by hipport, by reading the code: the lane test
// only seeds the prefix callback of a hipCUB/CUB block scan, which uses the first lane's value only.
template <typename Ktraits>
__global__ void selective_scan_fwd_chunk(float2 *x, float2 *smem_running_prefix, int chunk, int state_idx, int r) {
    __shared__ typename Ktraits::BlockScanT::TempStorage smem_scan;
    float2 thread_data[Ktraits::kNItems];
                // Initialize running total
                float2 running_prefix;
                // If we use WARP_SCAN then all lane 0 of all warps (not just thread 0) needs to read
                running_prefix = chunk > 0 && threadIdx.x % 32 == 0 ? smem_running_prefix[state_idx + r * MAX_DSTATE] : make_float2(1.f, 0.f);  // expect: HP102 warp-size PASS
                SSMScanPrefixCallbackOp<float> prefix_op(running_prefix);
                typename Ktraits::BlockScanT(smem_scan).InclusiveScan(
                    thread_data, thread_data, SSMScanOp<float>(), prefix_op
                );
                // There's a syncthreads in the scan op, so we don't need to sync here.
                // Unless there's only 1 warp, but then it's the same thread (0) reading and writing.
                if (threadIdx.x == 0) {
                    smem_running_prefix[state_idx + r * MAX_DSTATE] = prefix_op.running_prefix;
                    x[(r * 4 + chunk) * 16 + state_idx] = prefix_op.running_prefix;
                }
}
