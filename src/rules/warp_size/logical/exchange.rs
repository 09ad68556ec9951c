//! Lane groups that exchange nothing across lanes. A 32-lane id or warp id (`lane = tid & 31`,
//! `warp = tid >> 5`) is arithmetic, not a hazard: inside a 64-lane wavefront each half is one
//! 32-lane group, and the groups keep their meaning until something exchanges data between
//! lanes at the wavefront's width (a shuffle, a ballot or vote, a CUB or cooperative-groups warp
//! primitive, inline assembly with collective PTX: `shfl`, `vote`, `ldmatrix`, `mma`, lane ids;
//! a load, store or clock read in PTX is each lane's own) or computes lanes from the wavefront (`warpSize`, `__lane_id()`,
//! PTX `%laneid`). Those calls carry their own findings (HP104, HP106, HP107, HP110, HP201); a
//! function that makes none of them, directly or through the functions of this file it calls,
//! keeps CUDA's meaning, so its HP102 is PASS saying why. The warp-level code of functions
//! defined in other files is judged where it is defined (their file's own findings).
//!
//! Not settled: a function that also names a warp-size constant (`WARP_SIZE`) some use of which
//! in this file does not keep CUDA's meaning: a literal 32 beside it is a second spelling of the
//! width that a port of the constant leaves behind. A constant of an included header that this
//! file uses only where CUDA's meaning is kept gets a PASS at its first use
//! ([`INCLUDER_KEEPS`]), which the project pass reads before reopening the header's HP101.

use crate::finding::Finding;
use crate::gate::Status;
use crate::lex::{Tok, NO_DIRECTIVE};
use crate::model::hipside;
use crate::model::syntax::Src;
use std::collections::HashMap;

/// Tokens that exchange data across lanes or read the wavefront's lanes.
pub(super) fn exchanges(t: &[u8]) -> bool {
    (super::warp_level_name(t) && t != b"__syncwarp")
        || matches!(
            t,
            b"warpSize"
                | b"__lane_id"
                | b"WarpReduce"
                | b"WarpScan"
                | b"WarpExchange"
                | b"WarpLoad"
                | b"WarpStore"
                | b"tiled_partition"
                | b"thread_block_tile"
                | b"coalesced_threads"
                | b"coalesced_group"
                // WMMA's warp-collective operations: a fragment is spread over the lanes of
                // one warp (the whole 64-lane wavefront in rocWMMA), so 32-lane groups that
                // each load and multiply their own tiles split what AMD computes as one
                // (DLRM's `dot_based_interact.cu`: `kWarpSize = 32` rows of WMMA tiles).
                | b"load_matrix_sync"
                | b"store_matrix_sync"
                | b"mma_sync"
                | b"bmma_sync"
        )
}

/// A name in a macro body, and whether it is called.
type Named<'s> = (&'s [u8], bool);

/// The function-like macros a file defines whose body does warp-level work, directly or through
/// another such macro of the file (graphvite's `#define SUM(x) gpu::WarpBroadcast(gpu::WarpReduce(x), 0)`):
/// a function that calls one exchanges across lanes as the body does. Read from tokens (the
/// project model's pre-pass, and each file for its own macros).
/// A `#define` of a function-like macro (`# define NAME (`, the parenthesis touching the
/// name): its name token and the directive's tokens without comments (`#`, `define`, the name,
/// `(`, the parameters, the body).
pub(super) fn function_like(
    src: &[u8],
    lexed: &crate::lex::Lexed,
    d: &crate::lex::Directive,
) -> Option<(usize, Vec<usize>)> {
    let toks: Vec<usize> = d
        .tokens
        .clone()
        .filter(|&j| lexed.tokens[j].kind != Tok::Comment)
        .collect();
    let (&n, &p) = (toks.get(2)?, toks.get(3)?);
    let (tn, tp) = (lexed.tokens[n], lexed.tokens[p]);
    (tn.kind == Tok::Ident && tp.text(src) == b"(" && tp.start == tn.end).then_some((n, toks))
}

