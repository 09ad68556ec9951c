//! The project model end to end (`model::project`): what a unit sees defined in the project
//! files it includes. A ROCm shim in an included header makes HP001 PASS, naming it (and only
//! then: a CUDA-only definition or a header not included changes nothing); a warp constant or a
//! `warpSize` macro of a header reaches the warp rules of the file that uses it (HP102, HP108 by
//! target); `port --compat-header` does not add a shim an included header already defines for
//! ROCm, which hipcc rejects as a redefinition (checked where hipcc is on PATH).

use std::process::Command;

#[path = "common/rows.rs"]
mod rows;
use rows::{hipport, write, Row};

/// Every finding of `scan --format json <extra…>` on a tree holding `files`.
fn scan(files: &[(&str, &str)], extra: &[&str]) -> Vec<Row> {
    rows::scan_files(files, extra)
}

fn of(
    fs: &[(String, String, u64, String, String)],
    rule: &str,
) -> Vec<(String, u64, String, String)> {
    fs.iter()
        .filter(|f| f.0 == rule)
        .map(|f| (f.1.clone(), f.2, f.3.clone(), f.4.clone()))
        .collect()
}

const SHIM: &str =
    "#pragma once\n#if defined(USE_ROCM)\n#define __stwb(dst, src) *dst = src\n#endif\n";
const CUDA_ONLY: &str =
    "#pragma once\n#ifndef USE_ROCM\n#define __stwb(dst, src) *dst = src\n#endif\n";
const USES: &str = "#include \"compat.cuh\"\n__global__ void k(float *p) { __stwb(p, 1.0f); }\n";

#[test]
fn a_rocm_shim_in_an_included_header_is_the_projects_own() {
    let fs = scan(&[("compat.cuh", SHIM), ("k.cu", USES)], &[]);
    let hp001 = of(&fs, "HP001");
    assert_eq!(hp001.len(), 1, "{fs:?}");
    let (path, line, status, message) = &hp001[0];
    assert_eq!((path.as_str(), *line, status.as_str()), ("k.cu", 2, "PASS"));
    assert!(
        message.contains("defined for ROCm by compat.cuh:3"),
        "{message}"
    );
}

/// ggml's layout: `common.cuh` includes `vendors/hip.h` only under its ROCm switch, and that
/// header, with no platform test of its own, emulates `__vsub4` and defines `__CUDA_ARCH__` for
/// the HIP build. Both are the ROCm build's: the call is the project's own (HP001 PASS) and the
/// `__CUDA_ARCH__` tests and macro bodies of the includers have the project's value (HP401
/// PASS). Twin: the same header also included outside a ROCm arm is no ROCm layer.
#[test]
fn a_header_only_rocm_arms_include_is_the_projects_rocm_layer() {
    let common = "#pragma once\n#if defined(GGML_USE_HIP)\n#include \"vendors/hip.h\"\n#else\n#include <cuda_runtime.h>\n#endif\n#ifdef __CUDA_ARCH__\n#define NO_DEVICE_CODE report(__CUDA_ARCH__)\n#endif\n";
    let hip = "#pragma once\n#include <hip/hip_runtime.h>\n#define __CUDA_ARCH__ 1300\nstatic __device__ __forceinline__ int __vsub4(const int a, const int b) { return a - b; }\n";
    let unit = "#include \"common.cuh\"\n__global__ void k(int *p) {\n#if __CUDA_ARCH__ >= 700\n  p[0] = __vsub4(p[1], p[2]);\n#endif\n}\n";
    let fs = scan(
        &[
            ("vendors/hip.h", hip),
            ("common.cuh", common),
            ("k.cu", unit),
        ],
        &[],
    );
    let hp001 = of(&fs, "HP001");
    assert_eq!(hp001.len(), 1, "{fs:?}");
    assert_eq!(hp001[0].2, "PASS", "{hp001:?}");
    assert!(hp001[0].3.contains("vendors/hip.h:4"), "{}", hp001[0].3);
    let hp401: Vec<_> = of(&fs, "HP401")
        .into_iter()
        .filter(|f| f.0 == "k.cu" || f.1 == 8)
        .collect();
    assert_eq!(hp401.len(), 2, "{fs:?}");
    assert!(
        hp401
            .iter()
            .all(|f| f.2 == "PASS" && f.3.contains("vendors/hip.h:3")),
        "{hp401:?}"
    );
    // Twin: another header includes it for every build; it is no ROCm layer any more.
    let fs = scan(
        &[
            ("vendors/hip.h", hip),
            ("common.cuh", common),
            ("other.h", "#include \"vendors/hip.h\"\n"),
            ("k.cu", unit),
        ],
        &[],
    );
    assert!(
        of(&fs, "HP401")
            .iter()
            .any(|f| f.0 == "k.cu" && f.1 == 3 && f.2 != "PASS"),
        "{fs:?}"
    );
    assert!(
        !of(&fs, "HP001")
            .iter()
            .any(|f| f.3.contains("vendors/hip.h")),
        "{fs:?}"
    );
}

