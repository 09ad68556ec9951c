//! Data flow for the warp-size rules within one function: which variables hold thread
//! indices, lane ids and warp ids, and the rules that need it (lane/warp arithmetic with 32,
//! per-warp arrays; the 32-bit ballot masks are in `ballots.rs`).

use super::extent_names::{axis_extent_name, memory_extent_name, thread_count_str};
use super::LANE_WARP_ARITHMETIC;
use crate::finding::Finding;
use crate::kinds::cuda::{Field as F, Kind as K, NodeExt};
use crate::model::syntax::{self, call_name, int_value, Src};
use std::collections::{HashMap, HashSet};
use tree_sitter::Node;

/// What the function's variables hold: thread-derived values, lane ids, warp ids.
pub(super) struct Flow<'a> {
    thread: HashSet<&'a str>,
    lane: HashSet<&'a str>,
    warp: HashSet<&'a str>,
    /// Lane variables whose every assignment is bounded to 0–31 (`t % 32`, `t & 31`): as an
    /// index into a 32-slot array they stay in bounds on 64-lane wavefronts too.
    bounded_lane: HashSet<&'a str>,
    /// Lane variables with some assignment not bounded by a literal 32 (`% warpSize`,
    /// `% WARP_SIZE`, `__lane_id()`).
    unbounded_lane: HashSet<&'a str>,
    /// File constants that hold 32, 31 or 5 under a name that does not say "warp size"
    /// (`static const int WS = 32;`): their uses in lane arithmetic count as the literal.
    named: HashMap<&'a str, u64>,
    /// [`Flow::val`] of the binary expressions asked so far, by node id: a chain `1 + 1 + …`
    /// asked once per `+` would otherwise be read again down to its end each time.
    vals: std::cell::RefCell<HashMap<usize, Option<u64>>>,
}

const THREAD_NAMES: &[&str] = &[
    "tid",
    "ltid",
    "thread_id",
    "threadId",
    "threadid",
    "local_tid",
    "tidx",
    "t_id",
    "thread_idx",
    "threadIndex",
];

pub(super) fn lane_name(n: &str) -> bool {
    let l = n.to_ascii_lowercase();
    // A quantity per lane or its log2 (b40c's `LOG_PARTIALS_PER_LANE`, an enum constant behind
    // `PARTIALS_PER_LANE = 1 << LOG_PARTIALS_PER_LANE`) counts something; it is no lane id.
    if l.contains("per_lane") || l.contains("perlane") || l.starts_with("log") {
        return false;
    }
    // A suffix names a lane where it starts a word: `src_lane`, `srcLane`, `lane_id`, not the
    // tail of another word (`plane`, `nPlanes`' `plane_id`).
    let word_end = |suffix: &str| {
        l.ends_with(suffix) && {
            let at = n.len() - suffix.len();
            at == 0 || {
                let b = n.as_bytes();
                b[at - 1] == b'_' || b[at].is_ascii_uppercase() || !b[at - 1].is_ascii_alphabetic()
            }
        }
    };
    l.starts_with("lane")
        || word_end("lane")
        || word_end("lane_id")
        || word_end("laneid")
        || word_end("lane_idx")
}
fn warp_name(n: &str) -> bool {
    let l = n.to_ascii_lowercase();
    matches!(
        l.as_str(),
        "warp"
            | "wid"
            | "warpid"
            | "warp_id"
            | "warpidx"
            | "warp_idx"
            | "warp_index"
            | "warpindex"
            | "global_warp_id"
            | "gwarp"
            | "warp_num"
            | "warpnum"
    ) || (l.ends_with("warp_id") || l.ends_with("warpid"))
}