pub(crate) fn warp_work_macros(src: &[u8], lexed: &crate::lex::Lexed) -> Vec<String> {
    let mut defs: Vec<(String, Vec<Named>)> = Vec::new();
    for d in lexed.directives.iter().filter(|d| d.name == "define") {
        let Some((n, toks)) = function_like(src, lexed, d) else {
            continue;
        };
        let tn = lexed.tokens[n];
        // The body's names, each with whether it is called (`name(`): a name like a warp
        // primitive counts only as a call (`kWarpSize` in lane arithmetic is no exchange).
        let body: Vec<(&[u8], bool)> = toks[4..]
            .iter()
            .enumerate()
            .filter(|(_, &j)| lexed.tokens[j].kind == Tok::Ident)
            .map(|(x, &j)| {
                let called = toks
                    .get(4 + x + 1)
                    .is_some_and(|&n| lexed.tokens[n].text(src) == b"(");
                (lexed.tokens[j].text(src), called)
            })
            .collect();
        defs.push((String::from_utf8_lossy(tn.text(src)).into_owned(), body));
    }
    let mut out: Vec<String> = Vec::new();
    loop {
        let before = out.len();
        for (name, body) in &defs {
            if out.contains(name) {
                continue;
            }
            if body.iter().any(|&(t, called)| {
                (exchanges(t) && t != b"warpSize")
                    || (called
                        && (super::settle::warp_level_elsewhere(t)
                            || out.iter().any(|o| o.as_bytes() == t)))
            }) {
                out.push(name.clone());
            }
        }
        if out.len() == before {
            break;
        }
    }
    out.sort();
    out
}

fn is_asm(t: &str) -> bool {
    matches!(t, "asm" | "__asm__" | "__asm")
}

/// PTX that works across the lanes of a warp or reads the hardware lane: shuffles, votes and
/// matches, warp barriers and reductions, lane ids and masks, and the warp-collective matrix
/// instructions (`ldmatrix`, `mma.sync`, `wgmma`), whose fragments are spread over 32 lanes.
const COLLECTIVE_PTX: [&[u8]; 14] = [
    b"shfl",
    b"vote",
    b"match",
    b"redux",
    b"bar.warp",
    b"activemask",
    b"laneid",
    b"lanemask",
    b"ldmatrix",
    b"stmatrix",
    b"movmatrix",
    b"mma",
    b"elect",
    b"%warpid",
];

/// Whether the inline assembly statement starting at `code[0]` (its tokens to the closing `)`)
/// holds collective PTX ([`COLLECTIVE_PTX`]); a load, store, clock read or conversion
/// (`ld.global.cg`, `mov.u32 %0, %clock`) is each lane's own.
fn collective_asm(s: &Src, code: &[usize]) -> bool {
    let mut depth = 0i32;
    for &j in code.iter().skip(1) {
        let t = s.lexed.tokens[j];
        match t.text(s.ctx.src) {
            b"(" => depth += 1,
            b")" => {
                depth -= 1;
                if depth <= 0 {
                    return false;
                }
            }
            text if t.kind == Tok::Str
                && COLLECTIVE_PTX
                    .iter()
                    .any(|p| memchr::memmem::find(text, p).is_some()) =>
            {
                return true;
            }
            _ => {}
        }
    }
    // No closing parenthesis in the body: not read, so not known to be each lane's own.
    true
}

