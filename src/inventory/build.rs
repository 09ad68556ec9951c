//! build-system rules: CMake, Makefiles, shell build scripts, Bazel and Visual Studio projects that build with nvcc or
//! link CUDA libraries, with the HIP form of each.

use crate::registry::RuleInfo;

rule!(CMAKE_CUDA_LANGUAGE, "HP840", BuildSystem, Remediation, Build,
    summary: "CMake enables the CUDA language (`LANGUAGES CUDA`, `enable_language(CUDA)`).",
    why: "CMake's CUDA language needs nvcc (or clang with a CUDA toolkit); on ROCm the HIP language (CMake 3.21+) compiles the sources with the ROCm clang.",
    bad: "project(app LANGUAGES CXX CUDA)",
    good: "project(app LANGUAGES CXX HIP)\nset_source_files_properties(kernel.cu PROPERTIES LANGUAGE HIP)",
    fix: "Use `LANGUAGES HIP` / `enable_language(HIP)`, mark .cu files `LANGUAGE HIP`, and set `CMAKE_HIP_ARCHITECTURES`.",
    refs: ["https://rocm.docs.amd.com/en/latest/conceptual/cmake-packages.html", "https://cmake.org/cmake/help/latest/manual/cmake-language.7.html"],
);

rule!(CMAKE_FIND_CUDA_PACKAGE, "HP841", BuildSystem, Remediation, Build,
    summary: "`find_package(CUDA|CUDAToolkit|NCCL|CUDNN)`.",
    why: "These packages find NVIDIA toolkits; ROCm ships CMake packages `hip`, `hipblas`, `rccl`, `miopen`...",
    bad: "find_package(CUDAToolkit REQUIRED)",
    good: "find_package(hip REQUIRED)\nfind_package(hipblas REQUIRED)",
    fix: "Find the ROCm packages instead (hip, hipblas, rccl, miopen) and link their imported targets.",
    refs: ["https://rocm.docs.amd.com/en/latest/conceptual/cmake-packages.html"],
);

rule!(CMAKE_CUDA_IMPORTED_TARGET, "HP842", BuildSystem, Remediation, Build,
    summary: "A `CUDA::*` imported target (`CUDA::cudart`, `CUDA::cublas`...).",
    why: "The `CUDA::` targets come from FindCUDAToolkit and do not exist on ROCm.",
    bad: "target_link_libraries(app PRIVATE CUDA::cudart CUDA::cublas)",
    good: "target_link_libraries(app PRIVATE hip::host roc::hipblas)",
    fix: "Link the ROCm targets: `hip::host`/`hip::device`, `roc::hipblas`, `roc::hipfft`, `rccl::rccl`, `MIOpen`.",
    refs: ["https://rocm.docs.amd.com/en/latest/conceptual/cmake-packages.html"],
);

rule!(CUDA_ARCH_FLAG, "HP843", BuildSystem, Remediation, Build,
    summary: "An NVIDIA architecture setting (`-arch=sm_XX`, `-gencode`, `CMAKE_CUDA_ARCHITECTURES`, `TORCH_CUDA_ARCH_LIST`).",
    why: "NVIDIA SM architectures mean nothing to the ROCm compiler; AMD targets are gfx names chosen per GPU.",
    bad: "nvcc -gencode arch=compute_80,code=sm_80 k.cu",
    good: "hipcc --offload-arch=gfx942 k.cu",
    fix: "Use `--offload-arch=gfx...` (hipcc), `CMAKE_HIP_ARCHITECTURES` (CMake) or `PYTORCH_ROCM_ARCH` (PyTorch extensions) for the target GPUs.",
    refs: ["https://rocm.docs.amd.com/projects/install-on-linux/en/latest/reference/system-requirements.html"],
);

rule!(CMAKE_NVCC_FLAGS, "HP844", BuildSystem, Remediation, Build,
    summary: "`CUDA_NVCC_FLAGS` / `CMAKE_CUDA_FLAGS` set nvcc options.",
    why: "These variables only reach nvcc; hipcc/clang take different flags (`CMAKE_HIP_FLAGS`).",
    bad: "set(CUDA_NVCC_FLAGS \"${CUDA_NVCC_FLAGS} --use_fast_math\")",
    good: "set(CMAKE_HIP_FLAGS \"${CMAKE_HIP_FLAGS} -ffast-math\")",
    fix: "Translate the flags to clang/hipcc equivalents in `CMAKE_HIP_FLAGS`.",
    refs: ["https://rocm.docs.amd.com/en/latest/conceptual/cmake-packages.html"],
);

