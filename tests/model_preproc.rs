//! The preprocessor model end to end (issue 20, item 1): `hipport scan --format json` on a
//! temporary tree evaluates every `#if` under a HIP-Clang compile and a current CUDA build.
//! Where they take different arms there is one HP304 on the condition; findings in the arm HIP
//! never compiles are PASS and name that condition; deliberate ROCm arms, project macros the
//! tool cannot resolve and `__CUDA_ARCH__` splits give no HP304.

mod common;

use serde_json::Value;
use std::path::Path;

/// (path, line, rule, status, phase, message) of every finding.
type Row = (String, u64, String, String, String, String);

fn scan(files: &[(&str, &str)]) -> Vec<Row> {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("tree");
    std::fs::create_dir_all(root.join(".git")).unwrap();
    for (name, text) in files {
        std::fs::write(root.join(name), text).unwrap();
    }
    let run = common::hipport(Path::new(&root), &["scan", "--format", "json", "."]);
    assert!(run.code == 0 || run.code == 1, "{}", run.stderr);
    let v: Value = serde_json::from_str(&run.stdout).expect("json");
    v["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap_or("").to_string();
            (
                s("path"),
                f["line"].as_u64().unwrap_or(0),
                s("rule"),
                s("status"),
                s("phase"),
                s("message"),
            )
        })
        .collect()
}

fn of<'a>(rows: &'a [Row], path: &str, rule: &str) -> Vec<&'a Row> {
    rows.iter().filter(|r| r.0 == path && r.2 == rule).collect()
}

const CUBLAS: &str = "#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 11600\nvoid g(){ cublasLtMatrixLayoutInit(0,0,0,0,0); }\n#else\nint g(){ return 1; }\n#endif\n";

#[test]
fn a_cublas_arm_is_one_finding_on_the_condition_and_pass_inside() {
    let rows = scan(&[("k.cu", CUBLAS)]);
    let hp304 = of(&rows, "k.cu", "HP304");
    assert_eq!(hp304.len(), 1, "{rows:?}");
    let (_, line, _, status, phase, msg) = hp304[0];
    assert_eq!(
        (*line, status.as_str(), phase.as_str()),
        (1, "REMEDIATION", "CORRECTNESS")
    );
    for w in [
        "`g`",
        "`cublasLtMatrixLayoutInit`",
        "the `#else` arm (line 3)",
    ] {
        assert!(msg.contains(w), "{w}: {msg}");
    }
    // Line 2's unported cuBLASLt call: PASS, naming the deciding condition.
    let hp001 = of(&rows, "k.cu", "HP001");
    assert_eq!(hp001.len(), 1, "{rows:?}");
    assert_eq!((hp001[0].1, hp001[0].3.as_str()), (2, "PASS"));
    assert!(hp001[0].5.contains("compiled out under HIP: decided by `#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 11600` (line 1)"), "{}", hp001[0].5);
    // No open finding anywhere but the one decision.
    let open: Vec<&Row> = rows.iter().filter(|r| r.3 != "PASS").collect();
    assert_eq!(open.len(), 1, "{open:?}");
}

#[test]
fn a_project_macro_stays_live_and_the_call_stays_open() {
    let src = CUBLAS.replace("CUBLAS_VERSION", "MY_BLAS_VERSION");
    let rows = scan(&[("k.cu", &src)]);
    assert!(of(&rows, "k.cu", "HP304").is_empty(), "{rows:?}");
    let hp001 = of(&rows, "k.cu", "HP001");
    assert_eq!((hp001.len(), hp001[0].3.as_str()), (1, "REMEDIATION"));
}

#[test]
fn bf16_types_error_arms_and_deliberate_rocm_paths() {
    let rows = scan(&[
        (
            "types.cu",
            "#ifdef __CUDA_BF16_TYPES_EXIST__\nusing TestTypes = ::testing::Types<float, half, nv_bfloat16>;\n#else\nusing TestTypes = ::testing::Types<float, half>;\n#endif\n",
        ),
        (
            "req.cu",
            "#if CUDART_VERSION >= 11000\nvoid f() { fast(); }\n#else\n#error this needs CUDA 11\n#endif\n",
        ),
        (
            "rocm.cu",
            "#ifdef USE_ROCM\nvoid f() { hip_path(); }\n#else\nvoid f() { cuda_path(); }\n#endif\n",
        ),
        (
            "arch.cu",
            "__device__ int f() {\n#if __CUDA_ARCH__ >= 800\n  return 1;\n#else\n  return 2;\n#endif\n}\n",
        ),
        (
            "older.cu",
            "#if CUDART_VERSION >= 11000\nvoid copy() { new_copy(); }\n#else\nvoid copy() { old_copy(); }\n#endif\n",
        ),
    ]);
    let t = of(&rows, "types.cu", "HP304");
    assert_eq!(t.len(), 1, "{rows:?}");
    assert!(
        t[0].5.contains("`nv_bfloat16`") && t[0].5.contains("`TestTypes`"),
        "{}",
        t[0].5
    );
    let r = of(&rows, "req.cu", "HP304");
    assert_eq!((r.len(), r[0].4.as_str()), (1, "BUILD"), "{rows:?}");
    assert!(of(&rows, "rocm.cu", "HP304").is_empty(), "{rows:?}");
    assert!(of(&rows, "arch.cu", "HP304").is_empty(), "{rows:?}");
    // Same names in both arms: HIP runs the older path; one finding, and no HP301 beside it.
    let o = of(&rows, "older.cu", "HP304");
    assert_eq!(o.len(), 1, "{rows:?}");
    assert!(o[0].5.contains("older or fallback code path"), "{}", o[0].5);
    assert!(of(&rows, "older.cu", "HP301").is_empty(), "{rows:?}");
}

#[test]
fn explain_documents_the_rule() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = common::hipport(dir.path(), &["explain", "HP304"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("compiled-out-under-hip"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("CUBLAS_VERSION"), "{}", run.stdout);
}

/// A HIP build file's `-DCUDA_VERSION=11000` is the HIP build's (kaldi's `hip_64bit.mk`): the
/// condition is decided as the project chose (PASS naming the file), and the old arm's
/// deprecated call is in code HIP never compiles. Twin: the same flags in a file of the CUDA
/// build leave the condition open.
#[test]
fn cuda_macros_a_hip_build_file_defines_decide_conditions() {
    let unit = "#include <cusparse.h>\nvoid f(cusparseHandle_t h) {\n#if CUDA_VERSION >= 11000\n  cusparseSpMM(h, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);\n#else\n  cusparseScsrmm2(h, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);\n#endif\n}\n";
    let rows = scan(&[
        ("k.cu", unit),
        (
            "hip.mk",
            "CXXFLAGS += -D__HIP_PLATFORM_AMD__ -DCUDA_VERSION=11000\n",
        ),
    ]);
    let cond = of(&rows, "k.cu", "HP304");
    assert_eq!(cond.len(), 1, "{rows:?}");
    assert_eq!(cond[0].3, "PASS", "{cond:?}");
    assert!(cond[0].5.contains("`hip.mk:1`"), "{cond:?}");
    assert!(
        rows.iter()
            .filter(|r| r.0 == "k.cu" && r.1 == 6)
            .all(|r| r.3 == "PASS"),
        "{rows:?}"
    );
    let rows = scan(&[
        ("k.cu", unit),
        ("cuda.mk", "NVCCFLAGS += -DCUDA_VERSION=11000\n"),
    ]);
    let cond = of(&rows, "k.cu", "HP304");
    assert_eq!(cond.len(), 1, "{rows:?}");
    assert_ne!(cond[0].3, "PASS", "{cond:?}");
}
