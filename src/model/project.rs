//! What a project defines for itself, across the files a unit includes. A per-file look cannot
//! see that `compat.cuh` defines `__stwb` under `#if defined(USE_ROCM)`, that `utils.h` fixes
//! `static const int WS = 32;`, or that `#define NUM_WARPS (1024 / warpSize)` sits in a header:
//! the file that uses the name is another one. This module collects, per file and from its
//! tokens only, the facts another file may depend on, and answers for one unit what the project
//! files it includes (transitively, see [`super::includes`]) define.
//!
//! Facts: project includes (quoted, and angled ones under the include roots); macros, with the arm that defines them (the ROCm arm of a platform
//! test, a CUDA-only arm, or both/unknown, as `rules::hipside` evaluates the branches);
//! functions defined or declared in a ROCm arm (name and parameter text: enough to see a compat
//! shim collide); file-scope integer constants (`static const int WS = 32;`,
//! `constexpr int kWarp = 32;`, `#define WARP 32`) outside CUDA-only arms; object-like macros
//! whose body names `warpSize`.
//!
//! Promises: a name defined with two different values in the included files is no constant
//! (ambiguous, never guessed); a definition in a CUDA-only arm never counts as the ROCm build's;
//! the unit's own definitions stay the per-file rules' business (they are not repeated here).

use super::includes::{self, Graph};
use crate::model::hipside::{self, Side};
use std::collections::{BTreeMap, BTreeSet};

/// Which builds compile a definition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arm {
    /// Only the ROCm build (`#ifdef USE_ROCM`, `#if defined(__HIP_PLATFORM_AMD__)`).
    Rocm,
    /// Never the ROCm build (`#ifndef USE_ROCM`, `#if CUDA_VERSION >= 11000`).
    Cuda,
    /// Both, or a condition on a macro the model does not know.
    Both,
}

/// A `#define` of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Macro {
    pub name: String,
    /// 1-based.
    pub line: u32,
    pub arm: Arm,
    /// The parameter text of a function-like macro (`dst, src`), `None` for an object-like one.
    pub params: Option<String>,
    /// The replacement text, whitespace folded, at most 120 bytes.
    pub body: String,
    /// The body names `warpSize` (object-like macros only).
    pub warp_size: bool,
    /// The body is a test of CUDA-side macros HIP decides (`(defined(CUDART_VERSION) &&
    /// CUDART_VERSION >= 11000)`): its value under HIP-Clang and whether it reads
    /// `__CUDA_ARCH__` (object-like macros only).
    pub hip_test: Option<(i64, bool)>,
}

/// A function defined or declared in a ROCm arm.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    pub line: u32,
    /// The parameter text, tokens joined by one space (`half2 * address , half2 val`).
    pub params: String,
}

/// A file-scope integer constant compiled by the ROCm build.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Constant {
    pub name: String,
    pub line: u32,
    pub value: u64,
}

/// The facts of one file another file may depend on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FileFacts {
    pub includes: Vec<String>,
    /// The includes written in an arm only the ROCm build compiles (`#if defined(GGML_USE_HIP)`
    /// / `#include "vendors/hip.h"`), as [`includes::written`] gives them.
    pub rocm_includes: Vec<String>,
    /// Functions defined or declared where both builds (or an unknown condition) compile them:
    /// the ROCm build's own when the file is one only ROCm arms include (the project's ROCm layer).
    pub plain_functions: Vec<Function>,
    pub macros: Vec<Macro>,
    /// The names a configured header's template writes in every configuration
    /// (`#cmakedefine01 NAME` in `config.h.in`).
    pub configured01: Vec<String>,
    pub rocm_functions: Vec<Function>,
    pub constants: Vec<Constant>,
    /// Functions declared under CUDA-API names in the project's own scopes ([`super::own`]).
    pub own: Vec<super::own::OwnDef>,
    /// The file includes a CUDA header.
    pub cuda_headers: bool,
    /// Project macros whose HIP value a CUDA-side test fixes ([`super::hip_pins`]).
    pub hip_pins: Vec<super::hip_pins::HipPin>,
    /// Functions declared at namespace scope with a 32-bit integer return type
    /// (`__device__ constexpr uint32_t shfl_mask(int n)`): a mask they return is 32 bits.
    pub narrow_returns: Vec<String>,
    /// Names declared as integer types of 32 bits or fewer (`typedef uint32_t PxU32;`).
    pub narrow_types: Vec<String>,
    /// Functions whose lanes are 32-lane logical warps and whose warp-level calls `port`
    /// rewrites safely (llm.c's `warpReduceSum` in `dev/cuda/common.h`): a caller in another
    /// file that counts warps of 32 keeps CUDA's meaning with them.
    pub logical32: Vec<String>,
    /// Functions whose warp-level work is an inline-PTX shuffle, and the line of the first.
    pub ptx_shuffles: Vec<(String, u32)>,
    /// Functions returning the compute capability as one number (`major * 10 + minor`), with
    /// the scale (10 or 100).
    pub capability_fns: Vec<(String, u64)>,
    /// Function-like macros whose body does warp-level work (`#define SUM(x) WarpReduce(x)`).
    pub warp_work_macros: Vec<String>,
    /// Functions whose body only returns a ballot ([`ballot_functions`]): name, the ballot,
    /// line.
    pub ballot_fns: Vec<(String, String, u32)>,
    /// Functions whose body only returns a shuffle of one direction ([`shuffle_functions`]):
    /// name, the direction's mask-less intrinsic, line.
    pub shuffle_fns: Vec<(String, String, u32)>,
    /// The functions the file defines and what each calls (dropped once the model is built).
    pub fn_calls: Vec<FnCalls>,
    /// Another backend's switches a chain of this file tests as alternatives to the project's
    /// ROCm switch (`MFEM_USE_CUDA` beside `MFEM_USE_HIP`), with their lines
    /// ([`hipside::alternative_backends`]).
    pub other_backends: Vec<(String, u32)>,
    /// The single-name tests of project ROCm switches and other backends' switches
    /// ([`hipside::backend_tests`]), with their lines: paired across files into CUDA twins.
    pub backend_tests: Vec<(String, u32)>,
    /// Macros the file defines only where the device pass alone compiles
    /// ([`super::device_arms::macros`]: pbrt-v4's `PBRT_IS_GPU_CODE`).
    pub device_macros: Vec<String>,
}

