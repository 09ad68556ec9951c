//! Generation tests whose fallback only NVIDIA GPUs no current CUDA toolkit targets run
//! ([`super::arms_with_code`]): what makes the skipped arm one HIP could build, and the
//! finding's words.

use crate::finding::Finding;
use crate::gate::{Phase, Status};
use crate::lex::Tok;
use crate::model::syntax::Src;
use crate::model::{cond, hipside};

/// Whether `range` holds inline assembly (`asm`, `__asm__`, `__asm`), whatever its finding
/// says (PTX in a helper nothing calls is PASS, and still does not build for AMD).
pub(super) fn holds_asm(s: &Src, range: &std::ops::Range<usize>) -> bool {
    let toks = &s.lexed.tokens;
    let first = toks.partition_point(|t| (t.start as usize) < range.start);
    let last = toks.partition_point(|t| (t.start as usize) < range.end);
    (first..last)
        .any(|i| toks[i].kind == Tok::Ident && matches!(s.tok(i), "asm" | "__asm__" | "__asm"))
}

/// Whether `range` holds a statement that computes something: a complete statement (`;`) with
/// a call, an assignment or a `return`. Not a fragment of a declaration (ccminer's `__global__
/// __launch_bounds__(TPB50, 1)` arm: per-GPU tuning), a declaration alone (cudpp's `extern
/// __shared__ char shared[];`), or string literals alone (an arm inside an `asm` statement's
/// PTX text, astro-accelerate's `simd_functions.hpp`).
pub(super) fn computes(s: &Src, range: &std::ops::Range<usize>) -> bool {
    let toks = &s.lexed.tokens;
    let first = toks.partition_point(|t| (t.start as usize) < range.start);
    let last = toks.partition_point(|t| (t.start as usize) < range.end);
    let code = |i: &usize| {
        let t = toks[*i];
        !t.in_directive() && t.kind != Tok::Comment && t.kind != Tok::Str
    };
    let mut statement = false;
    let mut work = false;
    for i in (first..last).filter(code) {
        match s.tok(i) {
            ";" => statement = true,
            "return" | "=" | "+=" | "-=" | "*=" | "/=" | "|=" | "&=" | "^=" | "<<=" | ">>="
            | "++" | "--" => work = true,
            "(" if i > first && toks[i - 1].kind == Tok::Ident => work = true,
            _ => {}
        }
    }
    statement && work
}

/// What an HP401 on a test whose fallback only legacy NVIDIA GPUs run says of that fallback
/// (the project's such tests are one decision: [`crate::decisions::legacy_fallbacks`]).
pub const LEGACY_FALLBACK: &str = "written for older NVIDIA GPUs that no current toolkit targets";

/// HP401 on a test every current NVIDIA GPU passes, whose arm holds code HIP would build as
/// ported, while HIP compiles a fallback for GPUs no current CUDA toolkit targets
/// ([`arms_with_code`]): UNKNOWN, naming the intrinsics the skipped arm calls.
pub(super) fn legacy_fallback(s: &Src, f: &mut Finding, cond: &str, arm: &hipside::Region) {
    let toks = &s.lexed.tokens;
    let first = toks.partition_point(|t| (t.start as usize) < arm.range.start);
    let last = toks.partition_point(|t| (t.start as usize) < arm.range.end);
    let mut calls: Vec<&str> = Vec::new();
    for (i, t) in toks
        .iter()
        .enumerate()
        .take(last.saturating_sub(1))
        .skip(first)
    {
        let name = s.tok(i);
        if t.kind == Tok::Ident
            && !t.in_directive()
            && name.starts_with("__")
            && s.tok(i + 1) == "("
            && !calls.contains(&name)
        {
            calls.push(name);
        }
    }
    let uses = match calls.len() {
        0 => String::new(),
        n => format!(
            " (it calls {}{})",
            calls
                .iter()
                .take(3)
                .map(|c| format!("`{c}`"))
                .collect::<Vec<_>>()
                .join(", "),
            if n > 3 { ", …" } else { "" }
        ),
    };
    let place = match hipside::function_around(s, arm.range.start) {
        Some(name) => format!(" in `{name}`"),
        None => String::new(),
    };
    let head = format!(
        "`{cond}` picks code by NVIDIA GPU generation{place}, and every GPU a current CUDA toolkit builds for (sm_75 and newer) compiles this arm; HIP-Clang does not define `__CUDA_ARCH__`, so every AMD GPU compiles the chain's other arm, {LEGACY_FALLBACK}"
    );
    let current_arm = format!(
        "make HIP compile the arm current NVIDIA GPUs run (`{cond} || defined(__HIP_DEVICE_COMPILE__)`)"
    );
    if let Some(atomic) = cas_emulation(s, arm) {
        // cp2k's `atomicAddDouble`, pbrt-v4's `AtomicDouble`, legion's 64-bit `atomicMax`: the
        // older arm is the compare-and-swap loop NVIDIA's guide gives for the atomic the current
        // arm calls. It computes the same; what HIP loses is the native atomic's speed.
        f.status = Status::Remediation;
        f.phase = Phase::Performance;
        f.message = format!(
            "{head}: a compare-and-swap (`atomicCAS`) loop emulating the `{atomic}` this arm calls. The result is the same; the loop is slower than the native atomic HIP has"
        );
        f.suggestion = Some(format!(
            "{current_arm}, so AMD GPUs use the native `{atomic}` (with `-munsafe-fp-atomics` for floating-point adds to memory that is not fine-grained)"
        ));
        return;
    }
    f.status = Status::Unknown;
    f.phase = Phase::Correctness;
    f.message = format!(
        "{head}. Nothing verified that it computes what this arm computes, and this arm holds nothing HIP lacks{uses}"
    );
    f.suggestion = Some(format!(
        "{current_arm}, or check that the older arm gives the same results"
    ));
}

