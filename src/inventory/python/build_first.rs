//! A `setup.py` that imports `torch` to build (fast-transformers: `try: import torch` /
//! `except ImportError: raise ImportError("PyTorch is required …")`) runs only where `torch` is
//! already installed: on ROCm, the ROCm wheel the porter installed first. Its own
//! `install_requires=["torch"]` is then satisfied by that wheel and pulls nothing from PyPI, so
//! an open or lower-bound requirement on `torch` there is PASS. An exact or upper-bound pin
//! (`torch==1.8.0`, `torch<2`) stays open: the wheel installed first must match it, and a ROCm
//! build of that release may not exist for the target. A `setup.py` that can build without
//! `torch` (the import is optional, or sits in a function) keeps the finding.

use super::super::packages::Req;
use super::super::ts;
use crate::kinds::python::{Kind as K, NodeExt};
use tree_sitter::Node;

/// What the PASS says.
pub(super) const SATISFIED: &str = "torch: this setup.py imports torch to build, so it runs only where torch is already installed; on ROCm that is the ROCm wheel installed first, which satisfies this requirement (pip installs nothing for it)";

/// Whether a statement imports `torch` (or a module under it).
fn imports_torch(n: Node, src: &[u8]) -> bool {
    matches!(n.node_kind(), K::ImportStatement | K::ImportFromStatement)
        && n.named_child(0).is_some_and(|m| {
            let t = ts::text(m, src);
            t == "torch" || t.starts_with("torch.")
        })
}

/// Whether a block ends the program: its last statement raises or calls `sys.exit`/`exit`.
fn ends_the_program(block: Node, src: &[u8]) -> bool {
    let Some(last) = ts::named_children(block).into_iter().last() else {
        return false;
    };
    match last.node_kind() {
        K::RaiseStatement => true,
        K::ExpressionStatement => last.named_child(0).is_some_and(|c| {
            c.node_kind() == K::Call
                && c.named_child(0).is_some_and(|f| {
                    matches!(ts::text(f, src), "sys.exit" | "exit" | "quit" | "os._exit")
                })
        }),
        _ => false,
    }
}

/// Whether the module imports `torch` at its top level unconditionally: a plain import, or one
/// inside a `try:` whose every `except` ends the program.
pub(super) fn imports_torch_to_build(root: Node, src: &[u8]) -> bool {
    ts::named_children(root)
        .into_iter()
        .any(|s| match s.node_kind() {
            K::ImportStatement | K::ImportFromStatement => imports_torch(s, src),
            K::TryStatement => {
                let parts = ts::named_children(s);
                let body_imports = parts.iter().any(|p| {
                    p.node_kind() == K::Block
                        && ts::named_children(*p)
                            .into_iter()
                            .any(|x| imports_torch(x, src))
                });
                let handlers: Vec<Node> = parts
                    .iter()
                    .filter(|p| p.node_kind() == K::ExceptClause)
                    .copied()
                    .collect();
                body_imports
                    && !handlers.is_empty()
                    && handlers.iter().all(|h| {
                        ts::named_children(*h)
                            .into_iter()
                            .find(|c| c.node_kind() == K::Block)
                            .is_some_and(|b| ends_the_program(b, src))
                    })
            }
            _ => false,
        })
}

/// Whether `spec` (the requirement's text) asks for `torch` with no bound a wheel installed
/// first might miss: no version, or only lower bounds and exclusions.
pub(super) fn open_torch(spec: &str, req: &Req) -> bool {
    if crate::inventory::tables::normalize(&req.name) != "torch"
        || req.cuda_marker.is_some()
        || req.other_build
    {
        return false;
    }
    let rest = spec.trim_start()[req.name.len()..]
        .split(';')
        .next()
        .unwrap_or("");
    !rest.contains("==") && !rest.contains("~=") && !rest.contains('<') && !rest.contains("===")
}

#[cfg(test)]
mod tests {
    use super::super::super::{kind::FileKind, scan_bytes};
    use crate::gate::Status;

    const REQUIRED: &str = "try:\n    import torch\n    from torch.utils.cpp_extension import BuildExtension, CppExtension\nexcept ImportError as e:\n    raise ImportError(\"PyTorch is required\") from e\nfrom setuptools import setup\nsetup(name=\"x\", install_requires=[\"torch\", \"numpy\"], cmdclass={\"build_ext\": BuildExtension})\n";

    fn torch(src: &str) -> Vec<crate::finding::Finding> {
        scan_bytes("setup.py", FileKind::SetupPy, src.as_bytes())
            .into_iter()
            .filter(|f| f.rule == "HP820" && f.message.starts_with("torch"))
            .collect()
    }

    /// fast-transformers: the import raises when torch is missing, so `torch` is PASS.
    #[test]
    fn torch_the_build_imports_is_satisfied() {
        let f = torch(REQUIRED);
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].status, Status::Pass, "{}", f[0].message);
        let plain = REQUIRED
            .replace(
                "try:\n    import torch\n",
                "import torch\nif True:\n    pass\ntry:\n    import os\n",
            )
            .replace("\"torch\"", "\"torch>=1.6\"");
        assert_eq!(torch(&plain)[0].status, Status::Pass);
    }

    /// Twins: an optional import (`except ImportError: torch = None`), an import inside a
    /// function, and an exact pin stay open.
    #[test]
    fn optional_import_or_exact_pin_stays_open() {
        let optional = REQUIRED.replace(
            "raise ImportError(\"PyTorch is required\") from e",
            "torch = None",
        );
        assert_ne!(torch(&optional)[0].status, Status::Pass);
        let in_function = "from setuptools import setup\ndef ext():\n    import torch\nsetup(name=\"x\", install_requires=[\"torch\"])\n";
        assert_ne!(torch(in_function)[0].status, Status::Pass);
        let pinned = REQUIRED.replace("\"torch\"", "\"torch==1.8.0\"");
        assert_ne!(torch(&pinned)[0].status, Status::Pass);
    }
}
