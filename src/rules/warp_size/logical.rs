//! Logical warps: for each warp-level intrinsic, which lanes run it and which warp the code
//! assumes. CUDA code often treats its threads as 32-lane warps (`lane = tid & 31`, `warp =
//! tid / 32`, shuffle offsets 16…1); on a 64-lane wavefront HIP's shuffles default to a width
//! of 64, so such code reads lanes of the other half (a silent wrong answer), and a full mask
//! widened to 64 bits names lanes that a `threadIdx.x < 32` branch never runs.
//!
//! One model, two consumers: the translator asks it which rewrite keeps CUDA's meaning
//! (`translate::logical_warp`: width 32 on shuffles, the 32-bit ballot of the lane's own half,
//! the mask of the lanes actually active), and the hazard rules ask it whether the 32-lane
//! reduction they flag is handled by that rewrite (HP104/HP106 become PASS naming it).
//!
//! It reads the lexer's tokens, never a parse tree, so that the translator's answers do not
//! change when text elsewhere changes (a second `port` run changes nothing). Per function body:
//! evidence of 32-lane logical warps (`& 31`, `% 32`, `/ 32`, `>> 5` of a thread index, shuffle
//! offsets 16) and of 64-lane ones (`warpSize`, `__lane_id()`, `& 63`, offsets 32). Only 32-lane
//! evidence makes a rewrite safe; both kinds make it unsafe (a person chooses between keeping
//! 32-lane logical warps and moving the kernel to 64).

use crate::lex::{Lexed, Tok, NO_DIRECTIVE};
use crate::rules::syntax::int_value;
use std::collections::{HashMap, HashSet};

rule!(LOGICAL_WARP_REWRITE, "HP109", WarpSize, Pass, Correctness,
    summary: "A warp-level intrinsic of a function whose lanes are 32-lane logical warps (`lane = tid & 31`, `warp = tid / 32`, shuffle offsets 16…1), rewritten by `hipport port` to keep CUDA's meaning on 64-lane wavefronts: width 32 on shuffles, the 32-bit ballot of the lane's own half where the result is kept as a 32-bit mask. PASS when the function shows only 32-lane logical warps (safe rewrite, applied); REMEDIATION when it also computes lanes from `warpSize` or `__lane_id()` (unsafe: not applied unless `port --unsafe-fixes`), UNKNOWN once applied unsafely.",
    why: "HIP's shuffles default to `width = warpSize` (64 on CDNA): `__shfl(v, 0)` gives lanes 32–63 the value of lane 0, not lane 32, and `__shfl_down(v, 16)` makes lane 16 read lane 32, another logical warp. A ballot of 64 lanes kept in 32 bits holds the first half's votes for every lane. With width 32 and the lane's own half of the ballot, each half of the wavefront behaves as one CUDA warp, as AMD's own ports of such code do.",
    bad: "int lane = threadIdx.x & 31;\nfor (int i = 16; i > 0; i >>= 1)\n  v += __shfl_down_sync(0xffffffff, v, i);",
    good: "int lane = threadIdx.x & 31;\nfor (int i = 16; i > 0; i >>= 1)\n  v += __shfl_down(v, i, 32);",
    fix: "Keep 32-lane logical warps (width 32 on every shuffle, `(unsigned)(__ballot(p) >> (__lane_id() & 32))` for 32-bit masks), or move the kernel to the wavefront (`warpSize` for lane ids, offsets and masks). Where the function mixes both, choose one; `port --unsafe-fixes` applies the first.",
    refs: [super::REF_WAVE, super::REF_PORTING],
);

/// The warp a function's warp-level code assumes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Warp {
    /// No sign of a 32-lane logical warp: the code works on the hardware wavefront.
    Wavefront,
    /// 32-lane logical warps and nothing computed from the wavefront size.
    Logical32,
    /// Both: 32-lane arithmetic beside `warpSize` or `__lane_id()`; a person must choose.
    Mixed,
}

/// Whether a rewrite provably keeps CUDA's meaning (ruff's applicability levels).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Applicability {
    /// The meaning is kept: applied by `port`.
    Safe,
    /// Needs a person: applied only with `port --unsafe-fixes`.
    Unsafe,
}

/// The rewrite that keeps a warp-level call's CUDA meaning.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Rewrite {
    /// Insert `, 32` as the shuffle's width (before the token index given: its `)`).
    Width32 { close: usize },
    /// Wrap the ballot (name token to its `)`) as `((unsigned int)(… >> (__lane_id() & 32)))`.
    OwnHalfBallot { close: usize },
}

/// A rewrite with its applicability and the evidence that decided it.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub rewrite: Rewrite,
    pub applicability: Applicability,
    /// What shows 32-lane logical warps (`& 31`), and, when unsafe, what shows 64 lanes.
    pub why32: String,
    pub why64: Option<String>,
}

/// The facts of one function body (token indices of its braces).
#[derive(Debug)]
struct Function {
    open: usize,
    close: usize,
    warp: Warp,
    why32: Option<String>,
    why64: Option<String>,
    /// Whether the 32-lane evidence is only shuffle offsets (no lane or warp arithmetic): such
    /// a helper takes its logical warp from its callers.
    offsets_only: bool,
    /// The function's name (the identifier before its parameter list), when found.
    name: Vec<u8>,
    /// Token ranges run only by lanes 0–31 of the first wavefront, with the guard's text.
    first32: Vec<(usize, usize, String)>,
}

