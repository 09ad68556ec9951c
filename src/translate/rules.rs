//! Rules raised by the translation itself: CUDA names and headers the target ROCm cannot take
//! one-to-one (no equivalent, not yet or no longer there, deprecated, experimental), and the
//! mechanical fix-ups the port made that a reviewer should see.

use crate::registry::RuleInfo;

rule!(UNPORTED_API, "HP001", UnsupportedApi, Remediation, Build,
    summary: "A CUDA API with no HIP equivalent in the target ROCm.",
    why: "The name is left as it is, so the translated file will not compile under hipcc until the call is replaced or the target ROCm is raised.",
    bad: "cudaDeviceFlushGPUDirectRDMAWrites(target, scope);",
    good: "// replace with a HIP-supported sequence, or guard it out for HIP",
    fix: "Rewrite the call with HIP APIs that exist in the target, guard it with `#ifndef __HIP_PLATFORM_AMD__`, or target a ROCm release that has the equivalent (the message names it).",
    refs: ["https://rocm.docs.amd.com/projects/HIPIFY/en/latest/reference/tables/CUDA_Runtime_API_functions_supported_by_HIP.html"],
);

rule!(DEPRECATED_API, "HP002", DeprecatedApi, Remediation, Build,
    summary: "A CUDA API whose HIP equivalent is deprecated in the target ROCm.",
    why: "It compiles today with a warning and will stop compiling when ROCm removes it. Where no build file of the project turns warnings into errors (`-Werror`, `COMPILE_WARNING_AS_ERROR`) the port builds and runs, and the finding is PASS.",
    bad: "cudaThreadSynchronize();",
    good: "hipDeviceSynchronize();",
    fix: "Move to the replacement API named in the HIP documentation before the next ROCm upgrade.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/reference/deprecated_api_list.html"],
);

rule!(EXPERIMENTAL_API, "HP003", UnsupportedApi, Unknown, Build,
    summary: "A CUDA API whose HIP equivalent is experimental; left untranslated without --experimental.",
    why: "Experimental HIP APIs may change or behave differently; translating them silently would hide that risk.",
    bad: "cudaGraphInstantiateWithParams(&exec, graph, &params);",
    good: "hipGraphInstantiateWithParams(&exec, graph, &params); // with --experimental, after review",
    fix: "Review the HIP documentation of the API, then rerun with --experimental to translate it.",
    refs: ["https://rocm.docs.amd.com/projects/HIPIFY/en/latest/"],
);

rule!(UNMAPPED_INCLUDE, "HP004", Library, Remediation, Build,
    summary: "A CUDA header with no HIP counterpart in the target ROCm.",
    why: "hipcc will not find the header, or the header's API has no drop-in replacement.",
    bad: "#include <mma.h>",
    good: "#include <rocwmma/rocwmma.hpp> // and port the WMMA code to rocWMMA",
    fix: "Replace the header and the APIs it provides as the message says, or guard them out for HIP.",
    refs: ["https://rocm.docs.amd.com/en/latest/reference/api-libraries.html"],
);

rule!(WARP_SYNC_MASK_DROPPED, "HP005", WarpSize, Remediation, Correctness,
    summary: "A `*_sync` warp intrinsic was translated to its mask-less HIP form because the target ROCm lacks the `_sync` form: REMEDIATION when the dropped mask selects some lanes, PASS when it was a full mask (`0xffffffff`, `~0u`, `__activemask()`).",
    why: "The mask-less form acts on the whole wavefront (64 lanes on most AMD GPUs). Code that relied on the mask to select a subset of a 32-lane warp, or on convergence guarantees, can compute different results.",
    bad: "v += __shfl_down_sync(0xffffffff, v, offset);",
    good: "v += __shfl_down(v, offset); // reviewed: all lanes of the wavefront participate",
    fix: "Check that every lane of the wavefront executes the call; for partial masks restructure the code, or target ROCm 6.2 or later where the `_sync` forms exist with 64-bit masks.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#warp-cross-lane-functions"],
);

