//! Tests of the launch-rows pass ([`super::launch_rows`]).
use super::launch_rows::*;
use crate::finding::Finding;
use crate::gate::Status;

const KERNEL: &str = "#include <cub/cub.cuh>\n__global__ void mat_vec(const float* w, float* out, int n) {\n  float sum = 0.f;\n  for (int i = threadIdx.x; i < n; i += 32) sum += w[blockIdx.x * 4 * n + threadIdx.y * n + i];\n  using WarpReduce = cub::WarpReduce<float>;\n  __shared__ typename WarpReduce::TempStorage temp[4];\n  sum = WarpReduce(temp[threadIdx.y]).Sum(sum);\n  if (threadIdx.x == 0) out[blockIdx.x * 4 + threadIdx.y] = sum;\n}\n";

/// The project pass over `files`, each lexed once, on top of `findings`.
fn pass(mut findings: Vec<Finding>, files: &[(&str, &str)]) -> Vec<Finding> {
    let rows = super::call_graph::rows_of(files);
    let refs: Vec<(&str, &FileRows)> = rows.iter().map(|(p, r)| (p.as_str(), r)).collect();
    cub_in_kernels_of_32_wide_rows(&mut findings, &refs);
    findings
}

fn run(files: &[(&str, &str)]) -> Vec<Finding> {
    pass(Vec::new(), files)
}

/// nvdiffrast's rasterizer: a device helper, called only from a kernel launched with
/// `dim3 block(32, WARPS)`, sizes and strides by `WARPS * 32`, the block's threads. Twin:
/// the same kernel launched somewhere with 256-thread rows keeps its HP102.
#[test]
fn warp_arithmetic_of_32_wide_rows_is_the_rows() {
    let kernel = "#define WARPS 16\n__device__ void impl(int* buf, int n) {\n  int t = threadIdx.x + 32 * threadIdx.y;\n  unsigned m = __ballot_sync(~0u, t < n);\n  for (int i = t; i < n; i += WARPS * 32) buf[i] = __popc(m);\n}\n__global__ void k(int* buf, int n) { impl(buf, n); }\n";
    let launch =
        "void go(int* b, int n) {\n  dim3 block(32, WARPS);\n  k<<<n, block>>>(b, n);\n}\n";
    let run_on = |launch: &str| {
        let fs = crate::model::syntax::test_support::hazard_findings_at("k.cuh", kernel);
        assert!(
            fs.iter()
                .any(|f| f.rule == "HP102" && f.status != Status::Pass),
            "{fs:?}"
        );
        let files = [("k.cuh", kernel), ("main.cu", launch)];
        pass(fs, &files)
            .into_iter()
            .filter(|f| f.rule == "HP102")
            .collect::<Vec<_>>()
    };
    let rows = run_on(launch);
    assert!(rows.iter().all(|f| f.status == Status::Pass), "{rows:?}");
    assert!(
        rows[0].message.contains("each row is the code's warp"),
        "{}",
        rows[0].message
    );
    let wide = format!("{launch}void go2(int* b, int n) {{ k<<<n, 256>>>(b, n); }}\n");
    assert!(run_on(&wide).iter().any(|f| f.status != Status::Pass));
    // The runtime's launch call, as nvdiffrast writes it; twin: a 256-wide block.
    let api = "void go(int* b, int n, void** args) {\n  dim3 block(32, WARPS);\n  cudaLaunchKernel((void*)k, dim3(n, 1, 1), block, args, 0, 0);\n}\n";
    assert!(run_on(api).iter().all(|f| f.status == Status::Pass));
    let api_wide = api.replace("dim3 block(32, WARPS)", "dim3 block(256, 1)");
    assert!(run_on(&api_wide).iter().any(|f| f.status != Status::Pass));
}

