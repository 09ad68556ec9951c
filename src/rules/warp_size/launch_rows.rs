//! Kernels every launch of the project gives blocks whose rows are 32 threads wide
//! (`dim3 block(32, 4)`, `<<<grid, 32>>>`): on NVIDIA each row is one warp, so the kernel's warps
//! are 32 lanes whatever its code says; on AMD two rows share a 64-lane wavefront. The launch and
//! the kernel usually sit in different files (`llama2_q4.cu` launches `mat_vec_kernel` of
//! `gpu_kernels.h`), so a per-file look sees neither half of the fact. This project pass reads the
//! launches of every source, keeps the kernels whose every launch has 32-wide rows, and reports
//! in them what such a row assumes of the warp and HIP does not keep: a CUB warp primitive at its
//! default width (`cub::WarpReduce<float>`), whose logical warp hipCUB makes the 64-lane
//! wavefront, so one reduction sums two rows (HP110 REMEDIATION/CORRECTNESS, with the fix
//! `cub::WarpReduce<float, 32>`). A kernel launched anywhere with another or an unknown shape is
//! left alone: its rows are not known to be warps.
//!
//! The same facts settle two per-file findings that need the other file: lane and warp
//! arithmetic with 32 (HP102) inside such a kernel, or a helper only such kernels call, is the
//! row's (nvdiffrast's `CR_BIN_WARPS * 32` counts the threads of `dim3(32, CR_BIN_WARPS)` blocks
//! launched through `cudaLaunchKernel`); and a 32-thread launch (HP107) of a kernel defined in
//! another file that, with what it calls, does no warp-level work is PASS. Every source's facts
//! come from its own single lex ([`file_rows`], kept in the pipeline's file result).

use super::block_shapes::{assigned_shape, first_value, numeric_names, one_row, value_of};
use super::CUB_WARP_DEFAULT_WIDTH;
use crate::finding::Finding;
use crate::gate::Status;
use crate::lex::{Lexed, Tok};
use std::collections::{BTreeMap, HashMap};

/// What a kernel's launches say of its rows: the shape of each launch with 32-wide rows, and
/// whether some launch has another or an unknown shape.
#[derive(Default)]
struct Rows {
    shapes: Vec<String>,
    other: bool,
}

/// The bytes of token `i`.
pub(super) fn text<'a>(src: &'a [u8], lexed: &Lexed, i: usize) -> &'a [u8] {
    lexed.tokens[i].text(src)
}

/// How many tokens before a launch the declaration of its `dim3` block variable is looked for.
const DECLARATION_LOOK_BACK: usize = 4096;

/// A launch of a kernel: its name and, where known, the block's x extent with the shape's
/// text and place (`dim3 block(32, …)` at main.cu:3).
pub struct Launch {
    pub(super) kernel: String,
    pub(super) x: Option<(u64, String)>,
    /// The block is known to be one row (`<<<g, 32>>>`, `dim3(32)`, `dim3(32, 1, 1)`): a
    /// 64-lane wavefront then holds the row and 32 lanes that do not run, never two rows.
    pub(super) one_row: bool,
}

impl Launch {
    /// The shape text when the block's rows are 32 threads wide.
    fn rows32(&self) -> Option<&str> {
        self.x
            .as_ref()
            .filter(|(x, _)| *x == 32)
            .map(|(_, s)| s.as_str())
    }
}

/// The kernels every launch of which in this file gives blocks of 32-thread rows (an x extent
/// the file says is 32: `dim3 threads(32, 4)`, `<<<g, 32>>>`), with the first launch's shape.
/// A kernel launched once with another or an unknown extent is not one.
pub(crate) fn rows32_kernels(
    path: &str,
    src: &[u8],
    lexed: &Lexed,
) -> std::collections::HashMap<String, String> {
    let mut out: std::collections::HashMap<String, Option<String>> = Default::default();
    for l in launches(path, src, lexed) {
        let shape = l.rows32().map(str::to_string);
        match out.get_mut(&l.kernel) {
            Some(s) if shape.is_none() => *s = None,
            Some(_) => {}
            None => {
                out.insert(l.kernel, shape);
            }
        }
    }
    out.into_iter().filter_map(|(k, s)| Some((k, s?))).collect()
}

