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
use crate::model::syntax::int_value;
use std::collections::{HashMap, HashSet};

mod calls;
mod cub;
pub(crate) mod exchange;
mod facts;
mod in_macros;
mod masks;
mod overloads;
mod settle;
mod votes;
mod warp_ids;
pub(crate) use calls::function_calls;
pub(crate) use exchange::warp_work_macros;
use facts::{callers, constants, function, lane_macros, statement_end};
pub(crate) use in_macros::macro_calls;
pub(crate) use masks::{narrow_returns, narrow_types, takes_mask, MaskFix, WHOLE_HALF};
pub(crate) use overloads::Overload;
pub(crate) use settle::{settle, settle_launchers, EVERY_USE};
pub(crate) use votes::around as vote_text;
use votes::VOTES;

rule!(LOGICAL_WARP_REWRITE, "HP109", WarpSize, Pass, Correctness,
    summary: "A warp-level intrinsic of a function whose lanes are 32-lane logical warps (`lane = tid & 31`, `warp = tid / 32`, shuffle offsets 16…1), rewritten by `hipport port` to keep CUDA's meaning on 64-lane wavefronts: width 32 on shuffles, the 32-bit ballot of the lane's own half where the result is kept as a 32-bit mask. PASS when the function shows only 32-lane logical warps (safe rewrite, applied); REMEDIATION when it also computes lanes from `warpSize` or `__lane_id()` (unsafe: not applied unless `port --unsafe-fixes`), UNKNOWN once applied unsafely. A match or reduction (`__match_any_sync`, `__reduce_add_sync`) in such a function has no meaning-keeping rewrite: REMEDIATION with the choice spelled out.",
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
    /// Replace the vote (name token to its `)`) by the test of the lane's own half of a ballot
    /// of its predicate (tokens `pred.0..=pred.1`): `all` or any (`votes::around`).
    OwnHalfVote {
        all: bool,
        pred: (usize, usize),
        close: usize,
    },
}

/// A rewrite with its applicability and the evidence that decided it.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    pub rewrite: Rewrite,
    pub applicability: Applicability,
    /// What shows 32-lane logical warps (`& 31`), and, when unsafe, what shows 64 lanes.
    pub why32: String,
    pub why64: Option<String>,
    /// Whether the call keeps CUDA's meaning without the rewrite (an xor by less than 32
    /// stays in its 32-lane half at any width): the rewrite only writes it as AMD's ports do.
    pub kept: bool,
}

/// The facts of one function body (token indices of its braces).
#[derive(Debug)]
struct Function {
    open: usize,
    close: usize,
    /// The first token of its declaration read here: `template` of its template header
    /// (`template <int W = 32>`), else its parameter list's `(` (else `open`).
    head: usize,
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
    /// The xor shuffles (their name tokens, in order) whose lane mask stays below 32: they
    /// never leave the lane's 32-lane half, so they keep CUDA's meaning at any width.
    narrow_xors: Vec<usize>,
    /// The calls of project shuffle wrappers (name tokens) that reduce down or by xor in a
    /// loop from offset 16: lane 0 of each 32-lane half gets CUDA's value at any width.
    reducing_wrappers: Vec<usize>,
}

