//! A project macro that does warp-level work (graphvite's
//! `#define SUM(x) gpu::WarpBroadcast(gpu::WarpReduce(x), 0)` in `util/gpu.cuh`) makes a
//! function that calls it exchange across lanes, in the header's includers too: a header's
//! `kWarpSize` used there does not keep CUDA's meaning on its own, so the includer gives it no
//! PASS. Twin: a macro whose body is lane arithmetic only (`FOR`) exchanges nothing, and the
//! includer's PASS stands.

mod common;
use common::scan_files;

const GPU: &str = "namespace gpu {\nconst int kWarpSize = 32;\ntemplate<class T>\n__device__ T WarpReduce(T value) {\n    for (int delta = 1; delta < kWarpSize; delta *= 2)\n        value += __shfl_down(value, delta);\n    return value;\n}\ntemplate<class T>\n__device__ T WarpBroadcast(T value, int lane) {\n    return __shfl(value, lane);\n}\n}\n#define SUM(x) gpu::WarpBroadcast(gpu::WarpReduce(x), 0)\n#define FOR(i, stop) for (int i = threadIdx.x % gpu::kWarpSize; i < (stop); i += gpu::kWarpSize)\n";

fn includer(body: &str) -> String {
    format!("#include \"gpu.cuh\"\nusing namespace gpu;\n__global__ void train(float *x, float *out) {{\n    const int lane_id = threadIdx.x % kWarpSize;\n    float s = 0;\n    FOR(i, 100) s += x[i];\n    {body}\n    if (lane_id == 0) out[threadIdx.x / kWarpSize] = s;\n}}\n")
}

/// The includer's HP101 findings on the header's constant: their statuses.
fn includer_constant(body: &str) -> Vec<String> {
    scan_files(&[("gpu.cuh", GPU), ("train.cu", &includer(body))])
        .iter()
        .filter(|f| f["path"] == "train.cu" && f["rule"] == "HP101")
        .map(|f| f["status"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_warp_macro_of_a_header_is_warp_level_work_in_its_includers() {
    assert!(
        !includer_constant("s = SUM(s);").contains(&"PASS".to_string()),
        "{:?}",
        includer_constant("s = SUM(s);")
    );
}

#[test]
fn lane_arithmetic_alone_keeps_the_includers_pass() {
    assert_eq!(includer_constant("s = s * 2;"), ["PASS"]);
}
