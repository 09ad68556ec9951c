//! Tests of HP304 (compiled-out-under-hip): each shape with its negative twin.
use crate::finding::Finding;
use crate::gate::{Phase, Status};
use crate::model::syntax::test_support::hazard_findings;

fn hp304(src: &str) -> Vec<Finding> {
    hazard_findings(src)
        .into_iter()
        .filter(|f| f.rule == "HP304")
        .collect()
}

/// Issue 20's reproducer: one finding on the condition, naming what disappears and what
/// runs instead.
#[test]
fn a_cublas_version_arm_is_compiled_out() {
    let src = "#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 11600\nvoid g(){ cublasLtMatrixLayoutInit(0,0,0,0,0); }\n#else\nint g(){ return 1; }\n#endif\n";
    let f = hp304(src);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0].line, f[0].status, f[0].phase),
        (1, Status::Remediation, Phase::Correctness)
    );
    for w in [
        "`g`",
        "`cublasLtMatrixLayoutInit`",
        "the `#else` arm (line 3)",
        "the `#if` arm (line 1)",
    ] {
        assert!(f[0].message.contains(w), "{w}: {}", f[0].message);
    }
    // The same chain on a project macro the tool cannot resolve stays live: nothing.
    assert!(hp304(&src.replace("CUBLAS_VERSION", "MY_BLAS_VERSION")).is_empty());
}

#[test]
fn a_bf16_test_type_vanishes() {
    let src = "#ifdef __CUDA_BF16_TYPES_EXIST__\nusing TestTypes = ::testing::Types<float, half, nv_bfloat16>;\n#else\nusing TestTypes = ::testing::Types<float, half>;\n#endif\n";
    let f = hp304(src);
    assert_eq!(f.len(), 1);
    assert!(f[0].message.contains("`nv_bfloat16`"), "{}", f[0].message);
    assert!(f[0].message.contains("`TestTypes`"), "{}", f[0].message);
    // A deliberate ROCm arm is written for AMD already: nothing.
    assert!(hp304(&src.replace("#ifdef __CUDA_BF16_TYPES_EXIST__", "#ifndef USE_ROCM")).is_empty());
    assert!(hp304(&src.replace(
        "#ifdef __CUDA_BF16_TYPES_EXIST__",
        "#if !defined(__HIP_PLATFORM_AMD__)"
    ))
    .is_empty());
}

#[test]
fn a_failing_hip_arm_moves_the_phase() {
    let err =
        "#if CUDART_VERSION >= 11000\nvoid f() {}\n#else\n#error this needs CUDA 11\n#endif\n";
    let f = hp304(err);
    assert_eq!((f.len(), f[0].phase), (1, Phase::Build));
    let throw = "#if CUDART_VERSION >= 11000\nvoid f() { fast(); }\n#else\nvoid f() { throw std::runtime_error(\"old CUDA\"); }\n#endif\n";
    assert_eq!(hp304(throw)[0].phase, Phase::Runtime);
    // A requirement check that nothing trips under CUDA: HIP takes the `#error` arm.
    let req = "#if CUDA_VERSION < 11000\n#error CUDA 11 required\n#endif\n";
    let f = hp304(req);
    assert_eq!((f.len(), f[0].line, f[0].phase), (1, 1, Phase::Build));
    assert!(f[0].message.contains("no arm"), "{}", f[0].message);
}

/// Both arms declare the same function: HIP runs the older path. Still one finding (a
/// behaviour change), saying so, and no HP301 beside it.
#[test]
fn same_names_in_both_arms_is_the_older_path() {
    let src = "#if CUDART_VERSION >= 11000\nvoid copy() { cudaMemcpyAsync(0,0,0,cudaMemcpyDefault,0); }\n#else\nvoid copy() { cudaMemcpy(0,0,0,cudaMemcpyDefault); }\n#endif\n";
    let all = hazard_findings(src);
    let f: Vec<&Finding> = all.iter().filter(|f| f.rule == "HP304").collect();
    assert_eq!(f.len(), 1);
    assert!(
        f[0].message.contains("older or fallback code path"),
        "{}",
        f[0].message
    );
    assert!(
        !all.iter().any(|f| f.rule == "HP301" && f.line == 1),
        "{all:?}"
    );
}

