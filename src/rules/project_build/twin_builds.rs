//! A standalone CMake project beside the `setup.py` that builds the same sources as a PyTorch
//! extension. Gaussian-splatting rasterizers ship both (`diff-gaussian-rasterization/`:
//! `CMakeLists.txt` with `project(DiffRast LANGUAGES CUDA CXX)` over `cuda_rasterizer/*.cu`, and
//! `setup.py` with a `CUDAExtension` over the same files). The project that vendors one installs
//! it with pip; PyTorch's ROCm build hipifies the extension's sources, and the CMake project is
//! a second build nothing here runs. Its findings become PASS naming the `setup.py`.
//!
//! A CMake file counts when its folder holds a `setup.py` that builds a `CUDAExtension` (or
//! `cpp_extension`) naming at least one `.cu` file the CMake file names too, the CMake file
//! declares a `project()`, and no CMake file outside the folder names the folder (an
//! `add_subdirectory` of it would make it part of a CMake build after all).

use std::collections::BTreeMap;

/// The `.cu` file names a text mentions (path stripped).
fn cu_names(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '(' | ')' | ',' | '[' | ']'))
        .filter(|w| w.ends_with(".cu") && w.len() > 3)
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .collect()
}

/// Each standalone CMake file of a folder whose `setup.py` builds the same CUDA sources as a
/// PyTorch extension, with that `setup.py` and why.
pub fn cmake_beside_extension(build_files: &[(&str, &[u8])]) -> BTreeMap<String, (String, String)> {
    let text_of = |rel: &str| {
        build_files
            .iter()
            .find(|(r, _)| *r == rel)
            .map(|(_, t)| String::from_utf8_lossy(t).into_owned())
    };
    let mut out = BTreeMap::new();
    for (rel, text) in build_files {
        let Some(dir) = rel.strip_suffix("/CMakeLists.txt") else {
            continue;
        };
        let cmake = String::from_utf8_lossy(text);
        let lower = cmake.to_ascii_lowercase();
        if !lower.contains("project(") {
            continue;
        }
        let setup = format!("{dir}/setup.py");
        let Some(py) = text_of(&setup) else { continue };
        if !(py.contains("CUDAExtension") || py.contains("cpp_extension")) {
            continue;
        }
        let ours = cu_names(&cmake);
        let Some(shared) = cu_names(&py).into_iter().find(|n| ours.contains(n)) else {
            continue;
        };
        let folder = dir.rsplit('/').next().unwrap_or(dir);
        let reached = build_files.iter().any(|(r, t)| {
            let name = r.rsplit('/').next().unwrap_or(r);
            (name == "CMakeLists.txt" || name.ends_with(".cmake"))
                && !r.starts_with(&format!("{dir}/"))
                && String::from_utf8_lossy(t)
                    .split(|c: char| c.is_whitespace() || matches!(c, '"' | '\'' | '(' | ')'))
                    // A repository URL fetches another copy (SIBR's `sibr_gitlibrary(…
                    // GIT_REPOSITORY ".../diff-gaussian-rasterization.git")`), not this folder.
                    .any(|w| w.contains(folder) && !w.contains("://"))
        });
        if reached {
            continue;
        }
        out.insert(
            rel.to_string(),
            (
                setup.clone(),
                format!(
                    "a second build of sources `{setup}` compiles as a PyTorch extension \
                     (`{shared}`), which PyTorch's ROCm build hipifies; no other CMake file \
                     reaches this CMake project"
                ),
            ),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CMAKE: &[u8] = b"cmake_minimum_required(VERSION 3.20)\nproject(DiffRast LANGUAGES CUDA CXX)\nadd_library(CudaRasterizer\n\tcuda_rasterizer/forward.cu\n\tcuda_rasterizer/backward.cu\n)\nset_target_properties(CudaRasterizer PROPERTIES CUDA_ARCHITECTURES \"70;75;86\")\n";
    const SETUP: &[u8] = b"from torch.utils.cpp_extension import CUDAExtension, BuildExtension\nsetup(ext_modules=[CUDAExtension(name='diff_gaussian_rasterization._C', sources=['cuda_rasterizer/forward.cu', 'cuda_rasterizer/backward.cu', 'ext.cpp'])])\n";

    /// diff-gaussian-rasterization (Inria/MPII licence, vendored by Scaffold-GS and SuGaR).
    #[test]
    fn a_cmake_project_beside_the_extension_of_the_same_sources_is_a_second_build() {
        let d = "submodules/diff-gaussian-rasterization";
        let files: Vec<(String, &[u8])> = vec![
            (format!("{d}/CMakeLists.txt"), CMAKE),
            (format!("{d}/setup.py"), SETUP),
        ];
        let files: Vec<(&str, &[u8])> = files.iter().map(|(r, t)| (r.as_str(), *t)).collect();
        let out = cmake_beside_extension(&files);
        let (setup, why) = &out[&format!("{d}/CMakeLists.txt")];
        assert_eq!(setup, &format!("{d}/setup.py"));
        assert!(why.contains("forward.cu"), "{why}");
    }

    /// Twins: a parent CMake build adds the folder; the setup.py builds other sources; no
    /// setup.py beside it.
    #[test]
    fn a_reached_or_unrelated_cmake_project_keeps_its_findings() {
        let d = "ext/rast";
        let cm = format!("{d}/CMakeLists.txt");
        let sp = format!("{d}/setup.py");
        let parent: &[u8] = b"add_subdirectory(ext/rast)\n";
        let fetched: &[u8] =
            b"sibr_gitlibrary(TARGET R GIT_REPOSITORY \"https://github.com/x/rast.git\")\n";
        assert_eq!(
            cmake_beside_extension(&[
                (cm.as_str(), CMAKE),
                (sp.as_str(), SETUP),
                ("viewer/CMakeLists.txt", fetched)
            ])
            .len(),
            1
        );
        assert!(cmake_beside_extension(&[
            (cm.as_str(), CMAKE),
            (sp.as_str(), SETUP),
            ("CMakeLists.txt", parent)
        ])
        .is_empty());
        let other: &[u8] = b"setup(ext_modules=[CUDAExtension('x', ['other.cu'])])\n";
        assert!(cmake_beside_extension(&[(cm.as_str(), CMAKE), (sp.as_str(), other)]).is_empty());
        assert!(cmake_beside_extension(&[(cm.as_str(), CMAKE)]).is_empty());
    }
}