/// The model of one file.
#[derive(Debug, Default)]
pub(crate) struct LogicalWarps {
    fns: Vec<Function>,
}

const SHUFFLES: &[&str] = &[
    "__shfl",
    "__shfl_up",
    "__shfl_down",
    "__shfl_xor",
    "__shfl_sync",
    "__shfl_up_sync",
    "__shfl_down_sync",
    "__shfl_xor_sync",
];
const BALLOTS: &[&str] = &["__ballot_sync", "__ballot", "__activemask"];
const NARROW: &[&str] = &["unsigned", "int", "uint32_t", "uint", "int32_t"];

/// The file's tokens as the model reads them: code only (no comments, no directive lines).
struct View<'a> {
    src: &'a [u8],
    lexed: &'a Lexed,
    /// Constants of the file: `#define NAME 32`, `constexpr int NAME = 32;`.
    consts: HashMap<&'a [u8], u64>,
}

impl<'a> View<'a> {
    fn t(&self, i: usize) -> &'a [u8] {
        self.lexed.tokens[i].text(self.src)
    }
    fn code(&self, i: usize) -> bool {
        let t = &self.lexed.tokens[i];
        t.kind != Tok::Comment && t.directive == NO_DIRECTIVE
    }
    fn next(&self, i: usize) -> Option<usize> {
        (i + 1..self.lexed.tokens.len()).find(|&j| self.code(j))
    }
    fn prev(&self, i: usize) -> Option<usize> {
        (0..i).rev().find(|&j| self.code(j))
    }
    fn is(&self, i: Option<usize>, text: &str) -> bool {
        i.is_some_and(|i| self.t(i) == text.as_bytes())
    }
    /// The value of a literal or of a file constant.
    fn val(&self, i: Option<usize>) -> Option<u64> {
        let i = i?;
        match self.lexed.tokens[i].kind {
            Tok::Number => int_value(std::str::from_utf8(self.t(i)).ok()?),
            Tok::Ident => self.consts.get(self.t(i)).copied(),
            _ => None,
        }
    }
    /// The `)` (or `}`, `]`) matching the opener at `open`.
    fn matching(&self, open: usize) -> Option<usize> {
        let mut depth = 0i32;
        let mut j = open;
        while j < self.lexed.tokens.len() {
            if self.code(j) && self.lexed.tokens[j].kind == Tok::Punct {
                match self.t(j) {
                    b"(" | b"[" | b"{" => depth += 1,
                    b")" | b"]" | b"}" => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j);
                        }
                    }
                    _ => {}
                }
            }
            j += 1;
        }
        None
    }
    /// The `(` matching the `)` at `close`.
    fn matching_back(&self, close: usize) -> Option<usize> {
        let mut depth = 0i32;
        for j in (0..=close).rev() {
            if !self.code(j) || self.lexed.tokens[j].kind != Tok::Punct {
                continue;
            }
            match self.t(j) {
                b")" | b"]" | b"}" => depth += 1,
                b"(" | b"[" | b"{" => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(j);
                    }
                }
                _ => {}
            }
        }
        None
    }
    /// The call's arguments: (argument count, the closing `)`); `None` when `i` is no call.
    fn call(&self, i: usize) -> Option<(usize, usize)> {
        let open = self.next(i).filter(|&o| self.t(o) == b"(")?;
        let close = self.matching(open)?;
        let mut depth = 0;
        let mut commas = 0;
        let mut any = false;
        for j in open + 1..close {
            if !self.code(j) {
                continue;
            }
            any = true;
            match self.t(j) {
                b"(" | b"[" | b"{" => depth += 1,
                b")" | b"]" | b"}" => depth -= 1,
                b"," if depth == 0 => commas += 1,
                _ => {}
            }
        }
        Some((if any { commas + 1 } else { 0 }, close))
    }
}

fn name_of(v: &View, i: usize) -> &'static str {
    let t = v.t(i);
    SHUFFLES
        .iter()
        .chain(BALLOTS)
        .find(|n| n.as_bytes() == t)
        .copied()
        .unwrap_or("")
}

impl LogicalWarps {
    /// Reads the file's function bodies. Cheap when the file has no warp-level call.
    pub(crate) fn of(src: &[u8], lexed: &Lexed) -> LogicalWarps {
        let warp_level = lexed.tokens.iter().any(|t| {
            t.kind == Tok::Ident && {
                let x = t.text(src);
                x.starts_with(b"__shfl") || x.starts_with(b"__ballot") || x == b"__activemask"
            }
        });
        if !warp_level {
            return LogicalWarps::default();
        }
        let mut v = View {
            src,
            lexed,
            consts: HashMap::new(),
        };
        v.consts = constants(&v);
        let mut fns = Vec::new();
        let mut depth = 0usize;
        let mut open: Option<(usize, usize)> = None;
        for i in 0..lexed.tokens.len() {
            if !v.code(i) || lexed.tokens[i].kind != Tok::Punct {
                continue;
            }
            match v.t(i) {
                b"{" => {
                    let p = v.prev(i);
                    let body = v.is(p, ")")
                        || (p.is_some_and(|p| {
                            matches!(v.t(p), b"const" | b"noexcept" | b"override")
                        }) && v.is(p.and_then(|p| v.prev(p)), ")"));
                    if open.is_none() && body {
                        open = Some((i, depth));
                    }
                    depth += 1;
                }
                b"}" => {
                    depth = depth.saturating_sub(1);
                    if let Some((o, d)) = open {
                        if d == depth {
                            fns.push(function(&v, o, i));
                            open = None;
                        }
                    }
                }
                _ => {}
            }
        }
        callers(&v, &mut fns);
        LogicalWarps { fns }
    }