/// The model of one file.
#[derive(Debug, Default)]
pub(crate) struct LogicalWarps {
    fns: Vec<Function>,
    /// File constants worth a 32-bit full mask (`#define FULL_MASK 0xffffffff`).
    full_masks: Vec<Vec<u8>>,
    /// CUB warp primitives (`cub::WarpReduce<T>`) and whether width 32 keeps their meaning.
    cubs: Vec<cub::Cub>,
    /// The file's declarations masks may name, read on the first mask asked about.
    decls: std::sync::OnceLock<masks::Decls>,
    /// The CUB primitives that keep CUDA's meaning, as lookups.
    cub_ok: std::sync::OnceLock<cub::CubOk>,
    /// Functions the included project headers declare with a 32-bit return type.
    included_narrow: HashSet<Vec<u8>>,
    /// Names the file and its project headers declare as 32-bit integer types
    /// (`typedef uint32_t PxU32;`).
    narrow_types: HashSet<Vec<u8>>,
    /// Calls (token of the name) that may reach the project's own overload of the intrinsic.
    overloads: std::collections::BTreeMap<usize, Overload>,
    /// Functions of the included project headers whose lanes are 32-lane logical warps and
    /// whose warp-level calls `port` rewrites safely ([`logical32_helpers`]).
    included_logical32: HashSet<Vec<u8>>,
    /// The project's shuffle wrappers the file sees ([`View::wrappers`]).
    wrappers: HashMap<Vec<u8>, Vec<u8>>,
    /// The file's own ballot wrappers ([`crate::model::project::ballot_functions`]), read in
    /// the same pass as its shuffle wrappers: the ballot rule asks for them here.
    pub(crate) own_ballots: Vec<crate::model::project::Wrapper>,
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
    /// Constants of the file (`#define NAME 32`, `constexpr int NAME = 32;`), then those of
    /// the project headers it includes where the file does not define the name.
    consts: HashMap<&'a [u8], u64>,
    /// Object-like macros (the file's, then its headers') whose body is lane or warp arithmetic
    /// of a thread index (`#define WARP_ID (threadIdx.x >> LOG)`): whether it shows 32-lane
    /// warps (else 64), and the evidence's text.
    lanes: HashMap<Vec<u8>, (bool, String)>,
    /// Names the file and its project headers declare as integer types of 32 bits or fewer
    /// (`typedef uint32_t PxU32;`), where the caller knows them.
    aliases: Option<&'a HashSet<Vec<u8>>>,
    /// The project's shuffle wrappers the file sees (its own and its headers'): functions that
    /// only return a shuffle of one direction (`aa_shfl_down`), with that direction's
    /// mask-less intrinsic (`__shfl_down`).
    wrappers: Option<&'a HashMap<Vec<u8>, Vec<u8>>>,
}

impl<'a> View<'a> {
    /// The file's tokens alone, without constants or lane macros (looked up later, or not
    /// needed by the caller).
    fn bare(src: &'a [u8], lexed: &'a Lexed) -> View<'a> {
        View {
            src,
            lexed,
            consts: HashMap::new(),
            lanes: HashMap::new(),
            aliases: None,
            wrappers: None,
        }
    }

    /// A type word of 32 bits or fewer: a built-in one, or a name the file or its project
    /// headers declare as one (`typedef uint32_t PxU32;`, `using u32 = unsigned;`).
    fn narrow_word(&self, w: &[u8]) -> bool {
        NARROW.iter().any(|n| n.as_bytes() == w)
            || w == b"unsigned"
            || w == b"signed"
            || self.aliases.is_some_and(|a| a.contains(w))
    }

    fn t(&self, i: usize) -> &'a [u8] {
        self.lexed.tokens[i].text(self.src)
    }
    /// The mask-less intrinsic of the project shuffle wrapper called at `i` (`aa_shfl_down(`).
    fn wrapper(&self, i: usize) -> Option<&'a [u8]> {
        let w = self.wrappers?.get(self.t(i))?;
        (self.is(self.next(i), "(") && !self.is(self.prev(i), ".")).then_some(w.as_slice())
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
    /// The value of a literal, of a file constant, or of a parenthesised constant expression
    /// starting at `i` (`(WARP_SIZE - 1)`).
    fn val(&self, i: Option<usize>) -> Option<u64> {
        let i = i?;
        match self.lexed.tokens[i].kind {
            Tok::Number => int_value(std::str::from_utf8(self.t(i)).ok()?),
            Tok::Ident => self.consts.get(self.t(i)).copied(),
            _ if self.t(i) == b"(" => self.expr(i, self.matching(i)?),
            _ => None,
        }
    }
    /// The value of the constant expression from token `first` to `last`.
    fn expr(&self, first: usize, last: usize) -> Option<u64> {
        self.expr_in(first, last, &self.consts)
    }
    /// [`View::expr`] with the names' values in `consts`.
    fn expr_in(&self, first: usize, last: usize, consts: &HashMap<&[u8], u64>) -> Option<u64> {
        let text = &self.src
            [self.lexed.tokens[first].start as usize..self.lexed.tokens[last].end as usize];
        crate::model::const_expr::eval(std::str::from_utf8(text).ok()?, &|n| {
            consts.get(n.as_bytes()).copied()
        })
    }
    /// The text of the operand starting at token `i`: the token, or the parenthesised
    /// expression it opens.
    fn operand_text(&self, i: usize) -> String {
        let last = if self.t(i) == b"(" {
            self.matching(i).unwrap_or(i)
        } else {
            i
        };
        let text =
            &self.src[self.lexed.tokens[i].start as usize..self.lexed.tokens[last].end as usize];
        String::from_utf8_lossy(text)
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }
    /// Whether token `i` is a `,` or the token `end`: the end of a template argument.
    fn matches_comma_or(&self, i: Option<usize>, end: usize) -> bool {
        i.is_some_and(|i| i == end || self.t(i) == b",")
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
        .chain(VOTES)
        .find(|n| n.as_bytes() == t)
        .copied()
        .unwrap_or("")
}

