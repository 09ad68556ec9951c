//! CMake through tree-sitter-cmake: each command with its arguments (comments are not
//! arguments). Finds the CUDA language, CUDA packages and `CUDA::` targets, CUDA architectures,
//! nvcc flag variables and FindCUDA macros, plus CUDA paths and libraries in any argument.
//!
//! A CMake build that already builds for HIP (`if(BUILD_CUDA) … elseif(BUILD_HIP) …`,
//! `if(COMPUTE_BACKEND STREQUAL "hip")`, `if(NOT USE_ROCM)`) keeps its CUDA settings in the arms
//! its HIP build never runs: findings there are PASS, not porting work (`hip_dead_arms`), and a
//! source listed only in such an arm is not compiled by the HIP build ([`cuda_only_sources`]).
//! The other polarity: a `message(FATAL_ERROR …)` in an arm the HIP build takes (`else()` of
//! `if(BUILD_CUDA)`, `if(HIP_FOUND)`) ends the ROCm configure, and is reported (HP846).
//!
//! The operating system decides arms in every CMake file, HIP-aware or not: the ROCm builds this
//! tool targets run on Linux, so `if(WIN32)`, `if(MSVC)`, `if(APPLE)`, `if(CMAKE_SYSTEM_NAME
//! STREQUAL "Windows")` arms (and the `else()` of `if(UNIX)`) are not the ROCm build's: their
//! findings are PASS naming the condition (`os_word`).

use super::build;
use super::shell::unquote;
use super::ts::{self, Lang};
use super::words::{self, Cx, Site, Word};
use super::Out;
use crate::kinds::cmake::{Kind as K, NodeExt};