#[test]
fn a_shim_reached_through_headers_and_an_include_root_is_seen() {
    let fs = scan(
        &[
            ("include/proj/compat.cuh", SHIM),
            ("csrc/common.h", "#include \"proj/compat.cuh\"\n"),
            (
                "csrc/k.cu",
                "#include \"common.h\"\n__global__ void k(float *p) { __stwb(p, 1.0f); }\n",
            ),
        ],
        &[],
    );
    let hp001 = of(&fs, "HP001");
    assert_eq!(hp001.len(), 1, "{fs:?}");
    assert_eq!(hp001[0].2, "PASS");
    assert!(hp001[0].3.contains("include/proj/compat.cuh:3"));
}

#[test]
fn a_cuda_only_definition_or_a_header_not_included_leaves_hp001() {
    // The same name defined only where the ROCm build never compiles.
    let fs = scan(&[("compat.cuh", CUDA_ONLY), ("k.cu", USES)], &[]);
    assert_eq!(
        of(&fs, "HP001")
            .iter()
            .map(|f| (f.0.as_str(), f.1, f.2.as_str()))
            .collect::<Vec<_>>(),
        [("k.cu", 2, "REMEDIATION")]
    );
    // The shim exists, but this unit does not include it.
    let fs = scan(
        &[
            ("compat.cuh", SHIM),
            ("k.cu", "__global__ void k(float *p) { __stwb(p, 1.0f); }\n"),
        ],
        &[],
    );
    assert_eq!(
        of(&fs, "HP001")
            .iter()
            .map(|f| (f.0.as_str(), f.1, f.2.as_str()))
            .collect::<Vec<_>>(),
        [("k.cu", 1, "REMEDIATION")]
    );
}

/// A kernel whose 32-lane ids meet a ballot of the wavefront (a kernel that exchanged nothing
/// would keep CUDA's meaning: the exchange model settles it).
const MAIN_WS: &str = "#include \"utils.h\"\n__global__ void k(float *p) {\n  int lane = threadIdx.x % WS;\n  int warp = threadIdx.x / WS;\n  p[warp] = lane + __popcll(__ballot(p[lane] > 0));\n}\n";

#[test]
fn a_warp_constant_of_a_header_reaches_the_lane_arithmetic_of_its_includer() {
    let fs = scan(
        &[
            ("utils.h", "static const int WS = 32;\n"),
            ("main.cu", MAIN_WS),
        ],
        &[],
    );
    let lines: Vec<(String, u64, String)> = of(&fs, "HP102")
        .into_iter()
        .map(|f| (f.0, f.1, f.2))
        .collect();
    assert_eq!(
        lines,
        [
            ("main.cu".to_string(), 3, "REMEDIATION".to_string()),
            ("main.cu".to_string(), 4, "REMEDIATION".to_string())
        ]
    );
    // 64 lanes: nothing assumes a 32-lane warp.
    let fs = scan(
        &[
            ("utils.h", "static const int WS = 64;\n"),
            ("main.cu", MAIN_WS),
        ],
        &[],
    );
    assert!(of(&fs, "HP102").is_empty(), "{fs:?}");
    // Two headers that disagree: no value is guessed.
    let fs = scan(
        &[
            ("a.h", "static const int WS = 32;\n"),
            ("b.h", "static const int WS = 64;\n"),
            (
                "main.cu",
                &format!("#include \"a.h\"\n#include \"b.h\"\n{}", &MAIN_WS[19..]),
            ),
        ],
        &[],
    );
    assert!(of(&fs, "HP102").is_empty(), "{fs:?}");
}

