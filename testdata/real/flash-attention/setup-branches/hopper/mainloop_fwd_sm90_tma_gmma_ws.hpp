// Source: https://github.com/Dao-AILab/flash-attention/blob/0251105a2fb19d2957484b7f023cd8c115286ced/hopper/mainloop_fwd_sm90_tma_gmma_ws.hpp (lines 1-15,44).
// Licence: BSD-3-Clause, Copyright (c) 2022, Tri Dao and the respective contributors. Labels (`expect` comments) added by hipport, by reading the code.
/******************************************************************************
 * Copyright (c) 2024, Jay Shah, Ganesh Bikshandi, Ying Zhang, Vijay Thakkar, Pradeep Ramani, Tri Dao.
 ******************************************************************************/

#pragma once

#include <cutlass/cutlass.h>  // expect-ok: CUTLASS in hopper/ (no ROCm arm): folded into its one HP833 decision
#include <cutlass/array.h>  // expect-ok: folded into hopper/'s HP833
#include <cutlass/numeric_types.h>  // expect-ok: folded into hopper/'s HP833
#include <cutlass/numeric_conversion.h>  // expect-ok: folded into hopper/'s HP833
#include "cutlass/pipeline/pipeline.hpp"  // expect-ok: folded into hopper/'s HP833

#include "cute/tensor.hpp"  // expect-ok: folded into hopper/'s HP833

#include "cutlass/gemm/collective/builders/sm90_common.inl"  // expect-ok: folded into hopper/'s HP833

    static constexpr bool Is_FP8 = cute::is_same_v<Element, cutlass::float_e4m3_t> || cute::is_same_v<Element, cutlass::float_e5m2_t>;;  // expect-ok: folded into hopper/'s HP833
