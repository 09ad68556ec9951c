//! Names the warp rules resolve beyond the literal: `warpSize` macros (HP108) and constants of
//! the headers a file includes (`model::project`), and HP108 by target release.

use crate::finding::Finding;
use crate::gate::Status;
use crate::model::project::Visible;

fn run(src: &str, rocm: &str, seen: &Visible) -> Vec<Finding> {
    let bytes = src.as_bytes();
    let lines = crate::source::LineIndex::new(bytes);
    let ctx = crate::rules::FileCtx {
        path: "k.cu",
        src: bytes,
        lines: &lines,
    };
    let tree = crate::parse::parse(bytes);
    let lexed = crate::lex::lex(bytes);
    let target = crate::mappings::Target {
        rocm: rocm.parse().unwrap(),
        roc: false,
        experimental: false,
        lds: None,
    };
    crate::rules::hazards::check_lexed(
        &ctx,
        &lexed,
        tree.as_ref(),
        &target,
        seen,
        &mut Vec::new(),
        &mut Vec::new(),
    )
}

fn lines(fs: &[Finding], rule: &str, status: Status) -> Vec<u32> {
    fs.iter()
        .filter(|f| f.rule == rule && f.status == status)
        .map(|f| f.line)
        .collect()
}

const MACRO: &str = "#define NUM_WARPS (1024 / warpSize)\n__global__ void k(float *p) {\n  __shared__ float sums[NUM_WARPS];\n  for (int i = 0; i < NUM_WARPS; ++i) p[i] = sums[i];\n}\n";

#[test]
fn a_warpsize_macro_as_an_array_bound_is_hp108_from_rocm_7_only() {
    let none = Visible::default();
    let at7 = run(MACRO, "7.0", &none);
    assert_eq!(lines(&at7, "HP108", Status::Remediation), [3]);
    let m = &at7.iter().find(|f| f.rule == "HP108").unwrap().message;
    assert!(
        m.starts_with("`NUM_WARPS` (`(1024 / warpSize)`) used as an array bound"),
        "{m}"
    );
    // Before 7.0 `warpSize` is constexpr: hipcc accepts it.
    let at6 = run(MACRO, "6.2", &none);
    assert!(lines(&at6, "HP108", Status::Remediation).is_empty());
    assert_eq!(lines(&at6, "HP108", Status::Pass), [3]);
    // A macro that does not name `warpSize`, and a run-time use only: nothing.
    let plain = MACRO.replace("1024 / warpSize", "1024 / 64");
    assert!(lines(&run(&plain, "7.0", &none), "HP108", Status::Remediation).is_empty());
    let runtime = "#define NUM_WARPS (1024 / warpSize)\n__global__ void k(float *p) {\n  for (int i = 0; i < NUM_WARPS; ++i) p[i] = 0;\n}\n";
    assert!(run(runtime, "7.0", &none).iter().all(|f| f.rule != "HP108"));
}

#[test]
fn a_warpsize_macro_seen_from_a_header_is_hp108_naming_it() {
    let src = "__global__ void k(float *p) {\n  __shared__ float sums[NUM_WARPS];\n  p[0] = sums[0];\n}\n";
    let mut seen = Visible::default();
    seen.warp_macros.insert(
        "NUM_WARPS".into(),
        ("(1024 / warpSize)".into(), "utils.h:1".into()),
    );
    let fs = run(src, "7.0", &seen);
    assert_eq!(lines(&fs, "HP108", Status::Remediation), [2]);
    assert!(fs[0].message.contains("defined at utils.h:1"));
    assert!(run(src, "7.0", &Visible::default()).is_empty());
}

#[test]
fn header_constants_take_part_in_lane_arithmetic_unless_the_file_defines_the_name() {
    let src = "__global__ void k(float *p) {\n  int lane = threadIdx.x % WS;\n  p[lane] = 0;\n}\n";
    let with = |name: &str, v: u64| {
        let mut seen = Visible::default();
        seen.constants.insert(name.into(), (v, "utils.h:1".into()));
        seen
    };
    assert_eq!(
        lines(&run(src, "7.0", &with("WS", 32)), "HP102", Status::Pass),
        [2]
    );
    assert!(run(src, "7.0", &with("WS", 64)).is_empty());
    assert!(run(src, "7.0", &Visible::default()).is_empty());
    // The file's own definition wins over the header's.
    let own = format!("#define WS 64\n{src}");
    assert!(lines(
        &run(&own, "7.0", &with("WS", 32)),
        "HP102",
        Status::Remediation
    )
    .is_empty());
}

/// A header's function constant (`dh::WarpThreads()` = 32, `model::project`) is evidence of
/// 32-lane warps for HP110 in the files that use it; twin: without the header's facts, none.
#[test]
fn a_header_warp_constant_makes_cub_default_width_a_finding() {
    let src = "__global__ void k(float* p) {\n  using WR = cub::WarpReduce<float>;\n  __shared__ typename WR::TempStorage t[8];\n  int w = threadIdx.x / dh::WarpThreads();\n  p[0] = WR(t[w]).Sum(p[threadIdx.x]);\n}\n";
    let mut seen = Visible::default();
    seen.constants.insert(
        "WarpThreads".into(),
        (32, "src/common/device_helpers.cuh:796".into()),
    );
    let fs = run(src, "6.2", &seen);
    assert_eq!(lines(&fs, "HP110", Status::Unknown), [2]);
    let m = &fs.iter().find(|f| f.rule == "HP110").unwrap().message;
    assert!(m.contains("(line 4)"), "{m}");
    let fs = run(src, "6.2", &Visible::default());
    assert!(lines(&fs, "HP110", Status::Unknown).is_empty());
}

