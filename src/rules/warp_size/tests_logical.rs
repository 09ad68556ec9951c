//! Unit tests of the warp-size family on 32-lane logical warps: how lane ids, slots, ballots,
//! masks and warp constants settle when `port` rewrites every warp call of a function for them,
//! and CUB's warp primitives at their default width.
use crate::model::syntax::test_support::fires;

#[test]
fn logical_warp_reductions_and_ballots_settle_as_the_port_rewrites_them() {
    use crate::model::syntax::test_support::fires_open;
    // 32-lane logical warps (`& 31`, offsets 16…1): the reduction and the 32-bit ballot are
    // what `port` rewrites safely (width 32, the lane's own half): found, but PASS.
    let logical = "__global__ void k(const float* x, float* out) {\n  int lane = threadIdx.x & 31;\n  float v = x[threadIdx.x];\n  for (int i = 16; i > 0; i >>= 1) v += __shfl_down_sync(0xffffffff, v, i);\n  unsigned int b = __ballot_sync(0xffffffff, v > 0);\n  if (lane == 0) out[0] = v + __popc(b);\n}\n";
    assert_eq!(fires(logical, "HP104"), [4]);
    assert!(fires_open(logical, "HP104").is_empty());
    assert_eq!(fires(logical, "HP106"), [5]);
    assert!(fires_open(logical, "HP106").is_empty());
    // The negative twin: a lane id from `warpSize` beside the same loop mixes two warp sizes;
    // nothing is settled and the finding spells out the choice.
    let mixed = logical.replace("threadIdx.x & 31", "threadIdx.x % warpSize");
    assert_eq!(fires_open(&mixed, "HP104"), [4]);
    assert_eq!(fires_open(&mixed, "HP106"), [5]);
    let f = crate::model::syntax::test_support::hazard_findings(&mixed);
    let hp104 = f.iter().find(|f| f.rule == "HP104").expect("HP104");
    assert!(hp104.message.contains("mixes 32-lane logical warps"));
    assert!(hp104
        .suggestion
        .as_deref()
        .is_some_and(|s| s.contains("--unsafe-fixes")));
}

