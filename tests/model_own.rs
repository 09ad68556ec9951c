//! A project's own functions named like CUDA APIs, end to end (`model::own`): a header declares
//! `mylib::cudaMalloc`, a class with a `cudaStreamCreate` method and a type with a `mulhi`
//! member; the unit that includes it calls them and CUDA's functions of the same names. `scan`
//! reports no unported API for the project's code (and still does for a free `mulhi` call, which is
//! CUDA's; a member call `x.mulhi(…)` is never CUDA's free device function); `port` keeps the project's names at the declaration and at
//! every use, translates CUDA's, and the output compiles with hipcc (where it is on PATH).

#[path = "common/rows.rs"]
mod rows;
use rows::{hipport, write};
use std::path::Path;
use std::process::Command;

const HEADER: &str = "#pragma once\n\
#include <cuda_runtime.h>\n\
namespace mylib {\n\
inline cudaError_t cudaMalloc(void** p, size_t n) { return ::cudaMalloc(p, n); }\n\
struct Streams {\n\
  cudaError_t cudaStreamCreate(cudaStream_t* s) { return ::cudaStreamCreate(s); }\n\
};\n\
struct FastInt {\n\
  unsigned m;\n\
  __host__ __device__ unsigned mulhi(unsigned a, unsigned b) const {\n\
    return (unsigned)(((unsigned long long)a * b) >> 32);\n\
  }\n\
};\n\
}  // namespace mylib\n";

const UNIT: &str = "#include \"mylib/alloc.h\"\n\
__global__ void scale(mylib::FastInt f, unsigned* out) {\n\
  out[threadIdx.x] = f.mulhi(out[threadIdx.x], f.m) + __umulhi(out[0], 3u);\n\
}\n\
int main() {\n\
  void* p;\n\
  mylib::cudaMalloc(&p, 64);\n\
  cudaMalloc(&p, 64);\n\
  mylib::Streams st;\n\
  cudaStream_t s;\n\
  st.cudaStreamCreate(&s);\n\
  cudaStreamCreate(&s);\n\
  return 0;\n\
}\n";

/// A project that declares no `mulhi`: the free call is CUDA's device function.
const STRANGER: &str =
    "template <class T> __device__ unsigned g(T x) { return x.m + mulhi(1u, 2u); }\n";

fn tree(root: &Path) {
    write(
        root,
        &[("include/mylib/alloc.h", HEADER), ("src/k.cu", UNIT)],
    );
}

/// `(path, line, message)` of every HP001 of `scan --format json` on `root`.
fn hp001(root: &Path) -> Vec<(String, u64, String)> {
    rows::scan_root(root, &["--rocm", "6.2"])
        .into_iter()
        .filter(|r| r.0 == "HP001")
        .map(|r| (r.1, r.2, r.4))
        .collect()
}

#[test]
fn scan_reports_no_unported_api_for_the_projects_own_names() {
    let d = tempfile::tempdir().unwrap();
    tree(d.path());
    let found = hp001(d.path());
    assert!(found.is_empty(), "{found:?}");
    // Negative twin: a project that declares no `mulhi`, calling the free function.
    let d = tempfile::tempdir().unwrap();
    write(d.path(), &[("src/stranger.cu", STRANGER)]);
    let found = hp001(d.path());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, "src/stranger.cu", "{found:?}");
    assert!(found[0].2.contains("`mulhi`"), "{found:?}");
}

fn hipcc_on_path() -> bool {
    std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).any(|d| d.join("hipcc").is_file()))
        .unwrap_or(false)
}