rule!(WARP_SYNC_32BIT_MASK, "HP006", WarpSize, Pass, Correctness,
    summary: "A 32-bit full mask passed to a `*_sync` warp intrinsic was widened to 64 bits by `hipport port` (PASS: done and equivalent).",
    why: "HIP's `_sync` intrinsics take 64-bit masks; `0xffffffff` names only the lower half of a 64-lane wavefront.",
    bad: "__shfl_down_sync(0xffffffff, v, 1)",
    good: "__shfl_down_sync(0xffffffffffffffffull, v, 1)",
    fix: "Use a 64-bit mask (`__activemask()` or all ones); check that the code does not assume 32 lanes elsewhere.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#warp-cross-lane-functions"],
);

rule!(WARP_SYNC_NEEDS_DEFINE, "HP007", BuildSystem, Remediation, Build,
    summary: "A HIP name is declared in the target ROCm only when a macro is defined: the `*_sync` warp intrinsics need `HIP_ENABLE_WARP_SYNC_BUILTINS` (6.2–6.4), directed-rounding arithmetic (`__fadd_ru`, `__fma_rd`) `OCML_BASIC_ROUNDED_OPERATIONS`.",
    why: "In this ROCm release the HIP headers declare the name only when the macro is defined before them; HIP-Clang includes its math header before the first line of the source, so the macro belongs on the compile line. One flag per project: every file's uses of it are one decision.",
    bad: "__shfl_xor_sync(mask, v, 1)   // built without -DHIP_ENABLE_WARP_SYNC_BUILTINS",
    good: "hipcc -DHIP_ENABLE_WARP_SYNC_BUILTINS ...",
    fix: "Add the macro to the HIP compile flags (`-DHIP_ENABLE_WARP_SYNC_BUILTINS`, `-DOCML_BASIC_ROUNDED_OPERATIONS`).",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#warp-cross-lane-functions"],
);

rule!(HIP_DEFINES_OVERLOAD, "HP008", DeviceFeature, Pass, Build,
    summary: "A user definition that HIP already provides (vector-type operators, double atomics) was guarded out for HIP by `hipport port` (PASS: done).",
    why: "HIP's headers define these operators and overloads; a second definition is a redefinition error under hipcc.",
    bad: "inline __device__ float4 operator+(float4 a, float4 b) { ... }",
    good: "#if !defined(__HIP__)\ninline __device__ float4 operator+(float4 a, float4 b) { ... }\n#endif",
    fix: "Check that HIP's definition has the semantics the code expects, then delete the guarded copy.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/reference/cpp_language_extensions.html"],
);

rule!(COMPAT_SHIM, "HP020", UnsupportedApi, Pass, Build,
    summary: "A CUDA name the target ROCm lacks, provided by `hipport_compat.h` with the later HIP release's own implementation.",
    why: "The target release has a gap that a later release closed; the compat header carries that release's definition, so the port compiles and behaves as it will after an upgrade.",
    bad: "#include <math_constants.h>   // no hip_math_constants.h in ROCm 5.2",
    good: "#include \"hipport_compat.h\" // HIP_PI_F … as ROCm 5.3 defines them",
    fix: "Nothing to do; drop the header once the target release provides the names.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/"],
);

rule!(COMPAT_SHIM_REVIEW, "HP021", UnsupportedApi, Remediation, Correctness,
    summary: "A CUDA name the target ROCm lacks, provided by a `hipport_compat.h` shim that is not the release's own implementation.",
    why: "The shim compiles and follows the documented semantics, with the differences its note in the header names (masks ignored, wavefront-wide reductions, other rounding or strings); results must be checked on the GPU.",
    bad: "__syncwarp();   // not in HIP before 7.0",
    good: "__syncwarp();   // from hipport_compat.h: wavefront fence + barrier; verified by the test suite on MI hardware",
    fix: "Read the shim's note in hipport_compat.h, run the code's tests on the target GPU, or target a ROCm release with the feature.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html"],
);