const NUM_WARPS_MAIN: &str = "#include \"utils.h\"\n__global__ void k(float *p) {\n  __shared__ float sums[NUM_WARPS];\n  sums[0] = 1.f;\n  p[0] = sums[0];\n}\n";

#[test]
fn a_warpsize_macro_of_a_header_as_an_array_bound_fails_from_rocm_7() {
    let files = [
        ("utils.h", "#define NUM_WARPS (1024 / warpSize)\n"),
        ("main.cu", NUM_WARPS_MAIN),
    ];
    let at7 = of(&scan(&files, &["--rocm", "7.0"]), "HP108");
    assert_eq!(at7.len(), 1, "{at7:?}");
    assert_eq!((at7[0].1, at7[0].2.as_str()), (3, "REMEDIATION"));
    assert!(at7[0].3.contains("`NUM_WARPS`") && at7[0].3.contains("utils.h:1"));
    // hipcc accepts it before 7.0 (`warpSize` is constexpr there): PASS, saying why.
    let at6 = of(&scan(&files, &["--rocm", "6.2"]), "HP108");
    assert_eq!(at6.len(), 1, "{at6:?}");
    assert_eq!(at6[0].2, "PASS");
    assert!(at6[0].3.contains("moving to 7.0 breaks"), "{}", at6[0].3);
    // A macro that does not name `warpSize`: nothing.
    let plain = of(
        &scan(
            &[
                ("utils.h", "#define NUM_WARPS (1024 / 64)\n"),
                ("main.cu", NUM_WARPS_MAIN),
            ],
            &["--rocm", "7.0"],
        ),
        "HP108",
    );
    assert!(plain.is_empty(), "{plain:?}");
}

const ATOMIC_SHIM: &str = "#pragma once\n#include <cuda_fp16.h>\n#if defined(USE_ROCM)\nstatic inline __device__ __half2 atomicAdd(__half2 *address, __half2 val) {\n  unsigned int *word = reinterpret_cast<unsigned int *>(address);\n  unsigned int old = *word, assumed;\n  do {\n    assumed = old;\n    __half2 sum = __hadd2(*reinterpret_cast<__half2 *>(&assumed), val);\n    old = atomicCAS(word, assumed, *reinterpret_cast<unsigned int *>(&sum));\n  } while (assumed != old);\n  return *reinterpret_cast<__half2 *>(&old);\n}\n#endif\n";
const ATOMIC_USE: &str =
    "#include \"compat.cuh\"\n__global__ void k(__half2 *p, __half2 v) { atomicAdd(p, v); }\n";

fn port_compat(files: &[(&str, &str)]) -> (tempfile::TempDir, std::path::PathBuf) {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("in");
    write(&input, files);
    let out = d.path().join("out");
    let r = hipport()
        .args(["port", "-q", "--rocm", "6.2", "--compat-header", "--out"])
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    (d, out)
}

fn hipcc_on_path() -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join("hipcc").is_file()))
        .unwrap_or(false)
}

#[test]
fn compat_header_does_not_duplicate_a_shim_an_included_header_defines() {
    let (_d, out) = port_compat(&[("compat.cuh", ATOMIC_SHIM), ("k.cu", ATOMIC_USE)]);
    assert!(!out.join("hipport_compat.h").exists());
    let k = std::fs::read_to_string(out.join("k.cu")).unwrap();
    assert!(!k.contains("hipport_compat.h"), "{k}");
    if !hipcc_on_path() {
        eprintln!("skipped the compile: hipcc is not on PATH");
        return;
    }
    let r = Command::new("hipcc")
        .args(["-fsyntax-only", "-DUSE_ROCM", "-x", "hip", "k.cu"])
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
}

