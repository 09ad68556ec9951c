//! Masks and shuffles of the warp-size family: the `_sync` intrinsics' mask arguments (32-bit
//! full masks written as literals, named constants or `~0u`), the masks a file defines, shuffles
//! outside sorting networks, and shuffle loops sized for 32 lanes.

use super::*;

/// `_sync` forms whose literal full masks the translator already reports (HP005/HP006).
pub(super) const TRANSLATOR_MASKS: &[&str] = &[
    "__all_sync",
    "__any_sync",
    "__ballot_sync",
    "__shfl_down_sync",
    "__shfl_sync",
    "__shfl_up_sync",
    "__shfl_xor_sync",
];

pub(super) fn is_sync_intrinsic(name: &str) -> bool {
    name.starts_with("__") && (name.ends_with("_sync") || name == "__syncwarp")
}

pub(super) fn is_shuffle(name: &str) -> bool {
    name.starts_with("__shfl") || name.starts_with("shfl") || name.contains("shfl")
}

pub(super) fn lane_mask_name(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    (l.contains("lane") || l.contains("warp")) && l.contains("mask") && !l.contains("full")
}

pub(super) fn full_mask_name(name: &str) -> bool {
    let l = name.to_ascii_lowercase().replace('_', "");
    if l.contains("mask")
        && (l.contains("warp") || l.contains("lane") || l.contains("shfl") || l.contains("sync"))
    {
        return true;
    }
    l.contains("fullmask")
        || l.contains("fullwarpmask")
        || l == "allmask"
        || l == "allLanes".to_ascii_lowercase()
}

/// Masks as the calls see them: `full` are the 32-bit full masks defined for the whole file
/// (`#define FULL_MASK 0xffffffff`, file-scope constants), flagged where they are defined and at
/// each use; `local` are the names declared inside functions (locals, parameters), judged only
/// where they are set (`unsigned mask = 0xffffffff;` is one fact, and another function's
/// `mask` is another variable).
pub(super) struct Masks<'a> {
    full: HashSet<&'a str>,
    local: HashSet<&'a str>,
    /// Names the headers the file includes define, for the ROCm build, as something other than
    /// a 32-bit full mask (FBGEMM's `kFullWarpMask`: 64 one bits under `USE_ROCM`, 32 in the
    /// `#else` the ROCm build does not compile): not flagged at a use by their name.
    pub(super) wide: HashSet<&'a str>,
    /// Whether each function (by node id) is a sorting network, as the shuffles ask.
    sorting: std::cell::RefCell<std::collections::HashMap<usize, bool>>,
}

impl<'a> Masks<'a> {
    pub(super) fn of(
        s: &Src<'a>,
        nodes: &[Node<'a>],
        macros: &[(&'a str, &'a str, std::ops::Range<usize>)],
    ) -> Masks<'a> {
        let is_full = |v: &str| {
            (int_value(v) == Some(0xffff_ffff) && !syntax::is_wide_literal(v)) || narrow_all_ones(v)
        };
        let mut full: HashSet<&'a str> = macros
            .iter()
            .filter(|(_, v, _)| is_full(v))
            .map(|(n, _, _)| *n)
            .collect();
        let mut local = HashSet::new();
        let decls = s.of_kinds(&[K::ParameterDeclaration, K::Declaration]);
        for n in nodes.iter().chain(decls.iter()) {
            let d = match n.node_kind() {
                K::InitDeclarator | K::ParameterDeclaration | K::OptionalParameterDeclaration => {
                    n.field(F::Declarator)
                }
                K::Declaration => n
                    .field(F::Declarator)
                    .filter(|d| d.node_kind() != K::InitDeclarator),
                _ => None,
            };
            let Some(name) = d.and_then(|d| syntax::declarator_name(s, d)) else {
                continue;
            };
            if s.enclosing_function(*n).is_some() {
                local.insert(name);
            } else if declared_constant(s, *n).is_some_and(|(_, v)| is_full(s.text(v))) {
                full.insert(name);
            }
        }
        Masks {
            full,
            local,
            wide: HashSet::new(),
            sorting: Default::default(),
        }
    }
}

