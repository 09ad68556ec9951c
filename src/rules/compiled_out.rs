//! compiled-out-under-hip (HP304): a conditional chain where the ROCm build takes another arm
//! than a current CUDA build. Both builds are evaluated with [`macro_env`] (a HIP-Clang compile
//! for AMD, and CUDA 12.8 with its libraries); where both are decided and differ, one finding on
//! the deciding directive names what disappears (declarations of the arm CUDA compiles and
//! names used only there) and what runs instead. Nothing inside the arms is reported here:
//! [`hipside`] marks the arm HIP never compiles, and findings there are PASS naming this
//! condition.
//!
//! Not reported: chains on HIP's platform or a project's ROCm switch (`#ifdef USE_ROCM … #else`,
//! `__HIP_PLATFORM_AMD__`: the HIP arm is the author's deliberate ROCm path), chains on
//! `__CUDA_ARCH__` (device/host or per-GPU splits: arch-check covers them), chains either build
//! leaves undecided (a project macro the tool cannot resolve stays live), and chains nested in a
//! branch one of the builds never compiles. A chain with a finding here carries no HP301: one
//! decision, one finding.

use super::RuleInfo;
use crate::finding::Finding;
use crate::gate::{Phase, Status};
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::lex::Tok;
use crate::mappings::Target;
use crate::model::cond;
use crate::model::hipside;
use crate::model::macro_env::MacroEnv;
use crate::model::syntax::Src;
use std::collections::BTreeSet;
use std::ops::Range;

rule!(COMPILED_OUT_UNDER_HIP, "HP304", VersionCheck, Remediation, Correctness,
    summary: "A `#if`/`#ifdef` chain where the ROCm build compiles another arm than a current CUDA build (a CUDA library or toolkit macro HIP never defines): the CUDA arm's code disappears under HIP.",
    why: "HIP-Clang defines none of the CUDA toolkit or library macros (`CUBLAS_VERSION`, `CUDNN_VERSION`, `__CUDA_BF16_TYPES_EXIST__`, `CUDART_VERSION`), so `#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 11600` is false there and the `#else` arm (or nothing) is compiled. The port builds, but a feature is silently gone: a fused epilogue that computes a bias gradient, a bf16 test type, a fast path. When the HIP arm is `#error` or throws, the failure moves to build or run time.",
    bad: "#if defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 11600\nvoid gemm_bias_grad() { /* cublasLt epilogue */ }\n#else\nvoid gemm_bias_grad() { /* no-op */ }\n#endif",
    good: "#if defined(__HIP_PLATFORM_AMD__) || (defined(CUBLAS_VERSION) && CUBLAS_VERSION >= 11600)\nvoid gemm_bias_grad() { /* hipBLASLt epilogue */ }\n#else\nvoid gemm_bias_grad() { /* no-op */ }\n#endif",
    fix: "Decide what the ROCm build needs: make the CUDA arm compile for HIP (add `|| defined(__HIP_PLATFORM_AMD__)` once its calls port, e.g. to hipBLASLt), or keep the other arm deliberately with an explicit `#elif defined(__HIP_PLATFORM_AMD__)` that says why. Test the feature on ROCm either way.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html", "https://docs.nvidia.com/cuda/cublas/index.html#cublasgetversion"],
);

pub const RULES: &[&RuleInfo] = &[&COMPILED_OUT_UNDER_HIP];

/// The words an HP304 message uses for a macro only the project's CUDA build defines, before
/// its name ([`build_only_macro`] reads it back).
const BUILD_ONLY: &str = "only the project's CUDA build defines ";

/// The macro only the project's CUDA build defines that an HP304 finding's condition tests.
pub fn build_only_macro(f: &Finding) -> Option<&str> {
    if f.rule != COMPILED_OUT_UNDER_HIP.code() {
        return None;
    }
    let (_, rest) = f.message.split_once(BUILD_ONLY)?;
    rest.strip_prefix('`')?.split('`').next()
}

/// One arm of a chain: its directive, its body and whether each build compiles it when reached.
struct Arm {
    dir: Range<usize>,
    toks: Vec<String>,
    kind: String,
    body: Range<usize>,
    hip: Option<bool>,
    cuda: Option<bool>,
}

/// An open chain and whether the code around it is compiled by each build.
struct Chain {
    arms: Vec<Arm>,
    around_hip: bool,
    around_cuda: bool,
    /// A condition on HIP's platform, a ROCm switch or `__CUDA_ARCH__`.
    excluded: bool,
}

/// The arm a build takes: `Ok(Some(i))`, `Ok(None)` when no arm is, `Err(())` when undecided.
fn taken(arms: &[Arm], side: impl Fn(&Arm) -> Option<bool>) -> Result<Option<usize>, ()> {
    for (i, a) in arms.iter().enumerate() {
        match side(a) {
            Some(true) => return Ok(Some(i)),
            Some(false) => {}
            None => return Err(()),
        }
    }
    Ok(None)
}

