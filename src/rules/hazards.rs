//! Entry point of the hazard rules run by `scan`: each family module gets the file, its tokens
//! and its tree, and adds findings. One finding per rule and line: a line that matches a rule
//! twice (two `% 32` in one expression) is one thing for a reviewer to look at. Branches HIP
//! never compiles, or only HIP compiles, are left alone ([`hipside`]).

use crate::finding::{Category, Finding};
use crate::gate::{Phase, Status};
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::mappings::Target;
use crate::model::hipside::{self, Alt, Dead, Side};
use crate::model::index::NodeIndex;
use crate::model::macro_env::MacroEnv;
use crate::model::syntax::Src;
use crate::rules::{
    arch_check, compiled_out, device_feature, driver_api, inline_asm, library, version_check,
    warp_size, FileCtx,
};
use crate::translate::rules as api;
use tree_sitter::Tree;

mod other_compilers;
use other_compilers::{condition_at, pass_compiler_workarounds, pass_other_backends};

/// The node kinds this module reads (the names a file declares).
const KINDS: &[K] = &[
    K::NamespaceDefinition,
    K::NamespaceAliasDefinition,
    K::FunctionDefinition,
    K::StructSpecifier,
    K::ClassSpecifier,
    K::EnumSpecifier,
    K::TypeDefinition,
    K::AliasDeclaration,
    K::Enumerator,
    K::Declaration,
];

/// Every node kind the families register: the one walk of a file's tree that builds the
/// [`NodeIndex`] keeps these and nothing else.
pub fn kinds() -> Vec<K> {
    [
        KINDS,
        crate::model::syntax::KINDS,
        warp_size::KINDS,
        version_check::KINDS,
        arch_check::KINDS,
        driver_api::KINDS,
        device_feature::KINDS,
    ]
    .concat()
}

/// Runs every hazard family over one file (tests).
#[cfg(test)]
pub fn check(ctx: &FileCtx, tree: Option<&Tree>, target: &Target) -> Vec<Finding> {
    check_with(ctx, tree, target, &mut Vec::new(), &mut Vec::new())
}

/// Runs every hazard family over one file, and drops from `translated` (the translator's
/// findings for the same file) those in branches an explicit HIP/ROCm platform test makes
/// HIP-specific (never compiled by HIP, or written for HIP only): there they are not porting
/// problems. The file is lexed and its branches evaluated once for both. `project` receives the
/// notes a scan reports once per project (the project's own ROCm switches). Tests; the pipeline
/// calls [`check_file`] with the tokens it already has.
#[cfg(test)]
pub fn check_with(
    ctx: &FileCtx,
    tree: Option<&Tree>,
    target: &Target,
    translated: &mut Vec<Finding>,
    project: &mut Vec<Finding>,
) -> Vec<Finding> {
    let lexed = crate::lex::lex(ctx.src);
    let nothing = &crate::model::project::NOTHING;
    check_lexed(ctx, &lexed, tree, target, nothing, translated, project)
}

/// [`check_with`] on a [`crate::source::SourceFile`]: its tokens and tree, computed once by the pipeline.
/// `seen` is what the project files it includes define (`model::project`).
///
/// `hip_never` receives the byte ranges of the file's branches the ROCm build never compiles
/// (the pipeline keeps the includes outside them).
pub fn check_file(
    file: &crate::source::SourceFile,
    target: &Target,
    seen: &crate::model::project::Visible,
    warps: &crate::rules::warp_size::logical::LogicalWarps,
    translated: &mut Vec<Finding>,
    project: &mut Vec<Finding>,
    hip_never: &std::cell::RefCell<Vec<std::ops::Range<usize>>>,
) -> Vec<Finding> {
    check_lexed(
        &file.ctx(),
        &file.lexed,
        file.tree.as_ref(),
        target,
        Seeing {
            seen,
            warps: Some(warps),
            hip_never: Some(hip_never),
        },
        translated,
        project,
    )
}

