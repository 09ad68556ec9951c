//! The hazard rules' side of the logical-warp model: scan and port agree. A 32-lane id or warp
//! count (HP102), a per-warp slot array (HP105), a 32-lane reduction (HP104), a ballot kept in
//! 32 bits (HP106) or the 32-bit full mask of a vote (HP103) in a function whose warp-level
//! calls `port` rewrites safely for 32-lane logical warps becomes PASS naming the rewrite; where
//! the rewrite is unsafe (the function mixes 32- and 64-lane lanes) the finding stays
//! REMEDIATION and spells out the choice and what `port --unsafe-fixes` applies; where no
//! rewrite exists it is left as the rule wrote it.

use super::*;
use crate::finding::Finding;
use crate::gate::Status;
use std::collections::BTreeSet;

impl LogicalWarps {
    /// How `port` keeps the CUDA meaning of the function around token `i`: every warp-level
    /// call of the function, and of the file's functions it calls, either gets a rewrite or
    /// already passes its width. Returns the rewrites' applicability (the function's) and what
    /// they do; `None` when a call has no rewrite (a 64-bit ballot, `__match_any_sync`, a
    /// vote with a partial mask) or the function has no warp-level call.
    pub(crate) fn handled(
        &self,
        src: &[u8],
        lexed: &Lexed,
        i: usize,
    ) -> Option<(Applicability, String)> {
        let (f, applicability) = self.rewritable(i)?;
        let v = self.view(src, lexed);
        let ident = |j: usize| v.code(j) && lexed.tokens[j].kind == Tok::Ident;
        let mut ranges = vec![(f.open, f.close)];
        for j in f.open..f.close {
            if !ident(j) || !(v.is(v.next(j), "(") || template_call(&v, v.next(j))) {
                continue;
            }
            // CUB warp primitives given width 32 (`WR(ts).Sum(v)`).
            if self.cub_handled(&v, j, f) {
                continue;
            }
            // A project shuffle wrapper (the file's own or a header's): a down or xor reduction
            // from offset 16 keeps lane 0 of each half at any width; anything else needs a
            // width `port` cannot give its callers.
            if v.wrapper(j).is_some() {
                if !f.reducing_wrappers.contains(&j) {
                    return None;
                }
                continue;
            }
            let callee = self
                .fns
                .iter()
                .find(|g| g.open != f.open && !g.name.is_empty() && g.name == v.t(j));
            if let Some(g) = callee {
                if g.warp == Warp::Mixed && applicability == Applicability::Safe {
                    return None;
                }
                if !ranges.contains(&(g.open, g.close)) {
                    ranges.push((g.open, g.close));
                }
            } else if self.included_logical32.contains(v.t(j)) {
                // An included header's 32-lane helper, rewritten safely where it is defined.
            } else if name_of(&v, j).is_empty() && warp_level_elsewhere(v.t(j)) {
                // Warp-level work the model does not see (a header's `warp_reduce`, CUB's
                // `BlockScan(…).InclusiveScan`, inline PTX): its warp is not known to be 32.
                return None;
            }
        }
        let mut what = BTreeSet::new();
        let mut calls = 0;
        for (a, b) in ranges {
            for j in a..b {
                if !ident(j) {
                    continue;
                }
                let t = v.t(j);
                if t.starts_with(b"__match") || t.starts_with(b"__reduce_") {
                    return None;
                }
                let name = name_of(&v, j);
                if name.is_empty()
                    && self
                        .function(j)
                        .is_some_and(|g| g.reducing_wrappers.contains(&j))
                {
                    calls += 1;
                    what.insert(WRAPPED);
                    continue;
                }
                if name.is_empty() {
                    if self.included_logical32.contains(t)
                        && (v.is(v.next(j), "(") || template_call(&v, v.next(j)))
                        && !self.fns.iter().any(|g| !g.name.is_empty() && g.name == t)
                    {
                        calls += 1;
                        what.insert("width 32 on the shuffles of the included helpers it calls");
                        continue;
                    }
                    if self.cub_counts(&v, j) {
                        calls += 1;
                        what.insert("width 32 on its CUB warp primitives");
                    }
                    continue;
                }
                calls += 1;
                // A `_sync` call whose mask names some lanes only (`groupMask`) keeps a 32-bit
                // mask the rewrite does not touch: not handled.
                if name.ends_with("_sync") && !full_mask_arg(&v, j, &self.full_masks) {
                    // A 32-bit mask the translator widens to the lane's own half (or to lanes
                    // 0–31 where only they run the call), or one it already widened.
                    let widened = self
                        .narrow_mask(src, lexed, j)
                        .is_some_and(|n| n.applicability == Applicability::Safe);
                    if !widened && !own_half_mask(&v, j) {
                        return None;
                    }
                    what.insert("64-bit masks of the lanes that run each call");
                }
                match self.plan(src, lexed, j).map(|p| p.rewrite) {
                    Some(Rewrite::Width32 { .. }) => what.insert("width 32 on its shuffles"),
                    Some(Rewrite::OwnHalfBallot { .. }) => {
                        what.insert("the lane's own 32-bit half of its ballots")
                    }
                    Some(Rewrite::OwnHalfVote { .. }) => {
                        what.insert("votes over the lane's own 32-lane half")
                    }
                    None if SHUFFLES.contains(&name) && has_width(&v, j, name) => true,
                    // `__ballot_sync(__activemask(), p)`: HIP's 64-bit mask of the active
                    // lanes, which is what the outer call takes.
                    None if name == "__activemask" && super::mask_argument(&v, j) => true,
                    None => return None,
                };
            }
        }
        if calls == 0 {
            return None;
        }
        let what = if what.is_empty() {
            ALREADY.to_string()
        } else {
            what.into_iter().collect::<Vec<_>>().join(", ")
        };
        Some((applicability, what))
    }
}

