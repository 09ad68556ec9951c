//! HP113: host code that tests the device's reported warp size against 32. `prop.warpSize`
//! (from `cudaGetDeviceProperties`) and the value `cudaDeviceGetAttribute(&w,
//! cudaDevAttrWarpSize, dev)` writes are the hardware's: 64 on CDNA (MI200, MI300), 32 on RDNA.
//! A test of it against 32 (`if (w != 32) { … exit(1); }`, cuPDLP-C's solver start) takes the
//! other arm on those GPUs: a check that aborts, or a path chosen for another warp size. Only the
//! queried value is read here: the device-side `warpSize` builtin is the other rules' matter.

use super::flow::{lit, parts, strip_parens};
use crate::finding::Finding;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::model::syntax::{call_args, call_name, Src};
use tree_sitter::Node;

rule!(QUERIED_WARP_SIZE_TEST, "HP113", WarpSize, Remediation, Init,
    summary: "Host code tests the device's reported warp size against 32: `prop.warpSize != 32` after `cudaGetDeviceProperties`, or the value `cudaDeviceGetAttribute(&w, cudaDevAttrWarpSize, dev)` wrote compared with 32.",
    why: "The reported warp size is the hardware's wavefront: 64 on CDNA (MI200, MI300), 32 on RDNA. A test against 32 takes its other arm on CDNA: a start-up check that aborts the run (INIT), or a path chosen for another warp size.",
    bad: "cudaDeviceGetAttribute(&ws, cudaDevAttrWarpSize, 0);\nif (ws != 32) { printf(\"warpSize\\n\"); exit(1); }",
    good: "hipDeviceGetAttribute(&ws, hipDeviceAttributeWarpSize, 0);\nif (ws != 32 && ws != 64) { … }   // or size the kernels from ws",
    fix: "Accept the wavefront sizes the kernels are written for (32 and 64 where they use 32-lane logical warps or `warpSize`), or size the launch and the per-warp storage from the queried value.",
    refs: [super::REF_WAVE, super::REF_PORTING],
);

/// The attribute names of the warp size.
const WARP_ATTRIBUTES: &[&str] = &["cudaDevAttrWarpSize", "hipDeviceAttributeWarpSize"];
/// The attribute queries whose first argument receives the value.
const QUERIES: &[&str] = &["cudaDeviceGetAttribute", "hipDeviceGetAttribute"];

/// The names a file's attribute queries write the warp size into (`&w` of
/// `cudaDeviceGetAttribute(&w, cudaDevAttrWarpSize, 0)`), each with the byte range of the
/// function that makes the query (a name is that function's variable).
fn queried<'a>(s: &Src<'a>, root: Node<'a>) -> Vec<(&'a str, (usize, usize))> {
    let mut out = Vec::new();
    for c in s.descendants(root, K::CallExpression) {
        if !call_name(s, c).is_some_and(|n| QUERIES.contains(&n)) {
            continue;
        }
        let args = call_args(c);
        let (Some(dst), Some(attr)) = (args.first(), args.get(1)) else {
            continue;
        };
        if !WARP_ATTRIBUTES.contains(&s.text(strip_parens(*attr))) {
            continue;
        }
        let d = strip_parens(*dst);
        let name = if d.node_kind() == K::PointerExpression {
            d.field(F::Argument).map(|a| s.text(a))
        } else {
            None
        };
        let scope = s
            .enclosing_function(c)
            .map_or((0, usize::MAX), |f| (f.start_byte(), f.end_byte()));
        if let Some(n) = name {
            out.push((n, scope));
        }
    }
    out
}

/// Whether `n` reads the reported warp size: `prop.warpSize`, `p->warpSize`, or a name a query
/// wrote it into.
fn reads_warp_size(s: &Src, n: Node, names: &[(&str, (usize, usize))]) -> bool {
    let n = strip_parens(n);
    match n.node_kind() {
        K::FieldExpression => n.field(F::Field).is_some_and(|f| s.text(f) == "warpSize"),
        K::Identifier => names
            .iter()
            .any(|(name, (a, b))| *name == s.text(n) && *a <= n.start_byte() && n.end_byte() <= *b),
        _ => false,
    }
}

