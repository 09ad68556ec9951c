//! Project macros only the CUDA build of a CMake project defines, end to end (`scan --format
//! json`). hoomd-blue's shape: a CMake variable set true only in the `nvcc` arm of its HIP
//! setup, and `target_compile_definitions(… CUSOLVER_AVAILABLE)` only under `if()` of that
//! variable. The ROCm build leaves the macro undefined, so the cuSOLVER calls under `#ifdef` are
//! PASS naming why, and what the ROCm build loses is one HP304 decision for the project. Twins:
//! the same tree with the variable a user option, and with a source that defines the macro.

#[path = "common/rows.rs"]
mod rows;
use rows::Row;

const SETUP: &str = "if (ENABLE_HIP AND HIP_PLATFORM STREQUAL \"nvcc\")\n    if (NOT ${CUDA_cusolver_LIBRARY} STREQUAL \"\")\n        set(CUSOLVER_AVAILABLE TRUE)\n    else()\n        set(CUSOLVER_AVAILABLE FALSE)\n    endif()\nendif()\n";
const LISTS: &str = "cmake_minimum_required(VERSION 3.16)\nproject(p CXX)\noption(ENABLE_HIP \"GPU\" ON)\ninclude(Setup.cmake)\nif (ENABLE_HIP)\n    add_library(p solver.cc)\n    if (CUSOLVER_AVAILABLE)\n        target_compile_definitions(p PUBLIC CUSOLVER_AVAILABLE)\n    endif()\nendif()\n";
const SOLVER: &str = "#include <vector>\n#ifdef CUSOLVER_AVAILABLE\n#include <cusolverSp.h>\n#endif\n\nint solve(std::vector<double>& x)\n{\n#ifndef CUSOLVER_AVAILABLE\n    x[0] = 1.0; // CPU fallback\n    return 0;\n#else\n    cusolverSpHandle_t h;\n    cusolverSpXcsrsymrcmHost(h, 0, 0, 0, 0, 0, 0);\n    return 1;\n#endif\n}\n";
const SOLVER_H: &str = "#pragma once\n#ifdef CUSOLVER_AVAILABLE\n#include <cusparse.h>\nstruct Handles { cusparseHandle_t sparse; };\n#endif\n";

fn open_in(fs: &[Row], path: &str) -> Vec<Row> {
    fs.iter()
        .filter(|f| f.1 == path && f.3 != "PASS")
        .cloned()
        .collect()
}

#[test]
fn a_macro_only_the_cuda_arm_defines_is_compiled_out_once() {
    let fs = rows::scan_files(
        &[
            ("CMakeLists.txt", LISTS),
            ("Setup.cmake", SETUP),
            ("solver.cc", SOLVER),
            ("solver.h", SOLVER_H),
        ],
        &[],
    );
    let calls: Vec<&Row> = fs
        .iter()
        .filter(|f| f.1 == "solver.cc" && f.0 != "HP304")
        .collect();
    assert!(!calls.is_empty(), "{fs:#?}");
    for f in &calls {
        assert_eq!(f.3, "PASS", "{f:?}");
        assert!(
            f.4.contains("only the CUDA build defines `CUSOLVER_AVAILABLE`"),
            "{}",
            f.4
        );
        assert!(f.4.contains("Setup.cmake:3"), "{}", f.4);
    }
    // One decision for the project: the first chain open, the others folded into it.
    let decisions: Vec<&Row> = fs.iter().filter(|f| f.0 == "HP304").collect();
    assert!(decisions.len() >= 2, "{fs:#?}");
    let open: Vec<&&Row> = decisions.iter().filter(|f| f.3 != "PASS").collect();
    assert_eq!(open.len(), 1, "{decisions:#?}");
    assert!(open[0].4.contains("CMakeLists.txt:8"), "{}", open[0].4);
    assert!(
        open_in(&fs, "solver.h").iter().all(|f| f.0 == "HP304"),
        "{fs:#?}"
    );
}