/// Whether a build compiles the open (last) arm: `Some(false)` only when certain.
fn open_arm(arms: &[Arm], side: impl Fn(&Arm) -> Option<bool>) -> Option<bool> {
    let (last, before) = arms.split_last()?;
    if before.iter().any(|a| side(a) == Some(true)) {
        return Some(false);
    }
    if before.iter().all(|a| side(a) == Some(false)) {
        return side(last);
    }
    (side(last) == Some(false)).then_some(false)
}

/// Adds HP304 findings for `s` and drops HP301 findings on the same chains.
/// The chains found, as (the finding's directive start, the body of the arm HIP compiles), so
/// that the translator's findings inside that arm fold into the condition
/// ([`fold_hip_arm_findings`]).
///
/// `regions` is the model's answer for the file ([`crate::model::hipside`]): a chain inside code
/// the ROCm build never compiles (an arm on another backend's switch, `#if
/// defined(MFEM_USE_CUDA)`) is no HP304, whatever its own condition.
///
/// `cuda_build_only` are the project macros only its CUDA build defines
/// ([`crate::model::project::Visible::cuda_build_only`]): defined in the CUDA build, undefined
/// in the ROCm build.
pub fn check(
    s: &Src,
    target: &Target,
    regions: &[crate::model::hipside::Region],
    cuda_build_only: &std::collections::BTreeMap<String, String>,
    out: &mut Vec<Finding>,
) -> Vec<(usize, Range<usize>)> {
    let opens: Vec<usize> = s
        .lexed
        .directives
        .iter()
        .filter(|d| matches!(d.name.as_str(), "if" | "ifdef" | "ifndef"))
        .map(|d| d.start)
        .collect();
    let mut dead = crate::model::hipside::sides_at(regions, &opens)
        .into_iter()
        .map(|side| matches!(side, Some(crate::model::hipside::Side::Never(_))));
    use crate::model::macro_env::Known;
    // A file that defines such a macro itself decides it for both builds.
    let cuda_build_only: std::collections::BTreeMap<String, String> = cuda_build_only
        .iter()
        .filter(|(n, _)| !hipside::defines_itself(s, n))
        .map(|(n, w)| (n.clone(), w.clone()))
        .collect();
    let cuda_build_only = &cuda_build_only;
    let off = |n: &str| cuda_build_only.contains_key(n).then_some(Known::Undefined);
    // Defined in a default CUDA build, unless only a user switch that is off by default
    // defines it there too.
    let on = |n: &str| {
        cuda_build_only.get(n).map(|why| {
            if crate::inventory::cmake::defined_by_default(why) {
                Known::Defined
            } else {
                Known::Undefined
            }
        })
    };
    let hip = MacroEnv::hip_for(target.rocm).with_extra(&off);
    let cuda = MacroEnv::cuda().with_extra(&on);
    let mut stack: Vec<Chain> = Vec::new();
    let mut found: Vec<Finding> = Vec::new();
    let mut chain_dirs: Vec<usize> = Vec::new();
    let mut hip_arms: Vec<(usize, Range<usize>)> = Vec::new();
    let code = std::cell::OnceCell::new();
    let live = |stack: &[Chain]| {
        stack.last().map_or((true, true), |c| {
            let h = c.around_hip && open_arm(&c.arms, |a| a.hip) != Some(false);
            let n = c.around_cuda && open_arm(&c.arms, |a| a.cuda) != Some(false);
            (h, n)
        })
    };
    for d in &s.lexed.directives {
        let name = d.name.as_str();
        let arm = || {
            let toks = cond::condition_tokens(s, d);
            let excluded = toks
                .iter()
                .any(|t| t.starts_with("__CUDA_ARCH") || cond::is_hip_macro(t));
            let a = Arm {
                toks: toks.iter().map(|t| t.to_string()).collect(),
                dir: s.directive_range(d),
                kind: name.to_string(),
                body: d.end..d.end,
                hip: hip.directive(s, d),
                cuda: cuda.directive(s, d),
            };
            (a, excluded)
        };
        match name {
            "if" | "ifdef" | "ifndef" => {
                let (around_hip, around_cuda) = live(&stack);
                // Advance for every chain opened, live or not, so the answers stay in step.
                let in_dead = dead.next().unwrap_or(false);
                let around_hip = around_hip && !in_dead;
                let (a, excluded) = arm();
                stack.push(Chain {
                    arms: vec![a],
                    around_hip,
                    around_cuda,
                    excluded,
                });
            }
            "elif" | "elifdef" | "elifndef" | "else" | "endif" => {
                let Some(c) = stack.last_mut() else { continue };
                if let Some(last) = c.arms.last_mut() {
                    last.body.end = d.start;
                }
                if name != "endif" {
                    let (a, excluded) = arm();
                    c.excluded |= excluded;
                    c.arms.push(a);
                    continue;
                }
                let Some(c) = stack.pop() else { continue };
                if c.excluded || !c.around_hip || !c.around_cuda {
                    continue;
                }
                let (Ok(h), Ok(n)) = (taken(&c.arms, |a| a.hip), taken(&c.arms, |a| a.cuda)) else {
                    continue;
                };
                if h == n || shared_platform_split(s, &c.arms) {
                    continue;
                }
                if let Some(f) = finding(s, &code, &c.arms, h, n, cuda_build_only) {
                    chain_dirs.extend(c.arms.iter().map(|a| a.dir.start));
                    if let Some(h) = h {
                        hip_arms.push((f.byte_range.0, c.arms[h].body.clone()));
                    }
                    found.push(f);
                }
            }
            _ => {}
        }
    }
    out.retain(|f| {
        f.rule != super::version_check::CUDA_VERSION_MACRO.code()
            || !chain_dirs.contains(&f.byte_range.0)
    });
    out.extend(found);
    hip_arms
}

