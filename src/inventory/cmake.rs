//! CMake through tree-sitter-cmake: each command with its arguments (comments are not
//! arguments). Finds the CUDA language, CUDA packages and `CUDA::` targets, CUDA architectures,
//! nvcc flag variables and FindCUDA macros, plus CUDA paths and libraries in any argument.
//!
//! A CMake build that already builds for HIP (`if(BUILD_CUDA) … elseif(BUILD_HIP) …`,
//! `if(COMPUTE_BACKEND STREQUAL "hip")`, `if(NOT USE_ROCM)`) keeps its CUDA settings in the arms
//! its HIP build never runs: findings there are PASS, not porting work (`hip_dead_arms`), and a
//! source listed only in such an arm is not compiled by the HIP build ([`cuda_only_sources`]).
//! The other polarity: a `message(FATAL_ERROR …)` in an arm the HIP build takes (`else()` of
//! `if(BUILD_CUDA)`, `if(HIP_FOUND)`) ends the ROCm configure, and is reported (HP846).
//!
//! The operating system decides arms in every CMake file, HIP-aware or not: the ROCm builds this
//! tool targets run on Linux, so `if(WIN32)`, `if(MSVC)`, `if(APPLE)`, `if(CMAKE_SYSTEM_NAME
//! STREQUAL "Windows")` arms (and the `else()` of `if(UNIX)`) are not the ROCm build's: their
//! findings are PASS naming the condition (`os_word`).

use super::build;
use super::shell::unquote;
use super::ts::{self, Lang};
use super::words::{self, Cx, Site, Word};
use super::Out;
use crate::kinds::cmake::{Kind as K, NodeExt};

mod arms;
mod configured;
mod defs;
mod modules;
mod nvcc_flags;
mod sources;

pub(crate) use arms::command_of;
pub use arms::{
    chain_alternatives, dead_arms_with_twins, declared_switches, hip_selectors, project_twins,
    twin_switches, Twin,
};
pub(crate) use arms::{hip_dead_arms, name_platform, platform_word, DeadArm};
pub use configured::{configured_off, Configured};
pub use defs::{
    cuda_build_only_macros, cuda_build_only_macros_with, defined_by_default,
    left_out_by_own_hip_arm, list_definitions, OFF_BY_DEFAULT,
};
pub use modules::{cuda_only_include_dirs, cuda_only_modules};
pub use nvcc_flags::pass_flags_hip_never_reads;
pub use sources::{cmake_glob, cuda_only_sources};

pub fn scan(out: &mut Out) {
    let src = out.src();
    let Some(tree) = ts::parse(Lang::CMake, src) else {
        return;
    };
    let mut cmds = Vec::new();
    ts::each(tree.root_node(), &mut |n| {
        if n.node_kind() == K::NormalCommand {
            cmds.push(n);
        }
    });
    // The twin switches this file declares itself (`FOO_NVIDIA_BACKEND` and `FOO_AMD_BACKEND`);
    // the scan adds those its parent folders declare.
    let own: Vec<(String, String)> = declared_switches(src)
        .into_iter()
        .map(|(n, line)| (n, format!("line {line}")))
        .collect();
    let twins = twin_switches(&own);
    let (live, dead): (Vec<DeadArm>, Vec<DeadArm>) = hip_dead_arms(tree.root_node(), src, &twins)
        .into_iter()
        .partition(|a| a.taken != Some(false));
    for c in cmds {
        let Some(name) = ts::named_children(c)
            .into_iter()
            .find(|x| x.node_kind() == K::Identifier)
        else {
            continue;
        };
        let cmd = ts::text(name, src).to_ascii_lowercase();
        let mut args: Vec<Word> = Vec::new();
        if let Some(list) = ts::named_children(c)
            .into_iter()
            .find(|x| x.node_kind() == K::ArgumentList)
        {
            for a in ts::named_children(list) {
                let raw = ts::text(a, src);
                let t = unquote(raw);
                let off = a.start_byte() + (raw.len() - t.len()) / 2;
                args.push(Word::new(t, off..off + t.len()));
            }
        }
        if cmd == "message"
            && args
                .first()
                .is_some_and(|a| a.text == "FATAL_ERROR" || a.text == "SEND_ERROR")
            && !dead.iter().any(|d| d.range.contains(&c.start_byte()))
        {
            // The innermost arm around this stop, when the HIP build certainly takes it and
            // every arm around it (an undecided `if(APPLE)` inside the HIP arm decides nothing;
            // gromacs' `if(NOT GMX_GPU_CUDA)` stop inside `if(GMX_USE_CUFFTMP)` guards a feature
            // the ROCm build need not turn on).
            let around: Vec<_> = live
                .iter()
                .filter(|t| t.range.contains(&c.start_byte()))
                .collect();
            if let Some(arm) = around
                .iter()
                .min_by_key(|t| t.range.len())
                .filter(|_| around.iter().all(|t| t.taken == Some(true)))
            {
                out.push(
                    &build::CMAKE_ROCM_ARM_FAILS,
                    c.byte_range(),
                    format!(
                        "the project's HIP build takes the {} arm, and this `message({})` ends its configure",
                        arm.why, args[0].text
                    ),
                    Some("give the ROCm build its own arm, or drop the check if it does not need what it guards".into()),
                );
            }
        }
        command(out, &cmd, name.byte_range(), &args);
    }
    let ranges: Vec<(std::ops::Range<usize>, String)> =
        dead.into_iter().map(|a| (a.range, a.why)).collect();
    out.pass_within(&ranges, &[], |why| format!(" ({why})"));
}