/// The named functions of a file (a header the project model reads once) whose lanes are
/// 32-lane logical warps and whose every warp-level call `port` rewrites safely, read on their
/// own: a caller in another file may count on them (llm.c's `warpReduceSum` in
/// `dev/cuda/common.h`, offsets 16…1, called by kernels that count warps with `/ 32`).
pub(crate) fn logical32_helpers(path: &str, src: &[u8], lexed: &Lexed) -> Vec<String> {
    let m = LogicalWarps::seeing(path, src, lexed, &crate::model::project::NOTHING);
    let mut out: Vec<String> = m
        .fns
        .iter()
        .filter(|f| !f.name.is_empty() && f.warp != Warp::Mixed)
        .filter(|f| {
            m.handled(src, lexed, f.open + 1)
                .is_some_and(|(a, _)| a == Applicability::Safe)
        })
        .map(|f| String::from_utf8_lossy(&f.name).into_owned())
        .collect();
    out.sort();
    out.dedup();
    out
}

impl LogicalWarps {
    /// Reads the file's function bodies. Cheap when the file has no warp-level call.
    #[cfg(test)]
    pub(crate) fn of(src: &[u8], lexed: &Lexed) -> LogicalWarps {
        Self::seeing("k.cu", src, lexed, &crate::model::project::NOTHING)
    }

