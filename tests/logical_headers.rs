//! Logical warps across files, through the binary (llm.c's `dev/cuda`): a kernel whose only
//! warp-level work is a call of an included helper of 32-lane logical warps (`warpReduceSum` of
//! `common.h`, offsets 16…1, which `port` gives width 32), launched with 32-thread rows, keeps
//! CUDA's meaning: its own warp-size constant and its launcher's `block_size / 32` are PASS. The
//! twin: the same kernel with a helper whose shuffles span 64 lanes stays open.

mod common;
use common::scan_files;

const KERNEL: &str = "#include \"common.h\"\n__global__ void rows(const float* x, float* out, int C) {\n    constexpr const int WarpSize = 32;\n    float m = 0.0f;\n    for (int c = threadIdx.x; c < C; c += WarpSize) { m += x[threadIdx.y * C + c]; }\n    m = warpReduceSum(m);\n    if (threadIdx.x == 0) { out[threadIdx.y] = m; }\n}\nvoid launch(const float* x, float* out, int N, int C, int block_size) {\n    int block_y = block_size / 32;\n    rows<<<N / block_y, dim3(32, block_y)>>>(x, out, C);\n}\n";

const HELPER: &str = "__device__ float warpReduceSum(float val) {\n    for (int offset = 16; offset > 0; offset /= 2) {\n        val += __shfl_xor_sync(0xFFFFFFFF, val, offset);\n    }\n    return val;\n}\n";

/// The open warp-size findings of `k.cu` (rule, line).
fn open_in_kernel(helper: &str) -> Vec<(String, u64)> {
    scan_files(&[("common.h", helper), ("k.cu", KERNEL)])
        .iter()
        .filter(|f| f["path"] == "k.cu" && f["status"] != "PASS")
        .filter(|f| f["rule"].as_str().is_some_and(|r| r.starts_with("HP10")))
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_string(),
                f["line"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn a_kernel_reducing_through_an_included_logical_warp_helper_keeps_its_32s() {
    assert_eq!(open_in_kernel(HELPER), Vec::<(String, u64)>::new());
    let wide = HELPER.replace("offset = 16", "offset = 32");
    let open = open_in_kernel(&wide);
    assert!(
        open.iter().any(|(r, l)| r == "HP102" && *l == 10),
        "{open:?}"
    );
}
