//! Project macros only the CUDA build of a CMake project defines. hoomd-blue sets the CMake
//! variable `CUSOLVER_AVAILABLE` only in `if (ENABLE_HIP AND HIP_PLATFORM STREQUAL "nvcc")` and
//! passes `target_compile_definitions(_hoomd PUBLIC CUSOLVER_AVAILABLE)` only under
//! `if (CUSOLVER_AVAILABLE)`: the ROCm build never defines the macro, so `#ifdef
//! CUSOLVER_AVAILABLE` arms are compiled out there and the `#ifndef` arms are what it compiles.
//!
//! A macro is the CUDA build's only when every place a CMake file of the project defines it
//! (`add_definitions(-DNAME)`, `add_compile_definitions(NAME)`, `target_compile_definitions(t
//! PUBLIC NAME)`, `-DNAME` in any argument) lies in an arm the HIP build never runs: an arm
//! [`super::hip_dead_arms`] decides false, or an `if()`/`elseif()` arm one of whose `AND`
//! operands is a variable the HIP build never sets true. Such a variable is set true (`ON`,
//! `TRUE`, `YES`, `1`) somewhere, only in arms the HIP build never runs, and never declared as
//! something a user sets (`option()`, `set(… CACHE …)`, `cmake_dependent_option()`).
//!
//! Other build systems are the caller's to check: a name another build file defines is not the
//! CUDA build's only.

use super::super::shell::unquote;
use super::super::ts::{self, Lang};
use super::arms::{command_of, cond_words, each_command, hip_dead_arms};
use crate::kinds::cmake::{Kind as K, NodeExt};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

/// One CMake file's facts: where it sets variables true, which it lets users set, and where it
/// defines macros.
#[derive(Default)]
struct FileDefs {
    /// `(variable, path:line, in an arm the HIP build never runs (its reason))`.
    sets_true: Vec<(String, String, Option<String>)>,
    /// Variables a user may set (`option`, `CACHE`).
    free: BTreeSet<String>,
    /// Of those, the ones off unless the user turns them on (`option(X "…")`,
    /// `option(X "…" OFF)`, `set(X OFF CACHE BOOL …)`).
    off_by_default: BTreeSet<String>,
    /// Where it defines macros.
    defines: Vec<Definition>,
}

/// One place a CMake file defines a macro for the compiler.
struct Definition {
    name: String,
    /// `path:line`.
    at: String,
    /// The conditions (words) of the `if`/`elseif` arms around it.
    conds: Vec<Vec<String>>,
    /// Why the HIP build never runs it, when [`super::hip_dead_arms`] says so.
    dead: Option<String>,
    /// The project's own HIP arm of the same chain, which leaves the macro undefined.
    own_hip: Option<String>,
    /// Added to a list of definitions (`list(APPEND DEFS NAME)`), not a command's own argument.
    from_list: bool,
}

fn truthy(v: &str) -> bool {
    matches!(
        v.to_ascii_uppercase().as_str(),
        "ON" | "TRUE" | "YES" | "Y" | "1"
    )
}

fn is_name(w: &str) -> bool {
    !w.is_empty()
        && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && !w.as_bytes()[0].is_ascii_digit()
}

/// The macro a compile-definition word defines: `NAME`, `NAME=value`, `-DNAME` (with `dash`
/// only the last).
fn defined_name(word: &str, dash: bool) -> Option<&str> {
    let w = match word.strip_prefix("-D") {
        Some(rest) => rest,
        None if dash => return None,
        None => word,
    };
    let name = w.split('=').next().unwrap_or("");
    is_name(name).then_some(name)
}

