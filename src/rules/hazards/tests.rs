//! Tests of the hazard entry point and the passes that settle findings across rules.

use crate::model::syntax::test_support::hazard_lines;

#[test]
fn ptx_behind_an_arch_test_with_a_fallback_is_performance() {
    let src = "__device__ float f(float x) {\n#if __CUDA_ARCH__ >= 800\n  float y;\n  asm(\"ex2.approx.f32 %0, %1;\" : \"=f\"(y) : \"f\"(x));\n  return y;\n#else\n  return exp2f(x);\n#endif\n}\n";
    let f = crate::model::syntax::test_support::hazard_findings(src);
    let asm: Vec<_> = f.iter().filter(|f| f.line == 4).collect();
    assert!(!asm.is_empty(), "{f:?}");
    assert!(asm
        .iter()
        .all(|f| f.phase == crate::gate::Phase::Performance && f.rule.starts_with("HP2")));
    // The `#if` itself is still a finding (HP401).
    assert!(hazard_lines(src)
        .iter()
        .any(|(l, r)| *l == 2 && r == "HP401"));
}

/// A file that pins `__CUDA_ARCH__` under its HIP switch: the `#if` after it is decided as
/// the project chose (HP401 PASS naming the definition), and the PTX of the branch HIP now
/// takes is open; twin: a condition also testing a macro the file does not pin stays open.
#[test]
fn conditions_on_macros_the_file_pins_for_hip_are_decided() {
    let src = "#ifdef __HIP_PLATFORM_AMD__\n#define __CUDA_ARCH__ 800\n#endif\n#if __CUDA_ARCH__ >= 600\n__device__ int a;\n#endif\n#if CUDART_VERSION >= 11000 && __CUDA_ARCH__ >= 700\n__device__ int b;\n#endif\n";
    let hp401 = on(src, "HP401", 4);
    assert_eq!(hp401.len(), 1, "{hp401:?}");
    assert_eq!(hp401[0].0, Status::Pass);
    assert!(
        hp401[0].2.contains("defines as 800") && hp401[0].2.contains("line 2"),
        "{hp401:?}"
    );
    let open: Vec<_> = crate::model::syntax::test_support::hazard_findings(src)
        .into_iter()
        .filter(|f| f.line == 7 && f.status != Status::Pass)
        .collect();
    assert!(!open.is_empty(), "{open:?}");
    // Without the pin the first test is open too.
    let unpinned = src.replacen("#define __CUDA_ARCH__ 800\n", "\n", 1);
    assert!(on(&unpinned, "HP401", 4)
        .iter()
        .all(|f| f.0 != Status::Pass));
}

/// A GPU-generation test whose other arm holds working code: HIP compiles that code on
/// every AMD GPU, nothing to port (HP401 PASS); the PTX it skips is the lost fast path.
#[test]
fn a_generation_test_with_a_code_fallback_is_nothing_to_port() {
    let src = "__device__ unsigned bfe(unsigned x, unsigned b, unsigned n) {\n#if __CUDA_ARCH__ >= 200\n  unsigned r;\n  asm(\"bfe.u32 %0, %1, %2, %3;\" : \"=r\"(r) : \"r\"(x), \"r\"(b), \"r\"(n));\n  return r;\n#else\n  return (x >> b) & ((1u << n) - 1);\n#endif\n}\n";
    let f = on(src, "HP401", 2);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].0, Status::Pass, "{f:?}");
    assert!(f[0].2.contains("holds code"), "{f:?}");
}