fn command(out: &mut Out, cmd: &str, name_range: std::ops::Range<usize>, args: &[Word]) {
    let first = args.first().map(|w| w.text.as_str()).unwrap_or("");
    match cmd {
        "project" => {
            for w in args.iter().skip(1).filter(|w| w.text == "CUDA") {
                out.push(
                    &build::CMAKE_CUDA_LANGUAGE,
                    w.range.clone(),
                    "project() enables the CUDA language".into(),
                    Some("LANGUAGES HIP (CMake 3.21+)".into()),
                );
            }
        }
        "enable_language" if args.iter().any(|w| w.text == "CUDA") => {
            let w = args.iter().find(|w| w.text == "CUDA").unwrap();
            out.push(
                &build::CMAKE_CUDA_LANGUAGE,
                w.range.clone(),
                "enable_language(CUDA)".into(),
                Some("enable_language(HIP)".into()),
            );
        }
        "find_package"
            if matches!(
                first.to_ascii_uppercase().as_str(),
                "CUDA" | "CUDATOOLKIT" | "NCCL" | "CUDNN"
            ) =>
        {
            let sugg = match first.to_ascii_uppercase().as_str() {
                "NCCL" => "find_package(rccl)",
                "CUDNN" => "find_package(miopen)",
                _ => "find_package(hip) and the ROCm library packages (hipblas, hipfft...)",
            };
            out.push(
                &build::CMAKE_FIND_CUDA_PACKAGE,
                args[0].range.clone(),
                format!("find_package({first}) finds an NVIDIA toolkit"),
                Some(sugg.into()),
            );
        }
        "cuda_add_library"
        | "cuda_add_executable"
        | "cuda_add_cublas_to_target"
        | "cuda_add_cufft_to_target"
        | "cuda_compile"
        | "cuda_wrap_srcs"
        | "cuda_include_directories" => {
            out.push(
                &build::CMAKE_FINDCUDA_MACRO,
                name_range,
                format!("{cmd}() is a FindCUDA macro"),
                Some("add_library/add_executable with LANGUAGE HIP".into()),
            );
        }
        _ => {}
    }
    // Printed text and an option's help string are read by people, never run
    // (`option(WITH_NVTX "Build with nvtx API for nvprof support" OFF)` runs no nvprof).
    if matches!(cmd, "message" | "option") {
        return;
    }
    let setter = matches!(cmd, "set" | "list" | "string");
    for (i, w) in args.iter().enumerate() {
        let t = w.text.as_str();
        if cmd == "message" {
            return;
        }
        if let Some(lib) = t
            .strip_prefix("CUDA::")
            .filter(|l| !l.contains(char::is_whitespace))
        {
            out.push(
                &build::CMAKE_CUDA_IMPORTED_TARGET,
                w.range.clone(),
                format!("imported target {t} exists only with FindCUDAToolkit"),
                Some(build::rocm_target(lib).into()),
            );
        } else if matches!(
            t,
            "CMAKE_CUDA_ARCHITECTURES"
                | "CUDA_ARCHITECTURES"
                | "TORCH_CUDA_ARCH_LIST"
                | "CUDA_ARCH_LIST"
        ) {
            out.push(
                &build::CUDA_ARCH_FLAG,
                w.range.clone(),
                format!("{t} lists NVIDIA architectures"),
                Some(
                    "CMAKE_HIP_ARCHITECTURES / HIP_ARCHITECTURES with gfx targets (e.g. gfx942)"
                        .into(),
                ),
            );
        } else if matches!(
            t,
            "CUDA_NVCC_FLAGS"
                | "CMAKE_CUDA_FLAGS"
                | "CUDA_NVCC_FLAGS_RELEASE"
                | "CMAKE_CUDA_FLAGS_RELEASE"
        ) && (setter || i == 0)
        {
            out.push(
                &build::CMAKE_NVCC_FLAGS,
                w.range.clone(),
                format!("{t} passes flags to nvcc"),
                Some("CMAKE_HIP_FLAGS with clang/hipcc flags".into()),
            );
        } else if matches!(
            t,
            "CUDA_SEPARABLE_COMPILATION"
                | "CMAKE_CUDA_SEPARABLE_COMPILATION"
                | "CUDA_RESOLVE_DEVICE_SYMBOLS"
        ) && args.get(i + 1).is_some_and(|v| {
            matches!(
                v.text.to_ascii_uppercase().as_str(),
                "ON" | "TRUE" | "YES" | "1"
            )
        }) {
            // KuiperLLama's `set_target_properties(llama PROPERTIES CUDA_SEPARABLE_COMPILATION
            // ON)`: relocatable device code, which CMake's HIP language has no property for.
            out.push(
                &build::CMAKE_NVCC_FLAGS,
                w.range.clone(),
                format!("{t} asks nvcc for relocatable device code (`-rdc=true`, a device link)"),
                Some("add `-fgpu-rdc` to the HIP target's compile and link options where device code calls across files; drop it otherwise".into()),
            );
        } else if cmd == "target_link_libraries" && i > 0 {
            if let Some(r) = build::rocm_library(t).or_else(|| build::findcuda_library_var(t)) {
                out.push(
                    &build::CUDA_LIBRARY_LINK,
                    w.range.clone(),
                    format!("links CUDA library {t}"),
                    Some(r.into()),
                );
            }
        }
    }
    if setter && args.len() > 1 && cmd == "set" {
        let rest = &args[1..];
        if matches!(
            first,
            "CUDA_TOOLKIT_ROOT_DIR" | "CUDA_HOME" | "CUDA_PATH" | "CMAKE_CUDA_COMPILER"
        ) {
            out.push(
                &build::CUDA_INSTALL_PATH,
                args[0].range.clone(),
                format!("{first} points at a CUDA toolkit"),
                Some("ROCM_PATH (/opt/rocm)".into()),
            );
            return;
        }
        // `set(X value CACHE TYPE "help")`: the help string is not run either.
        let help = rest.iter().position(|w| w.text == "CACHE").map(|c| c + 2);
        let words: Vec<Word> = rest
            .iter()
            .enumerate()
            .filter(|(k, _)| Some(*k) != help)
            .flat_map(|(_, w)| words::split(&w.text, w.range.start))
            .collect();
        words::command(out, &words, Site::Build, Cx::default());
    } else {
        let words: Vec<Word> = args
            .iter()
            .flat_map(|w| words::split(&w.text, w.range.start))
            .collect();
        words::command(out, &words, Site::Build, Cx::default());
    }
}

