//! The translator's side of the logical-warp model (`rules::warp_size::logical`): the rewrites
//! that keep CUDA's meaning where a function's lanes are 32-lane logical warps. HIP's shuffles
//! default to the wavefront's width (64 on CDNA), so `__shfl_down(v, 16)` in code written for
//! 32-lane warps reads the other half; AMD's own ports pass width 32. A ballot kept as a 32-bit
//! mask becomes the lane's own half of the 64-lane ballot, and a vote (`__all_sync`,
//! `__any_sync`) the test of the lane's own half of a ballot of its predicate (HIP's votes span
//! the wavefront). The vote's rewrite replaces the whole call, so the translator's edits of its
//! name and mask (and their HP005/HP006 findings) give way to it; edits inside the predicate stay.
//!
//! Each rewrite carries its applicability: safe ones (the function shows only 32-lane logical
//! warps) are applied and reported PASS; unsafe ones (32-lane arithmetic beside `warpSize` or
//! `__lane_id()`) are reported REMEDIATION with the choice spelled out, and applied only with
//! `port --unsafe-fixes` (then UNKNOWN: a person checks). A second run changes nothing: a
//! shuffle with a width and a wrapped ballot need no rewrite.

use super::Pass;
use crate::edit::Edit;
use crate::gate::Status;
use crate::lex::{Tok, NO_DIRECTIVE};
use crate::mappings::Resolution;
use crate::rules::warp_size::logical::{
    matched_or_reduced, takes_mask, vote_text, Applicability, MaskFix, Rewrite, Warp,
    LOGICAL_WARP_REWRITE, WHOLE_HALF,
};

/// The own-half ballot's two halves, around the call.
const BALLOT_OPEN: &str = "((unsigned int)(";
const BALLOT_CLOSE: &str = " >> (__lane_id() & 32)))";

pub(super) fn run(p: &mut Pass) {
    xor_partners(p);
    if p.warps.is_empty() {
        return;
    }
    narrow_masks(p);
    cub_widths(p);
    for i in 0..p.lexed.tokens.len() {
        let t = p.lexed.tokens[i];
        if t.kind != Tok::Ident || t.directive != NO_DIRECTIVE {
            continue;
        }
        if matched_or_reduced(p.text(i)) {
            no_rewrite(p, i);
            continue;
        }
        let warps = p.warps;
        if let Some((plan, o)) = warps.withheld(p.src(), p.lexed, i) {
            let what = match plan.rewrite {
                Rewrite::Width32 { .. } => "width 32 (the function's lanes are 32-lane logical warps)",
                Rewrite::OwnHalfBallot { .. } => "the lane's own 32-bit half of the ballot (the function's lanes are 32-lane logical warps)",
                Rewrite::OwnHalfVote { .. } => "the vote of the lane's own 32-lane half (the function's lanes are 32-lane logical warps)",
            };
            overload_left(p, i, o, what, "; left as written, HIP's default width spans the 64-lane wavefront, not CUDA's 32-lane warp");
            continue;
        }
        let Some(plan) = p.warps.plan(p.src(), p.lexed, i) else {
            continue;
        };
        let name = String::from_utf8_lossy(p.text(i)).into_owned();
        let apply = plan.applicability == Applicability::Safe || p.opts.unsafe_fixes;
        // The finding covers the whole call (what the rewrite changes): a fact of its own
        // beside HP005/HP006, which flag the name or the mask.
        let close = match plan.rewrite {
            Rewrite::Width32 { close }
            | Rewrite::OwnHalfBallot { close }
            | Rewrite::OwnHalfVote { close, .. } => close,
        };
        let range = t.start as usize..p.lexed.tokens[close].end as usize;
        let (edits, what) = match plan.rewrite {
            Rewrite::Width32 { close } => (
                vec![Edit::insert(p.lexed.tokens[close].start as usize, ", 32")],
                "width 32 on the shuffle, so each half of a 64-lane wavefront shuffles as one CUDA warp".to_string(),
            ),
            Rewrite::OwnHalfBallot { close } => (
                vec![
                    Edit::insert(t.start as usize, BALLOT_OPEN),
                    Edit::insert(p.lexed.tokens[close].end as usize, BALLOT_CLOSE),
                ],
                "the lane's own 32-bit half of the 64-lane ballot (`(unsigned int)(… >> (__lane_id() & 32))`), the mask CUDA gave its 32-lane warp".to_string(),
            ),
            Rewrite::OwnHalfVote { all, pred, close } => {
                let (before, after) = vote_text(all);
                let (ps, pe) = (
                    p.lexed.tokens[pred.0].start as usize,
                    p.lexed.tokens[pred.1].end as usize,
                );
                let end = p.lexed.tokens[close].end as usize;
                if apply {
                    give_way(p, t.start as usize..ps, pe..end);
                }
                (
                    vec![
                        Edit::replace(t.start as usize, ps, before),
                        Edit::replace(pe, end, after),
                    ],
                    format!("the vote of the lane's own 32-lane half (`{before}p{after}`), the vote CUDA took over its 32-lane warp (HIP's `__all`/`__any` span the 64-lane wavefront)"),
                )
            }
        };
        if apply {
            p.edits.extend(edits);
            p.stats.fixups += 1;
        }
        let why64 = plan.why64.as_deref().unwrap_or("");
        let (status, message, suggestion) = match (plan.applicability, apply) {
            // Not "done by `hipport port`": nothing depends on it, so a build that does not
            // make it (PyTorch's hipify) is not asked to.
            (_, true) if plan.kept => (
                Status::Pass,
                format!("`{name}` by a lane mask below 32 never leaves its 32-lane half, so HIP's default width gives every lane the partner CUDA gave it; `hipport port` writes width 32 as AMD's ports do (nothing to change)"),
                None,
            ),
            // In a function that also computes lanes from the wavefront, width 32 would bind
            // a later move to 64 lanes: left as written (the mix is HP104's to report).
            (_, false) if plan.kept => (
                Status::Pass,
                format!("`{name}` by a lane mask below 32 never leaves its 32-lane half, so HIP's default width gives every lane the partner CUDA gave it (nothing to change; left without a width, as the function also computes lanes from {why64})"),
                None,
            ),
            (Applicability::Safe, _) => (
                Status::Pass,
                format!("`{name}` in a function of 32-lane logical warps ({}): {what} (safe rewrite, done by `hipport port`)", plan.why32),
                None,
            ),
            (Applicability::Unsafe, true) => (
                Status::Unknown,
                format!("`{name}` in a function that mixes 32-lane logical warps ({}) with wavefront lanes ({why64}): {what} (unsafe rewrite, applied by `--unsafe-fixes`)", plan.why32),
                Some("check that every lane id, offset and mask of the function means a 32-lane logical warp".to_string()),
            ),
            (Applicability::Unsafe, false) => (
                Status::Remediation,
                format!("`{name}` in a function that mixes 32-lane logical warps ({}) with wavefront lanes ({why64}): HIP's default width is the 64-lane wavefront, so lanes read the other half", plan.why32),
                Some(format!("choose: keep 32-lane logical warps ({what}; `hipport port --unsafe-fixes` applies it) or move the kernel to 64 lanes (`warpSize` for lane ids, offsets and masks)")),
            ),
        };
        let mut f = p
            .ctx
            .finding(&LOGICAL_WARP_REWRITE, range, message, suggestion);
        f.status = status;
        p.findings.push(f);
    }
}