impl<'a> Flow<'a> {
    pub(super) fn of(s: &Src<'a>, f: Node<'a>, named: &HashMap<&'a str, u64>) -> Flow<'a> {
        let mut flow = Flow {
            thread: HashSet::new(),
            lane: HashSet::new(),
            warp: HashSet::new(),
            bounded_lane: HashSet::new(),
            unbounded_lane: HashSet::new(),
            named: named.clone(),
            vals: Default::default(),
        };
        // The function's own constants hide the file's: `constexpr int GROUP_SIZE = 16;` in
        // one kernel is 16 there, whatever `GROUP_SIZE = 32` of another kernel says.
        if f.node_kind() == K::FunctionDefinition {
            for (name, v) in super::tiles::local_constants(s, f) {
                match v {
                    Some(v @ (32 | 31 | 5)) if super::named_constant_name(name) => {
                        flow.named.insert(name, v);
                    }
                    _ => {
                        flow.named.remove(name);
                    }
                }
            }
        }
        // Parameters named like thread or lane ids count from the start.
        for id in s.descendants(f, K::Identifier) {
            let t = s.text(id);
            if THREAD_NAMES.contains(&t) {
                flow.thread.insert(t);
            }
            if lane_name(t) {
                flow.lane.insert(t);
            }
            if warp_name(t) {
                flow.warp.insert(t);
            }
        }
        let mut assigns: Vec<(&'a str, Node<'a>)> = Vec::new();
        for d in s.descendants(f, K::InitDeclarator) {
            if let (Some(n), Some(v)) = (
                d.field(F::Declarator)
                    .and_then(|x| syntax::declarator_name(s, x)),
                d.field(F::Value),
            ) {
                assigns.push((n, v));
            }
        }
        for a in s.descendants(f, K::AssignmentExpression) {
            if a.field(F::Operator).is_some_and(|o| s.text(o) == "=") {
                if let (Some(l), Some(r)) = (a.field(F::Left), a.field(F::Right)) {
                    if l.node_kind() == K::Identifier {
                        assigns.push((s.text(l), r));
                    }
                }
            }
        }
        for _ in 0..3 {
            for (name, v) in &assigns {
                if flow.lane_expr(s, *v) {
                    flow.lane.insert(name);
                    if flow.bounded_by_32(s, *v) {
                        flow.bounded_lane.insert(name);
                    } else {
                        flow.unbounded_lane.insert(name);
                    }
                }
                if flow.warp_expr(s, *v) {
                    flow.warp.insert(name);
                }
                if flow.index_expr(s, *v) {
                    flow.thread.insert(name);
                }
            }
        }
        // A loop index that strides by the block or grid (`for (int i = threadIdx.x; i < n;
        // i += blockDim.x)`) names elements, not threads: `i / 32` and `i % 32` there split a
        // tile's elements into rows and columns (k2's mutual-information kernel over a 32x32
        // tile), whatever the wavefront size.
        for l in s.descendants(f, K::ForStatement) {
            let Some(u) = l.field(F::Update) else {
                continue;
            };
            let text: String = s.text(u).split_whitespace().collect();
            let stride = text.contains("blockDim") || text.contains("gridDim");
            let var = text
                .split_once("+=")
                .map(|(v, _)| v)
                .or_else(|| text.split_once('=').map(|(v, _)| v))
                .filter(|v| {
                    !v.is_empty() && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                });
            if let (true, Some(v)) = (stride, var) {
                if let Some(name) = flow.thread.iter().copied().find(|t| *t == v) {
                    flow.thread.remove(name);
                }
            }
            // The same over a warp's items: `for (b = lane; b < n; b += WARP_SIZE)` (MGARD's
            // bitplane loops) counts items past the warp's width on any GPU; `1 << b` there is
            // a data mask, not a lane mask.
            let by_warp = text.split_once("+=").is_some_and(|(_, step)| {
                step == "32" || step == "warpSize" || step.to_ascii_uppercase().contains("WARP")
            });
            if let (true, Some(v)) = (by_warp, var) {
                if let Some(name) = flow.lane.iter().copied().find(|t| *t == v) {
                    flow.lane.remove(name);
                    flow.bounded_lane.remove(name);
                    flow.unbounded_lane.remove(name);
                }
            }
        }
        flow
    }
    /// A thread index: `threadIdx.x`, `blockIdx.x * blockDim.x + threadIdx.x`, sums of those;
    /// not element offsets scaled by constants (`4 * threadIdx.x` is a data index).
    pub(super) fn index_expr(&self, s: &Src, n: Node) -> bool {
        let n = strip_parens(n);
        match n.node_kind() {
            K::FieldExpression => n
                .field(F::Argument)
                .is_some_and(|a| s.text(a) == "threadIdx"),
            K::Identifier => self.thread.contains(s.text(n)),
            K::CastExpression => n.field(F::Value).is_some_and(|v| self.index_expr(s, v)),
            K::BinaryExpression => {
                let (op, l, r) = parts(s, n);
                let grid = |x: Node| {
                    syntax::identifiers(s, x)
                        .iter()
                        .any(|i| matches!(*i, "blockIdx" | "blockDim" | "gridDim"))
                };
                match op {
                    "+" => {
                        (self.index_expr(s, l) && (grid(r) || self.index_expr(s, r)))
                            || (self.index_expr(s, r) && grid(l))
                    }
                    _ => false,
                }
            }
            _ => false,
        }
    }
    /// A thread index, or a variable holding a lane or warp id.
    pub(super) fn thread_expr(&self, s: &Src, n: Node) -> bool {
        let n = strip_parens(n);
        self.index_expr(s, n)
            || (n.node_kind() == K::Identifier
                && (self.lane.contains(s.text(n)) || self.warp.contains(s.text(n))))
    }
    pub(super) fn lane_expr(&self, s: &Src, n: Node) -> bool {
        let n = strip_parens(n);
        match n.node_kind() {
            K::Identifier => self.lane.contains(s.text(n)),
            K::CallExpression => {
                call_name(s, n).is_some_and(|c| c.to_ascii_lowercase().contains("lane"))
            }
            K::BinaryExpression => {
                let (op, l, r) = parts(s, n);
                (op == "%"
                    && (self.val(s, r) == Some(32) || is_warpsize(s, r))
                    && self.thread_expr(s, l))
                    || (op == "&"
                        && (((self.val(s, r) == Some(31) || is_warpsize_minus_1(s, r))
                            && self.thread_expr(s, l))
                            || (self.val(s, l) == Some(31) && self.thread_expr(s, r))))
            }
            _ => false,
        }
    }
    /// `x % 32` or `x & 31` with a literal (or a constant of another name), or a lane variable
    /// assigned only such values: at most 31 whatever the wavefront size.
    pub(super) fn bounded_by_32(&self, s: &Src, n: Node) -> bool {
        let n = strip_parens(n);
        match n.node_kind() {
            K::Identifier => {
                let t = s.text(n);
                self.bounded_lane.contains(t) && !self.unbounded_lane.contains(t)
            }
            K::BinaryExpression => {
                let (op, l, r) = parts(s, n);
                (op == "%" && self.val(s, r) == Some(32))
                    || (op == "&" && (self.val(s, r) == Some(31) || self.val(s, l) == Some(31)))
            }
            _ => false,
        }
    }
    /// Whether the function sets a lane id bounded to 0–31 (`lane = threadIdx.x & 31`).
    pub(super) fn has_bounded_lane(&self) -> bool {
        self.bounded_lane
            .iter()
            .any(|l| !self.unbounded_lane.contains(l))
    }
    /// An index that reaches past slot 31 on a 64-lane wavefront: a lane id not bounded by a
    /// literal 32 (`% warpSize`, `% WARP_SIZE`, `__lane_id()`, a lane parameter).
    pub(super) fn lane_beyond_32(&self, s: &Src, n: Node) -> bool {
        self.lane_expr(s, n) && !self.bounded_by_32(s, n)
    }
    /// The value of a literal, of a file constant in [`Flow::named`], or of simple arithmetic
    /// on those (`LANES - 1`, `WS / 2`).
    pub(super) fn val(&self, s: &Src, n: Node) -> Option<u64> {
        let n = strip_parens(n);
        match n.node_kind() {
            K::NumberLiteral => lit(s, n),
            K::Identifier => self.named.get(s.text(n)).copied(),
            K::BinaryExpression => {
                if let Some(v) = self.vals.borrow().get(&n.id()) {
                    return *v;
                }
                let (op, l, r) = parts(s, n);
                // The operator first: `t & 31 & 31 …` is no value, whatever its operands.
                let v = if matches!(op, "-" | "+" | "*" | "/") {
                    self.val(s, l)
                        .zip(self.val(s, r))
                        .and_then(|(a, b)| match op {
                            "-" => a.checked_sub(b),
                            "+" => a.checked_add(b),
                            "*" => a.checked_mul(b),
                            _ => a.checked_div(b),
                        })
                } else {
                    None
                };
                self.vals.borrow_mut().insert(n.id(), v);
                v
            }
            _ => None,
        }
    }
    /// Whether an expression uses a lane id or a thread index anywhere inside
    /// (`(lane + (1 << l)) & 31`, a butterfly partner).
    pub(super) fn mentions_lane(&self, s: &Src, n: Node) -> bool {
        let n = strip_parens(n);
        n.node_kind() == K::BinaryExpression
            && s.descendants(n, K::Identifier).iter().any(|i| {
                let t = s.text(*i);
                self.lane.contains(t) || self.thread.contains(t)
            })
    }
    pub(super) fn warp_expr(&self, s: &Src, n: Node) -> bool {
        let n = strip_parens(n);
        if n.node_kind() != K::BinaryExpression {
            return false;
        }
        let (op, l, r) = parts(s, n);
        (op == "/" && self.val(s, r) == Some(32) && self.thread_expr(s, l))
            || (op == ">>" && self.val(s, r) == Some(5) && self.thread_expr(s, l))
    }
}

/// `warpSize` itself (`threadIdx.x % warpSize` is a lane id on every target).
fn is_warpsize(s: &Src, n: Node) -> bool {
    let n = strip_parens(n);
    n.node_kind() == K::Identifier && s.text(n) == "warpSize"
}

/// `warpSize - 1`.
pub(super) fn is_warpsize_minus_1(s: &Src, n: Node) -> bool {
    let n = strip_parens(n);
    n.node_kind() == K::BinaryExpression && {
        let (op, l, r) = parts(s, n);
        op == "-" && is_warpsize(s, l) && lit(s, r) == Some(1)
    }
}

/// A count of warps by its name: `nwarps`, `num_warps`, `kNumWarps`, `WARPS_PER_BLOCK`
/// (`32 * nwarps` is a thread count or a shared-memory size built for 32 lanes).
fn warp_count(s: &Src, n: Node) -> bool {
    let Some(name) = named(s, n) else {
        return false;
    };
    let l = name.to_ascii_lowercase().replace('_', "");
    l.contains("warps") || l == "nwarp" || l == "numwarp"
}

/// Bit packing of data, not lanes: the value goes to a name about bits, words or bytes
/// (`int word = i >> 5; int bit = i & 31;`).
fn data_bits<'a>(s: &Src<'a>, b: Node<'a>) -> bool {
    let Some(p) = s.parent(b) else { return false };
    let target = match p.node_kind() {
        K::InitDeclarator => p.field(F::Declarator),
        K::AssignmentExpression => p.field(F::Left),
        _ => None,
    };
    target.is_some_and(|t| {
        let l = s.text(t).to_ascii_lowercase();
        ["bit", "word", "byte", "shift", "pos"]
            .iter()
            .any(|k| l.contains(k))
            && !l.contains("lane")
            && !l.contains("warp")
    })
}

