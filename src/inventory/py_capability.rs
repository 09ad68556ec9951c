//! Compute-capability thresholds in Python (HP811): `torch.cuda.get_device_capability() >=
//! (8, 0)`, `cc[0] < 8`, `major >= 9` through variables, `get_device_properties(0).major`. On
//! ROCm the tuple comes from the gfx version (gfx90a → (9, 0), gfx942 → (9, 4), gfx1100 →
//! (11, 0)), so a test skipped by a threshold that gives every AMD GPU the answer it gives every
//! NVIDIA GPU from Ampere (8.0) on — `@skipif(cc < (8, 0))`, `if major < 8: pytest.skip()` — runs
//! on AMD as on any current GPU: nothing a porter must change (PASS, as HP402 does for C++ checks
//! that only tell old GPUs apart). The same threshold choosing a code path (`if cc[0] >= 8:
//! use_tf32()`) stays REMEDIATION: Ampere features are not all on every AMD GPU. One that tells
//! current GPUs apart (`cc >= (9, 0)` for Hopper, `cc == (9, 0)`) stays REMEDIATION.

use super::python::dotted;
use super::ts;
use super::{version_check, Out};
use crate::kinds::python::{Field as F, Kind as K, NodeExt};
use std::collections::HashMap;
use std::ops::Range;
use tree_sitter::Node;

/// What a capability expression holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    /// `(major, minor)`.
    Tuple,
    Major,
    Minor,
    /// `a * major + b * minor` (`10 * cc[0] + cc[1]`: 89 for Ada).
    Linear(u64, u64),
}

/// The capabilities AMD GPUs report (gfx9 … gfx12).
const AMD: &[(u64, u64)] = &[(9, 0), (9, 4), (9, 5), (10, 1), (10, 3), (11, 0), (12, 0)];
/// NVIDIA GPUs from Ampere on.
const NVIDIA_CURRENT: &[(u64, u64)] = &[(8, 0), (8, 6), (8, 9), (9, 0), (10, 0), (12, 0)];
/// NVIDIA GPUs from Volta on, before Ampere.
const NVIDIA_VOLTA_TURING: &[(u64, u64)] = &[(7, 0), (7, 2), (7, 5)];

/// Names assigned from `get_device_capability()`: `cc` (the tuple), `major, minor = …`.
/// A name also assigned a value computed from itself is a [`Shape::Linear`] (`sm = 10 * sm[0] +
/// sm[1]` after `sm = get_device_capability()`), or left out where the value is not read here:
/// its uses cannot be told apart.
fn names(root: Node, src: &[u8]) -> HashMap<String, Shape> {
    let mut out = HashMap::new();
    let mut other: Vec<String> = Vec::new();
    ts::each(root, &mut |n| {
        if n.node_kind() != K::Assignment {
            return;
        }
        let (Some(left), Some(right)) = (n.field(F::Left), n.field(F::Right)) else {
            return;
        };
        let capability = right.node_kind() == K::Call
            && right
                .field(F::Function)
                .and_then(|f| dotted(f, src))
                .is_some_and(|d| d.ends_with("get_device_capability"));
        if !capability {
            if left.node_kind() == K::Identifier {
                let name = ts::text(left, src).to_string();
                match linear(right, src, &out) {
                    Some(shape) => {
                        out.insert(name, shape);
                    }
                    // A value computed from the name itself (`sm = sm[0] * 100 + …` in a form
                    // not read here); a cache lookup (`cc = cache.get(i)`) is still the tuple.
                    None if mentions(right, &name, src) => other.push(name),
                    None => {}
                }
            }
            return;
        }
        if left.node_kind() == K::Identifier {
            out.insert(ts::text(left, src).to_string(), Shape::Tuple);
            return;
        }
        let parts: Vec<Node> = ts::named_children(left)
            .into_iter()
            .filter(|x| x.node_kind() == K::Identifier)
            .collect();
        for (i, x) in parts.iter().enumerate() {
            let shape = if i == 0 { Shape::Major } else { Shape::Minor };
            out.insert(ts::text(*x, src).to_string(), shape);
        }
    });
    for name in other {
        out.remove(&name);
    }
    out
}

/// Whether expression `n` names identifier `name`.
fn mentions(n: Node, name: &str, src: &[u8]) -> bool {
    let mut found = false;
    ts::each(n, &mut |x| {
        found |= x.node_kind() == K::Identifier && ts::text(x, src) == name;
    });
    found
}

