//! Mechanical fix-ups for the usual reasons translated CUDA fails under hipcc: `_sync` warp
//! intrinsics an older target lacks (mask dropped, flagged), 32-bit full masks where HIP wants
//! 64-bit ones (the mask of lanes 0–31 where only they run the call, as the logical-warp model
//! says), and typed pointers passed where HIP has only a `void**` overload.

use super::idents::WARP_SYNC_FALLBACK;
use super::rules;
use super::Pass;
use crate::edit::Edit;
use crate::lex::Tok;
use crate::mappings::Resolution;
use crate::model::syntax::full_mask_literal;

/// HIP functions (after renaming) that lack CUDA's typed template overloads: the argument at
/// the index needs a cast (`void**` for pointer-to-pointer outputs, `const void*` for kernels).
const NEEDS_CAST: &[(&str, usize, Cast)] = &[
    ("hipHostAlloc", 0, Cast::VoidPtrPtr),
    ("hipHostGetDevicePointer", 0, Cast::VoidPtrPtr),
    ("hipMallocPitch", 0, Cast::VoidPtrPtr),
    ("hipMallocHost", 0, Cast::VoidPtrPtr),
    ("hipFuncGetAttributes", 1, Cast::ConstVoidPtr),
    ("hipFuncSetAttribute", 0, Cast::ConstVoidPtr),
    ("hipFuncSetCacheConfig", 0, Cast::ConstVoidPtr),
    ("hipFuncSetSharedMemConfig", 0, Cast::ConstVoidPtr),
    ("hipLaunchCooperativeKernel", 0, Cast::ConstVoidPtr),
    ("hipLaunchKernel", 0, Cast::ConstVoidPtr),
];

/// HIP functions (after renaming) that lack the default arguments CUDA declares (`__dv(…)` in
/// `cuda_runtime_api.h`): (name, arguments without defaults, the defaults HIP lacks, in order).
/// A call that stops short gets the missing defaults written out.
const MISSING_DEFAULTS: &[(&str, usize, &[&str])] = &[
    ("hipLaunchCooperativeKernel", 4, &["0", "0"]),
    ("hipMalloc3DArray", 3, &["0"]),
    ("hipStreamWaitEvent", 2, &["0"]),
];

/// CUDA's C++ convenience overloads (`cuda_runtime.h`) that HIP spells as another function:
/// (HIP name, argument count, the HIP function that takes those arguments).
/// `cudaEventCreate(&e, flags)` calls `cudaEventCreateWithFlags`.
const OVERLOAD_RENAMES: &[(&str, usize, &str)] =
    &[("hipEventCreate", 2, "hipEventCreateWithFlags")];

/// CUDA keywords that nvcc accepts glued to a string literal (`extern "C"__global__`), which
/// clang lexes as a user-defined literal suffix.
const GLUED_KEYWORDS: &[&[u8]] = &[
    b"__global__",
    b"__device__",
    b"__host__",
    b"__forceinline__",
    b"__noinline__",
    b"__launch_bounds__",
];

