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

/// graphvite's chain (Apache-2.0): the kernel calls a model method in a third file
/// (`model.forward(…)`), whose body reduces through the header's `SUM`. The model method is
/// the project's warp-level work, so the kernel's `kWarpSize` gets no PASS. Twin: a model
/// method doing lane arithmetic only keeps it.
fn with_model(method_body: &str) -> Vec<String> {
    let model = format!("#include \"gpu.cuh\"\nstruct Model {{\n    __host__ __device__\n    static void forward(float &o) {{\n        {method_body}\n    }}\n}};\n");
    let kernel = "#include \"gpu.cuh\"\n#include \"model.h\"\nusing namespace gpu;\n__global__ void train(float *x, float *out) {\n    const int lane_id = threadIdx.x % kWarpSize;\n    float s = x[lane_id];\n    Model model;\n    model.forward(s);\n    if (lane_id == 0) out[threadIdx.x / kWarpSize] = s;\n}\n";
    scan_files(&[("gpu.cuh", GPU), ("model.h", &model), ("train.cuh", kernel)])
        .iter()
        .filter(|f| f["path"] == "train.cuh" && f["rule"] == "HP101")
        .map(|f| f["status"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_method_of_another_file_that_reduces_is_warp_level_work_in_its_callers() {
    assert!(!with_model("o = SUM(o);").contains(&"PASS".to_string()));
    assert_eq!(with_model("o = o * 2;"), ["PASS"]);
}

/// dlib's `launch_kernel` (BSL-1.0): a host helper that shapes 2-D blocks of 32 x-threads and
/// launches the kernel it is handed. The kernels its callers pass reduce across the x lanes,
/// so "nothing in this function exchanges" is not known: the `/ 32` stays open. Twin: the
/// same helper launching a kernel of the file that exchanges nothing is PASS.
fn launcher(kernel: &str) -> Vec<String> {
    let src = format!("__global__ void scale(float *p) {{ p[threadIdx.x] *= 2; }}\ntemplate <typename Kernel, typename... T>\nvoid launch_kernel(Kernel K, int num_threads, T... args) {{\n    int x_threads = 32;\n    int y_threads = num_threads / 32;\n    dim3 threads(x_threads, y_threads);\n    {kernel}<<<1, threads>>>(args...);\n}}\n");
    scan_files(&[("cuda_utils.cu", &src)])
        .iter()
        .filter(|f| f["rule"] == "HP102")
        .map(|f| f["status"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_launched_kernel_parameter_may_exchange_across_the_lanes_it_shapes() {
    assert!(!launcher("K").is_empty());
    assert!(
        !launcher("K").contains(&"PASS".to_string()),
        "{:?}",
        launcher("K")
    );
    assert!(
        launcher("scale").iter().all(|s| s == "PASS"),
        "{:?}",
        launcher("scale")
    );
}

#[test]
fn the_launcher_twin_has_its_finding() {
    assert_eq!(launcher("scale"), ["PASS"]);
}
