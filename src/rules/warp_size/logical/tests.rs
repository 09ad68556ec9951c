//! Unit tests of the logical-warp model, each with its negative twin.
use super::*;

fn model(src: &str) -> (LogicalWarps, Lexed) {
    let lexed = crate::lex::lex(src.as_bytes());
    (LogicalWarps::of(src.as_bytes(), &lexed), lexed)
}
fn tok(src: &str, lexed: &Lexed, needle: &str, nth: usize) -> usize {
    let at = src.match_indices(needle).nth(nth).expect("needle").0;
    lexed
        .tokens
        .iter()
        .position(|t| t.start as usize == at)
        .expect("a token")
}

const LOGICAL: &str = "__global__ void k(const float* x, float* out) {\n  int tid = threadIdx.x;\n  int lane = tid & 31;\n  float v = x[tid];\n  for (int i = 16; i > 0; i >>= 1) v += __shfl_down_sync(0xffffffff, v, i);\n  float f = __shfl_sync(0xffffffff, v, 0);\n  unsigned int b = __ballot_sync(0xffffffff, v > f);\n  if (lane == 0) out[tid / 32] = v + __popc(b);\n}\n";

#[test]
fn thirty_two_lane_logical_warps_get_safe_rewrites() {
    let (m, lx) = model(LOGICAL);
    let i = tok(LOGICAL, &lx, "__shfl_down_sync", 0);
    assert_eq!(m.warp_at(i), Warp::Logical32);
    let p = m.plan(LOGICAL.as_bytes(), &lx, i).expect("a plan");
    assert_eq!(p.applicability, Applicability::Safe);
    assert!(matches!(p.rewrite, Rewrite::Width32 { .. }));
    assert_eq!(p.why32, "`& 31`");
    let b = tok(LOGICAL, &lx, "__ballot_sync", 0);
    let p = m.plan(LOGICAL.as_bytes(), &lx, b).expect("a ballot plan");
    assert!(matches!(p.rewrite, Rewrite::OwnHalfBallot { .. }));
    assert!(m.ballots_rewritten(LOGICAL.as_bytes(), &lx, b));
    // A shuffle that already passes a width needs nothing.
    let w = "__device__ float f(float v) {\n  int lane = threadIdx.x % 32;\n  return __shfl_xor(v, 1, 32) + lane;\n}\n";
    let (m, lx) = model(w);
    assert!(m
        .plan(w.as_bytes(), &lx, tok(w, &lx, "__shfl_xor", 0))
        .is_none());
}

#[test]
fn wavefront_lanes_keep_the_64_lane_form() {
    // The negative twin: lanes from `warpSize`, offsets from `warpSize / 2`.
    let src = "__global__ void k(const float* x, float* out) {\n  int lane = threadIdx.x % warpSize;\n  float v = x[threadIdx.x];\n  for (int i = warpSize / 2; i > 0; i >>= 1) v += __shfl_down_sync(0xffffffff, v, i);\n  unsigned int b = __ballot_sync(0xffffffff, v > 0);\n  if (lane == 0) out[0] = v + b;\n}\n";
    let (m, lx) = model(src);
    let i = tok(src, &lx, "__shfl_down_sync", 0);
    assert_eq!(m.warp_at(i), Warp::Wavefront);
    assert!(m.plan(src.as_bytes(), &lx, i).is_none());
    assert!(m
        .plan(src.as_bytes(), &lx, tok(src, &lx, "__ballot_sync", 0))
        .is_none());
}

#[test]
fn mixed_lanes_are_unsafe() {
    let src = "__global__ void k(float* out) {\n  int lane = threadIdx.x % warpSize;\n  float v = lane;\n  for (int i = 16; i > 0; i >>= 1) v += __shfl_down(v, i);\n  out[lane] = v;\n}\n";
    let (m, lx) = model(src);
    let i = tok(src, &lx, "__shfl_down", 0);
    assert_eq!(m.warp_at(i), Warp::Mixed);
    let p = m.plan(src.as_bytes(), &lx, i).expect("a plan");
    assert_eq!(p.applicability, Applicability::Unsafe);
    assert_eq!(p.why64.as_deref(), Some("`warpSize`"));
}

#[test]
fn lane_bounded_branches_run_lanes_0_to_31() {
    let src = "__global__ void k(float* s) {\n  int tid = threadIdx.x;\n  int warp = tid / 32;\n  float v = s[tid];\n  if (threadIdx.x < 32) {\n    v += __shfl_down_sync(0xffffffff, v, 16);\n  }\n  if (tid < 32) v += __shfl_down_sync(0xffffffff, v, 8);\n  if (warp == 0) v += __shfl_down_sync(0xffffffff, v, 4);\n  if (tid < 64) v += __shfl_down_sync(0xffffffff, v, 2);\n  v += __shfl_down_sync(0xffffffff, v, 1);\n  s[tid] = v;\n}\n";
    let (m, lx) = model(src);
    let at = |n| tok(src, &lx, "__shfl_down_sync", n);
    assert_eq!(m.first32(at(0)), Some("threadIdx.x < 32"));
    assert_eq!(m.first32(at(1)), Some("tid < 32"));
    assert_eq!(m.first32(at(2)), Some("warp == 0"));
    assert_eq!(m.first32(at(3)), None);
    assert_eq!(m.first32(at(4)), None);
    let early = "__global__ void k(float* s) {\n  if (threadIdx.x >= 32) return;\n  s[0] = __shfl_sync(0xffffffff, s[1], 0);\n}\n";
    let (m, lx) = model(early);
    assert!(m.first32(tok(early, &lx, "__shfl_sync", 0)).is_some());
}

#[test]
fn an_offsets_only_helper_takes_its_callers_warp() {
    let helper = "__device__ float warp_sum(float v) {\n  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n  return v;\n}\n";
    // Called from a kernel of 32-lane logical warps: safe.
    let logical = format!("{helper}__global__ void k(float* p) {{\n  int lane = threadIdx.x & 31;\n  p[lane] = warp_sum(p[lane]);\n}}\n");
    let (m, lx) = model(&logical);
    assert_eq!(
        m.warp_at(tok(&logical, &lx, "__shfl_xor_sync", 0)),
        Warp::Logical32
    );
    // The twin: called from a kernel whose lanes come from `warpSize`: a choice.
    let wave = format!("{helper}__global__ void k(float* p) {{\n  int lane = threadIdx.x % warpSize;\n  p[lane] = warp_sum(p[lane]);\n}}\n");
    let (m, lx) = model(&wave);
    let i = tok(&wave, &lx, "__shfl_xor_sync", 0);
    assert_eq!(m.warp_at(i), Warp::Mixed);
    assert_eq!(
        m.evidence(i).1,
        Some("called from `k`, whose lanes come from `warpSize`")
    );
}

