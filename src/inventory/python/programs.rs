//! The program a Python process call runs (`subprocess.check_output([nvcc, "--version"])`):
//! a string, a path joined or concatenated onto it, or a name assigned one of those.

use super::{dotted, string};
use crate::inventory::ts;
use crate::kinds::python::{Field as F, Kind as K, NodeExt};
use std::ops::Range;
use tree_sitter::Node;

/// The text of a command-list element that names a program by path: a string, `cuda_dir +
/// "/bin/nvcc"`, `f"{home}/bin/nvcc"`, `os.path.join(CUDA_HOME, "bin", "nvcc")` (its last
/// string part), with its range.
pub(super) fn program_part(e: Node, src: &[u8]) -> Option<(String, Range<usize>)> {
    program_part_within(e, src, 2)
}

/// [`program_part`], following a name to what its function (or the module) assigned it before
/// the use (`nvcc = os.path.join(CUDA_HOME, "bin/nvcc")` in either arm of an `if`), at most
/// `depth` names deep. The range is the use's: the finding points at the call.
fn program_part_within(e: Node, src: &[u8], depth: u8) -> Option<(String, Range<usize>)> {
    match e.node_kind() {
        K::String => string(e, src),
        K::BinaryOperator => program_part_within(e.field(F::Right)?, src, depth),
        K::ParenthesizedExpression => {
            program_part_within(ts::named_children(e).into_iter().next()?, src, depth)
        }
        K::Call => {
            let f = dotted(e.field(F::Function)?, src)?;
            if f != "os.path.join" {
                return None;
            }
            let last = ts::named_children(e.field(F::Arguments)?).pop()?;
            program_part_within(last, src, depth)
        }
        K::Identifier if depth > 0 => {
            let name = ts::text(e, src);
            let mut scope = e;
            while let Some(p) = scope.parent() {
                scope = p;
                if p.node_kind() == K::FunctionDefinition {
                    break;
                }
            }
            let mut found = None;
            ts::each(scope, &mut |a| {
                if found.is_some()
                    || a.node_kind() != K::Assignment
                    || a.start_byte() >= e.start_byte()
                    || a.field(F::Left).is_none_or(|l| ts::text(l, src) != name)
                {
                    return;
                }
                found = a
                    .field(F::Right)
                    .and_then(|r| program_part_within(r, src, depth - 1))
                    .filter(|(t, _)| {
                        matches!(t.split('/').next_back(), Some("nvcc" | "nvidia-smi"))
                    });
            });
            found.map(|(t, _)| (t, e.byte_range()))
        }
        _ => None,
    }
}