/// Whether the `<` at `lt` opens the template arguments of a call (`warpReduceSum<T>(val)`):
/// its matching `>`, within a few tokens, is followed by `(`.
pub(super) fn template_call(v: &View, lt: Option<usize>) -> bool {
    let Some(lt) = lt.filter(|&k| v.t(k) == b"<") else {
        return false;
    };
    let mut depth = 0i32;
    let mut k = lt;
    for _ in 0..32 {
        match v.t(k) {
            b"<" => depth += 1,
            b">" => {
                depth -= 1;
                if depth == 0 {
                    return v.is(v.next(k), "(");
                }
            }
            b";" | b"{" | b"}" => return false,
            _ => {}
        }
        let Some(n) = v.next(k) else { return false };
        k = n;
    }
    false
}

/// What `handled` says when no call needs a rewrite.
const ALREADY: &str = "its shuffles already pass their width";

/// What keeps CUDA's meaning where a function's only exchanges are reductions through project
/// shuffle wrappers ([`Function::reducing_wrappers`]): nothing `port` writes.
const WRAPPED: &str = "its exchanges through the project's shuffle wrappers reduce down from offset 16, which keeps lane 0 of each half at any width";

/// A call whose name says it works across lanes (`warp_reduce`, `InclusiveScan`, `cg::reduce`,
/// `asm`), defined outside the file's functions.
pub(super) fn warp_level_elsewhere(name: &[u8]) -> bool {
    let l = name.to_ascii_lowercase();
    let has = |w: &[u8]| l.windows(w.len()).any(|x| x == w);
    // `__lane_id()` is the lane's index (the own-half masks this model writes use it).
    l != b"__syncwarp"
        && l != b"__lane_id"
        && (l == b"asm"
            || l == b"__asm__"
            || [
                &b"warp"[..],
                b"shfl",
                b"ballot",
                b"vote",
                b"scan",
                b"reduce",
                b"lane",
                b"match",
            ]
            .iter()
            .any(|w| has(w)))
}

/// Whether the first argument of the call named at `j` is a mask naming every lane.
fn full_mask_arg(v: &View, j: usize, full_masks: &[Vec<u8>]) -> bool {
    let Some(open) = v.next(j).filter(|&o| v.t(o) == b"(") else {
        return false;
    };
    let Some(close) = v.matching(open) else {
        return false;
    };
    votes::arguments(v, open, close)
        .first()
        .is_some_and(|&a| votes::full_mask(v, a, full_masks))
}