/// xmrig's blake2b kernels, launched `<<<n, 32>>>` in one file and defined in another,
/// never act as a warp: the launch's HP107 is PASS. Twin: a kernel whose helper shuffles.
#[test]
fn one_warp_launches_of_kernels_elsewhere_without_warp_work() {
    let launch = "#include \"k.cuh\"\n__global__ void local(float* x) { x[threadIdx.x] = __shfl_xor_sync(0xffffffff, x[0], 1); }\nvoid go(float* x, int n) {\n  blake<<<n, 32>>>(x);\n}\n";
    let run_on = |kernel: &str| {
        let fs = crate::model::syntax::test_support::hazard_findings_at("hash.cu", launch);
        assert!(
            fs.iter()
                .any(|f| f.rule == "HP107" && f.status != Status::Pass),
            "{fs:?}"
        );
        let files = [("k.cuh", kernel), ("hash.cu", launch)];
        pass(fs, &files)
            .into_iter()
            .find(|f| f.rule == "HP107")
            .unwrap()
    };
    let plain = "__device__ void g(float* x, int i) { x[i] *= 2.f; }\n__global__ void blake(float* x) { g(x, blockIdx.x * 32 + threadIdx.x); }\n";
    let f = run_on(plain);
    assert_eq!(f.status, Status::Pass, "{}", f.message);
    assert!(
        f.message.contains("does no warp-level work"),
        "{}",
        f.message
    );
    let shuffles = plain.replace(
        "x[i] *= 2.f;",
        "x[i] = __shfl_down_sync(0xffffffff, x[i], 1);",
    );
    assert_ne!(run_on(&shuffles).status, Status::Pass);
}

/// llama_cu_awq's shape: the kernel in a header, every launch (in another file) with
/// `dim3 block_dim(32, 4)`. Twins: a launch with 256-thread rows elsewhere, a launch whose
/// shape is not known, and a primitive given its width keep quiet.
#[test]
fn cub_default_width_in_a_kernel_of_32_wide_rows_is_reported() {
    let launch = "#include \"k.cuh\"\nvoid go(const float* w, float* o, int n, int d) {\n  dim3 block_dim(32, 4);\n  dim3 grid_dim((d + 3) / 4, 1);\n  mat_vec<<<grid_dim, block_dim, 0, 0>>>(w, o, n);\n}\n";
    let fs = run(&[("k.cuh", KERNEL), ("main.cu", launch)]);
    assert_eq!(fs.len(), 1, "{fs:?}");
    let f = &fs[0];
    assert_eq!(
        (f.rule.as_str(), f.line, f.status),
        ("HP110", 5, Status::Remediation)
    );
    assert!(
        f.message.contains("`dim3 block_dim(32, …)` at main.cu:3"),
        "{}",
        f.message
    );
    assert_eq!(f.fix.as_deref(), Some("cub::WarpReduce<float, 32>"));
    let wide = "void go2(const float* w, float* o, int n) {\n  mat_vec<<<64, 256>>>(w, o, n);\n}\n";
    assert!(run(&[("k.cuh", KERNEL), ("main.cu", launch), ("b.cu", wide)]).is_empty());
    let unknown =
        "void go3(const float* w, float* o, int n, dim3 b) {\n  mat_vec<<<64, b>>>(w, o, n);\n}\n";
    assert!(run(&[("k.cuh", KERNEL), ("c.cu", unknown)]).is_empty());
    let given = KERNEL.replace("cub::WarpReduce<float>", "cub::WarpReduce<float, 32>");
    assert!(run(&[("k.cuh", &given), ("main.cu", launch)]).is_empty());
    // One-dimensional blocks of 32 threads, launched with template arguments.
    let one = KERNEL.replace("mat_vec(", "mat_vec2(");
    let launch1 =
        "void go(const float* w, float* o, int n) {\n  mat_vec2<<<n, 32>>>(w, o, n);\n}\n";
    assert_eq!(run(&[("k.cuh", &one), ("main.cu", launch1)]).len(), 1);
    // A device helper called only from such kernels; its twin is also called from a kernel
    // of 256-thread rows.
    let helper = "__device__ __forceinline__ float row_sum(float v) {\n  using WR = cub::WarpReduce<float>;\n  __shared__ typename WR::TempStorage t[4];\n  return WR(t[threadIdx.y]).Sum(v);\n}\n__global__ void ka(float* o) { o[0] = row_sum(o[threadIdx.x]); }\n__global__ void kb(float* o) { o[1] = row_sum(o[threadIdx.x]); }\n";
    let only32 =
        "void go(float* o) {\n  dim3 b(32, 4);\n  ka<<<1, b>>>(o);\n  kb<<<2, b>>>(o);\n}\n";
    let fs = run(&[("h.cuh", helper), ("m.cu", only32)]);
    assert_eq!(fs.len(), 1, "{fs:?}");
    assert!(
        fs[0].message.contains("which only kernel `ka`"),
        "{}",
        fs[0].message
    );
    let both =
        "void go(float* o) {\n  dim3 b(32, 4);\n  ka<<<1, b>>>(o);\n  kb<<<1, 256>>>(o);\n}\n";
    assert!(run(&[("h.cuh", helper), ("m.cu", both)]).is_empty());
}
