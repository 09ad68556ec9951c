//! Votes in 32-lane logical warps. HIP's `__all`/`__any` (and ROCm 6.2's `_sync` forms) vote
//! over the whole 64-lane wavefront, so in a kernel whose warps are 32-lane halves one half's
//! vote decides the other's. The form that keeps CUDA's meaning tests the lane's own 32-bit half
//! of the 64-lane ballot, which HIP has in every release (`__ballot` returns 64 bits from 5.2;
//! `__lane_id() & 32` is 0 or 32, the half's first lane):
//!
//! - all: `((__ballot(!(p)) >> (__lane_id() & 32)) & 0xffffffffull) == 0` (no active lane of
//!   the half votes false, as CUDA's `__all` ignores inactive lanes),
//! - any: `((__ballot(p) >> (__lane_id() & 32)) & 0xffffffffull) != 0`.
//!
//! Only calls whose mask names every lane (`0xffffffff`, `~0u`, `-1`, `__activemask()`, a file
//! constant of that value) or that have none (`__all(p)`) are rewritten: a partial mask selects
//! lanes the half's ballot does not know.

use super::{Rewrite, View};
use crate::lex::Tok;

/// CUDA's vote intrinsics, with and without a mask.
pub(super) const VOTES: &[&str] = &["__all_sync", "__any_sync", "__all", "__any"];

/// The text placed before and after the predicate: (all, any).
pub(crate) fn around(all: bool) -> (&'static str, &'static str) {
    if all {
        (
            "(((__ballot(!(",
            ")) >> (__lane_id() & 32)) & 0xffffffffull) == 0)",
        )
    } else {
        (
            "(((__ballot(",
            ") >> (__lane_id() & 32)) & 0xffffffffull) != 0)",
        )
    }
}

/// The own-half rewrite of the vote named at token `i`, when its mask names every lane.
pub(super) fn plan(v: &View, i: usize, name: &str, full_masks: &[Vec<u8>]) -> Option<Rewrite> {
    let open = v.next(i).filter(|&o| v.t(o) == b"(")?;
    let close = v.matching(open)?;
    let args = arguments(v, open, close);
    let sync = name.ends_with("_sync");
    if args.len() != if sync { 2 } else { 1 } {
        return None;
    }
    if sync && !full_mask(v, args[0], full_masks) {
        return None;
    }
    Some(Rewrite::OwnHalfVote {
        all: name.starts_with("__all"),
        pred: args[args.len() - 1],
        close,
    })
}

/// The top-level arguments between `open` and `close`: (first, last) code token of each.
pub(super) fn arguments(v: &View, open: usize, close: usize) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur: Option<(usize, usize)> = None;
    for j in open + 1..close {
        if !v.code(j) {
            continue;
        }
        match v.t(j) {
            b"(" | b"[" | b"{" => depth += 1,
            b")" | b"]" | b"}" => depth -= 1,
            b"," if depth == 0 => {
                out.extend(cur.take());
                continue;
            }
            _ => {}
        }
        cur = Some(cur.map_or((j, j), |(a, _)| (a, j)));
    }
    out.extend(cur);
    out
}

/// Whether the argument (first, last token) is a mask naming every lane of a 32-lane warp:
/// a full value, a file constant of that value, or a local variable that holds one
/// ([`local_full_mask`]).
pub(super) fn full_mask(v: &View, (a, b): (usize, usize), full_masks: &[Vec<u8>]) -> bool {
    full_value(v, (a, b), full_masks)
        || (a == b && v.lexed.tokens[a].kind == Tok::Ident && local_full_mask(v, a, full_masks))
}

/// A full mask written out (`0xffffffff`, `~0u`, `-1`, `__activemask()`) or a file constant
/// of that value.
fn full_value(v: &View, (a, b): (usize, usize), full_masks: &[Vec<u8>]) -> bool {
    if a == b {
        let t = v.t(a);
        if full_masks.iter().any(|m| m.as_slice() == t) {
            return true;
        }
        return matches!(v.val(Some(a)), Some(0xffff_ffff) | Some(u64::MAX));
    }
    let text: Vec<u8> = (a..=b)
        .filter(|&j| v.code(j))
        .flat_map(|j| v.t(j).to_vec())
        .collect();
    // The spellings the translator widens (`uint32_t(-1)`, `static_cast<unsigned>(-1)`).
    crate::model::syntax::full_mask_literal(&String::from_utf8_lossy(&text))
}