/// Whether the first argument of the call named at `j` is a mask this model's rewrite wrote:
/// `((unsigned long long)(m) << (__lane_id() & 32))`.
fn own_half_mask(v: &View, j: usize) -> bool {
    let Some(open) = v.next(j).filter(|&o| v.t(o) == b"(") else {
        return false;
    };
    let Some(close) = v.matching(open) else {
        return false;
    };
    votes::arguments(v, open, close)
        .first()
        .is_some_and(|&(a, b)| {
            (a..=b).any(|k| {
                v.t(k) == b"__lane_id"
                    && v.is(v.prev(k), "(")
                    && v.next(k)
                        .and_then(|x| v.next(x))
                        .and_then(|x| v.next(x))
                        .is_some_and(|x| v.t(x) == b"&")
            })
        })
}

/// Whether the shuffle named at `j` passes a width (`__shfl_down(v, d, 32)`).
fn has_width(v: &View, j: usize, name: &str) -> bool {
    let without = if name.ends_with("_sync") { 3 } else { 2 };
    v.call(j).is_some_and(|(n, _)| n > without)
}

/// Scan's findings of one file, settled against the model the translator asks.
/// The kernels the function around byte `at` launches (`k<<<…>>>`), when it has no
/// warp-level call of its own, launches one or more kernels, and every one works in 32-lane
/// logical warps that keep CUDA's meaning on a wavefront: a 32-thread cooperative-groups tile
/// (`tile32`, the kernels of [`crate::rules::warp_size`]'s tile pass) or
/// [`LogicalWarps::kernel_keeps_32`]. A launcher's `block_size / 32` then counts those logical
/// warps (llm.c's `rows_per_block = block_size / 32` for a kernel of `tiled_partition<32>`
/// tiles). Returns the first kernel's name and what keeps its warps.
fn launches_only_32(
    s: &crate::model::syntax::Src,
    m: &LogicalWarps,
    at: usize,
    tile32: &[&str],
) -> Option<(String, String)> {
    use crate::kinds::cuda::{Kind as CK, NodeExt};
    let n = s.tree?.root_node().descendant_for_byte_range(at, at)?;
    let g = s.enclosing_function(n)?;
    let mut first = None;
    for c in s.descendants(g, CK::CallExpression) {
        let name = crate::model::syntax::call_name(s, c).unwrap_or("");
        let launch = {
            let mut w = c.walk();
            let launch = c
                .children(&mut w)
                .any(|x| x.node_kind() == CK::KernelCallSyntax);
            launch
        };
        if !launch {
            if warp_level_name(name.as_bytes()) || m.included_logical32.contains(name.as_bytes()) {
                return None;
            }
            continue;
        }
        let why32 = if tile32.contains(&name) {
            "a 32-thread cooperative-groups tile, which HIP provides on 64-lane wavefronts".into()
        } else {
            m.kernel_keeps_32(s.ctx.src, s.lexed, name)?.0
        };
        first.get_or_insert((name.to_string(), why32));
    }
    first
}

/// HP102 in a launcher with no warp-level call of its own whose every launched kernel works in
/// 32-lane logical warps kept on a wavefront ([`launches_only_32`]): PASS.
pub(crate) fn settle_launchers(
    s: &crate::model::syntax::Src,
    m: &LogicalWarps,
    tile32: &[&str],
    out: &mut [Finding],
) {
    for f in out
        .iter_mut()
        .filter(|f| f.rule == "HP102" && f.status != Status::Pass)
    {
        if let Some((kernel, why32)) = launches_only_32(s, m, f.byte_range.0, tile32) {
            pass(f, format!(", but it sizes the launch of `{kernel}` (and of every other kernel this function launches), whose lanes are 32-lane logical warps ({why32}) that keep CUDA's meaning on 64-lane wavefronts: the count is of those logical warps (nothing to change)"));
        }
    }
}

