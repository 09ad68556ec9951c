//! Flags only FindCUDA reads. `CUDA_NVCC_FLAGS` is FindCUDA's variable: `cuda_add_library`,
//! `cuda_add_executable` and `cuda_compile*` pass it to nvcc, and nothing else reads it (CMake's
//! CUDA language reads `CMAKE_CUDA_FLAGS`; FindHIP's `hip_add_library`/`hip_add_executable`
//! read `HIP_HIPCC_FLAGS`, `HIP_CLANG_FLAGS` and `HIP_NVCC_FLAGS`; CMake's HIP language reads
//! `CMAKE_HIP_FLAGS`). Sources: CMake's FindCUDA documentation
//! (<https://cmake.org/cmake/help/latest/module/FindCUDA.html>, "CUDA_NVCC_FLAGS") and
//! FindHIP.cmake (<https://github.com/ROCm/hip/blob/develop/cmake/FindHIP.cmake>,
//! `HIP_HIPCC_FLAGS`, `HIP_CLANG_FLAGS`, `HIP_NVCC_FLAGS`).
//!
//! So in a project whose HIP build compiles through FindHIP or CMake's HIP language, a line that
//! sets `CUDA_NVCC_FLAGS` (its nvcc flags, its `-gencode` lists) never reaches the ROCm build:
//! its findings are PASS naming the HIP build's target. Not so where the project copies the
//! variable into a HIP one (`set(HIP_HIPCC_FLAGS ${CUDA_NVCC_FLAGS})`), or has no HIP build of
//! its own (then the flags are the port's work).

use crate::finding::Finding;
use crate::gate::Status;

/// FindCUDA's flag variables.
const FINDCUDA_VARS: [&str; 3] = [
    "CUDA_NVCC_FLAGS",
    "CUDA_NVCC_FLAGS_RELEASE",
    "CUDA_NVCC_FLAGS_DEBUG",
];

/// `path:line` of the project's first HIP target (FindHIP's `hip_add_library` /
/// `hip_add_executable`, or `enable_language(HIP)` / `LANGUAGES … HIP`), unless a HIP variable
/// is set from FindCUDA's flags somewhere.
fn hip_build(cmake: &[(&str, &[u8])]) -> Option<String> {
    let mut first = None;
    for (rel, text) in cmake {
        let text = String::from_utf8_lossy(text);
        for (n, line) in text.lines().enumerate() {
            let code = line.split('#').next().unwrap_or("");
            let lower = code.to_ascii_lowercase();
            if FINDCUDA_VARS
                .iter()
                .any(|v| code.contains(&format!("${{{v}}}")))
                && code.contains("HIP")
            {
                return None;
            }
            let hip_target = ["hip_add_library", "hip_add_executable"]
                .iter()
                .any(|c| lower.trim_start().starts_with(c))
                || (lower.contains("enable_language") && code.contains("HIP"))
                || (lower.trim_start().starts_with("project") && code.contains(" HIP"))
                // Sources compiled as CMake's HIP language (`enable_language(${GPU_RUNTIME})`
                // then `set_source_files_properties(… LANGUAGE HIP)`), or FindHIP's and the HIP
                // language's own flag variables set for the build.
                || word_then(code, "LANGUAGE", "HIP")
                || ["HIP_HIPCC_FLAGS", "CMAKE_HIP_FLAGS", "CMAKE_HIP_ARCHITECTURES"]
                    .iter()
                    .any(|v| sets_var(code, v))
                // FindHIP's compiler read for the HIP arm (RAJAPerf: `${HIP_HIPCC_EXECUTABLE}`).
                || code.contains("${HIP_HIPCC_");
            if hip_target && first.is_none() {
                first = Some(format!("{rel}:{}", n + 1));
            }
        }
    }
    first
}