#[test]
fn arch_splits_unknown_and_nested_dead_chains_are_left_alone() {
    // `__CUDA_ARCH__`: arch-check's business.
    assert!(
        hp304("#if __CUDA_ARCH__ >= 800\nvoid f(){ a(); }\n#else\nvoid f(){ b(); }\n#endif\n")
            .is_empty()
    );
    // CUDA side unknown (a project flag): no finding.
    assert!(
        hp304("#if defined(WITH_LT) && CUBLAS_VERSION >= 11600\nvoid f(){ a(); }\n#endif\n")
            .is_empty()
    );
    // Inside a branch HIP never compiles: nothing to compare.
    assert!(hp304(
        "#ifndef USE_ROCM\n#if CUBLAS_VERSION >= 11600\nvoid f(){ a(); }\n#endif\n#endif\n"
    )
    .is_empty());
    // Both builds take the same arm (RCCL defines NCCL_VERSION_CODE too).
    assert!(hp304("#ifdef NCCL_VERSION_CODE\nvoid f(){ a(); }\n#endif\n").is_empty());
    // Only pragmas differ: no behaviour changes.
    assert!(hp304("#ifdef __NVCC__\n#pragma nv_diag_suppress 177\n#endif\n").is_empty());
    // Pragmas chosen by a nested test of the toolkit (VTK-m's `CellMeasure.h`): still only
    // pragmas. The nested twin that defines a name does fire.
    let nested = "#ifdef __NVCC__\n#pragma push\n#if (CUDART_VERSION >= 11050)\n#pragma nv_diag_suppress = code_is_unreachable\n#else\n#pragma diag_suppress = code_is_unreachable\n#endif\n#endif\n";
    assert!(hp304(nested).is_empty());
    assert_eq!(
        hp304(&nested.replace("#pragma push", "#define QUIET 1")).len(),
        1
    );
    // The twin with code does fire.
    assert_eq!(
        hp304("#ifdef __NVCC__\nvoid f(){ a(); }\n#endif\n").len(),
        1
    );
}

/// `#if !defined(CUDA_VERSION)` in a file written for HIP too is its HIP path; the same test
/// in a CUDA-only file is not.
#[test]
fn a_not_cuda_arm_in_a_shared_file_is_the_hip_path() {
    use crate::model::syntax::test_support::hazard_findings_at;
    let src = "void f() {\n#if !defined(CUDA_VERSION)\n  portable();\n#else\n  tuned_for_sm80();\n#endif\n}\n";
    let n = |path: &str, src: &str| {
        hazard_findings_at(path, src)
            .into_iter()
            .filter(|f| f.rule == "HP304")
            .count()
    };
    assert_eq!(n("common/cuda_hip/k.cpp", src), 0);
    assert_eq!(
        n(
            "k.cu",
            &format!("{src}void g() {{ hipDeviceSynchronize(); }}\n")
        ),
        0
    );
    assert_eq!(n("k.cu", src), 1);
    // A version comparison is not a platform test, even in a shared file.
    assert_eq!(
        n(
            "common/cuda_hip/k.cpp",
            &src.replace("!defined(CUDA_VERSION)", "CUDA_VERSION < 11000")
        ),
        1
    );
}

/// An `exit` deep in a helper's error path is not the HIP arm failing.
#[test]
fn only_a_top_level_failure_moves_the_phase() {
    let helper = "#if CUDART_VERSION < 5000\ninline void check(int e) {\n  if (e) {\n    exit(1);\n  }\n}\n#endif\n";
    assert_eq!(hp304(helper)[0].phase, Phase::Correctness);
    let top = "#if CUDART_VERSION >= 2020\nvoid map() { setup(); }\n#else\nvoid map() { exit(0); }\n#endif\n";
    assert_eq!(hp304(top)[0].phase, Phase::Runtime);
}