/// astro-accelerate's `Reduce_WARP`: offsets 16…1 through the project's `aa_shfl_down`,
/// whose HIP arm is the width-64 `__shfl_down`; only lane 0 of each 32-lane half holds the
/// result, and nothing crosses the halves into it: HP104 PASS naming the wrapper. Twins: an
/// up-shuffle wrapper (a scan: lane 32 reads lane 31), a kernel of the same file that counts
/// lanes by `warpSize` (two warp sizes), and a wrapper whose arms exchange in different
/// directions (no wrapper).
#[test]
fn a_reduction_through_a_shuffle_wrapper_keeps_lane_0_of_each_half() {
    use crate::model::syntax::test_support::fires_open;
    let wrapper = "template<typename T, typename U, typename V>\n__device__ __inline__ T aa_shfl_down(const U &mask, const T &XX, const V &YY) {\n#if(CUDART_VERSION >= 9000)\n  return(__shfl_down_sync(mask, XX, YY));\n#else\n  return(__shfl_down(XX, YY));\n#endif\n}\n";
    let reduce = "__device__ __inline__ void Reduce_WARP(float *sum) {\n  for (int q = 16; q > 0; q = q >> 1) {\n    *sum += aa_shfl_down(0xFFFFFFFF, (*sum), q);\n  }\n}\n__global__ void k(float *p) {\n  float s = p[threadIdx.x];\n  Reduce_WARP(&s);\n  if (threadIdx.x == 0) p[0] = s;\n}\n";
    let src = format!("{wrapper}{reduce}");
    assert_eq!(fires(&src, "HP104"), [10], "{:?}", fires(&src, "HP104"));
    assert!(fires_open(&src, "HP104").is_empty());
    let f = crate::model::syntax::test_support::hazard_findings(&src);
    let hp104 = f.iter().find(|f| f.rule == "HP104").expect("HP104");
    assert!(
        hp104.message.contains("shuffle wrapper `aa_shfl_down`"),
        "{}",
        hp104.message
    );
    let up = src.replace("__shfl_down", "__shfl_up");
    assert_eq!(fires_open(&up, "HP104"), [10]);
    let wide = src.replace("if (threadIdx.x == 0)", "if (threadIdx.x % warpSize == 0)");
    assert_eq!(fires_open(&wide, "HP104"), [10]);
    let mixed = src.replacen(
        "return(__shfl_down(XX, YY));",
        "return(__shfl_xor(XX, YY));",
        1,
    );
    assert_eq!(fires_open(&mixed, "HP104"), [10]);
    // MSD_BLN_grid_calculate_partials: 32-lane lane and warp ids beside the wrapped reduction
    // (offset `HALF_WARP`): HP102 PASS. Twin: a broadcast from the leader through an
    // index-shuffle wrapper (lanes 32–63 would read the first half's leader) stays open.
    let ids = format!("{wrapper}#define HALF_WARP 16\n__global__ void part(const float* x, float* out) {{\n  int local_id = threadIdx.x & 31;\n  int warp_id = threadIdx.x >> 5;\n  float M = x[warp_id * 32 + local_id];\n  for (int q = HALF_WARP; q > 0; q = q >> 1) {{\n    M = M + aa_shfl_down(0xFFFFFFFF, M, q);\n  }}\n  if (local_id == 0) out[warp_id] = M;\n}}\n");
    assert_eq!(
        fires(&ids, "HP102"),
        [11, 12, 13],
        "{:?}",
        fires(&ids, "HP102")
    );
    assert!(
        fires_open(&ids, "HP102").is_empty(),
        "{:?}",
        fires_open(&ids, "HP102")
    );
    // A loop that grows from 16 reaches offset 32, across the halves.
    let grows = ids.replace("q > 0; q = q >> 1", "q < 64; q = q * 2");
    assert!(!fires_open(&grows, "HP102").is_empty());
    let broadcast = ids
        .replace(
            "M = M + aa_shfl_down(0xFFFFFFFF, M, q);",
            "M = M + aa_shfl(0xFFFFFFFF, M, 0);",
        )
        .replace("aa_shfl_down", "aa_shfl")
        .replace("__shfl_down", "__shfl");
    assert!(!fires_open(&broadcast, "HP102").is_empty());
    let lexed = crate::lex::lex(wrapper.as_bytes());
    assert_eq!(
        crate::model::project::shuffle_functions(wrapper.as_bytes(), &lexed),
        [("aa_shfl_down".to_string(), "__shfl_down".to_string(), 2)]
    );
    // FlexFlow's `WARP_SHFL_XOR(mask, var, laneMask, width)` passes a width: no wrapper.
    let widths = "template <typename T>\n__device__ T WARP_SHFL_XOR(unsigned mask, T var, int laneMask, int width = warpSize) {\n#ifndef __HIP_PLATFORM_AMD__\n  return __shfl_xor_sync(mask, var, laneMask, width);\n#else\n  return __shfl_xor(var, laneMask, width);\n#endif\n}\n";
    let lexed = crate::lex::lex(widths.as_bytes());
    assert!(crate::model::project::shuffle_functions(widths.as_bytes(), &lexed).is_empty());
}

#[test]
fn wmma_kernels_launched_with_32_thread_rows() {
    let src = "__global__ void gemm(half* a, float* c) {\n  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;\n  wmma::fill_fragment(acc, 0.0f);\n  wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);\n}\nvoid host(half* a, float* c, int n) {\n  gemm<<<n, dim3{32u, 4}>>>(a, c);\n  gemm<<<n, dim3(32, 2)>>>(a, c);\n}\n";
    assert_eq!(fires(src, "HP107"), [7, 8]);
    // The twin: the same shapes launching a kernel without warp-level work (an image tile).
    let tile = "__global__ void blur(float* c) {\n  c[threadIdx.y * 32 + threadIdx.x] *= 0.5f;\n}\nvoid host(float* c, int n) {\n  blur<<<n, dim3{32u, 4}>>>(c);\n  blur<<<n, dim3(32, 2)>>>(c);\n}\n";
    assert!(fires(tile, "HP107").is_empty());
}

