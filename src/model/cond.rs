//! A small evaluator for `#if` conditions, so that a finding can say which branch HIP compiles.
//! Three-valued: a macro the environment knows is undefined counts as 0, a known value as
//! itself, anything else makes the result unknown (and its branches stay live). Which macros a
//! HIP-Clang compile and a current CUDA build define is data, in [`super::macro_env`]; this
//! module only parses and evaluates.

use super::syntax::Src;
use crate::lex::{Directive, Lexed, Tok};

/// CUDA toolkit and nvcc macros HIP-Clang never defines: a name list kept for callers that only
/// ask "is this a known CUDA compiler macro" (`cuda_side`); every value comes from
/// [`super::macro_env`], and a test checks the two agree.
pub const UNDEFINED_UNDER_HIP: &[&str] = &[
    "CUDA_VERSION",
    "CUDART_VERSION",
    "__CUDACC_VER_MAJOR__",
    "__CUDACC_VER_MINOR__",
    "__CUDACC_VER_BUILD__",
    "__NVCC__",
    "__CUDACC__",
    "__CUDACC_RTC__",
    "__CUDA_ARCH__",
    "__CUDA_ARCH_LIST__",
    "__CUDA_API_VERSION",
    "__NVCOMPILER",
    "NVCC",
];

/// HIP-Clang's own platform macros, defined (as 1) in every compile for AMD.
pub(crate) const DEFINED_UNDER_HIP: &[&str] = &["__HIP_PLATFORM_AMD__", "__HIPCC__", "__HIP__"];

/// The index of the project's own HIP arm later in the chain of conditional directive `di`
/// (`#ifdef __NVCC__` … `#elif defined(__HIP__)`, glm's `#elif defined(__CUDACC__)` …
/// `#elif defined(__HIP__)`): an `#elif` on a HIP platform macro that is true for HIP, or an
/// `#elifdef` of one, at the chain's own depth before its `#else`/`#endif`. The test at `di`
/// then only keeps nvcc on its arm: the port leaves its names as written and HIP-Clang takes
/// the project's arm.
pub fn own_hip_arm_later(src: &[u8], lexed: &Lexed, di: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (j, d) in lexed.directives.iter().enumerate().skip(di + 1) {
        match d.name.as_str() {
            "if" | "ifdef" | "ifndef" => depth += 1,
            "endif" if depth == 0 => return None,
            "endif" => depth -= 1,
            "else" if depth == 0 => return None,
            "elif" if depth == 0 => {
                let t = condition_tokens_of(src, lexed, d);
                if t.iter().any(|n| is_hip_macro(n))
                    && eval_platform(&t, true).is_some_and(|v| v != 0)
                {
                    return Some(j);
                }
            }
            "elifdef" if depth == 0 => {
                let t = condition_tokens_of(src, lexed, d);
                if t.first().is_some_and(|n| is_hip_macro(n)) {
                    return Some(j);
                }
            }
            _ => {}
        }
    }
    None
}

/// The first conditional directive (index) of a file that opens its own arm for the HIP
/// compiler: a test of `__HIPCC__`, `__HIP__` or `__HIP_PLATFORM_AMD__` that no CUDA build takes
/// and HIP may (vendored Eigen 3.4's `#if defined(__HIPCC__) && !defined(EIGEN_NO_HIP)`), not
/// naming `__CUDACC__` itself, whose arm holds definitions or code, not only `#include`s (a
/// file that merely includes HIP's header under `__HIPCC__` has not ported itself). Such a
/// file splits CUDA and HIP itself: its `__CUDACC__` tests keep nvcc on the CUDA side, and
/// renamed to `__HIPCC__` they would send HIP-Clang into both sides (Eigen then defines
/// `EIGEN_CUDACC` and `EIGEN_HIPCC`, which it keeps mutually exclusive).
pub fn own_hip_compiler_arm(src: &[u8], lexed: &Lexed) -> Option<usize> {
    explicit_hip_compiler_arm(src, lexed).or_else(|| hip_arm_of_cudacc_test(src, lexed))
}

