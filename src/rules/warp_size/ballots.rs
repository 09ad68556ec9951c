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

/// Whether one of the sorted byte ranges `hits` lies inside `n` (binary search).
fn covers(hits: &[(usize, usize)], n: Node) -> bool {
    let (start, end) = (n.start_byte(), n.end_byte());
    let i = hits.partition_point(|h| h.0 < start);
    hits[i..]
        .iter()
        .take_while(|h| h.0 < end)
        .any(|h| h.1 <= end)
}

/// What keeps CUDA's meaning depends on the warp the lanes assume, which the callers may show.
const CHOICE: &str = "where the lanes work as 32-lane warps (lane ids `& 31`, width-32 shuffles, here or in the callers) keep the lane's own half, `(unsigned int)(__ballot(p) >> (__lane_id() & 32))`, as `hipport port` writes where it sees them; where they span the wavefront, declare it `unsigned long long` and count it with `__popcll`/`__ffsll`";

/// The project's ballot wrappers: function-like macros whose body is a ballot (`#define
/// BALLOT(P) __ballot_sync(FULL_MASK, P)`) and functions that only return one (`aa_ballot`),
/// the file's own and those of the headers it includes, each with the text that names it in a
/// message.
pub(super) fn ballot_macros<'a>(
    s: &Src<'a>,
    seen: &'a crate::model::project::Visible,
    own: &[crate::model::project::Wrapper],
) -> std::collections::HashMap<&'a str, String> {
    let mut out = std::collections::HashMap::new();
    for d in s.lexed.directives.iter().filter(|d| d.name == "define") {
        let toks = s.lexed.directive_words(d);
        let Some(&n) = toks.get(2) else { continue };
        if s.ctx.src.get(s.lexed.tokens[n].end as usize) != Some(&b'(') {
            continue;
        }
        // The body: past the parameter list's `)`.
        let Some(k) = toks.iter().position(|&j| s.tok(j) == ")") else {
            continue;
        };
        let Some(&b) = toks.get(k + 1) else { continue };
        let (a, e) = (
            s.lexed.tokens[b].start as usize,
            s.lexed.tokens[*toks.last().unwrap_or(&b)].end as usize,
        );
        let body = String::from_utf8_lossy(&s.ctx.src[a..e]).into_owned();
        // A compat spelling of the intrinsic itself (`#define __ballot_sync(m, p) __ballot(p)`,
        // GPUJPEG) is the intrinsic, not a project macro.
        if crate::model::project::is_ballot_body(&body) && !BALLOTS.contains(&s.tok(n)) {
            out.insert(
                s.tok(n),
                format!("`{}`, defined at line {}", s.tok(n), s.line(d.start) + 1),
            );
        }
    }
    // Functions that only return a ballot (`aa_ballot`), this file's own (read once with its
    // shuffle wrappers, [`super::logical::LogicalWarps`]).
    for (name, body, line) in own {
        if let Some(n) = s.idents().map(|(_, n)| n).find(|n| n == name) {
            out.entry(n)
                .or_insert_with(|| format!("`{n}`, defined at line {line} as `{body}`"));
        }
    }
    for (name, (body, at)) in &seen.ballot_macros {
        if BALLOTS.contains(&name.as_str()) {
            continue;
        }
        out.entry(name.as_str())
            .or_insert_with(|| format!("`{name}`, defined at {at} as `{body}`"));
    }
    out
}

/// Whether a call exchanges values across lanes or waits on them under a mask it takes as an
/// argument (`__shfl_sync`, `cub::ShuffleIndex<32>`, `__syncwarp`, `__any_sync`): a ballot
/// passed whole is that mask, not the result.
fn takes_a_mask(name: &str) -> bool {
    let last = name.rsplit("::").next().unwrap_or(name);
    last.starts_with("__shfl")
        || last.starts_with("Shuffle")
        || last.starts_with("__match")
        || last.starts_with("__reduce_")
        || matches!(
            last,
            "__syncwarp" | "__any_sync" | "__all_sync" | "__uni_sync"
        )
}

/// Whether expression `n` holds a ballot (a call `named` one): the ballot itself, or one
/// inside it through operators, casts and calls, except a ballot passed whole as the mask of
/// a lane exchange (groute's `cub::ShuffleIndex<32>(offset, leader, __activemask())`
/// broadcasts a queue offset, under the mask of the active lanes).
fn holds_ballot(s: &Src, n: Node, named: &dyn Fn(&str) -> bool) -> bool {
    // An explicit stack: generated code nests expressions thousands deep.
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        let n = strip_parens(n);
        let mut skip_masks = false;
        if n.node_kind() == K::CallExpression {
            match call_name(s, n) {
                Some(c) if named(c) => return true,
                Some(c) if takes_a_mask(c) => skip_masks = true,
                _ => {}
            }
        }
        let mut c = n.walk();
        for k in n.named_children(&mut c) {
            let whole = strip_parens(k);
            if skip_masks && whole.node_kind() == K::ArgumentList {
                let mut d = whole.walk();
                for a in whole.named_children(&mut d) {
                    let w = strip_parens(a);
                    let mask =
                        w.node_kind() == K::CallExpression && call_name(s, w).is_some_and(named);
                    if !mask {
                        stack.push(a);
                    }
                }
                continue;
            }
            stack.push(k);
        }
    }
    false
}