#[test]
fn logical_warp_ids_and_slots_settle_when_port_rewrites_every_warp_call() {
    use crate::model::syntax::test_support::{fires_open, hazard_findings};
    // Lane and warp ids of 32-lane logical warps and one slot per logical warp: every
    // warp-level call of the function gets a safe rewrite, so the ids keep CUDA's meaning.
    let logical = "__global__ void k(const float* x, float* out) {\n  __shared__ float part[32];\n  int lane = threadIdx.x & 31;\n  int warp = threadIdx.x / 32;\n  float v = x[threadIdx.x];\n  for (int i = 16; i > 0; i >>= 1) v += __shfl_down_sync(0xffffffff, v, i);\n  if (__all_sync(0xffffffff, v > 0)) v += 1;\n  if (lane == 0) part[warp] = v;\n  out[0] = part[0];\n}\n";
    assert_eq!(fires(logical, "HP102"), [3, 4]);
    assert_eq!(fires(logical, "HP105"), [2]);
    assert!(fires_open(logical, "HP102").is_empty());
    assert!(fires_open(logical, "HP105").is_empty());
    let f = hazard_findings(logical);
    let hp102 = f.iter().find(|f| f.rule == "HP102").expect("HP102");
    assert!(hp102.message.contains("width 32 on its shuffles"));
    assert!(hp102
        .message
        .contains("votes over the lane's own 32-lane half"));
    // Twin 1: a ballot kept in 64 bits has no rewrite; the ids stay open.
    let wide = logical.replace(
        "  if (lane == 0)",
        "  unsigned long long b = __ballot_sync(0xffffffff, v > 0);\n  if (lane == 0 && b)",
    );
    assert_eq!(fires_open(&wide, "HP102"), [3, 4]);
    assert_eq!(fires_open(&wide, "HP105"), [2]);
    // Twin 2: a vote with a partial mask has no rewrite either.
    let partial = logical.replace("__all_sync(0xffffffff,", "__all_sync(0xffffu,");
    assert_eq!(fires_open(&partial, "HP102"), [3, 4]);
    // A shuffle whose 32-bit mask names a group of lanes: `port` gives it the lane's own half
    // (HP015), so the ids settle; the same group in a 64-bit mask names lanes of the first half
    // for both halves, which no rewrite mends: the ids stay.
    let group = logical.replace(
        "__shfl_down_sync(0xffffffff, v, i)",
        "__shfl_down_sync(15u << (lane & ~3), v, i)",
    );
    assert!(fires_open(&group, "HP102").is_empty());
    let group64 = logical.replace(
        "__shfl_down_sync(0xffffffff, v, i)",
        "__shfl_down_sync(15ull << (lane & ~3), v, i)",
    );
    assert_eq!(fires_open(&group64, "HP102"), [3, 4]);
    // Twin 3: lanes also from `warpSize`: unsafe, the finding spells out the choice.
    let mixed = logical.replace(
        "int warp = threadIdx.x / 32;",
        "int warp = threadIdx.x / warpSize;",
    );
    assert_eq!(fires_open(&mixed, "HP102"), [3]);
    let f = hazard_findings(&mixed);
    let hp102 = f.iter().find(|f| f.rule == "HP102").expect("HP102");
    assert!(hp102.message.contains("mixes 32-lane logical warps"));
    assert!(hp102
        .suggestion
        .as_deref()
        .is_some_and(|s| s.contains("`hipport port --unsafe-fixes` applies")
            && s.contains("width 32 on its shuffles")));
    // No warp-level call at all: the ids meet nothing at the wavefront's width (PASS).
    let none = "__global__ void k(float* p) {\n  int lane = threadIdx.x & 31;\n  p[lane] = 0;\n}\n";
    assert_eq!(fires(none, "HP102"), [2]);
    assert!(fires_open(none, "HP102").is_empty());
}