/// A generation test every GPU a current CUDA toolkit builds for passes (sm_75 and newer),
/// whose arm holds code HIP would build as ported: HIP compiles a fallback only GPUs no current
/// toolkit targets run, and nothing verified that it agrees (SPTAG's int8 cosine: `16384 - dot`
/// with `__dp4a`, `1 - dot` in the fallback). UNKNOWN/CORRECTNESS, naming the intrinsic and the
/// one-line way to run the current arm. Twins stay PASS: a threshold sm_75 fails (`>= 800`: the
/// fallback runs on Turing today), a skipped arm HIP could not build (PTX), a chain's second
/// such test (one fact per chain).
#[test]
fn a_fallback_only_legacy_gpus_run_is_unverified() {
    let arm = |cond: &str, fast: &str| {
        format!(
            "__device__ int cosine(const int* a, const int* b) {{\n#if {cond}\n  int p = 0;\n  for (int i = 0; i < 4; ++i) {fast}\n  return 16384 - p;\n#else\n  int p = 0;\n  for (int i = 0; i < 4; ++i) p += a[i] * b[i];\n  return 1 - p;\n#endif\n}}\n"
        )
    };
    let src = arm("__CUDA_ARCH__ > 610", "p = __dp4a(a[i], b[i], p);");
    let f = on(&src, "HP401", 2);
    assert!(
        f.len() == 1
            && f[0].0 == Status::Unknown
            && f[0].1 == Phase::Correctness
            && f[0].2.contains("`__dp4a`")
            && f[0].2.contains("no current toolkit targets"),
        "{f:?}"
    );
    // Turing (sm_75), which CUDA 13 still builds for, runs the fallback of a `>= 800` test.
    let turing = arm("__CUDA_ARCH__ >= 800", "p = __dp4a(a[i], b[i], p);");
    let f = on(&turing, "HP401", 2);
    assert!(f.len() == 1 && f[0].0 == Status::Pass, "{f:?}");
    // A skipped arm of inline PTX: HIP could not build it, the fallback is the only way.
    let ptx = arm(
        "__CUDA_ARCH__ > 610",
        "asm(\"dp4a.s32.s32 %0, %1, %2, %0;\" : \"+r\"(p) : \"r\"(a[i]), \"r\"(b[i]));",
    );
    let f = on(&ptx, "HP401", 2);
    assert!(f.len() == 1 && f[0].0 == Status::Pass, "{f:?}");
    // Two such tests in one chain: the first carries the fact.
    let chain = "__device__ int g(int x) {\n#if __CUDA_ARCH__ >= 700\n  return __popc(x);\n#elif __CUDA_ARCH__ >= 600\n  return __clz(x);\n#else\n  return x;\n#endif\n}\n";
    let open: Vec<_> = crate::model::syntax::test_support::hazard_findings(chain)
        .into_iter()
        .filter(|f| f.rule == "HP401" && f.status != Status::Pass)
        .collect();
    assert!(open.len() == 1 && open[0].line == 2, "{open:?}");
}

/// cp2k's `atomicAddDouble`: the fallback is the compare-and-swap loop NVIDIA's guide gives
/// for `atomicAdd(double*)`. The same result, slower: REMEDIATION/PERFORMANCE naming the
/// atomic. Twin: a fallback that computes otherwise (a plain add) stays UNKNOWN/CORRECTNESS.
#[test]
fn a_cas_loop_fallback_is_a_performance_loss() {
    let src = "__device__ static void atomicAddDouble(double *address, double val) {\n#if __CUDA_ARCH__ >= 600\n  atomicAdd(address, val);\n#else\n  unsigned long long int *a = (unsigned long long int *)address;\n  unsigned long long int old = *a, assumed;\n  do {\n    assumed = old;\n    old = atomicCAS(a, assumed, __double_as_longlong(val + __longlong_as_double(assumed)));\n  } while (assumed != old);\n#endif\n}\n";
    let f = on(src, "HP401", 2);
    assert!(
        f.len() == 1
            && f[0].0 == Status::Remediation
            && f[0].1 == Phase::Performance
            && f[0].2.contains("emulating the `atomicAdd`"),
        "{f:?}"
    );
    let plain = "__device__ static void addDouble(double *address, double val) {\n#if __CUDA_ARCH__ >= 600\n  atomicAdd(address, val);\n#else\n  *address += val;\n#endif\n}\n";
    let f = on(plain, "HP401", 2);
    assert!(f.len() == 1 && f[0].0 == Status::Unknown, "{f:?}");
}

/// Twins: a test HIP finds true (HIP compiles the old-GPU arm), per-GPU tuning (a
/// `#define` in the branch), and a device-pass test stay open.
#[test]
fn true_tests_tuning_and_device_pass_tests_stay_open() {
    let old = "#if __CUDA_ARCH__ < 600\n__device__ double add(double* a, double v) { return *a += v; }\n#else\n__device__ double add(double* a, double v) { return atomicAdd(a, v); }\n#endif\n";
    assert!(on(old, "HP401", 1).iter().all(|f| f.0 != Status::Pass));
    let tuning = "#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 900\n#define MAX_BLOCKS 2\n#else\n#define MAX_BLOCKS 1\n#endif\n";
    let f = on(tuning, "HP401", 1);
    assert!(
        !f.is_empty() && f.iter().all(|f| f.0 != Status::Pass),
        "{f:?}"
    );
    let pass = "__host__ __device__ int where() {\n#if defined(__CUDA_ARCH__)\n  return 1;\n#else\n  return 0;\n#endif\n}\n";
    let f = on(pass, "HP401", 2);
    assert!(f.iter().all(|f| !f.2.contains("holds code")), "{f:?}");
}