/// What the rules of one file see of the model beyond the file: what the project files it
/// includes define, and the file's logical-warp model when the caller built it (the pipeline
/// builds it once for the translator and the rules; otherwise the rules build it).
pub struct Seeing<'a> {
    pub seen: &'a crate::model::project::Visible,
    pub warps: Option<&'a crate::rules::warp_size::logical::LogicalWarps>,
    /// Where to put the byte ranges of the branches the ROCm build never compiles, when the
    /// caller wants them.
    pub hip_never: Option<&'a std::cell::RefCell<Vec<std::ops::Range<usize>>>>,
}

impl<'a> From<&'a crate::model::project::Visible> for Seeing<'a> {
    fn from(seen: &'a crate::model::project::Visible) -> Seeing<'a> {
        Seeing {
            seen,
            warps: None,
            hip_never: None,
        }
    }
}

/// [`check_with`] with the file's tokens already lexed (the pipeline lexes each file once).
pub fn check_lexed<'a>(
    ctx: &FileCtx,
    lexed: &crate::lex::Lexed,
    tree: Option<&Tree>,
    target: &Target,
    seeing: impl Into<Seeing<'a>>,
    translated: &mut Vec<Finding>,
    project: &mut Vec<Finding>,
) -> Vec<Finding> {
    let Seeing {
        seen,
        warps,
        hip_never,
    } = seeing.into();
    let index = NodeIndex::new(ctx.src, tree, &kinds());
    let s = Src::new(ctx, lexed, tree, &index);
    let mut out = Vec::new();
    let built;
    let warps = match warps {
        Some(w) => w,
        None => {
            built = warp_size::logical::LogicalWarps::seeing(ctx.path, ctx.src, lexed, seen);
            &built
        }
    };
    warp_size::check_seeing(&s, target, seen, warps, &mut out);
    inline_asm::check(&s, seen, &mut out);
    inline_asm::ptx_text::check(&s, &mut out);
    version_check::check(&s, seen, target.rocm, &mut out);
    arch_check::check(&s, seen, &mut out);
    driver_api::check(&s, &mut out);
    driver_api::loaded::check(&s, &mut out);
    driver_api::device_nodes::check(&s, &mut out);
    library::check(&s, target, &mut out);
    library::legacy_cublas::check(&s, &mut out, translated);
    device_feature::check(&s, target.rocm, &mut out);
    device_feature::lds::check(&s, target, seen, &mut out);
    device_feature::half_atomics::check(&s, target, seen, &mut out);
    device_feature::torch_ldg::check(&s, &mut out);
    // Before the arms are settled: a tile reduction in an arm HIP never compiles is no work.
    cg_reduce_calls(&s, target, translated);
    let (regions, pins) = hipside::regions_and_pins_for(&s, target.rocm, seen);
    if let Some(out) = hip_never {
        out.borrow_mut().extend(
            regions
                .iter()
                .filter(|r| matches!(r.side, Side::Never(_)))
                .map(|r| r.range.clone()),
        );
    }
    let offsets: Vec<usize> = out
        .iter()
        .chain(translated.iter())
        .map(|f| f.byte_range.0)
        .collect();
    let at = hipside::regions_at(&regions, &offsets);
    // Where open findings sit before the arms settle them: an arm HIP never compiles that holds
    // none would build for AMD as ported.
    let open_before: Vec<usize> = out
        .iter()
        .chain(translated.iter())
        .filter(|f| f.status != Status::Pass)
        .map(|f| f.byte_range.0)
        .collect();
    let mut next_region = at.into_iter().map(|r| r.map(|i| &regions[i]));
    let mut keep = |f: &mut Finding| {
        let Some(region) = next_region.next().flatten() else {
            return true;
        };
        keep_in(&s, region, seen, f)
    };
    out.retain_mut(|f| keep(f));
    translated.retain_mut(|f| keep(f));
    pass_cuda_backend_arms(&s, &mut out, translated);
    arch_check::arms_without_code(&s, &regions, &mut out);
    arch_check::arms_with_code(&s, &regions, &open_before, &mut out);
    arch_check::includes_only::includes_only_arms(&s, &regions, &mut out);
    arch_check::launch_bounds_arms(&s, &mut out);
    arch_check::old_gpu_arms(&s, &mut out);
    arch_check::alternative_arms(&s, &mut out);
    arch_check::host_only_arms(&s, &mut out);
    // 32-lane ids and constants that meet no exchange across lanes in the code HIP compiles.
    warp_size::logical::exchange::settle(&s, &regions, warps, seen, &mut out);
    let hip_arms = compiled_out::check(&s, target, &regions, &seen.cuda_build_only, &mut out);
    compiled_out::fold_hip_arm_findings(&hip_arms, &mut out, translated);
    pass_pinned_conditions(&s, &pins, &mut out);
    pass_compiler_workarounds(&s, &mut out);
    pass_other_backends(&s, &mut out);
    widened_masks(translated, &mut out);
    driver_api::legacy_launches(&s, &mut out, translated);
    declared_names(&s, translated);
    for (name, range) in hipside::project_switches(&s) {
        // A switch a project header this file includes defines for the ROCm build (mscclpp's
        // `MSCCLPP_DEVICE_HIP` under `__HIP_PLATFORM_AMD__` in `device.hpp`) follows from the
        // test it is defined under, as one the file defines itself does.
        if seen.rocm_definition(&name).is_some_and(|d| !d.function) {
            continue;
        }
        project.push(version_check::project_switch(&s, &name, range));
    }
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let mut seen = std::collections::HashSet::new();
    out.retain(|f| seen.insert((f.rule.clone(), f.line)));
    fold_kernel_rewrites(&s, &mut out);
    out
}