/// `module`: why the whole file is the CUDA build's only (a module only its arms include).
fn file_defs(rel: &str, src: &[u8], module: Option<&String>, lists: &BTreeSet<String>) -> FileDefs {
    let mut out = FileDefs::default();
    let Some(tree) = ts::parse(Lang::CMake, src) else {
        return out;
    };
    let root = tree.root_node();
    let dead: Vec<(Range<usize>, String, Option<String>)> = hip_dead_arms(root, src, &[])
        .into_iter()
        // Arms only another operating system takes define what that OS's builds need
        // (`_WIN32`), the CUDA build's as much as the ROCm build's.
        .filter(|a| a.taken == Some(false) && !a.by_os)
        .map(|a| {
            // `in the `if (…)` arm (line 60), which the project's HIP build never runs: …`: the
            // arm is enough here.
            let why = a.why.split(", which").next().unwrap_or(&a.why).to_string();
            (a.range, why, a.own_hip_arm)
        })
        .collect();
    let line = |b: usize| src[..b].iter().filter(|&&c| c == b'\n').count() + 1;
    let dead_at = |b: usize| {
        dead.iter()
            .find(|(r, ..)| r.contains(&b))
            .map(|(_, w, _)| w.clone())
            .or_else(|| module.map(|why| format!("in `{rel}`, which {why}")))
    };
    let own_hip_at = |b: usize| {
        dead.iter()
            .find(|(r, ..)| r.contains(&b))
            .and_then(|(.., h)| h.clone())
    };
    // The conditions of the `if`/`elseif` arms around a node (an `else` arm adds none).
    let arms_around = |n: tree_sitter::Node| {
        arm_conditions(n, src)
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
    };
    ts::each(root, &mut |n| {
        let Some((cmd, nodes)) = command_of(n, src) else {
            return;
        };
        let args: Vec<String> = nodes
            .iter()
            .map(|a| unquote(ts::text(*a, src)).to_string())
            .collect();
        let at = format!("{rel}:{}", line(n.start_byte()));
        match cmd.as_str() {
            "option" | "cmake_dependent_option" => {
                if let Some(v) = args.first() {
                    out.free.insert(v.clone());
                    if cmd == "option" && args.get(2).is_none_or(|d| !truthy(d)) {
                        out.off_by_default.insert(v.clone());
                    }
                }
            }
            "set" => {
                let Some(var) = args.first() else { return };
                if args.iter().any(|a| a == "CACHE") {
                    out.free.insert(var.clone());
                    if args.get(1).is_some_and(|v| {
                        matches!(
                            v.to_ascii_uppercase().as_str(),
                            "OFF" | "FALSE" | "NO" | "N" | "0"
                        )
                    }) {
                        out.off_by_default.insert(var.clone());
                    }
                } else if args.len() == 2 && truthy(&args[1]) {
                    out.sets_true
                        .push((var.clone(), at.clone(), dead_at(n.start_byte())));
                }
            }
            _ => {}
        }
        // Definitions: the arguments of the compile-definition commands, and `-DNAME` words
        // anywhere (a flags string holds several); the words added to a list of definitions
        // (`list(APPEND ROCM_EXTRA_DEFS AER_THRUST_GPU)`, `set(DEFS ${DEFS} NAME)`) define
        // their names where they are added.
        let list_add = match (cmd.as_str(), args.first(), args.get(1)) {
            ("list", Some(op), Some(v)) if op == "APPEND" && lists.contains(v) => 2,
            ("set", Some(v), _) if lists.contains(v) && !args.iter().any(|a| a == "CACHE") => 1,
            _ => 0,
        };
        let plain = list_add > 0
            || matches!(
                cmd.as_str(),
                "add_compile_definitions" | "target_compile_definitions"
            );
        let skip = match cmd.as_str() {
            "target_compile_definitions" => 1,
            _ => list_add,
        };
        let mut names: Vec<String> = Vec::new();
        for (i, a) in args.iter().enumerate() {
            for w in a.split_whitespace() {
                let plain_here =
                    plain && i >= skip && !matches!(w, "PUBLIC" | "PRIVATE" | "INTERFACE");
                if let Some(m) = defined_name(w, !plain_here) {
                    names.push(m.to_string());
                }
            }
        }
        if !names.is_empty() {
            let conds = arms_around(n);
            let why = dead_at(n.start_byte());
            let own_hip = own_hip_at(n.start_byte());
            for name in names {
                out.defines.push(Definition {
                    name,
                    at: at.clone(),
                    conds: conds.clone(),
                    dead: why.clone(),
                    own_hip: own_hip.clone(),
                    from_list: list_add > 0,
                });
            }
        }
    });
    out
}

