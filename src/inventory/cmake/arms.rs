//! Which arms of a CMake file's `if()` chains the project's ROCm build runs: its switches
//! (`BUILD_HIP`, `USE_ROCM`, `COMPUTE_BACKEND STREQUAL "hip"`) in a HIP-aware file, and the
//! operating system (Linux) in any file. The CMake scanner ([`super`]) turns the dead arms'
//! findings into PASS and reports stops in the arms the HIP build takes.

use super::super::shell::unquote;
use super::super::ts::{self, Lang};
use crate::kinds::cmake::{Kind as K, NodeExt};

/// The value of a switch word in the HIP build: `Some(true)` for a ROCm switch (`BUILD_HIP`,
/// `USE_ROCM`, `${ENABLE_HIP}`), `Some(false)` for a CUDA one (`BUILD_CUDA`, `WITH_CUDA`: a
/// project with both switches sets one per build), `None` for anything else (a compiler or
/// package variable such as `CMAKE_CUDA_COMPILER` is not a build switch). HIP's own compiler and
/// package variables (`HIP_FOUND`, `CMAKE_HIP_COMPILER`) are true in the HIP build.
fn switch_under_hip(word: &str) -> Option<bool> {
    let w = word.trim_start_matches("${").trim_end_matches('}');
    if w.is_empty() || !w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    // What finding HIP sets: the HIP build has a HIP compiler and package. (CUDA's are unknown
    // there: a machine may have both toolkits.)
    if matches!(
        w,
        "HIP_FOUND"
            | "hip_FOUND"
            | "ROCM_FOUND"
            | "CMAKE_HIP_COMPILER"
            | "CMAKE_HIP_COMPILER_LOADED"
    ) {
        return Some(true);
    }
    let parts: Vec<String> = w.split('_').map(|p| p.to_ascii_lowercase()).collect();
    let platform = platform_word(&parts)?;
    let switch = parts.len() == 1
        || parts.iter().any(|p| {
            matches!(
                p.as_str(),
                "build" | "use" | "with" | "enable" | "is" | "backend"
            )
        });
    switch.then_some(platform)
}

/// `Some(true)` when the words name only the ROCm/HIP platform, `Some(false)` only CUDA.
pub(crate) fn platform_word(parts: &[String]) -> Option<bool> {
    let mut side = None;
    for p in parts {
        let s = match p.as_str() {
            "hip" | "rocm" | "amd" | "amdgpu" | "hcc" => true,
            "cuda" | "nvcc" | "nvidia" => false,
            _ => continue,
        };
        if side.is_some_and(|x| x != s) {
            return None;
        }
        side = Some(s);
    }
    side
}

/// The platform a variable name names by its `_`-separated words (`USE_HIP`, `ROCM_PATH`,
/// `WITH_CUDA`), a word that begins with a platform's name counting as that name
/// (`HIPCONFIG`, `ROCMPATH`, `CUDAFLAGS`, `AMDHIP`): for build files whose switches are any variable
/// (a Makefile's `ifdef HIPCONFIG`), where what the arm does confirms the reading.
pub(crate) fn name_platform(name: &str) -> Option<bool> {
    let parts: Vec<String> = name
        .split('_')
        .map(|p| {
            let p = p.to_ascii_lowercase();
            // `AMDHIP`, `AMDGPUTARGETS` (astra-toolbox's `ifeq ($(amdhip),yes)`): AMD's
            // platform by its runtime's or target's name; `AMD64` is an architecture.
            if p.starts_with("amdhip") || p.starts_with("amdgpu") {
                return "amd".to_string();
            }
            ["hip", "rocm", "hcc", "cuda", "nvcc"]
                .into_iter()
                .find(|w| p.starts_with(w))
                .map_or(p, str::to_string)
        })
        .collect();
    platform_word(&parts)
}

/// A pair of switches the project declares (`option`, `set`, `cmake_dependent_option`) whose
/// names differ only in the platform word: `FOO_NVIDIA_BACKEND` and `FOO_AMD_BACKEND`,
/// `GGML_CUDA` and `GGML_HIP`. The one with NVIDIA/CUDA/NV selects the CUDA build; the ROCm
/// build sets its twin.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Twin {
    pub cuda: String,
    pub rocm: String,
    /// Where the ROCm twin is declared (`CMakeLists.txt:55`).
    pub at: String,
    /// The twins are the alternatives of one `if()` chain (`if(DEFINED CMAKE_CUDA_ARCHITECTURES)
    /// … elseif(DEFINED CMAKE_HIP_ARCHITECTURES)`): whether one is defined selects the build.
    /// (A declared option is defined in both builds.)
    pub by_definition: bool,
}