/// A helper with no lane arithmetic of its own (svox2's per-ray backward pass reads lane
/// `basis_dim` of its ray's group) takes the warp of the kernels that call it; the twins: a
/// helper also called from a kernel whose lanes span the wavefront is a choice, and one called
/// from nothing in the file stays the wavefront's.
#[test]
fn a_helper_without_lane_evidence_takes_its_callers_warp() {
    let helper = "__device__ void trace(float* c, int n) {\n  c[0] += __shfl_sync(0xffffffff, c[0], n);\n}\n";
    let logical = format!("{helper}__device__ void mid(float* c) {{\n  trace(c, 3);\n}}\n__global__ void k(float* p) {{\n  int ray = threadIdx.x >> 5;\n  int lane = threadIdx.x & 0x1F;\n  if (lane < 9) mid(p + ray);\n}}\n");
    let (m, lx) = model(&logical);
    let i = tok(&logical, &lx, "__shfl_sync", 0);
    assert_eq!(m.warp_at(i), Warp::Logical32);
    assert!(
        m.evidence(i)
            .0
            .is_some_and(|w| w.starts_with("called from `mid`")),
        "{:?}",
        m.evidence(i)
    );
    let p = m.plan(logical.as_bytes(), &lx, i).expect("a plan");
    assert_eq!(p.applicability, Applicability::Safe);
    let mixed = format!("{logical}__global__ void w(float* p) {{\n  int lane = threadIdx.x % warpSize;\n  trace(p + lane, 1);\n}}\n");
    let (m, lx) = model(&mixed);
    assert_eq!(m.warp_at(tok(&mixed, &lx, "__shfl_sync", 0)), Warp::Mixed);
    let (m, lx) = model(helper);
    assert_eq!(
        m.warp_at(tok(helper, &lx, "__shfl_sync", 0)),
        Warp::Wavefront
    );
}

/// deepmd-kit: a template helper called with template arguments (`broadcast<4>(v, 0, m)`)
/// takes its callers' warp as a plain call does; the twin: called so from a kernel whose lanes
/// span the wavefront, it keeps the wavefront's.
#[test]
fn a_template_helper_takes_its_callers_warp() {
    let src = "template <int N>\n__device__ float broadcast(float v, int src, unsigned mask) {\n  return __shfl_sync(mask, v, src);\n}\n__global__ void k(float* p) {\n  int lane = threadIdx.x & 31;\n  p[lane] = broadcast<4>(p[lane], 0, 0xffffffffu);\n}\n";
    let (m, lx) = model(src);
    assert_eq!(m.warp_at(tok(src, &lx, "__shfl_sync", 0)), Warp::Logical32);
    let wide = src.replace("threadIdx.x & 31", "threadIdx.x % warpSize");
    let (m, lx) = model(&wide);
    assert_ne!(
        m.warp_at(tok(&wide, &lx, "__shfl_sync", 0)),
        Warp::Logical32
    );
}

#[test]
fn a_file_constant_counts_as_its_value() {
    let src = "#define LANES 32\n__global__ void k(float* s) {\n  int lane = threadIdx.x % LANES;\n  s[0] = __shfl_sync(0xffffffff, s[1], 0) + lane;\n}\n";
    let (m, lx) = model(src);
    assert_eq!(m.warp_at(tok(src, &lx, "__shfl_sync", 0)), Warp::Logical32);
    // A warp size from another header is not known to be 32: not safe.
    let other = "__global__ void k(float* s) {\n  int lane = threadIdx.x % WARP_SIZE;\n  int w = threadIdx.x / 32;\n  s[w] = __shfl_sync(0xffffffff, s[1], 0) + lane;\n}\n";
    let (m, lx) = model(other);
    assert_eq!(m.warp_at(tok(other, &lx, "__shfl_sync", 0)), Warp::Mixed);
}

#[test]
fn votes_of_32_lane_logical_warps_test_the_lanes_own_half() {
    let src = "#define FULL 0xffffffff\n__global__ void k(const float* x, int* out) {\n  int lane = threadIdx.x & 31;\n  float v = x[threadIdx.x];\n  int a = __all_sync(0xffffffff, v > 0);\n  int b = __any_sync(FULL, v > 1);\n  int c = __all_sync(0x0000ffff, v > 2);\n  int d = __any(v > 3);\n  bool e = __ballot_sync(0xffffffff, v > 4) == 0xffffffff;\n  out[lane] = a + b + c + d + e;\n}\n";
    let (m, lx) = model(src);
    let plan = |n: &str, k| m.plan(src.as_bytes(), &lx, tok(src, &lx, n, k));
    let all = plan("__all_sync", 0).expect("a plan for __all_sync");
    assert_eq!(all.applicability, Applicability::Safe);
    assert!(matches!(
        all.rewrite,
        Rewrite::OwnHalfVote { all: true, .. }
    ));
    // A file constant of the full mask, and the mask-less legacy form.
    assert!(matches!(
        plan("__any_sync", 0).expect("any").rewrite,
        Rewrite::OwnHalfVote { all: false, .. }
    ));
    assert!(plan("__any(", 0).is_some());
    // A partial mask selects lanes the half's ballot does not know: no rewrite.
    assert!(plan("__all_sync", 1).is_none());
    // A ballot compared with a 32-bit full mask is kept in 32 bits.
    assert!(matches!(
        plan("__ballot_sync", 0).expect("ballot").rewrite,
        Rewrite::OwnHalfBallot { .. }
    ));
    // The twin: lanes of the wavefront (`% warpSize`) keep HIP's 64-lane vote.
    let wave = src.replace("threadIdx.x & 31", "threadIdx.x % warpSize");
    let (m, lx) = model(&wave);
    assert_eq!(m.warp_at(tok(&wave, &lx, "__all_sync", 0)), Warp::Wavefront);
    assert!(m
        .plan(wave.as_bytes(), &lx, tok(&wave, &lx, "__all_sync", 0))
        .is_none());
}

