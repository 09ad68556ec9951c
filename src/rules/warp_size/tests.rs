//! Unit tests of the warp-size family's constants, lane arithmetic and file-level passes (the
//! shuffle, block-shape, value-flow and scan-seed tests live beside their modules).
use crate::model::syntax::test_support::{fires, fires_open};

#[test]
fn constants_and_masks() {
    let src = "#define WARP_SIZE 32\n#define TILE 32\n#define FULL_MASK 0xffffffff\n#define TAG_MASK 0xFFFFFFFFU\nconstexpr int kWarpSize = 32;\n__device__ float f(float v) { return __shfl_xor_sync(FULL_MASK, v, 1); }\n";
    assert_eq!(fires(src, "HP101"), [1, 5]);
    assert_eq!(fires(src, "HP103"), [3, 6]);
    // A full mask from another header, by its name; a local mask of another value is not.
    let other = "__device__ float f(float v) {\n  v += __shfl_xor_sync(WARP_FULL_MASK, v, 1);\n  {\n    unsigned int mask = 0xffffffff;\n    v += __shfl_up_sync(mask, v, 1);\n  }\n  int mask = (1 << (blockDim.x / warpSize)) - 1;\n  return __shfl_up_sync(mask, v, 1);\n}\n";
    assert_eq!(fires(other, "HP103"), [2, 4]);
}

/// Bonsai's `#define FULL_MASK 0xffffffff` passed to `__ballot_sync`/`__shfl_sync`: where HIP has
/// the `*_sync` forms (ROCm 6.2+) their `static_assert` stops the build, so the finding is BUILD
/// there. Twins: the same file at 6.1 (no `*_sync` forms: CORRECTNESS), a full mask by name that
/// no `*_sync` call takes (compared with a ballot: CORRECTNESS).
#[test]
fn a_32_bit_mask_passed_to_sync_forms_stops_the_build() {
    use crate::gate::Phase;
    use crate::model::syntax::test_support::hazard_findings_for;
    let src = "#define FULL_MASK 0xffffffff\n#define ALL_MASK 0xffffffff\n__device__ int f(int v) {\n  unsigned b = __ballot_sync(FULL_MASK, v > 0);\n  return b == ALL_MASK;\n}\n";
    let phases = |rocm: &str| -> Vec<(u32, Phase)> {
        hazard_findings_for("t.cu", src, rocm.parse().unwrap())
            .into_iter()
            .filter(|f| f.rule == "HP103")
            .map(|f| (f.line, f.phase))
            .collect()
    };
    assert_eq!(
        phases("7.0.0"),
        [
            (1, Phase::Build),
            (2, Phase::Correctness),
            (4, Phase::Build)
        ]
    );
    let before = phases("6.1.0");
    assert!(
        !before.is_empty() && before.iter().all(|(_, p)| *p == Phase::Correctness),
        "{before:?}"
    );
}

#[test]
fn lane_and_warp_arithmetic_follows_thread_indices() {
    let src = "__global__ void k(float* p, int n) {\n  int tid = threadIdx.x;\n  int lane = tid % 32;\n  int w = threadIdx.x >> 5;\n  int nw = blockDim.x / 32;\n  int off = 4 * threadIdx.x;\n  float a = p[off % 32];\n  size_t bytes = n / 32;\n  unsigned m = (1u << lane) - 1;\n  unsigned m2 = (1ull << lane) - 1;\n  p[w * 32 + lane] = a + m + m2 + nw + bytes;\n}\n";
    assert_eq!(fires(src, "HP102"), [3, 4, 5, 9, 11]);
}

/// b40c's raking grids: counts per lane and their log2 (`PARTIALS_PER_LANE = 1 <<
/// LOG_PARTIALS_PER_LANE`) are sizes, not lane ids; twin: a lane id in the same shift is one.
#[test]
fn counts_per_lane_and_their_logs_are_no_lane_ids() {
    let src = "template <int LOG_PARTIALS_PER_LANE>\n__device__ unsigned f(int lane_per_lane) {\n  enum { PARTIALS_PER_LANE = 1 << LOG_PARTIALS_PER_LANE };\n  unsigned a = 1u << lane_per_lane;\n  int lane = threadIdx.x % 32;\n  return a + PARTIALS_PER_LANE + (1u << lane);\n}\n";
    assert_eq!(fires(src, "HP102"), [5, 6]);
}

#[test]
fn shuffle_loops_arrays_ballots_tiles_warpsize() {
    let src = "__global__ void k(float* p) {\n  __shared__ float s[32];\n  __shared__ float tile[32][33];\n  int warp = threadIdx.x / warpSize;\n  float v = p[threadIdx.x];\n  for (int o = 16; o > 0; o >>= 1) v += __shfl_down(v, o);\n  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down(v, o);\n  for (int j = 16; j > 0; j--) v += tile[j][0];\n  s[warp] = v;\n  unsigned b = __ballot(v > 0);\n  unsigned long long b64 = __ballot(v > 0);\n  p[0] = __popc(b) + __popcll(b64);\n  auto t = cg::tiled_partition<32>(blk);\n  auto h = cg::tiled_partition<16>(blk);\n  __shared__ float q[warpSize];\n}\n";
    assert_eq!(fires(src, "HP104"), [6]);
    // `s[warp]` with `warp = threadIdx.x / warpSize`: one slot per wavefront, at most 16.
    assert!(fires(src, "HP105").is_empty());
    let by_32 = src.replace("threadIdx.x / warpSize", "threadIdx.x / 32");
    assert_eq!(fires(&by_32, "HP105"), [2]);
    // `__popc(b)` counts the narrow `b` reported at line 10: one fact, one finding.
    assert_eq!(fires(src, "HP106"), [10]);
    let direct = src.replace("__popc(b) +", "__popc(__ballot(v > 1)) +");
    assert_eq!(fires(&direct, "HP106"), [10, 12]);
    assert_eq!(fires(src, "HP107"), [13]);
    assert_eq!(fires(src, "HP108"), [15]);
}