/// `a * major + b * minor` (either order, `a`/`b` integer literals, 1 when absent).
fn linear(n: Node, src: &[u8], names: &HashMap<String, Shape>) -> Option<Shape> {
    let n = if n.node_kind() == K::ParenthesizedExpression {
        ts::named_children(n).into_iter().next()?
    } else {
        n
    };
    if n.node_kind() != K::BinaryOperator || ts::text(n.field(F::Operator)?, src) != "+" {
        return None;
    }
    // One term: a capability part, times a literal or not.
    let term = |t: Node| -> Option<(Shape, u64)> {
        if let Some(s) = shape(t, src, names) {
            return Some((s, 1));
        }
        if t.node_kind() != K::BinaryOperator || ts::text(t.field(F::Operator)?, src) != "*" {
            return None;
        }
        let (l, r) = (t.field(F::Left)?, t.field(F::Right)?);
        let k = |x: Node| -> Option<u64> {
            (x.node_kind() == K::Integer)
                .then(|| ts::text(x, src).parse().ok())
                .flatten()
        };
        match (shape(l, src, names), shape(r, src, names)) {
            (Some(s), None) => Some((s, k(r)?)),
            (None, Some(s)) => Some((s, k(l)?)),
            _ => None,
        }
    };
    match (term(n.field(F::Left)?)?, term(n.field(F::Right)?)?) {
        ((Shape::Major, a), (Shape::Minor, b)) | ((Shape::Minor, b), (Shape::Major, a))
            if a > b =>
        {
            Some(Shape::Linear(a, b))
        }
        _ => None,
    }
}

/// A literal's (major, minor): `(8, 9)` of `(8, 9)`, of `89` and of `890` compared with a
/// [`Shape::Linear`] capability, `(8, 0)` of `8`.
fn version_of(lit: &[u64]) -> Option<(u64, u64)> {
    Some(match *lit {
        [a, b] => (a, b),
        [m @ 0..=19] => (m, 0),
        [m @ 20..=199] => (m / 10, m % 10),
        [m] => (m / 100, (m / 10) % 10),
        _ => return None,
    })
}

/// The shape of a capability operand, `None` when it is not one.
fn shape(n: Node, src: &[u8], names: &HashMap<String, Shape>) -> Option<Shape> {
    match n.node_kind() {
        K::ParenthesizedExpression => shape(ts::named_children(n).into_iter().next()?, src, names),
        K::Identifier => names.get(ts::text(n, src)).copied(),
        K::Call => {
            let f = dotted(n.field(F::Function)?, src)?;
            f.ends_with("get_device_capability").then_some(Shape::Tuple)
        }
        K::Subscript => {
            let inner = shape(n.field(F::Value)?, src, names)?;
            match (inner, ts::text(n.field(F::Subscript)?, src)) {
                (Shape::Tuple, "0") => Some(Shape::Major),
                (Shape::Tuple, "1") => Some(Shape::Minor),
                _ => None,
            }
        }
        K::Attribute => {
            let obj = n.field(F::Object)?;
            let props = obj.node_kind() == K::Call
                && obj
                    .field(F::Function)
                    .and_then(|f| dotted(f, src))
                    .is_some_and(|d| d.ends_with("get_device_properties"));
            match ts::text(n.field(F::Attribute)?, src) {
                "major" if props => Some(Shape::Major),
                "minor" if props => Some(Shape::Minor),
                _ => None,
            }
        }
        _ => None,
    }
}

/// An integer or a tuple of one or two integers.
fn literal(n: Node, src: &[u8]) -> Option<Vec<u64>> {
    match n.node_kind() {
        K::Integer => Some(vec![ts::text(n, src).parse().ok()?]),
        K::Tuple | K::ParenthesizedExpression => {
            let v: Option<Vec<u64>> = ts::named_children(n)
                .into_iter()
                .map(|c| literal(c, src).filter(|x| x.len() == 1).map(|x| x[0]))
                .collect();
            v.filter(|x| !x.is_empty() && x.len() <= 2)
        }
        _ => None,
    }
}

