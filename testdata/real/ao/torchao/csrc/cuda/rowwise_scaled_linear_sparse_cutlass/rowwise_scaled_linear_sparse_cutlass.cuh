// Source: https://github.com/pytorch/ao/blob/36027d82d1ad9949597ea16002ff4940374b1b94/torchao/csrc/cuda/rowwise_scaled_linear_sparse_cutlass/rowwise_scaled_linear_sparse_cutlass.cuh (lines 26-40, the #if's two lines joined, with the block's closing #endif).
// Licence: BSD-3-Clause, Copyright 2023 Meta and the respective contributors. Labels (`expect` comments) added by hipport.
// The CUTLASS kernel is built only when CUDA_VERSION >= 12020: the HIP build compiles none of it.
#if defined(TORCHAO_USE_CUTLASS) && !defined(_WIN32) && defined(CUDA_VERSION) && (CUDA_VERSION >= 12020)  // expect: HP301 version-check REMEDIATION
#define BUILD_ROWWISE_SCALED_LINEAR_SPARSE_CUTLASS
#endif

#if defined(BUILD_ROWWISE_SCALED_LINEAR_SPARSE_CUTLASS)
#include <cuda_runtime.h>  // expect-ok: behind the CUDA-only macro
#include <cutlass/cutlass.h>  // expect-ok: behind a macro defined only when CUDA_VERSION >= 12020
#include <cutlass/functional.h>  // expect-ok: behind a macro defined only when CUDA_VERSION >= 12020
#include <cutlass/epilogue/collective/default_epilogue.hpp>  // expect-ok: behind a macro defined only when CUDA_VERSION >= 12020
#include <cutlass/epilogue/collective/collective_builder.hpp>  // expect-ok: behind a macro defined only when CUDA_VERSION >= 12020
#include <cutlass/gemm/dispatch_policy.hpp>  // expect-ok: behind a macro defined only when CUDA_VERSION >= 12020
#include <cutlass/gemm/collective/collective_builder.hpp>  // expect-ok: behind a macro defined only when CUDA_VERSION >= 12020
#include <cutlass/gemm/device/gemm_universal_adapter.h>  // expect-ok: behind a macro defined only when CUDA_VERSION >= 12020
#include <cutlass/util/packed_stride.hpp>  // expect-ok: behind a macro defined only when CUDA_VERSION >= 12020
#endif