/// A hazard inside the arm HIP never compiles is PASS and names the deciding condition.
#[test]
fn findings_in_the_dead_arm_name_the_condition() {
    let src = "#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 11600\n__global__ void k(int *o) {\n  unsigned int active = __activemask();\n  o[0] = __popc(active);\n}\n#endif\n__global__ void m(int *o) {\n  unsigned int active = __activemask();\n  o[0] = __popc(active);\n}\n";
    let all = hazard_findings(src);
    let dead: Vec<&Finding> = all.iter().filter(|f| (3..=4).contains(&f.line)).collect();
    assert!(!dead.is_empty(), "{all:?}");
    for f in dead {
        assert_eq!(f.status, Status::Pass, "{f:?}");
        assert!(f.message.contains("compiled out under HIP: decided by `#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 11600` (line 1)"), "{}", f.message);
    }
    assert!(
        all.iter().any(|f| f.line == 8 && f.status != Status::Pass),
        "{all:?}"
    );
}

/// cudpp's satGL: `#if CUDA_VERSION < 3000` holds the legacy `cudaGL*` calls, which HIP lacks;
/// HIP compiles that arm only because `CUDA_VERSION` is undefined there. The translator's
/// HP001 findings in it fold into the condition's HP304, which becomes a BUILD item naming
/// them. The twin: the same calls outside any such arm stay HP001.
#[test]
fn unported_calls_in_the_arm_hip_takes_fold_into_the_condition() {
    let run = |src: &str| {
        let bytes = src.as_bytes();
        let opts = crate::translate::Options::for_tests("6.2", false);
        let t = crate::translate::translate_bytes("t.cu", bytes, crate::mappings::get(), &opts);
        let mut translated = t.findings;
        let lines = crate::source::LineIndex::new(bytes);
        let ctx = crate::rules::FileCtx {
            path: "t.cu",
            src: bytes,
            lines: &lines,
        };
        let tree = crate::parse::parse(bytes);
        let lexed = crate::lex::lex(bytes);
        let target = crate::mappings::Target {
            rocm: "6.2".parse().unwrap(),
            roc: false,
            experimental: false,
            lds: None,
        };
        let mut out = crate::rules::hazards::check_lexed(
            &ctx,
            &lexed,
            tree.as_ref(),
            &target,
            &crate::model::project::NOTHING,
            &mut translated,
            &mut Vec::new(),
        );
        out.extend(translated);
        out
    };
    let src = "#include <cuda_runtime.h>\n#if CUDA_VERSION < 3000\nvoid map(void** p, unsigned b) { cudaGLMapBufferObject(p, b); }\n#else\nvoid map(cudaGraphicsResource_t r) { cudaGraphicsMapResources(1, &r, 0); }\n#endif\n";
    let fs = run(src);
    let hp304: Vec<&Finding> = fs.iter().filter(|f| f.rule == "HP304").collect();
    assert_eq!(hp304.len(), 1, "{fs:#?}");
    assert_eq!(hp304[0].phase, Phase::Build);
    assert!(
        hp304[0].message.contains("`cudaGLMapBufferObject`"),
        "{}",
        hp304[0].message
    );
    let hp001: Vec<&Finding> = fs.iter().filter(|f| f.rule == "HP001").collect();
    assert!(
        !hp001.is_empty() && hp001.iter().all(|f| f.status == Status::Pass),
        "{hp001:#?}"
    );
    // Twin: a HIP arm whose call HIP still declares, deprecated (thundergbm's
    // `cusparseScsr2csc` under `#else` of `CUDART_VERSION >= 11000`), builds: the condition is
    // no build stop, and the deprecated call keeps its own HP002.
    let legacy = "#include <cusparse.h>\n#if (CUDART_VERSION >= 11000)\nvoid f(cusparseHandle_t h, size_t* b) { cusparseCsr2cscEx2_bufferSize(h, 1, 1, 1, 0, 0, 0, 0, 0, 0, CUDA_R_32F, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO, CUSPARSE_CSR2CSC_ALG1, b); }\n#else\nvoid f(cusparseHandle_t h, size_t* b) { cusparseScsr2csc(h, 1, 1, 1, 0, 0, 0, 0, 0, 0, CUSPARSE_ACTION_NUMERIC, CUSPARSE_INDEX_BASE_ZERO); }\n#endif\n";
    let fs = run(legacy);
    let hp304: Vec<&Finding> = fs.iter().filter(|f| f.rule == "HP304").collect();
    assert_eq!(hp304.len(), 1, "{fs:#?}");
    assert!(
        hp304[0].phase != Phase::Build && !hp304[0].message.contains("lacks"),
        "{}",
        hp304[0].message
    );
    assert!(
        fs.iter()
            .any(|f| f.rule == "HP002" && f.line == 5 && f.folded_into.is_none()),
        "{fs:#?}"
    );
    let plain = "#include <cuda_runtime.h>\nvoid map(void** p, unsigned b) { cudaGLMapBufferObject(p, b); }\n";
    let fs = run(plain);
    assert!(
        fs.iter()
            .any(|f| f.rule == "HP001" && f.status == Status::Remediation),
        "{fs:#?}"
    );
}