pub(super) fn strip_parens(mut n: Node) -> Node {
    while n.node_kind() == K::ParenthesizedExpression {
        match n.named_child(0) {
            Some(c) => n = c,
            None => break,
        }
    }
    n
}

pub(super) fn parts<'a>(s: &Src<'a>, n: Node<'a>) -> (&'a str, Node<'a>, Node<'a>) {
    let op = n.field(F::Operator).map_or("", |o| s.text(o));
    (
        op,
        n.field(F::Left).unwrap_or(n),
        n.field(F::Right).unwrap_or(n),
    )
}

pub(super) fn lit(s: &Src, n: Node) -> Option<u64> {
    let n = strip_parens(n);
    (n.node_kind() == K::NumberLiteral)
        .then(|| int_value(s.text(n)))
        .flatten()
}

pub(super) fn has_blockdim(s: &Src, n: Node) -> bool {
    s.mentions(n, "blockDim")
}

/// A thread count or a thread number by its name: `block_size`, `kNumThreads`,
/// `layout.block_dim`, `BLOCK_DIM_X`, `globalthread` (`/ 32` of it counts warps).
fn thread_count_name(s: &Src, n: Node) -> bool {
    let Some(name) = named(s, n) else {
        return false;
    };
    thread_count_str(name)
}

