//! `__CUDA_ARCH__` as a test of the device pass. nvcc defines `__CUDA_ARCH__` exactly while it
//! compiles device code, so `#ifdef __CUDA_ARCH__` / `#ifndef __CUDA_ARCH__` / `#if
//! defined(__CUDA_ARCH__)` say "device pass" and "host pass". HIP-Clang never defines it (it
//! defines `__HIP_DEVICE_COMPILE__` in the device pass): without a change, HIP's device pass
//! compiles the host arm (host-only destructors, `std::cout`, host fallbacks in `__host__
//! __device__` functions). Checked with Debian's hipcc 5.2: `__HIP_DEVICE_COMPILE__` is
//! defined in the device pass, `__CUDA_ARCH__` in neither.
//!
//! Where every use of `__CUDA_ARCH__` in a condition asks only whether it is defined (or its
//! bare truth, which is the same: every architecture number is non-zero), `port` adds the HIP
//! test beside it — `#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)` — which
//! keeps CUDA's meaning on both platforms and still builds with nvcc (a safe rewrite; HP401 is
//! PASS naming it). A comparison with an architecture every GPU HIP targets is past
//! (`__CUDA_ARCH__ >= 200`: Fermi, which kernels of older projects wrap whole bodies in) is a
//! device-pass test too and is widened the same way (`(__CUDA_ARCH__ >= 200 ||
//! defined(__HIP_DEVICE_COMPILE__))`) where the chain's other arms hold no code (else HIP's
//! device pass compiles a portable arm already) and its own arm no inline assembly. A condition that compares a newer architecture's value
//! (`__CUDA_ARCH__ >= 700`) is about which GPU, not which pass: it is left alone and HP401
//! stays open.
//!
//! The widened test lets HIP's device pass into the device arms, so what they hold must build
//! there. A chain nested inside that compares `__CUDA_ARCH__`'s value sees 0 under HIP and takes
//! the arm for no listed architecture; where that arm is `#error` (moderngpu's
//! `launch_params.hxx`: `#if __CUDA_ARCH__ == 860 … #elif __CUDA_ARCH__ >= 200 … #else #error`),
//! the rewrite would turn a build that compiles the host arm into one that stops. Such a test is
//! left alone ([`blocked_by_error`]) and HP401 stays open, naming the `#error`.

use crate::lex::{Directive, Lexed, Tok};
use std::ops::Range;

const ARCH: &[u8] = b"__CUDA_ARCH__";
const DEFINED: &str = "defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)";
const UNDEFINED: &str = "!defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__)";

/// The edits that make directive `d` test the device pass on HIP too; empty when it tests
/// something else (an architecture value, nothing of `__CUDA_ARCH__`) or already names HIP's
/// device-pass macro.
pub fn rewrite(src: &[u8], lexed: &Lexed, k: usize) -> Vec<(Range<usize>, String)> {
    if !names_arch(src, lexed, k) {
        return Vec::new();
    }
    if blocked_by_error(src, lexed, k).is_some() || asm_beside_fallback(src, lexed, k) {
        return Vec::new();
    }
    // alpaka's `#if defined(ALPAKA_ACC_GPU_CUDA_ENABLED) && defined(__CUDA_ARCH__)` … `#elif
    // defined(ALPAKA_ACC_GPU_HIP_ENABLED) && defined(__HIP_DEVICE_COMPILE__)`: the chain has the
    // project's own HIP arm later; widened, the test would send HIP's device pass into the
    // CUDA arm (`__trap()`) ahead of it.
    if crate::model::cond::own_hip_arm_later(src, lexed, k).is_some() {
        return Vec::new();
    }
    // A file with its own test of HIP's device pass (vendored Eigen 3.4's `Macros.h`: `#if
    // defined(__HIP_DEVICE_COMPILE__)` sets its HIP macros, `defined(__CUDA_ARCH__)` its CUDA
    // ones, and its later branches assume one or the other): its CUDA tests are CUDA's alone.
    if own_hip_device_test(src, lexed) {
        return Vec::new();
    }
    // The chain's arms, read once for the guards that look at what the arms hold.
    if let Some(arms) = chain_open(lexed, k).and_then(|first| chain_arms(lexed, first)) {
        if declares_for_later(src, lexed, &arms) || defines_pragma_macro(src, lexed, &arms) {
            return Vec::new();
        }
    }
    widen(
        src,
        lexed,
        &lexed.directives[k],
        thresholds_ok(src, lexed, k),
    )
}

