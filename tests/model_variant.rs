//! Which variant of a project the ROCm build selects, end to end (`scan --format json`): of
//! sibling folders a build loads by a variable (`include(src/${MODEL}/model.cmake)`), the ROCm
//! build selects the HIP one, so the other siblings' CUDA settings are PASS naming the selection
//! while the HIP sibling's stay open (and with no HIP sibling nothing changes); arms only
//! Windows or macOS take (`if sys.platform == "win32":`, `if(WIN32)`) are PASS saying the target
//! OS is Linux, while the Linux/`else` arm stays open.

#[path = "common/rows.rs"]
mod rows;
use rows::Row;

/// Every finding of `scan --format json` on a tree holding `files`.
fn scan(files: &[(&str, &str)]) -> Vec<Row> {
    rows::scan_files(files, &[])
}

fn status_in(fs: &[(String, String, u64, String, String)], path: &str) -> Vec<String> {
    fs.iter()
        .filter(|f| f.1 == path)
        .map(|f| f.3.clone())
        .collect()
}

const TOP: &str = "cmake_minimum_required(VERSION 3.13)\nproject(s CXX)\nset(MODEL_FILE ${CMAKE_CURRENT_SOURCE_DIR}/src/${MODEL}/model.cmake)\ninclude(${MODEL_FILE})\n";
const RAJA: &str = "if(RAJA_BACK_END STREQUAL \"CUDA\")\n  enable_language(CUDA)\nendif()\n";
const HIP: &str = "set(CMAKE_CUDA_ARCHITECTURES 80)\n";

#[test]
fn the_rocm_build_selects_the_hip_sibling() {
    let fs = scan(&[
        ("CMakeLists.txt", TOP),
        ("src/raja/model.cmake", RAJA),
        ("src/hip/model.cmake", HIP),
        ("src/omp/model.cmake", "add_definitions(-DOMP)\n"),
    ]);
    let raja: Vec<_> = fs
        .iter()
        .filter(|f| f.1 == "src/raja/model.cmake")
        .collect();
    assert!(!raja.is_empty(), "{fs:#?}");
    for f in &raja {
        assert_eq!(f.3, "PASS", "{f:?}");
        assert!(f.4.contains("the ROCm build selects `src/hip/`"), "{}", f.4);
        assert!(f.4.contains("CMakeLists.txt:3"), "{}", f.4);
    }
    // The HIP sibling's own findings stay open.
    let hip = status_in(&fs, "src/hip/model.cmake");
    assert!(
        !hip.is_empty() && hip.iter().all(|s| s != "PASS"),
        "{fs:#?}"
    );
}

#[test]
fn without_a_hip_sibling_the_cuda_settings_stay_open() {
    let fs = scan(&[
        ("CMakeLists.txt", TOP),
        ("src/raja/model.cmake", RAJA),
        ("src/omp/model.cmake", "add_definitions(-DOMP)\n"),
    ]);
    let raja = status_in(&fs, "src/raja/model.cmake");
    assert!(
        !raja.is_empty() && raja.iter().all(|s| s != "PASS"),
        "{fs:#?}"
    );
}

#[test]
fn windows_arms_are_not_the_rocm_build() {
    let build = "import sys\nfrom torch.utils.cpp_extension import load\nflags = []\nif sys.platform == \"win32\":\n    flags += [\"-Xcompiler\", \"/Zc:preprocessor\"]\nelse:\n    flags += [\"-Xcompiler\", \"-fPIC\"]\nload(name=\"k\", sources=[\"k.cu\"], extra_cuda_cflags=flags)\n";
    let cmake = "cmake_minimum_required(VERSION 3.18)\nproject(k CXX)\nif(MSVC)\n  set(CMAKE_CUDA_FLAGS \"-Xcompiler /MD\")\nelse()\n  set(CMAKE_CUDA_FLAGS \"-Xcompiler -fPIC\")\nendif()\n";
    let fs = scan(&[("build.py", build), ("CMakeLists.txt", cmake)]);
    let at = |path: &str, line: u64| {
        fs.iter()
            .find(|f| f.1 == path && f.2 == line)
            .unwrap_or_else(|| panic!("no finding at {path}:{line}: {fs:#?}"))
    };
    let win = at("build.py", 5);
    assert_eq!(win.3, "PASS", "{win:?}");
    assert!(win.4.contains("target OS is Linux"), "{}", win.4);
    assert_ne!(at("build.py", 7).3, "PASS");
    let msvc = at("CMakeLists.txt", 4);
    assert_eq!(msvc.3, "PASS", "{msvc:?}");
    assert!(msvc.4.contains("`if(MSVC)`"), "{}", msvc.4);
    assert_ne!(at("CMakeLists.txt", 6).3, "PASS");
}