/// The name an operand is written with: an identifier, or a member's field (`layout.block_dim`
/// gives `block_dim`), parentheses stripped.
pub(super) fn named<'a>(s: &Src<'a>, n: Node<'a>) -> Option<&'a str> {
    let n = strip_parens(n);
    match n.node_kind() {
        K::Identifier => Some(s.text(n)),
        K::FieldExpression => Some(n.field(F::Field).map_or("", |f| s.text(f))),
        _ => None,
    }
}

/// Whether `b` is the value given to a variable named as a lane (`lane = t % 32`) or, with
/// `warp`, as a warp id.
fn assigned_to<'a>(s: &Src<'a>, b: Node<'a>, warp: bool) -> bool {
    let Some(p) = s.parent(b) else { return false };
    let target = match p.node_kind() {
        K::InitDeclarator => p.field(F::Declarator),
        K::AssignmentExpression => p.field(F::Left),
        _ => None,
    };
    target.is_some_and(|t| {
        let name = s.text(t);
        if warp {
            warp_name(name)
        } else {
            lane_name(name)
        }
    })
}

/// The variable `T name = b;` declares with `b` as its whole value, when no other token of the
/// function `f` names it (a macro argument counts as a read).
fn unread_variable<'a>(s: &Src<'a>, f: Node<'a>, b: Node<'a>) -> Option<&'a str> {
    let p = s.parent(b).filter(|p| p.node_kind() == K::InitDeclarator)?;
    if p.field(F::Value).map(|v| v.id()) != Some(b.id()) {
        return None;
    }
    let name = syntax::declarator_name(s, p.field(F::Declarator)?)?;
    (s.lexed
        .idents_named(s.ctx.src, f.byte_range(), name.as_bytes())
        == 1)
        .then_some(name)
}

/// The text (without blanks) of what the function multiplies by a warp size written as a name
/// (`WARP_SIZE * x128::size` gives `x128::size`): `32 * x128::size` beside it is the same
/// quantity with the warp size written as 32.
fn scaled_by_warp_size<'a>(s: &Src<'a>, f: Node<'a>) -> HashSet<String> {
    let squeeze = |n: Node| -> String { s.text(n).split_whitespace().collect() };
    let named = |n: Node| {
        let n = strip_parens(n);
        n.node_kind() == K::Identifier && {
            let t = s.text(n);
            t == "warpSize" || super::warp_const_name(t)
        }
    };
    let mut out = HashSet::new();
    for b in s.descendants(f, K::BinaryExpression) {
        let (op, l, r) = parts(s, b);
        if op == "*" {
            if named(l) {
                out.insert(squeeze(strip_parens(r)));
            } else if named(r) {
                out.insert(squeeze(strip_parens(l)));
            }
        }
    }
    out
}

/// Bit indices of packed data, with their line: `X` where one line both indexes words with
/// `X >> 5` (or `X / 32`) and shifts by `X & 31` (or `X % 32`): `bits[i >> 5] |= 1u << (i & 31)`
/// packs one bit per element in 32-bit words, whatever the wavefront size.
fn packed_bit_indices(s: &Src, f: Node) -> HashSet<(String, usize)> {
    let squeeze = |n: Node| -> String { s.text(strip_parens(n)).split_whitespace().collect() };
    let split = |n: Node, word: bool| -> Option<(String, usize)> {
        let n = strip_parens(n);
        if n.node_kind() != K::BinaryExpression {
            return None;
        }
        let (op, l, r) = parts(s, n);
        let hit = if word {
            (op == ">>" && lit(s, r) == Some(5)) || (op == "/" && lit(s, r) == Some(32))
        } else {
            (op == "&" && lit(s, r) == Some(31)) || (op == "%" && lit(s, r) == Some(32))
        };
        hit.then(|| (squeeze(l), s.line(n.start_byte())))
    };
    let mut words = HashSet::new();
    for x in s.descendants(f, K::SubscriptExpression) {
        if let Some(i) = x.field(F::Indices) {
            let mut c = i.walk();
            for e in i.named_children(&mut c) {
                words.extend(split(e, true));
            }
        }
    }
    let mut bits = HashSet::new();
    for b in s.descendants(f, K::BinaryExpression) {
        let (op, _, r) = parts(s, b);
        if op == "<<" || op == ">>" {
            bits.extend(split(r, false));
        }
    }
    words.intersection(&bits).cloned().collect()
}