/// QUDA's HIP target: `constexpr int warp_size() { return warpSize; }` is a compile-time
/// `warpSize` for every caller; twin: the same function without `constexpr` (a run-time value)
/// and a `constexpr` function returning a literal.
#[test]
fn warpsize_returned_from_a_constexpr_function() {
    let src = "#include <hip/hip_runtime.h>\nnamespace device {\n  constexpr int warp_size() { return warpSize; }\n  __host__ __device__ inline int lanes() { return warpSize; }\n  constexpr int width() { return 64; }\n  constexpr int half() {\n    if (true) { return warpSize / 2; }\n    return 0;\n  }\n}\n";
    assert_eq!(fires(src, "HP108"), [3, 7]);
}

/// OpenSplat's HIP reduction declares its own `warpSize` (half the tile it is given): the
/// lane id `threadIdx.x % warpSize` is bounded by that, not by HIP's wavefront. Twin: the same
/// function on HIP's `warpSize` overruns `shared[32]` on 64-lane wavefronts.
#[test]
fn a_local_warp_size_hides_hips() {
    let own = "__device__ float block_sum(float val, const int tile) {\n  static __shared__ float shared[32];\n  const int warpSize = tile / 2;\n  const int lane = threadIdx.x % warpSize;\n  shared[lane] = val;\n  return shared[0];\n}\n";
    assert!(fires(own, "HP105").is_empty());
    let hips = own.replace("  const int warpSize = tile / 2;\n", "");
    assert_eq!(fires(&hips, "HP105"), [2]);
}

/// SPH-EXA's `struct GpuConfig { static constexpr int warpSize = 64; static_assert(warpSize
/// == 32 || warpSize == 64, …); }`: inside the class the name is the member, per platform arm.
/// Twin: the same `static_assert` in a class without the member is HIP's `warpSize`.
#[test]
fn a_class_member_named_warp_size_is_the_projects() {
    let own = "struct GpuConfig {\n#if defined(__CUDACC__) && !defined(__HIPCC__)\n  static constexpr int warpSize = 32;\n#else\n  static constexpr int warpSize = 64;\n#endif\n  static_assert(warpSize == 32 || warpSize == 64, \"w\");\n};\n";
    assert!(fires(own, "HP108").is_empty(), "{:?}", fires(own, "HP108"));
    let hips =
        "struct GpuConfig {\n  static_assert(warpSize == 32 || warpSize == 64, \"w\");\n};\n";
    assert_eq!(fires(hips, "HP108"), [2]);
}

#[test]
fn recall_for_real_64_lane_idioms() {
    let src = r#"static const int WS = 32;
struct Ctx {
  int lane = threadIdx.x % 32;
};
__global__ void k(unsigned* out, float* p, int n) {
  int tid = threadIdx.x;
  int l = tid % WS;
  __shared__ float s[32];
  int lane = threadIdx.x % warpSize;
  s[lane] = p[tid];
  for (int i = 0; i < 5; ++i) {
int partner = (lane + (1 << i)) & 31;
p[partner] = 0;
  }
  unsigned m = __ballot_sync(~0u, p[tid] > 0);
  float v = __shfl_xor_sync(uint32_t(-1), p[tid], 1);
  unsigned long long both = ((unsigned long long)__ballot_sync(0xffffffffu, v > 0) << 32) | __ballot_sync(0xffffffffu, v < 0);
  int word = tid >> 5;
  int bit = tid & 31;
  out[word] |= 1u << bit;
  out[0] = m + l + both + __shfl_xor_sync(~0, v, 2) + __shfl_xor_sync(-1, v, 4);
}
__device__ float sort2(float x, int lane) {
  x = fminf(x, __shfl_xor(x, 1)); x = fminf(x, __shfl_xor(x, 2)); x = fminf(x, __shfl_xor(x, 1));
  x = fminf(x, __shfl_xor(x, 16));
  return x;
}
__device__ float sum16(float x) {
  x += __shfl_xor(x, 16); x += __shfl_xor(x, 8);
  return x;
}
void host(int nwarps, unsigned* o, float* p) {
  size_t smem = 32 * nwarps * sizeof(float);
  k<<<8, 32>>>(o, p, 0);
  k<<<8, 32 * nwarps, smem>>>(o, p, 0);
  k<<<32, 256>>>(o, p, 0);
}
__global__ void red(long* d, int N) {
  __shared__ long c[32];
  __shared__ long t[32];
  c[threadIdx.x] = d[threadIdx.x];
  for (int i = warpSize / 2; i > 0; i /= 2)
if (threadIdx.x < i) c[threadIdx.x] += c[threadIdx.x + i];
  t[threadIdx.x] = 0;
}
"#;
    // Constants under another name, struct members, butterflies by partner, two-ballot
    // masks, `32 * nwarps`; not bit packing (`word`, `bit`).
    assert_eq!(fires(src, "HP102"), [3, 7, 12, 33, 35]);
    // `~0u` and `uint32_t(-1)` are 32-bit; `~0` and `-1` widen to 64 one bits.
    assert_eq!(fires(src, "HP103"), [15, 16]);
    assert_eq!(fires(src, "HP106"), [15, 17]);
    // A bitonic exchange (the same distance twice) is not a reduction; a reduction is.
    assert_eq!(fires(src, "HP104"), [29]);
    // Blocks of 32 threads; a grid of 32 blocks is not.
    assert_eq!(fires(src, "HP107"), [34]);
    // Indexed by a lane id from `% warpSize`, and by `threadIdx.x + i` with `i` from
    // `warpSize / 2` (reaches 63 on AMD); `t[threadIdx.x]` alone is not.
    assert_eq!(fires(src, "HP105"), [8, 39]);
}