/// Whether the chain whose arms open at directives `arms` (its `#endif` last) declares, in some
/// arm and not in all, a name the
/// code after the chain reads in the block that holds it. dynamicfusion's `tsdf_volume.cu`: `#if __CUDA_ARCH__ < 200` /
/// `__shared__ int cta_buffer[CTA_SIZE];` / `#endif`, then `#if __CUDA_ARCH__ >= 120` … `#else`
/// … `Emulation::All(…, cta_buffer)`: widened, the first test takes the declaration from HIP's
/// device pass while a later chain HIP leaves alone still reads it, and the unit stops
/// building. Such a test is left alone (HP401 stays open): which arm declares is one decision
/// for the whole group of tests.
fn declares_for_later(src: &[u8], lexed: &Lexed, arms: &[usize]) -> bool {
    let dirs = &lexed.directives;
    let text = |t: usize| lexed.tokens[t].text(src);
    let code = |t: usize| {
        lexed.tokens[t].kind != Tok::Comment
            && lexed.tokens[t].directive == crate::lex::NO_DIRECTIVE
    };
    // The names each arm declares (`int cta_buffer[N];`, `float x = …;`); an `#if` without an
    // `#else` has an empty one.
    let mut declared: Vec<Vec<&[u8]>> = arms
        .windows(2)
        .map(|w| {
            let toks: Vec<usize> = (dirs[w[0]].tokens.end..dirs[w[1]].tokens.start)
                .filter(|&t| code(t))
                .collect();
            toks.windows(3)
                .filter(|p| {
                    lexed.tokens[p[1]].kind == Tok::Ident
                        && matches!(text(p[2]), b"[" | b"=" | b";" | b",")
                        && lexed.tokens[p[0]].kind == Tok::Ident
                        && !matches!(
                            text(p[0]),
                            b"return" | b"case" | b"goto" | b"else" | b"throw" | b"delete"
                        )
                })
                .map(|p| text(p[1]))
                .collect()
        })
        .collect();
    if dirs[arms[arms.len() - 2]].name != "else" {
        declared.push(Vec::new());
    }
    let in_some: Vec<&[u8]> = declared
        .iter()
        .flatten()
        .copied()
        .filter(|n| !declared.iter().all(|d| d.contains(n)))
        .collect();
    if in_some.is_empty() {
        return false;
    }
    // Read after the chain, in the block that holds it (a declaration is seen there only):
    // to the `}` that closes that block, or the end of the file at file scope.
    let mut depth = 0i32;
    for t in dirs[*arms.last().unwrap()].tokens.end..lexed.tokens.len() {
        if !code(t) {
            continue;
        }
        match text(t) {
            b"{" => depth += 1,
            b"}" => {
                depth -= 1;
                if depth < 0 {
                    return false;
                }
            }
            _ if lexed.tokens[t].kind == Tok::Ident && in_some.contains(&text(t)) => return true,
            _ => {}
        }
    }
    false
}

/// Whether an arm of the chain (arms opening at directives `arms`) defines a macro whose body
/// writes
/// `#pragma` (VoxelHashing's `cudaUtil.h`: `#if defined(__CUDA_ARCH__)` / `#define
/// __CONDITIONAL_UNROLL__ #pragma unroll`). A `#` a macro expands to is no directive: clang
/// stops at it ("expected expression"), so widened, the test would hand HIP's device pass a
/// macro that breaks every loop it precedes. Such a test is left alone (HP401 stays open;
/// `_Pragma("unroll")` is the form both compilers read).
fn defines_pragma_macro(src: &[u8], lexed: &Lexed, arms: &[usize]) -> bool {
    let dirs = &lexed.directives;
    let (Some(&first), Some(&end)) = (arms.first(), arms.last()) else {
        return false;
    };
    dirs[first + 1..end]
        .iter()
        .filter(|d| d.name == "define")
        .any(|d| {
            let words: Vec<&[u8]> = d
                .tokens
                .clone()
                .skip(3)
                .map(|t| lexed.tokens[t].text(src))
                .collect();
            words.windows(2).any(|w| w[0] == b"#" && w[1] == b"pragma")
        })
}

/// Whether a directive of the file tests HIP's device-pass macro without `__CUDA_ARCH__` (the
/// project's own HIP arm, not a test `port` widened).
fn own_hip_device_test(src: &[u8], lexed: &Lexed) -> bool {
    const HIP: &[u8] = b"__HIP_DEVICE_COMPILE__";
    if memchr::memmem::find(src, HIP).is_none() {
        return false;
    }
    lexed.directives.iter().any(|d| {
        let words = || d.tokens.clone().map(|j| lexed.tokens[j].text(src));
        words().any(|w| w == HIP) && !words().any(|w| w == ARCH)
    })
}

/// Whether directive `k`'s text names `__CUDA_ARCH__`: the only directives the rewrite and its
/// guards read. Every directive of a file is asked, and the guards walk the directive's chain,
/// so the others answer at once (4 942 nested `#if 1` took seconds).
fn names_arch(src: &[u8], lexed: &Lexed, k: usize) -> bool {
    let d = &lexed.directives[k];
    src.get(d.start..d.end)
        .is_some_and(|t| memchr::memmem::find(t, ARCH).is_some())
}

/// The directive (index) that opens the chain directive `k` belongs to: `k` itself for an
/// `#if`/`#ifdef`/`#ifndef`, else the opener before it at nesting depth 0 (nested chains
/// between are skipped); `None` past a bounded walk.
fn chain_open(lexed: &Lexed, k: usize) -> Option<usize> {
    let dirs = &lexed.directives;
    if matches!(dirs[k].name.as_str(), "if" | "ifdef" | "ifndef") {
        return Some(k);
    }
    let mut depth = 0i32;
    for j in (k.saturating_sub(4096)..k).rev() {
        match dirs[j].name.as_str() {
            "endif" => depth += 1,
            "if" | "ifdef" | "ifndef" if depth == 0 => return Some(j),
            "if" | "ifdef" | "ifndef" => depth -= 1,
            _ => {}
        }
    }
    None
}

