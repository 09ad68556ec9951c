//! A project that already has its own HIP backend beside its CUDA one, end to end (`scan
//! --format json`). GROMACS' shape: CMake chains pick the backend (`if(GPU_CUDA) … elseif(GPU_HIP)`),
//! so the CUDA backend's sources, the folders only its arm adds, and the headers only they
//! include (found through the project's include root, and not through an include the ROCm
//! build compiles out under `#if GPU_CUDA`) are the CUDA build's: PASS naming why. Twins: the
//! same header included by a HIP source outside any condition stays open, and a project that
//! tests `GPU_CUDA` alone (no HIP arm anywhere) keeps its findings open.

#[path = "common/rows.rs"]
mod rows;
use rows::Row;

const TOP: &str = "project(p)\nif(GPU STREQUAL \"CUDA\")\n  include(ManageCuda)\nelseif(GPU STREQUAL \"HIP\")\n  include(ManageHip)\nendif()\nadd_subdirectory(src)\nadd_subdirectory(api)\n";
const MANAGE_CUDA: &str = "find_package(CUDAToolkit REQUIRED)\nset(GPU_CUDA ON)\n";
const API: &str = "add_library(api api.cpp)\nif(GPU_CUDA)\n  target_link_libraries(api PRIVATE CUDA::cudart_static)\nendif()\n";
const MANAGE_HIP: &str = "set(GPU_HIP ON)\n";
const SRC_LISTS: &str = "if(GPU_CUDA)\n  add_library(k kern.cu)\nelseif(GPU_HIP)\n  add_library(k kern_hip.cpp)\nendif()\nif(GPU_CUDA)\n  add_subdirectory(cudaonly)\nendif()\n";
const KERN: &str =
    "#include \"proj/utils/warp.cuh\"\n__global__ void k(float* x) { x[threadIdx.x] = 0.f; }\n";
const WARP: &str = "#pragma once\n#include <cuda_runtime.h>\ninline void wait(cudaEvent_t e, cudaStream_t s) { cudaStreamWaitEvent(s, e, cudaEventWaitExternal); }\n";
const BUFFER: &str = "#pragma once\n#if GPU_CUDA\n#    include \"proj/utils/warp.cuh\"\n#elif GPU_HIP\n#    include \"proj/hip_utils.h\"\n#endif\n";
const HIP_UTILS: &str = "#pragma once\nstatic const int hip_lanes = 64;\n";
const KERN_HIP: &str = "#include \"proj/buffer.h\"\nint f() { return hip_lanes; }\n";
const ONLY: &str = "#include <cuda_runtime.h>\nvoid g(cudaGraphExec_t e, cudaGraph_t gr) { cudaGraphExecUpdateResultInfo info; cudaGraphExecUpdate(e, gr, &info); }\n";

fn tree<'a>(buffer: &'a str, lists: &'a str) -> Vec<(&'a str, &'a str)> {
    vec![
        ("CMakeLists.txt", TOP),
        ("api/CMakeLists.txt", API),
        ("cmake/ManageCuda.cmake", MANAGE_CUDA),
        ("cmake/ManageHip.cmake", MANAGE_HIP),
        ("src/CMakeLists.txt", lists),
        ("src/kern.cu", KERN),
        ("src/kern_hip.cpp", KERN_HIP),
        ("src/proj/utils/warp.cuh", WARP),
        ("src/proj/buffer.h", buffer),
        ("src/proj/hip_utils.h", HIP_UTILS),
        ("src/cudaonly/graphs.cu", ONLY),
    ]
}

fn open_in<'a>(fs: &'a [Row], path: &str) -> Vec<&'a Row> {
    fs.iter().filter(|f| f.1 == path && f.3 != "PASS").collect()
}

