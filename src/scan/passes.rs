//! The project-level passes of `scan` over what the per-file pipeline returned: macros only
//! the CUDA side defines, logical constants named by includers, include resolution, and twin
//! switch arms.

use crate::report::Sources;

/// Findings in branches that test a macro the project defines only where HIP never compiles
/// (DeepSpeed's `#ifdef PTX_AVAILABLE`) become PASS, naming the macro; so do 32-bit masks passed
/// only to macros the project's HIP branch defines without their mask (pytorch_scatter).
pub(super) fn pass_behind_cuda_side_macros(
    findings: &mut [crate::finding::Finding],
    sources: &Sources,
    defines: &[(String, Vec<crate::model::cuda_side::Define>)],
) {
    let macros = crate::model::cuda_side::cuda_side_macros(defines);
    let dropping = crate::model::cuda_side::hip_macros_dropping(defines);
    if macros.is_empty() && dropping.is_empty() {
        return;
    }
    let mut by_path: std::collections::BTreeMap<&str, Vec<&mut crate::finding::Finding>> =
        Default::default();
    for f in findings.iter_mut() {
        if sources.contains_key(&f.path) {
            by_path
                .entry(sources.get_key_value(&f.path).unwrap().0)
                .or_default()
                .push(f);
        }
    }
    for (path, mut fs) in by_path {
        if fs.iter().all(|f| f.status == crate::gate::Status::Pass) {
            continue;
        }
        if !macros.is_empty() {
            crate::model::cuda_side::pass_behind(path, &sources[path], &mut fs, &macros);
        }
        if !dropping.is_empty() {
            crate::model::cuda_side::pass_dropped_masks(&sources[path], &mut fs, &dropping);
        }
    }
}

/// An HP101 header constant and the files that include its header (transitively) and name it.
/// Settled PASS because every use in the header keeps CUDA's meaning
/// ([`crate::rules::warp_size::logical::EVERY_USE`]), it is reopened when such a file uses it
/// where CUDA's meaning is not shown to be kept (that file has no
/// [`crate::rules::warp_size::logical::exchange::INCLUDER_KEEPS`] PASS for it): the header
/// cannot see that use. Left open because the header itself never uses it (its only mention is
/// the definition), it is settled when every file naming it keeps CUDA's meaning there.
pub(super) fn reopen_logical_constants_named_by_includers(
    findings: &mut [crate::finding::Finding],
    sources: &Sources,
    includes: &[(String, Vec<String>)],
    inputs: &[crate::walk::Input],
    max_bytes: u64,
    resolve: &dyn Fn(&str, &str) -> String,
) {
    use crate::rules::warp_size::logical::exchange::INCLUDER_KEEPS;
    use crate::rules::warp_size::logical::EVERY_USE;
    let candidate = |f: &crate::finding::Finding| {
        f.rule == "HP101"
            && !f.message.contains(INCLUDER_KEEPS)
            && (f.status != crate::gate::Status::Pass || f.message.contains(EVERY_USE))
    };
    if !findings.iter().any(candidate) {
        return;
    }
    // (file, name) of every includer's PASS for a header constant.
    let keeps: std::collections::BTreeSet<(String, String)> = findings
        .iter()
        .filter(|f| f.rule == "HP101" && f.message.contains(INCLUDER_KEEPS))
        .filter_map(|f| {
            let name = f.message.split('`').nth(1)?;
            Some((f.path.clone(), name.to_string()))
        })
        .collect();
    let mut users: std::collections::BTreeMap<String, Vec<&str>> = Default::default();
    for (rel, incs) in includes {
        for i in incs {
            users.entry(resolve(rel, i)).or_default().push(rel);
        }
    }
    let text_of = |rel: &str| -> Option<Vec<u8>> {
        sources.get(rel).cloned().or_else(|| {
            let i = inputs.iter().find(|i| i.rel == rel)?;
            crate::safety::read_regular_bounded(&i.path, max_bytes).ok()
        })
    };
    let count = |t: &[u8], name: &str| {
        t.split(|c| !(c.is_ascii_alphanumeric() || *c == b'_'))
            .filter(|w| *w == name.as_bytes())
            .count()
    };
    for f in findings.iter_mut().filter(|f| candidate(f)) {
        let settled = f.status == crate::gate::Status::Pass;
        let cut = f.message.find(EVERY_USE);
        let name = match cut {
            Some(c) => f.message[c + EVERY_USE.len()..].split('`').next(),
            None => f.message.split('`').nth(1),
        }
        .unwrap_or("")
        .to_string();
        if name.is_empty() {
            continue;
        }
        // Every file that includes the header, transitively.
        let mut seen: std::collections::BTreeSet<String> = Default::default();
        let mut todo = vec![f.path.clone()];
        while let Some(h) = todo.pop() {
            for u in users.get(&h).into_iter().flatten() {
                if seen.insert(u.to_string()) {
                    todo.push(u.to_string());
                }
            }
        }
        let naming: Vec<&String> = seen
            .iter()
            .filter(|u| text_of(u).is_some_and(|t| count(&t, &name) > 0))
            .collect();
        let unkept = naming
            .iter()
            .find(|u| !keeps.contains(&(u.to_string(), name.clone())));
        if settled {
            if let (Some(u), Some(cut)) = (unkept, cut) {
                f.status = crate::gate::Status::Remediation;
                f.message.truncate(cut);
                f.message.push_str(&format!(
                    " (`{u}`, which includes this header, uses it too)"
                ));
                f.suggestion = Some(format!(
                    "review the uses of `{name}` in the files that include this header; define it from `warpSize` or per target where they need the wavefront"
                ));
            }
            continue;
        }
        // Open because the header never uses it: settled when every includer naming it keeps
        // CUDA's meaning there.
        let only_defined = text_of(&f.path).is_some_and(|t| count(&t, &name) == 1);
        if only_defined && unkept.is_none() && !naming.is_empty() {
            let shown: Vec<String> = naming.iter().take(3).map(|u| format!("`{u}`")).collect();
            f.settle(&format!(
                ", but this header only defines `{name}`, and every file that includes it and names it ({}{}) uses it only where 32-lane groups keep CUDA's meaning: the constant is the logical warp's size (nothing to change)",
                shown.join(", "),
                if naming.len() > 3 { ", …" } else { "" }
            ));
        }
    }
}