/// The translator's edits of a rewritten vote's name and mask, and their findings (HP005,
/// HP006), give way to the vote's rewrite; edits inside the predicate stay.
fn give_way(p: &mut Pass, head: std::ops::Range<usize>, tail: std::ops::Range<usize>) {
    let overlaps = |r: &std::ops::Range<usize>, a: usize, b: usize| {
        a < r.end && (b > r.start || (a == b && a > r.start))
    };
    p.edits
        .retain(|e| !overlaps(&head, e.start, e.end) && !overlaps(&tail, e.start, e.end));
    p.findings.retain(|f| {
        !(matches!(f.rule.as_str(), "HP005" | "HP006" | "HP015")
            && head.start <= f.byte_range.0
            && f.byte_range.1 <= head.end)
    });
}

/// A match or reduction in a function of 32-lane logical warps: HIP's forms (`__match_*_sync`
/// from ROCm 6.2, `__reduce_*_sync` from 7.0) work on the lanes of a 64-bit mask, so no mask
/// or width confines them to the lane's half; the finding spells out the choice.
fn no_rewrite(p: &mut Pass, i: usize) {
    if !matches!(p.warps.warp_at(i), Warp::Logical32 | Warp::Mixed) {
        return;
    }
    let (why32, _) = p.warps.evidence(i);
    let why32 = why32.unwrap_or("").to_string();
    let name = String::from_utf8_lossy(p.text(i)).into_owned();
    let t = p.lexed.tokens[i];
    let keep = if name.starts_with("__reduce_") {
        "reduce each half with shuffles of width 32 (`for (int o = 16; o > 0; o >>= 1) v += __shfl_xor(v, o, 32);` for `__reduce_add_sync`)"
    } else if name == "__match_any_sync" {
        "take the lane's own half of a full-wavefront match (`(unsigned int)(__match_any_sync(~0ull, v) >> (__lane_id() & 32))`, ROCm 6.2+)"
    } else {
        "compare each half with shuffles of width 32 (`__shfl(v, 0, 32) == v` voted over the half)"
    };
    let mut f = p.ctx.finding(
        &LOGICAL_WARP_REWRITE,
        t.range(),
        format!("`{name}` in a function of 32-lane logical warps ({why32}): HIP's `{name}` works on the lanes of a 64-bit mask, the whole wavefront, not the lane's 32-lane half; no rewrite keeps CUDA's meaning"),
        Some(format!("choose: keep 32-lane logical warps ({keep}) or move the kernel to 64 lanes (`warpSize` for lane ids, offsets and masks)")),
    );
    f.status = Status::Remediation;
    p.findings.push(f);
}