pub(super) fn arithmetic(s: &Src, f: Node, flow: &Flow, out: &mut Vec<Finding>) {
    // Device code that does no warp-level work (no shuffles, votes, `warpSize`, lane ids):
    // `tid / 32` there splits a block's threads over data (ggml's `n = tid/32; l = tid - 32*n`
    // over a 64-thread block), the same on any wavefront size.
    let device = f.node_kind() == K::FunctionDefinition && {
        let head_end = f.field(F::Body).map_or(f.end_byte(), |b| b.start_byte());
        let head = std::str::from_utf8(&s.bytes()[f.start_byte()..head_end]).unwrap_or("");
        head.contains("__global__") || head.contains("__device__")
    };
    // A lane id counts as warp-level work only under a lane's name (`lane_id = threadIdx.x & 31`);
    // `tgroup = threadIdx.x & 31` with `threadIdx.x >> 5` beside it splits the block into groups
    // of 32 threads over data (Parboil's sad), which any wavefront size runs the same. A lane id
    // tested for a lane (`threadIdx.x % 32 == 0`: lane 0 of each warp, mamba's warp-scan prefix)
    // is warp-level work too.
    let named_lane_id = s.descendants(f, K::BinaryExpression).iter().any(|b| {
        super::blocks::lane_id_of_32(s, *b)
            && (assigned_to(s, *b, false)
                || assigned_to(s, *b, true)
                || names_lane_or_warp(s, *b)
                || tested_for_a_lane(s, *b))
    });
    let data_split = device
        && !super::blocks::warp_exchange_here(s, f)
        && !super::blocks::calls_warp_named(s, f)
        && !named_lane_id
        && !s
            .descendants(f, K::Identifier)
            .iter()
            .any(|i| super::warp_const_name(s.text(*i)));
    let host = f.node_kind() == K::FunctionDefinition && !device;
    let scaled = scaled_by_warp_size(s, f);
    let packed = packed_bit_indices(s, f);
    // `n` (an operand) is a packed bit index on its line; `x` an operand of a shift.
    let packs = |n: Node| {
        !packed.is_empty() && {
            let t: String = s.text(strip_parens(n)).split_whitespace().collect();
            packed.contains(&(t, s.line(n.start_byte())))
        }
    };
    let packed_shift = |x: Node| {
        let x = strip_parens(x);
        x.node_kind() == K::BinaryExpression && {
            let (op, l, _) = parts(s, x);
            matches!(op, "&" | "%") && packs(l)
        }
    };
    let like_warp_size = |n: Node| {
        let t: String = s.text(strip_parens(n)).split_whitespace().collect();
        scaled.contains(&t)
    };
    let tiles = super::tiles::tile_sizes(s, f);
    for b in s.descendants(f, K::BinaryExpression) {
        let (op, l, r) = parts(s, b);
        let hit: Option<&str> = match op {
            _ if data_bits(s, b) => None,
            ">>" | "/" | "&" | "%" if packs(l) => None,
            "<<" if packed_shift(r) => None,
            "%" if flow.val(s, r) == Some(32)
                && !memory_extent_name(s, r)
                && (flow.thread_expr(s, l)
                    || assigned_to(s, b, false)
                    || flow.mentions_lane(s, l)) =>
            {
                Some("`% 32` computes a lane id for 32-lane warps")
            }
            "%" if host && flow.val(s, r) == Some(32) && stored_element(s, b) && reads_lane_id(s) => {
                Some("`% 32` on the host is the expected lane id of the file's kernel (it reads `%laneid`/`__lane_id()`): lanes run to 63 on a 64-lane wavefront")
            }
            "&" if (flow.val(s, r) == Some(31)
                && (flow.thread_expr(s, l)
                    || assigned_to(s, b, false)
                    || flow.mentions_lane(s, l)))
                || (flow.val(s, l) == Some(31) && flow.thread_expr(s, r)) =>
            {
                Some("`& 31` computes a lane id for 32-lane warps")
            }
            "/" if flow.val(s, r) == Some(32)
                && !axis_extent_name(s, r)
                && !memory_extent_name(s, r)
                && (flow.thread_expr(s, l)
                    || has_blockdim(s, l)
                    || thread_count_name(s, l)
                    || rounded_up_threads(s, flow, l)
                    || assigned_to(s, b, true)) =>
            {
                Some("`/ 32` counts warps of 32 lanes")
            }
            ">>" if flow.val(s, r) == Some(5)
                && (flow.thread_expr(s, l) || has_blockdim(s, l) || thread_count_name(s, l)) =>
            {
                Some("`>> 5` divides by a 32-lane warp")
            }
            "*" if (flow.val(s, r) == Some(32)
                && (is_warp(s, flow, l) || warp_count(s, l) || like_warp_size(l)))
                || (flow.val(s, l) == Some(32)
                    && (is_warp(s, flow, r) || warp_count(s, r) || like_warp_size(r))) =>
            {
                Some("`warp * 32` assumes 32 lanes per warp")
            }
            "<<" if flow.val(s, r) == Some(5) && is_warp(s, flow, l) => {
                Some("`warp << 5` assumes 32 lanes per warp")
            }
            "-" if flow.val(s, l) == Some(32) && flow.lane_expr(s, r) => {
                Some("`32 - lane` assumes 32 lanes")
            }
            "<<" if lit(s, l) == Some(1)
                && !syntax::is_wide_literal(s.text(strip_parens(l)))
                && flow.lane_expr(s, r) =>
            {
                Some("a 32-bit `1 << lane` mask is undefined for lanes 32–63")
            }
            _ => None,
        };
        // A data split in device code without warp-level work, unless a name says lane or warp.
        if hit.is_some()
            && data_split
            && matches!(op, "/" | ">>" | "*" | "-" | "&" | "%")
            && !assigned_to(s, b, true)
            && !assigned_to(s, b, false)
            && !names_lane_or_warp(s, b)
        {
            continue;
        }
        // `threadIdx.x / GROUP_SIZE` where the function partitions its block by
        // `tiled_partition<GROUP_SIZE>`: the arithmetic indexes the code's own tiles, a logical
        // group HIP provides at that size on 64-lane wavefronts too.
        if hit.is_some() {
            if let Some(name) = [l, r]
                .into_iter()
                .map(strip_parens)
                .filter(|x| x.node_kind() == K::Identifier)
                .map(|x| s.text(x))
                .find(|x| tiles.contains(x))
            {
                out.push(passed(s, b, format!("`{}` indexes tiles of `{name}` threads, the size the function partitions its block by (`tiled_partition<{name}>`): a logical group that HIP provides on 64-lane wavefronts too, not the hardware warp (nothing to change)", s.text(b))));
                continue;
            }
        }
        // A host warp count that only sizes shared memory: 32-lane warps are more numerous than
        // 64-lane ones, so the buffer is larger than a 64-lane wavefront needs.
        if hit.is_some() && host && op == "/" {
            if let Some(target) = only_sizes_shared_memory(s, f, b) {
                out.push(passed(s, b, format!("`{}` counts 32-lane warps to size shared memory (`{target}`): 64-lane wavefronts are fewer, so the buffer is larger than they need (nothing to change)", s.text(b))));
                continue;
            }
        }
        if hit.is_some() {
            // `const uint warp_idx = thread_rank() / 32u;` that nothing in the function reads
            // (LichtFeld-Studio's `kernel_utils.cuh`): nothing depends on the warp size there.
            if let Some(name) = unread_variable(s, f, b) {
                out.push(passed(s, b, format!("`{}` assumes 32-lane warps, but `{name}`, which holds it, is never read in the function: nothing depends on it (nothing to change; remove it or compute it from `warpSize` if code comes to read it)", s.text(b))));
                continue;
            }
        }
        if let Some(msg) = hit {
            // `kNWarps = kNThreads / 32` whose every use is `kNColsPerWarp * kNWarps`: the 32
            // cancels (columns per warp times warps is columns per block).
            if op == "/" {
                if let Some(name) = cancelled_warp_count(s, b) {
                    out.push(passed(s, b, format!("`{name}` counts 32-lane warps, but it is only multiplied by a per-warp count: the product does not depend on the warp size (nothing to change)")));
                    continue;
                }
            }
            let mut msg = msg.to_string();
            if op == "*" {
                msg = format!("`{}` assumes 32 lanes per warp", s.text(b));
            }
            // A constant under another name: say which.
            for side in [l, r] {
                let side = strip_parens(side);
                if side.node_kind() == K::Identifier {
                    if let Some(v) = flow.named.get(s.text(side)) {
                        msg.push_str(&format!(" (`{}` is {v})", s.text(side)));
                    }
                }
            }
            out.push(s.ctx.finding(
                &LANE_WARP_ARITHMETIC,
                b.byte_range(),
                msg,
                Some("use `warpSize` (or `__lane_id()`); keep lane masks 64-bit".into()),
            ));
        }
    }
    // Warp-strided loops: `for (int i = lane; i < n; i += 32)`.
    for fo in s.descendants(f, K::ForStatement) {
        let (Some(init), Some(upd)) = (fo.field(F::Initializer), fo.field(F::Update)) else {
            continue;
        };
        if upd.node_kind() == K::AssignmentExpression
            && upd.field(F::Operator).is_some_and(|o| s.text(o) == "+=")
            && upd.field(F::Right).and_then(|r| lit(s, r)) == Some(32)
            && syntax::identifiers(s, init)
                .iter()
                .any(|i| flow.lane.contains(i))
            && (!data_split || names_lane_or_warp(s, init))
        {
            out.push(s.ctx.finding(
                &LANE_WARP_ARITHMETIC,
                upd.byte_range(),
                "a lane-strided loop steps by 32 lanes".into(),
                Some("step by `warpSize`".into()),
            ));
        }
    }
}