/// HIP's own spellings that current CUDA does not compile: the mask-less warp intrinsics (CUDA
/// removed them with Volta's `_sync` forms; HIP keeps them) and `hip…` API names.
fn hip_only_call(name: &[u8], next: Option<&[u8]>) -> bool {
    next == Some(b"(")
        && (matches!(
            name,
            b"__shfl"
                | b"__shfl_up"
                | b"__shfl_down"
                | b"__shfl_xor"
                | b"__ballot"
                | b"__any"
                | b"__all"
        ) || (name.starts_with(b"hip") && name.get(3).is_some_and(u8::is_ascii_uppercase)))
}

/// A `__CUDACC__` test whose other arm (the `#else` of `#if defined(__CUDACC__)`, or the arm of
/// `#if !defined(__CUDACC__)`) calls what only HIP compiles: the file's own HIP arm, written
/// for a file nvcc or hipcc compiles (cp2k's `grid_gpu_integrate.cu`: `#if defined(__CUDACC__)`
/// `__shfl_down_sync(0xffffffff, …)` `#else` `__shfl_down(val, offset)`). Renamed to
/// `__HIPCC__`, the test would send HIP-Clang into the CUDA side and skip the project's HIP
/// side (its `#if !defined(__CUDACC__)` / `__syncthreads()`).
fn hip_arm_of_cudacc_test(src: &[u8], lexed: &Lexed) -> Option<usize> {
    memchr::memmem::find(src, b"__CUDACC__")?;
    let dirs = &lexed.directives;
    for (k, d) in dirs.iter().enumerate() {
        if !matches!(d.name.as_str(), "if" | "ifdef" | "ifndef") {
            continue;
        }
        let t = condition_tokens_of(src, lexed, d);
        let negated = match (d.name.as_str(), &t[..]) {
            ("ifdef", ["__CUDACC__"]) => false,
            ("ifndef", ["__CUDACC__"]) => true,
            (
                "if",
                ["defined", "(", "__CUDACC__", ")"] | ["defined", "__CUDACC__"] | ["__CUDACC__"],
            ) => false,
            (
                "if",
                ["!", "defined", "(", "__CUDACC__", ")"]
                | ["!", "defined", "__CUDACC__"]
                | ["!", "__CUDACC__"],
            ) => true,
            _ => continue,
        };
        // The arm HIP-Clang takes: this one when negated, else the chain's `#else`.
        let mut depth = 0usize;
        let mut start = if negated { Some(d.end) } else { None };
        let mut end = None;
        for e in &dirs[k + 1..] {
            match e.name.as_str() {
                "if" | "ifdef" | "ifndef" => depth += 1,
                "else" if depth == 0 => {
                    if start.is_some() {
                        end = Some(e.start);
                        break;
                    }
                    start = Some(e.end);
                }
                "elif" | "elifdef" | "elifndef" if depth == 0 => {
                    if start.is_some() {
                        end = Some(e.start);
                    }
                    break;
                }
                "endif" if depth == 0 => {
                    end = Some(e.start);
                    break;
                }
                "endif" => depth -= 1,
                _ => {}
            }
        }
        let (Some(start), Some(end)) = (start, end) else {
            continue;
        };
        let first = lexed
            .tokens
            .partition_point(|tok| (tok.start as usize) < start);
        let code: Vec<&crate::lex::Token> = lexed.tokens[first..]
            .iter()
            .take_while(|tok| (tok.start as usize) < end)
            .filter(|tok| !tok.in_directive() && tok.kind != Tok::Comment)
            .collect();
        if code.iter().enumerate().any(|(j, tok)| {
            tok.kind == Tok::Ident
                && hip_only_call(&src[tok.range()], code.get(j + 1).map(|n| &src[n.range()]))
        }) {
            return Some(k);
        }
    }
    None
}