#[test]
fn compat_header_adds_the_shim_when_no_included_header_defines_it() {
    // The same overload, but only for the CUDA build: the ROCm build still lacks it.
    let cuda_only = ATOMIC_SHIM.replace("#if defined(USE_ROCM)", "#ifndef USE_ROCM");
    let (_d, out) = port_compat(&[("compat.cuh", &cuda_only), ("k.cu", ATOMIC_USE)]);
    let header = std::fs::read_to_string(out.join("hipport_compat.h")).unwrap();
    assert!(header.contains("half2_atomic_add"), "{header}");
    let k = std::fs::read_to_string(out.join("k.cu")).unwrap();
    assert!(k.contains("#include \"hipport_compat.h\""), "{k}");
}

#[test]
fn port_keeps_a_headers_own_porting_macro_and_translates_its_users() {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("in");
    write(
        &input,
        &[
            (
                "compat.h",
                "#pragma once\n#ifdef USE_ROCM\n#define cudaStream_t hipStream_t\n#endif\n",
            ),
            (
                "k.cu",
                "#include \"compat.h\"\nvoid f(cudaStream_t s) { cudaStreamSynchronize(s); }\n",
            ),
        ],
    );
    let out = d.path().join("out");
    let r = hipport()
        .args(["port", "-q", "--out"])
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let h = std::fs::read_to_string(out.join("compat.h")).unwrap();
    assert!(h.contains("#define cudaStream_t hipStream_t"), "{h}");
    let k = std::fs::read_to_string(out.join("k.cu")).unwrap();
    assert!(k.contains("hipStreamSynchronize(s)"), "{k}");
}

/// GPUMD's shape: the project ports itself under `USE_HIP`, and its HIP Makefile beside the
/// main one (`makefile.hip`) defines it: the check HP303 asks for is done. Twin: the same
/// switch with no build file defining it stays for a person to check.
#[test]
fn a_switch_a_platform_makefile_defines_is_checked() {
    let src = "#ifdef USE_HIP\n#include <hip/hip_runtime.h>\n#else\n#include <cuda_runtime.h>\n#endif\n__global__ void k(float* p) { p[threadIdx.x] = 0.f; }\n";
    let mk = "CC = hipcc\nCFLAGS = -O3 --offload-arch=gfx90a -DUSE_HIP\nall:\n\t$(CC) $(CFLAGS) -c k.cu\n";
    let fs = scan(&[("src/k.cu", src), ("src/makefile.hip", mk)], &[]);
    let hp303 = of(&fs, "HP303");
    assert_eq!(hp303.len(), 1, "{fs:?}");
    assert_eq!(hp303[0].2, "PASS", "{:?}", hp303[0]);
    assert!(hp303[0].3.contains("src/makefile.hip"), "{}", hp303[0].3);
    let fs = scan(&[("src/k.cu", src)], &[]);
    let hp303 = of(&fs, "HP303");
    assert_eq!(hp303.len(), 1, "{fs:?}");
    assert_ne!(hp303[0].2, "PASS");
}

