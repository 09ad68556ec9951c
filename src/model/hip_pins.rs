//! Project macros whose value the HIP build fixes through a CUDA-side test. A header defines a
//! feature switch per build from `__CUDA_ARCH__` or a toolkit macro:
//!
//! ```c
//! #if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800))
//! #define TURBOMIND_ARCH_SM80 1
//! #else
//! #define TURBOMIND_ARCH_SM80 0
//! #endif
//! ```
//!
//! and the kernels test the switch (`#if TURBOMIND_ARCH_SM80`), in that header or in any file
//! that includes it. Both builds see the same name with different values: HIP-Clang leaves
//! `__CUDA_ARCH__` undefined, so the ROCm build takes the `#else` and the switch is 0. A
//! condition on such a switch is decided for HIP as the test it stands for would be, and a
//! branch it kills is dead for the same reason (`__CUDA_ARCH__`: a lost fast path or an arm
//! without code; a toolkit macro: code for another CUDA).
//!
//! A pin is a `#define`/`#undef` of a project macro in code HIP certainly compiles (every
//! enclosing branch certainly taken under the HIP-Clang environment; an include guard counts as
//! taken), with at least one enclosing chain decided by a CUDA-side macro. A name defined
//! anywhere else HIP may compile is not pinned (its value depends on more than the test).

use super::cond;
use super::macro_env::{Known, MacroEnv};
use super::syntax::Src;
use std::collections::{BTreeMap, BTreeSet};

/// A project macro's value in the HIP build, fixed by a CUDA-side test.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HipPin {
    pub name: String,
    pub known: Known,
    /// 1-based line of the definition.
    pub line: u32,
    /// The deciding test reads `__CUDA_ARCH__` (else a toolkit or library macro).
    pub arch: bool,
    /// The deciding tests read only HIP's platform macros or the project's own ROCm switches
    /// (mscclpp's `#if !defined(MSCCLPP_DEVICE_HIP)` … `#else` / `#define
    /// CUDA_NVLS_API_AVAILABLE 0`): the project's own port chose the value.
    pub platform: bool,
}

/// What decided a pinned switch, for the branches it decides in turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum By {
    /// A toolkit or library macro (`CUDART_VERSION`).
    Toolkit,
    /// `__CUDA_ARCH__`.
    Arch,
    /// HIP's platform macros or the project's own ROCm switch.
    Platform,
}

impl HipPin {
    pub fn by(&self) -> By {
        if self.platform {
            By::Platform
        } else if self.arch {
            By::Arch
        } else {
            By::Toolkit
        }
    }
}

struct Frame {
    /// HIP certainly compiles the open branch.
    certain: bool,
    /// An earlier branch of the chain is certainly taken.
    taken: bool,
    /// Every earlier branch's condition is known under HIP.
    known: bool,
    /// The chain's conditions read a CUDA-side macro.
    cuda: bool,
    /// They read `__CUDA_ARCH__`.
    arch: bool,
    /// They read HIP's platform macros or a project ROCm switch (and no CUDA-side macro).
    hip: bool,
}

/// The value under HIP-Clang of a macro body that tests CUDA-side macros (`(defined(CUDART_VERSION)
/// && CUDART_VERSION >= 11000)`, `CUDA_VERSION`), and whether it reads `__CUDA_ARCH__`; `None`
/// for a body that tests no CUDA-side macro or that HIP cannot decide.
pub fn hip_test(body: &[&str]) -> Option<(i64, bool)> {
    let (cuda, arch) = cuda_side(body);
    cuda.then(|| MacroEnv::hip().eval(body).map(|v| (v, arch)))
        .flatten()
}

/// Whether tokens read a CUDA-side macro (one the HIP environment decides), and `__CUDA_ARCH__`.
fn cuda_side(toks: &[&str]) -> (bool, bool) {
    let hip = MacroEnv::hip();
    let cuda = toks
        .iter()
        .any(|t| !cond::is_hip_macro(t) && hip.lookup(t).is_some());
    let arch = toks.iter().any(|t| t.starts_with("__CUDA_ARCH"));
    (cuda, arch)
}

/// Whether tokens read HIP's platform macros or a project ROCm switch (`__HIP_PLATFORM_AMD__`,
/// `MSCCLPP_DEVICE_HIP`, `USE_ROCM`).
fn hip_side(toks: &[&str]) -> bool {
    toks.iter().any(|t| cond::is_hip_macro(t))
}