fn explicit_hip_compiler_arm(src: &[u8], lexed: &Lexed) -> Option<usize> {
    memchr::memmem::find(src, b"__HIP")?;
    let dirs = &lexed.directives;
    for (k, d) in dirs.iter().enumerate() {
        if !matches!(d.name.as_str(), "if" | "ifdef" | "elif" | "elifdef") {
            continue;
        }
        let mut t = condition_tokens_of(src, lexed, d);
        if d.name.ends_with("def") {
            t = [&["defined", "("][..], &t[..t.len().min(1)], &[")"]].concat();
        }
        if !t.iter().any(|n| DEFINED_UNDER_HIP.contains(n))
            || t.contains(&"__CUDACC__")
            || eval_platform(&t, false) != Some(0)
            || eval_platform(&t, true) == Some(0)
        {
            continue;
        }
        // The arm: up to the next directive of the same chain.
        let mut depth = 0usize;
        let mut end = src.len();
        let mut holds = false;
        for e in &dirs[k + 1..] {
            match e.name.as_str() {
                "if" | "ifdef" | "ifndef" => depth += 1,
                "endif" | "elif" | "else" | "elifdef" | "elifndef" if depth == 0 => {
                    end = e.start;
                    break;
                }
                "endif" => depth -= 1,
                "define" | "undef" | "error" => holds = true,
                _ => {}
            }
        }
        let first = lexed
            .tokens
            .partition_point(|tok| (tok.start as usize) < d.end);
        holds = holds
            || lexed.tokens[first..]
                .iter()
                .take_while(|tok| (tok.start as usize) < end)
                .any(|tok| !tok.in_directive() && tok.kind != Tok::Comment);
        if holds {
            return Some(k);
        }
    }
    None
}

/// The condition tokens of a directive (after `#if`/`#elif`), with multi-byte operators merged.
pub fn condition_tokens<'a>(s: &Src<'a>, d: &Directive) -> Vec<&'a str> {
    condition_tokens_of(s.bytes(), s.lexed, d)
}

/// [`condition_tokens`] from the bytes and tokens of a file (for the translator, which has no
/// [`Src`]).
pub fn condition_tokens_of<'a>(src: &'a [u8], lexed: &Lexed, d: &Directive) -> Vec<&'a str> {
    let toks: Vec<usize> = lexed.directive_words(d).into_iter().skip(2).collect();
    let mut out: Vec<&'a str> = Vec::new();
    let mut last_end = usize::MAX;
    let mut last_start = 0usize;
    for j in toks {
        let t = lexed.tokens[j];
        let (st, en) = (t.start as usize, t.end as usize);
        let joinable = t.kind == Tok::Punct
            && last_end == st
            && out.last().is_some_and(|p| {
                // A token that is not UTF-8 (`#if \377=`) is the empty string here.
                p.len() == 1
                    && matches!(
                        (p.as_bytes()[0], src[st]),
                        (b'>' | b'<' | b'=' | b'!', b'=')
                            | (b'&', b'&')
                            | (b'|', b'|')
                            | (b'<', b'<')
                            | (b'>', b'>')
                    )
            });
        if joinable {
            out.pop();
            out.push(std::str::from_utf8(&src[last_start..en]).unwrap_or(""));
        } else {
            let text = std::str::from_utf8(&src[st..en]).unwrap_or("");
            out.push(alternative_token(text).unwrap_or(text));
            last_start = st;
        }
        last_end = en;
    }
    out
}

/// C++'s alternative tokens as the operators they spell (`#if __CUDA_ARCH__ < 600 and
/// defined(__CUDA_ARCH__)`, neural_renderer and SoftRas): [lex.digraph].
fn alternative_token(t: &str) -> Option<&'static str> {
    Some(match t {
        "and" => "&&",
        "or" => "||",
        "not" => "!",
        "not_eq" => "!=",
        "bitand" => "&",
        "bitor" => "|",
        "xor" => "^",
        "compl" => "~",
        _ => return None,
    })
}

/// The value of a condition under HIP-Clang, `None` when it depends on something unknown.
pub fn eval_under_hip(toks: &[&str]) -> Option<i64> {
    super::macro_env::MacroEnv::hip().eval(toks)
}

/// The value of a condition in nvcc's device pass for a current NVIDIA GPU (CUDA 12.8,
/// sm_90): the branch that GPU compiles. The current CUDA build of
/// [`super::macro_env::MacroEnv::cuda`] with `__CUDA_ARCH__` fixed to 900.
pub fn eval_current_nvcc(toks: &[&str]) -> Option<i64> {
    eval_nvcc_at(toks, 900)
}

/// The GPU architectures a current CUDA toolkit compiles for, oldest first, as `__CUDA_ARCH__`
/// values: Turing (sm_75) to Blackwell. CUDA 13.0 dropped sm_50–sm_72 (Maxwell, Pascal, Volta)
/// and kept sm_75: <https://docs.nvidia.com/cuda/archive/13.0.0/cuda-toolkit-release-notes/index.html>
/// ("Deprecated Architectures"), <https://github.com/NVIDIA/cuDecomp/pull/97> ("CUDA 13.0
/// dropped support for Volta (SM70), but not Turing (SM75)").
pub const CURRENT_NVIDIA_ARCHS: [i64; 9] = [750, 800, 860, 870, 890, 900, 1000, 1100, 1200];