/// The rules whose findings in one function are one rewrite of it: its inline PTX and the
/// `__CUDA_ARCH__` arms HIP compiles out (a tensor-core kernel's `cvta`, `ldmatrix` and
/// `mma.sync` sites, each behind its own arch test, are one move to MFMA or rocWMMA).
const KERNEL_REWRITE: [&str; 2] = ["HP201", "HP401"];

/// One finding per function for its [`KERNEL_REWRITE`] findings: the most harmful holds the
/// count, the rules and the lines; the rest fold into it (PASS naming it; JSON keeps them).
fn fold_kernel_rewrites(s: &Src, out: &mut [Finding]) {
    let Some(tree) = s.tree else { return };
    let rank = |f: &Finding| match f.phase {
        crate::gate::Phase::Correctness => 0,
        crate::gate::Phase::Runtime => 1,
        crate::gate::Phase::Build => 2,
        crate::gate::Phase::Performance => 4,
        _ => 3,
    };
    // A line another rule also flags is that rule's fact (one finding per fact, merged later
    // in the scan): it stays out of the fold.
    let other_lines: std::collections::HashSet<u32> = out
        .iter()
        .filter(|f| f.status != Status::Pass && !KERNEL_REWRITE.contains(&f.rule.as_str()))
        .map(|f| f.line)
        .collect();
    let mut groups: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    for (k, f) in out.iter().enumerate() {
        if f.status == Status::Pass
            || !KERNEL_REWRITE.contains(&f.rule.as_str())
            || other_lines.contains(&f.line)
            // Tuning a kernel's bounds is no part of rewriting its body.
            || (f.rule == "HP401" && f.phase == crate::gate::Phase::Performance)
        {
            continue;
        }
        let at = f.byte_range.0;
        let Some(func) = tree
            .root_node()
            .descendant_for_byte_range(at, at)
            .and_then(|n| s.enclosing_function(n))
        else {
            continue;
        };
        groups.entry(func.start_byte()).or_default().push(k);
    }
    for (start, members) in groups {
        if members.len() < 2 {
            continue;
        }
        let head = *members
            .iter()
            .min_by_key(|&&k| (rank(&out[k]), out[k].line))
            .unwrap_or(&members[0]);
        let name = crate::model::hipside::function_around(s, start + 1).unwrap_or("the function");
        let rules: Vec<String> = KERNEL_REWRITE
            .iter()
            .map(|r| (r, members.iter().filter(|&&k| out[k].rule == *r).count()))
            .filter(|(_, n)| *n > 0)
            .map(|(r, n)| format!("{r} ×{n}"))
            .collect();
        let lines: Vec<String> = members.iter().map(|&k| out[k].line.to_string()).collect();
        let at = format!("{}:{}", out[head].path, out[head].line);
        let summary = format!(
            " — one rewrite of `{name}`: {} findings in it ({}; lines {}), folded here",
            members.len(),
            rules.join(", "),
            lines.join(", ")
        );
        for &k in &members {
            if k == head {
                out[k].message.push_str(&summary);
            } else {
                crate::finding::Folded::fold(&mut out[k], at.clone());
                out[k]
                    .message
                    .push_str(&format!(" (folded into `{at}`: one rewrite of `{name}`)"));
            }
        }
    }
}

