//! arch-check (HP4xx): code that selects paths by NVIDIA GPU architecture. `__CUDA_ARCH__` is
//! undefined under HIP-Clang (device code takes the host/fallback branch), compute capability
//! numbers from `cudaDeviceProp::major/minor` mean nothing on AMD GPUs (gfx90a reports 9.0), and
//! `sm_XX` strings name NVIDIA targets.

use super::version_check::macro_uses;
use super::RuleInfo;
use crate::finding::Finding;
use crate::gate::{Phase, Status};
use crate::kinds::cuda::Kind as K;
use crate::lex::Tok;
use crate::model::syntax::Src;
use crate::model::{cond, hipside};

pub(crate) mod alternatives;
mod arch_names;
mod bounds;
mod capability;
mod host_only;
mod legacy;
pub use legacy::LEGACY_FALLBACK;
pub mod includes_only;
pub use alternatives::alternative_arms;

/// The directive (index into the file's directives) an open `__CUDA_ARCH__` finding sits on,
/// for the passes that settle or fold such tests by their chain.
fn open_arch_test(s: &crate::model::syntax::Src, f: &crate::finding::Finding) -> Option<usize> {
    (f.rule == CUDA_ARCH_MACRO.code() && f.status != crate::gate::Status::Pass)
        .then(|| {
            s.lexed
                .directives
                .binary_search_by_key(&f.byte_range.0, |d| d.start)
                .ok()
        })
        .flatten()
}
pub use bounds::{launch_bounds_arms, old_gpu_arms};
pub(crate) use capability::capability_functions;
use capability::compute_capability;
pub use host_only::host_only_arms;

/// The node kinds the arch-check rules read from the file's node index.
pub const KINDS: &[K] = &[
    K::CallExpression,
    K::InitDeclarator,
    K::BinaryExpression,
    K::NumberLiteral,
];

rule!(CUDA_ARCH_MACRO, "HP401", ArchCheck, Remediation, Correctness,
    summary: "A test of `__CUDA_ARCH__` (device pass or architecture level).",
    why: "HIP-Clang does not define `__CUDA_ARCH__`: `#ifdef __CUDA_ARCH__` is false in the device pass too, so device code compiles the host branch, and `#if __CUDA_ARCH__ >= 700` takes the oldest fallback on every AMD GPU.",
    bad: "#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700\n  fast_path();\n#else\n  slow_path();\n#endif",
    good: "#if defined(__HIP_DEVICE_COMPILE__) && (defined(__gfx90a__) || defined(__gfx942__))\n  fast_path();\n#else\n  slow_path();\n#endif",
    fix: "Use `__HIP_DEVICE_COMPILE__` to tell the device pass from the host pass, and `__gfxNNN__`/`__GFX9__` macros (or feature tests) for architecture-specific code; `__AMDGCN_WAVEFRONT_SIZE` is deprecated (llvm/llvm-project#112849).",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_porting_guide.html#identifying-the-compilation-target-platform"],
);

rule!(COMPUTE_CAPABILITY_CHECK, "HP402", ArchCheck, Remediation, Runtime,
    summary: "A decision on the compute capability (`prop.major`/`minor`, `cudaDevAttrComputeCapabilityMajor`).",
    why: "AMD GPUs report their gfx version as major/minor (gfx90a → 9.0, gfx942 → 9.4), so thresholds written for NVIDIA compute capabilities enable or disable features on the wrong devices.",
    bad: "if (prop.major >= 8) use_tf32();",
    good: "if (std::string(prop.gcnArchName).rfind(\"gfx94\", 0) == 0) use_xf32();  // or test the feature",
    fix: "Decide by feature (device attributes, `gcnArchName`) or keep the check under `#ifndef __HIP_PLATFORM_AMD__` with an AMD-specific branch.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/reference/hip_runtime_api/modules/device_management.html"],
);

rule!(SM_ARCH_STRING, "HP403", ArchCheck, Remediation, Runtime,
    summary: "An NVIDIA architecture name in a string (`\"sm_80\"`, `\"compute_70\"`, `-arch=sm_XX`).",
    why: "JIT options, kernel names and lookup tables keyed by `sm_XX` never match on AMD, where targets are `gfxNNN` (e.g. gfx90a, gfx942).",
    bad: "const char* opts[] = {\"--gpu-architecture=compute_80\"};",
    good: "std::string arch = std::string(\"--offload-arch=\") + prop.gcnArchName;",
    fix: "Use the device's `gcnArchName` and `--offload-arch=gfxNNN` options for hiprtc and build scripts.",
    refs: ["https://rocm.docs.amd.com/projects/HIP/en/latest/how-to/hip_rtc.html"],
);

pub const RULES: &[&RuleInfo] = &[&CUDA_ARCH_MACRO, &COMPUTE_CAPABILITY_CHECK, &SM_ARCH_STRING];

const MACROS: &[&str] = &[
    "__CUDA_ARCH__",
    "__CUDA_ARCH_LIST__",
    "__CUDA_ARCH_FEAT_SM90_ALL",
    "__CUDA_ARCH_FEAT_SM100_ALL",
    "__CUDA_ARCH_SPECIFIC__",
    "__CUDA_ARCH_FAMILY_SPECIFIC__",
];