/// The translator's un-ported API findings (HP001/HP003) inside the arm HIP compiles only
/// because a CUDA macro is undefined there (cudpp's `#if CUDA_VERSION < 3000` arm of legacy
/// `cudaGL*` calls): the fix is the condition, one decision, so they fold into its HP304
/// finding, which says which calls HIP's arm makes and that the build stops there.
pub fn fold_hip_arm_findings(
    arms: &[(usize, Range<usize>)],
    out: &mut [Finding],
    translated: &mut [Finding],
) {
    for (dir, body) in arms {
        let Some(h) = out
            .iter()
            .position(|f| f.rule == COMPILED_OUT_UNDER_HIP.id.code && f.byte_range.0 == *dir)
        else {
            continue;
        };
        let (path, line) = (out[h].path.clone(), out[h].line);
        let mut names: Vec<String> = Vec::new();
        let mut folded = 0;
        for f in translated.iter_mut().filter(|f| {
            // A deprecated name (HP002) still compiles: its arm builds, so it is no part of a
            // build that stops, and keeps its own finding.
            matches!(f.rule.as_str(), "HP001" | "HP003")
                && f.status != Status::Pass
                && body.contains(&f.byte_range.0)
        }) {
            if let Some(n) = f.message.split('`').nth(1) {
                if !names.iter().any(|x| x == n) {
                    names.push(n.to_string());
                }
            }
            crate::finding::Folded::fold(f, format!("{path}:{line}"));
            f.message.push_str(&format!(
                " (folded into `{path}:{line}`: HIP compiles this arm only because the condition there tests a CUDA macro HIP does not define)"
            ));
            f.suggestion = None;
            folded += 1;
        }
        if folded == 0 {
            continue;
        }
        let shown: Vec<String> = names.iter().take(4).map(|n| format!("`{n}`")).collect();
        let more = names.len().saturating_sub(4);
        let head = &mut out[h];
        head.message.push_str(&format!(
            " — HIP's arm calls {}{} that HIP lacks, so the build stops there ({folded} findings folded here): fixing the condition is the port",
            shown.join(", "),
            if more > 0 { format!(" and {more} more") } else { String::new() }
        ));
        head.phase = Phase::Build;
    }
}

/// How the HIP arm fails, if it does: `#error`/`static_assert(false)` at build time, a throw,
/// abort, exit or `assert(0)` at run time — at the arm's top level or directly inside a body the
/// arm opens (a function that replaces the CUDA one and only throws); an `exit` deep in an error
/// path of a helper is not the arm failing.
fn failure(s: &Src, body: &Range<usize>) -> Option<Phase> {
    if s.lexed
        .directives
        .iter()
        .any(|d| body.contains(&d.start) && d.name == "error")
    {
        return Some(Phase::Build);
    }
    let toks = code_tokens(s, body);
    let mut phase = None;
    let mut depth = 0i32;
    for (k, &i) in toks.iter().enumerate() {
        let next = |n: usize| toks.get(k + n).map_or("", |&j| s.tok(j));
        let falsy = matches!(next(2), "0" | "false") && next(3) == ")";
        match s.tok(i) {
            "{" => depth += 1,
            "}" => depth -= 1,
            _ if depth > 1 => {}
            "static_assert" if next(1) == "(" && falsy => return Some(Phase::Build),
            "throw" | "abort" | "exit" | "terminate" | "__trap" | "__builtin_trap" => {
                phase = Some(Phase::Runtime)
            }
            "assert" if next(1) == "(" && falsy => phase = Some(Phase::Runtime),
            _ => {}
        }
    }
    phase
}