impl FileFacts {
    /// Nothing another file could use.
    fn is_inert(&self) -> bool {
        self.includes.is_empty()
            && self.own.is_empty()
            && self.narrow_returns.is_empty()
            && self.narrow_types.is_empty()
            && self.logical32.is_empty()
            && self.ptx_shuffles.is_empty()
            && self.capability_fns.is_empty()
            && self.warp_work_macros.is_empty()
            && self.ballot_fns.is_empty()
            && self.shuffle_fns.is_empty()
            && self.hip_pins.is_empty()
            && self.other_backends.is_empty()
            && self.backend_tests.is_empty()
            && self.device_macros.is_empty()
            && !self.cuda_headers
            && self.rocm_functions.is_empty()
            && self.constants.is_empty()
            && !self
                .macros
                .iter()
                .any(|m| m.arm == Arm::Rocm || m.warp_size || names_thread_index(m))
    }
}

/// An object-like macro whose body names a thread index (`threadIdx`).
fn names_thread_index(m: &Macro) -> bool {
    m.params.is_none()
        && m.body
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .any(|w| w == "threadIdx")
}

/// A definition the ROCm build of a unit sees in a file it includes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RocmDef {
    /// `compat.cuh:3`.
    pub at: String,
    /// Parameter text (functions, function-like macros).
    pub params: Option<String>,
    pub function: bool,
}

