//! Sources only Windows compiles, and the CMake projects that build only them. The ROCm build
//! runs on Linux (the operating system of the target, as CMake's `WIN32` arms are read in
//! [`crate::inventory::cmake`]); a source that includes `<windows.h>` outside any test of the
//! platform (gpu-burn's `win/gpu_burn-drv.cpp`, a Windows copy of the Linux driver) never
//! compiles there, and a CMake project whose targets build only such sources (`win/CMakeLists.txt`)
//! is the Windows build. Their findings become PASS naming the include; the Linux sources the
//! ROCm build compiles keep theirs.

use crate::finding::Finding;
use crate::gate::Status;
use std::collections::BTreeMap;

/// The line of an unconditional `#include <windows.h>` (any case): outside every `#if` whose
/// condition names the platform (`_WIN32`, `WIN64`, `_MSC_VER`); an include guard or another
/// test around it does not make it conditional.
pub fn windows_include(text: &[u8]) -> Option<u32> {
    // Most sources name no Windows header: one search before reading lines.
    memchr::memmem::find(text, b"indows.h")?;
    let text = String::from_utf8_lossy(text);
    // The conditions of the open `#if` blocks: whether each names Windows.
    let mut open: Vec<bool> = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let t = line.trim_start();
        let Some(d) = t.strip_prefix('#').map(str::trim_start) else {
            continue;
        };
        let lower = d.to_ascii_lowercase();
        let word = lower
            .split(|c: char| !c.is_ascii_alphanumeric())
            .next()
            .unwrap_or("");
        let windows = |c: &str| c.contains("win") || c.contains("_msc_ver") || c.contains("mingw");
        match word {
            "if" | "ifdef" | "ifndef" => open.push(windows(&lower)),
            "elif" | "else" => {
                if let Some(last) = open.last_mut() {
                    *last = *last || windows(&lower) || word == "else";
                }
            }
            "endif" => {
                open.pop();
            }
            "include" => {
                let target = lower["include".len()..].trim();
                if target == "<windows.h>" && !open.iter().any(|w| *w) {
                    return Some(n as u32 + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// The source files a CMake file's targets compile (`add_executable(x a.cpp b.cu)`,
/// `add_library`, and the lists they take: `set(SOURCES a.cpp)`, `list(APPEND SRC b.cu)`), as
/// paths next to it.
fn target_sources(cmake_rel: &str, text: &[u8]) -> Vec<String> {
    let dir = cmake_rel.rsplit_once('/').map_or("", |(d, _)| d);
    let text = String::from_utf8_lossy(text);
    let mut out = Vec::new();
    for call in [
        "add_executable(",
        "add_library(",
        "cuda_add_executable(",
        "cuda_add_library(",
        "set(",
        "list(APPEND",
    ] {
        let mut from = 0;
        while let Some(p) = text[from..].find(call) {
            let start = from + p + call.len();
            let end = text[start..].find(')').map_or(text.len(), |e| start + e);
            for w in text[start..end].split_whitespace() {
                let w = w.trim_matches('"');
                let ext = w.rsplit_once('.').map_or("", |(_, e)| e);
                if matches!(ext, "cpp" | "cu" | "cc" | "cxx" | "c") && !w.contains("${") {
                    out.push(if dir.is_empty() {
                        w.to_string()
                    } else {
                        format!("{dir}/{w}")
                    });
                }
            }
            from = end;
        }
    }
    out
}

/// The Windows builds of the project: Windows-only sources and the CMake files that build
/// only them ([`pass_windows_only`]), and Visual Studio projects beside another CUDA build,
/// which are its Windows twin ([`crate::inventory::msbuild::settle`]).
pub fn settle_windows_builds(
    findings: &mut [Finding],
    paths: &[&str],
    read: &dyn Fn(&str) -> Option<Vec<u8>>,
) {
    pass_windows_only(findings, paths, read);
    crate::inventory::msbuild::settle(findings, read);
}

/// Settles the findings of Windows-only sources and of CMake files that build only them.
/// `read` gives a file's text (the project's sources and CMake files).
pub fn pass_windows_only(
    findings: &mut [Finding],
    paths: &[&str],
    read: &dyn Fn(&str) -> Option<Vec<u8>>,
) {
    let mut why: BTreeMap<String, String> = BTreeMap::new();
    let mut only: BTreeMap<String, bool> = BTreeMap::new();
    let mut windows_only = |rel: &str| -> bool {
        *only
            .entry(rel.to_string())
            .or_insert_with(|| read(rel).and_then(|t| windows_include(&t)).is_some())
    };
    let with_findings: std::collections::BTreeSet<&str> = findings
        .iter()
        .filter(|f| f.status != Status::Pass)
        .map(|f| f.path.as_str())
        .collect();
    for rel in &with_findings {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        if name == "CMakeLists.txt" {
            let Some(text) = read(rel) else { continue };
            let srcs: Vec<String> = target_sources(rel, &text)
                .into_iter()
                .filter(|s| paths.contains(&s.as_str()))
                .collect();
            if !srcs.is_empty() && srcs.iter().all(|s| windows_only(s)) {
                why.insert(
                    rel.to_string(),
                    format!(
                        "a CMake project whose targets build only Windows sources (`{}` includes <windows.h> unconditionally): the ROCm build runs on Linux",
                        srcs[0]
                    ),
                );
            }
        } else if crate::walk::is_source(rel) {
            if let Some(line) = read(rel).and_then(|t| windows_include(&t)) {
                why.insert(
                    rel.to_string(),
                    format!(
                        "a Windows-only source: `#include <windows.h>` at line {line} is outside any platform test, and the ROCm build runs on Linux"
                    ),
                );
            }
        }
    }
    for f in findings.iter_mut() {
        if f.status == Status::Pass {
            continue;
        }
        if let Some(w) = why.get(&f.path) {
            f.settle(&format!(" ({w})"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_includes_outside_platform_tests() {
        assert_eq!(
            windows_include(b"#ifndef A_H\n#define A_H\n#include <windows.h>\n#endif\n"),
            Some(3)
        );
        assert_eq!(
            windows_include(b"#ifdef _WIN32\n#include <windows.h>\n#endif\n"),
            None
        );
        assert_eq!(
            windows_include(b"#if defined(__linux__)\n#include <unistd.h>\n#else\n#include <Windows.h>\n#endif\n"),
            None
        );
        assert_eq!(windows_include(b"#include <stdio.h>\n"), None);
    }

    /// gpu-burn's shape: a `win/` copy of the driver and its CMake project; twins: the Linux
    /// driver and a CMake project that also builds a Linux source keep their findings.
    #[test]
    fn windows_only_sources_and_their_cmake_are_pass() {
        let files: BTreeMap<&str, &[u8]> = [
            ("win/drv.cpp", &b"#include <windows.h>\n#include <cuda.h>\nint main() { cuInit(0); }\n"[..]),
            ("win/CMakeLists.txt", b"project(w)\nset(SOURCES\n    drv.cpp\n)\nadd_executable(gpu_burn ${SOURCES})\ntarget_link_libraries(gpu_burn cuda)\n"),
            ("drv.cpp", b"#include <unistd.h>\n#include <cuda.h>\nint main() { cuInit(0); }\n"),
            ("both/CMakeLists.txt", b"add_executable(b w.cpp lin.cpp)\n"),
            ("both/w.cpp", b"#include <windows.h>\nint g();\n"),
            ("both/lin.cpp", b"int f();\n"),
        ]
        .into_iter()
        .collect();
        let mut fs: Vec<Finding> = [
            "win/drv.cpp",
            "win/CMakeLists.txt",
            "drv.cpp",
            "both/CMakeLists.txt",
        ]
        .iter()
        .map(|p| Finding {
            status: Status::Remediation,
            ..Finding::bare("HP850", p, 2)
        })
        .collect();
        let paths: Vec<&str> = files.keys().copied().collect();
        pass_windows_only(&mut fs, &paths, &|r| files.get(r).map(|b| b.to_vec()));
        let st: Vec<Status> = fs.iter().map(|f| f.status).collect();
        assert_eq!(
            st,
            [
                Status::Pass,
                Status::Pass,
                Status::Remediation,
                Status::Remediation
            ]
        );
        assert!(fs[0].message.contains("line 1"), "{}", fs[0].message);
        assert!(fs[1].message.contains("`win/drv.cpp`"), "{}", fs[1].message);
    }
}