/// The conditions (words) of the `if`/`elseif` arms around a node, innermost first; `None`
/// for an `else()` arm.
pub(super) fn arm_conditions(n: tree_sitter::Node, src: &[u8]) -> Vec<Option<Vec<String>>> {
    let mut conds = Vec::new();
    let mut cur = n;
    while let Some(p) = cur.parent() {
        if p.node_kind() == K::IfCondition {
            let arm = ts::named_children(p)
                .into_iter()
                .filter(|k| k.start_byte() <= n.start_byte())
                .rfind(|k| {
                    matches!(
                        k.node_kind(),
                        K::IfCommand | K::ElseifCommand | K::ElseCommand
                    )
                });
            conds.push(
                arm.filter(|a| a.node_kind() != K::ElseCommand)
                    .map(|a| cond_words(a, src)),
            );
        }
        cur = p;
    }
    conds
}

/// The variables the project's CMake files use as lists of compile definitions: passed as
/// `${V}` to `add_compile_definitions()`/`target_compile_definitions()`, or given a `-D` to
/// each item (`list(TRANSFORM V PREPEND -D)`, then `add_definitions(${V})`).
fn definition_lists(cmake_files: &[(&str, &[u8])]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (_, src) in cmake_files {
        each_command(src, &mut |_, cmd, nodes| {
            let args: Vec<&str> = nodes.iter().map(|a| unquote(ts::text(*a, src))).collect();
            match cmd {
                "list"
                    if args.len() >= 4
                        && args[0] == "TRANSFORM"
                        && args[2..]
                            .windows(2)
                            .any(|w| w[0] == "PREPEND" && w[1] == "-D") =>
                {
                    out.insert(args[1].to_string());
                }
                "add_compile_definitions" | "target_compile_definitions" => {
                    for a in &args {
                        for w in a.split_whitespace() {
                            if let Some(v) = w.strip_prefix("${").and_then(|r| r.strip_suffix('}'))
                            {
                                if is_name(v) {
                                    out.insert(v.to_string());
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        });
    }
    out
}

/// The first single-word `AND` operand (`${X}` read as `X`) of an arm condition among `conds`
/// that `pick` answers; conditions with `OR` or `NOT` give none.
fn and_operand<T>(conds: &[Vec<String>], pick: impl Fn(&str) -> Option<T>) -> Option<T> {
    conds.iter().find_map(|words| {
        if words.iter().any(|w| w == "OR" || w == "NOT") {
            return None;
        }
        words
            .split(|w| w == "AND")
            .find_map(|operand| match operand {
                [w] => pick(w.trim_start_matches("${").trim_end_matches('}')),
                _ => None,
            })
    })
}

/// The macros the project's CMake files add to a list of compile definitions
/// (see `definition_lists`: `list(APPEND ROCM_EXTRA_DEFS AER_THRUST_ROCM)` before
/// `list(TRANSFORM ROCM_EXTRA_DEFS PREPEND -D)`), each with its first `path:line`.
pub fn list_definitions(cmake_files: &[(&str, &[u8])]) -> BTreeMap<String, String> {
    let lists = definition_lists(cmake_files);
    let mut out = BTreeMap::new();
    if lists.is_empty() {
        return out;
    }
    for (rel, src) in cmake_files {
        for d in file_defs(rel, src, None, &lists).defines {
            if d.from_list {
                out.entry(d.name).or_insert(d.at);
            }
        }
    }
    out
}

/// Whether an `if()` condition selects a backend that is neither CUDA nor HIP (Apple's Metal,
/// SYCL, OpenCL, Vulkan, a CPU build) and names no CUDA word.
fn third_backend(words: &[String]) -> bool {
    let parts: Vec<String> = words
        .iter()
        .flat_map(|w| {
            w.split(|c: char| !c.is_ascii_alphanumeric())
                .map(str::to_ascii_lowercase)
                .collect::<Vec<_>>()
        })
        .collect();
    let other = parts.iter().any(|p| {
        matches!(
            p.as_str(),
            "mps" | "metal" | "sycl" | "dpcpp" | "oneapi" | "opencl" | "vulkan" | "cpu"
        )
    });
    let cuda = parts
        .iter()
        .any(|p| matches!(p.as_str(), "cuda" | "nvcc" | "nvidia"));
    other && !cuda
}

/// How the reason of a macro only the CUDA build defines starts when even that build defines it
/// only where a user turns on a switch that is off by default (QUDA's `NVSHMEM_COMMS` under
/// `if(QUDA_NVSHMEM)`): a default CUDA build leaves it undefined, as the ROCm build does.
pub const OFF_BY_DEFAULT: &str = "off by default: ";

/// What the reason of a macro only the CUDA build defines says when the chain that defines it
/// has the project's own HIP arm, which leaves it undefined (bitsandbytes' `if(BUILD_CUDA)` /
/// `elseif(BUILD_HIP)`): the ROCm build's side of that choice is the project's own.
pub const OWN_HIP_ARM: &str = "; the project's own HIP arm of that chain, ";

/// Whether the project's own HIP arm of the defining chain leaves the macro undefined.
pub fn left_out_by_own_hip_arm(why: &str) -> bool {
    why.contains(OWN_HIP_ARM)
}

/// Whether a macro only the CUDA build defines is defined in a default CUDA build (its reason
/// does not start with `OFF_BY_DEFAULT`).
pub fn defined_by_default(why: &str) -> bool {
    !why.starts_with(OFF_BY_DEFAULT)
}

/// The macros only the CUDA build of the project defines (see the module), each with why:
/// where it is defined and what keeps the HIP build from running that arm.
pub fn cuda_build_only_macros(cmake_files: &[(&str, &[u8])]) -> BTreeMap<String, String> {
    cuda_build_only_macros_with(cmake_files, &BTreeMap::new())
}

/// [`cuda_build_only_macros`] knowing the CMake modules only the CUDA build includes
/// ([`super::modules::cuda_only_modules`]): what they define is the CUDA build's only.
pub fn cuda_build_only_macros_with(
    cmake_files: &[(&str, &[u8])],
    modules: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let lists = definition_lists(cmake_files);
    let files: Vec<FileDefs> = cmake_files
        .iter()
        .map(|(rel, src)| file_defs(rel, src, modules.get(*rel), &lists))
        .collect();
    // Variables the HIP build never sets true: every true `set` dead, none a user's.
    let mut off: BTreeMap<String, String> = BTreeMap::new();
    let mut live: BTreeSet<String> = BTreeSet::new();
    for f in &files {
        live.extend(f.free.iter().cloned());
        for (var, at, dead) in &f.sets_true {
            match dead {
                Some(why) => {
                    off.entry(var.clone())
                        .or_insert_with(|| format!("set true only at `{at}`, {why}"));
                }
                None => {
                    live.insert(var.clone());
                }
            }
        }
    }
    off.retain(|v, _| !live.contains(v));
    let off_in = |conds: &[Vec<String>]| -> Option<(String, String)> {
        and_operand(conds, |v| {
            off.get(v).map(|why| (v.to_string(), why.clone()))
        })
    };
    // User switches off unless turned on, and never set true by the build itself.
    let mut default_off: BTreeSet<&String> = files.iter().flat_map(|f| &f.off_by_default).collect();
    for f in &files {
        for (var, _, _) in &f.sets_true {
            default_off.remove(var);
        }
    }
    let under_default_off = |conds: &[Vec<String>]| -> Option<String> {
        and_operand(conds, |v| {
            default_off
                .iter()
                .find(|d| d.as_str() == v)
                .map(|d| d.to_string())
        })
    };
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut defined_live: BTreeSet<String> = BTreeSet::new();
    for f in &files {
        for Definition {
            name: m,
            at,
            conds,
            dead,
            own_hip,
            ..
        } in &f.defines
        {
            // An arm another backend selects (OpenSplat's `elseif(GPU_RUNTIME STREQUAL "MPS")`
            // defines `USE_MPS`): the CUDA build does not run it either.
            if conds.iter().any(|c| third_backend(c)) {
                continue;
            }
            let why = match (dead, off_in(conds)) {
                (Some(why), _) => match under_default_off(conds) {
                    // Off in a default CUDA build too: both builds compile the same arm.
                    Some(opt) => format!(
                        "{OFF_BY_DEFAULT}`{at}` defines it only {why}, which the HIP build never runs, and only when the user turns on `{opt}`, off by default"
                    ),
                    None => match own_hip {
                        Some(arm) => format!("`{at}` defines it only {why}, which the HIP build never runs{OWN_HIP_ARM}{arm}, leaves it undefined"),
                        None => format!("`{at}` defines it only {why}, which the HIP build never runs"),
                    },
                },
                (None, Some((var, var_why))) => format!(
                    "`{at}` defines it only under `if ({var})`, a CMake variable {var_why}, which the HIP build never runs"
                ),
                (None, None) => {
                    defined_live.insert(m.clone());
                    continue;
                }
            };
            out.entry(m.clone()).or_insert(why);
        }
    }
    out.retain(|m, _| !defined_live.contains(m));
    out
}

#[cfg(test)]
mod tests {
    use super::cuda_build_only_macros;

    const SETUP: &[u8] = b"if (ENABLE_HIP AND HIP_PLATFORM STREQUAL \"nvcc\")\n    if (NOT ${CUDA_cusolver_LIBRARY} STREQUAL \"\")\n        set(CUSOLVER_AVAILABLE TRUE)\n    else()\n        set(CUSOLVER_AVAILABLE FALSE)\n    endif()\nendif()\n";

    #[test]
    fn a_macro_defined_under_a_variable_only_the_cuda_arm_sets() {
        let lists: &[u8] = b"if (ENABLE_HIP)\n    if (CUSOLVER_AVAILABLE)\n        target_compile_definitions(_hoomd PUBLIC CUSOLVER_AVAILABLE)\n    endif()\n    target_compile_definitions(_hoomd PUBLIC ENABLE_HIP)\nendif()\n";
        let got =
            cuda_build_only_macros(&[("CMake/Setup.cmake", SETUP), ("CMakeLists.txt", lists)]);
        let why = got.get("CUSOLVER_AVAILABLE").expect("found");
        assert!(why.contains("CMakeLists.txt:3"), "{why}");
        assert!(why.contains("CMake/Setup.cmake:3"), "{why}");
        assert!(!got.contains_key("ENABLE_HIP"));
        assert_eq!(got.len(), 1);
    }

    #[test]
    fn a_variable_a_user_may_set_or_the_hip_build_sets_keeps_the_macro() {
        let lists: &[u8] = b"if (ENABLE_HIP)\nif (CUSOLVER_AVAILABLE)\n  add_definitions(-DCUSOLVER_AVAILABLE)\nendif()\nendif()\n";
        // A user may set it.
        let opt: &[u8] = b"option(CUSOLVER_AVAILABLE \"use cusolver\" OFF)\n";
        let got = cuda_build_only_macros(&[
            ("a.cmake", SETUP),
            ("b.cmake", opt),
            ("CMakeLists.txt", lists),
        ]);
        assert!(got.is_empty(), "{got:?}");
        // The HIP arm sets it too.
        let hip: &[u8] = b"if (ENABLE_HIP AND HIP_PLATFORM STREQUAL \"hip-clang\")\n  set(CUSOLVER_AVAILABLE ON)\nendif()\n";
        let got = cuda_build_only_macros(&[
            ("a.cmake", SETUP),
            ("c.cmake", hip),
            ("CMakeLists.txt", lists),
        ]);
        assert!(got.is_empty(), "{got:?}");
        // A second definition outside the arm.
        let both: &[u8] = b"if (ENABLE_HIP)\nif (CUSOLVER_AVAILABLE)\n  add_definitions(-DCUSOLVER_AVAILABLE)\nendif()\nendif()\nadd_compile_definitions(CUSOLVER_AVAILABLE=1)\n";
        let got = cuda_build_only_macros(&[("a.cmake", SETUP), ("CMakeLists.txt", both)]);
        assert!(got.is_empty(), "{got:?}");
        // `OR` in the condition: the other operand may hold.
        let or: &[u8] = b"if (ENABLE_HIP)\nif (CUSOLVER_AVAILABLE OR FORCE)\n  add_definitions(-DCUSOLVER_AVAILABLE)\nendif()\nendif()\n";
        let got = cuda_build_only_macros(&[("a.cmake", SETUP), ("CMakeLists.txt", or)]);
        assert!(got.is_empty(), "{got:?}");
    }

    /// bitsandbytes: `if(BUILD_CUDA)` defines the macro and the same chain's own
    /// `elseif(BUILD_HIP)` does not: the reason names that HIP arm. Twin: a HIP test in another
    /// chain is no arm of this choice.
    #[test]
    fn the_chains_own_hip_arm_is_named() {
        let lists: &[u8] = b"if (BUILD_CUDA)\n  add_definitions(-DFAST)\nelseif (BUILD_HIP)\n  enable_language(HIP)\nendif()\n";
        let got = cuda_build_only_macros(&[("CMakeLists.txt", lists)]);
        let why = got.get("FAST").expect("found");
        assert!(super::left_out_by_own_hip_arm(why), "{why}");
        assert!(why.contains("`elseif (BUILD_HIP)` (line 3)"), "{why}");
        let apart: &[u8] = b"if (BUILD_CUDA)\n  add_definitions(-DFAST)\nendif()\nif (BUILD_HIP)\n  enable_language(HIP)\nendif()\n";
        let got = cuda_build_only_macros(&[("CMakeLists.txt", apart)]);
        let why = got.get("FAST").expect("found");
        assert!(!super::left_out_by_own_hip_arm(why), "{why}");
    }

    #[test]
    fn a_definition_in_an_arm_the_hip_build_never_runs() {
        let lists: &[u8] = b"if (BUILD_CUDA)\n  add_definitions(-DHAVE_CUBLASLT -DFAST=1)\nelseif (BUILD_HIP)\n  add_definitions(-DHAVE_HIPBLASLT)\nendif()\n";
        let got = cuda_build_only_macros(&[("CMakeLists.txt", lists)]);
        assert_eq!(
            got.keys().map(String::as_str).collect::<Vec<_>>(),
            ["FAST", "HAVE_CUBLASLT"]
        );
        // An arm only Windows takes is no CUDA-build arm.
        let os: &[u8] = b"if (BUILD_HIP)\n  add_definitions(-DHIP)\nendif()\nif (WIN32)\n  add_definitions(-D_WIN32 -DNOMINMAX)\nendif()\n";
        assert!(cuda_build_only_macros(&[("CMakeLists.txt", os)]).is_empty());
        // A file that never tests for the HIP build decides nothing.
        let cuda_only: &[u8] = b"if (WITH_CUBLASLT)\n  add_definitions(-DHAVE_CUBLASLT)\nendif()\n";
        assert!(cuda_build_only_macros(&[("CMakeLists.txt", cuda_only)]).is_empty());
        // qiskit-aer: the HIP arm adds its macros to a list that gets a `-D` each
        // (`list(TRANSFORM … PREPEND -D)`, `add_definitions(${…})`), or to a list another
        // file passes to `target_compile_definitions()`; the CUDA arm spells them in its
        // flags. Both builds define them. Twin: a list nothing passes as definitions.
        let lists: &[u8] = b"if (BUILD_CUDA)\n  set(CUDA_NVCC_FLAGS \"-DAER_GPU -DAER_CUDA\")\nelseif (BUILD_HIP)\n  list(APPEND ROCM_DEFS AER_GPU AER_ROCM)\n  list(TRANSFORM ROCM_DEFS PREPEND -D)\n  add_definitions(${ROCM_DEFS})\n  set(DEFS ${DEFS} AER_HIP_ONLY)\nendif()\n";
        let other: &[u8] = b"target_compile_definitions(w PRIVATE ${DEFS})\n";
        let got = cuda_build_only_macros(&[("CMakeLists.txt", lists), ("w/CMakeLists.txt", other)]);
        assert_eq!(
            got.keys().map(String::as_str).collect::<Vec<_>>(),
            ["AER_CUDA"]
        );
        let unused: &[u8] = b"if (BUILD_CUDA)\n  set(CUDA_NVCC_FLAGS \"-DAER_GPU\")\nelseif (BUILD_HIP)\n  list(APPEND NOTES AER_GPU)\nendif()\n";
        assert_eq!(
            cuda_build_only_macros(&[("CMakeLists.txt", unused)])
                .keys()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            ["AER_GPU"]
        );
        // OpenSplat: the arm of a third backend (Metal) is no CUDA-build arm either; the CUDA
        // arm's macro is.
        let three: &[u8] = b"if(GPU_RUNTIME STREQUAL \"CUDA\")\n  add_definitions(-DUSE_CUDA)\nelseif(GPU_RUNTIME STREQUAL \"HIP\")\n  add_definitions(-DUSE_HIP)\nelseif(GPU_RUNTIME STREQUAL \"MPS\")\n  add_definitions(-DUSE_MPS)\nendif()\n";
        assert_eq!(
            cuda_build_only_macros(&[("CMakeLists.txt", three)])
                .keys()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            ["USE_CUDA"]
        );
    }
}