rule!(OVERLOADS_COLLIDE, "HP009", UnsupportedApi, Remediation, Build,
    summary: "Two overloads whose parameter types are different CUDA types that map to one HIP type (`cudaError_t` and `CUresult` are both `hipError_t`): after the port they are one function defined twice. `hipport port` wraps each copy in `#ifndef HIPPORT_ONCE_…` so the first one a unit compiles serves every call (PASS: done); REMEDIATION where a copy cannot be guarded on lines of its own.",
    why: "HIP folds some CUDA types into one (`cudaError_t`/`CUresult` → `hipError_t`, `cudaStream_t`/`CUstream` → `hipStream_t`); overloads that told them apart become a redefinition error in every unit that compiles both. Every copy takes the same HIP type, so any one of them serves all calls.",
    bad: "static const char *_cudaGetErrorEnum(cudaError_t e) { ... }\nstatic const char *_cudaGetErrorEnum(CUresult e) { ... }   // both _cudaGetErrorEnum(hipError_t)",
    good: "#ifndef HIPPORT_ONCE_cudaGetErrorEnum_hipError_t\n#define HIPPORT_ONCE_cudaGetErrorEnum_hipError_t\nstatic const char *_cudaGetErrorEnum(hipError_t e) { ... }\n#endif",
    fix: "Nothing where the port guarded the copies (delete the unused one when tidying); otherwise keep one for HIP: guard the others with `#if !defined(__HIP__)`, or rename one.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/reference/api_syntax.html"],
);

rule!(AMBIGUOUS_KERNEL_CAST, "HP010", UnsupportedApi, Remediation, Build,
    summary: "A kernel passed to a HIP function that takes `const void*` is written with a `<` the port cannot read as template arguments or a comparison; no cast was inserted.",
    why: "HIP declares `hipFuncSetAttribute(const void*, …)` and its siblings without CUDA's template overloads, so the port wraps the kernel in `reinterpret_cast<const void*>(…)`. When the argument is `k<1, 2>` and `k` is not declared as a template in the file, the comma may end the argument (a comparison) or not (template arguments); a cast closed at the wrong comma does not compile.",
    bad: "cudaFuncSetAttribute(kernel_from_header<1, 2>, cudaFuncAttributeMaxDynamicSharedMemorySize, 1024);",
    good: "hipFuncSetAttribute(reinterpret_cast<const void*>(kernel_from_header<1, 2>), hipFuncAttributeMaxDynamicSharedMemorySize, 1024);",
    fix: "Wrap the whole kernel argument in `reinterpret_cast<const void*>(…)` by hand. The port reads `<` as template arguments only after a name the same file declares with `template <…>`.",
    refs: ["https://github.com/ROCm/HIP/blob/rocm-5.2.x/include/hip/hip_runtime_api.h"],
);

rule!(WEAK_ALIAS_PRAGMA, "HP011", DeviceFeature, Remediation, Build,
    summary: "`#pragma weak b = a` makes `b` an alias of `a`; hipcc accepts it with `-fsyntax-only` but fails when it emits code.",
    why: "clang lowers the pragma to an alias in every module it emits, the device module included; where `a` is not defined in that module (a host function, or a declaration defined elsewhere) the compile stops with \"alias must point to a defined variable or function\". nvcc never emits the alias for the device side.",
    bad: "ncclResult_t ncclAllReduce(...);\n#pragma weak pncclAllReduce=ncclAllReduce",
    good: "ncclResult_t pncclAllReduce(...) { return ncclAllReduce(...); } // a real function, or __attribute__((alias(\"ncclAllReduce\"))) next to its definition",
    fix: "Define `b` as a function that calls `a`, or declare it `__attribute__((alias(\"a\")))` in the unit that defines `a`; or keep the pragma out of HIP builds with `#if !defined(__HIP_PLATFORM_AMD__)`.",
    refs: ["https://gcc.gnu.org/onlinedocs/gcc/Weak-Pragmas.html"],
);

