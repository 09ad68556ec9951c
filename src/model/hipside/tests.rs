//! Unit tests of the HIP-side branch model.
use super::*;

fn sides(src: &str) -> Vec<(u32, Option<Side>)> {
    let r = crate::model::syntax::test_support::with_tokens(src, regions);
    let mut out = Vec::new();
    let mut off = 0;
    for (i, l) in src.split_inclusive('\n').enumerate() {
        if l.starts_with("x") {
            out.push((i as u32 + 1, side_at(&r, off)));
        }
        off += l.len();
    }
    out
}

/// A switch the file sets from `__CUDA_ARCH__` decides the tests of it; a name the file
/// tests before defining it (the preprocessor sees it undefined there) is not pinned at all.
#[test]
fn a_files_own_switch_is_pinned_unless_tested_before_its_definition() {
    let src = "#ifdef ARCH_SM80\nx1\n#endif\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n#define ARCH_SM80 1\n#else\n#define ARCH_SM80 0\n#endif\n#if ARCH_SM80\nx2\n#endif\n#if HAS_FAST\nx3\n#endif\n";
    let sides = |src: &str| {
        let r = crate::model::syntax::test_support::with_tokens(src, |s| {
            regions_and_pins_for(
                s,
                crate::version::Version::new(7, 0, 0),
                &super::super::project::NOTHING,
            )
            .0
        });
        let mut out = Vec::new();
        let mut off = 0;
        for (i, l) in src.split_inclusive('\n').enumerate() {
            if l.starts_with('x') {
                out.push((i as u32 + 1, side_at(&r, off).is_some()));
            }
            off += l.len();
        }
        out
    };
    assert_eq!(sides(src), [(2, false), (10, false), (13, false)]);
    let after = src.replacen("#ifdef ARCH_SM80\nx1\n#endif\n", "", 1);
    assert_eq!(sides(&after), [(7, true), (10, false)]);
}

#[test]
fn sweep_agrees_with_side_at() {
    let src = "#if CUDA_VERSION > 9000\nint a;\n#ifdef USE_ROCM\nint b;\n#else\nint c;\n#endif\n#elif defined(__HIP_PLATFORM_AMD__)\nint d;\n#else\nint e;\n#endif\n#ifndef __HIPCC__\nint f;\n#endif\n";
    let regions = crate::model::syntax::test_support::with_tokens(src, regions);
    assert!(!regions.is_empty());
    let offsets: Vec<usize> = (0..=src.len()).rev().collect();
    let swept = sides_at(&regions, &offsets);
    for (i, &at) in offsets.iter().enumerate() {
        assert_eq!(swept[i], side_at(&regions, at), "at {at}");
    }
}

#[test]
fn nested_branches_evaluated_for_hip() {
    let src = "#ifndef USE_ROCM\nx1\n#if CUDA_VERSION >= 11000\nx2\n#endif\n#else\nx3\n#endif\n#if CUDART_VERSION >= 11070\nx4\n#elif defined(FOO)\nx5\n#else\nx6\n#endif\n#ifdef __CUDACC__\nx7\n#else\nx8\n#endif\n#if defined(_NVHPC_CUDA)\nx9\n#endif\n";
    let got = sides(src);
    use Dead::*;
    assert_eq!(
        got,
        vec![
            (2, Some(Side::Never(Platform))),
            (4, Some(Side::Never(Platform))),
            (7, Some(Side::HipOnly)),
            (10, Some(Side::Never(Toolkit))),
            (12, None),
            (14, None),
            (17, None),
            (19, Some(Side::Never(Toolkit))),
            (22, Some(Side::Never(Toolkit))),
        ]
    );
}

/// A project's ROCm arm that pins a CUDA-side macro for its HIP build decides the conditions
/// after it (kaldi-style `#ifdef __IS_HIP_COMPILE__` / `#define __CUDA_ARCH__ 800`): HIP
/// compiles the `>= 600` branch, not the fallback. `#undef` takes it back.
#[test]
fn cuda_macros_pinned_in_code_hip_compiles_decide_later_conditions() {
    let src = "#ifdef __IS_HIP_COMPILE__
#define __CUDA_ARCH__ 800
#define CUDA_VERSION 11000u
#endif
#if __CUDA_ARCH__ >= 600
x1
#else
x2
#endif
#if CUDA_VERSION >= 12000
x3
#endif
#undef __CUDA_ARCH__
#if __CUDA_ARCH__ >= 600
x4
#endif
";
    let got = sides(src);
    let arch = |alternative| Some(Side::Never(Dead::Arch { alternative }));
    assert_eq!(
        got,
        vec![
            (6, None),
            (
                8,
                Some(Side::Never(Dead::Arch {
                    alternative: Alt::Code
                }))
            ),
            (11, Some(Side::Never(Dead::Toolkit))),
            (15, arch(Alt::Absent)),
        ]
    );
}

