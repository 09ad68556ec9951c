//! Which sources a CMake file compiles only in arms its HIP build never runs
//! ([`cuda_only_sources`]), read with the arms model of [`super::arms`].

use super::super::shell::unquote;
use super::super::ts::{self, Lang};
use super::arms::{command_of, hip_dead_arms, DeadArm, Twin};
use crate::kinds::cmake::{Kind as K, NodeExt};

/// Source files (`.cu`, `.cpp`, … as written, relative to the CMake file's folder) that a CMake
/// file lists only in arms its HIP build never runs, with the reason: the HIP build does not
/// compile them (bitsandbytes: `gemm_4bit_sm80.cu` only under `if(BUILD_CUDA)`).
///
/// `twins` are the project's backend twins ([`super::arms::project_twins`]): a file that tests one
/// (`if(ENABLE_CUDA) add_subdirectory(cusparse)`) selects by it. A folder an arm the HIP build
/// never runs adds (`add_subdirectory(cusparse)`) comes back as `cusparse/`, and a CMake file it
/// includes (`include(gmxManageCuda)`) as `gmxManageCuda.cmake`. A pattern of `file(GLOB …)`
/// comes back as a glob ([`cmake_glob`]): `file(GLOB_RECURSE S standalone/*.cu)` as
/// `standalone/**/*.cu`.
pub fn cuda_only_sources(src: &[u8], twins: &[Twin]) -> Vec<(String, String)> {
    let Some(tree) = ts::parse(Lang::CMake, src) else {
        return Vec::new();
    };
    let dead: Vec<DeadArm> = hip_dead_arms(tree.root_node(), src, twins)
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
        let command = n.parent().and_then(|c| command_of(c, src)).map(|(c, _)| c);
        // `include(gmxManageCuda)` in an arm the HIP build never runs: that CMake file is the
        // CUDA build's (as `gmxManageCuda.cmake`, found by name by the caller).
        if command.as_deref() == Some("include") {
            let Some(first) = ts::named_children(n).into_iter().next() else {
                return;
            };
            let name = unquote(ts::text(first, src)).to_string();
            if name.contains('$') || name.is_empty() {
                return;
            }
            let file = if name.ends_with(".cmake") {
                name
            } else {
                format!("{name}.cmake")
            };
            match dead.iter().find(|d| d.range.contains(&first.start_byte())) {
                Some(d) => inside.push((file, d.why.clone())),
                None => {
                    outside.insert(file);
                }
            }
            return;
        }
        if command.as_deref() == Some("add_subdirectory") {
            let Some(first) = ts::named_children(n).into_iter().next() else {
                return;
            };
            let dir = unquote(ts::text(first, src))
                .trim_start_matches("${CMAKE_CURRENT_SOURCE_DIR}/")
                .trim_start_matches("./")
                .trim_end_matches('/')
                .to_string();
            if dir.is_empty() || dir.contains('$') || dir.starts_with("..") {
                return;
            }
            let dir = format!("{dir}/");
            match dead.iter().find(|d| d.range.contains(&first.start_byte())) {
                Some(d) => inside.push((dir, d.why.clone())),
                None => {
                    outside.insert(dir);
                }
            }
            return;
        }
        // `file(GLOB_RECURSE S opr/impl/standalone/*.cu)`: a pattern, not a path. Recursive
        // globs also match below the pattern's folder (`opr/impl/standalone/**/*.cu`).
        let glob_mode = if command.as_deref() == Some("file") {
            ts::named_children(n)
                .first()
                .map(|f| unquote(ts::text(*f, src)).to_ascii_uppercase())
                .filter(|m| m == "GLOB" || m == "GLOB_RECURSE")
        } else {
            None
        };
        for a in ts::named_children(n) {
            let raw = ts::text(a, src);
            for w in unquote(raw).split([' ', ';']) {
                let w = w
                    .trim_start_matches("${CMAKE_CURRENT_SOURCE_DIR}/")
                    .trim_start_matches("${CMAKE_CURRENT_LIST_DIR}/")
                    .trim_start_matches("./");
                let is_glob = w.contains(['*', '?']);
                if is_glob && glob_mode.is_none() {
                    continue;
                }
                let recursive;
                let w: &str = if is_glob && glob_mode.as_deref() == Some("GLOB_RECURSE") {
                    recursive = match w.rsplit_once('/') {
                        Some((dir, name)) => format!("{dir}/**/{name}"),
                        None => format!("**/{w}"),
                    };
                    &recursive
                } else {
                    w
                };
                let ext = w.rsplit_once('.').map_or("", |(_, e)| e);
                // A `.hip` source the HIP build lists outside the dead arms, generated from a
                // CUDA source at configure time (fastllm's `hipify(CUDA_SOURCE_DIR src/devices/
                // cuda HIP_SOURCE_DIR src/devices/hip)` then `src/devices/hip/fastllm-hip.hip`):
                // the `.cu` it comes from is the HIP build's source too.
                if ext == "hip"
                    && !w.contains('$')
                    && !dead.iter().any(|d| d.range.contains(&a.start_byte()))
                {
                    outside.extend(hipified_from(w));
                    continue;
                }
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
    // A file an outside glob also matches is the HIP build's too.
    let outside_globs: Vec<globset::GlobMatcher> = outside
        .iter()
        .filter(|w| w.contains(['*', '?']))
        .filter_map(|w| cmake_glob(w))
        .collect();
    inside.retain(|(w, _)| {
        !outside.contains(w)
            && (w.contains(['*', '?']) || !outside_globs.iter().any(|g| g.is_match(w)))
    });
    inside.sort();
    inside.dedup_by(|a, b| a.0 == b.0);
    inside
}

/// A CMake glob as [`cuda_only_sources`] returns it (`*` within one folder, `**/` any folders
/// below), compiled; `None` when it is not a glob globset reads.
pub fn cmake_glob(pattern: &str) -> Option<globset::GlobMatcher> {
    globset::GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .ok()
        .map(|g| g.compile_matcher())
}

/// The CUDA sources a hipified `.hip` file may come from: the same path with `.cu`, and with
/// `hip` read back as `cuda` in its folder and file names (`src/devices/multihip/
/// fastllm-multihip.hip` from `src/devices/multicuda/fastllm-multicuda.cu`).
fn hipified_from(hip: &str) -> Vec<String> {
    let stem = hip.strip_suffix(".hip").unwrap_or(hip);
    let mut out = vec![format!("{stem}.cu")];
    let renamed = stem.replace("hip", "cuda").replace("HIP", "CUDA");
    if renamed != stem {
        out.push(format!("{renamed}.cu"));
    }
    out
}