#[test]
fn the_cuda_backend_of_a_project_with_its_own_hip_backend_is_pass() {
    let fs = rows::scan_files(&tree(BUFFER, SRC_LISTS), &[]);
    // The header only the CUDA backend includes.
    let warp: Vec<&Row> = fs
        .iter()
        .filter(|f| f.1 == "src/proj/utils/warp.cuh")
        .collect();
    assert!(!warp.is_empty(), "{fs:#?}");
    for f in &warp {
        assert_eq!(f.3, "PASS", "{f:?}");
        assert!(
            f.4.contains("the HIP build does not compile this file"),
            "{}",
            f.4
        );
    }
    // The folder only the CUDA arm adds.
    let only: Vec<&Row> = fs
        .iter()
        .filter(|f| f.1 == "src/cudaonly/graphs.cu")
        .collect();
    assert!(!only.is_empty(), "{fs:#?}");
    for f in &only {
        assert_eq!(f.3, "PASS", "{f:?}");
        assert!(f.4.contains("added only"), "{}", f.4);
    }
    assert!(open_in(&fs, "src/kern.cu").is_empty(), "{fs:#?}");
    // The CMake module only the CUDA arm includes, and a file that tests `GPU_CUDA` alone.
    for path in ["cmake/ManageCuda.cmake", "api/CMakeLists.txt"] {
        let here: Vec<&Row> = fs.iter().filter(|f| f.1 == path).collect();
        assert!(!here.is_empty(), "{path}: {fs:#?}");
        assert!(here.iter().all(|f| f.3 == "PASS"), "{here:#?}");
    }
}

#[test]
fn a_header_the_hip_backend_includes_or_a_cuda_only_project_stays_open() {
    // The HIP source reaches the header outside any condition.
    let plain = "#pragma once\n#include \"proj/utils/warp.cuh\"\n#include \"proj/hip_utils.h\"\n";
    let fs = rows::scan_files(&tree(plain, SRC_LISTS), &[]);
    assert!(
        !open_in(&fs, "src/proj/utils/warp.cuh").is_empty(),
        "{fs:#?}"
    );
    // No HIP arm anywhere: `if(GPU_CUDA)` is the port's work.
    let cuda_only =
        "if(GPU_CUDA)\n  add_library(k kern.cu)\n  add_subdirectory(cudaonly)\nendif()\n";
    let mut files = tree(BUFFER, cuda_only);
    files.retain(|(p, _)| *p != "cmake/ManageHip.cmake");
    for f in files.iter_mut().filter(|(p, _)| *p == "CMakeLists.txt") {
        f.1 = "project(p)\ninclude(ManageCuda)\nadd_subdirectory(src)\nadd_subdirectory(api)\n";
    }
    let fs = rows::scan_files(&files, &[]);
    assert!(
        !open_in(&fs, "src/proj/utils/warp.cuh").is_empty(),
        "{fs:#?}"
    );
    assert!(
        !open_in(&fs, "src/cudaonly/graphs.cu").is_empty(),
        "{fs:#?}"
    );
    assert!(
        fs.iter()
            .any(|f| f.1.starts_with("cmake/") || f.1.starts_with("api/")),
        "{fs:#?}"
    );
    assert!(
        fs.iter()
            .filter(|f| f.1 == "cmake/ManageCuda.cmake" || f.1 == "api/CMakeLists.txt")
            .all(|f| !f.4.contains("included only") && !f.4.contains("never runs")),
        "{fs:#?}"
    );
}

/// RAJAPerf's shape: each backend's helpers sit in their own header, wrapped whole in the
/// backend's switch (`#if defined(RAJA_ENABLE_CUDA)`, `#if defined(RAJA_ENABLE_HIP)`), in files
/// that never test the two together. The ROCm build defines the HIP twin, never the CUDA one:
/// the CUDA helpers are PASS. Twin: without any file testing the HIP twin, the CUDA header's
/// inline PTX stays open.
#[test]
fn a_cuda_switch_whose_hip_twin_another_file_tests_is_off() {
    let cuda = "#if defined(RAJA_ENABLE_CUDA)\n#include <cuda_runtime.h>\n__global__ void lane(unsigned* o) { unsigned l; asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(l)); o[threadIdx.x] = l; }\n#endif\n";
    let hip = "#if defined(RAJA_ENABLE_HIP)\n#include <hip/hip_runtime.h>\nconstexpr int hip_lanes = 64;\n#endif\n";
    let both = vec![("src/CudaScan.hpp", cuda), ("src/HipScan.hpp", hip)];
    let fs = rows::scan_files(&both, &[]);
    assert!(
        open_in(&fs, "src/CudaScan.hpp").is_empty(),
        "{:#?}",
        open_in(&fs, "src/CudaScan.hpp")
    );
    let alone = vec![("src/CudaScan.hpp", cuda)];
    let fs = rows::scan_files(&alone, &[]);
    assert!(!open_in(&fs, "src/CudaScan.hpp").is_empty(), "{fs:#?}");
}