pub fn check(s: &Src, seen: &crate::model::project::Visible, out: &mut Vec<Finding>) {
    macro_uses(
        s,
        MACROS,
        &CUDA_ARCH_MACRO,
        out,
        &|kind, name, value| {
            let msg = match (kind, value) {
            ("ifdef", _) => format!("`#ifdef {name}` is false under HIP-Clang even in the device pass: device code compiles the `#else` (host) branch"),
            ("ifndef", _) => format!("`#ifndef {name}` is true under HIP-Clang even in the device pass: device code compiles the host branch"),
            ("define", _) => format!("macro body uses `{name}`, which HIP-Clang does not define"),
            ("expr", _) => format!("`{name}` is not defined under HIP-Clang"),
            (k, Some(0)) => format!("`#{k}` on `{name}` is false under HIP-Clang (undefined = 0): every AMD GPU compiles the fallback branch"),
            (k, Some(_)) => format!("`#{k}` on `{name}` is true under HIP-Clang (undefined = 0) in both host and device passes"),
            (k, None) => format!("`#{k}` tests `{name}`, which HIP-Clang does not define: the branch taken may differ from nvcc's"),
        };
            (msg, "use `__HIP_DEVICE_COMPILE__` for the device pass and `__gfxNNN__` macros or feature tests for architectures".into())
        },
        None,
        None,
    );
    device_pass_rewritten(s, out);
    sm_strings(s, out);
    if s.tree.is_some() {
        compute_capability(s, seen, out);
    }
    arch_names::fold(s, out);
}

/// A test of the device pass that `port` widens to HIP's device-pass macro
/// ([`crate::translate::device_pass`]) keeps CUDA's meaning after the port: PASS, naming it.
fn device_pass_rewritten(s: &Src, out: &mut [Finding]) {
    use crate::translate::device_pass;
    for (k, d) in s.lexed.directives.iter().enumerate() {
        let edits = device_pass::rewrite(s.bytes(), s.lexed, k);
        if edits.is_empty() {
            if device_pass::asm_beside_fallback(s.bytes(), s.lexed, k) {
                let at = s.directive_range(d);
                for f in out.iter_mut().filter(|f| {
                    f.rule == CUDA_ARCH_MACRO.code()
                        && f.status != crate::gate::Status::Pass
                        && at.contains(&f.byte_range.0)
                }) {
                    if device_pass::fallback_is_arithmetic(s.bytes(), s.lexed, k) {
                        f.status = crate::gate::Status::Pass;
                        f.suggestion = None;
                        f.message.push_str("; one arm of the chain is inline PTX and HIP's device pass compiles the other, plain arithmetic with no calls that computes the same value on any target: the portable form of the PTX (nothing to change; a builtin may be faster)");
                        continue;
                    }
                    f.message.push_str("; `port` does not add `__HIP_DEVICE_COMPILE__` here: one arm of the chain is inline PTX, which does not compile for AMD GPUs, and HIP's device pass compiles the other, code-holding arm instead (check that it is a portable fallback, not host-only code)");
                }
                continue;
            }
            if let Some(b) = device_pass::blocked_by_error(s.bytes(), s.lexed, k) {
                let at = s.directive_range(d);
                let start = match b {
                    device_pass::Blocker::Directive(e) => s.lexed.directives[e].start,
                    device_pass::Blocker::ValueInCode(t) => s.lexed.tokens[t].start as usize,
                };
                let line = s.ctx.lines.position(s.bytes(), start).line;
                let (what, suggestion) = match b {
                    device_pass::Blocker::Directive(e) if s.lexed.directives[e].name == "define" => (
                        format!("the `#define` on line {line}, a stand-in for a builtin that a nested `__CUDA_ARCH__` value chain gives GPUs without it (HIP's value, 0, is below every threshold)"),
                        format!("give the nested chain an arm for AMD GPUs (`#elif defined(__HIP_DEVICE_COMPILE__)`) before the `#define` on line {line}, then test the device pass with `defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)`"),
                    ),
                    device_pass::Blocker::Directive(_) => (
                        format!("the `#error` on line {line}, which a nested `__CUDA_ARCH__` value chain leaves to architectures it does not list"),
                        format!("give the nested chain an arm for AMD GPUs (`#elif defined(__HIP_DEVICE_COMPILE__)`) before the `#error` on line {line}, then test the device pass with `defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)`"),
                    ),
                    device_pass::Blocker::ValueInCode(_) => (
                        format!("the code on line {line}, which reads `__CUDA_ARCH__` as a value: HIP defines no such name, so its device pass would stop there (undeclared identifier), where today it compiles the host arm"),
                        format!("replace the value read on line {line} with what it should be on AMD GPUs (an `#if defined(__HIP_DEVICE_COMPILE__)` arm), then test the device pass with `defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)`"),
                    ),
                };
                for f in out.iter_mut().filter(|f| {
                    f.rule == CUDA_ARCH_MACRO.code()
                        && f.status != crate::gate::Status::Pass
                        && at.contains(&f.byte_range.0)
                }) {
                    f.message.push_str(&format!(
                        "; `port` does not add `__HIP_DEVICE_COMPILE__` here: HIP's device pass would then reach {what}"
                    ));
                    f.suggestion = Some(suggestion.clone());
                }
            }
            continue;
        }
        let at = s.directive_range(d);
        for f in out.iter_mut().filter(|f| {
            f.rule == CUDA_ARCH_MACRO.code()
                && f.status != crate::gate::Status::Pass
                && at.contains(&f.byte_range.0)
        }) {
            f.status = crate::gate::Status::Pass;
            f.message = format!(
                "`#{}` tests `__CUDA_ARCH__` only as the device pass (whether it is defined, or an architecture every GPU HIP targets is past, sm_20 or older): `hipport port` adds HIP's `__HIP_DEVICE_COMPILE__` beside it (`{}`), which keeps the meaning on both platforms (safe rewrite)",
                d.name,
                edits.iter().map(|(_, w)| w.as_str()).collect::<Vec<_>>().join("`, `")
            );
            f.suggestion = None;
        }
    }
}