/// What the project files a unit includes define, for the unit's rules and translation.
#[derive(Debug, Default)]
pub struct Visible {
    /// Names defined for the ROCm build (macros in a ROCm arm, functions under a ROCm switch).
    pub rocm: BTreeMap<String, Vec<RocmDef>>,
    /// Integer constants with one value in every included file: value and `path:line`.
    pub constants: BTreeMap<String, (u64, String)>,
    /// Object-like macros whose body names `warpSize`: body and `path:line`.
    pub warp_macros: BTreeMap<String, (String, String)>,
    /// Object-like macros whose body names a thread index (`#define WARP_ID (threadIdx.x >> 5)`):
    /// body and `path:line`. The logical-warp model reads their lane arithmetic.
    pub lane_macros: BTreeMap<String, (String, String)>,
    /// Functions the included files declare under CUDA-API names in the project's own scopes.
    pub own: BTreeMap<String, Vec<super::own::OwnRef>>,
    /// An included project file includes a CUDA header.
    pub cuda_headers: bool,
    /// Member functions under CUDA-API names that any header of the project declares.
    pub members: BTreeMap<String, Vec<super::own::OwnRef>>,
    /// CUDA-side macros the project's HIP build files define for every unit (`-DCUDA_VERSION=11000`
    /// in `makefiles/hip_64bit.mk`): what each is and `path:line` (see [`hip_build_defines`]).
    pub hip_build: BTreeMap<String, (super::macro_env::Known, String)>,
    /// Project macros only the CUDA build defines, by its CMake files (hoomd-blue's
    /// `CUSOLVER_AVAILABLE`, see [`crate::inventory::cmake::cuda_build_only_macros`]), with why;
    /// no project header defines them. The ROCm build leaves them undefined in a unit that does
    /// not define them itself.
    pub cuda_build_only: BTreeMap<String, String>,
    /// The CUDA backend's selectors: variables a CMake `if()` chain of the project tests as
    /// alternatives to their HIP twins (gromacs' `if(GMX_GPU_CUDA) … elseif(GMX_GPU_HIP)`),
    /// with why. As macros (`#if GMX_GPU_CUDA`, through a configured header or the compile
    /// definitions) they are 0 or undefined in the ROCm build: `#if` reads 0, `defined()` stays
    /// unknown.
    pub cuda_selectors: BTreeMap<String, String>,
    /// Project macros whose HIP value a CUDA-side test in an included file fixes: the pin and
    /// `path:line` (names pinned to two values are left out).
    pub hip_pins: BTreeMap<String, (super::hip_pins::HipPin, String)>,
    /// Functions the included files declare with a 32-bit integer return type.
    pub narrow_returns: BTreeSet<String>,
    /// Names the included files declare as integer types of 32 bits or fewer.
    pub narrow_types: BTreeSet<String>,
    /// Functions of the included files whose lanes are 32-lane logical warps, rewritten safely.
    pub logical32: BTreeSet<String>,
    /// Included functions whose warp-level work is an inline-PTX shuffle: `path:line` of it.
    pub ptx_shuffles: BTreeMap<String, String>,
    /// Functions of the included files returning the compute capability as one number, with
    /// the scale.
    pub capability_fns: BTreeMap<String, u64>,
    /// Function-like macros of the included files whose body does warp-level work.
    pub warp_work_macros: BTreeSet<String>,
    /// The project's functions that do warp-level work, in any header.
    pub warp_fns: Option<std::sync::Arc<BTreeSet<String>>>,
    /// Function-like macros of the included files whose body is a ballot
    /// (`#define BALLOT(P) __ballot_sync(FULL_MASK, P)`): body and `path:line`.
    pub ballot_macros: BTreeMap<String, (String, String)>,
    /// Functions of the included files whose body only returns a shuffle of one direction
    /// (`aa_shfl_down`): the direction's mask-less intrinsic and `path:line`.
    pub shuffle_wrappers: BTreeMap<String, (String, String)>,
    /// Free functions under CUDA-API names that any header of the project defines in its own
    /// namespace (curobo's `__shfl_down_sync(unsigned, const CollisionPair&, const int&)`):
    /// argument-dependent lookup reaches them from unqualified calls anywhere.
    pub overloads: BTreeMap<String, Vec<super::own::OwnRef>>,
    /// Macros the included files define only where the device pass alone compiles
    /// ([`super::device_arms`]): their arms are device code.
    pub device_macros: BTreeSet<String>,
}

/// The empty view: a unit that includes no project file, or a run without a project model.
pub static NOTHING: Visible = Visible {
    rocm: BTreeMap::new(),
    constants: BTreeMap::new(),
    warp_macros: BTreeMap::new(),
    lane_macros: BTreeMap::new(),
    own: BTreeMap::new(),
    cuda_headers: false,
    members: BTreeMap::new(),
    hip_build: BTreeMap::new(),
    cuda_build_only: BTreeMap::new(),
    cuda_selectors: BTreeMap::new(),
    hip_pins: BTreeMap::new(),
    narrow_returns: BTreeSet::new(),
    narrow_types: BTreeSet::new(),
    logical32: BTreeSet::new(),
    ptx_shuffles: BTreeMap::new(),
    capability_fns: BTreeMap::new(),
    warp_work_macros: BTreeSet::new(),
    warp_fns: None,
    ballot_macros: BTreeMap::new(),
    shuffle_wrappers: BTreeMap::new(),
    overloads: BTreeMap::new(),
    device_macros: BTreeSet::new(),
};

impl Visible {
    pub fn is_empty(&self) -> bool {
        self.rocm.is_empty()
            && self.constants.is_empty()
            && self.warp_macros.is_empty()
            && self.lane_macros.is_empty()
            && self.own.is_empty()
            && self.members.is_empty()
            && !self.cuda_headers
            && self.hip_pins.is_empty()
            && self.ballot_macros.is_empty()
    }

    /// Where the project defines `name` for its ROCm build, if it does (the first definition).
    pub fn rocm_definition(&self, name: &str) -> Option<&RocmDef> {
        self.rocm.get(name).and_then(|d| d.first())
    }

    /// Where the project defines function `name` for its ROCm build with one of `types` among
    /// its parameters (an overload a compat shim would duplicate).
    pub fn rocm_overload(&self, name: &str, types: &[String]) -> Option<&RocmDef> {
        self.rocm.get(name)?.iter().find(|d| {
            let params = d.params.as_deref().unwrap_or("");
            types.is_empty()
                || params
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .any(|w| types.iter().any(|t| t == w))
        })
    }
}