/// HP023: the call at token `i` may reach the project's overload `o`, which does not take the
/// rewrite `what`: left as written, with `then` saying what that leaves.
pub(super) fn overload_left(
    p: &mut Pass,
    i: usize,
    o: &crate::rules::warp_size::logical::Overload,
    what: &str,
    then: &str,
) {
    let name = String::from_utf8_lossy(p.text(i)).into_owned();
    let range = p.lexed.tokens[i].range();
    // One call, one finding: a second withheld rewrite (width 32 beside the mask-less rename
    // of a target without `_sync` forms) joins the first.
    if let Some(f) = p.findings.iter_mut().find(|f| {
        f.rule == super::rules::PROJECT_OVERLOAD_REACHED.code()
            && f.byte_range == (range.start, range.end)
    }) {
        f.message.push_str(&format!(" (nor would {what})"));
        return;
    }
    let (lo, hi) = o.arity;
    let takes = if lo == hi {
        format!("{hi} argument{}", if hi == 1 { "" } else { "s" })
    } else {
        format!("{lo} to {hi} arguments")
    };
    let f = p.ctx.finding(
        &super::rules::PROJECT_OVERLOAD_REACHED,
        range,
        format!(
            "`{name}` may call the project's own `{}` ({}, {takes}): {}, and argument-dependent lookup finds the overload for the project's types; {what} would not match it, so `hipport port` leaves the call as written{then}",
            o.qualified, o.at, o.why
        ),
        Some(format!(
            "give `{}` HIP's parameters (a 64-bit mask, `int width = warpSize` last) and forward them to `::{name}`; then `hipport port` rewrites this call",
            o.qualified
        )),
    );
    p.findings.push(f);
}

/// `*_sync` calls whose mask has a 32-bit type, at a target whose HIP has the `_sync` forms
/// (they `static_assert` a 64-bit mask): widened where the model knows which lanes run the
/// call (safe), else reported with the widening `--unsafe-fixes` applies.
fn narrow_masks(p: &mut Pass) {
    for i in 0..p.lexed.tokens.len() {
        let t = p.lexed.tokens[i];
        if t.kind != Tok::Ident || t.directive != NO_DIRECTIVE || !takes_mask(p.text(i)) {
            continue;
        }
        let name = String::from_utf8_lossy(p.text(i)).into_owned();
        if !matches!(
            p.m.resolve(&name, &p.opts.target),
            Some(Resolution::Same { .. } | Resolution::Rename { .. })
        ) {
            continue;
        }
        // A vote whose rewrite replaces the whole call takes its mask with it.
        let replaced = p.warps.plan(p.src(), p.lexed, i).is_some_and(|plan| {
            matches!(plan.rewrite, Rewrite::OwnHalfVote { .. })
                && (plan.applicability == Applicability::Safe || p.opts.unsafe_fixes)
        });
        if replaced {
            continue;
        }
        let Some(n) = p.warps.narrow_mask(p.src(), p.lexed, i) else {
            continue;
        };
        let (a, b) = (
            p.lexed.tokens[n.first].start as usize,
            p.lexed.tokens[n.last].end as usize,
        );
        let mask = String::from_utf8_lossy(&p.src()[a..b]).into_owned();
        // The full mask spelled as a 32-bit expression (`(uint32_t)-1`): widened whole by
        // `fixups::widen_full_mask`.
        if super::fixups::full_32bit_expression(&mask) && mask.contains('-') {
            continue;
        }
        let wide = match n.fix {
            MaskFix::ZeroExtend => format!("(unsigned long long)({mask})"),
            MaskFix::OwnHalf => format!("((unsigned long long)({mask}) << (__lane_id() & 32))"),
            MaskFix::WholeHalf => WHOLE_HALF.to_string(),
        };
        let apply = n.applicability == Applicability::Safe || p.opts.unsafe_fixes;
        if apply {
            p.edits.push(Edit::replace(a, b, wide.clone()));
            p.stats.fixups += 1;
        }
        let head = format!("`{mask}` is a 32-bit mask of `{name}`: HIP's `_sync` intrinsics require a 64-bit mask (ROCm 6.2+ `static_assert`)");
        let (status, message, suggestion) = match (n.applicability, apply) {
            (Applicability::Safe, _) => (
                Status::Pass,
                format!("{head}; {}, so it became `{wide}` (safe rewrite, done by `hipport port`)", n.why),
                None,
            ),
            (Applicability::Unsafe, true) => (
                Status::Unknown,
                format!("{head}; {}: widened to `{wide}` (unsafe rewrite, applied by `--unsafe-fixes`)", n.why),
                Some("check that the mask names the lanes of the 64-lane wavefront that run the call".to_string()),
            ),
            (Applicability::Unsafe, false) => (
                Status::Remediation,
                format!("{head}, so the call does not compile; {}", n.why),
                Some(match n.fix {
                    MaskFix::OwnHalf => format!("choose: keep 32-lane logical warps (the lane's own half, `{wide}`; `hipport port --unsafe-fixes` applies it) or move the kernel to 64 lanes with a 64-bit mask"),
                    MaskFix::ZeroExtend => format!("keep the mask in 64 bits (`unsigned long long`) naming the lanes of the wavefront that run the call; `hipport port --unsafe-fixes` writes `{wide}` (lanes 0–31 only)"),
                    MaskFix::WholeHalf => format!("name the lanes that run the call in a 64-bit mask (`{wide}` where the whole 32-lane half runs it)"),
                }),
            ),
        };
        let mut f = p.ctx.finding(
            &super::rules::WARP_SYNC_NARROW_MASK,
            a..b,
            message,
            suggestion,
        );
        f.status = status;
        if apply {
            f.fix = Some(wide);
        }
        p.findings.push(f);
    }
}