/// A variable named at `use_at` that holds a full mask: the nearest earlier `T name = <full
/// mask>;` is a declaration in a block around the use, and nothing in that block assigns the
/// name again (`name = …`, `name &= …`, `++name`) or takes its address. `unsigned int mask =
/// 0xffffffffu;` is then the same mask as `const unsigned int mask = 0xffffffffu;`.
fn local_full_mask(v: &View, use_at: usize, full_masks: &[Vec<u8>]) -> bool {
    let name = v.t(use_at);
    // The nearest earlier `name =` (not `==`), within a function's reach.
    let mut j = use_at;
    let mut decl = None;
    for _ in 0..20_000 {
        let Some(p) = v.prev(j) else { break };
        j = p;
        if v.t(j) == name && v.is(v.next(j), "=") && !v.is(v.next(j).and_then(|e| v.next(e)), "=") {
            decl = Some(j);
            break;
        }
    }
    let Some(decl) = decl else { return false };
    // A declaration: a type word before the name (`unsigned int mask`, `auto mask`).
    if !v
        .prev(decl)
        .is_some_and(|p| v.lexed.tokens[p].kind == Tok::Ident && v.t(p) != b"return")
    {
        return false;
    }
    // Its value, up to the `;`.
    let Some(first) = v.next(decl).and_then(|e| v.next(e)) else {
        return false;
    };
    let Some(semi) = (first..use_at).find(|&k| v.code(k) && v.t(k) == b";") else {
        return false;
    };
    let Some(last) = v.prev(semi).filter(|&l| l >= first) else {
        return false;
    };
    if !full_value(v, (first, last), full_masks) {
        return false;
    }
    // The block around the declaration: its `{` and matching `}`; the use lies inside.
    let mut depth = 0i32;
    let mut open = None;
    let mut k = decl;
    while let Some(p) = v.prev(k) {
        k = p;
        match v.t(k) {
            b"}" => depth += 1,
            b"{" if depth == 0 => {
                open = Some(k);
                break;
            }
            b"{" => depth -= 1,
            _ => {}
        }
    }
    let Some(close) = open.and_then(|o| v.matching(o)) else {
        return false;
    };
    if use_at > close {
        return false;
    }
    // No other write to the name in the block.
    !(semi..close).any(|k| {
        if !v.code(k) || v.t(k) != name {
            return false;
        }
        let (n1, p1) = (v.next(k), v.prev(k));
        let n2 = n1.and_then(|n| v.next(n));
        let n3 = n2.and_then(|n| v.next(n));
        let assign = v.is(n1, "=") && !v.is(n2, "=");
        let compound = n1.is_some_and(|n| {
            matches!(
                v.t(n),
                b"&" | b"|" | b"^" | b"+" | b"-" | b"*" | b"/" | b"%"
            )
        }) && v.is(n2, "=")
            && !v.is(n3, "=");
        let shift =
            (v.is(n1, "<") && v.is(n2, "<") || v.is(n1, ">") && v.is(n2, ">")) && v.is(n3, "=");
        let step = (v.is(n1, "+") && v.is(n2, "+"))
            || (v.is(n1, "-") && v.is(n2, "-"))
            || (v.is(p1, "+") && v.is(p1.and_then(|p| v.prev(p)), "+"))
            || (v.is(p1, "-") && v.is(p1.and_then(|p| v.prev(p)), "-"));
        let address = v.is(p1, "&")
            && p1
                .and_then(|p| v.prev(p))
                .is_some_and(|q| matches!(v.t(q), b"(" | b"," | b"=" | b"{" | b"return"));
        assign || compound || shift || step || address
    })
}
