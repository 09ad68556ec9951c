//! CMake through tree-sitter-cmake: each command with its arguments (comments are not
//! arguments). Finds the CUDA language, CUDA packages and `CUDA::` targets, CUDA architectures,
//! nvcc flag variables and FindCUDA macros, plus CUDA paths and libraries in any argument.

use super::build;
use super::shell::unquote;
use super::ts::{self, Lang};
use super::words::{self, Cx, Site, Word};
use super::Out;
use crate::kinds::cmake::{Kind as K, NodeExt};

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
        command(out, &cmd, name.byte_range(), &args);
    }
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
    if cmd == "message" {
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
        } else if cmd == "target_link_libraries" && i > 0 {
            if let Some(r) = build::rocm_library(t) {
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
        let words: Vec<Word> = rest
            .iter()
            .flat_map(|w| words::split(&w.text, w.range.start))
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

    fn rules(src: &str) -> Vec<(String, u32)> {
        scan_bytes("CMakeLists.txt", FileKind::CMake, src.as_bytes())
            .into_iter()
            .map(|f| (f.rule, f.line))
            .collect()
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
}