/// Whether a chain is a plain "is this CUDA?" test (`#ifdef __NVCC__`, `#if !defined(CUDA_VERSION)`:
/// only `defined` of toolkit or compiler macros) in a file already written for HIP too (a path
/// segment or a name that says HIP): there the not-CUDA arm is the author's HIP path.
fn shared_platform_split(s: &Src, arms: &[Arm]) -> bool {
    let plain = arms.iter().all(|a| {
        a.toks.iter().all(|t| {
            matches!(t.as_str(), "defined" | "(" | ")" | "!" | "&&" | "||")
                || crate::model::macro_env::is_toolkit_identification(t)
        })
    });
    if !plain {
        return false;
    }
    let path_says_hip = s
        .ctx
        .path
        .split(['/', '_', '-', '.'])
        .any(|w| w.eq_ignore_ascii_case("hip"));
    path_says_hip
        || s.idents().any(|(_, t)| {
            cond::is_hip_macro(t)
                || (t.starts_with("hip") && t[3..].starts_with(|c: char| c.is_ascii_uppercase()))
        })
}

/// The line of the first statement after byte `at` (an `#endif`) in the function around it,
/// `None` at file scope or when the function ends there.
fn code_after(s: &Src, at: usize) -> Option<usize> {
    let n = s.tree?.root_node().descendant_for_byte_range(at, at)?;
    let f = s.enclosing_function(n)?;
    let end = f.field(F::Body)?.end_byte().saturating_sub(1);
    let toks = &s.lexed.tokens;
    let first = toks.partition_point(|t| (t.start as usize) < at);
    toks[first..]
        .iter()
        .take_while(|t| (t.start as usize) < end)
        .find(|t| t.kind != Tok::Comment && !t.in_directive() && t.text(s.bytes()) != b"}")
        .map(|t| s.line(t.start as usize) + 1)
}

/// The code tokens (no comments, no directive lines) of a byte range.
fn code_tokens(s: &Src, r: &Range<usize>) -> Vec<usize> {
    s.lexed
        .tokens
        .iter()
        .enumerate()
        .filter(|(_, t)| {
            r.contains(&(t.start as usize)) && t.kind != Tok::Comment && !t.in_directive()
        })
        .map(|(i, _)| i)
        .collect()
}

/// CUDA calls and attributes that only tune speed: pinning host memory, placement hints for
/// managed memory, cache and shared-memory preferences, and the attribute that says whether
/// pinning is supported.
const SPEED_ONLY: &[&str] = &[
    "cudaHostRegister",
    "cudaHostUnregister",
    "cudaHostRegisterPortable",
    "cudaHostRegisterDefault",
    "cudaDevAttrHostRegisterSupported",
    "cudaMemAdvise",
    "cudaMemPrefetchAsync",
    "cudaFuncSetCacheConfig",
    "cudaDeviceSetCacheConfig",
    "cudaFuncSetSharedMemConfig",
    "cudaDeviceSetSharedMemConfig",
    "cudaFuncCachePreferShared",
    "cudaFuncCachePreferL1",
    "cudaFuncCachePreferEqual",
];

/// Whether the CUDA names an arm's code uses are all [`SPEED_ONLY`] (an attribute query
/// counts by its attribute): TIGRE's `#if CUDART_VERSION >= 9020` around the query of
/// `cudaDevAttrHostRegisterSupported` that gates its `cudaHostRegister` calls.
fn tunes_speed_only(s: &Src, body: &Range<usize>) -> bool {
    let mut any = false;
    for i in code_tokens(s, body) {
        let t = s.tok(i);
        if s.lexed.tokens[i].kind != Tok::Ident
            || !t.starts_with("cuda")
            || t == "cudaDeviceGetAttribute"
        {
            continue;
        }
        if !SPEED_ONLY.contains(&t) {
            return false;
        }
        any = true;
    }
    any
}