rule!(HOST_PRINTF_IN_DEVICE_CODE, "HP012", DeviceFeature, Remediation, Build,
    summary: "`std::printf` called in device code: nvcc accepts it, hipcc rejects it (\"reference to __host__ function 'printf' in __global__ function\"). `hipport port` rewrites it to `printf` in a `__global__` or `__device__` function (PASS: done); REMEDIATION where the function is also `__host__` or its kind is not clear from the tokens.",
    why: "HIP's device `printf` is a global function; `std::printf` names the host C library's declaration from `<cstdio>`, which has no device overload under HIP-Clang.",
    bad: "__global__ void k() { std::printf(\"%d\\n\", threadIdx.x); }",
    good: "__global__ void k() { printf(\"%d\\n\", threadIdx.x); }",
    fix: "Call `printf` (unqualified) in device code; in a `__host__ __device__` function, use `printf` too (HIP provides both sides).",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#printf"],
);

rule!(REGISTER_STORAGE_CLASS, "HP014", DeviceFeature, Pass, Build,
    summary: "The `register` storage class in C++ or CUDA code, dropped by `hipport port` (PASS: done and equivalent). Kept in `.c` files, where C allows it, and on explicit register variables (`register int r asm(\"…\")`), which clang accepts in every mode.",
    why: "nvcc accepts `register` (a deprecation warning at most); hipcc compiles C++17 by default, where clang rejects it: \"ISO C++17 does not allow 'register' storage class specifier\" (`-Wregister`, an error by default). Under `-std=c++14` or older clang accepts it with a `-Wdeprecated-register` warning. The keyword has had no effect on code generation for decades, so dropping it changes nothing.",
    bad: "register float acc = 0.0f;",
    good: "float acc = 0.0f;",
    fix: "Nothing to do: the port dropped the keyword. Code built with `-std=c++14` would also compile with it.",
    refs: ["https://github.com/llvm/llvm-project/blob/main/clang/test/SemaCXX/deprecated.cpp", "https://wg21.link/p0001r1"],
);

rule!(WARP_SYNC_NARROW_MASK, "HP015", WarpSize, Remediation, Build,
    summary: "A `*_sync` warp intrinsic's mask of a 32-bit type (a `uint32_t` local or parameter, `(1U << n) - 1`, an `unsigned` constant) at a target whose HIP has the `_sync` forms (ROCm 6.2+): the call does not compile. PASS where `hipport port` widened the mask keeping CUDA's meaning: the lane's own 32-lane half (`((unsigned long long)(m) << (__lane_id() & 32))`) in a function of 32-lane logical warps, the mask zero-extended where only lanes 0–31 run the call. REMEDIATION where the lanes that run the call may span the wavefront (`port --unsafe-fixes` widens it; UNKNOWN once applied).",
    why: "CUDA's `*_sync` intrinsics take an `unsigned` mask. HIP's take a template mask and `static_assert` that it is a 64-bit integer (\"Implicitly promoting a smaller integer is almost always an error\"), so a 32-bit mask stops the build. Widening it by zero-extension names lanes 0–31 of the wavefront; where each 32-lane half of a 64-lane wavefront works as one CUDA warp, the second half's mask must name lanes 32–63 (HIP checks the mask against the lanes that run the call).",
    bad: "const uint32_t leader = (1U << n) - 1;\nv = __shfl_sync(leader, v, 0);",
    good: "const uint32_t leader = (1U << n) - 1;\nv = __shfl_sync(((unsigned long long)(leader) << (__lane_id() & 32)), v, 0, 32);",
    fix: "Keep masks in 64 bits (`unsigned long long`), naming the lanes of the 64-lane wavefront that run the call; where each half of the wavefront is one CUDA warp, shift the half's mask by `__lane_id() & 32`.",
    refs: ["https://github.com/ROCm/clr/blob/develop/hipamd/include/hip/amd_detail/amd_warp_sync_functions.h", "https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_cpp_language_extensions.html#warp-cross-lane-functions"],
);