pub(super) fn calls<'a>(s: &Src<'a>, c: Node<'a>, masks: &Masks<'a>, out: &mut Vec<Finding>) {
    let Some(name) = call_name(s, c) else { return };
    let args = call_args(c);
    if is_sync_intrinsic(name) {
        if let Some(m) = args.first() {
            let text = s.text(*m);
            let literal = m.node_kind() == K::NumberLiteral
                && int_value(text) == Some(0xffff_ffff)
                && !syntax::is_wide_literal(text);
            // A file-wide full mask at each use, one from another header by its name; a local
            // variable where it is set.
            let named = m.node_kind() == K::Identifier
                && !masks.local.contains(text)
                && (masks.full.contains(text)
                    || (full_mask_name(text) && !masks.wide.contains(text)));
            // Spellings of a 32-bit all-ones mask the translator does not widen.
            let spelled = narrow_all_ones(text);
            if (literal && !TRANSLATOR_MASKS.contains(&name)) || named || spelled {
                out.push(s.ctx.finding(
                    &WARP_MASK_32BIT,
                    m.byte_range(),
                    format!("32-bit full mask `{text}` in `{name}`: HIP masks are 64-bit"),
                    Some("use a 64-bit mask (`~0ull` or `__activemask()`)".into()),
                ));
            }
        }
    }
    if is_shuffle(name) && !masks.sorting_network(s, c) {
        // Unrolled reductions: the first step's literal offset 16.
        let delta = if name.ends_with("_sync") {
            args.get(2)
        } else {
            args.get(1)
        };
        if let Some(d) = delta {
            if lit(s, *d) == Some(16)
                && (name.contains("down") || name.contains("xor") || name.contains("up"))
            {
                out.push(s.ctx.finding(
                    &SHUFFLE_REDUCTION_FROM_16,
                    d.byte_range(),
                    format!("`{name}` by 16 is the first step of a 32-lane reduction"),
                    Some("add a step of 32 (or loop from `warpSize / 2`)".into()),
                ));
            }
        }
    }
}

/// A 32-bit all-ones mask not written as a plain literal: `~0u`, `uint32_t(-1)`,
/// `(unsigned)-1`. (`~0` and `-1` are `int` and widen to 64 one bits: not flagged.)
pub(super) fn narrow_all_ones(text: &str) -> bool {
    let t: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    matches!(
        t.as_str(),
        "~0u" | "~0x0u" | "~0ul" | "~uint32_t(0)" | "~(uint32_t)0" | "~0u32" | "~unsigned(0)"
    ) || [
        "uint32_t(-1)",
        "(uint32_t)-1",
        "(uint32_t)(-1)",
        "(unsigned)-1",
        "(unsignedint)-1",
        "unsigned(-1)",
        "static_cast<uint32_t>(-1)",
        "static_cast<unsigned>(-1)",
    ]
    .contains(&t.as_str())
}

/// Whether the shuffle sits in a sorting network (bitonic exchange steps): the function shuffles
/// by the same literal distance more than once (1, 2, 1, 4, 2, 1, …). Adding a step of 32 there
/// would be wrong; it is not a 32-lane reduction.
impl Masks<'_> {
    /// [`sorting_network`], once per function: a function of 2 000 unrolled shuffles asked it
    /// once per shuffle, reading every call of the function each time.
    fn sorting_network(&self, s: &Src, c: Node) -> bool {
        let Some(f) = s.enclosing_function(c) else {
            return false;
        };
        *self
            .sorting
            .borrow_mut()
            .entry(f.id())
            .or_insert_with(|| sorting_network(s, f))
    }
}

/// Whether the function `f` is a sorting network (two `xor` shuffles by the same offset).
pub(super) fn sorting_network(s: &Src, f: Node) -> bool {
    let mut seen: Vec<u64> = Vec::new();
    for call in s.descendants(f, K::CallExpression) {
        let Some(name) = call_name(s, call) else {
            continue;
        };
        if !is_shuffle(name) || !name.contains("xor") {
            continue;
        }
        let args = call_args(call);
        let d = if name.ends_with("_sync") {
            args.get(2)
        } else {
            args.get(1)
        };
        if let Some(v) = d.and_then(|d| lit(s, *d)) {
            if seen.contains(&v) {
                return true;
            }
            seen.push(v);
        }
    }
    false
}