/// The launches of a file: kernel name, and the block's x extent where the file says it.
fn launches(path: &str, src: &[u8], lexed: &Lexed) -> Vec<Launch> {
    let lines = crate::lines::LineIndex::new(src);
    let line_of = |i: usize| lines.position(src, lexed.tokens[i].start as usize).line;
    let names = numeric_names(src, lexed);
    let shown = |x: u64, t: &[u8]| {
        let t = String::from_utf8_lossy(t);
        if t.parse::<u64>().ok() == Some(x) {
            t.into_owned()
        } else {
            format!("{t} = {x}")
        }
    };
    let mut out = Vec::new();
    for i in 0..lexed.tokens.len() {
        let Some((kernel, (a, b))) =
            triple_launch(src, lexed, i).or_else(|| api_launch(src, lexed, i))
        else {
            continue;
        };
        let code: Vec<usize> = (a..b)
            .filter(|&t| lexed.tokens[t].kind != Tok::Comment)
            .collect();
        let shape: Option<(u64, String, bool)> = match code.as_slice() {
            [x] if value_of(src, lexed, *x, &names).is_some() => value_of(src, lexed, *x, &names)
                .map(|v| {
                    let t = shown(v, text(src, lexed, *x));
                    (v, format!("`<<<…, {t}>>>` at {path}:{}", line_of(i)), true)
                }),
            [d, o, ..] if text(src, lexed, *d) == b"dim3" => first_value(src, lexed, *o, &names)
                .map(|v| {
                    let a = lexed.next_code(*o).unwrap_or(*o);
                    let t = shown(v, text(src, lexed, a));
                    (
                        v,
                        format!("`dim3({t}, …)` at {path}:{}", line_of(i)),
                        one_row(src, lexed, *o, &names),
                    )
                }),
            [v] if lexed.tokens[*v].kind == Tok::Ident => {
                // `dim3 v(32, n)`, `dim3 v{32, n}`, `dim3 v = dim3(32, n)`, `dim3 v = {32, n}`,
                // `dim3 v; v.x = 32;`: the nearest declaration before the launch, within a
                // bounded look back (a file of many launches stays linear).
                let name = text(src, lexed, *v);
                (i.saturating_sub(DECLARATION_LOOK_BACK)..i)
                    .rev()
                    .find(|&d| text(src, lexed, d) == name && declared_dim3(src, lexed, d))
                    .and_then(|x| {
                        let mut o = lexed.next_code(x)?;
                        if matches!(text(src, lexed, o), b";" | b",") {
                            let (v, at, one) = assigned_shape(src, lexed, x, i, &names)?;
                            return Some((
                                v,
                                format!(
                                    "`{}.x = {}` at {path}:{}",
                                    String::from_utf8_lossy(name),
                                    shown(v, text(src, lexed, at)),
                                    line_of(at)
                                ),
                                one,
                            ));
                        }
                        if text(src, lexed, o) == b"=" {
                            o = lexed.next_code(o)?;
                            if text(src, lexed, o) == b"dim3" {
                                o = lexed.next_code(o)?;
                            }
                        }
                        if !matches!(text(src, lexed, o), b"(" | b"{") {
                            return None;
                        }
                        let v = first_value(src, lexed, o, &names)?;
                        let a = lexed.next_code(o)?;
                        Some((
                            v,
                            format!(
                                "`dim3 {}({}, …)` at {path}:{}",
                                String::from_utf8_lossy(name),
                                shown(v, text(src, lexed, a)),
                                line_of(x)
                            ),
                            one_row(src, lexed, o, &names),
                        ))
                    })
            }
            _ => None,
        };
        let one_row = shape.as_ref().is_some_and(|s| s.2);
        out.push(Launch {
            kernel,
            x: shape.map(|(v, t, _)| (v, t)),
            one_row,
        });
    }
    out
}

/// Whether the name at token `x` is declared by a `dim3` declaration: `dim3 block(…)`, or a
/// later declarator of one (`dim3 grid(n), block(32, h);`).
fn declared_dim3(src: &[u8], lexed: &Lexed, x: usize) -> bool {
    let Some(mut p) = lexed.prev_code(x) else {
        return false;
    };
    let mut depth = 0i32;
    for _ in 0..64 {
        match text(src, lexed, p) {
            b"dim3" if depth == 0 => return true,
            b")" | b"}" => depth += 1,
            b"(" | b"{" if depth > 0 => depth -= 1,
            b";" | b"{" | b"(" if depth == 0 => return false,
            _ => {}
        }
        // Only a declarator list separated by top-level commas reaches `dim3`.
        match lexed.prev_code(p) {
            Some(q) => p = q,
            None => return false,
        }
    }
    false
}