/// The facts of one lexed file (tokens only: no tree, no second read).
pub fn facts(path: &str, bytes: &[u8], lexed: &crate::lex::Lexed) -> FileFacts {
    let own = super::own::sweep_with(path, bytes, lexed, crate::mappings::get());
    // The file's ballot and shuffle wrappers, in one pass.
    let wrappers = warp_wrappers(bytes, lexed);
    FileFacts {
        own: own.defs,
        cuda_headers: own.cuda_headers,
        narrow_returns: crate::rules::warp_size::logical::narrow_returns(bytes, lexed),
        narrow_types: crate::rules::warp_size::logical::narrow_types(bytes, lexed),
        logical32: crate::rules::warp_size::logical::logical32_helpers(path, bytes, lexed),
        ptx_shuffles: crate::rules::warp_size::ptx_lanes::ptx_shuffle_fns(bytes, lexed),
        capability_fns: crate::rules::arch_check::capability_functions(bytes, lexed),
        warp_work_macros: crate::rules::warp_size::logical::warp_work_macros(bytes, lexed),
        ballot_fns: wrappers.0,
        shuffle_fns: wrappers.1,
        fn_calls: crate::rules::warp_size::logical::function_calls(bytes, lexed),
        configured01: configured01(path, bytes),
        ..facts_of_arms(path, bytes, lexed)
    }
}

/// [`facts`] without the project's own CUDA-named definitions.
fn facts_of_arms(path: &str, bytes: &[u8], lexed: &crate::lex::Lexed) -> FileFacts {
    let included = includes::written_at(bytes, lexed);
    let includes: Vec<String> = included.iter().map(|(_, p)| p.clone()).collect();
    let wanted = lexed.directives.iter().any(|d| d.name == "define")
        || lexed.tokens.iter().any(|t| {
            t.kind == crate::lex::Tok::Ident && matches!(t.text(bytes), b"const" | b"constexpr")
        })
        || lexed.directives.iter().any(|d| d.name.starts_with("if"));
    if !wanted {
        return FileFacts {
            includes,
            ..FileFacts::default()
        };
    }
    crate::model::cuda_side::with_src(path, bytes, lexed, |s| {
        let line = |at: usize| s.line(at) as u32 + 1;
        let text = |i: usize| lexed.tokens[i].text(bytes);
        // Candidates first (with their offsets), then the arm of each in one sweep.
        let mut macros = Vec::new();
        for d in lexed.directives.iter().filter(|d| d.name == "define") {
            if let Some(m) = define(bytes, lexed, d, Arm::Both, line(d.start)) {
                macros.push((d.start, m));
            }
        }
        let mut constants = Vec::new();
        let mut functions = Vec::new();
        // File-scope declarations: brace depth counted only through namespaces and
        // `extern "C"` blocks.
        let code: Vec<usize> = lexed.code_tokens().map(|(i, _)| i).collect();
        let mut scopes: Vec<bool> = Vec::new();
        for (k, &i) in code.iter().enumerate() {
            match text(i) {
                b"{" => {
                    let prev = |n: usize| k.checked_sub(n).map(|p| text(code[p]));
                    // `namespace a {`, `namespace a::b {`, `namespace EXPORT_MACRO a {`.
                    let ns = (1..=8)
                        .map_while(|n| {
                            prev(n).filter(|p| {
                                p.first().is_some_and(|c| {
                                    c.is_ascii_alphabetic() || *c == b'_' || *c == b':'
                                })
                            })
                        })
                        .any(|p| p == b"namespace")
                        || prev(1).is_some_and(|p| p == b"\"C\"" || p == b"\"C++\"");
                    scopes.push(ns);
                    continue;
                }
                b"}" => {
                    scopes.pop();
                    continue;
                }
                _ => {}
            }
            if lexed.tokens[i].kind != crate::lex::Tok::Ident {
                continue;
            }
            let at = lexed.tokens[i].start as usize;
            if scopes.iter().all(|&ns| ns) {
                if let Some(c) = super::const_expr::declared(bytes, lexed, &code, k) {
                    constants.push((at, c));
                }
            }
            if let Some(f) = function(bytes, lexed, &code, k) {
                functions.push((at, f));
            }
        }
        let offsets: Vec<usize> = macros
            .iter()
            .map(|(a, _)| *a)
            .chain(constants.iter().map(|(a, _)| *a))
            .chain(functions.iter().map(|(a, _)| *a))
            .chain(included.iter().map(|(a, _)| *a))
            .collect();
        let regions = hipside::regions(s);
        let hip_pins = super::hip_pins::pins(s);
        let other_backends = hipside::alternative_backends(s)
            .into_iter()
            .map(|(n, at)| (n, line(at)))
            .collect();
        let mut arms = hipside::sides_at(&regions, &offsets)
            .into_iter()
            .map(|side| match side {
                Some(Side::HipOnly) => Arm::Rocm,
                Some(Side::Never(_)) => Arm::Cuda,
                None => Arm::Both,
            });
        let backend_tests = hipside::backend_tests(s)
            .into_iter()
            .map(|(n, at)| (n, line(at)))
            .collect();
        let mut out = FileFacts {
            includes,
            device_macros: super::device_arms::macros(s.bytes(), s.lexed),
            hip_pins,
            other_backends,
            backend_tests,
            ..FileFacts::default()
        };
        for (_, mut m) in macros {
            m.arm = arms.next().unwrap_or(Arm::Both);
            if m.params.is_none() && m.arm != Arm::Cuda {
                let known = |n: &str| {
                    let c = out.constants.iter().rev().find(|c| c.name == n);
                    c.map(|c| c.value)
                };
                if let Some(v) = super::const_expr::eval(&m.body, &known) {
                    out.constants.push(Constant {
                        name: m.name.clone(),
                        line: m.line,
                        value: v,
                    });
                }
            }
            out.macros.push(m);
        }
        for (at, c) in constants {
            if arms.next() != Some(Arm::Cuda) {
                out.constants.push(Constant {
                    line: line(at),
                    ..c
                });
            }
        }
        for (at, f) in functions {
            let f = Function {
                line: line(at),
                ..f
            };
            match arms.next() {
                Some(Arm::Rocm) => out.rocm_functions.push(f),
                Some(Arm::Both) => out.plain_functions.push(f),
                _ => {}
            }
        }
        for (_, p) in &included {
            if arms.next() == Some(Arm::Rocm) {
                out.rocm_includes.push(p.clone());
            }
        }
        out.constants.sort_by(|a, b| a.name.cmp(&b.name));
        out
    })
}