/// Code written before Volta: `#if CUDA_VERSION >= 9000` chooses `__shfl_xor_sync(mask, …)`
/// over `__shfl_xor(…)`. HIP takes the legacy arm, which it provides: PASS naming it. The twin:
/// a legacy arm that also drops work (a second call) stays REMEDIATION.
#[test]
fn a_legacy_warp_intrinsic_arm_is_nothing_lost() {
    let src = "template <typename T>\n__device__ T xor_shfl(T v, int m, int w = warpSize, unsigned int mask = 0xffffffff) {\n#if CUDA_VERSION >= 9000\n  return __shfl_xor_sync(mask, v, m, w);\n#else\n  return __shfl_xor(v, m, w);\n#endif\n}\n";
    let f = hp304(src);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].status, Status::Pass, "{}", f[0].message);
    assert!(f[0].message.contains("`__shfl_xor`"), "{}", f[0].message);
    let lossy = src.replace(
        "  return __shfl_xor(v, m, w);",
        "  return __shfl_xor(v, m, w) + slow_path(v);",
    );
    let f = hp304(&lossy);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].status, Status::Remediation);
}

/// marian-nmt: an arm inside a function with no `#else`, whose `else` falls through to the
/// statement after `#endif`: HIP runs that statement, not nothing; twin: at file scope nothing
/// runs in the arm's place.
#[test]
fn an_arm_without_else_inside_a_function_names_the_code_after_it() {
    let src = "void gemm(int cc) {\n#if CUDA_VERSION > 9000\n  if (cc >= 5)\n    fast(cc);\n  else\n#endif\n    slow(cc);\n}\n";
    let f = hp304(src);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].message
            .contains("runs instead: the function's code after `#endif` (line 7)"),
        "{}",
        f[0].message
    );
    let file_scope = "#if CUDA_VERSION > 9000\nvoid fast(int);\n#endif\nvoid slow(int);\n";
    let f = hp304(file_scope);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f.iter()
            .all(|f| f.message.contains("runs instead: nothing")),
        "{f:?}"
    );
}