/// The names an arm declares: functions, classes, structs, enums, typedefs and aliases, and
/// the macros it `#define`s, in source order.
fn declared(s: &Src, body: &Range<usize>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let kinds = [
        K::FunctionDefinition,
        K::StructSpecifier,
        K::ClassSpecifier,
        K::EnumSpecifier,
        K::TypeDefinition,
        K::AliasDeclaration,
    ];
    let mut nodes = s.of_kinds(&kinds);
    nodes.retain(|n| body.contains(&n.start_byte()) && n.end_byte() <= body.end);
    nodes.sort_by_key(|n| n.start_byte());
    for n in nodes {
        let name = match n.node_kind() {
            K::FunctionDefinition | K::TypeDefinition => n.field(F::Declarator).and_then(|d| {
                let mut d = d;
                loop {
                    match d.node_kind() {
                        K::Identifier
                        | K::FieldIdentifier
                        | K::TypeIdentifier
                        | K::QualifiedIdentifier => return Some(s.text(d)),
                        _ => d = d.field(F::Declarator)?,
                    }
                }
            }),
            K::AliasDeclaration => n.field(F::Name).map(|x| s.text(x)),
            _ if n.field(F::Body).is_some() => n.field(F::Name).map(|x| s.text(x)),
            _ => None,
        };
        if let Some(x) = name.filter(|x| !x.is_empty() && !out.iter().any(|o| o == x)) {
            out.push(x.to_string());
        }
    }
    for d in &s.lexed.directives {
        if body.contains(&d.start) && d.name == "define" {
            if let Some(m) = cond::condition_tokens(s, d).first() {
                if !out.iter().any(|o| o == m) {
                    out.push((*m).to_string());
                }
            }
        }
    }
    out
}

/// Identifiers of `body` that `other` never names (the types and calls that vanish with it),
/// keywords and short names left out, at most `max`.
fn only_in(
    s: &Src,
    body: &Range<usize>,
    other: &Range<usize>,
    skip: &[String],
    max: usize,
) -> Vec<String> {
    let theirs: BTreeSet<&str> = code_tokens(s, other)
        .into_iter()
        .filter(|&i| s.lexed.tokens[i].kind == Tok::Ident)
        .map(|i| s.tok(i))
        .collect();
    let mut out: Vec<String> = Vec::new();
    for i in code_tokens(s, body) {
        let t = s.tok(i);
        if s.lexed.tokens[i].kind != Tok::Ident
            || t.len() < 4
            || KEYWORDS.contains(&t)
            || theirs.contains(t)
            || skip.iter().any(|x| x == t)
            || out.iter().any(|x| x == t)
        {
            continue;
        }
        out.push(t.to_string());
        if out.len() == max {
            break;
        }
    }
    out
}

const KEYWORDS: &[&str] = &[
    "return",
    "const",
    "static",
    "inline",
    "void",
    "float",
    "double",
    "unsigned",
    "signed",
    "struct",
    "class",
    "template",
    "typename",
    "using",
    "auto",
    "bool",
    "char",
    "long",
    "short",
    "sizeof",
    "while",
    "break",
    "continue",
    "switch",
    "case",
    "default",
    "true",
    "false",
    "nullptr",
    "namespace",
    "typedef",
    "enum",
    "public",
    "private",
    "protected",
    "virtual",
    "override",
    "constexpr",
    "__device__",
    "__host__",
    "__global__",
    "__forceinline__",
    "__shared__",
    "extern",
    "size_t",
    "int32_t",
    "int64_t",
    "uint32_t",
    "uint64_t",
    "threadIdx",
    "blockIdx",
    "blockDim",
    "gridDim",
];