/// Findings in code the file runs only on its CUDA backend, beside a HIP backend it keeps
/// ([`crate::model::backend_arms`]): PASS, naming the twin that runs on ROCm.
fn pass_cuda_backend_arms(s: &Src, out: &mut [Finding], translated: &mut [Finding]) {
    let arms = crate::model::backend_arms::cuda_arms(s.bytes(), s.lexed);
    if arms.is_empty() {
        return;
    }
    for f in out.iter_mut().chain(translated.iter_mut()) {
        if f.status == Status::Pass {
            continue;
        }
        if let Some(a) = crate::model::backend_arms::arm_at(&arms, f.byte_range.0) {
            f.status = Status::Pass;
            f.message.push_str(&format!(
                " (in the file's CUDA backend: `{}` runs only there; its HIP twin `{}` (line {}) is what runs on ROCm)",
                a.name, a.twin, a.twin_line
            ));
            f.suggestion = None;
        }
    }
}

/// A condition on a CUDA-side macro the file pins for its HIP build before it (`#define
/// __CUDA_ARCH__ 800` under the project's HIP switch) is decided as the project chose: the
/// findings on it that say "undefined under HIP-Clang" (HP401, HP301, HP304) are PASS, naming
/// the definition. The branches it decides are in `regions` already.
fn pass_pinned_conditions(s: &Src, pins: &[hipside::Pin], out: &mut [Finding]) {
    if pins.is_empty() {
        return;
    }
    let codes = [
        arch_check::CUDA_ARCH_MACRO.code(),
        version_check::CUDA_VERSION_MACRO.code(),
        compiled_out::COMPILED_OUT_UNDER_HIP.code(),
    ];
    for f in out.iter_mut() {
        if f.status == Status::Pass || !codes.contains(&f.rule.as_str()) {
            continue;
        }
        let Some((k, cuda_side)) = condition_at(s, f.byte_range.0).filter(|(k, _)| {
            matches!(
                s.lexed.directives[*k].name.as_str(),
                "if" | "elif" | "ifdef" | "ifndef" | "elifdef" | "elifndef"
            )
        }) else {
            pinned_use(s, pins, f);
            continue;
        };
        let d = &s.lexed.directives[k];
        // Every CUDA-side macro the condition tests is pinned before it; the latest pin names
        // the note.
        let pinned = |t: &str| pins.iter().rev().find(|p| p.at <= d.start && p.name == t);
        if cuda_side.is_empty() || cuda_side.iter().any(|t| pinned(t).is_none()) {
            continue;
        }
        let Some(pin) = cuda_side
            .iter()
            .filter_map(|t| pinned(t))
            .max_by_key(|p| p.at)
        else {
            continue;
        };
        let place = match &pin.build {
            Some(at) => format!("the project's HIP build (`{at}`)"),
            None => format!(
                "the file on line {} (in code HIP compiles)",
                s.ctx.lines.position(s.bytes(), pin.directive.start).line
            ),
        };
        let how = match pin.known {
            crate::model::macro_env::Known::Value(v) => format!("as {v}"),
            crate::model::macro_env::Known::Defined => "as defined".to_string(),
            crate::model::macro_env::Known::Zero => "as 0".to_string(),
            crate::model::macro_env::Known::Undefined => "as undefined".to_string(),
        };
        f.status = Status::Pass;
        f.message = format!(
            "`#{}` tests `{}`, which {place} defines {how} for the HIP build: HIP takes the branch the project chose",
            d.name,
            cuda_side.join("`, `")
        );
        f.suggestion = None;
    }
}