#[test]
fn port_keeps_the_projects_names_translates_cudas_and_builds() {
    let d = tempfile::tempdir().unwrap();
    let input = d.path().join("in");
    tree(&input);
    let out = d.path().join("out");
    let r = hipport()
        .args(["port", "-q", "--rocm", "6.2", "--out"])
        .arg(&out)
        .arg(&input)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let h = std::fs::read_to_string(out.join("include/mylib/alloc.h")).unwrap();
    for kept in [
        "inline hipError_t cudaMalloc(void** p, size_t n) { return ::hipMalloc(p, n); }",
        "hipError_t cudaStreamCreate(hipStream_t* s) { return ::hipStreamCreate(s); }",
        "unsigned mulhi(unsigned a, unsigned b) const",
    ] {
        assert!(h.contains(kept), "{kept}\n{h}");
    }
    let k = std::fs::read_to_string(out.join("src/k.cu")).unwrap();
    for kept in [
        "f.mulhi(out[threadIdx.x], f.m) + __umulhi(out[0], 3u)",
        "mylib::cudaMalloc(&p, 64);\nhipMalloc(&p, 64);",
        "st.cudaStreamCreate(&s);\nhipStreamCreate(&s);",
    ] {
        assert!(k.contains(kept), "{kept}\n{k}");
    }
    if !hipcc_on_path() {
        eprintln!("skipped the compile: hipcc is not on PATH");
        return;
    }
    let r = Command::new("hipcc")
        .args([
            "--offload-arch=gfx90a",
            "-fsyntax-only",
            "-Iinclude",
            "-x",
            "hip",
            "src/k.cu",
        ])
        .current_dir(&out)
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
}

/// A header defines `geo::__shfl_down_sync` for the project's `Pair`; another header's
/// template reduces any `T` with 32-lane offsets and does not include the first; the unit
/// includes both and instantiates it for `Pair`. The model sees the overload project-wide, so
/// the template's call (which reaches it by argument-dependent lookup) keeps its shape: no width
/// 32, HP023 naming the overload and where it is. Twin: the unit's own `float` reduction, which
/// only HIP's function can take, gets width 32.
#[test]
fn a_template_call_that_may_reach_a_header_overload_keeps_its_shape() {
    let pair = "#pragma once\nnamespace geo {\nstruct Pair { float d; int i; };\n__device__ Pair __shfl_down_sync(const unsigned m, const Pair& a, const int& o) {\n  return a;\n}\n}\n";
    let reduce = "#pragma once\ntemplate <typename T>\n__device__ T warp_first(T v) {\n  int lane = threadIdx.x % 32;\n  for (int o = 16; o > 0; o /= 2) {\n    T w = __shfl_down_sync(0xffffffff, v, o);\n    if (lane + o < 32) v = w;\n  }\n  return v;\n}\n";
    let unit = "#include \"geom/pair.cuh\"\n#include \"common/reduce.cuh\"\n__global__ void k(geo::Pair* p, float* f) {\n  p[0] = warp_first(p[threadIdx.x]);\n  float x = f[threadIdx.x];\n  int lane = threadIdx.x & 31;\n  for (int o = 16; o > 0; o /= 2) x += __shfl_down_sync(0xffffffff, x, o);\n  if (lane == 0) f[0] = x;\n}\n";
    let d = tempfile::tempdir().unwrap();
    write(
        d.path(),
        &[
            ("include/geom/pair.cuh", pair),
            ("include/common/reduce.cuh", reduce),
            ("src/k.cu", unit),
        ],
    );
    let rows = rows::scan_root(d.path(), &["--rocm", "7.0"]);
    let hp023: Vec<_> = rows.iter().filter(|r| r.0 == "HP023").collect();
    assert_eq!(hp023.len(), 1, "{rows:?}");
    assert_eq!(
        (hp023[0].1.as_str(), hp023[0].2, hp023[0].3.as_str()),
        ("include/common/reduce.cuh", 6, "REMEDIATION")
    );
    assert!(
        hp023[0]
            .4
            .contains("`geo::__shfl_down_sync` (include/geom/pair.cuh:4, 3 arguments)"),
        "{}",
        hp023[0].4
    );
    let out = hipport()
        .args(["port", "--rocm", "7.0"])
        .arg(d.path())
        .output()
        .unwrap();
    let diff = String::from_utf8_lossy(&out.stdout);
    assert!(!diff.contains("v, o, 32)"), "{diff}");
    assert!(diff.contains("x, o, 32)"), "{diff}");
}