#[test]
fn a_ballot_assigned_into_a_32_bit_variable_is_hp106() {
    // No lane arithmetic: the function's lanes are the wavefront's, so the cut stays open.
    let src = "__global__ void k(const int* p, int* out) {\n  unsigned flags = 0xffffffff;\n  for (int k = 0; k < 8; ++k) {\n    const bool b = p[threadIdx.x] >> k & 1;\n    flags &= (b ? 0 : 0xffffffff) ^ __ballot_sync(0xffffffff, b);\n  }\n  out[threadIdx.x] = __popc(flags);\n}\n";
    assert_eq!(fires(src, "HP106"), [5]);
    // The 64-bit twin keeps every lane.
    let wide = src.replace("unsigned flags", "unsigned long long flags");
    assert!(fires(&wide, "HP106").is_empty());
}

#[test]
fn a_full_mask_held_in_a_local_variable_settles_like_a_constant_one() {
    use crate::model::syntax::test_support::{fires_open, hazard_findings};
    // A block reduction over 32-lane logical warps whose full mask is a local `const`: the ids
    // are PASS. The same block with the mask in a plain variable (never assigned again) is the
    // same kernel shape and gets the same verdict.
    let constant = "__device__ void r(const float* in, float* out) {\n  constexpr int kWarps = 256 / 32;\n  __shared__ float sums[kWarps];\n  const unsigned int mask = 0xFFFFFFFFu;\n  int lane = threadIdx.x & 31;\n  int warp = threadIdx.x >> 5;\n  float v = in[threadIdx.x];\n  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(mask, v, o);\n  if (lane == 0) sums[warp] = v;\n  out[0] = sums[0];\n}\n";
    assert!(fires_open(constant, "HP102").is_empty());
    let plain = constant.replace("const unsigned int mask", "unsigned int mask");
    assert_eq!(fires(&plain, "HP102"), [5, 6]);
    assert!(fires_open(&plain, "HP102").is_empty());
    // Its 32-bit mask is widened to the lane's own half at the call (HP015), so the HP103
    // where it is set is settled too.
    assert!(fires_open(&plain, "HP103").is_empty());
    let f = hazard_findings(&plain);
    let hp102 = f.iter().find(|f| f.rule == "HP102").expect("HP102");
    assert!(hp102.message.contains("32-lane logical warps"));
    // `~0u` in the variable is the same mask.
    let tilde = plain.replace("0xFFFFFFFFu", "~0u");
    assert!(fires_open(&tilde, "HP102").is_empty());
    // Twin 1: the variable is assigned again (a lane group): not a full mask; in 64 bits no
    // rewrite places it in the lane's half, so the ids stay (in 32 bits `port` widens it to
    // the lane's own half, HP015, and they settle).
    let narrowed = plain.replace(
        "  float v = in",
        "  if (threadIdx.x < 16) mask >>= 16;\n  float v = in",
    );
    assert!(fires_open(&narrowed, "HP102").is_empty());
    let narrowed64 = narrowed.replace("unsigned int mask", "unsigned long long mask");
    assert_eq!(fires_open(&narrowed64, "HP102"), [5, 6]);
    // Twin 2: a reduction whose shuffles really span 64 lanes (offsets from `warpSize`): the
    // 32-lane ids keep their finding, whatever the mask.
    let wide = plain.replace("int o = 16;", "int o = warpSize / 2;");
    assert_eq!(fires_open(&wide, "HP102"), [5, 6]);
    // Twin 3: a parameter of the same name in another function is not the local mask (a
    // 64-bit one: a 32-bit parameter would be widened to the lane's own half, HP015).
    let param = format!(
        "__device__ float s(float v, unsigned long long mask) {{\n  int lane = threadIdx.x & 31;\n  return __shfl_sync(mask, v, 0) + lane;\n}}\n{plain}"
    );
    assert_eq!(fires_open(&param, "HP102"), [2]);
}