/// The one answer a comparison gives every AMD GPU and every NVIDIA GPU from Ampere on, if it
/// gives one.
/// The one answer a capability comparison gives on every capability of `caps`, if they all
/// answer alike; also the comparison's operator and literal.
fn answers<'s>(
    cmp: Node,
    src: &'s [u8],
    names: &HashMap<String, Shape>,
    caps: &[(u64, u64)],
) -> Option<(bool, &'s str, Vec<u64>)> {
    let kids = ts::children(cmp);
    if kids.len() != 3 {
        return None;
    }
    let op = ts::text(kids[1], src);
    let (cap, lit, flip) = match (shape(kids[0], src, names), shape(kids[2], src, names)) {
        (Some(s), None) => (s, literal(kids[2], src)?, false),
        (None, Some(s)) => (s, literal(kids[0], src)?, true),
        _ => return None,
    };
    let value = |c: (u64, u64)| -> Option<bool> {
        let have: Vec<u64> = match (cap, lit.len()) {
            (Shape::Tuple, 2) => vec![c.0, c.1],
            (Shape::Major, 1) => vec![c.0],
            (Shape::Linear(a, b), 1) => vec![a * c.0 + b * c.1],
            _ => return None,
        };
        let (a, b) = if flip { (&lit, &have) } else { (&have, &lit) };
        Some(match op {
            "<" => a < b,
            "<=" => a <= b,
            ">" => a > b,
            ">=" => a >= b,
            "==" => a == b,
            "!=" => a != b,
            _ => return None,
        })
    };
    let first = value(*caps.first()?)?;
    caps.iter()
        .all(|c| value(*c) == Some(first))
        .then_some((first, op, lit))
}

/// The answer of a capability comparison that every AMD GPU and every NVIDIA GPU from Ampere
/// on give alike.
fn settled(cmp: Node, src: &[u8], names: &HashMap<String, Shape>) -> Option<bool> {
    let caps: Vec<(u64, u64)> = AMD.iter().chain(NVIDIA_CURRENT).copied().collect();
    answers(cmp, src, names, &caps).map(|(v, _, _)| v)
}

/// The value of a capability comparison on every AMD GPU, where they all answer alike.
fn on_amd(cmp: Node, src: &[u8], names: &HashMap<String, Shape>) -> Option<bool> {
    let (v, op, lit) = answers(cmp, src, names, AMD)?;
    // A threshold at Ada or later (`>= (8, 9)`, `sm >= 89`, `>= (9, 0)`) selects features AMD
    // GPUs may lack (FP8, TMA, wgmma), and `==`/`!=` name one NVIDIA generation (`is_sm80`):
    // those stay a decision, not a check.
    (!(version_of(&lit).is_some_and(|v| v >= (8, 9)) || matches!(op, "==" | "!="))).then_some(v)
}

/// Whether a path is test code: a `tests`/`test`/`testing` folder, `test_*.py`, `*_test.py`,
/// `conftest.py`.
pub fn is_test_path(path: &str) -> bool {
    let mut parts = path.split('/');
    let file = parts.next_back().unwrap_or("");
    parts.any(|d| matches!(d, "tests" | "test" | "testing"))
        || file.starts_with("test_")
        || file.ends_with("_test.py")
        || file == "conftest.py"
}

/// Whether comparison `n` is (part of) a guard that fails on the GPUs it rules out: an
/// `assert`'s condition, or the condition of an `if` whose body fails.
fn guards(n: Node, src: &[u8]) -> bool {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        match p.node_kind() {
            K::AssertStatement => return ts::named_children(p).first() == Some(&cur),
            K::IfStatement | K::ElifClause => {
                return p.field(F::Condition) == Some(cur)
                    && p.field(F::Consequence)
                        .is_some_and(|b| super::platform::failure_word(b, src).is_some());
            }
            K::BooleanOperator | K::NotOperator | K::ParenthesizedExpression => cur = p,
            _ => return false,
        }
    }
    false
}

/// Whether `n` decides an `if` (or `elif`) with no other arm, as its condition or an operand
/// of the condition's `and` chain: where `n` is false, the body is skipped and nothing else
/// runs in its place.
fn skipped_body(n: Node) -> bool {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        match p.node_kind() {
            K::BooleanOperator if p.field(F::Operator).is_some_and(|o| o.kind() == "and") => {
                cur = p
            }
            K::ParenthesizedExpression => cur = p,
            K::IfStatement => {
                return p.field(F::Condition) == Some(cur) && p.field(F::Alternative).is_none();
            }
            _ => return false,
        }
    }
    false
}