pub(super) fn is_warp(s: &Src, flow: &Flow, n: Node) -> bool {
    let n = strip_parens(n);
    (n.node_kind() == K::Identifier && flow.warp.contains(s.text(n))) || flow.warp_expr(s, n)
}

/// Whether function `f` declares a variable or parameter named `warpSize`, hiding HIP's.
pub(super) fn shadows_warp_size(s: &Src, f: Node) -> bool {
    s.descendants(f, K::InitDeclarator)
        .iter()
        .chain(s.descendants(f, K::ParameterDeclaration).iter())
        .any(|d| {
            d.field(F::Declarator)
                .and_then(|x| syntax::declarator_name(s, x))
                == Some("warpSize")
        })
}

/// The name of a constant set to the warp count `b` (`static constexpr int kNWarps =
/// kNThreads / 32;`) when the file uses it only as a factor beside a per-warp count
/// (`kNColsPerWarp * kNWarps`, `kRowsPerWarp * kNWarps`): warps times a per-warp quantity is
/// a per-block quantity, the same whatever the warp size. `None` when the constant is unused
/// in the file or used any other way (array bounds, indices, comparisons, loop bounds,
/// template arguments, run-time arithmetic: those assume 32-lane warps).
pub(super) fn cancelled_warp_count<'a>(s: &Src<'a>, b: Node<'a>) -> Option<&'a str> {
    let mut p = s.parent(b)?;
    while p.node_kind() == K::ParenthesizedExpression {
        p = s.parent(p)?;
    }
    let name = match p.node_kind() {
        K::InitDeclarator => syntax::declarator_name(s, p.field(F::Declarator)?)?,
        K::FieldDeclaration if p.field(F::DefaultValue).is_some_and(|v| v.id() == b.id()) => {
            syntax::declarator_name(s, p.field(F::Declarator)?)?
        }
        _ => return None,
    };
    let root = s.tree?.root_node();
    let (uses, ok) = uses_beside_per_warp(s, root, name, p.byte_range(), 2);
    (ok && uses > 0).then_some(name)
}

