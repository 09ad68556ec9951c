//! A project whose headers port it themselves, end to end (`scan --format json`). mscclpp's
//! shape: `device.hpp` defines the project's ROCm switch under HIP's platform macro, `gpu.hpp`
//! sets a feature switch to 0 in that switch's arm (`#define CUDA_NVLS_API_AVAILABLE 0`), and a
//! source two includes away tests the feature switch around driver calls ROCm does not have.
//! The ROCm build compiles the `#else`: nothing in the dead branch is open, and nobody has to check that the
//! build defines the switch (HIP-Clang does). Twins: the same feature switch set without the
//! ROCm arm stays open, and a switch no header defines keeps its HP303.

#[path = "common/rows.rs"]
mod rows;
use rows::Row;

const DEVICE: &str = "#pragma once\n#if defined(__HIP_PLATFORM_AMD__)\n#define PROJ_DEVICE_HIP\n#else\n#define PROJ_DEVICE_CUDA\n#endif\n";
const GPU: &str = "#pragma once\n#include <proj/device.hpp>\n#if !defined(PROJ_DEVICE_HIP)\n#include <cuda.h>\n#define NVLS_AVAILABLE (CUDART_VERSION >= 12030)\n#else\n#define NVLS_AVAILABLE 0\n#endif\n";
const GPU_NO_ARM: &str =
    "#pragma once\n#include <proj/device.hpp>\n#include <cuda.h>\n#define NVLS_AVAILABLE 1\n";
const UTILS: &str = "#pragma once\n#include <proj/gpu.hpp>\n";
const IPC: &str = "#include <proj/utils.hpp>\nint f() {\n#if (NVLS_AVAILABLE)\n  CUmulticastObjectProp p;\n  cuMulticastCreate(0, &p);\n  return 1;\n#else\n  return 0;\n#endif\n}\n";
const LISTS: &str =
    "project(p LANGUAGES CXX)\ninclude_directories(include)\nadd_library(p src/ipc.cc)\n";

fn tree(gpu: &str) -> Vec<(&str, &str)> {
    vec![
        ("CMakeLists.txt", LISTS),
        ("include/proj/device.hpp", DEVICE),
        ("include/proj/gpu.hpp", gpu),
        ("include/proj/utils.hpp", UTILS),
        ("src/ipc.cc", IPC),
    ]
}

fn open(fs: &[Row], rule: &str) -> Vec<(String, u64)> {
    fs.iter()
        .filter(|f| f.0 == rule && f.3 != "PASS")
        .map(|f| (f.1.clone(), f.2))
        .collect()
}

#[test]
fn a_feature_the_projects_rocm_arm_switches_off_is_pass() {
    let fs = rows::scan_files(&tree(GPU), &[]);
    assert!(open(&fs, "HP001").is_empty(), "{fs:#?}");
    assert!(open(&fs, "HP303").is_empty(), "{fs:#?}");
    // The project's own ROCm arm decides: nothing in the dead branch is left to a person.
    assert!(fs.iter().all(|f| f.3 == "PASS"), "{fs:#?}");
}

#[test]
fn the_same_feature_switch_without_a_rocm_arm_stays_open() {
    let fs = rows::scan_files(&tree(GPU_NO_ARM), &[]);
    assert_eq!(
        open(&fs, "HP001"),
        [("src/ipc.cc".to_string(), 4), ("src/ipc.cc".to_string(), 5)],
        "{fs:#?}"
    );
}

#[test]
fn a_rocm_switch_no_header_defines_keeps_its_check() {
    let gpu = GPU.replace("#include <proj/device.hpp>\n", "");
    let fs = rows::scan_files(&tree(&gpu), &[]);
    assert_eq!(
        open(&fs, "HP303"),
        [("include/proj/gpu.hpp".to_string(), 2)],
        "{fs:#?}"
    );
}
