// Source: https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/hopper/instantiations/flash_fwd_hdim128_bf16_sm90.cu (lines 1-9).
// Licence: BSD-3-Clause, Copyright (c) 2022, Tri Dao and the respective contributors. Labels (`expect` comments) added by hipport, by reading the code.
// Copyright (c) 2024, Jay Shah, Ganesh Bikshandi, Ying Zhang, Vijay Thakkar, Pradeep Ramani, Tri Dao.
// Splitting the different template instantiations to different files to speed up compilation.
// This file is auto-generated. See "generate_kernels.py"

#include "flash_fwd_launch_template.h"

#ifndef FLASHATTENTION_DISABLE_HDIM128
template void run_mha_fwd_<90, cutlass::bfloat16_t, 128, 128, false, false, false, false>(Flash_fwd_params &params, cudaStream_t stream);  // expect-ok: a CUTLASS sm90 instantiation of hopper/, which has no ROCm arm: folded into its one HP833 decision
#endif
