// Source: https://github.com/ParRes/Kernels/blob/04248b66a03d7f5edba8d54c9ae7834dd718027a/Cxx11/prk_sycl.h (lines 50-59, closing braces added).
// Licence: BSD-3-Clause, Copyright (c) 2013, Intel Corporation. Labels (`expect` comments) added by hipport, by reading the code.
namespace prk {

    // There seems to be an issue with the clang CUDA/HIP toolchains not having
    // std::abort() available
    void Abort(void) {
#if defined(HIPSYCL_PLATFORM_CUDA) || defined(HIPSYCL_PLATFORM_HCC)  // expect-ok: hipSYCL's backend macros, which hipcc never defines; not a ROCm switch of the project
        abort();
#else
        std::abort();
#endif
    }
}