/// The value in the HIP build of a word that names one of the project's twin switches, with
/// the twin.
fn twin_of<'t>(word: &str, twins: &'t [Twin]) -> Option<(&'t Twin, bool)> {
    let w = word.trim_start_matches("${").trim_end_matches('}');
    twins.iter().find_map(|t| {
        if t.cuda.eq_ignore_ascii_case(w) {
            Some((t, false))
        } else if t.rocm.eq_ignore_ascii_case(w) {
            Some((t, true))
        } else {
            None
        }
    })
}

/// The twin variables the arms of one `if()` chain test for definition, one arm each
/// (`if(DEFINED CMAKE_CUDA_ARCHITECTURES) … elseif(DEFINED CMAKE_HIP_ARCHITECTURES)`): the chain
/// selects the build by which is defined, and the ROCm build defines the HIP one.
fn chain_twins(chain: tree_sitter::Node, src: &[u8]) -> Vec<Twin> {
    let line = |b: usize| src[..b].iter().filter(|&&c| c == b'\n').count() + 1;
    let mut tested: Vec<(String, String)> = Vec::new();
    // Arms that test one variable's value each (`if(GMX_GPU_CUDA) … elseif(GMX_GPU_HIP)`):
    // the chain picks the backend the build selected, and the ROCm build selects the HIP one.
    let mut valued: Vec<(String, String)> = Vec::new();
    for cmd in ts::named_children(chain) {
        if !matches!(cmd.node_kind(), K::IfCommand | K::ElseifCommand) {
            continue;
        }
        let words = cond_words(cmd, src);
        let at = format!("line {}", line(cmd.start_byte()));
        match words.as_slice() {
            [defined, w] if defined == "DEFINED" => {
                let w = w.trim_start_matches("${").trim_end_matches('}');
                tested.push((w.to_string(), at));
            }
            [w] => {
                let w = w.trim_start_matches("${").trim_end_matches('}');
                if !detects_a_toolkit(w) {
                    valued.push((w.to_string(), at));
                }
            }
            _ => {}
        }
    }
    let mut twins = twin_switches(&tested);
    for t in &mut twins {
        t.by_definition = true;
    }
    twins.extend(twin_switches(&valued));
    twins
}

/// The project's backend twins: switches it declares under names that differ only in the
/// platform word (`ENABLE_CUDA` / `ENABLE_HIP`, `GMX_GPU_CUDA` / `GMX_GPU_HIP`, any file), and
/// variables an `if()` chain of any of its CMake files tests as alternatives (`if(GMX_GPU_CUDA)
/// … elseif(GMX_GPU_HIP)`). The ROCm build sets the HIP one of each pair, never the CUDA one.
/// `chains` is [`chain_alternatives`] of the same files, computed once by the caller.
pub fn project_twins(files: &[(&str, &[u8])], chains: &[Twin]) -> Vec<Twin> {
    let mut out = chains.to_vec();
    let mut declared: Vec<(String, String)> = Vec::new();
    for (rel, src) in files {
        declared.extend(
            declared_switches(src)
                .into_iter()
                .filter(|(n, _)| !detects_a_toolkit(n))
                .map(|(n, l)| (n, format!("{rel}:{l}"))),
        );
    }
    for t in twin_switches(&declared) {
        if !out.iter().any(|o| o.cuda == t.cuda) {
            out.push(t);
        }
    }
    out
}