/// One `#define`: its name, parameters and body.
fn define(
    bytes: &[u8],
    lexed: &crate::lex::Lexed,
    d: &crate::lex::Directive,
    arm: Arm,
    line: u32,
) -> Option<Macro> {
    let toks: Vec<usize> = d
        .tokens
        .clone()
        .filter(|&j| lexed.tokens[j].kind != crate::lex::Tok::Comment)
        .collect();
    // `#`, `define`, NAME, …
    let &name_tok = toks.get(2)?;
    let name = std::str::from_utf8(lexed.tokens[name_tok].text(bytes)).ok()?;
    if lexed.tokens[name_tok].kind != crate::lex::Tok::Ident {
        return None;
    }
    let mut body_from = 3;
    let mut params = None;
    if bytes.get(lexed.tokens[name_tok].end as usize) == Some(&b'(') {
        let close = toks
            .iter()
            .position(|&j| lexed.tokens[j].text(bytes) == b")")?;
        params = Some(join_tokens(bytes, lexed, &toks[4.min(close)..close]));
        body_from = close + 1;
    }
    let body_toks = toks.get(body_from..).unwrap_or(&[]);
    let warp_size = params.is_none()
        && body_toks
            .iter()
            .any(|&j| lexed.tokens[j].text(bytes) == b"warpSize");
    let hip_test = if params.is_none() {
        let t = super::cond::condition_tokens_of(bytes, lexed, d);
        super::hip_pins::hip_test(t.get(1..).unwrap_or(&[]))
    } else {
        None
    };
    let mut body = match (body_toks.first(), body_toks.last()) {
        (Some(&a), Some(&b)) => {
            let raw = &bytes[lexed.tokens[a].start as usize..lexed.tokens[b].end as usize];
            String::from_utf8_lossy(raw)
                .split_whitespace()
                .filter(|w| *w != "\\")
                .collect::<Vec<_>>()
                .join(" ")
        }
        _ => String::new(),
    };
    if body.len() > 120 {
        let mut cut = 120;
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        body.truncate(cut);
    }
    Some(Macro {
        name: name.to_string(),
        line,
        arm,
        params,
        body,
        warp_size,
        hip_test,
    })
}