/// Whether the `if` whose condition holds `test` aborts in its consequence: `exit`, `abort`,
/// `throw`, `assert`.
fn aborts(s: &Src, test: Node) -> bool {
    let mut up = test.parent();
    for _ in 0..4 {
        match up {
            Some(p) if p.node_kind() == K::IfStatement => break,
            Some(p)
                if matches!(
                    p.node_kind(),
                    K::ConditionClause | K::ParenthesizedExpression | K::BinaryExpression
                ) =>
            {
                up = p.parent()
            }
            _ => return false,
        }
    }
    let Some(stmt) = up.filter(|p| p.node_kind() == K::IfStatement) else {
        return false;
    };
    let Some(then) = stmt.field(F::Consequence) else {
        return false;
    };
    let text = s.text(then);
    ["exit(", "abort(", "throw ", "std::terminate", "assert("]
        .iter()
        .any(|w| text.contains(w))
}

pub(super) fn tests(s: &Src, root: Node, out: &mut Vec<Finding>) {
    // `warpSize`, `WarpSize`.
    if memchr::memmem::find(s.ctx.src, b"arpSize").is_none() {
        return;
    }
    let names = queried(s, root);
    for b in s.descendants(root, K::BinaryExpression) {
        let (op, l, r) = parts(s, b);
        if !matches!(op, "==" | "!=" | "<" | ">" | "<=" | ">=") {
            continue;
        }
        let value = if lit(s, r) == Some(32) {
            l
        } else if lit(s, l) == Some(32) {
            r
        } else {
            continue;
        };
        if !reads_warp_size(s, value, &names) {
            continue;
        }
        // Device code's own `warpSize` is not a field; a host test reads the device's report.
        let written = s.text(b).split_whitespace().collect::<Vec<_>>().join(" ");
        let what = if aborts(s, b) {
            "so the check aborts the run on CDNA GPUs"
        } else {
            "so the code takes the other arm on CDNA GPUs"
        };
        out.push(s.ctx.finding(
            &QUERIED_WARP_SIZE_TEST,
            b.byte_range(),
            format!("`{written}` tests the device's reported warp size against 32: AMD CDNA GPUs (MI200, MI300) report 64, {what}"),
            Some("accept the wavefront sizes the kernels are written for (32 and 64), or size the launch and per-warp storage from the queried value".into()),
        ));
    }
}

#[cfg(test)]
mod tests {
    use crate::model::syntax::test_support::fires;

    /// cuPDLP-C: the queried warp size tested against 32 before an `exit`; `prop.warpSize == 32`
    /// too. Twins: the value printed, a device-side `warpSize` test, and another attribute.
    #[test]
    fn the_reported_warp_size_tested_against_32() {
        let src = "void init() {\n  int warpSize;\n  cudaDeviceGetAttribute(&warpSize, cudaDevAttrWarpSize, 0);\n  if (warpSize != 32) {\n    printf(\"warpSize\\n\");\n    exit(1);\n  }\n  cudaDeviceProp prop;\n  cudaGetDeviceProperties(&prop, 0);\n  bool fast = prop.warpSize == 32;\n  printf(\"%d\", prop.warpSize);\n  int sm;\n  cudaDeviceGetAttribute(&sm, cudaDevAttrMultiProcessorCount, 0);\n  if (sm != 32) return;\n}\n__global__ void k(int* p) { if (warpSize == 32) p[0] = 1; }\n";
        assert_eq!(fires(src, "HP113"), [4, 10]);
        let f = crate::model::syntax::test_support::hazard_findings(src);
        let first = f.iter().find(|f| f.rule == "HP113").unwrap();
        assert!(
            first.message.contains("aborts the run"),
            "{}",
            first.message
        );
    }
}