/// The value of a condition in nvcc's device pass for the GPU architecture `arch` (a
/// `__CUDA_ARCH__` value) with a current CUDA toolkit.
pub fn eval_nvcc_at(toks: &[&str], arch: i64) -> Option<i64> {
    use super::macro_env::{Known, MacroEnv};
    let at = move |n: &str| (n == "__CUDA_ARCH__").then_some(Known::Value(arch));
    MacroEnv::cuda().with_extra(&at).eval(toks)
}

/// Whether the condition holds in the device pass for every GPU a current CUDA toolkit
/// compiles for ([`CURRENT_NVIDIA_ARCHS`]): an arm after it in its chain runs on NVIDIA GPUs no
/// current toolkit targets, if at all.
pub fn every_current_nvidia_gpu(toks: &[&str]) -> bool {
    CURRENT_NVIDIA_ARCHS
        .iter()
        .all(|&a| eval_nvcc_at(toks, a).is_some_and(|v| v != 0))
}

/// Whether directive `di` of the file opens an include guard: `#ifndef X` (or `#if
/// !defined(X)`) whose next directive is `#define X`. Its name is the header's, whatever words
/// it holds (occa's `OCCA_INTERNAL_MODES_HIP_BUFFER_HEADER` is no ROCm switch), and every build
/// compiles the body on first inclusion.
pub fn is_include_guard(s: &Src, di: usize) -> bool {
    let dirs = &s.lexed.directives;
    let Some(d) = dirs.get(di) else { return false };
    let toks = condition_tokens(s, d);
    let name = match (d.name.as_str(), toks.as_slice()) {
        ("ifndef", [n]) => *n,
        ("if", ["!", "defined", n]) | ("if", ["!", "defined", "(", n, ")"]) => *n,
        _ => return false,
    };
    dirs.get(di + 1).is_some_and(|next| {
        next.name == "define" && condition_tokens(s, next).first() == Some(&name)
    })
}