/// An identifier written straight after a string literal that clang reads as a literal suffix:
/// the CUDA keywords above, and any macro name (`"id "FMT`), which gcc accepts with a warning
/// but clang rejects (`-Wreserved-user-defined-literal`). User-defined suffixes start with `_`;
/// `s` and `sv` are the standard library's.
fn glued_suffix(text: &[u8]) -> bool {
    GLUED_KEYWORDS.contains(&text) || !(text.starts_with(b"_") || text == b"s" || text == b"sv")
}

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
    // Open template argument lists at bracket depth 0 (see `opens_template_args`).
    let mut angles = 0i32;
    let mut args = Vec::new();
    let mut arg_start = open + 1;
    let mut j = open + 1;
    while j < toks.len() {
        let t = &toks[j];
        if t.kind == Tok::Punct {
            match p.text(j) {
                b"<" if depth == 0 && opens_template_args(p, j) => angles += 1,
                b">" if depth == 0 && angles > 0 => angles -= 1,
                b"(" | b"[" | b"{" => depth += 1,
                b")" | b"]" | b"}" if depth > 0 => depth -= 1,
                b")" => {
                    if j > arg_start {
                        args.push((arg_start, j));
                    }
                    return Some((open, args, j));
                }
                b"," if depth == 0 && angles == 0 => {
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

/// Whether the `<` at token `lt` opens a template argument list rather than compares.
///
/// The rule (sound, not complete): the `<` follows an identifier that the file itself declares
/// as a template (`template <…> … name(` or `template <…> struct/class name`). A `<` after any
/// other name is read as a comparison, so `f(a < b, c > d)` keeps its two arguments. A call
/// whose argument holds a `<` after an unknown name that could be either is left uncast by
/// [`add_cast`] (see [`ambiguous_angle`]).
fn opens_template_args(p: &Pass, lt: usize) -> bool {
    let Some(prev) = p.lexed.prev_code(lt) else {
        return false;
    };
    p.lexed.tokens[prev].kind == Tok::Ident
        && p.template_names
            .get_or_init(|| super::template_names::template_names(p))
            .contains(p.text(prev))
}

/// Whether the argument tokens `[a, b)` hold a `<` after an identifier with no `>` closing it
/// inside the argument: a template argument list cut at a comma, or a comparison. A cast around
/// it could close in the wrong place, so none is inserted.
fn ambiguous_angle(p: &Pass, a: usize, b: usize) -> bool {
    let mut open = 0i32;
    for j in a..b {
        match p.text(j) {
            b"<" if p
                .lexed
                .prev_code(j)
                .is_some_and(|k| p.lexed.tokens[k].kind == Tok::Ident) =>
            {
                open += 1
            }
            b">" if open > 0 => open -= 1,
            _ => {}
        }
    }
    open > 0
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
    let warps = p.warps;
    if let Some(o) = warps.overload(i) {
        let target = p.opts.target.rocm;
        super::logical_warp::overload_left(
            p,
            i,
            o,
            &format!("`{plain}` without the mask (ROCm {target} has no `{name}`)"),
            &format!("; ROCm {target} does not declare `{name}` for the other types, so the build stops here until the overload or the target changes"),
        );
        return true;
    }
    let t = p.lexed.tokens[i];
    let mask = args[0];
    let mask_start = p.lexed.tokens[mask.0].start as usize;
    let next_arg_start = p.lexed.tokens[args[1].0].start as usize;
    // A directive between the mask and the next argument (an `#include` line inside the call)
    // would go with the deleted mask, and the edit that rewrites it would overlap this one.
    if p.lexed
        .directives
        .iter()
        .any(|d| (mask_start..next_arg_start).contains(&d.start))
    {
        return false;
    }
    let mask_text =
        String::from_utf8_lossy(&p.src()[mask_start..p.lexed.tokens[mask.1].start as usize])
            .trim()
            .to_string();
    p.edits
        .push(Edit::replace(t.start as usize, t.end as usize, plain));
    p.edits.push(Edit::delete(mask_start, next_arg_start));
    p.stats.fixups += 1;
    // A rename like any other: the file uses the runtime (a second run would otherwise see
    // `__shfl` as a HIP name and add the implicit include the first run did not).
    *p.stats.renamed.entry("warp-sync".into()).or_default() += 1;
    let full = is_full_mask_expr(p, &mask_text);
    // A partial literal the whole 32-lane half of a function of logical warps runs with: the
    // shuffle's width confines the exchange, so its value never depended on the mask.
    let whole_half = !full
        && p.warps.narrow_mask(p.src(), p.lexed, i).is_some_and(|n| {
            n.fix == crate::rules::warp_size::logical::MaskFix::WholeHalf
                && n.applicability == crate::rules::warp_size::logical::Applicability::Safe
        });
    let mut f = p.ctx.finding(
        &rules::WARP_SYNC_MASK_DROPPED,
        t.range(),
        if full {
            format!(
                "`{name}` does not exist in ROCm {}: translated to `{plain}`; the dropped mask `{mask_text}` named every lane, as the mask-less form does",
                p.opts.target.rocm
            )
        } else if whole_half {
            format!(
                "`{name}` does not exist in ROCm {}: translated to `{plain}`; the dropped mask `{mask_text}` names some lanes, but every lane of the function's 32-lane logical warp runs the call and the shuffle's width confines the exchange, so the values are CUDA's",
                p.opts.target.rocm
            )
        } else {
            format!(
                "`{name}` does not exist in ROCm {}: translated to `{plain}` and the mask `{mask_text}` was dropped",
                p.opts.target.rocm
            )
        },
        Some(format!(
            "check that all lanes of the wavefront reach this `{plain}`; ROCm 6.2+ has `{name}` with 64-bit masks"
        )),
    );
    if full || whole_half {
        f.status = crate::gate::Status::Pass;
    }
    p.findings.push(f);
    true
}

/// A 32-bit spelling of the full mask written as an expression (`uint32_t(-1)`,
/// `(unsigned)-1`, `static_cast<uint32_t>(-1)`, `~0u`): a `uint32_t` where HIP's `_sync`
/// intrinsics want 64 bits.
/// A bare `-1` is the same `int` mask: CUDA reads it as all 32 lanes, HIP's `static_assert`
/// rejects its 4 bytes (graphblast's `__shfl_xor_sync(-1, …)`).
pub(super) fn full_32bit_expression(t: &str) -> bool {
    let c: String = t
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    full_mask_literal(t) && !c.contains("activemask") && !c.contains("0xffffffffffffffff")
}

fn is_full_mask_expr(p: &Pass, text: &str) -> bool {
    if full_mask_literal(text) {
        return true;
    }
    let name = text.trim();
    if !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return false;
    }
    p.lexed.directives.iter().any(|d| {
        if d.name != "define" {
            return false;
        }
        let toks: Vec<usize> = p.lexed.directive_words(d);
        toks.len() >= 4 && p.text(toks[2]) == name.as_bytes() && {
            let vs = p.lexed.tokens[toks[3]].start as usize;
            let ve = p.lexed.tokens[*toks.last().unwrap_or(&toks[3])].end as usize;
            full_mask_literal(&String::from_utf8_lossy(&p.src()[vs..ve]))
        }
    })
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
/// CUDA's full warp mask in a function of 32-lane logical warps: the lane's own half.
pub(crate) const OWN_HALF_FULL: &str = "(0xffffffffull << (__lane_id() & 32))";

pub(super) fn widen_full_mask(p: &mut Pass, i: usize, name: &str) {
    // `__syncwarp(mask)`, the matches and the reductions take 64-bit masks as the other
    // `_sync` forms do.
    if !WARP_SYNC_FALLBACK.iter().any(|(s, _)| *s == name)
        && name != "__syncwarp"
        && !crate::rules::warp_size::logical::matched_or_reduced(name.as_bytes())
    {
        return;
    }
    let Some((_, args, _)) = call_args(p, i) else {
        return;
    };
    let Some(&(a, b)) = args.first() else { return };
    let single =
        b == a + 1 && p.lexed.tokens[a].kind == Tok::Number && is_full_32bit_mask(p.text(a));
    // `uint32_t(-1)`, `(unsigned)-1`: the same mask spelled as an expression (lmdeploy).
    let spelled = b > a + 1
        && (a..b)
            .all(|k| p.lexed.tokens[k].kind != Tok::Comment && !p.lexed.tokens[k].in_directive())
        && full_32bit_expression(&String::from_utf8_lossy(
            &p.src()[p.lexed.tokens[a].start as usize..p.lexed.tokens[b - 1].end as usize],
        ));
    if !single && !spelled {
        return;
    }
    let mut t = p.lexed.tokens[a];
    t.end = p.lexed.tokens[b - 1].end;
    // Where only lanes 0–31 run the call (`if (threadIdx.x < 32)`), the mask that keeps CUDA's
    // meaning names those lanes: HIP from 6.2 checks the mask against the active lanes.
    // In a function of 32-lane logical warps each half of the wavefront is one CUDA warp, and
    // the halves may run the call apart (two 32-thread rows in different branches, a 32-thread
    // block): CUDA's full mask is the lane's own half. A full 64-bit mask there fails HIP's
    // check against the active lanes whenever the other half is not at the call (warp-rnnt).
    let logical32 = p.warps.warp_at(i) == crate::rules::warp_size::logical::Warp::Logical32;
    let (mask, message, suggestion) = match p.warps.first32(i) {
        Some(guard) => (
            "0xffffffffull",
            format!("32-bit full mask in `{name}`: only lanes 0–31 of the wavefront run this call (`{guard}`), so it became the mask of the active lanes, `0xffffffffull` (done by `hipport port`)"),
            None,
        ),
        None if logical32 => (
            OWN_HALF_FULL,
            format!("32-bit full mask in `{name}` of a function of 32-lane logical warps: CUDA's warp is the lane's own half of the 64-lane wavefront, so it became `{OWN_HALF_FULL}`, which HIP's check against the active lanes accepts whether or not the other half runs the call (done by `hipport port`)"),
            None,
        ),
        None => (
            "0xffffffffffffffffull",
            format!("32-bit full mask in `{name}` widened to 64 bits for 64-lane wavefronts (done by `hipport port`)"),
            Some("if the code selects lanes of a 32-lane warp, rework the mask for wavefront size".into()),
        ),
    };
    p.edits
        .push(Edit::replace(t.start as usize, t.end as usize, mask));
    p.stats.fixups += 1;
    let mut f = p
        .ctx
        .finding(&rules::WARP_SYNC_32BIT_MASK, t.range(), message, suggestion);
    // The one edit over the flagged range is the mechanical fix.
    f.fix = Some(mask.into());
    p.findings.push(f);
}

pub(super) fn run(p: &mut Pass) {
    super::device_pass::run(p);
    spaced_launches(p);
    super::directive_fixups::weak_aliases(p);
    super::directive_fixups::pasted_prefixes(p);
    super::directive_fixups::half_restriction_undefs(p);
    for i in 0..p.lexed.tokens.len() {
        let t = p.lexed.tokens[i];
        if t.kind == Tok::Ident && i > 0 && glued_suffix(p.text(i)) {
            let prev = p.lexed.tokens[i - 1];
            if prev.kind == Tok::Str && prev.end == t.start {
                p.edits.push(Edit::insert(t.start as usize, " "));
                p.stats.fixups += 1;
            }
        }
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
        if let Some(&(_, fixed, defaults)) = MISSING_DEFAULTS.iter().find(|(n, _, _)| *n == hip) {
            add_defaults(p, i, fixed, defaults);
        }
        if let Some(&(_, n, to)) = OVERLOAD_RENAMES.iter().find(|(h, _, _)| *h == hip) {
            rename_by_arity(p, i, n, to);
        }
        if hip == "hipGraphInstantiate" {
            graph_instantiate(p, i);
        }
        if GEMM_EX.iter().any(|g| {
            hip.strip_prefix(g)
                .is_some_and(|r| matches!(r, "" | "_v2" | "_64" | "_v2_64"))
        }) {
            gemm_compute_type(p, i);
        }
        if name == "printf" {
            std_printf(p, i);
            super::builtin_vectors::printf_args(p, i);
        }
        if hip == "hip_bfloat16" && hip != name {
            bf16_literal_init(p, i);
        }
    }
}

/// A scalar literal that is exactly a `hip_bfloat16`: a decimal integer up to 2^24 (exact in
/// `float`) or a `float` literal (`1.5f`). A `double` literal is left alone: through `float` it
/// would be rounded twice, where CUDA's `__nv_bfloat16(double)` rounds once.
fn exact_bf16_literal(text: &[u8]) -> bool {
    let int = !text.is_empty()
        && text.iter().all(u8::is_ascii_digit)
        && std::str::from_utf8(text)
            .ok()
            .and_then(|t| t.parse::<u64>().ok())
            .is_some_and(|v| v <= 1 << 24);
    let float = text.len() > 1
        && matches!(text.last(), Some(b'f' | b'F'))
        && text[..text.len() - 1]
            .iter()
            .all(|c| c.is_ascii_digit() || *c == b'.')
        && !text.starts_with(b"0x");
    int || float
}

/// `__nv_bfloat16 x = 0;` at a target where the type is `hip_bfloat16` (before ROCm 5.7), whose
/// only scalar constructor is `explicit hip_bfloat16(float)`: copy-initialising from a literal
/// does not compile. The literal is wrapped (`hip_bfloat16(0)`), which keeps its value exactly
/// (see [`exact_bf16_literal`]); so is a later `x = 0;` when `x` is declared once in the file.
fn bf16_literal_init(p: &mut Pass, ty: usize) {
    let Some(name) = p.lexed.next_code(ty) else {
        return;
    };
    if p.lexed.tokens[name].kind != Tok::Ident {
        return;
    }
    let var = p.text(name);
    wrap_literal_after(p, name);
    // Later assignments are looked for only after a scalar declaration (`T x;`, `T x = …;`),
    // within the next few thousand tokens, so a file full of bf16 declarations stays linear.
    if !p
        .lexed
        .next_code(name)
        .is_some_and(|q| matches!(p.text(q), b";" | b"="))
    {
        return;
    }
    let window = name + 1..(name + 4096).min(p.lexed.tokens.len());
    let not_redeclared = window
        .clone()
        .map(|k| (k, &p.lexed.tokens[k]))
        .filter(|(k, t)| {
            t.kind == Tok::Ident
                && p.text(*k) == var
                && p.lexed
                    .prev_code(*k)
                    .is_some_and(|q| p.lexed.tokens[q].kind == Tok::Ident)
        })
        .count()
        == 0;
    if !not_redeclared {
        return;
    }
    for k in window {
        if p.lexed.tokens[k].kind != Tok::Ident || p.text(k) != var {
            continue;
        }
        // A later assignment `x = 0;` (not `y.x`, not `x == 0`).
        let after_member = p
            .lexed
            .prev_code(k)
            .is_some_and(|q| matches!(p.text(q), b"." | b"->" | b"::"));
        if !after_member {
            wrap_literal_after(p, k);
        }
    }
}

/// `x = LIT ;` or `x = LIT ,` at token `x`: the literal becomes `hip_bfloat16(LIT)`.
fn wrap_literal_after(p: &mut Pass, x: usize) {
    let Some(eq) = p.lexed.next_code(x) else {
        return;
    };
    if p.text(eq) != b"=" {
        return;
    }
    let Some(lit) = p.lexed.next_code(eq) else {
        return;
    };
    let Some(end) = p.lexed.next_code(lit) else {
        return;
    };
    let lt = p.lexed.tokens[lit];
    if lt.kind != Tok::Number
        || !matches!(p.text(end), b";" | b",")
        || !exact_bf16_literal(p.text(lit))
    {
        return;
    }
    p.edits
        .push(Edit::insert(lt.start as usize, "hip_bfloat16("));
    p.edits.push(Edit::insert(lt.end as usize, ")"));
    p.stats.fixups += 1;
}

/// hipBLAS `…Ex` GEMMs whose second-to-last argument is the compute type.
const GEMM_EX: &[&str] = &[
    "hipblasGemmEx",
    "hipblasGemmBatchedEx",
    "hipblasGemmStridedBatchedEx",
];

/// The compute type CUDA passes as a `cudaDataType` (cuBLAS keeps that form for backward
/// compatibility and reads it as the `cublasComputeType_t` beside it) and the
/// `hipblasComputeType_t` hipBLAS takes there from ROCm 6.0 (hipBLAS 2.0), where the
/// `hipDataType` form no longer converts.
/// Sources: https://docs.nvidia.com/cuda/cublas/index.html#cublasgemmex (the table of
/// `cudaDataType` compute types and the `cublasComputeType_t` each means);
/// https://github.com/ROCm/hipBLAS/blob/rocm-6.0.0/library/include/hipblas.h
/// (`hipblasComputeType_t`, and `hipblasGemmEx_v2(…, hipblasComputeType_t computeType, hipblasGemmAlgo_t algo)`).
const COMPUTE_FROM_DATATYPE: &[(&str, &str)] = &[
    ("CUDA_C_32F", "HIPBLAS_COMPUTE_32F"),
    ("CUDA_C_64F", "HIPBLAS_COMPUTE_64F"),
    ("CUDA_R_16F", "HIPBLAS_COMPUTE_16F"),
    ("CUDA_R_32F", "HIPBLAS_COMPUTE_32F"),
    ("CUDA_R_32I", "HIPBLAS_COMPUTE_32I"),
    ("CUDA_R_64F", "HIPBLAS_COMPUTE_64F"),
];

/// `cublasGemmEx(…, CUDA_R_32F, algo)` at ROCm 6.0 or later (hip* libraries): the compute type
/// becomes `HIPBLAS_COMPUTE_32F`. Before 6.0 hipBLAS takes `hipblasDatatype_t` there, which the
/// identifier sweep already writes (`HIPBLAS_R_32F`).
fn gemm_compute_type(p: &mut Pass, i: usize) {
    if p.opts.target.roc || p.opts.target.rocm < crate::version::Version::new(6, 0, 0) {
        return;
    }
    let Some((_, args, _)) = call_args(p, i) else {
        return;
    };
    if args.len() < 3 {
        return;
    }
    let (a, b) = args[args.len() - 2];
    let Some(tok) = (a..b).find(|&k| p.lexed.tokens[k].kind != Tok::Comment) else {
        return;
    };
    if (a..b).any(|k| k != tok && p.lexed.tokens[k].kind != Tok::Comment) {
        return;
    }
    let text = p.text(tok);
    if let Some(&(_, to)) = COMPUTE_FROM_DATATYPE
        .iter()
        .find(|(c, _)| c.as_bytes() == text)
    {
        replace_rename(p, tok, to);
    }
}

/// What the tokens say about the function around a token.
#[derive(PartialEq, Eq)]
enum FnKind {
    /// `__global__`, or `__device__` without `__host__`.
    Device,
    /// `__host__ __device__`.
    HostDevice,
    /// Host, or not a function body the tokens make clear.
    Other,
}

/// The kind of the function whose body holds token `i`: walk out through unmatched `{` to one
/// opened after `)` whose `(` follows a name that is not a statement keyword (the function's
/// parameter list), then read the declaration back to the previous `;`, `}` or directive.
fn enclosing_fn_kind(p: &Pass, i: usize) -> FnKind {
    let toks = &p.lexed.tokens;
    let mut depth = 0i32;
    let mut j = i;
    while j > 0 {
        j -= 1;
        if toks[j].kind != Tok::Punct || toks[j].in_directive() {
            continue;
        }
        match p.text(j) {
            b"}" => depth += 1,
            b"{" if depth > 0 => depth -= 1,
            b"{" => {
                // Skip qualifiers between `)` and `{` (`const`, `noexcept`, `override`).
                let mut k = j;
                let close = loop {
                    let Some(q) = p.lexed.prev_code(k) else {
                        return FnKind::Other;
                    };
                    if toks[q].kind == Tok::Ident
                        && matches!(p.text(q), b"const" | b"noexcept" | b"override" | b"final")
                    {
                        k = q;
                        continue;
                    }
                    break q;
                };
                if p.text(close) != b")" {
                    continue; // a namespace, struct or plain block
                }
                let Some(open) = matching_open(p, close) else {
                    return FnKind::Other;
                };
                let Some(name) = p.lexed.prev_code(open) else {
                    return FnKind::Other;
                };
                let head = p.text(name);
                if toks[name].kind != Tok::Ident
                    || matches!(
                        head,
                        b"if" | b"for" | b"while" | b"switch" | b"catch" | b"__launch_bounds__"
                    )
                {
                    continue; // a control statement's block
                }
                return declaration_kind(p, name);
            }
            _ => {}
        }
    }
    FnKind::Other
}

fn matching_open(p: &Pass, close: usize) -> Option<usize> {
    let mut depth = 0i32;
    let mut k = close;
    loop {
        match p.text(k) {
            b")" => depth += 1,
            b"(" => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            b"{" | b"}" => return None,
            _ => {}
        }
        k = p.lexed.prev_code(k)?;
    }
}

/// `__global__`/`__device__`/`__host__` among the tokens before the function name `name`.
fn declaration_kind(p: &Pass, name: usize) -> FnKind {
    let (mut device, mut host) = (false, false);
    let mut k = name;
    while let Some(q) = p.lexed.prev_code(k) {
        if p.lexed.tokens[q].in_directive() || matches!(p.text(q), b";" | b"}" | b"{") {
            break;
        }
        match p.text(q) {
            b"__global__" | b"__device__" => device = true,
            b"__host__" => host = true,
            _ => {}
        }
        k = q;
    }
    match (device, host) {
        (true, false) => FnKind::Device,
        (true, true) => FnKind::HostDevice,
        _ => FnKind::Other,
    }
}

/// `std::printf(` in device code: rewritten to `printf(` in a `__global__`/`__device__`
/// function (HP012 PASS), reported where the function is also `__host__` or unclear.
fn std_printf(p: &mut Pass, i: usize) {
    let Some(colons) = p.lexed.prev_code(i) else {
        return;
    };
    let Some(std) = p.lexed.prev_code(colons) else {
        return;
    };
    if p.text(colons) != b"::" || p.text(std) != b"std" {
        return;
    }
    if p.lexed.prev_code(std).is_some_and(|q| p.text(q) == b"::") {
        return; // `::std::printf`: left to a person
    }
    let kind = enclosing_fn_kind(p, i);
    let range = p.lexed.tokens[std].start as usize..p.lexed.tokens[i].end as usize;
    match kind {
        FnKind::Device => {
            p.edits
                .push(Edit::delete(range.start, p.lexed.tokens[i].start as usize));
            p.stats.fixups += 1;
            let mut f = p.ctx.finding(
                &rules::HOST_PRINTF_IN_DEVICE_CODE,
                range,
                "`std::printf` in a `__global__`/`__device__` function → `printf` (HIP's device printf)".to_string(),
                None,
            );
            f.status = crate::gate::Status::Pass;
            f.fix = Some("printf".to_string());
            p.findings.push(f);
        }
        FnKind::HostDevice => {
            let f = p.ctx.finding(
                &rules::HOST_PRINTF_IN_DEVICE_CODE,
                range,
                "`std::printf` in a `__host__ __device__` function: hipcc rejects it where the function is compiled for the device".to_string(),
                Some("call `printf` (unqualified): HIP provides it on both sides".to_string()),
            );
            p.findings.push(f);
        }
        FnKind::Other => {}
    }
}

/// Renames the call at token `i` to `to` when it has `n` arguments (replacing the rename edit).
fn rename_by_arity(p: &mut Pass, i: usize, n: usize, to: &str) {
    match call_args(p, i) {
        Some((_, args, _)) if args.len() == n => {}
        _ => return,
    }
    replace_rename(p, i, to);
}

/// Replaces the identifier sweep's rename of token `i` with `to`.
fn replace_rename(p: &mut Pass, i: usize, to: &str) {
    let t = p.lexed.tokens[i];
    let (s, e) = (t.start as usize, t.end as usize);
    p.edits.retain(|ed| !(ed.start == s && ed.end == e));
    p.edits.push(Edit::replace(s, e, to));
    p.stats.fixups += 1;
}

/// The `<` or `>` punctuation tokens from `i` on that form a launch bracket written with blanks
/// (`<< <`, `>> >`, as Visual Studio formats them; nvcc accepts them, clang wants `<<<`).
/// Returns the three token indices when they are separated by blanks only and not all adjacent.
fn spaced_triple(p: &Pass, i: usize, c: u8) -> Option<[usize; 3]> {
    let toks = &p.lexed.tokens;
    if i + 2 >= toks.len() {
        return None;
    }
    let idx = [i, i + 1, i + 2];
    if !idx
        .iter()
        .all(|&k| toks[k].kind == Tok::Punct && p.text(k) == [c])
    {
        return None;
    }
    let blank = |a: usize, b: usize| {
        p.src()[toks[a].end as usize..toks[b].start as usize]
            .iter()
            .all(|b| matches!(b, b' ' | b'\t'))
    };
    if !blank(i, i + 1) || !blank(i + 1, i + 2) {
        return None;
    }
    if toks[i].end == toks[i + 1].start && toks[i + 1].end == toks[i + 2].start {
        return None;
    }
    Some(idx)
}

/// `k << <grid, block >> >(args)` → `k<<<grid, block>>>(args)`'s brackets closed up.
fn spaced_launches(p: &mut Pass) {
    let toks = &p.lexed.tokens;
    let mut i = 0;
    while i < toks.len() {
        let Some(open) = spaced_triple(p, i, b'<') else {
            i += 1;
            continue;
        };
        // `operator<< <>(…)` is an explicit template argument list, not a launch.
        match p.lexed.prev_code(i) {
            Some(k) if toks[k].kind == Tok::Ident && p.text(k) != b"operator" => {}
            Some(k) if p.text(k) == b">" || p.text(k) == b")" => {}
            _ => {
                i += 1;
                continue;
            }
        }
        // The closing `>>>`, at bracket depth 0 and followed by `(`.
        let mut depth = 0i32;
        let mut j = i + 3;
        let mut close = None;
        while j < toks.len() {
            if toks[j].kind == Tok::Punct {
                match p.text(j) {
                    b"(" | b"[" | b"{" => depth += 1,
                    b")" | b"]" | b"}" => depth -= 1,
                    b";" => break,
                    b">" if depth == 0 => {
                        let adjacent = j + 2 < toks.len()
                            && (0..3).all(|k| p.text(j + k) == b">")
                            && toks[j].end == toks[j + 1].start
                            && toks[j + 1].end == toks[j + 2].start;
                        let tri =
                            spaced_triple(p, j, b'>').or(adjacent.then_some([j, j + 1, j + 2]));
                        if let Some(tri) = tri {
                            if p.lexed.next_code(tri[2]).map(|n| p.text(n)) == Some(b"(") {
                                close = Some(tri);
                            }
                            break;
                        }
                    }
                    _ => {}
                }
                if depth < 0 {
                    break;
                }
            }
            j += 1;
        }
        let Some(close) = close else {
            i += 1;
            continue;
        };
        for tri in [open, close] {
            for w in tri.windows(2) {
                let (a, b) = (toks[w[0]].end as usize, toks[w[1]].start as usize);
                if b > a {
                    p.edits.push(Edit::delete(a, b));
                }
            }
        }
        // A blank before `<<<` and after `>>>` is fine for clang; keep it.
        p.stats.fixups += 1;
        let (a, b) = (toks[open[0]].start as usize, toks[close[2]].end as usize);
        let f = p.ctx.finding(
            &rules::SPACED_LAUNCH_BRACKETS,
            a..b,
            "kernel launch written `<< <…>> >`: clang reads it as shifts and comparisons, so its brackets were closed up to `<<<…>>>` (done by `hipport port`)".into(),
            None,
        );
        p.findings.push(f);
        i = close[2] + 1;
    }
}

/// Appends the defaults a short call omits: `hipStreamWaitEvent(s, e)` → `(s, e, 0)`.
fn add_defaults(p: &mut Pass, i: usize, fixed: usize, defaults: &[&str]) {
    let Some((_, args, _)) = call_args(p, i) else {
        return;
    };
    let n = args.len();
    if n < fixed || n >= fixed + defaults.len() {
        return;
    }
    let Some(&(_, last_end)) = args.last() else {
        return;
    };
    let end = p.lexed.tokens[last_end - 1].end as usize;
    let tail: String = defaults[n - fixed..]
        .iter()
        .map(|d| format!(", {d}"))
        .collect();
    p.edits.push(Edit::insert(end, tail));
    p.stats.fixups += 1;
}

/// CUDA 12's `cudaGraphInstantiate(&exec, graph[, flags])` against HIP's CUDA 11 form
/// `(exec, graph, errorNode, logBuffer, bufferSize)`: the short form gets the null error
/// outputs, and non-zero flags go to `hipGraphInstantiateWithFlags`.
fn graph_instantiate(p: &mut Pass, i: usize) {
    let Some((_, args, _)) = call_args(p, i) else {
        return;
    };
    let null = if p.lang == super::Lang::C {
        "NULL"
    } else {
        "nullptr"
    };
    match args.len() {
        2 => {
            let end = p.lexed.tokens[args[1].1 - 1].end as usize;
            p.edits
                .push(Edit::insert(end, format!(", {null}, {null}, 0")));
            p.stats.fixups += 1;
        }
        3 => {
            let (a, b) = args[2];
            if b == a + 1 && p.text(a) == b"0" {
                let t = p.lexed.tokens[a];
                p.edits.push(Edit::replace(
                    t.start as usize,
                    t.end as usize,
                    format!("{null}, {null}, 0"),
                ));
                p.stats.fixups += 1;
                return;
            }
            let with_flags = match p.m.resolve("cudaGraphInstantiateWithFlags", &p.opts.target) {
                Some(Resolution::Rename { to, .. }) => to,
                _ => return,
            };
            replace_rename(p, i, with_flags);
        }
        _ => {}
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
    if ambiguous_angle(p, a, b) {
        let f = p.ctx.finding(
            &rules::AMBIGUOUS_KERNEL_CAST,
            start..end,
            "the kernel argument holds a `<` after a name this file does not declare as a template: no `const void*` cast inserted".to_string(),
            Some("wrap the whole kernel argument in `reinterpret_cast<const void*>(…)`".to_string()),
        );
        p.findings.push(f);
        return;
    }
    match cast {
        Cast::VoidPtrPtr => p.edits.push(Edit::insert(start, "(void**)")),
        Cast::ConstVoidPtr => {
            let cast = if p.lang == super::Lang::C {
                p.edits.push(Edit::insert(start, "(const void*)"));
                "(const void*)"
            } else {
                p.edits
                    .push(Edit::insert(start, "reinterpret_cast<const void*>("));
                p.edits.push(Edit::insert(end, ")"));
                "reinterpret_cast<const void*>(…)"
            };
            let kernel: String = String::from_utf8_lossy(&src[start..end])
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ");
            let kernel = match kernel.char_indices().nth(60) {
                Some((cut, _)) => format!("{}…", &kernel[..cut]),
                None => kernel,
            };
            let call = String::from_utf8_lossy(p.text(i)).into_owned();
            let f = p.ctx.finding(
                &rules::KERNEL_VOID_CAST,
                start..end,
                format!("`{kernel}` passed to `{call}` gets `{cast}`: HIP declares the function with `const void*` only, without CUDA's template overloads for kernels (done by `hipport port`)"),
                None,
            );
            p.findings.push(f);
        }
    }
    p.stats.fixups += 1;
}