/// An include of a CUDA header with no HIP counterpart (HP004) that the project carries itself:
/// cuda-samples' `helper_cuda.h`, which fastmoe and cuda_voxelizer keep in a `common/` folder
/// their build puts on the include path. The include finds the project's copy, which is
/// scanned and ported with the rest of the project: PASS naming it. A copy is a project file
/// whose path ends with the include as written; two or more copies are named by the first.
pub(super) fn pass_headers_the_project_carries(
    findings: &mut [crate::finding::Finding],
    rels: &[&str],
) {
    for f in findings
        .iter_mut()
        .filter(|f| f.rule == "HP004" && f.status != crate::gate::Status::Pass)
    {
        let Some(path) = f.message.split('`').nth(1).map(str::to_string) else {
            continue;
        };
        // A copy of an NVIDIA library's header (decord's `nvcuvid/cuviddec.h`, the Video
        // Codec SDK's) declares what NVIDIA's binary implements: the library's use stays the
        // decision, whoever carries the header.
        let base = path.rsplit('/').next().unwrap_or(&path);
        if crate::mappings::libraries::of_header(&path)
            .or_else(|| crate::mappings::libraries::of_header(base))
            .is_some()
        {
            continue;
        }
        // A copy the includer can reach: in a folder whose parent holds the includer (its own
        // folder, `common/` beside `src/`, an ancestor's), not a same-named file of another
        // part of the project (cuQuantum's Python extension's own `cudensitymat.h`).
        let dir = crate::model::includes::dir_of;
        let here = dir(&f.path);
        let reaches = |copy: &str| {
            let parent = dir(dir(copy));
            parent.is_empty() || here == parent || here.starts_with(&format!("{parent}/"))
        };
        let copy = rels.iter().find(|r| {
            **r != f.path
                && (**r == path
                    || r.strip_suffix(path.as_str())
                        .is_some_and(|head| head.ends_with('/')))
                && reaches(r)
        });
        if let Some(copy) = copy {
            f.settle(&format!(
                " (the project carries its own `{copy}`, which the include finds through the build's include path: it is scanned and ported with the project's code; nothing to change here)"
            ));
        }
    }
}