/// Absolute shuffles whose source lane is a lane id xor a constant below 32 (`__shfl_sync(m, v,
/// tgx ^ 16)`), outside the functions the logical-warp model plans, macro bodies included:
/// width 32. The partner `E ^ c` with `c < 32` is in the same 32-lane half as `E`, and CUDA
/// takes the source lane modulo its 32-lane warp, so width 32 gives every lane the partner CUDA
/// gave it whatever `E` is. HIP's default width (the 64-lane wavefront) agrees only where `E`
/// is in the lane's own half: with `E = threadIdx.x & 31` (AutoDock-GPU's `tgx`, through a
/// mask the host sets to 31) lanes 32–63 would read lanes 0–31.
fn xor_partners(p: &mut Pass) {
    for i in 0..p.lexed.tokens.len() {
        let t = p.lexed.tokens[i];
        if t.kind != Tok::Ident {
            continue;
        }
        let sync = match p.text(i) {
            b"__shfl_sync" => true,
            b"__shfl" => false,
            _ => continue,
        };
        if t.directive == NO_DIRECTIVE && p.warps.plan(p.src(), p.lexed, i).is_some() {
            continue;
        }
        // A call in a macro body closes in it, or is left alone.
        let Some((_, args, close)) = super::fixups::call_args(p, i)
            .filter(|(_, _, c)| p.lexed.tokens[*c].directive == t.directive)
        else {
            continue;
        };
        // Width already given: nothing to add (a second run changes nothing).
        if args.len() != if sync { 3 } else { 2 } {
            continue;
        }
        let warps = p.warps;
        let overload = warps.overload(i).filter(|o| o.arity.1 <= args.len());
        let (a, b) = args[args.len() - 1];
        let toks: Vec<usize> = (a..b)
            .filter(|&j| p.lexed.tokens[j].kind != Tok::Comment)
            .collect();
        let mut depth = 0usize;
        let mut xors = Vec::new();
        let mut lower = false;
        for (k, &j) in toks.iter().enumerate() {
            match p.text(j) {
                b"(" | b"[" => depth += 1,
                b")" | b"]" => depth = depth.saturating_sub(1),
                b"^" if depth == 0 => xors.push(k),
                // `|`, `||`, `&&`, `?`, `=` bind looser than `^`: not one xor at the top.
                b"|" | b"?" | b"=" if depth == 0 => lower = true,
                b"&" if depth == 0 && toks.get(k + 1).is_some_and(|&n| p.text(n) == b"&") => {
                    lower = true
                }
                _ => {}
            }
        }
        let [x] = xors[..] else { continue };
        if lower || x == 0 || x + 1 >= toks.len() {
            continue;
        }
        let small = |j: usize| {
            p.lexed.tokens[j].kind == Tok::Number
                && crate::model::syntax::int_value(&String::from_utf8_lossy(p.text(j)))
                    .is_some_and(|v| v < 32)
        };
        let constant = if x + 2 == toks.len() && small(toks[x + 1]) {
            toks[x + 1]
        } else if x == 1 && small(toks[0]) {
            toks[0]
        } else {
            continue;
        };
        let end = p.lexed.tokens[close].end as usize;
        let range = t.start as usize..end;
        let name = String::from_utf8_lossy(p.text(i)).into_owned();
        let c = String::from_utf8_lossy(p.text(constant)).into_owned();
        if let Some(o) = overload {
            overload_left(p, i, o, &format!("width 32 (the source lane `… ^ {c}` is a partner in the same 32-lane half)"), "; left as written, HIP's default width reads the other half where the lane id counts lanes of a 32-lane warp");
            continue;
        }
        p.edits
            .push(Edit::insert(p.lexed.tokens[close].start as usize, ", 32"));
        p.stats.fixups += 1;
        let mut f = p.ctx.finding(
            &LOGICAL_WARP_REWRITE,
            range,
            format!("`{name}` reads the lane `… ^ {c}`, a partner in the same 32-lane half, and CUDA takes source lanes modulo its 32-lane warp: width 32 gives every lane of a 64-lane wavefront the partner CUDA gave it whatever the lane id is (HIP's default width reads the other half where the id counts lanes of a 32-lane warp, as `threadIdx.x & 31` does; safe rewrite, done by `hipport port`)"),
            None,
        );
        f.status = Status::Pass;
        p.findings.push(f);
    }
}