fn seeing(src: &str, env: &crate::model::project::Visible) -> (LogicalWarps, Lexed) {
    let lexed = crate::lex::lex(src.as_bytes());
    (
        LogicalWarps::seeing("k.cu", src.as_bytes(), &lexed, env),
        lexed,
    )
}

/// A kernel whose only lane arithmetic is a header's macro, whose constant is a header's too.
const VIA_MACRO: &str = "#include \"utils.h\"\n#define START (WARP_ID * 480)\n__global__ void k(unsigned* out, const unsigned* in) {\n  unsigned t = in[START + threadIdx.x];\n  unsigned flags = 0xffffffff;\n  for (int k = 0; k < 8; ++k) {\n    const bool b = t >> k & 1;\n    flags &= (b ? 0 : 0xffffffff) ^ __ballot_sync(0xffffffff, b);\n  }\n  out[t] = __shfl_sync(0xffffffff, t, __ffs(flags) - 1);\n}\n";

fn header(body: &str) -> crate::model::project::Visible {
    let mut env = crate::model::project::Visible::default();
    env.constants.insert("LOG".into(), (5, "utils.h:1".into()));
    env.lane_macros
        .insert("WARP_ID".into(), (body.into(), "utils.h:2".into()));
    env
}

#[test]
fn a_header_macro_of_32_lane_arithmetic_makes_logical_warps() {
    let env = header("(threadIdx.x >> LOG)");
    let (m, lx) = seeing(VIA_MACRO, &env);
    let s = tok(VIA_MACRO, &lx, "__shfl_sync", 0);
    assert_eq!(m.warp_at(s), Warp::Logical32);
    let p = m.plan(VIA_MACRO.as_bytes(), &lx, s).expect("a plan");
    assert!(matches!(p.rewrite, Rewrite::Width32 { .. }));
    assert!(p.why32.contains("WARP_ID"), "{}", p.why32);
    // The ballot cut to 32 bits by `flags &= … ^ __ballot_sync(…)` gets the own half.
    let b = tok(VIA_MACRO, &lx, "__ballot_sync", 0);
    let p = m.plan(VIA_MACRO.as_bytes(), &lx, b).expect("a ballot plan");
    assert!(matches!(p.rewrite, Rewrite::OwnHalfBallot { .. }));
    // Negative twins: the header's macro spans 64 lanes, or nothing is known of it.
    let (m, lx) = seeing(VIA_MACRO, &header("(threadIdx.x / warpSize)"));
    assert_eq!(
        m.warp_at(tok(VIA_MACRO, &lx, "__shfl_sync", 0)),
        Warp::Wavefront
    );
    let (m, lx) = model(VIA_MACRO);
    assert!(m
        .plan(
            VIA_MACRO.as_bytes(),
            &lx,
            tok(VIA_MACRO, &lx, "__shfl_sync", 0)
        )
        .is_none());
    // The file's own definition of the constant wins over the header's.
    let own = format!("#define LOG 6\n{VIA_MACRO}");
    let (m, lx) = seeing(&own, &env);
    assert_eq!(m.warp_at(tok(&own, &lx, "__shfl_sync", 0)), Warp::Wavefront);
}

#[test]
fn a_ballot_kept_in_a_64_bit_variable_is_not_cut() {
    let src = VIA_MACRO.replace("unsigned flags", "unsigned long long flags");
    let (m, lx) = seeing(&src, &header("(threadIdx.x >> LOG)"));
    let b = tok(&src, &lx, "__ballot_sync", 0);
    assert!(m.plan(src.as_bytes(), &lx, b).is_none());
}

#[test]
fn first_thread_of_a_warp_shows_32_lane_warps() {
    let src = "#define LOG 5\n__global__ void k(unsigned* s) {\n  if (threadIdx.x < 8) s[threadIdx.x << LOG] = 1;\n  s[threadIdx.x] += (threadIdx.x & 31) ? __shfl_sync(0xfffffffe, s[threadIdx.x - 1], 1) : 0;\n}\n";
    let (m, lx) = model(src);
    let s = tok(src, &lx, "__shfl_sync", 0);
    let p = m.plan(src.as_bytes(), &lx, s).expect("a plan");
    assert_eq!(p.applicability, Applicability::Safe);
    assert!(p.why32.contains("<< LOG") || p.why32.contains("& 31"));
    // `<< 5` alone, and `& ~31`, are 32-lane evidence; their 64 twins are not.
    for (ev, want) in [
        ("s[threadIdx.x << 5] = 1", Warp::Logical32),
        ("s[threadIdx.x & ~31] = 1", Warp::Logical32),
        ("s[threadIdx.x << 6] = 1", Warp::Wavefront),
        ("s[threadIdx.x & ~63] = 1", Warp::Wavefront),
    ] {
        let src = format!("__global__ void k(unsigned* s) {{\n  {ev};\n  s[0] = __shfl_sync(0xffffffff, s[threadIdx.x], 0);\n}}\n");
        let (m, lx) = model(&src);
        assert_eq!(m.warp_at(tok(&src, &lx, "__shfl_sync", 0)), want, "{ev}");
    }
}

#[test]
fn a_ballot_compared_with_unsigned_all_ones_gets_the_own_half() {
    let src = "__global__ void k(const float* x) {\n  int lane = threadIdx.x & 31;\n  if (__ballot_sync(~0u, x[lane] > 0) == ~0u) return;\n}\n";
    let (m, lx) = model(src);
    let b = tok(src, &lx, "__ballot_sync", 0);
    let p = m.plan(src.as_bytes(), &lx, b).expect("a ballot plan");
    assert!(matches!(p.rewrite, Rewrite::OwnHalfBallot { .. }));
    // Twin: `~0` is the int -1 (64 ones once widened): no 32-bit test, no rewrite.
    let int = src.replace("== ~0u)", "== ~0)");
    let (m, lx) = model(&int);
    assert!(m
        .plan(int.as_bytes(), &lx, tok(&int, &lx, "__ballot_sync", 0))
        .is_none());
}