    /// The function whose body holds token `i` (bodies do not overlap and are in order).
    fn function(&self, i: usize) -> Option<&Function> {
        let k = self.fns.partition_point(|f| f.close <= i);
        self.fns.get(k).filter(|f| f.open < i && i < f.close)
    }

    /// The warp the function around token `i` assumes.
    pub(crate) fn warp_at(&self, i: usize) -> Warp {
        self.function(i).map_or(Warp::Wavefront, |f| f.warp)
    }

    /// The guard (`threadIdx.x < 32`) when only lanes 0–31 of the first wavefront run token `i`.
    pub(crate) fn first32(&self, i: usize) -> Option<&str> {
        let f = self.function(i)?;
        f.first32
            .iter()
            .filter(|(a, b, _)| *a < i && i < *b)
            .map(|(_, _, g)| g.as_str())
            .next()
    }

    /// The function around byte offset `at`, as a token index inside it.
    pub(crate) fn token_at(&self, lexed: &Lexed, at: usize) -> usize {
        lexed.tokens.partition_point(|t| (t.start as usize) < at)
    }

    /// The rewrite that keeps the CUDA meaning of the warp-level call named by token `i`, if
    /// the call needs one (written with its CUDA name: `__shfl_down_sync`, `__ballot_sync`).
    pub(crate) fn plan(&self, src: &[u8], lexed: &Lexed, i: usize) -> Option<Plan> {
        let t = lexed.tokens.get(i)?.text(src);
        if !(t.starts_with(b"__shfl") || t.starts_with(b"__ballot") || t == b"__activemask") {
            return None;
        }
        let f = self.function(i)?;
        let applicability = match f.warp {
            Warp::Logical32 => Applicability::Safe,
            Warp::Mixed => Applicability::Unsafe,
            Warp::Wavefront => return None,
        };
        let v = View {
            src,
            lexed,
            consts: HashMap::new(),
        };
        let name = name_of(&v, i);
        let rewrite = if SHUFFLES.contains(&name) {
            let (n, close) = v.call(i)?;
            let without_width = if name.ends_with("_sync") { 3 } else { 2 };
            (n == without_width).then_some(Rewrite::Width32 { close })?
        } else if BALLOTS.contains(&name) {
            let (_, close) = v.call(i)?;
            (kept_in_32_bits(&v, i) && !v.is(v.next(close), ">"))
                .then_some(Rewrite::OwnHalfBallot { close })?
        } else {
            return None;
        };
        Some(Plan {
            rewrite,
            applicability,
            why32: f.why32.clone().unwrap_or_default(),
            why64: f.why64.clone(),
        })
    }

    /// Whether every ballot of the function around token `i` that is kept in 32 bits gets the
    /// safe own-half rewrite, and the function has at least one such ballot.
    pub(crate) fn ballots_rewritten(&self, src: &[u8], lexed: &Lexed, i: usize) -> bool {
        let Some(f) = self.function(i) else {
            return false;
        };
        let v = View {
            src,
            lexed,
            consts: HashMap::new(),
        };
        let ballots: Vec<usize> = (f.open..f.close)
            .filter(|&j| v.code(j) && BALLOTS.contains(&name_of(&v, j)))
            .collect();
        !ballots.is_empty()
            && ballots.iter().all(|&j| {
                self.plan(src, lexed, j).is_some_and(|p| {
                    p.applicability == Applicability::Safe
                        && matches!(p.rewrite, Rewrite::OwnHalfBallot { .. })
                })
            })
    }

    /// Whether the 32-lane shuffle reduction flagged at byte `at` (a `for` loop's header, or a
    /// shuffle's offset 16) is handled by the safe width-32 rewrite: the function's lanes are
    /// 32-lane logical warps and each of the reduction's shuffles gets width 32 or has a width.
    pub(crate) fn reduction_handled(&self, src: &[u8], lexed: &Lexed, at: usize) -> bool {
        let i = self.token_at(lexed, at);
        if self.warp_at(i) != Warp::Logical32 || i >= lexed.tokens.len() {
            return false;
        }
        let v = View {
            src,
            lexed,
            consts: HashMap::new(),
        };
        let range = if v.t(i) == b"for" {
            let Some(end) = v
                .next(i)
                .and_then(|o| v.matching(o))
                .and_then(|e| statement_end(&v, e))
            else {
                return false;
            };
            i..end
        } else {
            // A shuffle's argument: its call is a few tokens before.
            let start = (0..i)
                .rev()
                .take(8)
                .find(|&j| SHUFFLES.contains(&name_of(&v, j)));
            match start {
                Some(s) => s..s + 1,
                None => return false,
            }
        };
        let shuffles: Vec<usize> = range
            .filter(|&j| v.code(j) && SHUFFLES.contains(&name_of(&v, j)))
            .collect();
        !shuffles.is_empty()
            && shuffles.iter().all(|&j| {
                let has_width = v.call(j).is_some_and(|(n, _)| {
                    n > if name_of(&v, j).ends_with("_sync") {
                        3
                    } else {
                        2
                    }
                });
                has_width
                    || self
                        .plan(src, lexed, j)
                        .is_some_and(|p| p.applicability == Applicability::Safe)
            })
    }