/// A `kernel<<<grid, block…>>>` launch at token `i`: the kernel's name and the block
/// argument's tokens.
fn triple_launch(src: &[u8], lexed: &Lexed, i: usize) -> Option<(String, (usize, usize))> {
    if !crate::model::launch::is_triple(src, lexed, i, b'<') {
        return None;
    }
    let launch = crate::model::launch::at(src, lexed, i)?;
    let kernel = String::from_utf8_lossy(text(src, lexed, launch.name)).into_owned();
    Some((kernel, *launch.config.get(1)?))
}

/// The runtime's launch calls, whose third argument is the block
/// (`cudaLaunchKernel((void*)binRasterKernel, grid, brBlock, args, 0, stream)`, nvdiffrast).
const LAUNCH_CALLS: [&[u8]; 4] = [
    b"cudaLaunchKernel",
    b"cudaLaunchCooperativeKernel",
    b"hipLaunchKernel",
    b"hipLaunchCooperativeKernel",
];

/// A launch through the runtime's API at token `i`: the kernel's name (the last name of the
/// first argument, past casts) and the block argument's tokens.
fn api_launch(src: &[u8], lexed: &Lexed, i: usize) -> Option<(String, (usize, usize))> {
    if lexed.tokens[i].kind != Tok::Ident || !LAUNCH_CALLS.contains(&text(src, lexed, i)) {
        return None;
    }
    let open = lexed
        .next_code(i)
        .filter(|&o| text(src, lexed, o) == b"(")?;
    let close = matching(src, lexed, open, b"(", b")")?;
    // The arguments' token ranges, split at the commas of depth 1.
    let mut args: Vec<(usize, usize)> = Vec::new();
    let (mut depth, mut from) = (0i32, open + 1);
    for j in open + 1..close {
        match text(src, lexed, j) {
            b"(" | b"<" | b"[" | b"{" => depth += 1,
            b")" | b">" | b"]" | b"}" => depth -= 1,
            b"," if depth == 0 => {
                args.push((from, j));
                from = j + 1;
            }
            _ => {}
        }
        if args.len() == 3 {
            break;
        }
    }
    if args.len() < 3 {
        return None;
    }
    // The last name outside template arguments: `(void*)&k<T>` and
    // `reinterpret_cast<const void*>(k)` launch `k`.
    let (a, b) = args[0];
    let mut angle = 0i32;
    let mut kernel = None;
    for j in a..b {
        match text(src, lexed, j) {
            b"<" => angle += 1,
            b">" => angle -= 1,
            b"void" | b"const" | b"reinterpret_cast" | b"static_cast" => {}
            _ if angle == 0 && lexed.tokens[j].kind == Tok::Ident => kernel = Some(j),
            _ => {}
        }
    }
    let kernel = kernel?;
    Some((
        String::from_utf8_lossy(text(src, lexed, kernel)).into_owned(),
        args[2],
    ))
}

/// The functions of a file with qualifier `qual` (`__global__`, `__device__`): name and body
/// token range (`{`..`}`).
pub(crate) fn functions(src: &[u8], lexed: &Lexed, qual: &[u8]) -> Vec<(String, usize, usize)> {
    let n = lexed.tokens.len();
    let mut out = Vec::new();
    for g in 0..n {
        if text(src, lexed, g) != qual || lexed.tokens[g].in_directive() {
            continue;
        }
        // The name: the identifier before the first `(` that is not a qualifier's own.
        let mut j = g + 1;
        let mut name: Option<usize> = None;
        let mut open = None;
        while j < n && j < g + 64 {
            let t = text(src, lexed, j);
            if t == b"(" {
                if name.is_some_and(|k| text(src, lexed, k) == b"__launch_bounds__") {
                    j = matching(src, lexed, j, b"(", b")").map_or(n, |c| c + 1);
                    name = None;
                    continue;
                }
                open = Some(j);
                break;
            }
            if matches!(t, b";" | b"{" | b"}") {
                break;
            }
            if lexed.tokens[j].kind == Tok::Ident {
                name = Some(j);
            }
            j += 1;
        }
        let (Some(k), Some(o)) = (name, open) else {
            continue;
        };
        let Some(close) = matching(src, lexed, o, b"(", b")") else {
            continue;
        };
        let Some(body) =
            (close + 1..n.min(close + 16)).find(|&b| matches!(text(src, lexed, b), b"{" | b";"))
        else {
            continue;
        };
        if text(src, lexed, body) != b"{" {
            continue;
        }
        if let Some(end) = matching(src, lexed, body, b"{", b"}") {
            out.push((
                String::from_utf8_lossy(text(src, lexed, k)).into_owned(),
                body,
                end,
            ));
        }
    }
    out
}