/// Arms that only feed diagnostic output: the lines that print a device's memory clock, the
/// fields only those lines read, the text of an error thrown either way (DualSPHysics,
/// gpu-burn). PASS, saying so. Twins: a field something computes with, and an arm whose HIP
/// side runs other code, stay REMEDIATION.
#[test]
fn arms_that_only_feed_diagnostics_change_nothing_computed() {
    let fields = "struct G { int clock; int bus; int sm; };\nvoid fill(G &g, const cudaDeviceProp &p) {\n  g.sm = p.multiProcessorCount;\n#if CUDART_VERSION >= 5000\n  g.clock = p.memoryClockRate;\n  g.bus = p.memoryBusWidth;\n#endif\n}\nvoid show(const G &g, std::vector<std::string> *info) {\n  info->push_back(PrintStr(\"SMs: %d\", g.sm));\n#if CUDART_VERSION >= 5000\n  info->push_back(PrintStr(\"Memory clock: %d kHz\", g.clock));\n  info->push_back(PrintStr(\"Bus: %d-bit\", g.bus));\n#endif\n}\n";
    let f = hp304(fields);
    assert_eq!(f.len(), 2, "{f:?}");
    for x in &f {
        assert_eq!(x.status, Status::Pass, "{}", x.message);
        assert!(
            x.message.contains("only feed diagnostic output"),
            "{}",
            x.message
        );
    }
    // Twin: the clock also sizes a buffer: the arm's loss is computed with.
    let used = fields.replace(
        "void show(",
        "int buffer(const G &g) { return g.clock * 2; }\nvoid show(",
    );
    let f = hp304(&used);
    assert_eq!(
        f.iter().filter(|x| x.status == Status::Remediation).count(),
        1,
        "{f:?}"
    );

    let error = "void check(cublasStatus_t rc, int line) {\n  if (rc != CUBLAS_STATUS_SUCCESS) {\n#if CUBLAS_VER_MAJOR >= 12\n    const char *err = cublasGetStatusString(rc);\n#else\n    const char *err = \"\";\n#endif\n    throw std::runtime_error(std::string(\"cuBLAS error at line \") + std::to_string(line) + \": \" + err);\n  }\n}\n";
    let f = hp304(error);
    assert_eq!((f.len(), f[0].status), (1, Status::Pass), "{f:?}");
    // Twin: HIP's arm runs other code than the CUDA arm's message.
    let other = "void run(int n) {\n#if CUDART_VERSION >= 11000\n  printf(\"fast path for %d\\n\", n);\n#else\n  slow_path(n);\n#endif\n}\n";
    let f = hp304(other);
    assert_eq!((f.len(), f[0].status), (1, Status::Remediation), "{f:?}");
}

/// ggml's `CUBLAS_CHECK`: both arms define the same check, the CUDA 12 one prints the status
/// string too. Same code but for what is printed: PASS. Twin: the HIP arm also skips `exit`.
#[test]
fn arms_that_differ_only_in_what_they_print_are_nothing_to_change() {
    let src = "#if CUDART_VERSION >= 12000\n#define CHECK(err) do { int e = (err); if (e != 0) { fprintf(stderr, \"error %d: %s\\n\", e, name(e)); exit(1); } } while (0)\n#else\n#define CHECK(err) do { int e = (err); if (e != 0) { fprintf(stderr, \"error %d\\n\", e); exit(1); } } while (0)\n#endif\n";
    let f = hp304(src);
    assert!(
        f.len() == 1
            && f[0].status == Status::Pass
            && f[0].message.contains("but for what they print"),
        "{f:?}"
    );
    let twin = src.replacen("exit(1); } } while (0)\n#endif", "} } while (0)\n#endif", 1);
    let f = hp304(&twin);
    assert!(f.len() == 1 && f[0].status == Status::Remediation, "{f:?}");
}

/// mxnet's `libinfo.h`: `#ifndef MXNET_USE_NVML` / `#define MXNET_USE_NVML 0` only gives the
/// switch its default (PASS), and the code `#if MXNET_USE_NVML` guards is what the ROCm build
/// compiles out (the CUDA build with NVML turns the switch on). Twins: a default block that also
/// declares code, and one defining another macro, stay findings.
#[test]
fn a_switch_default_is_nothing_and_its_tests_are_the_fact() {
    let src = "#ifndef MXNET_USE_NVML\n#define MXNET_USE_NVML 0\n#endif\n#if MXNET_USE_NVML\n#include <nvml.h>\nint gpu_mem() { return nvml_read(); }\n#endif\n";
    let f = hp304(src);
    let got: Vec<(u32, Status)> = f.iter().map(|f| (f.line, f.status)).collect();
    assert_eq!(got, [(1, Status::Pass), (4, Status::Remediation)], "{f:?}");
    assert!(f[0]
        .message
        .contains("only gives `MXNET_USE_NVML` its default"));
    assert!(f[1].message.contains("`gpu_mem`"), "{}", f[1].message);
    for twin in [
        "#ifndef MXNET_USE_NVML\n#define MXNET_USE_NVML 0\nint fallback() { return 0; }\n#endif\n",
        "#ifndef MXNET_USE_NVML\n#define OTHER_SWITCH 0\n#endif\n",
    ] {
        let f = hp304(twin);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].status, Status::Remediation, "{twin}");
    }
}