/// A branch on nvcc's identity around no CUDA code (a return nvcc wants, its diagnostic
/// pragmas) is nothing to port; twin: an nvcc branch that adds `__device__` stays open.
#[test]
fn nvcc_compiler_workarounds_are_nothing_to_port() {
    let src = "int f(int x) {\n  if (x) return 1;\n#if (defined(__NVCC__) || defined(__INTEL_COMPILER)) && !defined(__NVCOMPILER)\n  return 0;\n#endif\n}\n#if defined __NVCC__\n#pragma nv_diagnostic push\n#else\n#pragma GCC diagnostic push\n#endif\n";
    let all = crate::model::syntax::test_support::hazard_findings_at("layout.hpp", src);
    let open: Vec<_> = all
        .iter()
        .filter(|f| matches!(f.rule.as_str(), "HP301" | "HP304") && f.status != Status::Pass)
        .collect();
    assert!(open.is_empty(), "{open:?}");
    assert!(all
        .iter()
        .any(|f| f.status == Status::Pass && f.message.contains("nvcc's identity")));
    // rapidsai/rmm: `__CUDACC__` beside `__NVCC__` (HIP-Clang defines it too), an nvcc-only
    // `_Pragma` defined away for every other compiler.
    let rmm = "#if defined(__CUDACC__) && defined(__NVCC__)\n#define EXEC_CHECK_DISABLE _Pragma(\"nv_exec_check_disable\")\n#else\n#define EXEC_CHECK_DISABLE\n#endif\n";
    let all = crate::model::syntax::test_support::hazard_findings_at("detail/exec_check.hpp", rmm);
    assert!(
        all.iter().all(|f| f.status == Status::Pass) && !all.is_empty(),
        "{all:?}"
    );
    // arrayfire's half.hpp and types.hpp: the nvcc arm includes CUDA's half header or names
    // its type; HIP-Clang takes the software-half arm.
    for twin in [
        "#if defined(__NVCC__) || defined(__CUDACC_RTC__)\n#include <cuda_fp16.h>\n#endif\nstruct half_t { unsigned short x; };\n",
        "struct S {\n#if defined(__NVCC__) || defined(__CUDACC_RTC__)\n  using native = __half;\n#else\n  using native = common::half;\n#endif\n};\n",
    ] {
        let all = crate::model::syntax::test_support::hazard_findings_at("common/half.hpp", twin);
        assert!(
            all.iter()
                .any(|f| matches!(f.rule.as_str(), "HP301" | "HP304") && f.status != Status::Pass),
            "{twin}: {all:?}"
        );
    }
    let twin =
        "#ifdef __NVCC__\n#define HD __host__ __device__\n#else\n#define HD\n#endif\nHD int g();\n";
    let all = crate::model::syntax::test_support::hazard_findings(twin);
    assert!(
        all.iter()
            .any(|f| matches!(f.rule.as_str(), "HP301" | "HP304") && f.status != Status::Pass),
        "{all:?}"
    );
}

/// lc0: the SYCL backend's kernels beside the CUDA ones are not ported to HIP; twin: the
/// same constant in a CUDA kernel file stays open.
#[test]
fn warp_size_findings_in_sycl_sources_are_pass() {
    let sycl = "#include <sycl/sycl.hpp>\n#define WARP_SIZE 32\n// migrated from k<<<grid, block>>>(o)\nvoid k(sycl::nd_item<1> it, float* o) {\n  int lane = it.get_local_id(0) % WARP_SIZE;\n  o[lane] = 0;\n}\n";
    let all = crate::model::syntax::test_support::hazard_findings_at("sycl/k.dp.cpp", sycl);
    let warp: Vec<_> = all
        .iter()
        .filter(|f| f.category == crate::finding::Category::WarpSize)
        .collect();
    assert!(!warp.is_empty(), "{all:?}");
    assert!(warp.iter().all(|f| f.status == Status::Pass), "{warp:?}");
    let cuda = "#define WARP_SIZE 32\n__global__ void k(float* o) {\n  unsigned m = __ballot_sync(0xffffffff, o[threadIdx.x] > 0);\n  o[threadIdx.x % WARP_SIZE] = __popc(m);\n}\n";
    let all = crate::model::syntax::test_support::hazard_findings_at("cuda/k.cu", cuda);
    assert!(all
        .iter()
        .any(|f| f.category == crate::finding::Category::WarpSize));
    assert!(
        all.iter().all(|f| !f.message.contains("SYCL code")),
        "{all:?}"
    );
}

/// arrayfire: the OpenCL and oneAPI backends' headers beside the CUDA one hold work-group
/// shapes, not CUDA warps. Twins: the same header with CUDA code in it, and the same header in
/// the CUDA backend's folder, stay open.
#[test]
fn warp_size_findings_in_another_backends_folder_are_pass() {
    // The lane id reaches a warp-level helper of another file: a 32-lane id that meets no
    // exchange would settle on its own.
    let cfg = "#define LANES 32
int lane_of(int tid) { return warp_broadcast(tid % LANES); }
";
    let at = |path: &str, src: &str| -> Vec<crate::finding::Finding> {
        crate::model::syntax::test_support::hazard_findings_at(path, src)
            .into_iter()
            .filter(|f| f.category == crate::finding::Category::WarpSize)
            .collect()
    };
    let other = at("src/backend/opencl/kernel/config.hpp", cfg);
    assert!(!other.is_empty());
    assert!(other.iter().all(|f| f.status == Status::Pass), "{other:?}");
    assert!(
        other[0]
            .message
            .contains("`src/backend/opencl/` is another backend"),
        "{other:?}"
    );
    let cuda = at("src/backend/cuda/kernel/config.hpp", cfg);
    assert!(cuda.iter().any(|f| f.status != Status::Pass), "{cuda:?}");
    let with_kernel = format!("{cfg}__global__ void k(int *o) {{ o[threadIdx.x % LANES] = 1; }}\n");
    let mixed = at("src/backend/opencl/kernel/config.hpp", &with_kernel);
    assert!(mixed.iter().any(|f| f.status != Status::Pass), "{mixed:?}");
}

