use super::*;

fn of(path: &str, src: &str) -> (String, FileFacts) {
    let lexed = crate::lex::lex(src.as_bytes());
    (path.to_string(), facts(path, src.as_bytes(), &lexed))
}

fn project(files: &[(&str, &str)]) -> Project {
    let facts = files.iter().map(|(p, s)| of(p, s)).collect();
    Project::from_facts(facts, files.iter().map(|(p, _)| *p))
}

const COMPAT: &str = "#pragma once\n#if defined(USE_ROCM)\n#define __stwb(dst, src) *dst = src\n__device__ void atomicAdd(half2 *address, half2 val) { }\n#else\n#define CUDA_ONLY_X 1\n#endif\n";

#[test]
fn facts_know_the_arm_of_each_definition() {
    let (_, f) = of("compat.cuh", COMPAT);
    let arms: Vec<(&str, u32, Arm)> = f
        .macros
        .iter()
        .map(|m| (m.name.as_str(), m.line, m.arm))
        .collect();
    assert_eq!(
        arms,
        [("__stwb", 3, Arm::Rocm), ("CUDA_ONLY_X", 6, Arm::Cuda)]
    );
    assert_eq!(f.macros[0].params.as_deref(), Some("dst , src"));
    assert_eq!(f.rocm_functions.len(), 1);
    assert_eq!(f.rocm_functions[0].name, "atomicAdd");
    assert_eq!(f.rocm_functions[0].line, 4);
    assert!(f.rocm_functions[0].params.contains("half2"));
    // A CUDA-only constant is not the ROCm build's.
    assert!(f.constants.is_empty());
}

#[test]
fn constants_are_file_scope_and_outside_cuda_arms() {
    let src = "namespace a {\nstatic const int WS = 32;\nconstexpr unsigned kLanes = 0x1f;\n}\n#define WARP 32\nvoid f() { const int local = 32; }\nstruct S { static constexpr int kMember = 32; };\n#ifndef __HIP_PLATFORM_AMD__\nconst int NV = 32;\n#endif\nint notconst = 32;\n";
    let (_, f) = of("utils.h", src);
    let got: Vec<(&str, u64, u32)> = f
        .constants
        .iter()
        .map(|c| (c.name.as_str(), c.value, c.line))
        .collect();
    assert_eq!(got, [("WARP", 32, 5), ("WS", 32, 2), ("kLanes", 31, 3)]);
}

#[test]
fn a_unit_sees_what_its_includes_define_transitively() {
    let p = project(&[
        ("csrc/compat.cuh", COMPAT),
        (
            "csrc/common.h",
            "#include \"compat.cuh\"\n#include \"utils.h\"\n",
        ),
        (
            "csrc/utils.h",
            "static const int WS = 32;\n#define NUM_WARPS (1024 / warpSize)\n",
        ),
        ("csrc/k.cu", ""),
        (
            "csrc/other.h",
            "#ifdef USE_ROCM\n#define __stwb(a, b) 0\n#endif\n",
        ),
    ]);
    let v = p.visible_from("csrc/k.cu", &["common.h".to_string()]);
    assert_eq!(v.rocm_definition("__stwb").unwrap().at, "csrc/compat.cuh:3");
    assert!(v.rocm_definition("CUDA_ONLY_X").is_none());
    assert_eq!(v.constants["WS"], (32, "csrc/utils.h:1".to_string()));
    assert_eq!(v.warp_macros["NUM_WARPS"].0, "(1024 / warpSize)");
    let types = ["__half2".to_string(), "half2".to_string()];
    assert!(v.rocm_overload("atomicAdd", &types).is_some());
    assert!(v
        .rocm_overload("atomicAdd", &["float".to_string()])
        .is_none());
    // Not included: nothing seen.
    let none = p.visible_from("csrc/k.cu", &["other_name.h".to_string()]);
    assert!(none.is_empty());
}