    /// Whether the file has no function with warp-level calls.
    pub(crate) fn is_empty(&self) -> bool {
        self.fns.is_empty()
    }

    /// The evidence of the function around token `i`: (32-lane, 64-lane).
    pub(crate) fn evidence(&self, i: usize) -> (Option<&str>, Option<&str>) {
        self.function(i)
            .map_or((None, None), |f| (f.why32.as_deref(), f.why64.as_deref()))
    }
}

/// A ballot whose result the code keeps as a 32-bit mask: the value of a declaration of a
/// 32-bit type (`unsigned int votes = __ballot_sync(…)`), or the argument of `__popc`/`__ffs`.
fn kept_in_32_bits(v: &View, i: usize) -> bool {
    let p = v.prev(i);
    if v.is(p, "(") {
        let q = p.and_then(|p| v.prev(p));
        return q.is_some_and(|q| matches!(v.t(q), b"__popc" | b"__ffs"));
    }
    if !v.is(p, "=") {
        return false;
    }
    let Some(name) = p.and_then(|p| v.prev(p)) else {
        return false;
    };
    if v.lexed.tokens[name].kind != Tok::Ident {
        return false;
    }
    // The type's words before the name: `unsigned int`, `const uint32_t`.
    let mut words = Vec::new();
    let mut j = v.prev(name);
    while let Some(k) = j {
        let t = v.t(k);
        if v.lexed.tokens[k].kind != Tok::Ident || t == b"const" {
            if t == b"const" {
                j = v.prev(k);
                continue;
            }
            break;
        }
        words.push(t);
        j = v.prev(k);
    }
    !words.is_empty()
        && words.iter().all(|w| {
            NARROW.iter().any(|n| n.as_bytes() == *w) || *w == b"unsigned" || *w == b"signed"
        })
}

/// `#define NAME 32` and `const`/`constexpr` declarations `NAME = 32;` of the file.
fn constants<'a>(v: &View<'a>) -> HashMap<&'a [u8], u64> {
    let mut out = HashMap::new();
    for d in &v.lexed.directives {
        if d.name != "define" {
            continue;
        }
        let toks: Vec<usize> = d
            .tokens
            .clone()
            .filter(|&j| v.lexed.tokens[j].kind != Tok::Comment)
            .collect();
        if toks.len() == 4 && v.lexed.tokens[toks[3]].kind == Tok::Number {
            if let Some(n) = std::str::from_utf8(v.t(toks[3])).ok().and_then(int_value) {
                out.insert(v.t(toks[2]), n);
            }
        }
    }
    for i in 0..v.lexed.tokens.len() {
        if !v.code(i) || v.lexed.tokens[i].kind != Tok::Ident {
            continue;
        }
        let eq = v.next(i);
        let num = eq.and_then(|e| v.next(e));
        if !v.is(eq, "=") || !v.is(num.and_then(|n| v.next(n)), ";") {
            continue;
        }
        let constant = (1..=4)
            .scan(i, |j, _| {
                *j = v.prev(*j)?;
                Some(*j)
            })
            .any(|j| matches!(v.t(j), b"const" | b"constexpr"));
        if constant && num.is_some_and(|n| v.lexed.tokens[n].kind == Tok::Number) {
            if let Some(n) = v.val(num) {
                out.insert(v.t(i), n);
            }
        }
    }
    out
}

