//! One model of which code HIP compiles, shared by every hazard rule and by the translator's
//! findings in `scan`: each `#if`/`#ifdef`/`#elif`/`#else` branch (nested) is evaluated for the
//! HIP side of the port under the HIP-Clang macro environment of [`super::macro_env`] (a hand
//! table with sources): HIP's platform macros and the project's own ROCm switches (`USE_ROCM`,
//! `GGML_USE_HIP`) count as defined, `__CUDACC__` too (`hipport port` rewrites it to
//! `__HIPCC__`), CUDA toolkit, nvcc and CUDA library macros (`CUDA_VERSION`, `__CUDA_ARCH__`,
//! `CUBLAS_VERSION`, `__CUDA_BF16_TYPES_EXIST__`) as undefined; anything else is unknown and its
//! branches stay live. Each dead branch remembers the directive that decides it, so a finding
//! there names the condition ([`dead_note`]).
//!
//! A branch HIP never compiles is not a porting problem (its findings are dropped), except inline
//! PTX behind `__CUDA_ARCH__ >= N` with an alternative branch that holds code: HIP compiles the
//! alternative, so the PTX is a lost fast path (PERFORMANCE), not a build failure. What the arm
//! HIP compiles instead holds is classified ([`Alt`]): code, nothing but comments and
//! diagnostics (`#pragma message`, `#warning`, `printf`) or a stub returning a constant
//! (`return 0;`), or a failure (`#error`, `static_assert(false)`, only `__trap()`/`assert(0)`/
//! PTX's `trap`). An arm with no code means the branch's
//! work silently does not happen under HIP: that is one fact, on the condition (HP401), not one
//! per statement of the dead branch. A branch only HIP compiles was written for AMD already.

use super::cond;
use super::hip_pins::By;
use super::macro_env::{Known, MacroEnv};
use super::syntax::Src;
use crate::kinds::cuda::{Kind as K, NodeExt};
use crate::lex::Directive;
use std::collections::BTreeMap;
use std::ops::Range;

mod arms;
use arms::arm_holds;
mod switches;
pub use switches::{alternative_backends, backend_tests, cuda_twins, project_switches};

/// Why HIP never compiles a branch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dead {
    /// An explicit platform test (`#ifndef USE_ROCM`, `#if !defined(__HIP_PLATFORM_AMD__)`).
    Platform,
    /// `__CUDA_ARCH__` (undefined on both HIP passes); `alternative` is what the chain's branch
    /// HIP compiles instead holds.
    Arch { alternative: Alt },
    /// A CUDA toolkit or compiler macro (`CUDA_VERSION`, `__NVCC__`, `_NVHPC_CUDA`).
    Toolkit,
}

/// What HIP compiles in place of a `__CUDA_ARCH__` branch: the other arms of its chain HIP
/// compiles (or may compile), taken together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alt {
    /// No arm of the chain is compiled by HIP (no `#else`) and the chain is not a whole function
    /// body: the branch is optional code.
    Absent,
    /// An arm with code: the branch is a lost fast path.
    Code,
    /// An arm with no code: empty, or only comments, blank lines and diagnostics (`#pragma
    /// message`, `#warning`, `printf`); also no `#else` where the chain is a whole function
    /// body. What the branch computes silently does not happen under HIP.
    Empty,
    /// An arm that stops the build (`#error`, `static_assert(false, …)`).
    BuildError,
    /// An arm that only stops the kernel at run time (`__trap()`, `assert(0)`).
    Trap,
    /// The branch and the arm HIP compiles both only return a constant (`#if __CUDA_ARCH__ >=
    /// 700 return 16; #else return 8;`): a value chosen per GPU, and HIP gets the other one.
    Value,
}