/// The directives (indices) that open each arm of the chain opened by directive `first`, and
/// its `#endif` last; `None` when the chain does not close within a bounded walk.
fn chain_arms(lexed: &Lexed, first: usize) -> Option<Vec<usize>> {
    let dirs = &lexed.directives;
    let mut arms: Vec<usize> = vec![first];
    let mut depth = 0i32;
    for (j, d) in dirs.iter().enumerate().skip(first + 1).take(4096) {
        match d.name.as_str() {
            "if" | "ifdef" | "ifndef" => depth += 1,
            "endif" if depth > 0 => depth -= 1,
            "elif" | "else" if depth == 0 => arms.push(j),
            "endif" => {
                arms.push(j);
                return Some(arms);
            }
            _ => {}
        }
    }
    None
}

/// Whether the chain opened by directive `k` (an `#if`/`#ifdef`/`#ifndef`) has an arm holding
/// inline assembly beside another arm holding code: ccminer's `cuda_helper.h` writes
/// `cuda_swab32` and the 64-bit rotates as PTX under `#ifdef __CUDA_ARCH__` and as portable C
/// under `#else`. HIP's device pass compiles the portable arm today; widening the test would
/// hand it the PTX, which does not compile for AMD GPUs. Such a test is left alone (HP201 on
/// the assembly stays where HIP would compile it).
pub fn asm_beside_fallback(src: &[u8], lexed: &Lexed, k: usize) -> bool {
    let dirs = &lexed.directives;
    if !matches!(dirs[k].name.as_str(), "if" | "ifdef" | "ifndef") || !names_arch(src, lexed, k) {
        return false;
    }
    let Some(arms) = chain_arms(lexed, k).filter(|a| a.len() >= 3) else {
        return false;
    };
    // Each arm: (holds code, holds inline assembly).
    let held: Vec<(bool, bool)> = arms
        .windows(2)
        .map(|w| {
            // Directives count: a fallback may be a `#define` (`#define swab(x) …`).
            let mut toks = (dirs[w[0]].tokens.end..dirs[w[1]].tokens.start)
                .filter(|&t| lexed.tokens[t].kind != Tok::Comment);
            let first = toks.next();
            let asm = first
                .into_iter()
                .chain(toks)
                .any(|t| matches!(lexed.tokens[t].text(src), b"asm" | b"__asm__" | b"__asm"));
            (first.is_some(), asm)
        })
        .collect();
    held.iter().enumerate().any(|(i, &(_, asm))| {
        asm && held
            .iter()
            .enumerate()
            .any(|(j, &(code, other_asm))| j != i && code && !other_asm)
    })
}

/// Whether every code-holding arm of the chain at directive `k` without inline assembly is
/// plain arithmetic: no call (`name(`), no directive, no `std::`. bifrost's `int_fastdiv`:
/// `asm("mul.hi.s32 …")` under `#ifdef __CUDA_ARCH__`, `q = (((unsigned long long)((long
/// long)M * (long long)n)) >> 32);` in the `#else` arm, which HIP's device pass compiles and
/// which computes the same value on any target. Casts and `sizeof` are no calls.
pub fn fallback_is_arithmetic(src: &[u8], lexed: &Lexed, k: usize) -> bool {
    let dirs = &lexed.directives;
    // A definedness test only (`#ifdef __CUDA_ARCH__`, `#if !defined(__CUDA_ARCH__)`): value
    // tests have their own reading (an old GPU's fallback).
    let line = &src[dirs[k].start..dirs[k].end];
    let value_test = line.iter().any(|c| matches!(c, b'<' | b'>' | b'='));
    if value_test || !matches!(dirs[k].name.as_str(), "if" | "ifdef" | "ifndef") {
        return false;
    }
    let Some(arms) = chain_arms(lexed, k) else {
        return false;
    };
    // One pass over the arms. An arm with assembly: its PTX computes on registers only (no
    // memory operand `[%1]`, `"=m"`, no special register `%%laneid`, `%clock`): NVIDIA Warp's
    // `atom.add.f64 %0, [%1]` beside a plain `+=` is an atomic whose host arm is not one. An arm
    // without: plain arithmetic, no call, no nested directive, nothing of `std`.
    let text = |t: usize| lexed.tokens[t].text(src);
    let is_asm = |t: usize| matches!(text(t), b"asm" | b"__asm__" | b"__asm");
    let mut plain = 0;
    for w in arms.windows(2) {
        let toks: Vec<usize> = (dirs[w[0]].tokens.end..dirs[w[1]].tokens.start)
            .filter(|&t| lexed.tokens[t].kind != Tok::Comment)
            .collect();
        if toks.iter().any(|&t| is_asm(t)) {
            let pure = toks.iter().all(|&t| {
                let x = text(t);
                lexed.tokens[t].kind != Tok::Str
                    || !(x.contains(&b'[')
                        || x.windows(2).any(|p| p == b"%%")
                        || x.windows(2).any(|p| p == b"=m")
                        || x.windows(2).any(|p| p == b"+m"))
            });
            if !pure {
                return false;
            }
            continue;
        }
        if toks.is_empty() {
            continue;
        }
        let call = toks.windows(2).any(|p| {
            lexed.tokens[p[0]].kind == Tok::Ident
                && text(p[1]) == b"("
                && !matches!(
                    text(p[0]),
                    b"sizeof"
                        | b"static_cast"
                        | b"reinterpret_cast"
                        | b"const_cast"
                        | b"if"
                        | b"while"
                        | b"for"
                        | b"switch"
                        | b"return"
                )
        });
        let directive = toks
            .iter()
            .any(|&t| lexed.tokens[t].directive != crate::lex::NO_DIRECTIVE);
        if call || directive || toks.iter().any(|&t| text(t) == b"std") {
            return false;
        }
        plain += 1;
    }
    plain > 0
}

