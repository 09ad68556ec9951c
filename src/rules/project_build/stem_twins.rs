//! A CUDA source beside its HIP twin of the same name. Projects that keep both backends by
//! hand write `layer_norm.cu` for nvcc and `layer_norm.cpp` (or `.hip`) for hipcc in the same
//! folder, and their build picks one set by backend (FlexFlow: `file(GLOB_RECURSE … src/*.cu)`
//! when `FF_GPU_BACKEND` is `cuda`, `src/*.cpp` with `LANGUAGE HIP` when it is `hip_rocm`). The
//! ROCm build compiles the twin, so the CUDA source's findings are the CUDA build's: PASS naming
//! the twin. A twin counts only when it is HIP code (it includes a HIP header: `<hip/…>`, a
//! project header named for HIP such as `hip_helper.h`) and the project has a HIP build; a
//! same-named `.cpp` that is host code (a PyTorch binding, `#include <torch/extension.h>`) is
//! not a twin, and its `.cu` keeps its findings.

use std::collections::{BTreeMap, HashMap};

/// The extensions a hand-written HIP twin of `x.cu` takes, in order of preference.
const TWIN_EXTS: [&str; 4] = ["hip", "hip.cpp", "cpp", "cc"];

/// Whether an include names HIP: a path component, split at `_`, `-`, `.`, that is `hip`
/// (`hip/hip_runtime.h`, `utils/hip_helper.h`; not `chip.h` or `ship_it.h`).
fn names_hip(include: &str) -> bool {
    include
        .trim_start_matches(['<', '"'])
        .split(['/', '_', '-', '.'])
        .any(|t| {
            t.eq_ignore_ascii_case("hip")
                || t.eq_ignore_ascii_case("hipcub")
                || t.eq_ignore_ascii_case("rocm")
        })
}

/// Each `.cu` file of `paths` with a HIP twin of the same name in its folder, in a project
/// whose build compiles HIP (`hip`): the twin, and why.
pub fn cuda_sources_with_hip_twins(
    paths: &[&str],
    includes: &HashMap<String, Vec<String>>,
    hip: &[(&str, usize)],
) -> BTreeMap<String, (String, String)> {
    let Some(&(hip_file, hip_line)) = hip.first() else {
        return BTreeMap::new();
    };
    let files: std::collections::BTreeSet<&str> = paths.iter().copied().collect();
    let mut out = BTreeMap::new();
    for p in paths {
        let Some(stem) = p.strip_suffix(".cu") else {
            continue;
        };
        for ext in TWIN_EXTS {
            let twin = format!("{stem}.{ext}");
            if !files.contains(twin.as_str()) {
                continue;
            }
            let Some(inc) = includes
                .get(&twin)
                .and_then(|incs| incs.iter().find(|i| names_hip(i)))
            else {
                continue;
            };
            let inc = inc.trim_start_matches(['<', '"']);
            out.insert(
                p.to_string(),
                (
                    twin.clone(),
                    format!(
                        "the ROCm build compiles its HIP twin `{twin}` (it includes `{inc}`) in \
                         place of this CUDA source; the project's HIP build is \
                         `{hip_file}:{hip_line}`"
                    ),
                ),
            );
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inc(pairs: &[(&str, &[&str])]) -> HashMap<String, Vec<String>> {
        pairs
            .iter()
            .map(|(f, i)| (f.to_string(), i.iter().map(|s| s.to_string()).collect()))
            .collect()
    }

    /// FlexFlow's `src/ops/layer_norm.cu` beside `layer_norm.cpp`, which includes
    /// `flexflow/utils/hip_helper.h` and `<hip/hip_runtime.h>`. Twins: a `.cpp` that is a
    /// PyTorch binding, and a project with no HIP build.
    #[test]
    fn a_cuda_source_beside_its_hip_twin_is_the_cuda_builds() {
        let paths = [
            "src/ops/layer_norm.cu",
            "src/ops/layer_norm.cpp",
            "ext/roi.cu",
            "ext/roi.cpp",
        ];
        let includes = inc(&[
            (
                "src/ops/layer_norm.cpp",
                &["src/ops/flexflow/utils/hip_helper.h", "<hip/hip_runtime.h"],
            ),
            ("ext/roi.cpp", &["<torch/extension.h"]),
        ]);
        let hip = [("CMakeLists.txt", 330)];
        let out = cuda_sources_with_hip_twins(&paths, &includes, &hip);
        assert_eq!(out.keys().collect::<Vec<_>>(), ["src/ops/layer_norm.cu"]);
        assert_eq!(out["src/ops/layer_norm.cu"].0, "src/ops/layer_norm.cpp");
        assert!(out["src/ops/layer_norm.cu"]
            .1
            .contains("CMakeLists.txt:330"));
        assert!(cuda_sources_with_hip_twins(&paths, &includes, &[]).is_empty());
        assert!(!names_hip("<chip.h") && !names_hip("ship_it.h"));
    }
}