pub(crate) fn settle(s: &crate::model::syntax::Src, m: &LogicalWarps, out: &mut [Finding]) {
    let (src, lexed) = (s.ctx.src, s.lexed);
    if m.is_empty() {
        return;
    }
    // A 32-bit full mask (HP103) of a vote whose safe rewrite replaces the call: the mask is
    // gone with it.
    let v = View::bare(src, lexed);
    for f in out
        .iter_mut()
        .filter(|f| f.rule == "HP103" && f.status != Status::Pass)
    {
        let i = m.token_at(lexed, f.byte_range.0);
        let call = v
            .prev(i)
            .filter(|&o| v.t(o) == b"(")
            .and_then(|o| v.prev(o));
        let vote = call.and_then(|call| {
            m.plan(src, lexed, call).filter(|p| {
                p.applicability == Applicability::Safe
                    && matches!(p.rewrite, Rewrite::OwnHalfVote { .. })
            })
        });
        if let (Some(p), Some(call)) = (vote, call) {
            let name = String::from_utf8_lossy(v.t(call)).into_owned();
            pass(f, format!(", but `{name}` is in a function of 32-lane logical warps ({}) and `hipport port` replaces the call by the vote of the lane's own half of a 64-bit ballot, without a mask (safe rewrite, HP109: nothing to change)", p.why32));
            continue;
        }
        // A 32-bit mask variable set where it is declared (`unsigned mask = 0xffffffff;`) whose
        // every use as a mask gets the safe widening at the call (HP015): one fact, reported
        // there.
        let Some(name) = super::quoted_name(&f.message) else {
            continue;
        };
        let Some(g) = m.function(i) else { continue };
        let mut uses = 0;
        let all = (g.open..g.close).all(|j| {
            if !(v.code(j) && v.t(j) == name.as_bytes()) {
                return true;
            }
            let call = v
                .prev(j)
                .filter(|&o| v.t(o) == b"(")
                .and_then(|o| v.prev(o))
                .filter(|&c| super::masks::takes_mask(v.t(c)));
            match call {
                Some(c) => {
                    uses += 1;
                    m.narrow_mask(src, lexed, c)
                        .is_some_and(|n| n.applicability == Applicability::Safe)
                }
                None => true,
            }
        });
        if all && uses > 0 {
            pass(f, ", but `hipport port` widens it at each call that takes it as a mask, keeping CUDA's meaning (safe rewrite, HP015: nothing to change)".into());
        }
    }
    // One answer per function (by its opening brace).
    let mut memo: HashMap<usize, Option<(Applicability, String)>> = HashMap::new();
    // The file's function-like macros whose body calls a vote, a ballot or a width-less
    // shuffle (nheqminer's `CHECK_DUP`: an `__any`), which the port leaves as written.
    let mut macros: Vec<String> = super::macro_calls(src, lexed)
        .into_iter()
        .map(|c| c.macro_name)
        .collect();
    macros.dedup();
    constants_of_logical_warps(s, m, out, &mut memo);
    for f in out.iter_mut().filter(|f| {
        matches!(f.rule.as_str(), "HP102" | "HP104" | "HP105" | "HP106") && f.status != Status::Pass
    }) {
        let i = m.token_at(lexed, f.byte_range.0);
        let Some(open) = m.function(i).map(|g| g.open) else {
            continue;
        };
        let handled = memo
            .entry(open)
            .or_insert_with(|| m.handled(src, lexed, i))
            .clone();
        let (why32, why64) = m.evidence(i);
        let (why32, why64) = (why32.unwrap_or(""), why64.unwrap_or(""));
        let rule = f.rule.clone();
        match (rule.as_str(), m.warp_at(i), handled) {
            ("HP104", Warp::Logical32, _) if m.reduction_handled(src, lexed, f.byte_range.0) => {
                pass(f, format!(", but the function's lanes are 32-lane logical warps ({why32}) and `hipport port` passes width 32 to its shuffles, so each half of the wavefront reduces as one CUDA warp (safe rewrite, HP109: nothing to change)"));
            }
            ("HP104", Warp::Logical32, _)
                if m.wrapped_reduction(src, lexed, f.byte_range.0).is_some() =>
            {
                let w = m
                    .wrapped_reduction(src, lexed, f.byte_range.0)
                    .unwrap_or_default();
                pass(f, format!(", but the function's lanes are 32-lane logical warps ({why32}) and its exchanges go through the project's shuffle wrapper {w} (down or xor, offsets from 16): no value crosses between the 32-lane halves into a lane that holds the result, so lane 0 of each half gets what a CUDA warp's lane 0 gets, width 64 or 32 (nothing to change)"));
            }
            ("HP106", Warp::Logical32, _) if m.ballots_rewritten(src, lexed, i) => {
                pass(f, format!(", but the function's lanes are 32-lane logical warps ({why32}) and `hipport port` keeps each lane's own 32-bit half of the ballot (`(unsigned int)(… >> (__lane_id() & 32))`, safe rewrite, HP109: nothing to change)"));
            }
            ("HP102" | "HP105", Warp::Logical32, Some((Applicability::Safe, what))) => {
                let kind = if rule == "HP102" {
                    "the lane and warp ids of 32-lane logical warps keep"
                } else {
                    "one slot per 32-lane logical warp keeps"
                };
                let how = if what == ALREADY || what == WRAPPED {
                    format!("{what}, so each half of the wavefront works as one CUDA warp")
                } else {
                    format!("`hipport port` rewrites its warp-level calls for them ({what}; safe rewrite, HP109)")
                };
                pass(f, format!(", but the function's lanes are 32-lane logical warps ({why32}) and {how}: {kind} CUDA's meaning on 64-lane wavefronts (nothing to change)"));
            }
            ("HP102" | "HP105", Warp::Logical32, _)
                if through_macro(&v, m, &macros, i).is_some() =>
            {
                let name = through_macro(&v, m, &macros, i).unwrap_or_default();
                pass(f, format!(", but the function's lanes are 32-lane logical warps ({why32}): its lane and warp ids keep CUDA's meaning on 64-lane wavefronts; what does not is the warp-level call inside macro `{name}`, which `hipport port` does not rewrite (HP109 on the macro)"));
            }
            ("HP102" | "HP104" | "HP105", Warp::Mixed, handled) => {
                f.message.push_str(&format!("; the function mixes 32-lane logical warps ({why32}) with wavefront lanes ({why64})"));
                let keep = match handled {
                    Some((_, what)) => format!("`hipport port --unsafe-fixes` applies {what}"),
                    None => {
                        "width 32 on every shuffle, the lane's own half of every ballot and vote"
                            .into()
                    }
                };
                f.suggestion = Some(format!("choose: keep 32-lane logical warps ({keep}) or move the kernel to 64 lanes (`warpSize` for lane ids, offsets and masks)"));
            }
            _ => {}
        }
    }
}

