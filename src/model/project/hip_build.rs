//! The CUDA-side macros a project's HIP build files define on the command line.

use std::collections::{BTreeMap, BTreeSet};

/// Whether a build file is the HIP build's by its name: a ROCm token in it (`hip_64bit.mk`,
/// `hip.cmake`, `Makefile.rocm`, `rocm/CMakeLists.txt` counts by its folder).
pub fn is_hip_build_file(rel: &str) -> bool {
    rel.split('/').any(|comp| {
        comp.split(['-', '_', '.'])
            .any(|t| matches!(t.to_ascii_lowercase().as_str(), "hip" | "rocm" | "amd"))
    })
}

/// The CUDA-side macros (those [`super::super::macro_env`]'s table decides) that the project's HIP
/// build files define on the compiler's command line, `-DNAME=VALUE` or `-DNAME`, with
/// `path:line`. A HIP build file is a build file (`*.mk`, Makefiles, `*.cmake`, CMake lists)
/// whose path carries a ROCm token; a definition that appears with different values stays
/// unknown (dropped). Kaldi's `src/makefiles/hip_64bit.mk` passes `-DCUDA_VERSION=11000`: its
/// HIP build compiles the `CUDA_VERSION >= 11000` arms, not the fallbacks.
pub fn hip_build_defines(
    build_files: &[(&str, &[u8])],
) -> BTreeMap<String, (super::super::macro_env::Known, String)> {
    use super::super::macro_env::{Known, MacroEnv};
    let hip = MacroEnv::hip();
    let mut out: BTreeMap<String, (Known, String)> = BTreeMap::new();
    let mut conflicting: BTreeSet<String> = BTreeSet::new();
    for (rel, text) in build_files {
        if !is_hip_build_file(rel) {
            continue;
        }
        let text = String::from_utf8_lossy(text);
        for (n, line) in text.lines().enumerate() {
            if line.trim_start().starts_with('#') {
                continue;
            }
            for (i, _) in line.match_indices("-D") {
                if i > 0
                    && !line.as_bytes()[i - 1].is_ascii_whitespace()
                    && !matches!(line.as_bytes()[i - 1], b'"' | b'\'' | b'(' | b'=')
                {
                    continue;
                }
                let rest = &line[i + 2..];
                let end = rest
                    .find(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | ')' | '\\'))
                    .unwrap_or(rest.len());
                let def = &rest[..end];
                let (name, value) = match def.split_once('=') {
                    Some((n, v)) => (n, Some(v)),
                    None => (def, None),
                };
                if name.is_empty()
                    || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    || super::super::cond::is_hip_macro(name)
                    || hip.lookup(name).is_none()
                {
                    continue;
                }
                let known = match value {
                    None => Known::Value(1),
                    Some(v) => v.parse::<i64>().map_or(Known::Defined, Known::Value),
                };
                match out.get(name) {
                    Some((k, _)) if *k != known => {
                        conflicting.insert(name.to_string());
                    }
                    Some(_) => {}
                    None => {
                        out.insert(name.to_string(), (known, format!("{rel}:{}", n + 1)));
                    }
                }
            }
        }
    }
    for c in conflicting {
        out.remove(&c);
    }
    out
}

/// Drops from the macros only another build defines those a HIP build file that is not CMake
/// passes (`-DNAME`, `files`: path and text): that build defines them too.
pub fn drop_passed(off: &mut BTreeMap<String, String>, files: &[(String, Vec<u8>)]) {
    let cmake = crate::rules::project_build::probes::is_cmake;
    off.retain(|name, _| {
        let dash = format!("-D{name}");
        !files.iter().any(|(r, b)| {
            !cmake(r)
                && memchr::memmem::find_iter(b, dash.as_bytes()).any(|p| {
                    b.get(p + dash.len())
                        .is_none_or(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
                })
        })
    });
}