/// (status, phase, message) of `rule`'s findings on `line` of `src`.
fn on(src: &str, rule: &str, line: u32) -> Vec<(Status, Phase, String)> {
    crate::model::syntax::test_support::hazard_findings(src)
        .into_iter()
        .filter(|f| f.rule == rule && f.line == line)
        .map(|f| (f.status, f.phase, f.message))
        .collect()
}

use crate::gate::{Phase, Status};

/// A kernel step behind `__CUDA_ARCH__ >= 750` whose `#else` (line 6) is `instead`.
fn mma_step(instead: &str) -> String {
    format!("__global__ void gemm(unsigned* c, unsigned a) {{\n#if __CUDA_ARCH__ >= 750\n  asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {{%0}}, {{%1}};\" : \"=r\"(c[0]) : \"r\"(a));\n  asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {{%0}}, {{%1}};\" : \"=r\"(c[1]) : \"r\"(a));\n#else\n{instead}#endif\n}}\n")
}

#[test]
fn ptx_behind_an_arch_test_with_an_empty_alternative_is_the_conditions_fact() {
    // torchsparse's implicit GEMM: the `#else` holds only `#pragma message`, so under HIP
    // the kernel skips its MMA step. One fact, on the condition (CORRECTNESS, naming the
    // kernel); each `asm` inside is PASS naming the condition.
    for instead in [
        "  #pragma message(\"FP16 kernels will not be compiled for SM75-.\")\n",
        "",
        "  // nothing on older GPUs\n",
    ] {
        let src = mma_step(instead);
        let cond = on(&src, "HP401", 2);
        assert_eq!(cond.len(), 1, "{cond:?}");
        assert_eq!(
            (cond[0].0, cond[0].1),
            (Status::Remediation, Phase::Correctness)
        );
        assert!(
            cond[0].1 == Phase::Correctness
                && cond[0].2.contains("an arm with no code")
                && cond[0].2.contains("`gemm`"),
            "{}",
            cond[0].2
        );
        for line in [3, 4] {
            let asm = on(&src, "HP201", line);
            assert!(
                asm.len() == 1
                    && asm[0].0 == Status::Pass
                    && asm[0].2.contains("`#if __CUDA_ARCH__ >= 750` (line 2)"),
                "{asm:?}"
            );
        }
    }
    // Twin: an `#else` with code makes the `asm` a lost fast path (PERFORMANCE) HIP replaces by
    // the project's portable version: nothing to port (PASS), and the condition as it was.
    let src = mma_step("  c[0] = c[1] = a;\n");
    let head = on(&src, "HP201", 3);
    assert!(
        head.len() == 1
            && head[0].0 == Status::Pass
            && head[0].1 == Phase::Performance
            && head[0]
                .2
                .contains("nothing to port; only this fast path is lost"),
        "{head:?}"
    );
    let cond = on(&src, "HP401", 2);
    assert!(
        cond.len() == 1 && !cond[0].2.contains("no code"),
        "{cond:?}"
    );
    // The same step in two kernels: each has its portable arm, nothing to port in either.
    let two = format!("{src}{}", src.replace("gemm", "gemm2"));
    let open: Vec<_> = crate::model::syntax::test_support::hazard_findings(&two)
        .into_iter()
        .filter(|f| f.status != Status::Pass && (f.rule == "HP201" || f.rule == "HP401"))
        .collect();
    assert!(open.is_empty(), "{open:?}");
}

/// gadgetron's `ConvolverNC2C_atomic.cuh`: `#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 600`
/// with nothing in it, a double `atomicAdd` for older GPUs in the `#else`. HIP compiles the
/// empty arm, as every GPU a current CUDA toolkit builds for does: nothing is lost against a
/// current CUDA build (no open HP401). Twin: at `>= 800` Turing (sm_75) compiles the `#else`,
/// which HIP skips: open.
#[test]
fn an_empty_arm_every_current_gpu_takes_loses_nothing() {
    let src = |n: u32| {
        format!("#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= {n}\n#else\n__device__ double atomicAdd(double* a, double v) {{\n  unsigned long long* p = (unsigned long long*)a;\n  unsigned long long old = *p, assumed;\n  do {{ assumed = old; old = atomicCAS(p, assumed, __double_as_longlong(v + __longlong_as_double(assumed))); }} while (assumed != old);\n  return __longlong_as_double(old);\n}}\n#endif\n")
    };
    let open = |src: &str| -> Vec<_> {
        crate::model::syntax::test_support::hazard_findings(src)
            .into_iter()
            .filter(|f| f.rule == "HP401" && f.status != Status::Pass)
            .collect()
    };
    assert!(open(&src(600)).is_empty(), "{:?}", open(&src(600)));
    assert_eq!(open(&src(800)).len(), 1);
}