/// The bodies of the file's structs and classes: byte range and name (`struct FloatAligner
/// { … }`, `template <…> class Tile : public Base<…> { … }`); not an `enum class`.
fn class_bodies(src: &[u8], lexed: &Lexed) -> Vec<(usize, usize, String)> {
    let mut out = Vec::new();
    let n = lexed.tokens.len();
    for k in 0..n {
        let t = text(src, lexed, k);
        if !matches!(t, b"struct" | b"class")
            || lexed.tokens[k].in_directive()
            || lexed
                .prev_code(k)
                .is_some_and(|p| text(src, lexed, p) == b"enum")
        {
            continue;
        }
        let Some(name) = lexed
            .next_code(k)
            .filter(|&i| lexed.tokens[i].kind == Tok::Ident)
        else {
            continue;
        };
        // The body's `{` before any `;`, `(` or `)` (a declaration, a parameter's type).
        let mut j = name;
        let mut open = None;
        for _ in 0..64 {
            let Some(x) = lexed.next_code(j) else { break };
            match text(src, lexed, x) {
                b"{" => {
                    open = Some(x);
                    break;
                }
                b";" | b"(" | b")" | b"=" => break,
                _ => j = x,
            }
        }
        let Some(open) = open else { continue };
        if let Some(close) = matching(src, lexed, open, b"{", b"}") {
            out.push((
                lexed.tokens[open].start as usize,
                lexed.tokens[close].end as usize,
                String::from_utf8_lossy(text(src, lexed, name)).into_owned(),
            ));
        }
    }
    out
}

/// The maximum block size a function's `__launch_bounds__(N, …)` gives, and the token of
/// `__launch_bounds__`: read back from the body's `{` (token `body`) through the declaration,
/// which may put it before or after `__global__` and after a `template<…>`, to the end of the
/// previous declaration. `N` is a literal or a name the file defines as a number.
fn launch_bound(
    src: &[u8],
    lexed: &Lexed,
    body: usize,
    names: &super::block_shapes::Names,
) -> Option<(u64, usize)> {
    let mut j = body;
    for _ in 0..256 {
        j = lexed.prev_code(j)?;
        match text(src, lexed, j) {
            b";" | b"}" | b"{" => return None,
            b"__launch_bounds__" if lexed.tokens[j].kind == Tok::Ident => {
                let open = lexed
                    .next_code(j)
                    .filter(|&o| text(src, lexed, o) == b"(")?;
                // Only a lone first argument: `__launch_bounds__(32, 16)`, not `(32 * W)`.
                let a = lexed.next_code(open)?;
                let after = lexed.next_code(a)?;
                if !matches!(text(src, lexed, after), b"," | b")") {
                    return None;
                }
                return value_of(src, lexed, a, names).map(|v| (v, j));
            }
            _ => {}
        }
    }
    None
}

/// The token closing the bracket opened at `open`.
fn matching(src: &[u8], lexed: &Lexed, open: usize, o: &[u8], c: &[u8]) -> Option<usize> {
    let mut depth = 0i32;
    for j in open..lexed.tokens.len() {
        if lexed.tokens[j].kind == Tok::Comment {
            continue;
        }
        let t = text(src, lexed, j);
        if t == o {
            depth += 1;
        } else if t == c {
            depth -= 1;
            if depth == 0 {
                return Some(j);
            }
        }
    }
    None
}

/// A CUB warp primitive at its default width (`cub::WarpReduce<float>`) in a function, as the
/// file's own pass saw it: the finding to report (its message written by the project pass),
/// what is written and the fix.
pub struct Site {
    finding: Finding,
    written: String,
    reduce: bool,
}

/// A kernel or device function of a file: its name, the names it calls, and the CUB warp
/// primitives at their default width in its body.
pub struct Def {
    pub(super) name: String,
    pub(super) kernel: bool,
    /// The body's bytes (`{` to `}`).
    pub(super) body: (usize, usize),
    /// The body does warp-level work itself (shuffles, votes, `__syncwarp`, lane ids, warp
    /// primitives, `warpSize`).
    warp_level: bool,
    pub(super) callees: Vec<String>,
    sites: Vec<Site>,
    /// The block's x extent measured in wavefronts (`blockDim.x / warpSize`,
    /// `blockDim.x == warpSize`), see [`super::block_extent`].
    pub(super) extents: Vec<super::block_extent::Extent>,
    /// Its lane reads and votes, its calls, and whether it wraps an exchange, see
    /// [`super::row_exchange`].
    pub(super) exchanges: super::row_exchange::Exchanges,
    /// A kernel's `__launch_bounds__(N, …)` of at most 32 threads: the cap and its text. Every
    /// block then is one row of at most 32 threads, however it is launched (a launch of more
    /// threads fails).
    pub(super) bound32: Option<(u64, String)>,
    /// The struct or class whose body holds it (a method), see [`super::call_graph`].
    pub(super) owner: Option<String>,
    /// The names its body mentions (sorted, once each): which of several classes defining a
    /// method of one name a call `processor.run()` means.
    pub(super) mentions: Vec<String>,
    /// `Owner::name` for a method, the name otherwise: the function's key in a project pass
    /// (two classes' `pass` methods in one header are two functions).
    pub(super) qualified: String,
}