/// The uses of `name` in `within` outside `decl`, and whether each is a factor beside a
/// per-warp count in a declaration's value, or the whole value of an alias (`constexpr int
/// kNWarp = Ktraits::kNWarps;`) whose own uses are so (or that is unused).
fn uses_beside_per_warp<'a>(
    s: &Src<'a>,
    within: Node<'a>,
    name: &str,
    decl: std::ops::Range<usize>,
    depth: u8,
) -> (usize, bool) {
    let per_warp = |n: Node| {
        let n = strip_parens(n);
        let t = match n.node_kind() {
            K::Identifier => s.text(n),
            K::QualifiedIdentifier => n.field(F::Name).map_or("", |x| s.text(x)),
            _ => return false,
        };
        t.to_ascii_lowercase().replace('_', "").contains("perwarp")
    };
    let mut uses = 0;
    for id in s.descendants(within, K::Identifier) {
        if s.text(id) != name || (decl.start <= id.start_byte() && id.end_byte() <= decl.end) {
            continue;
        }
        uses += 1;
        let mut x = id;
        let Some(mut q) = s.parent(x) else {
            return (uses, false);
        };
        while matches!(
            q.node_kind(),
            K::ParenthesizedExpression | K::QualifiedIdentifier
        ) {
            x = q;
            match s.parent(q) {
                Some(up) => q = up,
                None => return (uses, false),
            }
        }
        match q.node_kind() {
            K::BinaryExpression => {
                let (op, l, r) = parts(s, q);
                let other = if l.id() == x.id() { r } else { l };
                let top = s.parent(q);
                if op != "*"
                    || !per_warp(other)
                    || !top.is_some_and(|t| {
                        matches!(t.node_kind(), K::InitDeclarator | K::FieldDeclaration)
                    })
                {
                    return (uses, false);
                }
            }
            // An alias: judged by its own uses in the function (or file) that declares it.
            K::InitDeclarator if depth > 0 => {
                let Some(alias) = q
                    .field(F::Declarator)
                    .and_then(|d| syntax::declarator_name(s, d))
                else {
                    return (uses, false);
                };
                let scope = s.enclosing_function(q).unwrap_or(within);
                let (_, ok) = uses_beside_per_warp(s, scope, alias, q.byte_range(), depth - 1);
                if !ok {
                    return (uses, false);
                }
            }
            _ => return (uses, false),
        }
    }
    (uses, true)
}

