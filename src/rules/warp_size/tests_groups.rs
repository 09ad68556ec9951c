//! Unit tests of 32-thread groups: rows launching logical warps, shuffle groups.
use crate::model::syntax::test_support::{fires, fires_open};

/// ggml's mat-vec kernels: `dim3(32, ny)` rows launch a kernel whose only warp-level work is
/// width-32 shuffles (offsets 16…1): each row is one 32-lane logical warp on a wavefront too
/// (HP107 PASS naming it). Twin: the same rows with shuffles of width `warpSize` stay open.
#[test]
fn rows_of_32_threads_launching_width_32_logical_warps_keep_their_meaning() {
    let src = "__global__ void mv(float* dst) {\n  float tmp = dst[threadIdx.x];\n  for (int mask = 16; mask > 0; mask >>= 1)\n    tmp += __shfl_xor_sync(0xffffffff, tmp, mask, 32);\n  if (threadIdx.x == 0) dst[blockIdx.x] = tmp;\n}\nvoid host(float* d, int n) {\n  const dim3 block_dims(32, 2, 1);\n  mv<<<n, block_dims>>>(d);\n}\n";
    assert_eq!(fires(src, "HP107"), [8]);
    assert!(fires_open(src, "HP107").is_empty());
    let f = crate::model::syntax::test_support::hazard_findings(src);
    let hp107 = f.iter().find(|f| f.rule == "HP107").expect("HP107");
    assert!(
        hp107.message.contains("32-lane logical warps"),
        "{}",
        hp107.message
    );
    // Width `warpSize`: 64 on AMD, so one shuffle spans two rows.
    let wide = src.replace("mask, 32)", "mask, warpSize)");
    assert_eq!(fires_open(&wide, "HP107"), [8]);
}

/// q8_kernels' `Allreduce<32>`: the template argument of a struct that shuffles is the width
/// of its shuffle group, not a block size (no HP107). Twin: a traits struct without shuffles
/// given 32 threads still says so.
#[test]
fn a_shuffle_groups_width_is_no_block_size() {
    let src = "template<int THREADS> struct Allreduce {\n  template<typename T> static __device__ T run(T x) { constexpr int O = THREADS / 2; x += __shfl_xor_sync(0xffffffff, x, O); return Allreduce<O>::run(x); }\n};\ntemplate<> struct Allreduce<2> {\n  template<typename T> static __device__ T run(T x) { return x + __shfl_xor_sync(0xffffffff, x, 1); }\n};\ntemplate<int THREADS> struct Traits { static constexpr int n = THREADS; };\n__global__ void k(float* o) {\n  float s = Allreduce<32>::run(o[threadIdx.x]);\n  int n = Traits<32>::n;\n  if (threadIdx.x % 32 == 0) o[threadIdx.x / 32] = s + n;\n}\n";
    assert_eq!(fires(src, "HP107"), [10]);
}

/// LichtFeld-Studio's `kernel_utils.cuh`: `warp_idx = thread_rank() / 32u` beside shuffles,
/// never read: PASS naming the variable (the logical-warp model's twin is in
/// `logical/tests.rs`). Twins: the same variable read (a slot of shared memory), and
/// a name that only shares its prefix (`warp_idx2`) is no read.
#[test]
fn a_warp_index_nothing_reads_is_no_hazard() {
    let src = "__global__ void k(float* o, int n) {\n  __shared__ float part[32];\n  const unsigned warp_idx = threadIdx.x / 32u;\n  float v = o[threadIdx.x];\n  for (int d = 1; d < warpSize; d *= 2) v += __shfl_down_sync(0xffffffffffffffffull, v, d);\n  part[0] = v;\n}\n";
    assert_eq!(fires(src, "HP102"), [3]);
    assert!(fires_open(src, "HP102").is_empty());
    let read = src.replace("part[0]", "part[warp_idx]");
    assert_eq!(fires_open(&read, "HP102"), [3]);
    let prefix = src.replace(
        "part[0] = v;",
        "part[0] = v;\n  int warp_idx2 = 0; o[warp_idx2] = 0;",
    );
    assert!(fires_open(&prefix, "HP102").is_empty());
}

/// HierarchicalKV's lookup kernels: `groupID = threadIdx.x / GROUP_SIZE` and
/// `groupID * GROUP_SIZE` where the kernel partitions its block by
/// `tiled_partition<GROUP_SIZE>`: the arithmetic indexes the code's own tiles, which HIP
/// provides at that size on a 64-lane wavefront (PASS naming the tile). Twins: the same
/// kernel without the tile stays open; a kernel whose own `GROUP_SIZE` is 16 is not read as
/// another kernel's 32.
#[test]
fn arithmetic_on_the_codes_own_tile_size_is_no_warp_size() {
    let raw = "namespace cg = cooperative_groups;\n__global__ void lookup(int* out, int n) {\n  constexpr int GROUP_SIZE = 32;\n  int groupID = threadIdx.x / GROUP_SIZE;\n  int base = blockIdx.x * blockDim.x + groupID * GROUP_SIZE;\n  if (threadIdx.x % warpSize == 0) out[base] = n;\n}\n";
    assert_eq!(fires_open(raw, "HP102"), [4, 5]);
    let tile = raw.replace(
        "  int groupID",
        "  auto g = cg::tiled_partition<GROUP_SIZE>(cg::this_thread_block());\n  int groupID",
    );
    assert_eq!(fires(&tile, "HP102"), [5, 6]);
    assert!(fires_open(&tile, "HP102").is_empty());
    let f = crate::model::syntax::test_support::hazard_findings(&tile);
    let one = f.iter().find(|f| f.rule == "HP102").expect("HP102");
    assert!(
        one.message.contains("tiles of `GROUP_SIZE`"),
        "{}",
        one.message
    );
    // A parameter `thread_block_tile<TILE>` names the tile size too.
    let param = raw.replace(
        "int* out, int n",
        "cg::thread_block_tile<GROUP_SIZE> g, int* out, int n",
    );
    assert!(fires_open(&param, "HP102").is_empty());
    // Two kernels: the second's own 16 hides the first's 32.
    let sixteen = format!(
        "{raw}__global__ void lookup16(int* out) {{\n  constexpr int GROUP_SIZE = 16;\n  int groupID = threadIdx.x / GROUP_SIZE;\n  if (threadIdx.x % warpSize == 0) out[groupID] = 1;\n}}\n"
    );
    assert_eq!(fires_open(&sixteen, "HP102"), [4, 5]);
}