/// A `__CUDA_ARCH__` branch whose chain gives HIP an arm with no code in its place
/// ([`hipside::Alt`]): the finding on the condition says what that means (the branch's work
/// silently does not happen: CORRECTNESS; an `#error`/`static_assert(false)` arm: BUILD; an arm
/// that only traps: RUNTIME). One chain is one fact: the first open test of the chain carries
/// it, later `#elif` tests of the same chain are PASS naming it. Codes and fields stay; the
/// message, suggestion and phase follow the arm.
pub fn arms_without_code(s: &Src, regions: &[hipside::Region], out: &mut Vec<Finding>) {
    use hipside::{Alt, Dead, Side};
    use std::collections::BTreeMap;
    let mut deciders: BTreeMap<usize, (Alt, usize, std::ops::Range<usize>)> = BTreeMap::new();
    for r in regions {
        if let Side::Never(Dead::Arch { alternative }) = r.side {
            if alternative.holds_no_code() && !legacy::current_skips_too(s, r) {
                deciders.entry(r.decider.start).or_insert((
                    alternative,
                    r.head.start,
                    r.decider.clone(),
                ));
            }
        }
    }
    if deciders.is_empty() {
        return;
    }
    // A test HIP answers as nvcc does for a current GPU is PASS only where that arm holds code:
    // a stub in its place (`#else return 0;`) is the chain's fact on AMD, whatever sm_90 does.
    // A chain decided by a project switch set from `__CUDA_ARCH__` ([`crate::model::hip_pins`])
    // has no `__CUDA_ARCH__` test of its own to carry the fact: its condition gets one.
    // Not where HIP compiles nothing anyway (the test inside a `#ifndef USE_ROCM` arm).
    let compiled = |at: usize| {
        !regions
            .iter()
            .any(|r| matches!(r.side, Side::Never(_)) && r.range.contains(&at))
    };
    for (at, (_, _, decider)) in &deciders {
        if compiled(*at)
            && !out
                .iter()
                .any(|f| f.rule == CUDA_ARCH_MACRO.code() && f.byte_range.0 == *at)
        {
            out.push(
                s.ctx
                    .finding(&CUDA_ARCH_MACRO, decider.clone(), String::new(), None),
            );
        }
    }
    let open_or_current = |f: &Finding| {
        f.status != Status::Pass || f.message.contains(super::version_check::AS_CURRENT_NVCC)
    };
    let mut open: Vec<usize> = (0..out.len())
        .filter(|&i| {
            out[i].rule == CUDA_ARCH_MACRO.code()
                && open_or_current(&out[i])
                && deciders.contains_key(&out[i].byte_range.0)
        })
        .collect();
    open.sort_by_key(|&i| out[i].byte_range.0);
    // The chain head's offset -> the carrying test's text and line.
    let mut carriers: BTreeMap<usize, (String, u32)> = BTreeMap::new();
    for i in open {
        let (alt, head, decider) = deciders[&out[i].byte_range.0].clone();
        let cond = hipside::directive_text(s, decider.clone());
        let f = &mut out[i];
        if let Some((carrier, line)) = carriers.get(&head) {
            f.status = Status::Pass;
            f.message = format!(
                "`{cond}` is part of the chain `{carrier}` on line {line} opens, whose finding carries it: HIP-Clang compiles an arm with no code in place of the whole chain (one fact)"
            );
            f.suggestion = None;
            continue;
        }
        carriers.insert(head, (cond.clone(), f.line));
        f.status = Status::Remediation;
        let name = hipside::function_around(s, decider.start);
        let work = match name {
            Some(name) => format!("what the branch computes in `{name}`"),
            None => "what the branch computes".to_string(),
        };
        let runs = match name {
            Some(name) => format!("`{name}` stops"),
            None => "the code stops".to_string(),
        };
        let (phase, what) = match alt {
            Alt::BuildError => (
                Phase::Build,
                "an arm that stops the build (`#error` or `static_assert(false)`): the ROCm build fails here".to_string(),
            ),
            Alt::Trap => (
                Phase::Runtime,
                format!("an arm that only traps (`__trap()`, `assert(0)`): {runs} at run time on every AMD GPU (an `assert` compiled with `NDEBUG` does nothing: then {work} silently does not happen)"),
            ),
            _ => (
                Phase::Correctness,
                format!("an arm with no code (nothing, only comments and diagnostics such as `#pragma message`, or a stub returning a constant): {work} silently does not happen on any AMD GPU"),
            ),
        };
        f.phase = phase;
        let tests = if cond.contains("__CUDA_ARCH__") {
            "tests `__CUDA_ARCH__`"
        } else {
            "tests a switch the project sets from `__CUDA_ARCH__`"
        };
        f.message =
            format!("`{cond}` {tests}, which HIP-Clang does not define: HIP compiles {what}");
        f.suggestion = Some("write the branch for AMD in the arm HIP compiles (`__gfxNNN__` macros under `__HIP_DEVICE_COMPILE__`, or portable code)".into());
    }
}