#[test]
fn a_ballot_compared_with_the_32_bit_all_ones_is_rewritten_to_the_lanes_half() {
    use crate::model::syntax::test_support::fires_open;
    // `__ballot_sync(~0u, p) == ~0u`: a 32-bit test of every lane, rewritten to the lane's own
    // half, so the logical warp's ids settle.
    let src = "__global__ void k(const float* x, float* out) {\n  int lane = threadIdx.x & 31;\n  int warp = threadIdx.x >> 5;\n  for (int i = 0; i < 8; ++i) {\n    if (__ballot_sync(~0u, x[i * 32 + lane] > 0) == ~0u) break;\n    out[warp] += x[i];\n  }\n}\n";
    assert!(fires_open(src, "HP102").is_empty());
    // Twin: `~0` is the int -1, which widens to 64 ones: the test spans the wavefront, no
    // rewrite, the ids stay open.
    let int = src.replace("== ~0u)", "== ~0)");
    assert_eq!(fires_open(&int, "HP102"), [2, 3]);
}

#[test]
fn a_shuffle_by_16_after_long_arguments_settles_with_its_call() {
    use crate::model::syntax::test_support::fires_open;
    // The offset 16 comes after a long value argument: the shuffle is still found, and in a
    // function of 32-lane logical warps its width-32 rewrite handles the step.
    let src = "__global__ void k(float (*acc)[4], float* out) {\n  int lane = threadIdx.x & 31;\n  for (int k = 0; k < 4; ++k) out[k] = __shfl_xor_sync(~0u, acc[lane][k], 16);\n}\n";
    assert_eq!(fires(src, "HP104"), [3]);
    assert!(fires_open(src, "HP104").is_empty());
    // Twin: lanes from `warpSize` as well: a person chooses, the step stays open.
    let mixed = src.replace(
        "  for (int k",
        "  int w = threadIdx.x / warpSize;\n  for (int k",
    );
    assert_eq!(fires_open(&mixed, "HP104"), [4]);
}

#[test]
fn a_warp_size_constant_used_only_by_logical_warps_settles() {
    use crate::model::syntax::test_support::{fires_open, hazard_findings};
    // `kWarpSize = 32` whose every use is a block sum over 32-lane logical warps whose
    // shuffles get width 32: the constant is the logical warp's size, PASS naming it.
    let src = "constexpr int kWarpSize = 32;\n__device__ float block_sum(float v) {\n  __shared__ float sums[8];\n  for (int o = kWarpSize / 2; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n  int lane = threadIdx.x & (kWarpSize - 1);\n  int warp = threadIdx.x / kWarpSize;\n  if (lane == 0) sums[warp] = v;\n  return sums[0];\n}\n";
    assert_eq!(fires(src, "HP101"), [1]);
    assert!(fires_open(src, "HP101").is_empty());
    let f = hazard_findings(src);
    let hp101 = f.iter().find(|f| f.rule == "HP101").expect("HP101");
    assert!(hp101.message.contains("32-lane logical warps"));
    // Twin 1: a use in a function whose lanes come from the wavefront: the constant stays.
    let wide = format!("{src}__global__ void g(float* p) {{\n  int lane = threadIdx.x % warpSize;\n  p[lane] = __shfl_down(p[lane], kWarpSize / 2);\n}}\n");
    assert_eq!(fires_open(&wide, "HP101"), [1]);
    // Twin 2: a use through a macro whose own use exchanges lanes of the wavefront: the
    // constant stays; where the macro only sizes a quiet function's work, it settles.
    let macro_use = format!("{src}#define WARPS (256 / kWarpSize)\n__global__ void g(float* p) {{\n  p[threadIdx.x % warpSize] = __shfl_down(p[0], WARPS);\n}}\n");
    assert_eq!(fires_open(&macro_use, "HP101"), [1]);
    // gpu4pyscf's `ft_ao.cu`: `THREADS (WARP_SIZE * WARPS)` only sizes work.
    let sizes = "#define WARP_SIZE 32\n#define THREADS (WARP_SIZE * 8)\n__global__ void g(float* p) {\n  p[threadIdx.x % THREADS] = 0;\n}\n";
    assert!(fires_open(sizes, "HP101").is_empty());
    let exchanged = sizes.replace("= 0;", "= __shfl_down(p[0], THREADS / 16);");
    assert_eq!(fires_open(&exchanged, "HP101"), [1]);
    // Twin 3: no use at all in the unit: nothing to change (gpu4pyscf's `contract_ft_ao.cu`);
    // with an `#include` after it, the header may use it: it stays.
    let unused = "constexpr int kWarpSize = 32;\n__device__ float f(float v) {\n  return __shfl_xor_sync(0xffffffff, v, 16);\n}\n";
    assert!(fires_open(unused, "HP101").is_empty());
    let then_header = format!("{unused}#include \"reduce.cuh\"\n");
    assert_eq!(fires_open(&then_header, "HP101"), [1]);
}