/// Whether `n` is the condition of an `if` whose body only sets PyTorch's precision switches
/// (`torch.backends.cuda.matmul.allow_tf32 = True`, `torch.backends.cudnn.allow_tf32`,
/// `allow_bf16_reduced_precision_reduction`, `torch.set_float32_matmul_precision(…)`): sam2's
/// "turn on tfloat32 for Ampere GPUs". ROCm builds of PyTorch accept the same switches, so the
/// arm every AMD GPU takes needs nothing.
fn precision_switches(n: Node, src: &[u8]) -> bool {
    let Some(p) = n.parent() else { return false };
    if !matches!(p.node_kind(), K::IfStatement | K::ElifClause) || p.field(F::Condition) != Some(n)
    {
        return false;
    }
    let Some(body) = p.field(F::Consequence) else {
        return false;
    };
    let stmts: Vec<Node> = ts::named_children(body)
        .into_iter()
        .filter(|c| c.node_kind() != K::Comment)
        .collect();
    !stmts.is_empty()
        && stmts.iter().all(|st| {
            let Some(e) = ts::named_children(*st).into_iter().next() else {
                return false;
            };
            let name = match e.node_kind() {
                K::Assignment => e.field(F::Left).and_then(|l| dotted(l, src)),
                K::Call => e.field(F::Function).and_then(|f| dotted(f, src)),
                _ => None,
            };
            name.is_some_and(|d| {
                d.starts_with("torch.backends.")
                    && (d.ends_with(".allow_tf32") || d.ends_with("_reduced_precision_reduction"))
                    || d == "torch.set_float32_matmul_precision"
            })
        })
}

/// Capability comparisons choosing a code path that every AMD GPU and every NVIDIA GPU from
/// Ampere on answer alike, where that choice needs nothing: in test code (dgl's `if
/// torch.cuda.get_device_capability()[0] < 7:` choosing the expected order of results, which
/// mirrors the library's own `>= 70` gate: the test takes the arm the suite runs with on current
/// GPUs), and in a guard that fails on old GPUs only (`assert major >= 7, "needs Volta"`: every
/// current GPU passes it). PASS, with why. Twin: the same threshold choosing a library code path
/// (`if cc[0] >= 8: use_tf32()`) is [`amd_settled_ranges`]' check.
pub fn settled_path_ranges(root: Node, src: &[u8], test: bool) -> Vec<(Range<usize>, String)> {
    let names = names(root, src);
    let mut out = Vec::new();
    ts::each(root, &mut |n| {
        if n.node_kind() != K::ComparisonOperator || decides_a_skip(n, src) {
            return;
        }
        let guard = guards(n, src);
        let precision = precision_switches(n, src);
        // `==`/`!=` name one NVIDIA generation (`is_sm80`): the project's set of such flags is
        // a decision, as [`on_amd`] says, unless the generation is older than Ampere (`== (7,
        // 5)`: no current GPU, NVIDIA's or AMD's, is it) and the test only guards or skips code
        // written for it (a flag is read elsewhere, beside its siblings).
        let caps: Vec<(u64, u64)> = AMD.iter().chain(NVIDIA_CURRENT).copied().collect();
        let answer = answers(n, src, &names, &caps);
        let old_generation = answer.as_ref().is_some_and(|(_, op, lit)| {
            matches!(*op, "==" | "!=") && version_of(lit).is_some_and(|v| v < (8, 0))
        });
        let settled = answer
            .filter(|(_, op, _)| {
                !matches!(*op, "==" | "!=") || old_generation && (guard || skipped_body(n))
            })
            .map(|(v, _, _)| v);
        // A test that tells apart only GPUs older than Volta (`major < 7`, `cc >= (5, 0)`):
        // every GPU of the last eight years answers it alike, AMD's included.
        let legacy = {
            let caps: Vec<(u64, u64)> = caps.iter().chain(NVIDIA_VOLTA_TURING).copied().collect();
            answers(n, src, &names, &caps).is_some()
        };
        // False on every current GPU, as the condition of an `if` with no other arm: its body
        // is code for GPUs older than Ampere only (eg3d's Volta-only cuBLAS shortcut under `cc <
        // (8, 0)`); every current GPU, AMD's included, runs what follows.
        let old_only = settled == Some(false) && skipped_body(n);
        if !(test || guard || precision || legacy || old_only) {
            return;
        }
        if let Some(v) = settled {
            let what = if precision {
                "the arm only sets PyTorch's TF32/reduced-precision switches, which ROCm builds of PyTorch accept"
            } else if guard {
                "the guard lets every current GPU through"
            } else if legacy && !test {
                "it tells apart only GPUs older than Volta"
            } else if old_only && !test {
                "the `if` body is for GPUs older than Ampere only"
            } else {
                "the test takes the arm its suite runs with on current GPUs"
            };
            out.push((
                n.byte_range(),
                format!(
                    "`{}` is {v} on every AMD GPU (gfx9 → 9.x … gfx12 → 12.x) as on every NVIDIA GPU from Ampere on: {what} (nothing to change)",
                    ts::text(n, src)
                ),
            ));
        }
    });
    out
}