/// PhysX's `PxgCommonDefines.h` and `PxSimpleTypes.h` (BSD-3-Clause): a macro whose body is a
/// constant expression of the file's constants is a constant for the units that include it,
/// and a 32-bit integer alias is known to them. Twins: a body naming an unknown name, a 64-bit
/// alias.
#[test]
fn header_constant_expressions_and_integer_aliases_reach_the_unit() {
    let p = project(&[
        (
            "include/defs.h",
            "#define LOG2_WARP_SIZE 5\n#define WARP_SIZE (1U << LOG2_WARP_SIZE)\n#define OTHER (WARP_SIZE * UNKNOWN)\n",
        ),
        (
            "include/types.h",
            "typedef uint32_t PxU32;\ntypedef uint64_t PxU64;\n",
        ),
        (
            "include/ivf.hpp",
            "namespace CUVS_EXPORT cuvs {\nnamespace neighbors::ivf {\nconstexpr static uint32_t kIndexGroupSize = 32;\nstruct S { static constexpr int kMember = 64; };\n}\n}\n",
        ),
        ("src/k.cu", ""),
    ]);
    let v = p.visible_from(
        "src/k.cu",
        &[
            "defs.h".to_string(),
            "types.h".to_string(),
            "ivf.hpp".to_string(),
        ],
    );
    // Namespaces written with an export macro or nested names are file scope; a class is not.
    assert_eq!(v.constants["kIndexGroupSize"].0, 32);
    assert!(!v.constants.contains_key("kMember"));
    assert_eq!(v.constants["WARP_SIZE"].0, 32);
    assert!(!v.constants.contains_key("OTHER"));
    assert!(v.narrow_types.contains("PxU32"));
    assert!(!v.narrow_types.contains("PxU64"));
}

#[test]
fn a_constant_with_two_values_is_no_constant() {
    let p = project(&[
        ("a.h", "static const int WS = 32;\n"),
        ("b.h", "static const int WS = 64;\n"),
        ("c.h", "static const int WS = 32;\n"),
    ]);
    let both = p.visible_from("k.cu", &["a.h".to_string(), "b.h".to_string()]);
    assert!(!both.constants.contains_key("WS"));
    let same = p.visible_from("k.cu", &["a.h".to_string(), "c.h".to_string()]);
    assert_eq!(same.constants["WS"].0, 32);
}

/// A HIP build file's command-line definitions of CUDA-side macros are the HIP build's
/// (kaldi's `makefiles/hip_64bit.mk`); twins: the same flags in a CUDA build file, project
/// macros the table does not decide, HIP's own switches, comments and conflicting values.
#[test]
fn hip_build_files_define_cuda_side_macros_for_every_unit() {
    use crate::model::macro_env::Known;
    let hip_mk: &[u8] = b"CXXFLAGS += -D__IS_HIP_COMPILE__=1 \\\n  -DCUDA_VERSION=11000 -DMY_OPTION=3 \\\n  -D__CUDACC_VER_MAJOR__=11\n# -DCUDART_VERSION=9000\n";
    let cuda_mk: &[u8] = b"CUDA_FLAGS += -DCUDART_VERSION=12000 -D__CUDA_ARCH__=800\n";
    let other_hip: &[u8] = b"FLAGS = -DCUDA_VERSION=12000\n";
    let got = super::hip_build_defines(&[
        ("src/makefiles/hip_64bit.mk", hip_mk),
        ("src/makefiles/cuda_64bit.mk", cuda_mk),
    ]);
    assert_eq!(
        got.get("CUDA_VERSION"),
        Some(&(
            Known::Value(11000),
            "src/makefiles/hip_64bit.mk:2".to_string()
        ))
    );
    assert_eq!(
        got.get("__CUDACC_VER_MAJOR__").map(|v| v.0),
        Some(Known::Value(11))
    );
    for absent in [
        "MY_OPTION",
        "__IS_HIP_COMPILE__",
        "CUDART_VERSION",
        "__CUDA_ARCH__",
    ] {
        assert!(!got.contains_key(absent), "{absent}: {got:?}");
    }
    let conflict = super::hip_build_defines(&[
        ("src/makefiles/hip_64bit.mk", hip_mk),
        ("cmake/hip.cmake", other_hip),
    ]);
    assert!(!conflict.contains_key("CUDA_VERSION"), "{conflict:?}");
}

/// A function that only returns an integer is a constant of the header (xgboost's
/// `dh::WarpThreads()`); twins: a call, a function with parameters or another body.
#[test]
fn functions_returning_an_integer_are_header_constants() {
    let h = "namespace dh {\nconstexpr std::int32_t WarpThreads() { return 32; }\nconstexpr unsigned FullMask() noexcept { return 0xffffffffu; }\nint Other(int x) { return 32; }\nint Call() { return WarpThreads(); }\n}\n";
    let lexed = crate::lex::lex(h.as_bytes());
    let f = super::facts("dh.cuh", h.as_bytes(), &lexed);
    let got: Vec<(String, u64)> = f
        .constants
        .iter()
        .map(|c| (c.name.clone(), c.value))
        .collect();
    assert_eq!(
        got,
        [
            ("FullMask".to_string(), 0xffff_ffff),
            ("WarpThreads".to_string(), 32)
        ]
    );
}
