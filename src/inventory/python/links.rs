//! Libraries an extension links by name (`libraries=["cusolver"]`,
//! `extra_link_args=["-lcusparse"]`): a PyTorch `CUDAExtension`, or a plain setuptools or
//! Cython `Extension` whose build drives nvcc itself or links the CUDA runtime from host code.

use super::{keyword, module_value, strings_in};
use crate::inventory::{build, Out};
use std::ops::Range;
use tree_sitter::Node;

/// The value of a keyword argument, through a module-level name it is bound to
/// (`libraries=libraries` with `libraries = ['nvinfer', 'cudart']` above).
fn keyword_list<'t>(call: Node<'t>, kw: &str, src: &[u8]) -> Option<Node<'t>> {
    let v = keyword(call, kw, src)?;
    if v.kind() == "identifier" {
        return module_value(v, src);
    }
    Some(v)
}

/// The link names of a list (`-l` flags only where `flag`), each with its ROCm counterpart or,
/// for an NVIDIA-only library, the rewrite it needs.
fn cuda_names(list: Node, flag: bool, src: &[u8]) -> Vec<(String, &'static str)> {
    strings_in(list, src)
        .into_iter()
        .filter_map(|(s, _)| {
            let name = if flag {
                s.trim().strip_prefix("-l")?.to_string()
            } else {
                s
            };
            build::rocm_library(&name)
                .or_else(|| crate::mappings::link_names::nvidia_only(&name))
                .map(|r| (name, r))
        })
        .collect()
}

/// A plain `Extension(…)` (setuptools, distutils, Cython, pybind11) that links CUDA libraries:
/// no hipify runs over it, so on ROCm its sources are ported and compiled by the project's own
/// build, and the names it links do not exist. One HP851 for the call's lists; its range is
/// returned for [`fold_plain`].
pub(super) fn plain_links(out: &mut Out, call: Node, src: &[u8]) -> Option<Range<usize>> {
    let mut found: Vec<(String, &str)> = Vec::new();
    let mut at: Option<Range<usize>> = None;
    for (kw, flag) in [("libraries", false), ("extra_link_args", true)] {
        let Some(list) = keyword_list(call, kw, src) else {
            continue;
        };
        let names = cuda_names(list, flag, src);
        if !names.is_empty() && at.is_none() {
            at = keyword(call, kw, src).map(|v| v.byte_range());
        }
        found.extend(names);
    }
    let at = at?;
    found.dedup();
    let list =
        |f: fn(&(String, &str)) -> String| found.iter().map(f).collect::<Vec<_>>().join("`, `");
    out.push(
        &build::CUDA_LIBRARY_LINK,
        at.clone(),
        format!(
            "the extension links CUDA libraries by name (`{}`): no hipify runs over a plain `Extension`, so on ROCm the names do not exist and its sources' CUDA calls must be ported by the project's build",
            list(|(c, _)| c.clone())
        ),
        Some(format!(
            "for the ROCm build, port the sources to HIP and link `{}`{}",
            {
                let mut rocm: Vec<&str> = Vec::new();
                for (_, r) in &found {
                    if !rocm.contains(r) {
                        rocm.push(r);
                    }
                }
                rocm.join("`, `")
            },
            if found
                .iter()
                .any(|(c, _)| crate::mappings::link_names::nvidia_only(c).is_some())
            {
                " (TensorRT has no ROCm build: MIGraphX is a rewrite against its own API, not a relink)"
            } else {
                ""
            }
        )),
    );
    Some(at)
}

/// Several plain extensions of one file linking CUDA libraries are one decision: the first
/// holds it, the rest pass naming it.
pub(super) fn fold_plain(out: &mut Out, at: &[Range<usize>]) {
    let Some(first) = at.first() else {
        return;
    };
    if at.len() < 2 {
        return;
    }
    let line = out.src()[..first.start]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1;
    let rest: Vec<(Range<usize>, String)> = at[1..]
        .iter()
        .map(|r| (r.clone(), format!("line {line}")))
        .collect();
    out.pass_within(&rest, &[build::CUDA_LIBRARY_LINK.id.code], |head| {
        format!(" (the same link change as the extension at {head}: one decision for the file)")
    });
}

