//! CMake modules only the CUDA build reads. QUDA's `lib/CMakeLists.txt` runs
//! `include(targets/cuda/target_cuda.cmake)` only under `if(${QUDA_TARGET_TYPE} STREQUAL
//! "CUDA")`, beside `include(targets/hip/target_hip.cmake)` under the HIP twin: everything that
//! module does is the CUDA build's. Two facts follow for the ROCm build:
//! - the macros it defines (`target_compile_definitions(quda PUBLIC NVSHMEM_COMMS)`) are never
//!   defined there ([`super::cuda_build_only_macros`] takes these modules);
//! - the folders it alone puts on the include path (`target_include_directories(quda PRIVATE
//!   ${CMAKE_SOURCE_DIR}/include/targets/cuda)`) hold headers the ROCm build never finds
//!   ([`cuda_only_include_dirs`]).
//!
//! A module is CUDA-only when a CMake file includes it only in arms the HIP build never runs
//! ([`super::cuda_only_sources`]) and it is the one file of its name in the tree.

use super::super::shell::unquote;
use super::super::ts;
use super::arms::each_command;
use super::Twin;
use std::collections::BTreeMap;

/// The project's CMake modules only the CUDA build includes, with why (`path` → reason).
/// `cmake` holds the project's CMake files, `all` every file of the tree.
pub fn cuda_only_modules(
    cmake: &[(&str, &[u8])],
    all: &[&str],
    twins: &[Twin],
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (rel, src) in cmake {
        for (p, why) in super::cuda_only_sources(src, twins) {
            if !p.ends_with(".cmake") {
                continue;
            }
            let name = p.rsplit('/').next().unwrap_or(&p);
            let found: Vec<&&str> = all
                .iter()
                .filter(|r| r.rsplit('/').next() == Some(name))
                .collect();
            if let [one] = found.as_slice() {
                // `in the `if (…)` arm (line 287), which the project's HIP build never runs: …`:
                // the arm is enough here.
                let arm = why.split(", which").next().unwrap_or(&why);
                out.entry(one.to_string())
                    .or_insert_with(|| format!("`{rel}` includes only {arm}"));
            }
        }
    }
    out
}

/// The folders (root-relative, with a trailing `/`) a CMake file puts on the include path with
/// `include_directories` or `target_include_directories`, spelled from the project's root
/// (`${CMAKE_SOURCE_DIR}/…`, `${PROJECT_SOURCE_DIR}/…`).
fn include_dirs(src: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    each_command(src, &mut |_, cmd, args| {
        if !matches!(cmd, "include_directories" | "target_include_directories") {
            return;
        }
        for &a in args {
            let w = unquote(ts::text(a, src));
            let Some(rest) = ["${CMAKE_SOURCE_DIR}/", "${PROJECT_SOURCE_DIR}/"]
                .iter()
                .find_map(|p| w.strip_prefix(p))
            else {
                continue;
            };
            let rest = rest.trim_end_matches('/');
            if !rest.is_empty() && !rest.contains('$') && !rest.contains("..") {
                out.push(format!("{rest}/"));
            }
        }
    });
    out
}

/// Folders only CUDA-only modules put on the include path (`folder/` → why): no other CMake
/// file of the project adds them.
pub fn cuda_only_include_dirs(
    cmake: &[(&str, &[u8])],
    modules: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let mut only: BTreeMap<String, String> = BTreeMap::new();
    let mut elsewhere: Vec<String> = Vec::new();
    for (rel, src) in cmake {
        let dirs = include_dirs(src);
        match modules.get(*rel) {
            Some(why) => {
                for d in dirs {
                    only.entry(d).or_insert_with(|| {
                        format!("on the include path only through `{rel}`, which {why}")
                    });
                }
            }
            None => elsewhere.extend(dirs),
        }
    }
    only.retain(|d, _| !elsewhere.contains(d));
    only
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIB: &str = "if(${QUDA_TARGET_TYPE} STREQUAL \"CUDA\")\n  include(targets/cuda/target_cuda.cmake)\nendif()\nif(${QUDA_TARGET_TYPE} STREQUAL \"HIP\")\n  include(targets/hip/target_hip.cmake)\nendif()\n";
    const CUDA: &str = "target_compile_definitions(quda PUBLIC NVSHMEM_COMMS)\ntarget_include_directories(quda PRIVATE ${CMAKE_SOURCE_DIR}/include/targets/cuda)\n";
    const HIP: &str =
        "target_include_directories(quda PRIVATE ${CMAKE_SOURCE_DIR}/include/targets/hip)\n";

    fn tree() -> Vec<&'static str> {
        vec![
            "lib/CMakeLists.txt",
            "lib/targets/cuda/target_cuda.cmake",
            "lib/targets/hip/target_hip.cmake",
        ]
    }

    /// QUDA's shape: the CUDA target module, its macro and its include folder are the CUDA
    /// build's; the HIP module's are not.
    #[test]
    fn a_module_only_the_cuda_arm_includes_is_the_cuda_builds() {
        let cmake: Vec<(&str, &[u8])> = vec![
            ("lib/CMakeLists.txt", LIB.as_bytes()),
            ("lib/targets/cuda/target_cuda.cmake", CUDA.as_bytes()),
            ("lib/targets/hip/target_hip.cmake", HIP.as_bytes()),
        ];
        let m = cuda_only_modules(&cmake, &tree(), &[]);
        assert_eq!(
            m.keys().collect::<Vec<_>>(),
            ["lib/targets/cuda/target_cuda.cmake"]
        );
        let dirs = cuda_only_include_dirs(&cmake, &m);
        assert_eq!(dirs.keys().collect::<Vec<_>>(), ["include/targets/cuda/"]);
        let macros = crate::inventory::cmake::cuda_build_only_macros_with(&cmake, &m);
        assert!(macros.contains_key("NVSHMEM_COMMS"), "{macros:?}");
        // Twin: the same folder also added by a file every build reads stays.
        let shared = "include_directories(${CMAKE_SOURCE_DIR}/include/targets/cuda)\n";
        let mut with_shared = cmake.clone();
        with_shared.push(("CMakeLists.txt", shared.as_bytes()));
        assert!(cuda_only_include_dirs(&with_shared, &m).is_empty());
    }

    /// Twin: a module included outside the arms (every build reads it) is no CUDA build's.
    #[test]
    fn a_module_every_build_includes_is_not() {
        let lib = "include(targets/cuda/target_cuda.cmake)\n";
        let cmake: Vec<(&str, &[u8])> = vec![
            ("lib/CMakeLists.txt", lib.as_bytes()),
            ("lib/targets/cuda/target_cuda.cmake", CUDA.as_bytes()),
        ];
        assert!(cuda_only_modules(&cmake, &tree(), &[]).is_empty());
    }
}