/// A use of a CUDA-side macro outside a condition (a macro body naming `__CUDA_ARCH__`, an
/// expression) where the project defines that macro for every unit of its HIP build (a `-D` of a
/// HIP build file, or its ROCm layer's `#define __CUDA_ARCH__ 1300`, see
/// [`crate::model::project::Visible::hip_build`]): the name has the value the project chose.
fn pinned_use(s: &Src, pins: &[hipside::Pin], f: &mut Finding) {
    if f.rule != arch_check::CUDA_ARCH_MACRO.code() {
        return;
    }
    let (a, b) = f.byte_range;
    // The tokens of the range, found by binary search (tokens are in file order).
    let tokens = &s.lexed.tokens;
    let first = tokens.partition_point(|t| (t.start as usize) < a);
    let Some(pin) = tokens[first..]
        .iter()
        .take_while(|t| (t.end as usize) <= b)
        .filter(|t| t.kind == crate::lex::Tok::Ident)
        .find_map(|t| {
            let name = std::str::from_utf8(t.text(s.bytes())).ok()?;
            pins.iter().find(|p| {
                p.build.is_some()
                    && p.name == name
                    && p.known != crate::model::macro_env::Known::Undefined
            })
        })
    else {
        return;
    };
    f.status = Status::Pass;
    f.message = format!(
        "`{}` is defined for every unit of the HIP build by the project (`{}`): the use has the value the project chose",
        pin.name,
        pin.build.as_deref().unwrap_or("")
    );
    f.suggestion = None;
}

/// One fact, one finding: a 32-bit full mask the translator widened (HP006, PASS naming the
/// edit: `__syncwarp`, the matches and reductions as well as the shuffles and votes) is not
/// also an open HP103 on the same token. Where the port cannot widen it (a spelling it does not
/// rewrite, a target without the call) there is no HP006 and HP103 stays.
fn widened_masks(translated: &[Finding], out: &mut Vec<Finding>) {
    let widened: std::collections::HashSet<(usize, usize)> = translated
        .iter()
        .filter(|f| f.rule == api::WARP_SYNC_32BIT_MASK.id.code && f.status == Status::Pass)
        .map(|f| f.byte_range)
        .collect();
    if widened.is_empty() {
        return;
    }
    out.retain(|f| {
        !(f.rule == warp_size::WARP_MASK_32BIT.id.code && widened.contains(&f.byte_range))
    });
}