/// Capability comparisons choosing a code path that every AMD GPU answers alike (`cc[0] >= 8`
/// is true on gfx9 … gfx12): the ROCm build always takes one arm, written for some NVIDIA GPUs;
/// a check that what it enables holds on the target (UNKNOWN, as HP402 says of the C++ twin),
/// not a change. Skips are [`settled_ranges`]', and what [`settled_path_ranges`] settles
/// (`settled`) is left out.
pub fn amd_settled_ranges(
    root: Node,
    src: &[u8],
    settled: &[(Range<usize>, String)],
) -> Vec<(Range<usize>, String)> {
    let names = names(root, src);
    let mut out = Vec::new();
    ts::each(root, &mut |n| {
        if n.node_kind() != K::ComparisonOperator
            || decides_a_skip(n, src)
            || settled.iter().any(|(r, _)| *r == n.byte_range())
        {
            return;
        }
        if let Some(v) = on_amd(n, src, &names) {
            out.push((
                n.byte_range(),
                format!(
                    "`{}` is {v} on every AMD GPU (ROCm reports gfx9 → 9.x … gfx12 → 12.x): the ROCm build always takes the arm written for the NVIDIA GPUs this test {}; check that what that arm enables exists on the target",
                    ts::text(n, src),
                    if v { "selects" } else { "excludes" }
                ),
            ));
        }
    });
    out
}

/// Capability comparisons stored in a name (`has_sm_8_0 = major >= 8`, `use_fp8 = cc >= (8,
/// 9)`) whose every read `ignored` says the ROCm build skips or does not need (an operand of
/// `SYSTEM == "cuda" and has_sm_8_0`): what they say never decides anything there. Each
/// comparison's range, with why.
pub fn stored_tests_rocm_ignores(
    root: Node,
    src: &[u8],
    ignored: &dyn Fn(usize) -> bool,
) -> Vec<(Range<usize>, String)> {
    let names = names(root, src);
    if names.is_empty() {
        return Vec::new();
    }
    let mut stored: Vec<(Range<usize>, String, Range<usize>)> = Vec::new();
    ts::each(root, &mut |n| {
        if n.node_kind() != K::Assignment {
            return;
        }
        let (Some(l), Some(r)) = (n.field(F::Left), n.field(F::Right)) else {
            return;
        };
        let reads_capability = ts::named_children(r).into_iter().any(|c| {
            let c = if c.node_kind() == K::Subscript {
                c.field(F::Value).unwrap_or(c)
            } else {
                c
            };
            c.node_kind() == K::Identifier && names.contains_key(ts::text(c, src))
        });
        if l.node_kind() == K::Identifier
            && r.node_kind() == K::ComparisonOperator
            && (reads_capability || shape(r, src, &names).is_some())
        {
            stored.push((r.byte_range(), ts::text(l, src).to_string(), l.byte_range()));
        }
    });
    let mut out = Vec::new();
    for (cmp, name, lhs) in stored {
        let mut reads = Vec::new();
        ts::each(root, &mut |n| {
            if n.node_kind() == K::Identifier
                && ts::text(n, src) == name
                && !is_assigned(n)
                && n.byte_range() != lhs
            {
                reads.push(n.start_byte());
            }
        });
        if !reads.is_empty() && reads.iter().all(|b| ignored(*b)) {
            out.push((
                cmp,
                format!("kept in `{name}`, which the ROCm build reads only where it is skipped or decides nothing"),
            ));
        }
    }
    out
}