#[cfg(test)]
mod tests {
    use super::super::{kind::FileKind, scan_bytes};

    /// The lines of the findings that are not PASS, in report order.
    fn open_lines(all: &[crate::finding::Finding]) -> Vec<u32> {
        all.iter()
            .filter(|f| f.status != crate::gate::Status::Pass)
            .map(|f| f.line)
            .collect()
    }

    fn rules(src: &str) -> Vec<(String, u32)> {
        scan_bytes("CMakeLists.txt", FileKind::CMake, src.as_bytes())
            .into_iter()
            .map(|f| (f.rule, f.line))
            .collect()
    }

    /// bitsandbytes' CMakeLists.txt (MIT): CUDA settings under `if(BUILD_CUDA)`, a HIP arm, and a
    /// CUDA-only project's `if(USE_CUDA)` that stays porting work.
    #[test]
    fn cuda_arms_of_a_hip_aware_build_are_pass() {
        let src = "if(${COMPUTE_BACKEND} STREQUAL \"cuda\")\n    set(BUILD_CUDA ON)\nelseif(${COMPUTE_BACKEND} STREQUAL \"hip\")\n    set(BUILD_HIP ON)\nendif()\nif(BUILD_CUDA)\n    enable_language(CUDA)\n    find_package(CUDAToolkit REQUIRED)\n    string(APPEND CMAKE_CUDA_FLAGS \" --use_fast_math\")\n    list(APPEND SRC_FILES csrc/gemm_4bit_sm80.cu csrc/ops.cu)\nelseif(BUILD_HIP)\n    enable_language(HIP)\n    list(APPEND SRC_FILES csrc/ops.cu)\nendif()\nif(NOT USE_ROCM)\n    set(CMAKE_CUDA_ARCHITECTURES 80)\nelse()\n    set(X 1)\nendif()\nif(BUILD_HIP)\nelse()\n    target_link_libraries(x CUDA::cublas)\nendif()\nif(WIN32 AND BUILD_HIP)\nelse()\n    set(CMAKE_CUDA_ARCHITECTURES 90)\nendif()\ntarget_link_libraries(bnb CUDA::cudart)\n";
        let all = scan_bytes("CMakeLists.txt", FileKind::CMake, src.as_bytes());
        let open = open_lines(&all);
        // Open: the arch list after `WIN32 AND BUILD_HIP` (HIP on Linux runs it) and the
        // unconditional CUDA::cudart link.
        assert_eq!(open, vec![26, 28]);
        let pass = all
            .iter()
            .find(|f| f.line == 7)
            .expect("enable_language(CUDA) is still reported");
        assert!(
            pass.message.contains("`if(BUILD_CUDA)` arm (line 6)"),
            "{}",
            pass.message
        );
        // `BUILD_CUDA` and `BUILD_HIP` are twins the file sets: the reason names the twin.
        assert!(
            pass.message.contains("twin `BUILD_HIP` (line 4)"),
            "{}",
            pass.message
        );
        assert_eq!(
            super::cuda_only_sources(src.as_bytes(), &[])
                .into_iter()
                .map(|(p, _)| p)
                .collect::<Vec<_>>(),
            vec!["csrc/gemm_4bit_sm80.cu"]
        );
        // A CUDA-only project: `if(USE_CUDA)` decides nothing for a port.
        let cuda_only =
            "if(USE_CUDA)\n    enable_language(CUDA)\n    list(APPEND S k.cu)\nendif()\n";
        let f = scan_bytes("CMakeLists.txt", FileKind::CMake, cuda_only.as_bytes());
        assert_eq!(f.len(), 1);
        assert_ne!(f[0].status, crate::gate::Status::Pass);
        assert!(super::cuda_only_sources(cuda_only.as_bytes(), &[]).is_empty());
    }