/// Whether a finding inside `region` (a branch HIP never compiles, or only HIP compiles) is kept,
/// and how it reads there: a CUDA version or architecture branch HIP never compiles is nothing
/// to port (PASS, naming the deciding condition); inline PTX with an alternative HIP compiles
/// that holds code is a lost fast path; where the alternative holds no code the fact is the
/// condition's (HP401: the branch's work does not happen under HIP), and the findings inside
/// are PASS naming it; a branch an explicit platform test decides is dropped.
fn keep_in(
    s: &Src,
    region: &hipside::Region,
    seen: &crate::model::project::Visible,
    f: &mut Finding,
) -> bool {
    match region.side {
        Side::Never(Dead::Arch {
            alternative: Alt::Code,
        }) if f.category == Category::InlineAsm => {
            // The other branch is the project's own portable version, which HIP compiles: nothing
            // to port (bitcracker's `lop3` beside its plain-C `LOP3LUT_XOR`, ccminer's rotates).
            f.phase = Phase::Performance;
            f.status = Status::Pass;
            f.suggestion = None;
            f.message.push_str(
                " (behind a `__CUDA_ARCH__` test: HIP compiles the other branch, the project's portable version: nothing to port; only this fast path is lost)",
            );
            true
        }
        Side::Never(Dead::Toolkit | Dead::Arch { .. }) => {
            // A rewrite `port` makes in such a branch changes nothing HIP compiles: say so, so
            // no later pass takes it for work left to a build-time hipify.
            if f.status == Status::Pass
                && f.message
                    .contains(crate::rules::project_build::torch_hipify::DONE_BY_PORT)
            {
                f.message
                    .push_str(&format!(" ({})", hipside::dead_note(s, region, seen)));
            }
            if f.status != Status::Pass {
                f.status = Status::Pass;
                f.message
                    .push_str(&format!(" ({})", hipside::dead_note(s, region, seen)));
                if let Side::Never(Dead::Arch { alternative }) = region.side {
                    if alternative.holds_no_code() {
                        f.message.push_str(" (the arm HIP compiles in its place holds no code: one fact, reported on that condition)");
                    }
                }
            }
            true
        }
        // HIP's own rules hold in code written for HIP too: its `warpSize` is not a compile-time
        // constant from ROCm 7.0 whichever side wrote the `constexpr` (aphrodite's ROCm
        // attention kernel, QUDA's HIP target).
        Side::HipOnly => HIP_CODE_RULES.contains(&f.rule.as_str()),
        _ => false,
    }
}

/// Rules about HIP's own semantics, which hold in the project's HIP branches as anywhere.
pub const HIP_CODE_RULES: [&str; 1] = ["HP108"];

/// Drops the translator's "no HIP counterpart" findings on names the file itself declares
/// (`namespace cuda { namespace std = ::std; }` in a HIP branch, a `#define` or a function of the
/// user's): the name resolves to the user's declaration, not to CUDA's.
fn declared_names(s: &Src, translated: &mut Vec<Finding>) {
    if !translated
        .iter()
        .any(|f| f.rule == api::UNPORTED_API.id.code)
    {
        return;
    }
    let mut names: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for d in &s.lexed.directives {
        if d.name == "define" {
            let toks: Vec<usize> = d
                .tokens
                .clone()
                .filter(|&j| s.lexed.tokens[j].kind == crate::lex::Tok::Ident)
                .collect();
            if let Some(&j) = toks.get(1) {
                names.insert(s.tok(j));
            }
        }
    }
    for n in s.of_kinds(&[
        K::NamespaceDefinition,
        K::NamespaceAliasDefinition,
        K::FunctionDefinition,
        K::StructSpecifier,
        K::ClassSpecifier,
        K::EnumSpecifier,
    ]) {
        let name = match n.node_kind() {
            K::NamespaceDefinition | K::NamespaceAliasDefinition => n.field(F::Name),
            K::FunctionDefinition => n.field(F::Declarator).and_then(|d| d.field(F::Declarator)),
            K::StructSpecifier | K::ClassSpecifier | K::EnumSpecifier
                if n.field(F::Body).is_some() =>
            {
                n.field(F::Name)
            }
            _ => None,
        };
        if let Some(x) = name.filter(|x| {
            matches!(
                x.node_kind(),
                K::Identifier | K::NamespaceIdentifier | K::TypeIdentifier
            )
        }) {
            names.insert(s.text(x));
        }
    }
    // Types, aliases, enumerators and variables of the user's (`typedef int cudaFooHandle;` as
    // a fallback, `static int cudaBarFlag;`); not function prototypes, which declare the CUDA
    // function the code then calls.
    for n in s.of_kinds(&[
        K::TypeDefinition,
        K::AliasDeclaration,
        K::Enumerator,
        K::Declaration,
    ]) {
        let mut d = match n.node_kind() {
            K::AliasDeclaration | K::Enumerator => n.field(F::Name),
            _ => n.field(F::Declarator),
        };
        while let Some(x) = d {
            match x.node_kind() {
                K::Identifier | K::TypeIdentifier => {
                    names.insert(s.text(x));
                    break;
                }
                K::FunctionDeclarator => break,
                _ => d = x.field(F::Declarator),
            }
        }
    }
    translated.retain(|f| {
        if f.rule != api::UNPORTED_API.id.code {
            return true;
        }
        let text = std::str::from_utf8(&s.bytes()[f.byte_range.0..f.byte_range.1]).unwrap_or("");
        let head = text
            .trim_start_matches(':')
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .next()
            .unwrap_or("");
        !names.contains(head)
    });
}