impl Alt {
    /// HIP compiles no code in place of the branch: the branch's work is gone (or fails).
    pub fn holds_no_code(self) -> bool {
        matches!(self, Alt::Empty | Alt::BuildError | Alt::Trap)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// HIP never compiles the branch.
    Never(Dead),
    /// Only HIP compiles the branch (written for AMD).
    HipOnly,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Region {
    pub range: Range<usize>,
    pub side: Side,
    /// The directive whose condition decides the side: the branch's own, or the earlier branch
    /// of the chain HIP compiles instead.
    pub decider: Range<usize>,
    /// The directive that opens the branch's chain (`#if`, `#ifdef`, `#ifndef`).
    pub head: Range<usize>,
}

/// Project macros the HIP build never defines (see `cuda_side_defines`); none by default.
pub type Undefined<'a> = &'a dyn Fn(&str) -> bool;

/// A directive's condition tokens and whether HIP compiles its branch (`None`: unknown), under
/// the HIP-Clang environment of [`macro_env`] with the project macros `undef` names undefined.
fn value(
    s: &Src,
    di: usize,
    d: &Directive,
    hip: MacroEnv,
    undef: Undefined,
    defined: &BTreeMap<String, Known>,
    project: &ProjectInts,
) -> (Vec<String>, Option<i64>) {
    let mut toks: Vec<String> = cond::condition_tokens(s, d)
        .into_iter()
        .map(str::to_string)
        .collect();
    if cond::is_include_guard(s, di) {
        return (toks, Some(1));
    }
    // The project's own integer macros decide a condition that compares them with a CUDA-side
    // macro (`CUDART_VERSION >= RMM_MIN_HWDECOMPRESS_CUDA_VERSION`); other conditions on them
    // stay as they were (both builds see the same project macros).
    let versus_cuda = toks
        .iter()
        .any(|t| !cond::is_hip_macro(t) && hip.lookup(t).is_some());
    // `#elif defined(__CUDACC__)` beside the project's own HIP arm later in the chain: the port
    // keeps the test as written, so HIP-Clang (which does not define `__CUDACC__`) skips it.
    // So is every `__CUDACC__` test of a file that opens its own arm for the HIP compiler.
    let beside_own_hip = toks.iter().any(|t| t == "__CUDACC__")
        && (project.own_hip_compiler || cond::own_hip_arm_later(s.bytes(), s.lexed, di).is_some());
    let extra = |n: &str| {
        if undef(n) || (beside_own_hip && n == "__CUDACC__") || project.cuda_twins.contains(n) {
            return Some(Known::Undefined);
        }
        if let Some(k) = defined.get(n) {
            return Some(*k);
        }
        if let Some((k, _)) = project.switches.get(n) {
            return Some(*k);
        }
        // `#define GPUJPEG_IDCT_USE_ASM 0` in code every build compiles, before the test: no
        // `-D` overrides it (the file's definition comes after the command line's), so it
        // decides the test for every build, HIP's included.
        if project.fixed.contains(n) {
            return project.own.get(n).copied().flatten();
        }
        if !versus_cuda || hip.lookup(n).is_some() || cond::is_hip_macro(n) {
            return None;
        }
        match project.own.get(n) {
            Some(k) => *k,
            None => project
                .headers
                .and_then(|h| h.get(n))
                .and_then(|(v, _)| i64::try_from(*v).ok())
                .map(Known::Value),
        }
    };
    let v = hip.with_extra(&extra).directive(s, d).map(i64::from);
    // A switch set from `__CUDA_ARCH__` stands for that test: the branch it kills is dead for
    // the same reason (a lost fast path, or an arm without code), so the family is named.
    let by = |b: By| {
        toks.iter()
            .any(|t| project.switches.get(t).is_some_and(|(_, by)| *by == b))
    };
    let (arch, platform) = (by(By::Arch), by(By::Platform));
    if v.is_some() && arch {
        toks.push("__CUDA_ARCH__".to_string());
    }
    // A switch the project's own ROCm arm sets (`#define CUDA_NVLS_API_AVAILABLE 0` under
    // `MSCCLPP_DEVICE_HIP`) stands for that arm's test: the project ported the branch itself.
    if v.is_some() && platform {
        toks.push("__HIP_PLATFORM_AMD__".to_string());
    }
    // A device-pass test `hipport port` widens with `__HIP_DEVICE_COMPILE__` (`#ifdef
    // __CUDA_ARCH__`, `#if __CUDA_ARCH__ >= 200`): the ported file compiles its arm in HIP's
    // device pass and the other arm in the host pass, so both are live, not compiled out.
    if v.is_some()
        && toks.iter().any(|t| t == "__CUDA_ARCH__")
        && !crate::translate::device_pass::rewrite(s.bytes(), s.lexed, di).is_empty()
    {
        return (toks, None);
    }
    (toks, v)
}

fn mentions(toks: &[String], pred: impl Fn(&str) -> bool) -> bool {
    toks.iter().any(|t| pred(t))
}

/// Why a false condition is false: the macro family it tests.
fn dead_kind(toks: &[String]) -> Dead {
    if mentions(toks, |t| t != "__CUDACC__" && cond::is_hip_macro(t)) {
        Dead::Platform
    } else if mentions(toks, |t| t.starts_with("__CUDA_ARCH")) {
        Dead::Arch {
            alternative: Alt::Absent,
        }
    } else {
        Dead::Toolkit
    }
}

/// Why the branches after a taken one are dead: the taken branch's condition family.
fn taken_kind(toks: &[String]) -> Dead {
    match dead_kind(toks) {
        Dead::Arch { .. } => Dead::Arch {
            alternative: Alt::Code,
        },
        k => k,
    }
}

/// The branches of the file HIP never compiles or only HIP compiles, outermost first.
pub fn regions(s: &Src) -> Vec<Region> {
    regions_with(s, &|_| false)
}

/// A CUDA-side macro the file defines (or undefines) in code HIP certainly compiles: the
/// conditions after `at` see `known` for `name` (see [`regions_and_pins_for`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pin {
    /// The end of the `#define`/`#undef` directive.
    pub at: usize,
    pub name: String,
    pub known: Known,
    /// The directive's range, for the note that names it.
    pub directive: Range<usize>,
    /// `path:line` of a HIP build file's definition (then `at` is 0 and `directive` empty).
    pub build: Option<String>,
}

/// [`regions_for`] and the pins that decided conditions after them, from one walk. `build`
/// holds what the project's HIP build files define for every unit
/// ([`super::project::hip_build_defines`]); the file's own definitions win after them.
pub fn regions_and_pins_for(
    s: &Src,
    rocm: crate::version::Version,
    seen: &super::project::Visible,
) -> (Vec<Region>, Vec<Pin>) {
    let build = &seen.hip_build;
    let mut pins: Vec<Pin> = build
        .iter()
        .map(|(name, (known, at))| Pin {
            at: 0,
            name: name.clone(),
            known: *known,
            directive: 0..0,
            build: Some(at.clone()),
        })
        .collect();
    // Project switches a CUDA-side test sets, in the included files and in this one.
    let mut switches: BTreeMap<String, (Known, By)> = seen
        .hip_pins
        .iter()
        .map(|(n, (p, _))| (n.clone(), (p.known, p.by())))
        .collect();
    // The file's own pins, unless the file tests the name before defining it (the preprocessor
    // sees it undefined there; the pin has no position, so such a name is left unknown).
    for p in super::hip_pins::pins(s) {
        let tested_before = s.lexed.directives.iter().any(|d| {
            matches!(d.name.as_str(), "if" | "elif" | "ifdef" | "ifndef")
                && (s.line(d.start) as u32) < p.line
                && cond::condition_tokens(s, d).contains(&p.name.as_str())
        });
        if !tested_before {
            let by = p.by();
            switches.entry(p.name).or_insert((p.known, by));
        }
    }
    // A macro only the CUDA build's CMake arms define (hoomd-blue's `CUSOLVER_AVAILABLE`), unless
    // this file defines it itself.
    for name in seen.cuda_build_only.keys() {
        if !defines_itself(s, name) {
            switches
                .entry(name.clone())
                .or_insert((Known::Undefined, By::Toolkit));
        }
    }
    // The CUDA backend's selector (`#if GMX_GPU_CUDA`): 0 in the ROCm build.
    for name in seen.cuda_selectors.keys() {
        if !defines_itself(s, name) {
            switches
                .entry(name.clone())
                .or_insert((Known::Zero, By::Toolkit));
        }
    }
    // Another backend's switch the project tests as an alternative to its ROCm switch in one
    // chain (`#if defined(AMREX_USE_SYCL) … #elif defined(AMREX_USE_HIP) … #elif
    // defined(AMREX_USE_CUDA)`): the ROCm build does not define it.
    for (name, _) in alternative_backends(s) {
        switches
            .entry(name)
            .or_insert((Known::Undefined, By::Toolkit));
    }
    let r = regions_pinning(
        s,
        MacroEnv::hip_for(rocm),
        &|_| false,
        Some(&mut pins),
        Some(&seen.constants),
        &switches,
    );
    (r, pins)
}

/// [`regions`] for a target ROCm release (table rows limited to a ROCm range apply).
pub fn regions_for(s: &Src, rocm: crate::version::Version) -> Vec<Region> {
    regions_in(s, MacroEnv::hip_for(rocm), &|_| false)
}

/// The project's integer macros a condition may compare with a CUDA-side macro: the file's own
/// (`Some` where defined in code HIP certainly compiles, `None` once defined or undefined in a
/// branch HIP may skip), and the constants of the project headers the file includes.
struct ProjectInts<'a> {
    own: BTreeMap<String, Option<Known>>,
    headers: Option<&'a BTreeMap<String, (u64, String)>>,
    /// Project switches a CUDA-side test sets ([`super::hip_pins`]): HIP's value and whether the
    /// test reads `__CUDA_ARCH__`.
    switches: &'a BTreeMap<String, (Known, By)>,
    /// The names of `own` whose value comes from a definition in code every build compiles
    /// (no enclosing condition left open), not from a default a `-D` may override.
    fixed: std::collections::BTreeSet<String>,
    /// The file's switches for a CUDA library whose ROCm twin it also tests
    /// ([`cuda_library_twins`]): the ROCm build turns on the twin, not these.
    cuda_twins: std::collections::BTreeSet<String>,
    /// The file opens its own arm for the HIP compiler ([`cond::own_hip_compiler_arm`]).
    own_hip_compiler: bool,
}