#[test]
fn an_arch_branch_whose_alternative_fails_is_a_build_or_run_time_fact() {
    let src = mma_step("#error \"needs sm_75\"\n");
    let cond = on(&src, "HP401", 2);
    assert!(
        cond.len() == 1
            && cond[0].0 == Status::Remediation
            && cond[0].1 == Phase::Build
            && cond[0].2.contains("stops the build"),
        "{cond:?}"
    );
    assert!(on(&src, "HP201", 3).iter().all(|f| f.0 == Status::Pass));
    let src = mma_step("  __trap();\n");
    let cond = on(&src, "HP401", 2);
    assert!(
        cond.len() == 1
            && cond[0].1 == Phase::Runtime
            && cond[0].2.contains("`gemm` stops at run time"),
        "{cond:?}"
    );
}

#[test]
fn an_arch_branch_that_is_a_whole_body_without_else_holds_no_code_under_hip() {
    // No `#else`, and the branch is the kernel's whole body: HIP compiles an empty kernel.
    let src = "__global__ void k(float* o) {\n#if __CUDA_ARCH__ >= 800\n  o[0] = 1.f;\n  asm(\"trap;\");\n#endif\n}\n";
    let cond = on(src, "HP401", 2);
    assert!(
        cond.len() == 1
            && cond[0].1 == Phase::Correctness
            && cond[0].2.contains("`k` silently does not happen"),
        "{cond:?}"
    );
    assert!(on(src, "HP201", 4).iter().all(|f| f.0 == Status::Pass));
    // Twin: the branch is one step among others of the body (optional code): the
    // condition keeps its message.
    let src = "__global__ void k(float* o) {\n  o[1] = 2.f;\n#if __CUDA_ARCH__ >= 800\n  o[0] = 1.f;\n#endif\n}\n";
    let cond = on(src, "HP401", 3);
    assert!(
        cond.len() == 1 && !cond[0].2.contains("no code"),
        "{cond:?}"
    );
}

#[test]
fn the_operating_system_in_an_arch_test_is_the_targets() {
    // Marlin's `#if __CUDA_ARCH__ >= 800 || !defined(__linux__)` around a kernel's whole body:
    // the ROCm build runs on Linux, so HIP-Clang finds the whole condition false and builds
    // the kernel empty (the fact, not "the branch taken may differ").
    for cond in [
        "__CUDA_ARCH__ >= 800 || !defined(__linux__)",
        "(__CUDA_ARCH__ >= 800) || defined(_WIN32)",
    ] {
        let src =
            format!("__global__ void k(float* o) {{\n#if {cond}\n  o[0] = 1.f;\n#endif\n}}\n");
        let found = on(&src, "HP401", 2);
        assert!(
            found.len() == 1
                && found[0].1 == Phase::Correctness
                && found[0].2.contains("`k` silently does not happen"),
            "{cond}: {found:?}"
        );
    }
    // Twin: an operating system HIP-Clang's target does define makes the condition true:
    // the kernel keeps its body, and nothing says it is empty.
    let src = "__global__ void k(float* o) {\n#if __CUDA_ARCH__ >= 800 || defined(__linux__)\n  o[0] = 1.f;\n#endif\n}\n";
    assert!(
        on(src, "HP401", 2).iter().all(|f| !f.2.contains("no code")),
        "{:?}",
        on(src, "HP401", 2)
    );
}

#[test]
fn an_arch_chain_with_no_code_for_hip_is_one_fact() {
    // `#if >= 800 … #elif >= 750 … #else #pragma message`: the `#if` carries the chain,
    // the `#elif` is PASS naming it.
    let src = "__device__ void step(unsigned* c, unsigned a) {\n#if __CUDA_ARCH__ >= 800\n  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0}, {%1};\" : \"=r\"(c[0]) : \"r\"(a));\n#elif __CUDA_ARCH__ >= 750\n  asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0}, {%1};\" : \"=r\"(c[0]) : \"r\"(a));\n#else\n  #pragma message(\"no MMA\")\n#endif\n}\n";
    let first = on(src, "HP401", 2);
    let second = on(src, "HP401", 4);
    assert!(
        first.len() == 1 && first[0].0 == Status::Remediation,
        "{first:?}"
    );
    assert!(
        second.len() == 1 && second[0].0 == Status::Pass && second[0].2.contains("on line 2"),
        "{second:?}"
    );
    assert!(crate::model::syntax::test_support::hazard_findings(src)
        .iter()
        .filter(|f| f.rule == "HP201")
        .all(|f| f.status == Status::Pass));
}