#[test]
fn a_local_variable_holding_the_full_mask_lets_a_vote_be_rewritten() {
    let src = "__global__ void k(const float* x, int* out) {\n  int lane = threadIdx.x & 31;\n  unsigned m = 0xffffffff;\n  out[lane] = __all_sync(m, x[lane] > 0);\n}\n";
    let (m, lx) = model(src);
    let a = tok(src, &lx, "__all_sync", 0);
    assert!(matches!(
        m.plan(src.as_bytes(), &lx, a).map(|p| p.rewrite),
        Some(Rewrite::OwnHalfVote { .. })
    ));
    // Twin: the variable changes before the vote (a partial mask): no rewrite.
    let partial = src.replace("  out[lane]", "  m &= 0xffffu;\n  out[lane]");
    let (m, lx) = model(&partial);
    assert!(m
        .plan(partial.as_bytes(), &lx, tok(&partial, &lx, "__all_sync", 0))
        .is_none());
}

/// RWKV's `unsigned mask = 0xffffffff;` in a function of 32-lane logical warps: `port` widens it
/// at each call (HP015), so the HP103 where it is set is PASS; the twin in a function whose
/// lanes span the wavefront stays open.
#[test]
fn a_mask_variable_widened_at_every_call_is_settled() {
    use crate::model::syntax::test_support::fires_open;
    let src = "__global__ void k(float* p) {\n  unsigned mask = 0xffffffff;\n  int lane = threadIdx.x & 31;\n  p[lane] = __shfl_xor_sync(mask, p[lane], 1);\n}\n";
    assert!(
        fires_open(src, "HP103").is_empty(),
        "{:?}",
        fires_open(src, "HP103")
    );
    let wave = src.replace("& 31", "% warpSize");
    assert_eq!(fires_open(&wave, "HP103"), [2]);
}

/// mmdeploy's connected components: a kernel with no lane arithmetic of its own, every launch
/// of which gives 32-thread rows (`dim3 threads(32, 4)`): each row is CUDA's warp, so its
/// shuffle gets width 32 and its 32-bit ballot the lane's own half. Twins: 64-thread rows, a
/// second launch whose block the file does not say, and the same kernel in a header (its
/// includers may launch it otherwise) keep the wavefront form.
#[test]
fn kernels_launched_only_in_32_thread_rows_are_32_lane_logical_warps() {
    let rows = |block: &str, second: &str| {
        format!("__global__ void relabel(int* label, const unsigned char* mask) {{\n  int tx = threadIdx.x;\n  unsigned active = __ballot_sync(0xffffffff, mask[tx] != 0);\n  int idx = label[tx];\n  idx = __shfl_sync(active, idx, tx - 1);\n  label[tx] = idx;\n}}\nvoid run(int* l, const unsigned char* m, int h, dim3 other) {{\n  dim3 threads{block};\n  dim3 blocks(1, h);\n  relabel<<<blocks, threads>>>(l, m);\n{second}}}\n")
    };
    let warp = |path: &str, src: &str| {
        let lexed = crate::lex::lex(src.as_bytes());
        let m = LogicalWarps::seeing(
            path,
            src.as_bytes(),
            &lexed,
            &crate::model::project::NOTHING,
        );
        let i = tok(src, &lexed, "__shfl_sync", 0);
        let plan = m.plan(src.as_bytes(), &lexed, i).map(|p| p.rewrite);
        (m.warp_at(i), plan)
    };
    let src = rows("(32, 4)", "");
    let (w, plan) = warp("cc.cu", &src);
    assert_eq!(w, Warp::Logical32);
    assert!(matches!(plan, Some(Rewrite::Width32 { .. })), "{plan:?}");
    assert_eq!(warp("cc.cu", &rows("(64, 2)", "")).0, Warp::Wavefront);
    assert_eq!(
        warp(
            "cc.cu",
            &rows("(32, 4)", "  relabel<<<blocks, other>>>(l, m);\n")
        )
        .0,
        Warp::Wavefront
    );
    assert_eq!(warp("cc.cuh", &src).0, Warp::Wavefront);
}

/// LeetCUDA's norms: `template <const int kWarpSize = WARP_SIZE>` and a shuffle loop from
/// `kWarpSize >> 1` (the template parameter's default, a constant of 32, halved) in a helper
/// the block reduction calls with `<WARP_SIZE>`: 32-lane logical warps, width 32 on the
/// shuffle, and the constant (used in the template header and the caller) is their size.
/// Twin: the caller computes lanes from `warpSize`, so the helper's width is a choice.
#[test]
fn offsets_from_half_a_template_default_are_32_lane_logical_warps() {
    use crate::model::syntax::test_support::fires_open;
    let src = "#define WARP_SIZE 32\ntemplate <const int kWarpSize = WARP_SIZE>\n__device__ float wsum(float val) {\n  for (int mask = kWarpSize >> 1; mask >= 1; mask >>= 1)\n    val += __shfl_xor_sync(0xffffffff, val, mask);\n  return val;\n}\n__device__ float bsum(float val, float* shared) {\n  int warp = threadIdx.x / WARP_SIZE;\n  int lane = threadIdx.x % WARP_SIZE;\n  val = wsum<WARP_SIZE>(val);\n  if (lane == 0) shared[warp] = val;\n  return val;\n}\n";
    let (m, lexed) = model(src);
    let shuffle = tok(src, &lexed, "__shfl_xor_sync", 0);
    let plan = m.plan(src.as_bytes(), &lexed, shuffle).expect("a plan");
    assert_eq!(plan.applicability, Applicability::Safe);
    assert!(matches!(plan.rewrite, Rewrite::Width32 { .. }));
    assert!(
        fires_open(src, "HP101").is_empty(),
        "{:?}",
        fires_open(src, "HP101")
    );
    let wave = src.replace("threadIdx.x % WARP_SIZE", "threadIdx.x % warpSize");
    assert_eq!(fires_open(&wave, "HP101"), [1]);
}