/// The pins of one file (see the module documentation).
pub fn pins(s: &Src) -> Vec<HipPin> {
    let hip = MacroEnv::hip();
    let dirs = &s.lexed.directives;
    let mut stack: Vec<Frame> = Vec::new();
    let mut pins: Vec<HipPin> = Vec::new();
    // Names defined where HIP may compile them without a CUDA-side test deciding it.
    let mut loose: BTreeSet<String> = BTreeSet::new();
    for (i, d) in dirs.iter().enumerate() {
        let outer = stack.iter().all(|f| f.certain);
        match d.name.as_str() {
            "if" | "ifdef" | "ifndef" => {
                let toks = cond::condition_tokens(s, d);
                // `#ifndef GUARD` / `#define GUARD`: an include guard, taken.
                let guard = d.name == "ifndef"
                    && dirs.get(i + 1).is_some_and(|n| {
                        n.name == "define" && cond::condition_tokens(s, n).first() == toks.first()
                    });
                let v = if guard {
                    Some(true)
                } else {
                    hip.directive(s, d)
                };
                let (cuda, arch) = cuda_side(&toks);
                stack.push(Frame {
                    certain: outer && v == Some(true),
                    taken: v == Some(true),
                    known: v.is_some(),
                    cuda,
                    arch,
                    hip: !guard && hip_side(&toks),
                });
            }
            "elif" | "elifdef" | "elifndef" => {
                let toks = cond::condition_tokens(s, d);
                let (cuda, arch) = cuda_side(&toks);
                let v = hip.directive(s, d);
                let n = stack.len();
                if n > 0 {
                    let enclosing = stack[..n - 1].iter().all(|f| f.certain);
                    let f = &mut stack[n - 1];
                    f.certain = enclosing && !f.taken && f.known && v == Some(true);
                    f.taken |= v == Some(true);
                    f.known &= v.is_some();
                    f.cuda |= cuda;
                    f.arch |= arch;
                    f.hip |= hip_side(&toks);
                }
            }
            "else" => {
                let n = stack.len();
                if n > 0 {
                    let enclosing = stack[..n - 1].iter().all(|f| f.certain);
                    let f = &mut stack[n - 1];
                    f.certain = enclosing && !f.taken && f.known;
                    f.taken = true;
                }
            }
            "endif" => {
                stack.pop();
            }
            "define" | "undef" => {
                let Some((name, known)) = super::hipside::definition(s, d) else {
                    continue;
                };
                if hip.lookup(&name).is_some() || cond::is_hip_macro(&name) {
                    continue;
                }
                // Decided by a CUDA-side test, or (only) by the project's own ROCm switch.
                let by_cuda = stack.iter().any(|f| f.cuda);
                let decided = by_cuda || stack.iter().any(|f| f.hip && f.known);
                // A switch whose body is itself a CUDA-side test (dgl's `#define BF16_ENABLED
                // (defined(CUDART_VERSION) && CUDART_VERSION >= 11000)`): `#if BF16_ENABLED`
                // expands to that test, so HIP sees the value the test has there.
                let body = cond::condition_tokens(s, d);
                let test = (d.name == "define" && known == Known::Defined)
                    .then(|| hip_test(body.get(1..).unwrap_or(&[])))
                    .flatten()
                    .map(|(v, arch)| (Known::Value(v), arch));
                if outer && test.is_some() {
                    let (known, arch) = test.unwrap_or((known, false));
                    pins.push(HipPin {
                        name,
                        known,
                        line: s.line(d.start) as u32 + 1,
                        arch,
                        platform: false,
                    });
                } else if outer && decided && matches!(known, Known::Value(_) | Known::Undefined) {
                    pins.push(HipPin {
                        name,
                        known,
                        line: s.line(d.start) as u32 + 1,
                        arch: stack.iter().any(|f| f.cuda && f.arch),
                        platform: !by_cuda,
                    });
                } else if !decided || outer {
                    // Defined where no CUDA-side test decides it (or with a value not
                    // pinned): HIP may see this definition whatever the test says.
                    loose.insert(name);
                }
            }
            _ => {}
        }
    }
    // One value per name, and no definition HIP may see beside it.
    let mut values: BTreeMap<&str, Vec<Known>> = BTreeMap::new();
    for p in &pins {
        values.entry(p.name.as_str()).or_default().push(p.known);
    }
    let single: BTreeSet<String> = values
        .iter()
        .filter(|(n, v)| v.windows(2).all(|w| w[0] == w[1]) && !loose.contains(**n))
        .map(|(n, _)| n.to_string())
        .collect();
    let mut seen = BTreeSet::new();
    pins.retain(|p| single.contains(&p.name) && seen.insert(p.name.clone()));
    pins
}