/// Whether a macro names the HIP/ROCm/AMD platform: HIP's own (`__HIP_PLATFORM_AMD__`,
/// `__HIPCC__`, `__HIP_DEVICE_COMPILE__`, `__gfx90a__`, `__AMDGCN_WAVEFRONT_SIZE`) or a
/// project's switch for its HIP build (`USE_ROCM`, `GGML_USE_HIP`, `USE_AMD_ROCM`).
pub fn is_hip_macro(name: &str) -> bool {
    let guard = [
        "_H",
        "_H_",
        "_H__",
        "_HH",
        "_HXX",
        "_HEADER",
        "_HEADER_",
        "_GUARD",
        "_GUARD_",
        "_HPP",
        "_HPP_",
        "_CUH",
        "_CUH_",
        "_INCLUDED",
        "_INCLUDED_",
    ];
    if guard.iter().any(|g| name.ends_with(g)) {
        return false;
    }
    // Vendor extensions of graphics and compute APIs (`GL_AMD_draw_buffers_blend` in glew.h,
    // `VK_AMD_shader_ballot`, `CL_DEVICE_WAVEFRONT_WIDTH_AMD`) name AMD but say nothing about
    // a HIP build: each API header defines its own.
    let api_extension = [
        "GL_", "GLX_", "WGL_", "EGL_", "GLEW_", "GLAD_", "VK_", "CL_", "cl_",
    ];
    if api_extension.iter().any(|p| name.starts_with(p)) {
        return false;
    }
    // SYCL compilers' backend macros (`HIPSYCL_PLATFORM_HCC`, `__ACPP_ENABLE_HIP_TARGET__`)
    // say which backend a SYCL compiler targets; hipcc never defines them.
    // MSVC's target-architecture macros (`_M_AMD64`, `_M_X64`; blake2's `_M_AMD_64` test
    // beside them in nheqminer): the host CPU, never a HIP build.
    if name.starts_with("_M_") {
        return false;
    }
    let sycl = [
        "HIPSYCL_",
        "__HIPSYCL",
        "ACPP_",
        "__ACPP",
        "OPENSYCL_",
        "__OPENSYCL",
        "SYCL_",
        "__SYCL",
    ];
    if sycl.iter().any(|p| name.starts_with(p)) {
        return false;
    }
    // AMD's CPUs (`KOKKOS_ARCH_AMD_ZEN3`, `ARCH_AMD_EPYC`): `AMD` beside a CPU word names a
    // host architecture, not the HIP build.
    let cpu = [
        "ZEN",
        "ZEN2",
        "ZEN3",
        "ZEN4",
        "ZEN5",
        "EPYC",
        "RYZEN",
        "THREADRIPPER",
        "OPTERON",
        "ATHLON",
        "BULLDOZER",
        "X86",
        "X64",
        "64",
        "AVX",
        "AVX2",
        "AVX512",
        "SSE",
        "CPU",
    ];
    let words: Vec<&str> = name.split('_').collect();
    let amd_cpu = words.contains(&"AMD") && words.iter().any(|w| cpu.contains(w));
    // Another programming model's AMD device (`FW_OPENCL_AMDGPU`, beagle-lib's OpenCL
    // backend switch that its OpenCL host adds to `clBuildProgram`'s options; `VULKAN_AMD`):
    // `AMD` there names the GPU that model runs on, not the HIP build.
    let other_model = words.iter().any(|w| {
        matches!(
            *w,
            "OPENCL" | "OCL" | "SYCL" | "VULKAN" | "METAL" | "DPCPP" | "ONEAPI" | "OPENGL"
        )
    });
    // An opt-out (`EIGEN_NO_HIP`, `DISABLE_HIP`, `__HIP_NO_HALF_CONVERSIONS__`): a switch a
    // user or project passes to turn HIP support off, which no HIP build defines by itself.
    let opt_out = words.iter().any(|w| {
        matches!(
            w.to_ascii_uppercase().as_str(),
            "NO" | "DISABLE" | "DISABLED" | "WITHOUT" | "SKIP" | "NOT"
        )
    });
    if opt_out && !DEFINED_UNDER_HIP.contains(&name) {
        return false;
    }
    DEFINED_UNDER_HIP.contains(&name)
        || name.starts_with("__gfx")
        || words.iter().any(|w| {
            matches!(*w, "HIP" | "HIPCC" | "ROCM" | "HCC" | "HIPIFY")
                || (matches!(*w, "AMDGPU" | "AMDGCN") && !other_model)
                || (*w == "AMD" && !amd_cpu && !other_model)
        })
}

/// The value of a condition when only the platform is known: HIP/ROCm platform macros are
/// defined (`hip`) or not, every other macro unknown. `Some` means the condition is decided by
/// an explicit platform test alone.
pub fn eval_platform(toks: &[&str], hip: bool) -> Option<i64> {
    eval(toks, &|name, use_| {
        // A version is a number, not a platform flag: defined under HIP, value unknown.
        if is_hip_version_macro(name) {
            return match (hip, use_) {
                (true, Use::Defined) => Some(1),
                (true, Use::Value) => None,
                (false, _) => Some(0),
            };
        }
        is_hip_macro(name).then_some(hip as i64)
    })
}

/// HIP's and ROCm's version macros (`HIP_VERSION`, `HIP_VERSION_MAJOR`, `ROCM_VERSION_MAJOR`,
/// …): numbers a HIP build defines, not platform flags.
pub fn is_hip_version_macro(name: &str) -> bool {
    matches!(
        name,
        "HIP_VERSION"
            | "HIP_VERSION_MAJOR"
            | "HIP_VERSION_MINOR"
            | "HIP_VERSION_PATCH"
            | "HIP_VERSION_GITHASH"
            | "HIP_VERSION_BUILD_ID"
            | "ROCM_VERSION_MAJOR"
            | "ROCM_VERSION_MINOR"
            | "ROCM_VERSION_PATCH"
    )
}

/// How a condition uses a macro name: inside `defined(…)`, or for its value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Use {
    Defined,
    Value,
}

/// A macro's value as `look` answers it (`None`: unknown); `defined X` asks with
/// [`Use::Defined`] and wants 0 or 1.
pub type Look<'l> = &'l dyn Fn(&str, Use) -> Option<i64>;

