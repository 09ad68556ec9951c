//! Mechanical fix-ups for the usual reasons translated CUDA fails under hipcc: `_sync` warp
//! intrinsics an older target lacks (mask dropped, flagged), 32-bit full masks where HIP wants
//! 64-bit ones, and typed pointers passed where HIP has only a `void**` overload.

use super::idents::WARP_SYNC_FALLBACK;
use super::Pass;
use crate::edit::Edit;
use crate::lex::Tok;
use crate::mappings::Resolution;
use crate::rules::api;

/// HIP functions (after renaming) that lack CUDA's typed template overloads: the argument at
/// the index needs a cast (`void**` for pointer-to-pointer outputs, `const void*` for kernels).
const NEEDS_CAST: &[(&str, usize, Cast)] = &[
    ("hipHostAlloc", 0, Cast::VoidPtrPtr),
    ("hipMallocHost", 0, Cast::VoidPtrPtr),
    ("hipFuncGetAttributes", 1, Cast::ConstVoidPtr),
    ("hipFuncSetAttribute", 0, Cast::ConstVoidPtr),
    ("hipFuncSetCacheConfig", 0, Cast::ConstVoidPtr),
    ("hipFuncSetSharedMemConfig", 0, Cast::ConstVoidPtr),
    ("hipLaunchCooperativeKernel", 0, Cast::ConstVoidPtr),
    ("hipLaunchKernel", 0, Cast::ConstVoidPtr),
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cast {
    VoidPtrPtr,
    ConstVoidPtr,
}

/// Token index ranges `[start, end)` of each argument.
pub(crate) type ArgRanges = Vec<(usize, usize)>;

/// The argument token ranges of the call whose name is token `i`: (open paren, args, close paren).
pub(crate) fn call_args(p: &Pass, i: usize) -> Option<(usize, ArgRanges, usize)> {
    let open = p.lexed.next_code(i)?;
    if p.text(open) != b"(" {
        return None;
    }
    let toks = &p.lexed.tokens;
    let mut depth = 0i32;
    let mut args = Vec::new();
    let mut arg_start = open + 1;
    let mut j = open + 1;
    while j < toks.len() {
        let t = &toks[j];
        if t.kind == Tok::Punct {
            match p.text(j) {
                b"(" | b"[" | b"{" => depth += 1,
                b")" | b"]" | b"}" if depth > 0 => depth -= 1,
                b")" => {
                    if j > arg_start {
                        args.push((arg_start, j));
                    }
                    return Some((open, args, j));
                }
                b"," if depth == 0 => {
                    args.push((arg_start, j));
                    arg_start = j + 1;
                }
                b";" => return None,
                _ => {}
            }
        }
        j += 1;
    }
    None
}

/// For a target without the `_sync` form: `__shfl_down_sync(mask, v, d)` → `__shfl_down(v, d)`.
/// Returns false when the name is not such an intrinsic or the call cannot be rewritten.
pub(super) fn warp_sync_fallback(p: &mut Pass, i: usize, name: &str) -> bool {
    let Some(&(_, plain)) = WARP_SYNC_FALLBACK.iter().find(|(s, _)| *s == name) else {
        return false;
    };
    // The mask-less form must itself exist in the target.
    match p.m.resolve(plain, &p.opts.target) {
        Some(Resolution::Same { .. }) | Some(Resolution::Rename { .. }) | None => {}
        Some(Resolution::Unported { .. }) => return false,
    }
    let Some((_, args, _)) = call_args(p, i) else {
        return false;
    };
    if args.len() < 2 {
        return false;
    }
    let t = p.lexed.tokens[i];
    let mask = args[0];
    let mask_start = p.lexed.tokens[mask.0].start as usize;
    let next_arg_start = p.lexed.tokens[args[1].0].start as usize;
    let mask_text =
        String::from_utf8_lossy(&p.src()[mask_start..p.lexed.tokens[mask.1].start as usize])
            .trim()
            .to_string();
    p.edits
        .push(Edit::replace(t.start as usize, t.end as usize, plain));
    p.edits.push(Edit::delete(mask_start, next_arg_start));
    p.stats.fixups += 1;
    let f = p.ctx.finding(
        &api::WARP_SYNC_MASK_DROPPED,
        t.range(),
        format!(
            "`{name}` does not exist in ROCm {}: translated to `{plain}` and the mask `{mask_text}` was dropped",
            p.opts.target.rocm
        ),
        Some(format!(
            "check that all lanes of the wavefront reach this `{plain}`; ROCm 6.2+ has `{name}` with 64-bit masks"
        )),
    );
    p.findings.push(f);
    true
}

fn is_full_32bit_mask(s: &[u8]) -> bool {
    let s = s.to_ascii_lowercase();
    let s: &[u8] = &s;
    let digits = s
        .strip_suffix(b"ul")
        .or_else(|| s.strip_suffix(b"u"))
        .unwrap_or(s);
    digits == b"0xffffffff"
}

/// With `_sync` intrinsics available: a literal 32-bit full mask is widened to 64 bits.
pub(super) fn widen_full_mask(p: &mut Pass, i: usize, name: &str) {
    if !WARP_SYNC_FALLBACK.iter().any(|(s, _)| *s == name) {
        return;
    }
    let Some((_, args, _)) = call_args(p, i) else {
        return;
    };
    let Some(&(a, b)) = args.first() else { return };
    if b != a + 1 || p.lexed.tokens[a].kind != Tok::Number || !is_full_32bit_mask(p.text(a)) {
        return;
    }
    let t = p.lexed.tokens[a];
    p.edits.push(Edit::replace(
        t.start as usize,
        t.end as usize,
        "0xffffffffffffffffull",
    ));
    p.stats.fixups += 1;
    let f = p.ctx.finding(
        &api::WARP_SYNC_FULL_MASK,
        t.range(),
        format!("32-bit full mask in `{name}` widened to 64 bits for 64-lane wavefronts"),
        Some(
            "if the code selects lanes of a 32-lane warp, rework the mask for wavefront size"
                .into(),
        ),
    );
    p.findings.push(f);
}

pub(super) fn run(p: &mut Pass) {
    for i in 0..p.lexed.tokens.len() {
        let t = p.lexed.tokens[i];
        if t.kind != Tok::Ident {
            continue;
        }
        let Ok(name) = std::str::from_utf8(p.text(i)) else {
            continue;
        };
        let m = p.m;
        let hip = match m.resolve(name, &p.opts.target) {
            Some(Resolution::Rename { to, .. }) => to,
            _ => name,
        };
        if let Some(&(_, at, cast)) = NEEDS_CAST.iter().find(|(n, _, _)| *n == hip) {
            add_cast(p, i, at, cast);
        }
    }
}

fn add_cast(p: &mut Pass, i: usize, at: usize, cast: Cast) {
    let Some((_, args, _)) = call_args(p, i) else {
        return;
    };
    let Some(&(a, b)) = args.get(at) else { return };
    if b <= a {
        return;
    }
    let src = p.src();
    let start = p.lexed.tokens[a].start as usize;
    let end = p.lexed.tokens[b - 1].end as usize;
    let text: Vec<u8> = src[start..end]
        .iter()
        .copied()
        .filter(|c| !c.is_ascii_whitespace())
        .collect();
    let already = [
        &b"(void**)"[..],
        b"(constvoid*)",
        b"(void*)",
        b"reinterpret_cast<",
        b"static_cast<",
        b"(constvoid**)",
    ];
    if already.iter().any(|c| text.starts_with(c)) {
        return;
    }
    match cast {
        Cast::VoidPtrPtr => p.edits.push(Edit::insert(start, "(void**)")),
        Cast::ConstVoidPtr => {
            if p.lang == super::Lang::C {
                p.edits.push(Edit::insert(start, "(const void*)"));
            } else {
                p.edits
                    .push(Edit::insert(start, "reinterpret_cast<const void*>("));
                p.edits.push(Edit::insert(end, ")"));
            }
        }
    }
    p.stats.fixups += 1;
}