/// The hazard findings and the translator's findings (those `keep` selects) as `scan` hands
/// them over and filters them for a file, at ROCm `rocm`.
fn scanned(
    src: &str,
    rocm: &str,
    keep: impl Fn(&crate::finding::Finding) -> bool,
) -> (Vec<crate::finding::Finding>, Vec<crate::finding::Finding>) {
    let lines = crate::source::LineIndex::new(src.as_bytes());
    let ctx = crate::rules::FileCtx {
        path: "t.cu",
        src: src.as_bytes(),
        lines: &lines,
    };
    let tree = crate::parse::parse(src.as_bytes());
    let target = crate::mappings::Target {
        rocm: rocm.parse().unwrap(),
        roc: false,
        experimental: false,
        lds: None,
    };
    let opts = crate::translate::Options {
        target,
        launch: crate::translate::LaunchSyntax::Keep,
        implicit_include: true,
        compat_header: false,
        unsafe_fixes: false,
    };
    let mut translated: Vec<crate::finding::Finding> =
        crate::translate::translate(&ctx, crate::mappings::get(), &opts)
            .findings
            .into_iter()
            .filter(|f| keep(f))
            .collect();
    let hazards = super::check_with(
        &ctx,
        tree.as_ref(),
        &target,
        &mut translated,
        &mut Vec::new(),
    );
    (hazards, translated)
}

/// The translator's HP001 findings as `scan` keeps them for a file (names the file declares
/// dropped, `cg::reduce` calls added), by line.
fn translated_lines(src: &str, rocm: &str) -> Vec<(u32, String)> {
    let (_, translated) = scanned(src, rocm, |f| f.rule == "HP001");
    translated.into_iter().map(|f| (f.line, f.rule)).collect()
}

/// The translator's and the hazard rules' findings on `src` after one fact per line is
/// merged, as `scan` reports them, by line.
fn merged_lines(src: &str) -> Vec<(u32, String)> {
    let (mut all, translated) = scanned(src, "6.3.0", |_| true);
    all.extend(translated);
    crate::rules::facts::merge_same_line(&mut all);
    all.into_iter().map(|f| (f.line, f.rule)).collect()
}

#[test]
fn one_nvml_finding_per_line_of_nvml_code() {
    let src = "#include <nvml.h>\nint temp(unsigned idx) {\n  nvmlDevice_t dev;\n  unsigned int t = 0;\n  if (nvmlDeviceGetHandleByIndex(idx, &dev) != NVML_SUCCESS) return -1;\n  nvmlReturn_t r = nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &t);\n  if (r != NVML_SUCCESS) printf(\"%s\", nvmlErrorString(r));\n  return t;\n}\n";
    let mut f = merged_lines(src);
    f.retain(|(_, r)| r == "HP607" || r == "HP001");
    // The handle declaration alone is the translator's; each call line is one rewrite.
    assert_eq!(
        f,
        [
            (1, "HP607".to_string()),
            (3, "HP001".to_string()),
            (5, "HP607".to_string()),
            (6, "HP607".to_string()),
            (7, "HP607".to_string())
        ]
    );
}