rule!(HIP_NAME_REMOVED, "HP016", UnsupportedApi, Remediation, Build,
    summary: "A HIP name the project writes itself (its own `#define cudaX hipX` shim, a HIP arm) that the target ROCm removed: `HIPBLAS_R_32F` and the other `hipblasDatatype_t` values at ROCm 7.0+. Nothing is reported for targets before the removal (the name compiles there).",
    why: "`hipport port` leaves the project's own ROCm layer as written, and the HIPIFY tables track CUDA names, not the HIP names a project spells by hand; a name the target's headers no longer declare stops the build.",
    bad: "#define CUDA_C_32F HIPBLAS_C_32F",
    good: "#define CUDA_C_32F HIP_C_32F",
    fix: "Write the name the target declares (the message names it), or test the library's version where the project supports releases on both sides.",
    refs: ["https://rocm.docs.amd.com/projects/hipBLAS/en/latest/reference/deprecation.html"],
);

rule!(KERNEL_VOID_CAST, "HP017", UnsupportedApi, Pass, Build,
    summary: "A kernel passed to a HIP function declared with `const void*` only (`hipFuncSetAttribute`, `hipFuncGetAttributes`, `hipFuncSetCacheConfig`, `hipFuncSetSharedMemConfig`, `hipLaunchKernel`): `hipport port` wraps it in `reinterpret_cast<const void*>(…)` (PASS: done). A build that renames the call without the cast (PyTorch's build-time hipify of a `CUDAExtension`) stops there: REMEDIATION, one per file, with the file's other port-only rewrites.",
    why: "CUDA's runtime header adds template overloads that take any kernel (`cudaFuncSetAttribute(T* entry, …)`); HIP declares these functions with `const void*` only, and C++ converts no function pointer to `const void*` implicitly: \"no matching function for call to 'hipFuncSetAttribute'\".",
    bad: "cudaFuncSetAttribute(kernel_func, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);",
    good: "hipFuncSetAttribute(reinterpret_cast<const void*>(kernel_func), hipFuncAttributeMaxDynamicSharedMemorySize, smem);",
    fix: "Nothing where `hipport port` writes the sources; where another tool renames the call, wrap the kernel in `reinterpret_cast<const void*>(…)` by hand.",
    refs: ["https://github.com/ROCm/HIP/blob/rocm-5.2.x/include/hip/hip_runtime_api.h"],
);

rule!(PASTED_CUDA_PREFIX, "HP018", UnsupportedApi, Remediation, Build,
    summary: "A macro pastes a CUDA library prefix onto its argument (`#define CUDA_CALL(call) check(cuda##call)`, used as `CUDA_CALL(Malloc(&p, n))`): the CUDA names it forms exist only after preprocessing, so `hipport port` (like hipify) cannot rename them.",
    why: "The port renames the tokens it reads; `cuda ## call` is written as `cuda` and a parameter, and the name `cudaMalloc` is formed only where the preprocessor expands each use. After the port every use still calls the CUDA function, which HIP does not declare: the build stops at each use.",
    bad: "#define CUDA_CALL(call) check(cuda##call, #call)\nCUDA_CALL(Malloc(&p, n));",
    good: "#define CUDA_CALL(call) check(hip##call, #call)   // hipMalloc, hipMemcpy… keep CUDA's runtime names after the prefix",
    fix: "Paste the HIP prefix (`hip ## call`, `hipblas ## call`…) and check that every use names a function HIP has under that name; or write the full names at the uses.",
    refs: ["https://gcc.gnu.org/onlinedocs/cpp/Concatenation.html"],
);

