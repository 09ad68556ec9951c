//! Warp-size tests of shapes whose meaning holds on 64-lane wavefronts: shuffle loops guarded
//! to their 32-lane segment, block geometry by axis extents, and template calls of
//! logical-warp helpers.
use crate::model::syntax::test_support::{fires, fires_open};

/// Segmented scans over `lane = tid % 32` whose shifted values are used only where the source
/// lane is in the same 32-lane segment (arrayfire's reduce-by-key, through the project's own
/// shuffle wrappers, which `port` cannot give a width): each half of a 64-lane wavefront scans
/// on its own, as the code means. Twins: the same loops unguarded stay open.
#[test]
fn shuffle_loops_guarded_to_their_32_lane_segment_keep_their_meaning() {
    let src = "__global__ void scan(int *o, int n) {\n  int tidx = blockIdx.x * blockDim.x + threadIdx.x;\n  int laneid = tidx % 32;\n  int id = o[tidx];\n  for (int offset = 1; offset < 32; offset <<= 1) {\n    int y = shfl_up_sync(id, offset);\n    if (laneid >= offset) id += y;\n  }\n  float v = o[tidx];\n  for (int delta = 1; delta < 32; delta <<= 1) {\n    int ok = (laneid < (32 - delta)) && (tidx + delta < n);\n    float u = shfl_down_sync(v, delta);\n    if (ok) v += u;\n  }\n  o[tidx] = id + v;\n}\n";
    assert_eq!(fires(src, "HP104"), [5, 10]);
    assert!(fires_open(src, "HP104").is_empty());
    let unguarded = src
        .replace("if (laneid >= offset) id += y;", "id += y;")
        .replace(
            "int ok = (laneid < (32 - delta)) && (tidx + delta < n);",
            "int ok = tidx + delta < n;",
        );
    assert_eq!(fires_open(&unguarded, "HP104"), [5, 10]);
}

/// llm-awq's `blockReduceSum<T>` calls `warpReduceSum<T>(val)`, a template call of a helper
/// whose shuffles `port` gives width 32: the 32-lane ids and per-warp slots are the logical
/// warp's, as for the same call without template arguments. Twin: a helper defined nowhere in
/// the file (its warp unknown) keeps them open.
#[test]
fn template_calls_of_logical_warp_helpers_settle_their_callers() {
    let src = "#define FINAL_MASK 0xffffffff\ntemplate <typename T>\n__inline__ __device__ T warpReduceSum(T val) {\n  for (int mask = 16; mask > 0; mask >>= 1) val += __shfl_xor_sync(FINAL_MASK, val, mask);\n  return val;\n}\ntemplate <typename T>\n__inline__ __device__ T blockReduceSum(T val) {\n  static __shared__ T shared[32];\n  int lane = threadIdx.x & 0x1f;\n  int wid = threadIdx.x >> 5;\n  val = warpReduceSum<T>(val);\n  if (lane == 0) shared[wid] = val;\n  __syncthreads();\n  val = (threadIdx.x < (blockDim.x / 32.f)) ? shared[lane] : (T)(0.0f);\n  return warpReduceSum<T>(val);\n}\n";
    assert!(fires(src, "HP102").len() >= 2);
    assert!(
        fires_open(src, "HP102").is_empty(),
        "{:?}",
        fires_open(src, "HP102")
    );
    let elsewhere = src.replace("warpReduceSum<T>(val)", "otherReduceSum<T>(val)");
    assert!(!fires_open(&elsewhere, "HP102").is_empty());
}

/// A block's threads divided by its x extent is its y extent (arrayfire's
/// `THREADS_Y = THREADS_PER_BLOCK / THREADS_X`); twin: divided by a warp-named 32 it counts
/// warps.
#[test]
fn block_threads_over_an_axis_extent_is_geometry() {
    let geometry = "static const unsigned THREADS_X = 32;\n__global__ void k(float* o) {\n  unsigned row = threadIdx.x / THREADS_X;\n  float v = o[row];\n  o[0] = __shfl_down_sync(0xffffffff, v, 1);\n}\n";
    assert!(fires(geometry, "HP102").is_empty());
    let warps = geometry.replace("threadIdx.x / THREADS_X", "threadIdx.x / 32");
    assert_eq!(fires(&warps, "HP102"), [3]);
}