/// CUB warp primitives at their default width (`cub::WarpReduce<float>`) used only in functions
/// of 32-lane logical warps: width 32 as the second template argument, so hipCUB reduces over
/// each 32-lane half of the wavefront as CUB did over the warp (its default is the wavefront).
fn cub_widths(p: &mut Pass) {
    let rewrites: Vec<(usize, usize, String)> = p
        .warps
        .cub_rewrites()
        .into_iter()
        .map(|(i, close, why)| (i, close, why.to_string()))
        .collect();
    for (i, close, why32) in rewrites {
        let t = p.lexed.tokens[i];
        let end = p.lexed.tokens[close].end as usize;
        let text = String::from_utf8_lossy(&p.src()[t.start as usize..end]).into_owned();
        p.edits
            .push(Edit::insert(p.lexed.tokens[close].start as usize, ", 32"));
        p.stats.fixups += 1;
        let mut f = p.ctx.finding(
            &LOGICAL_WARP_REWRITE,
            t.start as usize..end,
            format!("`{text}` is used only in functions of 32-lane logical warps ({why32}): width 32 as its second template argument, so hipCUB reduces over each 32-lane half of the wavefront as CUB did over the warp (hipCUB's default width is the 64-lane wavefront; safe rewrite, done by `hipport port`)"),
            None,
        );
        f.status = Status::Pass;
        p.findings.push(f);
    }
}

#[cfg(test)]
mod tests {
    /// The output and every finding of a port at `rocm`.
    fn translated(
        src: &str,
        rocm: &str,
        unsafe_fixes: bool,
    ) -> (String, Vec<crate::finding::Finding>) {
        let mut opts = crate::translate::Options::for_tests(rocm, false);
        opts.unsafe_fixes = unsafe_fixes;
        let t = crate::translate::translate_bytes(
            "k.cu",
            src.as_bytes(),
            crate::mappings::get(),
            &opts,
        );
        (String::from_utf8(t.output).unwrap(), t.findings)
    }

    /// The output and the HP015 findings (line, status) of a port at `rocm`.
    fn port(src: &str, rocm: &str, unsafe_fixes: bool) -> (String, Vec<(u32, String)>) {
        let (out, findings) = translated(src, rocm, unsafe_fixes);
        let found = findings
            .into_iter()
            .filter(|f| f.rule == "HP015")
            .map(|f| (f.line, f.status.to_string()))
            .collect();
        (out, found)
    }

    /// lmdeploy's masks: the full mask spelled as a 32-bit expression (`uint32_t(-1)`,
    /// `(uint32_t)-1`) is widened whole at ROCm 6.2+, as `0xffffffff` is, and no HP015 is left
    /// on it; a second port changes nothing. Twin: a partial mask is not widened as full.
    #[test]
    fn full_masks_spelled_as_32_bit_expressions_are_widened_whole() {
        let src = "__device__ float f(float v) {\n  v += __shfl_xor_sync(uint32_t(-1), v, 1);\n  v += __shfl_xor_sync((uint32_t)-1, v, 2);\n  return v;\n}\n";
        let (out, found) = port(src, "7.0", false);
        assert_eq!(
            out.matches("__shfl_xor_sync(0xffffffffffffffffull, v,")
                .count(),
            2,
            "{out}"
        );
        assert!(found.is_empty(), "{found:?}");
        let (again, _) = port(&out, "7.0", false);
        assert_eq!(again, out);
        // EETQ's `__shfl_xor_sync(~0, res[i], 16)` in a function of 32-lane logical warps: one
        // widening by value, not a second edit over the same mask; CUDA's full mask is the
        // lane's own half there (each half of the wavefront is one CUDA warp).
        let tilde = "__device__ float f(float* res) {\n  int lane = threadIdx.x & 31;\n  res[0] += __shfl_xor_sync(~0, res[0], 16);\n  return res[0] + lane;\n}\n";
        let (out, found) = translated(tilde, "7.0", false);
        assert!(
            out.contains("__shfl_xor_sync((0xffffffffull << (__lane_id() & 32)), res[0], 16, 32)"),
            "{out}"
        );
        let (again, _) = port(&out, "7.0", false);
        assert_eq!(again, out);
        assert!(!found.iter().any(|f| f.rule == "HP015"), "{found:?}");
        // graphblast's `__shfl_xor_sync(-1, …)`: a bare `int` -1 is the same mask, and HIP's
        // `static_assert` rejects its 4 bytes.
        let bare = src.replace("uint32_t(-1)", "-1");
        let (out, _) = port(&bare, "7.0", false);
        assert!(
            out.contains("__shfl_xor_sync(0xffffffffffffffffull, v, 1)"),
            "{out}"
        );
        assert_eq!(port(&out, "7.0", false).0, out);
        let partial = src.replace("uint32_t(-1)", "uint32_t(0xffff)");
        let (out, _) = port(&partial, "7.0", false);
        assert!(
            out.contains("__shfl_xor_sync(uint32_t(0xffff), v, 1)"),
            "{out}"
        );
    }