/// Evaluates condition tokens with `look`; `None` when the value depends on something unknown
/// or the tokens are not a well-formed expression.
pub fn eval(toks: &[&str], look: Look) -> Option<i64> {
    let mut p = P {
        t: toks,
        i: 0,
        look,
        depth: 0,
    };
    let v = p.expr(0);
    if p.i != toks.len() {
        return None;
    }
    v
}

/// Whether the condition of `#if`/`#elif` directive `d` tests a HIP platform macro that alone
/// decides it under HIP: the author already chose HIP's branch explicitly. Knowing the target
/// ROCm release (`rocm`), HIP's version macros take its numbers
/// (`(defined(SPFFT_ROCM) && HIP_VERSION_MAJOR >= 6)` decides a condition from ROCm 6 on).
pub fn decided_for_hip(s: &Src, d: &Directive, rocm: Option<crate::version::Version>) -> bool {
    match d.name.as_str() {
        "if" | "elif" => {
            let t = condition_tokens(s, d);
            let platform = |name: &str, use_: Use| {
                if let (Some(v), true) = (rocm, is_hip_version_macro(name)) {
                    return super::macro_env::MacroEnv::hip_for(v)
                        .lookup(name)?
                        .value(use_);
                }
                if is_hip_version_macro(name) {
                    return (use_ == Use::Defined).then_some(1);
                }
                is_hip_macro(name).then_some(1)
            };
            t.iter().any(|n| is_hip_macro(n)) && eval(&t, &platform).is_some()
        }
        "ifdef" | "ifndef" | "elifdef" | "elifndef" => condition_tokens(s, d)
            .first()
            .is_some_and(|n| is_hip_macro(n)),
        _ => false,
    }
}

struct P<'t, 'a, 'l> {
    t: &'t [&'a str],
    i: usize,
    look: Look<'l>,
    /// Nesting of the recursive descent; past `MAX_DEPTH` the value is unknown (no stack
    /// overflow on `#if ((((…` or `#if !!!!…`).
    depth: u32,
}

const MAX_DEPTH: u32 = 200;

fn prec(op: &str) -> Option<u8> {
    Some(match op {
        "||" => 1,
        "&&" => 2,
        "|" => 3,
        "^" => 4,
        "&" => 5,
        "==" | "!=" => 6,
        "<" | ">" | "<=" | ">=" => 7,
        "<<" | ">>" => 8,
        "+" | "-" => 9,
        "*" | "/" | "%" => 10,
        _ => return None,
    })
}

impl P<'_, '_, '_> {
    fn peek(&self) -> &str {
        self.t.get(self.i).copied().unwrap_or("")
    }
    fn expr(&mut self, min: u8) -> Option<i64> {
        self.depth += 1;
        let v = if self.depth > MAX_DEPTH {
            self.i = self.t.len() + 1; // unknown: the caller sees an unfinished parse
            None
        } else {
            self.expr_in(min)
        };
        self.depth -= 1;
        v
    }
    fn expr_in(&mut self, min: u8) -> Option<i64> {
        let mut lhs = self.unary();
        while let Some(pr) = prec(self.peek()) {
            if pr < min {
                break;
            }
            let op = self.peek().to_string();
            self.i += 1;
            let rhs = self.expr(pr + 1);
            lhs = match (op.as_str(), lhs, rhs) {
                ("&&", Some(0), _) | ("&&", _, Some(0)) => Some(0),
                ("||", Some(a), _) if a != 0 => Some(1),
                ("||", _, Some(b)) if b != 0 => Some(1),
                (_, Some(a), Some(b)) => binop(&op, a, b),
                _ => None,
            };
        }
        if self.peek() == "?" {
            self.i += 1;
            let a = self.expr(0);
            if self.peek() == ":" {
                self.i += 1;
            }
            let b = self.expr(0);
            return match lhs? {
                0 => b,
                _ => a,
            };
        }
        lhs
    }
    fn unary(&mut self) -> Option<i64> {
        self.depth += 1;
        let v = if self.depth > MAX_DEPTH {
            self.i = self.t.len() + 1;
            None
        } else {
            self.unary_in()
        };
        self.depth -= 1;
        v
    }
    fn unary_in(&mut self) -> Option<i64> {
        let t = self.peek().to_string();
        self.i += 1;
        match t.as_str() {
            "!" => self.unary().map(|v| (v == 0) as i64),
            "-" => self.unary().and_then(i64::checked_neg),
            "+" => self.unary(),
            "~" => self.unary().map(|v| !v),
            "(" => {
                let v = self.expr(0);
                if self.peek() == ")" {
                    self.i += 1;
                }
                v
            }
            "defined" => {
                let paren = self.peek() == "(";
                if paren {
                    self.i += 1;
                }
                let name = self.peek().to_string();
                self.i += 1;
                if paren && self.peek() == ")" {
                    self.i += 1;
                }
                (self.look)(&name, Use::Defined)
            }
            _ => {
                if let Some(v) = super::syntax::int_value(&t) {
                    return Some(v as i64);
                }
                if let Some(v) = (self.look)(&t, Use::Value) {
                    Some(v)
                } else {
                    // A function-like macro call: skip its arguments, value unknown.
                    if self.peek() == "(" {
                        let mut depth = 0;
                        while self.i < self.t.len() {
                            match self.peek() {
                                "(" => depth += 1,
                                ")" => {
                                    depth -= 1;
                                    if depth == 0 {
                                        self.i += 1;
                                        break;
                                    }
                                }
                                _ => {}
                            }
                            self.i += 1;
                        }
                    }
                    None
                }
            }
        }
    }
}