/// The facts of the body between the braces `open` and `close`.
fn function(v: &View, open: usize, close: usize) -> Function {
    let body: Vec<usize> = (open + 1..close).filter(|&j| v.code(j)).collect();
    // Variables set from a thread index (`tid = threadIdx.x`, `lane = tid & 31`), and those set
    // to exactly `threadIdx.x`; warp ids (`warp = tid / 32`).
    let mut thread: HashSet<&[u8]> = HashSet::new();
    let mut exact: HashSet<&[u8]> = HashSet::new();
    let mut warp: HashSet<&[u8]> = HashSet::new();
    let threadish = |thread: &HashSet<&[u8]>, j: Option<usize>| {
        j.is_some_and(|j| {
            let t = v.t(j);
            thread.contains(t)
                || ((t == b"x" || t == b"y" || t == b"z")
                    && v.is(v.prev(j).and_then(|d| v.prev(d)), "threadIdx"))
                || t == b"threadIdx"
        })
    };
    for _ in 0..2 {
        for (k, &j) in body.iter().enumerate() {
            if v.t(j) != b"=" || k == 0 || v.lexed.tokens[body[k - 1]].kind != Tok::Ident {
                continue;
            }
            let name = v.t(body[k - 1]);
            let rhs: Vec<usize> = body[k + 1..]
                .iter()
                .copied()
                .take_while(|&x| !matches!(v.t(x), b";" | b","))
                .collect();
            if rhs.iter().any(|&x| threadish(&thread, Some(x))) {
                thread.insert(name);
            }
            let texts: Vec<&[u8]> = rhs.iter().map(|&x| v.t(x)).collect();
            if texts == [&b"threadIdx"[..], b".", b"x"] {
                exact.insert(name);
            }
            let warp_id = (texts.len() == 3 && texts[1] == b"/" && v.val(Some(rhs[2])) == Some(32))
                || (texts.len() == 4
                    && texts[1..3] == [&b">"[..], b">"]
                    && v.val(Some(rhs[3])) == Some(5));
            if warp_id && threadish(&thread, Some(rhs[0])) {
                warp.insert(name);
            }
        }
    }
    let shuffles = body.iter().any(|&j| SHUFFLES.contains(&name_of(v, j)));
    let mut why32: Option<String> = None;
    let mut why64: Option<String> = None;
    let note = |slot: &mut Option<String>, s: String| {
        if slot.is_none() {
            *slot = Some(s);
        }
    };
    for (k, &j) in body.iter().enumerate() {
        let t = v.t(j);
        let at = |d: usize| body.get(k + d).copied();
        let before = k.checked_sub(1).map(|b| body[b]);
        // `x & 31`, `x % 32`, `x / 32`, `x >> 5` of a thread index, and their 64-lane twins.
        let (op, rhs) = if t == b">" && v.is(at(1), ">") && !v.is(at(2), "=") && !v.is(before, ">")
        {
            (">>", at(2))
        } else {
            match t {
                b"&" | b"%" | b"/" if !v.is(at(1), "=") && !v.is(before, "&") => {
                    (std::str::from_utf8(t).unwrap_or(""), at(1))
                }
                _ => ("", None),
            }
        };
        if !op.is_empty() && threadish(&thread, before) {
            let rhs_text = rhs.map(|r| String::from_utf8_lossy(v.t(r)).into_owned());
            match (op, v.val(rhs)) {
                ("&", Some(31)) | ("%", Some(32)) | ("/", Some(32)) | (">>", Some(5)) => note(
                    &mut why32,
                    format!("`{op} {}`", rhs_text.unwrap_or_default()),
                ),
                ("&", Some(63)) | ("%", Some(64)) | ("/", Some(64)) | (">>", Some(6)) => note(
                    &mut why64,
                    format!("`{op} {}`", rhs_text.unwrap_or_default()),
                ),
                (_, None)
                    if rhs.is_some_and(|r| {
                        v.lexed.tokens[r].kind == Tok::Ident
                            && super::warp_const_name(&String::from_utf8_lossy(v.t(r)))
                            && v.t(r) != b"warpSize"
                    }) =>
                {
                    note(
                        &mut why64,
                        format!(
                            "`{op} {}` of a size not set here",
                            rhs_text.unwrap_or_default()
                        ),
                    )
                }
                _ => {}
            }
        }
        if t == b"warpSize" {
            note(&mut why64, "`warpSize`".into());
        }
        // `__lane_id()`, except in the own-half ballot this model's rewrite writes.
        if t == b"__lane_id" {
            let own_half = v.is(at(3), "&") && v.val(at(4)) == Some(32) && v.is(before, "(");
            if !own_half {
                note(&mut why64, "`__lane_id()`".into());
            }
        }
        // A shuffle by 16 (or 32), and `for (o = 16; …)` in a function that shuffles.
        let exchange = name_of(v, j);
        if SHUFFLES.contains(&exchange) && exchange != "__shfl" && exchange != "__shfl_sync" {
            if let Some((n, close)) = v.call(j) {
                let delta_at = if name_of(v, j).ends_with("_sync") {
                    2
                } else {
                    1
                };
                if let Some(d) = nth_arg(v, j, close, delta_at).filter(|_| n > delta_at) {
                    match v.val(Some(d)) {
                        Some(16) => note(&mut why32, "shuffle offset 16".into()),
                        Some(32) => note(&mut why64, "shuffle offset 32".into()),
                        _ => {}
                    }
                }
            }
        }
        if t == b"for" && shuffles && v.is(at(1), "(") {
            if let Some(end) = v.matching(body[k + 1]) {
                let header: Vec<usize> = body[k + 2..]
                    .iter()
                    .copied()
                    .take_while(|&x| x < end)
                    .collect();
                for w in header.windows(3) {
                    if v.t(w[0]) == b"=" && v.is(Some(w[2]), ";") {
                        match v.val(Some(w[1])) {
                            Some(16) => note(&mut why32, "offsets 16…1".into()),
                            Some(32) => note(&mut why64, "offsets from 32".into()),
                            _ => {}
                        }
                    }
                }
            }
        }
    }
    let offsets_only = why32.as_deref().is_some_and(|w| w.contains("offset"));
    let warp_kind = match (&why32, &why64) {
        (Some(_), None) => Warp::Logical32,
        (Some(_), Some(_)) => Warp::Mixed,
        _ => Warp::Wavefront,
    };
    // The name before the parameter list: `k` in `void k(…) {`, `… k(…) const {`.
    let name = v
        .prev(open)
        .and_then(|p| if v.t(p) == b")" { Some(p) } else { v.prev(p) })
        .and_then(|close_paren| v.matching_back(close_paren))
        .and_then(|o| v.prev(o))
        .filter(|&n| v.lexed.tokens[n].kind == Tok::Ident)
        .map(|n| v.t(n).to_vec())
        .unwrap_or_default();
    Function {
        open,
        close,
        offsets_only,
        name,
        warp: warp_kind,
        first32: guards(v, &body, close, &exact, &warp),
        why32,
        why64,
    }
}