rule!(CMAKE_FINDCUDA_MACRO, "HP845", BuildSystem, Remediation, Build,
    summary: "FindCUDA macros (`cuda_add_library`, `cuda_add_executable`...).",
    why: "FindCUDA is deprecated and drives nvcc directly; it has no ROCm counterpart.",
    bad: "cuda_add_library(kernels kernel.cu)",
    good: "add_library(kernels kernel.cu)\nset_source_files_properties(kernel.cu PROPERTIES LANGUAGE HIP)",
    fix: "Use plain `add_library`/`add_executable` with the HIP language.",
    refs: ["https://cmake.org/cmake/help/latest/module/FindCUDA.html"],
);

rule!(CMAKE_ROCM_ARM_FAILS, "HP846", BuildSystem, Remediation, Build,
    summary: "A CMake `if()` arm that the project's ROCm build takes stops the configure (`message(FATAL_ERROR ...)`).",
    why: "The project builds for HIP (it tests a ROCm switch), and under that switch this arm runs: its `FATAL_ERROR` (or `SEND_ERROR`) ends the ROCm configure, so whatever the arm guards (a CUDA-only feature, a required CUDA package) is a build failure on ROCm, not a CUDA-side detail.",
    bad: "if(BUILD_CUDA)\n  find_package(CUDAToolkit REQUIRED)\nelse()\n  message(FATAL_ERROR \"CUDA is required\")\nendif()",
    good: "if(BUILD_CUDA)\n  find_package(CUDAToolkit REQUIRED)\nelseif(BUILD_HIP)\n  find_package(hip REQUIRED)\nendif()",
    fix: "Give the ROCm build its own arm (find the ROCm packages, set the HIP sources), or drop the check if the ROCm build does not need what it guards.",
    refs: ["https://cmake.org/cmake/help/latest/command/message.html", "https://rocm.docs.amd.com/en/latest/conceptual/cmake-packages.html"],
);

rule!(NVCC_INVOCATION, "HP850", BuildSystem, Remediation, Build,
    summary: "A build step runs `nvcc`.",
    why: "nvcc does not exist on a ROCm system.",
    bad: "nvcc -O3 -o app main.cu",
    good: "hipcc -O3 --offload-arch=gfx942 -o app main.hip",
    fix: "Compile with `hipcc` (or `amdclang++ -x hip`) after translating the sources with `hipport port`.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/"],
);

rule!(CUDA_LIBRARY_LINK, "HP851", BuildSystem, Remediation, Build,
    summary: "Links a CUDA library (`-lcudart`, `-lcublas`, `-lcudnn`, `-lnccl`...).",
    why: "The CUDA libraries are absent on ROCm; each has a HIP/ROCm counterpart with a different name.",
    bad: "LDFLAGS += -lcudart -lcublas",
    good: "LDFLAGS += -lamdhip64 -lhipblas",
    fix: "Link the ROCm library named in the message (amdhip64, hipblas, MIOpen, rccl, hipfft...).",
    refs: ["https://rocm.docs.amd.com/en/latest/reference/api-libraries.html"],
);

rule!(CUDA_INSTALL_PATH, "HP852", BuildSystem, Remediation, Build,
    summary: "A CUDA toolkit path or variable (`/usr/local/cuda`, `CUDA_HOME`, `CUDA_PATH`).",
    why: "ROCm installs under /opt/rocm and is found through `ROCM_PATH`.",
    bad: "CUDA_HOME ?= /usr/local/cuda",
    good: "ROCM_PATH ?= /opt/rocm",
    fix: "Point at `ROCM_PATH` (default /opt/rocm) and its include/lib directories.",
    refs: ["https://rocm.docs.amd.com/projects/install-on-linux/en/latest/"],
);