/// An xor by a lane mask below 32 never leaves the lane's 32-lane half: HIP's default width
/// keeps CUDA's meaning, so its width-32 rewrite is marked as not needed (`kept`), also in a
/// function that mixes 32- and 64-lane lanes (where it stays unsafe: width 32 would bind a
/// later move to 64 lanes). Twins: a `__shfl_down` by the same
/// offsets crosses halves (unsafe there), and an xor whose offsets start from `warpSize / 2`
/// or an unknown size is not known to stay below 32.
#[test]
fn xors_below_32_keep_their_meaning_at_any_width() {
    let src = "__device__ float f(float v, float* s) {\n  int lane = threadIdx.x % warpSize;\n  for (int m = 16; m >= 1; m /= 2) v += __shfl_xor_sync(0xffffffff, v, m);\n  for (int m = 1; m < 32; m *= 2) v += __shfl_xor_sync(0xffffffff, v, m);\n  v += __shfl_xor(v, 8);\n  for (int d = 16; d > 0; d >>= 1) v += __shfl_down(v, d);\n  s[lane] = v;\n  return v;\n}\n";
    let (m, lx) = model(src);
    for nth in 0..2 {
        let i = tok(src, &lx, "__shfl_xor_sync", nth);
        assert_eq!(m.warp_at(i), Warp::Mixed);
        let p = m.plan(src.as_bytes(), &lx, i).expect("a plan");
        assert!(p.kept, "xor {nth}");
        assert_eq!(p.applicability, Applicability::Unsafe);
    }
    let p = m
        .plan(src.as_bytes(), &lx, tok(src, &lx, "__shfl_xor(", 0))
        .expect("a plan");
    assert!(p.kept);
    let down = m
        .plan(src.as_bytes(), &lx, tok(src, &lx, "__shfl_down", 0))
        .expect("a plan");
    assert!(!down.kept);
    assert_eq!(down.applicability, Applicability::Unsafe);
    // Offsets from 32 (`m < 64`), or from a size the model cannot read.
    for twin in [
        src.replace("m < 32", "m < 64"),
        src.replace("int m = 16", "int m = W / 2"),
    ] {
        let (m, lx) = model(&twin);
        let i = tok(
            &twin,
            &lx,
            "__shfl_xor_sync",
            if twin.contains("64") { 1 } else { 0 },
        );
        let p = m.plan(twin.as_bytes(), &lx, i).expect("a plan");
        assert!(!p.kept, "{twin}");
    }
}

/// A template parameter counts with its default: `template <int N, int WARP_SIZE = 32>` and
/// `threadIdx.x / WARP_SIZE` is 32-lane evidence (FasterTransformer's `block_sum`), and its full
/// mask spelled `uint32_t(-1)` is the full mask. The twin: without a default the size is not
/// known, and the function is not one of 32-lane logical warps.
#[test]
fn a_template_default_of_32_is_a_logical_warp() {
    let src = "template <int N, int WARP_SIZE = 32>\n__device__ float block_sum(float* red, float sum) {\n  int warp = threadIdx.x / WARP_SIZE;\n  int lane = threadIdx.x % WARP_SIZE;\n  for (int m = WARP_SIZE / 2; m >= 1; m /= 2) sum += __shfl_xor_sync(uint32_t(-1), sum, m);\n  if (lane == 0) red[warp] = sum;\n  __syncthreads();\n  if (lane < N) sum = red[lane];\n  for (int m = N / 2; m >= 1; m /= 2) sum += __shfl_xor_sync(uint32_t(-1), sum, m);\n  return __shfl_sync(uint32_t(-1), sum, 0);\n}\n";
    let (m, lx) = model(src);
    let i = tok(src, &lx, "__shfl_sync", 0);
    assert_eq!(m.warp_at(i), Warp::Logical32);
    assert_eq!(
        m.handled(src.as_bytes(), &lx, i).map(|h| h.0),
        Some(Applicability::Safe)
    );
    let first = m
        .plan(src.as_bytes(), &lx, tok(src, &lx, "__shfl_xor_sync", 0))
        .expect("a plan");
    assert!(first.kept);
    // `N / 2` is not known to stay below 32.
    let second = m
        .plan(src.as_bytes(), &lx, tok(src, &lx, "__shfl_xor_sync", 1))
        .expect("a plan");
    assert!(!second.kept);
    let twin = src.replace("int WARP_SIZE = 32", "int WARP_SIZE");
    let (m, lx) = model(&twin);
    assert_ne!(
        m.warp_at(tok(&twin, &lx, "__shfl_sync", 0)),
        Warp::Logical32
    );
}

/// omniserve's `mmha::shfl_mask(n)`: a mask returned by a function the file declares with a
/// 32-bit return type (inside a namespace, called qualified) is a 32-bit mask (HP015: HIP's
/// `_sync` calls `static_assert` 64 bits). Twins: the helper returns `unsigned long long`, or
/// a type the model cannot read (`MaskT`): nothing.
#[test]
fn a_mask_returned_by_a_32_bit_helper_is_32_bits() {
    let narrow = |src: &str| {
        let (m, lx) = model(src);
        m.narrow_mask(src.as_bytes(), &lx, tok(src, &lx, "__shfl_xor_sync", 0))
            .is_some()
    };
    let src = "namespace mmha {\ninline __device__ uint32_t shfl_mask(int n) { return n == 32 ? uint32_t(-1) : (1u << n) - 1u; }\n}\n__global__ void k(float* x, int n) {\n  float v = x[threadIdx.x];\n  for (int m = n / 2; m >= 1; m /= 2) v = fmaxf(v, __shfl_xor_sync(mmha::shfl_mask(n), v, m));\n  x[threadIdx.x] = v;\n}\n";
    assert!(narrow(src));
    for twin in [
        src.replace(
            "inline __device__ uint32_t",
            "inline __device__ unsigned long long",
        ),
        src.replace(
            "inline __device__ uint32_t",
            "template <typename MaskT> inline __device__ MaskT",
        ),
    ] {
        assert!(!narrow(&twin), "{twin}");
    }
}

