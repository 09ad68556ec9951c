//! HP106: wavefront masks kept in 32 bits. A ballot (`__ballot_sync`, `__activemask`) stored
//! in a 32-bit variable, two 32-lane ballots joined into one 64-bit mask, and the bit counts
//! (`__popc`, `__ffs`, …) taken of a ballot: on AMD a mask has 64 lanes.

use super::flow::{lit, parts, strip_parens};
use super::BALLOT_32BIT;
use crate::finding::Finding;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::model::syntax::{self, call_args, call_name, Src};
use std::collections::HashSet;
use tree_sitter::Node;

const BALLOTS: &[&str] = &["__ballot_sync", "__ballot", "__activemask", "__ballot_64"];
const NARROW: &[&str] = &[
    "unsigned",
    "unsigned int",
    "int",
    "uint32_t",
    "uint",
    "unsigned int32_t",
    "int32_t",
    "unsigned long",
];

pub(super) fn ballots(s: &Src, f: Node, out: &mut Vec<Finding>) {
    let is_ballot = |n: Node| {
        s.descendants(n, K::CallExpression)
            .iter()
            .any(|c| call_name(s, *c).is_some_and(|x| BALLOTS.contains(&x)))
    };
    let mut vars: HashSet<&str> = HashSet::new();
    let narrow: HashSet<&str> = syntax::typed_variables(s, f, |t| {
        NARROW.contains(&t.split_whitespace().collect::<Vec<_>>().join(" ").as_str())
    })
    .into_iter()
    .collect();
    for d in s.descendants(f, K::InitDeclarator) {
        let (Some(n), Some(v)) = (
            d.field(F::Declarator)
                .and_then(|x| syntax::declarator_name(s, x)),
            d.field(F::Value),
        ) else {
            continue;
        };
        if v.node_kind() == K::CallExpression && is_ballot(v) {
            vars.insert(n);
            if narrow.contains(n) {
                out.push(s.ctx.finding(
                    &BALLOT_32BIT,
                    d.byte_range(),
                    format!("`{n}` keeps a wavefront mask in 32 bits; AMD masks are 64-bit"),
                    Some("declare it `unsigned long long` (or `auto`)".into()),
                ));
            }
        }
    }
    // `m &= t ^ __ballot_sync(…)` with `m` declared 32-bit: the ballot's value is cut to 32
    // bits by the assignment.
    for a in s.descendants(f, K::AssignmentExpression) {
        let (Some(l), Some(r)) = (a.field(F::Left), a.field(F::Right)) else {
            continue;
        };
        let name = s.text(l);
        if narrow.contains(name) && !vars.contains(name) && is_ballot(r) {
            out.push(s.ctx.finding(
                &BALLOT_32BIT,
                a.byte_range(),
                format!("`{name}` (declared 32-bit) is assigned a value holding a wavefront ballot: AMD masks are 64-bit, so lanes 32–63 are cut off"),
                Some(format!("declare `{name}` `unsigned long long` and count it with `__popcll`/`__ffsll`")),
            ));
        }
    }
    // What a mask can come from: the ballot calls of `f` and its names given a ballot, by
    // byte range, read once. An operand holds one when one lies inside its range (a node of
    // nonzero width inside another's range is its descendant), found by binary search: reading
    // each operand's subtree was quadratic on `x << 32 << 32 …` and `a + a + …` chains.
    let mut hits: Vec<(usize, usize)> = s
        .descendants(f, K::CallExpression)
        .iter()
        .filter(|c| call_name(s, **c).is_some_and(|x| BALLOTS.contains(&x)))
        .map(|c| (c.start_byte(), c.end_byte()))
        .collect();
    if !vars.is_empty() {
        crate::parse::visit(f, &mut |x| {
            if crate::kinds::cuda_identifier_like(x.kind_id()) && vars.contains(s.text(x)) {
                hits.push((x.start_byte(), x.end_byte()));
            }
            true
        });
    }
    hits.retain(|(a, b)| a < b);
    hits.sort_unstable();
    let from_ballot = |n: Node| {
        let (start, end) = (n.start_byte(), n.end_byte());
        let i = hits.partition_point(|h| h.0 < start);
        hits[i..]
            .iter()
            .take_while(|h| h.0 < end)
            .any(|h| h.1 <= end)
    };
    // `((uint64_t)__ballot_sync(m, a) << 32) | __ballot_sync(m, b)`: a 64-lane mask assembled
    // from two 32-lane ballots; on AMD each ballot already holds 64 lanes.
    let by_32 = |n: Node| {
        let (op, _, r) = parts(s, n);
        n.node_kind() == K::BinaryExpression && op == "<<" && lit(s, r) == Some(32)
    };
    for b in s.descendants(f, K::BinaryExpression) {
        let (_, l, _) = parts(s, b);
        // One finding per mask: in `m << 32 << 32 …` the innermost shift (20 000 nested
        // findings, each over the text of the one before, were quadratic output).
        if by_32(b) && !by_32(strip_parens(l)) && from_ballot(l) {
            out.push(s.ctx.finding(
                &BALLOT_32BIT,
                b.byte_range(),
                "a 64-bit mask built from two 32-lane ballots: on AMD one ballot already covers 64 lanes".into(),
                Some("take one `__ballot` (64-bit) per wavefront instead of joining two".into()),
            ));
        }
    }
    for c in s.descendants(f, K::CallExpression) {
        let Some(name) = call_name(s, c) else {
            continue;
        };
        if !matches!(name, "__popc" | "__ffs" | "__clz" | "__brev" | "__fns") {
            continue;
        }
        let args = call_args(c);
        if args.first().is_some_and(|a| from_ballot(*a)) {
            out.push(s.ctx.finding(
                &BALLOT_32BIT,
                c.byte_range(),
                format!("`{name}` counts 32 bits of a wavefront mask"),
                Some(format!("use `{name}ll` on a 64-bit mask")),
            ));
        }
    }
}