    /// fastllm's shape: the ROCm arm hipifies the CUDA folder at configure time and compiles
    /// the generated `.hip` files, so the `.cu` files listed only in the CUDA arm are the HIP
    /// build's too. Twin: a `.cu` file with no generated twin stays CUDA-only.
    #[test]
    fn cuda_sources_a_hip_arm_hipifies_are_compiled_by_it() {
        let src = "if(USE_CUDA)\n  enable_language(CUDA)\n  set(S src/devices/cuda/fastllm-cuda.cu src/devices/multicuda/fastllm-multicuda.cu src/devices/cuda/only.cu)\nendif()\nif(USE_ROCM)\n  enable_language(HIP)\n  hipify(CUDA_SOURCE_DIR ${PROJECT_SOURCE_DIR}/src/devices/cuda HIP_SOURCE_DIR ${PROJECT_SOURCE_DIR}/src/devices/hip)\n  set(S src/devices/hip/fastllm-hip.hip src/devices/multihip/fastllm-multihip.hip)\nendif()\n";
        let only: Vec<String> = super::cuda_only_sources(src.as_bytes(), &[])
            .into_iter()
            .map(|(p, _)| p)
            .collect();
        assert_eq!(only, ["src/devices/cuda/only.cu"]);
    }

    /// MegEngine's shape (Apache-2.0): `if(MGE_WITH_CUDA) file(GLOB_RECURSE S_ standalone/*.cu)`
    /// beside an `if(MGE_WITH_ROCM)` arm: the glob's files are the CUDA build's only, also in
    /// folders below the pattern's. Twin: a file an outside glob also matches (`*.cu` of the
    /// HIP arm) stays the HIP build's, and a plain `GLOB` does not reach below its folder.
    #[test]
    fn globs_only_a_dead_arm_writes_are_cuda_only() {
        let src = "if(MGE_WITH_CUDA)\n  file(GLOB_RECURSE S_ opr/standalone/*.cu opr/shared/*.cu)\n  file(GLOB T_ flat/*.cu)\nendif()\nif(MGE_WITH_ROCM)\n  file(GLOB_RECURSE H_ opr/shared/*.cu)\nendif()\n";
        let only = super::cuda_only_sources(src.as_bytes(), &[]);
        let globs: Vec<&str> = only.iter().map(|(p, _)| p.as_str()).collect();
        assert_eq!(globs, ["flat/*.cu", "opr/standalone/**/*.cu"]);
        let g = super::cmake_glob(globs[1]).expect("a glob");
        assert!(g.is_match("opr/standalone/nms_kern.cu"));
        assert!(g.is_match("opr/standalone/deep/k.cu"));
        assert!(!g.is_match("opr/standalone/k.cpp"));
        let flat = super::cmake_glob(globs[0]).expect("a glob");
        assert!(flat.is_match("flat/k.cu"));
        assert!(!flat.is_match("flat/sub/k.cu"));
        // A glob outside `file(GLOB …)` is not a source list.
        let msg =
            "if(MGE_WITH_CUDA)\n  message(STATUS \"*.cu\")\nendif()\nif(MGE_WITH_ROCM)\nendif()\n";
        assert!(super::cuda_only_sources(msg.as_bytes(), &[]).is_empty());
    }