/// `cg::reduce(tile, v, op)` calls when `cooperative_groups/reduce.h` has no HIP counterpart in
/// the target: each call must be rewritten (a shuffle reduction over the tile), whether this file
/// includes the header or gets it through another header. Not when the compat header shims it
/// (the translator reported the shim).
fn cg_reduce_calls(s: &Src, target: &Target, translated: &mut Vec<Finding>) {
    let shimmed = translated.iter().any(|f| {
        f.rule != api::UNMAPPED_INCLUDE.id.code && f.message.contains("cooperative_groups/reduce.h")
    });
    let missing = matches!(
        crate::mappings::get().include("cooperative_groups/reduce.h", target),
        Some(Err(_))
    );
    if shimmed || !missing {
        return;
    }
    let mut spaces: Vec<&str> = vec!["cg", "cooperative_groups"];
    let mut used = false;
    for (i, name) in s.idents() {
        // `namespace cg2 = cooperative_groups;`
        if name == "cooperative_groups" && s.prev_text(i) == "=" {
            if let Some(p) = s.lexed.prev_code(i).and_then(|j| s.lexed.prev_code(j)) {
                spaces.push(s.tok(p));
            }
        }
        // `using namespace cooperative_groups;`
        if name == "cooperative_groups" && s.prev_text(i) == "namespace" {
            used |= s
                .lexed
                .prev_code(i)
                .and_then(|j| s.lexed.prev_code(j))
                .is_some_and(|u| s.tok(u) == "using");
        }
    }
    let mut calls = Vec::new();
    for (i, name) in s.idents() {
        if !matches!(
            name,
            "reduce" | "reduce_update_async" | "reduce_store_async"
        ) || s.next_text(i) != "("
        {
            continue;
        }
        let Some(before) = s.lexed.prev_code(i) else {
            continue;
        };
        let qualified = s.tok(before) == "::"
            && s.lexed
                .prev_code(before)
                .is_some_and(|p| spaces.contains(&s.tok(p)));
        // Unqualified under `using namespace cooperative_groups`, not a member or a qualified
        // name of another namespace (`thrust::reduce`, `x.reduce(`).
        let bare = used && !matches!(s.tok(before), "::" | "." | "->");
        if qualified || bare {
            let t = s.lexed.tokens[i];
            calls.push(s.ctx.finding(
                &api::UNPORTED_API,
                t.range(),
                format!("`cooperative_groups::{name}` (cooperative_groups/reduce.h) has no HIP counterpart in ROCm {}: write the tile reduction with shuffles", target.rocm),
                Some("reduce over the tile with `__shfl_xor` steps from `tile.size() / 2` down to 1".into()),
            ));
        }
    }
    translated.extend(calls);
}

#[cfg(test)]
mod tests;