fn quote(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The finding for a chain where HIP takes arm `h` and CUDA arm `n` (`None`: no arm).
fn finding<'a>(
    s: &Src<'a>,
    code: &std::cell::OnceCell<diagnostics::Code<'a>>,
    arms: &[Arm],
    h: Option<usize>,
    n: Option<usize>,
    cuda_build_only: &std::collections::BTreeMap<String, String>,
) -> Option<Finding> {
    let empty = arms.last().map_or(0..0, |a| a.body.end..a.body.end);
    let body = |i: Option<usize>| i.map_or(empty.clone(), |i| arms[i].body.clone());
    let (hb, nb) = (body(h), body(n));
    let fails = failure(s, &hb);
    // Nothing on either side but comments and pragmas, however nested (VTK-m's `#ifdef
    // __NVCC__` / `#pragma push` / `#if CUDART_VERSION >= 11050` / `#pragma nv_diag_suppress`
    // … `#endif`): no behaviour changes.
    let substance = |r: &Range<usize>| {
        !code_tokens(s, r).is_empty()
            || s.lexed.directives.iter().any(|d| {
                r.contains(&d.start)
                    && !matches!(
                        d.name.as_str(),
                        "pragma"
                            | "line"
                            | ""
                            | "if"
                            | "ifdef"
                            | "ifndef"
                            | "elif"
                            | "elifdef"
                            | "elifndef"
                            | "else"
                            | "endif"
                    )
            })
    };
    if fails.is_none() && !substance(&nb) && !substance(&hb) {
        return None;
    }
    let deciding = &arms[h.unwrap_or(arms.len()).min(n.unwrap_or(arms.len()))];
    let line = |r: &Range<usize>| s.line(r.start) + 1;
    let arm_words = |i: Option<usize>| match i {
        Some(i) => format!("the `#{}` arm (line {})", arms[i].kind, line(&arms[i].dir)),
        None => "no arm".to_string(),
    };
    let lost_decl = declared(s, &nb);
    let lost_uses = only_in(s, &nb, &hb, &lost_decl, 6);
    // The headers only the CUDA arm includes (`<cuda_fp16.h>`: HIP's arm lacks its types).
    let includes: Vec<String> = s
        .lexed
        .directives
        .iter()
        .filter(|d| nb.contains(&d.start) && d.name == "include")
        .map(|d| hipside::directive_text(s, s.directive_range(d)))
        .take(3)
        .collect();
    let lost = match (lost_decl.is_empty(), lost_uses.is_empty()) {
        (true, true) if substance(&nb) => "its code (no declarations)".to_string(),
        (true, true) => "nothing".to_string(),
        (false, true) => quote(&lost_decl),
        (true, false) => format!("code using {}", quote(&lost_uses)),
        (false, false) => format!("{} (using {})", quote(&lost_decl), quote(&lost_uses)),
    };
    let lost = match (
        includes.is_empty(),
        lost_decl.is_empty() && lost_uses.is_empty(),
    ) {
        (true, _) => lost,
        (false, true) => quote(&includes),
        (false, false) => format!("{}, {lost}", quote(&includes)),
    };
    let instead_decl = declared(s, &hb);
    // `#ifndef MXNET_USE_NVML` / `#define MXNET_USE_NVML 0`: HIP's arm only gives the tested
    // switches their defaults and CUDA's arm is empty, so nothing is compiled out here; what
    // the switch decides is where it is tested, and reported there.
    let only_defaults = !substance(&nb)
        && code_tokens(s, &hb).is_empty()
        && !instead_decl.is_empty()
        && instead_decl.iter().all(|m| deciding.toks.contains(m))
        && s.lexed
            .directives
            .iter()
            .filter(|d| hb.contains(&d.start))
            .all(|d| d.name == "define");
    let instead = match h {
        // Inside a function, the statements after `#endif` run in the arm's place (marian's
        // `#if CUDA_VERSION > 9000 … cublasGemmEx … else #endif cublasSgemm(…)`).
        None => match code_after(s, empty.start) {
            Some(line) => format!("the function's code after `#endif` (line {line})"),
            None => "nothing".to_string(),
        },
        Some(_) if !instead_decl.is_empty() => {
            let same = instead_decl.iter().all(|x| lost_decl.contains(x));
            format!(
                "{} from {}{}",
                quote(&instead_decl),
                arm_words(h),
                if same {
                    ", the older or fallback code path"
                } else {
                    ""
                }
            )
        }
        Some(_) if substance(&hb) => format!("the code of {}", arm_words(h)),
        Some(_) => format!("{} (empty)", arm_words(h)),
    };
    let cond_text = hipside::directive_text(s, deciding.dir.clone());
    // A project's switch for a CUDA-only library (`NVBENCH_HAS_CUPTI`) is why, where it is one.
    let nvcc_only = deciding
        .toks
        .iter()
        .filter(|t| {
            t.starts_with('_')
                || t.chars()
                    .all(|c| c.is_ascii_uppercase() || c == '_' || c.is_ascii_digit())
        })
        .filter(|t| t.as_str() != "defined")
        .all(|t| matches!(t.as_str(), "__NVCC__" | "__CUDACC_RTC__" | "__NVCOMPILER"));
    let thrust_backend = deciding
        .toks
        .iter()
        .any(|t| t.starts_with("THRUST_DEVICE_SYSTEM"));
    let framework = deciding
        .toks
        .iter()
        .find(|t| crate::model::macro_env::framework_switch(t).is_some());
    let generic = if let Some(m) = framework {
        if m == "GOOGLE_CUDA" {
            "a ROCm build of TensorFlow (and of ops built with its rules) defines `TENSORFLOW_USE_ROCM`, never `GOOGLE_CUDA`"
        } else {
            "the framework's ROCm build never defines its CUDA build switches"
        }
    } else if nvcc_only {
        "HIP-Clang is not nvcc and does not define nvcc's own macros"
    } else if thrust_backend {
        "rocThrust's device backend is `THRUST_DEVICE_SYSTEM_HIP`, not `THRUST_DEVICE_SYSTEM_CUDA`"
    } else {
        "HIP defines none of the CUDA toolkit and library macros tested"
    };
    let build_only = deciding
        .toks
        .iter()
        .find_map(|t| cuda_build_only.get_key_value(t.as_str()));
    let why = match build_only {
        Some((name, why)) => format!("{BUILD_ONLY}`{name}`: {why}"),
        None => crate::model::macro_env::library_switch_in(&cond_text).map_or(
            generic.to_string(),
            |w| format!("`{w}` is the project's switch for a CUDA library ROCm has no build of, so the ROCm build does not define it"),
        ),
    };
    let mut msg = format!(
        "`{cond_text}`: a current CUDA build compiles {}, HIP-Clang {} ({why}). Compiled out under HIP: {lost}; runs instead: {instead}",
        arm_words(n),
        arm_words(h),
    );
    let mut f = s.ctx.finding(
        &COMPILED_OUT_UNDER_HIP,
        deciding.dir.clone(),
        String::new(),
        Some(match framework.map(String::as_str) {
            Some("GOOGLE_CUDA") => "test `GOOGLE_CUDA || TENSORFLOW_USE_ROCM` so the ROCm build compiles the GPU arm (its calls port with `port`), and build the GPU sources with `-DTENSORFLOW_USE_ROCM=1` under TensorFlow's `if_rocm`".into(),
            _ => "make the CUDA arm compile for HIP (`|| defined(__HIP_PLATFORM_AMD__)` once its calls port) or keep the other arm deliberately under an explicit `defined(__HIP_PLATFORM_AMD__)` test".into(),
        }),
    );
    if let Some(p) = fails {
        f.phase = p;
        msg.push_str(match p {
            Phase::Build => " — HIP's arm stops the build (`#error`/`static_assert`)",
            _ => " — HIP's arm fails at run time (throw/abort/assert)",
        });
    }
    if let Some((names, call)) = fails
        .is_none()
        .then(|| legacy::narrow_sizes(s, &hb, &nb))
        .flatten()
    {
        f.phase = Phase::Build;
        f.message = format!(
            "{msg} — the arms differ only in the type of {}: `size_t` in CUDA's (CUDA 3.2's `_v2` API), 32-bit in HIP's, which passes its address to `{call}`; HIP's API follows current CUDA and takes `size_t*`, so HIP's arm stops the build",
            quote(&names)
        );
        f.status = Status::Remediation;
        f.suggestion = Some(format!("take the current arm under HIP: `{cond_text} || defined(__HIP_PLATFORM_AMD__)` (or drop the pre-3.2 arm)"));
        return Some(f);
    }
    if fails.is_none() && lost_decl.is_empty() && tunes_speed_only(s, &nb) {
        f.phase = Phase::Performance;
        msg.push_str(" — what is lost only tunes speed (pinned host memory, placement and cache hints): the ROCm build computes the same, more slowly");
    }
    if only_defaults {
        return Some(settled(f, msg, format!(
            " — HIP's arm only gives {} its default: nothing is compiled out here; what it decides is reported where it is tested",
            quote(&instead_decl)
        )));
    }
    // The macro's defining CMake chain has the project's own HIP arm, which leaves it
    // undefined (bitsandbytes' `elseif(BUILD_HIP)` builds no tensor-core GEMM): the ROCm side of
    // this branch is the project's own configuration, not a gap of the port.
    if let Some((name, _)) = build_only
        .filter(|(_, why)| fails.is_none() && crate::inventory::cmake::left_out_by_own_hip_arm(why))
    {
        return Some(settled(f, msg, format!(
            " — the project's own HIP build leaves `{name}` undefined, so this is its ROCm configuration of the branch, chosen where it builds for HIP: nothing to change for the port (a ROCm version of the lost code would be new work)"
        )));
    }
    if let Some(legacy) = legacy_warp_arm(s, &hb, &nb) {
        return Some(settled(f, msg, format!(
            " — HIP's arm is the same warp exchange through the legacy intrinsics ({legacy}), which HIP provides (without a mask they act on the lanes that reach them): nothing is lost, nothing to change"
        )));
    }
    // `#if CUDA_VERSION < 11010` / `#define SWE(s, e) cudaStreamWaitEvent(s, e, 0)` / `#else`
    // / `#define SWE(s, e) cudaStreamWaitEvent(s, e)`: both arms define the same macros over
    // the same calls, two spellings of one operation for two toolkits; HIP's is reported where
    // the macro is used, if its calls do not port.
    let alike = super::arch_check::alternatives::calling_macros(s, &hb)
        .zip(super::arch_check::alternatives::calling_macros(s, &nb))
        .filter(|(a, b)| a == b);
    if let Some((macros, _)) = alike {
        let names: Vec<String> = macros.iter().map(|(n, ..)| n.clone()).collect();
        return Some(settled(f, msg, format!(
            " — both arms define {} over the same calls, one operation spelled for two toolkits: HIP's spelling is checked where the macro is used; nothing is compiled out",
            quote(&names)
        )));
    }
    if fails.is_none() && substance(&nb) && same_but_printed(s, &hb, &nb) {
        return Some(settled(f, msg, " — the arms are the same code but for what they print (a message with fewer details, such as a status string the older API lacks): the ROCm build reports less, computes the same; nothing to change"));
    }
    let quiet = |r: &Range<usize>| {
        !substance(r)
            || diagnostics::only_diagnostics(s, code.get_or_init(|| diagnostics::Code::of(s)), r)
                .is_some()
    };
    if fails.is_none() && substance(&nb) && quiet(&nb) && quiet(&hb) {
        return Some(settled(f, msg, " — both arms only feed diagnostic output (text that is printed or thrown, and values only that text reads): the ROCm build reports less, computes the same; nothing to change"));
    }
    f.message = msg;
    f.status = Status::Remediation;
    Some(f)
}