    /// stdgpu's shape (Apache-2.0): the backend compared with names whose words say the
    /// platform (`STDGPU_BACKEND STREQUAL STDGPU_BACKEND_CUDA`); the HIP arm enables HIP. Twin:
    /// a value that names no platform (`STDGPU_BACKEND_OPENMP`) decides nothing.
    #[test]
    fn a_backend_compared_with_platform_named_values_decides_its_arms() {
        let src = "if(STDGPU_BACKEND STREQUAL STDGPU_BACKEND_CUDA)\n    enable_language(CUDA)\nelseif(STDGPU_BACKEND STREQUAL STDGPU_BACKEND_HIP)\n    enable_language(HIP)\nendif()\nif(STDGPU_BACKEND STREQUAL STDGPU_BACKEND_OPENMP)\n    set(CMAKE_CUDA_ARCHITECTURES 80)\nendif()\n";
        let all = scan_bytes("CMakeLists.txt", FileKind::CMake, src.as_bytes());
        let cuda = all
            .iter()
            .find(|f| f.line == 2)
            .expect("enable_language(CUDA)");
        assert_eq!(cuda.status, crate::gate::Status::Pass, "{}", cuda.message);
        assert_eq!(open_lines(&all), vec![7]);
    }

    /// A switch with NVIDIA/CUDA/NV in its name whose twin with AMD/HIP/ROCM in its place the
    /// file also declares selects the CUDA build: its arm is PASS naming the twin. A lone
    /// NVIDIA switch (no AMD twin) decides nothing in a file without a HIP test.
    #[test]
    fn twin_switches_select_the_cuda_build() {
        let open = |src: &str| -> Vec<(u32, String)> {
            scan_bytes("CMakeLists.txt", FileKind::CMake, src.as_bytes())
                .into_iter()
                .filter(|f| f.status != crate::gate::Status::Pass)
                .map(|f| (f.line, f.message))
                .collect()
        };
        let twins = "option(FOO_AMD_BACKEND \"AMD\" OFF)\noption(FOO_NVIDIA_BACKEND \"NV\" ON)\nif(${FOO_NVIDIA_BACKEND})\n  enable_language(CUDA)\nendif()\n";
        assert!(open(twins).is_empty(), "{:?}", open(twins));
        let all = scan_bytes("CMakeLists.txt", FileKind::CMake, twins.as_bytes());
        assert!(
            all[0].message.contains("twin `FOO_AMD_BACKEND` (line 1)"),
            "{}",
            all[0].message
        );
        // Twins: only the NVIDIA option, or a lone `USE_NVIDIA_DRIVER`, stays porting work.
        let lone = "option(FOO_NVIDIA_BACKEND \"NV\" ON)\nif(${FOO_NVIDIA_BACKEND})\n  enable_language(CUDA)\nendif()\n";
        assert_eq!(open(lone).len(), 1);
        let driver = "option(USE_NVIDIA_DRIVER \"NV\" ON)\nif(USE_NVIDIA_DRIVER)\n  enable_language(CUDA)\nendif()\n";
        assert_eq!(open(driver).len(), 1);
        // Twins without a switch word (`GGML_CUDA`/`GGML_HIP`) are twins too.
        let decl = vec![
            ("GGML_CUDA".to_string(), "a:1".to_string()),
            ("GGML_HIP".to_string(), "a:2".to_string()),
            ("USE_NV".to_string(), "a:3".to_string()),
        ];
        let t = super::twin_switches(&decl);
        assert_eq!(t.len(), 1);
        assert_eq!(
            (t[0].cuda.as_str(), t[0].rocm.as_str()),
            ("GGML_CUDA", "GGML_HIP")
        );
    }