    /// LeetCUDA's flash-attention stores: `__shfl_sync((0xffffffff), v, lane + 1, 4)`. The
    /// parentheses are no part of the value: the full mask is widened once (HP006), with no
    /// HP015 beside it and no second edit over the same text. Twin: a partial literal in
    /// parentheses is still a 32-bit mask naming some lanes (HP015, unchanged without
    /// `--unsafe-fixes`).
    #[test]
    fn a_parenthesized_full_mask_is_widened_once() {
        let src = "__device__ float f(float v, int lane) {\n  return __shfl_sync((0xffffffff), v, lane + 1, 4);\n}\n";
        let (out, findings) = translated(src, "7.0", false);
        assert!(
            out.contains("__shfl_sync(0xffffffffffffffffull, v, lane + 1, 4)"),
            "{out}"
        );
        let rules: Vec<&str> = findings.iter().map(|f| f.rule.as_str()).collect();
        assert!(
            rules.contains(&"HP006") && !rules.contains(&"HP015"),
            "{rules:?}"
        );
        assert_eq!(port(&out, "7.0", false).0, out);
        let partial = src.replace("(0xffffffff)", "(0x0000ffff)");
        let (out, found) = port(&partial, "7.0", false);
        assert_eq!(found, [(2, "REMEDIATION".to_string())]);
        assert!(out.contains("__shfl_sync((0x0000ffff), v,"), "{out}");
    }

    /// A shuffle of 32-lane logical warps in a template that may reach the project's own
    /// overload (curobo's `__shfl_down_sync(unsigned, const CollisionPair&, const int&)`, found
    /// by argument-dependent lookup for `CollisionPair`): width 32 would not match it, so the
    /// call is left as written and HP023 says what to change; at a target without `_sync` forms
    /// the mask-less rename would not either. Twins: the same loop on a `float` is rewritten;
    /// an overload with a width parameter takes the rewrite; a second run changes nothing.
    #[test]
    fn a_call_that_may_reach_the_projects_overload_keeps_its_shape() {
        let overload = "namespace geo {\nstruct Pair { float d; int i; };\n__device__ Pair __shfl_down_sync(const unsigned mask, const Pair& a, const int& offset) {\n  return a;\n}\n}\n";
        let body = "__device__ T warp_max(T v) {\n  unsigned mask = 0xffffffffu;\n  int lane = threadIdx.x % 32;\n  T val = v;\n  for (int o = 16; o > 0; o /= 2) {\n    const T other = __shfl_down_sync(mask, val, o);\n    if (lane + o < 32) val = other;\n  }\n  return val;\n}\n";
        let src = format!("{overload}template <typename T>\n{body}");
        let (out, found) = translated(&src, "7.0", false);
        assert!(
            out.contains(
                "__shfl_down_sync(((unsigned long long)(mask) << (__lane_id() & 32)), val, o);"
            ),
            "{out}"
        );
        let hp023: Vec<_> = found.iter().filter(|f| f.rule == "HP023").collect();
        assert_eq!(hp023.len(), 1, "{found:?}");
        assert_eq!(hp023[0].status, crate::gate::Status::Remediation);
        assert_eq!(hp023[0].line, 13);
        assert!(
            hp023[0]
                .message
                .contains("`geo::__shfl_down_sync` (k.cu:3, 3 arguments): `val` is a `T`"),
            "{}",
            hp023[0].message
        );
        assert!(!found.iter().any(|f| f.rule == "HP109"), "{found:?}");
        assert_eq!(translated(&out, "7.0", false).0, out);
        let (out52, found52) = translated(&src, "5.2", false);
        assert!(out52.contains("__shfl_down_sync(mask, val, o)"), "{out52}");
        assert_eq!(
            found52.iter().filter(|f| f.rule == "HP023").count(),
            1,
            "{found52:?}"
        );
        // A `float` reaches HIP's function: rewritten as everywhere else.
        let plain = format!(
            "{overload}{}",
            body.replace("T warp_max(T v)", "float warp_max(float v)")
                .replace("T val", "float val")
                .replace("const T other", "const float other")
        );
        let (out, found) = translated(&plain, "7.0", false);
        assert!(out.contains("val, o, 32)"), "{out}");
        assert!(!found.iter().any(|f| f.rule == "HP023"), "{found:?}");
        let (out, _) = translated(&plain, "5.2", false);
        assert!(out.contains("__shfl_down(val, o, 32)"), "{out}");
        // An overload that takes a width: the rewrite reaches it too.
        let wide = src.replace("const int& offset)", "const int& offset, int width = 64)");
        let (out, found) = translated(&wide, "7.0", false);
        assert!(out.contains("val, o, 32)"), "{out}");
        assert!(!found.iter().any(|f| f.rule == "HP023"), "{found:?}");
    }

