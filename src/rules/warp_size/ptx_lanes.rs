//! Kernels whose 32-lane logical warps rest on an inline-PTX shuffle. A PTX `shfl` exchanges
//! within a 32-lane warp by definition, so a project helper built on one (surfelwarp's
//! `warp_scan`: `shfl_add` five times, each an `asm` of `shfl.up.b32`) is 32 lanes wide, and a
//! kernel that calls it with `lane = threadIdx.x & 31`, `warp = threadIdx.x >> 5`, one slot per
//! 32-lane warp and `lane == 31` tests is self-consistent: it keeps CUDA's meaning on a 64-lane
//! wavefront once the PTX is written as a HIP shuffle of width 32, which the helper's HP201
//! says. Its HP102/HP104/HP105 findings are that HP201's decision (`decisions::ptx_lanes`
//! folds them into it); a kernel that also names the wavefront (`warpSize`, `__lane_id()`) or
//! does warp-level work of its own is left to the other rules.

use crate::finding::Finding;
use crate::gate::Status;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::lex::{Lexed, Tok};
use crate::model::syntax::Src;
use crate::model::token_fns::{Block, Code};
use std::collections::BTreeMap;
use tree_sitter::Node;

/// What the marker of a kernel's finding says before the helper's place.
pub const MARK: &str = "inline PTX shuffle at `";

/// The functions of a file whose warp-level work is an inline-PTX shuffle: those whose body has
/// an `asm` statement naming `shfl.`, and those that call one (two levels), each with the line
/// (1-based) of the file's first such `asm`: the rewrite is one per file.
pub fn ptx_shuffle_fns(src: &[u8], lexed: &Lexed) -> Vec<(String, u32)> {
    if memchr::memmem::find(src, b"shfl.").is_none() {
        return Vec::new();
    }
    let c = Code::of(src, lexed);
    let mut first_line: Option<u32> = None;
    let mut direct: Vec<String> = Vec::new();
    let mut calls: Vec<(String, Vec<String>)> = Vec::new();
    for k in 0..c.toks.len() {
        if c.t(k) != b"{" {
            continue;
        }
        let (Block::Function(at), Some(end)) = (c.block(k), c.close(k)) else {
            continue;
        };
        let name = String::from_utf8_lossy(c.t(at)).into_owned();
        let mut shuffles = false;
        let mut called = Vec::new();
        for j in k + 1..end {
            if !c.ident(j) {
                continue;
            }
            let w = c.t(j);
            if matches!(w, b"asm" | b"__asm__" | b"__asm") {
                let ptx = (j + 1..end.min(j + 6)).any(|q| {
                    lexed.tokens[c.toks[q]].kind == Tok::Str
                        && memchr::memmem::find(c.t(q), b"shfl.").is_some()
                });
                if ptx {
                    shuffles = true;
                    let start = lexed.tokens[c.toks[j]].start as usize;
                    let line = 1 + memchr::memchr_iter(b'\n', &src[..start]).count() as u32;
                    first_line = Some(first_line.map_or(line, |l| l.min(line)));
                }
            } else if j + 1 < end && c.t(j + 1) == b"(" {
                called.push(String::from_utf8_lossy(w).into_owned());
            }
        }
        if shuffles {
            direct.push(name);
        } else {
            calls.push((name, called));
        }
    }
    let Some(line) = first_line else {
        return Vec::new();
    };
    for _ in 0..2 {
        let now: Vec<String> = calls
            .iter()
            .filter(|(n, called)| !direct.contains(n) && called.iter().any(|x| direct.contains(x)))
            .map(|(n, _)| n.clone())
            .collect();
        direct.extend(now);
    }
    direct.sort();
    direct.dedup();
    direct.into_iter().map(|n| (n, line)).collect()
}

/// The helper a marked finding's function meets: its name and the `path:line` of its file's
/// first PTX shuffle.
pub(super) struct Met {
    name: String,
    at: String,
}

/// What a marked finding says: `whose` (`function's`, `file's`) 32-lane logical warps meet only
/// the helper, built on the PTX shuffle at its place.
fn note(whose: &str, met: &Met) -> String {
    format!(
        " — the {whose} 32-lane logical warps meet only `{}`, built on the {MARK}{}` that spans 32 lanes: they keep CUDA's meaning once that shuffle is a HIP shuffle of width 32",
        met.name, met.at
    )
}