rule!(SPACED_LAUNCH_BRACKETS, "HP019", UnsupportedApi, Pass, Build,
    summary: "A kernel launch written with blanks inside its brackets (`k << <grid, block >> >(args)`, as Visual Studio formats it): nvcc accepts it, clang does not. `hipport port` closes the brackets up (PASS: done). A build that renames APIs without touching launches (PyTorch's build-time hipify of a `CUDAExtension`) stops there: REMEDIATION, one per extension, with its other port-only rewrites.",
    why: "nvcc's front end reads `<< <` as a launch; clang's CUDA/HIP front end lexes `<<<` as one token and reads `<< <` as a shift followed by a comparison: \"expected expression\". PyTorch's hipify matches only `<<<` and leaves the spaced form as written.",
    bad: "knn_kernel << <blocks, threads >> > (n, pts, out);",
    good: "knn_kernel<<<blocks, threads>>> (n, pts, out);",
    fix: "Nothing where `hipport port` writes the sources; elsewhere write the launch brackets as `<<<` and `>>>`.",
    refs: ["https://clang.llvm.org/docs/HIPSupport.html", "https://github.com/pytorch/pytorch/blob/main/torch/utils/hipify/hipify_python.py"],
);

rule!(NAMES_PYTORCH_HIPIFY_LEAVES, "HP022", UnsupportedApi, Remediation, Build,
    summary: "CUDA names in the sources of a PyTorch extension (`CUDAExtension`, `load()`) that PyTorch's build-time hipify does not rename and HIP does not define (`nv_bfloat16`): one finding per extension, naming them. `hipport port` renames them; PyTorch's ROCm build does not.",
    why: "A PyTorch extension is ported for ROCm by PyTorch's own hipify when it is built, and that hipify renames only the names in its map (`torch/utils/hipify/cuda_to_hip_mappings.py`). Any other CUDA name reaches hipcc as written: `nv_bfloat16` is `__nv_bfloat16`'s public alias in `cuda_bf16.h`, and HIP's `hip_bf16.h` defines neither, so the build stops at 'unknown type name'. Projects that build on ROCm add the alias themselves under `USE_ROCM`.",
    bad: "nv_bfloat16* out = (nv_bfloat16*)output.data_ptr();  // built by CUDAExtension",
    good: "#ifdef USE_ROCM\ntypedef __hip_bfloat16 nv_bfloat16;\n#endif",
    fix: "Define the names for the ROCm build in a header every source includes (`typedef __hip_bfloat16 nv_bfloat16;` under `#ifdef USE_ROCM`), or rename them in the sources (`hipport port --write`) and keep the renames.",
    refs: ["https://github.com/ROCm/hipify_torch", "https://github.com/pytorch/pytorch/blob/main/torch/utils/hipify/cuda_to_hip_mappings.py"],
);

rule!(PROJECT_OVERLOAD_REACHED, "HP023", UnsupportedApi, Remediation, Build,
    summary: "A warp intrinsic call that may reach the project's own overload of the name (a function it defines in its namespace for its types, found by argument-dependent lookup) where `hipport port` would change the call's shape: width 32 on a shuffle of 32-lane logical warps, or the mask-less `__shfl_down(v, d)` of a target without `_sync` forms. The overload does not take the rewritten call, so `port` leaves the call as written and says what a person must change.",
    why: "C++ looks an unqualified call's name up in the namespaces of its arguments' types, so `__shfl_down_sync(mask, val, offset)` in a template calls the project's `ns::__shfl_down_sync(unsigned, const Pair&, const int&)` when `val` is a `Pair` and HIP's otherwise. A fourth argument (the width) or a renamed, mask-less call matches HIP's function only: the instantiation for the project's type stops at 'no matching function'. Left as written, the call keeps HIP's default width (the 64-lane wavefront), which is not CUDA's meaning where the function's lanes are 32-lane logical warps.",
    bad: "namespace geo { __device__ Pair __shfl_down_sync(unsigned m, const Pair& a, const int& d); }\ntemplate <class T> __device__ T warp_max(T v) { for (int o = 16; o > 0; o /= 2) v = max(v, __shfl_down_sync(~0u, v, o)); return v; }",
    good: "namespace geo { __device__ Pair __shfl_down_sync(unsigned long long m, const Pair& a, unsigned d, int width = warpSize); }  // forwards `width` to ::__shfl_down_sync\n// `hipport port` then writes width 32 at the call",
    fix: "Give the overload HIP's parameters (a 64-bit mask from ROCm 6.2, `int width = warpSize` last) and forward the width to HIP's call; `hipport port` then writes width 32 at the call. For a target without `_sync` forms, overload the mask-less name (`__shfl_down`) too, or target ROCm 6.2+.",
    refs: ["https://en.cppreference.com/w/cpp/language/adl", "https://rocm.docs.amd.com/projects/HIP/en/latest/reference/cpp_language_extensions.html"],
);

