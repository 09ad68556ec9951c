//! The project's own switches in a file's conditionals: its ROCm switches (`USE_ROCM`,
//! `GGML_USE_HIP`), and the switches of other backends a chain tests as alternatives to one of
//! them (`AMREX_USE_CUDA` beside `AMREX_USE_HIP`), which the ROCm build leaves undefined.

use super::super::cond;
use super::super::macro_env::MacroEnv;
use super::super::syntax::Src;
use crate::lex::Directive;
use std::ops::Range;

/// The project ROCm switches (`USE_ROCM`, `GGML_USE_HIP`) a file tests, with the first
/// directive that tests each; HIP's own platform macros are not a project's switch.
pub fn project_switches(s: &Src) -> Vec<(String, Range<usize>)> {
    let mut out: Vec<(String, Range<usize>)> = Vec::new();
    for (di, d) in s.lexed.directives.iter().enumerate() {
        if !matches!(
            d.name.as_str(),
            "if" | "elif" | "ifdef" | "ifndef" | "elifdef" | "elifndef"
        ) || cond::is_include_guard(s, di)
        {
            continue;
        }
        for t in cond::condition_tokens(s, d) {
            let own = t.starts_with("__HIP")
                || t.starts_with("__gfx")
                || t.starts_with("__AMDGCN")
                || t.starts_with("__GFX")
                || t == "__HIPCC__"
                || t == "__HIP__"
                // `hip/hip_version.h` defines these in every HIP build, and ROCm's
                // `rocm-core/rocm_version.h` its release: ROCm's, not the project's.
                || t.starts_with("HIP_VERSION")
                || t.starts_with("ROCM_VERSION");
            // A name the file defines itself (`#define USE_CUDA_OR_HIP` under `#if
            // defined(USE_CUDA) || defined(USE_HIP)`) follows from the switches it is made of.
            if !own
                && cond::is_hip_macro(t)
                && !out.iter().any(|(n, _)| n == t)
                && !super::defines_itself(s, t)
            {
                out.push((t.to_string(), s.directive_range(d)));
            }
        }
    }
    out
}

/// Words that name another GPU backend in a project switch (`AMREX_USE_CUDA`, `USE_SYCL`).
const OTHER_BACKENDS: [&str; 7] = ["CUDA", "NVCC", "NVIDIA", "SYCL", "DPCPP", "ONEAPI", "CUPTI"];

/// The project switches of other backends that a conditional chain of this file tests as
/// alternatives to one of the project's ROCm switches: each arm's condition is one name,
/// tested as defined (`#ifdef X`, `#elif defined(X)`, `#if X`), and one arm's name is a ROCm
/// switch ([`cond::is_hip_macro`], not one of HIP's own `__HIP…` or version macros). A name the
/// macro table knows (`__CUDACC__`, `CUDA_VERSION`) is not the project's. Each name comes with
/// the start of the first directive of such a chain that tests it.
/// The one name a conditional directive tests as defined (`#ifdef X`, `#if X`, `#if
/// defined(X)`), if that is all it tests.
fn single(s: &Src, d: &Directive) -> Option<String> {
    let toks = cond::condition_tokens(s, d);
    let name = match (d.name.as_str(), toks.as_slice()) {
        ("ifdef" | "elifdef", [n]) => n,
        ("if" | "elif", [n]) => n,
        ("if" | "elif", ["defined", n]) => n,
        ("if" | "elif", ["defined", "(", n, ")"]) => n,
        _ => return None,
    };
    Some(name.to_string())
}

/// A name spelled as compilers spell their own macros (`__NAME__`).
fn compiler_style(n: &str) -> bool {
    n.starts_with("__") && n.ends_with("__")
}

/// A project's own ROCm switch (not one of HIP's own `__HIP…` or version macros).
fn own_rocm(n: &str) -> bool {
    cond::is_hip_macro(n)
        && MacroEnv::hip().lookup(n).is_some()
        // HIP's own (`__HIP_PLATFORM_AMD__`, `__HIPCC__`); a project's may start with
        // underscores too (cp2k's `__OFFLOAD_HIP`).
        && !n.starts_with("__HIP")
        && !compiler_style(n)
        && !n.starts_with("HIP_VERSION")
        && !n.starts_with("ROCM_VERSION")
}

/// A project switch naming another GPU backend (`AMREX_USE_CUDA`, `USE_SYCL`).
fn other_backend(n: &str) -> bool {
    let u = n.to_ascii_uppercase();
    !cond::is_hip_macro(n)
        && MacroEnv::hip().lookup(n).is_none()
        && u.split('_').any(|w| OTHER_BACKENDS.contains(&w))
}

/// The single-name tests of this file (see `single`) of project ROCm switches and other
/// backends' switches, once each, with the start of the first directive testing it: what
/// [`crate::model::project`] pairs across files ([`cuda_twins`]).
pub fn backend_tests(s: &Src) -> Vec<(String, usize)> {
    let mut out: Vec<(String, usize)> = Vec::new();
    for d in &s.lexed.directives {
        if !matches!(d.name.as_str(), "if" | "ifdef" | "elif" | "elifdef") {
            continue;
        }
        let Some(n) = single(s, d) else { continue };
        if (own_rocm(&n) || other_backend(&n)) && !out.iter().any(|(o, _)| *o == n) {
            out.push((n, d.start));
        }
    }
    out
}