/// Marks the open HP102/HP104/HP105 findings of function `f` when its only warp-level work is
/// calls of PTX shuffle helpers (`helpers`: name → `path:line` of the helper file's first PTX
/// shuffle) and it names no wavefront quantity. Returns the helper met and the index in `out`
/// of the first finding marked, when it marked one.
pub(super) fn mark(
    s: &Src,
    f: Node,
    helpers: &BTreeMap<String, String>,
    out: &mut [Finding],
) -> Option<(usize, Met)> {
    if helpers.is_empty() || f.node_kind() != K::FunctionDefinition {
        return None;
    }
    let mut called: Option<(&str, &String)> = None;
    for n in s.descendants(f, K::CallExpression) {
        let Some(callee) = n.field(F::Function) else {
            continue;
        };
        let name = s.text(callee);
        let name = name.rsplit("::").next().unwrap_or(name);
        if let Some(at) = helpers.get(name) {
            called.get_or_insert((name, at));
        } else if super::logical::warp_level_name(name.as_bytes()) {
            return None;
        }
    }
    let (name, at) = called?;
    // The wavefront named, or PTX of its own: not only the helper's warps.
    let text = s.text(f);
    let wavefront = s
        .descendants(f, K::Identifier)
        .iter()
        .any(|i| matches!(s.text(*i), "warpSize" | "__lane_id"))
        || ["asm(", "asm (", "asm volatile", "__asm__"]
            .iter()
            .any(|a| text.contains(a));
    if wavefront {
        return None;
    }
    let met = Met {
        name: name.to_string(),
        at: at.clone(),
    };
    let text = note("function's", &met);
    let range = f.byte_range();
    let mut first = None;
    for (i, g) in out.iter_mut().enumerate().filter(|(_, g)| {
        matches!(g.rule.as_str(), "HP102" | "HP104" | "HP105")
            && g.status != Status::Pass
            && range.start <= g.byte_range.0
            && g.byte_range.1 <= range.end
    }) {
        g.message.push_str(&text);
        first.get_or_insert(i);
    }
    first.map(|i| (i, met))
}

/// Marks the file's warp-size constants and warp counts outside any function (`file_scope`)
/// with the helper its marked functions meet (`met`), where no function of the file names the
/// wavefront: they size those functions' 32-lane logical warps.
pub(super) fn mark_file_scope(
    s: &Src,
    met: Option<&Met>,
    file_scope: impl Fn(&Finding) -> bool,
    out: &mut [Finding],
) {
    let Some(met) = met else { return };
    if s.idents().any(|(_, n)| n == "warpSize" || n == "__lane_id") {
        return;
    }
    let text = note("file's", met);
    for g in out.iter_mut().filter(|g| file_scope(g)) {
        g.message.push_str(&text);
    }
}

/// The helpers a file sees: its own and its included headers' (`seen`).
pub(super) fn helpers(s: &Src, seen: &crate::model::project::Visible) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = seen.ptx_shuffles.clone();
    for (name, line) in ptx_shuffle_fns(s.bytes(), s.lexed) {
        out.insert(name, format!("{}:{line}", s.ctx.path));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const HELPERS: &str = "__device__ float shfl_add(float x, int offset) {\n  float r = 0;\n  asm volatile(\"{.reg .f32 r0; .reg .pred p; shfl.up.b32 r0|p, %1, %2, 0; @p add.f32 r0, r0, %1; mov.f32 %0, r0;}\" : \"=f\"(r) : \"f\"(x), \"r\"(offset));\n  return r;\n}\n__device__ float warp_scan(float d) {\n  d = shfl_add(d, 1); d = shfl_add(d, 2); d = shfl_add(d, 4);\n  d = shfl_add(d, 8); d = shfl_add(d, 16);\n  return d;\n}\n__device__ float twice(float d) { return 2 * d; }\n";

    /// The PTX shuffle and the helper built on it are found, at the `asm` line; a function
    /// that calls neither is not.
    #[test]
    fn helpers_built_on_a_ptx_shuffle() {
        let lexed = crate::lex::lex(HELPERS.as_bytes());
        let fns = ptx_shuffle_fns(HELPERS.as_bytes(), &lexed);
        assert_eq!(
            fns,
            [("shfl_add".to_string(), 3), ("warp_scan".to_string(), 3)]
        );
        let plain = "__device__ float f(float x) { asm volatile(\"add.f32 %0, %1, %1;\" : \"=f\"(x) : \"f\"(x)); return x; }\n";
        assert!(ptx_shuffle_fns(plain.as_bytes(), &crate::lex::lex(plain.as_bytes())).is_empty());
    }

    /// surfelwarp's reduction kernel: `>> 5`, `& 31`, one slot per 32-lane warp and `lane ==
    /// 31` around `warp_scan`, marked for the helper's HP201; its twin names `warpSize` and is
    /// left as the rules wrote it.
    #[test]
    fn kernels_of_32_lane_warps_around_the_helper() {
        let kernel = "__global__ void k(float* out) {\n  const int warp_id = threadIdx.x >> 5;\n  const int lane_id = threadIdx.x & 31;\n  __shared__ float sums[32];\n  float v = warp_scan(out[threadIdx.x]);\n  if (lane_id == 31) sums[warp_id] = v;\n}\n";
        let src = format!("{HELPERS}{kernel}");
        let open: Vec<Finding> = crate::model::syntax::test_support::hazard_findings(&src)
            .into_iter()
            .filter(|f| f.status != Status::Pass)
            .collect();
        let marked: Vec<&Finding> = open.iter().filter(|f| f.message.contains(MARK)).collect();
        assert!(!marked.is_empty());
        assert!(marked.iter().all(|f| f.message.contains("`t.cu:3`")));
        let twin = src.replace("threadIdx.x >> 5", "threadIdx.x / warpSize");
        let open = crate::model::syntax::test_support::hazard_findings(&twin);
        assert!(open
            .iter()
            .any(|f| f.rule == "HP102" && f.status != Status::Pass));
        assert!(open.iter().all(|f| !f.message.contains(MARK)));
    }
}
