// Source: https://github.com/NVIDIA/cuda-samples/blob/1f76a2d110b1d251896b7a4d20998328761ad168/Common/helper_functions.h (lines 28-31, 57).
// Licence: BSD-3-Clause, Copyright (c) 2021, NVIDIA CORPORATION. Kept so that the samples' `#include <helper_functions.h>` finds the project's own copy, as in cuda-samples.
// These are helper functions for the SDK samples (string parsing,
// timers, image helpers, etc)
#ifndef COMMON_HELPER_FUNCTIONS_H_
#define COMMON_HELPER_FUNCTIONS_H_
#endif  // COMMON_HELPER_FUNCTIONS_H_