#[cfg(test)]
mod tests {
    use super::*;

    fn of(src: &str) -> Vec<(String, Known, bool)> {
        crate::model::cuda_side::with_src(
            "h.h",
            src.as_bytes(),
            &crate::lex::lex(src.as_bytes()),
            |s| {
                pins(s)
                    .into_iter()
                    .map(|p| (p.name, p.known, p.arch))
                    .collect()
            },
        )
    }

    #[test]
    fn switches_set_from_cuda_arch_take_hips_arm() {
        let src = "#ifndef COMMON_H\n#define COMMON_H\n#if (defined(__CUDA_ARCH__) && (__CUDA_ARCH__ >= 800))\n#define ARCH_SM80 1\n#else\n#define ARCH_SM80 0\n#endif\n#if CUDA_VERSION >= 12000\n#define HAS_TMA 1\n#endif\n#endif\n";
        assert_eq!(of(src), [("ARCH_SM80".to_string(), Known::Value(0), true),]);
    }

    #[test]
    fn switches_whose_body_is_a_cuda_side_test_take_its_hip_value() {
        // dgl's bf16 switch; an alias of the toolkit's version; an arch test in the body.
        let src = "#define BF16_ENABLED (defined(CUDART_VERSION) && CUDART_VERSION >= 11000)\n#define MY_CUDA CUDA_VERSION\n#define SM80 (__CUDA_ARCH__ >= 800)\n";
        assert_eq!(
            of(src),
            [
                ("BF16_ENABLED".to_string(), Known::Value(0), false),
                ("MY_CUDA".to_string(), Known::Value(0), false),
                ("SM80".to_string(), Known::Value(0), true),
            ]
        );
        // Twins: a body on project macros only, a body HIP cannot decide, a function-like
        // macro, and a switch defined in a branch HIP may skip.
        let src = "#define FAST (defined(MY_FAST) && MY_LEVEL > 2)\n#define MIX (CUDA_VERSION >= 11000 || MY_OPT)\n#define F(x) (CUDA_VERSION >= x)\n#ifdef MY_OPT\n#define G (CUDA_VERSION >= 11000)\n#endif\n";
        assert!(of(src).is_empty(), "{:?}", of(src));
    }

    /// mscclpp: the project's own ROCm switch decides a feature switch; the pin says so.
    #[test]
    fn switches_set_in_the_projects_rocm_arm_are_pinned_as_its_own() {
        let src = "#if !defined(PROJ_DEVICE_HIP)\n#define NVLS (CUDART_VERSION >= 12030)\n#else\n#define NVLS 0\n#endif\n";
        let pins = crate::model::cuda_side::with_src(
            "h.h",
            src.as_bytes(),
            &crate::lex::lex(src.as_bytes()),
            pins,
        );
        assert_eq!(pins.len(), 1);
        assert_eq!(
            (pins[0].name.as_str(), pins[0].known),
            ("NVLS", Known::Value(0))
        );
        assert_eq!(pins[0].by(), By::Platform);
        // Twin: the same chain on a project option nobody knows decides nothing.
        let src = src.replace("PROJ_DEVICE_HIP", "PROJ_FAST");
        assert!(of(&src).is_empty(), "{:?}", of(&src));
    }

    #[test]
    fn switches_with_other_definitions_or_unknown_tests_are_not_pinned() {
        // Also defined outside the test; decided by a project option; a body that is not a
        // value; a CUDA-side test nested in an unknown one.
        let src = "#if defined(__CUDA_ARCH__)\n#define A 1\n#else\n#define A 0\n#endif\n#define A 2\n#ifdef MY_OPTION\n#define B 1\n#else\n#define B 0\n#endif\n#ifndef __CUDA_ARCH__\n#define C foo()\n#endif\n#ifdef MY_OPTION\n#if defined(__CUDA_ARCH__)\n#define D 1\n#else\n#define D 0\n#endif\n#endif\n";
        assert!(of(src).is_empty(), "{:?}", of(src));
    }
}