/// The CUDA backend's switches among `tested` whose HIP twin (the name with its `CUDA`,
/// `NVCC` or `NVIDIA` word read as `HIP`, `ROCM` or `AMD`) is a ROCm switch also tested:
/// RAJAPerf wraps `CudaGridScan.hpp` in `#if defined(RAJA_ENABLE_CUDA)` and `HipGridScan.hpp` in
/// `#if defined(RAJA_ENABLE_HIP)`; the ROCm build defines the second, never the first. A name
/// whose twin nothing tests (`USE_CUDA` alone) is left to the rest of the model.
pub fn cuda_twins<'a>(tested: impl Iterator<Item = &'a str> + Clone) -> Vec<&'a str> {
    let rocm: std::collections::BTreeSet<&str> = tested.clone().filter(|n| own_rocm(n)).collect();
    tested
        .filter(|n| other_backend(n))
        .filter(|n| {
            let words: Vec<&str> = n.split('_').collect();
            words.iter().enumerate().any(|(k, w)| {
                matches!(*w, "CUDA" | "NVCC" | "NVIDIA")
                    && ["HIP", "ROCM", "AMD"].iter().any(|h| {
                        let mut t = words.clone();
                        t[k] = h;
                        rocm.contains(t.join("_").as_str())
                    })
            })
        })
        .collect()
}

/// The project's ROCm switch an arm tests, alone or joined by `&&` with HIP's own platform
/// macros (cp2k's `#elif defined(__OFFLOAD_HIP) && defined(__HIP_PLATFORM_AMD__)`).
fn rocm_conjunction(s: &Src, d: &Directive) -> Option<String> {
    if !matches!(d.name.as_str(), "if" | "elif") {
        return None;
    }
    let toks = cond::condition_tokens(s, d);
    let names: Vec<&str> = toks
        .iter()
        .copied()
        .filter(|t| !matches!(*t, "defined" | "(" | ")" | "&&"))
        .collect();
    let own = names.iter().find(|n| own_rocm(n))?;
    names
        .iter()
        .all(|n| own_rocm(n) || (cond::is_hip_macro(n) && n.starts_with("__HIP")))
        .then(|| own.to_string())
}