/// Twins: a definition HIP may not compile (an unknown switch, the CUDA arm) or a
/// function-like one pins nothing; a project macro the table does not decide is decided only by
/// the file's own definition in code every build compiles.
#[test]
fn definitions_hip_may_not_compile_pin_nothing() {
    let src = "#ifdef SOME_OPTION
#define __CUDA_ARCH__ 800
#endif
#ifndef __HIP_PLATFORM_AMD__
#define CUDA_VERSION 12000
#endif
#define __CUDA_ARCH__(x) 800
#define MY_FLAG 1
#if __CUDA_ARCH__ >= 600
x1
#endif
#if CUDA_VERSION >= 11000
x2
#endif
#if MY_FLAG
x3
#else
x4
#endif
";
    let got = sides(src);
    let arch = |alternative| Some(Side::Never(Dead::Arch { alternative }));
    assert_eq!(
        got,
        vec![
            (10, arch(Alt::Absent)),
            (13, Some(Side::Never(Dead::Toolkit))),
            (16, None),
            // `#define MY_FLAG 1` in code every build compiles decides its test for every
            // build: the `#else` is compiled by none.
            (18, Some(Side::Never(Dead::Toolkit))),
        ]
    );
}

/// A project's own version constant compared with a CUDA-side macro decides the branch as
/// the preprocessor would (rapidsai/rmm: `#if CUDART_VERSION >=
/// RMM_MIN_HWDECOMPRESS_CUDA_VERSION`, defined in an included header); twins: a condition on
/// the project macro alone, and a constant defined in a branch HIP may skip, stay live.
#[test]
fn project_constants_compared_with_cuda_macros_decide_the_branch() {
    let src = "#define MIN_CUDA 12080
#if CUDART_VERSION >= MIN_CUDA
x1
#else
x2
#endif
#if MIN_CUDA >= 12000
x3
#endif
#ifdef OPTION
#define MAYBE 11000
#endif
#if CUDA_VERSION >= MAYBE
x4
#endif
#if CUDA_VERSION >= HDR_MIN
x5
#endif
#if CUDA_VERSION >= UNKNOWN_MIN
x6
#endif
#ifndef CC_TURING
#define CC_TURING 700
#endif
#if __CUDA_ARCH__ >= CC_TURING
x7
#endif
#ifndef CC_AMPERE
#else
#define CC_AMPERE 800
#endif
#if __CUDA_ARCH__ >= CC_AMPERE
x8
#endif
#if !defined(CC_VOLTA)
#define CC_VOLTA 0
#endif
#if __CUDA_ARCH__ >= CC_VOLTA
x9
#endif
";
    assert_eq!(
        sides(src),
        vec![
            (3, Some(Side::Never(Dead::Toolkit))),
            (5, None),
            (8, None),
            (14, None),
            (17, None),
            (20, None),
            // A `#ifndef` default: any positive threshold decides alike.
            (
                26,
                Some(Side::Never(Dead::Arch {
                    alternative: Alt::Absent
                }))
            ),
            // Defined only where it was already defined; a default of 0 decides nothing.
            (33, None),
            (39, None),
        ]
    );
    // From an included header (`Visible::constants`).
    let mut seen = crate::model::project::Visible::default();
    seen.constants
        .insert("HDR_MIN".into(), (13000, "include/caps.hpp:29".into()));
    let r = crate::model::syntax::test_support::with_tokens(src, |s| {
        regions_and_pins_for(s, crate::version::Version::new(7, 0, 0), &seen).0
    });
    let at = src.find("x5").unwrap();
    assert_eq!(side_at(&r, at), Some(Side::Never(Dead::Toolkit)));
    assert_eq!(side_at(&r, src.find("x6").unwrap()), None);
}