/// What one file contributes to this pass, computed with the file's single lex: its launches
/// (kernel and shape) and its kernels and device functions.
#[derive(Default)]
pub struct FileRows {
    pub(super) launches: Vec<Launch>,
    pub(super) defs: Vec<Def>,
    /// The paths of its quoted includes (`#include "kernels.cu"`), see [`super::call_graph`].
    pub(super) includes: Vec<String>,
}

/// The file's facts for this pass, `None` when it launches nothing and defines no kernel or
/// device function.
pub fn file_rows(path: &str, src: &[u8], lexed: &Lexed) -> Option<FileRows> {
    let has = |w: &[u8]| memchr::memmem::find(src, w).is_some();
    let launches = if has(b"<<<") || has(b"LaunchKernel") || has(b"LaunchCooperativeKernel") {
        launches(path, src, lexed)
    } else {
        Vec::new()
    };
    let mut defs = Vec::new();
    if has(b"__global__") || has(b"__device__") {
        let cub = has(b"WarpReduce") || has(b"WarpScan");
        let warp_size = has(b"warpSize");
        let lines = crate::lines::LineIndex::new(src);
        let ctx = crate::registry::FileCtx {
            path,
            src,
            lines: &lines,
        };
        let names = numeric_names(src, lexed);
        let classes = class_bodies(src, lexed);
        for (qual, kernel) in [(&b"__global__"[..], true), (&b"__device__"[..], false)] {
            for (name, open, close) in functions(src, lexed, qual) {
                let mut callees: Vec<String> = (open..close)
                    .filter(|&i| lexed.tokens[i].kind == Tok::Ident && calls(src, lexed, i))
                    .map(|i| String::from_utf8_lossy(text(src, lexed, i)).into_owned())
                    .collect();
                callees.sort_unstable();
                callees.dedup();
                let sites = if cub {
                    default_width_sites(&ctx, lexed, open, close)
                } else {
                    Vec::new()
                };
                let warp_level = (open..close).any(|i| {
                    let t = text(src, lexed, i);
                    match lexed.tokens[i].kind {
                        Tok::Ident => warp_word(t),
                        Tok::Str => memchr::memmem::find(t, b"laneid").is_some(),
                        _ => false,
                    }
                });
                let extents = if warp_size {
                    super::block_extent::extents(&ctx, lexed, open, close)
                } else {
                    Vec::new()
                };
                let exchanges = super::row_exchange::exchanges(&ctx, lexed, open, close);
                let bound32 = if kernel {
                    launch_bound(src, lexed, open, &names)
                        .filter(|(n, _)| *n <= 32)
                        .map(|(n, at)| {
                            let line = ctx
                                .lines
                                .position(src, lexed.tokens[at].start as usize)
                                .line;
                            (n, format!("`__launch_bounds__({n}, …)` at {path}:{line}"))
                        })
                } else {
                    None
                };
                let at = lexed.tokens[open].start as usize;
                let owner = classes
                    .iter()
                    .filter(|(a, b, _)| *a < at && at < *b)
                    .max_by_key(|(a, _, _)| *a)
                    .map(|(_, _, n)| n.clone());
                let mut mentions: Vec<String> = (open..close)
                    .filter(|&i| lexed.tokens[i].kind == Tok::Ident)
                    .map(|i| String::from_utf8_lossy(text(src, lexed, i)).into_owned())
                    .collect();
                mentions.sort_unstable();
                mentions.dedup();
                let qualified = owner
                    .as_ref()
                    .map_or_else(|| name.clone(), |o| format!("{o}::{name}"));
                defs.push(Def {
                    name,
                    kernel,
                    extents,
                    exchanges,
                    warp_level,
                    body: (
                        lexed.tokens[open].start as usize,
                        lexed.tokens[close].end as usize,
                    ),
                    callees,
                    sites,
                    bound32,
                    owner,
                    mentions,
                    qualified,
                });
            }
        }
    }
    let includes = if defs.is_empty() {
        Vec::new()
    } else {
        lexed
            .directives
            .iter()
            .filter(|d| d.name == "include")
            .filter_map(|d| {
                let i = d
                    .tokens
                    .clone()
                    .find(|&i| lexed.tokens[i].kind == Tok::Str)?;
                let t = text(src, lexed, i);
                Some(String::from_utf8_lossy(t.get(1..t.len().saturating_sub(1))?).into_owned())
            })
            .collect()
    };
    (!launches.is_empty() || !defs.is_empty()).then_some(FileRows {
        launches,
        defs,
        includes,
    })
}