fn binop(op: &str, a: i64, b: i64) -> Option<i64> {
    Some(match op {
        "||" => ((a != 0) || (b != 0)) as i64,
        "&&" => ((a != 0) && (b != 0)) as i64,
        "|" => a | b,
        "^" => a ^ b,
        "&" => a & b,
        "==" => (a == b) as i64,
        "!=" => (a != b) as i64,
        "<" => (a < b) as i64,
        ">" => (a > b) as i64,
        "<=" => (a <= b) as i64,
        ">=" => (a >= b) as i64,
        "<<" => a.checked_shl(u32::try_from(b).ok()?)?,
        ">>" => a.checked_shr(u32::try_from(b).ok()?)?,
        "+" => a.checked_add(b)?,
        "-" => a.checked_sub(b)?,
        "*" => a.checked_mul(b)?,
        "/" => a.checked_div(b)?,
        "%" => a.checked_rem(b)?,
        _ => return None,
    })
}

/// Words for a finding: which branch HIP-Clang compiles for `kind` (`if`, `elif`, `ifdef`, `ifndef`).
pub fn branch_taken(kind: &str, value: Option<i64>) -> String {
    match (kind, value) {
        ("ifdef", _) => "HIP-Clang leaves it undefined, so the `#ifdef` branch is dropped and the `#else` branch (if any) is compiled".into(),
        ("ifndef", _) => "HIP-Clang leaves it undefined, so the `#ifndef` branch is compiled".into(),
        (_, Some(0)) => format!("under HIP-Clang the condition is false (undefined macros count as 0): the `#{kind}` branch is dropped and the next `#elif`/`#else` is compiled"),
        (_, Some(_)) => format!("under HIP-Clang the condition is true (undefined macros count as 0): the `#{kind}` branch is compiled"),
        (_, None) => "undefined macros count as 0 under HIP-Clang, so this condition may select a different branch than under nvcc".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(s: &str) -> Option<i64> {
        let src = format!("#if {s}\n");
        crate::model::syntax::test_support::with_tokens(&src, |s| {
            eval_under_hip(&condition_tokens(s, &s.lexed.directives[0]))
        })
    }

    #[test]
    fn evaluates_with_cuda_macros_undefined() {
        assert_eq!(ev("CUDA_VERSION >= 11000"), Some(0));
        assert_eq!(ev("CUDART_VERSION < 11000"), Some(1));
        assert_eq!(
            ev("defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700"),
            Some(0)
        );
        assert_eq!(
            ev("!defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 600"),
            Some(1)
        );
        assert_eq!(
            ev("__CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__ >= 1102"),
            Some(0)
        );
        assert_eq!(ev("defined(USE_FOO) && CUDA_VERSION >= 9000"), Some(0));
        assert_eq!(ev("defined(USE_FOO) || CUDA_VERSION >= 9000"), None);
        assert_eq!(ev("defined(__HIP_PLATFORM_AMD__)"), Some(1));
        // C++'s alternative tokens (neural_renderer's old-GPU `atomicAdd(double*)` guard).
        assert_eq!(
            ev("__CUDA_ARCH__ < 600 and defined(__CUDA_ARCH__)"),
            Some(0)
        );
        assert_eq!(ev("not defined(__CUDA_ARCH__) or CUDA_VERSION"), Some(1));
        assert_eq!(ev("CUDA_VERSION not_eq 0"), Some(0));
    }

    #[test]
    fn hostile_conditions_are_unknown_not_panics() {
        let src = b"#if \xff=\n#endif\n";
        let lexed = crate::lex::lex(src);
        let lines = crate::source::LineIndex::new(src);
        let ctx = crate::registry::FileCtx {
            path: "a.cu",
            src,
            lines: &lines,
        };
        let index = crate::model::index::NodeIndex::new(ctx.src, None, &[]);
        let s = Src::new(&ctx, &lexed, None, &index);
        let t = condition_tokens(&s, &lexed.directives[0]);
        assert_eq!(eval_under_hip(&t), None);
        assert_eq!(ev(&"(".repeat(100_000)), None);
        assert_eq!(ev(&"!".repeat(100_000)), None);
        assert_eq!(ev("-9223372036854775808 > 0"), None);
        assert_eq!(ev("1 << -1"), None);
        assert_eq!(ev("(((1)))"), Some(1));
    }
}

#[cfg(test)]
mod platform_tests {
    use super::*;

    #[test]
    fn hip_macros_by_name_not_include_guards() {
        assert!(is_hip_macro("USE_ROCM"));
        assert!(is_hip_macro("GGML_USE_HIP"));
        assert!(is_hip_macro("__HIP_PLATFORM_AMD__"));
        assert!(is_hip_macro("__gfx942__"));
        assert!(!is_hip_macro("KERNELS_AMD_H"));
        assert!(!is_hip_macro("CUDA_VERSION"));
        assert!(!is_hip_macro("SHIPPING"));
        // OpenGL/Vulkan/OpenCL vendor extensions (glew.h in NVIDIA's cuda-samples).
        assert!(!is_hip_macro("GL_AMD_draw_buffers_blend"));
        assert!(!is_hip_macro("WGL_AMD_gpu_association"));
        assert!(!is_hip_macro("VK_AMD_shader_ballot"));
        assert!(!is_hip_macro("CL_DEVICE_WAVEFRONT_WIDTH_AMD"));
        assert!(is_hip_macro("USE_AMD_ROCM"));
        // A SYCL compiler's backend (ParRes Kernels' prk_sycl.h), not a HIP build.
        assert!(!is_hip_macro("HIPSYCL_PLATFORM_HCC"));
        assert!(!is_hip_macro("__ACPP_ENABLE_HIP_TARGET__"));
        assert!(is_hip_macro("HIP_THRUST"));
        // Another model's AMD device (beagle-lib's OpenCL backend), not a HIP build; twins:
        // a HIP switch beside an OpenCL word, and a plain AMD GPU switch.
        assert!(!is_hip_macro("FW_OPENCL_AMDGPU"));
        assert!(!is_hip_macro("USE_VULKAN_AMD"));
        assert!(is_hip_macro("OPENCL_OR_HIP"));
        assert!(is_hip_macro("FW_AMDGPU"));
        // x86-64 under MSVC's and blake2's spellings (nheqminer), not a HIP build.
        assert!(!is_hip_macro("_M_AMD64"));
        assert!(!is_hip_macro("_M_AMD_64"));
        assert!(!is_hip_macro("ARCH_AMD_64"));
        assert!(is_hip_macro("USE_AMD"));
    }

    /// A switch that turns HIP support off names HIP but is no platform macro: no HIP build
    /// defines it by itself. Twin: the switch that turns it on.
    #[test]
    fn opt_outs_of_hip_are_not_hip_platform_macros() {
        for n in [
            "EIGEN_NO_HIP",
            "DISABLE_HIP",
            "WITHOUT_ROCM",
            "__HIP_NO_HALF_CONVERSIONS__",
        ] {
            assert!(!is_hip_macro(n), "{n}");
        }
        assert!(is_hip_macro("EIGEN_USE_HIP") && is_hip_macro("__HIPCC__"));
        let t = [
            "defined",
            "(",
            "__HIPCC__",
            ")",
            "&&",
            "!",
            "defined",
            "(",
            "EIGEN_NO_HIP",
            ")",
        ];
        assert_eq!(eval_platform(&t, true), None);
        assert_eq!(eval_platform(&t, false), Some(0));
    }
}