/// Functions that only return a warp constant are that constant (xgboost's
/// `constexpr std::int32_t WarpThreads() { return 32; }` and its `WarpFullMask()`).
#[test]
fn functions_returning_a_warp_constant_are_constants() {
    let src = "namespace dh {\nconstexpr std::int32_t WarpThreads() { return 32; }\n\nconstexpr std::uint32_t WarpFullMask() { return 0xffffffffu; }\n__device__ inline int LaneLog() noexcept { return 5; }\n}\n";
    // The log2 of a 32-lane warp under a lane name is one too.
    assert_eq!(fires(src, "HP101"), [2, 5]);
    assert_eq!(fires(src, "HP103"), [4]);
    // Twins: a call is not a definition, other names and values, a function with parameters
    // or more than a return, and a warp count are not warp constants.
    let twin = "int a() { return WarpThreads(); }\nconstexpr int BlockThreads() { return 32; }\nconstexpr int WarpSizeOf(int x) { return 32; }\nconstexpr int WarpSize2() { int v = 32; return v; }\nconstexpr int WarpSize3() { return 64; }\nconstexpr unsigned TagMask() { return 0xffffffffu; }\n";
    assert!(
        fires(twin, "HP101").is_empty(),
        "{:?}",
        fires(twin, "HP101")
    );
    assert!(
        fires(twin, "HP103").is_empty(),
        "{:?}",
        fires(twin, "HP103")
    );
}

/// CUB's warp primitives at their default width in a file of 32-lane warps (HP110, UNKNOWN);
/// twins: an explicit width, a file with no 32-lane assumption, an unqualified project type.
#[test]
fn cub_warp_primitives_at_default_width_in_32_lane_files() {
    // The kernel using them shows no lane arithmetic of its own (the file's other kernel does):
    // whether its warps are 32 lanes is a person's call.
    let src = "#define WARP_SIZE 32\n__global__ void k(float* p) {\n  using WR = cub::WarpReduce<float>;\n  __shared__ typename WR::TempStorage t[4];\n  p[0] = WR(t[0]).Sum(p[threadIdx.x]);\n  typedef cub::WarpScan<int, 32> WS;\n  typedef hipcub::WarpScan<cub::KeyValuePair<int, float>> WKV;\n}\n__global__ void g(float* p, unsigned long long m) {\n  int w = threadIdx.x / WARP_SIZE;\n  p[w] = __shfl_sync(m, p[0], 0);\n}\n";
    assert_eq!(fires(src, "HP110"), [3, 7]);
    // Used only in a function of 32-lane logical warps: `port` gives it width 32 (HP109), so
    // this rule is quiet.
    let logical = src.replace(
        "p[0] = WR(t[0])",
        "int w = threadIdx.x / WARP_SIZE;\n  p[0] = WR(t[w])",
    );
    assert!(
        fires(&logical, "HP110").is_empty(),
        "{:?}",
        fires(&logical, "HP110")
    );
    let wave = "__global__ void k(float* p) {\n  using WR = cub::WarpReduce<float>;\n  __shared__ typename WR::TempStorage t[16];\n  int w = threadIdx.x / warpSize;\n  p[0] = WR(t[w]).Sum(p[threadIdx.x]);\n}\n";
    assert!(
        fires(wave, "HP110").is_empty(),
        "{:?}",
        fires(wave, "HP110")
    );
    let own = "#define WARP_SIZE 32\nusing WR = mylib::WarpReduce<float>;\nWarpReduce<float> r;\n";
    assert!(fires(own, "HP110").is_empty(), "{:?}", fires(own, "HP110"));
}