/// The switches the file's conditions test for a CUDA library (a `_`-separated word that
/// names one: `KOKKOSKERNELS_ENABLE_TPL_CUSPARSE`) whose twin with the ROCm library's name
/// (`…_ROCSPARSE` or `…_HIPSPARSE`) the file tests too: the project builds the ROCm library's
/// arm for ROCm, so the CUDA library's switch is off there (kokkos-kernels' cuSPARSE and
/// rocSPARSE paths of one kernel, side by side).
fn cuda_library_twins(s: &Src) -> std::collections::BTreeSet<String> {
    let mut names: std::collections::BTreeSet<&str> = Default::default();
    for d in &s.lexed.directives {
        if matches!(
            d.name.as_str(),
            "if" | "ifdef" | "ifndef" | "elif" | "elifdef" | "elifndef"
        ) {
            for t in cond::condition_tokens(s, d) {
                if t.contains('_') {
                    names.insert(t);
                }
            }
        }
    }
    let mut out = std::collections::BTreeSet::new();
    for n in &names {
        let words: Vec<&str> = n.split('_').collect();
        for (i, w) in words.iter().enumerate() {
            let lower = w.to_ascii_lowercase();
            let Some(hip) = crate::mappings::link_names::rocm_library(&lower) else {
                continue;
            };
            let hip = hip.to_ascii_lowercase();
            if !lower.starts_with("cu") && lower != "nccl" {
                continue;
            }
            let twin = |to: &str| {
                let mut ws: Vec<String> = words.iter().map(|x| x.to_string()).collect();
                ws[i] = if w.chars().all(|c| !c.is_ascii_lowercase()) {
                    to.to_ascii_uppercase()
                } else {
                    to.to_string()
                };
                ws.join("_")
            };
            let roc = hip.replacen("hip", "roc", 1);
            if [hip.as_str(), roc.as_str()]
                .iter()
                .any(|to| names.contains(twin(to).as_str()))
            {
                out.insert(n.to_string());
            }
        }
    }
    out
}

