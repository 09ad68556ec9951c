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

/// `CUDA_HOME` (or `CUDA_PATH`) used in Python where nothing guards it: `os.path.join(CUDA_HOME,
/// "include")`, `CUDA_HOME + "/bin"`, `os.environ["CUDA_HOME"]` (a KeyError when unset). On a
/// ROCm system without a CUDA toolkit it is None (unset), so the use raises. One fact per file
/// (HP852), raised at the first such use the ROCm build runs, else at the first (then PASS: only
/// CUDA code uses it). Guarded uses are how a project copes with either build and are not
/// counted: under a test of the name (`if CUDA_HOME is not None:`, `CUDA_HOME and ...`,
/// `... if CUDA_HOME else ...`, after `if CUDA_HOME is None: return`), inside `try:`, a
/// function parameter of that name, and `os.getenv("CUDA_HOME")` (None is an answer).
fn cuda_home_reads(out: &mut Out, root: Node, src: &[u8], model: &platform::Model) {
    const NAMES: &[&str] = &["CUDA_HOME", "CUDA_PATH"];
    let mut reads: Vec<Range<usize>> = Vec::new();
    ts::each(root, &mut |n| {
        let (read, name) = match n.node_kind() {
            K::Identifier => {
                let t = ts::text(n, src);
                let used = NAMES.contains(&t)
                    && !has_ancestor(n, K::ImportFromStatement, 3)
                    && !has_ancestor(n, K::ImportStatement, 3)
                    && n.parent().is_some_and(|p| {
                        matches!(p.node_kind(), K::ArgumentList | K::BinaryOperator)
                            || p.kind() == "interpolation"
                    });
                (used, t.to_string())
            }
            K::Subscript => match platform::predicate::env_read(n, src) {
                Some(k) if NAMES.contains(&k.as_str()) => (
                    n.parent().is_none_or(|p| {
                        !(p.node_kind() == K::Assignment && p.field(F::Left) == Some(n))
                    }),
                    k,
                ),
                _ => (false, String::new()),
            },
            _ => (false, String::new()),
        };
        if read && !guarded(n, &name, src) && !reads.iter().any(|r| r.contains(&n.start_byte())) {
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

/// Whether a use of `name` is guarded: an enclosing test that mentions it, a `try:`, a
/// parameter of that name, or an earlier `if` in an enclosing block that tests it and returns
/// (a `raise` there fails on ROCm: the use after it still counts).
fn guarded(n: Node, name: &str, src: &[u8]) -> bool {
    let mentions = |c: Option<Node>| c.is_some_and(|c| mentions_word(ts::text(c, src), name));
    let mut cur = n;
    while let Some(p) = cur.parent() {
        match p.node_kind() {
            K::IfStatement | K::ElifClause if mentions(p.field(F::Condition)) => return true,
            K::BooleanOperator if mentions(p.field(F::Left)) => return true,
            K::ConditionalExpression if mentions(ts::named_children(p).get(1).copied()) => {
                return true
            }
            K::TryStatement => return true,
            K::FunctionDefinition if mentions(p.child_by_field_name("parameters")) => return true,
            K::Block | K::Module => {
                let earlier_exit = ts::named_children(p)
                    .into_iter()
                    .take_while(|s| s.end_byte() <= cur.start_byte())
                    .any(|s| {
                        s.node_kind() == K::IfStatement
                            && mentions(s.field(F::Condition))
                            && s.field(F::Consequence).is_some_and(|b| {
                                ts::named_children(b).last().is_some_and(|l| {
                                    matches!(
                                        l.node_kind(),
                                        K::ReturnStatement
                                            | K::ContinueStatement
                                            | K::BreakStatement
                                    )
                                })
                            })
                    });
                if earlier_exit {
                    return true;
                }
            }
            _ => {}
        }
        cur = p;
    }
    false
}

/// `name` as a whole word in `text`.
fn mentions_word(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + name.len()..].chars().next();
        let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        !word(before) && !word(after)
    })
}
