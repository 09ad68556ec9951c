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
use crate::rules::warp_size::logical::{
    matched_or_reduced, vote_text, Applicability, Rewrite, Warp, LOGICAL_WARP_REWRITE,
};

/// The own-half ballot's two halves, around the call.
const BALLOT_OPEN: &str = "((unsigned int)(";
const BALLOT_CLOSE: &str = " >> (__lane_id() & 32)))";

pub(super) fn run(p: &mut Pass) {
    if p.warps.is_empty() {
        return;
    }
    for i in 0..p.lexed.tokens.len() {
        let t = p.lexed.tokens[i];
        if t.kind != Tok::Ident || t.directive != NO_DIRECTIVE {
            continue;
        }
        if matched_or_reduced(p.text(i)) {
            no_rewrite(p, i);
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
        !(matches!(f.rule.as_str(), "HP005" | "HP006")
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