/// A warp-synchronous reduction in shared memory whose first step is 16 (`if (id < 16)
/// sums[t] += sums[t + 16];` … `if (id < 1)`) over a lane id that runs to 63 on a 64-lane
/// wavefront (computed with `warpSize` or `__lane_id()`): lanes 32–63 never reach lane 0, so
/// each row loses half its sum (SHOC's CSR vector SpMV). With a lane id bounded by a literal 32
/// (`t & 31`) the 32-thread groups reduce consistently, and a step at 32 covers 64 lanes.
pub(super) fn shared_reduction_from_16(s: &Src, f: Node, flow: &Flow, out: &mut Vec<Finding>) {
    let wave_lane = s
        .descendants(f, K::Identifier)
        .iter()
        .any(|i| matches!(s.text(*i), "warpSize" | "__lane_id"));
    if !wave_lane {
        return;
    }
    let squeeze = |n: Node| -> String { s.text(n).split_whitespace().collect() };
    // `lane < k` guarding an update of a shared slot from the slot `k` further on: (k, guard).
    let steps: Vec<(u64, Node)> = s
        .descendants(f, K::BinaryExpression)
        .into_iter()
        .filter_map(|b| {
            let (op, l, r) = parts(s, b);
            let k = flow.val(s, r)?;
            if op != "<" || !flow.lane_beyond_32(s, l) {
                return None;
            }
            let cond = s.parent(b)?;
            let stmt = s.parent(cond)?;
            if stmt.kind() != "if_statement" {
                return None;
            }
            let body = stmt.child_by_field_name("consequence")?;
            let reach = format!("+{k}]");
            s.descendants(body, K::AssignmentExpression)
                .iter()
                .any(|a| {
                    a.field(F::Left)
                        .is_some_and(|x| x.node_kind() == K::SubscriptExpression)
                        && squeeze(*a).contains(&reach)
                })
                .then_some((k, b))
        })
        .collect();
    if steps.iter().any(|(k, _)| *k >= 32) {
        return;
    }
    if let Some((_, b)) = steps.iter().find(|(k, _)| *k == 16) {
        out.push(s.ctx.finding(
            &SHUFFLE_REDUCTION_FROM_16,
            b.byte_range(),
            format!("warp-synchronous shared-memory reduction from offset 16 over a lane id that runs to 63 on a 64-lane wavefront (`{}`): lanes 32–63 never reach lane 0", s.text(*b)),
            Some("add a step at 32 (`if (lane < 32) s[t] += s[t + 32];`) or start from `warpSize / 2`".into()),
        ));
    }
}

pub(super) fn shuffle_loop(s: &Src, fo: Node, out: &mut Vec<Finding>) {
    let Some(body) = fo.field(F::Body) else {
        return;
    };
    let shuffles = s
        .descendants(body, K::CallExpression)
        .iter()
        .any(|c| call_name(s, *c).is_some_and(is_shuffle));
    if !shuffles {
        return;
    }
    let init_16 = fo.field(F::Initializer).is_some_and(|i| {
        s.descendants(i, K::InitDeclarator)
            .iter()
            .chain(s.descendants(i, K::AssignmentExpression).iter())
            .any(|d| {
                d.field(F::Value)
                    .or_else(|| d.field(F::Right))
                    .is_some_and(|v| {
                        let v = strip_parens(v);
                        lit(s, v) == Some(16)
                            || (v.node_kind() == K::BinaryExpression && {
                                let (op, l, r) = parts(s, v);
                                lit(s, l) == Some(32)
                                    && ((op == "/" && lit(s, r) == Some(2))
                                        || (op == ">>" && lit(s, r) == Some(1)))
                            })
                    })
            })
    });
    // The shuffle distances the body passes directly (`__shfl_xor(v, j)` gives `j`).
    let distances: Vec<&str> = s
        .descendants(body, K::CallExpression)
        .iter()
        .filter(|c| call_name(s, **c).is_some_and(is_shuffle))
        .flat_map(|c| call_args(*c).into_iter().skip(1))
        .map(|a| s.text(strip_parens(a)))
        .collect();
    let bound_32 = fo.field(F::Condition).is_some_and(|c| {
        let c = strip_parens(c);
        c.node_kind() == K::BinaryExpression && {
            let (op, l, r) = parts(s, c);
            (matches!(op, "<" | "!=") && lit(s, r) == Some(32))
                || (op == "<=" && lit(s, r) == Some(16))
                // The stage size of a bitonic network over 32 lanes (`for (k = 2; k <= 32;
                // k <<= 1) for (j = k >> 1; j > 0; j >>= 1) … __shfl_xor(v, j)`); a loop whose
                // own variable is the distance reaching 32 is written for 64 lanes.
                || (op == "<=" && lit(s, r) == Some(32) && !distances.contains(&s.text(l)))
        }
    });
    if init_16 || bound_32 {
        let end = body
            .prev_sibling()
            .map_or(body.start_byte(), |p| p.end_byte());
        let mut f = s.ctx.finding(&SHUFFLE_REDUCTION_FROM_16, fo.start_byte()..end, "shuffle loop sized for 32 lanes (offsets 16…1): on 64-lane wavefronts each half is reduced separately".into(), Some("start at `warpSize / 2` (or bound the loop by `warpSize`)".into()));
        if segment_guarded(s, fo, body) {
            f.settle(" — but every lane that uses a shuffled value reads from its own 32-lane segment (the loop guards `lane >= d` for shifts up, `lane < 32 - d` for shifts down, with the lane taken modulo 32): each 32-lane half of a 64-lane wavefront scans or reduces on its own, which is what the code's 32-lane warps mean; nothing to change");
        }
        out.push(f);
    }
}