#[test]
fn warp_constants_under_other_names_and_forms() {
    let src = r#"#define LOG_WARP_SIZE 5
#define LANES 32
#define TAG_BITS 5
const int kLaneMask = 31;
enum { WS = 32, NUM_BUCKETS = 32 };
struct Traits {
  static constexpr int kWarpSize = 32;
  static constexpr int kThreadsPerRow = 32;
};
__global__ void k(float* p, unsigned long long* o) {
  int tid = threadIdx.x;
  int l = tid & (LANES - 1);
  int w = tid / WS;
  int b = tid % NUM_BUCKETS;
  int s = tid >> LOG_WARP_SIZE;
  const unsigned mask = ~0u;
  float v = __shfl_sync(mask, p[tid], 0);
  unsigned lo = __ballot_sync(mask, v > 0);
  unsigned hi = __ballot_sync(mask, v < 0);
  o[w] = ((unsigned long long)hi << 32) | lo;
  p[l + b + s] = v;
}
"#;
    // log2 and lane-mask constants; a `static constexpr` member; not `TAG_BITS`.
    assert_eq!(fires(src, "HP101"), [1, 4, 7]);
    // `LANES - 1` and the enumerator `WS`; not `NUM_BUCKETS` (it sizes data).
    assert_eq!(fires(src, "HP102"), [12, 13]);
    // A mask variable spelled `~0u` passed to `_sync` intrinsics: flagged where it is set.
    assert_eq!(fires(src, "HP103"), [16]);
    // Ballots kept in 32-bit variables, joined into a 64-bit mask.
    assert_eq!(fires(src, "HP106"), [18, 19, 20]);
}

#[test]
fn per_lane_arrays_out_of_bounds_only() {
    let src = r#"__global__ void softmax(float* x) {
  __shared__ float maxv[32];
  __shared__ float part[32];
  __shared__ float p2[32];
  int warp_id = threadIdx.x / 32;
  int lane_id = threadIdx.x % 32;
  int lane = threadIdx.x % warpSize;
  int l2 = __lane_id();
  if (lane_id == 0) maxv[warp_id] = x[0];
  x[1] = maxv[lane_id];
  part[lane] = x[2];
  p2[l2] = 1;
}
__device__ void put(float* v, int lane) { __shared__ float s[32]; s[lane] = v[0]; }
"#;
    // `% warpSize`, `__lane_id()` and a lane parameter reach 63 (out of bounds); `maxv`,
    // indexed by a warp id and a `% 32` lane, assumes 32-lane warps.
    assert_eq!(fires(src, "HP105"), [2, 3, 4, 14]);
    let msgs: Vec<String> = crate::model::syntax::test_support::messages(src, "HP105");
    assert!(msgs[0].contains("warp or lane id") && msgs[1].contains("out of bounds"));
    assert_eq!(fires(src, "HP102"), [5, 6]);
}

#[test]
fn literal_32_standing_for_a_named_warp_size() {
    let src = r#"#define WARP_SIZE 32
__global__ void k(float* shared, int C) {
  int C_per_iteration = WARP_SIZE * x128::size;
  size_t rounded_C = CEIL_DIV(C, (32 * x128::size)) * (32 * x128::size);
  size_t other = 32 * f128::size + 32 * C;
  shared[0] = rounded_C + other + C_per_iteration;
}
"#;
    // `32 * x128::size` is `WARP_SIZE * x128::size` written with 32; `f128::size` and `C`
    // are not multiplied by the warp size anywhere.
    assert_eq!(fires(src, "HP102"), [4]);
}

#[test]
fn warp_counts_of_named_constants_follow_their_uses() {
    // causal-conv1d: the warp count only multiplies a per-warp count (the 32 cancels).
    let traits = r#"template<int kNThreads_>
struct Traits {
static constexpr int kNThreads = kNThreads_;
static constexpr int kNWarps = kNThreads / 32;
static constexpr int kNThreadsPerRow = 8;
static constexpr int kNColsPerWarp = 32 / kNThreadsPerRow;
static constexpr int kNColsPerLoad = kNColsPerWarp * kNWarps;
};
template<typename Ktraits> __global__ void fwd(float* x) {
constexpr int kNWarp = Ktraits::kNWarps;
x[threadIdx.x] = 0;
}
template<typename Ktraits> __global__ void bwd(float* x) {
constexpr int kNWarp = Ktraits::kNWarps;
__shared__ float part[kNWarp];
x[threadIdx.x] = part[0];
}
"#;
    // An unused alias in one kernel says nothing; an alias sizing an array does.
    let traits_only = &traits[..traits
        .find("template<typename Ktraits> __global__ void bwd")
        .unwrap()];
    assert_eq!(fires(traits_only, "HP102"), [4]);
    assert!(fires_open(traits_only, "HP102").is_empty());
    assert_eq!(fires(traits, "HP102"), [4]);
    assert_eq!(fires_open(traits, "HP102"), [4]);
    // The same count sizing a shared array and bounding the second reduction stage.
    let reduce = r#"template<int kNThreads>
__global__ void k(float* out, const float* in) {
constexpr int kNWarps = kNThreads / 32;
__shared__ float partial[kNWarps];
float v = in[threadIdx.x];
if (threadIdx.x % warpSize == 0) partial[threadIdx.x / warpSize] = v;
__syncthreads();
if (threadIdx.x < kNWarps) out[0] += partial[threadIdx.x];
}
struct T2 { static constexpr int kNWarps = kNThreads / 32; static constexpr int kN = kNWarps * 2; };
"#;
    assert_eq!(fires_open(reduce, "HP102"), [3, 10]);
}