pub fn scan(out: &mut Out) {
    let src = out.src();
    let Some(tree) = ts::parse(Lang::CMake, src) else {
        return;
    };
    let mut cmds = Vec::new();
    ts::each(tree.root_node(), &mut |n| {
        if n.node_kind() == K::NormalCommand {
            cmds.push(n);
        }
    });
    let (live, dead): (Vec<DeadArm>, Vec<DeadArm>) = hip_dead_arms(tree.root_node(), src)
        .into_iter()
        .partition(|a| a.taken != Some(false));
    for c in cmds {
        let Some(name) = ts::named_children(c)
            .into_iter()
            .find(|x| x.node_kind() == K::Identifier)
        else {
            continue;
        };
        let cmd = ts::text(name, src).to_ascii_lowercase();
        let mut args: Vec<Word> = Vec::new();
        if let Some(list) = ts::named_children(c)
            .into_iter()
            .find(|x| x.node_kind() == K::ArgumentList)
        {
            for a in ts::named_children(list) {
                let raw = ts::text(a, src);
                let t = unquote(raw);
                let off = a.start_byte() + (raw.len() - t.len()) / 2;
                args.push(Word::new(t, off..off + t.len()));
            }
        }
        if cmd == "message"
            && args
                .first()
                .is_some_and(|a| a.text == "FATAL_ERROR" || a.text == "SEND_ERROR")
            && !dead.iter().any(|d| d.range.contains(&c.start_byte()))
        {
            // The innermost arm around this stop, when the HIP build certainly takes it (an
            // undecided `if(APPLE)` inside the HIP arm decides nothing).
            if let Some(arm) = live
                .iter()
                .filter(|t| t.range.contains(&c.start_byte()))
                .min_by_key(|t| t.range.len())
                .filter(|t| t.taken == Some(true))
            {
                out.push(
                    &build::CMAKE_ROCM_ARM_FAILS,
                    c.byte_range(),
                    format!(
                        "the project's HIP build takes the {} arm, and this `message({})` ends its configure",
                        arm.why, args[0].text
                    ),
                    Some("give the ROCm build its own arm, or drop the check if it does not need what it guards".into()),
                );
            }
        }
        command(out, &cmd, name.byte_range(), &args);
    }
    let ranges: Vec<(std::ops::Range<usize>, String)> =
        dead.into_iter().map(|a| (a.range, a.why)).collect();
    out.pass_within(&ranges, &[], |why| format!(" ({why})"));
}

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
fn platform_word(parts: &[String]) -> Option<bool> {
    let mut side = None;
    for p in parts {
        let s = match p.as_str() {
            "hip" | "rocm" | "amd" | "amdgpu" => true,
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
fn cond_under_hip(args: &[String]) -> Option<bool> {
    cond_value(args, true)
}

/// [`cond_under_hip`] with the project's switches read (`switches`) or only the operating
/// system (a file that never tests for the HIP build).
fn cond_value(args: &[String], switches: bool) -> Option<bool> {
    let or: Vec<&[String]> = args.split(|a| a == "OR").collect();
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
    let and: Vec<&[String]> = args.split(|a| a == "AND").collect();
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
        _ if !switches => None,
        [defined, w] if defined == "DEFINED" => switch_under_hip(w),
        [w] => switch_under_hip(w),
        [var, op, lit] if matches!(op.as_str(), "STREQUAL" | "EQUAL") => {
            let v = var.trim_start_matches("${").trim_end_matches('}');
            let parts = vec![lit.to_ascii_lowercase()];
            // `COMPUTE_BACKEND STREQUAL "hip"`: a literal that is a platform name alone.
            if v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                platform_word(&parts)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// An arm of an `if()` chain that the project's HIP build never runs, and why.
pub(crate) struct DeadArm {
    pub range: std::ops::Range<usize>,
    /// `Some(true)`: the HIP build takes this arm; `None`: it may (the `why` of both names the
    /// arm); `Some(false)`: it never runs it.
    pub taken: Option<bool>,
    pub why: String,
}

/// The condition words of an `if`/`elseif` command (unquoted).
fn cond_words(cmd: tree_sitter::Node, src: &[u8]) -> Vec<String> {
    let Some(list) = ts::named_children(cmd)
        .into_iter()
        .find(|x| x.node_kind() == K::ArgumentList)
    else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for a in ts::named_children(list) {
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
/// may take. Nothing in a file without a HIP test: a CUDA-only project's `if(USE_CUDA)` is
/// porting work.
pub(crate) fn hip_dead_arms(root: tree_sitter::Node, src: &[u8]) -> Vec<DeadArm> {
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
    for c in &chains {
        for cmd in ts::named_children(*c) {
            if matches!(cmd.node_kind(), K::IfCommand | K::ElseifCommand)
                && cond_under_hip(&cond_words(cmd, src)).is_some()
                && cond_words(cmd, src).iter().any(|w| {
                    let parts: Vec<String> = w
                        .trim_start_matches("${")
                        .trim_end_matches('}')
                        .split('_')
                        .map(|p| p.to_ascii_lowercase())
                        .collect();
                    platform_word(&parts) == Some(true)
                })
                && hip_test.is_none()
            {
                hip_test = Some((line(cmd.start_byte()), head(cmd)));
            }
        }
    }
    // Without a HIP test only the operating system decides, and only dead arms are reported.
    let hip_aware = hip_test.is_some();
    let (hip_line, hip_head) = hip_test.unwrap_or_default();
    let mut out = Vec::new();
    for c in chains {
        let kids = ts::named_children(c);
        let mut taken_before = false;
        // The arm taken on Linux by its operating-system test, when one is.
        let mut os_taker: Option<String> = None;
        let mut all_false = true;
        let mut i = 0;
        while i < kids.len() {
            let cmd = kids[i];
            let (value, os_value) = match cmd.node_kind() {
                K::IfCommand | K::ElseifCommand => {
                    let words = cond_words(cmd, src);
                    (cond_value(&words, hip_aware), cond_value(&words, false))
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
                    None => format!(
                        "in the `{arm}` arm (line {at}), which the project's HIP build never runs: this file builds for HIP under `{hip_head}` (line {hip_line})"
                    ),
                };
                out.push(DeadArm {
                    taken: Some(false),
                    range: cmd.start_byte()..end,
                    why,
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

/// Source files (`.cu`, `.cpp`, … as written, relative to the CMake file's folder) that a CMake
/// file lists only in arms its HIP build never runs, with the reason: the HIP build does not
/// compile them (bitsandbytes: `gemm_4bit_sm80.cu` only under `if(BUILD_CUDA)`).
pub fn cuda_only_sources(src: &[u8]) -> Vec<(String, String)> {
    let Some(tree) = ts::parse(Lang::CMake, src) else {
        return Vec::new();
    };
    let dead: Vec<DeadArm> = hip_dead_arms(tree.root_node(), src)
        .into_iter()
        .filter(|a| a.taken == Some(false))
        .collect();
    if dead.is_empty() {
        return Vec::new();
    }
    let mut inside: Vec<(String, String)> = Vec::new();
    let mut outside: std::collections::HashSet<String> = std::collections::HashSet::new();
    ts::each(tree.root_node(), &mut |n| {
        if n.node_kind() != K::ArgumentList {
            return;
        }
        for a in ts::named_children(n) {
            let raw = ts::text(a, src);
            for w in unquote(raw).split([' ', ';']) {
                let w = w
                    .trim_start_matches("${CMAKE_CURRENT_SOURCE_DIR}/")
                    .trim_start_matches("${CMAKE_CURRENT_LIST_DIR}/")
                    .trim_start_matches("./");
                let ext = w.rsplit_once('.').map_or("", |(_, e)| e);
                if w.contains('$')
                    || !matches!(ext, "cu" | "cuh" | "cpp" | "cc" | "cxx" | "c" | "h" | "hpp")
                {
                    continue;
                }
                match dead.iter().find(|d| d.range.contains(&a.start_byte())) {
                    Some(d) => inside.push((w.to_string(), d.why.clone())),
                    None => {
                        outside.insert(w.to_string());
                    }
                }
            }
        }
    });
    inside.retain(|(w, _)| !outside.contains(w));
    inside.sort();
    inside.dedup_by(|a, b| a.0 == b.0);
    inside
}

fn command(out: &mut Out, cmd: &str, name_range: std::ops::Range<usize>, args: &[Word]) {
    let first = args.first().map(|w| w.text.as_str()).unwrap_or("");
    match cmd {
        "project" => {
            for w in args.iter().skip(1).filter(|w| w.text == "CUDA") {
                out.push(
                    &build::CMAKE_CUDA_LANGUAGE,
                    w.range.clone(),
                    "project() enables the CUDA language".into(),
                    Some("LANGUAGES HIP (CMake 3.21+)".into()),
                );
            }
        }
        "enable_language" if args.iter().any(|w| w.text == "CUDA") => {
            let w = args.iter().find(|w| w.text == "CUDA").unwrap();
            out.push(
                &build::CMAKE_CUDA_LANGUAGE,
                w.range.clone(),
                "enable_language(CUDA)".into(),
                Some("enable_language(HIP)".into()),
            );
        }
        "find_package"
            if matches!(
                first.to_ascii_uppercase().as_str(),
                "CUDA" | "CUDATOOLKIT" | "NCCL" | "CUDNN"
            ) =>
        {
            let sugg = match first.to_ascii_uppercase().as_str() {
                "NCCL" => "find_package(rccl)",
                "CUDNN" => "find_package(miopen)",
                _ => "find_package(hip) and the ROCm library packages (hipblas, hipfft...)",
            };
            out.push(
                &build::CMAKE_FIND_CUDA_PACKAGE,
                args[0].range.clone(),
                format!("find_package({first}) finds an NVIDIA toolkit"),
                Some(sugg.into()),
            );
        }
        "cuda_add_library"
        | "cuda_add_executable"
        | "cuda_add_cublas_to_target"
        | "cuda_add_cufft_to_target"
        | "cuda_compile"
        | "cuda_wrap_srcs"
        | "cuda_include_directories" => {
            out.push(
                &build::CMAKE_FINDCUDA_MACRO,
                name_range,
                format!("{cmd}() is a FindCUDA macro"),
                Some("add_library/add_executable with LANGUAGE HIP".into()),
            );
        }
        _ => {}
    }
    if cmd == "message" {
        return;
    }
    let setter = matches!(cmd, "set" | "list" | "string");
    for (i, w) in args.iter().enumerate() {
        let t = w.text.as_str();
        if cmd == "message" {
            return;
        }
        if let Some(lib) = t
            .strip_prefix("CUDA::")
            .filter(|l| !l.contains(char::is_whitespace))
        {
            out.push(
                &build::CMAKE_CUDA_IMPORTED_TARGET,
                w.range.clone(),
                format!("imported target {t} exists only with FindCUDAToolkit"),
                Some(build::rocm_target(lib).into()),
            );
        } else if matches!(
            t,
            "CMAKE_CUDA_ARCHITECTURES"
                | "CUDA_ARCHITECTURES"
                | "TORCH_CUDA_ARCH_LIST"
                | "CUDA_ARCH_LIST"
        ) {
            out.push(
                &build::CUDA_ARCH_FLAG,
                w.range.clone(),
                format!("{t} lists NVIDIA architectures"),
                Some(
                    "CMAKE_HIP_ARCHITECTURES / HIP_ARCHITECTURES with gfx targets (e.g. gfx942)"
                        .into(),
                ),
            );
        } else if matches!(
            t,
            "CUDA_NVCC_FLAGS"
                | "CMAKE_CUDA_FLAGS"
                | "CUDA_NVCC_FLAGS_RELEASE"
                | "CMAKE_CUDA_FLAGS_RELEASE"
        ) && (setter || i == 0)
        {
            out.push(
                &build::CMAKE_NVCC_FLAGS,
                w.range.clone(),
                format!("{t} passes flags to nvcc"),
                Some("CMAKE_HIP_FLAGS with clang/hipcc flags".into()),
            );
        } else if cmd == "target_link_libraries" && i > 0 {
            if let Some(r) = build::rocm_library(t) {
                out.push(
                    &build::CUDA_LIBRARY_LINK,
                    w.range.clone(),
                    format!("links CUDA library {t}"),
                    Some(r.into()),
                );
            }
        }
    }
    if setter && args.len() > 1 && cmd == "set" {
        let rest = &args[1..];
        if matches!(
            first,
            "CUDA_TOOLKIT_ROOT_DIR" | "CUDA_HOME" | "CUDA_PATH" | "CMAKE_CUDA_COMPILER"
        ) {
            out.push(
                &build::CUDA_INSTALL_PATH,
                args[0].range.clone(),
                format!("{first} points at a CUDA toolkit"),
                Some("ROCM_PATH (/opt/rocm)".into()),
            );
            return;
        }
        let words: Vec<Word> = rest
            .iter()
            .flat_map(|w| words::split(&w.text, w.range.start))
            .collect();
        words::command(out, &words, Site::Build, Cx::default());
    } else {
        let words: Vec<Word> = args
            .iter()
            .flat_map(|w| words::split(&w.text, w.range.start))
            .collect();
        words::command(out, &words, Site::Build, Cx::default());
    }
}

#[cfg(test)]
mod tests {
    use super::super::{kind::FileKind, scan_bytes};

    fn rules(src: &str) -> Vec<(String, u32)> {
        scan_bytes("CMakeLists.txt", FileKind::CMake, src.as_bytes())
            .into_iter()
            .map(|f| (f.rule, f.line))
            .collect()
    }

    /// bitsandbytes' CMakeLists.txt (MIT): CUDA settings under `if(BUILD_CUDA)`, a HIP arm, and a
    /// CUDA-only project's `if(USE_CUDA)` that stays porting work.
    #[test]
    fn cuda_arms_of_a_hip_aware_build_are_pass() {
        let src = "if(${COMPUTE_BACKEND} STREQUAL \"cuda\")\n    set(BUILD_CUDA ON)\nelseif(${COMPUTE_BACKEND} STREQUAL \"hip\")\n    set(BUILD_HIP ON)\nendif()\nif(BUILD_CUDA)\n    enable_language(CUDA)\n    find_package(CUDAToolkit REQUIRED)\n    string(APPEND CMAKE_CUDA_FLAGS \" --use_fast_math\")\n    list(APPEND SRC_FILES csrc/gemm_4bit_sm80.cu csrc/ops.cu)\nelseif(BUILD_HIP)\n    enable_language(HIP)\n    list(APPEND SRC_FILES csrc/ops.cu)\nendif()\nif(NOT USE_ROCM)\n    set(CMAKE_CUDA_ARCHITECTURES 80)\nelse()\n    set(X 1)\nendif()\nif(BUILD_HIP)\nelse()\n    target_link_libraries(x CUDA::cublas)\nendif()\nif(WIN32 AND BUILD_HIP)\nelse()\n    set(CMAKE_CUDA_ARCHITECTURES 90)\nendif()\ntarget_link_libraries(bnb CUDA::cudart)\n";
        let all = scan_bytes("CMakeLists.txt", FileKind::CMake, src.as_bytes());
        let open: Vec<u32> = all
            .iter()
            .filter(|f| f.status != crate::gate::Status::Pass)
            .map(|f| f.line)
            .collect();
        // Open: the arch list after `WIN32 AND BUILD_HIP` (HIP on Linux runs it) and the
        // unconditional CUDA::cudart link.
        assert_eq!(open, vec![26, 28]);
        let pass = all
            .iter()
            .find(|f| f.line == 7)
            .expect("enable_language(CUDA) is still reported");
        assert!(
            pass.message.contains("`if(BUILD_CUDA)` arm (line 6)"),
            "{}",
            pass.message
        );
        assert!(pass.message.contains("line 3"), "{}", pass.message);
        assert_eq!(
            super::cuda_only_sources(src.as_bytes())
                .into_iter()
                .map(|(p, _)| p)
                .collect::<Vec<_>>(),
            vec!["csrc/gemm_4bit_sm80.cu"]
        );
        // A CUDA-only project: `if(USE_CUDA)` decides nothing for a port.
        let cuda_only =
            "if(USE_CUDA)\n    enable_language(CUDA)\n    list(APPEND S k.cu)\nendif()\n";
        let f = scan_bytes("CMakeLists.txt", FileKind::CMake, cuda_only.as_bytes());
        assert_eq!(f.len(), 1);
        assert_ne!(f[0].status, crate::gate::Status::Pass);
        assert!(super::cuda_only_sources(cuda_only.as_bytes()).is_empty());
    }

    /// Arms only another operating system takes are not the ROCm build's (Linux), in any CMake
    /// file; the Linux arm and the `else()` of `if(WIN32)` stay open.
    #[test]
    fn other_operating_systems_arms_pass() {
        let src = "if(WIN32)\n  set(CMAKE_CUDA_FLAGS \"-Xcompiler /MD\")\nelseif(APPLE)\n  enable_language(CUDA)\nelse()\n  set(CMAKE_CUDA_ARCHITECTURES 80)\nendif()\nif(MSVC OR CMAKE_SYSTEM_NAME STREQUAL \"Darwin\")\n  find_package(CUDAToolkit)\nendif()\nif(UNIX)\n  set(CMAKE_CUDA_ARCHITECTURES 90)\nelse()\n  find_package(CUDA)\nendif()\n";
        let all = scan_bytes("CMakeLists.txt", FileKind::CMake, src.as_bytes());
        let open: Vec<u32> = all
            .iter()
            .filter(|f| f.status != crate::gate::Status::Pass)
            .map(|f| f.line)
            .collect();
        assert_eq!(open, vec![6, 12], "{all:#?}");
        let win = all.iter().find(|f| f.line == 2).expect("the MSVC flags");
        assert!(win.message.contains("`if(WIN32)`"), "{}", win.message);
        assert!(
            win.message.contains("target OS is Linux"),
            "{}",
            win.message
        );
        let els = all.iter().find(|f| f.line == 14).expect("the non-UNIX arm");
        assert!(els.message.contains("`if(UNIX)`"), "{}", els.message);
    }

    /// `HIP_FOUND` and `CMAKE_HIP_COMPILER` are true in the HIP build; a stop in an arm it takes
    /// is a failure, the same stop in an arm it skips is the CUDA build's.
    #[test]
    fn hip_package_arms_and_stops_on_the_rocm_arm() {
        let src = "find_package(hip)\nif(HIP_FOUND)\n  enable_language(HIP)\nelse()\n  find_package(CUDAToolkit REQUIRED)\nendif()\nif(BUILD_CUDA)\n  enable_language(CUDA)\nelse()\n  message(FATAL_ERROR \"CUDA is required\")\nendif()\nif(CMAKE_HIP_COMPILER)\nelse()\n  message(FATAL_ERROR \"no HIP\")\nendif()\nif(USE_ROCM)\n  message(STATUS \"ROCm\")\n  if(APPLE)\n    message(FATAL_ERROR \"not on macOS\")\n  endif()\nendif()\n";
        let all = scan_bytes("CMakeLists.txt", FileKind::CMake, src.as_bytes());
        let got: Vec<(&str, u32, crate::gate::Status)> = all
            .iter()
            .map(|f| (f.rule.as_str(), f.line, f.status))
            .collect();
        use crate::gate::Status::{Pass, Remediation};
        assert_eq!(
            got,
            vec![
                ("HP841", 5, Pass),
                ("HP840", 8, Pass),
                ("HP846", 10, Remediation),
            ],
            "{all:#?}"
        );
        assert!(
            all[2].message.contains("`else()` (line 9)"),
            "{}",
            all[2].message
        );
        // The twin: a CUDA-only project's `else()` stop is not judged (no HIP build to take it).
        let cuda_only = "if(USE_CUDA)\n  enable_language(CUDA)\nelse()\n  message(FATAL_ERROR \"x\")\nendif()\n";
        let f = scan_bytes("CMakeLists.txt", FileKind::CMake, cuda_only.as_bytes());
        assert!(f.iter().all(|f| f.rule != "HP846"), "{f:#?}");
    }

    #[test]
    fn cmake_items() {
        let src = "cmake_minimum_required(VERSION 3.18)\nproject(demo LANGUAGES CXX CUDA)\n# find_package(CUDA) in a comment\nfind_package(CUDAToolkit REQUIRED)\nset(CMAKE_CUDA_ARCHITECTURES 70 80)\nset(CUDA_NVCC_FLAGS \"${CUDA_NVCC_FLAGS} -gencode arch=compute_80,code=sm_80\")\ncuda_add_library(k k.cu)\ntarget_link_libraries(demo PRIVATE CUDA::cudart CUDA::cublas nccl)\nmessage(STATUS \"CUDA::cudart is only text here\")\n";
        let r = rules(src);
        assert_eq!(
            r,
            vec![
                ("HP840".into(), 2),
                ("HP841".into(), 4),
                ("HP843".into(), 5),
                ("HP844".into(), 6),
                ("HP843".into(), 6),
                ("HP845".into(), 7),
                ("HP842".into(), 8),
                ("HP842".into(), 8),
                ("HP851".into(), 8),
            ]
        );
    }
}
