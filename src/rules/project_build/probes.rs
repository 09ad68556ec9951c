//! Configure-time probes of the NVIDIA GPU. A CMake build that asks for the machine's own
//! architecture compiles and runs a small CUDA program while it configures (VTK-m's
//! `CMake/VTKmDetectCUDAVersion.cu`, run by `nvcc --run` in `VTKmDeviceAdapters.cmake`;
//! `try_run(… detect_cuda_archs.cu)` elsewhere). In a project whose build also compiles HIP, the
//! ROCm build configures its architectures its own way and never runs the probe: the probe's
//! findings become PASS naming where the build runs it and where it compiles HIP. In a project
//! without a HIP build the probe is part of the CMake port and keeps its findings.

use std::collections::BTreeMap;

/// Whether a path is a CMake file.
pub(crate) fn is_cmake(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == "CMakeLists.txt" || name.ends_with(".cmake")
}

/// The `.cu` file names a CMake text runs as probes: named on a line with nvcc's `--run`, or
/// inside a `try_run(`/`try_compile(` call, or inside an `execute_process(` whose command is
/// the CUDA compiler (`${CMAKE_CUDA_COMPILER} … ${CUDAFILE} -o …`, the file given directly or
/// through a variable the text `set()`s to a `.cu` path: cuda_hlt's `cmake/utils/cuda_arch.cu`).
/// Each with its 1-based line.
fn probe_names(text: &str) -> Vec<(String, usize)> {
    // `set(CUDAFILE ${CMAKE_CURRENT_SOURCE_DIR}/cmake/utils/cuda_arch.cu)`: NAME → file name.
    let mut vars: BTreeMap<String, String> = BTreeMap::new();
    for line in text.lines() {
        let code = line.split('#').next().unwrap_or("").trim();
        let Some(rest) = code
            .strip_prefix("set(")
            .or_else(|| code.strip_prefix("SET("))
        else {
            continue;
        };
        let mut words = rest.split(|c: char| c.is_whitespace() || matches!(c, '"' | ')'));
        let (Some(name), Some(value)) = (words.next(), words.find(|w| !w.is_empty())) else {
            continue;
        };
        let file = value.rsplit('/').next().unwrap_or(value);
        if file.ends_with(".cu") && file.len() > 3 {
            vars.insert(format!("${{{name}}}"), file.to_string());
        }
    }
    let mut out = Vec::new();
    let mut in_try = 0i32;
    for (n, line) in text.lines().enumerate() {
        let code = line.split('#').next().unwrap_or("");
        let lower = code.to_ascii_lowercase();
        let compiles = lower.contains("execute_process(")
            && (code.contains("CMAKE_CUDA_COMPILER")
                || code.contains("CUDA_NVCC_EXECUTABLE")
                || lower.contains("nvcc"));
        let opens = lower.contains("try_run(") || lower.contains("try_compile(") || compiles;
        if opens {
            in_try = 0;
        }
        let running = code.contains("--run") || opens || in_try > 0;
        if opens || in_try > 0 {
            in_try += code.matches('(').count() as i32 - code.matches(')').count() as i32;
        }
        if !running {
            continue;
        }
        for word in code.split(|c: char| c.is_whitespace() || matches!(c, '"' | '(' | ')')) {
            if let Some(file) = vars.get(word) {
                out.push((file.clone(), n + 1));
                continue;
            }
            let word = word.trim_end_matches('}');
            let name = word.rsplit('/').next().unwrap_or(word);
            if name.ends_with(".cu") && name.len() > 3 {
                out.push((name.to_string(), n + 1));
            }
        }
    }
    out
}

/// Each probe file of the tree (`paths`): the `.cu` a CMake file of `build_files` compiles
/// and runs while it configures, with that CMake file and the line. A name that matches
/// several files of the tree is not resolved.
pub fn probe_files(
    paths: &[&str],
    build_files: &[(&str, &[u8])],
) -> BTreeMap<String, (String, usize)> {
    let mut out = BTreeMap::new();
    for (rel, text) in build_files.iter().filter(|(r, _)| is_cmake(r)) {
        for (name, line) in probe_names(&String::from_utf8_lossy(text)) {
            let mut found = paths
                .iter()
                .filter(|p| p.rsplit('/').next() == Some(name.as_str()));
            let (Some(p), None) = (found.next(), found.next()) else {
                continue;
            };
            out.entry(p.to_string())
                .or_insert_with(|| (rel.to_string(), line));
        }
    }
    out
}