/// Settles the file's open HP102 findings in functions that exchange nothing across lanes, and
/// the HP101/HP103 constants used only there or only in code HIP never compiles. `regions` is
/// the model of which code HIP compiles ([`crate::model::hipside`]): tokens in a branch HIP
/// never compiles are not read.
pub(crate) fn settle(
    s: &Src,
    regions: &[hipside::Region],
    warps: &super::LogicalWarps,
    seen: &crate::model::project::Visible,
    out: &mut Vec<Finding>,
) {
    // The warp-size constants of the project headers this file includes (worth 32) that the
    // file names without defining them.
    let own: std::collections::HashSet<&str> = s
        .lexed
        .directives
        .iter()
        .filter(|d| d.name == "define")
        .filter_map(|d| d.tokens.clone().nth(2).map(|n| s.tok(n)))
        .collect();
    let header_names: Vec<&str> = seen
        .constants
        .iter()
        .filter(|(n, (v, _))| {
            *v == 32
                && n.as_str() != "warpSize"
                && super::super::warp_const_name(n)
                && !own.contains(n.as_str())
        })
        .map(|(n, _)| n.as_str())
        .filter(|n| s.idents().any(|(_, t)| t == *n))
        .collect();
    if header_names.is_empty()
        && !out.iter().any(|f| {
            matches!(f.rule.as_str(), "HP101" | "HP102" | "HP103") && f.status != Status::Pass
        })
    {
        return;
    }
    let (src, lexed) = (s.ctx.src, s.lexed);
    // PTX's hardware lane id anywhere in the file: its lanes are the wavefront's.
    let hardware_lane = lexed
        .tokens
        .iter()
        .any(|t| t.kind == Tok::Str && memchr::memmem::find(t.text(src), b"%laneid").is_some());
    if hardware_lane {
        return;
    }
    let Some(root) = s.tree.map(|t| t.root_node()) else {
        return;
    };
    use crate::kinds::cuda::{Field, Kind as K, NodeExt};
    let functions = s.descendants(root, K::FunctionDefinition);
    // The file's functions by name (every definition of an overloaded name).
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (k, f) in functions.iter().enumerate() {
        if let Some(name) = f
            .field(Field::Declarator)
            .and_then(|d| crate::model::syntax::function_name(s, d))
        {
            by_name.entry(name).or_default().push(k);
        }
    }
    // The branches HIP never compiles, merged and sorted: a token's lookup is a binary search.
    let mut never: Vec<std::ops::Range<usize>> = regions
        .iter()
        .filter(|r| matches!(r.side, hipside::Side::Never(_)))
        .map(|r| r.range.clone())
        .collect();
    never.sort_by_key(|r| r.start);
    let mut merged: Vec<std::ops::Range<usize>> = Vec::new();
    for r in never {
        match merged.last_mut() {
            Some(m) if r.start <= m.end => m.end = m.end.max(r.end),
            _ => merged.push(r),
        }
    }
    let dead = |at: usize| {
        let k = merged.partition_point(|r| r.end <= at);
        merged.get(k).is_some_and(|r| r.contains(&at))
    };
    let index_of: HashMap<usize, usize> = functions
        .iter()
        .enumerate()
        .map(|(k, g)| (g.id(), k))
        .collect();
    let mut warp_macros: std::collections::HashSet<String> =
        seen.warp_work_macros.iter().cloned().collect();
    warp_macros.extend(warp_work_macros(src, lexed));
    let no_fns = std::collections::BTreeSet::new();
    let cx = Cx {
        functions: &functions,
        by_name: &by_name,
        dead: &dead,
        root,
        index_of: &index_of,
        warp_macros: &warp_macros,
        warp_fns: seen.warp_fns.as_deref().unwrap_or(&no_fns),
    };
    let mut memo: HashMap<usize, bool> = HashMap::new();
    for f in out
        .iter_mut()
        .filter(|f| matches!(f.rule.as_str(), "HP101" | "HP103") && f.status != Status::Pass)
    {
        constant(s, &cx, &mut memo, f);
    }
    // Whether every use of a warp-size constant in this file keeps CUDA's meaning (the first
    // use's token when it does), once per name.
    let mut kept: HashMap<String, Option<usize>> = HashMap::new();
    let mut kept_here = |name: &str, memo: &mut HashMap<usize, bool>| -> Option<usize> {
        if let Some(k) = kept.get(name) {
            return *k;
        }
        let k = every_use_kept(s, &cx, warps, memo, name);
        kept.insert(name.to_string(), k);
        k
    };
    for f in out
        .iter_mut()
        .filter(|f| f.rule == "HP102" && f.status != Status::Pass)
    {
        let Some(k) = cx.function_at(s, f.byte_range.0) else {
            continue;
        };
        let quiet = quiet(s, &cx, k, &mut memo, 0);
        // A warp-size constant named beside the literal is a second spelling of the width,
        // unless every use of it here keeps CUDA's meaning (the constant stays 32).
        let unsettled = warp_size_names(s, functions[k])
            .into_iter()
            .any(|n| kept_here(n, &mut memo).is_none());
        if quiet && !unsettled {
            f.settle(QUIET);
        }
    }
    // A header's constant used here only where its 32-lane groups keep CUDA's meaning: one PASS
    // at the first use, which the project pass reads before reopening the header's finding.
    for name in header_names {
        let Some(j) = kept_here(name, &mut memo) else {
            continue;
        };
        let (value, at) = &seen.constants[name];
        let t = &s.lexed.tokens[j];
        let mut f = s.ctx.finding(
            &super::super::WARP_SIZE_CONSTANT,
            t.start as usize..t.end as usize,
            format!("`{name}` (worth {value}, from `{at}`){INCLUDER_KEEPS}"),
            None,
        );
        f.status = Status::Pass;
        out.push(f);
    }
}