/// Whether an identifier is the target of an assignment (`x = …`, `x: int = …`).
fn is_assigned(n: Node) -> bool {
    n.parent().is_some_and(|p| {
        p.node_kind() == K::Assignment && p.field(F::Left).is_some_and(|l| l.id() == n.id())
    })
}

/// Whether `n` is (part of) the condition of a skip: a `skipif`/`skipUnless` mark, or an `if`
/// whose body skips the test.
fn decides_a_skip(n: Node, src: &[u8]) -> bool {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        match p.node_kind() {
            K::Call => {
                let f = p
                    .field(F::Function)
                    .and_then(|f| dotted(f, src))
                    .unwrap_or_default();
                let last = f.rsplit('.').next().unwrap_or("").to_ascii_lowercase();
                if matches!(last.as_str(), "skipif" | "skipunless") {
                    return true;
                }
            }
            K::IfStatement | K::ElifClause => {
                return p.field(F::Condition) == Some(cur)
                    && p.field(F::Consequence)
                        .is_some_and(|b| super::platform::skips(b, src));
            }
            K::Block | K::Module | K::ExpressionStatement | K::Assignment => return false,
            _ => {}
        }
        cur = p;
    }
    false
}

/// Skips by a capability threshold that skips no current GPU, with why.
pub fn settled_ranges(root: Node, src: &[u8]) -> Vec<(Range<usize>, String)> {
    let names = names(root, src);
    let mut out = Vec::new();
    ts::each(root, &mut |n| {
        if n.node_kind() != K::ComparisonOperator || !decides_a_skip(n, src) {
            return;
        }
        if let Some(v) = settled(n, src, &names) {
            out.push((
                n.byte_range(),
                format!(
                    "the skip on `{}` is {v} on every AMD GPU (gfx9 → 9.x … gfx12 → 12.x) as on every NVIDIA GPU from Ampere on: nothing to change",
                    ts::text(n, src)
                ),
            ));
        }
    });
    out
}

/// What a skip every AMD GPU answers alike says (the project-wide fold reads it).
pub const AMD_SKIP: &str =
    "on every AMD GPU (ROCm reports gfx9 → 9.x … gfx12 → 12.x), so the test runs or is skipped alike on all of them";

/// Skips by a capability threshold that every AMD GPU answers alike but current NVIDIA GPUs do
/// not (`skipif(cc[0] < 9)`: Ampere skips, every AMD GPU runs the test): on the ROCm build the
/// test runs (or is skipped) on every AMD GPU. Nothing in the mark needs changing; whether what
/// the test exercises holds on the target is a run of the suite there (a check, UNKNOWN).
pub fn amd_skip_ranges(root: Node, src: &[u8]) -> Vec<(Range<usize>, String)> {
    let names = names(root, src);
    let mut out = Vec::new();
    ts::each(root, &mut |n| {
        if n.node_kind() != K::ComparisonOperator
            || !decides_a_skip(n, src)
            || settled(n, src, &names).is_some()
        {
            return;
        }
        if let Some((v, _, _)) = answers(n, src, &names, AMD) {
            out.push((
                n.byte_range(),
                format!(
                    "`{}` in a skip is {v} {AMD_SKIP}: the mark needs no change; run the test on the target to see whether what it exercises holds there",
                    ts::text(n, src),
                ),
            ));
        }
    });
    out
}