/// lmdeploy's shape: a header sets a feature switch per build from `__CUDA_ARCH__`, and a unit
/// that includes it tests the switch around inline PTX whose `#else` only asserts the switch.
/// HIP-Clang takes the `#else` (the switch is 0): the PTX is not built there, and what is lost
/// is one fact on the condition (an arm without code). Twins: a switch set by a project option
/// (unknown to the model) leaves the PTX open; a header the unit does not include changes
/// nothing.
#[test]
fn a_switch_a_header_sets_from_cuda_arch_decides_the_includers_branches() {
    const COMMON: &str = "#pragma once\n#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800))\n#define ARCH_SM80 1\n#else\n#define ARCH_SM80 0\n#endif\n";
    const OPTION: &str = "#pragma once\n#ifdef MY_FAST_PATH\n#define ARCH_SM80 1\n#else\n#define ARCH_SM80 0\n#endif\n";
    const MMA: &str = "#include \"common.h\"\n__device__ void mma(unsigned *d, unsigned a) {\n#if ARCH_SM80\n    asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0}, {%1};\" : \"=r\"(d[0]) : \"r\"(a));\n#else\n    assert(ARCH_SM80);\n#endif\n}\n__global__ void k(unsigned *d) { mma(d, 1u); }\n";
    let ptx = |fs: &[Row]| -> Vec<(u64, String)> {
        of(fs, "HP201").iter().map(|f| (f.1, f.2.clone())).collect()
    };
    let fs = scan(&[("common.h", COMMON), ("mma.cu", MMA)], &[]);
    assert_eq!(ptx(&fs), [(4, "PASS".to_string())], "{fs:?}");
    let hp401: Vec<_> = of(&fs, "HP401")
        .into_iter()
        .filter(|f| f.0 == "mma.cu")
        .collect();
    assert_eq!(hp401.len(), 1, "{fs:?}");
    assert_eq!((hp401[0].1, hp401[0].2.as_str()), (3, "REMEDIATION"));
    assert!(hp401[0]
        .3
        .contains("a switch the project sets from `__CUDA_ARCH__`"));
    // The same test inside the project's CUDA-only arm: HIP compiles none of it, so nothing is
    // open there.
    let cuda_only = MMA.replacen("__device__", "#ifndef USE_ROCM\n__device__", 1) + "#endif\n";
    let fs = scan(&[("common.h", COMMON), ("mma.cu", &cuda_only)], &[]);
    assert!(
        of(&fs, "HP401")
            .iter()
            .all(|f| f.0 != "mma.cu" || f.2 == "PASS"),
        "{fs:?}"
    );
    let fs = scan(&[("common.h", OPTION), ("mma.cu", MMA)], &[]);
    assert_eq!(ptx(&fs), [(4, "REMEDIATION".to_string())], "{fs:?}");
    let fs = scan(
        &[
            ("other/common.h", COMMON),
            ("mma.cu", &MMA.replace("common.h", "missing.h")),
        ],
        &[],
    );
    assert_eq!(ptx(&fs), [(4, "REMEDIATION".to_string())], "{fs:?}");
}

/// dgl's shape: `ndarray.h` defines
/// `BF16_ENABLED (defined(CUDART_VERSION) && CUDART_VERSION >= 11000)` under the project's `#ifdef DGL_USE_CUDA`, and `atomic.cuh`, which does not include
/// it, tests `#if BF16_ENABLED` around bf16 atomics that trap on old GPUs. Whether or not a unit
/// defines the switch, HIP finds it 0: the bf16 code is compiled out (PASS naming the test).
/// Twin: a second definition with another value anywhere in the project leaves the switch open.
#[test]
fn a_switch_every_definition_of_which_hip_finds_false_is_zero_in_every_file() {
    const NDARRAY: &str = "#pragma once\n#ifdef DGL_USE_CUDA\n#define BF16_ENABLED (defined(CUDART_VERSION) && CUDART_VERSION >= 11000)\n#endif\n";
    const ATOMIC: &str = "#pragma once\n#if BF16_ENABLED\n__device__ unsigned short enc(unsigned short v) {\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800\n  return v;\n#else\n  printf(\"no bf16\\n\");\n  __trap();\n  return 0;\n#endif\n}\n#endif\n";
    let fs = scan(
        &[("include/ndarray.h", NDARRAY), ("src/atomic.cuh", ATOMIC)],
        &[],
    );
    let hp401: Vec<_> = of(&fs, "HP401");
    assert!(
        hp401.iter().all(|f| f.2 == "PASS") && !hp401.is_empty(),
        "{fs:?}"
    );
    assert!(
        hp401[0].3.contains("decided by `#if BF16_ENABLED`"),
        "{}",
        hp401[0].3
    );
    let other = "#pragma once\n#define BF16_ENABLED 1\n";
    let fs = scan(
        &[
            ("include/ndarray.h", NDARRAY),
            ("include/other.h", other),
            ("src/atomic.cuh", ATOMIC),
        ],
        &[],
    );
    let hp401 = of(&fs, "HP401");
    assert!(
        hp401
            .iter()
            .any(|f| f.2 == "REMEDIATION" && f.3.contains("only traps")),
        "{fs:?}"
    );
}