/// A test of the GPU generation (`#if __CUDA_ARCH__ >= 800`) that HIP-Clang finds false, whose
/// chain gives HIP an arm with code (the fallback written for other GPUs): HIP compiles working
/// code on every AMD GPU, so there is nothing to port (PASS). What the skipped arm loses is
/// reported where it is: its inline assembly as a lost fast path (PERFORMANCE), its warp-size
/// assumptions by their rules. Not such a test: a device-pass test (`#ifdef __CUDA_ARCH__`,
/// see [`crate::translate::device_pass`]), a test HIP finds true (`__CUDA_ARCH__ < 600`:
/// HIP compiles the arm written for old GPUs, which may clash with HIP's own definitions), and
/// a branch that sets a macro (per-GPU tuning such as a blocks-per-SM count: AMD gets a value
/// chosen for other GPUs).
///
/// The PASS rests on the fallback computing what the skipped arm computes. Where every GPU a
/// current CUDA toolkit builds for compiles the skipped arm ([`cond::every_current_nvidia_gpu`]:
/// `#if __CUDA_ARCH__ > 610`), the arm HIP compiles runs on no NVIDIA GPU a current build
/// targets, and where the skipped arm holds no open finding (`open_before`: where open findings
/// sat before the arms settled them), it would build for AMD as ported: nothing verified the
/// two agree, and one line makes HIP run what current NVIDIA GPUs run. That test is UNKNOWN
/// (CORRECTNESS), one per chain; SPTAG's int8 cosine returns `1 - dot` in the fallback and
/// `16384 - dot` in the `__dp4a` arm.
pub fn arms_with_code(
    s: &Src,
    regions: &[hipside::Region],
    open_before: &[usize],
    out: &mut [Finding],
) {
    use hipside::{Alt, Dead, Side};
    // A branch that sets a macro (`#define MAX_BLOCKS 2`) is per-GPU tuning: the value AMD
    // gets was chosen for other GPUs, so it stays open.
    let defines = |r: &std::ops::Range<usize>| {
        s.lexed
            .directives
            .iter()
            .any(|d| d.name == "define" && r.contains(&d.start))
    };
    let opened = |r: &hipside::Region| {
        matches!(
            r.side,
            Side::Never(Dead::Arch {
                alternative: Alt::Code | Alt::Value,
            })
        )
            // The branch the test opens (not a later arm a taken test makes dead).
            && r.range.start >= r.decider.end
            && !s.bytes()[r.decider.end..r.range.start].contains(&b'\n')
    };
    // Each decider, whether its arms are per-GPU values (both sides return a constant), and
    // the arm it opens.
    let deciders: std::collections::BTreeMap<usize, (bool, &hipside::Region)> = regions
        .iter()
        .filter(|r| opened(r) && !defines(&r.range))
        .map(|r| {
            let value = r.side
                == Side::Never(Dead::Arch {
                    alternative: Alt::Value,
                });
            (r.decider.start, (value, r))
        })
        .collect();
    // A branch that only sets macros whose every use here is in code HIP never compiles: the
    // tuning never reaches the HIP build (faiss' `LD_NC_V1` PTX opcodes, used only in its
    // `#ifndef USE_AMD_ROCM` arm). Value: the line of the first use and what decides it.
    let setters: Vec<(&hipside::Region, Vec<&str>)> = regions
        .iter()
        .filter(|r| opened(r) && defines(&r.range))
        .filter_map(|r| Some((r, macros_only(s, r)?)))
        .collect();
    // Where each of those macros is named in the file, read in one pass.
    let mut named: std::collections::HashMap<&str, Vec<usize>> = setters
        .iter()
        .flat_map(|(_, names)| names.iter().map(|n| (*n, Vec::new())))
        .collect();
    if !named.is_empty() {
        for (i, t) in s.lexed.tokens.iter().enumerate() {
            if t.kind == Tok::Ident {
                if let Some(v) = named.get_mut(s.tok(i)) {
                    v.push(i);
                }
            }
        }
    }
    let unused: std::collections::BTreeMap<usize, String> = setters
        .iter()
        .filter_map(|(r, names)| {
            used_only_where_hip_does_not_compile(s, regions, r, names, &named)
                .map(|w| (r.decider.start, w))
        })
        .collect();
    for f in out.iter_mut().filter(|f| {
        f.rule == CUDA_ARCH_MACRO.code()
            && f.status != Status::Pass
            && unused.contains_key(&f.byte_range.0)
    }) {
        f.settle(&format!(
            ", but the branch only sets macros, and every use of them in this file is in code HIP never compiles ({}): the choice never reaches the HIP build (nothing to change)",
            unused[&f.byte_range.0]
        ));
    }
    // A branch that only defines the project's switches this test sets for HIP (`#if
    // defined(__CUDA_ARCH_FEAT_SM100_ALL)` / `#define TCGEN05_SUPPORTED 1` / `#else` / `… 0`):
    // HIP's value is pinned ([`crate::model::hip_pins`]) and every `#if` on the switch carries
    // what it decides, so the definition is no fact of its own.
    if !setters.is_empty() {
        let pinned: std::collections::BTreeMap<String, crate::model::macro_env::Known> =
            crate::model::hip_pins::pins(s)
                .into_iter()
                .map(|p| (p.name, p.known))
                .collect();
        let switches: std::collections::BTreeMap<usize, String> = setters
            .iter()
            // A switch, not a tuning value: named in this file only by directives (`#if
            // TC_SUPPORTED`), never in code (`__launch_bounds__(256, BLOCKS)`).
            .filter(|(_, names)| {
                names.iter().all(|n| {
                    // Named by an `#if`/`#elif`, not only by its own definitions.
                    let tested = |i: usize| {
                        let t = s.lexed.tokens[i];
                        t.in_directive()
                            && matches!(
                                s.lexed.directives[t.directive as usize].name.as_str(),
                                "if" | "elif"
                            )
                    };
                    pinned.contains_key(*n)
                        && named.get(n).is_some_and(|at| {
                            at.iter().all(|&i| s.lexed.tokens[i].in_directive())
                                && at.iter().any(|&i| tested(i))
                        })
                })
            })
            .map(|(r, names)| {
                let named: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
                (r.decider.start, named.join(", "))
            })
            .collect();
        for f in out.iter_mut().filter(|f| {
            f.rule == CUDA_ARCH_MACRO.code()
                && f.status != Status::Pass
                && switches.contains_key(&f.byte_range.0)
        }) {
            f.settle(&format!(
                ", but the branch only sets {}, a switch whose value under HIP-Clang this test decides: each `#if` on it carries what it decides (nothing to change here)",
                switches[&f.byte_range.0]
            ));
        }
    }
    if deciders.is_empty() {
        return;
    }
    // Chains (by their `#if`) that already carry an unverified fallback: one fact each.
    let mut unverified_heads = std::collections::BTreeSet::new();
    for f in out.iter_mut().filter(|f| {
        f.rule == CUDA_ARCH_MACRO.code()
            && f.status != Status::Pass
            && deciders.contains_key(&f.byte_range.0)
    }) {
        let Some(d) = s
            .lexed
            .directives
            .iter()
            .find(|d| s.directive_range(d).start == f.byte_range.0)
        else {
            continue;
        };
        let toks = crate::model::cond::condition_tokens(s, d);
        if !matches!(d.name.as_str(), "if" | "elif")
            || !crate::translate::device_pass::compares_value(&toks)
        {
            continue;
        }
        let cond = hipside::directive_text(s, s.directive_range(d));
        let (value, arm) = deciders[&f.byte_range.0];
        if !value
            && cond::every_current_nvidia_gpu(&toks)
            && !open_before.iter().any(|o| arm.range.contains(o))
            && !legacy::holds_asm(s, &arm.range)
            && legacy::computes(s, &arm.range)
            && unverified_heads.insert(arm.head.start)
        {
            legacy::legacy_fallback(s, f, &cond, arm);
            continue;
        }
        f.status = Status::Pass;
        f.message = if value {
            format!(
                "`{cond}` picks a value by NVIDIA GPU generation (every arm only returns a constant); HIP-Clang does not define `__CUDA_ARCH__`, so every AMD GPU gets the value of the chain's other arm, chosen for other GPUs: a tuning value, not missing code (nothing to port; a value tuned for AMD is optional)"
            )
        } else {
            format!(
                "`{cond}` picks code by NVIDIA GPU generation; HIP-Clang does not define `__CUDA_ARCH__`, so every AMD GPU compiles the chain's other arm, which holds code: nothing to port (an AMD-specific fast path is optional; inline assembly in the skipped arm is reported as a lost fast path)"
            )
        };
        f.suggestion = None;
    }
}