/// A helper whose only 32-lane evidence is its shuffle offsets (`for (o = 16; …)`) called from
/// a function of the file that computes lanes from the wavefront (`warpSize`): the caller's
/// lanes span 64, so the helper's width is a choice, not a safe rewrite.
fn callers(v: &View, fns: &mut [Function]) {
    let mut mixed: Vec<(usize, String)> = Vec::new();
    for (k, f) in fns.iter().enumerate() {
        if f.warp != Warp::Logical32 || !f.offsets_only || f.name.is_empty() {
            continue;
        }
        let caller = fns.iter().find(|g| {
            g.open != f.open
                && g.why64.is_some()
                && (g.open..g.close)
                    .any(|j| v.lexed.tokens[j].kind == Tok::Ident && v.t(j) == f.name.as_slice())
        });
        if let Some(g) = caller {
            mixed.push((
                k,
                format!(
                    "called from `{}`, whose lanes come from {}",
                    String::from_utf8_lossy(&g.name),
                    g.why64.as_deref().unwrap_or("")
                ),
            ));
        }
    }
    for (k, why) in mixed {
        fns[k].warp = Warp::Mixed;
        fns[k].why64 = Some(why);
    }
}

/// The `n`th top-level argument of the call named at `name` when it is one token.
fn nth_arg(v: &View, name: usize, close: usize, n: usize) -> Option<usize> {
    let open = v.next(name)?;
    let mut depth = 0;
    let mut idx = 0;
    let mut toks = Vec::new();
    for j in open + 1..close {
        if !v.code(j) {
            continue;
        }
        match v.t(j) {
            b"(" | b"[" | b"{" => depth += 1,
            b")" | b"]" | b"}" => depth -= 1,
            b"," if depth == 0 => {
                idx += 1;
                continue;
            }
            _ => {}
        }
        if idx == n {
            toks.push(j);
        }
    }
    (toks.len() == 1).then(|| toks[0])
}

/// Regions run only by lanes 0–31 of the first wavefront: the branch of `if (threadIdx.x <
/// 32)` (or of a variable set to exactly `threadIdx.x`), of `if (warp == 0)` with `warp = tid /
/// 32`, and what follows `if (threadIdx.x >= 32) return;`.
fn guards(
    v: &View,
    body: &[usize],
    close: usize,
    exact: &HashSet<&[u8]>,
    warp: &HashSet<&[u8]>,
) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    for (k, &j) in body.iter().enumerate() {
        if v.t(j) != b"if" || !v.is(body.get(k + 1).copied(), "(") {
            continue;
        }
        let Some(end) = v.matching(body[k + 1]) else {
            continue;
        };
        let cond: Vec<usize> = body[k + 2..]
            .iter()
            .copied()
            .take_while(|&x| x < end)
            .collect();
        let texts: Vec<&[u8]> = cond.iter().map(|&x| v.t(x)).collect();
        let (thread, rest) = if texts.starts_with(&[b"threadIdx", b".", b"x"]) {
            (true, &cond[3..])
        } else if texts.first().is_some_and(|t| exact.contains(t)) {
            (true, &cond[1..])
        } else {
            (false, &cond[..])
        };
        let rt: Vec<&[u8]> = rest.iter().map(|&x| v.t(x)).collect();
        let last = rest.last().copied();
        let below_32 = thread && rt.len() == 2 && rt[0] == b"<" && v.val(last) == Some(32);
        let warp_0 = texts.len() == 4
            && warp.contains(texts[0])
            && texts[1..3] == [&b"="[..], b"="]
            && v.val(Some(cond[3])) == Some(0);
        let above = thread
            && rt.len() == 3
            && rt[0] == b">"
            && rt[1] == b"="
            && v.val(last) == Some(32)
            && v.is(v.next(end), "return");
        let guard = || {
            let a = v.lexed.tokens[body[k + 1]].end as usize;
            let b = v.lexed.tokens[end].start as usize;
            String::from_utf8_lossy(&v.src[a..b]).trim().to_string()
        };
        if above {
            out.push((end, close, guard()));
        } else if below_32 || warp_0 {
            if let Some(stmt_end) = statement_end(v, end) {
                out.push((end, stmt_end, guard()));
            }
        }
    }
    out
}