/// Whether an old-architecture test at directive `k` ([`old_threshold`]) may be widened: the
/// other arms of its chain hold no code (so HIP's device pass would otherwise compile nothing
/// there: cudpp's kernel bodies under `#if (__CUDA_ARCH__ >= 200)`), and its own arm holds no
/// inline assembly (`asm("bfe.u32 …")` beside a portable `#else` is a PTX fast path the
/// portable arm replaces).
fn thresholds_ok(src: &[u8], lexed: &Lexed, k: usize) -> bool {
    let dirs = &lexed.directives;
    if !matches!(dirs[k].name.as_str(), "if" | "elif") {
        return false;
    }
    // The chain: back to its `#if`, then forward to its `#endif`, at nesting depth 0.
    let Some(first) = chain_open(lexed, k).filter(|&f| dirs[f].name == "if") else {
        return false;
    };
    let Some(arms) = chain_arms(lexed, first) else {
        return false;
    };
    let code = |a: usize, b: usize| {
        (dirs[a].tokens.end..dirs[b].tokens.start).filter(|&t| {
            let t = &lexed.tokens[t];
            t.kind != Tok::Comment && t.directive == crate::lex::NO_DIRECTIVE
        })
    };
    arms.windows(2).all(|w| {
        if w[0] == k {
            !code(w[0], w[1])
                .any(|t| matches!(lexed.tokens[t].text(src), b"asm" | b"__asm__" | b"__asm"))
        } else {
            code(w[0], w[1]).next().is_none()
        }
    })
}

/// What HIP's device pass would reach if the test opened by directive `k` were widened, and
/// that stops the rewrite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Blocker {
    /// An `#error` (directive index), or the `#define` of a reserved `__name` (a stand-in for a
    /// builtin, `#define __shfl(v, l, w) (v)`), on a path through a nested condition that compares
    /// `__CUDA_ARCH__`'s value and that HIP (where the value is 0) takes or may take.
    Directive(usize),
    /// Code that reads `__CUDA_ARCH__` as a value (token index): Rodinia's `SHM_BANKS =
    /// ((__CUDA_ARCH__ >= 200) ? 32 : 16)` under `#ifdef __CUDA_ARCH__`. HIP defines no such
    /// name, so in its device pass that code is an undeclared identifier: widened, the test
    /// would turn a build that compiles the host arm into one that stops.
    ValueInCode(usize),
}

/// The first [`Blocker`] inside the group `k` belongs to; `None` when there is none (the
/// rewrite is safe to apply).
pub fn blocked_by_error(src: &[u8], lexed: &Lexed, k: usize) -> Option<Blocker> {
    use crate::model::cond;
    struct Chain {
        /// An earlier arm of the chain is certainly taken.
        done: bool,
        /// The current arm may be taken.
        live: bool,
        /// A condition of the chain compares `__CUDA_ARCH__`'s value.
        by_value: bool,
    }
    let dirs = &lexed.directives;
    // Only a test the rewrite would widen is asked about (every directive of a file is).
    if !names_arch(src, lexed, k)
        || widen(src, lexed, &dirs[k], thresholds_ok(src, lexed, k)).is_empty()
    {
        return None;
    }
    let mut nested: Vec<Chain> = Vec::new();
    let mut code_from = dirs[k].tokens.end;
    // Bounded: a group deeper than this is not written by hand (the fuzzer's nests).
    for (j, d) in dirs.iter().enumerate().skip(k + 1).take(4096) {
        if nested.iter().all(|c| c.live) {
            let value = (code_from..d.tokens.start).find(|&t| {
                let t = &lexed.tokens[t];
                t.kind == Tok::Ident && !t.in_directive() && t.text(src) == ARCH
            });
            if let Some(t) = value {
                return Some(Blocker::ValueInCode(t));
            }
        }
        code_from = d.tokens.end;
        let toks = cond::condition_tokens_of(src, lexed, d);
        let value = |toks: &[&str]| match d.name.as_str() {
            "if" | "elif" => cond::eval_under_hip(toks),
            "ifdef" | "ifndef" => {
                let mut t = vec!["defined"];
                t.extend(toks.first());
                let v = cond::eval_under_hip(&t);
                if d.name == "ifndef" {
                    v.map(|v| i64::from(v == 0))
                } else {
                    v
                }
            }
            _ => Some(1),
        };
        match d.name.as_str() {
            "if" | "ifdef" | "ifndef" => {
                let v = value(&toks);
                nested.push(Chain {
                    done: v.is_some_and(|v| v != 0),
                    live: v != Some(0),
                    by_value: compares_value(&toks),
                });
            }
            "elif" | "else" => {
                let Some(c) = nested.last_mut() else {
                    continue; // an arm of `k`'s own group: still inside it
                };
                let v = value(&toks);
                c.live = !c.done && v != Some(0);
                c.done |= v.is_some_and(|v| v != 0);
                c.by_value |= compares_value(&toks);
            }
            // An `#endif` with no nested chain open ends `k`'s group.
            "endif" => {
                nested.pop()?;
            }
            "error" if nested.iter().all(|c| c.live) && nested.iter().any(|c| c.by_value) => {
                return Some(Blocker::Directive(j));
            }
            // ccminer's `#if __CUDA_ARCH__ < 300` / `#define __shfl(var, srcLane, width)
            // (uint32_t)(var)`: a stand-in for a builtin on GPUs without it, which HIP's device
            // pass (value 0) would take, silently turning every shuffle into a copy.
            "define"
                if nested.iter().all(|c| c.live)
                    && nested.iter().any(|c| c.by_value)
                    && cond::condition_tokens_of(src, lexed, d)
                        .first()
                        .is_some_and(|n| n.starts_with("__")) =>
            {
                return Some(Blocker::Directive(j));
            }
            _ => {}
        }
    }
    None
}