/// The macros region `r` defines, where it holds only `#define`s (and comments); `None` when it
/// holds code or another directive, or defines nothing.
fn macros_only<'a>(s: &Src<'a>, r: &hipside::Region) -> Option<Vec<&'a str>> {
    let toks = &s.lexed.tokens;
    let first = toks.partition_point(|t| (t.start as usize) < r.range.start);
    let last = toks.partition_point(|t| (t.start as usize) < r.range.end);
    if toks[first..last]
        .iter()
        .any(|t| t.kind != Tok::Comment && !t.in_directive())
    {
        return None;
    }
    let names: Vec<&str> = s
        .lexed
        .directives
        .iter()
        .filter(|d| r.range.contains(&d.start))
        .map(|d| {
            (d.name == "define")
                .then(|| d.tokens.clone().nth(2).map(|n| s.tok(n)))
                .flatten()
        })
        .collect::<Option<Vec<_>>>()?;
    (!names.is_empty()).then_some(names)
}

/// Whether each of `names` (the macros region `r` defines) is used in this file only in code
/// HIP never compiles (`named`: where each is named): the first use's line and its deciding
/// directive. `None` when a use is compiled by HIP (or unknown), sits in another directive, or
/// there is no use here (a header's includers may use it).
fn used_only_where_hip_does_not_compile(
    s: &Src,
    regions: &[hipside::Region],
    r: &hipside::Region,
    names: &[&str],
    named: &std::collections::HashMap<&str, Vec<usize>>,
) -> Option<String> {
    let toks = &s.lexed.tokens;
    let mut uses: Vec<usize> = names
        .iter()
        .flat_map(|n| named.get(n).into_iter().flatten().copied())
        .filter(|&i| !r.range.contains(&(toks[i].start as usize)))
        .collect();
    uses.sort_unstable();
    let mut first = None;
    for i in uses {
        let t = &toks[i];
        if t.in_directive() {
            // `#define X LD_NC_V1`, `#if defined(LD_NC_V1)`: read by code the model does not place.
            let d = &s.lexed.directives[t.directive as usize];
            if !(d.name == "define" && d.tokens.clone().nth(2) == Some(i)) {
                return None;
            }
            // Another arm's definition of the same macro.
            continue;
        }
        let at = t.start as usize;
        let dead = regions
            .iter()
            .filter(|g| g.range.contains(&at) && matches!(g.side, hipside::Side::Never(_)))
            .min_by_key(|g| g.range.len())?;
        first.get_or_insert_with(|| {
            format!(
                "first at line {}, under `{}`",
                s.line(at) + 1,
                hipside::directive_text(s, dead.decider.clone())
            )
        });
    }
    first
}

