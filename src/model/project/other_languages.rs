//! Switches of other kernel languages. A header shared by several kernel languages tests a
//! macro that only the other language's sources define: AMD's CMP_Core keeps `#ifdef
//! ASPM_HLSL` arms (calling HLSL's `saturate`) in `BCn_Common_Kernel.h`, and only its `.hlsl`
//! shaders `#define ASPM_HLSL` before including it. No C++, CUDA or HIP build compiles those
//! sources, so in the ROCm build (and the CUDA one) the macro is undefined: its arms are no
//! build's here. The predefined macros of those languages' compilers (`__OPENCL_VERSION__`,
//! `__HLSL_VERSION`, `__METAL_VERSION__`) are rows of the macro table instead.
//!
//! Promise: only object-like `#define`s at the start of a line of a shader source count; a name
//! a C/C++ header also defines, or that a build file passes (`-DNAME`), is the caller's to drop.

use std::collections::BTreeMap;

/// The kernel language of a shader source, by extension; `None` for anything else.
pub fn language(rel: &str) -> Option<&'static str> {
    let ext = rel.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "hlsl" | "hlsli" | "fx" | "fxh" | "usf" | "ush" => "HLSL",
        "glsl" | "vert" | "frag" | "comp" | "geom" | "tesc" | "tese" => "GLSL",
        "metal" => "Metal",
        "cl" => "OpenCL C",
        _ => return None,
    })
}

/// The macros the shader sources define, each with why it is undefined in the ROCm build (a
/// text that starts with [`crate::inventory::cmake::OFF_BY_DEFAULT`], so the CUDA build leaves
/// it undefined too, and carries [`OTHER_LANGUAGE`]).
pub fn shader_macros(files: &[(&str, &[u8])]) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for (rel, bytes) in files {
        let Some(lang) = language(rel) else { continue };
        let text = String::from_utf8_lossy(bytes);
        for line in text.lines() {
            let Some(rest) = line.trim_start().strip_prefix('#') else {
                continue;
            };
            let Some(rest) = rest.trim_start().strip_prefix("define") else {
                continue;
            };
            if !rest.starts_with([' ', '\t']) {
                continue;
            }
            let name: String = rest
                .trim_start()
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let after = rest.trim_start()[name.len()..].chars().next();
            if name.is_empty()
                || name.starts_with(|c: char| c.is_ascii_digit())
                || after == Some('(')
            {
                continue;
            }
            out.entry(name).or_insert_with(|| {
                format!(
                    "{}{OTHER_LANGUAGE}the {lang} source `{rel}` defines it, and no C++, CUDA or HIP build compiles that source",
                    crate::inventory::cmake::OFF_BY_DEFAULT
                )
            });
        }
    }
    out
}

/// Adds the shader sources' switches (`files`: path and text) to the macros only another build
/// defines, unless a build file passes them (`hip_build`) or a reason is already there.
pub fn add_switches<K>(
    off: &mut BTreeMap<String, String>,
    hip_build: &BTreeMap<String, K>,
    files: &[(String, Vec<u8>)],
) {
    let files: Vec<(&str, &[u8])> = files.iter().map(|(r, b)| (r.as_str(), &b[..])).collect();
    for (name, why) in shader_macros(&files) {
        if !hip_build.contains_key(&name) {
            off.entry(name).or_insert(why);
        }
    }
}

/// What marks a [`shader_macros`] reason.
pub const OTHER_LANGUAGE: &str = "another kernel language's switch: ";

#[cfg(test)]
mod tests {
    use super::*;

    /// CMP_Core's shaders define `ASPM_HLSL` before including the shared header; function-like
    /// macros and other files' definitions do not count.
    #[test]
    fn shader_sources_define_other_languages_switches() {
        let files: Vec<(&str, &[u8])> = vec![
            (
                "shaders/BC1_Encode_kernel.hlsl",
                b"#define ASPM_HLSL\n#define MAX(a,b) ((a)>(b)?(a):(b))\n#include \"BCn_Common_Kernel.h\"\n",
            ),
            ("kernels/k.cl", b"  #  define USE_LOCAL 1\n"),
            ("src/k.cpp", b"#define NOT_A_SHADER 1\n"),
        ];
        let m = shader_macros(&files);
        let names: Vec<&str> = m.keys().map(String::as_str).collect();
        assert_eq!(names, ["ASPM_HLSL", "USE_LOCAL"]);
        assert!(m["ASPM_HLSL"].contains("the HLSL source `shaders/BC1_Encode_kernel.hlsl`"));
        assert!(!crate::inventory::cmake::defined_by_default(
            &m["ASPM_HLSL"]
        ));
    }
}