/// The last token of the statement after token `after` (a block, a `for`/`while` with its
/// body, or a statement up to its `;`).
fn statement_end(v: &View, after: usize) -> Option<usize> {
    let s = v.next(after)?;
    match v.t(s) {
        b"{" => v.matching(s),
        b"for" | b"while" | b"if" => {
            let open = v.next(s).filter(|&o| v.t(o) == b"(")?;
            statement_end(v, v.matching(open)?)
        }
        _ => {
            let mut j = s;
            let mut depth = 0;
            loop {
                match v.t(j) {
                    b"(" | b"[" | b"{" => depth += 1,
                    b")" | b"]" | b"}" => depth -= 1,
                    b";" if depth == 0 => return Some(j),
                    _ => {}
                }
                j = v.next(j)?;
            }
        }
    }
}

/// The hazard rules' side: a 32-lane reduction (HP104) or a ballot kept in 32 bits (HP106) that
/// the translator's safe rewrite handles becomes PASS naming the rewrite; in a function that
/// mixes 32- and 64-lane lanes the finding spells out the choice.
pub(super) fn settle(s: &crate::rules::syntax::Src, out: &mut [crate::finding::Finding]) {
    use crate::gate::Status;
    let (src, lexed) = (s.ctx.src, s.lexed);
    let m = LogicalWarps::of(src, lexed);
    if m.is_empty() {
        return;
    }
    for f in out
        .iter_mut()
        .filter(|f| matches!(f.rule.as_str(), "HP104" | "HP106") && f.status != Status::Pass)
    {
        let i = m.token_at(lexed, f.byte_range.0);
        let (why32, why64) = m.evidence(i);
        let (why32, why64) = (why32.unwrap_or(""), why64.unwrap_or(""));
        match (f.rule.as_str(), m.warp_at(i)) {
            ("HP104", Warp::Logical32) if m.reduction_handled(src, lexed, f.byte_range.0) => {
                f.status = Status::Pass;
                f.message.push_str(&format!(", but the function's lanes are 32-lane logical warps ({why32}) and `hipport port` passes width 32 to its shuffles, so each half of the wavefront reduces as one CUDA warp (safe rewrite, HP109: nothing to change)"));
                f.suggestion = None;
            }
            ("HP104", Warp::Mixed) => {
                f.message.push_str(&format!("; the function mixes 32-lane logical warps ({why32}) with wavefront lanes ({why64})"));
                f.suggestion = Some("choose: keep 32-lane logical warps (`hipport port --unsafe-fixes` passes width 32 to the shuffles) or move the kernel to 64 lanes (`warpSize` for lane ids, offsets and masks)".into());
            }
            ("HP106", Warp::Logical32) if m.ballots_rewritten(src, lexed, i) => {
                f.status = Status::Pass;
                f.message.push_str(&format!(", but the function's lanes are 32-lane logical warps ({why32}) and `hipport port` keeps each lane's own 32-bit half of the ballot (`(unsigned int)(… >> (__lane_id() & 32))`, safe rewrite, HP109: nothing to change)"));
                f.suggestion = None;
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(src: &str) -> (LogicalWarps, Lexed) {
        let lexed = crate::lex::lex(src.as_bytes());
        (LogicalWarps::of(src.as_bytes(), &lexed), lexed)
    }
    fn tok(src: &str, lexed: &Lexed, needle: &str, nth: usize) -> usize {
        let at = src.match_indices(needle).nth(nth).expect("needle").0;
        lexed
            .tokens
            .iter()
            .position(|t| t.start as usize == at)
            .expect("a token")
    }

    const LOGICAL: &str = "__global__ void k(const float* x, float* out) {\n  int tid = threadIdx.x;\n  int lane = tid & 31;\n  float v = x[tid];\n  for (int i = 16; i > 0; i >>= 1) v += __shfl_down_sync(0xffffffff, v, i);\n  float f = __shfl_sync(0xffffffff, v, 0);\n  unsigned int b = __ballot_sync(0xffffffff, v > f);\n  if (lane == 0) out[tid / 32] = v + __popc(b);\n}\n";

    #[test]
    fn thirty_two_lane_logical_warps_get_safe_rewrites() {
        let (m, lx) = model(LOGICAL);
        let i = tok(LOGICAL, &lx, "__shfl_down_sync", 0);
        assert_eq!(m.warp_at(i), Warp::Logical32);
        let p = m.plan(LOGICAL.as_bytes(), &lx, i).expect("a plan");
        assert_eq!(p.applicability, Applicability::Safe);
        assert!(matches!(p.rewrite, Rewrite::Width32 { .. }));
        assert_eq!(p.why32, "`& 31`");
        let b = tok(LOGICAL, &lx, "__ballot_sync", 0);
        let p = m.plan(LOGICAL.as_bytes(), &lx, b).expect("a ballot plan");
        assert!(matches!(p.rewrite, Rewrite::OwnHalfBallot { .. }));
        assert!(m.ballots_rewritten(LOGICAL.as_bytes(), &lx, b));
        // A shuffle that already passes a width needs nothing.
        let w = "__device__ float f(float v) {\n  int lane = threadIdx.x % 32;\n  return __shfl_xor(v, 1, 32) + lane;\n}\n";
        let (m, lx) = model(w);
        assert!(m
            .plan(w.as_bytes(), &lx, tok(w, &lx, "__shfl_xor", 0))
            .is_none());
    }

    #[test]
    fn wavefront_lanes_keep_the_64_lane_form() {
        // The negative twin: lanes from `warpSize`, offsets from `warpSize / 2`.
        let src = "__global__ void k(const float* x, float* out) {\n  int lane = threadIdx.x % warpSize;\n  float v = x[threadIdx.x];\n  for (int i = warpSize / 2; i > 0; i >>= 1) v += __shfl_down_sync(0xffffffff, v, i);\n  unsigned int b = __ballot_sync(0xffffffff, v > 0);\n  if (lane == 0) out[0] = v + b;\n}\n";
        let (m, lx) = model(src);
        let i = tok(src, &lx, "__shfl_down_sync", 0);
        assert_eq!(m.warp_at(i), Warp::Wavefront);
        assert!(m.plan(src.as_bytes(), &lx, i).is_none());
        assert!(m
            .plan(src.as_bytes(), &lx, tok(src, &lx, "__ballot_sync", 0))
            .is_none());
    }

    #[test]
    fn mixed_lanes_are_unsafe() {
        let src = "__global__ void k(float* out) {\n  int lane = threadIdx.x % warpSize;\n  float v = lane;\n  for (int i = 16; i > 0; i >>= 1) v += __shfl_down(v, i);\n  out[lane] = v;\n}\n";
        let (m, lx) = model(src);
        let i = tok(src, &lx, "__shfl_down", 0);
        assert_eq!(m.warp_at(i), Warp::Mixed);
        let p = m.plan(src.as_bytes(), &lx, i).expect("a plan");
        assert_eq!(p.applicability, Applicability::Unsafe);
        assert_eq!(p.why64.as_deref(), Some("`warpSize`"));
    }

    #[test]
    fn lane_bounded_branches_run_lanes_0_to_31() {
        let src = "__global__ void k(float* s) {\n  int tid = threadIdx.x;\n  int warp = tid / 32;\n  float v = s[tid];\n  if (threadIdx.x < 32) {\n    v += __shfl_down_sync(0xffffffff, v, 16);\n  }\n  if (tid < 32) v += __shfl_down_sync(0xffffffff, v, 8);\n  if (warp == 0) v += __shfl_down_sync(0xffffffff, v, 4);\n  if (tid < 64) v += __shfl_down_sync(0xffffffff, v, 2);\n  v += __shfl_down_sync(0xffffffff, v, 1);\n  s[tid] = v;\n}\n";
        let (m, lx) = model(src);
        let at = |n| tok(src, &lx, "__shfl_down_sync", n);
        assert_eq!(m.first32(at(0)), Some("threadIdx.x < 32"));
        assert_eq!(m.first32(at(1)), Some("tid < 32"));
        assert_eq!(m.first32(at(2)), Some("warp == 0"));
        assert_eq!(m.first32(at(3)), None);
        assert_eq!(m.first32(at(4)), None);
        let early = "__global__ void k(float* s) {\n  if (threadIdx.x >= 32) return;\n  s[0] = __shfl_sync(0xffffffff, s[1], 0);\n}\n";
        let (m, lx) = model(early);
        assert!(m.first32(tok(early, &lx, "__shfl_sync", 0)).is_some());
    }

    #[test]
    fn an_offsets_only_helper_takes_its_callers_warp() {
        let helper = "__device__ float warp_sum(float v) {\n  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffff, v, o);\n  return v;\n}\n";
        // Called from a kernel of 32-lane logical warps: safe.
        let logical = format!("{helper}__global__ void k(float* p) {{\n  int lane = threadIdx.x & 31;\n  p[lane] = warp_sum(p[lane]);\n}}\n");
        let (m, lx) = model(&logical);
        assert_eq!(
            m.warp_at(tok(&logical, &lx, "__shfl_xor_sync", 0)),
            Warp::Logical32
        );
        // The twin: called from a kernel whose lanes come from `warpSize`: a choice.
        let wave = format!("{helper}__global__ void k(float* p) {{\n  int lane = threadIdx.x % warpSize;\n  p[lane] = warp_sum(p[lane]);\n}}\n");
        let (m, lx) = model(&wave);
        let i = tok(&wave, &lx, "__shfl_xor_sync", 0);
        assert_eq!(m.warp_at(i), Warp::Mixed);
        assert_eq!(
            m.evidence(i).1,
            Some("called from `k`, whose lanes come from `warpSize`")
        );
    }

    #[test]
    fn a_file_constant_counts_as_its_value() {
        let src = "#define LANES 32\n__global__ void k(float* s) {\n  int lane = threadIdx.x % LANES;\n  s[0] = __shfl_sync(0xffffffff, s[1], 0) + lane;\n}\n";
        let (m, lx) = model(src);
        assert_eq!(m.warp_at(tok(src, &lx, "__shfl_sync", 0)), Warp::Logical32);
        // A warp size from another header is not known to be 32: not safe.
        let other = "__global__ void k(float* s) {\n  int lane = threadIdx.x % WARP_SIZE;\n  int w = threadIdx.x / 32;\n  s[w] = __shfl_sync(0xffffffff, s[1], 0) + lane;\n}\n";
        let (m, lx) = model(other);
        assert_eq!(m.warp_at(tok(other, &lx, "__shfl_sync", 0)), Warp::Mixed);
    }
}
