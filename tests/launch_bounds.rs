//! A kernel whose `__launch_bounds__` caps its blocks at 32 threads is one row of lanes 0–31
//! however it is launched (CUDASW4's aligners: `__launch_bounds__(32, 16)`, launched through
//! `auto kernel = …; kernel<<<grid, block>>>`, the lane arithmetic in methods of the aligner
//! object the kernel builds). Its lane and warp arithmetic with 32 holds on a 64-lane
//! wavefront. Twins: the same methods of a second class reached from a kernel of 256-thread
//! blocks stay open (one method name, two classes: the caller names its class), and a cap of
//! 64 settles nothing.

mod common;
use common::scan_files;

const ALIGNERS: &str = "template <int N>\nstruct Wide {\n    __device__ void pass(float* out, float v) const {\n        const int lane = threadIdx.x % 32;\n        for (int k = 32; k < N; k += 4) {\n            v += __shfl_up_sync(0xffffffff, v, 1, 32);\n        }\n        out[lane] = v;\n    }\n    __device__ void run(float* out, float v) const { pass(out, v); }\n};\n\ntemplate <int N>\nstruct Narrow {\n    __device__ void pass(float* out, float v) const {\n        const int lane = threadIdx.x % 32;\n        for (int k = 32; k < N; k += 4) {\n            v += __shfl_up_sync(0xffffffff, v, 1, 32);\n        }\n        out[lane] = v;\n    }\n    __device__ void run(float* out, float v) const { pass(out, v); }\n};\n\ntemplate <int N>\n__launch_bounds__(32, 16)\n__global__ void narrow_kernel(float* out, float v) {\n    using Processor = Narrow<N>;\n    Processor p;\n    p.run(out, v);\n}\n\ntemplate <int N>\n__global__ void wide_kernel(float* out, float v) {\n    Wide<N> p;\n    p.run(out, v);\n}\n";

const MAIN: &str = "#include \"aligner.cuh\"\nvoid go(float* out, int n) {\n    auto k = narrow_kernel<4>;\n    dim3 block = 32;\n    k<<<n, block>>>(out, 1.0f);\n    wide_kernel<4><<<n, 256>>>(out, 1.0f);\n}\n";

/// HP102 findings of the aligners' header: (line, status).
fn lane_ids(aligners: &str) -> Vec<(u64, String)> {
    scan_files(&[("aligner.cuh", aligners), ("main.cu", MAIN)])
        .iter()
        .filter(|f| f["path"] == "aligner.cuh" && f["rule"] == "HP102")
        .map(|f| {
            (
                f["line"].as_u64().unwrap(),
                f["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn a_kernel_capped_at_32_threads_keeps_its_lane_arithmetic() {
    assert_eq!(
        lane_ids(ALIGNERS),
        vec![(4, "REMEDIATION".to_string()), (16, "PASS".to_string())]
    );
}

#[test]
fn a_cap_of_64_threads_settles_nothing() {
    let wide = ALIGNERS.replace("__launch_bounds__(32, 16)", "__launch_bounds__(64, 16)");
    assert_eq!(
        lane_ids(&wide),
        vec![
            (4, "REMEDIATION".to_string()),
            (16, "REMEDIATION".to_string())
        ]
    );
}