/// MegEngine's shape (Apache-2.0): the CUDA arm globs its sources (`file(GLOB_RECURSE S
/// cudaonly/*.cu)`) instead of naming them; the HIP build does not compile what the glob
/// matches. Twin: the HIP arm globbing the same files keeps them open.
#[test]
fn sources_only_a_cuda_arm_globs_are_pass() {
    let globbed = "if(GPU_CUDA)\n  add_library(k kern.cu)\nelseif(GPU_HIP)\n  add_library(k kern_hip.cpp)\nendif()\nif(GPU_CUDA)\n  file(GLOB_RECURSE S cudaonly/*.cu)\nendif()\n";
    let fs = rows::scan_files(&tree(BUFFER, globbed), &[]);
    let only: Vec<&Row> = fs
        .iter()
        .filter(|f| f.1 == "src/cudaonly/graphs.cu")
        .collect();
    assert!(!only.is_empty(), "{fs:#?}");
    for f in &only {
        assert_eq!(f.3, "PASS", "{f:?}");
        assert!(f.4.contains("matched only by"), "{}", f.4);
    }
    let both = "if(GPU_CUDA)\n  add_library(k kern.cu)\nelseif(GPU_HIP)\n  add_library(k kern_hip.cpp)\nendif()\nif(GPU_CUDA)\n  file(GLOB_RECURSE S cudaonly/*.cu)\nelseif(GPU_HIP)\n  file(GLOB_RECURSE S cudaonly/*.cu)\nendif()\n";
    let fs = rows::scan_files(&tree(BUFFER, both), &[]);
    assert!(
        !open_in(&fs, "src/cudaonly/graphs.cu").is_empty(),
        "{fs:#?}"
    );
}

/// ucx's shape (BSD-3-Clause): an autotools project with a ROCm conditional (`if HAVE_ROCM` in
/// one `Makefile.am`) builds its CUDA MPI tests only under `if HAVE_CUDA`: their findings are
/// PASS naming the conditional. Twin: without any ROCm conditional they stay open.
#[test]
fn sources_only_an_automake_cuda_conditional_builds_are_pass() {
    let tests_am = "noinst_PROGRAMS = test_basic\nif HAVE_CUDA\nnoinst_PROGRAMS += test_mpi_cuda\nendif\ntest_mpi_cuda_SOURCES = test_mpi_cuda.c\n";
    let rocm_am = "if HAVE_ROCM\nlib_LTLIBRARIES = libuct_rocm.la\nendif\n";
    let cuda = "#include <cuda.h>\nvoid f(CUcontext c) { cuCtxPushCurrent(c); }\n";
    let fs = rows::scan_files(
        &[
            ("test/mpi/Makefile.am", tests_am),
            ("src/uct/rocm/Makefile.am", rocm_am),
            ("test/mpi/test_mpi_cuda.c", cuda),
        ],
        &[],
    );
    let here: Vec<&Row> = fs
        .iter()
        .filter(|f| f.1 == "test/mpi/test_mpi_cuda.c")
        .collect();
    assert!(!here.is_empty(), "{fs:#?}");
    assert!(here.iter().all(|f| f.3 == "PASS"), "{here:#?}");
    assert!(
        here.iter().any(|f| f.4.contains("`if HAVE_CUDA`")),
        "{here:#?}"
    );
    let fs = rows::scan_files(
        &[
            ("test/mpi/Makefile.am", tests_am),
            ("test/mpi/test_mpi_cuda.c", cuda),
        ],
        &[],
    );
    assert!(
        !open_in(&fs, "test/mpi/test_mpi_cuda.c").is_empty(),
        "{fs:#?}"
    );
}