/// astro-accelerate's `aa_ballot`: a template function whose body only returns a ballot
/// (`__ballot_sync` for CUDA 9, `__ballot` before), its result kept in an `int` that `__ffs`
/// and `__popc` read: HP106 naming the wrapper, in the file that defines it and, through the
/// project model, in one that includes it. Twin: a function that returns a count of a ballot
/// (`__popc(__ballot(p))`) is no ballot.
#[test]
fn a_function_that_only_returns_a_ballot_is_a_ballot() {
    let wrapper = "template<typename T, typename U>\n__device__ __inline__ T aa_ballot(const U &mask, const T &XX) {\n#if(CUDART_VERSION >= 9000)\n  return(__ballot_sync(mask, XX));\n#else\n  return(__ballot(XX));\n#endif\n}\n__device__ int count(int p) { return __popc(__ballot(p)); }\n";
    let lexed = crate::lex::lex(wrapper.as_bytes());
    let fns = crate::model::project::ballot_functions(wrapper.as_bytes(), &lexed);
    assert_eq!(
        fns,
        [(
            "aa_ballot".to_string(),
            "__ballot_sync(mask, XX)".to_string(),
            2
        )]
    );
    let kernel = "__global__ void k(int *p) {\n  int mask, leader;\n  if (p[threadIdx.x] > 0) {\n    mask = aa_ballot(0xFFFFFFFF, 1);\n    leader = __ffs(mask) - 1;\n    p[leader] = __popc(mask);\n  }\n  int n = count(p[1]);\n  p[1] = n;\n}\n";
    let fs = run(&format!("{wrapper}{kernel}"), "6.2", &Visible::default());
    assert_eq!(lines(&fs, "HP106", Status::Remediation), [9, 13], "{fs:?}");
    let m = &fs
        .iter()
        .find(|f| f.rule == "HP106" && f.line == 13)
        .unwrap()
        .message;
    assert!(
        m.contains("ballot wrapper `aa_ballot`, defined at line 2"),
        "{m}"
    );
    let mut seen = Visible::default();
    seen.ballot_macros.insert(
        "aa_ballot".into(),
        (fns[0].1.clone(), "include/wrappers.cuh:2".into()),
    );
    let fs = run(kernel, "6.2", &seen);
    assert_eq!(lines(&fs, "HP106", Status::Remediation), [4], "{fs:?}");
    assert!(run(kernel, "6.2", &Visible::default())
        .iter()
        .all(|f| f.rule != "HP106"));
}

/// gpu-voxels: `#define BALLOT(P) __ballot_sync(FULL_MASK, P)` in a header, each use kept in a
/// `uint32_t` (HP106 naming the macro); twins: a 64-bit use, and a function-like macro that is
/// no ballot (`POPC`).
#[test]
fn a_ballot_macro_from_a_header_kept_in_32_bits_is_hp106() {
    let src = "__global__ void k(int *p) {\n  uint32_t votes = BALLOT(p[threadIdx.x] > 0);\n  unsigned long long wide = BALLOT(p[threadIdx.x] > 1);\n  uint32_t n = POPC(p[0]);\n  p[0] = votes + wide + n;\n}\n";
    let mut seen = Visible::default();
    seen.ballot_macros.insert(
        "BALLOT".into(),
        ("__ballot_sync(FULL_MASK, P)".into(), "helpers.h:35".into()),
    );
    let fs = run(src, "6.2", &seen);
    assert_eq!(lines(&fs, "HP106", Status::Remediation), [2]);
    let m = &fs.iter().find(|f| f.rule == "HP106").unwrap().message;
    assert!(
        m.contains("ballot wrapper `BALLOT`, defined at helpers.h:35"),
        "{m}"
    );
    assert!(run(src, "6.2", &Visible::default())
        .iter()
        .all(|f| f.rule != "HP106"));
    // A compat spelling of the intrinsic is the intrinsic (the message names no macro).
    let compat = format!(
        "#define __ballot_sync(m, p) __ballot(p)\n{}",
        src.replace("BALLOT(", "__ballot_sync(0xffffffff, ")
    );
    let fs = run(&compat, "6.2", &Visible::default());
    assert_eq!(lines(&fs, "HP106", Status::Remediation), [3]);
    assert!(fs.iter().all(|f| !f.message.contains("ballot wrapper")));
    // The file's own definition counts the same.
    let own = format!("#define BALLOT(P) __ballot_sync(0xffffffff, P)\n{src}");
    assert_eq!(
        lines(
            &run(&own, "6.2", &Visible::default()),
            "HP106",
            Status::Remediation
        ),
        [3]
    );
}

/// A project constant named `warpSize` (curobo's `constexpr int warpSize = 32;` in
/// `namespace curobo::common`) is the project's name, not HIP's builtin: no HP108 at its
/// declaration (HP101 reports the 32), at a use qualified by its namespace, or at an
/// unqualified use inside that namespace. Twins: HIP's `warpSize` as an array bound (and
/// `::warpSize`, the global builtin) stays HP108, also beside the project's constant.
#[test]
fn a_project_constant_named_warpsize_is_not_hips() {
    let none = Visible::default();
    let src = "namespace lib { namespace common {\nconstexpr int warpSize = 32;\n__global__ void a(float* p) {\n  __shared__ float d[warpSize];\n  p[0] = d[0];\n}\n} }\n__global__ void k(float* p) {\n  __shared__ float s[lib::common::warpSize];\n  __shared__ float t[warpSize];\n  __shared__ float u[::warpSize];\n  p[0] = s[0] + t[0] + u[0];\n}\n";
    let at7 = run(src, "7.0", &none);
    assert_eq!(lines(&at7, "HP108", Status::Remediation), [10, 11]);
    assert_eq!(lines(&at7, "HP101", Status::Remediation).first(), Some(&2));
}