/// fastmoe's `smart_schedule.h`: one macro spelled for two toolkits over the same call. HIP's
/// spelling is the code's, checked where it is used: nothing is compiled out (PASS). The twin
/// whose arms call different things decides behaviour and stays open.
#[test]
fn one_macro_spelled_for_two_toolkits_is_settled() {
    let src = "#if defined(CUDA_VERSION) && (CUDA_VERSION >= 11010)\n#define SWE(s, e) cudaStreamWaitEvent(s, e)\n#else\n#define SWE(s, e) cudaStreamWaitEvent(s, e, 0)\n#endif\n";
    let f = hp304(src);
    assert_eq!((f.len(), f[0].status), (1, Status::Pass), "{f:?}");
    assert!(f[0].message.contains("`SWE`"), "{}", f[0].message);
    let other = src.replace(
        "cudaStreamWaitEvent(s, e, 0)\n",
        "cudaEventSynchronize(e)\n",
    );
    assert_eq!(hp304(&other)[0].status, Status::Remediation);
    // An arm that also holds code, or defines another macro, is more than a spelling.
    let code = src.replace("#else\n", "void extra(int);\n#else\n");
    assert_eq!(
        hp304(&code)[0].status,
        Status::Remediation,
        "{:?}",
        hp304(&code)
    );
    let object = src.replace(
        "#define SWE(s, e) cudaStreamWaitEvent(s, e, 0)\n",
        "#define SWE 0\n",
    );
    assert_eq!(hp304(&object)[0].status, Status::Remediation);
}

/// GooFit's backend switch: `#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA` is the CUDA
/// backend's arm; rocThrust picks its HIP backend, so HIP compiles the `#else` (the CPU stubs).
/// Twin: a test of the OMP backend, which neither build takes by default, is no difference.
#[test]
fn thrusts_cuda_backend_arm_is_compiled_out() {
    let src = "#include <thrust/device_vector.h>\n#if THRUST_DEVICE_SYSTEM == THRUST_DEVICE_SYSTEM_CUDA\n__global__ void k(float* p) { p[threadIdx.x] = 0; }\n#else\nvoid k(float* p) { p[0] = 0; }\n#endif\n";
    let f = hp304(src);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].line, 2);
    assert!(
        f[0].message.contains("`THRUST_DEVICE_SYSTEM_HIP`"),
        "{}",
        f[0].message
    );
    let omp = src.replace("_CUDA\n", "_OMP\n");
    assert!(hp304(&omp).is_empty(), "{:?}", hp304(&omp));
}

/// TIGRE's query of host-register support behind `CUDART_VERSION`: what HIP compiles out only
/// decides whether host memory is pinned, so the finding is PERFORMANCE; twin: an arm that
/// also calls a kernel-side API stays CORRECTNESS.
#[test]
fn an_arm_that_only_tunes_speed_is_a_performance_matter() {
    let src = "void f(float* img, int* gpuids, size_t n) {\n  int ok = 0;\n#if CUDART_VERSION >= 9020\n  cudaDeviceGetAttribute(&ok, cudaDevAttrHostRegisterSupported, gpuids[0]);\n#endif\n  if (ok) cudaHostRegister(img, n, cudaHostRegisterPortable);\n}\n";
    let f = hp304(src);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!((f[0].line, f[0].phase), (3, Phase::Performance));
    assert!(
        f[0].message.contains("only tunes speed"),
        "{}",
        f[0].message
    );
    let other = src.replace(
        "cudaDevAttrHostRegisterSupported, gpuids[0]);",
        "cudaDevAttrHostRegisterSupported, gpuids[0]);\n  cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, 1 << 16);",
    );
    let f = hp304(&other);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(f[0].phase, Phase::Correctness);
}