/// Whether the name at token `i` is called: `f(`, or `f<…>(` with template arguments closed
/// within a few tokens on the line's statement.
fn calls(src: &[u8], lexed: &Lexed, i: usize) -> bool {
    let Some(j) = lexed.next_code(i) else {
        return false;
    };
    match text(src, lexed, j) {
        b"(" => true,
        b"<" => {
            let mut depth = 0i32;
            let mut k = j;
            for _ in 0..48 {
                match text(src, lexed, k) {
                    b"<" => depth += 1,
                    b">" => depth -= 1,
                    b";" | b"{" | b"}" => return false,
                    _ => {}
                }
                if depth <= 0 {
                    return depth == 0
                        && lexed
                            .next_code(k)
                            .is_some_and(|n| text(src, lexed, n) == b"(");
                }
                match lexed.next_code(k) {
                    Some(n) => k = n,
                    None => return false,
                }
            }
            false
        }
        _ => false,
    }
}

/// Names that do warp-level work: lane exchanges, votes, lane ids, warp-sized groups and
/// primitives. `__syncwarp` is not one: a barrier over a 32-thread row's lanes stays one on a wavefront that
/// holds two rows (ge-spmm's row-private shared memory; HIP's `__syncwarp` neither exchanges
/// values nor waits for the other half).
fn warp_word(t: &[u8]) -> bool {
    const PREFIXES: [&[u8]; 7] = [
        b"__shfl",
        b"__ballot",
        b"__any",
        b"__all",
        b"__match",
        b"__reduce_",
        b"__activemask",
    ];
    PREFIXES.iter().any(|p| t.starts_with(p))
        || matches!(
            t,
            b"warpSize"
                | b"__lane_id"
                | b"tiled_partition"
                | b"thread_block_tile"
                | b"coalesced_threads"
                | b"WarpReduce"
                | b"WarpScan"
                | b"WarpLoad"
                | b"WarpStore"
                | b"WarpExchange"
        )
}

/// The CUB warp primitives of a body (tokens `open..close`) written with one template argument,
/// their width left to hipCUB (`cub::WarpReduce<float>`).
fn default_width_sites(
    ctx: &crate::registry::FileCtx,
    lx: &Lexed,
    open: usize,
    close: usize,
) -> Vec<Site> {
    let src = ctx.src;
    let mut out = Vec::new();
    for i in open..close {
        let t = text(src, lx, i);
        if !(t == b"WarpReduce" || t == b"WarpScan") {
            continue;
        }
        let qualified = lx.prev_code(i).is_some_and(|c| text(src, lx, c) == b"::")
            && lx
                .prev_code(i)
                .and_then(|c| lx.prev_code(c))
                .is_some_and(|c| matches!(text(src, lx, c), b"cub" | b"hipcub"));
        let Some(lt) = lx.next_code(i).filter(|&j| text(src, lx, j) == b"<") else {
            continue;
        };
        // One template argument: no `,` at depth 1 before the closing `>`.
        let Some(gt) = matching(src, lx, lt, b"<", b">") else {
            continue;
        };
        let mut depth = 0i32;
        let one = (lt + 1..gt).all(|j| {
            match text(src, lx, j) {
                b"<" | b"(" => depth += 1,
                b">" | b")" => depth -= 1,
                b"," if depth == 0 => return false,
                _ => {}
            }
            true
        });
        if !qualified || !one {
            continue;
        }
        let ns = lx.prev_code(lx.prev_code(i).unwrap_or(i)).unwrap_or(i);
        let (a, b) = (lx.tokens[ns].start as usize, lx.tokens[gt].end as usize);
        let fixed = format!(
            "{}, 32>",
            String::from_utf8_lossy(&src[a..lx.tokens[gt].start as usize])
        );
        let mut finding = ctx.finding(&CUB_WARP_DEFAULT_WIDTH, a..b, String::new(), None);
        finding.fix = Some(fixed);
        out.push(Site {
            finding,
            written: String::from_utf8_lossy(&src[a..b]).into_owned(),
            reduce: t == b"WarpReduce",
        });
    }
    out
}

