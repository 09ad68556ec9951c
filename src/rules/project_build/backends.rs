//! A CUDA backend folder beside the backend the project's ROCm build compiles. A project built on
//! a portability layer keeps one folder per device backend, side by side (VTK-m's
//! `vtkm/cont/{cuda,kokkos,openmp,serial,tbb}/` and `vtkm/exec/{…}/`). Its ROCm build compiles
//! one of them for HIP (VTK-m's Kokkos backend: `set_source_files_properties(… LANGUAGE HIP)` in
//! `vtkm/cont/kokkos/internal/CMakeLists.txt`) and never the CUDA one, which is the NVIDIA
//! build's. Findings in the CUDA folder ask nothing of the port; they become PASS naming the
//! backend the ROCm build uses instead.
//!
//! A folder is such a CUDA backend when
//! - its name is `cuda` (any case) and its parent holds, beside it, a folder named for another
//!   device backend ([`BACKENDS`]);
//! - that backend is the project's ROCm backend: somewhere in the tree a folder of that name
//!   holds a build file that compiles HIP ([`compiles_hip`]);
//! - no build file under the CUDA folder compiles HIP, and no file of the ROCm backend's folder
//!   includes a file of the CUDA folder (then the ROCm build compiles it after all).
//!
//! A `hip`/`rocm` sibling is the counterpart by name, decided before this (see
//! [`super::rocm_counterparts`]); a backend layout whose other backends never build HIP (Thrust's
//! `system/{cuda,omp,tbb,cpp}`) decides nothing: its CUDA backend is the port's work.

use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Folder names of device backends other than CUDA and ROCm's own names.
pub const BACKENDS: [&str; 13] = [
    "kokkos", "raja", "sycl", "dpcpp", "openmp", "omp", "openacc", "tbb", "serial", "cpu",
    "opencl", "stdpar", "alpaka",
];

/// Whether a build file's text compiles HIP: CMake's HIP language (`LANGUAGE HIP`,
/// `LANGUAGES CXX HIP`, `enable_language(HIP)`), HIP's or ROCm's imported targets
/// (`hip::device`, `hip::host`, `roc::rocthrust`) or `hipcc`, outside `#` comments. The
/// line of the first such word, 1-based.
pub fn compiles_hip(text: &str) -> Option<usize> {
    for (n, line) in text.lines().enumerate() {
        let code = line.split('#').next().unwrap_or("");
        let words: Vec<&str> = code
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == ':'))
            .filter(|w| !w.is_empty())
            .collect();
        let language = words
            .iter()
            .position(|w| matches!(*w, "LANGUAGE" | "LANGUAGES" | "enable_language"))
            .is_some_and(|i| words[i + 1..].contains(&"HIP"));
        let targets = words.iter().any(|w| {
            matches!(*w, "hip::device" | "hip::host" | "hip::amdhip64" | "hipcc")
                || w.starts_with("roc::")
        });
        if language || targets {
            return Some(n + 1);
        }
    }
    None
}

/// Whether a path is a build file (CMake lists and modules, Makefiles).
fn is_build_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == "CMakeLists.txt"
        || name.ends_with(".cmake")
        || name == "Makefile"
        || name.ends_with(".mk")
}

/// The build files that compile HIP ([`compiles_hip`]), each with the line that says so: read
/// once for every reading of the project's HIP build.
pub fn hip_builds<'a>(build_files: &[(&'a str, &[u8])]) -> Vec<(&'a str, usize)> {
    build_files
        .iter()
        .filter_map(|(rel, text)| compiles_hip(&String::from_utf8_lossy(text)).map(|l| (*rel, l)))
        .collect()
}