    /// A chain whose arms test twin variables for definition (`DEFINED CMAKE_CUDA_ARCHITECTURES`
    /// … `DEFINED CMAKE_HIP_ARCHITECTURES`) selects the build: the ROCm build takes the HIP arm,
    /// so the CUDA arm and the `else()` after it are PASS. Without the HIP arm nothing is decided.
    #[test]
    fn chains_over_twin_definitions_select_the_build() {
        let open = |src: &str| {
            open_lines(&scan_bytes(
                "CMakeLists.txt",
                FileKind::CMake,
                src.as_bytes(),
            ))
        };
        let chain = "if(DEFINED CMAKE_CUDA_ARCHITECTURES)\n  project(p LANGUAGES CXX CUDA)\nelseif(DEFINED CMAKE_HIP_ARCHITECTURES)\n  project(p LANGUAGES CXX HIP)\nelse()\n  project(p LANGUAGES CXX CUDA)\nendif()\n";
        assert!(open(chain).is_empty(), "{:?}", open(chain));
        let cuda_only = "if(DEFINED CMAKE_CUDA_ARCHITECTURES)\n  project(p LANGUAGES CXX CUDA)\nelse()\n  project(p LANGUAGES CXX CUDA)\nendif()\n";
        assert_eq!(open(cuda_only), vec![2, 4]);
    }

    /// SPH-EXA: `if(CMAKE_HIP_COMPILER AND NOT CMAKE_CUDA_COMPILER)` enables HIP only where
    /// the CUDA compiler is missing, so the ROCm build has `CMAKE_CUDA_COMPILER` false: the two
    /// are the build's alternatives. Twins: an `OR`, or a `NOT` of a name that is not CUDA's.
    #[test]
    fn a_hip_arm_that_requires_cuda_absent_makes_them_alternatives() {
        let src = "if(CMAKE_CUDA_COMPILER)\n  enable_language(CUDA)\nendif()\nif(CMAKE_HIP_COMPILER AND NOT CMAKE_CUDA_COMPILER)\n  enable_language(HIP)\nendif()\n";
        let t = super::chain_alternatives(&[("CMakeLists.txt", src.as_bytes())]);
        assert_eq!(t.len(), 1, "{t:?}");
        assert_eq!(
            (t[0].cuda.as_str(), t[0].rocm.as_str()),
            ("CMAKE_CUDA_COMPILER", "CMAKE_HIP_COMPILER")
        );
        assert_eq!(t[0].at, "CMakeLists.txt:4");
        for twin in [
            "if(CMAKE_HIP_COMPILER OR NOT CMAKE_CUDA_COMPILER)\nendif()\n",
            "if(CMAKE_HIP_COMPILER AND NOT MSVC)\nendif()\n",
        ] {
            assert!(super::chain_alternatives(&[("CMakeLists.txt", twin.as_bytes())]).is_empty());
        }
    }

    /// Arms only another operating system takes are not the ROCm build's (Linux), in any CMake
    /// file; the Linux arm and the `else()` of `if(WIN32)` stay open.
    #[test]
    fn other_operating_systems_arms_pass() {
        let src = "if(WIN32)\n  set(CMAKE_CUDA_FLAGS \"-Xcompiler /MD\")\nelseif(APPLE)\n  enable_language(CUDA)\nelse()\n  set(CMAKE_CUDA_ARCHITECTURES 80)\nendif()\nif(MSVC OR CMAKE_SYSTEM_NAME STREQUAL \"Darwin\")\n  find_package(CUDAToolkit)\nendif()\nif(UNIX)\n  set(CMAKE_CUDA_ARCHITECTURES 90)\nelse()\n  find_package(CUDA)\nendif()\n";
        let all = scan_bytes("CMakeLists.txt", FileKind::CMake, src.as_bytes());
        let open = open_lines(&all);
        assert_eq!(open, vec![6, 12], "{all:#?}");
        let win = all.iter().find(|f| f.line == 2).expect("the MSVC flags");
        assert!(win.message.contains("`if(WIN32)`"), "{}", win.message);
        assert!(
            win.message.contains("target OS is Linux"),
            "{}",
            win.message
        );
        let els = all.iter().find(|f| f.line == 14).expect("the non-UNIX arm");
        assert!(els.message.contains("`if(UNIX)`"), "{}", els.message);
    }