/// `cc = torch.cuda.get_device_capability()` (or `major, minor = …`) then `if cc[0] >= 8:` /
/// `if major >= 8:`: a capability threshold through a variable.
pub fn through_variables(out: &mut Out, root: Node, src: &[u8]) {
    let names = names(root, src);
    if names.is_empty() {
        return;
    }
    ts::each(root, &mut |n| {
        if n.node_kind() != K::ComparisonOperator {
            return;
        }
        let uses = ts::named_children(n).into_iter().any(|c| {
            let c = if c.node_kind() == K::Subscript {
                c.field(F::Value).unwrap_or(c)
            } else {
                c
            };
            c.node_kind() == K::Identifier && names.contains_key(ts::text(c, src))
        });
        if uses {
            out.push(
                &version_check::DEVICE_CAPABILITY_THRESHOLD,
                n.byte_range(),
                format!(
                    "threshold on a compute capability held in a variable (`{}`): on ROCm the tuple comes from the gfx architecture",
                    ts::text(n, src)
                ),
                Some("test torch.cuda.get_device_properties(0).gcnArchName or the feature itself".into()),
            );
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settled_texts(src: &str) -> Vec<String> {
        let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
        settled_ranges(tree.root_node(), src.as_bytes())
            .into_iter()
            .map(|(r, _)| src[r].to_string())
            .collect()
    }

    /// lmdeploy's kernel choices: `device_cap[0] >= 8` picks an arm every AMD GPU takes (a
    /// check). Twins: a Hopper gate `cc >= (9, 0)` (features AMD may lack: a decision),
    /// `cc == (9, 0)` (gfx90a only) and a minor test decide nothing alike.
    #[test]
    fn code_paths_every_amd_gpu_takes_alike_are_checks() {
        let texts = |src: &str| -> Vec<String> {
            let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
            amd_settled_ranges(tree.root_node(), src.as_bytes(), &[])
                .into_iter()
                .map(|(r, _)| src[r].to_string())
                .collect()
        };
        let src = "cc = torch.cuda.get_device_capability()\nif cc[0] >= 8:\n    use_tf32()\nif cc >= (9, 0):\n    hopper()\nif cc == (9, 0):\n    x()\nif cc[1] >= 4:\n    y()\n";
        assert_eq!(texts(src), ["cc[0] >= 8"]);
    }

    #[test]
    fn old_gpu_skips_settle_and_hopper_gates_do_not() {
        let src = "cc = torch.cuda.get_device_capability()\nmajor, minor = torch.cuda.get_device_capability(0)\na = skipif(cc < (8, 0))\nif major < 8:\n    pytest.skip()\nc = unittest.skipUnless(torch.cuda.get_device_capability()[0] >= 7, \"\")\nd = skipif(not torch.cuda.get_device_properties(0).major >= 8)\ne = skipif((7, 5) > cc)\n";
        assert_eq!(
            settled_texts(src),
            [
                "cc < (8, 0)",
                "major < 8",
                "torch.cuda.get_device_capability()[0] >= 7",
                "torch.cuda.get_device_properties(0).major >= 8",
                "(7, 5) > cc"
            ]
        );
        // Twins: Hopper-only, an exact capability, the minor, an unrelated number.
        let src = "cc = torch.cuda.get_device_capability()\nmajor, minor = torch.cuda.get_device_capability(0)\na = skipif(cc >= (9, 0) and cc < (10, 0))\nb = skipif(cc == (9, 0))\nc = skipif(minor >= 6)\nd = skipif(major >= 9)\ne = skipif(n < 8)\nf = skipif(cc >= (8, 9))\n";
        assert!(settled_texts(src).is_empty(), "{:?}", settled_texts(src));
        // The same old-GPU threshold choosing a code path, not a skip.
        let src = "cc = torch.cuda.get_device_capability()\nif cc[0] >= 8:\n    use_tf32()\nx = cc < (8, 0)\nif cc < (8, 0):\n    return\n";
        assert!(settled_texts(src).is_empty(), "{:?}", settled_texts(src));
    }

    /// sam2: `major >= 8` whose arm only turns on PyTorch's TF32 switches needs nothing on
    /// ROCm (settled). Twin: the same threshold choosing a library path (`use_flash_attn =`)
    /// stays a check.
    #[test]
    fn thresholds_that_only_set_precision_switches_are_settled() {
        let src = "import torch\nif torch.cuda.get_device_properties(0).major >= 8:\n    torch.backends.cuda.matmul.allow_tf32 = True\n    torch.backends.cudnn.allow_tf32 = True\nuse_flash = torch.cuda.get_device_properties(0).major >= 8\n";
        let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
        let got: Vec<String> = settled_path_ranges(tree.root_node(), src.as_bytes(), false)
            .into_iter()
            .map(|(r, why)| format!("{} | {why}", &src[r]))
            .collect();
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(got[0].starts_with("torch.cuda.get_device_properties(0).major >= 8 |"));
        assert!(got[0].contains("TF32"), "{got:?}");
    }

    /// Code paths only GPUs older than Ampere take: sam2's `old_gpu = major < 7` (pre-Volta
    /// only), eg3d's `if … and cc < (8, 0):` with no other arm (a Volta-only shortcut), a `==
    /// (7, 5)` Turing guard. Twins stay open: `cc < (8, 0)` with an `else` (AMD runs the else
    /// arm's Ampere feature), `major >= 8` chosen in an assignment, an A100 tuning table (`==
    /// (8, 0)`), a Hopper gate.
    #[test]
    fn code_paths_of_old_gpus_only_are_settled() {
        let got = |src: &str| -> Vec<String> {
            let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
            settled_path_ranges(tree.root_node(), src.as_bytes(), false)
                .into_iter()
                .map(|(r, _)| src[r].to_string())
                .collect()
        };
        let src = "import torch\nold_gpu = torch.cuda.get_device_properties(0).major < 7\ndef f(w, x):\n    if w == 1 and torch.cuda.get_device_capability(x.device) < (8, 0):\n        return shortcut(w, x)\n    return regular(w, x)\ncc = torch.cuda.get_device_capability()\nif cc == (7, 5) and bf16:\n    raise ValueError('Turing')\n";
        assert_eq!(
            got(src),
            [
                "torch.cuda.get_device_properties(0).major < 7",
                "torch.cuda.get_device_capability(x.device) < (8, 0)",
                "cc == (7, 5)"
            ]
        );
        let src = "import torch\ncc = torch.cuda.get_device_capability()\nif cc < (8, 0):\n    a()\nelse:\n    flash()\nuse_flash = cc[0] >= 8\nif cc == (8, 0):\n    tune_a100()\nif cc >= (9, 0):\n    hopper()\nif not cc < (8, 0):\n    b()\n";
        assert!(got(src).is_empty(), "{:?}", got(src));
    }

    /// SpargeAttn's `sm = 10 * sm[0] + sm[1]` then `if sm >= 89:` (the FP8 kernel): the name
    /// holds `10 * major + minor`, not the tuple, so the threshold is Ada's and stays a decision.
    /// Twin: `sm >= 70` on the same name is an old-GPU test (settled); a name also set to a
    /// value computed from itself that is not read here is no capability; a cache lookup is.
    #[test]
    fn a_linear_capability_is_read_as_its_number() {
        let src = "import torch\nsm = torch.cuda.get_device_capability()\nsm = 10 * sm[0] + sm[1]\nif sm >= 89:\n    fp8()\nif sm >= 70:\n    volta()\ncc = torch.cuda.get_device_capability()\ncc = sum(cc)\nif cc >= (9, 0):\n    x()\nc2 = cache.get(0)\nc2 = torch.cuda.get_device_capability()\n";
        let tree = ts::parse(ts::Lang::Python, src.as_bytes()).unwrap();
        let (root, b) = (tree.root_node(), src.as_bytes());
        let settled: Vec<String> = settled_path_ranges(root, b, false)
            .into_iter()
            .map(|(r, _)| src[r].to_string())
            .collect();
        assert_eq!(settled, ["sm >= 70"]);
        let checks: Vec<String> = amd_settled_ranges(root, b, &[])
            .into_iter()
            .map(|(r, _)| src[r].to_string())
            .collect();
        assert_eq!(
            checks,
            ["sm >= 70"],
            "Ada's threshold is a decision, not a check"
        );
        let names = names(root, b);
        assert_eq!(names.get("sm"), Some(&Shape::Linear(10, 1)));
        assert!(!names.contains_key("cc"));
        assert_eq!(names.get("c2"), Some(&Shape::Tuple));
    }

    /// text-generation-inference's `has_sm_8_0 = major >= 8`, read only as `SYSTEM == "cuda" and
    /// has_sm_8_0`: the ROCm build never needs its value. Twin: a stored test the ROCm build reads
    /// on its own (`if use:`) stays open.
    #[test]
    fn a_stored_capability_test_rocm_never_reads_is_pass() {
        let src = "import torch\nSYSTEM = \"rocm\" if torch.version.hip else \"cuda\"\nmajor, minor = torch.cuda.get_device_capability()\nhas_sm_8_0 = major >= 8\nif SYSTEM == \"cuda\" and has_sm_8_0:\n    pass\nuse = major >= 9\nif use:\n    pass\n";
        let open: Vec<u32> = crate::inventory::scan_bytes(
            "x.py",
            crate::inventory::kind::FileKind::Python,
            src.as_bytes(),
        )
        .into_iter()
        .filter(|f| f.rule == "HP811" && f.status != crate::gate::Status::Pass)
        .map(|f| f.line)
        .collect();
        assert_eq!(open, [7]);
    }
}