rule!(BUILTIN_INDEX_VECTOR, "HP024", UnsupportedApi, Pass, Build,
    summary: "`threadIdx`, `blockIdx`, `blockDim` or `gridDim` used as a whole vector (`uint3 t = blockIdx * blockDim + threadIdx;` with `helper_math.h`'s operators): `hipport port` writes `make_uint3(v.x, v.y, v.z)`, the value CUDA had (PASS: done).",
    why: "CUDA declares `threadIdx` and `blockIdx` as `uint3` and `blockDim`, `gridDim` as `dim3` (which converts to `uint3`). HIP declares each as a struct of properties whose only conversion is to `dim3`, and `dim3` does not convert to HIP's `uint3`: 'no viable conversion', 'invalid operands to binary expression'.",
    bad: "uint3 t = blockIdx * make_uint3(blockDim.x, blockDim.y, blockDim.z) + threadIdx;",
    good: "uint3 t = make_uint3(blockIdx.x, blockIdx.y, blockIdx.z) * make_uint3(blockDim.x, blockDim.y, blockDim.z) + make_uint3(threadIdx.x, threadIdx.y, threadIdx.z);",
    fix: "Nothing where `hipport port` writes the sources; elsewhere build the vector from its components (`make_uint3(threadIdx.x, threadIdx.y, threadIdx.z)`).",
    refs: ["https://github.com/ROCm/clr/blob/develop/hipamd/include/hip/amd_detail/amd_hip_runtime.h"],
);

rule!(SURFACE_FORM, "HP025", UnsupportedApi, Remediation, Build,
    summary: "A surface read or write in a form HIP does not declare: the value-returning `surf3Dread<T>(surf, x, y, z)`, or a 2D/3D read or write with a boundary mode (`cudaBoundaryModeClamp`). HIP keeps the names, so the port renames nothing and the call stops the build.",
    why: "CUDA declares each surface read twice (through a pointer, and returning the value) and gives every read and write a boundary mode. HIP's `amd_surface_functions.h` declares `surfNDread(T* data, hipSurfaceObject_t, …)` only, with a mode on the 1D read alone: 'no matching function for call to surf3Dread'.",
    bad: "float v = surf3Dread<float>(atlas, x * sizeof(float), y, z);",
    good: "float v; surf3Dread(&v, atlas, x * sizeof(float), y, z);",
    fix: "Read into a variable through HIP's pointer form (or one `__device__` helper that does and returns it); drop boundary modes on 2D/3D calls, bounding the coordinates where the code relied on trap or clamp.",
    refs: ["https://github.com/ROCm/clr/blob/develop/hipamd/include/hip/amd_detail/amd_surface_functions.h"],
);

rule!(INDEX_COMPONENT_VARARG, "HP026", UnsupportedApi, Pass, Build,
    summary: "`threadIdx.x` (or another component of an index variable) passed to `printf` as is, at a target before ROCm 6.1: `hipport port` writes `(unsigned int)threadIdx.x`, the type CUDA gives it (PASS: done).",
    why: "Before ROCm 6.1 HIP declares each component as an object that converts to `unsigned int`; a variadic argument takes no conversion, so hipcc stops with 'cannot compile this non-scalar arg to printf yet' (ROCm/hip#2963, closed as won't fix). ROCm 6.1's headers declare the components as `unsigned int` properties (ROCm/clr 0f9f8b52).",
    bad: "printf(\"block %u thread %u\\n\", blockIdx.x, threadIdx.x);",
    good: "printf(\"block %u thread %u\\n\", (unsigned int)blockIdx.x, (unsigned int)threadIdx.x);",
    fix: "Nothing where `hipport port` writes the sources; elsewhere cast each component passed to `printf` to `unsigned int`, or target ROCm 6.1 or later.",
    refs: ["https://github.com/ROCm/hip/issues/2963", "https://github.com/ROCm/clr/commit/0f9f8b52da0e970282f7b3d0194b1bddc71836bd"],
);