/// The project model: the facts of the files other files can include, and the include graph.
#[derive(Debug, Default)]
pub struct Project {
    files: BTreeMap<String, FileFacts>,
    graph: Graph,
    lookup: includes::Lookup,
    /// Every file of the run (relative paths), for include resolution.
    known: BTreeSet<String>,
    /// Member functions under CUDA-API names declared in any header, by name.
    members: BTreeMap<String, Vec<super::own::OwnRef>>,
    /// Namespace-scope functions under CUDA-API names defined in any header ([`Visible::overloads`]).
    overloads: BTreeMap<String, Vec<super::own::OwnRef>>,
    /// CUDA-side macros the project's HIP build files define ([`hip_build_defines`]).
    pub hip_build: BTreeMap<String, (super::macro_env::Known, String)>,
    /// Project macros only the CUDA build's CMake arms define ([`Visible::cuda_build_only`]).
    cuda_build_only: BTreeMap<String, String>,
    /// The CUDA backend's selectors ([`Visible::cuda_selectors`]).
    cuda_selectors: BTreeMap<String, String>,
    /// Every macro name a header of the project defines.
    header_macros: BTreeSet<String>,
    /// The project's ROCm layer: headers every project header that includes them includes in
    /// an arm only the ROCm build compiles (ggml's `vendors/hip.h` under
    /// `#if defined(GGML_USE_HIP)`), and at least one does. What they define is the ROCm
    /// build's, whatever their own conditions say. Sources (`.cu`) are not read by the
    /// pre-pass: a source including such a header directly is not seen.
    rocm_only: BTreeSet<String>,
    /// Project switches every definition of which (in any header) is a test HIP finds false
    /// (dgl's `BF16_ENABLED`, defined only under `#ifdef DGL_USE_CUDA` in a header the kernels
    /// do not include themselves): `#if NAME` is 0 under HIP whether or not a unit defines it.
    /// Value: the first definition's `path:line` and whether the test reads `__CUDA_ARCH__`.
    zero_tests: BTreeMap<String, (String, bool)>,
    /// Other backends' switches that a header's chain tests as alternatives to the project's
    /// ROCm switch (mfem's `MFEM_USE_CUDA` beside `MFEM_USE_HIP`): the ROCm build leaves them
    /// undefined in every unit, including units that test them alone (`#if
    /// defined(MFEM_USE_CUDA)` around CUDA-only code). Value: the first such chain's
    /// `path:line`.
    other_backends: BTreeMap<String, String>,
    /// The functions of the project's headers that do warp-level work ([`derived::warp_fns`]).
    warp_fns: std::sync::Arc<BTreeSet<String>>,
}

fn own_ref(file: &str, d: &super::own::OwnDef) -> super::own::OwnRef {
    super::own::OwnRef {
        at: format!("{file}:{}", d.line),
        scope: d.scope.clone(),
        member: d.member,
        body: d.body,
        arity: d.arity,
    }
}

/// The extensions of files a unit includes: the pre-pass reads these.
pub fn is_header(rel: &str) -> bool {
    crate::walk::is_header(rel)
}