/// Whether condition tokens use `__CUDA_ARCH__` other than as the operand of `defined`.
pub fn compares_value(toks: &[&str]) -> bool {
    toks.iter().enumerate().any(|(i, t)| {
        *t == "__CUDA_ARCH__"
            && !matches!(
                (
                    i.checked_sub(1).map(|p| toks[p]),
                    i.checked_sub(2).map(|p| toks[p])
                ),
                (Some("defined"), _) | (Some("("), Some("defined"))
            )
    })
}

/// The edits that widen directive `d`, before checking what the widened arms hold.
fn widen(
    src: &[u8],
    lexed: &Lexed,
    d: &Directive,
    thresholds: bool,
) -> Vec<(Range<usize>, String)> {
    let toks: Vec<usize> = lexed.directive_words(d);
    let text = |j: usize| lexed.tokens[j].text(src);
    let range = |j: usize| lexed.tokens[j].range();
    if toks.len() < 3
        || !toks.iter().any(|&j| text(j) == ARCH)
        || toks.iter().any(|&j| text(j) == b"__HIP_DEVICE_COMPILE__")
    {
        return Vec::new();
    }
    let name = toks[1];
    let cond = &toks[2..];
    let words: Vec<&[u8]> = cond.iter().map(|&j| text(j)).collect();
    let whole = |with: &str| {
        vec![(
            range(name).start..range(*cond.last().unwrap()).end,
            with.to_string(),
        )]
    };
    match (d.name.as_str(), words.as_slice()) {
        ("ifdef", [w]) if *w == ARCH => whole(&format!("if {DEFINED}")),
        ("ifndef", [w]) if *w == ARCH => whole(&format!("if {UNDEFINED}")),
        ("if" | "elif", [w]) if *w == ARCH => vec![(range(cond[0]), DEFINED.to_string())],
        ("if" | "elif", [b"!", w]) if *w == ARCH => vec![(
            range(cond[0]).start..range(cond[1]).end,
            UNDEFINED.to_string(),
        )],
        ("if" | "elif", _) => defined_groups(cond, &words, &range, thresholds),
        _ => Vec::new(),
    }
}

/// The highest architecture a test may name and still mean "any GPU" on HIP: what Fermi
/// (sm_20) brought (double precision, device `printf` and `malloc`, 64-bit atomics, ballots)
/// every GPU HIP targets has. Newer thresholds gate features AMD GPUs lack (dynamic
/// parallelism from sm_35, independent thread scheduling, asynchronous copies, TMA): those
/// tests stay for a person.
const ANY_GPU_UP_TO: u64 = 200;

/// A comparison of `__CUDA_ARCH__` with a number every GPU HIP targets passes or fails alike
/// (`__CUDA_ARCH__ >= 200`, `__CUDA_ARCH__ < 130`), at `words[i..]`: its length and its widened
/// text (`(__CUDA_ARCH__ >= 200 || defined(__HIP_DEVICE_COMPILE__))`, or `&&
/// !defined(__HIP_DEVICE_COMPILE__)` for a test that only old GPUs pass).
fn old_threshold(words: &[&[u8]]) -> Option<(usize, String)> {
    let (op, n, len) = match words {
        [w, b">", b"=", n, ..] if *w == ARCH => (">=", *n, 4),
        [w, b"<", b"=", n, ..] if *w == ARCH => ("<=", *n, 4),
        [w, b">", n, ..] if *w == ARCH && *n != b"=" && *n != b">" => (">", *n, 3),
        [w, b"<", n, ..] if *w == ARCH && *n != b"=" && *n != b"<" => ("<", *n, 3),
        _ => return None,
    };
    let v = crate::model::syntax::int_value(std::str::from_utf8(n).ok()?)?;
    if v == 0 || v > ANY_GPU_UP_TO {
        return None;
    }
    let n = String::from_utf8_lossy(n);
    let text = match op {
        ">=" | ">" => format!("(__CUDA_ARCH__ {op} {n} || defined(__HIP_DEVICE_COMPILE__))"),
        _ => format!("(__CUDA_ARCH__ {op} {n} && !defined(__HIP_DEVICE_COMPILE__))"),
    };
    Some((len, text))
}