/// What the PASS at an includer's first use of a header's warp-size constant says after the
/// name; [`crate::scan`] reads it before reopening the header's HP101.
pub(crate) const INCLUDER_KEEPS: &str = " is used in this file only in functions whose 32-lane groups keep CUDA's meaning on 64-lane wavefronts (they exchange nothing across lanes, or `hipport port` gives their warp-level calls width 32): here the constant is the logical warp's size (nothing to change)";

/// The first use of warp-size constant `name` in the code HIP compiles, where every such use is
/// in a function that exchanges nothing across lanes ([`quiet`]) or whose 32-lane logical
/// warps `port` rewrites safely ([`super::LogicalWarps::handled`]); `None` otherwise, or when
/// the file does not use it.
fn every_use_kept(
    s: &Src,
    cx: &Cx,
    warps: &super::LogicalWarps,
    memo: &mut HashMap<usize, bool>,
    name: &str,
) -> Option<usize> {
    let lexed = s.lexed;
    let mut first = None;
    for (j, t) in lexed.tokens.iter().enumerate() {
        if t.kind != Tok::Ident || s.tok(j) != name || (cx.dead)(t.start as usize) {
            continue;
        }
        if t.directive != NO_DIRECTIVE {
            // Its own definition is no use; another directive is read by code not placed.
            let d = &lexed.directives[t.directive as usize];
            if d.name == "define" && d.tokens.clone().nth(2) == Some(j) {
                continue;
            }
            return None;
        }
        let logical = || {
            warps.declaring(j).is_some_and(|g| {
                g.warp == super::Warp::Logical32
                    && matches!(
                        warps.handled(s.ctx.src, lexed, g.open + 1),
                        Some((super::Applicability::Safe, _))
                    )
            })
        };
        let ok = match cx.function_at(s, t.start as usize) {
            Some(k) => quiet(s, cx, k, memo, 0) || logical(),
            // Its own definition (`const int WARPSIZE = 32;`) is no use.
            None if definition(s, j) => continue,
            None => logical(),
        };
        if !ok {
            return None;
        }
        first.get_or_insert(j);
    }
    first
}

/// What a settled HP102 says.
const QUIET: &str = ", but nothing in this function exchanges data across lanes (no shuffle, ballot, vote, warp primitive or inline assembly, here, in the functions of this file it calls, or in the project headers' device functions it calls) and nothing computes lanes from the wavefront: each half of a 64-lane wavefront is one such 32-lane group, so the ids keep CUDA's meaning (nothing to change)";

/// The code tokens of function `k` (its whole definition).
fn tokens(s: &Src, n: tree_sitter::Node) -> std::ops::Range<usize> {
    let lexed = s.lexed;
    let a = lexed
        .tokens
        .partition_point(|t| (t.start as usize) < n.start_byte());
    let b = lexed
        .tokens
        .partition_point(|t| (t.start as usize) < n.end_byte());
    a..b
}

/// What [`quiet`] reads: the file's functions, by name, and which offsets HIP never compiles.
struct Cx<'a, 'b> {
    functions: &'a [tree_sitter::Node<'b>],
    by_name: &'a HashMap<&'b str, Vec<usize>>,
    dead: &'a dyn Fn(usize) -> bool,
    root: tree_sitter::Node<'b>,
    /// A function's index in `functions`, by node id.
    index_of: &'a HashMap<usize, usize>,
    /// Function-like macros of this file and its project headers that do warp-level work.
    warp_macros: &'a std::collections::HashSet<String>,
    /// Functions of the project's headers that do warp-level work.
    warp_fns: &'a std::collections::BTreeSet<String>,
}

