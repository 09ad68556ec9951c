//! arch-check (HP4xx): code that selects paths by NVIDIA GPU architecture. `__CUDA_ARCH__` is
//! undefined under HIP-Clang (device code takes the host/fallback branch), compute capability
//! numbers from `cudaDeviceProp::major/minor` mean nothing on AMD GPUs (gfx90a reports 9.0), and
//! `sm_XX` strings name NVIDIA targets.

use super::version_check::macro_uses;
use super::RuleInfo;
use crate::finding::Finding;
use crate::gate::{Phase, Status};
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::lex::Tok;
use crate::model::hipside;
use crate::model::syntax::{self, Src};
use std::collections::HashSet;
use tree_sitter::Node;

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
    fix: "Use `__HIP_DEVICE_COMPILE__` to tell the device pass from the host pass, and `__gfxNNN__` macros (or `__AMDGCN_WAVEFRONT_SIZE`, feature tests) for architecture-specific code.",
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

pub fn check(s: &Src, out: &mut Vec<Finding>) {
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
    );
    device_pass_rewritten(s, out);
    sm_strings(s, out);
    if s.tree.is_some() {
        compute_capability(s, out);
    }
}

/// A test of the device pass that `port` widens to HIP's device-pass macro
/// ([`crate::translate::device_pass`]) keeps CUDA's meaning after the port: PASS, naming it.
fn device_pass_rewritten(s: &Src, out: &mut [Finding]) {
    use crate::translate::device_pass;
    for (k, d) in s.lexed.directives.iter().enumerate() {
        let edits = device_pass::rewrite(s.bytes(), s.lexed, k);
        if edits.is_empty() {
            if let Some(e) = device_pass::blocked_by_error(s.bytes(), s.lexed, k) {
                let at = s.directive_range(d);
                let line = s
                    .ctx
                    .lines
                    .position(s.bytes(), s.lexed.directives[e].start)
                    .line;
                for f in out.iter_mut().filter(|f| {
                    f.rule == CUDA_ARCH_MACRO.code()
                        && f.status != crate::gate::Status::Pass
                        && at.contains(&f.byte_range.0)
                }) {
                    f.message.push_str(&format!(
                        "; `port` does not add `__HIP_DEVICE_COMPILE__` here: HIP's device pass would then reach the `#error` on line {line}, which a nested `__CUDA_ARCH__` value chain leaves to architectures it does not list"
                    ));
                    f.suggestion = Some(format!(
                        "give the nested chain an arm for AMD GPUs (`#elif defined(__HIP_DEVICE_COMPILE__)`) before the `#error` on line {line}, then test the device pass with `defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)`"
                    ));
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
pub fn arms_without_code(s: &Src, regions: &[hipside::Region], out: &mut [Finding]) {
    use hipside::{Alt, Dead, Side};
    use std::collections::BTreeMap;
    let mut deciders: BTreeMap<usize, (Alt, usize, std::ops::Range<usize>)> = BTreeMap::new();
    for r in regions {
        if let Side::Never(Dead::Arch { alternative }) = r.side {
            if alternative.holds_no_code() {
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
        f.message = format!(
            "`{cond}` tests `__CUDA_ARCH__`, which HIP-Clang does not define: HIP compiles {what}"
        );
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
pub fn arms_with_code(s: &Src, regions: &[hipside::Region], out: &mut [Finding]) {
    use hipside::{Alt, Dead, Side};
    // A branch that sets a macro (`#define MAX_BLOCKS 2`) is per-GPU tuning: the value AMD
    // gets was chosen for other GPUs, so it stays open.
    let defines = |r: &std::ops::Range<usize>| {
        s.lexed
            .directives
            .iter()
            .any(|d| d.name == "define" && r.contains(&d.start))
    };
    let deciders: std::collections::BTreeSet<usize> = regions
        .iter()
        .filter(|r| {
            r.side
                == Side::Never(Dead::Arch {
                    alternative: Alt::Code,
                })
                // The branch the test opens (not a later arm a taken test makes dead).
                && r.range.start >= r.decider.end
                && !s.bytes()[r.decider.end..r.range.start].contains(&b'\n')
                && !defines(&r.range)
        })
        .map(|r| r.decider.start)
        .collect();
    if deciders.is_empty() {
        return;
    }
    for f in out.iter_mut().filter(|f| {
        f.rule == CUDA_ARCH_MACRO.code()
            && f.status != Status::Pass
            && deciders.contains(&f.byte_range.0)
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
        f.status = Status::Pass;
        f.message = format!(
            "`{cond}` picks code by NVIDIA GPU generation; HIP-Clang does not define `__CUDA_ARCH__`, so every AMD GPU compiles the chain's other arm, which holds code: nothing to port (an AMD-specific fast path is optional; inline assembly in the skipped arm is reported as a lost fast path)"
        );
        f.suggestion = None;
    }
}

fn sm_strings(s: &Src, out: &mut Vec<Finding>) {
    for t in s.lexed.tokens.iter().filter(|t| t.kind == Tok::Str) {
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
}

/// `compute_` or `sm_` closing an architecture option (`--gpu-architecture=compute_`,
/// `-arch=sm_`), the number to be appended at run time.
fn built_arch_prefix(inner: &str) -> Option<&'static str> {
    let (option, value) = inner.rsplit_once('=')?;
    if !(option.ends_with("arch") || option.ends_with("architecture")) {
        return None;
    }
    // A format completes it too: `"--gpu-architecture=compute_%d%d"`, `"-arch=sm_{}"`.
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

fn is_cc_field(s: &Src, n: Node, props: &HashSet<&str>) -> bool {
    if n.node_kind() != K::FieldExpression {
        return false;
    }
    let field = n.field(F::Field).map_or("", |f| s.text(f));
    let arg = n.field(F::Argument).map_or("", |a| s.text(a));
    matches!(field, "major" | "minor")
        && (props.contains(arg.trim_start_matches('*'))
            || arg.to_ascii_lowercase().contains("prop"))
}

fn compute_capability(s: &Src, out: &mut Vec<Finding>) {
    let Some(root) = s.tree.map(|t| t.root_node()) else {
        return;
    };
    let props: HashSet<&str> = syntax::typed_variables(s, root, |t| {
        t.contains("cudaDeviceProp") || t.contains("hipDeviceProp")
    })
    .into_iter()
    .collect();
    // Variables holding a compute capability.
    let mut cc: HashSet<&str> = HashSet::new();
    for c in &s.of_kinds(&[K::CallExpression]) {
        let args = syntax::call_args(*c);
        if args.len() >= 2
            && matches!(
                s.text(args[1]),
                "cudaDevAttrComputeCapabilityMajor"
                    | "cudaDevAttrComputeCapabilityMinor"
                    | "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR"
                    | "CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR"
            )
        {
            if let Some(id) = syntax::identifiers(s, args[0]).last() {
                cc.insert(id);
            }
        }
        if syntax::call_name(s, *c) == Some("cuDeviceComputeCapability") {
            for a in args.iter().take(2) {
                if let Some(id) = syntax::identifiers(s, *a).last() {
                    cc.insert(id);
                }
            }
        }
    }
    let mentions_cc = |n: Node, cc: &HashSet<&str>| -> bool {
        let mut hit = false;
        crate::parse::visit(n, &mut |x| {
            if is_cc_field(s, x, &props)
                || (x.node_kind() == K::Identifier && cc.contains(s.text(x)))
            {
                hit = true;
            }
            !hit
        });
        hit
    };
    for d in &s.of_kinds(&[K::InitDeclarator]) {
        if let (Some(name), Some(v)) = (
            d.field(F::Declarator)
                .and_then(|x| syntax::declarator_name(s, x)),
            d.field(F::Value),
        ) {
            if mentions_cc(v, &cc) {
                cc.insert(name);
            }
        }
    }
    // Every comparison of a compute capability with a number (one per line). A line whose
    // every comparison only tells pre-Maxwell GPUs apart is PASS; one real decision on the line
    // (`major < 5 || (major == 5 && minor < 3)`: fp16 from 5.3) keeps the whole line open. A
    // comparison every AMD GPU answers alike (`major >= 8`: gfx9 … gfx12 all take the arm
    // written for newer NVIDIA GPUs) is a check for a person (UNKNOWN), not a change.
    let checks: Vec<(Node, Settled)> = s
        .of_kinds(&[K::BinaryExpression])
        .into_iter()
        .filter(|b| {
            let op = b.field(F::Operator).map_or("", |o| s.text(o));
            matches!(op, "<" | ">" | "<=" | ">=" | "==" | "!=")
                && !s.descendants(*b, K::NumberLiteral).is_empty()
                && mentions_cc(*b, &cc)
        })
        .map(|b| {
            let how = if pre_maxwell_only(s, b, &props, &cc) {
                Settled::Everywhere
            } else if let Some(v) = settled_major(s, b, &props, &cc, AMD_MAJORS) {
                Settled::OnAmd(v)
            } else {
                Settled::Open
            };
            (b, how)
        })
        .collect();
    let line_worst = |want: fn(&Settled) -> bool| -> HashSet<usize> {
        checks
            .iter()
            .filter(|(_, how)| want(how))
            .map(|(b, _)| s.line(b.start_byte()))
            .collect()
    };
    let open_lines = line_worst(|h| matches!(h, Settled::Open));
    let amd_lines = line_worst(|h| matches!(h, Settled::OnAmd(_)));
    let amd = |n: Node| amd_value(s, n, &props, &cc);
    for (b, how) in checks {
        let line = s.line(b.start_byte());
        // The `if` arms AMD runs: a test in an arm an earlier test of the chain already decides
        // on every AMD GPU is never evaluated there; a test false on every AMD GPU (as on
        // Hopper and Blackwell, which report 9 … 12 too) whose `if` has no other arm, or whose
        // other arm is the chain's next test, only gates code for older NVIDIA GPUs.
        if let Some(msg) = arm_on_amd(s, b, &amd) {
            let mut f = s
                .ctx
                .finding(&COMPUTE_CAPABILITY_CHECK, b.byte_range(), msg, None);
            f.status = crate::gate::Status::Pass;
            out.push(f);
            continue;
        }
        if how == Settled::Everywhere && !open_lines.contains(&line) && !amd_lines.contains(&line) {
            let mut f = s.ctx.finding(
                &COMPUTE_CAPABILITY_CHECK,
                b.byte_range(),
                format!(
                    "`{}` only tells GPUs older than compute capability 5 apart: every GPU current CUDA supports and every AMD GPU (gfx9 → 9 … gfx12 → 12) takes the same branch (nothing to change)",
                    s.text(b)
                ),
                None,
            );
            f.status = crate::gate::Status::Pass;
            out.push(f);
            continue;
        }
        if let (Settled::OnAmd(v), false) = (how, open_lines.contains(&line)) {
            let mut f = s.ctx.finding(
                &COMPUTE_CAPABILITY_CHECK,
                b.byte_range(),
                format!(
                    "`{}` is {v} on every AMD GPU (HIP reports gfx9 → 9 … gfx12 → 12): the ROCm build always takes the arm written for the NVIDIA GPUs {}; check that what that arm enables exists on the target",
                    s.text(b),
                    if v { "this test selects" } else { "this test excludes" },
                ),
                Some("check the arm on the target GPU; decide by feature or `gcnArchName` if it does not hold".into()),
            );
            f.status = crate::gate::Status::Unknown;
            out.push(f);
            continue;
        }
        out.push(s.ctx.finding(
            &COMPUTE_CAPABILITY_CHECK,
            b.byte_range(),
            format!(
                "`{}` decides by NVIDIA compute capability; AMD GPUs report gfx versions here",
                s.text(b)
            ),
            Some("decide by feature or by `gcnArchName` on AMD".into()),
        ));
    }
}

/// The value of a condition on every AMD GPU, when the compute-capability comparisons in it
/// settle it: a comparison answered alike for majors 9 … 12, joined by `&&`/`||`/`!`.
fn amd_value(s: &Src, n: Node, props: &HashSet<&str>, cc: &HashSet<&str>) -> Option<bool> {
    let n = strip_parens(n);
    if n.node_kind() == K::ConditionClause {
        return amd_value(s, n.field(F::Value)?, props, cc);
    }
    if n.node_kind() != K::BinaryExpression {
        return None;
    }
    let op = n.field(F::Operator).map_or("", |o| s.text(o));
    let side = |f: F| n.field(f).and_then(|x| amd_value(s, x, props, cc));
    match op {
        "&&" => match (side(F::Left), side(F::Right)) {
            (Some(false), _) | (_, Some(false)) => Some(false),
            (Some(true), Some(true)) => Some(true),
            _ => None,
        },
        "||" => match (side(F::Left), side(F::Right)) {
            (Some(true), _) | (_, Some(true)) => Some(true),
            (Some(false), Some(false)) => Some(false),
            _ => None,
        },
        _ => settled_major(s, n, props, cc, AMD_MAJORS),
    }
}

/// The `if` statement whose condition holds `b` (through parentheses and `&&`/`||`/`!`).
fn enclosing_if(b: Node) -> Option<Node> {
    let mut x = b;
    while let Some(p) = x.parent() {
        match p.node_kind() {
            K::ParenthesizedExpression
            | K::BinaryExpression
            | K::UnaryExpression
            | K::ConditionClause => {}
            K::IfStatement => {
                return p
                    .field(F::Condition)
                    .is_some_and(|c| c.id() == x.id())
                    .then_some(p);
            }
            _ => return None,
        }
        x = p;
    }
    None
}

/// PASS text for a capability test whose `if` arms AMD GPUs do not run: a test reached only
/// after an earlier test of the chain that every AMD GPU answers true, or a test of an `if`
/// false on every AMD GPU with no other arm (or the chain's next test as its other arm).
fn arm_on_amd(s: &Src, b: Node, amd: &dyn Fn(Node) -> Option<bool>) -> Option<String> {
    let own = enclosing_if(b)?;
    // Up the `else if` chain: an earlier `if` whose condition is true on every AMD GPU.
    let mut x = own;
    while let (Some(e), Some(p)) = (x.parent(), x.parent().and_then(|e| e.parent())) {
        if e.node_kind() != K::ElseClause || p.node_kind() != K::IfStatement {
            break;
        }
        let cond = p.field(F::Condition)?;
        if amd(cond) == Some(true) {
            return Some(format!(
                "`{}` is never evaluated on AMD: the test before it (line {}, `{}`) is true on every AMD GPU (HIP reports gfx9 → 9 … gfx12 → 12) and takes its arm first (nothing to change here)",
                s.text(b),
                s.line(cond.start_byte()) + 1,
                s.text(strip_parens(cond.field(F::Value).unwrap_or(cond))),
            ));
        }
        x = p;
    }
    let cond = own.field(F::Condition)?;
    if amd(cond) != Some(false) {
        return None;
    }
    let other_arm = own.field(F::Alternative).and_then(|e| {
        let mut c = e.walk();
        let stmt = e
            .named_children(&mut c)
            .find(|k| k.node_kind() != K::Comment);
        stmt
    });
    match other_arm {
        None => Some(format!(
            "`{}` is false on every AMD GPU (HIP reports gfx9 → 9 … gfx12 → 12), as on Hopper and Blackwell: the arm it gates runs only on older NVIDIA GPUs and the ROCm build skips it (nothing to change)",
            s.text(b)
        )),
        Some(n) if n.node_kind() == K::IfStatement => Some(format!(
            "`{}` is false on every AMD GPU (HIP reports gfx9 → 9 … gfx12 → 12), as on Hopper and Blackwell: AMD goes on to the next test of the chain (line {}), which decides (nothing to change here)",
            s.text(b),
            s.line(n.start_byte()) + 1
        )),
        Some(_) => None,
    }
}

/// How a compute-capability comparison is answered.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Settled {
    /// The same answer on every current NVIDIA GPU and every AMD GPU.
    Everywhere,
    /// The same answer (this one) on every AMD GPU, not on current NVIDIA GPUs.
    OnAmd(bool),
    /// A real decision.
    Open,
}

/// The majors HIP reports on AMD GPUs (gfx9 → 9 … gfx12 → 12).
const AMD_MAJORS: std::ops::RangeInclusive<u64> = 9..=12;

/// The majors a check meets today: NVIDIA from Maxwell (5, the oldest current CUDA builds for)
/// and AMD's gfx versions as HIP reports them (gfx9 → 9 … gfx12 → 12).
const CURRENT_MAJORS: std::ops::RangeInclusive<u64> = 5..=12;

/// The value of `b` when it compares the major compute capability with a number and gives the
/// same answer for every current major (`major >= 2`, `1 == major`), else `None`.
fn settled_major(
    s: &Src,
    b: Node,
    props: &HashSet<&str>,
    cc: &HashSet<&str>,
    majors: std::ops::RangeInclusive<u64>,
) -> Option<bool> {
    let b = strip_parens(b);
    if b.node_kind() != K::BinaryExpression {
        return None;
    }
    let op = b.field(F::Operator).map_or("", |o| s.text(o));
    let (l, r) = (
        strip_parens(b.field(F::Left)?),
        strip_parens(b.field(F::Right)?),
    );
    let is_major = |n: Node| {
        (is_cc_field(s, n, props) && n.field(F::Field).is_some_and(|f| s.text(f) == "major"))
            || (n.node_kind() == K::Identifier
                && cc.contains(s.text(n))
                && s.text(n).to_ascii_lowercase().contains("major"))
    };
    let num = |n: Node| {
        (n.node_kind() == K::NumberLiteral)
            .then(|| syntax::int_value(s.text(n)))
            .flatten()
    };
    // `major * 10 + minor` (or a variable set to it): the capability as one number.
    let scale = |n: Node| combined_scale(s, n, props, cc);
    // `major OP k` as a function of the major; `k OP major` flips the comparison. A combined
    // capability is tested at every minor (0–9) of each major.
    let (k, flip, per_major) = match (is_major(l), is_major(r), scale(l), scale(r)) {
        (true, false, _, _) => (num(r)?, false, None),
        (false, true, _, _) => (num(l)?, true, None),
        (false, false, Some(m), None) => (num(r)?, false, Some(m)),
        (false, false, None, Some(m)) => (num(l)?, true, Some(m)),
        _ => return None,
    };
    let test = |m: u64| {
        let (a, c) = if flip { (k, m) } else { (m, k) };
        match op {
            "<" => a < c,
            ">" => a > c,
            "<=" => a <= c,
            ">=" => a >= c,
            "==" => a == c,
            "!=" => a != c,
            _ => false,
        }
    };
    if !matches!(op, "<" | ">" | "<=" | ">=" | "==" | "!=") {
        return None;
    }
    let values: Vec<u64> = match per_major {
        None => majors.clone().collect(),
        Some(scale) => majors
            .clone()
            .flat_map(|m| (0..=9).map(move |minor| m * scale + minor))
            .collect(),
    };
    let first = test(values[0]);
    values.iter().all(|&m| test(m) == first).then_some(first)
}

/// The scale `K` when `n` is the compute capability as one number, `major * K + minor` (K 10
/// or 100), written out or held by a variable set to it (`int cc = p.major * 10 + p.minor;`).
fn combined_scale(s: &Src, n: Node, props: &HashSet<&str>, cc: &HashSet<&str>) -> Option<u64> {
    let n = strip_parens(n);
    if n.node_kind() == K::Identifier {
        let name = s.text(n);
        if !cc.contains(name) {
            return None;
        }
        let value = s.of_kinds(&[K::InitDeclarator]).into_iter().find_map(|d| {
            (d.field(F::Declarator)
                .and_then(|x| syntax::declarator_name(s, x))
                == Some(name))
            .then(|| d.field(F::Value))
            .flatten()
        })?;
        return (value.id() != n.id())
            .then(|| combined_scale_expr(s, value, props))
            .flatten();
    }
    combined_scale_expr(s, n, props)
}

/// `major * K + minor` (either order of the sum and of the product).
fn combined_scale_expr(s: &Src, n: Node, props: &HashSet<&str>) -> Option<u64> {
    let n = strip_parens(n);
    if n.node_kind() != K::BinaryExpression || n.field(F::Operator).map(|o| s.text(o)) != Some("+")
    {
        return None;
    }
    let field = |x: Node, want: &str| {
        let x = strip_parens(x);
        is_cc_field(s, x, props) && x.field(F::Field).is_some_and(|f| s.text(f) == want)
    };
    let (a, b) = (n.field(F::Left)?, n.field(F::Right)?);
    let (product, minor) = if field(b, "minor") { (a, b) } else { (b, a) };
    if !field(minor, "minor") {
        return None;
    }
    let product = strip_parens(product);
    if product.node_kind() != K::BinaryExpression
        || product.field(F::Operator).map(|o| s.text(o)) != Some("*")
    {
        return None;
    }
    let (x, y) = (product.field(F::Left)?, product.field(F::Right)?);
    let (major, k) = if field(x, "major") { (x, y) } else { (y, x) };
    if !field(major, "major") {
        return None;
    }
    let k = strip_parens(k);
    let k = (k.node_kind() == K::NumberLiteral)
        .then(|| syntax::int_value(s.text(k)))
        .flatten()?;
    matches!(k, 10 | 100).then_some(k)
}

/// The expression inside parentheses and casts: `((int)p.major)` is `p.major`.
fn strip_parens(mut n: Node) -> Node {
    loop {
        let inner = match n.node_kind() {
            K::ParenthesizedExpression => n.named_child(0),
            K::CastExpression => n.field(F::Value),
            _ => None,
        };
        match inner {
            Some(c) => n = c,
            None => break,
        }
    }
    n
}

/// Whether the comparison `b` only separates pre-Maxwell GPUs: its major test gives one answer
/// for every current GPU (`major >= 2`), or a condition around it does (`minor >= 3` in
/// `major == 1 && minor >= 3`, where `major == 1` is false on every current GPU).
fn pre_maxwell_only(s: &Src, b: Node, props: &HashSet<&str>, cc: &HashSet<&str>) -> bool {
    if settled_major(s, b, props, cc, CURRENT_MAJORS).is_some() {
        return true;
    }
    let mut x = b;
    while let Some(p) = x.parent() {
        match p.node_kind() {
            K::ParenthesizedExpression => {}
            K::BinaryExpression => {
                let op = p.field(F::Operator).map_or("", |o| s.text(o));
                let decides = match op {
                    "&&" => false,
                    "||" => true,
                    _ => return false,
                };
                let other = [p.field(F::Left), p.field(F::Right)]
                    .into_iter()
                    .flatten()
                    .find(|o| o.id() != x.id());
                if other.and_then(|o| settled_major(s, o, props, cc, CURRENT_MAJORS))
                    == Some(decides)
                {
                    return true;
                }
            }
            _ => return false,
        }
        x = p;
    }
    false
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

    #[test]
    fn arch_tests_where_hip_takes_a_current_gpus_branch_are_pass() {
        use crate::model::syntax::test_support::{fires, fires_open};
        // llm.c: a fast path for sm_80/sm_90 (lost on AMD); a workaround for old GPUs that a
        // current GPU and HIP both skip; a device-pass test (`port` adds HIP's device-pass
        // macro: PASS); a workaround HIP takes (0 < 700).
        let src = "#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 900\n#endif\n#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 700\n#endif\n#if defined(__CUDA_ARCH__)\n#endif\n#if __CUDA_ARCH__ < 700\n#endif\n";
        assert_eq!(fires(src, "HP401"), [1, 3, 5, 7]);
        assert_eq!(fires_open(src, "HP401"), [1, 7]);
        let msgs = crate::model::syntax::test_support::messages(src, "HP401");
        assert!(msgs[2].contains("__HIP_DEVICE_COMPILE__"), "{}", msgs[2]);
    }

    #[test]
    fn capability_checks_that_only_separate_pre_maxwell_gpus_are_pass() {
        use crate::model::syntax::test_support::{fires, fires_open};
        // SHOC's double-precision test and Parboil's sm_1x workaround: every current GPU (and
        // every AMD GPU, major 9..12) takes the same branch. `major >= 8` (tf32) and a minor
        // test beside a current major are real decisions.
        let src = "void f(cudaDeviceProp deviceProp, cudaDeviceProp p) {\n  if ((deviceProp.major == 1 && deviceProp.minor >= 3) ||\n      (deviceProp.major >= 2)) dp();\n  if ((1 == p.major) && (p.minor < 2)) old();\n  if (p.major >= 8) tf32();\n  if (p.major == 9 && p.minor >= 0) hopper();\n  if (p.major < 13) x();\n  if (p.major < 5 || (p.major == 5 && p.minor < 3)) nofp16();\n  else fp16();\n}\n";
        assert_eq!(fires(src, "HP402"), [2, 3, 4, 5, 6, 7, 8]);
        // cuda-samples' fp16 test: `major == 5 && minor < 3` tells Maxwell GPUs apart, so the
        // line stays open although `major < 5` alone is settled (and AMD runs its `else`).
        assert_eq!(fires_open(src, "HP402"), [5, 6, 8]);
        // `major >= 8` is true on every AMD GPU (9 … 12): the tf32 arm always runs there, a
        // thing to check (UNKNOWN), not a change; its twin `major == 9` (Hopper, and gfx9 but
        // not gfx11) is a real decision on AMD too and stays REMEDIATION.
        let st = |line: u32| {
            crate::model::syntax::test_support::hazard_findings(src)
                .into_iter()
                .find(|f| f.rule == "HP402" && f.line == line)
                .map(|f| f.status)
        };
        assert_eq!(st(5), Some(crate::gate::Status::Unknown));
        assert_eq!(st(6), Some(crate::gate::Status::Remediation));
        assert_eq!(st(8), Some(crate::gate::Status::Remediation));
        let msgs = crate::model::syntax::test_support::messages(src, "HP402");
        assert!(
            msgs.iter().any(|m| m.contains("true on every AMD GPU")),
            "{msgs:?}"
        );
    }

    /// The arms AMD runs. xmrig's Pascal memory caps (`major == 6`, `major < 6`, with no other
    /// arm) and tsne-cuda's chain (`== 8`, then `>= 7`, then `>= 6`): AMD skips what only older
    /// NVIDIA GPUs run, and never reaches a test after one every AMD GPU passes. Twins: a false
    /// test with an `else` AMD runs, a true test (its arm runs on AMD), a test outside an `if`.
    #[test]
    fn capability_arms_amd_skips_or_never_reaches_are_pass() {
        use crate::model::syntax::test_support::{fires, fires_open};
        let src = "void f(cudaDeviceProp props, int alg) {\n  if (props.major == 6) { cap(); }\n  if (alg == 2 && props.major < 6) { occ(); }\n  if (props.major == 8) { a(); }\n  else if (props.major >= 7) { b(); }\n  else if (props.major >= 6) { c(); }\n  if (props.major < 6) { old(); } else { cur(); }\n  if (props.major >= 9) hopper();\n  else if (props.major == 8) ampere();\n  bool pre = props.major < 6;\n}\n";
        assert_eq!(fires(src, "HP402"), [2, 3, 4, 5, 6, 7, 8, 9, 10]);
        assert_eq!(fires_open(src, "HP402"), [5, 7, 8, 10]);
        let msgs = crate::model::syntax::test_support::messages(src, "HP402");
        assert!(
            msgs.iter()
                .any(|m| m.contains("never evaluated on AMD: the test before it (line 5")),
            "{msgs:?}"
        );
        assert!(
            msgs.iter()
                .any(|m| m.contains("the next test of the chain (line 5)")),
            "{msgs:?}"
        );
    }

    /// The capability as one number (`major * 10 + minor`, written out or in a variable) and
    /// a cast major (`(int)p.major < 2`): every current GPU, and every AMD GPU (90 … 129),
    /// passes `>= 13`/`>= 20` alike. The twin: `cc >= 80` (tf32) is a decision.
    #[test]
    fn combined_capabilities_and_cast_majors_are_settled_alike() {
        use crate::model::syntax::test_support::{fires, fires_open};
        let src = "void f(cudaDeviceProp p) {\n  int cv = p.major * 10 + p.minor;\n  bool dbl = (cv >= 13);\n  if ((p.major * 10 + p.minor) >= 12) a();\n  if ((int)p.major < 2) b();\n  if (cv >= 80) tf32();\n}\n";
        assert_eq!(fires(src, "HP402"), [3, 4, 5, 6]);
        assert_eq!(fires_open(src, "HP402"), [6]);
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