/// The backend variables an `if()` chain of the project's CMake files tests as alternatives,
/// one arm each (`if(GMX_GPU_CUDA) … elseif(GMX_GPU_HIP)`): the build selects one backend, and
/// the ROCm build selects the HIP one. `at` is the chain's `path:line`.
pub fn chain_alternatives(files: &[(&str, &[u8])]) -> Vec<Twin> {
    let mut out: Vec<Twin> = Vec::new();
    for (rel, src) in files {
        let Some(tree) = ts::parse(Lang::CMake, src) else {
            continue;
        };
        let line = |b: usize| src[..b].iter().filter(|&&c| c == b'\n').count() + 1;
        ts::each(tree.root_node(), &mut |n| {
            // `if(CMAKE_HIP_COMPILER AND NOT CMAKE_CUDA_COMPILER)`: the HIP build runs only where
            // the CUDA variable is false, so the ROCm build (which runs the HIP arm) has it false.
            if matches!(n.node_kind(), K::IfCommand | K::ElseifCommand) {
                if let Some(t) = excluded_by_hip_arm(&cond_words(n, src)) {
                    if !out.iter().any(|o| o.cuda == t.cuda) {
                        out.push(Twin {
                            at: format!("{rel}:{}", line(n.start_byte())),
                            ..t
                        });
                    }
                }
            }
            if n.node_kind() == K::IfCondition {
                for t in chain_twins(n, src) {
                    if !t.by_definition && !out.iter().any(|o| o.cuda == t.cuda) {
                        out.push(Twin {
                            at: format!("{rel}:{}", line(n.start_byte())),
                            ..t
                        });
                    }
                }
            }
        });
    }
    out
}

/// The CUDA variable a HIP arm's condition requires false (`CMAKE_HIP_COMPILER AND NOT
/// CMAKE_CUDA_COMPILER`, `USE_HIP AND NOT USE_CUDA`): one `AND` operand names the HIP build, another
/// is `NOT` of a CUDA-named variable. The pair is the HIP and CUDA twin of that choice.
fn excluded_by_hip_arm(words: &[String]) -> Option<Twin> {
    let ands = split_top(words, "AND");
    if ands.len() < 2 || words.iter().any(|w| w == "OR") {
        return None;
    }
    let hip = ands.iter().find_map(|op| match op {
        [w] if switch_under_hip(w) == Some(true) => Some(w.clone()),
        _ => None,
    })?;
    let cuda = ands.iter().find_map(|op| match op {
        [not, w]
            if not == "NOT"
                && name_platform(w.trim_start_matches("${").trim_end_matches('}'))
                    == Some(false) =>
        {
            Some(w.trim_start_matches("${").trim_end_matches('}').to_string())
        }
        _ => None,
    })?;
    Some(Twin {
        cuda,
        rocm: hip
            .trim_start_matches("${")
            .trim_end_matches('}')
            .to_string(),
        at: String::new(),
        by_definition: false,
    })
}

/// A variable that says what the machine has rather than what the build selected
/// (`CUDA_FOUND`, `CMAKE_CUDA_COMPILER`, `CUDA_TOOLKIT_ROOT_DIR`): a machine may have both
/// toolkits, so its CUDA twin may hold in the ROCm build too.
fn detects_a_toolkit(word: &str) -> bool {
    word.split('_').any(|p| {
        matches!(
            p.to_ascii_uppercase().as_str(),
            "FOUND"
                | "COMPILER"
                | "LOADED"
                | "PATH"
                | "ROOT"
                | "DIR"
                | "HOME"
                | "EXECUTABLE"
                | "VERSION"
                | "AVAILABLE"
        )
    })
}

/// A command node's name in lower case and its argument nodes (`None` for other nodes).
pub(crate) fn command_of<'t>(
    n: tree_sitter::Node<'t>,
    src: &[u8],
) -> Option<(String, Vec<tree_sitter::Node<'t>>)> {
    if n.node_kind() != K::NormalCommand {
        return None;
    }
    let kids = ts::named_children(n);
    let name = kids.iter().find(|x| x.node_kind() == K::Identifier)?;
    let args = kids
        .iter()
        .find(|x| x.node_kind() == K::ArgumentList)
        .map(|l| ts::named_children(*l))
        .unwrap_or_default();
    Some((ts::text(*name, src).to_ascii_lowercase(), args))
}

/// Calls `f` with every command of a CMake file (its node, lower-case name and argument
/// nodes); nothing when the file does not parse.
pub(crate) fn each_command<'t>(
    src: &'t [u8],
    f: &mut dyn FnMut(tree_sitter::Node<'_>, &str, &[tree_sitter::Node<'_>]),
) {
    let Some(tree) = ts::parse(Lang::CMake, src) else {
        return;
    };
    ts::each(tree.root_node(), &mut |n| {
        if let Some((cmd, args)) = command_of(n, src) {
            f(n, &cmd, &args);
        }
    });
}

