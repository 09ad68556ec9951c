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
pub fn check_file(
    file: &crate::source::SourceFile,
    target: &Target,
    seen: &crate::model::project::Visible,
    warps: &crate::rules::warp_size::logical::LogicalWarps,
    translated: &mut Vec<Finding>,
    project: &mut Vec<Finding>,
) -> Vec<Finding> {
    check_lexed(
        &file.ctx(),
        &file.lexed,
        file.tree.as_ref(),
        target,
        Seeing {
            seen,
            warps: Some(warps),
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
}

impl<'a> From<&'a crate::model::project::Visible> for Seeing<'a> {
    fn from(seen: &'a crate::model::project::Visible) -> Seeing<'a> {
        Seeing { seen, warps: None }
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
    let Seeing { seen, warps } = seeing.into();
    let index = NodeIndex::new(ctx.src, tree, &kinds());
    let s = Src::new(ctx, lexed, tree, &index);
    let mut out = Vec::new();
    let built;
    let warps = match warps {
        Some(w) => w,
        None => {
            built = warp_size::logical::LogicalWarps::seeing(ctx.src, lexed, seen);
            &built
        }
    };
    warp_size::check_seeing(&s, target, seen, warps, &mut out);
    inline_asm::check(&s, &mut out);
    version_check::check(&s, seen, &mut out);
    arch_check::check(&s, &mut out);
    driver_api::check(&s, &mut out);
    library::check(&s, target, &mut out);
    device_feature::check(&s, target.rocm, &mut out);
    device_feature::lds::check(&s, target, seen, &mut out);
    device_feature::half_atomics::check(&s, target, seen, &mut out);
    let (regions, pins) = hipside::regions_and_pins_for(&s, target.rocm, seen);
    let offsets: Vec<usize> = out
        .iter()
        .chain(translated.iter())
        .map(|f| f.byte_range.0)
        .collect();
    let at = hipside::regions_at(&regions, &offsets);
    let mut next_region = at.into_iter().map(|r| r.map(|i| &regions[i]));
    let mut keep = |f: &mut Finding| {
        let Some(region) = next_region.next().flatten() else {
            return true;
        };
        keep_in(&s, region, f)
    };
    out.retain_mut(|f| keep(f));
    translated.retain_mut(|f| keep(f));
    pass_cuda_backend_arms(&s, &mut out, translated);
    arch_check::arms_without_code(&s, &regions, &mut out);
    arch_check::arms_with_code(&s, &regions, &mut out);
    let hip_arms = compiled_out::check(&s, target, &mut out);
    compiled_out::fold_hip_arm_findings(&hip_arms, &mut out, translated);
    pass_pinned_conditions(&s, &pins, &mut out);
    pass_compiler_workarounds(&s, &mut out);
    pass_sycl_sources(&s, &mut out);
    widened_masks(translated, &mut out);
    declared_names(&s, translated);
    cg_reduce_calls(&s, target, translated);
    for (name, range) in hipside::project_switches(&s) {
        project.push(version_check::project_switch(&s, &name, range));
    }
    out.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    let mut seen = std::collections::HashSet::new();
    out.retain(|f| seen.insert((f.rule.clone(), f.line)));
    out
}

/// A SYCL source (`#include <sycl/sycl.hpp>`, `sycl::` code, no CUDA kernel syntax) is another
/// backend of the project, which reaches AMD GPUs through its own SYCL toolchain: its
/// sub-groups are not the CUDA code's warps and nothing in it is ported to HIP (lc0's SYCL
/// backend beside its CUDA one). Warp-size findings there are PASS saying so.
fn pass_sycl_sources(s: &Src, out: &mut [Finding]) {
    if !out
        .iter()
        .any(|f| f.category == crate::finding::Category::WarpSize)
    {
        return;
    }
    let sycl = s.idents().filter(|(_, t)| *t == "sycl").take(3).count() >= 3
        || s.lexed.directives.iter().any(|d| {
            d.name == "include" && {
                let t = s.directive_range(d);
                let text = String::from_utf8_lossy(&s.bytes()[t]);
                text.contains("sycl/sycl.hpp") || text.contains("CL/sycl.hpp")
            }
        });
    let cuda = s.idents().any(|(_, t)| {
        matches!(
            t,
            "__global__" | "__device__" | "threadIdx" | "blockIdx" | "__shfl_sync" | "__syncwarp"
        )
    }) || {
        // A kernel launch in code (dpct-migrated SYCL keeps the CUDA launch in comments).
        let code: Vec<&[u8]> = s
            .lexed
            .code_tokens()
            .map(|(_, t)| t.text(s.bytes()))
            .collect();
        code.windows(2)
            .any(|w| w[0].starts_with(b"<<<") || (w[0] == b"<<" && w[1].starts_with(b"<")))
    };
    if !sycl || cuda {
        return;
    }
    for f in out
        .iter_mut()
        .filter(|f| f.category == crate::finding::Category::WarpSize && f.status != Status::Pass)
    {
        f.settle(" (SYCL code: another backend of the project, built for AMD by its SYCL toolchain; its sub-groups are not ported to HIP)");
    }
}

/// The directive at byte `at` (its index) and the CUDA-side macros its condition tests (those
/// the macro table decides; HIP's own and the project's ROCm switches are not), sorted, once each.
fn condition_at<'a>(s: &Src<'a>, at: usize) -> Option<(usize, Vec<&'a str>)> {
    let dirs = &s.lexed.directives;
    let k = dirs.partition_point(|d| d.end < at);
    let d = dirs.get(k).filter(|d| d.start <= at)?;
    let hip = crate::model::macro_env::MacroEnv::hip();
    let mut cuda_side: Vec<&str> = crate::model::cond::condition_tokens(s, d)
        .into_iter()
        .filter(|t| !crate::model::cond::is_hip_macro(t) && hip.lookup(t).is_some())
        .collect();
    cuda_side.sort_unstable();
    cuda_side.dedup();
    Some((k, cuda_side))
}

/// nvcc's identity as a compiler, not CUDA's: a branch on these works around nvcc (a missing
/// return it warns about, its diagnostic pragmas, an attribute it rejects).
const NVCC_IDENTITY: [&str; 9] = [
    "__NVCC__",
    "__NVCOMPILER",
    "__NVCOMPILER_CUDA__",
    "_NVHPC_CUDA",
    "__NVCC_DIAG_PRAGMA_SUPPORT__",
    "__CUDACC_VER_MAJOR__",
    "__CUDACC_VER_MINOR__",
    "__CUDACC_VER_BUILD__",
    "__NVCC_DIAG_PRAGMA_SUPPORT",
];

/// Whether a token says CUDA code: an execution-space or memory-space keyword, a kernel launch,
/// a thread index, or a CUDA API name.
fn cuda_code_token(t: &str) -> bool {
    matches!(
        t,
        "__device__"
            | "__global__"
            | "__host__"
            | "__shared__"
            | "__constant__"
            | "__managed__"
            | "<<<"
            | "threadIdx"
            | "blockIdx"
            | "blockDim"
            | "__syncthreads"
            | "__CUDA_ARCH__"
            | "__CUDACC__"
    ) || t.starts_with("cuda")
        || t.starts_with("CUDA")
        || t.starts_with("cu") && t[2..].starts_with(|c: char| c.is_ascii_uppercase())
        || t.starts_with("CU_")
}

/// A condition that tests only nvcc's identity as a compiler (`__NVCC__`, `__NVCOMPILER`,
/// `__CUDACC_VER_MAJOR__`) around arms that hold no CUDA code (a `return 0;` nvcc wants, its
/// `#pragma nv_diag_suppress`, an attribute it rejects), in a file gcc and clang compile too (not
/// a `.cu`/`.cuh`): HIP-Clang takes the arm gcc and clang take, which the project keeps working
/// for them. HP301/HP304 there are PASS.
fn pass_compiler_workarounds(s: &Src, out: &mut [Finding]) {
    let codes = [
        version_check::CUDA_VERSION_MACRO.code(),
        compiled_out::COMPILED_OUT_UNDER_HIP.code(),
    ];
    // In a CUDA source only nvcc compiles the file: the other arm was never built by anyone.
    let ext = s.ctx.path.rsplit_once('.').map_or("", |(_, e)| e);
    if matches!(ext.to_ascii_lowercase().as_str(), "cu" | "cuh") {
        return;
    }
    let dirs = &s.lexed.directives;
    for f in out.iter_mut() {
        if f.status == Status::Pass || !codes.contains(&f.rule.as_str()) {
            continue;
        }
        let Some((k, cuda_side)) = condition_at(s, f.byte_range.0) else {
            continue;
        };
        // `__CUDACC__` is defined by both compilers: it tells them apart from gcc, not from
        // each other, so only the macros whose states differ decide.
        let cuda_side: Vec<&str> = cuda_side
            .into_iter()
            .filter(|t| MacroEnv::hip().lookup(t) != MacroEnv::cuda().lookup(t))
            .collect();
        if cuda_side.is_empty() || !cuda_side.iter().all(|t| NVCC_IDENTITY.contains(t)) {
            continue;
        }
        // The chain from its head to its `#endif`: no CUDA code in any arm.
        let opens = |j: usize| matches!(dirs[j].name.as_str(), "if" | "ifdef" | "ifndef");
        let mut head = k;
        if !opens(k) {
            let mut depth = 0usize;
            let mut found = None;
            for j in (0..k).rev() {
                if dirs[j].name == "endif" {
                    depth += 1;
                } else if opens(j) {
                    if depth == 0 {
                        found = Some(j);
                        break;
                    }
                    depth -= 1;
                }
            }
            let Some(j) = found else { continue };
            head = j;
        }
        let mut end = None;
        let mut depth = 0i32;
        for (j, d) in dirs.iter().enumerate().skip(head) {
            match d.name.as_str() {
                "if" | "ifdef" | "ifndef" => depth += 1,
                "endif" => {
                    depth -= 1;
                    if depth == 0 {
                        end = Some(j);
                        break;
                    }
                }
                _ => {}
            }
        }
        let Some(end) = end else { continue };
        let span = dirs[head].end..dirs[end].start;
        let toks = &s.lexed.tokens;
        let first = toks.partition_point(|t| (t.start as usize) < span.start);
        let cuda = (first..toks.len())
            .take_while(|&i| (toks[i].end as usize) <= span.end)
            .filter(|&i| {
                matches!(
                    toks[i].kind,
                    crate::lex::Tok::Ident | crate::lex::Tok::Punct
                )
            })
            .any(|i| cuda_code_token(s.tok(i)));
        if cuda {
            continue;
        }
        f.status = Status::Pass;
        f.message = format!(
            "`#{}` tests nvcc's identity as a compiler (`{}`), and no arm of the chain holds CUDA code: HIP-Clang takes the arm gcc and clang take, which the project keeps working for them (nothing to port)",
            dirs[k].name,
            cuda_side.join("`, `")
        );
        f.suggestion = None;
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
        let Some((k, cuda_side)) = condition_at(s, f.byte_range.0) else {
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
            Some(at) => format!("the project's HIP build file `{at}`"),
            None => format!(
                "the file on line {} (in code HIP compiles)",
                s.ctx.lines.position(s.bytes(), pin.directive.start).line
            ),
        };
        let how = match pin.known {
            crate::model::macro_env::Known::Value(v) => format!("as {v}"),
            crate::model::macro_env::Known::Defined => "as defined".to_string(),
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
fn keep_in(s: &Src, region: &hipside::Region, f: &mut Finding) -> bool {
    match region.side {
        Side::Never(Dead::Arch {
            alternative: Alt::Code,
        }) if f.category == Category::InlineAsm => {
            f.phase = Phase::Performance;
            f.message.push_str(
                " (behind a `__CUDA_ARCH__` test: HIP compiles the other branch, so this is a lost fast path, not a build failure)",
            );
            true
        }
        Side::Never(Dead::Toolkit | Dead::Arch { .. }) => {
            if f.status != Status::Pass {
                f.status = Status::Pass;
                f.message
                    .push_str(&format!(" ({})", hipside::dead_note(s, region)));
                if let Side::Never(Dead::Arch { alternative }) = region.side {
                    if alternative.holds_no_code() {
                        f.message.push_str(" (the arm HIP compiles in its place holds no code: one fact, reported on that condition)");
                    }
                }
            }
            true
        }
        _ => false,
    }
}

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
mod tests {
    use crate::model::syntax::test_support::hazard_lines;

    #[test]
    fn ptx_behind_an_arch_test_with_a_fallback_is_performance() {
        let src = "__device__ float f(float x) {\n#if __CUDA_ARCH__ >= 800\n  float y;\n  asm(\"ex2.approx.f32 %0, %1;\" : \"=f\"(y) : \"f\"(x));\n  return y;\n#else\n  return exp2f(x);\n#endif\n}\n";
        let f = crate::model::syntax::test_support::hazard_findings(src);
        let asm: Vec<_> = f.iter().filter(|f| f.line == 4).collect();
        assert!(!asm.is_empty(), "{f:?}");
        assert!(asm
            .iter()
            .all(|f| f.phase == crate::gate::Phase::Performance && f.rule.starts_with("HP2")));
        // The `#if` itself is still a finding (HP401).
        assert!(hazard_lines(src)
            .iter()
            .any(|(l, r)| *l == 2 && r == "HP401"));
    }

    /// A file that pins `__CUDA_ARCH__` under its HIP switch: the `#if` after it is decided as
    /// the project chose (HP401 PASS naming the definition), and the PTX of the branch HIP now
    /// takes is open; twin: a condition also testing a macro the file does not pin stays open.
    #[test]
    fn conditions_on_macros_the_file_pins_for_hip_are_decided() {
        let src = "#ifdef __HIP_PLATFORM_AMD__\n#define __CUDA_ARCH__ 800\n#endif\n#if __CUDA_ARCH__ >= 600\n__device__ int a;\n#endif\n#if CUDART_VERSION >= 11000 && __CUDA_ARCH__ >= 700\n__device__ int b;\n#endif\n";
        let hp401 = on(src, "HP401", 4);
        assert_eq!(hp401.len(), 1, "{hp401:?}");
        assert_eq!(hp401[0].0, Status::Pass);
        assert!(
            hp401[0].2.contains("defines as 800") && hp401[0].2.contains("line 2"),
            "{hp401:?}"
        );
        let open: Vec<_> = crate::model::syntax::test_support::hazard_findings(src)
            .into_iter()
            .filter(|f| f.line == 7 && f.status != Status::Pass)
            .collect();
        assert!(!open.is_empty(), "{open:?}");
        // Without the pin the first test is open too.
        let unpinned = src.replacen("#define __CUDA_ARCH__ 800\n", "\n", 1);
        assert!(on(&unpinned, "HP401", 4)
            .iter()
            .all(|f| f.0 != Status::Pass));
    }

    /// A GPU-generation test whose other arm holds working code: HIP compiles that code on
    /// every AMD GPU, nothing to port (HP401 PASS); the PTX it skips is the lost fast path.
    #[test]
    fn a_generation_test_with_a_code_fallback_is_nothing_to_port() {
        let src = "__device__ unsigned bfe(unsigned x, unsigned b, unsigned n) {\n#if __CUDA_ARCH__ >= 200\n  unsigned r;\n  asm(\"bfe.u32 %0, %1, %2, %3;\" : \"=r\"(r) : \"r\"(x), \"r\"(b), \"r\"(n));\n  return r;\n#else\n  return (x >> b) & ((1u << n) - 1);\n#endif\n}\n";
        let f = on(src, "HP401", 2);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].0, Status::Pass, "{f:?}");
        assert!(f[0].2.contains("holds code"), "{f:?}");
    }

    /// Twins: a test HIP finds true (HIP compiles the old-GPU arm), per-GPU tuning (a
    /// `#define` in the branch), and a device-pass test stay open.
    #[test]
    fn true_tests_tuning_and_device_pass_tests_stay_open() {
        let old = "#if __CUDA_ARCH__ < 600\n__device__ double add(double* a, double v) { return *a += v; }\n#else\n__device__ double add(double* a, double v) { return atomicAdd(a, v); }\n#endif\n";
        assert!(on(old, "HP401", 1).iter().all(|f| f.0 != Status::Pass));
        let tuning = "#if __CUDA_ARCH__ == 800 || __CUDA_ARCH__ >= 900\n#define MAX_BLOCKS 2\n#else\n#define MAX_BLOCKS 1\n#endif\n";
        let f = on(tuning, "HP401", 1);
        assert!(
            !f.is_empty() && f.iter().all(|f| f.0 != Status::Pass),
            "{f:?}"
        );
        let pass = "__host__ __device__ int where() {\n#if defined(__CUDA_ARCH__)\n  return 1;\n#else\n  return 0;\n#endif\n}\n";
        let f = on(pass, "HP401", 2);
        assert!(f.iter().all(|f| !f.2.contains("holds code")), "{f:?}");
    }

    /// A branch on nvcc's identity around no CUDA code (a return nvcc wants, its diagnostic
    /// pragmas) is nothing to port; twin: an nvcc branch that adds `__device__` stays open.
    #[test]
    fn nvcc_compiler_workarounds_are_nothing_to_port() {
        let src = "int f(int x) {\n  if (x) return 1;\n#if (defined(__NVCC__) || defined(__INTEL_COMPILER)) && !defined(__NVCOMPILER)\n  return 0;\n#endif\n}\n#if defined __NVCC__\n#pragma nv_diagnostic push\n#else\n#pragma GCC diagnostic push\n#endif\n";
        let all = crate::model::syntax::test_support::hazard_findings_at("layout.hpp", src);
        let open: Vec<_> = all
            .iter()
            .filter(|f| matches!(f.rule.as_str(), "HP301" | "HP304") && f.status != Status::Pass)
            .collect();
        assert!(open.is_empty(), "{open:?}");
        assert!(all
            .iter()
            .any(|f| f.status == Status::Pass && f.message.contains("nvcc's identity")));
        // rapidsai/rmm: `__CUDACC__` beside `__NVCC__` (HIP-Clang defines it too), an nvcc-only
        // `_Pragma` defined away for every other compiler.
        let rmm = "#if defined(__CUDACC__) && defined(__NVCC__)\n#define EXEC_CHECK_DISABLE _Pragma(\"nv_exec_check_disable\")\n#else\n#define EXEC_CHECK_DISABLE\n#endif\n";
        let all =
            crate::model::syntax::test_support::hazard_findings_at("detail/exec_check.hpp", rmm);
        assert!(
            all.iter().all(|f| f.status == Status::Pass) && !all.is_empty(),
            "{all:?}"
        );
        let twin = "#ifdef __NVCC__\n#define HD __host__ __device__\n#else\n#define HD\n#endif\nHD int g();\n";
        let all = crate::model::syntax::test_support::hazard_findings(twin);
        assert!(
            all.iter()
                .any(|f| matches!(f.rule.as_str(), "HP301" | "HP304") && f.status != Status::Pass),
            "{all:?}"
        );
    }

    /// lc0: the SYCL backend's kernels beside the CUDA ones are not ported to HIP; twin: the
    /// same constant in a CUDA kernel file stays open.
    #[test]
    fn warp_size_findings_in_sycl_sources_are_pass() {
        let sycl = "#include <sycl/sycl.hpp>\n#define WARP_SIZE 32\n// migrated from k<<<grid, block>>>(o)\nvoid k(sycl::nd_item<1> it, float* o) {\n  int lane = it.get_local_id(0) % WARP_SIZE;\n  o[lane] = 0;\n}\n";
        let all = crate::model::syntax::test_support::hazard_findings_at("sycl/k.dp.cpp", sycl);
        let warp: Vec<_> = all
            .iter()
            .filter(|f| f.category == crate::finding::Category::WarpSize)
            .collect();
        assert!(!warp.is_empty(), "{all:?}");
        assert!(warp.iter().all(|f| f.status == Status::Pass), "{warp:?}");
        let cuda = "#define WARP_SIZE 32\n__global__ void k(float* o) {\n  unsigned m = __ballot_sync(0xffffffff, o[threadIdx.x] > 0);\n  o[threadIdx.x % WARP_SIZE] = __popc(m);\n}\n";
        let all = crate::model::syntax::test_support::hazard_findings_at("cuda/k.cu", cuda);
        assert!(all
            .iter()
            .any(|f| f.category == crate::finding::Category::WarpSize));
        assert!(
            all.iter().all(|f| !f.message.contains("SYCL code")),
            "{all:?}"
        );
    }

    /// (status, phase, message) of `rule`'s findings on `line` of `src`.
    fn on(src: &str, rule: &str, line: u32) -> Vec<(Status, Phase, String)> {
        crate::model::syntax::test_support::hazard_findings(src)
            .into_iter()
            .filter(|f| f.rule == rule && f.line == line)
            .map(|f| (f.status, f.phase, f.message))
            .collect()
    }

    use crate::gate::{Phase, Status};

    /// A kernel step behind `__CUDA_ARCH__ >= 750` whose `#else` (line 6) is `instead`.
    fn mma_step(instead: &str) -> String {
        format!("__global__ void gemm(unsigned* c, unsigned a) {{\n#if __CUDA_ARCH__ >= 750\n  asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {{%0}}, {{%1}};\" : \"=r\"(c[0]) : \"r\"(a));\n  asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {{%0}}, {{%1}};\" : \"=r\"(c[1]) : \"r\"(a));\n#else\n{instead}#endif\n}}\n")
    }

    #[test]
    fn ptx_behind_an_arch_test_with_an_empty_alternative_is_the_conditions_fact() {
        // torchsparse's implicit GEMM: the `#else` holds only `#pragma message`, so under HIP
        // the kernel skips its MMA step. One fact, on the condition (CORRECTNESS, naming the
        // kernel); each `asm` inside is PASS naming the condition.
        for instead in [
            "  #pragma message(\"FP16 kernels will not be compiled for SM75-.\")\n",
            "",
            "  // nothing on older GPUs\n",
        ] {
            let src = mma_step(instead);
            let cond = on(&src, "HP401", 2);
            assert_eq!(cond.len(), 1, "{cond:?}");
            assert_eq!(
                (cond[0].0, cond[0].1),
                (Status::Remediation, Phase::Correctness)
            );
            assert!(
                cond[0].1 == Phase::Correctness
                    && cond[0].2.contains("an arm with no code")
                    && cond[0].2.contains("`gemm`"),
                "{}",
                cond[0].2
            );
            for line in [3, 4] {
                let asm = on(&src, "HP201", line);
                assert!(
                    asm.len() == 1
                        && asm[0].0 == Status::Pass
                        && asm[0].2.contains("`#if __CUDA_ARCH__ >= 750` (line 2)"),
                    "{asm:?}"
                );
            }
        }
        // Twin: an `#else` with code keeps each `asm` a lost fast path (PERFORMANCE) and the
        // condition as it was.
        let src = mma_step("  c[0] = c[1] = a;\n");
        for line in [3, 4] {
            let asm = on(&src, "HP201", line);
            assert!(
                asm.len() == 1 && asm[0].0 == Status::Remediation && asm[0].1 == Phase::Performance,
                "{asm:?}"
            );
        }
        let cond = on(&src, "HP401", 2);
        assert!(
            cond.len() == 1 && !cond[0].2.contains("no code"),
            "{cond:?}"
        );
    }

    #[test]
    fn an_arch_branch_whose_alternative_fails_is_a_build_or_run_time_fact() {
        let src = mma_step("#error \"needs sm_75\"\n");
        let cond = on(&src, "HP401", 2);
        assert!(
            cond.len() == 1
                && cond[0].0 == Status::Remediation
                && cond[0].1 == Phase::Build
                && cond[0].2.contains("stops the build"),
            "{cond:?}"
        );
        assert!(on(&src, "HP201", 3).iter().all(|f| f.0 == Status::Pass));
        let src = mma_step("  __trap();\n");
        let cond = on(&src, "HP401", 2);
        assert!(
            cond.len() == 1
                && cond[0].1 == Phase::Runtime
                && cond[0].2.contains("`gemm` stops at run time"),
            "{cond:?}"
        );
    }

    #[test]
    fn an_arch_branch_that_is_a_whole_body_without_else_holds_no_code_under_hip() {
        // No `#else`, and the branch is the kernel's whole body: HIP compiles an empty kernel.
        let src = "__global__ void k(float* o) {\n#if __CUDA_ARCH__ >= 800\n  o[0] = 1.f;\n  asm(\"trap;\");\n#endif\n}\n";
        let cond = on(src, "HP401", 2);
        assert!(
            cond.len() == 1
                && cond[0].1 == Phase::Correctness
                && cond[0].2.contains("`k` silently does not happen"),
            "{cond:?}"
        );
        assert!(on(src, "HP201", 4).iter().all(|f| f.0 == Status::Pass));
        // Twin: the branch is one step among others of the body (optional code): the
        // condition keeps its message.
        let src = "__global__ void k(float* o) {\n  o[1] = 2.f;\n#if __CUDA_ARCH__ >= 800\n  o[0] = 1.f;\n#endif\n}\n";
        let cond = on(src, "HP401", 3);
        assert!(
            cond.len() == 1 && !cond[0].2.contains("no code"),
            "{cond:?}"
        );
    }

    #[test]
    fn an_arch_chain_with_no_code_for_hip_is_one_fact() {
        // `#if >= 800 … #elif >= 750 … #else #pragma message`: the `#if` carries the chain,
        // the `#elif` is PASS naming it.
        let src = "__device__ void step(unsigned* c, unsigned a) {\n#if __CUDA_ARCH__ >= 800\n  asm volatile(\"mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0}, {%1};\" : \"=r\"(c[0]) : \"r\"(a));\n#elif __CUDA_ARCH__ >= 750\n  asm volatile(\"mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0}, {%1};\" : \"=r\"(c[0]) : \"r\"(a));\n#else\n  #pragma message(\"no MMA\")\n#endif\n}\n";
        let first = on(src, "HP401", 2);
        let second = on(src, "HP401", 4);
        assert!(
            first.len() == 1 && first[0].0 == Status::Remediation,
            "{first:?}"
        );
        assert!(
            second.len() == 1 && second[0].0 == Status::Pass && second[0].2.contains("on line 2"),
            "{second:?}"
        );
        assert!(crate::model::syntax::test_support::hazard_findings(src)
            .iter()
            .filter(|f| f.rule == "HP201")
            .all(|f| f.status == Status::Pass));
    }

    /// The hazard findings and the translator's findings (those `keep` selects) as `scan` hands
    /// them over and filters them for a file, at ROCm `rocm`.
    fn scanned(
        src: &str,
        rocm: &str,
        keep: impl Fn(&crate::finding::Finding) -> bool,
    ) -> (Vec<crate::finding::Finding>, Vec<crate::finding::Finding>) {
        let lines = crate::source::LineIndex::new(src.as_bytes());
        let ctx = crate::rules::FileCtx {
            path: "t.cu",
            src: src.as_bytes(),
            lines: &lines,
        };
        let tree = crate::parse::parse(src.as_bytes());
        let target = crate::mappings::Target {
            rocm: rocm.parse().unwrap(),
            roc: false,
            experimental: false,
            lds: None,
        };
        let opts = crate::translate::Options {
            target,
            launch: crate::translate::LaunchSyntax::Keep,
            implicit_include: true,
            compat_header: false,
            unsafe_fixes: false,
        };
        let mut translated: Vec<crate::finding::Finding> =
            crate::translate::translate(&ctx, crate::mappings::get(), &opts)
                .findings
                .into_iter()
                .filter(|f| keep(f))
                .collect();
        let hazards = super::check_with(
            &ctx,
            tree.as_ref(),
            &target,
            &mut translated,
            &mut Vec::new(),
        );
        (hazards, translated)
    }

    /// The translator's HP001 findings as `scan` keeps them for a file (names the file declares
    /// dropped, `cg::reduce` calls added), by line.
    fn translated_lines(src: &str, rocm: &str) -> Vec<(u32, String)> {
        let (_, translated) = scanned(src, rocm, |f| f.rule == "HP001");
        translated.into_iter().map(|f| (f.line, f.rule)).collect()
    }

    /// The translator's and the hazard rules' findings on `src` after one fact per line is
    /// merged, as `scan` reports them, by line.
    fn merged_lines(src: &str) -> Vec<(u32, String)> {
        let (mut all, translated) = scanned(src, "6.3.0", |_| true);
        all.extend(translated);
        crate::rules::facts::merge_same_line(&mut all);
        all.into_iter().map(|f| (f.line, f.rule)).collect()
    }

    #[test]
    fn one_nvml_finding_per_line_of_nvml_code() {
        let src = "#include <nvml.h>\nint temp(unsigned idx) {\n  nvmlDevice_t dev;\n  unsigned int t = 0;\n  if (nvmlDeviceGetHandleByIndex(idx, &dev) != NVML_SUCCESS) return -1;\n  nvmlReturn_t r = nvmlDeviceGetTemperature(dev, NVML_TEMPERATURE_GPU, &t);\n  if (r != NVML_SUCCESS) printf(\"%s\", nvmlErrorString(r));\n  return t;\n}\n";
        let mut f = merged_lines(src);
        f.retain(|(_, r)| r == "HP607" || r == "HP001");
        // The handle declaration alone is the translator's; each call line is one rewrite.
        assert_eq!(
            f,
            [
                (1, "HP607".to_string()),
                (3, "HP001".to_string()),
                (5, "HP607".to_string()),
                (6, "HP607".to_string()),
                (7, "HP607".to_string())
            ]
        );
    }

    #[test]
    fn cg_reduce_calls_without_the_include() {
        // The header comes through another include; `thrust::reduce` and members are not it.
        let src = "#include \"common.h\"\nnamespace cg = cooperative_groups;\n__global__ void k(float* o, const float* in, int n) {\n  auto warp = cg::tiled_partition<32>(cg::this_thread_block());\n  float v = cg::reduce(warp, in[threadIdx.x], cg::plus<float>{});\n  float w = thrust::reduce(in, in + n);\n  o[0] = v + w + acc.reduce(v);\n}\n";
        assert_eq!(translated_lines(src, "6.3.0"), [(5, "HP001".to_string())]);
        let bare = "using namespace cooperative_groups;\n__device__ float f(thread_block_tile<32> t, float v) {\n  return reduce(t, v, plus<float>());\n}\n";
        assert_eq!(translated_lines(bare, "6.3.0"), [(3, "HP001".to_string())]);
        // Without `using namespace`, a bare `reduce(` is the user's.
        assert!(translated_lines(
            "float reduce(float);\nfloat g() { return reduce(1.f); }\n",
            "6.3.0"
        )
        .is_empty());
    }

    #[test]
    fn unported_names_the_file_declares_itself() {
        let src = "#include <cuda_runtime.h>\ntypedef int cudaGraphConditionalHandle;\nstatic int cudaStreamGetCaptureInfo_v3 = 0;\nenum { cudaGraphCondTypeWhile = 1 };\nint main() {\n  cudaGraphConditionalHandle h = 0;\n  int r = cudaStreamGetCaptureInfo_v3 + cudaGraphCondTypeWhile;\n  cudaGraphConditionalHandleCreate(&h, 0, 0, 0);\n  return r;\n}\n";
        // The typedef, the variable and the enumerator are the user's; the call is CUDA's.
        assert_eq!(translated_lines(src, "6.3.0"), [(8, "HP001".to_string())]);
        // A prototype declares CUDA's function, which HIP lacks: still flagged.
        let proto = "cudaError_t cudaGraphConditionalHandleCreate(void*, int, unsigned, unsigned);\nvoid f(void* h) { cudaGraphConditionalHandleCreate(h, 0, 0, 0); }\n";
        let got = translated_lines(proto, "6.3.0");
        assert!(got.iter().any(|(l, r)| *l == 2 && r == "HP001"), "{got:?}");
    }
}