/// `inc` (a quoted `#include` path) resolved against the folder of `from`, `/`-separated.
pub(super) fn resolve_include(from: &str, inc: &str) -> String {
    crate::model::includes::join(crate::model::includes::dir_of(from), inc)
}

/// Adds to `only` (sources the HIP build does not compile, with the reason) every scanned file
/// that is included (`#include "…"`, resolved by `resolve` from the includer: its folder, then
/// the project's include roots) only by such files,
/// transitively: bitsandbytes' `gemm_4bit_mma.cuh`, included only by the sm75/sm80 sources its
/// CMake builds under `if(BUILD_CUDA)`. A file included by anything else, or by nothing, stays.
pub(super) fn headers_only_included_by(
    only: &mut std::collections::HashMap<String, String>,
    includes: &[(String, Vec<String>)],
    dead: &[(String, Vec<String>)],
    resolve: &dyn Fn(&str, &str) -> String,
) {
    if only.is_empty() && dead.is_empty() {
        return;
    }
    // Who includes each header, and whether in a branch the ROCm build compiles.
    let mut users: std::collections::BTreeMap<String, Vec<(&str, bool)>> = Default::default();
    for (edges, live) in [(includes, true), (dead, false)] {
        for (rel, incs) in edges {
            for i in incs {
                let h = resolve(rel, i);
                users.entry(h).or_default().push((rel, live));
            }
        }
    }
    loop {
        let mut added = Vec::new();
        for (h, by) in &users {
            if only.contains_key(h) {
                continue;
            }
            if by.iter().all(|(u, live)| !live || only.contains_key(*u)) {
                let why = match by.iter().find(|(_, live)| !live) {
                    Some((u, _)) => format!(
                        "included only in branches the ROCm build never compiles or by sources it does not compile (`{u}`)"
                    ),
                    None => format!(
                        "included only by sources the HIP build does not compile (`{}`)",
                        by[0].0
                    ),
                };
                added.push((h.clone(), why));
            }
        }
        if added.is_empty() {
            return;
        }
        only.extend(added);
    }
}

/// The folder of a project-relative path, with a trailing `/` (empty at the root).
pub(super) fn folder_of(rel: &str) -> &str {
    rel.rsplit_once('/')
        .map_or("", |(d, _)| &rel[..d.len() + 1])
}

/// Open findings of CMake files in arms the project's HIP build never runs by its twin switches:
/// a switch with NVIDIA/CUDA/NV in its name whose twin with AMD/HIP/ROCM is also declared
/// selects the CUDA build. Switches declared in a CMake file count in every CMake file of its
/// folder and below (a subdirectory's `if(${FOO_NVIDIA_BACKEND})` under the parent's options);
/// `project`'s twins ([`crate::inventory::cmake::project_twins`]) in every file.
pub(super) fn pass_twin_switch_arms(
    findings: &mut [crate::finding::Finding],
    texts: &std::collections::BTreeMap<String, Vec<u8>>,
    project: &[crate::inventory::cmake::Twin],
) {
    let is_cmake = |rel: &str| rel.ends_with("CMakeLists.txt") || rel.ends_with(".cmake");
    let declared: Vec<(&str, String, String)> = texts
        .iter()
        .filter(|(rel, _)| is_cmake(rel))
        .flat_map(|(rel, bytes)| {
            crate::inventory::cmake::declared_switches(bytes)
                .into_iter()
                .map(move |(n, line)| (folder_of(rel), n, format!("{rel}:{line}")))
        })
        .collect();
    // Backend selectors the project tests against a HIP value in any CMake file; read only
    // where a CMake file has an open finding for them to decide, and only from files that
    // compare a value at all (each read is a parse).
    let open_cmake = texts.keys().any(|rel| {
        is_cmake(rel)
            && findings
                .iter()
                .any(|f| f.path == *rel && f.status != crate::gate::Status::Pass)
    });
    let compares = |b: &[u8]| {
        memchr::memmem::find(b, b"STREQUAL").is_some()
            || memchr::memmem::find(b, b"MATCHES").is_some()
    };
    let selectors: Vec<(String, String)> = texts
        .iter()
        .filter(|(rel, bytes)| open_cmake && is_cmake(rel) && compares(bytes))
        .flat_map(|(rel, bytes)| crate::inventory::cmake::hip_selectors(bytes, rel))
        .fold(Vec::new(), |mut acc: Vec<(String, String)>, (v, at)| {
            if !acc.iter().any(|(w, _)| *w == v) {
                acc.push((v, at));
            }
            acc
        });
    if declared.is_empty() && selectors.is_empty() && project.is_empty() {
        return;
    }
    for (rel, bytes) in texts.iter().filter(|(rel, _)| is_cmake(rel)) {
        if !findings
            .iter()
            .any(|f| f.path == *rel && f.status != crate::gate::Status::Pass)
        {
            continue;
        }
        let dir = folder_of(rel);
        let scope: Vec<(String, String)> = declared
            .iter()
            .filter(|(d, _, _)| dir.starts_with(d))
            .map(|(_, n, at)| (n.clone(), at.clone()))
            .collect();
        // The declared twins in scope, then the project's (`if(GMX_GPU_CUDA)` alone in a file
        // of a project whose other files test it against `GMX_GPU_HIP`).
        let mut twins = crate::inventory::cmake::twin_switches(&scope);
        for t in project {
            if !twins.iter().any(|x| x.cuda == t.cuda) {
                twins.push(t.clone());
            }
        }
        let dead = crate::inventory::cmake::dead_arms_with_twins(bytes, &twins, &selectors);
        for f in findings.iter_mut() {
            if f.path != *rel || f.status == crate::gate::Status::Pass {
                continue;
            }
            if let Some((_, why)) = dead.iter().find(|(r, _)| r.contains(&f.byte_range.0)) {
                f.status = crate::gate::Status::Pass;
                f.message.push_str(&format!(" ({why})"));
            }
        }
    }
}