#[test]
fn host_launch_sizes_and_one_warp_per_row_blocks() {
    let src = r#"__global__ void rows(float* x, int n) {
  int row = blockIdx.x * blockDim.y + threadIdx.y;
  float v = x[row * 32 + threadIdx.x];
  for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_xor(v, o);
  if (threadIdx.x == 0) x[row] = v;
}
__global__ void plain(float* x) { x[threadIdx.x] = 0; }
void launch(float* x, int n, int threads) {
  dim3 block(32, 4);
  rows<<<(n + 3) / 4, block>>>(x, n);
  rows<<<n, dim3(32, 8)>>>(x, n);
  dim3 wide(256, 1);
  rows<<<n, wide>>>(x, n);
  dim3 b2(32, 4);
  plain<<<n, b2>>>(x);
  int warps = (threads + 31) / 32;
  int blocks = (n + 31) / 32;
  size_t smem = warps * sizeof(float) + blocks;
  dim3 planes = {4, 8, (unsigned)nw};
  rows<<<n, planes>>>(x, n);
  rows<<<n * 2, planes>>>(x, n);
}
"#;
    // `dim3(32, n)` and `{4, 8, n}` blocks of a warp-level kernel, where the shape is
    // written (once for two launches); not 256-wide blocks, not a kernel without
    // warp-level work.
    assert_eq!(fires(src, "HP107"), [9, 11, 19]);
    // Kernels of another file: a 2-D image tile in a host-only file is not a warp shape;
    // x·y = 32 planes with a warp count are.
    let host_only = "void pad(float* d, int w, int h) {\n  dim3 threads(32, 8);\n  padKernel<<<dim3(w / 32, h / 8), threads>>>(d);\n  dim3 planes = {4, 8, (unsigned)nw};\n  bias<<<n, planes>>>(d);\n}\n";
    assert_eq!(fires(host_only, "HP107"), [4]);
    // A rounded-up warp count of a thread count; not a grid of 32-element chunks.
    assert_eq!(fires(src, "HP102"), [16]);
}

#[test]
fn data_splits_and_shared_memory_sizes_are_not_lane_arithmetic() {
    use crate::model::syntax::test_support::fires_open;
    let src = r#"static __global__ void dequantize_q4(const block* x, float* yy) {
const int64_t tid = threadIdx.x;
const int64_t n   = tid/32;
const int64_t l   = tid - 32*n;
yy[32*n + l] = x[0].qs[32*n + l];
}
__global__ void red(float* out, const float* in) {
float v = in[threadIdx.x];
int w = threadIdx.x / 32;
for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down(v, o);
out[w] = v;
}
__global__ void sums(float* out) {
int warp = threadIdx.x / 32;
out[warp] = 0;
}
void launch(int blockSize, int n) {
int smemSize = ((blockSize / 32) + 1) * sizeof(double);
int nWarps = blockSize / 32;
int shmem_sz = nWarps * sizeof(int);
int rowsPerBlock = blockSize / 32;
red<<<n / rowsPerBlock, blockSize, smemSize + shmem_sz>>>(0, 0);
}
"#;
    // ggml's split of a 64-thread block over data; not a warp id in a kernel that shuffles
    // (a warp id named `warp` in a kernel that exchanges nothing keeps CUDA's meaning: PASS,
    // the exchange model); host counts that only size shared memory are PASS, one that sizes
    // the grid is not.
    assert_eq!(fires_open(src, "HP102"), [9, 21]);
    assert_eq!(fires(src, "HP102"), [9, 14, 18, 19, 21]);
}

#[test]
fn groups_of_32_threads_over_data_are_not_lane_arithmetic() {
    use crate::model::syntax::test_support::fires_open;
    // Parboil's sad: a block copy by groups of 32 threads (`tgroup`), no lane exchange; the
    // same split under lane and warp names, or beside a shuffle, is a lane id.
    let src = r#"__global__ void copy(int *out, const int *in) {
  if ((threadIdx.x >> 5) < 4) {
int tgroup = threadIdx.x & 31;
int ty = (threadIdx.x >> 5) / 2;
for (int index = tgroup; index < 96; index += 32)
  out[ty * 96 + index] = in[index];
  }
}
__global__ void named(int *out) {
  const int lane_id = threadIdx.x & 31;
  const int warp_id = threadIdx.x >> 5;
  out[warp_id] = lane_id;
}
__global__ void shuffles(float *out, float v) {
  int tgroup = threadIdx.x & 31;
  v += __shfl_xor(v, 1);
  out[tgroup] = v;
}
"#;
    // `shuffles`: a lane id of 32-lane logical warps whose shuffle `port` passes width 32: found,
    // but PASS (the logical-warp model); the same beside `warpSize` stays open.
    assert_eq!(fires(src, "HP102"), [10, 11, 15]);
    // `named`: ids that meet no exchange across lanes keep their meaning: PASS.
    assert!(fires_open(src, "HP102").is_empty());
    let mixed = src.replace("out[tgroup] = v;", "out[tgroup] = v + warpSize;");
    assert_eq!(fires_open(&mixed, "HP102"), [15]);
    // Lane 0 of each 32-lane group, picked by `threadIdx.x % 32 == 0`, in a kernel that
    // exchanges nothing across lanes: found, PASS; beside a shuffle at the wavefront's width
    // it stays open.
    let leader = "__global__ void scan(float *p, float *s) {\n  float r = threadIdx.x % 32 == 0 ? s[0] : 1.f;\n  p[threadIdx.x] = r;\n}\n";
    assert_eq!(fires(leader, "HP102"), [2]);
    assert!(fires_open(leader, "HP102").is_empty());
    let exchanged = leader.replace("p[threadIdx.x] = r;", "p[threadIdx.x] = __shfl(r, 1, 64);");
    assert_eq!(fires_open(&exchanged, "HP102"), [2]);
    // WMMA's warp-collective loads and products spread a tile over the warp's lanes (the
    // whole wavefront in rocWMMA): 32-lane groups of them stay open too.
    let wmma = leader.replace(
        "p[threadIdx.x] = r;",
        "nvcuda::wmma::load_matrix_sync(a, p + 16 * (threadIdx.x / 32), 16);",
    );
    assert_eq!(fires_open(&wmma, "HP102"), [2, 3]);
    // Inline PTX that is each lane's own (a cache-bypassing load: an L2-flush microbenchmark)
    // exchanges nothing: PASS. PTX that shuffles (or any warp-collective instruction) stays.
    let load = "__global__ void flush(const int *x, int *y) {
  int lane = threadIdx.x % 32;
  const int *p = x + (lane ^ 1);
  int sum = 0;
  asm volatile(\"ld.global.cg.b32 %0, [%1];\" : \"+r\"(sum) : \"l\"(p));
  y[threadIdx.x] = sum;
}
";
    assert_eq!(fires(load, "HP102"), [2]);
    assert!(fires_open(load, "HP102").is_empty());
    let shfl = load.replace(
        "ld.global.cg.b32 %0, [%1];",
        "shfl.sync.bfly.b32 %0, %0, 1, 31, -1;",
    );
    assert_eq!(fires_open(&shfl, "HP102"), [2]);
    let mma = load.replace(
        "ld.global.cg.b32 %0, [%1];",
        "ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];",
    );
    assert_eq!(fires_open(&mma, "HP102"), [2]);
}