/// `f` as PASS: the condition's message `msg` with why nothing is to be changed.
fn settled(mut f: Finding, mut msg: String, why: impl AsRef<str>) -> Finding {
    msg.push_str(why.as_ref());
    f.message = msg;
    f.status = Status::Pass;
    f.suggestion = None;
    f
}

/// Whether two arms are the same tokens (directives included: `#define CUBLAS_CHECK(err)` in
/// both) once the arguments of each print call are dropped: ggml's `CUBLAS_CHECK` prints
/// `cublasGetStatusString(err_)` from CUDA 12 and only the number before.
fn same_but_printed(s: &Src, a: &Range<usize>, b: &Range<usize>) -> bool {
    const PRINT: &[&str] = &["printf", "fprintf", "puts", "fputs", "snprintf", "sprintf"];
    let words = |r: &Range<usize>| -> Vec<&str> {
        let toks = &s.lexed.tokens;
        let lo = toks.partition_point(|t| (t.start as usize) < r.start);
        let hi = toks.partition_point(|t| (t.start as usize) < r.end);
        let mut out = Vec::new();
        let mut skip = 0i32;
        let mut k = lo;
        while k < hi {
            let t = s.tok(k);
            k += 1;
            if toks[k - 1].kind == Tok::Comment || t == "\\" {
                continue;
            }
            if skip > 0 {
                skip += match t {
                    "(" => 1,
                    ")" => -1,
                    _ => 0,
                };
                continue;
            }
            out.push(t);
            if PRINT.contains(&t) && k < hi && s.tok(k) == "(" {
                skip = 1;
                k += 1;
            }
        }
        out
    };
    let (x, y) = (words(a), words(b));
    !x.is_empty() && x == y && x.iter().any(|w| PRINT.contains(w))
}