/// The atomic the skipped `arm` calls when the chain's arms after it are a compare-and-swap
/// loop (`atomicCAS` in a `do … while`/`while` loop) and call no other atomic: the classic
/// emulation of that atomic for GPUs without it.
fn cas_emulation<'a>(s: &Src<'a>, arm: &hipside::Region) -> Option<&'a str> {
    let toks = &s.lexed.tokens;
    let calls = |r: std::ops::Range<usize>| -> Vec<&'a str> {
        let first = toks.partition_point(|t| (t.start as usize) < r.start);
        let last = toks.partition_point(|t| (t.start as usize) < r.end);
        (first..last.saturating_sub(1))
            .filter(|&i| {
                toks[i].kind == Tok::Ident
                    && !toks[i].in_directive()
                    && s.tok(i).starts_with("atomic")
                    && s.tok(i + 1) == "("
            })
            .map(|i| s.tok(i))
            .collect()
    };
    let current = calls(arm.range.clone());
    let atomic = *current.first()?;
    if atomic == "atomicCAS" || current.iter().any(|c| *c != atomic) {
        return None;
    }
    // The rest of the chain: from the end of this arm to its `#endif`.
    let dirs = &s.lexed.directives;
    let from = dirs.iter().position(|d| d.start >= arm.range.end)?;
    let rest = arm.range.end..dirs[s.lexed.closing_endif(from)?].start;
    let fallback = calls(rest.clone());
    let first = toks.partition_point(|t| (t.start as usize) < rest.start);
    let last = toks.partition_point(|t| (t.start as usize) < rest.end);
    let looped = (first..last).any(|i| matches!(s.tok(i), "while" | "for"));
    (!fallback.is_empty() && fallback.iter().all(|c| *c == "atomicCAS") && looped).then_some(atomic)
}

/// Whether no GPU a current CUDA toolkit builds for ([`cond::CURRENT_NVIDIA_ARCHS`]) compiles
/// region `r` either, so what it holds is lost against no current CUDA build: its own test
/// (`#elif __CUDA_ARCH__ < 600`) is false for all of them, or the chain's `#if`, whose arm HIP
/// compiles, is true for all of them (gadgetron's `#if !defined(__CUDA_ARCH__) ||
/// __CUDA_ARCH__ >= 600` with nothing in it, and a double `atomicAdd` for older GPUs in the
/// `#else`). Only `#if`/`#elif` conditions are read.
pub(super) fn current_skips_too(s: &Src, r: &hipside::Region) -> bool {
    let Some(d) = s
        .lexed
        .directives
        .iter()
        .find(|d| s.directive_range(d).start == r.decider.start)
    else {
        return false;
    };
    if !matches!(d.name.as_str(), "if" | "elif") {
        return false;
    }
    let toks = cond::condition_tokens(s, d);
    let own =
        r.range.start >= r.decider.end && !s.bytes()[r.decider.end..r.range.start].contains(&b'\n');
    if own {
        cond::CURRENT_NVIDIA_ARCHS
            .iter()
            .all(|&a| cond::eval_nvcc_at(&toks, a) == Some(0))
    } else {
        r.decider.start == r.head.start && cond::every_current_nvidia_gpu(&toks)
    }
}
