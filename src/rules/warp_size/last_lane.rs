//! HP114: the last lane named from the wavefront in a function whose lanes are 32 wide. A lane
//! id bounded to 0–31 (`threadIdx.x & 31`, `% 32`, a variable set only so) compared with
//! `warpSize - 1` never matches on a 64-lane wavefront (63 is out of its range), so the lane
//! that should store a warp's scan total never does; `threadIdx.x == warpSize - 1` in such a
//! function picks thread 63, the last lane of the wavefront, not of the 32-lane logical warp
//! whose total the function's scans leave in lane 31 (surfelwarp's solver kernels: `lane_id =
//! threadIdx.x & 31`, a 5-step `warp_scan`, then `if (lane_id == warpSize - 1)`).
//!
//! One finding per function, naming every such test; the function's 32-lane lane and warp
//! arithmetic (HP102) and per-warp slots (HP105) are that one decision's, folded into it.

use super::flow::{is_warpsize_minus_1, parts, strip_parens, Flow};
use crate::finding::{Finding, Folded};
use crate::gate::Status;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::model::syntax::Src;
use std::collections::HashMap;
use tree_sitter::Node;

rule!(LAST_LANE_OF_WAVEFRONT, "HP114", WarpSize, Remediation, Correctness,
    summary: "The last lane named from the wavefront (`warpSize - 1`) in a function whose lanes are 32-lane logical warps: a lane id bounded to 0–31 (`threadIdx.x & 31`, `% 32`, a variable set only so) compared with it, or `threadIdx.x == warpSize - 1` beside such an id. One finding per function; its 32-lane lane and warp ids (HP102) and per-warp slots (HP105) are folded into it.",
    why: "On a 64-lane wavefront `warpSize - 1` is 63: a lane id of 0–31 never equals it, so the lane that should store a warp's scan or reduction result never does, and `threadIdx.x == 63` is the wavefront's last lane, not lane 31 where a 32-lane scan leaves its total. On NVIDIA both read 31 and the code works.",
    bad: "int lane = threadIdx.x & 31;\nv = warp_scan(v);   // 32 lanes\nif (lane == warpSize - 1) sums[threadIdx.x >> 5] = v;",
    good: "int lane = threadIdx.x & 31;\nv = warp_scan(v);   // 32 lanes, width 32 on HIP\nif (lane == 31) sums[threadIdx.x >> 5] = v;",
    fix: "Keep the 32-lane logical warps (compare with 31, and keep every shuffle of the function 32 wide), or move the function to the wavefront (lane and warp ids from `warpSize`, scans over `warpSize` lanes).",
    refs: [super::REF_WAVE, super::REF_PORTING],
);

/// A test of the function `f` that names the wavefront's last lane: the lane side, and whether
/// it is a 32-lane id (else `threadIdx.x`).
fn tests<'a>(
    s: &Src<'a>,
    f: Node<'a>,
    flow: &Flow,
    why32: Option<&str>,
) -> Vec<(Node<'a>, &'a str, bool)> {
    let mut out = Vec::new();
    for b in s.descendants(f, K::BinaryExpression) {
        let (op, l, r) = parts(s, b);
        if op != "==" && op != "!=" {
            continue;
        }
        let side = if is_warpsize_minus_1(s, r) {
            l
        } else if is_warpsize_minus_1(s, l) {
            r
        } else {
            continue;
        };
        let side = strip_parens(side);
        if flow.bounded_by_32(s, side) {
            out.push((b, s.text(side), true));
        } else if side.node_kind() == K::FieldExpression
            && side
                .field(F::Argument)
                .is_some_and(|a| s.text(a) == "threadIdx")
            && s.text(side).ends_with('x')
            && why32.is_some()
        {
            out.push((b, s.text(side), false));
        }
    }
    out
}

