//! Build recipes kept per machine. A project that builds on several clusters keeps one
//! configure script (or CMake cache file) per machine and compiler in one folder
//! (`scripts/lc-builds/blueos_nvcc_gcc.sh`, `toss4_hipcc.sh`, `toss4_amdclang.sh`;
//! `host-configs/lassen-nvcc.cmake` beside `tioga-rocm.cmake`). The names do not pair one to
//! one (the machine names differ), but the folder already holds the ROCm recipes: the CUDA
//! ones are for NVIDIA machines and the ROCm build runs the others. So a recipe whose name
//! carries a CUDA token (`cuda`, `nvcc`, `nvidia`, `nv`) has the folder's ROCm recipes
//! (a `hip`, `hipcc`, `rocm`, `amd`, `amdclang` token, and no CUDA token) as its counterpart.
//! A folder with no ROCm recipe decides nothing: its CUDA recipes are the port's work.

use std::collections::BTreeMap;

use super::split_tokens;

/// Extensions of build recipes: shell scripts and CMake cache/toolchain files.
const RECIPE_EXTS: [&str; 7] = ["sh", "bash", "csh", "zsh", "bat", "ps1", "cmake"];
/// Tokens naming the CUDA toolchain in a recipe's name.
const CUDA_WORDS: [&str; 4] = ["cuda", "nvcc", "nvidia", "nv"];
/// Tokens naming the ROCm toolchain in a recipe's name.
const ROCM_WORDS: [&str; 5] = ["hip", "hipcc", "rocm", "amd", "amdclang"];

fn tokens(stem: &str) -> Vec<String> {
    split_tokens(stem)
        .into_iter()
        .map(|(a, b)| stem[a..b].to_ascii_lowercase())
        .collect()
}

/// A recipe's folder, file name and stem, when its extension is a recipe's and it is not a
/// project's `CMakeLists.txt`-style build file.
fn recipe(path: &str) -> Option<(&str, &str, &str)> {
    let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
    let (stem, ext) = name.rsplit_once('.')?;
    RECIPE_EXTS
        .contains(&ext.to_ascii_lowercase().as_str())
        .then_some((dir, name, stem))
}

/// Each CUDA recipe whose folder holds ROCm recipes, with the first of them and the reason.
pub fn cuda_recipes_with_rocm_siblings(paths: &[&str]) -> BTreeMap<String, (String, String)> {
    let mut rocm: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut cuda: Vec<(&str, &str)> = Vec::new();
    for p in paths {
        let Some((dir, name, stem)) = recipe(p) else {
            continue;
        };
        let toks = tokens(stem);
        let is_cuda = toks.iter().any(|t| CUDA_WORDS.contains(&t.as_str()));
        let is_rocm = toks.iter().any(|t| ROCM_WORDS.contains(&t.as_str()));
        match (is_cuda, is_rocm) {
            (true, false) => cuda.push((dir, p)),
            (false, true) => rocm.entry(dir).or_default().push(name),
            _ => {}
        }
    }
    let mut out = BTreeMap::new();
    for (dir, p) in cuda {
        let Some(names) = rocm.get_mut(dir) else {
            continue;
        };
        names.sort_unstable();
        let shown: Vec<String> = names.iter().take(2).map(|n| format!("`{n}`")).collect();
        let more = match names.len() {
            0..=2 => String::new(),
            n => format!(" and {} more", n - 2),
        };
        let first = if dir.is_empty() {
            names[0].to_string()
        } else {
            format!("{dir}/{}", names[0])
        };
        out.insert(
            p.to_string(),
            (
                first,
                format!(
                    "a build recipe for CUDA machines: the project keeps the ROCm recipes beside \
                     it ({}{more}), which the ROCm build runs instead: nothing to port here",
                    shown.join(", ")
                ),
            ),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuda_recipes_beside_rocm_recipes() {
        let paths = [
            "scripts/lc-builds/blueos_nvcc_gcc.sh",
            "scripts/lc-builds/blueos_spectrum_nvcc_clang.sh",
            "scripts/lc-builds/blueos_gcc.sh",
            "scripts/lc-builds/toss4_hipcc.sh",
            "scripts/lc-builds/toss4_amdclang.sh",
            "host-configs/lassen-nvcc.cmake",
            "tools/build_cuda.sh",
            "tools/README.md",
        ];
        let got = cuda_recipes_with_rocm_siblings(&paths);
        let keys: Vec<&str> = got.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "scripts/lc-builds/blueos_nvcc_gcc.sh",
                "scripts/lc-builds/blueos_spectrum_nvcc_clang.sh"
            ]
        );
        let (first, why) = &got["scripts/lc-builds/blueos_nvcc_gcc.sh"];
        assert_eq!(first, "scripts/lc-builds/toss4_amdclang.sh");
        assert!(why.contains("`toss4_hipcc.sh`"), "{why}");
        // Twins: a CUDA recipe with no ROCm recipe in its folder (`host-configs/`, `tools/`)
        // is the port's work; a ROCm recipe in another folder does not count, nor does a
        // source file (`k_nv.cu` beside `k_amd.cpp` is the counterpart rule's, not this one's).
        let twins = [
            "tools/build_cuda.sh",
            "other/build_rocm.sh",
            "src/k_nv.cu",
            "src/k_amd.cpp",
        ];
        assert!(cuda_recipes_with_rocm_siblings(&twins).is_empty());
    }
}