#[test]
fn shared_memory_reductions_from_16_over_a_wavefront_lane() {
    use crate::model::syntax::test_support::fires_open;
    // SHOC's CSR vector SpMV: one row per `warpSize` threads, reduced from 16: lanes 32-63
    // are lost on a 64-lane wavefront. The same steps over `t & 31` (32-thread groups), or
    // with a step at 32, are consistent.
    let src = r#"__global__ void csr(float *out, volatile float *p) {
int t = threadIdx.x;
int id = t & (warpSize-1);
p[t] = out[t];
if (id < 16) p[t] += p[t+16];
if (id <  8) p[t] += p[t+ 8];
if (id == 0) out[t / warpSize] = p[t];
}
__global__ void groups(float *out, volatile float *p) {
int t = threadIdx.x;
int id = t & 31;
if (id < 16) p[t] += p[t+16];
if (id == 0) out[t / warpSize] = p[t];
}
__global__ void wave(float *out, volatile float *p) {
int t = threadIdx.x;
int id = t % warpSize;
if (id < 32) p[t] += p[t + 32];
if (id < 16) p[t] += p[t + 16];
if (id == 0) out[t / warpSize] = p[t];
}
"#;
    assert_eq!(fires_open(src, "HP104"), [5]);
}

#[test]
fn warp_size_constants_of_a_file_without_warp_work_are_pass() {
    use crate::model::syntax::test_support::{fires, fires_open};
    // Parboil's JDS SpMV: rows padded per 32, one bound per 32 rows; nothing exchanges
    // lanes, so the constants only split threads over data.
    let split = "#define WARP_BITS 5\n#define WARP_SIZE 32\n__global__ void jds(float *d, const int *b, int n) {\n  int ix = blockIdx.x * blockDim.x + threadIdx.x;\n  int warp_id = ix >> WARP_BITS;\n  if (ix < n) d[ix] = b[warp_id];\n}\n";
    assert_eq!(fires(split, "HP101"), [1, 2]);
    assert!(fires_open(split, "HP101").is_empty());
    // The same constant beside a shuffle whose lanes come from the wavefront, or before a
    // header that may shuffle with it. Where the shuffle's offsets start from half the
    // constant and nothing else names the wavefront, the function's warps are 32-lane logical
    // ones: `port` gives the shuffle width 32 and the constant is their size.
    let shuffles = "#define WARP_SIZE 32\n__global__ void r(float *d, float v) {\n  for (int o = WARP_SIZE / 2; o > 0; o /= 2) v += __shfl_down(v, o);\n  d[threadIdx.x % warpSize] = v;\n}\n";
    assert_eq!(fires_open(shuffles, "HP101"), [1]);
    let logical = shuffles.replace("threadIdx.x % warpSize", "0");
    assert!(fires_open(&logical, "HP101").is_empty());
    let before_header = "#define WARP_SIZE 32\n#include \"reduce.cuh\"\n__global__ void r(float *d) { d[0] = 0; }\n";
    assert_eq!(fires_open(before_header, "HP101"), [1]);
    // llm.c's dev kernels: a 32-thread block reduced by a header's `warpReduceSum`.
    let header_reduce = "#include \"common.h\"\n__global__ void k(float *d) {\n  constexpr const int WarpSize = 32;\n  float m = 0;\n  for (int c = threadIdx.x; c < 64; c += WarpSize) m += d[c];\n  d[0] = warpReduceSum(m);\n}\n";
    assert_eq!(fires_open(header_reduce, "HP101"), [3]);
    // cuda-samples' simpleVoteIntrinsics: the host's `warp_size = 32` beside launches of
    // vote kernels from an included header.
    let votes = "#include \"simpleVote_kernel.cuh\"\nint main() {\n  int warp_size = 32;\n  VoteAnyKernel1<<<1, warp_size * 3>>>(0, 0, warp_size);\n}\n";
    assert_eq!(fires_open(votes, "HP101"), [3]);
}

#[test]
fn host_reference_of_a_ptx_lane_id() {
    let src = r#"__global__ void sequence_gpu(int *d_ptr, int length) {
int elemID = blockIdx.x * blockDim.x + threadIdx.x;
unsigned int laneid;
asm("mov.u32 %0, %%laneid;" : "=r"(laneid));
d_ptr[elemID] = laneid;
}
void sequence_cpu(int *h_ptr, int length) {
for (int elemID = 0; elemID < length; elemID++) {
    h_ptr[elemID] = elemID % 32;
}
}
"#;
    assert_eq!(fires(src, "HP102"), [9]);
    // Without a kernel that reads the lane id, a host `% 32` is data.
    let plain = "void fill(int *h, int n) {\n    for (int i = 0; i < n; i++) h[i] = i % 32;\n}\n";
    assert!(fires(plain, "HP102").is_empty());
}

#[test]
fn bitonic_loops_over_32_lanes() {
    let src = r#"__device__ float sort32(float x, int lane) {
  for (int k = 2; k <= 32; k <<= 1)
for (int j = k >> 1; j > 0; j >>= 1) {
  float y = __shfl_xor_sync(0xffffffff, x, j);
  x = ((lane & j) != 0) == ((lane & k) == 0) ? fmaxf(x, y) : fminf(x, y);
}
  return x;
}
__device__ float merge(float x) {
  for (int j = 16; j > 0; j >>= 1) x = fminf(x, __shfl_xor(x, j));
  return x;
}
__device__ float wide(float x) {
  for (int o = 1; o <= 32; o <<= 1) x += __shfl_xor(x, o);
  return x;
}
"#;
    // The stage loop of a 32-lane bitonic sort and a butterfly from 16; a loop whose own
    // distance reaches 32 is written for 64 lanes.
    assert_eq!(fires(src, "HP104"), [2, 10]);
}