    /// `HIP_FOUND` and `CMAKE_HIP_COMPILER` are true in the HIP build; a stop in an arm it takes
    /// is a failure, the same stop in an arm it skips is the CUDA build's.
    #[test]
    fn hip_package_arms_and_stops_on_the_rocm_arm() {
        let src = "find_package(hip)\nif(HIP_FOUND)\n  enable_language(HIP)\nelse()\n  find_package(CUDAToolkit REQUIRED)\nendif()\nif(BUILD_CUDA)\n  enable_language(CUDA)\nelse()\n  message(FATAL_ERROR \"CUDA is required\")\nendif()\nif(CMAKE_HIP_COMPILER)\nelse()\n  message(FATAL_ERROR \"no HIP\")\nendif()\nif(USE_ROCM)\n  message(STATUS \"ROCm\")\n  if(APPLE)\n    message(FATAL_ERROR \"not on macOS\")\n  endif()\nendif()\n";
        let all = scan_bytes("CMakeLists.txt", FileKind::CMake, src.as_bytes());
        let got: Vec<(&str, u32, crate::gate::Status)> = all
            .iter()
            .map(|f| (f.rule.as_str(), f.line, f.status))
            .collect();
        use crate::gate::Status::{Pass, Remediation};
        assert_eq!(
            got,
            vec![
                ("HP841", 5, Pass),
                ("HP840", 8, Pass),
                ("HP846", 10, Remediation),
            ],
            "{all:#?}"
        );
        assert!(
            all[2].message.contains("`else()` (line 9)"),
            "{}",
            all[2].message
        );
        // A stop that guards an optional CUDA-only feature (`if(USE_CUFFTMP)` / `if(NOT
        // BUILD_CUDA)`, gromacs): the ROCm build need not turn the feature on.
        // A stop for the HCC compiler ROCm dropped (sundials): no current ROCm build takes it.
        let hcc = "if(BUILD_HIP)\n  enable_language(HIP)\nendif()\nif(\"${HIP_COMPILER}\" STREQUAL \"hcc\")\n  message(FATAL_ERROR \"hcc is not supported\")\nendif()\n";
        let f = scan_bytes("CMakeLists.txt", FileKind::CMake, hcc.as_bytes());
        assert!(f.iter().all(|f| f.rule != "HP846"), "{f:#?}");
        let feature = "if(BUILD_HIP)\n  enable_language(HIP)\nendif()\nif(USE_CUFFTMP)\n  if(NOT BUILD_CUDA)\n    message(FATAL_ERROR \"cuFFTMp needs CUDA\")\n  endif()\nendif()\n";
        let f = scan_bytes("CMakeLists.txt", FileKind::CMake, feature.as_bytes());
        assert!(f.iter().all(|f| f.rule != "HP846"), "{f:#?}");
        // amr-wind's stop for a GPU backend with OpenMP: `(… ROCM …) AND OPENMP` is a group
        // ANDed with a switch the ROCm build need not turn on (the parentheses are unspaced);
        // twin: without the `AND` the group is taken.
        let grouped = |c: &str| {
            format!("if(P_ENABLE_CUDA)\n  enable_language(CUDA)\nendif()\nif(P_ENABLE_ROCM)\n  enable_language(HIP)\nendif()\nif({c})\n  message(FATAL_ERROR \"x\")\nendif()\n")
        };
        let f = scan_bytes(
            "CMakeLists.txt",
            FileKind::CMake,
            grouped("(P_ENABLE_ROCM OR P_ENABLE_CUDA) AND P_ENABLE_OPENMP").as_bytes(),
        );
        assert!(f.iter().all(|f| f.rule != "HP846"), "{f:#?}");
        let f = scan_bytes(
            "CMakeLists.txt",
            FileKind::CMake,
            grouped("(P_ENABLE_ROCM OR P_ENABLE_CUDA)").as_bytes(),
        );
        assert!(f.iter().any(|f| f.rule == "HP846"), "{f:#?}");
        // The twin: a CUDA-only project's `else()` stop is not judged (no HIP build to take it).
        let cuda_only = "if(USE_CUDA)\n  enable_language(CUDA)\nelse()\n  message(FATAL_ERROR \"x\")\nendif()\n";
        let f = scan_bytes("CMakeLists.txt", FileKind::CMake, cuda_only.as_bytes());
        assert!(f.iter().all(|f| f.rule != "HP846"), "{f:#?}");
    }