impl Project {
    /// A model from facts already collected (`(relative path, facts)`), with `all` the relative
    /// paths of every file of the run.
    pub fn from_facts<'a>(
        facts: Vec<(String, FileFacts)>,
        all: impl Iterator<Item = &'a str>,
    ) -> Project {
        let known: BTreeSet<String> = all.map(|s| s.to_string()).collect();
        let lookup = includes::Lookup::new(known.iter().map(|s| s.as_str()));
        let mut files = BTreeMap::new();
        let mut graph = Graph::default();
        let mut members: BTreeMap<String, Vec<super::own::OwnRef>> = BTreeMap::new();
        let mut overloads: BTreeMap<String, Vec<super::own::OwnRef>> = BTreeMap::new();
        let mut included_only_by_rocm: BTreeMap<String, bool> = BTreeMap::new();
        let zero_tests = zero_tests(&facts);
        let warp_fns = std::sync::Arc::new(warp_fns(&facts));
        let mut other_backends: BTreeMap<String, String> = BTreeMap::new();
        for (rel, f) in &facts {
            for (n, line) in &f.other_backends {
                other_backends
                    .entry(n.clone())
                    .or_insert_with(|| format!("{rel}:{line}"));
            }
        }
        // CUDA switches whose HIP twin some file of the project tests (`RAJA_ENABLE_CUDA`
        // beside `RAJA_ENABLE_HIP`): off in the ROCm build, at their first test.
        let tested: BTreeMap<&str, String> = facts
            .iter()
            .flat_map(|(rel, f)| {
                f.backend_tests
                    .iter()
                    .map(move |(n, line)| (n.as_str(), format!("{rel}:{line}")))
            })
            .rev()
            .collect();
        for n in hipside::cuda_twins(tested.keys().copied()) {
            other_backends
                .entry(n.to_string())
                .or_insert_with(|| tested[n].clone());
        }
        // A template's fallback for a name it writes in every configuration (`#ifndef X` /
        // `#define X …` after `#cmakedefine01 X`) never applies.
        let header_macros: BTreeSet<String> = facts
            .iter()
            .flat_map(|(_, f)| {
                f.macros
                    .iter()
                    .filter(|m| !f.configured01.contains(&m.name))
                    .map(|m| m.name.clone())
            })
            .collect();
        for (rel, mut f) in facts {
            f.fn_calls = Vec::new();
            if f.is_inert() {
                continue;
            }
            let exists = |p: &str| known.contains(p);
            let edges: Vec<String> = f
                .includes
                .iter()
                .filter_map(|i| lookup.resolve(&rel, i, &exists))
                .collect();
            let rocm: BTreeSet<String> = f
                .rocm_includes
                .iter()
                .filter_map(|i| lookup.resolve(&rel, i, &exists))
                .collect();
            for e in &edges {
                let only = rocm.contains(e);
                let v = included_only_by_rocm.entry(e.clone()).or_insert(true);
                *v &= only;
            }
            if !edges.is_empty() {
                graph.edges.insert(rel.clone(), edges);
            }
            for d in &f.own {
                let to = if d.member {
                    &mut members
                } else if d.body && !d.scope.is_empty() {
                    &mut overloads
                } else {
                    continue;
                };
                to.entry(d.name.clone()).or_default().push(own_ref(&rel, d));
            }
            files.insert(rel, f);
        }
        Project {
            files,
            graph,
            lookup,
            known,
            members,
            overloads,
            hip_build: BTreeMap::new(),
            cuda_build_only: BTreeMap::new(),
            cuda_selectors: BTreeMap::new(),
            header_macros,
            zero_tests,
            other_backends,
            warp_fns,
            rocm_only: included_only_by_rocm
                .into_iter()
                .filter_map(|(f, only)| only.then_some(f))
                .collect(),
        }
    }

    /// Takes the macros only the CUDA build's CMake arms define
    /// ([`crate::inventory::cmake::cuda_build_only_macros`]) and the CUDA backend's selectors
    /// ([`Visible::cuda_selectors`]), each less the names a project header defines itself.
    pub fn set_cuda_build_macros(
        &mut self,
        macros: &BTreeMap<String, String>,
        selectors: &BTreeMap<String, String>,
    ) {
        let defined = &self.header_macros;
        let keep = |m: &BTreeMap<String, String>| -> BTreeMap<String, String> {
            m.iter()
                .filter(|(name, _)| !defined.contains(*name))
                .map(|(n, w)| (n.clone(), w.clone()))
                .collect()
        };
        self.cuda_build_only = keep(macros);
        self.cuda_selectors = keep(selectors);
    }

    /// The pre-pass of a run: the facts of every header among `inputs` (read and lexed, in
    /// parallel; a file that cannot be read is the pipeline's to report).
    pub fn of_inputs(inputs: &[crate::walk::Input], max_file_size: u64) -> Project {
        use rayon::prelude::*;
        let facts: Vec<(String, FileFacts)> = inputs
            .par_iter()
            .filter(|i| is_header(&i.rel))
            .filter_map(|i| {
                let text = crate::source::read(&i.path, max_file_size).ok()?;
                let f = crate::safety::guarded(|| {
                    let lexed = crate::lex::lex(&text.bytes);
                    facts(&i.rel, &text.bytes, &lexed)
                })
                .ok()?;
                Some((i.rel.clone(), f))
            })
            .collect();
        Project::from_facts(facts, inputs.iter().map(|i| i.rel.as_str()))
    }

    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    /// What a header of the project's ROCm layer ([`Project::rocm_only`]) defines outside its
    /// own platform tests: its macros and functions are the ROCm build's (the ones in its ROCm
    /// arms are added by the caller like any file's), and a CUDA-side macro it defines
    /// (`#define __CUDA_ARCH__ 1300`) is defined for the units that include it, as a `-D` of a
    /// HIP build file would be.
    fn rocm_layer(&self, f: &str, facts: &FileFacts, v: &mut Visible) {
        use super::macro_env::{Known, MacroEnv};
        let hip = MacroEnv::hip();
        for m in facts.macros.iter().filter(|m| m.arm == Arm::Both) {
            v.rocm.entry(m.name.clone()).or_default().push(RocmDef {
                at: format!("{f}:{}", m.line),
                params: m.params.clone(),
                function: false,
            });
            if m.params.is_none()
                && !super::cond::is_hip_macro(&m.name)
                && hip.lookup(&m.name).is_some()
            {
                let known = crate::model::syntax::int_value(&m.body)
                    .and_then(|x| i64::try_from(x).ok())
                    .map_or(Known::Defined, Known::Value);
                v.hip_build
                    .entry(m.name.clone())
                    .or_insert((known, format!("{f}:{}", m.line)));
            }
        }
        for func in &facts.plain_functions {
            v.rocm.entry(func.name.clone()).or_default().push(RocmDef {
                at: format!("{f}:{}", func.line),
                params: Some(func.params.clone()),
                function: true,
            });
        }
    }

    /// What the project files that `rel` includes (its includes `own`, as [`includes::written`] gives them, then
    /// transitively) define. `rel`'s own definitions are not in it.
    pub fn visible_from(&self, rel: &str, own: &[String]) -> Visible {
        let mut v = Visible {
            members: self.members.clone(),
            overloads: self.overloads.clone(),
            hip_build: self.hip_build.clone(),
            cuda_build_only: self.cuda_build_only.clone(),
            cuda_selectors: self.cuda_selectors.clone(),
            warp_fns: Some(self.warp_fns.clone()),
            ..Visible::default()
        };
        if self.files.is_empty() || own.is_empty() {
            self.add_zero_tests(&mut v);
            return v;
        }
        let exists = |p: &str| self.known.contains(p);
        let direct: Vec<String> = own
            .iter()
            .filter_map(|i| self.lookup.resolve(rel, i, &exists))
            .collect();
        let mut ambiguous: BTreeSet<String> = BTreeSet::new();
        let mut ambiguous_pins: BTreeSet<String> = BTreeSet::new();
        for f in self.graph.closure(&direct) {
            if f == rel {
                continue;
            }
            let Some(facts) = self.files.get(&f) else {
                continue;
            };
            if self.rocm_only.contains(&f) {
                self.rocm_layer(&f, facts, &mut v);
            }
            for m in &facts.macros {
                if m.arm == Arm::Rocm {
                    v.rocm.entry(m.name.clone()).or_default().push(RocmDef {
                        at: format!("{f}:{}", m.line),
                        params: m.params.clone(),
                        function: false,
                    });
                }
                if m.warp_size && m.arm != Arm::Cuda {
                    v.warp_macros
                        .entry(m.name.clone())
                        .or_insert_with(|| (m.body.clone(), format!("{f}:{}", m.line)));
                }
                if m.params.is_some() && is_ballot_body(&m.body) {
                    v.ballot_macros
                        .entry(m.name.clone())
                        .or_insert_with(|| (m.body.clone(), format!("{f}:{}", m.line)));
                }
                if names_thread_index(m) && m.arm != Arm::Cuda {
                    v.lane_macros
                        .entry(m.name.clone())
                        .or_insert_with(|| (m.body.clone(), format!("{f}:{}", m.line)));
                }
            }
            for func in &facts.rocm_functions {
                v.rocm.entry(func.name.clone()).or_default().push(RocmDef {
                    at: format!("{f}:{}", func.line),
                    params: Some(func.params.clone()),
                    function: true,
                });
            }
            v.cuda_headers |= facts.cuda_headers;
            v.device_macros.extend(facts.device_macros.iter().cloned());
            v.narrow_returns
                .extend(facts.narrow_returns.iter().cloned());
            v.narrow_types.extend(facts.narrow_types.iter().cloned());
            v.logical32.extend(facts.logical32.iter().cloned());
            for (name, line) in &facts.ptx_shuffles {
                v.ptx_shuffles
                    .entry(name.clone())
                    .or_insert_with(|| format!("{f}:{line}"));
            }
            v.capability_fns
                .extend(facts.capability_fns.iter().cloned());
            v.warp_work_macros
                .extend(facts.warp_work_macros.iter().cloned());
            for (name, family, line) in &facts.shuffle_fns {
                v.shuffle_wrappers
                    .entry(name.clone())
                    .or_insert_with(|| (family.clone(), format!("{f}:{line}")));
            }
            for (name, body, line) in &facts.ballot_fns {
                v.ballot_macros
                    .entry(name.clone())
                    .or_insert_with(|| (body.clone(), format!("{f}:{line}")));
            }
            for d in &facts.own {
                v.own
                    .entry(d.name.clone())
                    .or_default()
                    .push(own_ref(&f, d));
            }
            for p in &facts.hip_pins {
                match v.hip_pins.get(&p.name) {
                    Some((q, _)) if q.known != p.known => {
                        ambiguous_pins.insert(p.name.clone());
                    }
                    Some(_) => {}
                    None => {
                        v.hip_pins
                            .insert(p.name.clone(), (p.clone(), format!("{f}:{}", p.line)));
                    }
                }
            }
            for c in &facts.constants {
                match v.constants.get(&c.name) {
                    Some((value, _)) if *value != c.value => {
                        ambiguous.insert(c.name.clone());
                    }
                    Some(_) => {}
                    None => {
                        v.constants
                            .insert(c.name.clone(), (c.value, format!("{f}:{}", c.line)));
                    }
                }
            }
        }
        for n in ambiguous {
            v.constants.remove(&n);
        }
        for n in ambiguous_pins {
            v.hip_pins.remove(&n);
        }
        self.add_zero_tests(&mut v);
        v
    }
}

mod derived;
pub(crate) use derived::closing_paren;
pub use derived::{
    ballot_functions, is_ballot_body, shuffle_functions, warp_wrappers, FnCalls, Wrapper,
};
use derived::{configured01, function, join_tokens, warp_fns, zero_tests};
mod hip_build;
pub mod other_languages;
pub use hip_build::{drop_passed, hip_build_defines, is_hip_build_file};
#[cfg(test)]
mod tests;