#[test]
fn cg_tiles_of_32_used_only_through_the_tile_are_pass() {
    use crate::model::syntax::test_support::fires_open;
    let src = r#"__global__ void ln(float* out, const float* x, int C) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  float s = 0;
  for (int i = warp.thread_rank(); i < C; i += warp.size()) s += x[i];
  s = cg::reduce(warp, s, cg::plus<float>{});
  if (warp.thread_rank() == 0) out[warp.meta_group_rank()] = s;
}
__global__ void mixed(float* out, const float* x) {
  auto tile = cg::tiled_partition<32>(cg::this_thread_block());
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, threadIdx.x % warpSize);
  out[tile.thread_rank()] = v;
}
"#;
    assert_eq!(fires(src, "HP107"), [3, 10]);
    // The tile alone keeps its meaning; beside raw warp intrinsics it needs a look.
    assert_eq!(fires_open(src, "HP107"), [10]);
}

#[test]
fn bit_packing_of_data_is_not_lane_arithmetic() {
    let src = r#"__global__ void setbits(unsigned* bits, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && x[i] > 0) atomicOr(&bits[i >> 5], 1u << (i & 31));
  if (i < n) x[i] = (bits[i / 32] >> (i % 32)) & 1;
}
__global__ void lanes(unsigned* out) {
  unsigned lanemask_lt = (1u << (threadIdx.x & 31)) - 1;
  out[threadIdx.x >> 5] = __popc(__ballot_sync(0xffffffffu, 1) & lanemask_lt);
}
"#;
    // One bit per element in 32-bit words; a lane mask and a warp index are lane arithmetic.
    assert_eq!(fires(src, "HP102"), [7, 8]);
}

/// A block-stride loop over planes (`plane = threadIdx.x; …; plane += 32` in blocks of at most
/// 32 threads, SparseConvNet's pooling) is no lane arithmetic: `plane` is no lane's name, and
/// the kernel does no warp-level work. The twin: a loop from a lane id (`src_lane`, `srcLane`)
/// in a kernel that shuffles strides by the warp.
#[test]
fn a_plane_is_not_a_lane() {
    let src = "template <typename T>\n__global__ void pool(T* in, T* out, int nPlanes) {\n  for (int plane = threadIdx.x; plane < nPlanes; plane += 32)\n    out[plane] += in[plane];\n}\n";
    assert!(fires(src, "HP102").is_empty(), "{:?}", fires(src, "HP102"));
    let lane = "__global__ void k(float* in, float* out, int n) {\n  int src_lane = threadIdx.x % 32;\n  float v = 0;\n  for (int i = src_lane; i < n; i += 32) v += in[i];\n  out[threadIdx.x] = __shfl_down_sync(0xffffffff, v, 1);\n}\n";
    assert!(
        fires(lane, "HP102").contains(&4),
        "{:?}",
        fires(lane, "HP102")
    );
}

/// cudpp's warp-synchronous scan: 32-lane groups exchanging data through a `volatile` shared
/// buffer, with no shuffle, ballot or vote: each group runs in lockstep inside a 64-lane
/// wavefront as inside a CUDA warp, so the ids keep their meaning (PASS), as do the same ids
/// without shared memory. The twin: beside a call of another file's warp-level helper, they
/// stay REMEDIATION.
#[test]
fn warp_synchronous_shared_memory_groups_keep_their_meaning() {
    use crate::gate::Status;
    use crate::model::syntax::test_support::hazard_findings;
    let st = |src: &str| -> Vec<(u32, Status)> {
        hazard_findings(src)
            .into_iter()
            .filter(|f| f.rule == "HP102")
            .map(|f| (f.line, f.status))
            .collect()
    };
    let src = "__device__ float warpscan(float v, volatile float* s) {\n  int idx = 2 * threadIdx.x - (threadIdx.x & 31);\n  s[idx] = v;\n  return s[idx - 1];\n}\n__device__ void scan(float x, float* s) {\n  float v = warpscan(x, s);\n  if ((threadIdx.x & 31) == 31) s[threadIdx.x >> 5] = v;\n}\n";
    let f = st(src);
    assert!(
        !f.is_empty() && f.iter().all(|(_, s)| *s == Status::Pass),
        "{f:?}"
    );
    let plain =
        "__global__ void k(float* p) {\n  int lane = threadIdx.x & 31;\n  p[lane] = 0;\n}\n";
    assert!(
        st(plain).iter().all(|(_, s)| *s == Status::Pass),
        "{:?}",
        st(plain)
    );
    let elsewhere = src.replace("float v = warpscan(x, s);", "float v = warp_reduce_sum(x);");
    let f = st(&elsewhere);
    assert!(
        f.iter().any(|(l, s)| *l == 8 && *s == Status::Remediation),
        "{f:?}"
    );
}

/// k2-fsa/k2's mutual-information kernel: a block-stride loop over a 32x32 tile splits its
/// element index into row and column (`i / 32`, `i % 32`) in a kernel that also uses
/// `__syncwarp()`; twin: the thread index itself divided by 32 is a warp id.
#[test]
fn block_stride_loop_indices_are_elements_not_lanes() {
    let src = "__global__ void k(float* p, float* buf) {\n  for (int i = threadIdx.x; i < 32 * 32; i += blockDim.x) {\n    int row = i / 32, col = i % 32;\n    buf[row * 33 + col] = p[i];\n  }\n  __syncwarp();\n  int w = threadIdx.x / 32;\n  p[w] = buf[w];\n}\n";
    assert!(
        fires(src, "HP102").iter().all(|&l| l != 3),
        "{:?}",
        fires(src, "HP102")
    );
    assert!(
        fires(src, "HP102").contains(&7),
        "{:?}",
        fires(src, "HP102")
    );
}

