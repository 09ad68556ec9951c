//! The project's own HIP arm, through the binary (bitsandbytes): a macro that the CMake chain's
//! `if(BUILD_CUDA)` arm defines and its own `elseif(BUILD_HIP)` arm leaves undefined decides a
//! branch the ROCm build compiles out by the project's own choice: HP304 PASS naming that arm.
//! The twin: the same macro defined in a chain without a HIP arm (the project's HIP build is
//! elsewhere) stays REMEDIATION.

mod common;
use common::scan_files;

const KERNEL: &str = "#include <cuda_runtime.h>\nvoid fast(float*);\nvoid slow(float*);\nvoid gemm(float* a, int m) {\n#if defined(HAS_MMA_GEMM)\n    if (m > 16) { fast(a); return; }\n#endif\n    slow(a);\n}\n";

/// The HP304 findings of `csrc/k.cu` (status, message).
fn hp304(lists: &str) -> Vec<(String, String)> {
    scan_files(&[("CMakeLists.txt", lists), ("csrc/k.cu", KERNEL)])
        .iter()
        .filter(|f| f["path"] == "csrc/k.cu" && f["rule"] == "HP304")
        .map(|f| {
            (
                f["status"].as_str().unwrap().to_string(),
                f["message"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_branch_the_projects_own_hip_arm_leaves_out_is_its_choice() {
    let chain = "cmake_minimum_required(VERSION 3.22)\nproject(k LANGUAGES CXX)\nif(BUILD_CUDA)\n    enable_language(CUDA)\n    add_compile_definitions(HAS_MMA_GEMM)\nelseif(BUILD_HIP)\n    enable_language(HIP)\nendif()\nadd_library(k csrc/k.cu)\n";
    let got = hp304(chain);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "PASS", "{}", got[0].1);
    assert!(
        got[0].1.contains("`elseif(BUILD_HIP)` (line 6)"),
        "{}",
        got[0].1
    );
    let apart = chain.replace(
        "    add_compile_definitions(HAS_MMA_GEMM)\nelseif(BUILD_HIP)\n    enable_language(HIP)\nendif()\n",
        "    add_compile_definitions(HAS_MMA_GEMM)\nendif()\nif(BUILD_HIP)\n    enable_language(HIP)\nendif()\n",
    );
    let got = hp304(&apart);
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].0, "REMEDIATION", "{}", got[0].1);
}