    /// Masks of a 32-bit type, typed the way C++ does: a `uint32_t` parameter or local, an
    /// `unsigned` declared and set later, `(1U << n) - 1` (a shift has its left operand's type).
    /// In a function whose lanes may span the wavefront: REMEDIATION, unchanged.
    #[test]
    fn thirty_two_bit_masks_do_not_compile_from_6_2() {
        let src = "__device__ void f(float* p, uint32_t mask, int n) {\n  __syncwarp(mask);\n  unsigned m2;\n  m2 = compute();\n  p[0] = __shfl_sync(m2, p[1], 0);\n  p[1] = __shfl_sync((1U << n) - 1, p[2], 0);\n}\n";
        let (out, found) = port(src, "7.0", false);
        assert_eq!(
            found,
            [
                (2, "REMEDIATION".to_string()),
                (5, "REMEDIATION".to_string()),
                (6, "REMEDIATION".to_string())
            ]
        );
        assert!(out.contains("__syncwarp(mask)"), "{out}");
        // `--unsafe-fixes` zero-extends them: UNKNOWN, a person checks the lanes.
        let (out, found) = port(src, "7.0", true);
        assert!(
            out.contains("__syncwarp((unsigned long long)(mask))"),
            "{out}"
        );
        assert!(
            out.contains("__shfl_sync((unsigned long long)((1U << n) - 1), p[2], 0)"),
            "{out}"
        );
        assert!(found.iter().all(|(_, s)| s == "UNKNOWN"), "{found:?}");
        // The twins: 64-bit masks (a type, a suffix, a cast, a ballot), a member and a template
        // parameter whose types the tokens do not say, and a target without the `_sync` forms.
        let wide = "template <typename M>\n__device__ void f(float* p, unsigned long long mask, int n, M t, S s) {\n  __syncwarp(mask);\n  p[0] = __shfl_sync((1ULL << n) - 1, p[1], 0);\n  p[1] = __shfl_sync((uint64_t)n, p[2], 0);\n  p[2] = __shfl_sync(__ballot_sync(~0ull, p[0] > 0), p[3], 0);\n  p[3] = __shfl_sync(s.mask, p[4], 0) + __shfl_sync(t, p[5], 0);\n  const auto a = 1u << n;\n  p[4] = __shfl_sync(a, p[6], 0);\n}\n";
        let (_, found) = port(wide, "7.0", false);
        assert!(found.is_empty(), "{found:?}");
        let (_, found) = port(src, "5.2", false);
        assert!(found.is_empty(), "{found:?}");
    }

    /// A width-halving reduction with partial literal masks (`0x0000ffff` with width 16), run
    /// by every lane of a function of 32-lane logical warps: the literals are `int`s (HIP's
    /// `_sync` forms do not compile) and name fewer lanes than run the call (HIP's mask check
    /// traps): every lane of the caller's half is named, the widths keep the exchange (safe).
    /// Twins: the same calls under a lane-dependent branch, after an early return, and in a
    /// function whose lanes span the wavefront stay REMEDIATION; a full or 64-bit literal is
    /// not this rewrite's; a 64-lane reading of the output changes nothing (idempotent).
    #[test]
    fn partial_literal_masks_of_logical_warps_name_the_half_that_runs() {
        let src = "template <int T>\n__global__ void k(const float* in, float* out) {\n  __shared__ float s[T / 32];\n  float v = in[threadIdx.x];\n  v += __shfl_down_sync(0xffffffff, v, 16, 32);\n  v += __shfl_down_sync(0x0000ffff, v, 8, 16);\n  v += __shfl_down_sync(0x000000ff, v, 4, 8);\n  for (int o = 2; o > 0; o >>= 1) v += __shfl_down_sync(0x0000000f, v, o, 4);\n  if (threadIdx.x % 32 == 0) s[threadIdx.x / 32] = v;\n  __syncthreads();\n  out[blockIdx.x] = s[0];\n}\n";
        let (out, found) = port(src, "7.0", false);
        assert_eq!(
            found,
            [
                (6, "PASS".to_string()),
                (7, "PASS".to_string()),
                (8, "PASS".to_string())
            ]
        );
        assert!(
            out.contains("__shfl_down_sync((0xffffffffull << (__lane_id() & 32)), v, 8, 16)"),
            "{out}"
        );
        let (again, found) = port(&out, "7.0", false);
        assert_eq!(again, out);
        assert!(found.is_empty(), "{found:?}");
        // Below 6.2 the mask is dropped (HP005): PASS for the same reason.
        let t = crate::translate::translate_bytes(
            "k.cu",
            src.as_bytes(),
            crate::mappings::get(),
            &crate::translate::Options::for_tests("5.2", false),
        );
        let dropped: Vec<_> = t.findings.iter().filter(|f| f.rule == "HP005").collect();
        assert_eq!(dropped.len(), 4, "{dropped:?}");
        assert!(
            dropped
                .iter()
                .all(|f| f.status == crate::gate::Status::Pass),
            "{dropped:?}"
        );
        // The scan settles the function's 32-lane ids (HP102) with the rewrite.
        let fs = crate::model::syntax::test_support::hazard_findings_at("k.cu", src);
        assert!(
            fs.iter()
                .filter(|f| f.rule == "HP102")
                .all(|f| f.status == crate::gate::Status::Pass),
            "{fs:?}"
        );
        for twin in [
            src.replace("  v += __shfl_down_sync(0x0000ffff", "  if (in[0] > 0) v += __shfl_down_sync(0x0000ffff"),
            src.replace("  v += __shfl_down_sync(0xffffffff, v, 16, 32);\n", "  if (threadIdx.x > 40) return;\n  v += __shfl_down_sync(0xffffffff, v, 16, 32);\n"),
        ] {
            let (out, found) = port(&twin, "7.0", false);
            assert!(found.iter().any(|(_, s)| s == "REMEDIATION"), "{found:?}");
            assert!(out.contains("__shfl_down_sync(0x0000ffff, v, 8, 16)"), "{out}");
        }
        let wide = "__global__ void k(float* p) {\n  float v = p[threadIdx.x % warpSize];\n  v += __shfl_down_sync(0x0000ffff, v, 8, 16);\n  v += __shfl_down_sync(0x0000ffffull, v, 4, 8);\n  p[0] = v;\n}\n";
        let (out, found) = port(wide, "7.0", false);
        assert_eq!(found, [(3, "REMEDIATION".to_string())]);
        assert!(
            out.contains("__shfl_down_sync(0x0000ffffull, v, 4, 8)"),
            "{out}"
        );
    }

