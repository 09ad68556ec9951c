//! What the platform model ([`super::platform`]) settles in a Python file beyond "the ROCm build
//! skips this": capability thresholds and `torch.version.cuda` operands that decide nothing on
//! ROCm (PASS), arms the ROCm build takes that fail there (HP813, never a PASS), and the CUDA
//! toolkit location read in Python (HP852, one fact per file).

use super::super::{build, platform, py_capability, version_check, Out};
use super::{has_ancestor, Flavor};
use crate::gate::Phase;
use crate::inventory::ts;
use crate::kinds::python::{Field as F, Kind as K, NodeExt};
use std::ops::Range;
use tree_sitter::Node;

/// Applies the model's decisions to the file's findings and raises its own.
pub(super) fn judge(
    out: &mut Out,
    root: Node,
    src: &[u8],
    flavor: Flavor,
    model: &platform::Model,
) {
    let decisions = [
        version_check::TORCH_VERSION_CUDA.id.code,
        version_check::DEVICE_CAPABILITY_THRESHOLD.id.code,
    ];
    out.pass_within(model.moot_on_rocm(), &decisions, |by| {
        format!(" (decides nothing on ROCm: `{by}` settles the condition there)")
    });
    let settled = py_capability::settled_ranges(root, src);
    out.pass_within(
        &settled,
        &[version_check::DEVICE_CAPABILITY_THRESHOLD.id.code],
        |why| format!(" ({why})"),
    );
    cuda_home_reads(out, root, src, model);
    for f in model.rocm_failures() {
        let phase = match (f.module_level, flavor) {
            (true, Flavor::SetupPy) => Phase::Install,
            (true, Flavor::Module) => Phase::Import,
            (false, _) => Phase::Runtime,
        };
        let code = version_check::ROCM_ARM_FAILS.id.code;
        out.push(
            &version_check::ROCM_ARM_FAILS,
            f.range.clone(),
            format!(
                "`{}` holds on ROCm builds of PyTorch: on ROCm this arm {}",
                short(&f.test),
                f.what
            ),
            Some("accept ROCm in the test (torch.version.hip) or give ROCm its own arm".into()),
        );
        out.set_phase(code, f.range.clone(), phase);
    }
}

/// A condition's text on one line, cut short.
fn short(t: &str) -> String {
    let one: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
    match one.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &one[..i]),
        None => one,
    }
}

/// `CUDA_HOME` (or `CUDA_PATH`) read in Python: `os.path.join(CUDA_HOME, ...)`,
/// `os.environ["CUDA_HOME"]`, `os.getenv("CUDA_PATH")`. One fact per file (HP852), raised at the
/// first read the ROCm build runs, else at the first read (then PASS: only CUDA code reads it).
/// Testing it against None is how a project tells the builds apart, not a use.
fn cuda_home_reads(out: &mut Out, root: Node, src: &[u8], model: &platform::Model) {
    const NAMES: &[&str] = &["CUDA_HOME", "CUDA_PATH"];
    let mut reads: Vec<Range<usize>> = Vec::new();
    ts::each(root, &mut |n| {
        let read = match n.node_kind() {
            K::Identifier => {
                NAMES.contains(&ts::text(n, src))
                    && !has_ancestor(n, K::ImportFromStatement, 3)
                    && !has_ancestor(n, K::ImportStatement, 3)
                    && n.parent().is_none_or(|p| {
                        !(p.node_kind() == K::Assignment && p.field(F::Left) == Some(n))
                            && p.node_kind() != K::KeywordArgument
                            && !(p.node_kind() == K::Attribute && p.field(F::Object) != Some(n))
                    })
            }
            K::Call | K::Subscript => {
                platform::predicate::env_read(n, src).is_some_and(|k| NAMES.contains(&k.as_str()))
                    && n.parent().is_none_or(|p| {
                        !(p.node_kind() == K::Assignment && p.field(F::Left) == Some(n))
                    })
            }
            _ => false,
        };
        let none_test = n.parent().is_some_and(|p| {
            p.node_kind() == K::ComparisonOperator
                && ts::named_children(p)
                    .iter()
                    .any(|c| c.node_kind() == K::None)
        });
        if read && !none_test && !reads.iter().any(|r| r.contains(&n.start_byte())) {
            reads.push(n.byte_range());
        }
    });
    let Some(first) = reads
        .iter()
        .find(|r| model.rocm_skips(r.start).is_none())
        .or(reads.first())
        .cloned()
    else {
        return;
    };
    let what = out.text(first.clone()).to_string();
    out.push(
        &build::CUDA_INSTALL_PATH,
        first,
        format!(
            "reads the CUDA toolkit location (`{}`; {} read{} in this file, one fact): ROCm is found through ROCM_HOME/ROCM_PATH, and CUDA_HOME is None on a ROCm system without a CUDA toolkit",
            short(&what),
            reads.len(),
            if reads.len() == 1 { "" } else { "s" }
        ),
        Some("use torch.utils.cpp_extension.ROCM_HOME (or ROCM_PATH, default /opt/rocm) when torch.version.hip is set".into()),
    );
}