impl Cx<'_, '_> {
    /// The innermost function around byte `at`, as an index into `functions`.
    fn function_at(&self, s: &Src, at: usize) -> Option<usize> {
        let node = self.root.descendant_for_byte_range(at, at)?;
        let g = s.enclosing_function(node)?;
        self.index_of.get(&g.id()).copied()
    }
}

/// Whether function `k`, and the functions of this file it calls (a few levels deep), make no
/// cross-lane exchange and read no wavefront lane in the code HIP compiles.
fn quiet(s: &Src, cx: &Cx, k: usize, memo: &mut HashMap<usize, bool>, depth: usize) -> bool {
    let (functions, by_name) = (cx.functions, cx.by_name);
    if let Some(&q) = memo.get(&k) {
        return q;
    }
    if depth > 4 {
        return false;
    }
    // Provisionally quiet while its callees are read (recursion ends here).
    memo.insert(k, true);
    let lexed = s.lexed;
    // The body (its own name and parameters are no call), else the whole definition.
    let body = functions[k]
        .child_by_field_name("body")
        .unwrap_or(functions[k]);
    let code: Vec<usize> = tokens(s, body)
        .filter(|&j| {
            lexed.tokens[j].kind != Tok::Comment
                && lexed.tokens[j].directive == NO_DIRECTIVE
                && !(cx.dead)(lexed.tokens[j].start as usize)
        })
        .collect();
    let view = super::View::bare(s.ctx.src, lexed);
    let mut q = true;
    for (x, &j) in code.iter().enumerate() {
        if lexed.tokens[j].kind != Tok::Ident {
            continue;
        }
        let t = s.tok(j);
        if exchanges(t.as_bytes()) || (is_asm(t) && collective_asm(s, &code[x..])) {
            q = false;
            break;
        }
        // `name(` or `name<…>(` (a `<` that is a comparison, `x / WARP_SIZE < 32`, is none),
        // or a kernel launched `name<<<…>>>`.
        let next = code.get(x + 1).copied();
        let at = |n: usize| code.get(x + n).map(|&i| s.tok(i));
        let launched = at(1) == Some("<<<")
            || (at(1) == Some("<<") && at(2) == Some("<"))
            || (at(1) == Some("<") && at(2) == Some("<") && at(3) == Some("<"));
        let called = launched
            || next.is_some_and(|n| s.tok(n) == "(")
            || super::settle::template_call(&view, next);
        if !called {
            continue;
        }
        // A kernel the function is handed (dlib's `launch_kernel(Kernel K, …)` /
        // `K<<<blocks, threads>>>`): whatever its callers pass runs in the block this function
        // shapes, so nothing here says it exchanges nothing.
        if launched && !by_name.contains_key(t) && parameter_of(s, functions[k], body, t) {
            q = false;
            break;
        }
        match by_name.get(t) {
            Some(defs) => {
                let callees: Vec<usize> = defs.iter().copied().filter(|&d| d != k).collect();
                if !callees
                    .into_iter()
                    .all(|d| quiet(s, cx, d, memo, depth + 1))
                {
                    q = false;
                    break;
                }
            }
            // Warp-level work by name in another file (`warp_reduce`, `shfl`, `ballot`): its
            // width is the one this function's groups meet.
            None if super::settle::warp_level_elsewhere(t.as_bytes())
                || cx.warp_macros.contains(t)
                || cx.warp_fns.contains(t) =>
            {
                q = false;
                break;
            }
            None => {}
        }
    }
    memo.insert(k, q);
    q
}

/// Whether `name` is spelled in function `f`'s head (its parameters and template parameters),
/// before the body.
fn parameter_of(s: &Src, f: tree_sitter::Node, body: tree_sitter::Node, name: &str) -> bool {
    let head = f.start_byte()..body.start_byte();
    let mut from = f;
    // A template's parameters sit in the `template_declaration` around the function.
    if let Some(p) = f.parent().filter(|p| p.kind() == "template_declaration") {
        from = p;
    }
    let start = from.start_byte().min(head.start);
    s.lexed
        .tokens
        .iter()
        .filter(|t| (t.start as usize) >= start && (t.start as usize) < head.end)
        .any(|t| t.kind == Tok::Ident && t.text(s.ctx.src) == name.as_bytes())
}