/// The HP114 finding of function `f`, with its 32-lane arithmetic folded into it.
pub(super) fn last_lane_tests(
    s: &Src,
    f: Node,
    flow: &Flow,
    warp32: &HashMap<&str, u64>,
    out: &mut Vec<Finding>,
) {
    // A class body is read for its members' initialisers; its member functions are read on
    // their own.
    // Every test names `warpSize`: a function that does not is read no further.
    if f.node_kind() != K::FunctionDefinition || !s.text(f).contains("warpSize") {
        return;
    }
    // What says the function's warps are 32 lanes: a lane id bounded to 0–31, or a warp-size
    // constant worth 32 it counts with.
    let constant = || {
        s.descendants(f, K::Identifier)
            .into_iter()
            .map(|i| s.text(i))
            .find(|t| warp32.contains_key(t))
            .map(|t| format!("`{t}` = 32"))
    };
    let why32 = if flow.has_bounded_lane() {
        Some("a lane id of 0–31".to_string())
    } else {
        constant()
    };
    let found = tests(s, f, flow, why32.as_deref());
    let Some(&(first, side, bounded)) = found.first() else {
        return;
    };
    let lines: Vec<String> = found
        .iter()
        .map(|(b, _, _)| (s.line(b.start_byte()) + 1).to_string())
        .collect();
    let what = if bounded {
        format!("`{side}` runs 0–31, so `{}` never holds on a 64-lane wavefront (`warpSize - 1` is 63): the lane that should keep the 32-lane warp's result never does", s.text(first))
    } else {
        format!("`{}` picks thread 63 on a 64-lane wavefront, the last lane of the wavefront, not lane 31 where the function's 32-lane logical warps ({}) leave their result", s.text(first), why32.as_deref().unwrap_or_default())
    };
    let more = if lines.len() > 1 {
        format!(" (tests at lines {})", lines.join(", "))
    } else {
        String::new()
    };
    let at = format!("{}:{}", s.ctx.path, lines[0]);
    let mut head = s.ctx.finding(
        &LAST_LANE_OF_WAVEFRONT,
        first.byte_range(),
        format!("the last lane named from the wavefront in a function of 32-lane logical warps: {what}{more}"),
        Some("keep the 32-lane logical warps: compare with 31 (the size the lane id uses, minus one) and keep every shuffle of the function 32 wide; or move the function to the wavefront: lane and warp ids from `warpSize`, scans over `warpSize` lanes".into()),
    );
    // The function's 32-lane ids and per-warp slots are this decision's.
    let range = f.byte_range();
    for g in out.iter_mut().filter(|g| {
        matches!(g.rule.as_str(), "HP102" | "HP105")
            && g.status != Status::Pass
            && range.start <= g.byte_range.0
            && g.byte_range.1 <= range.end
    }) {
        Folded::fold(g, at.clone());
        g.message.push_str(&format!(" (folded into HP114 at `{at}`: the function's 32-lane logical warps are one choice with its `warpSize - 1` tests)"));
        head.holds += 1;
    }
    out.push(head);
}

/// The file's warp-size constants and warp counts outside any function (`enum { warp_size =
/// 32, num_warps = block_size / 32 }`, HP101/HP102) size the 32-lane logical warps of its
/// functions: where the file has an HP114, they are that decision's (folded into the first).
/// Returns whether it folded them.
pub(super) fn file_constants(
    s: &Src,
    file_scope: impl Fn(&Finding) -> bool,
    out: &mut [Finding],
) -> bool {
    let Some(h) = out
        .iter()
        .position(|g| g.rule == LAST_LANE_OF_WAVEFRONT.id.code && g.status != Status::Pass)
    else {
        return false;
    };
    let at = format!("{}:{}", s.ctx.path, out[h].line);
    let mut n = 0;
    for g in out.iter_mut().filter(|g| file_scope(g)) {
        Folded::fold(g, at.clone());
        g.message.push_str(&format!(" (folded into HP114 at `{at}`: the file's 32-lane logical warps are one choice with its `warpSize - 1` tests)"));
        n += 1;
    }
    out[h].holds += n;
    true
}