/// Whether `code` has the word `a` followed (after spaces) by the word `b`.
fn word_then(code: &str, a: &str, b: &str) -> bool {
    code.match_indices(a).any(|(i, _)| {
        let before = code[..i].chars().next_back();
        let rest = code[i + a.len()..].trim_start();
        !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            && code[i + a.len()..].starts_with(char::is_whitespace)
            && rest.starts_with(b)
            && !rest[b.len()..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
    })
}

/// Whether a CMake line sets `var` (`set(var …)`, `list(APPEND var …)`, `string(APPEND var …)`).
fn sets_var(code: &str, var: &str) -> bool {
    set_target(code).is_some_and(|v| v == var)
}

/// The variable a `set`/`list`/`string` command sets.
fn set_target(line: &str) -> Option<&str> {
    let code = line.split('#').next().unwrap_or("").trim_start();
    let open = code.find('(')?;
    let cmd = code[..open].trim().to_ascii_lowercase();
    let mut args = code[open + 1..]
        .split(|c: char| c.is_whitespace() || c == ')')
        .filter(|w| !w.is_empty());
    match cmd.as_str() {
        "set" => args.next(),
        "list" | "string" => args.nth(1),
        _ => None,
    }
}

/// Whether a CMake line sets one of FindCUDA's flag variables (`set(CUDA_NVCC_FLAGS …)`,
/// `list(APPEND CUDA_NVCC_FLAGS …)`, `string(APPEND CUDA_NVCC_FLAGS …)`).
fn sets_findcuda_flags(line: &str) -> bool {
    set_target(line).is_some_and(|v| FINDCUDA_VARS.contains(&v))
}

/// `path:line` of the first `enable_language(HIP)` / `project(… HIP …)`: CMake's HIP language.
fn hip_language(cmake: &[(&str, &[u8])]) -> Option<String> {
    for (rel, text) in cmake {
        let text = String::from_utf8_lossy(text);
        for (n, line) in text.lines().enumerate() {
            let code = line.split('#').next().unwrap_or("");
            let lower = code.to_ascii_lowercase();
            if (lower.contains("enable_language") || lower.trim_start().starts_with("project"))
                && code
                    .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .any(|w| w == "HIP")
            {
                return Some(format!("{rel}:{}", n + 1));
            }
        }
    }
    None
}

/// Whether some CMake file enables the CUDA language outside any `if()`: `project(… CUDA …)` or
/// an `enable_language(CUDA)` at the top level of its file.
fn cuda_language_always(cmake: &[(&str, &[u8])]) -> bool {
    cmake.iter().any(|(_, text)| {
        let text = String::from_utf8_lossy(text);
        let mut depth = 0i32;
        text.lines().any(|line| {
            let code = line.split('#').next().unwrap_or("").trim_start();
            let lower = code.to_ascii_lowercase();
            let cmd = lower.split('(').next().unwrap_or("").trim();
            let names_cuda = code
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .any(|w| w == "CUDA");
            let always = depth == 0 && names_cuda && (cmd == "project" || cmd == "enable_language");
            match cmd {
                "if" => depth += 1,
                "endif" => depth -= 1,
                _ => {}
            }
            always
        })
    })
}

/// CMake's CUDA-language flag variables (`CMAKE_CUDA_FLAGS`, `CMAKE_CUDA_FLAGS_RELEASE`, …).
fn sets_cuda_language_flags(line: &str) -> bool {
    set_target(line).is_some_and(|v| v.starts_with("CMAKE_CUDA_FLAGS"))
}

/// Findings on lines that set FindCUDA's flags become PASS where the project's HIP build
/// compiles through FindHIP or CMake's HIP language. `cmake` holds the project's CMake files.
pub fn pass_flags_hip_never_reads(findings: &mut [Finding], cmake: &[(&str, &[u8])]) {
    let Some(at) = hip_build(cmake) else {
        return;
    };
    // CMake's CUDA-language flags, where the HIP build compiles with CMake's HIP language and
    // the CUDA language is enabled only in an `if()` arm (SPH-EXA: `if(CMAKE_CUDA_COMPILER)
    // enable_language(CUDA)`, `if(CMAKE_HIP_COMPILER AND NOT CMAKE_CUDA_COMPILER)
    // enable_language(HIP)`): the HIP language never reads them.
    let hip_lang = hip_language(cmake).filter(|_| !cuda_language_always(cmake));
    for f in findings.iter_mut() {
        if f.status == Status::Pass {
            continue;
        }
        let Some((_, text)) = cmake.iter().find(|(rel, _)| *rel == f.path) else {
            continue;
        };
        let text = String::from_utf8_lossy(text);
        let Some(line) = text.lines().nth((f.line as usize).saturating_sub(1)) else {
            continue;
        };
        if let Some(lang) = hip_lang.as_ref().filter(|_| sets_cuda_language_flags(line)) {
            f.settle(&format!(
                " (only CMake's CUDA language reads CMAKE_CUDA_FLAGS; this project enables it only in an `if()` arm, and its HIP build compiles with CMake's HIP language (`{lang}`), which does not: the ROCm build never sees these flags)"
            ));
            continue;
        }
        if !sets_findcuda_flags(line) {
            continue;
        }
        f.settle(&format!(
            " (only FindCUDA's cuda_add_*/cuda_compile read CUDA_NVCC_FLAGS; this project's HIP build compiles through its HIP target at `{at}`, which does not: the ROCm build never sees these flags)"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finding(path: &str, line: u32, rule: &str) -> Finding {
        let mut f = crate::decisions::test_support::f(rule, path, line);
        f.status = Status::Remediation;
        f
    }

    const FLAGS: &str = "set(CUDA_NVCC_FLAGS \"${CUDA_NVCC_FLAGS} -gencode arch=compute_80,code=sm_80\")\nlist(APPEND CUDA_NVCC_FLAGS -O2)\nset(CMAKE_CUDA_FLAGS \"-O3\")\n";

    /// A project with a FindHIP target: FindCUDA's flag lines are PASS; `CMAKE_CUDA_FLAGS`
    /// (CMake's CUDA language) stays.
    #[test]
    fn findcuda_flags_never_reach_a_findhip_build() {
        let hip = "if(WITH_ROCM)\n  hip_add_library(k k.cu)\nelse()\n  cuda_add_library(k k.cu)\nendif()\n";
        let cmake: Vec<(&str, &[u8])> = vec![
            ("CMakeLists.txt", FLAGS.as_bytes()),
            ("src/CMakeLists.txt", hip.as_bytes()),
        ];
        let mut fs = vec![
            finding("CMakeLists.txt", 1, "HP844"),
            finding("CMakeLists.txt", 1, "HP843"),
            finding("CMakeLists.txt", 2, "HP844"),
            finding("CMakeLists.txt", 3, "HP844"),
        ];
        pass_flags_hip_never_reads(&mut fs, &cmake);
        let st: Vec<Status> = fs.iter().map(|f| f.status).collect();
        assert_eq!(
            st,
            [
                Status::Pass,
                Status::Pass,
                Status::Pass,
                Status::Remediation
            ]
        );
        assert!(
            fs[0].message.contains("`src/CMakeLists.txt:2`"),
            "{}",
            fs[0].message
        );
    }

    /// SPH-EXA: CMake's CUDA language only where a CUDA compiler is found, its HIP language
    /// otherwise: `CMAKE_CUDA_FLAGS_RELEASE` never reaches the ROCm build. Twin: a project that
    /// enables CUDA in `project()` keeps the line open.
    #[test]
    fn cuda_language_flags_beside_a_hip_language_build() {
        let top = "project(s CXX C)\nset(CMAKE_CUDA_FLAGS_RELEASE \"-O3\")\ncheck_language(CUDA)\nif(CMAKE_CUDA_COMPILER)\n  enable_language(CUDA)\nendif()\nif(CMAKE_HIP_COMPILER AND NOT CMAKE_CUDA_COMPILER)\n  enable_language(HIP)\nendif()\n";
        let mut fs = vec![finding("CMakeLists.txt", 2, "HP844")];
        pass_flags_hip_never_reads(&mut fs, &[("CMakeLists.txt", top.as_bytes())]);
        assert_eq!(fs[0].status, Status::Pass, "{}", fs[0].message);
        let always = top.replace("project(s CXX C)", "project(s CXX C CUDA)");
        let mut fs = vec![finding("CMakeLists.txt", 2, "HP844")];
        pass_flags_hip_never_reads(&mut fs, &[("CMakeLists.txt", always.as_bytes())]);
        assert_eq!(fs[0].status, Status::Remediation);
    }

    /// OpenSplat's shape: the language is a variable (`enable_language(${GPU_RUNTIME})`) and
    /// the sources are marked HIP; RAJAPerf's: FindHIP's flag variable is set. Twin: a
    /// `LANGUAGE CUDA` marking is no HIP build.
    #[test]
    fn sources_marked_hip_or_hip_flags_are_a_hip_build() {
        for hip in [
            "enable_language(${GPU_RUNTIME})\nset_source_files_properties(${SRC} PROPERTIES LANGUAGE HIP)\n",
            "set(HIP_HIPCC_FLAGS \"${HIP_HIPCC_FLAGS} -O3\")\n",
            "list(APPEND CMAKE_HIP_FLAGS -ffast-math)\n",
            "elseif(ENABLE_HIP)\n  set(COMPILER \"${HIP_HIPCC_EXECUTABLE}\")\n",
        ] {
            let cmake: Vec<(&str, &[u8])> = vec![
                ("CMakeLists.txt", FLAGS.as_bytes()),
                ("src/CMakeLists.txt", hip.as_bytes()),
            ];
            let mut fs = vec![finding("CMakeLists.txt", 1, "HP844")];
            pass_flags_hip_never_reads(&mut fs, &cmake);
            assert_eq!(fs[0].status, Status::Pass, "{hip}");
        }
        let cuda = "set_source_files_properties(${SRC} PROPERTIES LANGUAGE CUDA)\nmessage(\"LANGUAGE HIPPO\")\n";
        let cmake: Vec<(&str, &[u8])> = vec![
            ("CMakeLists.txt", FLAGS.as_bytes()),
            ("src/CMakeLists.txt", cuda.as_bytes()),
        ];
        let mut fs = vec![finding("CMakeLists.txt", 1, "HP844")];
        pass_flags_hip_never_reads(&mut fs, &cmake);
        assert_eq!(fs[0].status, Status::Remediation);
    }

    /// Twins: no HIP build of its own (the flags are the port's work), and a HIP variable set
    /// from FindCUDA's flags (they do reach the HIP build).
    #[test]
    fn flags_stay_without_a_hip_build_or_when_copied_into_one() {
        let cuda_only = "cuda_add_library(k k.cu)\n";
        let copied = "hip_add_library(k k.cu)\nset(HIP_HIPCC_FLAGS ${CUDA_NVCC_FLAGS})\n";
        for other in [cuda_only, copied] {
            let cmake: Vec<(&str, &[u8])> = vec![
                ("CMakeLists.txt", FLAGS.as_bytes()),
                ("src/CMakeLists.txt", other.as_bytes()),
            ];
            let mut fs = vec![finding("CMakeLists.txt", 1, "HP844")];
            pass_flags_hip_never_reads(&mut fs, &cmake);
            assert_eq!(fs[0].status, Status::Remediation, "{other}");
        }
    }
}