rule!(HALF_RESTRICTION_LIFTED, "HP027", DeviceFeature, Pass, Build,
    summary: "`#undef __CUDA_NO_HALF_OPERATORS__` (or `__CUDA_NO_HALF2_OPERATORS__`, `__CUDA_NO_HALF_CONVERSIONS__`) in a source: the file lifts the restriction a build puts on `half` for nvcc, and `hipport port` adds `#undef` of HIP's twin after it (PASS: done). In a PyTorch extension, whose ROCm build passes hipcc the HIP twins and hipifies nothing of this, it is REMEDIATION with the extension's other port-only rewrites.",
    why: "PyTorch compiles extensions with `-D__CUDA_NO_HALF_OPERATORS__ -D__CUDA_NO_HALF_CONVERSIONS__ -D__CUDA_NO_HALF2_OPERATORS__`; code that uses `half` arithmetic lifts them with `#undef` before including `cuda_fp16.h`. On ROCm PyTorch passes `-D__HIP_NO_HALF_OPERATORS__=1 -D__HIP_NO_HALF_CONVERSIONS__=1` instead, and its hipify does not rename the CUDA macros: `__half2 += __half2` stops at \"no viable overloaded '+='\" (hipcc, measured). HIP has no `half2` twin: `__HIP_NO_HALF_OPERATORS__` turns off the operators of both types.",
    bad: "#undef __CUDA_NO_HALF2_OPERATORS__\n#include <cuda_fp16.h>",
    good: "#undef __CUDA_NO_HALF2_OPERATORS__\n#undef __HIP_NO_HALF_OPERATORS__\n#include <hip/hip_fp16.h>",
    fix: "Nothing where `hipport port` writes the sources; elsewhere add `#undef __HIP_NO_HALF_OPERATORS__` (and `#undef __HIP_NO_HALF_CONVERSIONS__` for the conversions) next to the CUDA `#undef`, or `-U` them in the extension's `nvcc` flags.",
    refs: ["https://github.com/ROCm/clr/blob/rocm-6.2.0/hipamd/include/hip/amd_detail/amd_hip_fp16.h", "https://github.com/pytorch/pytorch/blob/main/torch/utils/cpp_extension.py"],
);

pub const RULES: &[&RuleInfo] = &[
    &UNPORTED_API,
    &DEPRECATED_API,
    &EXPERIMENTAL_API,
    &UNMAPPED_INCLUDE,
    &WARP_SYNC_MASK_DROPPED,
    &WARP_SYNC_32BIT_MASK,
    &WARP_SYNC_NEEDS_DEFINE,
    &HIP_DEFINES_OVERLOAD,
    &OVERLOADS_COLLIDE,
    &COMPAT_SHIM,
    &COMPAT_SHIM_REVIEW,
    &AMBIGUOUS_KERNEL_CAST,
    &WEAK_ALIAS_PRAGMA,
    &HOST_PRINTF_IN_DEVICE_CODE,
    &REGISTER_STORAGE_CLASS,
    &WARP_SYNC_NARROW_MASK,
    &HIP_NAME_REMOVED,
    &KERNEL_VOID_CAST,
    &PASTED_CUDA_PREFIX,
    &SPACED_LAUNCH_BRACKETS,
    &NAMES_PYTORCH_HIPIFY_LEAVES,
    &PROJECT_OVERLOAD_REACHED,
    &BUILTIN_INDEX_VECTOR,
    &SURFACE_FORM,
    &INDEX_COMPONENT_VARARG,
    &HALF_RESTRICTION_LIFTED,
];
