//! HP105: 32-slot arrays indexed by warp or lane ids (one slot per lane of a 32-lane warp, or
//! per 32-lane warp of a block), judged by what the indices reach on 64-lane wavefronts.

use super::flow::{is_warp, lane_name, lit, parts, shadows_warp_size, strip_parens, Flow};
use super::PER_WARP_ARRAY_32;
use crate::finding::Finding;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::model::syntax::{self, Src};
use std::collections::HashSet;
use tree_sitter::Node;

pub(super) fn per_warp_arrays(s: &Src, f: Node, flow: &Flow, out: &mut Vec<Finding>) {
    // A function that declares its own `warpSize` (OpenSplat's `const int warpSize = tile /
    // 2;`) indexes by that value, not by the wavefront's.
    if shadows_warp_size(s, f) {
        return;
    }
    let subs = s.descendants(f, K::SubscriptExpression);
    // Variables that start from `warpSize` (`for (int i = warpSize / 2; …)`): as an index
    // into a 32-slot array they reach past it on 64-lane wavefronts.
    let from_ws: HashSet<&str> = s
        .descendants(f, K::InitDeclarator)
        .iter()
        .filter(|d| {
            d.field(F::Value).is_some_and(|v| {
                // A warp id (`threadIdx.x / warpSize`) is at most 15 on AMD: in bounds.
                let v = strip_parens(v);
                let divides = v.node_kind() == K::BinaryExpression && {
                    let (op, _, r) = parts(s, v);
                    op == "/" && s.text(strip_parens(r)) == "warpSize"
                };
                !divides && syntax::identifiers(s, v).contains(&"warpSize")
            })
        })
        .filter_map(|d| {
            d.field(F::Declarator)
                .and_then(|x| syntax::declarator_name(s, x))
        })
        .collect();
    // Wavefront ids (`wid = threadIdx.x / warpSize`): at most 15 on AMD, and counted in the
    // wavefronts the block really has, so a 32-slot array indexed by them stays in bounds and
    // holds one slot per wavefront.
    let wave_ids: HashSet<&str> = s
        .descendants(f, K::InitDeclarator)
        .iter()
        .filter(|d| d.field(F::Value).is_some_and(|v| per_wavefront(s, v)))
        .filter_map(|d| {
            d.field(F::Declarator)
                .and_then(|x| syntax::declarator_name(s, x))
        })
        .collect();
    let wave_id = |e: Node| {
        let e = strip_parens(e);
        per_wavefront(s, e) || (e.node_kind() == K::Identifier && wave_ids.contains(s.text(e)))
    };
    let reaches_ws = |e: Node| {
        syntax::identifiers(s, e)
            .iter()
            .any(|i| *i == "warpSize" || from_ws.contains(i))
    };
    for a in s.descendants(f, K::ArrayDeclarator) {
        let (Some(inner), Some(size)) = (a.field(F::Declarator), a.field(F::Size)) else {
            continue;
        };
        if inner.node_kind() != K::Identifier
            || lit(s, size) != Some(32)
            || s.parent(a)
                .is_some_and(|p| p.node_kind() == K::ArrayDeclarator)
        {
            continue;
        }
        let name = s.text(inner);
        // Indices into the array: 2 when one reaches past slot 31 on a 64-lane wavefront,
        // 1 when it is a warp id or a lane id bounded to 32 lanes, 0 otherwise (also an index
        // read only where the thread is below the block's count of wavefronts, at most 16).
        let reach = subs
            .iter()
            .filter(|x| x.field(F::Argument).is_some_and(|arg| s.text(arg) == name))
            .filter_map(|x| x.field(F::Indices))
            .flat_map(|i| {
                let mut c = i.walk();
                i.named_children(&mut c).collect::<Vec<_>>()
            })
            .map(|e| {
                if below_wave_count(s, e, f) || wave_id(e) {
                    0
                } else if flow.lane_beyond_32(s, e) || reaches_ws(e) {
                    2
                } else if is_warp(s, flow, e) || flow.lane_expr(s, e) {
                    1
                } else {
                    0
                }
            })
            .max()
            .unwrap_or(0);
        if reach == 2 {
            out.push(s.ctx.finding(&PER_WARP_ARRAY_32, a.byte_range(), format!("`{name}[32]` has one slot per lane of a 32-lane warp but is indexed by a lane id that reaches 63 on a 64-lane wavefront (out of bounds)"), Some("size it for the largest wavefront (64), or keep the index below 32".into())));
        } else if reach == 1 {
            out.push(s.ctx.finding(&PER_WARP_ARRAY_32, a.byte_range(), format!("`{name}[32]` holds one slot per 32-lane warp and is indexed by a warp or lane id"), Some("size it by the number of wavefronts and index it with ids computed from `warpSize`".into())));
        }
    }
}

/// Whether `v` divides by `warpSize` (`threadIdx.x / warpSize`): a wavefront id or count.
fn per_wavefront(s: &Src, v: Node) -> bool {
    let v = strip_parens(v);
    v.node_kind() == K::BinaryExpression && {
        let (op, _, d) = parts(s, v);
        op == "/" && s.text(strip_parens(d)) == "warpSize"
    }
}

/// Whether `e` is evaluated only where a guard holds the thread below the block's count of
/// wavefronts: inside the taken arm of `c ? … : …` or `if (c)` within `f`, where `c` compares
/// `threadIdx.x` (or a lane id) with `… / warpSize` (ElasticFusion's `(threadIdx.x <
/// blockDim.x / warpSize) ? shared[lane] : zero`). The count is at most 1024 / 64 = 16 on AMD,
/// so the lane id (the thread itself there) stays in a 32-slot array.
fn below_wave_count(s: &Src, e: Node, f: Node) -> bool {
    let bounds = |c: Node| {
        s.descendants(c, K::BinaryExpression).into_iter().any(|b| {
            let (op, l, r) = parts(s, b);
            let (small, big) = match op {
                "<" | "<=" => (l, r),
                ">" | ">=" => (r, l),
                _ => return false,
            };
            let t = s.text(strip_parens(small));
            per_wavefront(s, big) && (t == "threadIdx.x" || lane_name(t))
        })
    };
    let mut child = e;
    while let Some(p) = s.parent(child) {
        if p.id() == f.id() {
            break;
        }
        let taken = match p.node_kind() {
            K::ConditionalExpression => p.field(F::Consequence).map(|c| c.id()) == Some(child.id()),
            K::IfStatement => p.field(F::Consequence).map(|c| c.id()) == Some(child.id()),
            _ => false,
        };
        if taken && p.field(F::Condition).is_some_and(bounds) {
            return true;
        }
        child = p;
    }
    false
}