/// The project pass (see the module documentation), over each source's [`FileRows`].
pub fn cub_in_kernels_of_32_wide_rows(findings: &mut Vec<Finding>, files: &[(&str, &FileRows)]) {
    if !files.iter().any(|(_, r)| {
        r.launches.iter().any(|l| l.rows32().is_some())
            || r.defs.iter().any(|d| d.bound32.is_some())
    }) {
        return;
    }
    let mut rows: BTreeMap<&str, Rows> = BTreeMap::new();
    for (_, f) in files {
        for l in &f.launches {
            let r = rows.entry(l.kernel.as_str()).or_default();
            match l.rows32() {
                Some(s) => r.shapes.push(s.to_string()),
                None => r.other = true,
            }
        }
    }
    let rows32 = |name: &str| {
        rows.get(name)
            .filter(|r| !r.other && !r.shapes.is_empty())
            .and_then(|r| r.shapes.first().cloned())
    };
    // Kernels whose `__launch_bounds__` caps their blocks at 32 threads: one row each.
    let bounded = bounded_kernels(files);
    // Who calls each function, and the functions only such kernels reach (through calls of
    // calls: a method of the aligner object the kernel builds).
    let graph = super::call_graph::Graph::new(files);
    let mut seeds: HashMap<&str, &str> = bounded.clone();
    for (k, r) in &rows {
        if !r.other {
            if let Some(s) = r.shapes.first() {
                seeds.entry(k).or_insert(s.as_str());
            }
        }
    }
    let reach =
        super::call_graph::reached_only_from(files, &graph, &seeds, super::block_extent::DEPTH);
    // Lane and warp arithmetic with 32 (HP102) in such a function is the row's: `WARPS * 32`
    // counts the block's threads, `tid / 32` is the row. Indexed by file once.
    let arithmetic = |f: &Finding| {
        f.rule == "HP102" && f.status != Status::Pass && !f.message.contains("1 << lane")
    };
    let mut arithmetic_in: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, x) in findings.iter().enumerate() {
        if arithmetic(x) {
            arithmetic_in.entry(x.path.clone()).or_default().push(i);
        }
    }
    // Existing HP109/HP110 places, so a primitive is reported once.
    let mut reported: std::collections::HashSet<(String, u32)> = findings
        .iter()
        .filter(|f| matches!(f.rule.as_str(), "HP110" | "HP109"))
        .map(|f| (f.path.clone(), f.line))
        .collect();
    let mut added: Vec<Finding> = Vec::new();
    for (path, f) in files {
        let here = arithmetic_in.get(*path).map_or(&[][..], Vec::as_slice);
        for d in f.defs.iter() {
            let name = &d.name;
            let inside: Vec<usize> = here
                .iter()
                .copied()
                .filter(|&i| {
                    let x = &findings[i];
                    d.body.0 <= x.byte_range.0 && x.byte_range.1 <= d.body.1
                })
                .collect();
            if d.sites.is_empty() && inside.is_empty() {
                continue;
            }
            // A kernel's rows are its launches'; a device function's are its callers' when every
            // kernel that calls it (directly) has 32-wide rows.
            let why = if d.kernel {
                rows32(name)
                    .map(|s| format!("`{name}`, which every launch in the project gives blocks whose rows are 32 threads ({s})"))
                    .or_else(|| d.bound32.as_ref().map(|(_, s)| format!("kernel `{name}`, whose blocks {s} caps at 32 threads, one row")))
            } else if let Some((kernel, shape)) = reach.get(&(d.qualified.as_str(), *path)) {
                Some(format!(
                    "`{name}`, which only kernel `{kernel}` (and kernels launched alike) reaches ({shape})"
                ))
            } else {
                let mut callers: Vec<&str> = graph
                    .callers(name, path)
                    .filter(|c| c.kernel)
                    .map(|c| c.name)
                    .collect();
                callers.dedup();
                let shapes: Vec<Option<String>> = callers.iter().map(|n| rows32(n)).collect();
                (!callers.is_empty() && shapes.iter().all(Option::is_some)).then(|| {
                    format!(
                        "`{name}`, called only from kernels every launch gives blocks whose rows are 32 threads (`{}`: {})",
                        callers[0],
                        shapes[0].as_deref().unwrap_or("")
                    )
                })
            };
            let Some(why) = why else { continue };
            for i in inside {
                if findings[i].status != Status::Pass {
                    findings[i].settle(&format!(" — consistent with {why}: each row is the code's warp of 32 lanes (its lane is `threadIdx.x`, its warp the row), so the arithmetic holds on a 64-lane wavefront that holds two rows (or one row and lanes that do not run); nothing to change"));
                }
            }
            for site in &d.sites {
                let at = &site.finding;
                if !reported.insert((at.path.clone(), at.line)) {
                    continue;
                }
                let mut f = at.clone();
                f.message = format!(
                    "`{}` at its default width in {why}: on NVIDIA each row is one warp; on AMD a 64-lane wavefront holds two rows (or one row and 32 lanes that do not run) and hipCUB's default logical warp is the wavefront, so the {} does not run over one row",
                    site.written,
                    if site.reduce { "reduction" } else { "scan" }
                );
                f.suggestion = Some(format!(
                    "give it the row's width: `{}`",
                    f.fix.as_deref().unwrap_or("")
                ));
                f.status = Status::Remediation;
                added.push(f);
            }
        }
    }
    findings.extend(added);
    settle_launches_of_kernels_without_warp_work(findings, files);
}