#[test]
fn arch_gates_know_their_alternative() {
    let src = "#if __CUDA_ARCH__ >= 800\nx1\n#else\nx2\n#endif\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900\nx3\n#endif\n#if FOO\nint y;\n#elif __CUDA_ARCH__ >= 700\nx4\n#endif\n";
    let got = sides(src);
    let arch = |alternative| Some(Side::Never(Dead::Arch { alternative }));
    assert_eq!(
        got,
        vec![
            (2, arch(Alt::Code)),
            (4, None),
            (7, arch(Alt::Absent)),
            (12, arch(Alt::Code)),
        ]
    );
}

/// The alternative of the `__CUDA_ARCH__` branch on line 2 of `#if __CUDA_ARCH__ >= 750`,
/// `x`, `#else`, then `instead`, `#endif`.
fn alternative(instead: &str) -> Option<Side> {
    let src = format!("#if __CUDA_ARCH__ >= 750\nx\n#else\n{instead}#endif\n");
    sides(&src)[0].1
}

#[test]
fn the_arm_hip_compiles_instead_is_classified() {
    let arch = |alternative| Some(Side::Never(Dead::Arch { alternative }));
    // Code: a fallback (the lost-fast-path case), also beside a diagnostic.
    assert_eq!(alternative("  y = a + b;\n"), arch(Alt::Code));
    assert_eq!(
        alternative("  printf(\"slow\");\n  y = slow(a);\n"),
        arch(Alt::Code)
    );
    // Nothing, or only comments and diagnostics.
    assert_eq!(alternative(""), arch(Alt::Empty));
    assert_eq!(
        alternative("  #pragma message(\"FP16 kernels will not be compiled for SM75-.\")\n"),
        arch(Alt::Empty)
    );
    assert_eq!(
        alternative("  // not supported\n#warning \"no tensor cores\"\n  { }\n"),
        arch(Alt::Empty)
    );
    assert_eq!(
        alternative("  printf(\"unsupported arch\\n\");\n"),
        arch(Alt::Empty)
    );
    // Failures: at build time, at run time.
    assert_eq!(
        alternative("#error \"needs sm_75\"\n"),
        arch(Alt::BuildError)
    );
    assert_eq!(
        alternative("  static_assert(false, \"needs sm_75\");\n"),
        arch(Alt::BuildError)
    );
    assert_eq!(
        alternative("  printf(\"unsupported\");\n  __trap();\n"),
        arch(Alt::Trap)
    );
    assert_eq!(alternative("  assert(0);\n"), arch(Alt::Trap));
    // dgl's 16-bit CAS: unused parameters silenced, a message, the trap, then a `return`
    // never reached.
    assert_eq!(
        alternative("  (void)address;\n  printf(\"no FP16 atomics\\n\");\n  __trap();\n  return static_cast<T>(val);\n"),
        arch(Alt::Trap)
    );
    // Twins: a value returned before the trap is code; `(void)f(x)` calls something.
    assert_eq!(
        alternative("  return static_cast<T>(val);\n  __trap();\n"),
        arch(Alt::Code)
    );
    assert_eq!(alternative("  (void)f(x);\n  __trap();\n"), arch(Alt::Code));
    // A stub that returns a constant (flashinfer's fp8 conversions under `#else`), and
    // PTX's own trap.
    assert_eq!(alternative("  return 0;\n"), arch(Alt::Empty));
    // Both sides return a constant: a per-GPU value (candle's max copy bytes).
    let side = |src: &str| {
        let r = crate::model::syntax::test_support::with_tokens(src, regions);
        side_at(&r, src.find("  return").unwrap())
    };
    let value = "#if __CUDA_ARCH__ >= 700\n  return 16;\n#else\n  return 8;\n#endif\n";
    assert_eq!(side(value), arch(Alt::Value));
    let computed = value.replace("return 16;", "return fast(a);");
    assert_eq!(side(&computed), arch(Alt::Empty));
    assert_eq!(alternative("  return;\n"), arch(Alt::Empty));
    assert_eq!(
        alternative("  asm volatile(\"trap;\");\n  return 0;\n"),
        arch(Alt::Trap)
    );
    // Twins: a value computed another way is a fallback.
    assert_eq!(alternative("  return slow(a);\n"), arch(Alt::Code));
    assert_eq!(alternative("  return a * b;\n"), arch(Alt::Code));
    // Twins: a condition that is not a constant, a failure under a nested condition, a
    // `#define`: code (or possibly code).
    assert_eq!(alternative("  assert(n > 0);\n"), arch(Alt::Code));
    assert_eq!(
        alternative("#ifdef STRICT\n#error \"no\"\n#endif\n"),
        arch(Alt::Code)
    );
    assert_eq!(alternative("#define SLOW 1\n"), arch(Alt::Code));
}