fn sm_strings(s: &Src, out: &mut Vec<Finding>) {
    let from = out.len();
    // Architecture names completed at run time from a bare stem (`"compute_" + …`); dropped
    // where the file builds the option itself (`"-arch=" + ComputeArch()`): one fact.
    let mut stems = Vec::new();
    for (i, t) in s.lexed.tokens.iter().enumerate() {
        if t.kind != Tok::Str {
            continue;
        }
        let text = String::from_utf8_lossy(t.text(s.bytes()));
        if s.lexed
            .directives
            .get(t.directive as usize)
            .is_some_and(|d| d.name == "include")
        {
            continue;
        }
        let inner = text.trim_matches('"').trim();
        let option_like = inner.starts_with('-')
            || inner.contains("arch=")
            || inner.contains("code=")
            || inner.contains("architecture");
        let Some(arch) = find_arch(&text) else {
            // An NVRTC option completed at run time from the device's compute capability:
            // `"--gpu-architecture=compute_" + std::to_string(major * 10 + minor)`.
            if let Some(prefix) = built_arch_prefix(inner) {
                out.push(s.ctx.finding(&SM_ARCH_STRING, t.range(), format!("NVIDIA architecture name `{prefix}NN` built from the compute capability in a string: AMD targets are named gfxNNN"), Some("pass `--offload-arch=` + `hipDeviceProp_t::gcnArchName` to hiprtc".into())));
                continue;
            }
            // The option or the name built by concatenation (`"-arch=" + device.ComputeArch()`,
            // `arch_flag << "-arch=" << tag << "_" << major << minor`, `"sm_" + cc`).
            let joined = s.lexed.next_code(i).is_some_and(|n| match s.tok(n) {
                "+" | "<<" => true,
                "<" => s.lexed.next_code(n).is_some_and(|m| s.tok(m) == "<"),
                _ => false,
            });
            if joined && ARCH_OPTIONS.contains(&inner) {
                out.push(s.ctx.finding(&SM_ARCH_STRING, t.range(), format!("architecture option `{inner}` completed at run time: an NVIDIA name (`sm_NN`/`compute_NN`) from the compute capability; hiprtc and hipcc take an AMD target (gfxNNN)"), Some("pass `--offload-arch=` + `hipDeviceProp_t::gcnArchName` to hiprtc".into())));
            } else if joined && matches!(inner, "sm_" | "compute_") {
                stems.push(s.ctx.finding(&SM_ARCH_STRING, t.range(), format!("NVIDIA architecture name `{inner}NN` built at run time: AMD targets are named gfxNNN"), Some("use `hipDeviceProp_t::gcnArchName` (e.g. `gfx90a`)".into())));
            }
            continue;
        };
        if option_like
            || inner == arch
            || inner.starts_with(arch.as_str()) && inner.len() <= arch.len() + 1
        {
            out.push(s.ctx.finding(&SM_ARCH_STRING, t.range(), format!("NVIDIA architecture `{arch}` in a string: AMD targets are named gfxNNN"), Some("derive the target from `hipDeviceProp_t::gcnArchName` (e.g. `--offload-arch=gfx90a`)".into())));
        }
    }
    if out.len() == from {
        out.extend(stems);
    }
}