/// What an HP101 constant settled by [`constants_of_logical_warps`] says; the project pass
/// ([`crate::scan`]) reopens it where a file including the header names the constant too.
pub(crate) const EVERY_USE: &str = ", but every use of `";

/// HP101 constants (`constexpr int kWarpSize = 32;`) used only inside functions of 32-lane
/// logical warps whose every warp-level call `port` rewrites safely: the constant is the
/// logical warp's size, the same on 64-lane wavefronts. PASS naming it; a constant with no use
/// here, or one use elsewhere, stays.
fn constants_of_logical_warps(
    s: &crate::model::syntax::Src,
    m: &LogicalWarps,
    out: &mut [Finding],
    memo: &mut HashMap<usize, Option<(Applicability, String)>>,
) {
    let (src, lexed) = (s.ctx.src, s.lexed);
    let v = View::bare(src, lexed);
    // Where the file's other open warp-size findings are: a function holding one assumes
    // something of the warp that this model did not settle.
    let open_warp: Vec<usize> = out
        .iter()
        .filter(|f| f.status != Status::Pass && f.rule.starts_with("HP10") && f.rule != "HP101")
        .map(|f| f.byte_range.0)
        .collect();
    // The function (by the tree) around byte `at`, as a byte range.
    let around = |at: usize| -> Option<std::ops::Range<usize>> {
        let n = s.tree?.root_node().descendant_for_byte_range(at, at)?;
        let g = s.enclosing_function(n)?;
        Some(g.byte_range())
    };
    for f in out
        .iter_mut()
        .filter(|f| f.rule == "HP101" && f.status != Status::Pass)
    {
        let Some(name) = super::quoted_name(&f.message) else {
            continue;
        };
        // A template parameter (`template <int N, int WARP_SIZE = 32>`) is used only in its
        // function: the same name elsewhere in the file is another declaration's.
        let at = m.token_at(lexed, f.byte_range.0);
        let scope = match m.declaring(at) {
            Some(g) if at < g.open => g.open..g.close,
            _ => 0..lexed.tokens.len(),
        };
        let uses: Vec<usize> = scope
            .filter(|&j| {
                lexed.tokens[j].kind == Tok::Ident
                    && v.t(j) == name.as_bytes()
                    && !(f.byte_range.0..f.byte_range.1).contains(&(lexed.tokens[j].start as usize))
            })
            .collect();
        if uses.is_empty() {
            continue;
        }
        let mut why32 = None;
        let mut how = BTreeSet::new();
        let mut plain = 0usize;
        let all = uses.iter().all(|&j| {
            // A use in a directive (`#define WARPS (256 / kWarpSize)`) is read by code the
            // model does not place.
            let at = lexed.tokens[j].start as usize;
            if !v.code(j) {
                return false;
            }
            // A function with no warp-level evidence either way that holds no other open
            // warp-size finding: the constant is a tile or stride there (ggml's `x_ql[i *
            // (WARP_SIZE + 1) + k]`), the same number on both platforms.
            let mut plain_use = || {
                plain += 1;
                around(at).is_some_and(|r| !open_warp.iter().any(|o| r.contains(o)))
            };
            // An argument of `__launch_bounds__(WARPS * THREADS_PER_WARP)`: a block size, the
            // same number of threads on both platforms.
            if in_launch_bounds(&v, j) {
                plain += 1;
                return true;
            }
            let Some(g) = m.declaring(j) else {
                return plain_use();
            };
            if g.warp == Warp::Wavefront && g.why32.is_none() && g.why64.is_none() {
                return plain_use();
            }
            if g.warp != Warp::Logical32 {
                return false;
            }
            let handled = memo
                .entry(g.open)
                .or_insert_with(|| m.handled(src, lexed, g.open + 1))
                .clone();
            match handled {
                Some((Applicability::Safe, what)) => {
                    why32.get_or_insert_with(|| g.why32.clone().unwrap_or_default());
                    how.insert(what);
                    true
                }
                // 32-lane ids with no warp-level call at all (none the model knows, none it
                // does not): no exchange across lanes.
                None if (g.open..g.close).all(|k| {
                    !(v.code(k)
                        && lexed.tokens[k].kind == Tok::Ident
                        && v.is(v.next(k), "(")
                        && (!name_of(&v, k).is_empty() || warp_level_elsewhere(v.t(k))))
                }) =>
                {
                    plain_use()
                }
                _ => false,
            }
        });
        // At least one use must be a logical warp's (the evidence of what the constant is).
        if !all || why32.is_none() {
            continue;
        }
        let how = how.into_iter().collect::<Vec<_>>().join("; ");
        let rest = if plain > 0 {
            format!(" and its {plain} other uses are tile, stride or launch sizes in functions without warp-level work")
        } else {
            String::new()
        };
        let scope = if plain > 0 {
            "in a function with warp-level work here is in one"
        } else {
            "in this file is in a function"
        };
        pass(f, format!("{EVERY_USE}{name}` {scope} of 32-lane logical warps ({}) whose warp-level calls keep CUDA's meaning on 64-lane wavefronts ({how}; HP109){rest}: the constant is the logical warp's size (nothing to change)", why32.unwrap_or_default()));
    }
}

/// Whether token `j` is inside the parentheses of a `__launch_bounds__(…)`.
fn in_launch_bounds(v: &View, j: usize) -> bool {
    let mut depth = 0i32;
    let mut k = j;
    for _ in 0..64 {
        let Some(p) = v.prev(k) else { return false };
        k = p;
        match v.t(k) {
            b")" => depth += 1,
            b"(" if depth == 0 => return v.is(v.prev(k), "__launch_bounds__"),
            b"(" => depth -= 1,
            b";" | b"{" | b"}" => return false,
            _ => {}
        }
    }
    false
}

fn pass(f: &mut Finding, why: String) {
    f.settle(&why);
}

/// The first of the file's warp-work `macros` the function around token `i` uses, if any.
fn through_macro(v: &View, m: &LogicalWarps, macros: &[String], i: usize) -> Option<String> {
    if macros.is_empty() {
        return None;
    }
    let g = m.function(i)?;
    (g.open..g.close)
        .filter(|&j| v.code(j))
        .find_map(|j| macros.iter().find(|n| v.t(j) == n.as_bytes()).cloned())
}
