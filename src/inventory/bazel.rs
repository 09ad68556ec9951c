//! Bazel BUILD/.bzl files (Starlark has Python syntax, so tree-sitter-python reads them):
//! `cuda_library`/`cuda_binary` rules, `rules_cuda` loads, and nvcc architecture flags or CUDA
//! libraries in `copts`/`linkopts` strings.

use super::build;
use super::python::{dotted, string};
use super::ts::{self, Lang};
use super::words;
use super::Out;
use crate::kinds::python::{Field as F, Kind as K, NodeExt};

pub fn scan(out: &mut Out) {
    let src = out.src();
    let Some(tree) = ts::parse(Lang::Python, src) else {
        return;
    };
    let mut nodes = Vec::new();
    ts::each(tree.root_node(), &mut |n| nodes.push(n));
    for n in nodes {
        match n.node_kind() {
            K::Call => {
                let Some(f) = n.field(F::Function) else {
                    continue;
                };
                let name = dotted(f, src).unwrap_or_default();
                if matches!(
                    name.as_str(),
                    "cuda_library" | "cuda_binary" | "cuda_test" | "cuda_objects"
                ) {
                    out.push(
                        &build::BAZEL_CUDA_RULE,
                        f.byte_range(),
                        format!("{name}() builds with the CUDA toolchain"),
                        Some("a HIP toolchain rule".into()),
                    );
                } else if name == "load" {
                    let first = n
                        .field(F::Arguments)
                        .and_then(|a| a.named_child(0))
                        .and_then(|a| string(a, src));
                    if let Some((s, r)) = first.filter(|(s, _)| s.contains("rules_cuda")) {
                        out.push(
                            &build::BAZEL_CUDA_RULE,
                            r,
                            format!("loads {s}"),
                            Some("a HIP toolchain configuration".into()),
                        );
                    }
                }
            }
            K::String => {
                let Some((s, r)) = string(n, src) else {
                    continue;
                };
                if words::is_arch_flag(&s) {
                    out.push(
                        &build::CUDA_ARCH_FLAG,
                        r,
                        format!("NVIDIA architecture flag `{s}`"),
                        Some("--offload-arch=gfx...".into()),
                    );
                } else if let Some(lib) = s.strip_prefix("-l").and_then(build::rocm_library) {
                    out.push(
                        &build::CUDA_LIBRARY_LINK,
                        r,
                        format!("links CUDA library {s}"),
                        Some(format!("-l{lib}")),
                    );
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{kind::FileKind, scan_bytes};

    #[test]
    fn bazel_rules() {
        let src = "load(\"@rules_cuda//cuda:defs.bzl\", \"cuda_library\")\n# cuda_library in a comment\ncuda_library(\n    name = \"k\",\n    srcs = [\"k.cu\"],\n    copts = [\"-arch=sm_80\"],\n    linkopts = [\"-lcublas\"],\n)\n";
        let r: Vec<(String, u32)> = scan_bytes("BUILD", FileKind::Bazel, src.as_bytes())
            .into_iter()
            .map(|f| (f.rule, f.line))
            .collect();
        assert_eq!(
            r,
            vec![
                ("HP853".into(), 1),
                ("HP853".into(), 3),
                ("HP843".into(), 6),
                ("HP851".into(), 7)
            ]
        );
    }
}