/// Options that take an NVIDIA architecture, as nvcc and NVRTC spell them.
const ARCH_OPTIONS: &[&str] = &[
    "-arch=",
    "--gpu-architecture=",
    "-gpu-architecture=",
    "--gpu-architecture",
    "-arch",
];

/// `compute_` or `sm_` closing an architecture option (`--gpu-architecture=compute_`,
/// `-arch=sm_`), the number to be appended at run time.
fn built_arch_prefix(inner: &str) -> Option<&'static str> {
    let (option, value) = inner.rsplit_once('=')?;
    if !(option.ends_with("arch") || option.ends_with("architecture")) {
        return None;
    }
    // A format completes it too: `"--gpu-architecture=compute_%d%d"`, `"-arch=sm_{}"`.
    // A feature suffix after the number (`"sm_%d%d%s"`, `sm_90a`) is part of the name.
    let value = value.strip_suffix("%s").unwrap_or(value);
    let stem = value
        .strip_suffix("%d%d")
        .or_else(|| value.strip_suffix("%d"))
        .or_else(|| value.strip_suffix("%u"))
        .or_else(|| value.strip_suffix("{}{}"))
        .or_else(|| value.strip_suffix("{}"))
        .unwrap_or(value);
    ["compute_", "sm_"].into_iter().find(|p| stem == *p)
}