/// [`regions`] with project macros `undef` says the HIP build never defines.
pub fn regions_with(s: &Src, undef: Undefined) -> Vec<Region> {
    regions_in(s, MacroEnv::hip(), undef)
}

fn regions_in(s: &Src, hip: MacroEnv, undef: Undefined) -> Vec<Region> {
    regions_pinning(s, hip, undef, None, None, &BTreeMap::new())
}

fn regions_pinning(
    s: &Src,
    hip: MacroEnv,
    undef: Undefined,
    mut pins: Option<&mut Vec<Pin>>,
    headers: Option<&BTreeMap<String, (u64, String)>>,
    switches: &BTreeMap<String, (Known, By)>,
) -> Vec<Region> {
    let mut project = ProjectInts {
        own: BTreeMap::new(),
        headers,
        switches,
        fixed: Default::default(),
        cuda_twins: cuda_library_twins(s),
        own_hip_compiler: cond::own_hip_compiler_arm(s.bytes(), s.lexed).is_some(),
    };
    struct Frame {
        /// An earlier branch of the chain is certainly compiled under HIP.
        taken: bool,
        /// Every earlier branch is certainly not compiled under HIP.
        all_false: bool,
        /// An earlier branch is certainly compiled without HIP (so later ones are HIP-only).
        cuda_taken: bool,
        /// The open branch: its start, its side and the directive deciding it, when it is not
        /// simply compiled.
        open: Option<(usize, Side, Range<usize>)>,
        /// Indices into `out` of this chain's `__CUDA_ARCH__` regions, to mark alternatives.
        arch: Vec<usize>,
        /// The bodies of the chain's branches HIP compiles (or may compile).
        live: Vec<Range<usize>>,
        /// The chain's opening directive (index into the file's directives, and its range).
        head: (usize, Range<usize>),
        /// Why later branches are dead once an earlier one is certainly taken.
        taken_kind: Dead,
        /// The directive of the branch certainly taken.
        taken_at: Range<usize>,
        /// Where the open branch's body starts.
        body: usize,
        /// HIP certainly compiles the open branch.
        certain: bool,
        /// The macro a `#ifndef X` (`#if !defined(X)`) chain tests: a `#define X v` in its
        /// first branch is the file's default for `X` ([`default_guard`]).
        guard: Option<String>,
        /// The open branch is the chain's first.
        first: bool,
    }
    // CUDA-side macros (the table decides them) the file defines or undefines in code HIP
    // certainly compiles, from that point on: a project's ROCm arm that pins `__CUDA_ARCH__` or
    // `CUDA_VERSION` for its HIP build (`#ifdef __IS_HIP_COMPILE__` / `#define __CUDA_ARCH__
    // 800`) decides the conditions after it as a preprocessor would.
    let mut defined: BTreeMap<String, Known> = pins
        .as_deref()
        .map_or(&[][..], |p| p.as_slice())
        .iter()
        .map(|p| (p.name.clone(), p.known))
        .collect();
    let mut out: Vec<Region> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let close = |f: &mut Frame, st: usize, end: usize, out: &mut Vec<Region>| {
        if let Some((st, side, decider)) = f.open.take() {
            if matches!(side, Side::Never(Dead::Arch { .. })) {
                f.arch.push(out.len());
            }
            out.push(Region {
                range: st..end,
                side,
                decider,
                head: f.head.1.clone(),
            });
        } else {
            f.live.push(st..end);
        }
    };
    for (di, d) in s.lexed.directives.iter().enumerate() {
        let name = d.name.as_str();
        match name {
            "define" | "undef" if !stack.iter().all(|f| f.certain) => {
                if let Some((name, known)) = definition(s, d) {
                    if hip.lookup(&name).is_none() {
                        // `#ifndef MIN_CC_TURING` / `#define MIN_CC_TURING 700`: a default a
                        // `-D` may override. Compared with a CUDA-side macro HIP leaves
                        // undefined (0 in `#if`), any positive threshold decides alike, so the
                        // default stands for it; defined earlier in the file, it stays as was.
                        let default = stack.split_last().is_some_and(|(last, outer)| {
                            matches!(known, Known::Value(v) if v > 0)
                                && d.name == "define"
                                && last.guard.as_deref() == Some(name.as_str())
                                && last.first
                                && outer.iter().all(|f| f.certain)
                                && !project.own.contains_key(&name)
                        });
                        project.fixed.remove(&name);
                        project.own.insert(name, default.then_some(known));
                    }
                }
            }
            "define" | "undef" => {
                if let Some((name, known)) = definition(s, d) {
                    if hip.lookup(&name).is_none() {
                        let pinned = matches!(known, Known::Value(_) | Known::Undefined);
                        if pinned && stack.is_empty() {
                            project.fixed.insert(name.clone());
                        } else {
                            project.fixed.remove(&name);
                        }
                        project.own.insert(name, pinned.then_some(known));
                    } else {
                        // `#ifndef MXNET_USE_NVML` / `#define MXNET_USE_NVML 0`: the default of
                        // a CUDA-only library's switch, which a CUDA build with the library
                        // overrides. The ROCm build has it for want of the library, not as the
                        // project's choice for HIP: no pin (the tests of it are compiled out).
                        let library_default =
                            crate::model::macro_env::cuda_only_library_switch(&name)
                                && stack.last().is_some_and(|f| {
                                    f.guard.as_deref() == Some(name.as_str()) && f.first
                                });
                        if let Some(p) = pins.as_deref_mut().filter(|_| !library_default) {
                            p.push(Pin {
                                at: d.end,
                                name: name.clone(),
                                known,
                                directive: s.directive_range(d),
                                build: None,
                            });
                        }
                        defined.insert(name, known);
                    }
                }
            }
            "if" | "ifdef" | "ifndef" => {
                let (toks, h) = value(s, di, d, hip, undef, &defined, &project);
                let c = platform_only(s, d, false);
                let side = branch_side(h, c, &toks, false, false);
                let taken_kind = taken_kind(&toks);
                let here = s.directive_range(d);
                stack.push(Frame {
                    taken_kind,
                    taken: h.is_some_and(|v| v != 0),
                    all_false: h == Some(0),
                    cuda_taken: c.is_some_and(|v| v != 0),
                    open: side.map(|x| (d.end, x, here.clone())),
                    taken_at: here.clone(),
                    arch: Vec::new(),
                    live: Vec::new(),
                    head: (di, here),
                    body: d.end,
                    certain: h.is_some_and(|v| v != 0),
                    guard: default_guard(&toks, name),
                    first: true,
                });
            }
            "elif" | "elifdef" | "elifndef" | "else" => {
                let Some(f) = stack.last_mut() else { continue };
                let body = f.body;
                close(f, body, d.start, &mut out);
                f.body = d.end;
                f.first = false;
                let (toks, h) = if name == "else" {
                    (Vec::new(), Some(1))
                } else {
                    value(s, di, d, hip, undef, &defined, &project)
                };
                f.certain = !f.taken && f.all_false && h.is_some_and(|v| v != 0);
                let c = if name == "else" {
                    Some(1)
                } else {
                    platform_only(s, d, false)
                };
                let here = s.directive_range(d);
                let (side, decider) = if f.taken {
                    (Some(Side::Never(f.taken_kind)), f.taken_at.clone())
                } else {
                    (
                        branch_side(h, c, &toks, f.all_false, f.cuda_taken),
                        here.clone(),
                    )
                };
                f.open = side.map(|x| (d.end, x, decider));
                if !f.taken && h.is_some_and(|v| v != 0) {
                    f.taken = true;
                    f.taken_kind = taken_kind(&toks);
                    f.taken_at = here;
                }
                f.all_false &= h == Some(0);
                f.cuda_taken |= c.is_some_and(|v| v != 0);
            }
            "endif" => {
                if let Some(mut f) = stack.pop() {
                    let body = f.body;
                    close(&mut f, body, d.start, &mut out);
                    if f.arch.is_empty() {
                        continue;
                    }
                    let alternative = if f.live.is_empty() {
                        if whole_body(s, &s.lexed.directives[f.head.0], d) {
                            Alt::Empty
                        } else {
                            Alt::Absent
                        }
                    } else {
                        // The most benign of the arms HIP may compile: any code is a fallback.
                        f.live
                            .iter()
                            .map(|r| arm_holds(s, r.clone(), project.switches))
                            .min_by_key(|a| match a {
                                Alt::Code | Alt::Value => 0,
                                Alt::Empty | Alt::Absent => 1,
                                Alt::Trap => 2,
                                Alt::BuildError => 3,
                            })
                            .unwrap_or(Alt::Absent)
                    };
                    // Both sides hand back a constant: a per-GPU value, not missing code.
                    let alternative = if alternative == Alt::Empty
                        && !f.live.is_empty()
                        && f.live.iter().all(|r| arms::returns_constant(s, r.clone()))
                        && f.arch
                            .iter()
                            .all(|&i| arms::returns_constant(s, out[i].range.clone()))
                    {
                        Alt::Value
                    } else {
                        alternative
                    };
                    for &i in &f.arch {
                        out[i].side = Side::Never(Dead::Arch { alternative });
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The macro a chain's head tests for absence alone: `#ifndef X`, `#if !defined(X)`,
/// `#if !defined X` (`toks` are the condition's tokens, `name` the directive's).
fn default_guard(toks: &[String], name: &str) -> Option<String> {
    let t: Vec<&str> = toks.iter().map(String::as_str).collect();
    match (name, t.as_slice()) {
        ("ifndef", [x]) | ("if", ["!", "defined", "(", x, ")"] | ["!", "defined", x]) => {
            Some(x.to_string())
        }
        _ => None,
    }
}

/// Whether the chain from `head` to `endif` is the whole body of a function: the
/// code token before it opens the body and the one after it closes it (read on the tree).
fn whole_body(s: &Src, head: &Directive, endif: &Directive) -> bool {
    let Some(tree) = s.tree else { return false };
    let before = s.lexed.prev_code(head.tokens.start);
    let after = (endif.tokens.end > 0)
        .then(|| s.lexed.next_code(endif.tokens.end - 1))
        .flatten();
    let (Some(b), Some(a)) = (before, after) else {
        return false;
    };
    if s.tok(b) != "{" || s.tok(a) != "}" || s.lexed.tokens[b].in_directive() {
        return false;
    }
    let open = s.lexed.tokens[b].start as usize;
    let Some(brace) = tree.root_node().descendant_for_byte_range(open, open + 1) else {
        return false;
    };
    let Some(body) = brace.parent() else {
        return false;
    };
    body.node_kind() == K::CompoundStatement
        && body.start_byte() == open
        && body.end_byte() == s.lexed.tokens[a].end as usize
        && body
            .parent()
            .is_some_and(|p| p.node_kind() == K::FunctionDefinition)
}

/// The name of the function around byte `at` (needs the tree).
/// A declarator the preprocessor splits (`void` / `#if …` / `__launch_bounds__(…)` / `#endif`
/// / `name(`) can parse with a directive's word as its name: then the name is the last one
/// before the body that opens a parameter list (not an attribute or specifier).
pub fn function_around<'a>(s: &Src<'a>, at: usize) -> Option<&'a str> {
    use crate::lex::Tok;
    let n = s.tree?.root_node().descendant_for_byte_range(at, at)?;
    let f = s.enclosing_function(n)?;
    let decl = f.field(crate::kinds::cuda::Field::Declarator)?;
    let name = super::syntax::function_name(s, decl)?;
    let toks = &s.lexed.tokens;
    let lo = toks.partition_point(|t| (t.start as usize) < f.start_byte());
    let hi = toks.partition_point(|t| (t.start as usize) < decl.end_byte());
    let split = toks[lo..hi].iter().any(|t| t.in_directive());
    if !split {
        return Some(name);
    }
    let code: Vec<usize> = (lo..hi)
        .filter(|&j| toks[j].kind != Tok::Comment && !toks[j].in_directive())
        .collect();
    code.windows(2)
        .filter(|w| {
            let t = s.tok(w[0]);
            toks[w[0]].kind == Tok::Ident
                && s.tok(w[1]) == "("
                && !t.starts_with("__")
                && !matches!(t, "noexcept" | "throw" | "decltype" | "alignas")
        })
        .last()
        .map(|w| s.tok(w[0]))
        .or(Some(name))
}

/// The condition's value when only the platform is known and HIP is `hip` (HIP macros only).
fn platform_only(s: &Src, d: &Directive, hip: bool) -> Option<i64> {
    let toks = cond::condition_tokens(s, d);
    match d.name.as_str() {
        "if" | "elif" => {
            if toks.iter().any(|t| cond::is_hip_macro(t)) {
                cond::eval_platform(&toks, hip)
            } else {
                None
            }
        }
        "ifdef" | "ifndef" | "elifdef" | "elifndef" => {
            let is_hip = toks.first().is_some_and(|n| cond::is_hip_macro(n));
            let neg = d.name.ends_with("ndef");
            is_hip.then_some((hip != neg) as i64)
        }
        _ => None,
    }
}

/// The side of a branch with HIP value `h` and CUDA-platform value `c`.
fn branch_side(
    h: Option<i64>,
    c: Option<i64>,
    toks: &[String],
    all_false_before: bool,
    cuda_taken_before: bool,
) -> Option<Side> {
    if h == Some(0) {
        return Some(Side::Never(dead_kind(toks)));
    }
    if c == Some(0) || (all_false_before && cuda_taken_before && h.is_some_and(|v| v != 0)) {
        return Some(Side::HipOnly);
    }
    None
}

/// What a `#define`/`#undef` directive makes of its macro: `#undef X` → undefined; `#define X
/// 800` → that value; `#define X` or any other body → defined, value not pinned. `None` for a
/// function-like macro (`#define X(a)`) or a directive with no name.
/// The file has a `#define` of `name` (anywhere).
pub fn defines_itself(s: &Src, name: &str) -> bool {
    s.lexed
        .directives
        .iter()
        .any(|d| d.name == "define" && definition(s, d).is_some_and(|(n, _)| n == name))
}

pub(crate) fn definition(s: &Src, d: &Directive) -> Option<(String, Known)> {
    let toks = cond::condition_tokens(s, d);
    let (name, rest) = toks.split_first()?;
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    if d.name == "undef" {
        return Some((name.to_string(), Known::Undefined));
    }
    let name_end = d
        .tokens
        .clone()
        .map(|j| s.lexed.tokens[j])
        .find(|t| t.text(s.bytes()) == name.as_bytes())?
        .end as usize;
    if s.bytes().get(name_end) == Some(&b'(') {
        return None;
    }
    let known = match rest {
        [v] => v
            .trim_end_matches(['u', 'U', 'l', 'L'])
            .parse::<i64>()
            .map_or(Known::Defined, Known::Value),
        _ => Known::Defined,
    };
    Some((name.to_string(), known))
}

/// The side of the code at byte `at`: the outermost dead branch around it wins (a HIP-only
/// branch inside a dead one is dead), then a HIP-only one: the one-offset reference [`sides_at`]
/// is tested against.
#[cfg(test)]
pub fn side_at(regions: &[Region], at: usize) -> Option<Side> {
    let around = || regions.iter().filter(|r| r.range.contains(&at));
    around()
        .filter(|r| matches!(r.side, Side::Never(_)))
        .min_by_key(|r| r.range.start)
        .or_else(|| around().next())
        .map(|r| r.side)
}

/// `side_at` for many offsets at once, in O((regions + offsets) log regions): one sweep over
/// the offsets in order with the regions around the current one kept in ordered sets (asking
/// `side_at` per finding walked every region each time, quadratic over a file).
pub fn sides_at(regions: &[Region], offsets: &[usize]) -> Vec<Option<Side>> {
    regions_at(regions, offsets)
        .into_iter()
        .map(|r| r.map(|i| regions[i].side))
        .collect()
}

/// [`sides_at`] answering with the index of the deciding region in `regions`, so that a finding
/// can name the condition ([`dead_note`]).
pub fn regions_at(regions: &[Region], offsets: &[usize]) -> Vec<Option<usize>> {
    use std::cmp::Reverse;
    use std::collections::{BTreeSet, BinaryHeap};
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&i| offsets[i]);
    let mut by_start: Vec<usize> = (0..regions.len()).collect();
    by_start.sort_by_key(|&r| regions[r].range.start);
    let mut ends: BinaryHeap<Reverse<(usize, usize)>> = BinaryHeap::new();
    let mut never: BTreeSet<(usize, usize)> = BTreeSet::new();
    let mut all: BTreeSet<usize> = BTreeSet::new();
    let mut next = 0;
    let mut out = vec![None; offsets.len()];
    for i in order {
        let at = offsets[i];
        while next < by_start.len() && regions[by_start[next]].range.start <= at {
            let r = by_start[next];
            let reg = &regions[r];
            ends.push(Reverse((reg.range.end, r)));
            all.insert(r);
            if matches!(reg.side, Side::Never(_)) {
                never.insert((reg.range.start, r));
            }
            next += 1;
        }
        while let Some(&Reverse((end, r))) = ends.peek() {
            if end > at {
                break;
            }
            ends.pop();
            all.remove(&r);
            never.remove(&(regions[r].range.start, r));
        }
        out[i] = never
            .first()
            .map(|&(_, r)| r)
            .or_else(|| all.first().copied());
    }
    out
}

/// Words for a finding in a branch HIP never compiles: the directive that decides it, as
/// written (whitespace collapsed, at most 100 characters), and its 1-based line; and why a
/// macro it tests is undefined there when only the CUDA build defines it
/// ([`super::project::Visible::cuda_build_only`]) or selects the CUDA backend
/// ([`super::project::Visible::cuda_selectors`]).
pub fn dead_note(s: &Src, r: &Region, seen: &super::project::Visible) -> String {
    let mut note = format!(
        "compiled out under HIP: decided by `{}` (line {})",
        directive_text(s, r.decider.clone()),
        s.line(r.decider.start) + 1
    );
    let text = String::from_utf8_lossy(&s.bytes()[r.decider.clone()]);
    let tested = text
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find_map(|w| {
            seen.cuda_build_only
                .get_key_value(w)
                .map(|(n, why)| {
                    let other = super::project::other_languages::OTHER_LANGUAGE;
                    match why.split_once(other) {
                        Some((_, w)) => format!("; `{n}` is {other}{w}"),
                        None => format!("; only the CUDA build defines `{n}`: {why}"),
                    }
                })
                .or_else(|| {
                    seen.cuda_selectors
                        .get_key_value(w)
                        .map(|(n, why)| format!("; `{n}` is 0 in the ROCm build: {why}"))
                })
        });
    if let Some(why) = tested {
        note.push_str(&why);
    }
    note
}

/// A directive's text with whitespace and line continuations collapsed, cut at 100 characters.
pub fn directive_text(s: &Src, r: Range<usize>) -> String {
    let raw = String::from_utf8_lossy(&s.bytes()[r]);
    let words: Vec<&str> = raw
        .split(|c: char| c.is_whitespace() || c == '\\')
        .filter(|w| !w.is_empty())
        .collect();
    let mut t = words.join(" ").replacen("# ", "#", 1);
    if t.chars().count() > 100 {
        t = t.chars().take(99).collect::<String>() + "…";
    }
    t
}

#[cfg(test)]
mod tests;