/// kokkos-kernels' library switches: a `…_TPL_CUSPARSE` arm beside the file's own
/// `…_TPL_ROCSPARSE` arm is off in the ROCm build (the project turns on the twin), so a
/// version test inside it is no finding. Twin: the same file without the rocSPARSE arm keeps it.
#[test]
fn a_cuda_library_switch_with_a_rocm_twin_is_off_for_rocm() {
    let src = "#ifdef KK_ENABLE_TPL_CUSPARSE\nvoid solve() {\n#if CUDA_VERSION >= 11030\n  spsv();\n#else\n  csrsv2();\n#endif\n}\n#endif\n#ifdef KK_ENABLE_TPL_ROCSPARSE\nvoid solve() { rocsparse_solve(); }\n#endif\n";
    let open = |src: &str| -> Vec<u32> {
        hp304(src)
            .into_iter()
            .filter(|f| f.status != Status::Pass)
            .map(|f| f.line)
            .collect()
    };
    assert!(open(src).is_empty(), "{:?}", hp304(src));
    let alone = src.replace(
        "#ifdef KK_ENABLE_TPL_ROCSPARSE\nvoid solve() { rocsparse_solve(); }\n#endif\n",
        "",
    );
    assert_eq!(open(&alone), [3]);
}

/// TensorFlow's `#if GOOGLE_CUDA` (its CUDA build switch; its ROCm build defines
/// `TENSORFLOW_USE_ROCM` instead): the GPU kernel registration is compiled out under ROCm, and
/// the message says which switch the ROCm build defines. Twin: `GOOGLE_CUDA ||
/// TENSORFLOW_USE_ROCM`, the form TensorFlow's own kernels use, is the ROCm path already.
#[test]
fn a_tensorflow_gpu_arm_is_compiled_out() {
    let src = "#if GOOGLE_CUDA\n#define REGISTER_GPU(T) REGISTER_KERNEL_BUILDER(Name(\"Op\").Device(DEVICE_GPU), OpGpu<T>)\nREGISTER_GPU(float);\n#endif\n";
    let f = hp304(src);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(
        f[0].message
            .contains("defines `TENSORFLOW_USE_ROCM`, never `GOOGLE_CUDA`"),
        "{}",
        f[0].message
    );
    assert!(f[0]
        .suggestion
        .as_deref()
        .is_some_and(|s| s.contains("GOOGLE_CUDA || TENSORFLOW_USE_ROCM")));
    assert!(
        hp304(&src.replace("#if GOOGLE_CUDA", "#if GOOGLE_CUDA || TENSORFLOW_USE_ROCM")).is_empty()
    );
}

/// beagle-lib's `GetAvailableMemory`: arms for CUDA before and after 3.2 that differ only in the
/// width of the sizes passed to `cuMemGetInfo`. HIP takes the `unsigned int` arm, which its
/// `size_t*` API rejects: REMEDIATION/BUILD, fix the condition. Twins: the address never reaches
/// a CUDA call (the value is only printed), and arms that differ in more than the type.
#[test]
fn a_pre_cuda_3_2_arm_of_32_bit_sizes_stops_the_build() {
    let src = "size_t avail() {\n#if CUDA_VERSION >= 3020\n    size_t a = 0;\n    size_t t = 0;\n    cuMemGetInfo(&a, &t);\n#else\n    unsigned int a = 0;\n    unsigned int t = 0;\n    cuMemGetInfo(&a, &t);\n#endif\n    return (size_t) a;\n}\n";
    let f = hp304(src);
    assert_eq!(f.len(), 1, "{f:?}");
    assert_eq!(
        (f[0].status, f[0].phase),
        (Status::Remediation, Phase::Build)
    );
    assert!(f[0].message.contains("`cuMemGetInfo`"), "{}", f[0].message);
    assert!(
        f[0].suggestion
            .as_deref()
            .unwrap_or("")
            .contains("|| defined(__HIP_PLATFORM_AMD__)"),
        "{:?}",
        f[0].suggestion
    );
    let printed = src.replace("cuMemGetInfo(&a, &t);", "printf(\"%p\", (void*)&a);");
    assert!(hp304(&printed).iter().all(|f| f.phase != Phase::Build));
    let more = src.replace(
        "    unsigned int t = 0;\n    cuMemGetInfo",
        "    unsigned int t = 1;\n    cuMemGetInfo",
    );
    assert!(hp304(&more).iter().all(|f| f.phase != Phase::Build));
}