/// Every `defined(__CUDA_ARCH__)` / `defined __CUDA_ARCH__` of a condition, and every
/// comparison with an architecture every GPU HIP targets passes alike ([`old_threshold`]),
/// widened; nothing when `__CUDA_ARCH__` is also used otherwise (a newer architecture's value).
fn defined_groups(
    cond: &[usize],
    words: &[&[u8]],
    range: &dyn Fn(usize) -> Range<usize>,
    thresholds: bool,
) -> Vec<(Range<usize>, String)> {
    let mut out = Vec::new();
    let mut covered = 0;
    let mut i = 0;
    while i < words.len() {
        if words[i] == b"defined" {
            let group = match &words[i + 1..] {
                [b"(", w, b")", ..] if *w == ARCH => Some(4),
                [w, ..] if *w == ARCH => Some(2),
                _ => None,
            };
            if let Some(n) = group {
                out.push((
                    range(cond[i]).start..range(cond[i + n - 1]).end,
                    format!("({DEFINED})"),
                ));
                covered += 1;
                i += n;
                continue;
            }
        }
        if let Some((n, text)) = old_threshold(&words[i..]).filter(|_| thresholds) {
            out.push((range(cond[i]).start..range(cond[i + n - 1]).end, text));
            covered += 1;
            i += n;
            continue;
        }
        i += 1;
    }
    let uses = words.iter().filter(|w| **w == ARCH).count();
    if covered == uses {
        out
    } else {
        Vec::new()
    }
}