/// SGEMM_CUDA's shape: a kernel header defines `WARPSIZE 32` and tiles threads by it without
/// exchanging anything across lanes; the host runner that includes it checks tile counts with
/// the constant and a literal 32 (`NUM_WARPS = THREADS / 32`). Every use keeps CUDA's meaning:
/// the header's HP101 and the runner's HP102 are PASS, and the runner carries one PASS for its
/// use of the header's constant. candle's shape too: a header that only defines `WARP_SIZE`,
/// whose includer uses it in a function of 32-lane logical warps. Twins: an includer that
/// shuffles at the wavefront's width with the constant reopens the header's finding; a header
/// that only defines it, with such an includer, stays open.
#[test]
fn a_header_warp_constant_is_judged_by_every_use_in_its_includers() {
    let header = "#pragma once\nconst int WARPSIZE = 32;\n__global__ void k(float *a) {\n  const unsigned w = threadIdx.x / WARPSIZE;\n  a[w] = 0.0f;\n}\n";
    let runner = "#include \"kernel.cuh\"\nvoid run(float *a) {\n  const unsigned THREADS = 128;\n  constexpr unsigned NUM_WARPS = THREADS / 32;\n  static_assert(NUM_WARPS * WARPSIZE == THREADS);\n  k<<<1, THREADS>>>(a);\n}\n";
    let fs = scan(&[("kernel.cuh", header), ("runner.cu", runner)], &[]);
    let open: Vec<_> = fs
        .iter()
        .filter(|f| matches!(f.0.as_str(), "HP101" | "HP102") && f.3 != "PASS")
        .collect();
    assert!(open.is_empty(), "{open:?}");
    assert!(fs.iter().any(|f| f.0 == "HP101"
        && f.1 == "runner.cu"
        && f.4.contains("is used in this file only")));
    let wave = runner.replace(
        "  k<<<1, THREADS>>>(a);\n",
        "  k<<<1, THREADS>>>(a);\n}\n__device__ float r(float v) {\n  return __shfl_down(v, WARPSIZE / 2, 64);\n",
    );
    let fs = scan(&[("kernel.cuh", header), ("runner.cu", &wave)], &[]);
    assert!(
        fs.iter()
            .any(|f| f.0 == "HP101" && f.1 == "kernel.cuh" && f.3 != "PASS"),
        "{fs:?}"
    );
    let defines = "#pragma once\n#define WARP_SIZE 32\n";
    let user = "#include \"gguf.cuh\"\n__device__ float sum(float v) {\n  for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffff, v, m, WARP_SIZE);\n  return v;\n}\n";
    let fs = scan(&[("gguf.cuh", defines), ("moe.cu", user)], &[]);
    let h: Vec<_> = fs
        .iter()
        .filter(|f| f.0 == "HP101" && f.1 == "gguf.cuh")
        .collect();
    assert!(!h.is_empty() && h.iter().all(|f| f.3 == "PASS"), "{fs:?}");
    let user64 = user.replace("v, m, WARP_SIZE)", "v, m * WARP_SIZE / 16, 64)");
    let fs = scan(&[("gguf.cuh", defines), ("moe.cu", &user64)], &[]);
    assert!(
        fs.iter()
            .any(|f| f.0 == "HP101" && f.1 == "gguf.cuh" && f.3 != "PASS"),
        "{fs:?}"
    );
}