/// cuda_hgemm: `(lane_id … ) % AB_SMEM_STRIDE` wraps a column of a shared-memory row 32 halves
/// wide, not a lane. Twin: a literal 32 on a thread index stays a lane id.
#[test]
fn a_memory_stride_of_32_is_not_a_lane_count() {
    let src = "#define AB_SMEM_STRIDE 32\n#define TILE 32\n__global__ void k(float* p) {\n  int lane_id = threadIdx.x % 32;\n  float a = p[(8 + lane_id / 8 * 8) % AB_SMEM_STRIDE];\n  float b = p[threadIdx.x % 32];\n  p[lane_id] = a + b;\n}\n";
    assert_eq!(fires(src, "HP102"), [4, 6]);
}

/// ge-spmm: a kernel of 32-thread rows whose only warp-level call is `__syncwarp` around
/// row-private shared memory keeps its meaning on a 64-lane wavefront (the barrier exchanges
/// nothing). Twin: the same kernel with a shuffle is HP107.
#[test]
fn a_warp_barrier_alone_is_not_warp_level_work() {
    let src = "__global__ void spmm(const int* idx, float* out) {\n  __shared__ int sh[32 * 4];\n  int t = threadIdx.y * 32 + threadIdx.x;\n  sh[t] = idx[t];\n  __syncwarp();\n  out[t] = sh[threadIdx.y * 32];\n}\nvoid run(const int* i, float* o) {\n  dim3 block(32, 4);\n  spmm<<<1, block>>>(i, o);\n}\n";
    assert!(fires(src, "HP107").is_empty(), "{:?}", fires(src, "HP107"));
    let shuffled = src.replace(
        "__syncwarp();",
        "sh[t] = __shfl_sync(0xffffffff, sh[t], 0);",
    );
    assert_eq!(fires(&shuffled, "HP107"), [9]);
}

/// punica's `bgmv_kernel`: each arm of an `if` declares its own `dim3 nthrs`; the launch in the
/// first arm sees its own shape (`tx, ty, tz`), not the `dim3 nthrs(32, 4)` of the other arm
/// that a search of the whole function found first. Twin: the second arm's launch keeps its
/// finding.
#[test]
fn a_launch_sees_the_block_shape_declared_in_its_own_arm() {
    let src = "__global__ void expand(float* y) { y[threadIdx.x] = __shfl_down_sync(0xffffffff, y[0], 1); }\n__global__ void shrink(float* y) { y[threadIdx.x] = __ballot_sync(0xffffffff, y[0] > 0); }\nvoid run(float* y, int tx, int ty, int tz, bool wide) {\n  if (wide) {\n    dim3 nthrs(tx, ty, tz);\n    expand<<<1, nthrs>>>(y);\n  } else {\n    dim3 nthrs(32, 4);\n    shrink<<<1, nthrs>>>(y);\n  }\n}\n";
    assert_eq!(fires(src, "HP107"), [8]);
    let msgs = crate::model::syntax::test_support::messages(src, "HP107");
    assert!(
        msgs.iter()
            .all(|m| m.contains("`shrink`") && !m.contains("`expand`")),
        "{msgs:?}"
    );
}

/// PhysX's `WARP_PERBLOCK_SIZE` (warps per block) and `WARPS_PER_BLOCK` count warps; they are
/// not the warp's size. Twin: `THREADS_PER_WARP` and `kWarpSize` are.
#[test]
fn counts_of_warps_are_not_warp_sizes() {
    assert!(!super::warp_const_name("WARP_PERBLOCK_SIZE"));
    assert!(!super::warp_const_name("kWarpsPerBlock"));
    assert!(!super::warp_const_name("WARP_PER_BLOCK_SIZE"));
    assert!(super::warp_const_name("THREADS_PER_WARP"));
    assert!(super::warp_const_name("kWarpSize"));
    assert!(super::warp_const_name("LOG2_WARP_SIZE"));
}

/// pg-strom's `assert(__activemask() == ~0U)`: a 64-lane mask compared with a 32-bit all-ones is
/// never equal on a full wavefront. Twins: `~0` and a 64-bit literal (64 one bits), a narrow
/// variable whose HP106 is the same fact (one-row launches: `one_row`'s tests).
#[test]
fn a_wavefront_mask_compared_with_a_32_bit_full_mask() {
    let src = "__device__ int f(int v) {\n  assert(__activemask() == ~0U);\n  bool all = __ballot_sync(~0ull, v > 0) != 0xffffffffu;\n  bool wide = __activemask() == ~0;\n  bool wide2 = __activemask() == 0xffffffffffffffffull;\n  unsigned m = __ballot_sync(~0ull, v > 1);\n  return all + wide + wide2 + (m == 0xffffffff);\n}\n";
    assert_eq!(fires_open(src, "HP106"), [2, 3, 6]);
}

/// The canonical block reduction written with `warpSize` (ElasticFusion's `blockReduceSum`):
/// `shared[wid]` with `wid = threadIdx.x / warpSize`, then `shared[lane]` read only where
/// `threadIdx.x < blockDim.x / warpSize`: every index stays below the block's wavefront count
/// (16 on AMD), no HP105. Twins: the read unguarded, and guarded by a count of 32-lane warps.
#[test]
fn a_block_reduction_counted_in_wavefronts_stays_in_its_32_slots() {
    let src = "__inline__ __device__ float blockReduceSum(float val) {\n  static __shared__ float shared[32];\n  int lane = threadIdx.x % warpSize;\n  int wid = threadIdx.x / warpSize;\n  val = warpReduceSum(val);\n  if (lane == 0) shared[wid] = val;\n  __syncthreads();\n  val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;\n  if (wid == 0) val = warpReduceSum(val);\n  return val;\n}\n";
    assert!(fires(src, "HP105").is_empty(), "{:?}", fires(src, "HP105"));
    let unguarded = src.replace(
        "(threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0",
        "shared[lane]",
    );
    assert_eq!(fires(&unguarded, "HP105"), [2]);
    let by_32 = src.replace("blockDim.x / warpSize)", "blockDim.x / 32)");
    assert_eq!(fires(&by_32, "HP105"), [2]);
    let in_if = src.replace(
        "val = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0;",
        "if (threadIdx.x < blockDim.x / warpSize) { val = shared[lane]; } else { val = 0; }",
    );
    assert!(fires(&in_if, "HP105").is_empty());
}