/// Each file under a CUDA backend folder beside the project's ROCm backend, with that backend's
/// folder (ending in `/`) and why (see the module documentation). `hip` are the build files
/// that compile HIP ([`hip_builds`]); `includes` each source's resolved project includes.
pub fn cuda_backends(
    paths: &[&str],
    includes: &HashMap<String, Vec<String>>,
    hip: &[(&str, usize)],
) -> BTreeMap<String, (String, String)> {
    // The backends whose folders build HIP somewhere: name → `path:line`.
    let mut rocm_backends: BTreeMap<String, String> = BTreeMap::new();
    let mut hip_dirs: Vec<&str> = Vec::new();
    for &(rel, line) in hip {
        if !is_build_file(rel) {
            continue;
        }
        hip_dirs.push(rel.rsplit_once('/').map_or("", |(d, _)| d));
        let dirs = rel.split('/').collect::<Vec<_>>();
        for d in &dirs[..dirs.len() - 1] {
            let d = d.to_ascii_lowercase();
            if BACKENDS.contains(&d.as_str()) {
                rocm_backends
                    .entry(d)
                    .or_insert_with(|| format!("{rel}:{line}"));
            }
        }
    }
    if rocm_backends.is_empty() {
        return BTreeMap::new();
    }
    // The folders of the tree, by parent: parent → child names (as spelled).
    let mut children: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for p in paths {
        let mut at = 0;
        while let Some(i) = p[at..].find('/') {
            let dir = &p[..at + i];
            let (parent, name) = dir.rsplit_once('/').unwrap_or(("", dir));
            children.entry(parent).or_default().insert(name);
            at += i + 1;
        }
    }
    let mut out = BTreeMap::new();
    for (parent, names) in &children {
        let Some(cuda) = names.iter().find(|n| n.eq_ignore_ascii_case("cuda")) else {
            continue;
        };
        let Some((backend, at)) = names.iter().find_map(|n| {
            rocm_backends
                .get(&n.to_ascii_lowercase())
                .map(|at| (*n, at.as_str()))
        }) else {
            continue;
        };
        let join = |n: &str| {
            if parent.is_empty() {
                n.to_string()
            } else {
                format!("{parent}/{n}")
            }
        };
        let (cuda_dir, rocm_dir) = (join(cuda), join(backend));
        let under = |p: &str, d: &str| p.starts_with(&format!("{d}/"));
        let cuda_dir_builds_hip = hip_dirs
            .iter()
            .any(|d| *d == cuda_dir || under(d, &cuda_dir));
        let included_by_rocm = includes
            .iter()
            .any(|(from, incs)| under(from, &rocm_dir) && incs.iter().any(|i| under(i, &cuda_dir)));
        if cuda_dir_builds_hip || included_by_rocm {
            continue;
        }
        let why = format!(
            "in the project's CUDA backend `{cuda_dir}/`: its ROCm build compiles the `{backend}` \
             backend beside it (`{rocm_dir}/`; the `{}` backend builds HIP at `{at}`) and never \
             this folder",
            backend.to_ascii_lowercase()
        );
        for p in paths.iter().filter(|p| under(p, &cuda_dir)) {
            out.insert(p.to_string(), (format!("{rocm_dir}/"), why.clone()));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const KOKKOS_HIP: &[u8] = b"if(TARGET k_cuda)\n  set_source_files_properties(${s} PROPERTIES LANGUAGE CUDA)\nelseif(TARGET k_hip)\n  set_source_files_properties(${s} PROPERTIES LANGUAGE HIP)\nendif()\n";

    fn run(paths: &[&str], builds: &[(&str, &[u8])]) -> BTreeMap<String, (String, String)> {
        cuda_backends(paths, &HashMap::new(), &hip_builds(builds))
    }

    /// VTK-m's layout: `cont/cuda/` beside `cont/kokkos/`, whose build compiles HIP; the same
    /// layout in `exec/` follows the project's backend by name.
    #[test]
    fn a_cuda_backend_beside_the_backend_that_builds_hip_is_not_the_rocm_builds() {
        let paths = [
            "vtkm/cont/cuda/internal/CudaAllocator.cu",
            "vtkm/cont/cuda/DeviceAdapterCuda.h",
            "vtkm/cont/kokkos/internal/CMakeLists.txt",
            "vtkm/cont/kokkos/internal/KokkosAlloc.cxx",
            "vtkm/cont/serial/DeviceAdapterSerial.h",
            "vtkm/exec/cuda/internal/WrappedOperators.h",
            "vtkm/exec/kokkos/internal/TaskBasic.h",
            "vtkm/interop/cuda/SetOpenGLDevice.h",
            "vtkm/interop/anari/x.h",
        ];
        let out = run(
            &paths,
            &[("vtkm/cont/kokkos/internal/CMakeLists.txt", KOKKOS_HIP)],
        );
        let got: Vec<&str> = out.keys().map(String::as_str).collect();
        assert_eq!(
            got,
            [
                "vtkm/cont/cuda/DeviceAdapterCuda.h",
                "vtkm/cont/cuda/internal/CudaAllocator.cu",
                "vtkm/exec/cuda/internal/WrappedOperators.h",
            ]
        );
        let (dir, why) = &out["vtkm/exec/cuda/internal/WrappedOperators.h"];
        assert_eq!(dir, "vtkm/exec/kokkos/");
        assert!(
            why.contains("vtkm/cont/kokkos/internal/CMakeLists.txt:4"),
            "{why}"
        );
    }

    /// Negative twins: the other backends never build HIP (Thrust's `system/` layout); the CUDA
    /// folder's own build compiles HIP; the ROCm backend includes a CUDA-folder header; a `#`
    /// comment naming HIP builds nothing.
    #[test]
    fn no_rocm_backend_or_a_cuda_folder_the_rocm_build_reaches_decides_nothing() {
        let thrust = [
            "thrust/system/cuda/detail/sort.h",
            "thrust/system/omp/detail/sort.h",
            "thrust/system/tbb/detail/sort.h",
        ];
        assert!(run(
            &thrust,
            &[("thrust/system/omp/CMakeLists.txt", b"add_library(x)\n")]
        )
        .is_empty());
        let paths = [
            "src/cuda/k.cu",
            "src/cuda/CMakeLists.txt",
            "src/kokkos/CMakeLists.txt",
            "src/kokkos/a.cpp",
        ];
        assert!(run(
            &paths,
            &[
                ("src/kokkos/CMakeLists.txt", KOKKOS_HIP),
                (
                    "src/cuda/CMakeLists.txt",
                    b"set_source_files_properties(k.cu PROPERTIES LANGUAGE HIP)\n"
                ),
            ]
        )
        .is_empty());
        let includes: HashMap<String, Vec<String>> = [(
            "src/kokkos/a.cpp".to_string(),
            vec!["src/cuda/k.cu".to_string()],
        )]
        .into();
        assert!(cuda_backends(
            &paths,
            &includes,
            &hip_builds(&[("src/kokkos/CMakeLists.txt", KOKKOS_HIP)])
        )
        .is_empty());
        assert!(run(
            &paths,
            &[(
                "src/kokkos/CMakeLists.txt",
                b"# LANGUAGE HIP one day\nadd_library(a a.cpp)\n"
            )]
        )
        .is_empty());
        assert_eq!(
            run(&paths, &[("src/kokkos/CMakeLists.txt", KOKKOS_HIP)]).len(),
            2
        );
    }

    #[test]
    fn hip_builds_are_read_from_languages_and_targets() {
        assert_eq!(compiles_hip("project(p LANGUAGES CXX HIP)\n"), Some(1));
        assert_eq!(compiles_hip("x\nenable_language(HIP)\n"), Some(2));
        assert_eq!(
            compiles_hip("target_link_libraries(a roc::rocprim)\n"),
            Some(1)
        );
        assert_eq!(compiles_hip("enable_language(CUDA)\n# hip::device\n"), None);
        assert_eq!(compiles_hip("set(HIP_PATH /opt/rocm)\n"), None);
    }
}