/// An HP101 warp-size constant or HP103 32-bit full mask (named first in the message) whose
/// every use, in its function (a parameter or local) or else in the file, is in code HIP never
/// compiles or in a function that exchanges nothing across lanes: PASS saying which. A
/// constant with no use here (a header's includers may use it) stays.
fn constant(s: &Src, cx: &Cx, memo: &mut HashMap<usize, bool>, f: &mut Finding) {
    let Some(name) = super::quoted_name(&f.message) else {
        return;
    };
    let lexed = s.lexed;
    // A function returning the constant (RAFT's `constexpr int warp_size() { return 32; }`)
    // is used where it is called: its home is the file, not its own body.
    let home = cx
        .function_at(s, f.byte_range.0)
        .filter(|&k| f.byte_range.1 <= cx.functions[k].end_byte())
        .filter(|k| {
            !cx.by_name
                .get(name.as_str())
                .is_some_and(|defs| defs.contains(k))
        });
    let scope = match home {
        Some(k) => tokens(s, cx.functions[k]),
        None => 0..lexed.tokens.len(),
    };
    let mut count = Uses::default();
    let mut seen = vec![name.clone()];
    if !uses_keep(
        s,
        cx,
        memo,
        &name,
        scope,
        f.byte_range.0..f.byte_range.1,
        &mut seen,
        &mut count,
    ) {
        return;
    }
    // A compilation unit's own constant that nothing in it uses is nothing (a header's is
    // judged at its includers).
    // An `#include` after the definition may use it.
    let unit = [".cu", ".cpp", ".cc", ".cxx"]
        .iter()
        .any(|e| f.path.ends_with(e))
        && !lexed
            .directives
            .iter()
            .any(|d| d.name == "include" && d.start > f.byte_range.0);
    let why = match (count.dead, count.quiet) {
        (0, 0) if unit => format!(", but nothing in this file uses `{name}` (nothing to change)"),
        (0, 0) => return,
        (_, 0) => format!(", but every use of `{name}` here is in code HIP never compiles (nothing to change)"),
        (0, _) => format!(", but every use of `{name}` here is in a function that exchanges nothing across lanes: its 32-lane groups keep CUDA's meaning inside a 64-lane wavefront (nothing to change)"),
        _ => format!(", but every use of `{name}` here is in code HIP never compiles or in a function that exchanges nothing across lanes (nothing to change)"),
    };
    f.settle(&why);
}

/// How many uses of a warp-size constant [`uses_keep`] found in dead code and in quiet
/// functions.
#[derive(Default)]
struct Uses {
    dead: usize,
    quiet: usize,
}

/// Whether every use of `name` among the tokens `scope` (outside `skip`, its own definition)
/// keeps CUDA's meaning: in code HIP never compiles, in a function that exchanges nothing
/// across lanes, or in the body of a macro (`#define THREADS (WARP_SIZE * WARPS)`) whose own
/// uses all do, a few macros deep.
#[allow(clippy::too_many_arguments)]
fn uses_keep(
    s: &Src,
    cx: &Cx,
    memo: &mut HashMap<usize, bool>,
    name: &str,
    scope: std::ops::Range<usize>,
    skip: std::ops::Range<usize>,
    seen: &mut Vec<String>,
    count: &mut Uses,
) -> bool {
    let lexed = s.lexed;
    for j in scope {
        let t = &lexed.tokens[j];
        if t.kind != Tok::Ident || s.tok(j) != name || skip.contains(&(t.start as usize)) {
            continue;
        }
        if (cx.dead)(t.start as usize) {
            count.dead += 1;
            continue;
        }
        if t.directive != NO_DIRECTIVE {
            // The body of another macro: that macro's uses decide. Any other directive reads
            // the value where it is not placed.
            let d = &lexed.directives[t.directive as usize];
            let Some(defined) = d
                .tokens
                .clone()
                .nth(2)
                .filter(|&n| d.name == "define" && n != j)
            else {
                return false;
            };
            let derived = s.tok(defined).to_string();
            if seen.contains(&derived) {
                continue;
            }
            if seen.len() > 4 {
                return false;
            }
            seen.push(derived.clone());
            let own = lexed.tokens[defined].start as usize..lexed.tokens[defined].end as usize;
            if !uses_keep(
                s,
                cx,
                memo,
                &derived,
                0..lexed.tokens.len(),
                own,
                seen,
                count,
            ) {
                return false;
            }
            continue;
        }
        let Some(k) = cx.function_at(s, t.start as usize) else {
            return false;
        };
        if !quiet(s, cx, k, memo, 0) {
            return false;
        }
        count.quiet += 1;
    }
    true
}