rule!(BAZEL_CUDA_RULE, "HP853", BuildSystem, Remediation, Build,
    summary: "A Bazel CUDA rule (`cuda_library`, `cuda_binary`, rules_cuda).",
    why: "rules_cuda drives nvcc or clang with a CUDA toolkit; ROCm needs a HIP toolchain configuration.",
    bad: "cuda_library(name = \"kernels\", srcs = [\"k.cu\"])",
    good: "# a HIP toolchain rule (e.g. rules_cuda's HIP support or a cc_library compiled with hipcc)",
    fix: "Configure a HIP toolchain for Bazel and move the targets to it.",
    refs: ["https://github.com/bazel-contrib/rules_cuda"],
);

rule!(MSBUILD_CUDA, "HP854", BuildSystem, Remediation, Build,
    summary: "A Visual Studio project (`.vcxproj`) builds CUDA: NVIDIA's CUDA build customization (`CudaCompile` items) or custom steps that run `nvcc`.",
    why: "The CUDA build customization and nvcc come with NVIDIA's toolkit; a ROCm machine has neither. When these projects are the only build of the CUDA sources, the port needs a build of its own: on Linux (the ROCm target) a CMake or Makefile build with hipcc, on Windows the HIP SDK's Visual Studio toolset.",
    bad: "<Import Project=\"$(VCTargetsPath)\\BuildCustomizations\\CUDA 11.1.props\" />\n<CudaCompile Include=\"kernels.cu\" />",
    good: "project(app LANGUAGES CXX HIP)\nadd_executable(app main.cpp kernels.hip)",
    fix: "Write a hipcc build for the units the project compiles (CMake with `LANGUAGES HIP`, or a Makefile); on Windows use the HIP SDK's Visual Studio integration instead of the CUDA build customization.",
    refs: ["https://rocm.docs.amd.com/en/latest/conceptual/cmake-packages.html", "https://rocm.docs.amd.com/projects/install-on-windows/en/latest/", "https://github.com/ROCm/rocm-examples"],
);

pub const RULES: &[&RuleInfo] = &[
    &CMAKE_CUDA_LANGUAGE,
    &CMAKE_FIND_CUDA_PACKAGE,
    &CMAKE_CUDA_IMPORTED_TARGET,
    &CUDA_ARCH_FLAG,
    &CMAKE_NVCC_FLAGS,
    &CMAKE_FINDCUDA_MACRO,
    &CMAKE_ROCM_ARM_FAILS,
    &NVCC_INVOCATION,
    &CUDA_LIBRARY_LINK,
    &CUDA_INSTALL_PATH,
    &BAZEL_CUDA_RULE,
    &MSBUILD_CUDA,
];

pub use crate::mappings::link_names::rocm_library;

/// The ROCm library for one of FindCUDA's library variables (`${CUDA_curand_LIBRARY}`,
/// `${CUDA_CUFFT_LIBRARIES}`, `${CUDA_CUBLAS_LIBRARIES}`; `${CUDA_LIBRARIES}` is the runtime),
/// as FindCUDA names them (<https://cmake.org/cmake/help/latest/module/FindCUDA.html>,
/// `CUDA_<lib>_LIBRARY`). Case does not matter: FindCUDA spells some upper-case.
pub fn findcuda_library_var(word: &str) -> Option<&'static str> {
    let inner = word.strip_prefix("${CUDA_")?.strip_suffix('}')?;
    let lib = inner
        .strip_suffix("_LIBRARY")
        .or_else(|| inner.strip_suffix("_LIBRARIES"));
    let Some(lib) = lib else {
        return (inner == "LIBRARIES").then_some("amdhip64");
    };
    let lower = lib.to_ascii_lowercase();
    let canonical = match lower.as_str() {
        "cublaslt" => "cublasLt",
        "nvtoolsext" => "nvToolsExt",
        other => other,
    };
    rocm_library(canonical)
}

/// The ROCm CMake target for a `CUDA::<name>` target.
pub fn rocm_target(cuda: &str) -> &'static str {
    match cuda.trim_end_matches("_static") {
        "cudart" | "cuda_driver" => "hip::host (hip::device for device code)",
        "cublas" => "roc::hipblas",
        "cublasLt" => "roc::hipblaslt",
        "cufft" => "hip::hipfft",
        "curand" => "hip::hiprand",
        "cusparse" => "roc::hipsparse",
        "cusolver" => "roc::hipsolver",
        "nvrtc" => "hiprtc::hiprtc",
        "nvToolsExt" | "nvtx3" => "roctx (roctracer)",
        _ => "the matching ROCm package target",
    }
}