#[test]
fn a_user_option_or_a_source_definition_keeps_the_branches_live() {
    // The variable is a user option: a ROCm build may turn it on.
    let opt = format!("option(CUSOLVER_AVAILABLE \"cusolver\" OFF)\n{LISTS}");
    let fs = rows::scan_files(
        &[
            ("CMakeLists.txt", opt.as_str()),
            ("Setup.cmake", SETUP),
            ("solver.cc", SOLVER),
        ],
        &[],
    );
    assert!(fs.iter().all(|f| f.0 != "HP304"), "{fs:#?}");
    let calls = open_in(&fs, "solver.cc");
    assert!(calls.iter().any(|f| f.0 == "HP001"), "{fs:#?}");
    // The source defines it itself.
    let own = format!("#define CUSOLVER_AVAILABLE\n{SOLVER}");
    let fs = rows::scan_files(
        &[
            ("CMakeLists.txt", LISTS),
            ("Setup.cmake", SETUP),
            ("solver.cc", own.as_str()),
        ],
        &[],
    );
    assert!(fs.iter().all(|f| f.0 != "HP304"), "{fs:#?}");
    assert!(
        open_in(&fs, "solver.cc").iter().any(|f| f.0 == "HP001"),
        "{fs:#?}"
    );
}

/// MegEngine's shape (Apache-2.0): a configured header writes `MGB_CUPTI` and
/// `MGB_ENABLE_TENSOR_RT` from CMake variables that follow the CUDA switch (a dependent option
/// of `MGE_WITH_CUDA`; an option turned off under `if(NOT MGE_WITH_CUDA)`), and the project
/// also has `MGE_WITH_ROCM`. The ROCm build writes both as 0 (the template's `#ifndef`
/// fallback never applies), so the CUPTI and TensorRT includes under `#if` are PASS. Twin:
/// without the ROCm switch the includes stay open.
#[test]
fn configured_macros_that_follow_the_cuda_switch_are_zero_under_rocm() {
    let lists = "cmake_minimum_required(VERSION 3.16)\nproject(p CXX)\noption(MGE_WITH_CUDA \"cuda\" ON)\noption(MGE_WITH_ROCM \"rocm\" OFF)\noption(MGE_WITH_TRT \"trt\" ON)\ncmake_dependent_option(MGE_WITH_CUPTI \"cupti\" OFF \"MGE_WITH_CUDA;NOT WIN32\" OFF)\nset(MGB_CUPTI ${MGE_WITH_CUPTI})\nif(NOT MGE_WITH_CUDA)\n  set(MGE_WITH_TRT OFF)\nendif()\nset(MGB_ENABLE_TENSOR_RT ${MGE_WITH_TRT})\nif(MGE_WITH_CUDA)\n  add_library(k k.cpp)\nelseif(MGE_WITH_ROCM)\n  add_library(k k_hip.cpp)\nendif()\nconfigure_file(cfg.h.in cfg.h)\n";
    let tpl = "#pragma once\n#cmakedefine01 MGB_CUPTI\n#cmakedefine01 MGB_ENABLE_TENSOR_RT\n#ifndef MGB_ENABLE_TENSOR_RT\n#define MGB_ENABLE_TENSOR_RT 1\n#endif\n";
    let src = "#include \"cfg.h\"\n#if MGB_CUPTI\n#include <cupti.h>\n#endif\n#if MGB_ENABLE_TENSOR_RT\n#include <NvInfer.h>\n#endif\nint v() { return 0; }\n";
    let files = [
        ("CMakeLists.txt", lists),
        ("cfg.h.in", tpl),
        ("version.cpp", src),
    ];
    let fs = rows::scan_files(&files, &[]);
    let here: Vec<&Row> = fs.iter().filter(|f| f.1 == "version.cpp").collect();
    assert!(here.len() >= 2, "{fs:#?}");
    for f in &here {
        assert_eq!(f.3, "PASS", "{f:?}");
        assert!(f.4.contains("is 0 in the ROCm build"), "{}", f.4);
    }
    // No ROCm switch: nothing says the CUDA switch is off.
    let cuda_only = lists
        .replace("option(MGE_WITH_ROCM \"rocm\" OFF)\n", "")
        .replace("elseif(MGE_WITH_ROCM)\n  add_library(k k_hip.cpp)\n", "");
    let files = [
        ("CMakeLists.txt", cuda_only.as_str()),
        ("cfg.h.in", tpl),
        ("version.cpp", src),
    ];
    let fs = rows::scan_files(&files, &[]);
    assert!(!open_in(&fs, "version.cpp").is_empty(), "{fs:#?}");
}