/// A template parameter's uses are its function's: FasterTransformer's `block_sum<N, WARP_SIZE
/// = 32>` in a file whose kernel declares its own `constexpr unsigned WARP_SIZE{32}` is settled
/// by `block_sum` alone (its warp-level calls keep CUDA's meaning). Twin: the same function
/// mixing in `warpSize` keeps the parameter open.
#[test]
fn a_template_parameter_is_used_only_in_its_function() {
    use crate::model::syntax::test_support::fires_open;
    let src = "template <int N, int WARP_SIZE = 32>\n__device__ float block_sum(float* red, float sum) {\n  int warp = threadIdx.x / WARP_SIZE;\n  int lane = threadIdx.x % WARP_SIZE;\n  for (int m = WARP_SIZE / 2; m >= 1; m /= 2) sum += __shfl_xor_sync(uint32_t(-1), sum, m);\n  if (lane == 0) red[warp] = sum;\n  __syncthreads();\n  return red[0];\n}\n__global__ void k(float* x) {\n  constexpr unsigned WARP_SIZE{32};\n  __shared__ float red[8];\n  x[0] = block_sum<8>(red, x[threadIdx.x]) + WARP_SIZE;\n}\n";
    assert!(
        !fires_open(src, "HP101").contains(&1),
        "{:?}",
        fires_open(src, "HP101")
    );
    let mixed = src.replace("if (lane == 0)", "if (lane == 0 && warpSize > 0)");
    assert!(
        fires_open(&mixed, "HP101").contains(&1),
        "{:?}",
        fires_open(&mixed, "HP101")
    );
}

/// darknet's `__ballot_custom`: a helper declared `uint32_t` returning `__ballot(v)`, called
/// from a kernel of 32-lane logical warps, keeps the ballot in 32 bits (HP106) and gets the
/// lane's own half; twin: declared `unsigned long long`, nothing is cut and nothing changes.
#[test]
fn a_ballot_returned_as_32_bits_gets_the_lanes_own_half() {
    use crate::model::syntax::test_support::fires_open;
    let src = "template <typename T>\n__device__ inline uint32_t ballot32(T v) {\n  return __ballot(v);\n}\n__global__ void pack(const float* x, uint32_t* out) {\n  int lane = threadIdx.x % 32;\n  uint32_t bits = ballot32(x[threadIdx.x] > 0);\n  if (lane == 0) out[threadIdx.x / 32] = bits;\n}\n";
    let (m, lx) = model(src);
    let p = m
        .plan(src.as_bytes(), &lx, tok(src, &lx, "__ballot", 0))
        .expect("a plan");
    assert!(matches!(p.rewrite, Rewrite::OwnHalfBallot { .. }));
    assert!(
        fires_open(src, "HP106").is_empty(),
        "{:?}",
        fires_open(src, "HP106")
    );
    let wide = src.replace(
        "inline uint32_t ballot32",
        "inline unsigned long long ballot32",
    );
    let (m, lx) = model(&wide);
    assert!(m
        .plan(wide.as_bytes(), &lx, tok(&wide, &lx, "__ballot", 0))
        .is_none());
    // Outside a function of 32-lane logical warps the cut is open.
    let wave = src
        .replace("% 32", "% warpSize")
        .replace("/ 32", "/ warpSize");
    assert_eq!(fires_open(&wave, "HP106"), [3]);
}

/// ggml: `WARP_SIZE` is the width its shuffles pass (32-lane logical warps) and, elsewhere, a
/// tile size in kernels without warp-level work (`tile[i * (WARP_SIZE + 1) + k]`): the
/// constant is the logical warp's size (HP101 PASS). Twins: the tile kernel also uses the
/// constant as a lane id beside a shuffle of width `warpSize` (two warp sizes): open.
#[test]
fn a_logical_warp_size_also_used_as_a_tile_size_is_the_logical_warps() {
    use crate::model::syntax::test_support::fires_open;
    let src = "#define WARP_SIZE 32\n__global__ void norm(float* x, int n) {\n  float v = 0.0f;\n  for (int c = threadIdx.x; c < n; c += WARP_SIZE) v += x[c];\n  for (int mask = 16; mask > 0; mask >>= 1)\n    v += __shfl_xor_sync(0xffffffff, v, mask, 32);\n  x[threadIdx.x] = v;\n}\n__global__ void load(int* t, const int* q, int i, int k) {\n  __shared__ int tile[64 * (WARP_SIZE + 1)];\n  tile[i * (WARP_SIZE + 1) + k] = q[k];\n  t[k] = tile[k];\n}\nvoid host(float* x, int n) {\n  norm<<<n, dim3(WARP_SIZE, 1, 1)>>>(x, n);\n}\n";
    assert!(
        fires_open(src, "HP101").is_empty(),
        "{:?}",
        fires_open(src, "HP101")
    );
    let lanes = src.replace(
        "  t[k] = tile[k];\n",
        "  int lane = threadIdx.x % WARP_SIZE;\n  t[k] = __shfl_down_sync(0xffffffff, tile[k], lane, warpSize);\n",
    );
    assert_eq!(fires_open(&lanes, "HP101"), [1]);
}

/// PhysX (BSD-3-Clause, `PxgCommonDefines.h`): `#define WARP_SIZE (1U << LOG2_WARP_SIZE)` and
/// lane ids `threadIdx.x & (WARP_SIZE - 1)`: a constant expression of known constants is worth
/// its value, so the kernel's lanes are 32-lane logical warps and its broadcast gets width 32.
/// Twin: the same spelling of a 64-lane size keeps HIP's 64-lane form.
#[test]
fn constant_expressions_give_the_logical_warp() {
    let src = "#define LOG2_WARP_SIZE 5\n#define WARP_SIZE (1U << LOG2_WARP_SIZE)\n__global__ void k(int* out, int n) {\n  const unsigned lane = threadIdx.x & (WARP_SIZE - 1);\n  const unsigned item = (threadIdx.x + blockIdx.x * blockDim.x) / WARP_SIZE;\n  int v = 0;\n  if (lane == 0) v = atomicAdd(out, 1);\n  v = __shfl_sync(0xffffffff, v, 0);\n  out[item * 64 + lane] = v;\n}\n";
    let (m, lx) = model(src);
    let s = tok(src, &lx, "__shfl_sync", 0);
    assert_eq!(m.warp_at(s), Warp::Logical32);
    let p = m.plan(src.as_bytes(), &lx, s).expect("a plan");
    assert!(matches!(p.rewrite, Rewrite::Width32 { .. }));
    assert_eq!(p.why32, "`& (WARP_SIZE - 1)`");
    let wide = src.replace("LOG2_WARP_SIZE 5", "LOG2_WARP_SIZE 6");
    let (m, lx) = model(&wide);
    let s = tok(&wide, &lx, "__shfl_sync", 0);
    assert_eq!(m.warp_at(s), Warp::Wavefront);
    assert!(m.plan(wide.as_bytes(), &lx, s).is_none());
}