    /// KuiperLLama: `set_target_properties(llama PROPERTIES CUDA_SEPARABLE_COMPILATION ON)` asks
    /// for relocatable device code, which the HIP build spells `-fgpu-rdc`. Twins: `OFF`, and the
    /// name in a message.
    #[test]
    fn separable_compilation_is_relocatable_device_code() {
        let src = "set_target_properties(llama PROPERTIES CUDA_SEPARABLE_COMPILATION ON)
set(CMAKE_CUDA_SEPARABLE_COMPILATION OFF)
message(STATUS \"CUDA_SEPARABLE_COMPILATION ON\")
";
        let f = scan_bytes("CMakeLists.txt", FileKind::CMake, src.as_bytes());
        let lines: Vec<u32> = f
            .iter()
            .filter(|f| f.message.contains("relocatable device code"))
            .map(|f| f.line)
            .collect();
        assert_eq!(lines, [1]);
    }

    #[test]
    fn cmake_items() {
        let src = "cmake_minimum_required(VERSION 3.18)\nproject(demo LANGUAGES CXX CUDA)\n# find_package(CUDA) in a comment\nfind_package(CUDAToolkit REQUIRED)\nset(CMAKE_CUDA_ARCHITECTURES 70 80)\nset(CUDA_NVCC_FLAGS \"${CUDA_NVCC_FLAGS} -gencode arch=compute_80,code=sm_80\")\ncuda_add_library(k k.cu)\ntarget_link_libraries(demo PRIVATE CUDA::cudart CUDA::cublas nccl)\nmessage(STATUS \"CUDA::cudart is only text here\")\n";
        let r = rules(src);
        assert_eq!(
            r,
            vec![
                ("HP840".into(), 2),
                ("HP841".into(), 4),
                ("HP843".into(), 5),
                ("HP844".into(), 6),
                ("HP843".into(), 6),
                ("HP845".into(), 7),
                ("HP842".into(), 8),
                ("HP842".into(), 8),
                ("HP851".into(), 8),
            ]
        );
    }

    /// nnabla-ext-cuda's `option(WITH_NVTX "… for nvprof support" OFF)`: a help string runs
    /// nothing, nor does a cache variable's; twin: a custom command that runs nvprof does.
    #[test]
    fn help_strings_run_nothing() {
        let src = "option(WITH_NVTX \"Build with nvtx API for nvprof support\" OFF)\nset(PROF_CMD \"\" CACHE STRING \"nsys or nvprof command line\")\nadd_custom_target(prof COMMAND nvprof ./demo)\n";
        assert_eq!(rules(src), vec![("HP883".into(), 3)]);
    }

    /// FindCUDA's library variables are links to CUDA libraries (gpuRIR's
    /// `${CUDA_curand_LIBRARY}`, `${CUDA_CUFFT_LIBRARIES}`); twins: the project's own
    /// variables and targets are not.
    #[test]
    fn findcuda_library_variables_are_cuda_links() {
        let src = "target_link_libraries(m PRIVATE ${CUDA_curand_LIBRARY})\ntarget_link_libraries(m PRIVATE ${CUDA_CUFFT_LIBRARIES} ${CUDA_LIBRARIES})\ntarget_link_libraries(m PRIVATE ${MY_LIBRARY} ${CUDA_SAMPLES_DIR} gpuRIRcu)\n";
        let f = scan_bytes("CMakeLists.txt", FileKind::CMake, src.as_bytes());
        let links: Vec<(u32, String)> = f
            .iter()
            .filter(|f| f.rule == "HP851")
            .map(|f| (f.line, f.message.clone()))
            .collect();
        assert_eq!(links.len(), 3, "{links:?}");
        assert!(links.iter().all(|(l, _)| *l <= 2), "{links:?}");
        assert!(links[0].1.contains("CUDA_curand_LIBRARY"), "{links:?}");
    }
}