/// `threads + 31` (the numerator of a rounded-up warp count `(threads + 31) / 32`, written on
/// the host for launch and shared-memory sizes): a thread count, `blockDim`, or a thread index
/// plus 31.
fn rounded_up_threads(s: &Src, flow: &Flow, n: Node) -> bool {
    let n = strip_parens(n);
    n.node_kind() == K::BinaryExpression && {
        let (op, l, r) = parts(s, n);
        let threads =
            |x: Node| thread_count_name(s, x) || has_blockdim(s, x) || flow.thread_expr(s, x);
        op == "+"
            && ((flow.val(s, r) == Some(31) && threads(l))
                || (flow.val(s, l) == Some(31) && threads(r)))
    }
}

/// Whether `b` is compared for equality (`b == 0`, `b != 0`): a lane picked out of each warp.
fn tested_for_a_lane(s: &Src, b: Node) -> bool {
    let mut x = b;
    while let Some(p) = s.parent(x) {
        if p.node_kind() == K::ParenthesizedExpression {
            x = p;
            continue;
        }
        return p.node_kind() == K::BinaryExpression
            && p.field(F::Operator)
                .is_some_and(|o| matches!(s.text(o), "==" | "!="));
    }
    false
}

/// Whether an identifier in `n` is named as a lane or warp id (`warp`, `lane_id`).
fn names_lane_or_warp(s: &Src, n: Node) -> bool {
    syntax::identifiers(s, n)
        .iter()
        .any(|i| lane_name(i) || warp_name(i))
}

/// A name for a shared-memory size: `smemSize`, `shmem_sz`, `sMemSize`, `shared_bytes`.
fn shared_memory_name(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    l.contains("smem") || l.contains("shmem") || l.contains("shared") || l.contains("sharedmem")
}

/// The variable a value ends in: the declarator or left side of the declaration or
/// assignment whose value contains `n` (through arithmetic and parentheses).
fn value_target<'a>(s: &Src<'a>, n: Node<'a>) -> Option<(&'a str, Node<'a>)> {
    let mut x = n;
    loop {
        let p = s.parent(x)?;
        match p.node_kind() {
            K::BinaryExpression | K::ParenthesizedExpression | K::CastExpression => x = p,
            K::InitDeclarator => {
                let d = p.field(F::Declarator)?;
                return Some((syntax::declarator_name(s, d)?, p));
            }
            K::AssignmentExpression => {
                let l = p.field(F::Left)?;
                return (l.node_kind() == K::Identifier).then(|| (s.text(l), p));
            }
            _ => return None,
        }
    }
}

/// The shared-memory size the host warp count `b` (`blockSize / 32`) goes to, directly
/// (`smemSize = ((blockSize / 32) + 1) * sizeof(double)`) or through one variable whose every
/// use in the function sizes shared memory (`nWarps = blockSize / 32; shmem_sz = nWarps * 4`).
fn only_sizes_shared_memory<'a>(s: &Src<'a>, f: Node<'a>, b: Node<'a>) -> Option<&'a str> {
    let (target, at) = value_target(s, b)?;
    if shared_memory_name(target) {
        return Some(target);
    }
    let mut sink = None;
    for id in s.descendants(f, K::Identifier) {
        if s.text(id) != target || at.byte_range().contains(&id.start_byte()) {
            continue;
        }
        let (t, _) = value_target(s, id)?;
        if !shared_memory_name(t) {
            return None;
        }
        sink = Some(t);
    }
    sink
}

/// Whether `b` is the whole value stored into an array element (`h_ptr[i] = i % 32;`).
fn stored_element(s: &Src, b: Node) -> bool {
    s.parent(b).is_some_and(|p| {
        p.node_kind() == K::AssignmentExpression
            && p.field(F::Right).is_some_and(|r| r.id() == b.id())
            && p.field(F::Left)
                .is_some_and(|l| l.node_kind() == K::SubscriptExpression)
    })
}

/// Whether the file's device code reads the hardware lane id: `%laneid` in inline PTX or
/// `__lane_id()`.
fn reads_lane_id(s: &Src) -> bool {
    s.lexed.tokens.iter().any(|t| {
        let text = t.text(s.bytes());
        (t.kind == crate::lex::Tok::Str && text.windows(7).any(|w| w == b"%laneid"))
            || (t.kind == crate::lex::Tok::Ident && text == b"__lane_id")
    })
}

/// Whether `n` sits inside a class body that declares its own `warpSize` member (SPH-EXA's
/// `struct GpuConfig { static constexpr int warpSize = 64; static_assert(warpSize == 32 || …);
/// }`, members possibly in `#if` arms, one per platform): there the name is the member.
pub(super) fn in_class_declaring_warp_size(s: &Src, n: Node) -> bool {
    let mut up = Some(n);
    while let Some(x) = up {
        if x.node_kind() == K::FieldDeclarationList
            && s.descendants(x, K::FieldDeclaration).into_iter().any(|c| {
                c.field(F::Declarator)
                    .is_some_and(|d| s.text(d) == "warpSize")
            })
        {
            return true;
        }
        up = s.parent(x);
    }
    false
}

/// A lane or warp arithmetic finding at `b` that keeps CUDA's meaning: PASS with its reason.
fn passed(s: &Src, b: Node, message: String) -> Finding {
    let mut f = s
        .ctx
        .finding(&LANE_WARP_ARITHMETIC, b.byte_range(), message, None);
    f.status = crate::gate::Status::Pass;
    f
}