/// `CUDAExtension(…, libraries=["cusolver", "cublas"])`: PyTorch's ROCm build hipifies the
/// sources and adds the HIP runtime, but links the listed libraries as written, and a ROCm system
/// has no `libcusolver`: the link stops (HP851, one finding for the list: one edit gates it on
/// `torch.version.hip` with the ROCm names).
pub(super) fn cuda_link_libraries(out: &mut Out, call: Node, src: &[u8]) {
    for (kw, flag) in [("libraries", false), ("extra_link_args", true)] {
        let Some(list) = keyword_list(call, kw, src) else {
            continue;
        };
        // `extra_link_args=["-lcusparse"]`: only `-l` flags name libraries. A library with no
        // ROCm build (TensorRT's) is no relink: its code's findings are its own.
        let cuda: Vec<(String, &str)> = cuda_names(list, flag, src)
            .into_iter()
            .filter(|(c, _)| build::rocm_library(c).is_some())
            .collect();
        if cuda.is_empty() {
            continue;
        }
        let names =
            |f: fn(&(String, &str)) -> String| cuda.iter().map(f).collect::<Vec<_>>().join("`, `");
        out.push(
            &build::CUDA_LIBRARY_LINK,
            keyword(call, kw, src).map_or(list.byte_range(), |v| v.byte_range()),
            format!(
                "links CUDA libraries by name (`{}`, in `{kw}=`): PyTorch's ROCm build hipifies the sources but links them as written, and ROCm has no such libraries",
                names(|(c, _)| c.clone())
            ),
            Some(format!(
                "`{}` when torch.version.hip is set",
                names(|(_, r)| r.to_string())
            )),
        );
    }
}

#[cfg(test)]
mod tests {
    use crate::inventory::{kind::FileKind, scan_bytes};

    fn hp851(text: &str) -> Vec<(u32, String, String, String)> {
        scan_bytes("setup.py", FileKind::SetupPy, text.as_bytes())
            .into_iter()
            .filter(|f| f.rule == "HP851")
            .map(|f| {
                (
                    f.line,
                    f.status.as_str().to_string(),
                    f.message,
                    f.suggestion.unwrap_or_default(),
                )
            })
            .collect()
    }

    /// A Cython extension linking TensorRT and the CUDA runtime through a module-level list
    /// (tensorrt_demos' `setup.py`), and a build with several extensions linking `cudart`
    /// (TIGRE's): one open finding per file, naming the ROCm names and MIGraphX for TensorRT.
    /// Twins: an extension linking only system libraries; a list bound to another name.
    #[test]
    fn a_plain_extension_linking_cuda_libraries_is_one_decision_per_file() {
        let cython = "from setuptools import Extension, setup\nlibraries = [\n    'nvinfer',\n    'cudart',\n    'rt',\n]\nsetup(ext_modules=[Extension('pytrt', sources=['pytrt.pyx'], libraries=libraries)])\n";
        let f = hp851(cython);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!((f[0].0, f[0].1.as_str()), (7, "REMEDIATION"));
        assert!(f[0].2.contains("`nvinfer`, `cudart`"), "{}", f[0].2);
        assert!(
            f[0].3.contains("`migraphx`, `amdhip64`") && f[0].3.contains("MIGraphX is a rewrite"),
            "{}",
            f[0].3
        );
        let many = "from setuptools import Extension\na = Extension('a', ['a.pyx'], libraries=['cudart'])\nb = Extension('b', ['b.pyx'], libraries=['cudart'])\nc = Extension('c', ['c.pyx'], extra_link_args=['-lcublas'])\n";
        let f = hp851(many);
        let open: Vec<_> = f.iter().filter(|x| x.1 != "PASS").collect();
        assert_eq!(open.len(), 1, "{f:?}");
        assert_eq!(open[0].0, 2);
        assert_eq!(f.len(), 3, "{f:?}");
        assert!(f
            .iter()
            .filter(|x| x.1 == "PASS")
            .all(|x| x.2.contains("extension at line 2")));
        let system = "from setuptools import Extension\nlibs = ['m', 'z']\ne = Extension('e', ['e.c'], libraries=libs)\n";
        assert_eq!(hp851(system), []);
        let other = "from setuptools import Extension\nlibraries = ['cudart']\nlibs = ['m']\ne = Extension('e', ['e.c'], libraries=libs)\n";
        assert_eq!(hp851(other), []);
    }

    /// nvcc flags in a build without PyTorch are gated on the ROCm build, not on
    /// `torch.version.hip`; twin: the PyTorch extension keeps `torch.version.hip`.
    #[test]
    fn nvcc_flags_of_a_build_without_pytorch_name_no_torch_gate() {
        let own = "from setuptools import Extension\nNVCC_FLAGS = ['--use_fast_math', '-Xptxas=-v']\nsubprocess.check_call(['nvcc'] + NVCC_FLAGS)\n";
        let torch = format!("import torch\n{own}");
        let hp831 = |t: &str| -> Vec<String> {
            scan_bytes("setup.py", FileKind::SetupPy, t.as_bytes())
                .into_iter()
                .filter(|f| f.rule == "HP831" && f.status.as_str() != "PASS")
                .map(|f| format!("{} | {}", f.message, f.suggestion.unwrap_or_default()))
                .collect()
        };
        let mine = hp831(own);
        assert!(!mine.is_empty());
        assert!(
            mine.iter().all(|m| !m.contains("torch.version.hip")),
            "{mine:?}"
        );
        let theirs = hp831(&torch);
        assert!(!theirs.is_empty());
        assert!(
            theirs.iter().all(|m| m.contains("torch.version.hip")),
            "{theirs:?}"
        );
    }
}