/// nvdiffrast's bin rasterizer counts fresh ballots in 32-thread rows: the fix spells both
/// choices (the lane's own half where rows are CUDA's warps, 64 bits where lanes span the
/// wavefront). Twin: a count of a 64-bit ballot is not flagged.
#[test]
fn counts_of_fresh_ballots_spell_both_choices() {
    let src = "__device__ void f(bool a, int* o) {\n  o[0] = __popc(__ballot_sync(~0u, a));\n}\n";
    assert_eq!(fires(src, "HP106"), [2]);
    let f = crate::model::syntax::test_support::hazard_findings(src);
    let s = f
        .iter()
        .find(|f| f.rule == "HP106")
        .and_then(|f| f.suggestion.clone())
        .unwrap_or_default();
    assert!(
        s.contains("__popc((unsigned int)(__ballot(p) >> (__lane_id() & 32)))")
            && s.contains("`__popcll`"),
        "{s}"
    );
    let wide =
        "__device__ void f(bool a, int* o) {\n  o[0] = __popcll(__ballot_sync(~0ull, a));\n}\n";
    assert!(fires(wide, "HP106").is_empty());
}

/// groute's worklist: a queue offset from `atomicAdd`, broadcast by a shuffle whose mask
/// argument is `__activemask()`, holds no ballot (the ballot is the shuffle's mask).
#[test]
fn a_ballot_passed_to_a_call_is_not_its_result() {
    let src = r#"__device__ void append_warp(unsigned* end, int leader, int count) {
  uint32_t allocation = 0;
  uint32_t mask = 0;
  if ((threadIdx.x & 31) == leader) allocation = atomicAdd(end, count);
  allocation = cub::ShuffleIndex<32>(allocation, leader, __activemask());
  mask = (uint32_t)(__activemask() & 0xffu) | 1u;
  end[allocation] = mask;
  uint32_t lead = 0;
  lead = msb(__ballot_sync(~0ull, end[0] > 0));
  end[lead] = 0;
}
"#;
    // The twins: a ballot's bits through operators and a cast, and a ballot a project function
    // takes (hornet's `__msb(__ballot(p))`: its 32-bit parameter cuts the mask).
    assert_eq!(fires(src, "HP106"), [6, 9]);
}

/// groute's `__popc(take_mask & ((1 << lane_id()) - 1))`: the lane's own bit of a counted 32-bit
/// ballot mask is the ballot finding's fact (the mask and its lane bit widen together), so the
/// HP102 on the shift folds into the HP106. Twin: a `1 << lane` that no count of a ballot mask
/// holds stays open.
#[test]
fn a_lane_bit_in_a_count_of_a_ballot_mask_is_the_ballot_fix() {
    let src = "__device__ int lane_id() { return threadIdx.x & 31; }\n__device__ int f(bool p, unsigned *out) {\n  unsigned take = __ballot_sync(0xffffffff, p);\n  int off = __popc(take & ((1 << lane_id()) - 1));\n  out[0] = 1 << lane_id();\n  return off;\n}\n";
    assert_eq!(fires_open(src, "HP106"), [3]);
    assert_eq!(fires(src, "HP102"), [4, 5]);
    assert_eq!(fires_open(src, "HP102"), [5]);
}

/// MGARD's bitplane loops: an index that starts at the lane and steps by the warp size counts
/// items (`1 << bitplane_idx` is a data mask, as wide on any GPU). Twin: the loop stepping by
/// one keeps the lane's taint.
#[test]
fn a_loop_over_a_warps_items_is_not_a_lane() {
    let src = r#"#define MGARDX_WARP_SIZE 32
__device__ void f(unsigned* out, unsigned n, unsigned LaneId) {
  for (unsigned b = LaneId; b < n; b += MGARDX_WARP_SIZE) {
    unsigned long long mask = (1 << b) - 1;
    out[b] = mask;
  }
  out[0] = __ballot_sync(0xffffffff, n > 0);
}
"#;
    assert!(fires(src, "HP102").is_empty(), "{:?}", fires(src, "HP102"));
    // Twin: the same loop stepping by one keeps the lane's taint.
    let by_one = src.replace("b += MGARDX_WARP_SIZE", "b++");
    assert_eq!(
        fires(&by_one, "HP102"),
        [4],
        "{:?}",
        fires(&by_one, "HP102")
    );
}

/// DLRM's `dot_based_interact.cu`: the host launcher fixes `kWarpSize = 32` and hands it to a
/// kernel whose 32-lane warps each load their own WMMA tiles (fragments span the 64-lane
/// wavefront in rocWMMA): open. Twin: a kernel that stores each lane's own value is quiet.
#[test]
fn a_warp_width_handed_to_a_launched_wmma_kernel_stays_open() {
    let src = "__global__ void k(half *p, float *o, unsigned w) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
  wmma::load_matrix_sync(a, p + (threadIdx.x / w) * 256, 16);
}
void launch(half *p, float *o) {
  const unsigned kWarpSize = 32;
  const unsigned kWarpSizeLog2 = Log2<kWarpSize>::value;
  k<<<1, 128>>>(p, o, kWarpSize);
}
";
    assert_eq!(fires_open(src, "HP101"), [6]);
    let quiet = src.replace(
        "wmma::load_matrix_sync(a, p + (threadIdx.x / w) * 256, 16);",
        "o[threadIdx.x / w] = 1.f;",
    );
    assert_eq!(fires(&quiet, "HP101"), [6]);
    assert!(fires_open(&quiet, "HP101").is_empty());
}
