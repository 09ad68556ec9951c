// Source: https://github.com/ParRes/Kernels/blob/04248b66a03d7f5edba8d54c9ae7834dd718027a/Cxx11/transpose-thread.cc (lines 55-62).
// Licence: BSD-3-Clause, Copyright (c) 2013, Intel Corporation. Labels (`expect` comments) added by hipport, by reading the code.
#include "prk_util.h"

// These headers are busted with NVCC and GCC 5.4.0
// The <future> header is busted with Cray C++ 8.6.1.
#if !defined(__NVCC__) && !defined(_CRAYC)  // expect-ok: a host-only source (std::thread), compiled by the host compiler in the CUDA build too, where __NVCC__ is just as undefined
#include <thread>
#include <future>
#endif