/// The switches a CMake file declares: the first argument of `option()`, `set()` and
/// `cmake_dependent_option()`, with its 1-based line.
pub fn declared_switches(src: &[u8]) -> Vec<(String, usize)> {
    let mut out = Vec::new();
    each_command(src, &mut |_, cmd, args| {
        if !matches!(cmd, "option" | "set" | "cmake_dependent_option") {
            return;
        }
        let Some(&first) = args.first() else {
            return;
        };
        let w = unquote(ts::text(first, src));
        if !w.is_empty() && w.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
            let line = src[..first.start_byte()]
                .iter()
                .filter(|&&c| c == b'\n')
                .count()
                + 1;
            out.push((w.to_string(), line));
        }
    });
    out
}

/// The twin switches among `declared` (name, where): each name with an NVIDIA/CUDA/NV word
/// whose project also declares the same name with AMD/HIP/ROCM in its place.
pub fn twin_switches(declared: &[(String, String)]) -> Vec<Twin> {
    let mut out: Vec<Twin> = Vec::new();
    for (name, _) in declared {
        let parts: Vec<&str> = name.split('_').collect();
        for (i, p) in parts.iter().enumerate() {
            if !matches!(p.to_ascii_lowercase().as_str(), "nvidia" | "cuda" | "nv") {
                continue;
            }
            for amd in ["AMD", "HIP", "ROCM"] {
                let mut q = parts.clone();
                q[i] = amd;
                let twin = q.join("_");
                let Some((rocm, at)) = declared.iter().find(|(n, _)| n.eq_ignore_ascii_case(&twin))
                else {
                    continue;
                };
                if !out.iter().any(|t| t.cuda == *name) {
                    out.push(Twin {
                        cuda: name.clone(),
                        rocm: rocm.clone(),
                        at: at.clone(),
                        by_definition: false,
                    });
                }
            }
        }
    }
    out
}

/// The value of an operating-system word on Linux, the ROCm build's OS: `WIN32`, `MSVC`,
/// `APPLE`, `CYGWIN`, `MINGW` are false there; `UNIX`, `LINUX` true.
fn os_word(word: &str) -> Option<bool> {
    let w = word.trim_start_matches("${").trim_end_matches('}');
    match w.strip_prefix("CMAKE_HOST_").unwrap_or(w) {
        "WIN32" | "MSVC" | "APPLE" | "CYGWIN" | "MINGW" | "MSYS" | "IOS" | "WINDOWS_STORE"
        | "XCODE" => Some(false),
        "UNIX" | "LINUX" => Some(true),
        _ => None,
    }
}

/// `CMAKE_SYSTEM_NAME STREQUAL "Windows"` on Linux.
fn os_name_is(var: &str, lit: &str) -> Option<bool> {
    let v = var.trim_start_matches("${").trim_end_matches('}');
    if !matches!(v, "CMAKE_SYSTEM_NAME" | "CMAKE_HOST_SYSTEM_NAME") {
        return None;
    }
    match lit {
        "Linux" => Some(true),
        "Windows" | "Darwin" | "CYGWIN" | "MSYS" | "iOS" | "WindowsStore" | "FreeBSD" => {
            Some(false)
        }
        _ => None,
    }
}

/// The value of an `if()` condition in the project's HIP build, when its switches decide it:
/// `NOT`, `AND`, `OR`, `DEFINED X`, switch words and `X STREQUAL "hip"` comparisons, and the
/// operating system (Linux).
fn cond_under_hip(args: &[String], twins: &[Twin]) -> Option<bool> {
    cond_value(args, Some(twins))
}