/// omniserve's `mmha::shfl_mask(n)`: a helper an included header declares with a 32-bit
/// return type makes the mask of every shuffle passing it 32 bits (HP015: HIP's `_sync`
/// calls `static_assert` 64 bits), and its calls are one decision, held by the first. Twin:
/// the helper returns `unsigned long long`: nothing.
#[test]
fn a_mask_from_a_helper_of_an_included_header_is_32_bits_once() {
    let utils = "#pragma once\nnamespace mmha {\ninline __device__ constexpr uint32_t shfl_mask(int n) { return n == 32 ? 0xffffffffu : (1u << n) - 1u; }\n}\n";
    let kernel = "#include \"utils.h\"\n__global__ void k(float* x, int n) {\n  float v = x[threadIdx.x];\n  for (int m = n / 2; m >= 1; m /= 2) {\n    v = fmaxf(v, __shfl_xor_sync(mmha::shfl_mask(n), v, m));\n    v = fminf(v, __shfl_xor_sync(mmha::shfl_mask(n), v, m));\n  }\n  x[threadIdx.x] = v;\n}\n";
    let fs = scan(&[("utils.h", utils), ("k.cu", kernel)], &[]);
    let hp015 = of(&fs, "HP015");
    assert_eq!(hp015.len(), 2, "{fs:?}");
    assert_eq!((hp015[0].1, hp015[0].2.as_str()), (5, "REMEDIATION"));
    assert!(
        hp015[0]
            .3
            .contains("one decision for the helper `shfl_mask`"),
        "{}",
        hp015[0].3
    );
    assert_eq!(hp015[1].2, "PASS");
    let wide = utils.replace("uint32_t shfl_mask", "unsigned long long shfl_mask");
    let fs = scan(&[("utils.h", wide.as_str()), ("k.cu", kernel)], &[]);
    assert!(of(&fs, "HP015").is_empty(), "{fs:?}");
}

/// mfem's shape: a header's chain tests `P_USE_CUDA` as the alternative to the project's ROCm
/// switch `P_USE_HIP`, so the ROCm build never defines `P_USE_CUDA`, in any unit. A source that
/// does not include that header and tests `#if defined(P_USE_CUDA)` alone around a CUDA-version
/// gate (after a block HIP skips with a nested `#ifdef`: the chains are not miscounted) has that
/// gate compiled out: HP301 PASS naming the switch's test, no HP304. Twin: without the header's
/// chain nothing says the ROCm build leaves `P_USE_CUDA` undefined, and the gate stays open.
#[test]
fn another_backends_switch_a_header_tests_beside_the_rocm_one_is_off_in_every_unit() {
    const GPU: &str = "#pragma once\n#if defined(P_USE_CUDA)\n#include <cublas_v2.h>\n#elif defined(P_USE_HIP)\n#include <hipblas/hipblas.h>\n#endif\n";
    const DEVICE: &str = "#if defined(CUBLAS_VERSION)\n#ifdef P_USE_OCCA\nint occa;\n#endif\n#endif\nint q(const void *ptr) {\n#if defined(P_USE_CUDA)\n  struct cudaPointerAttributes attr;\n#if (CUDART_VERSION >= 11000)\n  return (int)cudaPointerGetAttributes(&attr, ptr);\n#else\n  return 0;\n#endif\n#endif\n  return 1;\n}\n";
    let fs = scan(
        &[("linalg/gpu.hpp", GPU), ("general/device.cpp", DEVICE)],
        &[],
    );
    let gate: Vec<_> = fs
        .iter()
        .filter(|f| f.1 == "general/device.cpp" && f.2 == 9)
        .collect();
    assert!(!gate.is_empty(), "{fs:?}");
    assert!(
        gate.iter().all(|f| f.3 == "PASS"
            && f.0 != "HP304"
            && f.4.contains("decided by `#if defined(P_USE_CUDA)`")),
        "{gate:?}"
    );
    let fs = scan(&[("general/device.cpp", DEVICE)], &[]);
    assert!(
        fs.iter().any(|f| f.1 == "general/device.cpp"
            && f.2 == 9
            && f.0 == "HP304"
            && f.3 == "REMEDIATION"),
        "{fs:?}"
    );
}