/// PTX, cubin and fatbin files (HP910/HP911) whose source is in the tree (`bin/X.ptx` beside
/// `source/kernels/X.cu`, as a prebuilt distribution ships them): build outputs the ROCm build
/// regenerates from the source the port translates. PASS naming the source; the program that
/// loads such a file by name has its own finding (HP502).
pub(super) fn pass_built_gpu_binaries<'a>(
    findings: &mut [crate::finding::Finding],
    rels: impl Iterator<Item = &'a str>,
) {
    let mut sources: std::collections::BTreeMap<&str, &str> = Default::default();
    for rel in rels {
        if let Some(stem) = rel.strip_suffix(".cu") {
            let name = stem.rsplit('/').next().unwrap_or(stem);
            sources.entry(name).or_insert(rel);
        }
    }
    if sources.is_empty() {
        return;
    }
    for f in findings.iter_mut() {
        if !matches!(f.rule.as_str(), "HP910" | "HP911") || f.status == crate::gate::Status::Pass {
            continue;
        }
        let name = f.path.rsplit('/').next().unwrap_or(&f.path);
        let Some((stem, _)) = name.rsplit_once('.') else {
            continue;
        };
        let Some(src) = sources.get(stem) else {
            continue;
        };
        let head = f.message.split(':').next().unwrap_or("").to_string();
        f.status = crate::gate::Status::Pass;
        f.message = format!(
            "{head}, a build output of `{src}`: the ROCm build makes an AMD code object from that source, which the port translates, so nothing is to do with this file (a program that loads it by name is reported where it loads it)"
        );
        f.suggestion = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A subdirectory's CMake file under its parent's twin switches: `if(${FOO_NVIDIA_BACKEND})`
    /// is the CUDA build's arm when a folder above declares `FOO_AMD_BACKEND`; a sibling
    /// folder's declaration does not reach it.
    #[test]
    fn parent_twin_switches_decide_subdirectory_arms() {
        use crate::inventory::{kind::FileKind, scan_bytes};
        let top: &[u8] = b"option(FOO_AMD_BACKEND \"AMD\" OFF)\noption(FOO_NVIDIA_BACKEND \"NV\" ON)\nadd_subdirectory(sub)\n";
        let sub: &[u8] = b"add_executable(t t.cu)\nif(${FOO_NVIDIA_BACKEND})\n  set_target_properties(t PROPERTIES CUDA_ARCHITECTURES 80)\nendif()\n";
        let run = |decl_at: &str| {
            let mut findings = scan_bytes("sub/CMakeLists.txt", FileKind::CMake, sub);
            assert!(!findings.is_empty());
            let texts: std::collections::BTreeMap<String, Vec<u8>> = [
                (decl_at.to_string(), top.to_vec()),
                ("sub/CMakeLists.txt".to_string(), sub.to_vec()),
            ]
            .into_iter()
            .collect();
            pass_twin_switch_arms(&mut findings, &texts, &[]);
            findings
        };
        let f = run("CMakeLists.txt");
        assert!(f.iter().all(|f| f.status == crate::gate::Status::Pass));
        assert!(
            f[0].message
                .contains("`FOO_AMD_BACKEND` (CMakeLists.txt:1)"),
            "{}",
            f[0].message
        );
        let f = run("other/CMakeLists.txt");
        assert!(f.iter().any(|f| f.status != crate::gate::Status::Pass));
    }

    /// WarpX: `cmake/dependencies/AMReX.cmake` calls `enable_language(CUDA)` under
    /// `if(WarpX_COMPUTE STREQUAL CUDA)`, and the top file selects the HIP build with
    /// `elseif(WarpX_COMPUTE STREQUAL HIP)`: PASS naming that test. Twin: without the top
    /// file's HIP test the arm stays open.
    #[test]
    fn a_backend_selector_tested_against_hip_elsewhere_decides_a_cmake_module() {
        use crate::inventory::{kind::FileKind, scan_bytes};
        let top: &[u8] = b"set(WarpX_COMPUTE OMP CACHE STRING \"backend\")\nif(WarpX_COMPUTE STREQUAL CUDA)\n  set(X 1)\nelseif(WarpX_COMPUTE STREQUAL HIP)\n  set(X 2)\nendif()\n";
        let module: &[u8] = b"if(WarpX_COMPUTE STREQUAL CUDA)\n  enable_language(CUDA)\nendif()\n";
        let run = |top: &[u8]| {
            let mut findings =
                scan_bytes("cmake/dependencies/AMReX.cmake", FileKind::CMake, module);
            assert!(!findings.is_empty());
            let texts: std::collections::BTreeMap<String, Vec<u8>> = [
                ("CMakeLists.txt".to_string(), top.to_vec()),
                (
                    "cmake/dependencies/AMReX.cmake".to_string(),
                    module.to_vec(),
                ),
            ]
            .into_iter()
            .collect();
            pass_twin_switch_arms(&mut findings, &texts, &[]);
            findings
        };
        let f = run(top);
        assert!(
            f.iter().all(|f| f.status == crate::gate::Status::Pass),
            "{f:?}"
        );
        assert!(
            f[0].message
                .contains("`elseif(WarpX_COMPUTE STREQUAL HIP)` (CMakeLists.txt:4)"),
            "{}",
            f[0].message
        );
        let cuda_only = b"if(WarpX_COMPUTE STREQUAL CUDA)\n  set(X 1)\nendif()\n";
        let f = run(cuda_only);
        assert!(f.iter().any(|f| f.status != crate::gate::Status::Pass));
    }

    #[test]
    fn a_header_constant_settled_by_logical_warps_reopens_when_an_includer_names_it() {
        use crate::rules::warp_size::logical::EVERY_USE;
        let finding = |path: &str| {
            let mut f = crate::finding::Finding::bare("HP101", path, 29);
            f.status = crate::gate::Status::Pass;
            f.message = format!(
                "`kWarpSize` fixes the warp size at 32{EVERY_USE}kWarpSize` in this file is …"
            );
            f
        };
        let includes = vec![
            ("k/a.cuh".to_string(), vec!["math.cuh".to_string()]),
            ("k/a.cu".to_string(), vec!["a.cuh".to_string()]),
        ];
        let run = |a_cu: &str| {
            let mut f = vec![finding("k/math.cuh")];
            let sources: Sources = [
                ("k/a.cuh".to_string(), b"#include \"math.cuh\"\n".to_vec()),
                ("k/a.cu".to_string(), a_cu.as_bytes().to_vec()),
            ]
            .into_iter()
            .collect();
            reopen_logical_constants_named_by_includers(
                &mut f,
                &sources,
                &includes,
                &[],
                1 << 20,
                &resolve_include,
            );
            f.remove(0)
        };
        // No includer names it: the PASS stands.
        let f = run("__global__ void k() {}\n");
        assert_eq!(f.status, crate::gate::Status::Pass);
        // A transitive includer uses it: the header cannot see that use, so it reopens.
        let f = run("__global__ void k(float* p) { p[threadIdx.x % kWarpSize] = 0; }\n");
        assert_eq!(f.status, crate::gate::Status::Remediation);
        assert!(f.message.contains("`k/a.cu`, which includes this header"));
        assert!(f.suggestion.is_some());
    }

    /// cuda-samples' `helper_cuda.h` kept in the project's `common/`: the include finds that
    /// copy (PASS naming it). Twins: a header the project does not carry, and a file whose name
    /// only ends like it (`my_helper_cuda.h`), stay open.
    #[test]
    fn a_samples_header_the_project_carries_is_its_own() {
        let hp004 = |path: &str, header: &str| {
            let mut f = crate::finding::Finding::bare("HP004", path, 1);
            f.message = format!("`{header}` has no HIP counterpart in ROCm 6.2.0");
            f
        };
        let mut fs = vec![
            hp004("src/a.cu", "helper_cuda.h"),
            hp004("src/a.cu", "helper_math.h"),
            hp004("src/b.cu", "helper_timer.h"),
            hp004("src/nvcuvid/nvcuvid.h", "cuviddec.h"),
        ];
        let rels = [
            "src/a.cu",
            "src/b.cu",
            "common/helper_cuda.h",
            "common/my_helper_timer.h",
            "python/ext/cppsrc/helper_math.h",
            "src/nvcuvid/nvcuvid.h",
            "src/nvcuvid/cuviddec.h",
        ];
        pass_headers_the_project_carries(&mut fs, &rels);
        let status: Vec<_> = fs.iter().map(|f| f.status).collect();
        use crate::gate::Status::{Pass, Remediation};
        // `helper_math.h` of another part of the project is not what `src/a.cu` finds; a
        // carried copy of an NVIDIA library's header (decord's NVDEC `cuviddec.h`) brings no
        // library: its use stays open.
        assert_eq!(status, [Pass, Remediation, Remediation, Remediation]);
        assert!(
            fs[0].message.contains("`common/helper_cuda.h`"),
            "{}",
            fs[0].message
        );
    }

    #[test]
    fn headers_of_cuda_only_sources_only() {
        let inc =
            |rel: &str, i: &[&str]| (rel.to_string(), i.iter().map(|s| s.to_string()).collect());
        let includes = vec![
            inc("csrc/sm80.cu", &["gemm_mma.cuh", "common.cuh"]),
            inc("csrc/sm75.cu", &["./gemm_mma.cuh"]),
            inc("csrc/gemm_mma.cuh", &["../include/mma_detail.h"]),
            inc("csrc/simt.cu", &["common.cuh"]),
        ];
        let mut only: std::collections::HashMap<String, String> = [
            ("csrc/sm80.cu".to_string(), "x".to_string()),
            ("csrc/sm75.cu".to_string(), "x".to_string()),
        ]
        .into_iter()
        .collect();
        headers_only_included_by(&mut only, &includes, &[], &resolve_include);
        let mut got: Vec<&str> = only.keys().map(|k| k.as_str()).collect();
        got.sort();
        // common.cuh is also included by simt.cu, which the HIP build compiles.
        assert_eq!(
            got,
            [
                "csrc/gemm_mma.cuh",
                "csrc/sm75.cu",
                "csrc/sm80.cu",
                "include/mma_detail.h"
            ]
        );
        assert_eq!(resolve_include("a/b/c.cu", "../d/e.h"), "a/d/e.h");
        // aphrodite's marlin `mem.cuh`: included only inside a `__CUDA_ARCH__` arm (a branch
        // the ROCm build never compiles) of a source it compiles. Twin: one live include keeps
        // the header.
        let mut none: std::collections::HashMap<String, String> = Default::default();
        let dead = vec![inc("k/marlin.cu", &["common/mem.cuh"])];
        headers_only_included_by(&mut none, &[], &dead, &resolve_include);
        assert!(
            none["k/common/mem.cuh"].contains("never compiles"),
            "{none:?}"
        );
        let mut kept: std::collections::HashMap<String, String> = Default::default();
        let live = vec![inc("k/other.cu", &["common/mem.cuh"])];
        headers_only_included_by(&mut kept, &live, &dead, &resolve_include);
        assert!(kept.is_empty(), "{kept:?}");
        assert_eq!(resolve_include("c.cu", "e.h"), "e.h");
    }
}