pub fn alternative_backends(s: &Src) -> Vec<(String, usize)> {
    let single = |d: &Directive| single(s, d).or_else(|| rocm_conjunction(s, d));
    let other = other_backend;
    let mut out: Vec<(String, usize)> = Vec::new();
    // Per open chain: the single names of its arms, with their directives' starts.
    type Arms = Vec<(Option<String>, usize)>;
    let mut stack: Vec<Arms> = Vec::new();
    for d in &s.lexed.directives {
        match d.name.as_str() {
            "if" | "ifdef" | "ifndef" => stack.push(vec![(single(d), d.start)]),
            "elif" | "elifdef" | "elifndef" => {
                if let Some(arms) = stack.last_mut() {
                    arms.push((single(d), d.start));
                }
            }
            "endif" => {
                let Some(arms) = stack.pop() else { continue };
                let names: Vec<(&str, usize)> = arms
                    .iter()
                    .filter_map(|(n, at)| n.as_deref().map(|n| (n, *at)))
                    .collect();
                if !names.iter().any(|(n, _)| own_rocm(n)) {
                    continue;
                }
                for (n, at) in names.into_iter().filter(|(n, _)| other(n)) {
                    if !out.iter().any(|(o, _)| o == n) {
                        out.push((n.to_string(), at));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CUDA switches pair with the HIP twins the project tests; SYCL's, lone ones and names
    /// without a backend word do not.
    #[test]
    fn cuda_switches_with_a_tested_hip_twin() {
        let tested = [
            "RAJA_ENABLE_CUDA",
            "RAJA_ENABLE_HIP",
            "KOKKOS_ENABLE_CUDA",
            "KOKKOS_ENABLE_SYCL",
            "USE_CUDA",
            "GPU_NVIDIA",
            "GPU_AMD",
            "ENABLE_CUDA_GRAPHS",
        ];
        assert_eq!(
            cuda_twins(tested.iter().copied()),
            ["RAJA_ENABLE_CUDA", "GPU_NVIDIA"]
        );
    }
    use crate::model::hipside::{regions_and_pins_for, side_at, Side};

    /// A project's own switches (bitsandbytes' `BNB_HIP`, `USE_ROCM`), not HIP's own macros:
    /// `HIP_VERSION_MAJOR` comes from `hip/hip_version.h` in every HIP build.
    #[test]
    fn project_switches_are_the_projects_own() {
        let src = "#if BNB_HIP\n#endif\n#if HIP_VERSION_MAJOR >= 6\n#endif\n#ifdef __HIP_PLATFORM_AMD__\n#endif\n#ifndef USE_ROCM\n#endif\n#if ROCM_VERSION_MAJOR >= 6\n#endif\n#ifdef KOKKOS_ARCH_AMD_ZEN3\n#endif\n#ifdef KOKKOS_ARCH_AMD_GFX90A\n#endif\n";
        let names: Vec<String> = crate::model::syntax::test_support::with_tokens(src, |s| {
            project_switches(s).into_iter().map(|(n, _)| n).collect()
        });
        // A CPU architecture of AMD's (`_AMD_ZEN3`) is no HIP switch; an AMD GPU's is.
        assert_eq!(names, ["BNB_HIP", "USE_ROCM", "KOKKOS_ARCH_AMD_GFX90A"]);
        // sundials: a name the file derives from the switches is not one to pass.
        let derived = "#if defined(USE_CUDA) || defined(USE_HIP)\n#define USE_CUDA_OR_HIP\n#endif\n#ifdef USE_CUDA_OR_HIP\n#endif\n";
        let names: Vec<String> = crate::model::syntax::test_support::with_tokens(derived, |s| {
            project_switches(s).into_iter().map(|(n, _)| n).collect()
        });
        assert_eq!(names, ["USE_HIP"]);
    }

    /// occa's `#ifndef OCCA_INTERNAL_MODES_HIP_BUFFER_HEADER` / `#define …`: an include guard
    /// is the header's name, not a ROCm switch, by its suffix or by its shape (`#ifndef X`
    /// then `#define X`), and HIP compiles its body. Twin: `#ifndef USE_HIP` followed by other
    /// code stays a switch whose body HIP never compiles.
    #[test]
    fn include_guards_are_no_rocm_switch() {
        let side = |src: &str, needle: &str| {
            crate::model::syntax::test_support::with_tokens(src, |s| {
                let (r, _) = regions_and_pins_for(
                    s,
                    "7.0.0".parse().unwrap(),
                    &crate::model::project::NOTHING,
                );
                (
                    side_at(&r, src.find(needle).unwrap()),
                    project_switches(s)
                        .into_iter()
                        .map(|(n, _)| n)
                        .collect::<Vec<_>>(),
                )
            })
        };
        let never = |x: Option<Side>| matches!(x, Some(Side::Never(_)));
        for guard in ["OCCA_MODES_HIP_BUFFER_HEADER", "OCCA_MODES_HIP_DEVICE_ONCE"] {
            let src = format!("#ifndef {guard}\n#define {guard}\nbody();\n#endif\n");
            let (at, names) = side(&src, "body()");
            assert!(!never(at), "{guard}");
            assert!(names.is_empty(), "{guard}: {names:?}");
        }
        let src = "#ifndef USE_HIP\n#include <cuda_runtime.h>\nbody();\n#endif\n";
        let (at, names) = side(src, "body()");
        assert!(never(at));
        assert_eq!(names, ["USE_HIP"]);
    }

    /// AMReX's chains: `#if defined(AMREX_USE_SYCL) … #elif defined(AMREX_USE_HIP) … #elif
    /// defined(AMREX_USE_CUDA)` makes the other backends' switches alternatives to the ROCm
    /// one, so HIP never compiles their arms, in that chain or in a later `#ifdef
    /// AMREX_USE_CUDA` of the file. Twin: a file that never tests them as alternatives to a
    /// ROCm switch leaves `#ifdef AMREX_USE_CUDA` unknown.
    #[test]
    fn other_backends_tested_as_alternatives_to_the_rocm_switch_are_off() {
        let src = "#if defined(AMREX_USE_SYCL)\nsycl();\n#elif defined(AMREX_USE_HIP)\nhip();\n#elif defined(AMREX_USE_CUDA)\ncuda();\n#endif\n#ifdef AMREX_USE_CUDA\nprof();\n#endif\n";
        let side = |src: &str, needle: &str| {
            crate::model::syntax::test_support::with_tokens(src, |s| {
                let (r, _) = regions_and_pins_for(
                    s,
                    "7.0.0".parse().unwrap(),
                    &crate::model::project::NOTHING,
                );
                side_at(&r, src.find(needle).unwrap())
            })
        };
        let never = |x: Option<Side>| matches!(x, Some(Side::Never(_)));
        assert!(never(side(src, "sycl()")));
        assert!(never(side(src, "cuda()")));
        assert!(never(side(src, "prof()")));
        assert!(!never(side(src, "hip()")));
        let alone = "#ifdef AMREX_USE_CUDA\nprof();\n#endif\n";
        assert!(!never(side(alone, "prof()")));
        // cp2k's `offload_library.c`: a switch with leading underscores, its ROCm arm joined
        // with HIP's platform macro. Twin: a conjunction with another project switch is not
        // the ROCm arm alone.
        let cp2k = "#if defined(__OFFLOAD_CUDA)\nnvtx();\n#elif defined(__OFFLOAD_HIP) && defined(__HIP_PLATFORM_AMD__)\nroctx();\n#endif\n";
        assert!(never(side(cp2k, "nvtx()")));
        assert!(!never(side(cp2k, "roctx()")));
        let mixed = cp2k.replace("defined(__HIP_PLATFORM_AMD__)", "defined(WITH_PROFILER)");
        assert!(!never(side(&mixed, "nvtx()")));
    }
}