#[path = "compiled_out_diagnostics.rs"]
mod diagnostics;
#[path = "compiled_out_legacy.rs"]
mod legacy;

/// The mask-less warp intrinsics that HIP provides under their CUDA names.
const LEGACY_WARP: &[&str] = &[
    "__shfl",
    "__shfl_up",
    "__shfl_down",
    "__shfl_xor",
    "__ballot",
    "__any",
    "__all",
];

/// `#if CUDA_VERSION >= 9000` arms that differ only by CUDA 9's `_sync` warp intrinsics
/// (`__shfl_xor_sync(mask, v, m, w)` beside `__shfl_xor(v, m, w)`), an idiom of code written
/// before Volta: HIP takes the legacy arm, which it provides. The HIP arm's names must all
/// appear in the CUDA arm once `_sync` is dropped, and each `_sync` intrinsic of the CUDA arm
/// must have its legacy form in the HIP arm; the names only the CUDA arm has are its masks.
/// Returns the legacy intrinsics, quoted.
fn legacy_warp_arm(s: &Src, hip: &Range<usize>, cuda: &Range<usize>) -> Option<String> {
    let idents = |r: &Range<usize>| -> BTreeSet<String> {
        code_tokens(s, r)
            .into_iter()
            .filter(|&i| s.lexed.tokens[i].kind == Tok::Ident)
            .map(|i| s.tok(i).to_string())
            .collect()
    };
    let (h, c) = (idents(hip), idents(cuda));
    let synced: Vec<&str> = c
        .iter()
        .filter_map(|n| n.strip_suffix("_sync"))
        .filter(|b| LEGACY_WARP.contains(b))
        .collect();
    if synced.is_empty() || !synced.iter().all(|b| h.contains(*b)) {
        return None;
    }
    let mapped: BTreeSet<&str> = c
        .iter()
        .map(|n| {
            n.strip_suffix("_sync")
                .filter(|b| LEGACY_WARP.contains(b))
                .unwrap_or(n)
        })
        .collect();
    h.iter()
        .all(|n| mapped.contains(n.as_str()))
        .then(|| quote(&synced.iter().map(|b| b.to_string()).collect::<Vec<_>>()))
}

#[cfg(test)]
#[path = "compiled_out_tests.rs"]
mod tests;