/// An open warp-size constant or warp count (HP101/HP102) outside the function bodies `bodies`.
pub(super) fn file_scope(bodies: &[std::ops::Range<usize>], g: &Finding) -> bool {
    matches!(g.rule.as_str(), "HP101" | "HP102")
        && g.status != Status::Pass
        && !bodies
            .iter()
            .any(|r| r.start <= g.byte_range.0 && g.byte_range.1 <= r.end)
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::{fires, fires_open};

    /// surfelwarp's shape: a `& 31` lane compared with `warpSize - 1` never matches on 64
    /// lanes; `threadIdx.x == warpSize - 1` beside it names thread 63. One finding for the
    /// function, at the first test; its `>> 5`/`& 31` ids fold into it.
    #[test]
    fn a_32_lane_id_compared_with_the_wavefront_last_lane() {
        let src = "__device__ float warp_scan(float);\n__global__ void k(float* out, float* tmp) {\n  const int warp_id = threadIdx.x >> 5;\n  const int lane_id = threadIdx.x & 31;\n  float v = warp_scan(out[threadIdx.x]);\n  if (lane_id == warpSize - 1) tmp[warp_id] = v;\n  __syncthreads();\n  v = warp_scan(tmp[threadIdx.x]);\n  if (threadIdx.x == warpSize - 1) out[0] = v;\n}\n";
        assert_eq!(fires_open(src, "HP114"), [6]);
        assert_eq!(fires(src, "HP102"), [3, 4]);
        assert!(fires_open(src, "HP102").is_empty());
    }

    /// A 32-thread block counted with a warp-size constant worth 32 (surfelwarp's
    /// preconditioner: `iter += warp_size`, then `threadIdx.x == warpSize - 1`).
    #[test]
    fn thread_63_in_a_function_counting_with_a_32_constant() {
        let src = "enum { warp_size = 32 };\n__device__ float warp_scan(float);\n__global__ void k(float* o, int n) {\n  float v = 0;\n  for (int i = threadIdx.x; i < n; i += warp_size) v += o[i];\n  v = warp_scan(v);\n  if (threadIdx.x == warpSize - 1) o[0] = v;\n}\n";
        assert_eq!(fires_open(src, "HP114"), [7]);
        let twin = src.replace("i += warp_size", "i += 32");
        assert!(fires_open(&twin, "HP114").is_empty());
    }

    /// The file's warp-size constant folds into its HP114; without one it stays open.
    #[test]
    fn file_constants_go_with_the_files_last_lane_test() {
        let src = "enum { warp_size = 32 };\n__device__ float warp_scan(float);\n__global__ void k(float* o) {\n  int lane = threadIdx.x & 31;\n  float v = warp_scan(o[threadIdx.x]);\n  if (lane == warpSize - 1) o[threadIdx.x / warp_size] = v;\n}\n";
        assert_eq!(fires(src, "HP101"), [1]);
        assert!(fires_open(src, "HP101").is_empty());
        let twin = src.replace("lane == warpSize - 1", "lane == 31");
        assert_eq!(fires_open(&twin, "HP101"), [1]);
    }

    /// Negative twins: a lane taken from the wavefront (`% warpSize`) is compared with its own
    /// last lane, and a function with no 32-lane id names thread `warpSize - 1` of a wavefront
    /// it works in; `lane == 31` with a 32-lane id is consistent.
    #[test]
    fn wavefront_lanes_and_consistent_32_lane_tests_are_quiet() {
        for src in [
            "__global__ void k(float* o) {\n  int lane = threadIdx.x % warpSize;\n  if (lane == warpSize - 1) o[0] = 1;\n}\n",
            "__global__ void k(float* o) {\n  if (threadIdx.x == warpSize - 1) o[0] = 1;\n}\n",
            "__global__ void k(float* o) {\n  int lane = threadIdx.x & 31;\n  if (lane == 31) o[threadIdx.x >> 5] = 1;\n}\n",
        ] {
            assert!(fires_open(src, "HP114").is_empty(), "{src}");
        }
    }
}
