// Source: https://github.com/state-spaces/mamba/blob/e9594ce1c732d97440f0332fdc43170a2294dbfa/csrc/selective_scan/uninitialized_copy.cuh
//         (lines 28-81). Licence: BSD-3-Clause (NVIDIA CUB), as stated in the file; mamba is Apache-2.0.
// Labels (`expect` comments) added by hipport.
#pragma once

#ifndef USE_ROCM
    #include <cub/config.cuh>

    #include <cuda/std/type_traits>
#else
    #include <hipcub/hipcub.hpp>
    // Map ::cuda::std to the standard std namespace
    namespace cuda {
        namespace std = ::std;
    }
#endif


namespace detail
{

#if defined(_NVHPC_CUDA)
template <typename T, typename U>
__host__ __device__ void uninitialized_copy(T *ptr, U &&val)
{
  // NVBug 3384810
  new (ptr) T(::cuda::std::forward<U>(val));
}
#else
template <typename T,
          typename U,
          typename ::cuda::std::enable_if<
            ::cuda::std::is_trivially_copyable<T>::value,
            int
          >::type = 0>
__host__ __device__ void uninitialized_copy(T *ptr, U &&val)
{
  *ptr = ::cuda::std::forward<U>(val);
}

template <typename T,
         typename U,
         typename ::cuda::std::enable_if<
           !::cuda::std::is_trivially_copyable<T>::value,
           int
         >::type = 0>
__host__ __device__ void uninitialized_copy(T *ptr, U &&val)
{
  new (ptr) T(::cuda::std::forward<U>(val));
}
#endif

} // namespace detail