/// Whether the name at token `j` is declared there as a constant: `= value` follows and
/// `const`/`constexpr` comes a few tokens before.
fn definition(s: &Src, j: usize) -> bool {
    let lexed = s.lexed;
    lexed.next_code(j).is_some_and(|n| s.tok(n) == "=")
        && (1..=4)
            .scan(j, |k, _| {
                *k = lexed.prev_code(*k)?;
                Some(*k)
            })
            .any(|k| matches!(s.tok(k), "const" | "constexpr"))
}

/// The warp-size constants (`WARP_SIZE`, `kWarpSize`) function `n` names besides its literal
/// 32s.
fn warp_size_names<'a>(s: &Src<'a>, n: tree_sitter::Node) -> Vec<&'a str> {
    let mut out: Vec<&str> = tokens(s, n)
        .filter(|&j| s.lexed.tokens[j].kind == Tok::Ident)
        .map(|j| s.tok(j))
        .filter(|t| *t != "warpSize" && super::super::warp_const_name(t))
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use crate::gate::Status;
    use crate::model::syntax::test_support::hazard_findings;

    fn hp102(src: &str) -> Vec<(u32, Status)> {
        hazard_findings(src)
            .into_iter()
            .filter(|f| f.rule == "HP102")
            .map(|f| (f.line, f.status))
            .collect()
    }

    /// SlabHash's kernels: a 32-lane id passed to a member function of another file, nothing
    /// exchanged here. Twins: the same kernel that shuffles at the wavefront's width, that calls
    /// a warp-named helper of another file, that calls this file's shuffling helper, that reads
    /// `warpSize`, and that names a `WARP_SIZE` constant beside its literal.
    #[test]
    fn ids_of_groups_that_exchange_nothing_settle() {
        let quiet = "__global__ void k(int* keys, int n, Table t) {\n  unsigned tid = threadIdx.x + blockIdx.x * blockDim.x;\n  unsigned lane = threadIdx.x & 0x1F;\n  if ((tid - lane) >= n) return;\n  t.insert(keys[tid], lane);\n}\n";
        let f = hp102(quiet);
        assert!(!f.is_empty(), "{f:?}");
        assert!(f.iter().all(|(_, s)| *s == Status::Pass), "{f:?}");
        let found = hazard_findings(quiet);
        let m = &found.iter().find(|f| f.rule == "HP102").unwrap().message;
        assert!(m.contains("nothing in this function exchanges"), "{m}");

        let shuffles = quiet.replace(
            "t.insert(keys[tid], lane);",
            "int v = __shfl_sync(0xffffffff, keys[tid], 0, 64);\n  t.insert(v, lane);",
        );
        assert!(hp102(&shuffles).iter().any(|(_, s)| *s != Status::Pass));
        let helper = quiet.replace("t.insert(", "warp_reduce_insert(");
        assert!(hp102(&helper).iter().any(|(_, s)| *s != Status::Pass));
        let local = format!(
            "__device__ int bcast(int v) {{ return __reduce_add_sync(0xffffffff, v); }}\n{}",
            quiet.replace(
                "t.insert(keys[tid], lane);",
                "t.insert(bcast(keys[tid]), lane);"
            )
        );
        assert!(hp102(&local).iter().any(|(_, s)| *s != Status::Pass));
        let wave = quiet.replace(
            "t.insert(keys[tid], lane);",
            "t.insert(keys[tid], lane + warpSize);",
        );
        assert!(hp102(&wave).iter().any(|(_, s)| *s != Status::Pass));
        // A `WARP_SIZE` constant named beside the literal: where every use of it here keeps
        // CUDA's meaning it is the logical warp's size and settles too; where another function
        // shuffles with it at the wavefront's width, the literal is a second spelling of a
        // width a port changes.
        let named = format!(
            "#define WARP_SIZE 32\n{}",
            quiet.replace(
                "t.insert(keys[tid], lane);",
                "t.insert(keys[tid], lane * WARP_SIZE);"
            )
        );
        assert!(hp102(&named).iter().all(|(_, s)| *s == Status::Pass));
        let declared = named.replace(
            "#define WARP_SIZE 32\n",
            "static const int WARP_SIZE = 32;\n",
        );
        assert!(hp102(&declared).iter().all(|(_, s)| *s == Status::Pass));
        let wide = format!(
            "{named}__device__ float r(float v) {{ return __shfl_down(v, WARP_SIZE / 2, 64); }}\n"
        );
        assert!(hp102(&wide).iter().any(|(_, s)| *s != Status::Pass));
    }

    /// PyTorch-Encoding's common.h: the warp-size constant and a shuffle wrapper's 32-bit
    /// default mask are used by shuffles only in `#if __CUDA_ARCH__ >= 300` / `CUDA_VERSION`
    /// arms HIP never compiles; HIP's arm sums through shared memory, 32 lanes at a time, and
    /// compares `threadIdx.x / WARP_SIZE < 32` (no call). Twins: the same constant and mask in
    /// a live shuffle stay open.
    #[test]
    fn constants_used_only_where_nothing_is_exchanged_settle() {
        use crate::model::syntax::test_support::hazard_findings;
        let src = "static const unsigned WARP_SIZE = 32;\ntemplate <typename T>\n__device__ T xor_shfl(T v, int m, unsigned int mask = 0xffffffff) {\n#if CUDA_VERSION >= 9000\n  return __shfl_xor_sync(mask, v, m);\n#else\n  return __shfl_xor(v, m);\n#endif\n}\ntemplate <typename T>\n__device__ T warp_sum(T v, volatile T* s) {\n#if __CUDA_ARCH__ >= 300\n  for (int i = 1; i < WARP_SIZE; i <<= 1) v += xor_shfl(v, i);\n#else\n  s[threadIdx.x] = v;\n  const int base = (threadIdx.x / WARP_SIZE) * WARP_SIZE;\n  for (int i = 1; i < WARP_SIZE; i++) v += s[base + (i + threadIdx.x) % WARP_SIZE];\n#endif\n  if (threadIdx.x / WARP_SIZE < 32) s[0] = v;\n  return v;\n}\n";
        let st = |src: &str, rule: &str| -> Vec<Status> {
            hazard_findings(src)
                .into_iter()
                .filter(|f| f.rule == rule)
                .map(|f| f.status)
                .collect()
        };
        assert_eq!(st(src, "HP101"), [Status::Pass]);
        assert_eq!(st(src, "HP103"), [Status::Pass]);
        let f = hazard_findings(src);
        let m = &f.iter().find(|f| f.rule == "HP103").unwrap().message;
        assert!(
            m.contains("every use of `mask` here is in code HIP never compiles"),
            "{m}"
        );
        let live = src
            .replace("#if __CUDA_ARCH__ >= 300", "#if 1")
            .replace("v += xor_shfl(v, i);", "v += __shfl_xor(v, i, 64);");
        assert!(
            st(&live, "HP101").iter().all(|s| *s != Status::Pass),
            "{:?}",
            st(&live, "HP101")
        );
    }

    /// cuda-samples' host reference for a `%laneid` kernel computes `i % 32`: the file reads the
    /// hardware lane, so the 32 is the wavefront's width there.
    #[test]
    fn a_file_reading_the_hardware_lane_keeps_its_32s() {
        let src = "__global__ void k(int* p) {\n  unsigned l;\n  asm(\"mov.u32 %0, %%laneid;\" : \"=r\"(l));\n  p[threadIdx.x] = l;\n}\nvoid ref(int* h, int n) {\n  for (int i = 0; i < n; i++) h[i] = i % 32;\n}\n";
        let f = hp102(src);
        assert!(f.iter().any(|(_, s)| *s == Status::Remediation), "{f:?}");
    }
}