pub(super) fn ballots(
    s: &Src,
    f: Node,
    macros: &std::collections::HashMap<&str, String>,
    out: &mut Vec<Finding>,
) {
    let named = |x: &str| BALLOTS.contains(&x) || macros.contains_key(x);
    // The project macro a ballot is taken through, for the message.
    let through = |n: Node| {
        s.descendants(n, K::CallExpression)
            .iter()
            .find_map(|c| call_name(s, *c).and_then(|x| macros.get(x)))
            .map_or(String::new(), |m| {
                format!(", taken through the project's ballot wrapper {m}")
            })
    };
    // A value holds a ballot when one is inside it, but not the mask a lane exchange takes.
    let is_ballot = |n: Node| holds_ballot(s, n, &named);
    let mut vars: HashSet<&str> = HashSet::new();
    // Narrow names reported where they take the ballot: their bit counts are the same fact.
    let mut reported: std::collections::HashMap<&str, usize> = Default::default();
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
                reported.insert(n, out.len());
                out.push(s.ctx.finding(
                    &BALLOT_32BIT,
                    d.byte_range(),
                    format!(
                        "`{n}` keeps a wavefront mask in 32 bits{}: AMD masks are 64-bit",
                        through(v)
                    ),
                    Some(CHOICE.into()),
                ));
            }
        }
    }
    // `__device__ uint32_t ballot(T v) { return __ballot(v); }`: the function's 32-bit return
    // type cuts the ballot (darknet's `__ballot_custom`, whose HIP arm is the legacy call).
    let returns_narrow = f
        .field(F::Type)
        .map(|t| s.text(t).split_whitespace().collect::<Vec<_>>().join(" "))
        .is_some_and(|t| NARROW.contains(&t.as_str()));
    if returns_narrow {
        let fname = f
            .field(F::Declarator)
            .and_then(|d| super::blocks::function_name(s, d))
            .unwrap_or("the function");
        for r in s.descendants(f, K::ReturnStatement) {
            let Some(v) = r.named_child(0).map(strip_parens) else {
                continue;
            };
            if v.node_kind() == K::CallExpression
                && call_name(s, v).is_some_and(|x| BALLOTS.contains(&x))
            {
                out.push(s.ctx.finding(
                    &BALLOT_32BIT,
                    v.byte_range(),
                    format!("`{fname}` returns a wavefront ballot as a 32-bit value: AMD masks are 64-bit, so lanes 32–63 are cut off"),
                    Some(CHOICE.into()),
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
                format!("`{name}` (declared 32-bit) is assigned a value holding a wavefront ballot{}: AMD masks are 64-bit, so lanes 32–63 are cut off", through(r)),
                Some(CHOICE.into()),
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
        .filter(|c| call_name(s, **c).is_some_and(named))
        .map(|c| (c.start_byte(), c.end_byte()))
        .collect();
    // The same, without the names already reported (their counts are that finding's fact).
    let mut fresh = hits.clone();
    if !vars.is_empty() {
        crate::parse::visit(f, &mut |x| {
            if crate::kinds::cuda_identifier_like(x.kind_id()) && vars.contains(s.text(x)) {
                hits.push((x.start_byte(), x.end_byte()));
                if !reported.contains_key(s.text(x)) {
                    fresh.push((x.start_byte(), x.end_byte()));
                }
            }
            true
        });
    }
    hits.retain(|(a, b)| a < b);
    hits.sort_unstable();
    fresh.retain(|(a, b)| a < b);
    fresh.sort_unstable();
    let counts_fresh = |n: Node| covers(&fresh, n);
    let from_ballot = |n: Node| covers(&hits, n);
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
    // `__activemask() == ~0U`, `__ballot_sync(m, p) != 0xffffffff`: a full 64-lane wavefront's
    // mask has 64 one bits, never equal to a 32-bit all-ones (pg-strom's `assert(__activemask()
    // == ~0U)` aborts on every full wavefront). `~0` and `-1` are `int` and widen to 64 one bits.
    let narrow_full = |n: Node| {
        let t = s.text(strip_parens(n));
        (syntax::int_value(t) == Some(0xffff_ffff) && !syntax::is_wide_literal(t))
            || super::shuffles::narrow_all_ones(t)
            || t == "UINT32_MAX"
            || t == "UINT_MAX"
    };
    for b in s.descendants(f, K::BinaryExpression) {
        let (op, l, r) = parts(s, b);
        if !matches!(op, "==" | "!=") {
            continue;
        }
        let (mask, full) = if counts_fresh(strip_parens(l)) && narrow_full(r) {
            (l, r)
        } else if counts_fresh(strip_parens(r)) && narrow_full(l) {
            (r, l)
        } else {
            continue;
        };
        out.push(s.ctx.finding(
            &BALLOT_32BIT,
            b.byte_range(),
            format!(
                "`{}` is compared with a 32-bit full mask `{}`: on a full 64-lane wavefront the mask has 64 one bits, so `{op}` never sees all lanes active",
                s.text(mask),
                s.text(full)
            ),
            Some(format!("{CHOICE}; to ask whether every lane is active, compare with the mask of the lanes the block runs (`~0ull` for a full wavefront)")),
        ));
    }
    let mut counted: Vec<(usize, &str, usize)> = Vec::new();
    let mut shifts: Vec<(usize, usize, usize)> = Vec::new();
    let mut fresh: Vec<(tree_sitter::Node, &str)> = Vec::new();
    for c in s.descendants(f, K::CallExpression) {
        let Some(name) = call_name(s, c) else {
            continue;
        };
        if !matches!(name, "__popc" | "__ffs" | "__clz" | "__brev" | "__fns") {
            continue;
        }
        let args = call_args(c);
        // A count of a narrow name reported above: a place the same fix reaches.
        if let Some(a) = args
            .first()
            .filter(|a| from_ballot(**a) && !counts_fresh(**a))
        {
            let mut named = None;
            crate::parse::visit(*a, &mut |x| {
                if crate::kinds::cuda_identifier_like(x.kind_id()) {
                    named = named.or_else(|| reported.get(s.text(x)).copied());
                }
                true
            });
            if let Some(k) = named {
                counted.push((k, name, s.line(c.start_byte()) + 1));
                // `__popc(mask & ((1 << lane) - 1))`: the lane's own bit of the counted mask is
                // the same width as the mask, so it widens with it (the same fix).
                crate::parse::visit(*a, &mut |x| {
                    if x.node_kind() == K::BinaryExpression {
                        let (op, l, _) = parts(s, x);
                        if op == "<<" && lit(s, l) == Some(1) {
                            shifts.push((k, x.start_byte(), x.end_byte()));
                        }
                    }
                    true
                });
            }
        }
        if args.first().is_some_and(|a| counts_fresh(*a)) {
            fresh.push((c, name));
        }
    }
    // Each count is its own edit; the fix is one choice for the function's lanes, spelled out.
    for (c, name) in fresh {
        out.push(s.ctx.finding(
            &BALLOT_32BIT,
            c.byte_range(),
            format!("`{name}` counts 32 bits of a wavefront mask"),
            Some(format!("where the lanes work as 32-lane warps (lane ids `& 31`, 32-thread rows, width-32 shuffles, here or in the callers) count the lane's own half, `{name}((unsigned int)(__ballot(p) >> (__lane_id() & 32)))`; where they span the wavefront, use `{name}ll` on the 64-bit mask")),
        ));
    }
    // Each reported name's counts, named in its one finding.
    let mut by_finding: std::collections::BTreeMap<usize, Vec<String>> = Default::default();
    for (k, n, line) in counted {
        by_finding
            .entry(k)
            .or_default()
            .push(format!("`{n}` at line {line}"));
    }
    for (k, here) in by_finding {
        if let Some(f) = out.get_mut(k) {
            f.message.push_str(&format!(
                "; counted with {} (the same fix)",
                here.join(", ")
            ));
        }
    }
    // The `1 << lane` of such a count (HP102 at the shift) is that finding's fact: the lane's
    // bit widens with the mask (`1ull << lane`, or `__lanemask_lt()`). It is folded into it.
    for (k, a, b) in shifts {
        let Some(head) = out.get(k) else { continue };
        let (path, line, at) = (head.path.clone(), head.line, head.byte_range);
        let mut folded = false;
        for f in out.iter_mut().filter(|f| {
            f.rule == super::LANE_WARP_ARITHMETIC.id.code
                && f.byte_range == (a, b)
                && f.status != crate::gate::Status::Pass
        }) {
            crate::finding::Folded::fold(f, format!("{path}:{line}"));
            f.message.push_str(&format!(
                " (folded into `{path}:{line}`: the lane's bit of a counted 32-bit ballot mask widens with the mask, one fix)"
            ));
            folded = true;
        }
        if folded && at.0 < at.1 {
            if let Some(h) = out.get_mut(k) {
                if !h.message.contains("its lane bit `1 << …`") {
                    h.message.push_str("; its lane bit `1 << …` in those counts widens with it (`__lanemask_lt()`, or `1ull << lane` with a lane id that runs to 63)");
                }
            }
        }
    }
}