/// The rewrite as edits of a translation.
pub(super) fn run(p: &mut super::Pass) {
    for k in 0..p.lexed.directives.len() {
        for (r, with) in rewrite(p.ctx.src, p.lexed, k) {
            p.edits
                .push(crate::edit::Edit::replace(r.start, r.end, with));
            p.stats.fixups += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(src: &str) -> String {
        let lexed = crate::lex::lex(src.as_bytes());
        let mut out = src.to_string();
        let mut edits: Vec<(Range<usize>, String)> = (0..lexed.directives.len())
            .flat_map(|k| rewrite(src.as_bytes(), &lexed, k))
            .collect();
        edits.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
        for (r, w) in edits {
            out.replace_range(r, &w);
        }
        out
    }

    #[test]
    fn device_pass_tests_gain_hips_macro() {
        assert_eq!(
            apply("#ifdef __CUDA_ARCH__ // device\n#endif\n"),
            format!("#if {DEFINED} // device\n#endif\n")
        );
        assert_eq!(
            apply("#ifndef __CUDA_ARCH__\n#endif\n"),
            format!("#if {UNDEFINED}\n#endif\n")
        );
        assert_eq!(
            apply("#if !defined(__CUDA_ARCH__) && !defined(_WIN32)\n#endif\n"),
            format!("#if !({DEFINED}) && !defined(_WIN32)\n#endif\n")
        );
        assert_eq!(
            apply("#if __CUDA_ARCH__\n#elif !__CUDA_ARCH__\n#endif\n"),
            format!("#if {DEFINED}\n#elif {UNDEFINED}\n#endif\n")
        );
        assert_eq!(
            apply("#if defined __CUDA_ARCH__\n#endif\n"),
            format!("#if ({DEFINED})\n#endif\n")
        );
    }

    /// VoxelHashing's `cudaUtil.h`: the device arm defines a macro that expands to `#pragma`,
    /// which clang does not read as a directive: the test stays as written. Twin: `_Pragma`.
    #[test]
    fn a_device_arm_defining_a_pragma_macro_keeps_its_cuda_test() {
        let pragma = "#if defined(__CUDA_ARCH__)\n#define UNROLL #pragma unroll\n#else\n#define UNROLL\n#endif\n";
        assert_eq!(apply(pragma), pragma);
        let operator = "#if defined(__CUDA_ARCH__)\n#define UNROLL _Pragma(\"unroll\")\n#else\n#define UNROLL\n#endif\n";
        assert_ne!(apply(operator), operator);
    }

    /// alpaka's `RuntimeMacros.hpp` (MPL-2.0): the chain's later arm is the project's own HIP
    /// device arm, so the CUDA test stays as written (HIP skips it and takes its own arm).
    /// Twin: without the HIP arm the test is widened.
    #[test]
    fn a_chain_with_the_projects_own_hip_arm_keeps_its_cuda_test() {
        let own = "#if defined(ACC_CUDA) && defined(__CUDA_ARCH__)\n#define T() __trap()\n#elif defined(ACC_HIP) && defined(__HIP_DEVICE_COMPILE__)\n#define T() abort()\n#endif\n";
        assert_eq!(apply(own), own);
        let alone =
            "#if defined(ACC_CUDA) && defined(__CUDA_ARCH__)\n#define T() __trap()\n#endif\n";
        assert_ne!(apply(alone), alone);
        // Eigen 3.4's `Macros.h` (MPL-2.0): its own HIP device-pass test elsewhere in the
        // file; the CUDA one stays as written.
        let eigen = "#if defined(EIGEN_CUDACC) && defined(__CUDA_ARCH__)\n#define EIGEN_CUDA_ARCH __CUDA_ARCH__\n#endif\n#if defined(__HIP_DEVICE_COMPILE__)\n#define EIGEN_HIP_DEVICE_COMPILE __HIP_DEVICE_COMPILE__\n#endif\n";
        assert_eq!(apply(eigen), eigen);
    }

    /// A comparison with an architecture every GPU HIP targets is past (cudpp wraps kernel
    /// bodies in `#if (__CUDA_ARCH__ >= 200)` with nothing in `#else`) is a device-pass test:
    /// widened; an old-GPU `#error` is kept from HIP's device pass. A second run changes
    /// nothing.
    #[test]
    fn fermi_thresholds_are_device_pass_tests() {
        let src = "#if (__CUDA_ARCH__ >= 200)\nk();\n#else\n#endif\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 200\n#error needs sm_20\n#endif\n";
        let out = apply(src);
        assert_eq!(
            out,
            "#if ((__CUDA_ARCH__ >= 200 || defined(__HIP_DEVICE_COMPILE__)))\nk();\n#else\n#endif\n#if (defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)) && (__CUDA_ARCH__ < 200 && !defined(__HIP_DEVICE_COMPILE__))\n#error needs sm_20\n#endif\n"
        );
        assert_eq!(apply(&out), out);
        // The twins: a newer architecture (dynamic parallelism from sm_35), a test mixing an old
        // threshold with a newer one, a PTX fast path beside a portable arm, and an old-GPU
        // arm beside the current one: HIP compiles working code already, they stay.
        for src in [
            "#if __CUDA_ARCH__ >= 350\nk();\n#endif\n",
            "#if __CUDA_ARCH__ >= 200 && __CUDA_ARCH__ < 700\nk();\n#endif\n",
            "#if __CUDA_ARCH__ >= 200\n  asm(\"bfe.u32 %0, %1, 0, 8;\" : \"=r\"(r) : \"r\"(x));\n#else\n  r = x & 255;\n#endif\n",
            "#if __CUDA_ARCH__ < 130\nold();\n#else\nnew();\n#endif\n",
        ] {
            assert_eq!(apply(src), src);
        }
    }

    /// dynamicfusion's `tsdf_volume.cu`: the old-GPU arm declares the shared buffer a later
    /// chain's fallback reads; widened, HIP's device pass would lose the declaration and keep
    /// the read. Left alone. Twins: a declaration every arm makes, and one nothing outside the
    /// chain reads, are widened as before.
    #[test]
    fn a_declaration_read_outside_its_chain_blocks_the_widening() {
        let src = "__device__ void f(int x) {\n#if __CUDA_ARCH__ < 200\n  __shared__ int cta_buffer[256];\n#endif\n#if __CUDA_ARCH__ >= 120\n  if (__all(x > 0)) return;\n#else\n  if (Emulation::All(x > 0, cta_buffer)) return;\n#endif\n}\n";
        assert_eq!(apply(src), src);
        let both = "__host__ __device__ void f(int x) {\n#ifdef __CUDA_ARCH__\n  int n = 1;\n#else\n  int n = 2;\n#endif\n  g(n);\n}\n";
        assert_ne!(apply(both), both);
        let local = "__device__ void f(int x) {\n#if __CUDA_ARCH__ >= 200\n  int n = x;\n  g(n);\n#endif\n}\n";
        assert_ne!(apply(local), local);
    }

    /// Twins: architecture values, conditions already naming HIP's macro, and the output of
    /// the rewrite itself (idempotent) are left alone.
    #[test]
    fn architecture_values_and_hip_aware_tests_stay() {
        for src in [
            "#if __CUDA_ARCH__ >= 700\n#endif\n",
            "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800\n#endif\n",
            "#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)\n#endif\n",
            "#define IS_DEVICE defined(__CUDA_ARCH__)\n",
            "#ifdef __CUDACC__\n#endif\n",
        ] {
            assert_eq!(apply(src), src);
        }
        let once = apply("#ifndef __CUDA_ARCH__\n#endif\n");
        assert_eq!(apply(&once), once);
    }

    /// The shape of moderngpu's `launch_params.hxx`: the device arm holds a chain on
    /// architecture values that ends in `#error`; HIP's device pass, let in, would stop there.
    /// ccminer's x11 SIMD: `#if defined(__CUDA_ARCH__)` / `#if __CUDA_ARCH__ < 300` / `#define
    /// __shfl(v, l, w) (v)`: widened, HIP's device pass would make every shuffle a copy. Twin: a
    /// project macro defined there (no reserved name) does not block the rewrite.
    #[test]
    fn an_old_gpu_stand_in_for_a_builtin_blocks_the_rewrite() {
        let src = "#if defined(__CUDA_ARCH__)\n#if __CUDA_ARCH__ < 300\n#define __shfl(var, srcLane, width) (uint32_t)(var)\n#endif\n#endif\n";
        assert_eq!(apply(src), src);
        let own = src.replace("__shfl(", "MY_SHFL(");
        assert!(apply(&own).contains("defined(__HIP_DEVICE_COMPILE__)"));
    }

    /// ccminer's `cuda_helper.h`: PTX under `#ifdef __CUDA_ARCH__`, portable C under `#else`:
    /// HIP's device pass keeps the portable arm (no rewrite). Twins: a device arm with no
    /// assembly, and assembly with no other arm holding code, are widened.
    #[test]
    fn a_ptx_arm_beside_a_portable_one_stays() {
        let src = "#ifdef __CUDA_ARCH__\n__device__ unsigned swab(unsigned x) { unsigned r; asm(\"prmt.b32 %0, %1, 0, 0x0123;\" : \"=r\"(r) : \"r\"(x)); return r; }\n#else\n#define swab(x) __builtin_bswap32(x)\n#endif\n";
        assert_eq!(
            apply(src),
            src,
            "the PTX arm stays out of HIP's device pass"
        );
        let plain = src.replace("#define swab(x) __builtin_bswap32(x)", "");
        assert!(apply(&plain).contains("defined(__HIP_DEVICE_COMPILE__)"));
        let no_asm = "#ifdef __CUDA_ARCH__\n__device__ int f() { return 1; }\n#else\nint f() { return 2; }\n#endif\n";
        assert!(apply(no_asm).contains("defined(__HIP_DEVICE_COMPILE__)"));
    }

    #[test]
    fn a_device_arm_whose_arch_chain_ends_in_error_stays() {
        for src in [
            "#ifdef __CUDA_ARCH__\n#if __CUDA_ARCH__ == 860\nA\n#elif __CUDA_ARCH__ >= 200\nB\n#else\n#error no sm_1x\n#endif\n#else\nH\n#endif\n",
            "#ifndef __CUDA_ARCH__\nH\n#else\n#if __CUDA_ARCH__ < 300\n#error old\n#endif\n#endif\n",
            "#if defined(__CUDA_ARCH__)\n#ifdef X\n#if __CUDA_ARCH__ < 700\n#error old\n#endif\n#endif\n#endif\n",
        ] {
            assert_eq!(apply(src), src, "{src}");
        }
        let lexed = crate::lex::lex(
            b"#ifdef __CUDA_ARCH__\n#if __CUDA_ARCH__ >= 200\n#else\n#error x\n#endif\n#endif\n",
        );
        assert_eq!(blocked_by_error(b"#ifdef __CUDA_ARCH__\n#if __CUDA_ARCH__ >= 200\n#else\n#error x\n#endif\n#endif\n", &lexed, 0), Some(Blocker::Directive(3)));
    }

    /// Rodinia's `transform_buffer.h`: the device arm reads `__CUDA_ARCH__`'s value in code, an
    /// undeclared identifier in HIP's device pass: the test stays. Twins: the same read under a
    /// nested value test HIP does not take, and a read only in a directive, are widened.
    #[test]
    fn a_device_arm_that_reads_the_arch_value_in_code_stays() {
        let src = "enum {\n#ifdef __CUDA_ARCH__\n  BANKS = ((__CUDA_ARCH__ >= 200) ? 32 : 16),\n#else\n  BANKS = 16,\n#endif\n};\n";
        assert_eq!(apply(src), src);
        let lexed = crate::lex::lex(src.as_bytes());
        assert!(matches!(
            blocked_by_error(src.as_bytes(), &lexed, 0),
            Some(Blocker::ValueInCode(_))
        ));
        let nested = "#ifdef __CUDA_ARCH__\n#if __CUDA_ARCH__ >= 700\nint v = __CUDA_ARCH__;\n#endif\nint w;\n#endif\n";
        assert!(apply(nested).contains("defined(__HIP_DEVICE_COMPILE__)"));
        let directive = "#ifdef __CUDA_ARCH__\n#define ARCH_NUM __CUDA_ARCH__\nint w;\n#endif\n";
        assert!(apply(directive).contains("defined(__HIP_DEVICE_COMPILE__)"));
    }

    /// Twins: the nested chain's fallback holds code (HIP's device pass compiles it: the
    /// rewrite is still safe); an `#error` HIP does not reach (a value test HIP fails, a
    /// definedness test, after the group ends) does not stop it.
    #[test]
    fn a_device_arm_with_a_generic_fallback_is_widened() {
        for src in [
            "#ifdef __CUDA_ARCH__\n#if __CUDA_ARCH__ >= 700\nfast();\n#else\ngeneric();\n#endif\n#else\nhost();\n#endif\n",
            "#ifdef __CUDA_ARCH__\n#if __CUDA_ARCH__ >= 700\n#error too new\n#endif\n#endif\n",
            "#ifdef __CUDA_ARCH__\n#endif\n#if __CUDA_ARCH__ < 300\n#error old\n#endif\n",
            "#ifdef __CUDA_ARCH__\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 300\n#error old\n#endif\n#endif\n",
        ] {
            assert!(apply(src).contains("__HIP_DEVICE_COMPILE__"), "{src}");
        }
    }
}