/// `sm_80`, `sm_90a`, `compute_70` as a word in `text`.
pub fn find_arch(text: &str) -> Option<String> {
    let b = text.as_bytes();
    for pre in ["sm_", "compute_"] {
        let mut from = 0;
        while let Some(p) = text[from..].find(pre) {
            let st = from + p;
            let before_ok = st == 0 || !(b[st - 1].is_ascii_alphanumeric() || b[st - 1] == b'_');
            let digits = text[st + pre.len()..]
                .bytes()
                .take_while(|c| c.is_ascii_digit())
                .count();
            let after = st + pre.len() + digits;
            let after_ok = after >= b.len()
                || !b[after].is_ascii_alphanumeric()
                || matches!(b[after], b'a' | b'f');
            if before_ok && (2..=3).contains(&digits) && after_ok {
                return Some(text[st..after].to_string());
            }
            from = st + pre.len();
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arch_macros_capabilities_and_strings() {
        use crate::model::syntax::test_support::fires;
        let src = "#ifdef __CUDA_ARCH__\n#endif\nint main() {\n  cudaDeviceProp prop;\n  if (prop.major >= 7) return 1;\n  printf(\"%d\", prop.major);\n  const char* o = \"-arch=sm_80\";\n  const char* m = \"needs sm_80 or later\";\n}\n";
        assert_eq!(fires(src, "HP401"), [1]);
        assert_eq!(fires(src, "HP402"), [5]);
        assert_eq!(fires(src, "HP403"), [7]);
    }

    /// bifrost's `int_fastdiv`: `asm("mul.hi.s32 …")` under `#ifdef __CUDA_ARCH__` and plain
    /// arithmetic in the `#else` arm, which HIP's device pass compiles: PASS. Twin: a fallback
    /// that calls a function (perhaps host-only) stays open.
    #[test]
    fn an_arithmetic_fallback_beside_ptx_is_the_portable_form() {
        use crate::gate::Status;
        use crate::model::syntax::test_support::hazard_findings;
        let src = "__host__ __device__ int mulhi(int M, int n) {\n  int q;\n#ifdef __CUDA_ARCH__\n  asm(\"mul.hi.s32 %0, %1, %2;\" : \"=r\"(q) : \"r\"(M), \"r\"(n));\n#else\n  q = (((unsigned long long)((long long)M * (long long)n)) >> 32);\n#endif\n  return q;\n}\n";
        let st = |src: &str| -> Vec<Status> {
            hazard_findings(src)
                .into_iter()
                .filter(|f| f.rule == "HP401")
                .map(|f| f.status)
                .collect()
        };
        assert_eq!(st(src), [Status::Pass]);
        let calls = src.replace(
            "q = (((unsigned long long)((long long)M * (long long)n)) >> 32);",
            "q = host_mulhi(M, n);",
        );
        assert_eq!(st(&calls), [Status::Remediation]);
    }

    /// faiss' PQCodeLoad.cuh: PTX opcodes picked by GPU generation, used only in the project's
    /// non-ROCm arm. Twin: the same macros used in code HIP compiles stay open.
    #[test]
    fn macros_a_generation_test_sets_for_code_hip_never_compiles_are_pass() {
        use crate::gate::Status;
        use crate::model::syntax::test_support::hazard_findings;
        let st = |src: &str| -> Vec<(u32, Status)> {
            hazard_findings(src)
                .into_iter()
                .filter(|f| f.rule == "HP401")
                .map(|f| (f.line, f.status))
                .collect()
        };
        let src = "#if __CUDA_ARCH__ >= 350\n#define LD_NC \"ld.global.nc.u32\"\n#else\n#define LD_NC \"ld.global.u32\"\n#endif\n#ifdef USE_ROCM\n__device__ unsigned ld(const unsigned* p) { return __builtin_nontemporal_load(p); }\n#else\n__device__ unsigned ld(const unsigned* p) { unsigned v; asm(LD_NC \" %0, [%1];\" : \"=r\"(v) : \"l\"(p)); return v; }\n#endif\n";
        assert_eq!(st(src), [(1, Status::Pass)]);
        let used = src.replace("#ifdef USE_ROCM", "#ifdef USE_OTHER");
        assert!(
            st(&used).iter().all(|(_, s)| *s != Status::Pass),
            "{:?}",
            st(&used)
        );
    }

    #[test]
    fn arch_tests_where_hip_takes_a_current_gpus_branch_are_pass() {
        use crate::model::syntax::test_support::{fires, fires_open};
        // llm.c: a fast path for sm_80/sm_90 (lost on AMD); a workaround for old GPUs that a
        // current GPU and HIP both skip; a device-pass test (`port` adds HIP's device-pass
        // macro: PASS); a workaround HIP takes (0 < 700).
        let src = "#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 900\nint a;\n#endif\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700\nint b;\n#endif\n#if defined(__CUDA_ARCH__)\nint c;\n#endif\n#if __CUDA_ARCH__ < 700\nint d;\n#endif\n";
        assert_eq!(fires(src, "HP401"), [1, 4, 7, 10]);
        assert_eq!(fires_open(src, "HP401"), [1, 10]);
        let msgs = crate::model::syntax::test_support::messages(src, "HP401");
        assert!(msgs[2].contains("__HIP_DEVICE_COMPILE__"), "{}", msgs[2]);
    }

    #[test]
    fn nvrtc_architecture_options() {
        use crate::model::syntax::test_support::fires;
        // NVRTC options arrays, literal and completed at run time; the hiprtc twins are clean.
        let src = "void f(nvrtcProgram p, int major, int minor) {\n  const char *a[] = {\"--gpu-architecture=compute_80\"};\n  const char *b[] = {\"-arch=compute_75\", \"--fmad=false\"};\n  const char *c[] = {\"--gpu-architecture=sm_90\"};\n  std::string d = \"--gpu-architecture=compute_\" + std::to_string(major * 10 + minor);\n  const char *e[] = {\"--offload-arch=gfx90a\"};\n  std::string g = std::string(\"--offload-arch=\") + prop.gcnArchName;\n  const char *h = \"compute_capability=\";\n}\n";
        assert_eq!(fires(src, "HP403"), [2, 3, 4, 5]);
        assert_eq!(built_arch_prefix("-arch=sm_"), Some("sm_"));
        // arrayfire's `snprintf(arch, n, "--gpu-architecture=compute_%d%d", major, minor)`.
        assert_eq!(
            built_arch_prefix("--gpu-architecture=compute_%d%d"),
            Some("compute_")
        );
        assert_eq!(built_arch_prefix("--gpu-architecture=%s"), None);
        assert_eq!(built_arch_prefix("--offload-arch=gfx"), None);
    }

    /// keops's `arch_flag << "-arch=" << ARCHTAG << "_" << major << minor` and CLBlast's
    /// `"-arch=" + device.ComputeArch()` (which returns `"compute_" + …`): one finding each, on
    /// the option. Twins: the option given an AMD target, the stem alone in a name, `-march=`.
    #[test]
    fn architecture_options_completed_at_run_time() {
        use crate::model::syntax::test_support::fires;
        let keops = "void f(int major, int minor) {\n  std::ostringstream arch_flag;\n  arch_flag << \"-arch=\" << ARCHTAG << \"_\" << major << minor;\n}\n";
        assert_eq!(fires(keops, "HP403"), [3]);
        let clblast = "std::string ComputeArch() const {\n  return \"compute_\" + std::to_string(major) + std::to_string(minor);\n}\nvoid Build() {\n  options.push_back(\"-arch=\" + device.ComputeArch());\n}\n";
        assert_eq!(fires(clblast, "HP403"), [5]);
        let stem_only = "std::string Arch() { return \"sm_\" + std::to_string(cc); }\n";
        assert_eq!(fires(stem_only, "HP403"), [1]);
        let twins = "void g() {\n  o.push_back(\"--offload-arch=\" + std::string(prop.gcnArchName));\n  std::string n = \"sm_\";\n  c << \"-march=\" << cpu;\n}\n";
        assert!(fires(twins, "HP403").is_empty());
    }

    #[test]
    fn arch_names_in_strings() {
        assert_eq!(find_arch("-arch=sm_80").as_deref(), Some("sm_80"));
        assert_eq!(
            find_arch("--gpu-architecture=compute_70").as_deref(),
            Some("compute_70")
        );
        assert_eq!(find_arch("sm_90a").as_deref(), Some("sm_90"));
        assert_eq!(find_arch("asm_80"), None);
        assert_eq!(find_arch("sm_count"), None);
        assert_eq!(find_arch("%d sms"), None);
    }
}