/// Whether a shuffle loop's shifts stay inside 32-lane segments where their values are used:
/// every shuffle shifts up or down by the loop's variable `d`, and the body tests a lane taken
/// modulo 32 against it on the side that keeps the source lane in the segment (`if (lane >= d)`
/// for up, `lane < 32 - d` or `lane + d < 32` for down). arrayfire's segmented scan and
/// reduce-by-key over `laneid = tid % 32` are such loops.
fn segment_guarded(s: &Src, fo: Node, body: Node) -> bool {
    let Some(var) = fo.field(F::Initializer).and_then(|i| {
        let d = s
            .descendants(i, K::InitDeclarator)
            .first()
            .and_then(|d| d.field(F::Declarator))
            .or_else(|| {
                s.descendants(i, K::AssignmentExpression)
                    .first()
                    .and_then(|a| a.field(F::Left))
            })
            .or_else(|| {
                (i.node_kind() == K::AssignmentExpression)
                    .then(|| i.field(F::Left))
                    .flatten()
            })?;
        Some(s.text(d))
    }) else {
        return false;
    };
    let (mut up, mut down) = (false, false);
    for c in s.descendants(body, K::CallExpression) {
        let Some(name) = call_name(s, c).filter(|n| is_shuffle(n)) else {
            continue;
        };
        let l = name.to_ascii_lowercase();
        let dist = call_args(c).last().map(|a| s.text(strip_parens(*a)));
        if dist != Some(var) {
            return false;
        }
        match (l.contains("up"), l.contains("down")) {
            (true, false) => up = true,
            (false, true) => down = true,
            _ => return false,
        }
    }
    let lane = |n: Node| {
        let n = strip_parens(n);
        match n.node_kind() {
            K::Identifier => super::flow::lane_name(s.text(n)),
            K::BinaryExpression => {
                let (op, _, r) = parts(s, n);
                (op == "%" && lit(s, r) == Some(32)) || (op == "&" && lit(s, r) == Some(31))
            }
            _ => false,
        }
    };
    let is_var = |n: Node| s.text(strip_parens(n)) == var;
    let minus_var = |n: Node, from: u64| {
        let n = strip_parens(n);
        n.node_kind() == K::BinaryExpression && {
            let (op, l, r) = parts(s, n);
            op == "-" && lit(s, l) == Some(from) && is_var(r)
        }
    };
    let plus_var = |n: Node| {
        let n = strip_parens(n);
        n.node_kind() == K::BinaryExpression && {
            let (op, l, r) = parts(s, n);
            op == "+" && ((lane(l) && is_var(r)) || (is_var(l) && lane(r)))
        }
    };
    let (mut up_guard, mut down_guard) = (false, false);
    for b in s.descendants(body, K::BinaryExpression) {
        let (op, l, r) = parts(s, b);
        match op {
            ">=" if lane(l) && is_var(r) => up_guard = true,
            "<=" if is_var(l) && lane(r) => up_guard = true,
            "<" if lane(l) && minus_var(r, 32) => down_guard = true,
            "<=" if lane(l) && minus_var(r, 31) => down_guard = true,
            "<" if plus_var(l) && lit(s, r) == Some(32) => down_guard = true,
            _ => {}
        }
    }
    (up || down) && (!up || up_guard) && (!down || down_guard)
}