#[test]
fn cg_reduce_calls_without_the_include() {
    // The header comes through another include; `thrust::reduce` and members are not it.
    let src = "#include \"common.h\"\nnamespace cg = cooperative_groups;\n__global__ void k(float* o, const float* in, int n) {\n  auto warp = cg::tiled_partition<32>(cg::this_thread_block());\n  float v = cg::reduce(warp, in[threadIdx.x], cg::plus<float>{});\n  float w = thrust::reduce(in, in + n);\n  o[0] = v + w + acc.reduce(v);\n}\n";
    assert_eq!(translated_lines(src, "6.3.0"), [(5, "HP001".to_string())]);
    let bare = "using namespace cooperative_groups;\n__device__ float f(thread_block_tile<32> t, float v) {\n  return reduce(t, v, plus<float>());\n}\n";
    assert_eq!(translated_lines(bare, "6.3.0"), [(3, "HP001".to_string())]);
    // OpenSplat's shape: the tile reduction in the arm of the HIP test that HIP never
    // compiles is no work; twin: the same call outside the test is.
    let arms = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n__device__ float f(cg::thread_block_tile<32> t, float v) {\n#ifdef __HIP_PLATFORM_AMD__\n  return v;\n#else\n  return cg::reduce(t, v, cg::plus<float>());\n#endif\n}\n";
    assert!(translated_lines(arms, "6.3.0").is_empty());
    let plain = arms
        .replace("#ifdef __HIP_PLATFORM_AMD__\n  return v;\n#else\n", "")
        .replace("#endif\n", "");
    assert_eq!(
        translated_lines(&plain, "6.3.0"),
        [(4, "HP001".to_string())]
    );
    // Without `using namespace`, a bare `reduce(` is the user's.
    assert!(translated_lines(
        "float reduce(float);\nfloat g() { return reduce(1.f); }\n",
        "6.3.0"
    )
    .is_empty());
}

#[test]
fn unported_names_the_file_declares_itself() {
    let src = "#include <cuda_runtime.h>\ntypedef int cudaGraphConditionalHandle;\nstatic int cudaStreamGetCaptureInfo_v3 = 0;\nenum { cudaGraphCondTypeWhile = 1 };\nint main() {\n  cudaGraphConditionalHandle h = 0;\n  int r = cudaStreamGetCaptureInfo_v3 + cudaGraphCondTypeWhile;\n  cudaGraphConditionalHandleCreate(&h, 0, 0, 0);\n  return r;\n}\n";
    // The typedef, the variable and the enumerator are the user's; the call is CUDA's.
    assert_eq!(translated_lines(src, "6.3.0"), [(8, "HP001".to_string())]);
    // A prototype declares CUDA's function, which HIP lacks: still flagged.
    let proto = "cudaError_t cudaGraphConditionalHandleCreate(void*, int, unsigned, unsigned);\nvoid f(void* h) { cudaGraphConditionalHandleCreate(h, 0, 0, 0); }\n";
    let got = translated_lines(proto, "6.3.0");
    assert!(got.iter().any(|(l, r)| *l == 2 && r == "HP001"), "{got:?}");
}

/// flashinfer's fp8 conversion: PTX for sm_100, PTX's `trap` for other NVIDIA GPUs and a
/// `return 0;` stub for the host pass. HIP compiles a stub (as nvcc does for sm_90), so the
/// conversion silently yields 0 on AMD: the chain's condition is open, the PTX folds into it.
/// Twin: a real fallback (`return slow(a);`) keeps the condition PASS and the PTX a lost fast
/// path.
#[test]
fn a_stub_in_place_of_an_arch_branch_is_the_conditions_fact() {
    let chain = |instead: &str| {
        format!("__device__ unsigned cvt(float a) {{\n#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 1000)\n  unsigned v;\n  asm volatile(\"cvt.rn.satfinite.e4m3x2.f32 %0, %1, %1;\" : \"=r\"(v) : \"f\"(a));\n  return v;\n#elif defined(__CUDA_ARCH__)\n  asm volatile(\"trap;\");\n  return 0;\n#else\n  {instead}\n#endif\n}}\n")
    };
    let src = chain("return 0;");
    let cond = on(&src, "HP401", 2);
    assert!(
        cond.len() == 1
            && cond[0].0 == Status::Remediation
            && cond[0].2.contains("a stub returning a constant")
            && cond[0].2.contains("`cvt`"),
        "{cond:?}"
    );
    assert!(on(&src, "HP201", 4).iter().all(|f| f.0 == Status::Pass));
    let src = chain("return slow(a);");
    assert!(on(&src, "HP401", 2).iter().all(|f| f.0 == Status::Pass));
    let asm = on(&src, "HP201", 4);
    assert!(
        asm.iter()
            .any(|f| f.0 == Status::Pass && f.1 == Phase::Performance),
        "{asm:?}"
    );
}

/// `__CUDA_ARCH__` chains that only pick a kernel's `__launch_bounds__` are one tuning choice
/// per file (PERFORMANCE, naming the kernels; the rest fold into it), and the kernel named in
/// the body's own arch finding is the kernel, not a word of the directive inside its
/// declarator. Twin: a chain whose arm also holds code stays its own finding.
#[test]
fn arch_tests_that_only_pick_launch_bounds_are_one_tuning_choice() {
    let kernel = |name: &str| {
        format!("template <bool c> static __global__ void\n#if __CUDA_ARCH__ < 700\n    __launch_bounds__(256, 2)\n#endif // old\n    {name}(float * dst) {{\n#if __CUDA_ARCH__ >= 700\n    dst[0] = 1.0f;\n#else\n    assert(false);\n#endif\n}}\n")
    };
    let src = format!("{}{}", kernel("mm_a"), kernel("mm_b"));
    let head = on(&src, "HP401", 2);
    assert!(
        head.len() == 1
            && head[0].0 == Status::Remediation
            && head[0].1 == Phase::Performance
            && head[0].2.contains("`mm_a`, `mm_b`")
            && head[0].2.contains("2 tests (lines 2, 13)"),
        "{head:?}"
    );
    let folded = on(&src, "HP401", 13);
    assert!(
        folded.len() == 1 && folded[0].0 == Status::Pass,
        "{folded:?}"
    );
    // The body's chain names its kernel.
    let body = on(&src, "HP401", 6);
    assert!(
        body.len() == 1 && body[0].2.contains("`mm_a` stops at run time"),
        "{body:?}"
    );
    // Twin: the arm picks bounds and declares something else too.
    let twin = "static __global__ void\n#if __CUDA_ARCH__ < 700\n    __launch_bounds__(256, 2)\n    int x;\n#endif\n    mm_c(float * dst) { dst[0] = 1.0f; }\n";
    let open = on(twin, "HP401", 2);
    assert!(
        open.len() == 1 && open[0].1 != Phase::Performance,
        "{open:?}"
    );
}

/// torch-harmonics' `disco_cuda_ptx.cuh`: a chain that only sets a switch from an
/// architecture-specific feature macro is no fact of its own (the switch's tests carry it).
/// Twin: a chain that sets a tuning value (not tested in `#if`, so no switch) stays open.
#[test]
fn a_chain_that_only_sets_a_pinned_switch_is_its_tests_fact() {
    let src = "#if defined(__CUDA_ARCH_FEAT_SM100_ALL) || defined(__CUDA_ARCH_FEAT_SM103_ALL)\n#define TC_SUPPORTED 1\n#else\n#define TC_SUPPORTED 0\n#endif\n__global__ void k(float* o) {\n#if TC_SUPPORTED\n  o[0] = 1.0f;\n#else\n  o[0] = 2.0f;\n#endif\n}\n";
    let head = on(src, "HP401", 1);
    assert!(
        head.iter().all(|f| f.0 == Status::Pass) && head.iter().any(|f| f.2.contains("a switch")),
        "{head:?}"
    );
    let tuning = "#if __CUDA_ARCH__ >= 800\n#define BLOCKS 4\n#else\n#define BLOCKS 2\n#endif\n__global__ void __launch_bounds__(256, BLOCKS) k(float* o) { o[0] = 1.0f; }\n";
    assert!(
        on(tuning, "HP401", 1).iter().any(|f| f.0 != Status::Pass),
        "{:?}",
        on(tuning, "HP401", 1)
    );
}

/// torch-harmonics: `#if __CUDA_ARCH__ < 900` in a kernel body is the pre-Hopper fallback HIP
/// compiles (PASS). Twins: the same test at file scope defining a function HIP has, and one
/// whose branch sets a macro, stay open.
#[test]
fn an_old_gpu_arm_inside_a_function_is_a_fallback() {
    let body = "__global__ void k(float* o, float4 v) {\n#if __CUDA_ARCH__ < 900\n  atomicAdd(&o[0], v.x);\n  __syncwarp();\n#endif\n}\n";
    let f = on(body, "HP401", 2);
    assert!(f.len() == 1 && f[0].0 == Status::Pass, "{f:?}");
    let scope = "#if __CUDA_ARCH__ < 600\n__device__ double atomicAdd(double* a, double v) { return *a; }\n#endif\n";
    assert!(on(scope, "HP401", 1).iter().any(|f| f.0 != Status::Pass));
    let tuning = "__global__ void k(float* o) {\n#if __CUDA_ARCH__ < 900\n#define STEP 2\n#endif\n  o[0] = 1.0f;\n}\n";
    assert!(on(tuning, "HP401", 2).iter().any(|f| f.0 != Status::Pass));
    // NVIDIA Warp's `atomic_add(float64*)`: `!defined(__CUDA_ARCH__)` is the host arm (a plain
    // `+=`), which HIP's device pass compiles in place of the atomic: no fallback, stays open.
    let host_arm = "__device__ __host__ inline double atomic_add(double* buf, double value) {\n#if !defined(__CUDA_ARCH__)\n  double old = buf[0];\n  buf[0] += value;\n  return old;\n#else\n  double r;\n  asm volatile(\"atom.add.f64 %0, [%1], %2;\" : \"=d\"(r) : \"l\"(buf), \"d\"(value));\n  return r;\n#endif\n}\n";
    let f = on(host_arm, "HP401", 2);
    assert!(
        !f.is_empty() && f.iter().all(|f| f.0 != Status::Pass),
        "{f:?}"
    );
}

/// aphrodite's ROCm attention kernel: a `constexpr` over `warpSize` in an arm only HIP
/// compiles still fails from ROCm 7.0; twin: a 32-lane constant there is the project's HIP
/// choice, not reported.
#[test]
fn hip_rules_hold_in_the_projects_hip_arms() {
    let src = "#if defined(__HIP_PLATFORM_AMD__)\n__global__ void k(int* o) {\n  constexpr int n = 256 / warpSize;\n  o[0] = n;\n}\n#endif\n";
    assert!(hazard_lines(src)
        .iter()
        .any(|(l, r)| *l == 3 && r == "HP108"));
    let narrow = "#if defined(__HIP_PLATFORM_AMD__)\n#define WARP_SIZE 32\n__global__ void k(int* o) { o[threadIdx.x % WARP_SIZE] = 0; }\n#endif\n";
    assert!(
        hazard_lines(narrow).is_empty(),
        "{:?}",
        hazard_lines(narrow)
    );
}