/// cuvs (Apache-2.0, `ivf_sq_build.cuh`): `constexpr uint32_t kWarpSize = kIndexGroupSize;`
/// names a constant of the file (or of a header): the lane id `% kWarpSize` is 32-lane and the
/// lane-0 broadcast `__shfl_sync(0xFFFFFFFF, list_id, 0)` gets width 32 (on a 64-lane
/// wavefront the second row would read the first row's list). Twin: an alias of 64.
#[test]
fn a_constant_named_after_another_takes_its_value() {
    let src = "constexpr static uint32_t kIndexGroupSize = 32;\n__global__ void fill(const uint32_t* labels, uint32_t* sizes, int64_t n) {\n  constexpr uint32_t kWarpSize = kIndexGroupSize;\n  const uint32_t lane_id = threadIdx.x % kWarpSize;\n  const int64_t row = int64_t(threadIdx.x / kWarpSize) + int64_t(blockIdx.x) * 4;\n  if (row >= n) return;\n  uint32_t list_id = 0;\n  if (lane_id == 0) list_id = atomicAdd(sizes + labels[row], 1);\n  list_id = __shfl_sync(0xFFFFFFFF, list_id, 0);\n  sizes[list_id] = lane_id;\n}\n";
    let (m, lx) = model(src);
    let s = tok(src, &lx, "__shfl_sync", 0);
    assert_eq!(m.warp_at(s), Warp::Logical32);
    assert!(matches!(
        m.plan(src.as_bytes(), &lx, s).expect("a plan").rewrite,
        Rewrite::Width32 { .. }
    ));
    // The constant from an included header counts as the file's own would.
    let unit = src.replace("constexpr static uint32_t kIndexGroupSize = 32;\n", "");
    let mut env = crate::model::project::Visible::default();
    env.constants
        .insert("kIndexGroupSize".into(), (32, "ivf.hpp:28".into()));
    let (m, lx) = seeing(&unit, &env);
    assert_eq!(
        m.warp_at(tok(&unit, &lx, "__shfl_sync", 0)),
        Warp::Logical32
    );
    let wide = src.replace("kIndexGroupSize = 32", "kIndexGroupSize = 64");
    let (m, lx) = model(&wide);
    assert_eq!(
        m.warp_at(tok(&wide, &lx, "__shfl_sync", 0)),
        Warp::Wavefront
    );
}

/// PhysX's `typedef uint32_t PxU32;`: a ballot kept in a `PxU32` is kept in 32 bits (the lane's
/// own half), and a `PxU32` mask parameter of a `_sync` call is a 32-bit mask HIP rejects (the
/// translator widens it to the lane's own half). Twin: a 64-bit alias keeps the whole ballot.
#[test]
fn integer_type_aliases_have_their_width() {
    let src = "typedef uint32_t PxU32;\n__device__ PxU32 reduce(const PxU32 syncMask, PxU32 v) {\n  for (PxU32 r = 16; r > 0; r >>= 1) v += __shfl_xor_sync(syncMask, v, r, 32);\n  return v;\n}\n__global__ void k(PxU32* out) {\n  const PxU32 lane = threadIdx.x & 31;\n  PxU32 mask = __ballot_sync(0xffffffff, lane < 7);\n  out[lane] = __popc(mask) + reduce(0xffffffff, lane);\n}\n";
    let (m, lx) = model(src);
    let b = tok(src, &lx, "__ballot_sync", 0);
    assert!(matches!(
        m.plan(src.as_bytes(), &lx, b)
            .expect("a ballot plan")
            .rewrite,
        Rewrite::OwnHalfBallot { .. }
    ));
    let s = tok(src, &lx, "__shfl_xor_sync", 0);
    let n = m
        .narrow_mask(src.as_bytes(), &lx, s)
        .expect("a 32-bit mask");
    assert_eq!(n.fix, MaskFix::OwnHalf);
    assert_eq!(n.applicability, Applicability::Safe);
    let wide = src.replace("typedef uint32_t PxU32;", "typedef uint64_t PxU32;");
    let (m, lx) = model(&wide);
    assert!(m
        .plan(wide.as_bytes(), &lx, tok(&wide, &lx, "__ballot_sync", 0))
        .is_none());
    assert!(m
        .narrow_mask(wide.as_bytes(), &lx, tok(&wide, &lx, "__shfl_xor_sync", 0))
        .is_none());
    // A header's alias counts in the files that include it.
    let unit = src.replace("typedef uint32_t PxU32;\n", "");
    let mut env = crate::model::project::Visible::default();
    env.narrow_types.insert("PxU32".into());
    let (m, lx) = seeing(&unit, &env);
    assert!(m
        .plan(unit.as_bytes(), &lx, tok(&unit, &lx, "__ballot_sync", 0))
        .is_some());
    assert_eq!(
        narrow_types(b"typedef unsigned int u32;\nusing i16 = short;\ntypedef uint64_t u64;\nusing F = float;\n", &crate::lex::lex(b"typedef unsigned int u32;\nusing i16 = short;\ntypedef uint64_t u64;\nusing F = float;\n")),
        ["i16", "u32"]
    );
}

/// llm.c's `dev/cuda/common.h`: `warpReduceSum` (offsets 16…1, full mask) is a 32-lane
/// helper `port` rewrites safely, so a caller in another file may count on it. Twins: a helper
/// whose shuffles span 64 lanes (offset 32), and one whose warp-level call has no rewrite.
#[test]
fn included_logical32_helpers() {
    let src = "__device__ float warpReduceSum(float val) {\n    for (int offset = 16; offset > 0; offset /= 2) {\n        val += __shfl_xor_sync(0xFFFFFFFF, val, offset);\n    }\n    return val;\n}\n";
    let lexed = crate::lex::lex(src.as_bytes());
    assert_eq!(
        logical32_helpers("common.h", src.as_bytes(), &lexed),
        ["warpReduceSum"]
    );
    let wide = src.replace("offset = 16", "offset = 32");
    let lexed = crate::lex::lex(wide.as_bytes());
    assert!(logical32_helpers("common.h", wide.as_bytes(), &lexed).is_empty());
    let matched = "__device__ int g(int v) { return __match_any_sync(0xFFFFFFFF, v) & (threadIdx.x % 32); }\n";
    let lexed = crate::lex::lex(matched.as_bytes());
    assert!(logical32_helpers("common.h", matched.as_bytes(), &lexed).is_empty());
}

