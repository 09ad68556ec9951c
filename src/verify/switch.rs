//! The project's own ROCm switch: the macro its sources test to take their HIP branch
//! (`#ifdef USE_ROCM`, `#if defined(GGML_USE_HIP)`, `#ifdef __HIP_PLATFORM_AMD__` before any HIP
//! header) or its build defines for the HIP build (`-DUSE_ROCM` in setup.py or CMake). verify
//! defines these by default, as the project's HIP build would, and prints them with where each
//! was seen, so a person can check or turn them off (`--no-rocm-switch`).

use crate::model::cond::is_hip_macro;
use std::collections::BTreeMap;
use std::path::Path;

/// Macros the compiler itself defines under HIP: never passed.
const COMPILER_DEFINED: &[&str] = &["__HIPCC__", "__HIP__", "__HIP_DEVICE_COMPILE__"];
/// Macros HIP's headers define (empty): passed the same way, so the header's own definition
/// is an identical redefinition, not a conflict.
const HEADER_DEFINED: &[&str] = &["__HIP_PLATFORM_AMD__", "__HIP_PLATFORM_HCC__"];

/// One detected switch: the `-D` flag and the first place it was seen (`path:line`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Switch {
    pub flag: String,
    pub seen: String,
}

/// Source extensions whose preprocessor conditions are read.
const SOURCES: &[&str] = &[
    "cu", "cuh", "c", "cc", "cpp", "cxx", "h", "hh", "hpp", "hxx", "inl",
];

/// Largest file read for switches (bigger ones are generated code).
const MAX_BYTES: u64 = 4 << 20;

/// Switches of the tree at `root`; `files` are its files, relative and `/`-separated.
pub fn detect(root: &Path, files: &[String]) -> Vec<Switch> {
    let mut found: BTreeMap<String, String> = BTreeMap::new();
    for rel in files {
        let name = rel.rsplit('/').next().unwrap_or(rel);
        let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
        let is_source = ext.as_deref().is_some_and(|e| SOURCES.contains(&e));
        let is_build = name == "setup.py"
            || name == "CMakeLists.txt"
            || name.ends_with(".cmake")
            || name == "Makefile"
            || name.ends_with(".mk");
        if !is_source && !is_build {
            continue;
        }
        let path = root.join(rel);
        if std::fs::metadata(&path).map_or(true, |m| !m.is_file() || m.len() > MAX_BYTES) {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        for (i, line) in text.lines().enumerate() {
            let names = if is_source {
                condition_names(line)
            } else {
                build_defines(line)
            };
            for n in names {
                if is_switch(&n) {
                    found.entry(n).or_insert_with(|| format!("{rel}:{}", i + 1));
                }
            }
        }
    }
    found
        .into_iter()
        .map(|(name, seen)| Switch {
            flag: if HEADER_DEFINED.contains(&name.as_str()) {
                format!("-D{name}=")
            } else {
                format!("-D{name}")
            },
            seen,
        })
        .collect()
}

/// A macro that selects the HIP build and that nothing else defines under verify.
fn is_switch(name: &str) -> bool {
    if COMPILER_DEFINED.contains(&name) {
        return false;
    }
    if HEADER_DEFINED.contains(&name) {
        return true;
    }
    // `__gfx90a__`, `__AMDGCN_WAVEFRONT_SIZE`, `HIP_VERSION_MAJOR`: the compiler's or HIP's.
    if name.starts_with("__") || name.starts_with("HIP_") || name.starts_with("HIPCUB_") {
        return false;
    }
    let words: Vec<&str> = name.split('_').collect();
    let selects = words.iter().any(|w| {
        matches!(
            *w,
            "USE" | "WITH" | "ENABLE" | "ENABLED" | "BUILD" | "COMPILE" | "FOR" | "IS" | "ON"
        )
    });
    selects && is_hip_macro(name)
}

/// Macro names in an `#if`/`#ifdef`/`#ifndef`/`#elif` line.
fn condition_names(line: &str) -> Vec<String> {
    let t = line.trim_start();
    let Some(rest) = t.strip_prefix('#') else {
        return Vec::new();
    };
    let rest = rest.trim_start();
    let Some(cond) = ["ifdef", "ifndef", "if", "elifdef", "elifndef", "elif"]
        .iter()
        .find_map(|d| {
            rest.strip_prefix(d)
                .filter(|r| r.starts_with([' ', '\t', '(', '!']))
        })
    else {
        return Vec::new();
    };
    let cond = cond.split("//").next().unwrap_or(cond);
    identifiers(cond)
}

/// Macro names a build file defines: `-DUSE_ROCM`, `("USE_ROCM", None)`, `"-DUSE_ROCM=1"`.
fn build_defines(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (i, _) in line.match_indices("-D") {
        let name: String = line[i + 2..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            out.push(name);
        }
    }
    if line.contains("define_macros") || line.trim_start().starts_with("(\"") {
        for id in identifiers(line) {
            out.push(id);
        }
    }
    out
}

fn identifiers(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for c in s.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphanumeric() || c == '_' {
            cur.push(c);
        } else if !cur.is_empty() {
            if !cur.starts_with(|c: char| c.is_ascii_digit()) {
                out.push(std::mem::take(&mut cur));
            }
            cur.clear();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_project_switches_in_sources_and_build_files() {
        let d = tempfile::tempdir().unwrap();
        let r = d.path();
        std::fs::create_dir_all(r.join("src")).unwrap();
        std::fs::write(
            r.join("src/a.cu"),
            "#include <x.h>\n#ifdef USE_ROCM\n#include <hip/hip_runtime.h>\n#endif\n#if defined(GGML_USE_HIP) && !defined(__HIP_DEVICE_COMPILE__)\n#endif\n#ifdef __HIP_PLATFORM_AMD__\n#endif\n",
        )
        .unwrap();
        std::fs::write(
            r.join("setup.py"),
            "extra_compile_args = {'nvcc': ['-O3', '-DWITH_HIP']}\n",
        )
        .unwrap();
        std::fs::write(
            r.join("src/b.cu"),
            "#ifndef MY_HIP_H\n#define MY_HIP_H\n#endif\n#if HIP_VERSION_MAJOR >= 6\n#endif\n#ifdef __gfx90a__\n#endif\n#if CHIP_USE_X\n#endif\n",
        )
        .unwrap();
        let files: Vec<String> = ["setup.py", "src/a.cu", "src/b.cu"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let s = detect(r, &files);
        let flags: Vec<&str> = s.iter().map(|s| s.flag.as_str()).collect();
        assert_eq!(
            flags,
            [
                "-DGGML_USE_HIP",
                "-DUSE_ROCM",
                "-DWITH_HIP",
                "-D__HIP_PLATFORM_AMD__="
            ]
        );
        assert_eq!(s[1].seen, "src/a.cu:2");
        assert_eq!(s[2].seen, "setup.py:1");
    }

    #[test]
    fn a_project_without_a_switch_gets_none() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("k.cu"),
            "#ifdef __CUDA_ARCH__\n#endif\n#if USE_FAST\n#endif\n",
        )
        .unwrap();
        assert!(detect(d.path(), &["k.cu".to_string()]).is_empty());
    }
}