/// [`cond_under_hip`] with the project's switches read (`switches`, with the project's twin
/// switches) or only the operating system (`None`: a file that never tests for the HIP build).
fn cond_value(args: &[String], switches: Option<&[Twin]>) -> Option<bool> {
    let or = split_top(args, "OR");
    if or.len() > 1 {
        let v: Vec<Option<bool>> = or.iter().map(|a| cond_value(a, switches)).collect();
        return if v.contains(&Some(true)) {
            Some(true)
        } else if v.iter().all(|x| *x == Some(false)) {
            Some(false)
        } else {
            None
        };
    }
    let and = split_top(args, "AND");
    if and.len() > 1 {
        let v: Vec<Option<bool>> = and.iter().map(|a| cond_value(a, switches)).collect();
        return if v.contains(&Some(false)) {
            Some(false)
        } else if v.iter().all(|x| *x == Some(true)) {
            Some(true)
        } else {
            None
        };
    }
    match args {
        [not, rest @ ..] if not == "NOT" => cond_value(rest, switches).map(|v| !v),
        [open, inner @ .., close] if open == "(" && close == ")" => cond_value(inner, switches),
        [w] if os_word(w).is_some() => os_word(w),
        [var, op, lit] if op == "STREQUAL" && os_name_is(var, lit).is_some() => {
            os_name_is(var, lit)
        }
        _ if switches.is_none() => None,
        [defined, w] if defined == "DEFINED" => switch_under_hip(w).or_else(|| {
            let twins: Vec<Twin> = switches
                .unwrap_or(&[])
                .iter()
                .filter(|t| t.by_definition)
                .cloned()
                .collect();
            twin_of(w, &twins).map(|t| t.1)
        }),
        [w] => switch_under_hip(w).or_else(|| twin_of(w, switches.unwrap_or(&[])).map(|t| t.1)),
        [var, op, lit] if matches!(op.as_str(), "STREQUAL" | "EQUAL") => {
            let v = var.trim_start_matches("${").trim_end_matches('}');
            // `COMPUTE_BACKEND STREQUAL "hip"`: a literal that is a platform name alone, or a
            // name whose `_`/`-` words name one platform (`STDGPU_BACKEND STREQUAL
            // STDGPU_BACKEND_CUDA`, `"ROCm-HIP"`).
            let parts: Vec<String> = lit.split(['_', '-']).map(str::to_ascii_lowercase).collect();
            // `HIP_COMPILER STREQUAL "hcc"`, `HIP_PLATFORM STREQUAL "hcc"`: HCC, the compiler
            // ROCm dropped in 4.0, and its platform name (`amd` since ROCm 4.1); no ROCm build
            // this tool targets reports it.
            if parts == ["hcc"] && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                return Some(false);
            }
            if v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                platform_word(&parts)
            } else {
                None
            }
        }
        // cp2k's `if(CP2K_USE_ACCEL MATCHES CUDA)` … `else(CP2K_USE_ACCEL MATCHES HIP)`, and
        // `MATCHES "CUDA|HIP"`: a regular expression of plain words, each a platform (or not).
        // It matches the HIP build's value when one alternative names HIP; none when every
        // alternative names another platform.
        [var, op, lit] if op == "MATCHES" => {
            let v = var.trim_start_matches("${").trim_end_matches('}');
            let re = lit.trim_matches('"');
            if !v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                || !re.bytes().all(|b| {
                    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'|' | b'^' | b'$')
                })
            {
                return None;
            }
            let alts: Vec<Option<bool>> = re
                .split('|')
                .map(|a| {
                    let parts: Vec<String> = a
                        .trim_matches(['^', '$'])
                        .split(['_', '-'])
                        .map(str::to_ascii_lowercase)
                        .collect();
                    platform_word(&parts)
                })
                .collect();
            if alts.contains(&Some(true)) {
                Some(true)
            } else if alts.iter().all(|a| *a == Some(false)) {
                Some(false)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// `args` split at the operator `op` outside parentheses: `(A OR B) AND C` is one `OR`
/// operand, two `AND` operands.
fn split_top<'a>(args: &'a [String], op: &str) -> Vec<&'a [String]> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (k, a) in args.iter().enumerate() {
        match a.as_str() {
            "(" => depth += 1,
            ")" => depth = depth.saturating_sub(1),
            w if w == op && depth == 0 => {
                out.push(&args[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    out.push(&args[start..]);
    out
}

/// An arm of an `if()` chain that the project's HIP build never runs, and why.
pub(crate) struct DeadArm {
    pub range: std::ops::Range<usize>,
    /// `Some(true)`: the HIP build takes this arm; `None`: it may (the `why` of both names the
    /// arm); `Some(false)`: it never runs it.
    pub taken: Option<bool>,
    pub why: String,
    /// Decided by the operating system (the arm only another OS takes), not by the HIP build's
    /// switches.
    pub by_os: bool,
    /// For an arm the HIP build never runs: the arm of the same chain that tests for the HIP
    /// build and that it takes (bitsandbytes' `elseif(BUILD_HIP)` beside `if(BUILD_CUDA)`), as
    /// `` `elseif(BUILD_HIP)` (line 130) ``: the project's own HIP configuration of that choice.
    pub own_hip_arm: Option<String>,
}

/// The condition words of an `if`/`elseif` command (unquoted).
pub(crate) fn cond_words(cmd: tree_sitter::Node, src: &[u8]) -> Vec<String> {
    let Some(list) = ts::named_children(cmd)
        .into_iter()
        .find(|x| x.node_kind() == K::ArgumentList)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for k in 0..list.child_count() {
        let Some(a) = list.child(k) else { continue };
        // An unspaced group's parentheses are anonymous tokens of the list
        // (`if((A OR B) AND C)`): they keep `AND` from splitting the group.
        if !a.is_named() {
            let t = ts::text(a, src);
            if t == "(" || t == ")" {
                out.push(t.to_string());
            }
            continue;
        }
        let raw = ts::text(a, src);
        // Parentheses inside a condition are arguments of their own in tree-sitter-cmake only
        // when spaced; split them off so `(A OR B)` reads as a group.
        let mut t = unquote(raw).to_string();
        while let Some(r) = t.strip_prefix('(') {
            out.push("(".to_string());
            t = r.to_string();
        }
        let mut close = 0;
        while let Some(r) = t.strip_suffix(')') {
            close += 1;
            t = r.to_string();
        }
        if !t.is_empty() {
            out.push(t);
        }
        out.extend(std::iter::repeat_n(")".to_string(), close));
    }
    out
}

/// The arms of every `if()` chain that the HIP build of a project never runs, in a CMake file
/// that tests for the HIP build somewhere (a ROCm switch in a condition): the arms whose
/// condition is false there (`if(BUILD_CUDA)`, `if(NOT USE_ROCM)`) and every arm after one that
/// is certainly taken there (`else()` of `if(BUILD_HIP)`); and, marked so, the arms it takes or
/// may take. In a file without a HIP test only the operating system decides (`if(WIN32)` is
/// dead on Linux): a CUDA-only project's `if(USE_CUDA)` is porting work.
///
/// `twins` are the project's twin switches in scope of this file ([`twin_switches`]): a file that
/// tests one (`if(${FOO_NVIDIA_BACKEND})`) tests for the HIP build, which sets the ROCm twin.
pub(crate) fn hip_dead_arms(root: tree_sitter::Node, src: &[u8], twins: &[Twin]) -> Vec<DeadArm> {
    hip_dead_arms_with(root, src, twins, &[])
}

/// [`hip_dead_arms`] knowing the project's backend selectors ([`hip_selectors`]): a file that
/// compares one (`if(WarpX_COMPUTE STREQUAL CUDA)` in a `.cmake` file of a project whose top
/// file tests `elseif(WarpX_COMPUTE STREQUAL HIP)`) tests for the HIP build too.
pub(crate) fn hip_dead_arms_with(
    root: tree_sitter::Node,
    src: &[u8],
    twins: &[Twin],
    selectors: &[(String, String)],
) -> Vec<DeadArm> {
    let mut chains = Vec::new();
    ts::each(root, &mut |n| {
        if n.node_kind() == K::IfCondition {
            chains.push(n);
        }
    });
    let line = |b: usize| src[..b].iter().filter(|&&c| c == b'\n').count() + 1;
    let head = |cmd: tree_sitter::Node| {
        let t = ts::text(cmd, src);
        t.split_whitespace().collect::<Vec<_>>().join(" ")
    };
    // The first condition that tests for the HIP build, as the reason's anchor.
    let mut hip_test: Option<(usize, String)> = None;
    // Each chain's twins: the project's, the variables its arms test one each, and the
    // backend variables another chain of the file tests as alternatives (`if(GMX_GPU_CUDA) …
    // elseif(GMX_GPU_HIP)` makes a later `if(GMX_NVSHMEM AND GMX_GPU_CUDA)` the CUDA build's).
    let own: Vec<Vec<Twin>> = chains.iter().map(|c| chain_twins(*c, src)).collect();
    let by_value: Vec<Twin> = own
        .iter()
        .flatten()
        .filter(|t| !t.by_definition)
        .cloned()
        .collect();
    let chain_twins: Vec<Vec<Twin>> = own
        .into_iter()
        .map(|c| {
            let mut t = twins.to_vec();
            t.extend(c);
            t.extend(by_value.iter().cloned());
            t
        })
        .collect();
    // Whether a condition names the HIP build: a twin switch or a ROCm word.
    let names_hip = |words: &[String], twins: &[Twin]| {
        words.iter().any(|w| {
            if twin_of(w, twins).is_some() {
                return true;
            }
            let parts: Vec<String> = w
                .trim_start_matches("${")
                .trim_end_matches('}')
                .split('_')
                .map(|p| p.to_ascii_lowercase())
                .collect();
            platform_word(&parts) == Some(true)
        })
    };
    for (c, twins) in chains.iter().zip(&chain_twins) {
        let twins = twins.as_slice();
        for cmd in ts::named_children(*c) {
            if matches!(cmd.node_kind(), K::IfCommand | K::ElseifCommand)
                && cond_under_hip(&cond_words(cmd, src), twins).is_some()
                && names_hip(&cond_words(cmd, src), twins)
                && hip_test.is_none()
            {
                hip_test = Some((line(cmd.start_byte()), head(cmd)));
            }
        }
    }
    // The project's selector compared here: its HIP test in another file is the anchor.
    let mut anchor: Option<String> = None;
    if hip_test.is_none() {
        'find: for c in &chains {
            for cmd in ts::named_children(*c) {
                if !matches!(cmd.node_kind(), K::IfCommand | K::ElseifCommand) {
                    continue;
                }
                let words = cond_words(cmd, src);
                for w in words.windows(2) {
                    let var = w[0].trim_start_matches("${").trim_end_matches('}');
                    if matches!(w[1].as_str(), "STREQUAL" | "MATCHES") {
                        if let Some((_, at)) = selectors.iter().find(|(v, _)| v == var) {
                            anchor = Some(at.clone());
                            hip_test = Some((line(cmd.start_byte()), head(cmd)));
                            break 'find;
                        }
                    }
                }
            }
        }
    }
    // Without a HIP test only the operating system decides, and only dead arms are reported.
    let hip_aware = hip_test.is_some();
    let (hip_line, hip_head) = hip_test.unwrap_or_default();
    let mut out = Vec::new();
    for (c, twins) in chains.into_iter().zip(&chain_twins) {
        let twins = twins.as_slice();
        let kids = ts::named_children(c);
        let mut taken_before = false;
        // The arm taken on Linux by its operating-system test, when one is.
        let mut os_taker: Option<String> = None;
        let mut all_false = true;
        // The first twin switch the chain tests, which names why its CUDA arms are dead.
        let mut chain_twin: Option<&Twin> = None;
        // The chain's own HIP arm: one that names the HIP build and that it takes.
        let own_hip_arm = kids
            .iter()
            .filter(|k| hip_aware && matches!(k.node_kind(), K::IfCommand | K::ElseifCommand))
            .find(|k| {
                let words = cond_words(**k, src);
                names_hip(&words, twins) && cond_value(&words, Some(twins)) == Some(true)
            })
            .map(|k| format!("`{}` (line {})", head(*k), line(k.start_byte())));
        let mut i = 0;
        while i < kids.len() {
            let cmd = kids[i];
            let (value, os_value) = match cmd.node_kind() {
                K::IfCommand | K::ElseifCommand => {
                    let words = cond_words(cmd, src);
                    if chain_twin.is_none() {
                        chain_twin = words.iter().find_map(|w| twin_of(w, twins)).map(|t| t.0);
                    }
                    (
                        cond_value(&words, hip_aware.then_some(twins)),
                        cond_value(&words, None),
                    )
                }
                K::ElseCommand => (None, None),
                _ => {
                    i += 1;
                    continue;
                }
            };
            // The arm runs from its command to the next command of the chain.
            let end = kids[i + 1..]
                .iter()
                .find(|k| {
                    matches!(
                        k.node_kind(),
                        K::ElseifCommand | K::ElseCommand | K::EndifCommand
                    )
                })
                .map_or(c.end_byte(), |k| k.start_byte());
            let arm = head(cmd);
            // Certainly taken only when every earlier arm is certainly not (`elseif(NOT WIN32)`
            // after an undecided `if(OpenMP_FOUND)` may not run).
            let taken = all_false && (value == Some(true) || cmd.node_kind() == K::ElseCommand);
            let dead = taken_before || value == Some(false);
            if !dead && hip_aware {
                out.push(DeadArm {
                    range: cmd.start_byte()..end,
                    why: format!("`{arm}` (line {})", line(cmd.start_byte())),
                    taken: taken.then_some(true),
                    by_os: false,
                    own_hip_arm: None,
                });
            }
            all_false &= value == Some(false);
            // Decided by the operating system: this arm's own test is false on Linux, or an
            // earlier arm's is true there.
            let by_os = if taken_before {
                os_taker.clone()
            } else {
                (os_value == Some(false)).then(|| arm.clone())
            };
            if dead {
                let at = line(cmd.start_byte());
                let os_decided = by_os.is_some();
                let why = match by_os {
                    Some(test) => format!(
                        "in the `{arm}` arm (line {at}), which only another operating system \
                         takes{}: the ROCm build's target OS is Linux",
                        if test == arm {
                            String::new()
                        } else {
                            format!(" (`{test}`)")
                        }
                    ),
                    None => match chain_twin {
                        Some(t) => format!(
                            "in the `{arm}` arm (line {at}), which the project's HIP build never runs: `{}` selects the CUDA build and the ROCm build sets its twin `{}` ({})",
                            t.cuda, t.rocm, t.at
                        ),
                        None => match &anchor {
                            Some(where_) => format!(
                                "in the `{arm}` arm (line {at}), which the project's HIP build never runs: the project selects its HIP build with {where_}"
                            ),
                            None => format!(
                                "in the `{arm}` arm (line {at}), which the project's HIP build never runs: this file builds for HIP under `{hip_head}` (line {hip_line})"
                            ),
                        },
                    },
                };
                out.push(DeadArm {
                    taken: Some(false),
                    range: cmd.start_byte()..end,
                    why,
                    by_os: os_decided,
                    own_hip_arm: if os_decided {
                        None
                    } else {
                        own_hip_arm.clone()
                    },
                });
            }
            if !taken_before && os_value == Some(true) {
                os_taker = Some(arm.clone());
            }
            taken_before |= value == Some(true);
            i += 1;
        }
    }
    out
}

/// The project's backend selectors a CMake file tests against a HIP value (`elseif(WarpX_COMPUTE
/// STREQUAL HIP)`, `if(GPU_BACKEND MATCHES "ROCm")`): the variable, and the test as a reason's
/// anchor (`` `elseif(WarpX_COMPUTE STREQUAL HIP)` (CMakeLists.txt:242) ``, `rel` naming the file).
pub fn hip_selectors(src: &[u8], rel: &str) -> Vec<(String, String)> {
    let Some(tree) = ts::parse(Lang::CMake, src) else {
        return Vec::new();
    };
    let line = |b: usize| src[..b].iter().filter(|&&c| c == b'\n').count() + 1;
    let mut out: Vec<(String, String)> = Vec::new();
    ts::each(tree.root_node(), &mut |cmd| {
        if !matches!(cmd.node_kind(), K::IfCommand | K::ElseifCommand) {
            return;
        }
        let words = cond_words(cmd, src);
        for w in words.windows(3) {
            let value: Vec<String> = unquote(&w[2])
                .split(['_', '-'])
                .map(|p| p.to_ascii_lowercase())
                .collect();
            let var = w[0].trim_start_matches("${").trim_end_matches('}');
            if matches!(w[1].as_str(), "STREQUAL" | "MATCHES")
                && platform_word(&value) == Some(true)
                && !var.is_empty()
                && var.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                && !out.iter().any(|(v, _)| v == var)
            {
                let head = ts::text(cmd, src)
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                out.push((
                    var.to_string(),
                    format!("`{head}` ({rel}:{})", line(cmd.start_byte())),
                ));
            }
        }
    });
    out
}

/// The arms of a CMake file that the project's HIP build never runs once the project's twin
/// switches in scope are known (`if(${FOO_NVIDIA_BACKEND})` in a subdirectory whose parent
/// declares `FOO_AMD_BACKEND`), with the reason.
pub fn dead_arms_with_twins(
    src: &[u8],
    twins: &[Twin],
    selectors: &[(String, String)],
) -> Vec<(std::ops::Range<usize>, String)> {
    if twins.is_empty() && selectors.is_empty() {
        return Vec::new();
    }
    let Some(tree) = ts::parse(Lang::CMake, src) else {
        return Vec::new();
    };
    hip_dead_arms_with(tree.root_node(), src, twins, selectors)
        .into_iter()
        .filter(|a| a.taken == Some(false))
        .map(|a| (a.range, a.why))
        .collect()
}