    /// [`LogicalWarps::of`] for a file of a project: the constants and lane macros of the
    /// project headers it includes (`env`) count where the file does not define the name. A
    /// kernel of a compilation unit (`path` not a header) that every launch in the file gives
    /// 32-thread rows works in 32-lane logical warps: its rows are CUDA's warps.
    pub(crate) fn seeing<'a>(
        path: &str,
        src: &'a [u8],
        lexed: &'a Lexed,
        env: &'a crate::model::project::Visible,
    ) -> LogicalWarps {
        let (own_ballots, own_wrappers) = crate::model::project::warp_wrappers(src, lexed);
        let warp_level = lexed.tokens.iter().any(|t| {
            t.kind == Tok::Ident && {
                let x = t.text(src);
                warp_level_name(x)
                    || x == b"WarpReduce"
                    || x == b"WarpScan"
                    // A call of an included helper of 32-lane logical warps is warp-level work
                    // of the caller (llm.c's kernels that reduce with `common.h`'s
                    // `warpReduceSum` and nothing else).
                    || std::str::from_utf8(x).is_ok_and(|n| {
                        env.logical32.contains(n) || env.shuffle_wrappers.contains_key(n)
                    })
            }
        }) || !own_wrappers.is_empty();
        if !warp_level {
            return LogicalWarps {
                own_ballots,
                ..LogicalWarps::default()
            };
        }
        let wrappers: HashMap<Vec<u8>, Vec<u8>> = env
            .shuffle_wrappers
            .iter()
            .map(|(n, (f, _))| (n.as_bytes().to_vec(), f.as_bytes().to_vec()))
            .chain(
                own_wrappers
                    .into_iter()
                    .map(|(n, f, _)| (n.into_bytes(), f.into_bytes())),
            )
            .collect();
        let mut v = View::bare(src, lexed);
        v.wrappers = Some(&wrappers);
        let own: HashSet<&[u8]> = lexed
            .directives
            .iter()
            .filter(|d| d.name == "define")
            .filter_map(|d| d.tokens.clone().nth(2).map(|n| lexed.tokens[n].text(src)))
            .collect();
        let mut consts = HashMap::new();
        for (name, (value, _)) in &env.constants {
            if !own.contains(name.as_bytes()) {
                consts.insert(name.as_bytes(), *value);
            }
        }
        constants(&v, &mut consts);
        v.consts = consts;
        v.lanes = lane_macros(&v, &own, env);
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
        if !crate::model::project::is_header(path) {
            facts::launched_in_rows32(&v, path, &mut fns);
        }
        callers(&v, &mut fns);
        let cubs = cub::cubs(&v, &fns);
        let full_masks = v
            .consts
            .iter()
            .filter(|(_, &n)| n == 0xffff_ffff)
            .map(|(k, _)| k.to_vec())
            .collect();
        LogicalWarps {
            fns,
            full_masks,
            cubs,
            decls: Default::default(),
            cub_ok: Default::default(),
            included_narrow: env
                .narrow_returns
                .iter()
                .map(|n| n.as_bytes().to_vec())
                .collect(),
            overloads: overloads::reached(&v, path, env),
            included_logical32: env
                .logical32
                .iter()
                .map(|n| n.as_bytes().to_vec())
                .collect(),
            wrappers: wrappers.clone(),
            narrow_types: env
                .narrow_types
                .iter()
                .map(|n| n.as_bytes().to_vec())
                .chain(narrow_types(src, lexed).into_iter().map(String::into_bytes))
                .collect(),
            own_ballots,
        }
    }

    /// The project's overload the warp-level call named by token `i` may reach, if any.
    pub(crate) fn overload(&self, i: usize) -> Option<&Overload> {
        self.overloads.get(&i)
    }

    /// The rewrite the model would make at token `i` and the project overload that withholds
    /// it: the overload does not take the rewritten call (`hipport port` leaves it, HP023).
    pub(crate) fn withheld(
        &self,
        src: &[u8],
        lexed: &Lexed,
        i: usize,
    ) -> Option<(Plan, &Overload)> {
        let o = self.overloads.get(&i)?;
        let plan = self.plan_any(src, lexed, i)?;
        (!self.takes(src, lexed, i, &plan)).then_some((plan, o))
    }

    /// The file's tokens with the 32-bit type names the file and its headers declare.
    fn view<'s>(&'s self, src: &'s [u8], lexed: &'s Lexed) -> View<'s> {
        View {
            aliases: Some(&self.narrow_types),
            wrappers: Some(&self.wrappers),
            ..View::bare(src, lexed)
        }
    }

    /// Whether the overload the call at `i` may reach (if any) takes `plan`'s rewrite: only a
    /// width, and only where it has a parameter for it.
    fn takes(&self, src: &[u8], lexed: &Lexed, i: usize, plan: &Plan) -> bool {
        let Some(o) = self.overloads.get(&i) else {
            return true;
        };
        let v = self.view(src, lexed);
        match plan.rewrite {
            Rewrite::Width32 { .. } => v.call(i).is_some_and(|(n, _)| o.arity.1 > n),
            _ => false,
        }
    }

    /// The function whose body holds token `i` (bodies do not overlap and are in order).
    fn function(&self, i: usize) -> Option<&Function> {
        let k = self.fns.partition_point(|f| f.close <= i);
        self.fns.get(k).filter(|f| f.open < i && i < f.close)
    }

    /// The function whose declaration or body holds token `i`: a template parameter's
    /// default (`template <int W = WARP_SIZE>`) or a default argument belongs to the function.
    fn declaring(&self, i: usize) -> Option<&Function> {
        let k = self.fns.partition_point(|f| f.close <= i);
        self.fns.get(k).filter(|f| f.head <= i && i < f.close)
    }

    /// The function around token `i` and how a rewrite of its warp-level calls applies: safe
    /// where its lanes are 32-lane logical warps, unsafe where it mixes them with wavefront
    /// lanes; `None` where its lanes are the wavefront's.
    fn rewritable(&self, i: usize) -> Option<(&Function, Applicability)> {
        let f = self.function(i)?;
        let applicability = match f.warp {
            Warp::Logical32 => Applicability::Safe,
            Warp::Mixed => Applicability::Unsafe,
            Warp::Wavefront => return None,
        };
        Some((f, applicability))
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
        self.plan_any(src, lexed, i)
            .filter(|plan| self.takes(src, lexed, i, plan))
    }

    /// [`Self::plan`] whatever overload the call may reach.
    fn plan_any(&self, src: &[u8], lexed: &Lexed, i: usize) -> Option<Plan> {
        let t = lexed.tokens.get(i)?.text(src);
        if !warp_level_name(t) {
            return None;
        }
        let (f, applicability) = self.rewritable(i)?;
        let kept = f.narrow_xors.binary_search(&i).is_ok();
        let v = self.view(src, lexed);
        let name = name_of(&v, i);
        let rewrite = if SHUFFLES.contains(&name) {
            let (n, close) = v.call(i)?;
            let without_width = if name.ends_with("_sync") { 3 } else { 2 };
            (n == without_width).then_some(Rewrite::Width32 { close })?
        } else if BALLOTS.contains(&name) {
            let (_, close) = v.call(i)?;
            // `return __ballot(v);` in a function the file declares with a 32-bit return type.
            let returned = v.is(v.prev(i), "return") && self.returns_narrow(&v, &f.name);
            ((kept_in_32_bits(&v, i) || returned) && !v.is(v.next(close), ">"))
                .then_some(Rewrite::OwnHalfBallot { close })?
        } else if VOTES.contains(&name) {
            votes::plan(&v, i, name, &self.full_masks)?
        } else {
            return None;
        };
        Some(Plan {
            rewrite,
            applicability,
            why32: f.why32.clone().unwrap_or_default(),
            why64: f.why64.clone(),
            kept,
        })
    }

    /// Whether every ballot of the function around token `i` that is kept in 32 bits gets the
    /// safe own-half rewrite, and the function has at least one such ballot.
    pub(crate) fn ballots_rewritten(&self, src: &[u8], lexed: &Lexed, i: usize) -> bool {
        let Some(f) = self.function(i) else {
            return false;
        };
        let v = self.view(src, lexed);
        let ballots: Vec<usize> = (f.open..f.close)
            .filter(|&j| v.code(j) && BALLOTS.contains(&name_of(&v, j)) && !mask_argument(&v, j))
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
        let v = self.view(src, lexed);
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
            // A shuffle's argument: its call is the name before the `(` that encloses it,
            // however long the arguments before it (`__shfl_xor_sync(~0u, acc[p][k], 16)`).
            let mut depth = 0i32;
            let mut open = None;
            for j in (0..i).rev().take(256) {
                if !v.code(j) {
                    continue;
                }
                match v.t(j) {
                    b")" | b"]" => depth += 1,
                    b"(" | b"[" if depth > 0 => depth -= 1,
                    b"(" => {
                        open = Some(j);
                        break;
                    }
                    b";" | b"{" | b"}" => break,
                    _ => {}
                }
            }
            let start = Some(i)
                .filter(|&j| SHUFFLES.contains(&name_of(&v, j)))
                .or_else(|| open.and_then(|o| v.prev(o)))
                .filter(|&j| SHUFFLES.contains(&name_of(&v, j)));
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

    /// The project shuffle wrapper of a 32-lane reduction loop at byte `at` (HP104's `for`) in
    /// a function of 32-lane logical warps, when every exchange of the loop goes through
    /// wrappers of `__shfl_down` or `__shfl_xor` (astro-accelerate's `aa_shfl_down`, whose HIP
    /// arm is `__shfl_down(XX, YY)`, width 64). Offsets from 16 down never carry a value across
    /// the 32-lane halves into the lanes that hold a result: lane 0 of each half (down) or
    /// every lane (xor) gets what it gets in CUDA, with or without width 32. `port` cannot
    /// give the wrapper's callers a width, and need not.
    pub(crate) fn wrapped_reduction(&self, src: &[u8], lexed: &Lexed, at: usize) -> Option<String> {
        let i = self.token_at(lexed, at);
        if self.warp_at(i) != Warp::Logical32 || i >= lexed.tokens.len() {
            return None;
        }
        let v = self.view(src, lexed);
        if v.t(i) != b"for" {
            return None;
        }
        let end = v
            .next(i)
            .and_then(|o| v.matching(o))
            .and_then(|e| statement_end(&v, e))?;
        let mut names = Vec::new();
        for j in i..end {
            if !v.code(j) {
                continue;
            }
            if SHUFFLES.contains(&name_of(&v, j)) {
                return None;
            }
            if v.wrapper(j).is_some() {
                if !self.function(j)?.reducing_wrappers.contains(&j) {
                    return None;
                }
                let n = String::from_utf8_lossy(v.t(j)).into_owned();
                if !names.contains(&n) {
                    names.push(n);
                }
            }
        }
        (!names.is_empty()).then(|| {
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        })
    }

    /// Whether every definition of kernel `name` in the file works in 32-lane logical warps
    /// whose warp-level calls keep CUDA's meaning on a 64-lane wavefront (each already passes
    /// width 32, or `port` rewrites it safely): the 32-lane logical warp and what keeps it.
    /// `None` when the file defines no such function or one definition is otherwise.
    pub(crate) fn kernel_keeps_32(
        &self,
        src: &[u8],
        lexed: &Lexed,
        name: &str,
    ) -> Option<(String, String)> {
        let defs: Vec<&Function> = self
            .fns
            .iter()
            .filter(|f| !f.name.is_empty() && f.name == name.as_bytes())
            .collect();
        let mut out = None;
        for f in &defs {
            if f.warp != Warp::Logical32 {
                return None;
            }
            match self.handled(src, lexed, f.open + 1)? {
                (Applicability::Safe, what) => {
                    out.get_or_insert((f.why32.clone().unwrap_or_default(), what));
                }
                _ => return None,
            }
        }
        out
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
/// Whether the call at `i` is the mask argument of a `_sync` intrinsic (`__ballot_sync(
/// __activemask(), p)`), which HIP takes as 64 bits, whatever the statement keeps of the outer
/// call's result.
fn mask_argument(v: &View, i: usize) -> bool {
    let p = v.prev(i);
    v.is(p, "(")
        && p.and_then(|p| v.prev(p))
            .is_some_and(|q| v.t(q).ends_with(b"_sync"))
}

fn kept_in_32_bits(v: &View, i: usize) -> bool {
    if mask_argument(v, i) {
        return false;
    }
    if assigned_to_narrow(v, i) {
        return true;
    }
    // `__ballot_sync(m, p) == 0xffffffff`: compared with a 32-bit mask.
    if let Some(close) = v.next(i).and_then(|o| v.matching(o)) {
        let (a, b) = (v.next(close), v.next(close).and_then(|a| v.next(a)));
        if (v.is(a, "=") || v.is(a, "!"))
            && v.is(b, "=")
            && b.and_then(|b| v.next(b))
                .is_some_and(|c| narrow_all_ones(v, c))
        {
            return true;
        }
    }
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
    !words.is_empty() && words.iter().all(|w| v.narrow_word(w))
}

/// A 32-bit all-ones value starting at token `c`: `0xffffffff` (or a file constant of it), or
/// `~0u` (an `unsigned int`; `~0` is the `int` -1, which widens to 64 ones).
fn narrow_all_ones(v: &View, c: usize) -> bool {
    if v.val(Some(c)) == Some(0xffff_ffff) {
        return true;
    }
    v.t(c) == b"~"
        && v.next(c).is_some_and(|z| {
            v.lexed.tokens[z].kind == Tok::Number && v.t(z).eq_ignore_ascii_case(b"0u")
        })
}

/// A ballot inside the value of an assignment (`m &= x ^ __ballot_sync(…)`, `m = __ballot(p)
/// | t`) to a variable declared earlier with a 32-bit type (`unsigned m = 0xffffffff;`).
fn assigned_to_narrow(v: &View, i: usize) -> bool {
    // The statement's first token: after a `;`, `{` or `}` outside the call's parentheses.
    let mut depth = 0i32;
    let mut j = i;
    let mut start = None;
    for _ in 0..256 {
        let Some(p) = v.prev(j) else { break };
        match v.t(p) {
            b")" | b"]" => depth += 1,
            b"(" | b"[" => depth -= 1,
            b";" | b"{" | b"}" if depth <= 0 => {
                start = v.next(p);
                break;
            }
            _ => {}
        }
        j = p;
    }
    let Some(mut k) = start else {
        return false;
    };
    // The statement's first assignment at its top level, before the ballot.
    let mut depth = 0i32;
    let mut name = None;
    while k < i {
        match v.t(k) {
            b"(" | b"[" => depth += 1,
            b")" | b"]" => depth -= 1,
            b"=" if depth == 0 => {
                let p = v.prev(k);
                let compound = p.is_some_and(|p| matches!(v.t(p), b"&" | b"|" | b"^"));
                let comparison = p.is_some_and(|p| matches!(v.t(p), b"=" | b"!" | b"<" | b">"))
                    || v.is(v.next(k), "=");
                if !comparison {
                    name = if compound {
                        p.and_then(|p| v.prev(p))
                    } else {
                        p
                    };
                }
                break;
            }
            _ => {}
        }
        let Some(n) = v.next(k) else { break };
        k = n;
    }
    // An assignment right before the ballot inside a condition's parentheses
    // (`while ((queue = __ballot_sync(m, p)))`), where the statement's top level has none.
    let name = name.or_else(|| {
        let eq = v.prev(i).filter(|&e| v.t(e) == b"=")?;
        let before = v.prev(eq)?;
        (v.lexed.tokens[before].kind == Tok::Ident && v.is(v.prev(before), "(")).then_some(before)
    });
    let Some(name) = name.filter(|&n| v.lexed.tokens[n].kind == Tok::Ident) else {
        return false;
    };
    // Its declaration: `T name` with `T` a 32-bit type, earlier in the file.
    (0..=name)
        .rev()
        .take(20_000)
        .filter(|&d| v.code(d) && v.t(d) == v.t(name))
        .any(|d| {
            let p = v.prev(d);
            p.is_some_and(|p| v.narrow_word(v.t(p))) && !v.is(p.and_then(|p| v.prev(p)), "long")
        })
}

/// The name a finding's message starts with, in backquotes (`` `WARP_SIZE` fixes … ``).
fn quoted_name(message: &str) -> Option<String> {
    message
        .strip_prefix('`')
        .and_then(|r| r.split_once('`'))
        .map(|(n, _)| n.to_string())
}

/// `__match_any_sync`, `__match_all_sync`, `__reduce_add_sync` and the other reductions: they
/// work on the lanes of a 64-bit mask, and no rewrite confines them to a 32-lane half.
pub(crate) fn matched_or_reduced(x: &[u8]) -> bool {
    (x.starts_with(b"__reduce_") || x.starts_with(b"__match_")) && x.ends_with(b"_sync")
}

/// Whether a token names a warp-level call the model reads: shuffles, ballots, votes, and
/// `__syncwarp` (whose mask the translator sets to the lanes a branch runs).
pub(crate) fn warp_level_name(x: &[u8]) -> bool {
    x.starts_with(b"__shfl")
        || x.starts_with(b"__ballot")
        || x == b"__activemask"
        || x == b"__syncwarp"
        || matched_or_reduced(x)
        || VOTES.iter().any(|n| n.as_bytes() == x)
}

#[cfg(test)]
mod tests;