/// A warp index nothing reads (`const unsigned warp_idx = threadIdx.x / 32u;`, LichtFeld-Studio)
/// is no evidence of 32-lane logical warps: the function's `warpSize` loop keeps the wavefront.
/// Twin: the same index read (a slot of shared memory) makes the function mixed.
#[test]
fn an_unread_warp_index_is_no_evidence() {
    let src = "__global__ void k(float* o) {\n  __shared__ float part[32];\n  const unsigned warp_idx = threadIdx.x / 32u;\n  float v = o[threadIdx.x];\n  for (int d = 1; d < warpSize; d *= 2) v += __shfl_down_sync(0xffffffffffffffffull, v, d);\n  part[0] = v;\n}\n";
    let (m, lx) = model(src);
    assert_eq!(
        m.warp_at(tok(src, &lx, "__shfl_down_sync", 0)),
        Warp::Wavefront
    );
    let read = src.replace("part[0]", "part[warp_idx]");
    let (m, lx) = model(&read);
    assert_eq!(
        m.warp_at(tok(&read, &lx, "__shfl_down_sync", 0)),
        Warp::Mixed
    );
}

/// ADEPT's warp reduction declares `int warpSize = 32;`, shadowing the builtin, and reduces
/// from `warpSize / 2`: offsets 16…1, a 32-lane logical warp (width 32). Twins: the same
/// local assigned again later is no constant, and the builtin `warpSize` is the wavefront.
#[test]
fn a_local_set_once_is_worth_its_value() {
    let src = "__device__ short f(short val) {\n  int warpSize = 32;\n  for (int offset = warpSize / 2; offset > 0; offset /= 2) val = max(val, __shfl_down_sync(0xffffffff, val, offset));\n  return val;\n}\n";
    let (m, lx) = model(src);
    let i = tok(src, &lx, "__shfl_down_sync", 0);
    assert_eq!(m.warp_at(i), Warp::Logical32);
    assert!(matches!(
        m.plan(src.as_bytes(), &lx, i).map(|p| p.rewrite),
        Some(Rewrite::Width32 { .. })
    ));
    let again = src.replace("  for", "  warpSize = blockDim.x;\n  for");
    let (m, lx) = model(&again);
    assert_ne!(
        m.warp_at(tok(&again, &lx, "__shfl_down_sync", 0)),
        Warp::Logical32
    );
    let builtin = src.replace("  int warpSize = 32;\n", "");
    let (m, lx) = model(&builtin);
    assert_ne!(
        m.warp_at(tok(&builtin, &lx, "__shfl_down_sync", 0)),
        Warp::Logical32
    );
}

/// `unsigned m = __ballot_sync(__activemask(), p);` in a function of 32-lane logical warps:
/// the ballot is kept in 32 bits (own half), but `__activemask()` is its mask argument, which
/// HIP takes as 64 bits: it stays as written, and the function is still handled. Twin: an
/// `__activemask()` kept in 32 bits itself gets the own half.
#[test]
fn an_activemask_handed_to_a_sync_call_stays_64_bits() {
    let src = "__global__ void k(int* out, const int* x) {\n  int lane = threadIdx.x % 32;\n  unsigned m = __ballot_sync(__activemask(), x[threadIdx.x] > 0);\n  unsigned a = __activemask();\n  if (lane == 0) out[threadIdx.x / 32] = __popc(m) + __popc(a);\n}\n";
    let (m, lx) = model(src);
    let inner = tok(src, &lx, "__activemask", 0);
    assert!(m.plan(src.as_bytes(), &lx, inner).is_none());
    let kept = tok(src, &lx, "__activemask", 1);
    assert!(matches!(
        m.plan(src.as_bytes(), &lx, kept).map(|p| p.rewrite),
        Some(Rewrite::OwnHalfBallot { .. })
    ));
    assert!(m
        .handled(src.as_bytes(), &lx, tok(src, &lx, "__ballot_sync", 0))
        .is_some());
}

/// A sub-warp group size divided from a 32-lane warp (`kWarp_size = warp_size / ROWS`, How to
/// optimize in GPU's SGEMV for short rows) keeps its lanes inside the 32-lane warp: the kernel
/// and its offsets-only helper are 32-lane logical warps, whether the divisor is a template
/// parameter or a file constant (a known 16 is neutral, not "a size not set here"). Twin: a
/// group size divided from the block's extent is not known to stay inside 32 lanes.
#[test]
fn a_group_divided_from_a_32_lane_warp_stays_inside_it() {
    let helper = "template <unsigned int W>\n__device__ float reduce(float s) {\n  if (W >= 32) s += __shfl_down_sync(0xffffffff, s, 16);\n  if (W >= 2) s += __shfl_down_sync(0xffffffff, s, 1);\n  return s;\n}\n";
    let kernel = |group: &str, tail: &str| {
        format!("{helper}template <int ROWS>\n__global__ void k(const float* a, float* y) {{\n  int tx = threadIdx.x;\n  const int warp_size = 32;\n  int lane = tx % warp_size;\n  const int kWarp_size = {group};\n  int g = lane % kWarp_size;\n  float r = reduce<kWarp_size>(a[tx]);\n  if (g == 0) y[tx] = r;\n}}\n{tail}")
    };
    for src in [
        kernel("warp_size / ROWS", ""),
        kernel(
            "warp_size / ROWS",
            "void host() { const int ROWS = 2; k<ROWS><<<1, 32>>>(0, 0); }\n",
        ),
    ] {
        let (m, lx) = model(&src);
        let i = tok(&src, &lx, "__shfl_down_sync", 0);
        assert_eq!(m.warp_at(i), Warp::Logical32, "{src}");
        assert!(
            m.evidence(tok(&src, &lx, "kWarp_size", 1)).1.is_none(),
            "{src}"
        );
    }
    let src = kernel("blockDim.x / ROWS", "");
    let (m, lx) = model(&src);
    assert_ne!(
        m.warp_at(tok(&src, &lx, "__shfl_down_sync", 0)),
        Warp::Logical32
    );
}

#[path = "tests_warp_ids.rs"]
mod warp_ids;