/// Each probe file of the tree (`paths`) in a project whose build files compile HIP (`hip`,
/// [`super::backends::hip_builds`]), with the first HIP build file as its counterpart and why.
pub fn gpu_probes(
    paths: &[&str],
    build_files: &[(&str, &[u8])],
    hip: &[(&str, usize)],
) -> BTreeMap<String, (String, String)> {
    let Some(&(hip_file, hip_line)) = hip.first() else {
        return BTreeMap::new();
    };
    probe_files(paths, build_files)
        .into_iter()
        .map(|(p, (rel, line))| {
            let why = format!(
                "a configure-time probe of the NVIDIA GPU, compiled and run by the CUDA \
                 build's CMake (`{rel}:{line}`); the project's HIP build \
                 (`{hip_file}:{hip_line}`) configures its architectures without it"
            );
            (p, (hip_file.to_string(), why))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(paths: &[&str], builds: &[(&str, &[u8])]) -> BTreeMap<String, (String, String)> {
        gpu_probes(
            paths,
            builds,
            &crate::rules::project_build::backends::hip_builds(builds),
        )
    }

    const VTKM: &[u8] = b"if(VTKm_CUDA_Architecture STREQUAL \"native\")\n  set(args \"--run\" \"${VTKm_CMAKE_MODULE_PATH}/VTKmDetectCUDAVersion.cu\")\n  execute_process(COMMAND ${CMAKE_CUDA_COMPILER} ${args})\nendif()\n";
    const TRY: &[u8] = b"try_run(RUN_RESULT COMPILE_RESULT\n  ${PROJECT_BINARY_DIR}\n  ${PROJECT_SOURCE_DIR}/cmake/detect_archs.cu\n  RUN_OUTPUT_VARIABLE archs)\n";
    const HIP: &[u8] = b"elseif(HIP IN_LIST Kokkos_DEVICES)\n  enable_language(HIP)\nendif()\n";

    /// VTK-m's probe (BSD-3-Clause) and a `try_run` one, in a project that compiles HIP.
    #[test]
    fn probes_of_a_project_with_a_hip_build_are_its_cuda_builds() {
        let paths = [
            "CMake/VTKmDetectCUDAVersion.cu",
            "cmake/detect_archs.cu",
            "src/kernel.cu",
        ];
        let out = probe(
            &paths,
            &[
                ("CMake/VTKmDeviceAdapters.cmake", VTKM),
                ("cmake/Archs.cmake", TRY),
                ("CMake/Devices.cmake", HIP),
            ],
        );
        let got: Vec<&str> = out.keys().map(String::as_str).collect();
        assert_eq!(
            got,
            ["CMake/VTKmDetectCUDAVersion.cu", "cmake/detect_archs.cu"]
        );
        assert!(out["CMake/VTKmDetectCUDAVersion.cu"]
            .1
            .contains("CMake/VTKmDeviceAdapters.cmake:2"));
    }

    /// Twins: no HIP build (the probe is the CMake port's work); a `.cu` compiled as a source,
    /// not run; a `--run` only in a comment.
    /// cuda_hlt: `set(CUDAFILE …/cuda_arch.cu)`, then `execute_process(COMMAND
    /// ${CMAKE_CUDA_COMPILER} -lcuda ${CUDAFILE} -o ${OUTPUTFILE})`. Twin: a variable set to
    /// the same file but only installed, not compiled.
    #[test]
    fn a_compiler_run_by_execute_process_through_a_variable() {
        let cmake = "set(CUDAFILE ${CMAKE_CURRENT_SOURCE_DIR}/cmake/utils/cuda_arch.cu)\nexecute_process(COMMAND ${CMAKE_CUDA_COMPILER} -lcuda ${CUDAFILE} -o ${OUTPUTFILE})\n";
        assert_eq!(probe_names(cmake), [("cuda_arch.cu".to_string(), 2)]);
        let twin = "set(CUDAFILE ${CMAKE_CURRENT_SOURCE_DIR}/cmake/utils/cuda_arch.cu)\ninstall(FILES ${CUDAFILE} DESTINATION share)\n";
        assert!(probe_names(twin).is_empty());
    }

    #[test]
    fn without_a_hip_build_or_a_run_nothing_is_decided() {
        let paths = ["CMake/VTKmDetectCUDAVersion.cu", "src/kernel.cu"];
        assert!(probe(&paths, &[("CMake/D.cmake", VTKM)]).is_empty());
        // Without a HIP build the probe is still known, for the CMake build's decision.
        let found = probe_files(&paths, &[("CMake/D.cmake", VTKM)]);
        assert_eq!(
            found["CMake/VTKmDetectCUDAVersion.cu"],
            ("CMake/D.cmake".into(), 2)
        );
        let compiled = b"add_library(k src/kernel.cu)\n# nvcc --run src/kernel.cu\n";
        assert!(probe(&paths, &[("CMakeLists.txt", compiled), ("h.cmake", HIP)]).is_empty());
    }
}