/// GPUJPEG's encoder: whole kernels under `#if __CUDA_ARCH__ >= 200` (and `#ifdef
/// __CUDA_ARCH__` device arms). `hipport port` widens such device-pass tests with
/// `__HIP_DEVICE_COMPILE__`, so the ported file compiles them: their 64-lane hazards are live,
/// not "compiled out". Twin: a test of a newer architecture is about which GPU and stays dead.
#[test]
fn device_pass_tests_the_port_widens_are_compiled() {
    let src = "#if __CUDA_ARCH__ >= 200\nx1\n#endif\n#ifdef __CUDA_ARCH__\nx2\n#else\nx3\n#endif\n#if __CUDA_ARCH__ >= 700\nx4\n#endif\n";
    let got = sides(src);
    assert_eq!(got[0], (2, None));
    assert_eq!(got[1], (5, None));
    assert_eq!(got[2], (7, None));
    assert!(
        matches!(got[3], (10, Some(Side::Never(Dead::Arch { .. })))),
        "{got:?}"
    );
}

/// GPUJPEG's `#define GPUJPEG_IDCT_USE_ASM 0` then `#if !GPUJPEG_IDCT_USE_ASM … #else` (PTX)
/// `#endif`: the file's own definition in code every build compiles decides the test for HIP
/// too. Twins: a default a `-D` may override (`#ifndef X` / `#define X 0`) and a test before
/// the definition stay live.
#[test]
fn a_files_fixed_definition_decides_its_tests() {
    let src = "#define USE_ASM 0\n#if !USE_ASM\nx1\n#else\nx2\n#endif\n";
    let got = sides(src);
    assert_eq!(got[0], (3, None));
    assert!(matches!(got[1], (5, Some(Side::Never(_)))), "{got:?}");
    let default =
        "#ifndef USE_ASM\n#define USE_ASM 0\n#endif\n#if !USE_ASM\nx1\n#else\nx2\n#endif\n";
    assert_eq!(sides(default), vec![(5, None), (7, None)]);
    let before = "#if !USE_ASM\nx1\n#else\nx2\n#endif\n#define USE_ASM 0\n";
    assert_eq!(sides(before), vec![(2, None), (4, None)]);
}

/// cuda-samples' `helper_cuda.h` (vendored by fastmoe, cuda_voxelizer): the cuFFT and
/// cuSOLVER status strings sit under those headers' include guards, which no HIP header
/// defines and the port keeps as written: not compiled under HIP. Twin: cuRAND's guard is
/// renamed to hipRAND's by the port, so its block stays live.
#[test]
fn cuda_library_include_guards_are_undefined_under_hip() {
    let src = "#ifdef _CUFFT_H_\nx1\n#endif\n#ifdef CUSOLVER_COMMON_H_\nx2\n#endif\n#ifdef SOME_PROJECT_H_\nx3\n#endif\n";
    let got = sides(src);
    assert!(matches!(got[0], (2, Some(Side::Never(_)))), "{got:?}");
    assert!(matches!(got[1], (5, Some(Side::Never(_)))), "{got:?}");
    assert_eq!(got[2], (8, None));
}

/// Shared headers of several kernel languages (CMP_Core's `#ifdef ASPM_HLSL`, an OpenCL arm
/// `#ifdef __OPENCL_VERSION__`): the predefined macros of OpenCL C, Metal, HLSL and SYCL's
/// device pass are no build's here, HIP's or CUDA's. Twin: the `#else` arm both compile.
#[test]
fn other_kernel_languages_arms_are_no_builds() {
    let src = "#ifdef __OPENCL_VERSION__\nx1\n#else\nx2\n#endif\n#if defined(__HLSL_VERSION) || defined(__METAL_VERSION__)\nx3\n#endif\n";
    let got = sides(src);
    assert_eq!(got[0], (2, Some(Side::Never(Dead::Toolkit))), "{got:?}");
    assert_eq!(got[1], (4, None), "{got:?}");
    assert_eq!(got[2], (7, Some(Side::Never(Dead::Toolkit))), "{got:?}");
}