/// gvdb-voxels ships its Windows build in `bin/`: `cuda_gvdb_module.ptx` beside the `.exe`s,
/// the output of `source/kernels/cuda_gvdb_module.cu`. The ROCm build makes a code object from
/// that source, which the port translates: HP910 is PASS naming it, with no suggestion. Twin: a
/// PTX file whose source is not in the tree stays UNKNOWN (rewrite or obtain the kernel).
#[test]
fn a_ptx_file_built_from_a_source_in_the_tree_is_pass() {
    let ptx = ".version 6.0\n.target sm_35\n.address_size 64\n";
    let rows = rows::scan_files(
        &[
            ("bin/cuda_gvdb_module.ptx", ptx),
            ("bin/vendor_blob.ptx", ptx),
            (
                "source/kernels/cuda_gvdb_module.cu",
                "extern \"C\" __global__ void k(float* p) { p[threadIdx.x] = 0; }\n",
            ),
        ],
        &[],
    );
    let hp910: Vec<&Row> = rows.iter().filter(|r| r.0 == "HP910").collect();
    assert_eq!(hp910.len(), 2, "{rows:?}");
    let built = hp910
        .iter()
        .find(|r| r.1 == "bin/cuda_gvdb_module.ptx")
        .unwrap();
    assert_eq!(built.3, "PASS");
    assert!(
        built
            .4
            .contains("a build output of `source/kernels/cuda_gvdb_module.cu`"),
        "{}",
        built.4
    );
    let blob = hp910.iter().find(|r| r.1 == "bin/vendor_blob.ptx").unwrap();
    assert_eq!(blob.3, "UNKNOWN");
}

/// Kernels kept in an included implementation fragment (`.tcu`, InfiniTAM's convention for the
/// CUDA engines `CUDAInstantiations.cu` includes) are scanned and ported like a header: the
/// lane arithmetic of a 32-lane logical warp in one is judged, and `port` rewrites its runtime
/// call and gives its shuffle width 32; twin: the same text in a `.txt` beside it is no source.
#[test]
fn kernels_in_an_included_fragment_are_scanned_and_ported() {
    let kernel = "__global__ void k(float* o) {\n  float v = o[threadIdx.x];\n  v += __shfl_xor_sync(0xffffffff, v, 16);\n  if ((threadIdx.x & 31) == 0) o[threadIdx.x / 32] = v;\n}\nvoid run(float* o) { k<<<1, 64>>>(o); cudaDeviceSynchronize(); }\n";
    let files = [
        ("CMakeLists.txt", "cmake_minimum_required(VERSION 3.18)\nproject(p LANGUAGES CXX CUDA)\nadd_library(p Instantiations.cu)\n"),
        ("Instantiations.cu", "#include \"engine/Engine_CUDA.tcu\"\n"),
        ("engine/Engine_CUDA.tcu", kernel),
        ("engine/notes.txt", kernel),
    ];
    let rows = scan(&files, &[]);
    let in_fragment: Vec<&Row> = rows
        .iter()
        .filter(|r| r.1 == "engine/Engine_CUDA.tcu")
        .collect();
    assert!(
        in_fragment
            .iter()
            .any(|r| r.0 == "HP102" && r.4.contains("32-lane logical warps")),
        "{in_fragment:#?}"
    );
    assert!(!rows.iter().any(|r| r.1 == "engine/notes.txt"), "{rows:#?}");
    let d = tempfile::tempdir().unwrap();
    write(d.path(), &files);
    let o = hipport().arg("port").arg(d.path()).output().unwrap();
    let diff = String::from_utf8_lossy(&o.stdout);
    assert!(diff.contains("+++ b/engine/Engine_CUDA.tcu"), "{diff}");
    assert!(diff.contains("hipDeviceSynchronize"), "{diff}");
    assert!(diff.contains("v, 16, 32)"), "{diff}");
    assert!(!diff.contains("notes.txt"), "{diff}");
}