/// llm.c: a launcher with no warp-level call of its own counts the logical warps of the kernel
/// it launches (`block_size / 32` rows of `dim3(32, rows)`, or the 32-thread tiles of a 1-D
/// block): PASS naming the kernel. Twins: a kernel that exchanges over the whole wavefront, and
/// a launcher that also launches such a kernel, stay open.
#[test]
fn a_launchers_warp_count_of_a_logical_warp_kernel_settles() {
    use crate::model::syntax::test_support::{fires_open, hazard_findings};
    let rows = "__global__ void k(const float* x, float* out) {\n  float v = x[threadIdx.y * 32 + threadIdx.x];\n  for (int i = 16; i > 0; i >>= 1) v += __shfl_down_sync(0xffffffff, v, i);\n  if (threadIdx.x == 0) out[threadIdx.y] = v;\n}\nvoid launch(const float* x, float* out, int n, int block_size) {\n  int block_y = block_size / 32;\n  k<<<n / block_y, dim3(32, block_y)>>>(x, out);\n}\n";
    assert!(
        fires_open(rows, "HP102").is_empty(),
        "{:?}",
        fires_open(rows, "HP102")
    );
    let f = hazard_findings(rows);
    let hp102 = f
        .iter()
        .find(|f| f.rule == "HP102" && f.line == 7)
        .expect("HP102");
    assert!(
        hp102.message.contains("sizes the launch of `k`"),
        "{}",
        hp102.message
    );
    let tiles = "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n__global__ void t(const float* x, float* out) {\n  cg::thread_block_tile<32> w = cg::tiled_partition<32>(cg::this_thread_block());\n  float v = cg::reduce(w, x[threadIdx.x], cg::plus<float>());\n  if (w.thread_rank() == 0) out[blockIdx.x * w.meta_group_size() + w.meta_group_rank()] = v;\n}\nvoid launch(const float* x, float* out, int n, int block_size) {\n  const int rows_per_block = block_size / 32;\n  t<<<n / rows_per_block, block_size>>>(x, out);\n}\n";
    assert!(
        fires_open(tiles, "HP102").is_empty(),
        "{:?}",
        fires_open(tiles, "HP102")
    );
    // Twin: the kernel keeps a 64-bit ballot, which has no rewrite: its warps are not kept.
    let wide = rows.replace(
        "  if (threadIdx.x == 0)",
        "  unsigned long long b = __ballot_sync(0xffffffff, v > 0);\n  if (threadIdx.x == 0 && b)",
    );
    assert_eq!(fires_open(&wide, "HP102"), [8]);
    // Twin: the launcher also launches a kernel of unknown lanes (defined elsewhere).
    let other = rows.replace(
        "  k<<<n / block_y, dim3(32, block_y)>>>(x, out);\n",
        "  k<<<n / block_y, dim3(32, block_y)>>>(x, out);\n  elsewhere<<<n, block_size>>>(x, out);\n",
    );
    assert_eq!(fires_open(&other, "HP102"), [7]);
}

/// RAFT's `constexpr int warp_size() { return 32; }`: the constant is the function's return
/// value, so its uses are the calls (`threadIdx.x % warp_size()`), not its own body: HP101
/// stays open where the file calls it beside a lane exchange. Twin: a unit that never calls
/// the function has nothing to change (PASS).
#[test]
fn a_function_returning_the_warp_size_is_used_where_it_is_called() {
    use crate::model::syntax::test_support::fires_open;
    let def = "__host__ __device__ constexpr inline int warp_size() { return 32; }\n";
    let called = format!("{def}__global__ void k(float* x) {{\n  int lane = threadIdx.x % warp_size();\n  float v = x[threadIdx.x];\n  v += __shfl_xor_sync(0xffffffffu, v, 1);\n  if (lane == 0) x[threadIdx.x / warp_size()] = v;\n}}\n");
    assert_eq!(fires_open(&called, "HP101"), [1]);
    let unused = format!("{def}__global__ void k(float* x) {{\n  x[threadIdx.x] = 0.f;\n}}\n");
    assert_eq!(fires(&unused, "HP101"), [1]);
    assert!(fires_open(&unused, "HP101").is_empty());
}