/// The definitions `name` reaches in `defs`: its own and those of what they call that the
/// project defines, to a bounded depth (6 calls); `None` when the project defines no such name
/// or the calls go deeper (not known).
pub(super) fn reached<'a, T: Copy>(
    defs: &HashMap<&'a str, Vec<T>>,
    name: &str,
    callees: impl Fn(T) -> &'a [String],
) -> Option<Vec<T>> {
    defs.get(name)?;
    let mut out = Vec::new();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut level: Vec<&str> = vec![name];
    for _ in 0..6 {
        let mut next: Vec<&str> = Vec::new();
        for n in level {
            if !seen.insert(n) {
                continue;
            }
            for &d in defs.get(n).map_or(&[][..], Vec::as_slice) {
                out.push(d);
                next.extend(callees(d).iter().map(String::as_str));
            }
        }
        if next.is_empty() {
            return Some(out);
        }
        level = next;
    }
    None
}

/// The kernels whose every definition caps its blocks at 32 threads with `__launch_bounds__`,
/// with the text that shows it.
pub(super) fn bounded_kernels<'a>(files: &[(&'a str, &'a FileRows)]) -> HashMap<&'a str, &'a str> {
    let mut out: HashMap<&str, Option<&str>> = HashMap::new();
    for d in files
        .iter()
        .flat_map(|(_, f)| f.defs.iter())
        .filter(|d| d.kernel)
    {
        let here = d.bound32.as_ref().map(|(_, s)| s.as_str());
        let e = out.entry(d.name.as_str()).or_insert(here);
        if here.is_none() {
            *e = None;
        }
    }
    out.into_iter().filter_map(|(k, s)| Some((k, s?))).collect()
}

/// HP107 on a launch of 32-thread blocks whose kernel is defined in another file: where every
/// definition of that name in the project, and every function it calls that the project
/// defines, does no warp-level work, the block's threads never act as a warp and a 64-lane
/// wavefront changes nothing (xmrig's blake2b kernels, launched `<<<n, 32>>>` from
/// `hash.hpp`). PASS, saying so; an unknown kernel stays UNKNOWN.
fn settle_launches_of_kernels_without_warp_work(
    findings: &mut [Finding],
    files: &[(&str, &FileRows)],
) {
    const ELSEWHERE: &str = "` is defined in another file";
    if !findings
        .iter()
        .any(|f| f.rule == "HP107" && f.status != Status::Pass && f.message.contains(ELSEWHERE))
    {
        return;
    }
    let mut defs: HashMap<&str, Vec<&Def>> = HashMap::new();
    for (_, f) in files {
        for d in &f.defs {
            defs.entry(d.name.as_str()).or_default().push(d);
        }
    }
    // Every definition of the name, and of what they call that the project defines, without
    // warp-level work; `None` when the project defines no such name or the calls go deeper.
    let quiet = |name: &str| -> Option<bool> {
        Some(
            reached(&defs, name, |d| &d.callees)?
                .iter()
                .all(|d| !d.warp_level),
        )
    };
    for f in findings
        .iter_mut()
        .filter(|f| f.rule == "HP107" && f.status != Status::Pass)
    {
        let Some(end) = f.message.find(ELSEWHERE) else {
            continue;
        };
        let Some(start) = f.message[..end].rfind('`') else {
            continue;
        };
        let name = f.message[start + 1..end].to_string();
        if quiet(&name) == Some(true) {
            f.settle(&format!(" — `{name}` (and what it calls in the project) does no warp-level work: no shuffles, votes, warp barriers or lane ids, so its 32 threads never act as a warp and a 64-lane wavefront changes nothing"));
        }
    }
}