    /// A CUB warp primitive at its default width used only in functions of 32-lane logical
    /// warps (through its alias) gets width 32, and the function's 32-lane ids then keep their
    /// meaning; the twin: used also in a function whose lanes come from `warpSize`, it is left
    /// alone (HP110 says so).
    #[test]
    fn cub_warp_primitives_of_32_lane_logical_warps_get_width_32() {
        let src = "typedef cub::WarpReduce<float> WR;\n__global__ void k(const float* x, float* out) {\n  __shared__ typename WR::TempStorage t[4];\n  int ray = threadIdx.x >> 5;\n  float s = WR(t[ray]).Sum(x[threadIdx.x]);\n  if ((threadIdx.x & 31) == 0) out[ray] = s;\n}\n";
        let (out, findings) = translated(src, "7.0", false);
        assert!(
            out.contains("typedef hipcub::WarpReduce<float, 32> WR;"),
            "{out}"
        );
        assert!(findings
            .iter()
            .any(|f| f.rule == "HP109" && f.line == 1 && f.status.to_string() == "PASS"));
        assert_eq!(translated(&out, "7.0", false).0, out);
        let mixed = format!("{src}__global__ void w(const float* x, float* out) {{\n  __shared__ typename WR::TempStorage t[4];\n  out[0] = WR(t[threadIdx.x / warpSize]).Sum(x[threadIdx.x]);\n}}\n");
        let (out, _) = translated(&mixed, "7.0", false);
        assert!(
            out.contains("typedef hipcub::WarpReduce<float> WR;"),
            "{out}"
        );
    }

    /// Where each 32-lane half of the wavefront is one CUDA warp the mask becomes the lane's own
    /// half; under `threadIdx.x < 32` it is zero-extended; both safe (PASS). A second run
    /// changes nothing.
    #[test]
    fn narrow_masks_of_known_lanes_are_widened_keeping_their_meaning() {
        let src = "__global__ void k(float* p, int n) {\n  int lane = threadIdx.x & 31;\n  const uint32_t m = (1U << n) - 1;\n  if (lane < n) p[lane] = __shfl_sync(m, p[lane], 0);\n}\n__global__ void w(float* p, uint32_t active) {\n  if (threadIdx.x < 32) p[0] = __shfl_xor_sync(active, p[0], 1);\n}\n";
        let (out, found) = port(src, "7.0", false);
        assert!(
            out.contains(
                "__shfl_sync(((unsigned long long)(m) << (__lane_id() & 32)), p[lane], 0, 32)"
            ),
            "{out}"
        );
        assert!(
            out.contains("__shfl_xor_sync((unsigned long long)(active), p[0], 1)"),
            "{out}"
        );
        assert_eq!(found, [(4, "PASS".to_string()), (7, "PASS".to_string())]);
        let (again, found) = port(&out, "7.0", false);
        assert_eq!(again, out);
        assert!(found.is_empty(), "{found:?}");
    }
}
