//! HP836: a PyTorch `CppExtension` that compiles CUDA sources. PyTorch's ROCm build hipifies
//! only `CUDAExtension`'s sources, so hipcc gets these as written.

use super::{args, keyword, native_ext, short_text, strings_in, State};
use crate::inventory::ts;
use crate::inventory::Out;
use crate::kinds::python::{Field as F, Kind as K, NodeExt};
use tree_sitter::Node;

/// Whether a source name (or a glob pattern) names a CUDA source.
fn is_cuda(s: &str) -> bool {
    s.ends_with(".cu") || s.ends_with(".cuh")
}

/// The CUDA sources an extension's `sources` value names: its string literals or, where it is
/// a variable, every string assigned or added to that variable in the enclosing function (the
/// module where there is none): `srcs += glob.glob("src/cuda/*.cu")`, `srcs.append("k.cu")`,
/// `srcs.extend([...])` (torch-quiver's `create_extension`).
fn cuda_names(sources: Node, src: &[u8]) -> Vec<String> {
    let mut out: Vec<String> = strings_in(sources, src)
        .into_iter()
        .map(|(s, _)| s)
        .filter(|s| is_cuda(s))
        .collect();
    if sources.node_kind() != K::Identifier {
        return out;
    }
    let name = ts::text(sources, src);
    let mut scope = sources;
    while let Some(p) = scope.parent() {
        scope = p;
        if p.node_kind() == K::FunctionDefinition {
            break;
        }
    }
    let mut strings = |n: Node| {
        ts::each(n, &mut |s| {
            if let Some((t, _)) = super::string(s, src) {
                if is_cuda(&t) && !out.contains(&t) {
                    out.push(t);
                }
            }
        })
    };
    ts::each(scope, &mut |n| match n.node_kind() {
        K::Assignment | K::AugmentedAssignment
            if n.field(F::Left).is_some_and(|l| ts::text(l, src) == name) =>
        {
            if let Some(r) = n.field(F::Right) {
                strings(r);
            }
        }
        K::Call => {
            let Some(f) = n
                .field(F::Function)
                .filter(|f| f.node_kind() == K::Attribute)
            else {
                return;
            };
            let on_name = f.field(F::Object).is_some_and(|o| ts::text(o, src) == name);
            let adds = f
                .field(F::Attribute)
                .is_some_and(|a| matches!(ts::text(a, src), "append" | "extend" | "insert"));
            if on_name && adds {
                if let Some(a) = n.field(F::Arguments) {
                    strings(a);
                }
            }
        }
        _ => {}
    });
    out
}

/// `CppExtension("x", sources=["a.cpp", "k.cu"])`: PyTorch hipifies only `CUDAExtension`, so
/// on ROCm hipcc gets the `.cu` files unported (HP836). The `if` that builds it only when the
/// environment names a CUDA toolkit (`"CUDA_HOME" in os.environ`) is named: a ROCm machine
/// leaves the extension out without a word.
///
/// Extensions under one such `if` are one decision: the first holds it, the rest are PASS
/// naming it.
pub(super) fn cuda_sources(out: &mut Out, n: Node, func: Node, src: &[u8], st: &mut State) {
    let positional: Vec<Node> = args(n)
        .into_iter()
        .filter(|a| a.node_kind() != K::KeywordArgument && a.node_kind() != K::Comment)
        .collect();
    let Some(sources) = keyword(n, "sources", src).or(positional.get(1).copied()) else {
        return;
    };
    let cuda = cuda_names(sources, src);
    let Some(first) = cuda.first() else { return };
    // A glob pattern is shown whole (`srcs/cuda/*.cu`): its folder is what names the files.
    let glob = first.contains('*');
    let name = if glob {
        first.as_str()
    } else {
        first.rsplit('/').next().unwrap_or(first)
    };
    let more = match cuda.len() {
        1 => String::new(),
        k => format!(" and {} more", k - 1),
    };
    // The nearest enclosing `if` whose condition asks the environment for CUDA_HOME/CUDA_PATH.
    let mut gate = None;
    let mut cur = n.parent();
    while let Some(p) = cur {
        if matches!(p.node_kind(), K::IfStatement | K::ElifClause) {
            if let Some(c) = p.field(F::Condition) {
                let t = ts::text(c, src);
                if (t.contains("CUDA_HOME") || t.contains("CUDA_PATH"))
                    && (t.contains("environ") || t.contains("getenv"))
                {
                    gate = Some((p.start_byte(), short_text(t)));
                    break;
                }
            }
        }
        cur = p.parent();
    }
    let held_by = gate
        .as_ref()
        .and_then(|(at, _)| st.cpp_gates.iter().find(|(g, _)| g == at))
        .map(|(_, head)| *head);
    if let (Some((at, _)), None) = (&gate, held_by) {
        st.cpp_gates.push((*at, n.start_byte()));
    }
    let gate = gate.map_or(String::new(), |(_, g)| {
        format!("; it is built only when `{g}`, which a ROCm machine does not set, so there it is left out without a word")
    });
    let range = n.start_byte()..func.end_byte();
    out.push(
        &native_ext::CPP_EXTENSION_CUDA_SOURCES,
        range.clone(),
        format!("CppExtension with CUDA sources (`{name}`{more}): PyTorch hipifies only CUDAExtension, so on ROCm hipcc gets {} unported{gate}", if cuda.len() == 1 && !glob { "it" } else { "them" }),
        Some("declare it as a CUDAExtension (hipified on ROCm) and build it when torch.version.hip or ROCM_HOME is set".into()),
    );
    if let Some(head) = held_by {
        let line = src[..head].iter().filter(|c| **c == b'\n').count() + 1;
        out.pass_within(
            &[(range, String::new())],
            &[native_ext::CPP_EXTENSION_CUDA_SOURCES.id.code],
            |_| format!(" (one decision with the extension at line {line}, under the same test)"),
        );
    }
}
